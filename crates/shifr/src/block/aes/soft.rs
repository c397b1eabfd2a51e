//! Portable, constant-time AES: a bitsliced implementation that encrypts four blocks per pass.
//!
//! Layout. Four blocks (64 bytes) are held as eight `u64` bit planes: bit `4 * p + b` of
//! `planes[i]` is bit `i` of byte `p` of block `b`, where `p = 4 * column + row` is the FIPS 197
//! input order. So each byte position owns a nibble (one bit per block), each column a 16-bit lane
//! and each row every fourth nibble.
//!
//! - SubBytes is the Boyar–Peralta 113-gate Boolean circuit for the S-box (XOR/AND/XNOR only),
//!   evaluated once on the eight planes for all 64 bytes. InvSubBytes reuses it through the identity
//!   `InvSbox(x) = F(Sbox(F(x)))`, where `F(x) = A^-1(x ^ 0x63)` is the inverse affine map.
//! - ShiftRows is a rotation of the whole word by 16 bits per row, masked to that row's nibbles;
//!   MixColumns rotates each 16-bit column lane (row `r` -> row `r + k`) and uses a bitsliced
//!   multiplication by x.
//!
//! No table is indexed and no branch is taken on key or data; every shift amount is a constant.

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::key_schedule::{expand_key, MAX_ROUND_KEYS};

/// Bytes handled by one bitsliced pass: four 16-byte blocks.
const BATCH: usize = 64;

/// Eight bit planes of a four-block batch (see the module doc).
type Planes = [u64; 8];

/// Round keys in bitsliced form (each round key replicated into the four block lanes).
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(super) struct SoftAes {
    round_keys: [Planes; MAX_ROUND_KEYS],
    rounds: usize,
}

impl SoftAes {
    /// Expands a 16-, 24- or 32-byte key (length checked by the caller).
    pub(super) fn new(key: &[u8]) -> SoftAes {
        let (mut expanded, rounds) = expand_key(key);
        let mut round_keys = [[0u64; 8]; MAX_ROUND_KEYS];
        let mut lanes = [0u8; BATCH];
        for (rk, bytes) in round_keys.iter_mut().zip(expanded.iter()).take(rounds + 1) {
            for lane in lanes.chunks_exact_mut(16) {
                lane.copy_from_slice(bytes);
            }
            *rk = pack(&lanes);
        }
        lanes.zeroize();
        expanded.zeroize();
        SoftAes { round_keys, rounds }
    }

    /// Encrypts every whole 16-byte block of `data` in place.
    pub(super) fn encrypt_blocks(&self, data: &mut [u8]) {
        for_each_batch(data, |q| self.encrypt_planes(q));
    }

    /// Decrypts every whole 16-byte block of `data` in place.
    pub(super) fn decrypt_blocks(&self, data: &mut [u8]) {
        for_each_batch(data, |q| self.decrypt_planes(q));
    }

    fn encrypt_planes(&self, q: &mut Planes) {
        add_round_key(q, &self.round_keys[0]);
        for rk in &self.round_keys[1..self.rounds] {
            sub_bytes(q);
            shift_rows(q);
            mix_columns(q);
            add_round_key(q, rk);
        }
        sub_bytes(q);
        shift_rows(q);
        add_round_key(q, &self.round_keys[self.rounds]);
    }

    fn decrypt_planes(&self, q: &mut Planes) {
        add_round_key(q, &self.round_keys[self.rounds]);
        for rk in self.round_keys[1..self.rounds].iter().rev() {
            inv_shift_rows(q);
            inv_sub_bytes(q);
            add_round_key(q, rk);
            inv_mix_columns(q);
        }
        inv_shift_rows(q);
        inv_sub_bytes(q);
        add_round_key(q, &self.round_keys[0]);
    }
}

/// Applies the S-box to each byte of `bytes` in constant time (used by the key schedule).
pub(super) fn sub_bytes_ct(bytes: &mut [u8]) {
    for chunk in bytes.chunks_mut(BATCH) {
        let mut buf = [0u8; BATCH];
        buf[..chunk.len()].copy_from_slice(chunk);
        let mut q = pack(&buf);
        sub_bytes(&mut q);
        buf = unpack(&q);
        chunk.copy_from_slice(&buf[..chunk.len()]);
        buf.zeroize();
        q.zeroize();
    }
}

