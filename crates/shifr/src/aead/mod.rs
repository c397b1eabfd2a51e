//! Authenticated encryption: AES-GCM, ChaCha20-Poly1305 / XChaCha20-Poly1305 and MGM.

pub mod algorithm;
pub mod chacha20poly1305;
#[cfg(target_arch = "x86_64")]
mod chacha20poly1305_x86;
pub mod gcm;
mod gcm_keystream;
#[cfg(target_arch = "x86_64")]
mod gcm_x86;
pub mod keystream;
pub mod mgm;
pub(crate) mod mgm_field;
#[cfg(target_arch = "x86_64")]
mod mgm_field_x86;
mod mgm_keystream;

use crate::Result;

/// An authentication tag of up to 16 bytes.
///
/// It has no `==`: a tag is compared only with [`Tag::ct_eq`], in time that does not depend on
/// where the bytes differ (an early-exit comparison of a computed tag with a received one tells an
/// attacker how many leading bytes of a forgery were right). [`AsRef<[u8]>`](AsRef) gives the bytes.
#[derive(Clone, Copy)]
pub struct Tag {
    bytes: [u8; 16],
    len: usize,
}

impl Tag {
    /// Builds a tag from its bytes; `None` if longer than 16 bytes.
    pub fn from_slice(t: &[u8]) -> Option<Tag> {
        if t.len() > 16 {
            return None;
        }
        let mut bytes = [0u8; 16];
        bytes[..t.len()].copy_from_slice(t);
        Some(Tag {
            bytes,
            len: t.len(),
        })
    }

    /// Whether this tag equals `other`, compared in constant time: the time depends only on the two
    /// lengths (different lengths are unequal at once; lengths are public).
    ///
    /// ```
    /// use shifr::aead::Tag;
    /// let tag = Tag::from_slice(&[1, 2, 3, 4]).unwrap();
    /// assert!(tag.ct_eq([1, 2, 3, 4]));
    /// assert!(!tag.ct_eq([1, 2, 3, 5]));
    /// assert!(!tag.ct_eq([1, 2, 3]));
    /// assert!(tag.ct_eq(tag));
    /// ```
    pub fn ct_eq(&self, other: impl AsRef<[u8]>) -> bool {
        crate::util::ct_eq(self.as_ref(), other.as_ref())
    }
}

impl AsRef<[u8]> for Tag {
    fn as_ref(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

impl core::fmt::Debug for Tag {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Tag(")?;
        for b in self.as_ref() {
            write!(f, "{b:02x}")?;
        }
        write!(f, ")")
    }
}

/// A keyed AEAD with a fixed tag length (chosen at construction where the algorithm allows).
pub trait Aead: Send + Sync {
    /// Tag length in bytes that `seal` produces and `open` expects.
    fn tag_len(&self) -> usize;

    /// Nonce lengths in bytes this AEAD accepts, as text for error messages and `shifr list`.
    fn nonce_len_desc(&self) -> &'static str;

    /// Encrypts `data` in place and returns the tag over `aad` and the ciphertext.
    fn seal(&self, nonce: &[u8], aad: &[u8], data: &mut [u8]) -> Result<Tag>;

    /// Verifies `tag` over `aad` and the ciphertext `data`, then decrypts in place.
    /// On any failure `data` is left as it was (no unauthenticated plaintext is released).
    fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<()>;
}
