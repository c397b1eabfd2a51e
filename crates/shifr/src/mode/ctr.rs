//! Counter mode (SP 800-38A section 6.5, GOST R 34.13-2015 section 4.2).
//!
//! The counter block is the full `n`-bit block, incremented as a big-endian integer mod `2^n`
//! (SP 800-38A's standard incrementing function over all `n` bits). GOST R 34.13 starts from
//! `CTR_1 = IV || 0^(n/2)` with an `n/2`-bit IV ([`gost_counter_block`], [`apply_gost`]).
//! The key stream is produced [`BATCH_BLOCKS`] blocks at a time through `encrypt_blocks`; [`Ctr`] keeps
//! the unused part between calls, so any split of the input gives the same output. Any data length.
//! [`apply`] first offers the message to [`BlockCipher::ctr_xor`], a one-pass fused path where the
//! backend has one (AES on 512-bit VAES, Kuznyechik on AVX-512 GFNI).

use crate::block::BlockCipher;
use crate::util::xor_in_place;
use crate::{Error, Result};
use zeroize::Zeroize;

/// Counter blocks enciphered per `encrypt_blocks` call.
pub const BATCH_BLOCKS: usize = 64;

/// Largest block size the modes support (AES, Kuznyechik).
const MAX_BLOCK: usize = 16;

/// Messages of at most this many blocks use a stack buffer of this size for their key stream.
const SHORT_BLOCKS: usize = 4;

/// Adds one to the big-endian integer `block`, mod `2^(8*block.len())`.
pub(crate) fn increment_be(block: &mut [u8]) {
    let mut carry = 1u16;
    for b in block.iter_mut().rev() {
        let sum = u16::from(*b) + carry;
        *b = sum as u8;
        carry = sum >> 8;
    }
}

/// Writes consecutive counter blocks starting at `counter` into `out` (a whole number of blocks),
/// enciphers them in one call, and leaves `counter` at the next unused value.
pub(crate) fn fill_keystream<C: BlockCipher + ?Sized>(c: &C, counter: &mut [u8], out: &mut [u8]) {
    if let Ok(start) = <[u8; 16]>::try_from(&*counter) {
        // 16-byte blocks: one 128-bit addition per block instead of a byte-wise carry chain.
        let mut value = u128::from_be_bytes(start);
        for block in out.chunks_exact_mut(16) {
            block.copy_from_slice(&value.to_be_bytes());
            value = value.wrapping_add(1);
        }
        counter.copy_from_slice(&value.to_be_bytes());
    } else if let Ok(start) = <[u8; 8]>::try_from(&*counter) {
        // 8-byte blocks (Magma, 3DES): one 64-bit addition per block.
        let mut value = u64::from_be_bytes(start);
        for block in out.chunks_exact_mut(8) {
            block.copy_from_slice(&value.to_be_bytes());
            value = value.wrapping_add(1);
        }
        counter.copy_from_slice(&value.to_be_bytes());
    } else {
        for block in out.chunks_exact_mut(counter.len()) {
            block.copy_from_slice(counter);
            increment_be(counter);
        }
    }
    c.encrypt_blocks(out);
}

/// XORs the key stream that starts at `counter` into `data` (any length) and advances `counter` by
/// `ceil(data.len() / n)` blocks. `counter.len()` must be the block size, at most 16.
#[inline]
pub(crate) fn xor_keystream<C: BlockCipher + ?Sized>(c: &C, counter: &mut [u8], data: &mut [u8]) {
    if !c.ctr_xor(counter, data) {
        xor_keystream_batches(c, counter, data);
    }
}

/// [`xor_keystream`] through `encrypt_blocks`, for backends without a fused path.
fn xor_keystream_batches<C: BlockCipher + ?Sized>(c: &C, counter: &mut [u8], data: &mut [u8]) {
    let n = counter.len();
    if data.len() <= SHORT_BLOCKS * n {
        // A short message gets a small key-stream buffer: zeroing and wiping the whole batch
        // buffer would cost more than enciphering a block or two.
        let mut ks = [0u8; SHORT_BLOCKS * MAX_BLOCK];
        let ks = &mut ks[..data.len().div_ceil(n) * n];
        fill_keystream(c, counter, ks);
        xor_in_place(data, ks);
        ks.zeroize();
        return;
    }
    let mut ks = [0u8; BATCH_BLOCKS * MAX_BLOCK];
    for chunk in data.chunks_mut(BATCH_BLOCKS * n) {
        let ks = &mut ks[..chunk.len().div_ceil(n) * n];
        fill_keystream(c, counter, ks);
        xor_in_place(chunk, ks);
    }
    // Only the bytes a batch used hold key stream: zeroize (byte by byte, volatile) just those.
    ks[..data.len().div_ceil(n).min(BATCH_BLOCKS) * n].zeroize();
}

