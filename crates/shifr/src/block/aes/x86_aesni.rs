//! AES with the x86-64 AES-NI instructions, eight blocks interleaved per pass so that the
//! pipelined `aesenc`/`aesdec` units stay busy.
//!
//! Constant-time by construction: the AES round instructions have data-independent timing. The
//! round keys come from the portable (constant-time) key schedule; the decryption keys for the
//! Equivalent Inverse Cipher (FIPS 197 Section 5.3.5) are made with `aesimc`.

use core::arch::x86_64::{
    __m128i, _mm_aesdec_si128, _mm_aesdeclast_si128, _mm_aesenc_si128, _mm_aesenclast_si128,
    _mm_aesimc_si128, _mm_cvtsi128_si32, _mm_load_si128, _mm_loadu_si128, _mm_set1_epi32,
    _mm_set_epi64x, _mm_setzero_si128, _mm_storeu_si128, _mm_xor_si128,
};

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::key_schedule::{expand_key_with, MAX_ROUND_KEYS};
use crate::wipe::wipe;

/// Blocks processed together in the main loop.
const LANES: usize = 8;

/// One direction's round keys in wire order, 16-byte aligned: the legacy (non-VEX) encoding of
/// `aesenc` and `pxor` takes a memory operand only when it is aligned, so aligned round keys let
/// every round read its key inside the round instruction instead of through a separate load (one
/// instruction per round fewer, most of a one-block call's instructions outside the rounds).
#[derive(Clone)]
#[repr(C, align(16))]
pub(super) struct RoundKeys(pub(super) [[u8; 16]; MAX_ROUND_KEYS]);

impl Zeroize for RoundKeys {
    fn zeroize(&mut self) {
        // One 16-byte store per key, not one per byte: CTR-ACPKM drops a key every section.
        wipe(self.0.as_flattened_mut());
    }
}

impl RoundKeys {
    /// Round key `r` (panics if `r` is not below [`MAX_ROUND_KEYS`]).
    #[inline(always)]
    pub(super) fn get(&self, r: usize) -> __m128i {
        let k = &self.0[r];
        // SAFETY: `k` is 16 readable bytes at a 16-byte aligned address (the array starts the
        // `align(16)` struct and every key is 16 bytes), as the aligned load requires; SSE2 is
        // part of x86-64.
        unsafe { _mm_load_si128(k.as_ptr().cast()) }
    }
}

/// Encryption and decryption round keys in wire order. Holding one proves that the CPU has AES-NI:
/// [`AesNi::new`] is the only constructor and checks it.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(super) struct AesNi {
    enc: RoundKeys,
    dec: RoundKeys,
    rounds: usize,
}

impl AesNi {
    /// Expands the key, or returns `None` when this CPU lacks AES-NI.
    pub(super) fn new(key: &[u8]) -> Option<AesNi> {
        if !crate::cpu::features().aesni {
            return None;
        }
        // SAFETY: AES-NI support was checked just above.
        let (enc, rounds) = expand_key_with(key, |word| unsafe { sub_word(word) });
        let mut keys = AesNi {
            enc: RoundKeys(enc),
            dec: RoundKeys([[0u8; 16]; MAX_ROUND_KEYS]),
            rounds,
        };
        // SAFETY: AES-NI support was checked just above.
        unsafe { inverse_round_keys(&keys.enc.0, rounds, &mut keys.dec.0) };
        Some(keys)
    }

    /// Encrypts every whole 16-byte block of `data` in place.
    #[inline]
    pub(super) fn encrypt_blocks(&self, data: &mut [u8]) {
        if (16..32).contains(&data.len()) {
            self.one_block::<false>(data);
            return;
        }
        // SAFETY: an `AesNi` exists only if the CPU supports AES-NI (see `new`).
        unsafe { encrypt_all(&self.enc, self.rounds, data) }
    }

    /// Decrypts every whole 16-byte block of `data` in place.
    #[inline]
    pub(super) fn decrypt_blocks(&self, data: &mut [u8]) {
        if (16..32).contains(&data.len()) {
            self.one_block::<true>(data);
            return;
        }
        // SAFETY: an `AesNi` exists only if the CPU supports AES-NI (see `new`).
        unsafe { decrypt_all(&self.dec, self.rounds, data) }
    }

