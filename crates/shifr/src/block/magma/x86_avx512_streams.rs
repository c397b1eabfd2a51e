//! Multi-stream feedback modes for Magma / GOST 28147-89 on AVX-512 VBMI: CBC encryption, CFB
//! (both directions), OFB and the CBC-MAC chain of OMAC over up to 32 streams, each with its own
//! key, in one call ([`crate::block::BlockCipher::feedback_lanes`]).
//!
//! In the chained modes a stream's blocks depend on each other, so the parallelism is across
//! streams: lane `i` of a group register carries stream `i`, as in the one-block-per-lane kernel
//! of `x86_avx512`. What this kernel adds is that everything that does not change from block to
//! block stays in registers for the whole call: the transposed round keys of every lane, the
//! S-box tables, and the chaining values, kept in the split `(a_0, a_1)` form the rounds work on
//! (so the feedback costs no shuffle at all, only a `vpxord`).
//!
//! The streams run as one to four interleaved groups of eight lanes, one group per eight streams
//! (a single stream is one group with one live lane), on the 256-bit rounds of
//! `x86_avx512::rounds_256`. On AMD Zen 4 a 256-bit `vpermi2b` has less latency than the 512-bit
//! `vpermb` (which runs as two halves), and the dependency chain of a round, which a feedback mode
//! waits for, runs through it: four eight-lane groups of 32 streams finish a round sooner than the
//! two sixteen-lane groups of the 512-bit rounds would. Blocks come and go four at a time per
//! stream: a 32-byte row of each stream is read with plain loads (masked ones for a last, shorter
//! batch) and turned into the `a_0` and `a_1` lane registers of its four blocks by in-lane
//! shuffles, which also apply the layout's byte order, and the results go back the same way.
//! Gathers and scatters, one per block and eight lanes, are microcoded on Zen 4 and would hold up
//! the issue of the rounds around them.
//!
//! CFB decryption has no chain between the blocks of a stream: block `j` comes out as
//! `C_j ^ E(C_(j-1))`, and every cipher input is ciphertext, known when its batch is loaded. So
//! with one or two groups of streams (up to sixteen), whose rounds alone would wait on the
//! round's dependency chain, the kernel enciphers four blocks of each stream (one group) or two
//! (two groups) in one pass of four interleaved groups, each with the round keys of its streams,
//! and runs at the rate of 32 lanes (`Kernel::run_cfb_decrypt`). A block that a batch leaves
//! alone in a pass (one block left) runs on the streams' own groups, whose rounds finish sooner
//! than four. Three or four groups already fill the interleave and run one block at a time like
//! the other modes. The chaining register leaves as the stream's last ciphertext block, as in
//! every other path.
//!
//! Constant-time like the rest of the AVX-512 backend: register lookups only; the addresses
//! touched depend only on where the (public) streams are and on their (public) lengths.

use core::arch::x86_64::{
    __m256i, __m512i, __mmask8, _mm256_castsi128_si256, _mm256_castsi256_si128,
    _mm256_extracti128_si256, _mm256_inserti128_si256, _mm256_loadu_si256,
    _mm256_permutex2var_epi8, _mm256_setzero_si256, _mm256_unpackhi_epi32, _mm256_unpackhi_epi64,
    _mm256_unpacklo_epi32, _mm256_unpacklo_epi64, _mm256_xor_si256, _mm512_castsi256_si512,
    _mm512_castsi512_si256, _mm512_extracti64x4_epi64, _mm512_inserti64x4, _mm512_mask_storeu_epi8,
    _mm512_maskz_loadu_epi8, _mm_loadu_si128, _mm_mask_storeu_epi32, _mm_maskz_loadu_epi32,
    _mm_setzero_si128, _mm_storeu_si128,
};

use super::nibble::NibbleTables;
use super::soft::Layout;
use super::x86_avx512::{lane_keys, rounds_256, Avx512Vbmi, Consts, HalfConsts, LANES};
use crate::block::Feedback;

