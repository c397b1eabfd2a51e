//! MGM, the Multilinear Galois Mode AEAD (RFC 9058; R 1323565.1.026-2019), for 64- and 128-bit block
//! ciphers (Magma, Kuznyechik).
//!
//! With nonce `ICN` (`n` bytes whose most significant bit must be 0): `Y_1 = E_K(0 || ICN)` starts the
//! encryption counter (`incr_r`: the right half mod `2^(n/2)`), `Z_1 = E_K(1 || ICN)` starts the
//! authentication counter (`incr_l`: the left half), `H_i = E_K(Z_i)`, and
//! `T = MSB_S(E_K(sum H_i * A_i ^ sum H_(h+j) * C_j ^ H_(h+q+1) * (len(A) || len(C))))` in GF(2^n) with
//! `x^64 + x^4 + x^3 + x + 1` or `x^128 + x^7 + x^2 + x + 1`, blocks read as big-endian polynomials.
//! `Y_i` and `H_i` are enciphered [`BATCH_BLOCKS`] at a time.
//!
//! Constant time: the field multiplication is built from carry-less 32 x 32-bit products done with
//! integer multiplications on operands thinned to every fourth bit (Karatsuba above that), then reduced
//! with shifts: no data-dependent branches or table indices. The tag comparison uses [`ct_eq`].
//!
//! Parameters chosen here: tag length `4..=n` bytes (RFC 9058 allows 32..=n bits); RFC 9058 requires
//! `0 < |A| + |P|` and `|A|, |P|, |A| + |P| < 2^(n/2)` bits, so an empty message with empty associated data
//! is rejected ([`Error::InvalidParameter`]) and longer inputs give [`Error::LengthLimit`].

use crate::aead::{Aead, Tag};
use crate::block::BlockCipher;
use crate::util::{ct_eq, xor_in_place};
use crate::{Error, Result};
use zeroize::Zeroize;

/// Counter blocks enciphered per `encrypt_blocks` call.
pub const BATCH_BLOCKS: usize = 32;

const MAX_BLOCK: usize = 16;

/// Smallest tag this implementation accepts (RFC 9058: 32 bits).
const MIN_TAG_LEN: usize = 4;

/// MGM over a keyed 64- or 128-bit block cipher.
pub struct Mgm<C: BlockCipher> {
    cipher: C,
    n: usize,
    tag_len: usize,
}

/// Reads an `n`-byte big-endian block into the low bits of a `u128`.
fn load(block: &[u8]) -> u128 {
    block
        .iter()
        .fold(0u128, |acc, &b| (acc << 8) | u128::from(b))
}

/// Writes the low `out.len()` bytes of `x` big-endian.
fn store(x: u128, out: &mut [u8]) {
    let bytes = x.to_be_bytes();
    out.copy_from_slice(&bytes[16 - out.len()..]);
}

/// Carry-less product of two 32-bit polynomials, constant time: integer multiplications of operands
/// thinned to every fourth bit, so that at most 8 terms meet at any bit position and carries can never
/// reach the next bit of the same residue class (the BearSSL `bmul32` technique).
fn clmul32(x: u32, y: u32) -> u64 {
    const M: [u64; 4] = [
        0x1111_1111_1111_1111,
        0x2222_2222_2222_2222,
        0x4444_4444_4444_4444,
        0x8888_8888_8888_8888,
    ];
    let (x, y) = (u64::from(x), u64::from(y));
    let xs = [x & M[0], x & M[1], x & M[2], x & M[3]];
    let ys = [y & M[0], y & M[1], y & M[2], y & M[3]];
    let mut z = 0u64;
    for (r, mask) in M.iter().enumerate() {
        // Terms x_a * y_b with a + b = r (mod 4) land on bits of residue r.
        let mut acc = 0u64;
        for (a, xa) in xs.iter().enumerate() {
            acc ^= xa.wrapping_mul(ys[(4 + r - a) % 4]);
        }
        z |= acc & mask;
    }
    z
}

/// Carry-less 64 x 64 -> 128-bit product (Karatsuba over [`clmul32`]).
fn clmul64(x: u64, y: u64) -> u128 {
    let (x0, x1) = (x as u32, (x >> 32) as u32);
    let (y0, y1) = (y as u32, (y >> 32) as u32);
    let lo = clmul32(x0, y0);
    let hi = clmul32(x1, y1);
    let mid = clmul32(x0 ^ x1, y0 ^ y1) ^ lo ^ hi;
    (u128::from(hi) << 64) ^ (u128::from(mid) << 32) ^ u128::from(lo)
}

