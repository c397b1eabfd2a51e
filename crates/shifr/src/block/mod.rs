//! Block ciphers behind one batch-first trait.
//!
//! A [`BlockCipher`] always receives many blocks at once (`encrypt_blocks`), and a multi-stream call
//! receives one block for each of many independently keyed instances (`encrypt_lanes`). Portable
//! loops implement both today; SIMD and GPU backends plug in behind exactly these calls.

pub mod aes;
pub mod kuznyechik;
pub mod magma;
pub mod tdes;

use crate::Result;

/// A keyed block cipher. All byte strings are in wire order (the order the standards print them).
pub trait BlockCipher: Send + Sync {
    /// Block size in bytes (8 or 16).
    fn block_size(&self) -> usize;

    /// Encrypts `data.len() / block_size()` whole blocks in place; trailing bytes are left untouched.
    fn encrypt_blocks(&self, data: &mut [u8]);

    /// Decrypts `data.len() / block_size()` whole blocks in place; trailing bytes are left untouched.
    fn decrypt_blocks(&self, data: &mut [u8]);

    /// `E_K(0^n)` when the instance computed it at key setup (OMAC's subkey `R`), so that a MAC of
    /// a one-block message needs one cipher call instead of two; `None` (the default) otherwise, and
    /// OMAC enciphers the zero block itself.
    fn zero_block_image(&self) -> Option<&[u8]> {
        None
    }

    /// Counter mode in one fused pass where the backend has one: XORs the key stream
    /// `E(counter) || E(counter + 1) || ...` (the whole block a big-endian counter, SP 800-38A)
    /// into all of `data`, advances `counter` by `ceil(data.len() / block_size())` and returns
    /// `true`. The default, and any backend without such a path, touches nothing and returns
    /// `false`, and the mode makes the key stream through [`BlockCipher::encrypt_blocks`].
    fn ctr_xor(&self, counter: &mut [u8], data: &mut [u8]) -> bool {
        let _ = (counter, data);
        false
    }

    /// Multi-stream: `blocks` holds `ciphers.len()` blocks; block `i` is encrypted with `ciphers[i]`.
    /// Extra blocks beyond `ciphers.len()` are left untouched.
    fn encrypt_lanes(ciphers: &[&Self], blocks: &mut [u8])
    where
        Self: Sized,
    {
        if let Some(first) = ciphers.first() {
            let n = first.block_size();
            for (c, block) in ciphers.iter().zip(blocks.chunks_exact_mut(n)) {
                c.encrypt_blocks(block);
            }
        }
    }

    /// Multi-stream CBC encryption in one call where the backend has such a path: every stream
    /// `streams[i]` (all of one length, a whole number of blocks) is CBC-encrypted in place under
    /// `ciphers[i]` from the IV `ivs[i]`, keeping the chaining values in registers from block to
    /// block. The default, and any backend or set of streams without such a path, touches nothing
    /// and returns `false`; `mode::multistream` then walks the lanes with
    /// [`BlockCipher::encrypt_lanes`].
    fn cbc_encrypt_streams(ciphers: &[&Self], ivs: &[&[u8]], streams: &mut [&mut [u8]]) -> bool
    where
        Self: Sized,
    {
        let _ = (ciphers, ivs, streams);
        false
    }

    /// Multi-stream decryption, the inverse of [`BlockCipher::encrypt_lanes`].
    fn decrypt_lanes(ciphers: &[&Self], blocks: &mut [u8])
    where
        Self: Sized,
    {
        if let Some(first) = ciphers.first() {
            let n = first.block_size();
            for (c, block) in ciphers.iter().zip(blocks.chunks_exact_mut(n)) {
                c.decrypt_blocks(block);
            }
        }
    }
}

/// Construction from a key, for modes that re-key (CTR-ACPKM, OMAC-ACPKM) and for generic tests.
pub trait KeyInit: BlockCipher + Sized {
    /// Key sizes in bytes this cipher accepts.
    const KEY_SIZES: &'static [usize];

    /// Creates the cipher with the default backend and (for GOST 28147-89) default parameters.
    fn new_from_slice(key: &[u8]) -> Result<Self>;

    /// Creates another instance of the same cipher (same backend and parameters) with a new key.
    /// The default calls [`KeyInit::new_from_slice`].
    fn rekey(&self, key: &[u8]) -> Result<Self> {
        Self::new_from_slice(key)
    }
}

impl<T: BlockCipher + ?Sized> BlockCipher for &T {
    fn block_size(&self) -> usize {
        (**self).block_size()
    }
    fn encrypt_blocks(&self, data: &mut [u8]) {
        (**self).encrypt_blocks(data)
    }
    fn decrypt_blocks(&self, data: &mut [u8]) {
        (**self).decrypt_blocks(data)
    }
    fn ctr_xor(&self, counter: &mut [u8], data: &mut [u8]) -> bool {
        (**self).ctr_xor(counter, data)
    }
    fn zero_block_image(&self) -> Option<&[u8]> {
        (**self).zero_block_image()
    }
}

impl<T: BlockCipher + ?Sized> BlockCipher for Box<T> {
    fn block_size(&self) -> usize {
        (**self).block_size()
    }
    fn encrypt_blocks(&self, data: &mut [u8]) {
        (**self).encrypt_blocks(data)
    }
    fn decrypt_blocks(&self, data: &mut [u8]) {
        (**self).decrypt_blocks(data)
    }
    fn ctr_xor(&self, counter: &mut [u8], data: &mut [u8]) -> bool {
        (**self).ctr_xor(counter, data)
    }
    fn zero_block_image(&self) -> Option<&[u8]> {
        (**self).zero_block_image()
    }
}
