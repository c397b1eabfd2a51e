//! Poly1305 on x86-64 vector registers: AVX2 (four 64-bit lanes) or AVX-512 F (eight lanes),
//! 26-bit limbs, `vpmuludq`.
//!
//! Two accumulators of `L` lanes each take `2L` blocks per step, each lane every `2L`-th block.
//! With the key powers r^1..r^2L: `h' = (h + m_1) r^2L + m_2 r^(2L-1) + ... + m_2L r` for one group,
//! so the lanes run `A_j = A_j r^2L + m` over all groups but the last, which is multiplied by
//! r^2L, ..., r^1 lane by lane before all lanes are summed. Two independent accumulators keep two
//! multiply-and-carry chains in flight, and the carries run in two interleaved chains.
//! Multiplications, additions, shifts and masks only: no branch or memory access depends on the
//! key or the message, so this is constant-time.
//!
//! Loading `L` blocks as two registers and unpacking 64-bit halves leaves block `q + (L/2) h` in
//! element `2q + h`; the final powers are laid out in the same order, so no permute is needed.

use zeroize::{Zeroize, ZeroizeOnDrop};

const MASK26: u32 = 0x03ff_ffff;

/// Multiplies two values in 26-bit limbs modulo 2^130 - 5 (scalar; used for the key powers).
fn mul_mod(a: &[u32; 5], b: &[u32; 5]) -> [u32; 5] {
    let [a0, a1, a2, a3, a4] = a.map(u64::from);
    let [b0, b1, b2, b3, b4] = b.map(u64::from);
    let (s1, s2, s3, s4) = (b1 * 5, b2 * 5, b3 * 5, b4 * 5);
    let d0 = a0 * b0 + a1 * s4 + a2 * s3 + a3 * s2 + a4 * s1;
    let mut d1 = a0 * b1 + a1 * b0 + a2 * s4 + a3 * s3 + a4 * s2;
    let mut d2 = a0 * b2 + a1 * b1 + a2 * b0 + a3 * s4 + a4 * s3;
    let mut d3 = a0 * b3 + a1 * b2 + a2 * b1 + a3 * b0 + a4 * s4;
    let mut d4 = a0 * b4 + a1 * b3 + a2 * b2 + a3 * b1 + a4 * b0;
    let m = u64::from(MASK26);
    d1 += d0 >> 26;
    d2 += d1 >> 26;
    d3 += d2 >> 26;
    d4 += d3 >> 26;
    let f = (d0 & m) + (d4 >> 26) * 5;
    let r = [f & m, (d1 & m) + (f >> 26), d2 & m, d3 & m, d4 & m];
    r.map(|x| x as u32)
}

/// Lane count of a width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Zeroize)]
pub(super) enum Width {
    /// AVX2: four 64-bit lanes per register.
    Avx2,
    /// AVX-512 F: eight 64-bit lanes per register.
    Avx512,
}

impl Width {
    fn lanes(self) -> usize {
        match self {
            Width::Avx2 => 4,
            Width::Avx512 => 8,
        }
    }
}

/// The key powers in 26-bit limbs for one width. Holding one proves that the CPU has the
/// instructions of its width: [`LaneKey::new`] is the only constructor and checks them.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(super) struct LaneKey {
    width: Width,
    /// r^2L (L lanes per register), broadcast for the inner steps.
    top: [u32; 5],
    /// Final per-lane multipliers `[accumulator][limb][element]` in load order (first L used).
    last: [[[u32; 8]; 5]; 2],
}

impl LaneKey {
    /// Precomputes r^2..r^2L from the clamped `r` (26-bit limbs), or `None` when this CPU lacks
    /// the instructions of `width`.
    pub(super) fn new(r: &[u32; 5], width: Width) -> Option<LaneKey> {
        let f = crate::cpu::features();
        let ok = match width {
            Width::Avx2 => f.avx2,
            Width::Avx512 => f.avx512f,
        };
        if !ok {
            return None;
        }
        let l = width.lanes();
        // p[k] = r^(k+1), k < 2L <= 16.
        let mut p = [*r; 16];
        for k in 1..2 * l {
            p[k] = mul_mod(&p[k - 1], r);
        }
        let mut last = [[[0u32; 8]; 5]; 2];
        for (acc, limbs) in last.iter_mut().enumerate() {
            for (i, limb) in limbs.iter_mut().enumerate() {
                for (e, v) in limb.iter_mut().take(l).enumerate() {
                    // Element e holds block k = e/2 + (L/2)(e%2) of this accumulator, which is
                    // block acc*L + k of the group and is multiplied by r^(2L - that).
                    let k = acc * l + e / 2 + (l / 2) * (e % 2);
                    *v = p[2 * l - 1 - k][i];
                }
            }
        }
        let top = p[2 * l - 1];
        p.zeroize();
        Some(LaneKey { width, top, last })
    }

