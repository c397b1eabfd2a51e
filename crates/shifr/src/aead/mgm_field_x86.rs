//! MGM's sums of products with the x86-64 carry-less multiply instructions (see `mgm_field`).
//!
//! - PCLMULQDQ: each block pair costs four PCLMULQDQ (one for GF(2^64)) and XORs into three
//!   running 128-bit accumulators.
//! - VPCLMULQDQ on 512-bit registers (with AVX-512 F and BW): eight GF(2^64) block pairs per two
//!   instructions (the even and the odd 64-bit lane of each 128-bit lane), or four GF(2^128) pairs
//!   per four; the blocks are byte-swapped in registers with `vpshufb`, and the lanes are folded
//!   into one 128-bit sum once per call.
//!
//! Nothing is reduced here. Both instructions run in data-independent time, and nothing branches
//! on the data.

use super::mgm_field::{be128, be64, Wide};
use crate::x86_u128::{to_u128, to_vec};
use core::arch::x86_64::{
    __m128i, __m512i, _mm512_clmulepi64_epi128, _mm512_extracti32x4_epi32, _mm512_loadu_si512,
    _mm512_setzero_si512, _mm512_shuffle_epi8, _mm512_ternarylogic_epi64, _mm512_xor_si512,
    _mm_clmulepi64_si128, _mm_set_epi64x, _mm_setzero_si128, _mm_xor_si128,
};

/// Which instruction computes the products.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Clmul {
    /// PCLMULQDQ, one product per instruction.
    Pclmul,
    /// VPCLMULQDQ on 512-bit registers, four products per instruction.
    Vpclmul512,
}

impl Clmul {
    /// Whether this CPU has everything `self` uses.
    pub(super) fn is_supported(self) -> bool {
        let f = crate::cpu::features();
        match self {
            Clmul::Pclmul => f.pclmulqdq,
            Clmul::Vpclmul512 => f.pclmulqdq && f.vpclmulqdq && f.avx512f && f.avx512bw,
        }
    }
}

/// `acc += sum_i H_i * X_i` over the `n`-byte blocks of `h` and `x`; returns `false` (and does
/// nothing) when this CPU lacks what `clmul` needs.
pub(super) fn mul_sum(clmul: Clmul, n: usize, h: &[u8], x: &[u8], acc: &mut Wide) -> bool {
    if !clmul.is_supported() {
        return false;
    }
    let blocks = (h.len() / n).min(x.len() / n);
    let (h, x) = (&h[..blocks * n], &x[..blocks * n]);
    match clmul {
        Clmul::Pclmul => {
            // SAFETY: PCLMULQDQ support was checked just above (SSE2 is part of x86-64).
            unsafe { pclmul(n, h, x, acc) }
        }
        Clmul::Vpclmul512 => {
            // SAFETY: AVX-512 F, BW, VPCLMULQDQ and PCLMULQDQ support was checked just above.
            unsafe { vpclmul512(n, h, x, acc) }
        }
    }
    true
}

#[target_feature(enable = "pclmulqdq,sse2")]
fn pclmul(n: usize, h: &[u8], x: &[u8], acc: &mut Wide) {
    if n == 16 {
        sum128(h, x, acc)
    } else {
        acc.lo ^= to_u128(sum64(h, x));
    }
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
    add_karatsuba_parts(to_u128(lo), to_u128(mid), to_u128(hi), acc);
}

/// Adds the product whose low, middle (cross) and high 128-bit parts are given.
fn add_karatsuba_parts(lo: u128, mid: u128, hi: u128, acc: &mut Wide) {
    acc.lo ^= lo ^ (mid << 64);
    acc.hi ^= hi ^ (mid >> 64);
}

/// The sum of the 127-bit products of the 8-byte blocks of `h` and `x`.
#[target_feature(enable = "pclmulqdq,sse2")]
fn sum64(h: &[u8], x: &[u8]) -> __m128i {
    let mut sum = _mm_setzero_si128();
    for (hb, xb) in h.chunks_exact(8).zip(x.chunks_exact(8)) {
        let a = _mm_set_epi64x(0, be64(hb) as i64);
        let b = _mm_set_epi64x(0, be64(xb) as i64);
        sum = _mm_xor_si128(sum, _mm_clmulepi64_si128::<0x00>(a, b));
    }
    sum
}

