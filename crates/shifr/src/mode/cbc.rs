//! Cipher block chaining (SP 800-38A section 6.2) with the GOST R 34.13-2015 section 4.4 register: the IV
//! is `m = z*n` bytes and block `i` chains to block `i - z`, i.e. `z` interleaved CBC chains
//! (`z = 1` is plain CBC). Encryption enciphers the `z` independent blocks of each round in one batch;
//! plain CBC is first offered whole to [`BlockCipher::feedback_chain`], the backend's kernel that
//! keeps the chaining value in a register. Decryption is fully parallel: plain CBC of two blocks
//! or more is first offered whole to [`BlockCipher::decrypt_chain`] (a fused kernel that reads each
//! block before a block straight from the ciphertext), and otherwise goes through
//! `decrypt_blocks` in large batches.

use crate::block::{BlockCipher, Chain, DecryptChain};
use crate::util::{carry_input, shift_in, xor_in_place};
use crate::{Error, Result};

/// The largest block of the ciphers here (AES, Kuznyechik).
const MAX_BLOCK: usize = 16;

/// Blocks per decryption batch (rounded down to a whole number of register rounds).
const BATCH_BLOCKS: usize = 64;

/// Checks the register (`iv.len() = z*n`, `z >= 1`) and the data alignment; returns `(n, z)`.
fn check_register(n: usize, iv: &[u8], data_len: usize) -> Result<(usize, usize)> {
    if n == 0 || iv.is_empty() || !iv.len().is_multiple_of(n) {
        return Err(Error::InvalidIvLength {
            expected: "a positive multiple of the block size",
            got: iv.len(),
        });
    }
    if !data_len.is_multiple_of(n) {
        return Err(Error::NotBlockAligned {
            block: n,
            got: data_len,
        });
    }
    Ok((n, iv.len() / n))
}

/// Encrypts `data` (a whole number of blocks) in place with register `iv` of `z*n` bytes.
///
/// Plain CBC (`z = 1`) runs in a small inlined function: a one-block message is one
/// `encrypt_blocks` call, longer ones are offered to the backend's chain kernel; every other shape
/// (and its validation) lives in `encrypt_rounds`.
#[inline]
pub fn encrypt<C: BlockCipher + ?Sized>(c: &C, iv: &[u8], data: &mut [u8]) -> Result<()> {
    let n = c.block_size();
    if n != 0 && iv.len() == n && data.len() == n {
        // One block: `C = E(IV ^ P)`, one call of the backend's one-block path (cheaper than
        // setting up a chain for a single step).
        xor_in_place(data, iv);
        c.encrypt_blocks(data);
        return Ok(());
    }
    if n != 0 && n <= MAX_BLOCK && iv.len() == n && data.len().is_multiple_of(n) {
        // One chain: the backend's chain kernel where it has one (the register holds the IV,
        // then ciphertext: nothing to wipe).
        let mut register = [0u8; MAX_BLOCK];
        register[..n].copy_from_slice(iv);
        if c.feedback_chain(&mut register[..n], Chain::CbcEncrypt(data)) {
            return Ok(());
        }
    }
    encrypt_rounds(c, iv, data)
}

/// Encrypts `data` like [`encrypt`] and leaves in `iv` the register that continues the chain:
/// the last `iv.len()` bytes of `iv || ciphertext`. Consecutive calls on the pieces of a message
/// therefore give the ciphertext of one call on the whole message, as a streaming encryptor (or a
/// context kept from message to message) needs. `iv` holds IV and ciphertext only (nothing secret).
/// On error (`iv` not a positive multiple of the block size, `data` not whole blocks) neither
/// `data` nor `iv` is changed.
///
/// Plain CBC goes straight to the backend's chain kernel with `iv` as its register, so the
/// chaining value is loaded from `iv` once and stored back once, from the same register that
/// writes the last ciphertext block: a one-block call then costs one encipherment plus that one
/// load, with no copy of the register or of the ciphertext on the chain from call to call.
#[inline]
pub fn encrypt_chained<C: BlockCipher + ?Sized>(
    c: &C,
    iv: &mut [u8],
    data: &mut [u8],
) -> Result<()> {
    let n = c.block_size();
    if n != 0
        && iv.len() == n
        && data.len().is_multiple_of(n)
        && c.feedback_chain(iv, Chain::CbcEncrypt(data))
    {
        return Ok(());
    }
    // No chain kernel (or another register shape): the block-by-block rounds, which validate.
    encrypt_rounds(c, iv, data)?;
    shift_in(iv, data);
    Ok(())
}

/// [`encrypt`] block round by block round through `encrypt_blocks`: every register, and plain CBC
/// on a backend without a chain kernel.
fn encrypt_rounds<C: BlockCipher + ?Sized>(c: &C, iv: &[u8], data: &mut [u8]) -> Result<()> {
    check_register(c.block_size(), iv, data.len())?;
    let m = iv.len();
    // Round r covers bytes [r*m, (r+1)*m); each of its blocks chains to the same position one round back.
    let mut first = true;
    let mut offset = 0;
    while offset < data.len() {
        let end = (offset + m).min(data.len());
        let (done, rest) = data.split_at_mut(offset);
        let round = &mut rest[..end - offset];
        if first {
            xor_in_place(round, iv);
            first = false;
        } else {
            xor_in_place(round, &done[offset - m..]);
        }
        c.encrypt_blocks(round);
        offset = end;
    }
    Ok(())
}

