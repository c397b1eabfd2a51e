//! AES-GCM as a [`SplitAead`]: the key stream is AES-CTR from `inc32(J0)` (inc32: the last four bytes
//! count big-endian mod 2^32), the tag GHASH over AAD and ciphertext masked with `E_K(J0)`.

use super::gcm::AesGcm;
use super::keystream::{KeystreamCipher, SplitAead};
use super::Tag;
use crate::{Error, Result};

impl SplitAead for AesGcm {
    fn keystream_cipher(&self) -> KeystreamCipher {
        KeystreamCipher::Aes
    }

    fn keystream_start(&self, nonce: &[u8]) -> Result<[u8; 16]> {
        let mut start = self.pre_counter_block(nonce)?;
        let c = u32::from_be_bytes([start[12], start[13], start[14], start[15]]);
        start[12..].copy_from_slice(&c.wrapping_add(1).to_be_bytes());
        Ok(start)
    }

    fn ciphertext_tag(&self, nonce: &[u8], aad: &[u8], ct: &[u8]) -> Result<Tag> {
        let j0 = self.prepare(nonce, aad, ct)?;
        let tag = self.full_tag(&j0, aad, ct);
        let len = super::Aead::tag_len(self);
        Tag::from_slice(&tag[..len]).ok_or(Error::InvalidTagLength {
            expected: "12..=16",
            got: len,
        })
    }
}
