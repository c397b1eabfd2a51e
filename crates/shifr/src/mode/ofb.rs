//! Output feedback (SP 800-38A section 6.4, GOST R 34.13-2015 section 4.3) with the GOST `m = z*n` register:
//! `Y_i = E(MSB_n(R))`, `R = LSB_(m-n)(R) || Y_i`, so the register is `z` independent chains and each step
//! enciphers all `z` of them in one batch. Any data length; encryption and decryption are the same.

use crate::block::{BlockCipher, Chain};
use crate::util::xor_in_place;
use crate::{Error, Result};
use zeroize::{Zeroize, Zeroizing};

/// Registers up to this many bytes live on the stack (no allocation per message); longer GOST
/// registers go to the heap. Either way they hold key stream and are wiped before returning.
const STACK_REGISTER: usize = 64;

/// Runs `f` on a copy of `iv` (key stream once enciphered) and wipes the copy afterwards.
fn with_register(iv: &[u8], f: impl FnOnce(&mut [u8])) {
    if iv.len() <= STACK_REGISTER {
        let mut stack = [0u8; STACK_REGISTER];
        let reg = &mut stack[..iv.len()];
        reg.copy_from_slice(iv);
        f(reg);
        reg.zeroize();
    } else {
        let mut heap = Zeroizing::new(iv.to_vec());
        f(&mut heap);
    }
}

/// `iv` must be a positive multiple of the block size `n`.
fn check_register(n: usize, iv: &[u8]) -> Result<()> {
    if n == 0 || iv.is_empty() || !iv.len().is_multiple_of(n) {
        return Err(Error::InvalidIvLength {
            expected: "a positive multiple of the block size",
            got: iv.len(),
        });
    }
    Ok(())
}

/// XORs the OFB key stream for register `iv` (`z*n` bytes, `z >= 1`) into `data`.
pub fn apply<C: BlockCipher + ?Sized>(c: &C, iv: &[u8], data: &mut [u8]) -> Result<()> {
    check_register(c.block_size(), iv)?;
    with_register(iv, |reg| step(c, reg, data));
    Ok(())
}

/// XORs the OFB key stream for register `iv` into `data` like [`apply`] and leaves in `iv` the
/// register that continues the key stream: the register steps once per block of `data` (a partial
/// last block included), `R = LSB_(m-n)(R) || Y_i`. Consecutive calls on the pieces of a message,
/// each piece but the last a whole number of blocks, therefore give the result of one call on the
/// whole message. **`iv` then holds key stream**: the caller wipes it when the stream ends. On error
/// neither `data` nor `iv` is changed.
///
/// A one-block register goes straight to the backend's chain kernel as its register, so the
/// chaining value is loaded from `iv` once and stored back once per call.
#[inline]
pub fn apply_chained<C: BlockCipher + ?Sized>(c: &C, iv: &mut [u8], data: &mut [u8]) -> Result<()> {
    check_register(c.block_size(), iv)?;
    step(c, iv, data);
    Ok(())
}

/// The key stream of register `reg` (checked by [`check_register`]) XORed into `data`; `reg` ends
/// as the register after the last block of `data`.
#[inline]
fn step<C: BlockCipher + ?Sized>(c: &C, reg: &mut [u8], data: &mut [u8]) {
    let n = c.block_size();
    if reg.len() == n {
        // One chain: the whole blocks through the backend's chain kernel where it has one, a
        // partial last block from one more encipherment of the register.
        let (blocks, tail) = data.split_at_mut(data.len() / n * n);
        if c.feedback_chain(reg, Chain::Ofb(blocks)) {
            if !tail.is_empty() {
                c.encrypt_blocks(reg);
                xor_in_place(tail, reg);
            }
            return;
        }
    }
    let m = reg.len();
    for chunk in data.chunks_mut(m) {
        // A last, shorter round steps only the chains it uses: `R = R[k n..] || Y[..k n]`.
        let stepped = chunk.len().div_ceil(n) * n;
        c.encrypt_blocks(&mut reg[..stepped]);
        xor_in_place(chunk, &reg[..stepped]);
        if stepped < m {
            reg.rotate_left(stepped);
        }
    }
}

/// GOST R 34.13 OFB with `s`-byte segments (`1 <= s <= n`): the register advances exactly as in
/// [`apply`] (`R = LSB_(m-n)(R) || Y_i`), but each `Y_i` contributes only its first `s` bytes
/// (`MSB_s(Y_i)`) of gamma. `s = n` is [`apply`]. The last segment may be partial.
pub fn apply_segmented<C: BlockCipher + ?Sized>(
    c: &C,
    iv: &[u8],
    segment: usize,
    data: &mut [u8],
) -> Result<()> {
    let n = c.block_size();
    check_register(n, iv)?;
    if segment == 0 || segment > n {
        return Err(Error::InvalidParameter(
            "OFB segment size must be between 1 byte and the block size",
        ));
    }
    let z = iv.len() / n;
    // One batch enciphers the z chains of the register and yields z segments of gamma.
    with_register(iv, |reg| {
        for chunk in data.chunks_mut(z * segment) {
            c.encrypt_blocks(reg);
            for (seg, y) in chunk.chunks_mut(segment).zip(reg.chunks_exact(n)) {
                xor_in_place(seg, y);
            }
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// E(x) = x ^ 0x0f..0f: the expected gamma can be written by hand.
    struct XorCipher;
    impl BlockCipher for XorCipher {
        fn block_size(&self) -> usize {
            4
        }
        fn encrypt_blocks(&self, data: &mut [u8]) {
            data.iter_mut().for_each(|b| *b ^= 0x0f);
        }
        fn decrypt_blocks(&self, data: &mut [u8]) {
            self.encrypt_blocks(data)
        }
    }

    #[test]
    fn segmented_ofb_takes_msb_s_of_each_output_block() {
        // m = 2n: chains R1 = 10 11 12 13 and R2 = 20 21 22 23; Y1 = E(R1), Y2 = E(R2), Y3 = E(Y1), ...
        let iv = [0x10, 0x11, 0x12, 0x13, 0x20, 0x21, 0x22, 0x23];
        let mut data = [0u8; 6];
        apply_segmented(&XorCipher, &iv, 2, &mut data).unwrap();
        assert_eq!(data, [0x1f, 0x1e, 0x2f, 0x2e, 0x10, 0x11]);
        let mut a = [3u8; 50];
        let mut b = a;
        apply_segmented(&XorCipher, &iv, 4, &mut a).unwrap();
        apply(&XorCipher, &iv, &mut b).unwrap();
        assert_eq!(a, b);
        assert!(apply_segmented(&XorCipher, &iv, 0, &mut a).is_err());
        assert!(apply_segmented(&XorCipher, &iv, 5, &mut a).is_err());
        assert!(apply_segmented(&XorCipher, &iv[..3], 2, &mut a).is_err());
    }
}