/// Runs `f` on the bit planes of every four-block batch of `data`; a final partial batch (one to
/// three blocks) is zero-padded. Trailing bytes that do not form a whole block are left untouched.
fn for_each_batch(data: &mut [u8], mut f: impl FnMut(&mut Planes)) {
    let whole = data.len() - data.len() % 16;
    let mut buf = [0u8; BATCH];
    for chunk in data[..whole].chunks_mut(BATCH) {
        buf[..chunk.len()].copy_from_slice(chunk);
        buf[chunk.len()..].fill(0);
        let mut q = pack(&buf);
        f(&mut q);
        buf = unpack(&q);
        chunk.copy_from_slice(&buf[..chunk.len()]);
    }
    buf.zeroize();
}

/// Swaps the bits of `x` selected by `mask` with the bits `shift` positions above them.
#[inline(always)]
fn swap_in_word(x: u64, mask: u64, shift: u32) -> u64 {
    let t = ((x >> shift) ^ x) & mask;
    x ^ t ^ (t << shift)
}

/// Swaps the bits of `b` selected by `mask` with the bits of `a` `shift` positions above them.
#[inline(always)]
fn swap_across(a: &mut u64, b: &mut u64, mask: u64, shift: u32) {
    let t = ((*a >> shift) ^ *b) & mask;
    *b ^= t;
    *a ^= t << shift;
}

/// Transposes, in every word, the 8x8 bit matrix "byte m, bit b" into "byte b, bit m".
#[inline(always)]
fn transpose_bits_in_bytes(w: &mut Planes) {
    for x in w.iter_mut() {
        *x = swap_in_word(*x, 0x00AA_00AA_00AA_00AA, 7);
        *x = swap_in_word(*x, 0x0000_CCCC_0000_CCCC, 14);
        *x = swap_in_word(*x, 0x0000_0000_F0F0_F0F0, 28);
    }
}

/// Transposes the 8x8 byte matrix "word k, byte b" into "word b, byte k".
#[inline(always)]
fn transpose_bytes_across_words(w: &mut Planes) {
    for (step, mask, shift) in [
        (1usize, 0x00FF_00FF_00FF_00FFu64, 8u32),
        (2, 0x0000_FFFF_0000_FFFF, 16),
        (4, 0x0000_0000_FFFF_FFFF, 32),
    ] {
        for k in 0..8 {
            if k & step == 0 {
                let (lo, hi) = w.split_at_mut(k + step);
                swap_across(&mut lo[k], &mut hi[0], mask, shift);
            }
        }
    }
}

/// Block-major bytes (`16 * b + p`) -> position-major bytes (`4 * p + b`), and back.
fn interleave(bytes: &[u8; BATCH]) -> [u8; BATCH] {
    let mut out = [0u8; BATCH];
    for (j, byte) in bytes.iter().enumerate() {
        out[4 * (j % 16) + j / 16] = *byte;
    }
    out
}

fn deinterleave(bytes: &[u8; BATCH]) -> [u8; BATCH] {
    let mut out = [0u8; BATCH];
    for (j, byte) in out.iter_mut().enumerate() {
        *byte = bytes[4 * (j % 16) + j / 16];
    }
    out
}

/// Four blocks -> bit planes (see the module doc for the layout).
fn pack(blocks: &[u8; BATCH]) -> Planes {
    let mut bytes = interleave(blocks);
    let mut w = [0u64; 8];
    for (x, chunk) in w.iter_mut().zip(bytes.chunks_exact(8)) {
        let mut le = [0u8; 8];
        le.copy_from_slice(chunk);
        *x = u64::from_le_bytes(le);
    }
    bytes.zeroize();
    transpose_bits_in_bytes(&mut w);
    transpose_bytes_across_words(&mut w);
    w
}

/// Bit planes -> 64 bytes, the inverse of [`pack`].
fn unpack(q: &Planes) -> [u8; BATCH] {
    let mut w = *q;
    transpose_bytes_across_words(&mut w);
    transpose_bits_in_bytes(&mut w);
    let mut bytes = [0u8; BATCH];
    for (chunk, x) in bytes.chunks_exact_mut(8).zip(w.iter()) {
        chunk.copy_from_slice(&x.to_le_bytes());
    }
    let blocks = deinterleave(&bytes);
    bytes.zeroize();
    blocks
}

#[inline(always)]
fn add_round_key(q: &mut Planes, rk: &Planes) {
    for (x, k) in q.iter_mut().zip(rk) {
        *x ^= k;
    }
}

/// Rotates every 16-bit lane of `x` right by `s` bits (0 < s < 16).
#[inline(always)]
fn rotr_lanes16(x: u64, s: u32) -> u64 {
    let low = (0xFFFFu64 >> s) * 0x0001_0001_0001_0001;
    ((x >> s) & low) | ((x << (16 - s)) & !low)
}