    /// Absorbs the whole `2L`-block groups of `data` (full blocks, 2^128 bit set) into `h`, which is
    /// in 26-bit limbs; returns the number of bytes absorbed.
    pub(super) fn absorb(&self, h: &mut [u32; 5], data: &[u8]) -> usize {
        let step = 32 * self.width.lanes();
        let whole = data.len() / step * step;
        if whole == 0 {
            return 0;
        }
        let data = &data[..whole];
        match self.width {
            // SAFETY: a key of this width exists only if the CPU supports AVX2 (see `new`).
            Width::Avx2 => unsafe { avx2::absorb(&self.top, &self.last, h, data) },
            // SAFETY: a key of this width exists only if the CPU supports AVX-512 F (see `new`).
            Width::Avx512 => unsafe { avx512::absorb(&self.top, &self.last, h, data) },
        }
        whole
    }
}

/// Sums the lanes of each limb (each below 2^28) and carries into a partially reduced `h`.
fn fold_sum(limb_sums: [u64; 5]) -> [u32; 5] {
    let mut sum = limb_sums;
    let m = u64::from(MASK26);
    for i in 0..4 {
        sum[i + 1] += sum[i] >> 26;
        sum[i] &= m;
    }
    sum[0] += (sum[4] >> 26) * 5;
    sum[4] &= m;
    sum[1] += sum[0] >> 26;
    sum[0] &= m;
    sum.map(|x| x as u32)
}

