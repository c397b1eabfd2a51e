//! Magma and GOST 28147-89 as the catalogue keys them.

use super::{Gost28147, Magma, SBox};
use crate::block::BlockAlgorithm;
use crate::cpu::Backend;
use crate::Result;

/// Magma (GOST R 34.12-2015, 64-bit block) with its TC26 Z S-box.
#[derive(Debug, Clone, Copy)]
pub struct MagmaAlgorithm;

impl BlockAlgorithm for MagmaAlgorithm {
    type Cipher = Magma;
    const BLOCK_SIZE: usize = 8;

    fn key(&self, key: &[u8], backend: Option<Backend>) -> Result<Magma> {
        match backend {
            Some(b) => Magma::with_backend(key, SBox::Tc26Z, b).or_else(|_| Magma::new(key)),
            None => Magma::new(key),
        }
    }

    fn backend(cipher: &Magma) -> Backend {
        cipher.backend()
    }
}

/// GOST 28147-89 with OpenSSL's `gost89` byte conventions and the given S-box set.
#[derive(Debug, Clone, Copy)]
pub struct Gost28147Algorithm(pub SBox);

impl BlockAlgorithm for Gost28147Algorithm {
    type Cipher = Gost28147;
    const BLOCK_SIZE: usize = 8;

    fn key(&self, key: &[u8], backend: Option<Backend>) -> Result<Gost28147> {
        match backend {
            Some(b) => {
                Gost28147::with_backend(key, self.0, b).or_else(|_| Gost28147::new(key, self.0))
            }
            None => Gost28147::new(key, self.0),
        }
    }

    fn backend(cipher: &Gost28147) -> Backend {
        cipher.backend()
    }
}
