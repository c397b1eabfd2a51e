//! TDEA (2- or 3-key) as the catalogue keys it.

use super::Tdes;
use crate::block::BlockAlgorithm;
use crate::cpu::Backend;
use crate::Result;

/// TDEA, keyed with a 16- or 24-byte key.
#[derive(Debug, Clone, Copy)]
pub struct TdesAlgorithm;

impl BlockAlgorithm for TdesAlgorithm {
    type Cipher = Tdes;
    const BLOCK_SIZE: usize = 8;

    fn key(&self, key: &[u8], backend: Option<Backend>) -> Result<Tdes> {
        match backend {
            Some(b) => Tdes::with_backend(key, b).or_else(|_| Tdes::new(key)),
            None => Tdes::new(key),
        }
    }

    fn backend(cipher: &Tdes) -> Backend {
        cipher.backend()
    }
}
