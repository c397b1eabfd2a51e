//! Cipher feedback (SP 800-38A section 6.3, GOST R 34.13-2015 section 4.5) with an `m`-byte shift
//! register (`m >= n`) and `s`-byte segments (`1 <= s <= n`): `C_i = P_i ^ MSB_s(E(MSB_n(R)))`,
//! `R = LSB_(m-s)(R) || C_i`. CFB8 is `s = 1, m = n`, CFB128 `s = m = n`, GOST's examples `s = n, m = 2n`.
//! The final segment may be shorter than `s` (the mode then acts as a stream cipher).
//!
//! Batching: the cipher inputs of the next `k = (m - n)/s + 1` segments all lie in the current register,
//! so they are enciphered in one `encrypt_blocks` call (`k = z` for GOST's `m = z*n, s = n`; at most 64).
//! Decryption knows every cipher input in advance (each is a block of `IV || C`), so it enciphers
//! up to 64 segments per call whatever the segment size, CFB8 included.

use crate::block::{BlockCipher, Chain, DecryptChain};
use crate::util::{carry_input, shift_byte_in, shift_in, xor_in_place};
use crate::{Error, Result};
use zeroize::{Zeroize, Zeroizing};

/// Most segments enciphered per `encrypt_blocks` call.
const MAX_BATCH: usize = 64;

/// The largest block of the ciphers here (AES, Kuznyechik).
const MAX_BLOCK: usize = 16;

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
///
/// A one-block CFB-128-style message (full-block segment, one-block register) runs in a small
/// inlined function: one `encrypt_blocks` call. Every other shape goes through `run`, which offers
/// whole blocks to the backend's chain kernel.
#[inline]
pub fn encrypt<C: BlockCipher + ?Sized>(
    c: &C,
    iv: &[u8],
    segment_bytes: usize,
    data: &mut [u8],
) -> Result<()> {
    let n = c.block_size();
    if n != 0 && n <= MAX_BLOCK && segment_bytes == n && iv.len() == n && data.len() == n {
        // One block: `C = P ^ E(IV)` with one call of the backend's one-block path (cheaper than
        // setting up a chain for a single step); `E(IV)` is key stream: wiped.
        let mut register = [0u8; MAX_BLOCK];
        register[..n].copy_from_slice(iv);
        c.encrypt_blocks(&mut register[..n]);
        xor_in_place(data, &register[..n]);
        register[..n].zeroize();
        return Ok(());
    }
    run(c, iv, segment_bytes, data, false)
}

/// Encrypts `data` like [`encrypt`] and leaves in `iv` the register that continues the stream:
/// the last `iv.len()` bytes of `iv || ciphertext`. Consecutive calls on the pieces of a message,
/// each piece but the last a whole number of segments, therefore give the ciphertext of one call on
/// the whole message (as a streaming encryptor, or a context kept from message to message, needs).
/// `iv` holds IV and ciphertext only. On error neither `data` nor `iv` is changed.
///
/// CFB-128-style calls (full-block segments, one-block register) give their whole blocks to the
/// backend's chain kernel with `iv` as its register, so the chaining value is loaded from `iv` once
/// and stored back once, from the register that writes the last ciphertext block. CFB8-style calls
/// (one-byte segments, a one-block register) go to the backend's CFB8 chain kernel where it has one
/// (AES on x86); elsewhere, for 8- or 16-byte registers, the register stays in a local block for
/// the whole call.
#[inline]
pub fn encrypt_chained<C: BlockCipher + ?Sized>(
    c: &C,
    iv: &mut [u8],
    segment_bytes: usize,
    data: &mut [u8],
) -> Result<()> {
    let n = c.block_size();
    if n != 0 && segment_bytes == n && iv.len() == n {
        let whole = data.len() / n * n;
        let (blocks, tail) = data.split_at_mut(whole);
        if c.feedback_chain(iv, Chain::CfbEncrypt(blocks)) {
            if !tail.is_empty() {
                encrypt(c, iv, n, tail)?;
                shift_in(iv, tail);
            }
            return Ok(());
        }
    }
    if segment_bytes == 1 && iv.len() == n && c.feedback_chain(iv, Chain::Cfb8Encrypt(data)) {
        return Ok(());
    }
    if segment_bytes == 1 && iv.len() == n && encrypt_bytes(c, iv, data) {
        return Ok(());
    }
    encrypt(c, iv, segment_bytes, data)?;
    shift_in(iv, data);
    Ok(())
}

