//! GHASH with the x86-64 PCLMULQDQ carry-less multiply instruction.
//!
//! Values are kept in GCM's own (reflected) order: a block read as a big-endian 128-bit integer,
//! so the coefficient of x^i sits at bit 127 - i. The carry-less product of two such values is the
//! reflected 255-bit product, one bit short of 256; after a one-bit left shift the low 128 bits hold
//! the coefficients of x^128..x^255, which fold back with x^128 = x^7 + x^2 + x + 1 (in reflected
//! order, multiplying by x^s is a right shift by s). Eight blocks are multiplied by H^8..H^1 and
//! summed before one reduction; a last group of n < 8 blocks likewise against H^n..H^1.
//! PCLMULQDQ runs in data-independent time.
//!
//! [`WideKey`] (VPCLMULQDQ on 512-bit registers, AVX-512): four blocks per register, sixteen blocks
//! (four registers against H^16..H^1) summed before one reduction, each register's products by
//! Karatsuba (three carry-less multiplies: low halves, high halves, and the XORs of the halves,
//! those of the powers kept in the key); groups of fewer than sixteen blocks go through
//! [`ClmulKey`].

use crate::x86_u128::{karatsuba_halves, to_u128, to_vec};
use core::arch::x86_64::{
    __m128i, _mm_clmulepi64_si128, _mm_loadu_si128, _mm_set_epi8, _mm_setzero_si128,
    _mm_shuffle_epi8, _mm_xor_si128,
};
use core::arch::x86_64::{
    __m512i, _mm512_clmulepi64_epi128, _mm512_extracti32x4_epi32, _mm512_loadu_si512,
    _mm512_set_epi64, _mm512_setzero_si512, _mm512_shuffle_epi32, _mm512_shuffle_epi8,
    _mm512_xor_si512, _mm512_zextsi128_si512,
};

use zeroize::{Zeroize, ZeroizeOnDrop};

/// Blocks folded per reduction.
const AGGREGATE: usize = 8;

/// Powers of the hash subkey, `powers[k] = H^(k+1)` in reflected order. Holding one proves that the
/// CPU has PCLMULQDQ and SSSE3: [`ClmulKey::new`] is the only constructor and checks both.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(super) struct ClmulKey {
    powers: [u128; AGGREGATE],
}

impl ClmulKey {
    /// Precomputes H^1..H^8, or returns `None` when this CPU lacks PCLMULQDQ or SSSE3.
    pub(super) fn new(h: &[u8; 16]) -> Option<ClmulKey> {
        let cpu = crate::cpu::features();
        if !(cpu.pclmulqdq && cpu.ssse3) {
            return None;
        }
        let mut powers = [0u128; AGGREGATE];
        // SAFETY: PCLMULQDQ and SSSE3 support were checked above.
        crate::util::powers(u128::from_be_bytes(*h), &mut powers, |a, b| unsafe {
            mul(a, b)
        });
        Some(ClmulKey { powers })
    }

    /// H in reflected order.
    pub(super) fn h(&self) -> u128 {
        self.powers[0]
    }

    /// `a b` in GF(2^128), operands and result in reflected order.
    pub(super) fn mul(&self, a: u128, b: u128) -> u128 {
        // SAFETY: a `ClmulKey` exists only if the CPU supports PCLMULQDQ (see `new`).
        unsafe { mul(a, b) }
    }

    /// `state = GHASH` continued over the whole 16-byte blocks of `blocks` (state in wire order).
    pub(super) fn absorb(&self, state: &mut [u8; 16], blocks: &[u8]) {
        // SAFETY: a `ClmulKey` exists only if the CPU supports PCLMULQDQ and SSSE3 (see `new`).
        unsafe { absorb(&self.powers, state, blocks) }
    }
}

/// Loads the first 16 bytes of `b` as a big-endian 128-bit value (panics, never reads out of
/// bounds, if `b` is shorter).
#[inline]
#[target_feature(enable = "ssse3")]
fn load_be(b: &[u8]) -> __m128i {
    let b = &b[..16];
    // SAFETY: `b` is exactly 16 readable bytes and `loadu` has no alignment requirement.
    let v = unsafe { _mm_loadu_si128(b.as_ptr().cast()) };
    let reverse = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    _mm_shuffle_epi8(v, reverse)
}

/// An unreduced 256-bit product, as its low, middle (shifted by 64) and high 128-bit parts.
#[derive(Clone, Copy)]
struct Wide {
    lo: __m128i,
    mid: __m128i,
    hi: __m128i,
}

impl Wide {
    #[inline]
    #[target_feature(enable = "pclmulqdq")]
    fn zero() -> Wide {
        Wide {
            lo: _mm_setzero_si128(),
            mid: _mm_setzero_si128(),
            hi: _mm_setzero_si128(),
        }
    }

