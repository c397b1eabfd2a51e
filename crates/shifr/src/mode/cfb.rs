//! Cipher feedback (SP 800-38A section 6.3, GOST R 34.13-2015 section 4.5) with an `m`-byte shift
//! register (`m >= n`) and `s`-byte segments (`1 <= s <= n`): `C_i = P_i ^ MSB_s(E(MSB_n(R)))`,
//! `R = LSB_(m-s)(R) || C_i`. CFB8 is `s = 1, m = n`, CFB128 `s = m = n`, GOST's examples `s = n, m = 2n`.
//! The final segment may be shorter than `s` (the mode then acts as a stream cipher).
//!
//! Batching: the cipher inputs of the next `k = (m - n)/s + 1` segments all lie in the current register,
//! so they are enciphered in one `encrypt_blocks` call (`k = z` for GOST's `m = z*n, s = n`; at most 64).

use crate::block::BlockCipher;
use crate::util::xor_in_place;
use crate::{Error, Result};
use zeroize::{Zeroize, Zeroizing};

/// Most segments enciphered per `encrypt_blocks` call.
const MAX_BATCH: usize = 64;

/// Validates the register and segment sizes for a cipher with block size `n`.
fn check_params(n: usize, iv_len: usize, segment: usize) -> Result<()> {
    if iv_len < n || n == 0 {
        return Err(Error::InvalidIvLength {
            expected: "at least the block size",
            got: iv_len,
        });
    }
    if segment == 0 || segment > n {
        return Err(Error::InvalidParameter(
            "CFB segment size must be 1..=block size bytes",
        ));
    }
    Ok(())
}

/// Encrypts `data` in place: register `iv` (`m >= n` bytes), segment `segment_bytes` (`1..=n`).
pub fn encrypt<C: BlockCipher + ?Sized>(
    c: &C,
    iv: &[u8],
    segment_bytes: usize,
    data: &mut [u8],
) -> Result<()> {
    run(c, iv, segment_bytes, data, false)
}

/// Decrypts `data` in place: register `iv` (`m >= n` bytes), segment `segment_bytes` (`1..=n`).
pub fn decrypt<C: BlockCipher + ?Sized>(
    c: &C,
    iv: &[u8],
    segment_bytes: usize,
    data: &mut [u8],
) -> Result<()> {
    run(c, iv, segment_bytes, data, true)
}

/// Registers and key-stream batches up to this many bytes live on the stack, so a short message
/// pays no allocation; larger GOST registers go to the heap.
const STACK_BYTES: usize = 64;

fn run<C: BlockCipher + ?Sized>(
    c: &C,
    iv: &[u8],
    s: usize,
    data: &mut [u8],
    decrypting: bool,
) -> Result<()> {
    let n = c.block_size();
    check_params(n, iv.len(), s)?;
    let m = iv.len();
    // Full-block CFB encryption through a backend's chained path; a partial last block goes on below.
    let whole = data.len() / n * n;
    if let (false, true, Ok(mut register)) = (decrypting, s == n, <[u8; 16]>::try_from(iv)) {
        if n == 16 && whole > 0 && c.cfb_encrypt_chain(&mut register, &mut data[..whole]) {
            return run(c, &register, s, &mut data[whole..], decrypting);
        }
    }
    // Segments per batch: all whose cipher input lies in the register, capped to bound the buffer.
    let per_round = ((m - n) / s + 1).min(MAX_BATCH);
    if m <= STACK_BYTES && per_round * n <= STACK_BYTES {
        let mut reg = [0u8; STACK_BYTES];
        let mut inputs = [0u8; STACK_BYTES];
        let inputs = &mut inputs[..per_round * n];
        reg[..m].copy_from_slice(iv);
        rounds(c, &mut reg[..m], inputs, s, data, decrypting);
        // The register holds only IV and ciphertext; the inputs hold key stream: wipe what was used.
        let used = data.len().div_ceil(s).min(per_round) * n;
        inputs[..used].zeroize();
    } else {
        let mut reg = iv.to_vec();
        // Key stream: wiped on drop.
        let mut inputs = Zeroizing::new(vec![0u8; per_round * n]);
        rounds(c, &mut reg, &mut inputs, s, data, decrypting);
    }
    Ok(())
}

/// The CFB rounds over `data` with register `reg` (`m` bytes) and key-stream space `inputs`
/// (`per_round` blocks).
fn rounds<C: BlockCipher + ?Sized>(
    c: &C,
    reg: &mut [u8],
    inputs: &mut [u8],
    s: usize,
    data: &mut [u8],
    decrypting: bool,
) {
    let n = c.block_size();
    let m = reg.len();
    let per_round = inputs.len() / n;
    for round in data.chunks_mut(per_round * s) {
        let k = round.len().div_ceil(s);
        for (j, input) in inputs.chunks_exact_mut(n).take(k).enumerate() {
            input.copy_from_slice(&reg[j * s..j * s + n]);
        }
        c.encrypt_blocks(&mut inputs[..k * n]);
        // The register shifts left by k*s bytes and takes the round's ciphertext on the right. Only a
        // final, shorter round can be partial, and nothing uses the register after it.
        let shift = round.len();
        reg.copy_within(shift.., 0);
        if decrypting {
            reg[m - shift..].copy_from_slice(round);
        }
        for (j, segment) in round.chunks_mut(s).enumerate() {
            xor_in_place(segment, &inputs[j * n..j * n + segment.len()]);
        }
        if !decrypting {
            reg[m - shift..].copy_from_slice(round);
        }
    }
}