/// Lanes of one group: eight 32-bit words fill a 256-bit register.
const HALF: usize = LANES / 2;
/// Groups of eight lanes whose rounds interleave, at most.
const GROUPS: usize = 4;
/// The most streams one kernel call takes; more are run in further calls.
const CHUNK: usize = HALF * GROUPS;

/// The five modes, as a const parameter of the kernel.
const CBC: u8 = 0;
const CFB_ENCRYPT: u8 = 1;
const CFB_DECRYPT: u8 = 2;
const MAC: u8 = 3;
const OFB: u8 = 4;

impl Avx512Vbmi {
    /// Runs `run` (one stream per key, all of one length, whole blocks) chaining from and back into
    /// `registers` (eight bytes per key). Returns false, touching nothing, if the shapes disagree.
    pub(super) fn feedback(
        self,
        keys: &[&[u32; 8]],
        tables: &NibbleTables,
        layout: Layout,
        registers: &mut [u8],
        run: Feedback<'_, '_>,
    ) -> bool {
        let Some(len) = run.common_len(8, registers.len()) else {
            return false;
        };
        if run.streams() != keys.len() {
            return false;
        }
        // SAFETY: an `Avx512Vbmi` exists only when `new` found AVX-512 F, BW, VL and VBMI; every
        // stream holds `len` bytes, a whole number of blocks (`common_len`).
        unsafe { feedback(keys, tables, layout, registers, run, len / 8) };
        true
    }
}

/// # Safety
/// Every stream of `run` holds at least `8 * blocks` bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
unsafe fn feedback(
    keys: &[&[u32; 8]],
    tables: &NibbleTables,
    layout: Layout,
    registers: &mut [u8],
    mut run: Feedback<'_, '_>,
    blocks: usize,
) {
    let c = Consts::new(tables, layout);
    let half = HalfConsts::new(tables);
    let transpose = Transpose::new(layout);
    let mode = match run {
        Feedback::CbcEncrypt(_) => CBC,
        Feedback::CfbEncrypt(_) => CFB_ENCRYPT,
        Feedback::CfbDecrypt(_) => CFB_DECRYPT,
        Feedback::CbcMac(_) => MAC,
        Feedback::Ofb(_) => OFB,
    };
    for (first, (keys, registers)) in keys
        .chunks(CHUNK)
        .zip(registers.chunks_mut(8 * CHUNK))
        .enumerate()
    {
        let first = first * CHUNK;
        let mut part = run.part(first..first + keys.len());
        let k = Kernel {
            c: &c,
            half: &half,
            transpose: &transpose,
            blocks,
        };
        // SAFETY: the streams of `part` are streams of `run`, each with `8 * blocks` bytes.
        // CFB decryption of up to sixteen streams runs several blocks per stream at a time, on
        // four groups, the most whose rounds interleave.
        unsafe {
            match (keys.len().div_ceil(HALF), mode) {
                (0 | 1, CBC) => k.run::<1, CBC>(keys, registers, &mut part),
                (0 | 1, CFB_ENCRYPT) => k.run::<1, CFB_ENCRYPT>(keys, registers, &mut part),
                (0 | 1, CFB_DECRYPT) => k.run_cfb_decrypt::<1, 4>(keys, registers, &mut part),
                (0 | 1, OFB) => k.run::<1, OFB>(keys, registers, &mut part),
                (0 | 1, _) => k.run::<1, MAC>(keys, registers, &mut part),
                (2, CBC) => k.run::<2, CBC>(keys, registers, &mut part),
                (2, CFB_ENCRYPT) => k.run::<2, CFB_ENCRYPT>(keys, registers, &mut part),
                (2, CFB_DECRYPT) => k.run_cfb_decrypt::<2, 4>(keys, registers, &mut part),
                (2, OFB) => k.run::<2, OFB>(keys, registers, &mut part),
                (2, _) => k.run::<2, MAC>(keys, registers, &mut part),
                (3, CBC) => k.run::<3, CBC>(keys, registers, &mut part),
                (3, CFB_ENCRYPT) => k.run::<3, CFB_ENCRYPT>(keys, registers, &mut part),
                (3, CFB_DECRYPT) => k.run::<3, CFB_DECRYPT>(keys, registers, &mut part),
                (3, OFB) => k.run::<3, OFB>(keys, registers, &mut part),
                (3, _) => k.run::<3, MAC>(keys, registers, &mut part),
                (_, CBC) => k.run::<4, CBC>(keys, registers, &mut part),
                (_, CFB_ENCRYPT) => k.run::<4, CFB_ENCRYPT>(keys, registers, &mut part),
                (_, CFB_DECRYPT) => k.run::<4, CFB_DECRYPT>(keys, registers, &mut part),
                (_, OFB) => k.run::<4, OFB>(keys, registers, &mut part),
                (_, _) => k.run::<4, MAC>(keys, registers, &mut part),
            }
        }
    }
}