/// The nibbles of row `r` (byte positions `p` with `p % 4 == r`).
const ROW0: u64 = 0x000F_000F_000F_000F;
const ROW1: u64 = ROW0 << 4;
const ROW2: u64 = ROW0 << 8;
const ROW3: u64 = ROW0 << 12;

/// Row `r` moves left by `r` columns: the byte at column `c` comes from column `c + r`, i.e. from
/// `16 * r` bit positions higher, wrapping around the word.
fn shift_rows(q: &mut Planes) {
    for x in q.iter_mut() {
        let v = *x;
        *x = (v & ROW0)
            | (v.rotate_right(16) & ROW1)
            | (v.rotate_right(32) & ROW2)
            | (v.rotate_right(48) & ROW3);
    }
}

fn inv_shift_rows(q: &mut Planes) {
    for x in q.iter_mut() {
        let v = *x;
        *x = (v & ROW0)
            | (v.rotate_left(16) & ROW1)
            | (v.rotate_left(32) & ROW2)
            | (v.rotate_left(48) & ROW3);
    }
}

/// Multiplies every byte by x modulo x^8 + x^4 + x^3 + x + 1.
#[inline(always)]
fn xtime(s: &Planes) -> Planes {
    [
        s[7],
        s[0] ^ s[7],
        s[1],
        s[2] ^ s[7],
        s[3] ^ s[7],
        s[4],
        s[5],
        s[6],
    ]
}

/// In every column, row `r` receives the byte of row `r + s` (mod 4).
#[inline(always)]
fn rotate_rows(q: &Planes, s: u32) -> Planes {
    let mut out = [0u64; 8];
    for (o, x) in out.iter_mut().zip(q) {
        *o = rotr_lanes16(*x, 4 * s);
    }
    out
}

/// out[r] = 2*a[r] + 3*a[r+1] + a[r+2] + a[r+3], computed as 2*t[r] + a[r+1] + t[r+2] with
/// t[r] = a[r] + a[r+1]: two row rotations instead of three.
fn mix_columns(q: &mut Planes) {
    let r1 = rotate_rows(q, 1);
    let mut t = [0u64; 8];
    for i in 0..8 {
        t[i] = q[i] ^ r1[i];
    }
    let t2 = rotate_rows(&t, 2);
    let doubled = xtime(&t);
    for i in 0..8 {
        q[i] = doubled[i] ^ r1[i] ^ t2[i];
    }
}

/// InvMixColumns = MixColumns after multiplying each column by 04*x^2 + 05, that is
/// a[r] += 4 * (a[r] + a[r+2]).
fn inv_mix_columns(q: &mut Planes) {
    let r2 = rotate_rows(q, 2);
    let mut sum = [0u64; 8];
    for i in 0..8 {
        sum[i] = q[i] ^ r2[i];
    }
    let times4 = xtime(&xtime(&sum));
    for i in 0..8 {
        q[i] ^= times4[i];
    }
    mix_columns(q);
}

/// `F(x) = A^-1(x ^ 0x63)`: bit i = x[i+2] ^ x[i+5] ^ x[i+7] ^ (0x05 bit i), indices mod 8.
fn inv_affine(q: &mut Planes) {
    let x = *q;
    for (i, out) in q.iter_mut().enumerate() {
        *out = x[(i + 2) % 8] ^ x[(i + 5) % 8] ^ x[(i + 7) % 8];
    }
    q[0] = !q[0];
    q[2] = !q[2];
}

fn inv_sub_bytes(q: &mut Planes) {
    inv_affine(q);
    sub_bytes(q);
    inv_affine(q);
}

