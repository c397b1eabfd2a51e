//! Electronic codebook mode (SP 800-38A section 6.1, GOST R 34.13-2015 section 4.1): every block is
//! enciphered on its own, all of them in one batch call. Data must be a whole number of blocks (pad first
//! with [`crate::mode::padding`] if needed).

use crate::block::BlockCipher;
use crate::{Error, Result};

/// Whether `len` bytes are a whole number of `n`-byte blocks.
#[inline]
fn aligned(n: usize, len: usize) -> bool {
    n != 0 && len.is_multiple_of(n)
}

/// [`Error::NotBlockAligned`], out of line and cold, returned whole: the mode functions reach it
/// by a jump that a one-block call never takes, and need no frame for it.
#[cold]
#[inline(never)]
fn misaligned(n: usize, len: usize) -> Result<()> {
    Err(Error::NotBlockAligned { block: n, got: len })
}

/// Encrypts `data` in place; [`Error::NotBlockAligned`] unless `data.len()` is a multiple of the block.
#[inline]
pub fn encrypt<C: BlockCipher + ?Sized>(c: &C, data: &mut [u8]) -> Result<()> {
    if !aligned(c.block_size(), data.len()) {
        return misaligned(c.block_size(), data.len());
    }
    c.encrypt_blocks(data);
    Ok(())
}

/// Decrypts `data` in place; [`Error::NotBlockAligned`] unless `data.len()` is a multiple of the block.
#[inline]
pub fn decrypt<C: BlockCipher + ?Sized>(c: &C, data: &mut [u8]) -> Result<()> {
    if !aligned(c.block_size(), data.len()) {
        return misaligned(c.block_size(), data.len());
    }
    c.decrypt_blocks(data);
    Ok(())
}
