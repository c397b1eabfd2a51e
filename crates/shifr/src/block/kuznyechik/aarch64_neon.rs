//! Kuznyechik with AArch64 NEON, sixteen blocks per pass in byte-sliced form, constant-time.
//!
//! The sixteen blocks are transposed so that register `i` holds byte `i` (wire order) of every
//! block. Then no step needs a secret memory index:
//! - `S` / `S^-1`: the 256-byte table lives in sixteen registers and is read with one four-register
//!   TBL plus three TBX lookups (indices shifted by 64, 128, 192; out-of-range lanes keep their
//!   value).
//! - `L` / `L^-1`: sixteen `R` / `R^-1` steps. In byte-sliced form a step only computes one new
//!   register, `l(a) = XOR_i c_i * a_i`, and renames the others. Multiplication by a constant
//!   `c` in GF(2^8) is linear, so `c * x = T_lo[x & 15] ^ T_hi[x >> 4]` with two 16-entry tables held
//!   in registers (one TBL each).
//!
//! Fewer than sixteen blocks are padded through a stack buffer. Compiled only for little-endian
//! AArch64; NEON is part of the AArch64 baseline, and `cpu::select` offers the backend as
//! `Backend::Neon` so that `SHIFR_BACKEND=portable` turns it off.

use core::arch::aarch64::{
    uint8x16_t, uint8x16x4_t, vandq_u8, vdupq_n_u8, veorq_u8, vld1q_u8, vqtbl1q_u8, vqtbl4q_u8,
    vqtbx4q_u8, vreinterpretq_u16_u8, vreinterpretq_u32_u8, vreinterpretq_u64_u8,
    vreinterpretq_u8_u16, vreinterpretq_u8_u32, vreinterpretq_u8_u64, vshrq_n_u8, vst1q_u8,
    vsubq_u8, vtrn1q_u16, vtrn1q_u32, vtrn1q_u64, vtrn1q_u8, vtrn2q_u16, vtrn2q_u32, vtrn2q_u64,
    vtrn2q_u8,
};

use zeroize::Zeroize;

use super::tables::{gf_mul, L_COEFFS, PI, PI_INV};
/// Blocks per pass.
const BLOCKS: usize = 16;

/// Sixteen registers: a byte-sliced group of blocks.
type Slices = [uint8x16_t; 16];

/// Encrypts the whole 16-byte blocks of `data` in place; `keys` are K_1..K_10 (big-endian).
pub(super) fn encrypt_blocks(keys: &[u128; 10], data: &mut [u8]) {
    // SAFETY: NEON is enabled on every AArch64 Linux target (part of the baseline instruction set),
    // and this module is compiled only for AArch64.
    unsafe { process(keys, data, true) }
}

/// Decrypts the whole 16-byte blocks of `data` in place; `keys` are K_1..K_10 (big-endian).
pub(super) fn decrypt_blocks(keys: &[u128; 10], data: &mut [u8]) {
    // SAFETY: as in `encrypt_blocks`.
    unsafe { process(keys, data, false) }
}

#[inline]
#[target_feature(enable = "neon")]
fn load16(b: &[u8]) -> uint8x16_t {
    let b = &b[..16];
    // SAFETY: `b` is exactly 16 readable bytes and `vld1q_u8` has no alignment requirement.
    unsafe { vld1q_u8(b.as_ptr()) }
}

#[inline]
#[target_feature(enable = "neon")]
fn store16(b: &mut [u8], v: uint8x16_t) {
    let b = &mut b[..16];
    // SAFETY: `b` is exactly 16 writable bytes and `vst1q_u8` has no alignment requirement.
    unsafe { vst1q_u8(b.as_mut_ptr(), v) }
}

/// The constants of one direction, in registers.
struct Constants {
    /// The S-box (PI or PI^-1) as four groups of four registers.
    sbox: [uint8x16x4_t; 4],
    /// `mul_low[i][n] = c_i * n`, `mul_high[i][n] = c_i * (n << 4)` for the coefficients of `l`.
    mul_low: Slices,
    mul_high: Slices,
}

impl Constants {
    #[inline]
    #[target_feature(enable = "neon")]
    fn new(sbox: &[u8; 256]) -> Constants {
        let quarter = |q: usize| {
            let t = &sbox[64 * q..];
            uint8x16x4_t(
                load16(&t[..16]),
                load16(&t[16..32]),
                load16(&t[32..48]),
                load16(&t[48..64]),
            )
        };
        let mut mul_low = [vdupq_n_u8(0); 16];
        let mut mul_high = [vdupq_n_u8(0); 16];
        for (i, &c) in L_COEFFS.iter().enumerate() {
            let low: [u8; 16] = core::array::from_fn(|n| gf_mul(c, n as u8));
            let high: [u8; 16] = core::array::from_fn(|n| gf_mul(c, (n as u8) << 4));
            mul_low[i] = load16(&low);
            mul_high[i] = load16(&high);
        }
        Constants {
            sbox: [quarter(0), quarter(1), quarter(2), quarter(3)],
            mul_low,
            mul_high,
        }
    }

