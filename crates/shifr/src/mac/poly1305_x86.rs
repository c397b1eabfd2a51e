//! Poly1305 with AVX2: four blocks per step in four 64-bit lanes, 26-bit limbs, `vpmuludq`.
//!
//! Two accumulators of four lanes each take eight blocks per step, lane `j` every eighth block.
//! With the key powers r^1..r^8: `h' = (h + m_1) r^8 + m_2 r^7 + ... + m_8 r` for one group of
//! eight, so the lanes run `A_j = A_j r^8 + m` over all groups but the last, which is multiplied by
//! r^8, ..., r^1 lane by lane before the eight lanes are summed. Two independent accumulators keep
//! two multiply-and-carry chains in flight. Multiplications, additions, shifts and masks only: no
//! branch or memory access depends on the key or the message, so this is constant-time.
//!
//! Loading blocks 0..3 as two 256-bit words and unpacking 64-bit halves leaves them in lane order
//! 0, 2, 1, 3; the final powers are laid out in the same order, so no permute is needed.

use core::arch::x86_64::{
    __m256i, _mm256_add_epi64, _mm256_and_si256, _mm256_loadu_si256, _mm256_mul_epu32,
    _mm256_or_si256, _mm256_set1_epi64x, _mm256_set_epi64x, _mm256_slli_epi64, _mm256_srli_epi64,
    _mm256_storeu_si256, _mm256_unpackhi_epi64, _mm256_unpacklo_epi64,
};

use zeroize::{Zeroize, ZeroizeOnDrop};

/// Bytes absorbed per step.
pub(super) const STEP_BYTES: usize = 128;

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

/// The key powers in 26-bit limbs. Holding one proves that the CPU has AVX2: [`Avx2Key::new`] is
/// the only constructor and checks it.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(super) struct Avx2Key {
    /// `r^8`, broadcast for the inner steps.
    r8: [u32; 5],
    /// Final per-lane multipliers of the two accumulators, `[limb][lane]`, in load order 0, 2, 1,
    /// 3: r^8, r^6, r^7, r^5 for blocks 1..4 of a group and r^4, r^2, r^3, r^1 for blocks 5..8.
    last: [[[u32; 4]; 5]; 2],
}

impl Avx2Key {
    /// Precomputes r^2..r^4 from the clamped `r` (26-bit limbs), or `None` without AVX2.
    pub(super) fn new(r: &[u32; 5]) -> Option<Avx2Key> {
        if !crate::cpu::features().avx2 {
            return None;
        }
        let mut p = [*r; 8];
        for k in 1..8 {
            p[k] = mul_mod(&p[k - 1], r);
        }
        // p[k] = r^(k+1).
        let mut last = [[[0u32; 4]; 5]; 2];
        for i in 0..5 {
            last[0][i] = [p[7][i], p[5][i], p[6][i], p[4][i]];
            last[1][i] = [p[3][i], p[1][i], p[2][i], p[0][i]];
        }
        let r8 = p[7];
        p.zeroize();
        Some(Avx2Key { r8, last })
    }

    /// Absorbs the whole 128-byte groups of `data` (full blocks, 2^128 bit set) into `h`, which is
    /// in 26-bit limbs; returns the number of bytes absorbed (a multiple of [`STEP_BYTES`]).
    pub(super) fn absorb(&self, h: &mut [u32; 5], data: &[u8]) -> usize {
        let groups = data.len() / STEP_BYTES;
        if groups == 0 {
            return 0;
        }
        // SAFETY: an `Avx2Key` exists only if the CPU supports AVX2 (see `new`).
        unsafe { absorb(self, h, &data[..groups * STEP_BYTES]) };
        groups * STEP_BYTES
    }
}

#[inline]
#[target_feature(enable = "avx2")]
fn splat(x: u32) -> __m256i {
    _mm256_set1_epi64x(i64::from(x))
}

#[inline]
#[target_feature(enable = "avx2")]
fn lanes(x: &[u32; 4]) -> __m256i {
    _mm256_set_epi64x(
        i64::from(x[3]),
        i64::from(x[2]),
        i64::from(x[1]),
        i64::from(x[0]),
    )
}

