//! The scalar Poly1305 block loop on three 44/44/42-bit limbs with 64x64->128-bit products
//! (the layout of poly1305-donna-64): nine multiplications per block where the five 26-bit limbs
//! of [`super::poly1305_field`] take twenty-five, so short messages and the tails the vector
//! backends leave cost about a third as much.
//!
//! The accumulator handed in and out stays in the 26-bit limbs the vector backends and the
//! parallel fold use; [`H44::from26`] and [`H44::to26`] convert at the ends of a run of blocks.
//!
//! Constant-time: multiplications, additions, shifts and masks only (`u128` products compile to
//! the `mul` instruction on 64-bit targets, whose time does not depend on the operands); the final
//! reduction selects between `h` and `h - p` with a mask.

use zeroize::Zeroize;

const M44: u64 = (1 << 44) - 1;
const M42: u64 = (1 << 42) - 1;
// The conversions are for `Poly1305`, which keeps 26-bit limbs throughout on 32-bit targets.
#[cfg_attr(not(target_pointer_width = "64"), allow(dead_code))]
const M26: u64 = (1 << 26) - 1;

/// The clamped `r` in 44/44/42-bit limbs and `20 * r[1..3]` (the factor that folds the part of a
/// product at 2^132 and above back: 2^130 = 5 mod p, and the limbs above 2^88 are 4 bits short).
#[derive(Clone, Copy, Zeroize)]
pub(crate) struct R44 {
    r: [u64; 3],
    s: [u64; 2],
}

impl R44 {
    /// From the first 16 bytes of a one-time key (clamped here).
    pub(crate) fn new(key: &[u8; 16]) -> R44 {
        let t0 = le64(&key[..8]);
        let t1 = le64(&key[8..]);
        let r0 = t0 & 0xffc_0fff_ffff;
        let r1 = ((t0 >> 44) | (t1 << 20)) & 0xfff_ffc0_ffff;
        let r2 = (t1 >> 24) & 0x00f_ffff_fc0f;
        R44 {
            r: [r0, r1, r2],
            s: [r1 * 20, r2 * 20],
        }
    }
}

/// An accumulator in 44/44/42-bit limbs (partially reduced).
#[derive(Clone, Copy, Default, Zeroize)]
pub(crate) struct H44(pub(crate) [u64; 3]);

fn le64(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[..8]);
    u64::from_le_bytes(w)
}

impl H44 {
    /// From five 26-bit limbs (each below 2^27, as the 26-bit code leaves them).
    #[cfg_attr(not(target_pointer_width = "64"), allow(dead_code))]
    pub(crate) fn from26(h: &[u32; 5]) -> H44 {
        let [h0, h1, h2, h3, h4] = h.map(u64::from);
        let a = h0 + (h1 << 26);
        let b = (a >> 44) + (h2 << 8) + (h3 << 34);
        let c = (b >> 44) + (h4 << 16);
        H44([a & M44, b & M44, c])
    }

    /// To five 26-bit limbs, carried so that each is at most 2^26.
    #[cfg_attr(not(target_pointer_width = "64"), allow(dead_code))]
    pub(crate) fn to26(self) -> [u32; 5] {
        let [mut h0, mut h1, mut h2] = self.0;
        let c = h2 >> 42;
        h2 &= M42;
        h0 += c * 5;
        h1 += h0 >> 44;
        h0 &= M44;
        h2 += h1 >> 44;
        h1 &= M44;
        // h0, h1 < 2^44 and h2 <= 2^42: every 26-bit piece below is complete.
        [
            h0 & M26,
            ((h0 >> 26) | (h1 << 18)) & M26,
            (h1 >> 8) & M26,
            ((h1 >> 34) | (h2 << 10)) & M26,
            h2 >> 16,
        ]
        .map(|x| x as u32)
    }

    /// `h = (h + m + hibit * 2^128) * r mod 2^130 - 5` for each 16-byte block of `data` (`hibit`
    /// 1 for whole message blocks, 0 for the padded last one); bytes after the last whole block
    /// are ignored.
    #[inline]
    pub(crate) fn blocks(&mut self, key: &R44, data: &[u8], hibit: u64) {
        let [r0, r1, r2] = key.r.map(u128::from);
        let [s1, s2] = key.s.map(u128::from);
        let [mut h0, mut h1, mut h2] = self.0;
        let hibit = hibit << 40;
        for m in data.chunks_exact(16) {
            let t0 = le64(&m[..8]);
            let t1 = le64(&m[8..]);
            h0 += t0 & M44;
            h1 += ((t0 >> 44) | (t1 << 20)) & M44;
            h2 += ((t1 >> 24) & M42) | hibit;
            let (a0, a1, a2) = (u128::from(h0), u128::from(h1), u128::from(h2));
            let d0 = a0 * r0 + a1 * s2 + a2 * s1;
            let mut d1 = a0 * r1 + a1 * r0 + a2 * s2;
            let mut d2 = a0 * r2 + a1 * r1 + a2 * r0;
            d1 += d0 >> 44;
            h0 = d0 as u64 & M44;
            d2 += d1 >> 44;
            h1 = d1 as u64 & M44;
            h2 = d2 as u64 & M42;
            h0 += (d2 >> 42) as u64 * 5;
            h1 += h0 >> 44;
            h0 &= M44;
        }
        self.0 = [h0, h1, h2];
    }