    /// `self += a * b` (carry-less, schoolbook on 64-bit halves).
    #[inline]
    #[target_feature(enable = "pclmulqdq")]
    fn add_product(&mut self, va: __m128i, vb: __m128i) {
        self.lo = _mm_xor_si128(self.lo, _mm_clmulepi64_si128::<0x00>(va, vb));
        self.hi = _mm_xor_si128(self.hi, _mm_clmulepi64_si128::<0x11>(va, vb));
        let cross = _mm_xor_si128(
            _mm_clmulepi64_si128::<0x01>(va, vb),
            _mm_clmulepi64_si128::<0x10>(va, vb),
        );
        self.mid = _mm_xor_si128(self.mid, cross);
    }

    /// Shift left by one and reduce (see the module doc); returns the reflected field element.
    #[inline]
    #[target_feature(enable = "pclmulqdq")]
    fn reduce(self) -> u128 {
        let (lo, mid, hi) = (to_u128(self.lo), to_u128(self.mid), to_u128(self.hi));
        let p_lo = lo ^ (mid << 64);
        let p_hi = hi ^ (mid >> 64);
        // Reflected 256-bit product: top half = x^0..x^127, bottom half = x^128..x^255.
        let top = (p_hi << 1) | (p_lo >> 127);
        let v = p_lo << 1;
        // v * (1 + x + x^2 + x^7): the part that stays below x^128 ...
        let folded = v ^ (v >> 1) ^ (v >> 2) ^ (v >> 7);
        // ... and the part that spills past x^127 (degree <= 6 after removing x^128), folded again.
        let spill = (v << 127) ^ (v << 126) ^ (v << 121);
        top ^ folded ^ spill ^ (spill >> 1) ^ (spill >> 2) ^ (spill >> 7)
    }
}

#[target_feature(enable = "pclmulqdq")]
fn mul(a: u128, b: u128) -> u128 {
    let mut w = Wide::zero();
    w.add_product(to_vec(a), to_vec(b));
    w.reduce()
}

#[target_feature(enable = "pclmulqdq,ssse3")]
fn absorb(powers: &[u128; AGGREGATE], state: &mut [u8; 16], blocks: &[u8]) {
    let mut h = [_mm_setzero_si128(); AGGREGATE];
    for (v, p) in h.iter_mut().zip(powers) {
        *v = to_vec(*p);
    }
    let mut y = load_be(state);
    let mut groups = blocks.chunks_exact(16 * AGGREGATE);
    for group in &mut groups {
        // Y' = (Y ^ X_1) H^8 ^ X_2 H^7 ^ ... ^ X_8 H.
        let mut w = Wide::zero();
        for (k, chunk) in group.chunks_exact(16).enumerate() {
            let mut x = load_be(chunk);
            if k == 0 {
                x = _mm_xor_si128(x, y);
            }
            w.add_product(x, h[AGGREGATE - 1 - k]);
        }
        y = to_vec(w.reduce());
    }
    // The last one to seven blocks also share one reduction: block k of n against H^(n - k).
    let rest = groups.remainder();
    let n = rest.len() / 16;
    if n > 0 {
        let mut w = Wide::zero();
        for (k, chunk) in rest.chunks_exact(16).enumerate() {
            let mut x = load_be(chunk);
            if k == 0 {
                x = _mm_xor_si128(x, y);
            }
            w.add_product(x, h[n - 1 - k]);
        }
        y = to_vec(w.reduce());
    }
    *state = to_u128(y).to_be_bytes();
}

/// Blocks per reduction in the 512-bit path.
const WIDE_AGGREGATE: usize = 16;

/// H^16..H^1 laid out as four 512-bit registers, block `k` of a 16-block group against
/// H^(16 - k), plus the 128-bit key for short tails. Holding one proves that the CPU has
/// VPCLMULQDQ and AVX-512 F/BW: [`WideKey::new`] is the only constructor and checks them.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(super) struct WideKey {
    /// `powers[k] = H^(16 - k)`, in memory order = lane order of the registers.
    powers: [u128; WIDE_AGGREGATE],
    /// `karatsuba[k]`: the XOR of the two 64-bit halves of `powers[k]`, in both halves.
    karatsuba: [u128; WIDE_AGGREGATE],
    narrow: ClmulKey,
}

impl WideKey {
    /// Precomputes H^1..H^16, or returns `None` when this CPU lacks VPCLMULQDQ or AVX-512 F/BW.
    pub(super) fn new(h: &[u8; 16]) -> Option<WideKey> {
        let cpu = crate::cpu::features();
        if !(cpu.vpclmulqdq && cpu.avx512f && cpu.avx512bw) {
            return None;
        }
        let narrow = ClmulKey::new(h)?;
        let mut ascending = [0u128; WIDE_AGGREGATE];
        // SAFETY: PCLMULQDQ support was checked by `ClmulKey::new`.
        crate::util::powers(u128::from_be_bytes(*h), &mut ascending, |a, b| unsafe {
            mul(a, b)
        });
        let mut powers = [0u128; WIDE_AGGREGATE];
        for (k, p) in powers.iter_mut().enumerate() {
            *p = ascending[WIDE_AGGREGATE - 1 - k];
        }
        ascending.zeroize();
        let karatsuba: [u128; WIDE_AGGREGATE] =
            core::array::from_fn(|k| karatsuba_halves(powers[k]));
        Some(WideKey {
            powers,
            karatsuba,
            narrow,
        })
    }

