//! ChaCha20 (OpenSSL's IV layout) and XChaCha20 as catalogue objects.

use super::{ChaCha20, XChaCha20};
use crate::catalog::object::{KeyStream, Setup, StreamAlgorithm};
use crate::parallel::Engine;
use crate::{Error, Result};
use zeroize::Zeroizing;

/// ChaCha20 with OpenSSL's 16-byte IV: a 32-bit little-endian block counter, then the 96-bit nonce.
#[derive(Debug)]
pub struct ChaCha20Algorithm;

/// XChaCha20 with a 24-byte nonce, from block 0.
#[derive(Debug)]
pub struct XChaCha20Algorithm;

/// The key stream implementation this process selects (`"avx512"`, `"avx2"`, `"sse2"` or
/// `"portable"`), asked of a cipher keyed with zeros.
pub(crate) fn implementation() -> &'static str {
    ChaCha20::new(&[0u8; 32], &[0u8; 12], 0).map_or("portable", |c| c.implementation())
}

/// Splits OpenSSL's chacha20 IV into its block counter and nonce.
fn openssl_iv(iv: &[u8]) -> Result<(u32, &[u8])> {
    let (counter, nonce) = iv.split_at_checked(4).ok_or(Error::InvalidIvLength {
        expected: "16",
        got: iv.len(),
    })?;
    Ok((
        u32::from_le_bytes([counter[0], counter[1], counter[2], counter[3]]),
        nonce,
    ))
}

impl StreamAlgorithm for ChaCha20Algorithm {
    fn start(&self, key: &[u8], iv: &[u8], setup: &Setup) -> Result<Box<dyn KeyStream>> {
        let (counter, nonce) = openssl_iv(iv)?;
        let cipher = ChaCha20::new(key, nonce, counter)?;
        Ok(match &setup.engine {
            Some(engine) => Box::new(Split {
                engine: engine.clone(),
                backend: cipher.implementation(),
                key: Zeroizing::new(key.to_vec()),
                nonce: nonce.to_vec(),
                counter: u64::from(counter),
            }),
            None => Box::new(cipher),
        })
    }

    fn splits(&self) -> bool {
        true
    }
}

impl StreamAlgorithm for XChaCha20Algorithm {
    fn start(&self, key: &[u8], iv: &[u8], _: &Setup) -> Result<Box<dyn KeyStream>> {
        Ok(Box::new(XChaCha20::new(key, iv, 0)?))
    }

    fn splits(&self) -> bool {
        false
    }
}

impl KeyStream for ChaCha20 {
    fn apply(&mut self, data: &mut [u8]) -> Result<()> {
        self.apply_keystream(data)
    }

    fn remaining_bytes(&self) -> u64 {
        ChaCha20::remaining_bytes(self)
    }

    fn backend(&self) -> &'static str {
        self.implementation()
    }
}

impl KeyStream for XChaCha20 {
    fn apply(&mut self, data: &mut [u8]) -> Result<()> {
        self.apply_keystream(data)
    }

    fn remaining_bytes(&self) -> u64 {
        XChaCha20::remaining_bytes(self)
    }

    fn backend(&self) -> &'static str {
        self.implementation()
    }
}

/// ChaCha20 with each call split over an engine's threads. Every call starts at a whole block (a
/// call of `len` bytes uses `ceil(len / 64)` blocks), so the first call equals the single-thread
/// key stream's and later ones continue it from the next block.
struct Split {
    engine: Engine,
    backend: &'static str,
    key: Zeroizing<Vec<u8>>,
    nonce: Vec<u8>,
    /// The block counter the next call starts at (up to 2^32 = exhausted).
    counter: u64,
}

impl KeyStream for Split {
    fn apply(&mut self, data: &mut [u8]) -> Result<()> {
        let counter = u32::try_from(self.counter).map_err(|_| {
            Error::LengthLimit(
                "ChaCha20 32-bit block counter would wrap (at most 256 GiB per nonce)",
            )
        })?;
        self.engine
            .chacha20_apply(&self.key, &self.nonce, counter, data)?;
        self.counter += data.len().div_ceil(64) as u64;
        Ok(())
    }

    fn remaining_bytes(&self) -> u64 {
        ((1u64 << 32) - self.counter.min(1 << 32)) * 64
    }

    fn backend(&self) -> &'static str {
        self.backend
    }
}
