//! The block-cipher MACs as catalogue objects: OMAC (CMAC, the GOST R 34.13 MAC) and OMAC-ACPKM,
//! keyed once, one tag per call.

use super::{omac, omac_acpkm};
use crate::block::{BlockAlgorithm, BlockCipher, KeyInit};
use crate::catalog::object::{Mac, MacAlgorithm, MultiStream, Setup};
use crate::mode::multistream;
use crate::{Error, Result};

/// OMAC1 (CMAC) of a block cipher.
#[derive(Debug)]
pub struct CmacAlgorithm<A>(pub A);

/// OMAC-ACPKM (R 1323565.1.017-2018) of a block cipher.
#[derive(Debug)]
pub struct OmacAcpkmAlgorithm<A>(pub A);

impl<A: BlockAlgorithm> MacAlgorithm for CmacAlgorithm<A> {
    fn key(&self, key: &[u8], setup: &Setup) -> Result<Box<dyn Mac>> {
        keyed(&self.0, key, setup, None)
    }

    fn key_streams(&self, keys: &[&[u8]], setup: &Setup) -> Result<Option<Box<dyn MultiStream>>> {
        let ciphers = keys
            .iter()
            .map(|k| self.0.key(k, setup.backend))
            .collect::<Result<Vec<_>>>()?;
        let backend = ciphers.first().map_or("portable", |c| A::backend(c).name());
        Ok(Some(Box::new(Streams {
            ciphers,
            tag_len: setup.tag_len,
            backend,
        })))
    }
}

impl<A: BlockAlgorithm> MacAlgorithm for OmacAcpkmAlgorithm<A> {
    fn key(&self, key: &[u8], setup: &Setup) -> Result<Box<dyn Mac>> {
        let acpkm = Acpkm {
            key_len: key.len(),
            section: setup.section,
            master_section: setup.master_section,
        };
        keyed(&self.0, key, setup, Some(acpkm))
    }

    fn key_streams(&self, _: &[&[u8]], _: &Setup) -> Result<Option<Box<dyn MultiStream>>> {
        Ok(None)
    }
}

/// `alg` keyed with `key` as an OMAC (`acpkm: None`) or OMAC-ACPKM.
fn keyed<A: BlockAlgorithm>(
    alg: &A,
    key: &[u8],
    setup: &Setup,
    acpkm: Option<Acpkm>,
) -> Result<Box<dyn Mac>> {
    let cipher = alg.key(key, setup.backend)?;
    // OMAC-ACPKM re-keys per section, so only plain OMAC keeps subkeys.
    let subkeys = acpkm
        .is_none()
        .then(|| omac::Subkeys128::new(&cipher))
        .flatten();
    Ok(Box::new(Keyed {
        subkeys,
        backend: A::backend(&cipher).name(),
        cipher,
        tag_len: setup.tag_len,
        acpkm,
    }))
}

/// OMAC-ACPKM's sizes, in bytes.
struct Acpkm {
    key_len: usize,
    section: usize,
    master_section: usize,
}

/// A keyed OMAC (`acpkm: None`) or OMAC-ACPKM.
struct Keyed<C> {
    /// Plain OMAC of a 128-bit block cipher: its subkeys, derived at key setup.
    subkeys: Option<omac::Subkeys128>,
    cipher: C,
    backend: &'static str,
    tag_len: usize,
    acpkm: Option<Acpkm>,
}

impl<C: KeyInit> Keyed<C> {
    /// OMAC without kept subkeys (64-bit blocks) and OMAC-ACPKM, out of line: their frames are not
    /// paid by a short plain OMAC message.
    #[inline(never)]
    fn tag_general(&self, msg: &[u8], tag: &mut [u8]) -> Result<()> {
        match &self.acpkm {
            None => omac::omac_into(&self.cipher, msg, tag),
            Some(a) => {
                let t = omac_acpkm::omac_acpkm_with_key_len(
                    &self.cipher,
                    a.key_len,
                    a.section,
                    a.master_section,
                    self.tag_len,
                    msg,
                )?;
                tag.copy_from_slice(&t);
                Ok(())
            }
        }
    }
}

impl<C: KeyInit> Mac for Keyed<C> {
    fn tag(&self, msg: &[u8], tag: &mut [u8]) -> Result<()> {
        if tag.len() != self.tag_len {
            return Err(Error::InvalidTagLength {
                expected: "the tag length the MAC was keyed with",
                got: tag.len(),
            });
        }
        match &self.subkeys {
            Some(k) => k.tag_into(&self.cipher, msg, tag),
            None => self.tag_general(msg, tag),
        }
    }

    fn tag_len(&self) -> usize {
        self.tag_len
    }

    fn backend(&self) -> &'static str {
        self.backend
    }

    fn state_bytes(&self) -> usize {
        self.cipher.state_bytes()
    }
}

/// Many keyed OMAC instances ([`multistream::omac`]).
struct Streams<C> {
    ciphers: Vec<C>,
    tag_len: usize,
    backend: &'static str,
}

impl<C: BlockCipher> MultiStream for Streams<C> {
    fn encrypt(&self, _: &[&[u8]], _: &mut [&mut [u8]]) -> Result<()> {
        Err(Error::InvalidParameter("a MAC does not encrypt"))
    }

    fn decrypt(&self, _: &[&[u8]], _: &mut [&mut [u8]]) -> Result<()> {
        Err(Error::InvalidParameter("a MAC does not decrypt"))
    }

    fn tag(&self, msgs: &[&[u8]]) -> Result<Vec<Vec<u8>>> {
        let refs: Vec<&C> = self.ciphers.iter().collect();
        multistream::omac(&refs, msgs, self.tag_len)
    }

    fn backend(&self) -> &'static str {
        self.backend
    }
}