    /// H in reflected order.
    pub(super) fn h(&self) -> u128 {
        self.narrow.h()
    }

    /// `a b` in GF(2^128), operands and result in reflected order.
    pub(super) fn mul(&self, a: u128, b: u128) -> u128 {
        self.narrow.mul(a, b)
    }

    /// `state = GHASH` continued over the whole 16-byte blocks of `blocks` (state in wire order).
    pub(super) fn absorb(&self, state: &mut [u8; 16], blocks: &[u8]) {
        let whole = blocks.len() / (16 * WIDE_AGGREGATE) * (16 * WIDE_AGGREGATE);
        if whole > 0 {
            // SAFETY: a `WideKey` exists only if the CPU has VPCLMULQDQ and AVX-512 F/BW.
            unsafe { absorb_wide(self, state, &blocks[..whole]) }
        }
        self.narrow.absorb(state, &blocks[whole..]);
    }
}

/// Loads 64 bytes and reverses the bytes of each 16-byte block (GCM's big-endian order).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn load_be4(b: &[u8]) -> __m512i {
    let b = &b[..64];
    // SAFETY: `b` is exactly 64 readable bytes and `loadu` has no alignment requirement.
    let v = unsafe { _mm512_loadu_si512(b.as_ptr().cast()) };
    let r = 0x0001_0203_0405_0607_i64;
    let reverse = _mm512_set_epi64(
        r,
        0x0809_0a0b_0c0d_0e0f,
        r,
        0x0809_0a0b_0c0d_0e0f,
        r,
        0x0809_0a0b_0c0d_0e0f,
        r,
        0x0809_0a0b_0c0d_0e0f,
    );
    _mm512_shuffle_epi8(v, reverse)
}

/// XOR of the four 128-bit lanes.
#[inline]
#[target_feature(enable = "avx512f")]
fn fold_lanes(v: __m512i) -> __m128i {
    _mm_xor_si128(
        _mm_xor_si128(
            _mm512_extracti32x4_epi32::<0>(v),
            _mm512_extracti32x4_epi32::<1>(v),
        ),
        _mm_xor_si128(
            _mm512_extracti32x4_epi32::<2>(v),
            _mm512_extracti32x4_epi32::<3>(v),
        ),
    )
}

#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq,pclmulqdq,ssse3")]
fn absorb_wide(key: &WideKey, state: &mut [u8; 16], blocks: &[u8]) {
    let load4 = |table: &[u128; WIDE_AGGREGATE], j: usize| {
        let p = &table[4 * j..4 * j + 4];
        // SAFETY: `p` is four u128 = 64 readable bytes; their little-endian memory layout is the
        // lane layout `to_vec` uses; `loadu` has no alignment requirement.
        unsafe { _mm512_loadu_si512(p.as_ptr().cast()) }
    };
    let h: [__m512i; 4] = core::array::from_fn(|j| load4(&key.powers, j));
    let hk: [__m512i; 4] = core::array::from_fn(|j| load4(&key.karatsuba, j));
    let mut y = load_be(state);
    for group in blocks.chunks_exact(16 * WIDE_AGGREGATE) {
        let (mut lo, mut mid, mut hi) = (
            _mm512_setzero_si512(),
            _mm512_setzero_si512(),
            _mm512_setzero_si512(),
        );
        for (j, (hj, kj)) in h.iter().zip(&hk).enumerate() {
            let mut x = load_be4(&group[64 * j..]);
            if j == 0 {
                x = _mm512_xor_si512(x, _mm512_zextsi128_si512(y));
            }
            // Karatsuba: (x_lo ^ x_hi)(h_lo ^ h_hi) = mid ^ lo ^ hi, the last two added back
            // once per group below.
            let xk = _mm512_xor_si512(x, _mm512_shuffle_epi32::<0x4e>(x));
            lo = _mm512_xor_si512(lo, _mm512_clmulepi64_epi128::<0x00>(x, *hj));
            hi = _mm512_xor_si512(hi, _mm512_clmulepi64_epi128::<0x11>(x, *hj));
            mid = _mm512_xor_si512(mid, _mm512_clmulepi64_epi128::<0x00>(xk, *kj));
        }
        let (lo, hi) = (fold_lanes(lo), fold_lanes(hi));
        let w = Wide {
            lo,
            mid: _mm_xor_si128(fold_lanes(mid), _mm_xor_si128(lo, hi)),
            hi,
        };
        y = to_vec(w.reduce());
    }
    *state = to_u128(y).to_be_bytes();
}
