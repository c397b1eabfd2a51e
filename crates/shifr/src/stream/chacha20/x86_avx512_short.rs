//! ChaCha20 key stream of four or eight blocks with AVX-512 in the "horizontal" form: each 512-bit
//! register holds one row of the 4x4 state for four blocks (128-bit lane `l` belongs to block
//! `counter + l`), so one quarter-round step works on all four columns of four blocks at once, and
//! the diagonal rounds rotate the rows within each lane (`vpshufd`) instead of renaming registers.
//!
//! The sixteen-block kernel (`x86_avx512.rs`) has the best throughput, but a message of one or two
//! blocks (plus block 0, the Poly1305 key of ChaCha20-Poly1305) would pay for sixteen. Here the
//! cost is the latency of one chain of 20 rounds over four registers; two independent groups
//! (eight blocks) run interleaved in the same time on a core with two or more vector pipes.
//!
//! The rounds of the chain (`double_round`, `finish`, and `double_round2`/`finish2` for two blocks
//! on 256-bit registers) are also used by the stitched ChaCha20-Poly1305 code
//! (`aead/chacha20poly1305_x86.rs`), which interleaves Poly1305 between the double rounds and
//! builds its input rows in registers from the key and nonce.
//!
//! Used only when the CPU reports AVX-512 F (and VL for the two-block chain; checked by the caller
//! through [`crate::cpu`]).
//! Additions, XORs, rotations and fixed shuffles only: constant-time.

use core::arch::x86_64::{
    __m128i, __m256i, __m512i, _mm256_add_epi32, _mm256_permute2x128_si256, _mm256_rol_epi32,
    _mm256_shuffle_epi32, _mm256_xor_si256, _mm512_add_epi32, _mm512_broadcast_i32x4,
    _mm512_rol_epi32, _mm512_set_epi32, _mm512_shuffle_epi32, _mm512_shuffle_i32x4,
    _mm512_storeu_si512, _mm512_xor_si512, _mm_loadu_si128, _MM_PERM_ENUM,
};
use core::arch::x86_64::{_mm512_maskz_set1_epi32, _mm_blend_epi32, _mm_setzero_si128};

/// Blocks of one group (one register per row).
pub(super) const GROUP_BLOCKS: usize = 4;

/// The most blocks one call writes (two groups).
pub(super) const MAX_BLOCKS: usize = 2 * GROUP_BLOCKS;

/// Writes the key stream of blocks `counter .. counter + n` (block counters taken mod 2^32) into
/// `out[..64 * n]`, where `n` is 4 if `blocks <= 4` and 8 otherwise (`blocks` at most 8), and
/// returns `n`. `state` is the setup state; its word 12 is ignored. `out` must hold `64 * n`
/// bytes; if it is shorter nothing is written and 0 is returned. Callers must have checked that
/// the CPU supports AVX-512 F.
#[target_feature(enable = "avx512f")]
pub(super) fn keystream(state: &[u32; 16], counter: u32, out: &mut [u8], blocks: usize) -> usize {
    if blocks <= GROUP_BLOCKS {
        match out.first_chunk_mut::<{ 64 * GROUP_BLOCKS }>() {
            Some(out) => {
                groups::<1>(state, counter, out);
                GROUP_BLOCKS
            }
            None => 0,
        }
    } else {
        match out.first_chunk_mut::<{ 64 * MAX_BLOCKS }>() {
            Some(out) => {
                groups::<2>(state, counter, out);
                MAX_BLOCKS
            }
            None => 0,
        }
    }
}

/// One group's four rows.
pub(crate) type Rows = [__m512i; 4];

/// `G` groups of four blocks from `counter`, stored in block order into `out` (`256 * G` bytes).
#[inline]
#[target_feature(enable = "avx512f")]
fn groups<const G: usize>(state: &[u32; 16], counter: u32, out: &mut [u8]) {
    let start = start::<G>(state, counter);
    let mut x = start;
    for _ in 0..10 {
        double_round(&mut x);
    }
    for (g, blocks) in finish(&x, &start).into_iter().enumerate() {
        for (l, v) in blocks.into_iter().enumerate() {
            if let Some(dst) = out.get_mut((4 * g + l) * 64..(4 * g + l + 1) * 64) {
                // SAFETY: `dst` is exactly 64 writable bytes; `storeu` has no alignment requirement.
                unsafe { _mm512_storeu_si512(dst.as_mut_ptr().cast(), v) };
            }
        }
    }
}

