//! Output feedback (SP 800-38A section 6.4, GOST R 34.13-2015 section 4.3) with the GOST `m = z*n` register:
//! `Y_i = E(MSB_n(R))`, `R = LSB_(m-n)(R) || Y_i`, so the register is `z` independent chains and each step
//! enciphers all `z` of them in one batch. Any data length; encryption and decryption are the same.

use crate::block::BlockCipher;
use crate::util::xor_in_place;
use crate::{Error, Result};
use zeroize::Zeroizing;

/// XORs the OFB key stream for register `iv` (`z*n` bytes, `z >= 1`) into `data`.
pub fn apply<C: BlockCipher + ?Sized>(c: &C, iv: &[u8], data: &mut [u8]) -> Result<()> {
    let n = c.block_size();
    if n == 0 || iv.is_empty() || !iv.len().is_multiple_of(n) {
        return Err(Error::InvalidIvLength {
            expected: "a positive multiple of the block size",
            got: iv.len(),
        });
    }
    let mut reg = Zeroizing::new(iv.to_vec());
    for chunk in data.chunks_mut(iv.len()) {
        c.encrypt_blocks(&mut reg);
        xor_in_place(chunk, &reg);
    }
    Ok(())
}
