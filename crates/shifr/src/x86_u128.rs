//! Moving a `u128` in and out of an SSE register (low 64 bits in lane 0), shared by the
//! PCLMULQDQ code of GHASH, the stitched AES-GCM loop and MGM.

use core::arch::x86_64::{__m128i, _mm_cvtsi128_si64, _mm_set_epi64x, _mm_unpackhi_epi64};

/// `x` as a register: bits 0..64 in lane 0, bits 64..128 in lane 1.
#[inline]
#[target_feature(enable = "sse2")]
pub(crate) fn to_vec(x: u128) -> __m128i {
    _mm_set_epi64x((x >> 64) as i64, x as i64)
}

/// The XOR of the two 64-bit halves of `p`, in both halves: a key power's factor in the middle
/// product of a Karatsuba carry-less multiply, `(x_lo ^ x_hi)(p_lo ^ p_hi)`, kept with the key.
pub(crate) fn karatsuba_halves(p: u128) -> u128 {
    let folded = u128::from((p as u64) ^ ((p >> 64) as u64));
    folded | (folded << 64)
}

/// The inverse of [`to_vec`].
#[inline]
#[target_feature(enable = "sse2")]
pub(crate) fn to_u128(v: __m128i) -> u128 {
    let lo = _mm_cvtsi128_si64(v) as u64;
    let hi = _mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v)) as u64;
    (u128::from(hi) << 64) | u128::from(lo)
}
