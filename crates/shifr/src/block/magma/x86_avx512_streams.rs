//! Multi-stream feedback modes for Magma / GOST 28147-89 on AVX-512 VBMI: CBC encryption, CFB
//! (both directions) and the CBC-MAC chain of OMAC over up to 32 streams, each with its own key,
//! in one call ([`crate::block::BlockCipher::feedback_lanes`]).
//!
//! A stream's blocks depend on each other, so the parallelism is across streams: lane `i` of a
//! group register carries stream `i`, as in the one-block-per-lane kernel of `x86_avx512`. What
//! this kernel adds is that everything that does not change from block to block stays in
//! registers for the whole call: the transposed round keys of every lane, the S-box tables, and
//! the chaining values, kept in the split `(a_0, a_1)` form the rounds work on (so the feedback
//! costs no shuffle at all, only a `vpxord`). The data moves in batches of eight blocks per
//! stream: one 64-byte load from each of sixteen streams, a byte shuffle for the layout and a
//! 16 x 16 transpose of 32-bit words (four stages of `vpermt2d`) give the `a_0` and `a_1`
//! registers of eight block indices; results go back the same way. These permutes are off the
//! chain from block to block, which is latency-bound (32 rounds of `x86_avx512::half_round`);
//! with more than sixteen streams two groups interleave their rounds.
//!
//! Constant-time like the rest of the AVX-512 backend: register lookups only; the addresses
//! touched depend only on the (public) stream lengths.

use core::arch::x86_64::{
    __m512i, _mm512_loadu_si512, _mm512_mask_storeu_epi8, _mm512_maskz_loadu_epi8,
    _mm512_permutex2var_epi32, _mm512_setzero_si512, _mm512_shuffle_epi8, _mm512_xor_si512,
};

use super::nibble::NibbleTables;
use super::soft::Layout;
use super::x86_avx512::{lane_keys, rounds, Avx512Vbmi, Consts, LANES};
use crate::block::Feedback;

/// Groups of sixteen lanes whose rounds interleave.
const GROUPS: usize = 2;
/// The most streams one kernel call takes; more are run in further calls.
const CHUNK: usize = LANES * GROUPS;
/// Blocks of every stream moved per load: 64 bytes, one register per stream.
const BATCH: usize = 8;

/// The four modes, as a const parameter of the kernel.
const CBC: u8 = 0;
const CFB_ENCRYPT: u8 = 1;
const CFB_DECRYPT: u8 = 2;
const MAC: u8 = 3;

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
        if run.streams() != keys.len() || run.common_len(8, registers.len()).is_none() {
            return false;
        }
        // SAFETY: an `Avx512Vbmi` exists only when `new` found AVX-512 F, BW and VBMI.
        unsafe { feedback(keys, tables, layout, registers, run) };
        true
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn feedback(
    keys: &[&[u32; 8]],
    tables: &NibbleTables,
    layout: Layout,
    registers: &mut [u8],
    mut run: Feedback<'_, '_>,
) {
    let c = Consts::new(tables, layout);
    let order = load64(match layout {
        Layout::BigEndian => &REVERSE_QWORDS,
        Layout::Gost89 => &IDENTITY,
    });
    let mode = match run {
        Feedback::CbcEncrypt(_) => CBC,
        Feedback::CfbEncrypt(_) => CFB_ENCRYPT,
        Feedback::CfbDecrypt(_) => CFB_DECRYPT,
        Feedback::CbcMac(_) => MAC,
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
            order,
            lanes: keys.len(),
        };
        match (keys.len() > LANES, mode) {
            (false, CBC) => k.chunk::<1, CBC>(keys, registers, &mut part),
            (false, CFB_ENCRYPT) => k.chunk::<1, CFB_ENCRYPT>(keys, registers, &mut part),
            (false, CFB_DECRYPT) => k.chunk::<1, CFB_DECRYPT>(keys, registers, &mut part),
            (false, _) => k.chunk::<1, MAC>(keys, registers, &mut part),
            (true, CBC) => k.chunk::<2, CBC>(keys, registers, &mut part),
            (true, CFB_ENCRYPT) => k.chunk::<2, CFB_ENCRYPT>(keys, registers, &mut part),
            (true, CFB_DECRYPT) => k.chunk::<2, CFB_DECRYPT>(keys, registers, &mut part),
            (true, _) => k.chunk::<2, MAC>(keys, registers, &mut part),
        }
    }
}