/// Product in GF(2^128) mod `x^128 + x^7 + x^2 + x + 1`, constant time.
fn gf128_mul(a: u128, b: u128) -> u128 {
    let (a0, a1) = (a as u64, (a >> 64) as u64);
    let (b0, b1) = (b as u64, (b >> 64) as u64);
    let lo = clmul64(a0, b0);
    let hi = clmul64(a1, b1);
    let mid = clmul64(a0 ^ a1, b0 ^ b1) ^ lo ^ hi;
    // The 256-bit product is high * x^128 + low.
    let low = lo ^ (mid << 64);
    let high = hi ^ (mid >> 64);
    // x^128 = x^7 + x^2 + x + 1: fold `high` in, then the at most 7 bits that overflow once more.
    let over = (high >> 127) ^ (high >> 126) ^ (high >> 121);
    low ^ high
        ^ (high << 1)
        ^ (high << 2)
        ^ (high << 7)
        ^ over
        ^ (over << 1)
        ^ (over << 2)
        ^ (over << 7)
}

/// Product in GF(2^64) mod `x^64 + x^4 + x^3 + x + 1`, constant time.
fn gf64_mul(a: u64, b: u64) -> u64 {
    let product = clmul64(a, b);
    let (low, high) = (product as u64, (product >> 64) as u64);
    // x^64 = x^4 + x^3 + x + 1.
    let over = (high >> 63) ^ (high >> 61) ^ (high >> 60);
    low ^ high
        ^ (high << 1)
        ^ (high << 3)
        ^ (high << 4)
        ^ over
        ^ (over << 1)
        ^ (over << 3)
        ^ (over << 4)
}

impl<C: BlockCipher> Mgm<C> {
    /// MGM with `tag_len` bytes of tag (`4..=n`); the cipher must have 8- or 16-byte blocks.
    pub fn new(cipher: C, tag_len: usize) -> Result<Self> {
        let n = cipher.block_size();
        if n != 8 && n != 16 {
            return Err(Error::InvalidParameter(
                "MGM needs a 64- or 128-bit block cipher",
            ));
        }
        if !(MIN_TAG_LEN..=n).contains(&tag_len) {
            return Err(Error::InvalidTagLength {
                expected: "4..=block size bytes",
                got: tag_len,
            });
        }
        Ok(Mgm { cipher, n, tag_len })
    }

    fn mul(&self, a: u128, b: u128) -> u128 {
        if self.n == 16 {
            gf128_mul(a, b)
        } else {
            u128::from(gf64_mul(a as u64, b as u64))
        }
    }

    /// Adds one to the right (least significant) half of a counter block, mod `2^(n/2)`.
    fn incr_r(&self, x: u128) -> u128 {
        let half = 4 * self.n as u32; // n/2 in bits
        let low_mask = (1u128 << half) - 1;
        (x & !low_mask) | (x.wrapping_add(1) & low_mask)
    }

    /// Adds one to the left (most significant) half of a counter block, mod `2^(n/2)`.
    fn incr_l(&self, x: u128) -> u128 {
        let half = 4 * self.n as u32;
        let block_mask = if self.n == 16 {
            u128::MAX
        } else {
            (1u128 << 64) - 1
        };
        x.wrapping_add(1u128 << half) & block_mask
    }

    fn check_nonce(&self, nonce: &[u8]) -> Result<()> {
        if nonce.len() != self.n {
            return Err(Error::InvalidNonceLength {
                expected: if self.n == 8 { "8" } else { "16" },
                got: nonce.len(),
            });
        }
        if nonce[0] & 0x80 != 0 {
            return Err(Error::InvalidParameter(
                "MGM nonce must have its most significant bit clear",
            ));
        }
        Ok(())
    }

    fn check_lengths(&self, aad_len: usize, data_len: usize) -> Result<()> {
        let limit = 1u128 << (4 * self.n); // 2^(n/2) bits
        let a_bits = aad_len as u128 * 8;
        let p_bits = data_len as u128 * 8;
        if a_bits + p_bits >= limit {
            return Err(Error::LengthLimit(
                "MGM: |A| + |P| must be below 2^(n/2) bits",
            ));
        }
        if a_bits + p_bits == 0 {
            return Err(Error::InvalidParameter(
                "MGM needs a non-empty message or associated data (RFC 9058)",
            ));
        }
        Ok(())
    }

