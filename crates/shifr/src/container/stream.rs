//! STREAM chunk sealing: a job of consecutive chunks is sealed or opened in place, with no copy and no
//! allocation (`super::jobs` spreads jobs over worker threads). Every chunk's nonce depends only on its
//! index, so the output is byte-identical for any thread count.
//!
//! Every chunk is authenticated with the whole 80-byte header as associated data. A sealed chunk is the
//! ciphertext followed by the tag; every chunk but the last holds exactly `chunk_size` plaintext bytes,
//! the last holds fewer (possibly none), so a reader knows from the length alone which chunk must be
//! the final one.

use super::algorithm::{Algorithm, KEY_LEN};
use super::error::{Error, Result};
use super::header::{Header, HEADER_LEN};
use super::nonce::chunk_nonce;
use crate::aead::keystream::{verify_tag, KeystreamKey, KeystreamSource, SplitAead};
use crate::aead::Aead;
use zeroize::Zeroizing;

/// Seals and opens the chunks of one file.
pub struct ChunkCipher {
    aead: Box<dyn Aead>,
    algorithm: Algorithm,
    header: [u8; HEADER_LEN],
    nonce_prefix: [u8; 16],
    chunk_size: usize,
    payload_key: Zeroizing<[u8; KEY_LEN]>,
    external: Option<External>,
}

/// The AEAD split into key stream and tag, with the source of the key stream (a GPU).
struct External {
    aead: Box<dyn SplitAead>,
    source: Box<dyn KeystreamSource>,
}

impl ChunkCipher {
    /// The chunk cipher of the file with `header`, keyed with its payload key.
    pub fn new(header: &Header, payload_key: &[u8; KEY_LEN]) -> Result<ChunkCipher> {
        Ok(ChunkCipher {
            aead: header.algorithm.keyed(payload_key)?,
            algorithm: header.algorithm,
            header: header.to_bytes(),
            nonce_prefix: header.nonce_prefix,
            chunk_size: header.chunk_size as usize,
            payload_key: Zeroizing::new(*payload_key),
            external: None,
        })
    }

    /// The cipher and key of this file's key stream, for building a [`KeystreamSource`]; `None` when
    /// the AEAD cannot take an external key stream (XChaCha20-Poly1305). The key is secret.
    pub fn keystream_key(&self) -> Option<KeystreamKey> {
        let aead = self.algorithm.keyed_split(&self.payload_key).ok()??;
        Some(KeystreamKey {
            cipher: aead.keystream_cipher(),
            key: Zeroizing::new(self.payload_key.to_vec()),
        })
    }

    /// From now on takes every chunk's key stream from `source` (keyed from [`Self::keystream_key`])
    /// and computes only the tags here; the sealed chunks are the same bytes. Error:
    /// [`Error::InvalidParameter`] when the AEAD cannot be split.
    pub fn set_keystream_source(&mut self, source: Box<dyn KeystreamSource>) -> Result<()> {
        let aead =
            self.algorithm
                .keyed_split(&self.payload_key)?
                .ok_or(Error::InvalidParameter(
                    "this AEAD cannot take an external key stream",
                ))?;
        self.external = Some(External { aead, source });
        Ok(())
    }

    /// Whether chunks take their key stream from an external source.
    pub fn has_keystream_source(&self) -> bool {
        self.external.is_some()
    }

    /// Plaintext bytes of every chunk but the last.
    pub fn chunk_size(&self) -> usize {
        self.chunk_size
    }

    /// Tag bytes per chunk.
    pub fn tag_len(&self) -> usize {
        self.algorithm.tag_len()
    }

    /// Bytes of a full sealed chunk.
    pub fn sealed_chunk_len(&self) -> usize {
        self.chunk_size + self.tag_len()
    }

    /// Chunks in a job of `len` plaintext bytes: every full `chunk_size` piece, plus the final chunk
    /// (the remainder, possibly empty) if `last`. Error: a non-final job that is not whole chunks.
    pub fn chunks_in_plain(&self, len: usize, last: bool) -> Result<usize> {
        if !last && !len.is_multiple_of(self.chunk_size) {
            return Err(Error::InvalidParameter(
                "a non-final job must hold whole chunks",
            ));
        }
        Ok(len / self.chunk_size + usize::from(last))
    }

    /// Seals the plaintext `plain` in place as the chunks `first_counter..` (split as
    /// [`Self::chunks_in_plain`] says) and writes their tags, one after another, to the front of `tags`.
    /// The container's layout is then each chunk's ciphertext followed by its tag.
    pub fn seal_job(
        &self,
        first_counter: u64,
        plain: &mut [u8],
        last: bool,
        tags: &mut [u8],
    ) -> Result<()> {
        let count = self.chunks_in_plain(plain.len(), last)?;
        let tag_len = self.tag_len();
        if tags.len() < count * tag_len {
            return Err(Error::InvalidParameter("tag buffer too small"));
        }
        if let Some(external) = &self.external {
            return self.seal_external(external, first_counter, plain, last, count, tags);
        }
        let mut rest = plain;
        for (i, tag_out) in tags.chunks_exact_mut(tag_len).take(count).enumerate() {
            let take = self.chunk_size.min(rest.len());
            let (data, tail) = core::mem::take(&mut rest).split_at_mut(take);
            rest = tail;
            let counter = first_counter + i as u64;
            let nonce = chunk_nonce(
                self.algorithm,
                &self.nonce_prefix,
                counter,
                last && i + 1 == count,
            )?;
            let tag = self.aead.seal(nonce.as_ref(), &self.header, data)?;
            tag_out.copy_from_slice(tag.as_ref());
        }
        Ok(())
    }

