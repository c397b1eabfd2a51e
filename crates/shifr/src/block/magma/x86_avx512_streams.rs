//! Multi-stream feedback modes for Magma / GOST 28147-89 on AVX-512 VBMI: CBC encryption, CFB
//! (both directions), OFB and the CBC-MAC chain of OMAC over up to 32 streams, each with its own
//! key, in one call ([`crate::block::BlockCipher::feedback_lanes`]).
//!
//! A stream's blocks depend on each other, so the parallelism is across streams: lane `i` of a
//! group register carries stream `i`, as in the one-block-per-lane kernel of `x86_avx512`. What
//! this kernel adds is that everything that does not change from block to block stays in
//! registers for the whole call: the transposed round keys of every lane, the S-box tables, and
//! the chaining values, kept in the split `(a_0, a_1)` form the rounds work on (so the feedback
//! costs no shuffle at all, only a `vpxord`). Block `j` of sixteen streams is fetched with two
//! `vpgatherqq` (eight streams each, one 64-bit address per lane) and split into its `a_0` and
//! `a_1` registers by the same two `vpermi2b` as in `x86_avx512` (which also apply the layout's
//! byte order); results go back through the inverse `vpermi2b` pair and two `vpscatterqq`.
//!
//! The chain from block to block is latency-bound (32 dependent rounds), so the kernel keeps
//! everything else off it and out of its way: the next block is gathered before the rounds of this
//! one start, and the previous block is scattered only after them, so that both are ready to run in
//! the ports the rounds leave idle instead of competing with them for the shuffle port at the start
//! of a block. The chaining values are held as eight-lane (256-bit) halves. Up to eight streams (a
//! single-stream chain included) run their rounds as one group of eight lanes and up to sixteen as
//! two interleaved groups (`x86_avx512::rounds_256`, whose round has the shorter dependency chain
//! on AMD Zen 4 than the 512-bit round); with more than sixteen, the two
//! 512-bit groups of `x86_avx512::rounds` interleave, where four 256-bit groups would be bound by
//! the issue of their rounds rather than by latency.
//!
//! Constant-time like the rest of the AVX-512 backend: register lookups only; the addresses
//! touched depend only on where the (public) streams are and on their (public) lengths.

use core::arch::x86_64::{
    __m256i, __m512i, __mmask8, _mm256_setzero_si256, _mm256_xor_si256, _mm512_castsi256_si512,
    _mm512_castsi512_si256, _mm512_extracti64x4_epi64, _mm512_inserti64x4, _mm512_loadu_si512,
    _mm512_mask_i64gather_epi64, _mm512_mask_i64scatter_epi64, _mm512_mask_storeu_epi8,
    _mm512_maskz_loadu_epi8, _mm512_setzero_si512,
};

use super::nibble::NibbleTables;
use super::soft::Layout;
use super::x86_avx512::{lane_keys, rounds, rounds_256, Avx512Vbmi, Consts, HalfConsts, LANES};
use crate::block::Feedback;

