//! Poly1305 with AVX-512 IFMA (`vpmadd52luq` / `vpmadd52huq`): radix 2^44, sixteen blocks per
//! step in two 8-lane accumulators.
//!
//! A value below 2^130 is three limbs of 44, 44 and 42 bits. The product `h r` has five partial
//! sums at 2^0, 2^44, 2^88, 2^132 and 2^176; modulo 2^130 - 5 the last two fold back as
//! `2^132 = 20` and `2^176 = 20 * 2^44`, so with `s_i = 20 r_i`:
//!
//! ```text
//! d0 = h0 r0 + h1 s2 + h2 s1      d1 = h0 r1 + h1 r0 + h2 s2      d2 = h0 r2 + h1 r1 + h2 r0
//! ```
//!
//! Each 52x52-bit product leaves its low 52 bits through `vpmadd52luq` and its high 52 bits
//! through `vpmadd52huq`; a high part of limb `i` weighs 2^52 = 2^8 * 2^44, so it goes to limb
//! `i + 1` times 2^8 (limb 2's, at 2^140, comes back to limb 0 times 5 * 2^10), added with one
//! more `vpmadd52luq` by that constant (the sums of high parts are small enough for it to be
//! exact). One round of carries done in parallel (0 -> 1, 1 -> 2, 2 -> 0 times 5) leaves every
//! limb a few bits above its width, far below the 52 bits the next multiply reads. The scheme of the lanes and the final
//! powers is the one of `poly1305_x86` (r^16 in the loop, r^16..r^1 lane by lane at the end).
//!
//! Multiply-adds, shifts, masks and additions only: no branch or memory access depends on the key
//! or the message, so this is constant-time.

use core::arch::x86_64::{
    __m512i, __mmask8, _mm512_add_epi64, _mm512_and_si512, _mm512_extracti32x4_epi32,
    _mm512_loadu_si512, _mm512_madd52hi_epu64, _mm512_madd52lo_epu64,
    _mm512_mask_permutexvar_epi64, _mm512_or_si512, _mm512_permutexvar_epi64,
    _mm512_reduce_add_epi64, _mm512_set1_epi64, _mm512_set_epi64, _mm512_setzero_si512,
    _mm512_slli_epi64, _mm512_srli_epi64, _mm512_storeu_si512, _mm512_sub_epi64,
    _mm512_unpackhi_epi64, _mm512_unpacklo_epi64, _mm_extract_epi64,
};

use zeroize::{Zeroize, ZeroizeOnDrop};

const MASK44: u64 = (1 << 44) - 1;
const MASK42: u64 = (1 << 42) - 1;
const MASK26: u64 = (1 << 26) - 1;

/// Lanes per register and blocks per step (two accumulators).
const LANES: usize = 8;
const STEP_BLOCKS: usize = 2 * LANES;

/// Multiplies two values in 44-bit limbs modulo 2^130 - 5 (scalar; for the key powers). The
/// result has limbs below 2^44, 2^44 + 2^12 and 2^42.
fn mul_mod(a: &[u64; 3], b: &[u64; 3]) -> [u64; 3] {
    let [a0, a1, a2] = a.map(u128::from);
    let [b0, b1, b2] = b.map(u128::from);
    let (s1, s2) = (20 * b1, 20 * b2);
    let d0 = a0 * b0 + a1 * s2 + a2 * s1;
    let mut d1 = a0 * b1 + a1 * b0 + a2 * s2;
    let mut d2 = a0 * b2 + a1 * b1 + a2 * b0;
    let (m44, m42) = (u128::from(MASK44), u128::from(MASK42));
    d1 += d0 >> 44;
    d2 += d1 >> 44;
    let f = (d0 & m44) + (d2 >> 42) * 5;
    let r = [f & m44, (d1 & m44) + (f >> 44), d2 & m42];
    r.map(|x| x as u64)
}

