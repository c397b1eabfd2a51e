//! STREAM chunk sealing: a batch of consecutive chunks is sealed or opened at once, spread over worker
//! threads with `std::thread::scope`. Every chunk's nonce depends only on its index, so the output is
//! byte-identical for any thread count.
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

    /// Seals `plain` (`plain.len()` bytes of plaintext at `slot[..plain.len()]`) in place and writes
    /// the tag after it; `slot` must be `plain_len + tag_len` bytes.
    fn seal_one(&self, counter: u64, last: bool, slot: &mut [u8]) -> Result<()> {
        let plain_len = slot.len() - self.tag_len();
        let nonce = chunk_nonce(self.algorithm, &self.nonce_prefix, counter, last)?;
        let (data, tag_out) = slot.split_at_mut(plain_len);
        let tag = self.aead.seal(nonce.as_ref(), &self.header, data)?;
        tag_out.copy_from_slice(tag.as_ref());
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

    /// Seals `plain` as the chunks `first_counter..`: every full `chunk_size` piece is a non-final
    /// chunk; if `last`, the remainder (possibly empty) is the final chunk, otherwise `plain` must be a
    /// whole number of chunks. The sealed chunks replace the contents of `out`.
    pub fn seal_batch(
        &self,
        first_counter: u64,
        plain: &[u8],
        last: bool,
        out: &mut Vec<u8>,
        threads: usize,
    ) -> Result<()> {
        let cs = self.chunk_size;
        let full = plain.len() / cs;
        let rem = plain.len() % cs;
        if !last && rem != 0 {
            return Err(Error::InvalidParameter(
                "a non-final batch must hold whole chunks",
            ));
        }
        let count = full + usize::from(last);
        let sealed = self.sealed_chunk_len();
        out.clear();
        out.resize(
            full * sealed + if last { rem + self.tag_len() } else { 0 },
            0,
        );
        let mut slots: Vec<(u64, bool, &[u8], &mut [u8])> = Vec::with_capacity(count);
        let mut rest = &mut out[..];
        for i in 0..count {
            let start = i * cs;
            let end = (start + cs).min(plain.len());
            let (slot, tail) = rest.split_at_mut(end - start + self.tag_len());
            rest = tail;
            let is_last = last && i + 1 == count;
            slots.push((first_counter + i as u64, is_last, &plain[start..end], slot));
        }
        run_parallel(&mut slots, threads, |(counter, is_last, src, slot)| {
            slot[..src.len()].copy_from_slice(src);
            self.seal_one(*counter, *is_last, slot)
        })
    }

    /// Opens `sealed`, the chunks `first_counter..`, in place: every full sealed chunk is non-final;
    /// if `last`, the remainder is the final chunk. The plaintext is moved to the front of `sealed` and
    /// its length returned. Error: [`Error::ChunkAuthentication`] with the lowest failing index.
    pub fn open_batch(
        &self,
        first_counter: u64,
        sealed: &mut [u8],
        last: bool,
        threads: usize,
    ) -> Result<usize> {
        let slot_len = self.sealed_chunk_len();
        let full = sealed.len() / slot_len;
        let rem = sealed.len() % slot_len;
        if !last && rem != 0 {
            return Err(Error::InvalidParameter(
                "a non-final batch must hold whole chunks",
            ));
        }
        let count = full + usize::from(last);
        let mut slots: Vec<(u64, bool, &mut [u8])> = Vec::with_capacity(count);
        let mut rest = &mut sealed[..];
        for i in 0..count {
            let take = slot_len.min(rest.len());
            let (slot, tail) = rest.split_at_mut(take);
            rest = tail;
            let is_last = last && i + 1 == count;
            slots.push((first_counter + i as u64, is_last, slot));
        }
        run_parallel(&mut slots, threads, |(counter, is_last, slot)| {
            self.open_one(*counter, *is_last, slot)
        })?;
        // Move each chunk's plaintext down over the tags before it.
        let mut plain_len = 0;
        for i in 0..count {
            let start = i * slot_len;
            let len = (sealed.len() - start).min(slot_len) - self.tag_len();
            sealed.copy_within(start..start + len, plain_len);
            plain_len += len;
        }
        Ok(plain_len)
    }
}

/// Runs `job` on every item, the items split into `threads` contiguous runs. Returns the error of the
/// lowest-indexed failing item, so the result does not depend on scheduling.
fn run_parallel<T: Send, F>(items: &mut [T], threads: usize, job: F) -> Result<()>
where
    F: Fn(&mut T) -> Result<()> + Sync,
{
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        return items.iter_mut().try_for_each(job);
    }
    let per = items.len().div_ceil(threads);
    let job = &job;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks_mut(per)
            .map(|run| scope.spawn(move || run.iter_mut().try_for_each(job)))
            .collect();
        // Joined in index order: the first error met is the lowest-indexed one. A worker cannot
        // panic on any input (the AEADs validate and return errors), so join failing means a bug.
        let mut first_error = None;
        for h in handles {
            match h.join() {
                Ok(Ok(())) => {}
                Ok(Err(e)) => {
                    first_error.get_or_insert(e);
                }
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        first_error.map_or(Ok(()), Err)
    })
}
