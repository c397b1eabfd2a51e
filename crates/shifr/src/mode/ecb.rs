//! Electronic codebook mode (SP 800-38A section 6.1, GOST R 34.13-2015 section 4.1): every block is
//! enciphered on its own, all of them in one batch call. Data must be a whole number of blocks (pad first
//! with [`crate::mode::padding`] if needed).

use crate::block::BlockCipher;
use crate::{Error, Result};

#[inline]
fn check_aligned(n: usize, len: usize) -> Result<()> {
    if n == 0 || !len.is_multiple_of(n) {
        return Err(Error::NotBlockAligned { block: n, got: len });
    }
    Ok(())
}

/// Encrypts `data` in place; [`Error::NotBlockAligned`] unless `data.len()` is a multiple of the block.
#[inline]
pub fn encrypt<C: BlockCipher + ?Sized>(c: &C, data: &mut [u8]) -> Result<()> {
    check_aligned(c.block_size(), data.len())?;
    c.encrypt_blocks(data);
    Ok(())
}

/// Decrypts `data` in place; [`Error::NotBlockAligned`] unless `data.len()` is a multiple of the block.
#[inline]
pub fn decrypt<C: BlockCipher + ?Sized>(c: &C, data: &mut [u8]) -> Result<()> {
    check_aligned(c.block_size(), data.len())?;
    c.decrypt_blocks(data);
    Ok(())
}