/// The mask of the first `bytes` bytes of a register (`bytes` is clamped to 64).
#[inline(always)]
fn byte_mask(bytes: usize) -> u64 {
    if bytes >= 64 {
        u64::MAX
    } else {
        (1u64 << bytes) - 1
    }
}

/// Blocks per batch of the eight-lane path: a stream's 32-byte row of four blocks fills a 256-bit
/// register.
const BATCH: usize = 4;

/// `vpermi2b` indices of the first transposition step of [`Kernel::load_batch`] (`high`: the upper
/// dword pair of each 128-bit lane): the dword interleave of `vpunpck{l,h}dq` on rows whose 8-byte
/// blocks are first reversed for the big-endian layout, so that a block's `a_0` word is its first
/// dword and `a_1` its second.
const fn load_index(big_endian: bool, high: bool) -> [u8; 32] {
    let mut idx = [0u8; 32];
    let mut p = 0;
    while p < 32 {
        let (lane, q) = (p / 16, p % 16);
        let (d, k) = (q / 4, q % 4);
        let source = d % 2;
        let dword = d / 2 + if high { 2 } else { 0 };
        let byte = 4 * dword + k;
        let byte = if big_endian { byte ^ 7 } else { byte };
        idx[p] = (32 * source + 16 * lane + byte) as u8;
        p += 1;
    }
    idx
}

/// `vpermi2b` indices of the last transposition step of [`Kernel::store_batch`]: the qword
/// interleave of `vpunpck{l,h}qdq`, each 8-byte block then reversed for the big-endian layout.
const fn store_index(big_endian: bool, high: bool) -> [u8; 32] {
    let mut idx = [0u8; 32];
    let mut p = 0;
    while p < 32 {
        let (lane, q) = (p / 16, p % 16);
        let (source, k) = (q / 8, q % 8);
        let k = if big_endian { k ^ 7 } else { k };
        idx[p] = (32 * source + 16 * lane + if high { 8 } else { 0 } + k) as u8;
        p += 1;
    }
    idx
}

/// The four index vectors of one layout: `[load low, load high, store low, store high]`.
const fn transpose_indices(big_endian: bool) -> [[u8; 32]; 4] {
    [
        load_index(big_endian, false),
        load_index(big_endian, true),
        store_index(big_endian, false),
        store_index(big_endian, true),
    ]
}

static TRANSPOSE_BIG_ENDIAN: [[u8; 32]; 4] = transpose_indices(true);
static TRANSPOSE_GOST89: [[u8; 32]; 4] = transpose_indices(false);

/// The layout's shuffles between the rows of eight streams (four blocks each) and the `[a_0, a_1]`
/// lane columns of their blocks, in registers.
struct Transpose {
    load: [__m256i; 2],
    store: [__m256i; 2],
}

impl Transpose {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
    fn new(layout: Layout) -> Transpose {
        let t = match layout {
            Layout::BigEndian => &TRANSPOSE_BIG_ENDIAN,
            Layout::Gost89 => &TRANSPOSE_GOST89,
        };
        // SAFETY: each index vector is 32 readable bytes; `loadu` has no alignment requirement.
        let v: [__m256i; 4] = unsafe {
            [
                _mm256_loadu_si256(t[0].as_ptr().cast()),
                _mm256_loadu_si256(t[1].as_ptr().cast()),
                _mm256_loadu_si256(t[2].as_ptr().cast()),
                _mm256_loadu_si256(t[3].as_ptr().cast()),
            ]
        };
        Transpose {
            load: [v[0], v[1]],
            store: [v[2], v[3]],
        }
    }
}

