//! ChaCha20 key stream with SSE2: four blocks at once, one 128-bit register per state word
//! (lane `l` of every register belongs to block `counter + l`), transposed to block order on output.
//!
//! SSE2 is part of the x86-64 baseline, so this path needs no run-time detection. Like the
//! portable code it uses only additions, XORs, shifts and shuffles: constant-time.

use core::arch::x86_64::{
    __m128i, _mm_add_epi32, _mm_or_si128, _mm_set1_epi32, _mm_set_epi32, _mm_shufflehi_epi16,
    _mm_shufflelo_epi16, _mm_slli_epi32, _mm_srli_epi32, _mm_storeu_si128, _mm_unpackhi_epi32,
    _mm_unpackhi_epi64, _mm_unpacklo_epi32, _mm_unpacklo_epi64, _mm_xor_si128,
};

/// Blocks per call.
pub(super) const BLOCKS: usize = 4;

/// Writes the key stream of blocks `counter .. counter + 4` (mod 2^32) into the first 256 bytes
/// of `out` (whole 16-byte pieces only if `out` is shorter).
pub(super) fn keystream(state: &[u32; 16], counter: u32, out: &mut [u8]) {
    // SAFETY: SSE2 is enabled on every x86-64 target (part of the baseline instruction set), and
    // this module is compiled only for x86-64.
    unsafe { keystream_sse2(state, counter, out) }
}

/// `x <<< 16`: swap the 16-bit halves of every 32-bit lane.
#[inline]
#[target_feature(enable = "sse2")]
fn rotl16(x: __m128i) -> __m128i {
    _mm_shufflehi_epi16::<0b10_11_00_01>(_mm_shufflelo_epi16::<0b10_11_00_01>(x))
}

/// `x <<< L` for `L + R = 32`.
#[inline]
#[target_feature(enable = "sse2")]
fn rotl<const L: i32, const R: i32>(x: __m128i) -> __m128i {
    _mm_or_si128(_mm_slli_epi32::<L>(x), _mm_srli_epi32::<R>(x))
}

#[inline]
#[target_feature(enable = "sse2")]
fn quarter(a: &mut __m128i, b: &mut __m128i, c: &mut __m128i, d: &mut __m128i) {
    *a = _mm_add_epi32(*a, *b);
    *d = rotl16(_mm_xor_si128(*d, *a));
    *c = _mm_add_epi32(*c, *d);
    *b = rotl::<12, 20>(_mm_xor_si128(*b, *c));
    *a = _mm_add_epi32(*a, *b);
    *d = rotl::<8, 24>(_mm_xor_si128(*d, *a));
    *c = _mm_add_epi32(*c, *d);
    *b = rotl::<7, 25>(_mm_xor_si128(*b, *c));
}

/// Stores `v` into the 16 bytes `out[at..at + 16]` (nothing if they are out of bounds).
#[inline]
#[target_feature(enable = "sse2")]
fn store(out: &mut [u8], at: usize, v: __m128i) {
    if let Some(dst) = out.get_mut(at..at + 16) {
        // SAFETY: `dst` is exactly 16 writable bytes and `storeu` has no alignment requirement.
        unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), v) }
    }
}

#[target_feature(enable = "sse2")]
fn keystream_sse2(state: &[u32; 16], counter: u32, out: &mut [u8]) {
    let mut input = [_mm_set1_epi32(0); 16];
    for (v, w) in input.iter_mut().zip(state) {
        *v = _mm_set1_epi32(*w as i32);
    }
    input[12] = _mm_add_epi32(_mm_set1_epi32(counter as i32), _mm_set_epi32(3, 2, 1, 0));

    let [mut x0, mut x1, mut x2, mut x3, mut x4, mut x5, mut x6, mut x7, mut x8, mut x9, mut x10, mut x11, mut x12, mut x13, mut x14, mut x15] =
        input;
    for _ in 0..10 {
        quarter(&mut x0, &mut x4, &mut x8, &mut x12);
        quarter(&mut x1, &mut x5, &mut x9, &mut x13);
        quarter(&mut x2, &mut x6, &mut x10, &mut x14);
        quarter(&mut x3, &mut x7, &mut x11, &mut x15);
        quarter(&mut x0, &mut x5, &mut x10, &mut x15);
        quarter(&mut x1, &mut x6, &mut x11, &mut x12);
        quarter(&mut x2, &mut x7, &mut x8, &mut x13);
        quarter(&mut x3, &mut x4, &mut x9, &mut x14);
    }
    let x = [
        x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15,
    ];

    // Words 4g..4g+3 of the four blocks form a 4x4 matrix (rows = words, lanes = blocks);
    // transposing it gives 16 consecutive key stream bytes of each block.
    for g in 0..4 {
        let w = |i: usize| _mm_add_epi32(x[4 * g + i], input[4 * g + i]);
        let (a, b, c, d) = (w(0), w(1), w(2), w(3));
        let ab_lo = _mm_unpacklo_epi32(a, b);
        let cd_lo = _mm_unpacklo_epi32(c, d);
        let ab_hi = _mm_unpackhi_epi32(a, b);
        let cd_hi = _mm_unpackhi_epi32(c, d);
        store(out, 16 * g, _mm_unpacklo_epi64(ab_lo, cd_lo));
        store(out, 64 + 16 * g, _mm_unpackhi_epi64(ab_lo, cd_lo));
        store(out, 128 + 16 * g, _mm_unpacklo_epi64(ab_hi, cd_hi));
        store(out, 192 + 16 * g, _mm_unpackhi_epi64(ab_hi, cd_hi));
    }
}