/// `vpshufb` indices that byte-swap every 64-bit (`width` 8) or 128-bit (`width` 16) lane.
const fn swap_index(width: usize) -> [u8; 64] {
    let mut idx = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        // vpshufb indexes within each 128-bit lane.
        let within = i % 16;
        idx[i] = ((within / width) * width + (width - 1 - within % width)) as u8;
        i += 1;
    }
    idx
}

static SWAP64: [u8; 64] = swap_index(8);
static SWAP128: [u8; 64] = swap_index(16);

#[inline]
#[target_feature(enable = "avx512f")]
fn load_index(index: &[u8; 64]) -> __m512i {
    // SAFETY: `index` is 64 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm512_loadu_si512(index.as_ptr().cast()) }
}

/// The first 64 bytes of `bytes`, byte-swapped with `swap`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn load_swapped(bytes: &[u8], swap: __m512i) -> __m512i {
    let bytes = &bytes[..64];
    // SAFETY: `bytes` is 64 readable bytes; `loadu` has no alignment requirement.
    let v = unsafe { _mm512_loadu_si512(bytes.as_ptr().cast()) };
    _mm512_shuffle_epi8(v, swap)
}

/// XOR of the four 128-bit lanes of `v`.
#[inline]
#[target_feature(enable = "avx512f")]
fn fold_lanes(v: __m512i) -> u128 {
    let a = _mm_xor_si128(
        _mm512_extracti32x4_epi32::<0>(v),
        _mm512_extracti32x4_epi32::<1>(v),
    );
    let b = _mm_xor_si128(
        _mm512_extracti32x4_epi32::<2>(v),
        _mm512_extracti32x4_epi32::<3>(v),
    );
    to_u128(_mm_xor_si128(a, b))
}

#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq,pclmulqdq")]
fn vpclmul512(n: usize, h: &[u8], x: &[u8], acc: &mut Wide) {
    // 64 bytes (eight or four blocks) per step; the rest goes through PCLMULQDQ.
    let whole = h.len() / 64 * 64;
    if n == 8 {
        let swap = load_index(&SWAP64);
        let mut sum = _mm512_setzero_si512();
        for at in (0..whole).step_by(64) {
            let a = load_swapped(&h[at..], swap);
            let b = load_swapped(&x[at..], swap);
            // 0x96: the XOR of all three.
            sum = _mm512_ternarylogic_epi64::<0x96>(
                sum,
                _mm512_clmulepi64_epi128::<0x00>(a, b),
                _mm512_clmulepi64_epi128::<0x11>(a, b),
            );
        }
        acc.lo ^= fold_lanes(sum) ^ to_u128(sum64(&h[whole..], &x[whole..]));
    } else {
        let swap = load_index(&SWAP128);
        let (mut lo, mut mid, mut hi) = (
            _mm512_setzero_si512(),
            _mm512_setzero_si512(),
            _mm512_setzero_si512(),
        );
        for at in (0..whole).step_by(64) {
            let a = load_swapped(&h[at..], swap);
            let b = load_swapped(&x[at..], swap);
            lo = _mm512_xor_si512(lo, _mm512_clmulepi64_epi128::<0x00>(a, b));
            hi = _mm512_xor_si512(hi, _mm512_clmulepi64_epi128::<0x11>(a, b));
            mid = _mm512_ternarylogic_epi64::<0x96>(
                mid,
                _mm512_clmulepi64_epi128::<0x01>(a, b),
                _mm512_clmulepi64_epi128::<0x10>(a, b),
            );
        }
        add_karatsuba_parts(fold_lanes(lo), fold_lanes(mid), fold_lanes(hi), acc);
        sum128(&h[whole..], &x[whole..], acc);
    }
}