#[inline]
fn check_block_size(n: usize) -> Result<()> {
    if n == 0 || n > MAX_BLOCK || !n.is_multiple_of(2) {
        return Err(Error::InvalidParameter(
            "counter modes need an even block size of at most 16 bytes",
        ));
    }
    Ok(())
}

#[inline]
fn check_counter_block(n: usize, counter_block: &[u8]) -> Result<()> {
    check_block_size(n)?;
    if counter_block.len() != n {
        return Err(Error::InvalidIvLength {
            expected: "the block size (initial counter block)",
            got: counter_block.len(),
        });
    }
    Ok(())
}

/// The GOST R 34.13 initial counter block `iv_half || 0^(n/2)`; `iv_half` must be `n/2` bytes.
pub fn gost_counter_block(iv_half: &[u8], n: usize) -> Result<Vec<u8>> {
    Ok(gost_counter_array(iv_half, n)?[..n].to_vec())
}

/// [`gost_counter_block`] in a stack array (its first `n` bytes), so that a short message costs no
/// allocation.
fn gost_counter_array(iv_half: &[u8], n: usize) -> Result<[u8; MAX_BLOCK]> {
    check_block_size(n)?;
    if iv_half.len() != n / 2 {
        return Err(Error::InvalidIvLength {
            expected: "half the block size",
            got: iv_half.len(),
        });
    }
    let mut block = [0u8; MAX_BLOCK];
    block[..n / 2].copy_from_slice(iv_half);
    Ok(block)
}

/// XORs the CTR key stream starting at `counter_block` (`n` bytes) into `data`.
#[inline]
pub fn apply<C: BlockCipher + ?Sized>(c: &C, counter_block: &[u8], data: &mut [u8]) -> Result<()> {
    let n = c.block_size();
    check_counter_block(n, counter_block)?;
    let mut counter = [0u8; MAX_BLOCK];
    counter[..n].copy_from_slice(counter_block);
    xor_keystream(c, &mut counter[..n], data);
    Ok(())
}

/// GOST R 34.13 CTR: XORs the key stream starting at `iv_half || 0^(n/2)` into `data`.
pub fn apply_gost<C: BlockCipher + ?Sized>(c: &C, iv_half: &[u8], data: &mut [u8]) -> Result<()> {
    let n = c.block_size();
    let block = gost_counter_array(iv_half, n)?;
    apply(c, &block[..n], data)
}

/// GOST R 34.13 CTR with `s`-byte segments (`1 <= s <= n`): segment `i` of `data` is XORed with
/// `MSB_s(E(CTR_i))`, so each counter block contributes only its first `s` bytes of gamma. `s = n` is
/// [`apply`]. The last segment may be partial.
pub fn apply_segmented<C: BlockCipher + ?Sized>(
    c: &C,
    counter_block: &[u8],
    segment: usize,
    data: &mut [u8],
) -> Result<()> {
    let n = c.block_size();
    check_counter_block(n, counter_block)?;
    if segment == 0 || segment > n {
        return Err(Error::InvalidParameter(
            "CTR segment size must be between 1 byte and the block size",
        ));
    }
    let mut counter = [0u8; MAX_BLOCK];
    counter[..n].copy_from_slice(counter_block);
    let mut ks = [0u8; BATCH_BLOCKS * MAX_BLOCK];
    for chunk in data.chunks_mut(BATCH_BLOCKS * segment) {
        let blocks = chunk.len().div_ceil(segment);
        let ks = &mut ks[..blocks * n];
        fill_keystream(c, &mut counter[..n], ks);
        for (seg, gamma) in chunk.chunks_mut(segment).zip(ks.chunks_exact(n)) {
            xor_in_place(seg, gamma);
        }
    }
    ks[..data.len().div_ceil(segment).min(BATCH_BLOCKS) * n].zeroize();
    Ok(())
}

/// Stateful CTR: a key stream that continues across calls to [`Ctr::apply_keystream`].
pub struct Ctr<C: BlockCipher> {
    cipher: C,
    n: usize,
    /// The next counter block to encipher (first `n` bytes used).
    counter: [u8; MAX_BLOCK],
    /// Key stream generated ahead; `keystream[pos..len]` is not used yet.
    keystream: [u8; BATCH_BLOCKS * MAX_BLOCK],
    pos: usize,
    len: usize,
}