    /// The first block of `data` (at least 16 bytes) with the round count a constant: a call on
    /// one block is then a short straight run of instructions, which lets the core overlap more
    /// independent calls (a one-block message is mostly call overhead and a cache miss).
    #[inline]
    fn one_block<const DEC: bool>(&self, data: &mut [u8]) {
        let keys = if DEC { &self.dec } else { &self.enc };
        let Some(block) = data.first_chunk_mut::<16>() else {
            return;
        };
        // SAFETY (all three): an `AesNi` exists only if the CPU supports AES-NI (see `new`).
        unsafe {
            match self.rounds {
                10 => crypt_one::<DEC, 10>(keys, block),
                12 => crypt_one::<DEC, 12>(keys, block),
                _ => crypt_one::<DEC, 14>(keys, block),
            }
        }
    }

    /// [`AesNi::one_block`] through `kernels`, this key size's pair from [`one_block_kernels`],
    /// which the caller chose once at key setup and keeps next to its pointer to this schedule: a
    /// one-block call then makes no dispatch on the key size (two compares and a taken branch)
    /// and reads nothing here but the round keys it uses (the round count sits on another cache
    /// line).
    #[inline(always)]
    pub(super) fn one_block_with<const DEC: bool>(
        &self,
        kernels: &OneBlockKernels,
        block: &mut [u8; 16],
    ) {
        debug_assert_eq!(kernels.rounds, self.rounds);
        let (keys, kernel) = if DEC {
            (&self.dec, kernels.dec)
        } else {
            (&self.enc, kernels.enc)
        };
        // SAFETY: an `AesNi` exists only if the CPU supports AES-NI (see `new`), and `kernel` is
        // an instance of `crypt_one` (the only functions `one_block_kernels` gives), which needs
        // nothing more.
        unsafe { kernel(keys, block) }
    }

    /// SP 800-38A CTR (the whole block a big-endian counter, mod 2^128): XORs the key stream from
    /// `counter` into `data` (any length) and advances `counter` by `ceil(data.len() / 16)`.
    #[inline]
    pub(super) fn ctr_xor(&self, counter: &mut [u8; 16], data: &mut [u8]) {
        if data.len() == 16 {
            // One block, the round count a constant, as in `one_block`.
            // SAFETY (all four): an `AesNi` exists only if the CPU supports AES-NI (see `new`).
            unsafe {
                match self.rounds {
                    10 => ctr_one::<10>(&self.enc, counter, data),
                    12 => ctr_one::<12>(&self.enc, counter, data),
                    _ => ctr_one::<14>(&self.enc, counter, data),
                }
            }
            return;
        }
        // SAFETY: as above.
        unsafe { ctr_all(&self.enc, self.rounds, counter, data) }
    }

    /// CBC (`CBC`) or CFB-128 decryption of the whole blocks of `data` from `register`, which
    /// becomes the last ciphertext block (see [`crate::block::BlockCipher::decrypt_chain`]).
    #[inline]
    pub(super) fn decrypt_chain<const CBC: bool>(&self, register: &mut [u8; 16], data: &mut [u8]) {
        let keys = if CBC { &self.dec } else { &self.enc };
        // SAFETY: an `AesNi` exists only if the CPU supports AES-NI (see `new`).
        unsafe { decrypt_chain_all::<CBC>(keys, self.rounds, register, data) }
    }

    #[inline]
    pub(super) fn enc_keys(&self) -> &[[u8; 16]; MAX_ROUND_KEYS] {
        &self.enc.0
    }

    pub(super) fn dec_keys(&self) -> &[[u8; 16]; MAX_ROUND_KEYS] {
        &self.dec.0
    }

    /// The encryption round keys, aligned (see [`RoundKeys`]).
    #[inline]
    pub(super) fn enc_round_keys(&self) -> &RoundKeys {
        &self.enc
    }

    #[inline]
    pub(super) fn rounds(&self) -> usize {
        self.rounds
    }
}

/// A one-block kernel: an instance of `crypt_one`, whose one requirement is AES-NI.
type OneBlockFn = unsafe fn(&RoundKeys, &mut [u8; 16]);

