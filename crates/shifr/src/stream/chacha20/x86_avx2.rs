//! ChaCha20 key stream with AVX2: eight blocks at once, one 256-bit register per state word
//! (lane `l` of every register belongs to block `counter + l`), transposed to block order on output.
//!
//! Used only when the CPU reports AVX2 (checked by the caller through [`crate::cpu::features`]).
//! Additions, XORs, shifts and byte shuffles only: constant-time.

use core::arch::x86_64::{
    __m128i, __m256i, _mm256_add_epi32, _mm256_castsi256_si128, _mm256_extracti128_si256,
    _mm256_or_si256, _mm256_set1_epi32, _mm256_set_epi32, _mm256_set_epi8, _mm256_shuffle_epi8,
    _mm256_slli_epi32, _mm256_srli_epi32, _mm256_unpackhi_epi32, _mm256_unpackhi_epi64,
    _mm256_unpacklo_epi32, _mm256_unpacklo_epi64, _mm256_xor_si256, _mm_storeu_si128,
};

/// Blocks per call.
pub(super) const BLOCKS: usize = 8;

/// Writes the key stream of blocks `counter .. counter + 8` (mod 2^32) into `out`.
/// Callers must have checked that the CPU supports AVX2.
#[target_feature(enable = "avx2")]
pub(super) fn keystream(state: &[u32; 16], counter: u32, out: &mut [u8; 64 * BLOCKS]) {
    let mut input = [_mm256_set1_epi32(0); 16];
    for (v, w) in input.iter_mut().zip(state) {
        *v = _mm256_set1_epi32(*w as i32);
    }
    input[12] = _mm256_add_epi32(
        _mm256_set1_epi32(counter as i32),
        _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0),
    );

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

    // As in the SSE2 code, a 4x4 transpose inside each 128-bit half: the low half yields blocks
    // 0..3, the high half blocks 4..7.
    for g in 0..4 {
        let w = |i: usize| _mm256_add_epi32(x[4 * g + i], input[4 * g + i]);
        let (a, b, c, d) = (w(0), w(1), w(2), w(3));
        let ab_lo = _mm256_unpacklo_epi32(a, b);
        let cd_lo = _mm256_unpacklo_epi32(c, d);
        let ab_hi = _mm256_unpackhi_epi32(a, b);
        let cd_hi = _mm256_unpackhi_epi32(c, d);
        let rows = [
            _mm256_unpacklo_epi64(ab_lo, cd_lo),
            _mm256_unpackhi_epi64(ab_lo, cd_lo),
            _mm256_unpacklo_epi64(ab_hi, cd_hi),
            _mm256_unpackhi_epi64(ab_hi, cd_hi),
        ];
        for (l, row) in rows.into_iter().enumerate() {
            store(out, l * 64 + 16 * g, _mm256_castsi256_si128(row));
            store(
                out,
                (l + 4) * 64 + 16 * g,
                _mm256_extracti128_si256::<1>(row),
            );
        }
    }
}

/// `x <<< 16` and `x <<< 8` as byte shuffles within each 32-bit lane.
#[inline]
#[target_feature(enable = "avx2")]
fn rotl16(x: __m256i) -> __m256i {
    let m = _mm256_set_epi8(
        13, 12, 15, 14, 9, 8, 11, 10, 5, 4, 7, 6, 1, 0, 3, 2, //
        13, 12, 15, 14, 9, 8, 11, 10, 5, 4, 7, 6, 1, 0, 3, 2,
    );
    _mm256_shuffle_epi8(x, m)
}

#[inline]
#[target_feature(enable = "avx2")]
fn rotl8(x: __m256i) -> __m256i {
    let m = _mm256_set_epi8(
        14, 13, 12, 15, 10, 9, 8, 11, 6, 5, 4, 7, 2, 1, 0, 3, //
        14, 13, 12, 15, 10, 9, 8, 11, 6, 5, 4, 7, 2, 1, 0, 3,
    );
    _mm256_shuffle_epi8(x, m)
}

/// `x <<< L` for `L + R = 32`.
#[inline]
#[target_feature(enable = "avx2")]
fn rotl<const L: i32, const R: i32>(x: __m256i) -> __m256i {
    _mm256_or_si256(_mm256_slli_epi32::<L>(x), _mm256_srli_epi32::<R>(x))
}

#[inline]
#[target_feature(enable = "avx2")]
fn quarter(a: &mut __m256i, b: &mut __m256i, c: &mut __m256i, d: &mut __m256i) {
    *a = _mm256_add_epi32(*a, *b);
    *d = rotl16(_mm256_xor_si256(*d, *a));
    *c = _mm256_add_epi32(*c, *d);
    *b = rotl::<12, 20>(_mm256_xor_si256(*b, *c));
    *a = _mm256_add_epi32(*a, *b);
    *d = rotl8(_mm256_xor_si256(*d, *a));
    *c = _mm256_add_epi32(*c, *d);
    *b = rotl::<7, 25>(_mm256_xor_si256(*b, *c));
}

/// Stores `v` into the 16 bytes `out[at..at + 16]` (nothing if they are out of bounds).
#[inline]
#[target_feature(enable = "avx2")]
fn store(out: &mut [u8], at: usize, v: __m128i) {
    if let Some(dst) = out.get_mut(at..at + 16) {
        // SAFETY: `dst` is exactly 16 writable bytes and `storeu` has no alignment requirement.
        unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), v) }
    }
}