    /// The tag: `h` fully reduced modulo 2^130 - 5 (without branches), plus `s` modulo 2^128.
    pub(crate) fn tag(self, s: &[u8; 16]) -> [u8; 16] {
        let [mut h0, mut h1, mut h2] = self.0;
        // Two carry passes leave h < 2^130 + a little, every limb within its width.
        for _ in 0..2 {
            h2 += h1 >> 44;
            h1 &= M44;
            h0 += (h2 >> 42) * 5;
            h2 &= M42;
            h1 += h0 >> 44;
            h0 &= M44;
        }
        h2 += h1 >> 44;
        h1 &= M44;
        // g = h + 5 - 2^130; if it does not go negative, h >= p and the result is g.
        let mut g0 = h0 + 5;
        let mut g1 = h1 + (g0 >> 44);
        g0 &= M44;
        let g2 = (h2 + (g1 >> 44)).wrapping_sub(1 << 42);
        g1 &= M44;
        // All ones when g2 did not borrow (top bit clear), zero otherwise.
        let use_g = (g2 >> 63).wrapping_sub(1);
        h0 = (g0 & use_g) | (h0 & !use_g);
        h1 = (g1 & use_g) | (h1 & !use_g);
        h2 = (g2 & use_g) | (h2 & !use_g);
        // h mod 2^128 + s.
        let t0 = le64(&s[..8]);
        let t1 = le64(&s[8..]);
        h0 += t0 & M44;
        h1 += (((t0 >> 44) | (t1 << 20)) & M44) + (h0 >> 44);
        h0 &= M44;
        h2 += ((t1 >> 24) & M42) + (h1 >> 44);
        h1 &= M44;
        let lo = h0 | (h1 << 44);
        let hi = (h1 >> 20) | (h2 << 24);
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&lo.to_le_bytes());
        out[8..].copy_from_slice(&hi.to_le_bytes());
        out
    }
}

/// The Poly1305 tag of ChaCha20-Poly1305 (RFC 8439 section 2.8) under the one-time key `otk` over
/// `aad || pad16 || ct || pad16 || le64(len(aad)) || le64(len(ct))`, in one pass of the scalar
/// loop: for short messages, where building a [`super::poly1305::Poly1305`] and its vector key
/// costs more than the blocks.
pub(crate) fn aead_tag(otk: &[u8; 32], aad: &[u8], ct: &[u8]) -> [u8; 16] {
    let (r, s) = otk.split_at(16);
    let mut key = R44::new(r.try_into().unwrap_or(&[0; 16]));
    let mut h = H44::default();
    for part in [aad, ct] {
        h.blocks(&key, part, 1);
        let tail = &part[part.len() - part.len() % 16..];
        if !tail.is_empty() {
            let mut last = [0u8; 16];
            last[..tail.len()].copy_from_slice(tail);
            h.blocks(&key, &last, 1);
            last.zeroize();
        }
    }
    let mut lengths = [0u8; 16];
    lengths[..8].copy_from_slice(&(aad.len() as u64).to_le_bytes());
    lengths[8..].copy_from_slice(&(ct.len() as u64).to_le_bytes());
    h.blocks(&key, &lengths, 1);
    let tag = h.tag(s.try_into().unwrap_or(&[0; 16]));
    key.zeroize();
    h.zeroize();
    tag
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mac::poly1305_field::Fe;
    use poly1305::universal_hash::KeyInit;
    use rand::{Rng, RngCore, SeedableRng};

    /// The AEAD tag against RustCrypto's Poly1305 over the padded construction, for every message
    /// length 0..=300 with assorted AAD lengths, random and all-ones keys and messages.
    #[test]
    fn aead_tag_matches_rustcrypto() {
        let seed = rand::random::<u64>();
        println!("seed {seed}");
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        for len in 0..=300usize {
            for round in 0..3 {
                let aad_len = [0, 13, 16, 17, 31, 64][(len + round) % 6];
                let mut key = [0xffu8; 32];
                let mut aad = vec![0xffu8; aad_len];
                let mut ct = vec![0xffu8; len];
                if round > 0 {
                    rng.fill_bytes(&mut key);
                    rng.fill_bytes(&mut aad);
                    rng.fill_bytes(&mut ct);
                }
                let mut padded = aad.clone();
                padded.resize(aad.len().div_ceil(16) * 16, 0);
                padded.extend_from_slice(&ct);
                padded.resize(padded.len().div_ceil(16) * 16, 0);
                padded.extend_from_slice(&(aad_len as u64).to_le_bytes());
                padded.extend_from_slice(&(len as u64).to_le_bytes());
                let expected = poly1305::Poly1305::new(key[..].into()).compute_unpadded(&padded);
                assert_eq!(
                    aead_tag(&key, &aad, &ct),
                    expected.as_slice(),
                    "len {len} aad {aad_len}"
                );
            }
        }
    }

    /// 26-bit limbs to 44-bit limbs and back keep the value (mod p), for limbs up to 2^27 as the
    /// 26-bit code leaves them; the limbs coming back are at most 2^26.
    #[test]
    fn limb_conversions_keep_the_value() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for round in 0..2000 {
            let h: [u32; 5] = core::array::from_fn(|_| match round % 3 {
                0 => rng.gen_range(0..1 << 26),
                1 => rng.gen_range(0..1 << 27),
                _ => (1 << 27) - 1,
            });
            let h44 = H44::from26(&h);
            let back = h44.to26();
            assert!(back.iter().all(|&l| l <= 1 << 26), "{h:?} -> {back:?}");
            assert_eq!(Fe(back).low128(), Fe(h).low128(), "{h:?}");
            // Times one: carried limbs, whose full reduction also gives the top two bits.
            let one = Fe([1, 0, 0, 0, 0]);
            assert_eq!(
                Fe(back).mul(&one).reduced(),
                Fe(h).mul(&one).reduced(),
                "{h:?}"
            );
        }
    }
}
