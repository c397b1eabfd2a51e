//! ChaCha20 with AVX-512 for a stream call of [`MIN_BYTES`] to [`MAX_BYTES`] bytes: the horizontal
//! form of `x86_avx512_short.rs` (each 512-bit register holds one row of the 4x4 state for four
//! blocks, 128-bit lane `l` belonging to block `counter + l`; the diagonal rounds rotate the rows
//! within each lane with `vpshufd`) in one to four independent groups of four blocks, with the key
//! stream XORed straight into the whole blocks of the data. Only the blocks after them (the key
//! stream of a partial last block and of the blocks computed beyond it) go to the stream's
//! buffer, so a call of whole blocks neither writes nor reads the buffer.
//!
//! One or two groups cost about the latency of one chain of 20 rounds; three or four fill the
//! vector pipes. Below a whole batch this beats the sixteen-block kernel (`x86_avx512.rs`), which
//! would compute up to four times the key stream needed and, for a partial batch, send it through
//! the buffer; for a whole batch that kernel is faster (fewer operations per block: no diagonal
//! shuffles, and its first round partly precomputed).
//!
//! Used only when the CPU reports AVX-512 F (checked by the caller through [`crate::cpu`]).
//! Additions, XORs, rotations, fixed shuffles and blends only: constant-time.

use core::arch::x86_64::{
    __m128i, __m512i, _mm512_add_epi32, _mm512_broadcast_i32x4, _mm512_loadu_si512,
    _mm512_mask_blend_epi32, _mm512_rol_epi32, _mm512_set1_epi32, _mm512_set_epi32,
    _mm512_shuffle_epi32, _mm512_shuffle_i32x4, _mm512_storeu_si512, _mm512_xor_si512,
    _mm_loadu_si128, _MM_PERM_ENUM,
};

/// Blocks of one group (one register per row).
const GROUP_BLOCKS: usize = 4;

/// The shortest call this kernel takes: below it, one computation of four blocks is shared by
/// several calls through the buffer.
pub(super) const MIN_BYTES: usize = 64 * GROUP_BLOCKS;

/// The longest call this kernel takes (four groups).
pub(super) const MAX_BYTES: usize = 4 * MIN_BYTES;

/// XORs the key stream of blocks `counter ..` (block counters taken mod 2^32) into the whole
/// 64-byte blocks of `data` and writes the key stream of the blocks after them into `rest` from
/// its start: four blocks per started [`MIN_BYTES`] of `data` (up to sixteen). Returns the number
/// of blocks computed; 0 (nothing done) if `data` is shorter than [`MIN_BYTES`] or longer than
/// [`MAX_BYTES`]. `state` is the setup state; its word 12 is ignored. Callers must have checked
/// that the CPU supports AVX-512 F.
#[target_feature(enable = "avx512f")]
pub(super) fn xor(
    state: &[u32; 16],
    counter: u32,
    data: &mut [u8],
    rest: &mut [u8; MAX_BYTES],
) -> usize {
    if !(MIN_BYTES..=MAX_BYTES).contains(&data.len()) {
        return 0;
    }
    match data.len().div_ceil(MIN_BYTES) {
        1 => groups::<1>(state, counter, data, rest),
        2 => groups::<2>(state, counter, data, rest),
        3 => groups::<3>(state, counter, data, rest),
        _ => groups::<4>(state, counter, data, rest),
    }
    GROUP_BLOCKS * data.len().div_ceil(MIN_BYTES)
}

/// One group's four rows.
type Rows = [__m512i; 4];

/// `G` groups of four blocks from `counter`: block `j` is XORed into `data[64 j..64 j + 64]` if
/// that is a whole block of `data`, else stored into `rest` after the blocks before it that were
/// not whole blocks of `data`.
#[inline]
#[target_feature(enable = "avx512f")]
fn groups<const G: usize>(state: &[u32; 16], counter: u32, data: &mut [u8], rest: &mut [u8]) {
    let load = |i: usize| {
        // SAFETY: `state[4 * i..4 * i + 4]` (`i < 4`) is 16 readable bytes; `loadu` has no
        // alignment requirement. AVX-512 F is enabled on this function.
        unsafe {
            _mm512_broadcast_i32x4(_mm_loadu_si128(
                state[4 * i..4 * i + 4].as_ptr().cast::<__m128i>(),
            ))
        }
    };
    let input: Rows = [load(0), load(1), load(2), load(3)];
    // Lane `l` of group `g` is block `counter + 4g + l`: only word 12 (the first of row 3)
    // differs, and it replaces the setup state's word 12 (elements 0, 4, 8 and 12).
    let lanes = |g: i32| {
        _mm512_set_epi32(
            0,
            0,
            0,
            4 * g + 3,
            0,
            0,
            0,
            4 * g + 2,
            0,
            0,
            0,
            4 * g + 1,
            0,
            0,
            0,
            4 * g,
        )
    };
    let first = _mm512_set1_epi32(counter as i32);
    let mut start = [input; G];
    for (g, s) in start.iter_mut().enumerate() {
        let counters = _mm512_add_epi32(first, lanes(g as i32));
        s[3] = _mm512_mask_blend_epi32(0x1111, input[3], counters);
    }
    let mut x = start;
    for _ in 0..10 {
        round(&mut x);
        diagonalize::<0x39, 0x4e, 0x93, G>(&mut x);
        round(&mut x);
        diagonalize::<0x93, 0x4e, 0x39, G>(&mut x);
    }
    let whole = data.len() / 64;
    for (g, (x, s)) in x.iter().zip(&start).enumerate() {
        let [a, b, c, d] = [0, 1, 2, 3].map(|i| _mm512_add_epi32(x[i], s[i]));
        // Lanes to blocks: block l = lane l of a, b, c, d (a 4x4 transpose of 128-bit lanes).
        let ab_lo = _mm512_shuffle_i32x4::<0x44>(a, b); // a0 a1 b0 b1
        let cd_lo = _mm512_shuffle_i32x4::<0x44>(c, d); // c0 c1 d0 d1
        let ab_hi = _mm512_shuffle_i32x4::<0xee>(a, b); // a2 a3 b2 b3
        let cd_hi = _mm512_shuffle_i32x4::<0xee>(c, d); // c2 c3 d2 d3
        let blocks = [
            _mm512_shuffle_i32x4::<0x88>(ab_lo, cd_lo),
            _mm512_shuffle_i32x4::<0xdd>(ab_lo, cd_lo),
            _mm512_shuffle_i32x4::<0x88>(ab_hi, cd_hi),
            _mm512_shuffle_i32x4::<0xdd>(ab_hi, cd_hi),
        ];
        for (l, v) in blocks.into_iter().enumerate() {
            let j = GROUP_BLOCKS * g + l;
            if j < whole {
                if let Some(dst) = data.get_mut(64 * j..64 * j + 64) {
                    let p = dst.as_mut_ptr();
                    // SAFETY: `dst` is exactly 64 readable and writable bytes; `loadu`/`storeu`
                    // have no alignment requirement.
                    unsafe {
                        let v = _mm512_xor_si512(_mm512_loadu_si512(p.cast()), v);
                        _mm512_storeu_si512(p.cast(), v);
                    }
                }
            } else if let Some(dst) = rest.get_mut(64 * (j - whole)..64 * (j - whole) + 64) {
                // SAFETY: `dst` is exactly 64 writable bytes; `storeu` has no alignment
                // requirement.
                unsafe { _mm512_storeu_si512(dst.as_mut_ptr().cast(), v) };
            }
        }
    }
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