/// Decrypts `data` (a whole number of blocks) in place with register `iv` of `z*n` bytes.
///
/// The ciphertext each batch chains to is saved before the batch is deciphered in place. That
/// space is on the stack for registers of up to 64 bytes (small for a message of
/// at most that many bytes, so that a short message clears little) and on the heap for longer
/// registers; it holds only IV and ciphertext, so nothing is wiped.
pub fn decrypt<C: BlockCipher + ?Sized>(c: &C, iv: &[u8], data: &mut [u8]) -> Result<()> {
    let (n, z) = check_register(c.block_size(), iv, data.len())?;
    let m = iv.len();
    if z == 1 && n <= MAX_BLOCK && data.len() > n {
        let mut register = [0u8; MAX_BLOCK];
        register[..n].copy_from_slice(iv);
        if c.decrypt_chain(&mut register[..n], DecryptChain::Cbc(data)) {
            return Ok(());
        }
    }
    let chunk = (BATCH_BLOCKS / z).max(1) * m;
    if m > STACK_REGISTER {
        let (mut prev, mut saved) = (vec![0u8; m], vec![0u8; chunk]);
        decrypt_batches(c, iv, data, chunk, &mut prev, &mut saved);
    } else if data.len() <= STACK_REGISTER {
        let mut saved = [0u8; STACK_REGISTER];
        decrypt_batches(c, iv, data, chunk, &mut [0u8; STACK_REGISTER], &mut saved);
    } else {
        // Here z <= STACK_REGISTER / n <= BATCH_BLOCKS, so `chunk` is at most BATCH_BLOCKS blocks.
        let mut saved = [0u8; BATCH_BLOCKS * MAX_BLOCK];
        decrypt_batches(c, iv, data, chunk, &mut [0u8; STACK_REGISTER], &mut saved);
    }
    Ok(())
}

/// Decrypts `data` like [`decrypt`] and leaves in `iv` the register that continues the chain: the
/// last `iv.len()` bytes of `iv || ciphertext`, so consecutive calls on the pieces of a message
/// decrypt it as one call would. On error neither `data` nor `iv` is changed.
///
/// Plain CBC (a one-block register) takes the next register from the saved ciphertext of the last
/// batch and needs no copy of the register.
pub fn decrypt_chained<C: BlockCipher + ?Sized>(
    c: &C,
    iv: &mut [u8],
    data: &mut [u8],
) -> Result<()> {
    let n = c.block_size();
    if n == 0 || n > MAX_BLOCK || iv.len() != n || !data.len().is_multiple_of(n) {
        return carry_input(iv, data, |r, d| decrypt(c, r, d));
    }
    // One block stays on the path below: `decrypt_blocks` on one block is every backend's
    // cheapest call, and a fused kernel's set-up costs more than it saves there.
    if data.len() > n && c.decrypt_chain(iv, DecryptChain::Cbc(data)) {
        return Ok(());
    }
    // Saved-ciphertext space sized to the message, so that a short one clears little.
    let saved: &mut [u8] = if data.len() <= STACK_REGISTER {
        &mut [0u8; STACK_REGISTER]
    } else if data.len() <= MID_BYTES {
        &mut [0u8; MID_BYTES]
    } else {
        &mut [0u8; BATCH_BLOCKS * MAX_BLOCK]
    };
    decrypt_plain(c, iv, data, saved);
    Ok(())
}

/// Messages of up to this many bytes are decrypted with space of this size.
const MID_BYTES: usize = 512;

/// Plain CBC decryption of `data` (whole blocks of `register.len()` bytes) in batches as large as
/// `saved` holds, each saved before it is deciphered in place; `register` goes in as the IV and
/// comes out as the last ciphertext block.
fn decrypt_plain<C: BlockCipher + ?Sized>(
    c: &C,
    register: &mut [u8],
    data: &mut [u8],
    saved: &mut [u8],
) {
    let n = register.len();
    for part in data.chunks_mut(saved.len() / n * n) {
        let len = part.len();
        let saved = &mut saved[..len];
        saved.copy_from_slice(part);
        c.decrypt_blocks(part);
        let (first, rest) = part.split_at_mut(n);
        xor_in_place(first, register);
        xor_in_place(rest, saved);
        register.copy_from_slice(&saved[len - n..]);
    }
}

/// Registers, and messages, of up to this many bytes are decrypted without allocating.
const STACK_REGISTER: usize = 64;

/// The body of [`decrypt`]: `data` in batches of `chunk` bytes (a multiple of the `m`-byte
/// register), each copied into `saved` (at least `min(chunk, data.len())` bytes) and deciphered
/// in place; `prev` (at least `m` bytes) carries the last `m` bytes of ciphertext (first the IV)
/// from batch to batch.
fn decrypt_batches<C: BlockCipher + ?Sized>(
    c: &C,
    iv: &[u8],
    data: &mut [u8],
    chunk: usize,
    prev: &mut [u8],
    saved: &mut [u8],
) {
    let m = iv.len();
    let prev = &mut prev[..m];
    prev.copy_from_slice(iv);
    for part in data.chunks_mut(chunk) {
        let saved = &mut saved[..part.len()];
        saved.copy_from_slice(part);
        c.decrypt_blocks(part);
        let head = part.len().min(m);
        xor_in_place(&mut part[..head], prev);
        if part.len() > m {
            xor_in_place(&mut part[m..], saved);
        }
        if saved.len() == chunk {
            prev.copy_from_slice(&saved[chunk - m..]);
        }
    }
}