/// The 26-bit limbs (2^128 bit included) of four blocks, in lane order 0, 2, 1, 3.
#[inline]
#[target_feature(enable = "avx2")]
fn load_group(group: &[u8]) -> [__m256i; 5] {
    let group = &group[..64];
    // SAFETY: `group` is exactly 64 readable bytes and `loadu` has no alignment requirement.
    let (b01, b23) = unsafe {
        (
            _mm256_loadu_si256(group.as_ptr().cast()),
            _mm256_loadu_si256(group[32..].as_ptr().cast()),
        )
    };
    let lo = _mm256_unpacklo_epi64(b01, b23);
    let hi = _mm256_unpackhi_epi64(b01, b23);
    let m = splat(MASK26);
    [
        _mm256_and_si256(lo, m),
        _mm256_and_si256(_mm256_srli_epi64::<26>(lo), m),
        _mm256_and_si256(
            _mm256_or_si256(_mm256_srli_epi64::<52>(lo), _mm256_slli_epi64::<12>(hi)),
            m,
        ),
        _mm256_and_si256(_mm256_srli_epi64::<14>(hi), m),
        _mm256_or_si256(_mm256_srli_epi64::<40>(hi), splat(1 << 24)),
    ]
}

/// `h * r` with partial reduction, lane by lane (`s = 5 r[1..5]`).
#[inline]
#[target_feature(enable = "avx2")]
fn mul_reduce(h: &[__m256i; 5], r: &[__m256i; 5], s: &[__m256i; 4]) -> [__m256i; 5] {
    let mul = |a: __m256i, b: __m256i| _mm256_mul_epu32(a, b);
    let add = |a: __m256i, b: __m256i| _mm256_add_epi64(a, b);
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
    // Carries in two interleaved chains (0->1->2->3->4 and 3->4->0->1), so the critical path is
    // four steps instead of six; every limb ends below 2^26 plus a small excess.
    let m = splat(MASK26);
    let carry = |d: __m256i| _mm256_srli_epi64::<26>(d);
    let low = |d: __m256i| _mm256_and_si256(d, m);
    let (d1, d0) = (add(d1, carry(d0)), low(d0));
    let (d4, d3) = (add(d4, carry(d3)), low(d3));
    let (d2, d1) = (add(d2, carry(d1)), low(d1));
    let c = carry(d4);
    let (d0, d4) = (add(d0, add(c, _mm256_slli_epi64::<2>(c))), low(d4));
    let (d3, d2) = (add(d3, carry(d2)), low(d2));
    let (d1, d0) = (add(d1, carry(d0)), low(d0));
    let (d4, d3) = (add(d4, carry(d3)), low(d3));
    [d0, d1, d2, d3, d4]
}

#[inline]
#[target_feature(enable = "avx2")]
fn add_limbs(a: &[__m256i; 5], b: &[__m256i; 5]) -> [__m256i; 5] {
    core::array::from_fn(|i| _mm256_add_epi64(a[i], b[i]))
}

#[inline]
#[target_feature(enable = "avx2")]
fn times5(r: &[__m256i; 5]) -> [__m256i; 4] {
    core::array::from_fn(|i| _mm256_add_epi64(r[i + 1], _mm256_slli_epi64::<2>(r[i + 1])))
}

#[target_feature(enable = "avx2")]
fn absorb(key: &Avx2Key, h: &mut [u32; 5], data: &[u8]) {
    let r8 = key.r8.map(|x| splat(x));
    let s8 = times5(&r8);
    let mut groups = data.chunks_exact(STEP_BYTES);
    let Some(first) = groups.next() else {
        return;
    };
    // Lane 0 of the first accumulator (block 1 of the first group) starts from h; the rest from 0.
    let start: [__m256i; 5] = core::array::from_fn(|i| lanes(&[h[i], 0, 0, 0]));
    let mut a = add_limbs(&start, &load_group(first));
    let mut b = load_group(&first[64..]);
    for group in groups {
        a = add_limbs(&mul_reduce(&a, &r8, &s8), &load_group(group));
        b = add_limbs(&mul_reduce(&b, &r8, &s8), &load_group(&group[64..]));
    }
    let last_a: [__m256i; 5] = core::array::from_fn(|i| lanes(&key.last[0][i]));
    let last_b: [__m256i; 5] = core::array::from_fn(|i| lanes(&key.last[1][i]));
    let acc = add_limbs(
        &mul_reduce(&a, &last_a, &times5(&last_a)),
        &mul_reduce(&b, &last_b, &times5(&last_b)),
    );

    // Sum the four lanes limb by limb (each below 2^28, so the sums fit easily), then carry.
    let mut sum = [0u64; 5];
    for (s, v) in sum.iter_mut().zip(acc) {
        let mut words = [0u64; 4];
        // SAFETY: `words` is 32 writable bytes and `storeu` has no alignment requirement.
        unsafe { _mm256_storeu_si256(words.as_mut_ptr().cast(), v) };
        *s = words.iter().sum();
    }
    let m = u64::from(MASK26);
    for i in 0..4 {
        sum[i + 1] += sum[i] >> 26;
        sum[i] &= m;
    }
    sum[0] += (sum[4] >> 26) * 5;
    sum[4] &= m;
    sum[1] += sum[0] >> 26;
    sum[0] &= m;
    *h = sum.map(|x| x as u32);
}
