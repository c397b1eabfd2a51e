//! GF(2^130 - 5) in five 26-bit limbs: the one constant-time Poly1305 arithmetic, shared by the
//! block loop of [`super::poly1305::Poly1305`] and by the fold that combines the parts of a
//! ChaCha20-Poly1305 message split over threads (`crate::parallel`).
//!
//! Products are 32x32->64-bit multiplications with the part above 2^130 folded back times 5, and
//! the full reduction selects between `h` and `h - p` with a mask: no branch or memory access
//! depends on the values.

/// The low 26 bits of a limb.
pub(crate) const LIMB_MASK: u32 = 0x03ff_ffff;

/// An element of GF(2^130 - 5), partially reduced: limbs below 2^26, the second one a few units
/// more (every operation keeps the products within `u64`).
#[derive(Clone, Copy)]
pub struct Fe(pub(crate) [u32; 5]);

impl Fe {
    pub(crate) const ZERO: Fe = Fe([0; 5]);

    /// `low + top * 2^128` (`top < 4`).
    pub(crate) fn from_parts(low: u128, top: u64) -> Fe {
        let mask = u128::from(LIMB_MASK);
        Fe([
            (low & mask) as u32,
            ((low >> 26) & mask) as u32,
            ((low >> 52) & mask) as u32,
            ((low >> 78) & mask) as u32,
            ((low >> 104) as u32) | ((top as u32) << 24),
        ])
    }

    /// The sum, carried.
    pub(crate) fn add(&self, o: &Fe) -> Fe {
        let mut d = [0u32; 5];
        for (i, x) in d.iter_mut().enumerate() {
            *x = self.0[i] + o.0[i];
        }
        for i in 0..4 {
            d[i + 1] += d[i] >> 26;
            d[i] &= LIMB_MASK;
        }
        d[0] += (d[4] >> 26) * 5;
        d[4] &= LIMB_MASK;
        d[1] += d[0] >> 26;
        d[0] &= LIMB_MASK;
        Fe(d)
    }

    /// The product mod `p`, partially reduced.
    pub(crate) fn mul(&self, o: &Fe) -> Fe {
        let r5 = [o.0[1] * 5, o.0[2] * 5, o.0[3] * 5, o.0[4] * 5];
        self.mul_by(&o.0, &r5)
    }

    /// The product with `r` (`r5 = 5 * r[1..5]`, precomputed by a caller that multiplies by the
    /// same `r` many times), partially reduced: the carry out of the top limb folds back times 5.
    #[inline(always)]
    pub(crate) fn mul_by(&self, r: &[u32; 5], r5: &[u32; 4]) -> Fe {
        let [r0, r1, r2, r3, r4] = r.map(u64::from);
        let [s1, s2, s3, s4] = r5.map(u64::from);
        let [a0, a1, a2, a3, a4] = self.0.map(u64::from);
        let d0 = a0 * r0 + a1 * s4 + a2 * s3 + a3 * s2 + a4 * s1;
        let mut d1 = a0 * r1 + a1 * r0 + a2 * s4 + a3 * s3 + a4 * s2;
        let mut d2 = a0 * r2 + a1 * r1 + a2 * r0 + a3 * s4 + a4 * s3;
        let mut d3 = a0 * r3 + a1 * r2 + a2 * r1 + a3 * r0 + a4 * s4;
        let mut d4 = a0 * r4 + a1 * r3 + a2 * r2 + a3 * r1 + a4 * r0;
        d1 += d0 >> 26;
        let h0 = d0 as u32 & LIMB_MASK;
        d2 += d1 >> 26;
        let mut h1 = d1 as u32 & LIMB_MASK;
        d3 += d2 >> 26;
        let h2 = d2 as u32 & LIMB_MASK;
        d4 += d3 >> 26;
        let h3 = d3 as u32 & LIMB_MASK;
        let h4 = d4 as u32 & LIMB_MASK;
        let folded = u64::from(h0) + (d4 >> 26) * 5;
        h1 += (folded >> 26) as u32;
        Fe([folded as u32 & LIMB_MASK, h1, h2, h3, h4])
    }

    /// `self^e` by square and multiply (`e` is a public length, so its bits may steer branches).
    pub(crate) fn pow(&self, e: u64) -> Fe {
        let mut acc = Fe([1, 0, 0, 0, 0]);
        for bit in (0..64 - e.leading_zeros()).rev() {
            acc = acc.mul(&acc);
            if (e >> bit) & 1 == 1 {
                acc = acc.mul(self);
            }
        }
        acc
    }

    /// The value fully reduced modulo 2^130 - 5, without branches, in 26-bit limbs.
    pub(crate) fn reduced(&self) -> [u32; 5] {
        let [mut h0, mut h1, mut h2, mut h3, mut h4] = self.0;
        h2 += h1 >> 26;
        h1 &= LIMB_MASK;
        h3 += h2 >> 26;
        h2 &= LIMB_MASK;
        h4 += h3 >> 26;
        h3 &= LIMB_MASK;
        h0 += (h4 >> 26) * 5;
        h4 &= LIMB_MASK;
        h1 += h0 >> 26;
        h0 &= LIMB_MASK;

        // g = h + 5 - 2^130; if it does not go negative, h >= p and the result is g.
        let mut g0 = h0 + 5;
        let mut g1 = h1 + (g0 >> 26);
        g0 &= LIMB_MASK;
        let mut g2 = h2 + (g1 >> 26);
        g1 &= LIMB_MASK;
        let mut g3 = h3 + (g2 >> 26);
        g2 &= LIMB_MASK;
        let g4 = (h4 + (g3 >> 26)).wrapping_sub(1 << 26);
        g3 &= LIMB_MASK;
        // All ones when g4 did not borrow (top bit clear), zero otherwise.
        let use_g = (g4 >> 31).wrapping_sub(1);
        let pick = |g: u32, h: u32| (g & use_g) | (h & !use_g);
        [
            pick(g0, h0),
            pick(g1, h1),
            pick(g2, h2),
            pick(g3, h3),
            pick(g4, h4),
        ]
    }