/// CFB with one-byte segments and a one-block register `reg` of 8 or 16 bytes, encrypting `data`
/// and leaving the next register in `reg`; `false`, touching nothing, for other block sizes. The
/// register lives in a local block for the whole call, and each step rebuilds it whole (shifted one
/// byte, the new ciphertext byte appended) so that the cipher reads a block written by one store:
/// a block assembled from byte stores and then read whole waits for those stores to reach the cache
/// (no store forwarding), which on this byte-by-byte chain cost more than a third of each step.
fn encrypt_bytes<C: BlockCipher + ?Sized>(c: &C, reg: &mut [u8], data: &mut [u8]) -> bool {
    if let Ok(reg) = <&mut [u8; 16]>::try_from(&mut *reg) {
        let mut r = *reg;
        let mut stream = [0u8; 16];
        for b in data.iter_mut() {
            stream = r;
            c.encrypt_blocks(&mut stream);
            *b ^= stream[0];
            shift_byte_in(&mut r, *b);
        }
        *reg = r;
        // Key stream: wiped (the register holds IV and ciphertext only).
        stream[..].zeroize();
        return true;
    }
    if let Ok(reg) = <&mut [u8; 8]>::try_from(&mut *reg) {
        let mut r = u64::from_be_bytes(*reg);
        let mut stream = [0u8; 8];
        for b in data.iter_mut() {
            stream = r.to_be_bytes();
            c.encrypt_blocks(&mut stream);
            *b ^= stream[0];
            r = (r << 8) | u64::from(*b);
        }
        *reg = r.to_be_bytes();
        stream[..].zeroize();
        return true;
    }
    false
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

/// Decrypts `data` like [`decrypt`] and leaves in `iv` the register that continues the stream: the
/// last `iv.len()` bytes of `iv || ciphertext`. On error neither `data` nor `iv` is changed.
///
/// CFB-128-style calls (full-block segments, a one-block register, at least one block of data)
/// take the next register from the ciphertext's last block before it is overwritten, then
/// decrypt with stack space only.
pub fn decrypt_chained<C: BlockCipher + ?Sized>(
    c: &C,
    iv: &mut [u8],
    segment_bytes: usize,
    data: &mut [u8],
) -> Result<()> {
    let n = c.block_size();
    if n == 0 || n > MAX_BLOCK || segment_bytes != n || iv.len() != n || data.len() < n {
        return carry_input(iv, data, |r, d| decrypt(c, r, segment_bytes, d));
    }
    // One block stays on the path below: `encrypt_blocks` on one block is every backend's
    // cheapest call, and a fused kernel's set-up costs more than it saves there.
    if data.len() > n
        && data.len().is_multiple_of(n)
        && c.decrypt_chain(iv, DecryptChain::Cfb(data))
    {
        return Ok(());
    }
    if data.len() <= FEW_BYTES && data.len().is_multiple_of(n) {
        // Key-stream space sized to the message, so that a short one clears and wipes little.
        let space: &mut [u8] = if data.len() <= STACK_BYTES {
            &mut [0u8; STACK_BYTES]
        } else {
            &mut [0u8; FEW_BYTES]
        };
        let done = match n {
            16 => decrypt_few_blocks::<C, 16>(c, iv, data, space),
            8 => decrypt_few_blocks::<C, 8>(c, iv, data, space),
            _ => false,
        };
        if done {
            return Ok(());
        }
    }
    let mut next = [0u8; MAX_BLOCK];
    next[..n].copy_from_slice(&data[data.len() - n..]);
    if data.len() <= STACK_BYTES {
        decrypt_full_segments(c, iv, data, &mut [0u8; STACK_BYTES]);
    } else {
        decrypt_full_segments(c, iv, data, &mut [0u8; DECRYPT_BATCH * 16]);
    }
    iv.copy_from_slice(&next[..n]);
    Ok(())
}

/// Messages of up to this many bytes take [`decrypt_few_blocks`].
const FEW_BYTES: usize = 512;

/// Chained CFB-128 decryption of a message of whole `N`-byte blocks, at most `space.len()` bytes:
/// the cipher inputs (the register, then every ciphertext block but the last) enciphered in one call,
/// the last ciphertext block kept as the next register. Every copy and XOR has a size known at
/// compile time: no library call, and each block is written whole, so that a later block load
/// of it is forwarded from one store. `false`, touching nothing, when `register` is not `N`
/// bytes or `data` is not 1 to `space.len() / N` whole blocks.
fn decrypt_few_blocks<C: BlockCipher + ?Sized, const N: usize>(
    c: &C,
    register: &mut [u8],
    data: &mut [u8],
    space: &mut [u8],
) -> bool {
    let Ok(register) = <&mut [u8; N]>::try_from(register) else {
        return false;
    };
    if data.len() < N || data.len() > space.len() {
        return false;
    }
    let key_stream = &mut space[..data.len()];
    // Inputs: the register, then every ciphertext block but the last.
    let (first, rest) = key_stream.split_at_mut(N);
    first.copy_from_slice(register);
    for (input, block) in rest.chunks_exact_mut(N).zip(data.chunks_exact(N)) {
        input.copy_from_slice(block);
    }
    if let Some(Ok(last)) = data.chunks_exact(N).last().map(<&[u8; N]>::try_from) {
        *register = *last;
    }
    c.encrypt_blocks(key_stream);
    for (block, ks) in data.chunks_exact_mut(N).zip(key_stream.chunks_exact(N)) {
        for (d, k) in block.iter_mut().zip(ks) {
            *d ^= k;
        }
    }
    key_stream.zeroize();
    true
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
    // Full-block segments in a one-block register: the whole blocks go to the backend's chain
    // kernel where it has one, and only a partial last segment to the rounds below.
    let mut chained = [0u8; STACK_BYTES];
    let (iv, data) = if !decrypting && s == n && iv.len() == n && n <= STACK_BYTES {
        let whole = data.len() / n * n;
        let (blocks, tail) = data.split_at_mut(whole);
        chained[..n].copy_from_slice(iv);
        if !c.feedback_chain(&mut chained[..n], Chain::CfbEncrypt(blocks)) {
            return run_rounds(c, iv, s, data, decrypting);
        }
        if tail.is_empty() {
            return Ok(());
        }
        (&chained[..n], tail)
    } else if !decrypting && s == 1 && iv.len() == n && n <= STACK_BYTES {
        // CFB8: every byte to the backend's chain kernel where it has one.
        chained[..n].copy_from_slice(iv);
        if c.feedback_chain(&mut chained[..n], Chain::Cfb8Encrypt(data)) {
            return Ok(());
        }
        (iv, data)
    } else if decrypting && s == n && n <= 16 && iv.len() <= STACK_BYTES {
        if iv.len() == n && data.len() >= 2 * n {
            // Whole blocks to the backend's fused kernel where it has one; a partial last
            // segment's key stream is then `E` of the last whole ciphertext block.
            let whole = data.len() / n * n;
            let (blocks, tail) = data.split_at_mut(whole);
            let mut register = [0u8; MAX_BLOCK];
            register[..n].copy_from_slice(iv);
            if c.decrypt_chain(&mut register[..n], DecryptChain::Cfb(blocks)) {
                if !tail.is_empty() {
                    c.encrypt_blocks(&mut register[..n]);
                    xor_in_place(tail, &register[..tail.len()]);
                    register.zeroize();
                }
                return Ok(());
            }
        }
        // Key-stream space sized to the message, so that a short one clears and wipes little.
        if data.len() <= STACK_BYTES {
            decrypt_full_segments(c, iv, data, &mut [0u8; STACK_BYTES]);
        } else {
            decrypt_full_segments(c, iv, data, &mut [0u8; DECRYPT_BATCH * 16]);
        }
        return Ok(());
    } else if decrypting && s < n && n <= MAX_BLOCK && iv.len() <= STACK_BYTES {
        // Space sized to the message, as above.
        if data.len() <= SHORT_SEGMENTS * s {
            let mut window = [0u8; STACK_BYTES + SHORT_SEGMENTS * MAX_BLOCK];
            let mut space = [0u8; SHORT_SEGMENTS * MAX_BLOCK];
            decrypt_short_segments(c, iv, s, data, &mut window, &mut space);
        } else {
            let mut window = [0u8; STACK_BYTES + DECRYPT_BATCH * MAX_BLOCK];
            let mut space = [0u8; DECRYPT_BATCH * MAX_BLOCK];
            decrypt_short_segments(c, iv, s, data, &mut window, &mut space);
        }
        return Ok(());
    } else {
        (iv, data)
    };
    run_rounds(c, iv, s, data, decrypting)
}

/// Segments per batch of [`decrypt_short_segments`] for a message of at most that many segments.
const SHORT_SEGMENTS: usize = 16;

/// CFB decryption with segments shorter than a block (CFB8 and the like; any register `m >= n` of
/// at most [`STACK_BYTES`]): with `V = IV || C`, segment `i`'s cipher input is `V[i s .. i s + n]`,
/// the register's first block, and all of it is ciphertext known in advance. So a batch of as many
/// segments as `space` has blocks is enciphered in one call, where encryption enciphers one
/// segment after another. `window` (at least `m + batch s` bytes) holds the register followed by
/// the batch's ciphertext, and its last `m` bytes are the next register; `space` receives key
/// stream and is wiped as far as it was used.
fn decrypt_short_segments<C: BlockCipher + ?Sized>(
    c: &C,
    iv: &[u8],
    s: usize,
    data: &mut [u8],
    window: &mut [u8],
    space: &mut [u8],
) {
    let n = c.block_size();
    let m = iv.len();
    let batch = space.len() / n;
    debug_assert!(
        window.len() >= m + batch * s,
        "the window must hold a batch"
    );
    window[..m].copy_from_slice(iv);
    for chunk in data.chunks_mut(batch * s) {
        let k = chunk.len().div_ceil(s);
        window[m..m + chunk.len()].copy_from_slice(chunk);
        let inputs = &mut space[..k * n];
        // Input j ends at `j s + n <= (k - 1) s + m < m + chunk.len()`: inside what was copied.
        // Copies of a constant size for the block sizes there are: one move each, not a call.
        match n {
            8 => gather_inputs::<8>(inputs, window, s),
            16 => gather_inputs::<16>(inputs, window, s),
            _ => {
                for (j, input) in inputs.chunks_exact_mut(n).enumerate() {
                    input.copy_from_slice(&window[j * s..j * s + n]);
                }
            }
        }
        c.encrypt_blocks(inputs);
        for (j, segment) in chunk.chunks_mut(s).enumerate() {
            xor_in_place(segment, &inputs[j * n..j * n + segment.len()]);
        }
        // Only the last chunk can be shorter than a batch, and nothing follows it.
        window.copy_within(chunk.len()..chunk.len() + m, 0);
    }
    let used = data.len().div_ceil(s).min(batch) * n;
    space[..used].zeroize();
}

/// Blocks per `encrypt_blocks` call in [`decrypt_full_segments`].
const DECRYPT_BATCH: usize = 64;

/// CFB decryption with full-block segments (`s = n`, any register `m >= n` of at most
/// [`STACK_BYTES`]): with `V = IV || C`, segment `i`'s cipher input is `V[i n .. i n + n]`, all of it
/// ciphertext known in advance, so as many blocks as `space` holds are enciphered per call instead
/// of one. `reg` carries the shift register `V[i n .. i n + m]` from batch to batch, since the
/// ciphertext before the batch has been overwritten with plaintext by then. `space` (whole blocks)
/// receives key stream and is wiped as far as it was used.
fn decrypt_full_segments<C: BlockCipher + ?Sized>(
    c: &C,
    iv: &[u8],
    data: &mut [u8],
    space: &mut [u8],
) {
    let n = c.block_size();
    let m = iv.len();
    let mut reg = [0u8; STACK_BYTES];
    reg[..m].copy_from_slice(iv);
    let batch = space.len() / n;
    debug_assert!(batch * n >= m, "a batch must cover the register");
    for chunk in data.chunks_mut(batch * n) {
        let k = chunk.len().div_ceil(n);
        let inputs = &mut space[..k * n];
        // The inputs are `(reg || chunk)[..k n]`: the register first, then the chunk's own
        // ciphertext (never past its end, as `m >= n`).
        let from_reg = m.min(k * n);
        inputs[..from_reg].copy_from_slice(&reg[..from_reg]);
        inputs[from_reg..].copy_from_slice(&chunk[..k * n - from_reg]);
        // The next register: the last `m` bytes of the chunk, still ciphertext. Only the last chunk
        // can be shorter than `m` (the others are `space.len() >= m` bytes), and nothing follows it.
        if chunk.len() >= m {
            reg[..m].copy_from_slice(&chunk[chunk.len() - m..]);
        }
        c.encrypt_blocks(inputs);
        xor_in_place(chunk, &inputs[..chunk.len()]);
    }
    let used = data.len().div_ceil(n).min(batch) * n;
    space[..used].zeroize();
}

/// Block `j` of `inputs` (blocks of `N` bytes) becomes `window[j s .. j s + N]`.
#[inline]
fn gather_inputs<const N: usize>(inputs: &mut [u8], window: &[u8], s: usize) {
    for (j, input) in inputs.chunks_exact_mut(N).enumerate() {
        let at = j * s;
        if let (Ok(input), Ok(block)) = (
            <&mut [u8; N]>::try_from(input),
            <&[u8; N]>::try_from(&window[at..at + N]),
        ) {
            *input = *block;
        }
    }
}

/// [`run`] through the cipher's `encrypt_blocks`, the register's blocks of each round in one batch.
fn run_rounds<C: BlockCipher + ?Sized>(
    c: &C,
    iv: &[u8],
    s: usize,
    data: &mut [u8],
    decrypting: bool,
) -> Result<()> {
    let n = c.block_size();
    let m = iv.len();
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