/// The streams of one eight-lane group: lane `l < live` is the stream at `read[l]` (and `write[l]`,
/// null for the read-only streams of [`Feedback::CbcMac`]).
#[derive(Clone, Copy)]
struct Rows {
    read: [*const u8; HALF],
    write: [*mut u8; HALF],
    live: usize,
}

impl Rows {
    /// A group without streams.
    const NONE: Rows = Rows {
        read: [core::ptr::null(); HALF],
        write: [core::ptr::null_mut(); HALF],
        live: 0,
    };

    /// Streams `8 * h ..` (up to eight) of `streams`.
    fn new(streams: &mut Feedback, h: usize, write: bool) -> Rows {
        let mut rows = Rows::NONE;
        for l in 0..HALF {
            let i = HALF * h + l;
            if write {
                let Some(s) = streams.stream_mut(i) else {
                    break;
                };
                rows.write[l] = s.as_mut_ptr();
                rows.read[l] = rows.write[l];
            } else {
                let Some(s) = streams.stream(i) else {
                    break;
                };
                rows.read[l] = s.as_ptr();
            }
            rows.live += 1;
        }
        rows
    }
}

/// The dword mask of the first `dwords` (clamped to 4) dwords of a 128-bit register.
#[inline(always)]
fn dword_mask(dwords: usize) -> __mmask8 {
    ((1u8 << dwords.min(4)) - 1) as __mmask8
}

/// What a chunk of up to 32 streams shares.
struct Kernel<'c> {
    c: &'c Consts,
    /// The tables of the eight-lane rounds the chains run on.
    half: &'c HalfConsts,
    /// The shuffles between stream rows and lane columns of the eight-lane groups.
    transpose: &'c Transpose,
    /// Blocks per stream.
    blocks: usize,
}