/// 26-bit limbs (each a little above 2^26 at most) to 44-bit limbs of the same value.
fn from_radix26(h: &[u32; 5]) -> [u64; 3] {
    let [h0, h1, h2, h3, h4] = h.map(u64::from);
    let t = h0 + (h1 << 26);
    let l0 = t & MASK44;
    let t = (t >> 44) + (h2 << 8) + (h3 << 34);
    let l1 = t & MASK44;
    let l2 = (t >> 44) + (h4 << 16);
    [l0, l1, l2]
}

/// 44-bit limbs (each below 2^50) to partially reduced 26-bit limbs of the same value mod p.
fn to_radix26(l: [u64; 3]) -> [u32; 5] {
    let [mut l0, mut l1, mut l2] = l;
    l1 += l0 >> 44;
    l0 &= MASK44;
    l2 += l1 >> 44;
    l1 &= MASK44;
    l0 += (l2 >> 42) * 5;
    l2 &= MASK42;
    l1 += l0 >> 44;
    l0 &= MASK44;
    l2 += l1 >> 44;
    l1 &= MASK44;
    // Now l0, l1 < 2^44 and l2 <= 2^42: no two shifted limbs below overlap.
    let h = [
        l0 & MASK26,
        ((l0 >> 26) | (l1 << 18)) & MASK26,
        (l1 >> 8) & MASK26,
        ((l1 >> 34) | (l2 << 10)) & MASK26,
        l2 >> 16,
    ];
    h.map(|x| x as u32)
}

/// The key powers in 44-bit limbs. Holding one proves that the CPU has AVX-512 F and IFMA:
/// [`IfmaKey::new`] is the only constructor and checks them.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(super) struct IfmaKey {
    /// r^16, broadcast for the inner steps.
    top: [u64; 3],
    /// Final per-lane multipliers `[accumulator][limb][element]` in load order.
    last: [[[u64; LANES]; 3]; 2],
}

impl IfmaKey {
    /// Precomputes r^1..r^16 from the clamped `r` (26-bit limbs), or `None` when this CPU lacks
    /// AVX-512 F or IFMA.
    pub(super) fn new(r: &[u32; 5]) -> Option<IfmaKey> {
        let f = crate::cpu::features();
        if !(f.avx512f && f.avx512ifma) {
            return None;
        }
        let mut key = IfmaKey {
            top: [0; 3],
            last: [[[0; LANES]; 3]; 2],
        };
        // SAFETY: AVX-512 F and IFMA were checked above.
        unsafe { key.fill(&from_radix26(r)) };
        Some(key)
    }

    /// Sets the powers of `r` (44-bit limbs): element `e` of the first accumulator holds block
    /// `k = e/2 + 4(e%2)` of a step (see `load_group`), of the second block `8 + k`, each
    /// multiplied at the end by r^(16 - its block): from [`powers`], the first accumulator's
    /// r^16, r^12, r^15, r^11, r^14, r^10, r^13, r^9 are lanes 7, 3, 6, 2, 5, 1, 4, 0 of r^9..r^16,
    /// the second's the same lanes of r^1..r^8.
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn fill(&mut self, r: &[u64; 3]) {
        let (low, high) = powers(r);
        let order = _mm512_set_epi64(0, 4, 1, 5, 2, 6, 3, 7);
        for (acc, powers) in [high, low].iter().enumerate() {
            for (limb, v) in self.last[acc].iter_mut().zip(powers) {
                // SAFETY: `limb` is 64 writable bytes; unaligned store.
                unsafe {
                    _mm512_storeu_si512(
                        limb.as_mut_ptr().cast(),
                        _mm512_permutexvar_epi64(order, *v),
                    )
                };
            }
        }
        // r^16: lane 7 of the high powers.
        self.top = high.map(|v| _mm_extract_epi64::<1>(_mm512_extracti32x4_epi32::<3>(v)) as u64);
    }

