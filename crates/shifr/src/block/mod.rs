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
}