/// Groups of sixteen lanes whose rounds interleave.
const GROUPS: usize = 2;
/// The most streams one kernel call takes; more are run in further calls.
const CHUNK: usize = LANES * GROUPS;
/// Lanes per gather: eight 64-bit addresses fill a register.
const HALF: usize = LANES / 2;

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
            blocks,
        };
        // SAFETY: the streams of `part` are streams of `run`, each with `8 * blocks` bytes.
        unsafe {
            match (keys.len().div_ceil(HALF), mode) {
                (0 | 1, CBC) => k.chunk::<1, 1, true, CBC>(keys, registers, &mut part),
                (0 | 1, CFB_ENCRYPT) => {
                    k.chunk::<1, 1, true, CFB_ENCRYPT>(keys, registers, &mut part)
                }
                (0 | 1, CFB_DECRYPT) => {
                    k.chunk::<1, 1, true, CFB_DECRYPT>(keys, registers, &mut part)
                }
                (0 | 1, OFB) => k.chunk::<1, 1, true, OFB>(keys, registers, &mut part),
                (0 | 1, _) => k.chunk::<1, 1, true, MAC>(keys, registers, &mut part),
                (2, CBC) => k.chunk::<1, 2, true, CBC>(keys, registers, &mut part),
                (2, CFB_ENCRYPT) => k.chunk::<1, 2, true, CFB_ENCRYPT>(keys, registers, &mut part),
                (2, CFB_DECRYPT) => k.chunk::<1, 2, true, CFB_DECRYPT>(keys, registers, &mut part),
                (2, OFB) => k.chunk::<1, 2, true, OFB>(keys, registers, &mut part),
                (2, _) => k.chunk::<1, 2, true, MAC>(keys, registers, &mut part),
                (_, CBC) => k.chunk::<2, 4, false, CBC>(keys, registers, &mut part),
                (_, CFB_ENCRYPT) => k.chunk::<2, 4, false, CFB_ENCRYPT>(keys, registers, &mut part),
                (_, CFB_DECRYPT) => k.chunk::<2, 4, false, CFB_DECRYPT>(keys, registers, &mut part),
                (_, OFB) => k.chunk::<2, 4, false, OFB>(keys, registers, &mut part),
                (_, _) => k.chunk::<2, 4, false, MAC>(keys, registers, &mut part),
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

/// The mask of the first `lanes` of eight 64-bit lanes (`lanes` is clamped to 8).
#[inline(always)]
fn lane_mask(lanes: usize) -> __mmask8 {
    ((1u16 << lanes.min(8)) - 1) as __mmask8
}

/// Where the blocks of one group's (up to sixteen) streams are: block `j` of lane `l` lies at
/// `read + 8 * j + offsets[l]`, for the lanes set in `live`.
#[derive(Clone, Copy)]
struct Lanes {
    /// Block 0 of the group's first stream, to read.
    read: *const u8,
    /// The same pointer, to write (null for the read-only streams of [`Feedback::CbcMac`]).
    write: *mut u8,
    /// Each lane's stream start minus `read` (eight lanes per gather).
    offsets: [u64; LANES],
    /// The lanes with a stream, eight per gather.
    live: [__mmask8; 2],
}

impl Lanes {
    /// A group without streams.
    const NONE: Lanes = Lanes {
        read: core::ptr::null(),
        write: core::ptr::null_mut(),
        offsets: [0; LANES],
        live: [0; 2],
    };

    /// The offsets of lanes `8 * half ..`, as a register.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
    fn offsets(&self, half: usize) -> __m512i {
        let half = &self.offsets[HALF * (half & 1)..][..HALF];
        // SAFETY: `half` is eight readable u64 (64 bytes); `loadu` has no alignment requirement.
        unsafe { _mm512_loadu_si512(half.as_ptr().cast()) }
    }
}

/// What a chunk of up to 32 streams shares.
struct Kernel<'c> {
    c: &'c Consts,
    /// The tables of the eight-lane rounds the chains run on.
    half: &'c HalfConsts,
    /// Blocks per stream.
    blocks: usize,
}

impl Kernel<'_> {
    /// The addresses of the streams of group `g`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
    fn lanes(&self, streams: &mut Feedback, g: usize, write: bool) -> Lanes {
        let mut offsets = [0u64; LANES];
        let mut lanes = 0;
        let mut base: *mut u8 = core::ptr::null_mut();
        let mut read: *const u8 = core::ptr::null();
        #[allow(clippy::needless_range_loop)]
        for l in 0..LANES {
            let i = LANES * g + l;
            let p = if write {
                match streams.stream_mut(i) {
                    Some(s) => s.as_mut_ptr() as *const u8,
                    None => break,
                }
            } else {
                match streams.stream(i) {
                    Some(s) => s.as_ptr(),
                    None => break,
                }
            };
            if l == 0 {
                read = p;
                if write {
                    base = p as *mut u8;
                }
            }
            offsets[l] = (p as usize).wrapping_sub(read as usize) as u64;
            lanes += 1;
        }
        Lanes {
            read,
            write: base,
            offsets,
            live: [lane_mask(lanes), lane_mask(lanes.saturating_sub(HALF))],
        }
    }

    /// Block `j` of every stream of `lanes`, as its `[a_0, a_1]` registers.
    ///
    /// # Safety
    /// `j < self.blocks`, and `lanes` describes streams of at least `8 * self.blocks` bytes.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
    unsafe fn gather(&self, lanes: &Lanes, j: usize) -> [__m512i; 2] {
        let zero = _mm512_setzero_si512();
        // SAFETY: each live lane reads the 8 bytes of block `j` of its stream (the caller's
        // contract); dead lanes read nothing.
        let (x, y) = unsafe {
            let base = lanes.read.wrapping_add(8 * j).cast::<i64>();
            (
                _mm512_mask_i64gather_epi64::<1>(zero, lanes.live[0], lanes.offsets(0), base),
                _mm512_mask_i64gather_epi64::<1>(zero, lanes.live[1], lanes.offsets(1), base),
            )
        };
        self.c.split(x, y)
    }

    /// Writes `[a_0, a_1]` as block `j` of every stream of `lanes`.
    ///
    /// # Safety
    /// As for [`Kernel::gather`], and `lanes.write` is not null.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
    unsafe fn scatter(&self, lanes: &Lanes, j: usize, [a0, a1]: [__m512i; 2]) {
        let [x, y] = self.c.join([a0, a1]);
        // SAFETY: each live lane writes the 8 bytes of block `j` of its stream (the caller's
        // contract); dead lanes write nothing.
        unsafe {
            let base = lanes.write.wrapping_add(8 * j).cast::<i64>();
            _mm512_mask_i64scatter_epi64::<1>(base, lanes.live[0], lanes.offsets(0), x);
            _mm512_mask_i64scatter_epi64::<1>(base, lanes.live[1], lanes.offsets(1), y);
        }
    }

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

    /// Every block of the (at most 32) streams, `G` groups of sixteen lanes. Blocks come and go
    /// sixteen lanes at a time (gathers, scatters and their shuffles are 512-bit); the chaining
    /// values are `H = 2 * G` eight-lane halves (`H = 1` for at most eight streams), and the
    /// rounds run on them as they are ([`rounds_256`], `NARROW`, for one group) or joined into the
    /// 512-bit groups of [`rounds`].
    ///
    /// # Safety
    /// Every stream of `streams` holds at least `8 * self.blocks` bytes.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
    unsafe fn chunk<const G: usize, const H: usize, const NARROW: bool, const MODE: u8>(
        &self,
        keys: &[&[u32; 8]],
        registers: &mut [u8],
        streams: &mut Feedback,
    ) {
        debug_assert!(H == 2 * G || (NARROW && G == 1 && H == 1));
        let zero = _mm256_setzero_si256();
        let mut round_keys = [[zero; 8]; H];
        let mut wide_keys = [[_mm512_setzero_si512(); 8]; G];
        let mut chain = [[zero; 2]; H];
        let mut lanes = [Lanes::NONE; G];
        #[allow(clippy::needless_range_loop)]
        for g in 0..G {
            let (from, to) = (LANES * g, keys.len().min(LANES * (g + 1)));
            let words = lane_keys(keys.get(from..to).unwrap_or(&[]));
            if NARROW {
                for w in 0..8 {
                    round_keys[2 * g][w] = _mm512_castsi512_si256(words[w]);
                    if let Some(high) = round_keys.get_mut(2 * g + 1) {
                        high[w] = _mm512_extracti64x4_epi64::<1>(words[w]);
                    }
                }
            } else {
                wide_keys[g] = words;
            }
            let regs = registers.get(8 * from..8 * to).unwrap_or(&[]);
            put(&mut chain, g, halves(self.load_registers(regs)));
            lanes[g] = self.lanes(streams, g, MODE != MAC);
        }
        if self.blocks == 0 {
            return;
        }
        let mut input = [[zero; 2]; H];
        #[allow(clippy::needless_range_loop)]
        for g in 0..G {
            // SAFETY: block 0 < `self.blocks` of streams with `8 * self.blocks` bytes.
            put(&mut input, g, halves(unsafe { self.gather(&lanes[g], 0) }));
        }
        let mut previous = [[zero; 2]; H];
        for j in 0..self.blocks {
            // The next block's input, fetched while this block's rounds run.
            let mut next = [[zero; 2]; H];
            if j + 1 < self.blocks {
                #[allow(clippy::needless_range_loop)]
                for g in 0..G {
                    // SAFETY: `j + 1 < self.blocks`.
                    put(
                        &mut next,
                        g,
                        halves(unsafe { self.gather(&lanes[g], j + 1) }),
                    );
                }
            }
            let mut state = chain;
            if MODE == CBC || MODE == MAC {
                for (state, input) in state.iter_mut().zip(&input) {
                    state[0] = _mm256_xor_si256(state[0], input[0]);
                    state[1] = _mm256_xor_si256(state[1], input[1]);
                }
            }
            if NARROW {
                rounds_256::<H, false>(&mut state, &round_keys, self.half);
            } else {
                let mut wide = [[_mm512_setzero_si512(); 2]; G];
                #[allow(clippy::needless_range_loop)]
                for g in 0..G {
                    wide[g] = get(&state, g);
                }
                rounds::<G, false>(&mut wide, &wide_keys, self.c);
                #[allow(clippy::needless_range_loop)]
                for g in 0..G {
                    put(&mut state, g, halves(wide[g]));
                }
            }
            if MODE != MAC && j > 0 {
                #[allow(clippy::needless_range_loop)]
                for g in 0..G {
                    let out = get(&previous, g);
                    // SAFETY: `j - 1 < self.blocks`; not MAC, so `write` is set.
                    unsafe { self.scatter(&lanes[g], j - 1, out) };
                }
            }
            #[allow(clippy::needless_range_loop)]
            for h in 0..H {
                // The rounds end without the last swap: the a_0 word is in state[h][1].
                let y = [state[h][1], state[h][0]];
                let p = input[h];
                let out = match MODE {
                    CBC | MAC => y,
                    _ => [_mm256_xor_si256(p[0], y[0]), _mm256_xor_si256(p[1], y[1])],
                };
                chain[h] = match MODE {
                    CFB_DECRYPT => p,
                    OFB => y,
                    _ => out,
                };
                previous[h] = out;
            }
            input = next;
        }
        if MODE != MAC {
            #[allow(clippy::needless_range_loop)]
            for g in 0..G {
                let out = get(&previous, g);
                // SAFETY: `self.blocks - 1` is the last block; not MAC, so `write` is set.
                unsafe { self.scatter(&lanes[g], self.blocks - 1, out) };
            }
        }
        #[allow(clippy::needless_range_loop)]
        for g in 0..G {
            let (from, to) = (LANES * g, keys.len().min(LANES * (g + 1)));
            if let Some(regs) = registers.get_mut(8 * from..8 * to) {
                self.store_registers(regs, get(&chain, g));
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

/// Stores the halves of sixteen-lane group `g` as eight-lane groups `2 * g` and `2 * g + 1` of
/// `dst`, dropping the upper half where `dst` has no group for it (`H == 1`: at most eight lanes).
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