    /// Absorbs the whole 16-block steps of `data` (full blocks, 2^128 bit set) into `h`, which is
    /// in 26-bit limbs; returns the number of bytes absorbed.
    pub(super) fn absorb(&self, h: &mut [u32; 5], data: &[u8]) -> usize {
        let whole = data.len() / (16 * STEP_BLOCKS) * (16 * STEP_BLOCKS);
        if whole == 0 {
            return 0;
        }
        let mut acc = from_radix26(h);
        // SAFETY: an `IfmaKey` exists only if the CPU has AVX-512 F and IFMA (see `new`).
        unsafe { absorb_steps(&self.top, &self.last, &mut acc, &data[..whole]) };
        *h = to_radix26(acc);
        acc.zeroize();
        whole
    }
}

/// r^1..r^8 and r^9..r^16 in registers, lane `j` of limb register `i` holding limb `i` of
/// r^(j+1) (of r^(j+9)), in 44-bit limbs a little above their widths at most, as [`mul_reduce`]
/// leaves them: r^2 from one scalar product, then three vector products without a round trip
/// through memory: lanes r..r^n times r^n (broadcast from its lane) give r^(n+1)..r^(2n), for
/// n = 2, 4 and 8. Per message, so it matters: the fifteen scalar products this replaces took
/// about 150 ns on Zen 4, and a version that went through memory between the vector and the
/// scalar steps (store-forwarding stalls) about 115.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn powers(r: &[u64; 3]) -> ([__m512i; 3], [__m512i; 3]) {
    let r2 = mul_mod(r, r);
    let mut low: [__m512i; 3] =
        core::array::from_fn(|i| _mm512_set_epi64(0, 0, 0, 0, 0, 0, r2[i] as i64, r[i] as i64));
    let lane_index = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    let mut known = 2;
    loop {
        // Lanes 0..known hold r^1..r^known; the rest are zeros or products of zeros, which only
        // land on lanes a later step overwrites.
        let top = splat(known as u64 - 1);
        let m: [__m512i; 3] = core::array::from_fn(|i| _mm512_permutexvar_epi64(top, low[i]));
        let next = mul_reduce(&low, &m, &times20(&m));
        if known == LANES {
            return (low, next);
        }
        // Lanes known.. take r^(known+1).. from lanes 0.. of the product.
        let above = (0xffu8 << known) as __mmask8;
        let from = _mm512_sub_epi64(lane_index, splat(known as u64));
        low = core::array::from_fn(|i| _mm512_mask_permutexvar_epi64(low[i], above, from, next[i]));
        known *= 2;
    }
}

#[inline]
#[target_feature(enable = "avx512f")]
fn splat(x: u64) -> __m512i {
    _mm512_set1_epi64(x as i64)
}

#[inline]
#[target_feature(enable = "avx512f")]
fn lanes(x: &[u64; LANES]) -> __m512i {
    // SAFETY: `x` is 64 readable bytes; unaligned load.
    unsafe { _mm512_loadu_si512(x.as_ptr().cast()) }
}

/// The 44-bit limbs (2^128 bit included) of eight blocks; element `2q + h` holds block `q + 4h`.
#[inline]
#[target_feature(enable = "avx512f")]
fn load_group(group: &[u8]) -> [__m512i; 3] {
    let group = &group[..128];
    // SAFETY: `group` is 128 readable bytes, two unaligned 64-byte loads.
    let (a, b) = unsafe {
        (
            _mm512_loadu_si512(group.as_ptr().cast()),
            _mm512_loadu_si512(group[64..].as_ptr().cast()),
        )
    };
    let lo = _mm512_unpacklo_epi64(a, b);
    let hi = _mm512_unpackhi_epi64(a, b);
    let m = splat(MASK44);
    [
        _mm512_and_si512(lo, m),
        _mm512_and_si512(
            _mm512_or_si512(_mm512_srli_epi64::<44>(lo), _mm512_slli_epi64::<20>(hi)),
            m,
        ),
        _mm512_or_si512(_mm512_srli_epi64::<24>(hi), splat(1 << 40)),
    ]
}