    /// `(Y_1, Z_1) = (E_K(0 || ICN), E_K(1 || ICN))` for `nonce`, as the RFC 9058 examples print them.
    pub fn y1_z1(&self, nonce: &[u8]) -> Result<(Vec<u8>, Vec<u8>)> {
        self.check_nonce(nonce)?;
        let (y1, z1) = self.initial_blocks(nonce);
        let mut y = vec![0u8; self.n];
        let mut z = vec![0u8; self.n];
        store(y1, &mut y);
        store(z1, &mut z);
        Ok((y, z))
    }

    /// `Y_1` and `Z_1`, enciphered in one call.
    fn initial_blocks(&self, nonce: &[u8]) -> (u128, u128) {
        let n = self.n;
        let mut blocks = [0u8; 2 * MAX_BLOCK];
        blocks[..n].copy_from_slice(nonce);
        blocks[n..2 * n].copy_from_slice(nonce);
        blocks[n] |= 0x80;
        self.cipher.encrypt_blocks(&mut blocks[..2 * n]);
        let pair = (load(&blocks[..n]), load(&blocks[n..2 * n]));
        blocks.zeroize();
        pair
    }

    /// XORs the key stream `E_K(Y_1), E_K(Y_2), ...` into `data`.
    fn apply_keystream(&self, y1: u128, data: &mut [u8]) {
        let n = self.n;
        let mut y = y1;
        let mut ks = [0u8; BATCH_BLOCKS * MAX_BLOCK];
        for chunk in data.chunks_mut(BATCH_BLOCKS * n) {
            let ks = &mut ks[..chunk.len().div_ceil(n) * n];
            for block in ks.chunks_exact_mut(n) {
                store(y, block);
                y = self.incr_r(y);
            }
            self.cipher.encrypt_blocks(ks);
            xor_in_place(chunk, ks);
        }
        ks.zeroize();
    }

    /// The full `n`-byte tag over `aad` and the ciphertext `ct`.
    fn compute_tag(&self, z1: u128, aad: &[u8], ct: &[u8]) -> [u8; MAX_BLOCK] {
        let n = self.n;
        let mut hasher = Hasher {
            mgm: self,
            z: z1,
            remaining: aad.len().div_ceil(n) + ct.len().div_ceil(n) + 1,
            h: [0u8; BATCH_BLOCKS * MAX_BLOCK],
            pos: 0,
            len: 0,
            acc: 0,
        };
        hasher.absorb_padded(aad);
        hasher.absorb_padded(ct);
        let half = 4 * n as u32;
        let lengths = ((aad.len() as u128 * 8) << half) | (ct.len() as u128 * 8);
        hasher.absorb(lengths);
        let mut tag = [0u8; MAX_BLOCK];
        store(hasher.acc, &mut tag[..n]);
        self.cipher.encrypt_blocks(&mut tag[..n]);
        tag
    }
}

/// The multilinear sum: pulls `H_i = E_K(Z_i)` in batches and accumulates `H_i * X_i`.
struct Hasher<'a, C: BlockCipher> {
    mgm: &'a Mgm<C>,
    /// The next `Z_i` to encipher.
    z: u128,
    /// `H` values still to be enciphered (so that short messages do not encipher a whole batch).
    remaining: usize,
    /// `H` values enciphered ahead; `h[pos..len]` are unused.
    h: [u8; BATCH_BLOCKS * MAX_BLOCK],
    pos: usize,
    len: usize,
    acc: u128,
}

impl<C: BlockCipher> Hasher<'_, C> {
    fn next_h(&mut self) -> u128 {
        let n = self.mgm.n;
        if self.pos == self.len {
            let blocks = self.remaining.clamp(1, BATCH_BLOCKS);
            self.remaining = self.remaining.saturating_sub(blocks);
            self.len = blocks * n;
            for block in self.h[..self.len].chunks_exact_mut(n) {
                store(self.z, block);
                self.z = self.mgm.incr_l(self.z);
            }
            self.pos = 0;
            self.mgm.cipher.encrypt_blocks(&mut self.h[..self.len]);
        }
        let h = load(&self.h[self.pos..self.pos + n]);
        self.pos += n;
        h
    }

    fn absorb(&mut self, x: u128) {
        let h = self.next_h();
        self.acc ^= self.mgm.mul(h, x);
    }

    /// Absorbs `data` as blocks, the last one zero-padded.
    fn absorb_padded(&mut self, data: &[u8]) {
        let n = self.mgm.n;
        for block in data.chunks(n) {
            let mut padded = [0u8; MAX_BLOCK];
            padded[..block.len()].copy_from_slice(block);
            self.absorb(load(&padded[..n]));
        }
    }
}