    /// The S-box on every byte: TBL for indices 0..64, TBX for the three other quarters.
    #[inline]
    #[target_feature(enable = "neon")]
    fn substitute(&self, x: uint8x16_t) -> uint8x16_t {
        let mut r = vqtbl4q_u8(self.sbox[0], x);
        r = vqtbx4q_u8(r, self.sbox[1], vsubq_u8(x, vdupq_n_u8(64)));
        r = vqtbx4q_u8(r, self.sbox[2], vsubq_u8(x, vdupq_n_u8(128)));
        vqtbx4q_u8(r, self.sbox[3], vsubq_u8(x, vdupq_n_u8(192)))
    }

    /// `l` over a window of sixteen byte-slices whose nibbles are split into `low` and `high`:
    /// `XOR_i c_i * window_i` (coefficient `i` belongs to the wire-order position `i`).
    #[inline]
    #[target_feature(enable = "neon")]
    fn l(&self, low: &[uint8x16_t], high: &[uint8x16_t]) -> uint8x16_t {
        let mut acc = vdupq_n_u8(0);
        for i in 0..16 {
            let p = veorq_u8(
                vqtbl1q_u8(self.mul_low[i], low[i]),
                vqtbl1q_u8(self.mul_high[i], high[i]),
            );
            acc = veorq_u8(acc, p);
        }
        acc
    }
}

/// Splits every slice into its low and high nibbles (the TBL indices of the multiplications).
#[inline]
#[target_feature(enable = "neon")]
fn nibbles(x: uint8x16_t) -> (uint8x16_t, uint8x16_t) {
    (vandq_u8(x, vdupq_n_u8(0x0f)), vshrq_n_u8::<4>(x))
}

/// `L = R^16`. `R` puts `l(a)` in front and shifts the others back, so with a 32-slice window the
/// block moves one slot towards the start per step.
#[inline]
#[target_feature(enable = "neon")]
fn linear(c: &Constants, x: &mut Slices) {
    let mut low = [vdupq_n_u8(0); 32];
    let mut high = [vdupq_n_u8(0); 32];
    for i in 0..16 {
        (low[16 + i], high[16 + i]) = nibbles(x[i]);
    }
    for p in (0..16).rev() {
        let new = c.l(&low[p + 1..p + 17], &high[p + 1..p + 17]);
        x[p] = new;
        (low[p], high[p]) = nibbles(new);
    }
}

/// `L^-1 = (R^-1)^16`. `R^-1` drops the front slice and appends `l(a_14, ..., a_0, a_15)`: the
/// block moves one slot towards the end per step, and `l` sees the front slice last.
#[inline]
#[target_feature(enable = "neon")]
fn linear_inv(c: &Constants, x: &mut Slices) {
    let mut window = [vdupq_n_u8(0); 32];
    let mut low = [vdupq_n_u8(0); 32];
    let mut high = [vdupq_n_u8(0); 32];
    for i in 0..16 {
        window[i] = x[i];
        (low[i], high[i]) = nibbles(x[i]);
    }
    for p in 0..16 {
        // The rotated view a_14..a_0, a_15 = window[p+1..p+16], window[p].
        let mut lo: [uint8x16_t; 16] = [vdupq_n_u8(0); 16];
        let mut hi: [uint8x16_t; 16] = [vdupq_n_u8(0); 16];
        lo[..15].copy_from_slice(&low[p + 1..p + 16]);
        hi[..15].copy_from_slice(&high[p + 1..p + 16]);
        lo[15] = low[p];
        hi[15] = high[p];
        let new = c.l(&lo, &hi);
        window[p + 16] = new;
        (low[p + 16], high[p + 16]) = nibbles(new);
    }
    x.copy_from_slice(&window[16..]);
}

/// Byte-transposes a 16 x 16 matrix of bytes held in sixteen registers (its own inverse): after
/// it, register `j` holds byte `j` of every former register.
#[inline]
#[target_feature(enable = "neon")]
fn transpose(m: &mut Slices) {
    for k in 0..8 {
        let (a, b) = (m[2 * k], m[2 * k + 1]);
        m[2 * k] = vtrn1q_u8(a, b);
        m[2 * k + 1] = vtrn2q_u8(a, b);
    }
    for g in 0..4 {
        for j in 0..2 {
            let (i0, i1) = (4 * g + j, 4 * g + j + 2);
            let (a, b) = (vreinterpretq_u16_u8(m[i0]), vreinterpretq_u16_u8(m[i1]));
            m[i0] = vreinterpretq_u8_u16(vtrn1q_u16(a, b));
            m[i1] = vreinterpretq_u8_u16(vtrn2q_u16(a, b));
        }
    }
    for g in 0..2 {
        for j in 0..4 {
            let (i0, i1) = (8 * g + j, 8 * g + j + 4);
            let (a, b) = (vreinterpretq_u32_u8(m[i0]), vreinterpretq_u32_u8(m[i1]));
            m[i0] = vreinterpretq_u8_u32(vtrn1q_u32(a, b));
            m[i1] = vreinterpretq_u8_u32(vtrn2q_u32(a, b));
        }
    }
    for j in 0..8 {
        let (a, b) = (vreinterpretq_u64_u8(m[j]), vreinterpretq_u64_u8(m[j + 8]));
        m[j] = vreinterpretq_u8_u64(vtrn1q_u64(a, b));
        m[j + 8] = vreinterpretq_u8_u64(vtrn2q_u64(a, b));
    }
}