impl Kernel<'_> {
    /// The chaining values of the (at most sixteen) lanes of `registers` (eight bytes each).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
    fn load_registers(&self, registers: &[u8]) -> [__m512i; 2] {
        let n = registers.len().min(2 * 64);
        // SAFETY: only the first `n` bytes, all inside `registers`, are selected by the masks.
        let (x, y) = unsafe {
            let p = registers.as_ptr();
            (
                _mm512_maskz_loadu_epi8(byte_mask(n), p.cast()),
                _mm512_maskz_loadu_epi8(byte_mask(n.saturating_sub(64)), p.wrapping_add(64).cast()),
            )
        };
        self.c.split(x, y)
    }

    /// The inverse of [`Kernel::load_registers`].
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
    fn store_registers(&self, registers: &mut [u8], [a0, a1]: [__m512i; 2]) {
        let n = registers.len().min(2 * 64);
        let [x, y] = self.c.join([a0, a1]);
        // SAFETY: only the first `n` bytes, all inside `registers`, are selected by the masks.
        unsafe {
            let p = registers.as_mut_ptr();
            _mm512_mask_storeu_epi8(p.cast(), byte_mask(n), x);
            _mm512_mask_storeu_epi8(
                p.wrapping_add(64).cast(),
                byte_mask(n.saturating_sub(64)),
                y,
            );
        }
    }

    /// Blocks `j .. j + m` (`m` = 1..=4) of the streams of `rows` as their lane columns: entry `b`
    /// is `[a_0, a_1]` of block `j + b` of the eight lanes (zero in lanes without a stream and in
    /// entries past `m`). Each stream's two 16-byte halves of its row go to the 128-bit lanes of
    /// two registers (streams `i` and `i + 4` side by side), so that two in-lane 4 x 4 dword
    /// transpositions put the eight streams of a block in order without a cross-lane shuffle.
    ///
    /// # Safety
    /// `j + m <= self.blocks`, and every stream of `rows` holds at least `8 * self.blocks` bytes.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
    unsafe fn load_batch(&self, rows: &Rows, j: usize, m: usize) -> [[__m256i; 2]; BATCH] {
        let zero = _mm256_setzero_si256();
        let mut out = [[zero; 2]; BATCH];
        #[allow(clippy::needless_range_loop)]
        for half in 0..2 {
            // Blocks j + 2 * half and j + 2 * half + 1: two dwords each.
            let dwords = (2 * m).saturating_sub(4 * half);
            if dwords == 0 {
                break;
            }
            let mut x = [zero; 4];
            for (i, x) in x.iter_mut().enumerate() {
                // A plain loop, not a closure: a closure would be compiled without this
                // function's target features, and the intrinsics in it not inlined.
                let mut pair = [_mm_setzero_si128(); 2];
                for (v, l) in pair.iter_mut().zip([i, i + 4]) {
                    if l >= rows.live {
                        continue;
                    }
                    let p = rows.read[l].wrapping_add(8 * (j + 2 * half));
                    // SAFETY: the first `dwords` dwords at `p` lie in blocks `j..j + m` of stream
                    // `l` (the caller's contract); a masked load reads only those.
                    *v = unsafe {
                        if dwords >= 4 {
                            _mm_loadu_si128(p.cast())
                        } else {
                            _mm_maskz_loadu_epi32(dword_mask(dwords), p.cast())
                        }
                    };
                }
                let [low, high] = pair;
                *x = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(low), high);
            }
            let t = &self.transpose.load;
            let t0 = _mm256_permutex2var_epi8(x[0], t[0], x[1]);
            let t1 = _mm256_permutex2var_epi8(x[0], t[1], x[1]);
            let t2 = _mm256_permutex2var_epi8(x[2], t[0], x[3]);
            let t3 = _mm256_permutex2var_epi8(x[2], t[1], x[3]);
            out[2 * half] = [_mm256_unpacklo_epi64(t0, t2), _mm256_unpackhi_epi64(t0, t2)];
            out[2 * half + 1] = [_mm256_unpacklo_epi64(t1, t3), _mm256_unpackhi_epi64(t1, t3)];
        }
        out
    }

    /// The inverse of [`Kernel::load_batch`]: writes entry `b < m` of `columns` (the `a_0`-slot
    /// and `a_1`-slot words of block `j + b` of each lane) to the streams of `rows`.
    ///
    /// # Safety
    /// As for [`Kernel::load_batch`], and the streams of `rows` are writable (`write` set).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
    unsafe fn store_batch(&self, rows: &Rows, j: usize, m: usize, columns: &[[__m256i; 2]; BATCH]) {
        for half in 0..2 {
            let dwords = (2 * m).saturating_sub(4 * half);
            if dwords == 0 {
                break;
            }
            let ([y0, y1], [y2, y3]) = (columns[2 * half], columns[2 * half + 1]);
            let t0 = _mm256_unpacklo_epi32(y0, y1);
            let t1 = _mm256_unpackhi_epi32(y0, y1);
            let t2 = _mm256_unpacklo_epi32(y2, y3);
            let t3 = _mm256_unpackhi_epi32(y2, y3);
            let t = &self.transpose.store;
            let x = [
                _mm256_permutex2var_epi8(t0, t[0], t2),
                _mm256_permutex2var_epi8(t0, t[1], t2),
                _mm256_permutex2var_epi8(t1, t[0], t3),
                _mm256_permutex2var_epi8(t1, t[1], t3),
            ];
            for (i, x) in x.into_iter().enumerate() {
                let halves = [_mm256_castsi256_si128(x), _mm256_extracti128_si256::<1>(x)];
                for (l, v) in [i, i + 4].into_iter().zip(halves) {
                    if l >= rows.live {
                        continue;
                    }
                    let p = rows.write[l].wrapping_add(8 * (j + 2 * half));
                    // SAFETY: the first `dwords` dwords at `p` lie in blocks `j..j + m` of stream
                    // `l`, writable (the caller's contract); a masked store writes only those.
                    unsafe {
                        if dwords >= 4 {
                            _mm_storeu_si128(p.cast(), v);
                        } else {
                            _mm_mask_storeu_epi32(p.cast(), dword_mask(dwords), v);
                        }
                    }
                }
            }
        }
    }

    /// Every block of up to `8 * H` streams as `H` eight-lane groups (`H` = 1..=4, one per eight
    /// streams), whose rounds ([`rounds_256`]) interleave. Blocks come and go in batches of four per stream
    /// with plain loads and stores, moved between stream rows and lane columns in registers
    /// ([`Kernel::load_batch`]); the chaining values stay in lane form throughout.
    ///
    /// # Safety
    /// `keys.len() <= 8 * H`, and every stream of `streams` holds at least `8 * self.blocks` bytes.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
    unsafe fn run<const H: usize, const MODE: u8>(
        &self,
        keys: &[&[u32; 8]],
        registers: &mut [u8],
        streams: &mut Feedback,
    ) {
        let zero = _mm256_setzero_si256();
        let mut round_keys = [[zero; 8]; H];
        let mut chain = [[zero; 2]; H];
        // Sixteen lanes at a time: the key words and chaining values of eight-lane groups 2g and
        // 2g + 1.
        for g in 0..H.div_ceil(2) {
            let (from, to) = (LANES * g, keys.len().min(LANES * (g + 1)));
            let words = lane_keys(keys.get(from..to).unwrap_or(&[]));
            for w in 0..8 {
                round_keys[2 * g][w] = _mm512_castsi512_si256(words[w]);
                if let Some(high) = round_keys.get_mut(2 * g + 1) {
                    high[w] = _mm512_extracti64x4_epi64::<1>(words[w]);
                }
            }
            let regs = registers.get(8 * from..8 * to).unwrap_or(&[]);
            put(&mut chain, g, halves(self.load_registers(regs)));
        }
        let mut rows = [Rows::NONE; H];
        for (h, rows) in rows.iter_mut().enumerate() {
            *rows = Rows::new(streams, h, MODE != MAC);
        }
        let mut j = 0;
        while j < self.blocks {
            let m = (self.blocks - j).min(BATCH);
            let mut input = [[[zero; 2]; BATCH]; H];
            for (input, rows) in input.iter_mut().zip(&rows) {
                // SAFETY: `j + m <= self.blocks`.
                *input = unsafe { self.load_batch(rows, j, m) };
            }
            let mut output = [[[zero; 2]; BATCH]; H];
            for b in 0..m {
                let mut state = chain;
                for (state, input) in state.iter_mut().zip(&input) {
                    *state = round_input::<MODE>(*state, input[b]);
                }
                rounds_256::<H, false>(&mut state, &round_keys, self.half);
                for h in 0..H {
                    (output[h][b], chain[h]) = after_rounds::<MODE>(state[h], input[h][b]);
                }
            }
            if MODE != MAC {
                for (output, rows) in output.iter().zip(&rows) {
                    // SAFETY: `j + m <= self.blocks`; not MAC, so the streams are writable.
                    unsafe { self.store_batch(rows, j, m, output) };
                }
            }
            j += m;
        }
        self.store_lanes(keys.len(), registers, &chain);
    }

    /// CFB decryption of up to `8 * H` streams (`H` eight-lane groups) on `G` interleaved groups:
    /// `G / H` consecutive blocks of every stream in each pass of the rounds. The cipher input of
    /// block `j` is ciphertext block `j - 1` (the chaining value for block 0), all known when the
    /// batch is loaded, so the blocks of a pass do not wait for each other. Group `g` of a pass
    /// is block `g / H` of the pass in the streams of eight-lane group `g % H`, with that group's
    /// round keys. `G / H` divides [`BATCH`]; a pass that runs past the batch's last block
    /// enciphers don't-care lanes whose results are not stored, and a batch's last block left
    /// alone runs on the `H` groups only, whose rounds finish sooner.
    ///
    /// # Safety
    /// As for [`Kernel::run`].
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
    unsafe fn run_cfb_decrypt<const H: usize, const G: usize>(
        &self,
        keys: &[&[u32; 8]],
        registers: &mut [u8],
        streams: &mut Feedback,
    ) {
        let wide = G / H;
        debug_assert!(G.is_multiple_of(H) && BATCH.is_multiple_of(wide) && G <= GROUPS);
        let zero = _mm256_setzero_si256();
        let (round_keys, mut chain) = self.load_lanes::<H>(keys, registers);
        let mut pass_keys = [[zero; 8]; G];
        for (g, k) in pass_keys.iter_mut().enumerate() {
            *k = round_keys[g % H];
        }
        let mut rows = [Rows::NONE; H];
        for (h, rows) in rows.iter_mut().enumerate() {
            *rows = Rows::new(streams, h, true);
        }
        let mut j = 0;
        while j < self.blocks {
            let m = (self.blocks - j).min(BATCH);
            let mut input = [[[zero; 2]; BATCH]; H];
            for (input, rows) in input.iter_mut().zip(&rows) {
                // SAFETY: `j + m <= self.blocks`.
                *input = unsafe { self.load_batch(rows, j, m) };
            }
            let mut output = [[[zero; 2]; BATCH]; H];
            // A fixed number of passes, so that the block indices below are constants; a pass
            // takes two blocks of each stream or more.
            for pass in 0..BATCH / wide {
                let b = pass * wide;
                if b + 1 >= m {
                    break;
                }
                let mut state = [[zero; 2]; G];
                for (g, state) in state.iter_mut().enumerate() {
                    let (h, w) = (g % H, b + g / H);
                    *state = if w == 0 { chain[h] } else { input[h][w - 1] };
                }
                rounds_256::<G, false>(&mut state, &pass_keys, self.half);
                for (g, state) in state.into_iter().enumerate() {
                    let (h, w) = (g % H, b + g / H);
                    (output[h][w], _) = after_rounds::<CFB_DECRYPT>(state, input[h][w]);
                }
            }
            let last = m - 1;
            if last.is_multiple_of(wide) {
                let mut state = [[zero; 2]; H];
                for (h, state) in state.iter_mut().enumerate() {
                    *state = if last == 0 {
                        chain[h]
                    } else {
                        input[h][last - 1]
                    };
                }
                rounds_256::<H, false>(&mut state, &round_keys, self.half);
                for (h, state) in state.into_iter().enumerate() {
                    (output[h][last], _) = after_rounds::<CFB_DECRYPT>(state, input[h][last]);
                }
            }
            for (chain, input) in chain.iter_mut().zip(&input) {
                *chain = input[m - 1];
            }
            for (output, rows) in output.iter().zip(&rows) {
                // SAFETY: `j + m <= self.blocks`; the streams of CFB decryption are writable.
                unsafe { self.store_batch(rows, j, m, output) };
            }
            j += m;
        }
        self.store_lanes(keys.len(), registers, &chain);
    }

    /// The round keys and chaining values of up to `8 * H` lanes as `H` eight-lane groups.
    /// ([`Kernel::run`] has the same steps inline: called from it as well, this is not inlined
    /// into its three- and four-group instances.)
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
    fn load_lanes<const H: usize>(
        &self,
        keys: &[&[u32; 8]],
        registers: &[u8],
    ) -> ([[__m256i; 8]; H], [[__m256i; 2]; H]) {
        let zero = _mm256_setzero_si256();
        let mut round_keys = [[zero; 8]; H];
        let mut chain = [[zero; 2]; H];
        // Sixteen lanes at a time: the key words and chaining values of eight-lane groups 2g and
        // 2g + 1.
        for g in 0..H.div_ceil(2) {
            let (from, to) = (LANES * g, keys.len().min(LANES * (g + 1)));
            let words = lane_keys(keys.get(from..to).unwrap_or(&[]));
            for w in 0..8 {
                round_keys[2 * g][w] = _mm512_castsi512_si256(words[w]);
                if let Some(high) = round_keys.get_mut(2 * g + 1) {
                    high[w] = _mm512_extracti64x4_epi64::<1>(words[w]);
                }
            }
            let regs = registers.get(8 * from..8 * to).unwrap_or(&[]);
            put(&mut chain, g, halves(self.load_registers(regs)));
        }
        (round_keys, chain)
    }

    /// Writes the chaining values of the first `lanes` lanes of `chain` back to `registers`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
    fn store_lanes<const H: usize>(
        &self,
        lanes: usize,
        registers: &mut [u8],
        chain: &[[__m256i; 2]; H],
    ) {
        for g in 0..H.div_ceil(2) {
            let (from, to) = (LANES * g, lanes.min(LANES * (g + 1)));
            if let Some(regs) = registers.get_mut(8 * from..8 * to) {
                self.store_registers(regs, get(chain, g));
            }
        }
    }
}

