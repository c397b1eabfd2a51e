//! AES with the ARMv8 cryptography extensions (AESE/AESMC, AESD/AESIMC), eight blocks interleaved
//! per pass so that the pipelined AES units stay busy.
//!
//! AESE is AddRoundKey + SubBytes + ShiftRows (the key is XORed *first*, unlike x86's AESENC), so
//! round `r` is `AESMC(AESE(s, k_r))` and the last round `AESE(s, k_{Nr-1}) ^ k_Nr`. Decryption runs
//! the Equivalent Inverse Cipher (FIPS 197 Section 5.3.5) with AESD/AESIMC and round keys passed
//! through InvMixColumns. Constant-time by construction: the AES instructions have data-independent
//! timing, and the key schedule's SubWord is an AESE too (`sub_word`).

use core::arch::aarch64::{
    uint8x16_t, vaesdq_u8, vaeseq_u8, vaesimcq_u8, vaesmcq_u8, vdupq_n_u32, vdupq_n_u8, veorq_u8,
    vgetq_lane_u32, vld1q_u8, vreinterpretq_u32_u8, vreinterpretq_u8_u32, vst1q_u8,
};

use zeroize::Zeroize;

use super::key_schedule::{expand_key_with, MAX_ROUND_KEYS};
use crate::wipe::wipe;

/// Blocks processed together in the main loop.
const LANES: usize = 8;

/// Encryption and decryption round keys in wire order. Holding one proves that the CPU has the AES
/// instructions: [`ArmAes::new`] is the only constructor and checks it.
#[derive(Clone)]
pub(super) struct ArmAes {
    enc: [[u8; 16]; MAX_ROUND_KEYS],
    dec: [[u8; 16]; MAX_ROUND_KEYS],
    rounds: usize,
}

impl Zeroize for ArmAes {
    fn zeroize(&mut self) {
        wipe(self.enc.as_flattened_mut());
        wipe(self.dec.as_flattened_mut());
    }
}

impl Drop for ArmAes {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl ArmAes {
    /// Expands the key, or returns `None` when this CPU lacks the AES instructions.
    pub(super) fn new(key: &[u8]) -> Option<ArmAes> {
        if !crate::cpu::features().arm_aes {
            return None;
        }
        // SAFETY: AES instruction support was checked just above.
        let (enc, rounds) = expand_key_with(key, |word| unsafe { sub_word(word) });
        let mut dec = [[0u8; 16]; MAX_ROUND_KEYS];
        // SAFETY: AES instruction support was checked just above.
        unsafe { inverse_round_keys(&enc, rounds, &mut dec) };
        Some(ArmAes { enc, dec, rounds })
    }

    /// Encrypts every whole 16-byte block of `data` in place.
    pub(super) fn encrypt_blocks(&self, data: &mut [u8]) {
        // SAFETY: an `ArmAes` exists only if the CPU has the AES instructions (see `new`).
        unsafe { encrypt_all(&self.enc, self.rounds, data) }
    }

    /// Decrypts every whole 16-byte block of `data` in place.
    pub(super) fn decrypt_blocks(&self, data: &mut [u8]) {
        // SAFETY: an `ArmAes` exists only if the CPU has the AES instructions (see `new`).
        unsafe { decrypt_all(&self.dec, self.rounds, data) }
    }