impl<C: BlockCipher> Ctr<C> {
    /// Starts at the full initial counter block `counter_block` (`n` bytes).
    pub fn new(cipher: C, counter_block: &[u8]) -> Result<Self> {
        let n = cipher.block_size();
        check_counter_block(n, counter_block)?;
        let mut counter = [0u8; MAX_BLOCK];
        counter[..n].copy_from_slice(counter_block);
        Ok(Ctr {
            cipher,
            n,
            counter,
            keystream: [0u8; BATCH_BLOCKS * MAX_BLOCK],
            pos: 0,
            len: 0,
        })
    }

    /// Starts at the GOST R 34.13 counter block `iv_half || 0^(n/2)`.
    pub fn new_gost(cipher: C, iv_half: &[u8]) -> Result<Self> {
        let n = cipher.block_size();
        let block = gost_counter_array(iv_half, n)?;
        Self::new(cipher, &block[..n])
    }

    /// XORs the next `data.len()` key-stream bytes into `data`.
    pub fn apply_keystream(&mut self, data: &mut [u8]) {
        let n = self.n;
        let mut data = data;
        while !data.is_empty() {
            if self.pos == self.len {
                let blocks = data.len().div_ceil(n).min(BATCH_BLOCKS);
                self.len = blocks * n;
                self.pos = 0;
                fill_keystream(
                    &self.cipher,
                    &mut self.counter[..n],
                    &mut self.keystream[..self.len],
                );
            }
            let take = (self.len - self.pos).min(data.len());
            let (head, rest) = data.split_at_mut(take);
            xor_in_place(head, &self.keystream[self.pos..self.pos + take]);
            self.pos += take;
            data = rest;
        }
    }
}

impl<C: BlockCipher> Drop for Ctr<C> {
    fn drop(&mut self) {
        // As slices: one fill behind a barrier each (`Zeroize` on a byte array writes one
        // volatile byte at a time).
        self.keystream[..].zeroize();
        self.counter[..].zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn increment_wraps_mod_2n() {
        let mut b = [0xffu8; 4];
        increment_be(&mut b);
        assert_eq!(b, [0, 0, 0, 0]);
        let mut b = [0x12, 0x34, 0xff, 0xff];
        increment_be(&mut b);
        assert_eq!(b, [0x12, 0x35, 0, 0]);
    }

    /// A toy 8-byte "cipher" (XOR with a constant) makes the expected gamma easy to write down by
    /// hand: E(CTR_i) = CTR_i ^ 0x5a..5a.
    struct XorCipher;
    impl BlockCipher for XorCipher {
        fn block_size(&self) -> usize {
            8
        }
        fn encrypt_blocks(&self, data: &mut [u8]) {
            data.iter_mut().for_each(|b| *b ^= 0x5a);
        }
        fn decrypt_blocks(&self, data: &mut [u8]) {
            self.encrypt_blocks(data)
        }
    }

    #[test]
    fn segmented_ctr_uses_the_first_s_bytes_of_each_counter_block() {
        let ctr1 = [1u8, 2, 3, 4, 0, 0, 0, 0];
        let mut data = [0u8; 7];
        apply_segmented(&XorCipher, &ctr1, 3, &mut data).unwrap();
        // Segments of 3 bytes: MSB_3 of E(CTR_1), E(CTR_2), E(CTR_3) (the last one partial).
        assert_eq!(
            data,
            [
                1 ^ 0x5a,
                2 ^ 0x5a,
                3 ^ 0x5a,
                1 ^ 0x5a,
                2 ^ 0x5a,
                3 ^ 0x5a,
                1 ^ 0x5a
            ]
        );
        // s = n is plain CTR.
        let mut a = [7u8; 100];
        let mut b = a;
        apply_segmented(&XorCipher, &ctr1, 8, &mut a).unwrap();
        apply(&XorCipher, &ctr1, &mut b).unwrap();
        assert_eq!(a, b);
        assert!(apply_segmented(&XorCipher, &ctr1, 0, &mut a).is_err());
        assert!(apply_segmented(&XorCipher, &ctr1, 9, &mut a).is_err());
    }

    #[test]
    fn gost_counter_block_layout_and_errors() {
        assert_eq!(
            gost_counter_block(&[1, 2, 3, 4], 8).unwrap(),
            [1, 2, 3, 4, 0, 0, 0, 0]
        );
        assert!(matches!(
            gost_counter_block(&[1, 2, 3], 8),
            Err(Error::InvalidIvLength { got: 3, .. })
        ));
        assert!(gost_counter_block(&[0; 8], 16).is_ok());
        assert!(gost_counter_block(&[0; 8], 17).is_err());
    }
}