/// The AES S-box on all 64 bytes: the Boyar–Peralta circuit (top linear layer, shared nonlinear
/// middle, bottom linear layer). `u0` is the most significant bit, as in the published circuit.
fn sub_bytes(q: &mut Planes) {
    let (u0, u1, u2, u3, u4, u5, u6, u7) = (q[7], q[6], q[5], q[4], q[3], q[2], q[1], q[0]);

    // Top linear transformation.
    let t1 = u0 ^ u3;
    let t2 = u0 ^ u5;
    let t3 = u0 ^ u6;
    let t4 = u3 ^ u5;
    let t5 = u4 ^ u6;
    let t6 = t1 ^ t5;
    let t7 = u1 ^ u2;
    let t8 = u7 ^ t6;
    let t9 = u7 ^ t7;
    let t10 = t6 ^ t7;
    let t11 = u1 ^ u5;
    let t12 = u2 ^ u5;
    let t13 = t3 ^ t4;
    let t14 = t6 ^ t11;
    let t15 = t5 ^ t11;
    let t16 = t5 ^ t12;
    let t17 = t9 ^ t16;
    let t18 = u3 ^ u7;
    let t19 = t7 ^ t18;
    let t20 = t1 ^ t19;
    let t21 = u6 ^ u7;
    let t22 = t7 ^ t21;
    let t23 = t2 ^ t22;
    let t24 = t2 ^ t10;
    let t25 = t20 ^ t17;
    let t26 = t3 ^ t16;
    let t27 = t1 ^ t12;
    let d = u7;

    // Shared nonlinear middle (inversion in GF(2^8) through GF(2^4)).
    let m1 = t13 & t6;
    let m2 = t23 & t8;
    let m3 = t14 ^ m1;
    let m4 = t19 & d;
    let m5 = m4 ^ m1;
    let m6 = t3 & t16;
    let m7 = t22 & t9;
    let m8 = t26 ^ m6;
    let m9 = t20 & t17;
    let m10 = m9 ^ m6;
    let m11 = t1 & t15;
    let m12 = t4 & t27;
    let m13 = m12 ^ m11;
    let m14 = t2 & t10;
    let m15 = m14 ^ m11;
    let m16 = m3 ^ m2;
    let m17 = m5 ^ t24;
    let m18 = m8 ^ m7;
    let m19 = m10 ^ m15;
    let m20 = m16 ^ m13;
    let m21 = m17 ^ m15;
    let m22 = m18 ^ m13;
    let m23 = m19 ^ t25;
    let m24 = m22 ^ m23;
    let m25 = m22 & m20;
    let m26 = m21 ^ m25;
    let m27 = m20 ^ m21;
    let m28 = m23 ^ m25;
    let m29 = m28 & m27;
    let m30 = m26 & m24;
    let m31 = m20 & m23;
    let m32 = m27 & m31;
    let m33 = m27 ^ m25;
    let m34 = m21 & m22;
    let m35 = m24 & m34;
    let m36 = m24 ^ m25;
    let m37 = m21 ^ m29;
    let m38 = m32 ^ m33;
    let m39 = m23 ^ m30;
    let m40 = m35 ^ m36;
    let m41 = m38 ^ m40;
    let m42 = m37 ^ m39;
    let m43 = m37 ^ m38;
    let m44 = m39 ^ m40;
    let m45 = m42 ^ m41;
    let m46 = m44 & t6;
    let m47 = m40 & t8;
    let m48 = m39 & d;
    let m49 = m43 & t16;
    let m50 = m38 & t9;
    let m51 = m37 & t17;
    let m52 = m42 & t15;
    let m53 = m45 & t27;
    let m54 = m41 & t10;
    let m55 = m44 & t13;
    let m56 = m40 & t23;
    let m57 = m39 & t19;
    let m58 = m43 & t3;
    let m59 = m38 & t22;
    let m60 = m37 & t20;
    let m61 = m42 & t1;
    let m62 = m45 & t4;
    let m63 = m41 & t2;

    // Bottom linear transformation (with the affine constant folded into the XNORs).
    let l0 = m61 ^ m62;
    let l1 = m50 ^ m56;
    let l2 = m46 ^ m48;
    let l3 = m47 ^ m55;
    let l4 = m54 ^ m58;
    let l5 = m49 ^ m61;
    let l6 = m62 ^ l5;
    let l7 = m46 ^ l3;
    let l8 = m51 ^ m59;
    let l9 = m52 ^ m53;
    let l10 = m53 ^ l4;
    let l11 = m60 ^ l2;
    let l12 = m48 ^ m51;
    let l13 = m50 ^ l0;
    let l14 = m52 ^ m61;
    let l15 = m55 ^ l1;
    let l16 = m56 ^ l0;
    let l17 = m57 ^ l1;
    let l18 = m58 ^ l8;
    let l19 = m63 ^ l4;
    let l20 = l0 ^ l1;
    let l21 = l1 ^ l7;
    let l22 = l3 ^ l12;
    let l23 = l18 ^ l2;
    let l24 = l15 ^ l9;
    let l25 = l6 ^ l10;
    let l26 = l7 ^ l9;
    let l27 = l8 ^ l10;
    let l28 = l11 ^ l14;
    let l29 = l11 ^ l17;

    q[7] = l6 ^ l24;
    q[6] = !(l16 ^ l26);
    q[5] = !(l19 ^ l28);
    q[4] = l6 ^ l21;
    q[3] = l20 ^ l22;
    q[2] = l25 ^ l29;
    q[1] = !(l13 ^ l27);
    q[0] = !(l6 ^ l23);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The S-box from its FIPS 197 definition (Section 5.1.1): multiplicative inverse in GF(2^8)
    /// found by search, then the affine map. Slow and only for checking the circuit.
    fn sbox_by_definition(x: u8) -> u8 {
        fn gmul(mut a: u8, mut b: u8) -> u8 {
            let mut r = 0u8;
            while b != 0 {
                if b & 1 != 0 {
                    r ^= a;
                }
                let carry = a & 0x80 != 0;
                a <<= 1;
                if carry {
                    a ^= 0x1b;
                }
                b >>= 1;
            }
            r
        }
        let inv = (1..=255u8).find(|&y| gmul(x, y) == 1).unwrap_or(0);
        let mut out = 0x63u8;
        for i in 0..8 {
            let bit = (inv >> i) ^ (inv >> ((i + 4) % 8)) ^ (inv >> ((i + 5) % 8));
            let bit = bit ^ (inv >> ((i + 6) % 8)) ^ (inv >> ((i + 7) % 8));
            out ^= (bit & 1) << i;
        }
        out
    }

    fn all_bytes() -> [[u8; BATCH]; 4] {
        let mut batches = [[0u8; BATCH]; 4];
        for (i, b) in batches.iter_mut().flatten().enumerate() {
            *b = i as u8;
        }
        batches
    }

    #[test]
    fn circuit_matches_sbox_definition_for_all_bytes() {
        for batch in all_bytes() {
            let mut q = pack(&batch);
            sub_bytes(&mut q);
            let out = unpack(&q);
            for (x, y) in batch.iter().zip(out.iter()) {
                assert_eq!(*y, sbox_by_definition(*x), "S({x:02x})");
            }
        }
        assert_eq!(sbox_by_definition(0x53), 0xed); // FIPS 197 Section 5.1.1 example
    }

    #[test]
    fn inverse_sbox_inverts_for_all_bytes() {
        for batch in all_bytes() {
            let mut q = pack(&batch);
            sub_bytes(&mut q);
            inv_sub_bytes(&mut q);
            assert_eq!(unpack(&q), batch);
        }
    }

    #[test]
    fn pack_round_trips_and_places_bits() {
        let mut bytes = [0u8; BATCH];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (i as u8).wrapping_mul(37) ^ 0x5a;
        }
        let q = pack(&bytes);
        for (j, byte) in bytes.iter().enumerate() {
            let (block, position) = (j / 16, j % 16);
            for (i, plane) in q.iter().enumerate() {
                let bit = (plane >> (4 * position + block)) & 1;
                assert_eq!(bit, u64::from((byte >> i) & 1));
            }
        }
        assert_eq!(unpack(&q), bytes);
    }

    #[test]
    fn row_and_column_operations_invert() {
        let mut bytes = [0u8; BATCH];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (i as u8).wrapping_mul(91).wrapping_add(7);
        }
        let q0 = pack(&bytes);
        let mut q = q0;
        shift_rows(&mut q);
        assert_ne!(q, q0);
        inv_shift_rows(&mut q);
        assert_eq!(q, q0);
        mix_columns(&mut q);
        assert_ne!(q, q0);
        inv_mix_columns(&mut q);
        assert_eq!(q, q0);
    }

    #[test]
    fn shift_rows_moves_bytes_as_fips197() {
        // One block of distinct bytes; FIPS 197 Figure 8: s'[r][c] = s[r][(c + r) mod 4].
        let mut bytes = [0u8; BATCH];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = i as u8;
        }
        let mut q = pack(&bytes);
        shift_rows(&mut q);
        let out = unpack(&q);
        for blk in 0..4 {
            for r in 0..4 {
                for c in 0..4 {
                    let src = 16 * blk + 4 * ((c + r) % 4) + r;
                    assert_eq!(out[16 * blk + 4 * c + r], src as u8);
                }
            }
        }
    }

    #[test]
    fn mix_columns_matches_fips197_example_column() {
        // FIPS 197 Appendix B, round 1: after ShiftRows column 0 = d4 bf 5d 30, after MixColumns
        // 04 66 81 e5.
        let mut bytes = [0u8; BATCH];
        bytes[..4].copy_from_slice(&[0xd4, 0xbf, 0x5d, 0x30]);
        let mut q = pack(&bytes);
        mix_columns(&mut q);
        assert_eq!(unpack(&q)[..4], [0x04, 0x66, 0x81, 0xe5]);
    }
}