/// The input rows of `G` groups from `counter`: lane `l` of group `g` is block `counter + 4g + l`
/// of the setup `state` (its word 12 ignored).
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn start<const G: usize>(state: &[u32; 16], counter: u32) -> [Rows; G] {
    let row = |i: usize| {
        // SAFETY: `state[4 * i..4 * i + 4]` (`i < 4`) is 16 readable bytes; `loadu` has no
        // alignment requirement. AVX-512 F (and with it SSE2) is enabled on this function.
        unsafe { _mm_loadu_si128(state[4 * i..4 * i + 4].as_ptr().cast::<__m128i>()) }
    };
    // Word 12 to zero (a dword blend, AVX2 being implied by AVX-512 F): `start_rows` adds the
    // counter to it.
    let row3 = _mm_blend_epi32::<0b0001>(row(3), _mm_setzero_si128());
    start_rows(&[row(0), row(1), row(2), row3], counter)
}

/// The input rows of `G` groups from `counter` for the state `rows` (one 128-bit register per
/// row, the counter word 12 zero): lane `l` of group `g` is block `counter + 4g + l`. Built in
/// registers, with no copy of the state on the stack: a copy written word by word and reloaded
/// by rows is a load that store forwarding cannot serve, at the head of every call.
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn start_rows<const G: usize>(rows: &[__m128i; 4], counter: u32) -> [Rows; G] {
    let input: Rows = [0, 1, 2, 3].map(|i| _mm512_broadcast_i32x4(rows[i]));
    // The counter into word 12 of every lane (one broadcast), then each lane's constant offset.
    let row3 = _mm512_add_epi32(input[3], _mm512_maskz_set1_epi32(0x1111, counter as i32));
    let mut start = [input; G];
    for (g, s) in start.iter_mut().enumerate() {
        let b = 4 * g as i32;
        let lanes = _mm512_set_epi32(0, 0, 0, b + 3, 0, 0, 0, b + 2, 0, 0, 0, b + 1, 0, 0, 0, b);
        s[3] = _mm512_add_epi32(row3, lanes);
    }
    start
}

/// One double round (column round, then diagonal round) on every group.
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn double_round<const G: usize>(x: &mut [Rows; G]) {
    round(x);
    diagonalize::<0x39, 0x4e, 0x93, G>(x);
    round(x);
    diagonalize::<0x93, 0x4e, 0x39, G>(x);
}

/// The key stream after the 20 rounds `x` of the groups that started as `start`: block `l` of
/// group `g` (64 bytes, little-endian words) is element `[g][l]`.
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn finish<const G: usize>(x: &[Rows; G], start: &[Rows; G]) -> [[__m512i; 4]; G] {
    // A plain loop over the groups, not a per-group closure, which the compiler may leave out of
    // line, passing every group's rows through memory.
    let mut out = [x[0]; G];
    for (o, (x, start)) in out.iter_mut().zip(x.iter().zip(start)) {
        let [a, b, c, d] = [
            _mm512_add_epi32(x[0], start[0]),
            _mm512_add_epi32(x[1], start[1]),
            _mm512_add_epi32(x[2], start[2]),
            _mm512_add_epi32(x[3], start[3]),
        ];
        // Lanes to blocks: block l = lane l of a, b, c, d (a 4x4 transpose of 128-bit lanes).
        let ab_lo = _mm512_shuffle_i32x4::<0x44>(a, b); // a0 a1 b0 b1
        let cd_lo = _mm512_shuffle_i32x4::<0x44>(c, d); // c0 c1 d0 d1
        let ab_hi = _mm512_shuffle_i32x4::<0xee>(a, b); // a2 a3 b2 b3
        let cd_hi = _mm512_shuffle_i32x4::<0xee>(c, d); // c2 c3 d2 d3
        *o = [
            _mm512_shuffle_i32x4::<0x88>(ab_lo, cd_lo),
            _mm512_shuffle_i32x4::<0xdd>(ab_lo, cd_lo),
            _mm512_shuffle_i32x4::<0x88>(ab_hi, cd_hi),
            _mm512_shuffle_i32x4::<0xdd>(ab_hi, cd_hi),
        ];
    }
    out
}