/// One width of the vector code: `$lanes` 64-bit lanes in `$v`.
macro_rules! lane_backend {
    ($module:ident, $feature:literal, $v:ty, $lanes:literal, $half_bytes:literal,
     set1: $set1:ident, load: $load:ident, store: $store:ident, mul: $mul:ident, add: $add:ident,
     and: $and:ident, or: $or:ident, srl: $srl:ident, sll: $sll:ident,
     unpacklo: $unpacklo:ident, unpackhi: $unpackhi:ident) => {
        mod $module {
            use core::arch::x86_64::{
                $add, $and, $load, $mul, $or, $set1, $sll, $srl, $store, $unpackhi, $unpacklo,
            };

            use super::MASK26;

            #[inline]
            #[target_feature(enable = $feature)]
            fn splat(x: u32) -> $v {
                $set1(i64::from(x))
            }

            #[inline]
            #[target_feature(enable = $feature)]
            fn lanes(x: &[u32]) -> $v {
                let words: [u64; $lanes] = core::array::from_fn(|e| u64::from(x[e]));
                // SAFETY: `words` is $lanes * 8 readable bytes; unaligned load.
                unsafe { $load(words.as_ptr().cast()) }
            }

            /// The 26-bit limbs (2^128 bit included) of `$lanes` blocks, in load order.
            #[inline]
            #[target_feature(enable = $feature)]
            fn load_group(group: &[u8]) -> [$v; 5] {
                let group = &group[..2 * $half_bytes];
                // SAFETY: `group` holds two halves of $half_bytes readable bytes; unaligned loads.
                let (a, b) = unsafe {
                    (
                        $load(group.as_ptr().cast()),
                        $load(group[$half_bytes..].as_ptr().cast()),
                    )
                };
                let lo = $unpacklo(a, b);
                let hi = $unpackhi(a, b);
                let m = splat(MASK26);
                [
                    $and(lo, m),
                    $and($srl::<26>(lo), m),
                    $and($or($srl::<52>(lo), $sll::<12>(hi)), m),
                    $and($srl::<14>(hi), m),
                    $or($srl::<40>(hi), splat(1 << 24)),
                ]
            }

            /// `h * r` with partial reduction, lane by lane (`s = 5 r[1..5]`).
            #[inline]
            #[target_feature(enable = $feature)]
            fn mul_reduce(h: &[$v; 5], r: &[$v; 5], s: &[$v; 4]) -> [$v; 5] {
                let mul = |a: $v, b: $v| $mul(a, b);
                let add = |a: $v, b: $v| $add(a, b);
                let [h0, h1, h2, h3, h4] = *h;
                let [r0, r1, r2, r3, r4] = *r;
                let [s1, s2, s3, s4] = *s;
                let d0 = add(
                    add(mul(h0, r0), mul(h1, s4)),
                    add(add(mul(h2, s3), mul(h3, s2)), mul(h4, s1)),
                );
                let d1 = add(
                    add(mul(h0, r1), mul(h1, r0)),
                    add(add(mul(h2, s4), mul(h3, s3)), mul(h4, s2)),
                );
                let d2 = add(
                    add(mul(h0, r2), mul(h1, r1)),
                    add(add(mul(h2, r0), mul(h3, s4)), mul(h4, s3)),
                );
                let d3 = add(
                    add(mul(h0, r3), mul(h1, r2)),
                    add(add(mul(h2, r1), mul(h3, r0)), mul(h4, s4)),
                );
                let d4 = add(
                    add(mul(h0, r4), mul(h1, r3)),
                    add(add(mul(h2, r2), mul(h3, r1)), mul(h4, r0)),
                );
                // Carries in two interleaved chains (0->1->2->3->4 and 3->4->0->1): four steps
                // on the critical path instead of six; every limb ends below 2^26 plus a small
                // excess, so sums with a message stay below 2^32 for the next `vpmuludq`.
                let m = splat(MASK26);
                let carry = |d: $v| $srl::<26>(d);
                let low = |d: $v| $and(d, m);
                let (d1, d0) = (add(d1, carry(d0)), low(d0));
                let (d4, d3) = (add(d4, carry(d3)), low(d3));
                let (d2, d1) = (add(d2, carry(d1)), low(d1));
                let c = carry(d4);
                let (d0, d4) = (add(d0, add(c, $sll::<2>(c))), low(d4));
                let (d3, d2) = (add(d3, carry(d2)), low(d2));
                let (d1, d0) = (add(d1, carry(d0)), low(d0));
                let (d4, d3) = (add(d4, carry(d3)), low(d3));
                [d0, d1, d2, d3, d4]
            }

            #[inline]
            #[target_feature(enable = $feature)]
            fn add_limbs(a: &[$v; 5], b: &[$v; 5]) -> [$v; 5] {
                core::array::from_fn(|i| $add(a[i], b[i]))
            }

            #[inline]
            #[target_feature(enable = $feature)]
            fn times5(r: &[$v; 5]) -> [$v; 4] {
                core::array::from_fn(|i| $add(r[i + 1], $sll::<2>(r[i + 1])))
            }

            /// Absorbs `data` (a whole number of `2 * $lanes`-block groups) into `h`.
            #[target_feature(enable = $feature)]
            pub(super) fn absorb(
                top: &[u32; 5],
                last: &[[[u32; 8]; 5]; 2],
                h: &mut [u32; 5],
                data: &[u8],
            ) {
                let r = top.map(|x| splat(x));
                let s = times5(&r);
                let mut groups = data.chunks_exact(4 * $half_bytes);
                let Some(first) = groups.next() else {
                    return;
                };
                // Element 0 of the first accumulator (block 1 of the first group) starts from h.
                let start: [$v; 5] = core::array::from_fn(|i| {
                    let mut e = [0u32; $lanes];
                    e[0] = h[i];
                    lanes(&e[..])
                });
                let mut a = add_limbs(&start, &load_group(first));
                let mut b = load_group(&first[2 * $half_bytes..]);
                for group in groups {
                    a = add_limbs(&mul_reduce(&a, &r, &s), &load_group(group));
                    b = add_limbs(
                        &mul_reduce(&b, &r, &s),
                        &load_group(&group[2 * $half_bytes..]),
                    );
                }
                let last_a: [$v; 5] = core::array::from_fn(|i| lanes(&last[0][i][..$lanes]));
                let last_b: [$v; 5] = core::array::from_fn(|i| lanes(&last[1][i][..$lanes]));
                let acc = add_limbs(
                    &mul_reduce(&a, &last_a, &times5(&last_a)),
                    &mul_reduce(&b, &last_b, &times5(&last_b)),
                );
                let mut sums = [0u64; 5];
                for (sum, v) in sums.iter_mut().zip(acc) {
                    let mut words = [0u64; $lanes];
                    // SAFETY: `words` is $lanes * 8 writable bytes; unaligned store.
                    unsafe { $store(words.as_mut_ptr().cast(), v) };
                    *sum = words.iter().sum();
                }
                *h = super::fold_sum(sums);
            }
        }
    };
}

lane_backend!(avx2, "avx2", core::arch::x86_64::__m256i, 4, 32,
    set1: _mm256_set1_epi64x, load: _mm256_loadu_si256, store: _mm256_storeu_si256,
    mul: _mm256_mul_epu32, add: _mm256_add_epi64, and: _mm256_and_si256, or: _mm256_or_si256,
    srl: _mm256_srli_epi64, sll: _mm256_slli_epi64,
    unpacklo: _mm256_unpacklo_epi64, unpackhi: _mm256_unpackhi_epi64);

lane_backend!(avx512, "avx512f", core::arch::x86_64::__m512i, 8, 64,
    set1: _mm512_set1_epi64, load: _mm512_loadu_si512, store: _mm512_storeu_si512,
    mul: _mm512_mul_epu32, add: _mm512_add_epi64, and: _mm512_and_si512, or: _mm512_or_si512,
    srl: _mm512_srli_epi64, sll: _mm512_slli_epi64,
    unpacklo: _mm512_unpacklo_epi64, unpackhi: _mm512_unpackhi_epi64);