/// XORs round key `k` (big-endian) into the byte-sliced state: slice `i` gets key byte `i`.
#[inline]
#[target_feature(enable = "neon")]
fn add_key(x: &mut Slices, k: u128) {
    let mut bytes = k.to_be_bytes();
    for (v, &b) in x.iter_mut().zip(&bytes) {
        *v = veorq_u8(*v, vdupq_n_u8(b));
    }
    bytes.zeroize();
}

/// Encrypts or decrypts the sixteen blocks of `group` (256 bytes).
#[inline]
#[target_feature(enable = "neon")]
fn sixteen_blocks(keys: &[u128; 10], c: &Constants, group: &mut [u8], encrypt: bool) {
    let mut x = [vdupq_n_u8(0); 16];
    for (v, b) in x.iter_mut().zip(group.chunks_exact(16)) {
        *v = load16(b);
    }
    transpose(&mut x);
    if encrypt {
        for &k in &keys[..9] {
            add_key(&mut x, k);
            for v in x.iter_mut() {
                *v = c.substitute(*v);
            }
            linear(c, &mut x);
        }
        add_key(&mut x, keys[9]);
    } else {
        for &k in keys[1..].iter().rev() {
            add_key(&mut x, k);
            linear_inv(c, &mut x);
            for v in x.iter_mut() {
                *v = c.substitute(*v);
            }
        }
        add_key(&mut x, keys[0]);
    }
    transpose(&mut x);
    for (v, b) in x.iter().zip(group.chunks_exact_mut(16)) {
        store16(b, *v);
    }
}

#[target_feature(enable = "neon")]
fn process(keys: &[u128; 10], data: &mut [u8], encrypt: bool) {
    let c = Constants::new(if encrypt { &PI } else { &PI_INV });
    let whole = data.len() - data.len() % 16;
    let mut groups = data[..whole].chunks_exact_mut(16 * BLOCKS);
    for group in &mut groups {
        sixteen_blocks(keys, &c, group, encrypt);
    }
    let rest = groups.into_remainder();
    if !rest.is_empty() {
        // Fewer than sixteen blocks left: run them through a padded buffer.
        let mut buf = [0u8; 16 * BLOCKS];
        buf[..rest.len()].copy_from_slice(rest);
        sixteen_blocks(keys, &c, &mut buf, encrypt);
        rest.copy_from_slice(&buf[..rest.len()]);
        buf.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::BlockCipher;

    /// A small deterministic generator (xorshift64*), enough to vary keys, data and lengths.
    fn fill(seed: &mut u64, out: &mut [u8]) {
        for b in out {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            *b = (seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8;
        }
    }

    /// NEON against the portable tables on random keys, every length from 0 to 33 blocks plus odd
    /// tails, and a few KiB.
    #[test]
    fn agrees_with_portable() {
        let mut seed = 0x0fed_cba9_8765_4321;
        for _ in 0..4 {
            let mut key = [0u8; 32];
            fill(&mut seed, &mut key);
            let cipher =
                super::super::Kuznyechik::with_backend(&key, crate::cpu::Backend::Neon).unwrap();
            assert_eq!(cipher.backend(), crate::cpu::Backend::Neon);
            let lengths = (0..=33 * 16)
                .step_by(16)
                .chain([1, 15, 17, 255, 257, 4096, 5003]);
            for len in lengths {
                let mut data = vec![0u8; len];
                fill(&mut seed, &mut data);
                let mut expected = data.clone();
                super::super::soft::encrypt_blocks(&cipher.keys, &mut expected);
                let mut got = data.clone();
                encrypt_blocks(&cipher.keys, &mut got);
                assert_eq!(got, expected, "encrypt len {len}");
                decrypt_blocks(&cipher.keys, &mut got);
                assert_eq!(got, data, "decrypt len {len}");
            }
            // Through the public type too, which must dispatch to this backend.
            let mut data = vec![0u8; 1000];
            fill(&mut seed, &mut data);
            let mut expected = data.clone();
            super::super::soft::encrypt_blocks(&cipher.keys, &mut expected);
            cipher.encrypt_blocks(&mut data);
            assert_eq!(data, expected);
        }
    }
}
