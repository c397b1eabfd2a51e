//! Kuznyechik as the catalogue keys it.

use super::Kuznyechik;
use crate::block::BlockAlgorithm;
use crate::cpu::Backend;
use crate::Result;

/// Kuznyechik (GOST R 34.12-2015, 128-bit block).
#[derive(Debug, Clone, Copy)]
pub struct KuznyechikAlgorithm;

impl BlockAlgorithm for KuznyechikAlgorithm {
    type Cipher = Kuznyechik;
    const BLOCK_SIZE: usize = 16;

    fn key(&self, key: &[u8], backend: Option<Backend>) -> Result<Kuznyechik> {
        match backend {
            Some(b) => Kuznyechik::with_backend(key, b).or_else(|_| Kuznyechik::new(key)),
            None => Kuznyechik::new(key),
        }
    }

    fn backend(cipher: &Kuznyechik) -> Backend {
        cipher.backend()
    }
}