    /// The fully reduced value mod 2^128, as four little-endian 32-bit words.
    pub(crate) fn low_words(&self) -> [u32; 4] {
        let [h0, h1, h2, h3, h4] = self.reduced();
        [
            h0 | (h1 << 26),
            (h1 >> 6) | (h2 << 20),
            (h2 >> 12) | (h3 << 14),
            (h3 >> 18) | (h4 << 8),
        ]
    }

    /// The fully reduced value mod 2^128.
    pub(crate) fn low128(&self) -> u128 {
        let w = self.low_words();
        u128::from(w[0]) | u128::from(w[1]) << 32 | u128::from(w[2]) << 64 | u128::from(w[3]) << 96
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mac::poly1305::Poly1305;

    fn le128(b: &[u8]) -> u128 {
        let mut w = [0u8; 16];
        w.copy_from_slice(&b[..16]);
        u128::from_le_bytes(w)
    }

    /// Reference arithmetic mod p on u128 pairs, by schoolbook bits (slow, independent of [`Fe`]).
    fn slow_mulmod(a: (u128, u64), b: (u128, u64)) -> (u128, u64) {
        // Values below 2^130 as bit vectors; shift-and-add with reduction by 2^130 = 5 mod p.
        let bits = |v: (u128, u64)| -> Vec<bool> {
            (0..130)
                .map(|i| {
                    if i < 128 {
                        (v.0 >> i) & 1 == 1
                    } else {
                        (v.1 >> (i - 128)) & 1 == 1
                    }
                })
                .collect()
        };
        // p = 3 * 2^128 + (2^128 - 5).
        let p_full = (u128::MAX - 4, 3u64);
        let ge = |x: (u128, u64), y: (u128, u64)| x.1 > y.1 || (x.1 == y.1 && x.0 >= y.0);
        let sub = |x: (u128, u64), y: (u128, u64)| {
            let (lo, borrow) = x.0.overflowing_sub(y.0);
            (lo, x.1 - y.1 - u64::from(borrow))
        };
        let add = |x: (u128, u64), y: (u128, u64)| {
            let (lo, carry) = x.0.overflowing_add(y.0);
            let mut s = (lo, x.1 + y.1 + u64::from(carry));
            while ge(s, p_full) {
                s = sub(s, p_full);
            }
            s
        };
        let mut acc = (0u128, 0u64);
        let mut addend = b;
        while ge(addend, p_full) {
            addend = sub(addend, p_full);
        }
        for bit in bits(a) {
            if bit {
                acc = add(acc, addend);
            }
            addend = add(addend, addend);
        }
        acc
    }

    #[test]
    fn field_products_match_the_slow_reference() {
        let mut x = 0x1234_5678_9abc_def0_0fed_cba9_8765_4321u128;
        for round in 0..200u64 {
            x = x
                .wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835)
                .wrapping_add(7);
            let y = x.rotate_left(37) ^ 0x5555;
            let (ta, tb) = (round % 4, (round / 4) % 4);
            let a = Fe::from_parts(x, ta % 3);
            let b = Fe::from_parts(y, tb % 3);
            let expect = slow_mulmod((x, ta % 3), (y, tb % 3));
            assert_eq!(a.mul(&b).low128(), expect.0, "round {round}");
        }
        // p itself reduces to zero, p + 1 to one.
        let p = Fe::from_parts(u128::MAX - 4, 3);
        assert_eq!(p.low128(), 0);
        assert_eq!(p.add(&Fe([1, 0, 0, 0, 0])).low128(), 1);
        let r = Fe::from_parts(12345, 0);
        assert_eq!(r.pow(3).low128(), 12345u128.pow(3));
        assert_eq!(r.pow(0).low128(), 1);
    }

    #[test]
    fn poly1305_sum_matches_horner_over_the_field() {
        // `finalize_sum` (through whatever vector backend this CPU gives Poly1305) against
        // `h = (h + m_i + 2^128) r mod p` evaluated block by block with `Fe`.
        let mut x = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128;
        let mut next = || {
            x = x
                .wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835)
                .wrapping_add(11);
            x
        };
        let mut tops = [0usize; 4];
        for round in 0..40usize {
            let r = next() & 0x0fff_fffc_0fff_fffc_0fff_fffc_0fff_ffff;
            let mut key = [0u8; 32];
            key[..16].copy_from_slice(&r.to_le_bytes());
            let blocks = 1 + round * 13;
            let msg: Vec<u8> = (0..blocks).flat_map(|_| next().to_le_bytes()).collect();
            let mut mac = Poly1305::from_key(&key);
            mac.update(&msg);
            let (low, top) = mac.finalize_sum();
            let fr = Fe::from_parts(r, 0);
            let mut h = Fe::ZERO;
            for m in msg.chunks_exact(16) {
                h = h.add(&Fe::from_parts(le128(m), 1)).mul(&fr);
            }
            assert_eq!(low, h.low128(), "{blocks} blocks");
            let expected_top = u64::from(h.reduced()[4] >> 24);
            assert_eq!(top, expected_top, "{blocks} blocks");
            tops[top as usize] += 1;
        }
        assert!(
            tops[1] + tops[2] + tops[3] > 0,
            "the top bits were never exercised"
        );
    }
}
