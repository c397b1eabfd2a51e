//! MGM as a [`SplitAead`] for Kuznyechik and Magma: the key stream is `E_K(Y_i)` with
//! `Y_1 = E_K(0 || ICN)` and `incr_r` (the right half counts mod 2^(n/2)); the tag is the
//! multilinear sum over AAD and ciphertext (RFC 9058), both from [`Mgm`] itself.

use super::keystream::{KeystreamCipher, SplitAead};
use super::mgm::Mgm;
use super::{Aead, Tag};
use crate::block::kuznyechik::Kuznyechik;
use crate::block::magma::Magma;
use crate::block::BlockCipher;
use crate::{Error, Result};

/// `Y_1` of `nonce` as a start block: the `n` bytes big-endian at the front.
fn start<C: BlockCipher>(mgm: &Mgm<C>, nonce: &[u8]) -> Result<[u8; 16]> {
    mgm.check_nonce(nonce)?;
    let (y1, _) = mgm.initial_blocks(nonce);
    let n = nonce.len();
    let mut block = [0u8; 16];
    block[..n].copy_from_slice(&y1.to_be_bytes()[16 - n..]);
    Ok(block)
}

fn tag<C: BlockCipher>(mgm: &Mgm<C>, nonce: &[u8], aad: &[u8], ct: &[u8]) -> Result<Tag> {
    mgm.check_nonce(nonce)?;
    mgm.check_lengths(aad.len(), ct.len())?;
    let (_, z1) = mgm.initial_blocks(nonce);
    let full = mgm.compute_tag(z1, aad, ct);
    Tag::from_slice(&full[..mgm.tag_len()]).ok_or(Error::InvalidTagLength {
        expected: "at most 16 bytes",
        got: mgm.tag_len(),
    })
}

impl SplitAead for Mgm<Kuznyechik> {
    fn keystream_cipher(&self) -> KeystreamCipher {
        KeystreamCipher::Kuznyechik
    }

    fn keystream_start(&self, nonce: &[u8]) -> Result<[u8; 16]> {
        start(self, nonce)
    }

    fn ciphertext_tag(&self, nonce: &[u8], aad: &[u8], ct: &[u8]) -> Result<Tag> {
        tag(self, nonce, aad, ct)
    }
}

impl SplitAead for Mgm<Magma> {
    fn keystream_cipher(&self) -> KeystreamCipher {
        KeystreamCipher::Magma
    }

    fn keystream_start(&self, nonce: &[u8]) -> Result<[u8; 16]> {
        start(self, nonce)
    }

    fn ciphertext_tag(&self, nonce: &[u8], aad: &[u8], ct: &[u8]) -> Result<Tag> {
        tag(self, nonce, aad, ct)
    }
}