/// `vpshufb` indices that turn each 8-byte block of the Magma layout into the little-endian pair
/// `a_0 | a_1 << 32` (a byte reversal, its own inverse); the GOST 28147-89 layout already is one.
static REVERSE_QWORDS: [u8; 64] = {
    let mut idx = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        idx[i] = (i % 16 / 8 * 8 + 7 - i % 8) as u8;
        i += 1;
    }
    idx
};
static IDENTITY: [u8; 64] = {
    let mut idx = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        idx[i] = (i % 16) as u8;
        i += 1;
    }
    idx
};

/// `vpermt2d` indices of the 16 x 16 transpose of 32-bit words in [`transpose`]: stage `s` swaps
/// bit `s` of the register number with bit `s` of the word number. Output register `r` draws
/// from registers `r` with bit `s` clear (`A`) and set (`B`); entry `[s][bit s of r][e]` picks
/// word `e` with bit `s` replaced by that of `r`, from `B` when bit `s` of `e` is set.
static TRANSPOSE: [[[u32; 16]; 2]; 4] = {
    let mut idx = [[[0u32; 16]; 2]; 4];
    let mut s = 0;
    while s < 4 {
        let bit = 1 << s;
        let mut r = 0;
        while r < 2 {
            let mut e = 0;
            while e < 16 {
                let from_b = if e & bit != 0 { 16 } else { 0 };
                let word = if r == 1 { e | bit } else { e & !bit };
                idx[s][r][e] = (from_b + word) as u32;
                e += 1;
            }
            r += 1;
        }
        s += 1;
    }
    idx
};

#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn load64(table: &[u8; 64]) -> __m512i {
    // SAFETY: `table` is 64 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm512_loadu_si512(table.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn load_words(index: &[u32; 16]) -> __m512i {
    // SAFETY: `index` is 64 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm512_loadu_si512(index.as_ptr().cast()) }
}

/// The 16 x 16 transpose of 32-bit words: word `e` of register `r` goes to word `r` of register `e`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn transpose(mut v: [__m512i; 16]) -> [__m512i; 16] {
    for (s, index) in TRANSPOSE.iter().enumerate() {
        let bit = 1 << s;
        let index = [load_words(&index[0]), load_words(&index[1])];
        v = core::array::from_fn(|r| {
            _mm512_permutex2var_epi32(v[r & !bit], index[(r & bit) >> s], v[r | bit])
        });
    }
    v
}

/// The mask of the first `bytes` bytes of a register (`bytes <= 64`).
#[inline(always)]
fn byte_mask(bytes: usize) -> u64 {
    if bytes >= 64 {
        u64::MAX
    } else {
        (1u64 << bytes) - 1
    }
}

/// Bytes `at..at + bytes` of `stream`, if it has them. The per-lane helpers of this module avoid
/// closures: a closure handed to a generic function (`Option::and_then`, `array::from_fn`) does not
/// get the kernel's target features, is then not inlined into it, and put a call, a `vzeroupper`
/// and the spilling of every live vector register into each lane's load and store.
#[inline(always)]
fn part(stream: Option<&[u8]>, at: usize, bytes: usize) -> Option<&[u8]> {
    match stream {
        Some(s) => s.get(at..at + bytes),
        None => None,
    }
}

/// What a chunk of up to 32 streams shares.
struct Kernel<'c> {
    c: &'c Consts,
    /// The layout's byte order ([`REVERSE_QWORDS`] or [`IDENTITY`]).
    order: __m512i,
    lanes: usize,
}