/// The one-block kernels of one key size, both directions (see [`AesNi::one_block_with`]).
#[derive(Clone, Copy)]
pub(super) struct OneBlockKernels {
    enc: OneBlockFn,
    dec: OneBlockFn,
    /// Their round count, for a debug check against the schedule.
    rounds: usize,
}

/// The one-block kernels for a key of `key_len` bytes (16, 24 or 32).
pub(super) fn one_block_kernels(key_len: usize) -> OneBlockKernels {
    match key_len {
        16 => OneBlockKernels {
            enc: crypt_one::<false, 10>,
            dec: crypt_one::<true, 10>,
            rounds: 10,
        },
        24 => OneBlockKernels {
            enc: crypt_one::<false, 12>,
            dec: crypt_one::<true, 12>,
            rounds: 12,
        },
        _ => OneBlockKernels {
            enc: crypt_one::<false, 14>,
            dec: crypt_one::<true, 14>,
            rounds: 14,
        },
    }
}

/// Multi-stream: block `i` of `blocks` goes through `lanes[i]` (decrypted if `DEC`), eight
/// independent blocks interleaved with each lane's round keys read from memory. Every lane must
/// have the same number of rounds: returns `false`, touching nothing, if they do not. Extra blocks
/// are left untouched.
pub(super) fn crypt_lanes<const DEC: bool>(lanes: &[&AesNi], blocks: &mut [u8]) -> bool {
    let Some(first) = lanes.first() else {
        return true;
    };
    let rounds = first.rounds;
    if lanes.iter().any(|l| l.rounds != rounds) {
        return false;
    }
    let mut groups = lanes
        .chunks_exact(LANES)
        .zip(blocks.chunks_exact_mut(16 * LANES));
    for (keys, chunk) in &mut groups {
        let keys: [&AesNi; LANES] = core::array::from_fn(|i| keys[i]);
        // SAFETY: an `AesNi` exists only if the CPU supports AES-NI (see `new`).
        unsafe { lanes_group::<DEC, LANES>(keys, rounds, chunk) };
    }
    let done = lanes.len() / LANES * LANES;
    for (key, block) in lanes[done..]
        .iter()
        .zip(blocks[16 * done..].chunks_exact_mut(16))
    {
        // SAFETY: as above.
        unsafe { lanes_group::<DEC, 1>([*key], rounds, block) };
    }
    true
}

/// `N` blocks, block `i` with the round keys of `keys[i]`, rounds interleaved.
#[inline]
#[target_feature(enable = "aes")]
fn lanes_group<const DEC: bool, const N: usize>(
    keys: [&AesNi; N],
    rounds: usize,
    chunk: &mut [u8],
) {
    let rk = |i: usize, r: usize| {
        if DEC {
            keys[i].dec.get(r)
        } else {
            keys[i].enc.get(r)
        }
    };
    let mut s: [__m128i; N] =
        core::array::from_fn(|i| _mm_xor_si128(load(&chunk[16 * i..]), rk(i, 0)));
    for r in 1..rounds {
        for (i, v) in s.iter_mut().enumerate() {
            *v = if DEC {
                _mm_aesdec_si128(*v, rk(i, r))
            } else {
                _mm_aesenc_si128(*v, rk(i, r))
            };
        }
    }
    for (i, v) in s.iter().enumerate() {
        let out = if DEC {
            _mm_aesdeclast_si128(*v, rk(i, rounds))
        } else {
            _mm_aesenclast_si128(*v, rk(i, rounds))
        };
        store(&mut chunk[16 * i..], out);
    }
}

/// Loads the first 16 bytes of `b` (panics, never reads out of bounds, if `b` is shorter).
#[inline(always)]
pub(super) fn load(b: &[u8]) -> __m128i {
    let b = &b[..16];
    // SAFETY: `b` is exactly 16 readable bytes and `loadu` has no alignment requirement.
    unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
}

/// Stores `v` into the first 16 bytes of `b` (panics, never writes out of bounds, if shorter).
#[inline(always)]
pub(super) fn store(b: &mut [u8], v: __m128i) {
    let b = &mut b[..16];
    // SAFETY: `b` is exactly 16 writable bytes and `storeu` has no alignment requirement.
    unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), v) }
}