/// The eight-lane halves (lanes 0..8, then 8..16) of a sixteen-lane `[a_0, a_1]` pair.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
fn halves([a0, a1]: [__m512i; 2]) -> [[__m256i; 2]; 2] {
    [
        [_mm512_castsi512_si256(a0), _mm512_castsi512_si256(a1)],
        [
            _mm512_extracti64x4_epi64::<1>(a0),
            _mm512_extracti64x4_epi64::<1>(a1),
        ],
    ]
}

/// The rounds' input for one block of eight lanes (`[a_0, a_1]` halves): the chaining value,
/// joined by the block `p` in CBC and the MAC chain (the other modes encipher the chaining value
/// alone).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
fn round_input<const MODE: u8>(chain: [__m256i; 2], p: [__m256i; 2]) -> [__m256i; 2] {
    match MODE {
        CBC | MAC => [
            _mm256_xor_si256(chain[0], p[0]),
            _mm256_xor_si256(chain[1], p[1]),
        ],
        _ => chain,
    }
}

/// The output block and the next chaining value of eight lanes from the rounds' final `state`
/// and the block `p` that went in with them.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
fn after_rounds<const MODE: u8>(
    state: [__m256i; 2],
    p: [__m256i; 2],
) -> ([__m256i; 2], [__m256i; 2]) {
    // The rounds end without the last swap: the a_0 word is in state[1].
    let y = [state[1], state[0]];
    let out = match MODE {
        CBC | MAC => y,
        _ => [_mm256_xor_si256(p[0], y[0]), _mm256_xor_si256(p[1], y[1])],
    };
    let chain = match MODE {
        CFB_DECRYPT => p,
        OFB => y,
        _ => out,
    };
    (out, chain)
}

