//! STREAM chunk sealing: a job of consecutive chunks is sealed or opened in place, with no copy and no
//! allocation ([`super::jobs`] spreads jobs over worker threads). Every chunk's nonce depends only on its
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
use crate::aead::Aead;

/// Seals and opens the chunks of one file.
pub struct ChunkCipher {
    aead: Box<dyn Aead>,
    algorithm: Algorithm,
    header: [u8; HEADER_LEN],
    nonce_prefix: [u8; 16],
    chunk_size: usize,
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
        })
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
}
