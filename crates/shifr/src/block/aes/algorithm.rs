//! AES (any key size) as the catalogue keys it.

use super::Aes;
use crate::block::BlockAlgorithm;
use crate::cpu::Backend;
use crate::Result;

/// AES, keyed with a 16-, 24- or 32-byte key.
#[derive(Debug, Clone, Copy)]
pub struct AesAlgorithm;

impl BlockAlgorithm for AesAlgorithm {
    type Cipher = Aes;
    const BLOCK_SIZE: usize = 16;

    fn key(&self, key: &[u8], backend: Option<Backend>) -> Result<Aes> {
        match backend {
            Some(b) => Aes::with_backend(key, b).or_else(|_| Aes::new(key)),
            None => Aes::new(key),
        }
    }

    fn backend(cipher: &Aes) -> Backend {
        cipher.backend()
    }
}
