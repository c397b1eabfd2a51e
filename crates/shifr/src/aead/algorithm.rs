//! The AEADs as catalogue objects: AES-GCM, MGM over a block cipher, (X)ChaCha20-Poly1305. A keyed
//! object seals and opens each message on the calling thread, or, keyed with an engine, spreads
//! each large message over the engine's threads (the same bytes for any thread count).

use super::chacha20poly1305::{ChaCha20Poly1305, XChaCha20Poly1305};
use super::gcm::AesGcm;
use super::mgm::Mgm;
use super::{Aead, Tag};
use crate::block::BlockAlgorithm;
use crate::catalog::object::{AeadAlgorithm, KeyedAead, Setup};
use crate::parallel::{Engine, ParallelAead};
use crate::Result;

/// AES-GCM (any AES key size).
#[derive(Debug)]
pub struct AesGcmAlgorithm;

/// MGM (RFC 9058) over a block cipher.
#[derive(Debug)]
pub struct MgmAlgorithm<A>(pub A);

/// AEAD_CHACHA20_POLY1305 (RFC 8439).
#[derive(Debug)]
pub struct ChaCha20Poly1305Algorithm;

/// XChaCha20-Poly1305.
#[derive(Debug)]
pub struct XChaCha20Poly1305Algorithm;

impl AeadAlgorithm for AesGcmAlgorithm {
    fn key(&self, key: &[u8], setup: &Setup) -> Result<Box<dyn KeyedAead>> {
        let gcm = match setup.backend {
            Some(b) => AesGcm::with_backend(key, setup.tag_len, b)
                .or_else(|_| AesGcm::new(key, setup.tag_len))?,
            None => AesGcm::new(key, setup.tag_len)?,
        };
        Ok(keyed(gcm.backend().name(), gcm.state_bytes(), gcm, setup))
    }
}

impl<A: BlockAlgorithm> AeadAlgorithm for MgmAlgorithm<A> {
    fn key(&self, key: &[u8], setup: &Setup) -> Result<Box<dyn KeyedAead>> {
        let cipher = self.0.key(key, setup.backend)?;
        let backend = A::backend(&cipher).name();
        let mgm = Mgm::new(cipher, setup.tag_len)?;
        Ok(keyed(backend, mgm.state_bytes(), mgm, setup))
    }
}

impl AeadAlgorithm for ChaCha20Poly1305Algorithm {
    fn key(&self, key: &[u8], setup: &Setup) -> Result<Box<dyn KeyedAead>> {
        let aead = ChaCha20Poly1305::new(key)?;
        let size = core::mem::size_of::<ChaCha20Poly1305>();
        Ok(keyed(
            crate::stream::chacha20::algorithm::implementation(),
            size,
            aead,
            setup,
        ))
    }
}

impl AeadAlgorithm for XChaCha20Poly1305Algorithm {
    fn key(&self, key: &[u8], setup: &Setup) -> Result<Box<dyn KeyedAead>> {
        let aead = XChaCha20Poly1305::new(key)?;
        let size = core::mem::size_of::<XChaCha20Poly1305>();
        Ok(keyed(
            crate::stream::chacha20::algorithm::implementation(),
            size,
            aead,
            setup,
        ))
    }
}

fn keyed<A: ParallelAead + 'static>(
    backend: &'static str,
    state_bytes: usize,
    aead: A,
    setup: &Setup,
) -> Box<dyn KeyedAead> {
    Box::new(Keyed {
        aead,
        backend,
        state_bytes,
        engine: setup.engine.clone(),
    })
}

/// A keyed AEAD, run on the calling thread or over an engine.
struct Keyed<A> {
    aead: A,
    backend: &'static str,
    state_bytes: usize,
    engine: Option<Engine>,
}

impl<A: ParallelAead> Aead for Keyed<A> {
    fn tag_len(&self) -> usize {
        self.aead.tag_len()
    }

    fn nonce_len_desc(&self) -> &'static str {
        self.aead.nonce_len_desc()
    }

    fn seal(&self, nonce: &[u8], aad: &[u8], data: &mut [u8]) -> Result<Tag> {
        match &self.engine {
            Some(e) => e.seal(&self.aead, nonce, aad, data),
            None => self.aead.seal(nonce, aad, data),
        }
    }

    fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<()> {
        match &self.engine {
            Some(e) => e.open(&self.aead, nonce, aad, data, tag),
            None => self.aead.open(nonce, aad, data, tag),
        }
    }
}

impl<A: ParallelAead> KeyedAead for Keyed<A> {
    fn backend(&self) -> &'static str {
        self.backend
    }

    fn state_bytes(&self) -> usize {
        self.state_bytes
    }
}
