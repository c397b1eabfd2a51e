//! The AEADs a container may use, with their one-byte header ids, tag and nonce sizes.

use super::error::{Error, Result};
use crate::aead::chacha20poly1305::{ChaCha20Poly1305, XChaCha20Poly1305};
use crate::aead::gcm::AesGcm;
use crate::aead::keystream::SplitAead;
use crate::aead::mgm::Mgm;
use crate::aead::Aead;
use crate::block::kuznyechik::Kuznyechik;
use crate::block::magma::Magma;
use crate::cpu::Backend;

/// Length of every payload key: all five AEADs take 256-bit keys.
pub const KEY_LEN: usize = 32;

/// An AEAD of the container format. The discriminant is the id stored in the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Algorithm {
    /// AES-256-GCM, 12-byte nonce, 16-byte tag.
    Aes256Gcm = 1,
    /// ChaCha20-Poly1305 (RFC 8439), 12-byte nonce, 16-byte tag.
    ChaCha20Poly1305 = 2,
    /// XChaCha20-Poly1305, 24-byte nonce, 16-byte tag.
    XChaCha20Poly1305 = 3,
    /// Kuznyechik-MGM (RFC 9058), 16-byte nonce with MSB 0, 16-byte tag.
    KuznyechikMgm = 4,
    /// Magma-MGM (RFC 9058), 8-byte nonce with MSB 0, 8-byte tag.
    MagmaMgm = 5,
}

impl Algorithm {
    /// Every algorithm, in id order.
    pub const ALL: [Algorithm; 5] = [
        Algorithm::Aes256Gcm,
        Algorithm::ChaCha20Poly1305,
        Algorithm::XChaCha20Poly1305,
        Algorithm::KuznyechikMgm,
        Algorithm::MagmaMgm,
    ];

    /// The name used by `shifr -a` (the catalogue's names).
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Aes256Gcm => "aes-256-gcm",
            Algorithm::ChaCha20Poly1305 => "chacha20-poly1305",
            Algorithm::XChaCha20Poly1305 => "xchacha20-poly1305",
            Algorithm::KuznyechikMgm => "kuznyechik-mgm",
            Algorithm::MagmaMgm => "magma-mgm",
        }
    }

    /// Looks a name up (ASCII case-insensitive).
    pub fn from_name(name: &str) -> Option<Algorithm> {
        Self::ALL
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(name))
    }

    /// The algorithm with header id `id`.
    pub fn from_id(id: u8) -> Option<Algorithm> {
        Self::ALL.into_iter().find(|a| a.id() == id)
    }

    /// The header id.
    pub fn id(self) -> u8 {
        self as u8
    }

    /// The default: AES-256-GCM where this CPU has AES and carry-less multiply instructions (the
    /// backend shifr would choose), ChaCha20-Poly1305 elsewhere.
    pub fn default_for_this_cpu() -> Algorithm {
        if Backend::AesNi.is_supported() {
            Algorithm::Aes256Gcm
        } else {
            Algorithm::ChaCha20Poly1305
        }
    }

    /// Tag bytes appended to every chunk.
    pub fn tag_len(self) -> usize {
        match self {
            Algorithm::MagmaMgm => 8,
            _ => 16,
        }
    }

    /// Nonce bytes the AEAD takes.
    pub fn nonce_len(self) -> usize {
        match self {
            Algorithm::Aes256Gcm | Algorithm::ChaCha20Poly1305 => 12,
            Algorithm::XChaCha20Poly1305 => 24,
            Algorithm::KuznyechikMgm => 16,
            Algorithm::MagmaMgm => 8,
        }
    }

    /// Whether the nonce's most significant bit must be 0 (MGM: the nonce is an n-bit block `0 || ICN`).
    pub fn nonce_msb_zero(self) -> bool {
        matches!(self, Algorithm::KuznyechikMgm | Algorithm::MagmaMgm)
    }

    /// The keyed AEAD, from shifr's own implementations.
    pub fn keyed(self, key: &[u8; KEY_LEN]) -> Result<Box<dyn Aead>> {
        let tag = self.tag_len();
        let aead: Box<dyn Aead> = match self {
            Algorithm::Aes256Gcm => Box::new(AesGcm::new(key, tag)?),
            Algorithm::ChaCha20Poly1305 => Box::new(ChaCha20Poly1305::new(key)?),
            Algorithm::XChaCha20Poly1305 => Box::new(XChaCha20Poly1305::new(key)?),
            Algorithm::KuznyechikMgm => Box::new(Mgm::new(Kuznyechik::new(key)?, tag)?),
            Algorithm::MagmaMgm => Box::new(Mgm::new(Magma::new(key)?, tag)?),
        };
        if aead.tag_len() != tag {
            return Err(Error::InvalidParameter(
                "AEAD tag length differs from the format's",
            ));
        }
        Ok(aead)
    }

    /// The keyed AEAD split into key stream and tag ([`crate::aead::keystream`]), for an external
    /// key-stream source; `None` for XChaCha20-Poly1305, whose key changes with every nonce.
    pub fn keyed_split(self, key: &[u8; KEY_LEN]) -> Result<Option<Box<dyn SplitAead>>> {
        let tag = self.tag_len();
        let aead: Box<dyn SplitAead> = match self {
            Algorithm::Aes256Gcm => Box::new(AesGcm::new(key, tag)?),
            Algorithm::ChaCha20Poly1305 => Box::new(ChaCha20Poly1305::new(key)?),
            Algorithm::XChaCha20Poly1305 => return Ok(None),
            Algorithm::KuznyechikMgm => Box::new(Mgm::new(Kuznyechik::new(key)?, tag)?),
            Algorithm::MagmaMgm => Box::new(Mgm::new(Magma::new(key)?, tag)?),
        };
        Ok(Some(aead))
    }
}