impl<C: BlockCipher> Drop for Hasher<'_, C> {
    fn drop(&mut self) {
        self.h.zeroize();
        self.acc.zeroize();
    }
}

impl<C: BlockCipher> Aead for Mgm<C> {
    fn tag_len(&self) -> usize {
        self.tag_len
    }

    fn nonce_len_desc(&self) -> &'static str {
        if self.n == 8 {
            "8 bytes, most significant bit 0"
        } else {
            "16 bytes, most significant bit 0"
        }
    }

    fn seal(&self, nonce: &[u8], aad: &[u8], data: &mut [u8]) -> Result<Tag> {
        self.check_nonce(nonce)?;
        self.check_lengths(aad.len(), data.len())?;
        let (y1, z1) = self.initial_blocks(nonce);
        self.apply_keystream(y1, data);
        let tag = self.compute_tag(z1, aad, data);
        Tag::from_slice(&tag[..self.tag_len]).ok_or(Error::InvalidTagLength {
            expected: "at most 16 bytes",
            got: self.tag_len,
        })
    }

    fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<()> {
        self.check_nonce(nonce)?;
        self.check_lengths(aad.len(), data.len())?;
        if tag.len() != self.tag_len {
            return Err(Error::InvalidTagLength {
                expected: "the tag length this MGM was created with",
                got: tag.len(),
            });
        }
        let (y1, z1) = self.initial_blocks(nonce);
        let expected = self.compute_tag(z1, aad, data);
        if !ct_eq(&expected[..self.tag_len], tag) {
            return Err(Error::AuthenticationFailed);
        }
        self.apply_keystream(y1, data);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit-serial reference multiplication (shift-and-add), for checking the fast one.
    fn reference_mul(a: u128, b: u128, bits: u32, poly: u128) -> u128 {
        let top = 1u128 << (bits - 1);
        let mask = if bits == 128 {
            u128::MAX
        } else {
            (1u128 << bits) - 1
        };
        let mut acc = 0u128;
        let mut v = a;
        for i in 0..bits {
            if (b >> i) & 1 == 1 {
                acc ^= v;
            }
            let carry = v & top != 0;
            v = (v << 1) & mask;
            if carry {
                v ^= poly;
            }
        }
        acc
    }

    #[test]
    fn fast_multiplication_matches_bit_serial() {
        // A fixed pseudo-random sequence (xorshift) plus edge values.
        let mut state = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834u128;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut values = vec![0u128, 1, 2, u128::MAX, 1 << 127, 0x87, u128::MAX >> 1];
        values.extend((0..200).map(|_| next()));
        for &a in &values {
            for &b in values.iter().take(40) {
                assert_eq!(
                    gf128_mul(a, b),
                    reference_mul(a, b, 128, 0x87),
                    "{a:x} {b:x}"
                );
                let (a64, b64) = (a as u64, b as u64);
                assert_eq!(
                    u128::from(gf64_mul(a64, b64)),
                    reference_mul(a64.into(), b64.into(), 64, 0x1b),
                    "{a64:x} {b64:x}"
                );
            }
        }
    }

    #[test]
    fn field_multiplication_basics() {
        // x * x^127 = x^128 = x^7 + x^2 + x + 1.
        assert_eq!(gf128_mul(2, 1u128 << 127), 0x87);
        assert_eq!(gf64_mul(2, 1u64 << 63), 0x1b);
        // Multiplication by 1 and commutativity on arbitrary values.
        let a = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128;
        let b = 0xdead_beef_0bad_f00d_1234_5678_9abc_def0u128;
        assert_eq!(gf128_mul(a, 1), a);
        assert_eq!(gf128_mul(a, b), gf128_mul(b, a));
        assert_eq!(gf64_mul(a as u64, b as u64), gf64_mul(b as u64, a as u64));
        // Distributivity.
        let c = 0x55aa_55aa_0f0f_f0f0_3c3c_c3c3_1111_8888u128;
        assert_eq!(gf128_mul(a, b ^ c), gf128_mul(a, b) ^ gf128_mul(a, c));
    }
}