/// The key schedule's SubWord with AES-NI: with the word in all four columns ShiftRows moves
/// nothing, so the last round with a zero round key is SubBytes on each copy (constant-time, as
/// the instruction is).
#[target_feature(enable = "aes")]
fn sub_word(word: u32) -> u32 {
    let state = _mm_set1_epi32(word as i32);
    _mm_cvtsi128_si32(_mm_aesenclast_si128(state, _mm_setzero_si128())) as u32
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
        store(&mut dec[i], _mm_aesimc_si128(load(&enc[rounds - i])));
    }
    dec[rounds] = enc[0];
}

#[target_feature(enable = "aes")]
fn encrypt_all(keys: &RoundKeys, rounds: usize, data: &mut [u8]) {
    // The round keys are read from `keys` in the rounds, not copied into a register array first:
    // that copy (15 loads and, with only 16 SSE registers, 15 spill stores) cost a one-block call
    // more than the block itself; a group of one block takes each key as the round's operand.
    let rk = keys;
    let mut groups = data.chunks_exact_mut(16 * LANES);
    for group in &mut groups {
        encrypt_group::<LANES>(rk, rounds, group);
    }
    // The last one to seven blocks interleaved too: a short message is all remainder.
    let rest = groups.into_remainder();
    match rest.len() / 16 {
        0 => {}
        1 => encrypt_group::<1>(rk, rounds, rest),
        2 => encrypt_group::<2>(rk, rounds, rest),
        3 => encrypt_group::<3>(rk, rounds, rest),
        4 => encrypt_group::<4>(rk, rounds, rest),
        5 => encrypt_group::<5>(rk, rounds, rest),
        6 => encrypt_group::<6>(rk, rounds, rest),
        _ => encrypt_group::<7>(rk, rounds, rest),
    }
}

#[target_feature(enable = "aes")]
fn decrypt_all(keys: &RoundKeys, rounds: usize, data: &mut [u8]) {
    let rk = keys; // read in the rounds, as in `encrypt_all`
    let mut groups = data.chunks_exact_mut(16 * LANES);
    for group in &mut groups {
        decrypt_group::<LANES>(rk, rounds, group);
    }
    // The last one to seven blocks interleaved too: a short message is all remainder.
    let rest = groups.into_remainder();
    match rest.len() / 16 {
        0 => {}
        1 => decrypt_group::<1>(rk, rounds, rest),
        2 => decrypt_group::<2>(rk, rounds, rest),
        3 => decrypt_group::<3>(rk, rounds, rest),
        4 => decrypt_group::<4>(rk, rounds, rest),
        5 => decrypt_group::<5>(rk, rounds, rest),
        6 => decrypt_group::<6>(rk, rounds, rest),
        _ => decrypt_group::<7>(rk, rounds, rest),
    }
}

/// Encrypts `N` consecutive blocks of `chunk` (16 * N bytes), interleaving their rounds.
#[inline]
#[target_feature(enable = "aes")]
fn encrypt_group<const N: usize>(rk: &RoundKeys, rounds: usize, chunk: &mut [u8]) {
    let mut s = [_mm_setzero_si128(); N];
    for (v, b) in s.iter_mut().zip(chunk.chunks_exact(16)) {
        *v = _mm_xor_si128(load(b), rk.get(0));
    }
    for r in 1..rounds {
        let k = rk.get(r);
        for v in s.iter_mut() {
            *v = _mm_aesenc_si128(*v, k);
        }
    }
    for (v, b) in s.iter().zip(chunk.chunks_exact_mut(16)) {
        store(b, _mm_aesenclast_si128(*v, rk.get(rounds)));
    }
}

/// Decrypts `N` consecutive blocks of `chunk` with the Equivalent Inverse Cipher.
#[inline]
#[target_feature(enable = "aes")]
fn decrypt_group<const N: usize>(rk: &RoundKeys, rounds: usize, chunk: &mut [u8]) {
    let mut s = [_mm_setzero_si128(); N];
    for (v, b) in s.iter_mut().zip(chunk.chunks_exact(16)) {
        *v = _mm_xor_si128(load(b), rk.get(0));
    }
    for r in 1..rounds {
        let k = rk.get(r);
        for v in s.iter_mut() {
            *v = _mm_aesdec_si128(*v, k);
        }
    }
    for (v, b) in s.iter().zip(chunk.chunks_exact_mut(16)) {
        store(b, _mm_aesdeclast_si128(*v, rk.get(rounds)));
    }
}

