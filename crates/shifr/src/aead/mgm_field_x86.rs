//! MGM's sums of products with the x86-64 PCLMULQDQ carry-less multiply (see `mgm_field`).
//!
//! Each block pair costs four PCLMULQDQ (one for GF(2^64)) and XORs into three running 128-bit
//! accumulators; nothing is reduced here. PCLMULQDQ runs in data-independent time.

use super::mgm_field::{be128, be64, Wide};
use crate::x86_u128::{to_u128, to_vec};
use core::arch::x86_64::{_mm_clmulepi64_si128, _mm_set_epi64x, _mm_setzero_si128, _mm_xor_si128};

/// `acc += sum_i H_i * X_i` over the `n`-byte blocks of `h` and `x`; returns `false` (and does
/// nothing) when this CPU lacks PCLMULQDQ.
pub(super) fn mul_sum(n: usize, h: &[u8], x: &[u8], acc: &mut Wide) -> bool {
    if !crate::cpu::features().pclmulqdq {
        return false;
    }
    // SAFETY: PCLMULQDQ support was checked just above (SSE2 is part of x86-64).
    unsafe {
        if n == 16 {
            sum128(h, x, acc)
        } else {
            sum64(h, x, acc)
        }
    }
    true
}

#[target_feature(enable = "pclmulqdq,sse2")]
fn sum128(h: &[u8], x: &[u8], acc: &mut Wide) {
    let (mut lo, mut mid, mut hi) = (
        _mm_setzero_si128(),
        _mm_setzero_si128(),
        _mm_setzero_si128(),
    );
    for (hb, xb) in h.chunks_exact(16).zip(x.chunks_exact(16)) {
        let (a, b) = (to_vec(be128(hb)), to_vec(be128(xb)));
        lo = _mm_xor_si128(lo, _mm_clmulepi64_si128::<0x00>(a, b));
        hi = _mm_xor_si128(hi, _mm_clmulepi64_si128::<0x11>(a, b));
        let cross = _mm_xor_si128(
            _mm_clmulepi64_si128::<0x01>(a, b),
            _mm_clmulepi64_si128::<0x10>(a, b),
        );
        mid = _mm_xor_si128(mid, cross);
    }
    let (lo, mid, hi) = (to_u128(lo), to_u128(mid), to_u128(hi));
    acc.lo ^= lo ^ (mid << 64);
    acc.hi ^= hi ^ (mid >> 64);
}

#[target_feature(enable = "pclmulqdq,sse2")]
fn sum64(h: &[u8], x: &[u8], acc: &mut Wide) {
    let mut sum = _mm_setzero_si128();
    for (hb, xb) in h.chunks_exact(8).zip(x.chunks_exact(8)) {
        let a = _mm_set_epi64x(0, be64(hb) as i64);
        let b = _mm_set_epi64x(0, be64(xb) as i64);
        sum = _mm_xor_si128(sum, _mm_clmulepi64_si128::<0x00>(a, b));
    }
    acc.lo ^= to_u128(sum);
}