impl Kernel<'_> {
    /// `a_0` (even registers) and `a_1` (odd) words of the `blocks` (at most eight) blocks of
    /// group `g` at byte `at` of every stream: register `2j + h` holds half `h` of block `j`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    fn load(&self, streams: &Feedback, g: usize, at: usize, blocks: usize) -> [__m512i; 16] {
        let bytes = 8 * blocks;
        let mut rows = [_mm512_setzero_si512(); 16];
        for (l, row) in rows.iter_mut().enumerate() {
            if let Some(src) = part(streams.stream(LANES * g + l), at, bytes) {
                // SAFETY: only the `bytes` bytes selected by the mask are read, all inside `src`.
                let v = unsafe { _mm512_maskz_loadu_epi8(byte_mask(bytes), src.as_ptr().cast()) };
                *row = _mm512_shuffle_epi8(v, self.order);
            }
        }
        transpose(rows)
    }

    /// The inverse of [`Kernel::load`]: writes `blocks` blocks of every stream of group `g`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    fn store(&self, streams: &mut Feedback, g: usize, at: usize, blocks: usize, w: [__m512i; 16]) {
        let bytes = 8 * blocks;
        let rows = transpose(w);
        for (l, row) in rows.iter().enumerate() {
            let dst = match streams.stream_mut(LANES * g + l) {
                Some(s) => s.get_mut(at..at + bytes),
                None => None,
            };
            if let Some(dst) = dst {
                let out = _mm512_shuffle_epi8(*row, self.order);
                // SAFETY: only the `bytes` bytes selected by the mask are written, all inside `dst`.
                unsafe { _mm512_mask_storeu_epi8(dst.as_mut_ptr().cast(), byte_mask(bytes), out) };
            }
        }
    }

    /// The chaining values of group `g` from (or, with `value`, into) `registers`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    fn registers(
        &self,
        registers: &mut [u8],
        g: usize,
        value: Option<[__m512i; 2]>,
    ) -> [__m512i; 2] {
        let mut lanes: Vec<&mut [u8]> = registers
            .chunks_exact_mut(8)
            .skip(LANES * g)
            .take(LANES)
            .collect();
        let mut streams = Feedback::CbcEncrypt(&mut lanes);
        match value {
            Some([a0, a1]) => {
                let mut w = [_mm512_setzero_si512(); 16];
                (w[0], w[1]) = (a0, a1);
                self.store(&mut streams, 0, 0, 1, w);
                [a0, a1]
            }
            None => {
                let w = self.load(&streams, 0, 0, 1);
                [w[0], w[1]]
            }
        }
    }

    /// Every block of the (at most 32) streams, `G` groups of sixteen lanes.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    fn chunk<const G: usize, const MODE: u8>(
        &self,
        keys: &[&[u32; 8]],
        registers: &mut [u8],
        streams: &mut Feedback,
    ) {
        let round_keys: [[__m512i; 8]; G] = core::array::from_fn(|g| {
            let end = keys.len().min(LANES * (g + 1));
            lane_keys(keys.get(LANES * g..end).unwrap_or(&[]))
        });
        let mut chain: [[__m512i; 2]; G] =
            core::array::from_fn(|g| self.registers(registers, g, None));
        let len = (0..self.lanes)
            .find_map(|l| streams.stream_len(l))
            .unwrap_or(0);
        let blocks = len / 8;
        let mut done = 0;
        while done < blocks {
            let batch = (blocks - done).min(BATCH);
            let at = 8 * done;
            let mut input = [[_mm512_setzero_si512(); 16]; G];
            for (g, input) in input.iter_mut().enumerate() {
                *input = self.load(streams, g, at, batch);
            }
            let mut output = [[_mm512_setzero_si512(); 16]; G];
            for j in 0..batch {
                let mut state = chain;
                if MODE == CBC || MODE == MAC {
                    for (state, input) in state.iter_mut().zip(&input) {
                        state[0] = _mm512_xor_si512(state[0], input[2 * j]);
                        state[1] = _mm512_xor_si512(state[1], input[2 * j + 1]);
                    }
                }
                rounds::<G, false>(&mut state, &round_keys, self.c);
                for g in 0..G {
                    // The rounds end without the last swap: the a_0 word is in state[g][1].
                    let y = [state[g][1], state[g][0]];
                    let p = [input[g][2 * j], input[g][2 * j + 1]];
                    let out = match MODE {
                        CBC | MAC => y,
                        _ => [_mm512_xor_si512(p[0], y[0]), _mm512_xor_si512(p[1], y[1])],
                    };
                    chain[g] = if MODE == CFB_DECRYPT { p } else { out };
                    (output[g][2 * j], output[g][2 * j + 1]) = (out[0], out[1]);
                }
            }
            if MODE != MAC {
                for (g, w) in output.into_iter().enumerate() {
                    self.store(streams, g, at, batch, w);
                }
            }
            done += batch;
        }
        for (g, value) in chain.into_iter().enumerate() {
            self.registers(registers, g, Some(value));
        }
    }
}