    /// Verifies and decrypts `sealed`, the chunks `first_counter..`, in place: every full sealed chunk
    /// is non-final; if `last`, the remainder is the final chunk (which must be shorter than a full
    /// sealed chunk). Chunk `i`'s plaintext is then at the start of its sealed slot,
    /// `sealed[i * sealed_chunk_len()..]`, before its tag. Error: [`Error::ChunkAuthentication`] with
    /// the first failing index (later chunks are left untouched).
    pub fn open_job(&self, first_counter: u64, sealed: &mut [u8], last: bool) -> Result<()> {
        let slot_len = self.sealed_chunk_len();
        if !last && !sealed.len().is_multiple_of(slot_len) {
            return Err(Error::InvalidParameter(
                "a non-final job must hold whole chunks",
            ));
        }
        let count = sealed.len() / slot_len + usize::from(last);
        if let Some(external) = &self.external {
            return self.open_external(external, first_counter, sealed, last, count);
        }
        let mut rest = sealed;
        for i in 0..count {
            let take = slot_len.min(rest.len());
            let (slot, tail) = core::mem::take(&mut rest).split_at_mut(take);
            rest = tail;
            self.open_one(first_counter + i as u64, last && i + 1 == count, slot)?;
        }
        Ok(())
    }

    /// Verifies and decrypts one sealed chunk in place; the plaintext is `slot[..len - tag_len]`.
    fn open_one(&self, counter: u64, last: bool, slot: &mut [u8]) -> Result<()> {
        let fail = Error::ChunkAuthentication(counter);
        let Some(plain_len) = slot.len().checked_sub(self.tag_len()) else {
            return Err(fail);
        };
        let nonce = chunk_nonce(self.algorithm, &self.nonce_prefix, counter, last)?;
        let (data, tag) = slot.split_at_mut(plain_len);
        self.aead
            .open(nonce.as_ref(), &self.header, data, tag)
            .map_err(|_| fail)
    }

    /// [`Self::seal_job`] with the key stream of all `count` chunks from the external source in one
    /// call, then the tags here.
    fn seal_external(
        &self,
        external: &External,
        first_counter: u64,
        plain: &mut [u8],
        last: bool,
        count: usize,
        tags: &mut [u8],
    ) -> Result<()> {
        let nonces = (0..count)
            .map(|i| {
                let counter = first_counter + i as u64;
                chunk_nonce(
                    self.algorithm,
                    &self.nonce_prefix,
                    counter,
                    last && i + 1 == count,
                )
            })
            .collect::<Result<Vec<_>>>()?;
        let mut starts = Zeroizing::new(Vec::with_capacity(count));
        for nonce in &nonces {
            starts.push(external.aead.keystream_start(nonce.as_ref())?);
        }
        let cs = self.chunk_size;
        external.source.xor_keystream(&starts, cs, cs, plain)?;
        let tag_len = self.tag_len();
        for (i, (nonce, tag_out)) in nonces
            .iter()
            .zip(tags.chunks_exact_mut(tag_len))
            .enumerate()
        {
            let begin = (i * cs).min(plain.len());
            let data = &plain[begin..(begin + cs).min(plain.len())];
            let tag = external
                .aead
                .ciphertext_tag(nonce.as_ref(), &self.header, data)?;
            tag_out.copy_from_slice(tag.as_ref());
        }
        Ok(())
    }

    /// [`Self::open_job`] with the external key stream: every tag is verified first (the first
    /// failure is reported and nothing is decrypted), then all chunks are decrypted in one call.
    fn open_external(
        &self,
        external: &External,
        first_counter: u64,
        sealed: &mut [u8],
        last: bool,
        count: usize,
    ) -> Result<()> {
        let slot_len = self.sealed_chunk_len();
        let tag_len = self.tag_len();
        let mut starts = Zeroizing::new(Vec::with_capacity(count));
        let mut end = 0;
        for i in 0..count {
            let counter = first_counter + i as u64;
            let fail = Error::ChunkAuthentication(counter);
            let begin = (i * slot_len).min(sealed.len());
            let slot = &sealed[begin..(begin + slot_len).min(sealed.len())];
            let Some(plain_len) = slot.len().checked_sub(tag_len) else {
                return Err(fail);
            };
            let nonce = chunk_nonce(
                self.algorithm,
                &self.nonce_prefix,
                counter,
                last && i + 1 == count,
            )?;
            let (ct, tag) = slot.split_at(plain_len);
            verify_tag(&*external.aead, nonce.as_ref(), &self.header, ct, tag).map_err(|_| fail)?;
            starts.push(external.aead.keystream_start(nonce.as_ref())?);
            end = begin + plain_len;
        }
        external
            .source
            .xor_keystream(&starts, self.chunk_size, slot_len, &mut sealed[..end])?;
        Ok(())
    }
}