/// Stores the halves of sixteen-lane group `g` as eight-lane groups `2 * g` and `2 * g + 1` of
/// `dst`, dropping the upper half where `dst` has no group for it (odd `H`: the last sixteen-lane
/// group has at most eight lanes).
#[inline(always)]
fn put<const H: usize>(dst: &mut [[__m256i; 2]; H], g: usize, [low, high]: [[__m256i; 2]; 2]) {
    if let Some(d) = dst.get_mut(2 * g) {
        *d = low;
    }
    if let Some(d) = dst.get_mut(2 * g + 1) {
        *d = high;
    }
}

/// Sixteen-lane group `g` of `src` (the inverse of [`put`]; zero lanes where `src` has no
/// group for the upper half).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
fn get<const H: usize>(src: &[[__m256i; 2]; H], g: usize) -> [__m512i; 2] {
    let zero = _mm256_setzero_si256();
    let low = src.get(2 * g).copied().unwrap_or([zero; 2]);
    let high = src.get(2 * g + 1).copied().unwrap_or([zero; 2]);
    whole(low, high)
}

/// The inverse of [`halves`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
fn whole(low: [__m256i; 2], high: [__m256i; 2]) -> [__m512i; 2] {
    [
        _mm512_inserti64x4::<1>(_mm512_castsi256_si512(low[0]), high[0]),
        _mm512_inserti64x4::<1>(_mm512_castsi256_si512(low[1]), high[1]),
    ]
}