/// `h * r` modulo 2^130 - 5 lane by lane, partially reduced (`s = 20 r[1..3]`).
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn mul_reduce(h: &[__m512i; 3], r: &[__m512i; 3], s: &[__m512i; 2]) -> [__m512i; 3] {
    let [h0, h1, h2] = *h;
    let [r0, r1, r2] = *r;
    let [s1, s2] = *s;
    let z = _mm512_setzero_si512();
    let lo = |a: __m512i, b: __m512i, c: __m512i, d: __m512i, e: __m512i, f: __m512i| {
        _mm512_madd52lo_epu64(
            _mm512_madd52lo_epu64(_mm512_madd52lo_epu64(z, a, b), c, d),
            e,
            f,
        )
    };
    let hi = |a: __m512i, b: __m512i, c: __m512i, d: __m512i, e: __m512i, f: __m512i| {
        _mm512_madd52hi_epu64(
            _mm512_madd52hi_epu64(_mm512_madd52hi_epu64(z, a, b), c, d),
            e,
            f,
        )
    };
    let hi0 = hi(h0, r0, h1, s2, h2, s1);
    let hi1 = hi(h0, r1, h1, r0, h2, s2);
    let hi2 = hi(h0, r2, h1, r1, h2, r0);
    // High halves weigh 2^8 of the next limb; limb 2's wraps to limb 0 as 5 * 2^10. Each is
    // added by one more low multiply-add with that weight (one operation instead of a shift and
    // an add, or two of each), exact because hi0 < 2^41, hi1 < 2^39 and hi2 < 2^38 (limbs below
    // 2^45 times multipliers below 2^48.4, three products each), so the products with 2^8 and
    // 5 * 2^10 stay below the 52 bits `vpmadd52luq` keeps.
    let (w8, w5120) = (splat(1 << 8), splat(5 << 10));
    let d0 = _mm512_madd52lo_epu64(lo(h0, r0, h1, s2, h2, s1), hi2, w5120);
    let d1 = _mm512_madd52lo_epu64(lo(h0, r1, h1, r0, h2, s2), hi0, w8);
    let d2 = _mm512_madd52lo_epu64(lo(h0, r2, h1, r1, h2, r0), hi1, w8);
    // Every d_i < 2^55: one parallel round of carries brings the limbs to 2^44 + 2^15,
    // 2^44 + 2^11 and 2^42 + 2^11.
    let (m44, m42) = (splat(MASK44), splat(MASK42));
    let c0 = _mm512_srli_epi64::<44>(d0);
    let c1 = _mm512_srli_epi64::<44>(d1);
    let c2 = _mm512_srli_epi64::<42>(d2);
    [
        _mm512_add_epi64(
            _mm512_and_si512(d0, m44),
            _mm512_add_epi64(c2, _mm512_slli_epi64::<2>(c2)),
        ),
        _mm512_add_epi64(_mm512_and_si512(d1, m44), c0),
        _mm512_add_epi64(_mm512_and_si512(d2, m42), c1),
    ]
}

#[inline]
#[target_feature(enable = "avx512f")]
fn add_limbs(a: &[__m512i; 3], b: &[__m512i; 3]) -> [__m512i; 3] {
    core::array::from_fn(|i| _mm512_add_epi64(a[i], b[i]))
}

#[inline]
#[target_feature(enable = "avx512f")]
fn times20(r: &[__m512i; 3]) -> [__m512i; 2] {
    core::array::from_fn(|i| {
        let x = r[i + 1];
        _mm512_add_epi64(_mm512_slli_epi64::<4>(x), _mm512_slli_epi64::<2>(x))
    })
}