    /// CBC (`CBC`) or CFB-128 decryption of the whole blocks of `data` from `register`, which
    /// becomes the last ciphertext block (see [`crate::block::BlockCipher::decrypt_chain`]).
    pub(super) fn decrypt_chain<const CBC: bool>(&self, register: &mut [u8; 16], data: &mut [u8]) {
        let keys = if CBC { &self.dec } else { &self.enc };
        // SAFETY: an `ArmAes` exists only if the CPU has the AES instructions (see `new`).
        unsafe { decrypt_chain_all::<CBC>(keys, self.rounds, register, data) }
    }
}

/// Loads the first 16 bytes of `b` (panics, never reads out of bounds, if `b` is shorter).
#[inline(always)]
fn load(b: &[u8]) -> uint8x16_t {
    let b = &b[..16];
    // SAFETY: `b` is exactly 16 readable bytes; `vld1q_u8` has no alignment requirement and NEON
    // is part of the AArch64 baseline.
    unsafe { vld1q_u8(b.as_ptr()) }
}

/// Stores `v` into the first 16 bytes of `b` (panics, never writes out of bounds, if shorter).
#[inline(always)]
fn store(b: &mut [u8], v: uint8x16_t) {
    let b = &mut b[..16];
    // SAFETY: `b` is exactly 16 writable bytes; `vst1q_u8` has no alignment requirement and NEON
    // is part of the AArch64 baseline.
    unsafe { vst1q_u8(b.as_mut_ptr(), v) }
}

#[inline]
#[target_feature(enable = "neon")]
fn load_keys(keys: &[[u8; 16]; MAX_ROUND_KEYS]) -> [uint8x16_t; MAX_ROUND_KEYS] {
    let mut rk = [vdupq_n_u8(0); MAX_ROUND_KEYS];
    for (r, k) in rk.iter_mut().zip(keys) {
        *r = load(k);
    }
    rk
}

/// dec[0] = enc[Nr], dec[i] = InvMixColumns(enc[Nr - i]), dec[Nr] = enc[0].
#[target_feature(enable = "aes")]
fn inverse_round_keys(
    enc: &[[u8; 16]; MAX_ROUND_KEYS],
    rounds: usize,
    dec: &mut [[u8; 16]; MAX_ROUND_KEYS],
) {
    dec[0] = enc[rounds];
    for i in 1..rounds {
        store(&mut dec[i], vaesimcq_u8(load(&enc[rounds - i])));
    }
    dec[rounds] = enc[0];
}

#[target_feature(enable = "aes")]
fn encrypt_all(keys: &[[u8; 16]; MAX_ROUND_KEYS], rounds: usize, data: &mut [u8]) {
    let rk = load_keys(keys);
    let mut groups = data.chunks_exact_mut(16 * LANES);
    for group in &mut groups {
        crypt_group::<false, LANES>(&rk, rounds, group);
    }
    for block in groups.into_remainder().chunks_exact_mut(16) {
        crypt_group::<false, 1>(&rk, rounds, block);
    }
}

#[target_feature(enable = "aes")]
fn decrypt_all(keys: &[[u8; 16]; MAX_ROUND_KEYS], rounds: usize, data: &mut [u8]) {
    let rk = load_keys(keys);
    let mut groups = data.chunks_exact_mut(16 * LANES);
    for group in &mut groups {
        crypt_group::<true, LANES>(&rk, rounds, group);
    }
    for block in groups.into_remainder().chunks_exact_mut(16) {
        crypt_group::<true, 1>(&rk, rounds, block);
    }
}

/// Encrypts (or, when `DEC`, decrypts with the Equivalent Inverse Cipher) `N` consecutive blocks
/// of `chunk` (16 * N bytes), interleaving their rounds.
#[inline]
#[target_feature(enable = "aes")]
fn crypt_group<const DEC: bool, const N: usize>(
    rk: &[uint8x16_t; MAX_ROUND_KEYS],
    rounds: usize,
    chunk: &mut [u8],
) {
    let mut s = [vdupq_n_u8(0); N];
    for (v, b) in s.iter_mut().zip(chunk.chunks_exact(16)) {
        *v = load(b);
    }
    for (v, b) in crypt_regs::<DEC, N>(rk, rounds, s)
        .iter()
        .zip(chunk.chunks_exact_mut(16))
    {
        store(b, *v);
    }
}

/// `N` blocks through the rounds together: AESE/AESMC, or AESD/AESIMC when `DEC`, the last round
/// without the column mix and followed by the last key.
#[inline]
#[target_feature(enable = "aes")]
fn crypt_regs<const DEC: bool, const N: usize>(
    rk: &[uint8x16_t; MAX_ROUND_KEYS],
    rounds: usize,
    mut s: [uint8x16_t; N],
) -> [uint8x16_t; N] {
    for k in &rk[..rounds - 1] {
        for v in s.iter_mut() {
            *v = if DEC {
                vaesimcq_u8(vaesdq_u8(*v, *k))
            } else {
                vaesmcq_u8(vaeseq_u8(*v, *k))
            };
        }
    }
    for v in s.iter_mut() {
        let last = if DEC {
            vaesdq_u8(*v, rk[rounds - 1])
        } else {
            vaeseq_u8(*v, rk[rounds - 1])
        };
        *v = veorq_u8(last, rk[rounds]);
    }
    s
}

/// CBC (`CBC`, `keys` the decryption round keys) or CFB-128 (the encryption round keys)
/// decryption, `LANES` blocks interleaved: the block before each block, the register for the
/// first, is ciphertext known in advance.
#[target_feature(enable = "aes")]
fn decrypt_chain_all<const CBC: bool>(
    keys: &[[u8; 16]; MAX_ROUND_KEYS],
    rounds: usize,
    register: &mut [u8; 16],
    data: &mut [u8],
) {
    let rk = load_keys(keys);
    let mut prev = load(&register[..]);
    let mut groups = data.chunks_exact_mut(16 * LANES);
    for group in &mut groups {
        prev = decrypt_chain_group::<CBC, LANES>(&rk, rounds, prev, group);
    }
    for block in groups.into_remainder().chunks_exact_mut(16) {
        prev = decrypt_chain_group::<CBC, 1>(&rk, rounds, prev, block);
    }
    store(&mut register[..], prev);
}

/// Decrypts the `N` blocks of `chunk` (16 * N bytes) after the ciphertext block `prev`; returns
/// the last ciphertext block.
#[inline]
#[target_feature(enable = "aes")]
fn decrypt_chain_group<const CBC: bool, const N: usize>(
    rk: &[uint8x16_t; MAX_ROUND_KEYS],
    rounds: usize,
    prev: uint8x16_t,
    chunk: &mut [u8],
) -> uint8x16_t {
    let chunk = &mut chunk[..16 * N];
    let mut c = [vdupq_n_u8(0); N];
    for (v, b) in c.iter_mut().zip(chunk.chunks_exact(16)) {
        *v = load(b);
    }
    let mut before = [prev; N];
    before[1..].copy_from_slice(&c[..N - 1]);
    let (inputs, operands) = if CBC { (c, before) } else { (before, c) };
    let out = crypt_regs::<CBC, N>(rk, rounds, inputs);
    for ((o, x), b) in out.iter().zip(&operands).zip(chunk.chunks_exact_mut(16)) {
        store(b, veorq_u8(*o, *x));
    }
    c[N - 1]
}

/// The key schedule's SubWord with AESE: with the word in all four columns ShiftRows moves
/// nothing, so AESE with a zero round key is SubBytes on each copy (constant-time, as the
/// instruction is).
#[target_feature(enable = "aes")]
fn sub_word(word: u32) -> u32 {
    let state = vreinterpretq_u8_u32(vdupq_n_u32(word));
    vgetq_lane_u32::<0>(vreinterpretq_u32_u8(vaeseq_u8(state, vdupq_n_u8(0))))
}