/// One column (or, after [`diagonalize`], diagonal) round on every group.
#[inline]
#[target_feature(enable = "avx512f")]
fn round<const G: usize>(x: &mut [Rows; G]) {
    for r in x.iter_mut() {
        r[0] = _mm512_add_epi32(r[0], r[1]);
        r[3] = _mm512_rol_epi32::<16>(_mm512_xor_si512(r[3], r[0]));
    }
    for r in x.iter_mut() {
        r[2] = _mm512_add_epi32(r[2], r[3]);
        r[1] = _mm512_rol_epi32::<12>(_mm512_xor_si512(r[1], r[2]));
    }
    for r in x.iter_mut() {
        r[0] = _mm512_add_epi32(r[0], r[1]);
        r[3] = _mm512_rol_epi32::<8>(_mm512_xor_si512(r[3], r[0]));
    }
    for r in x.iter_mut() {
        r[2] = _mm512_add_epi32(r[2], r[3]);
        r[1] = _mm512_rol_epi32::<7>(_mm512_xor_si512(r[1], r[2]));
    }
}

/// Rotates rows 1, 2 and 3 of every lane by the word shuffles `B`, `C`, `D`: (0x39, 0x4e, 0x93)
/// moves the diagonals into columns, (0x93, 0x4e, 0x39) moves them back.
#[inline]
#[target_feature(enable = "avx512f")]
fn diagonalize<
    const B: _MM_PERM_ENUM,
    const C: _MM_PERM_ENUM,
    const D: _MM_PERM_ENUM,
    const G: usize,
>(
    x: &mut [Rows; G],
) {
    for r in x.iter_mut() {
        r[1] = _mm512_shuffle_epi32::<B>(r[1]);
        r[2] = _mm512_shuffle_epi32::<C>(r[2]);
        r[3] = _mm512_shuffle_epi32::<D>(r[3]);
    }
}

/// Two blocks' rows in 256-bit registers (128-bit lane `l` belongs to block `counter + l`): the
/// same chain as a group of four on half-width registers, for callers that need at most two
/// blocks.
type Rows2 = [__m256i; 4];

/// One double round on two blocks.
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
pub(crate) fn double_round2(r: &mut Rows2) {
    for diag in [false, true] {
        r[0] = _mm256_add_epi32(r[0], r[1]);
        r[3] = _mm256_rol_epi32::<16>(_mm256_xor_si256(r[3], r[0]));
        r[2] = _mm256_add_epi32(r[2], r[3]);
        r[1] = _mm256_rol_epi32::<12>(_mm256_xor_si256(r[1], r[2]));
        r[0] = _mm256_add_epi32(r[0], r[1]);
        r[3] = _mm256_rol_epi32::<8>(_mm256_xor_si256(r[3], r[0]));
        r[2] = _mm256_add_epi32(r[2], r[3]);
        r[1] = _mm256_rol_epi32::<7>(_mm256_xor_si256(r[1], r[2]));
        if diag {
            r[1] = _mm256_shuffle_epi32::<0x93>(r[1]);
            r[2] = _mm256_shuffle_epi32::<0x4e>(r[2]);
            r[3] = _mm256_shuffle_epi32::<0x39>(r[3]);
        } else {
            r[1] = _mm256_shuffle_epi32::<0x39>(r[1]);
            r[2] = _mm256_shuffle_epi32::<0x4e>(r[2]);
            r[3] = _mm256_shuffle_epi32::<0x93>(r[3]);
        }
    }
}

/// The key stream of the two blocks after the 20 rounds `x` that started as `start`: block `l`
/// is `[lo, hi]` at element `l` (bytes 0..32 and 32..64).
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
pub(crate) fn finish2(x: &Rows2, start: &Rows2) -> [[__m256i; 2]; 2] {
    let [a, b, c, d] = [0, 1, 2, 3].map(|i| _mm256_add_epi32(x[i], start[i]));
    [
        [
            _mm256_permute2x128_si256::<0x20>(a, b),
            _mm256_permute2x128_si256::<0x20>(c, d),
        ],
        [
            _mm256_permute2x128_si256::<0x31>(a, b),
            _mm256_permute2x128_si256::<0x31>(c, d),
        ],
    ]
}