/// Absorbs `data` (a whole number of 16-block steps) into `h` (44-bit limbs).
#[target_feature(enable = "avx512f,avx512ifma")]
fn absorb_steps(top: &[u64; 3], last: &[[[u64; LANES]; 3]; 2], h: &mut [u64; 3], data: &[u8]) {
    let r = top.map(|x| splat(x));
    let s = times20(&r);
    let mut steps = data.chunks_exact(16 * STEP_BLOCKS);
    let Some(first) = steps.next() else {
        return;
    };
    // Element 0 of the first accumulator (block 1 of the message) starts from h.
    let start: [__m512i; 3] = core::array::from_fn(|i| {
        let mut e = [0u64; LANES];
        e[0] = h[i];
        lanes(&e)
    });
    let mut a = add_limbs(&start, &load_group(first));
    let mut b = load_group(&first[128..]);
    for step in steps {
        a = add_limbs(&mul_reduce(&a, &r, &s), &load_group(step));
        b = add_limbs(&mul_reduce(&b, &r, &s), &load_group(&step[128..]));
    }
    let last_a: [__m512i; 3] = core::array::from_fn(|i| lanes(&last[0][i]));
    let last_b: [__m512i; 3] = core::array::from_fn(|i| lanes(&last[1][i]));
    let sum = add_limbs(
        &mul_reduce(&a, &last_a, &times20(&last_a)),
        &mul_reduce(&b, &last_b, &times20(&last_b)),
    );
    // Sixteen limbs below 2^45 each: the sums stay below 2^49.
    *h = sum.map(|v| _mm512_reduce_add_epi64(v) as u64);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value in 44-bit limbs (each at most a little above its width) fully reduced mod p.
    fn reduced(l: &[u64; 3]) -> [u32; 5] {
        let [l0, l1, l2] = l.map(u128::from);
        let (low, carry) = (l0 + (l1 << 44)).overflowing_add((l2 & ((1 << 40) - 1)) << 88);
        let top = (l2 >> 40) as u64 + u64::from(carry);
        crate::mac::poly1305_field::Fe::from_parts(low, top).reduced()
    }

    #[test]
    fn vector_powers_match_scalar_powers() {
        if !crate::cpu::Backend::Ifma.is_supported() {
            println!("AVX-512 IFMA not available on this CPU: skipped");
            return;
        }
        let mut seed = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let clamp = |a: u64, b: u64| {
            let v =
                (u128::from(b) << 64 | u128::from(a)) & 0x0fff_fffc_0fff_fffc_0fff_fffc_0fff_ffff;
            [
                (v as u64) & MASK44,
                ((v >> 44) as u64) & MASK44,
                (v >> 88) as u64,
            ]
        };
        let mut keys = vec![clamp(u64::MAX, u64::MAX)];
        keys.extend((0..64).map(|_| clamp(next(), next())));
        for r in keys {
            let mut lanes = [[[0u64; LANES]; 3]; 2];
            // SAFETY: IFMA checked above; each store writes one 64-byte array.
            unsafe {
                let (low, high) = powers(&r);
                for (half, regs) in lanes.iter_mut().zip([low, high]) {
                    for (limb, v) in half.iter_mut().zip(regs) {
                        _mm512_storeu_si512(limb.as_mut_ptr().cast(), v);
                    }
                }
            }
            let mut scalar = r;
            for k in 0..STEP_BLOCKS {
                let (half, j) = (k / LANES, k % LANES);
                let v = [lanes[half][0][j], lanes[half][1][j], lanes[half][2][j]];
                assert_eq!(reduced(&v), reduced(&scalar), "r^{}", k + 1);
                scalar = mul_mod(&scalar, &r);
            }
            // And the key built from them: r^16 on top, the lanes in `last`'s order.
            let r26 = to_radix26(r);
            let key = IfmaKey::new(&r26).unwrap();
            assert_eq!(
                reduced(&key.top),
                reduced(&[lanes[1][0][7], lanes[1][1][7], lanes[1][2][7]])
            );
            for (acc, half) in [1, 0].into_iter().enumerate() {
                for (e, lane) in [7, 3, 6, 2, 5, 1, 4, 0].into_iter().enumerate() {
                    let got = [0, 1, 2].map(|i| key.last[acc][i][e]);
                    let want = [0, 1, 2].map(|i| lanes[half][i][lane]);
                    assert_eq!(got, want, "acc {acc} element {e}");
                }
            }
        }
    }

    #[test]
    fn radix_conversions_round_trip() {
        let h = [
            0x03ff_ffff,
            0x0123_4567,
            0x03ff_ffff,
            0x0000_0001,
            0x03ff_ffff,
        ];
        assert_eq!(to_radix26(from_radix26(&h)), h);
    }
}