#[target_feature(enable = "aes")]
fn ctr_all(keys: &RoundKeys, rounds: usize, counter: &mut [u8; 16], data: &mut [u8]) {
    let rk = keys;
    let mut next = u128::from_be_bytes(*counter);
    let mut groups = data.chunks_exact_mut(16 * LANES);
    for group in &mut groups {
        ctr_group::<LANES>(rk, rounds, &mut next, group);
    }
    let rest = groups.into_remainder();
    let whole = rest.len() / 16 * 16;
    let (blocks, tail) = rest.split_at_mut(whole);
    match whole / 16 {
        0 => {}
        1 => ctr_group::<1>(rk, rounds, &mut next, blocks),
        2 => ctr_group::<2>(rk, rounds, &mut next, blocks),
        3 => ctr_group::<3>(rk, rounds, &mut next, blocks),
        4 => ctr_group::<4>(rk, rounds, &mut next, blocks),
        5 => ctr_group::<5>(rk, rounds, &mut next, blocks),
        6 => ctr_group::<6>(rk, rounds, &mut next, blocks),
        _ => ctr_group::<7>(rk, rounds, &mut next, blocks),
    }
    if !tail.is_empty() {
        // A partial last block through a stack block, whose unused bytes then hold key stream.
        let mut block = [0u8; 16];
        block[..tail.len()].copy_from_slice(tail);
        ctr_group::<1>(rk, rounds, &mut next, &mut block);
        tail.copy_from_slice(&block[..tail.len()]);
        // As a slice: one fill behind a barrier, not sixteen volatile byte stores.
        block[..].zeroize();
    }
    *counter = next.to_be_bytes();
}

/// XORs the key stream of the `N` counters from `next` into `chunk` (16 * N bytes) and advances
/// `next` by `N`; the key stream stays in registers.
#[inline]
#[target_feature(enable = "aes")]
fn ctr_group<const N: usize>(rk: &RoundKeys, rounds: usize, next: &mut u128, chunk: &mut [u8]) {
    let mut s = [_mm_setzero_si128(); N];
    for (i, v) in s.iter_mut().enumerate() {
        // The counter block straight from the two 64-bit halves (byte-swapped: wire order is
        // big-endian): a 16-byte load of a block just written as two 8-byte stores would stall
        // on store forwarding, which cost a one-block message a quarter of its time.
        let c = next.wrapping_add(i as u128);
        let (hi, lo) = (((c >> 64) as u64).swap_bytes(), (c as u64).swap_bytes());
        *v = _mm_xor_si128(_mm_set_epi64x(lo as i64, hi as i64), rk.get(0));
    }
    *next = next.wrapping_add(N as u128);
    for r in 1..rounds {
        let k = rk.get(r);
        for v in s.iter_mut() {
            *v = _mm_aesenc_si128(*v, k);
        }
    }
    for (v, b) in s.iter().zip(chunk.chunks_exact_mut(16)) {
        let ks = _mm_aesenclast_si128(*v, rk.get(rounds));
        store(b, _mm_xor_si128(ks, load(b)));
    }
}

/// CBC (`CBC`, `keys` the decryption round keys) or CFB-128 (the encryption round keys)
/// decryption, `LANES` blocks interleaved: the block before each block, the register for the
/// first, is ciphertext known in advance.
#[target_feature(enable = "aes")]
fn decrypt_chain_all<const CBC: bool>(
    keys: &RoundKeys,
    rounds: usize,
    register: &mut [u8; 16],
    data: &mut [u8],
) {
    let rk = keys; // read in the rounds, as in `encrypt_all`
    let mut prev = load(&register[..]);
    let mut groups = data.chunks_exact_mut(16 * LANES);
    for group in &mut groups {
        prev = decrypt_chain_group::<CBC, LANES>(rk, rounds, prev, group);
    }
    let rest = groups.into_remainder();
    prev = match rest.len() / 16 {
        0 => prev,
        1 => decrypt_chain_group::<CBC, 1>(rk, rounds, prev, rest),
        2 => decrypt_chain_group::<CBC, 2>(rk, rounds, prev, rest),
        3 => decrypt_chain_group::<CBC, 3>(rk, rounds, prev, rest),
        4 => decrypt_chain_group::<CBC, 4>(rk, rounds, prev, rest),
        5 => decrypt_chain_group::<CBC, 5>(rk, rounds, prev, rest),
        6 => decrypt_chain_group::<CBC, 6>(rk, rounds, prev, rest),
        _ => decrypt_chain_group::<CBC, 7>(rk, rounds, prev, rest),
    };
    store(&mut register[..], prev);
}

/// Decrypts the `N` blocks of `chunk` (16 * N bytes) after the ciphertext block `prev` and
/// returns the last ciphertext block. The ciphertext is read again for the XOR rather than kept
/// in registers: with sixteen SSE registers, `N` states and `N` blocks would spill. CBC writes
/// the blocks last first, so that its XOR still reads ciphertext for the block before.
#[inline]
#[target_feature(enable = "aes")]
fn decrypt_chain_group<const CBC: bool, const N: usize>(
    rk: &RoundKeys,
    rounds: usize,
    prev: __m128i,
    chunk: &mut [u8],
) -> __m128i {
    let chunk = &mut chunk[..16 * N];
    let block = |chunk: &[u8], i: usize| load(&chunk[16 * i..]);
    let mut s = [_mm_setzero_si128(); N];
    if CBC {
        for (i, v) in s.iter_mut().enumerate() {
            *v = _mm_xor_si128(block(chunk, i), rk.get(0));
        }
    } else {
        s[0] = _mm_xor_si128(prev, rk.get(0));
        for (v, b) in s[1..].iter_mut().zip(chunk.chunks_exact(16)) {
            *v = _mm_xor_si128(load(b), rk.get(0));
        }
    }
    let last = block(chunk, N - 1);
    for r in 1..rounds {
        let k = rk.get(r);
        for v in s.iter_mut() {
            *v = if CBC {
                _mm_aesdec_si128(*v, k)
            } else {
                _mm_aesenc_si128(*v, k)
            };
        }
    }
    if CBC {
        for i in (0..N).rev() {
            let out = _mm_aesdeclast_si128(s[i], rk.get(rounds));
            let before = if i == 0 { prev } else { block(chunk, i - 1) };
            store(&mut chunk[16 * i..], _mm_xor_si128(out, before));
        }
    } else {
        for (v, b) in s.iter().zip(chunk.chunks_exact_mut(16)) {
            let ks = _mm_aesenclast_si128(*v, rk.get(rounds));
            store(b, _mm_xor_si128(ks, load(b)));
        }
    }
    last
}

/// One CTR block: XORs `E(counter)` into the 16 bytes of `block` and adds one to `counter`
/// (big-endian, mod 2^128). The counter is loaded as the one 16-byte value it was stored as.
#[target_feature(enable = "aes")]
fn ctr_one<const NR: usize>(keys: &RoundKeys, counter: &mut [u8; 16], block: &mut [u8]) {
    let mut s = _mm_xor_si128(load(&counter[..]), keys.get(0));
    for r in 1..NR {
        s = _mm_aesenc_si128(s, keys.get(r));
    }
    let ks = _mm_aesenclast_si128(s, keys.get(NR));
    store(block, _mm_xor_si128(ks, load(block)));
    *counter = u128::from_be_bytes(*counter).wrapping_add(1).to_be_bytes();
}

/// One block, `NR` rounds unrolled.
#[target_feature(enable = "aes")]
fn crypt_one<const DEC: bool, const NR: usize>(keys: &RoundKeys, block: &mut [u8; 16]) {
    let mut s = _mm_xor_si128(load(block), keys.get(0));
    for r in 1..NR {
        s = if DEC {
            _mm_aesdec_si128(s, keys.get(r))
        } else {
            _mm_aesenc_si128(s, keys.get(r))
        };
    }
    let out = if DEC {
        _mm_aesdeclast_si128(s, keys.get(NR))
    } else {
        _mm_aesenclast_si128(s, keys.get(NR))
    };
    store(block, out);
}
