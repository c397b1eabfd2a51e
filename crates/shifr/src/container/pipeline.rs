//! Whole-file encryption and decryption over any `Read` / `Write`: reads a batch of chunks, seals or
//! opens it on the worker threads, writes it, and reports progress after every batch (the caller
//! throttles CPU or draws a progress bar there). Decryption writes only chunks whose tags verified.

use super::algorithm::{Algorithm, KEY_LEN};
use super::error::{Error, Result};
use super::header::{Header, DEFAULT_CHUNK_SIZE, HEADER_LEN, MAX_CHUNK_SIZE, MIN_CHUNK_SIZE};
use super::jobs::{self, Job};
use super::kdf::{file_keys, input_key, Kdf, Secret};
use super::stream::ChunkCipher;
use crate::aead::keystream::{KeystreamKey, KeystreamSource};
use crate::util::ct_eq;
use std::io::{ErrorKind, IoSlice, Read, Write};

/// Default plaintext bytes per job (batch): large sequential reads and writes (1 MiB, aligned for a
/// block device when the chunk size is a power of two), small enough that the worker threads share
/// even a few-MiB input.
pub const BATCH_BYTES: usize = 1 << 20;

/// Plaintext bytes per job with an external key-stream source: one source call (a GPU transfer and
/// launch) per job, so it should be several MiB.
pub const KEYSTREAM_BATCH_BYTES: usize = 8 << 20;

/// What the encryptor needs besides the secret and the data.
#[derive(Debug, Clone)]
pub struct EncryptParams {
    /// The AEAD.
    pub algorithm: Algorithm,
    /// Argon2id parameters for a passphrase, or [`Kdf::KeyFile`].
    pub kdf: Kdf,
    /// Plaintext bytes per chunk.
    pub chunk_size: u32,
    /// Random salt (16 bytes from the OS generator; fixed only for test vectors).
    pub salt: [u8; 16],
    /// Random nonce prefix (16 bytes from the OS generator; fixed only for test vectors).
    pub nonce_prefix: [u8; 16],
}

impl EncryptParams {
    /// Parameters with the default chunk size.
    pub fn new(algorithm: Algorithm, kdf: Kdf, salt: [u8; 16], nonce_prefix: [u8; 16]) -> Self {
        EncryptParams {
            algorithm,
            kdf,
            chunk_size: DEFAULT_CHUNK_SIZE,
            salt,
            nonce_prefix,
        }
    }
}

/// The keyed side of one file: its header and chunk cipher.
pub struct FileCipher {
    header: Header,
    chunks: ChunkCipher,
    batch_bytes: usize,
}

impl FileCipher {
    /// Keys a new file: derives the payload key and the key check.
    pub fn for_encryption(params: &EncryptParams, secret: Secret<'_>) -> Result<FileCipher> {
        if !(MIN_CHUNK_SIZE..=MAX_CHUNK_SIZE).contains(&params.chunk_size) {
            return Err(Error::InvalidParameter(
                "chunk size must be 1 KiB ..= 16 MiB",
            ));
        }
        let mut header = Header {
            algorithm: params.algorithm,
            kdf: params.kdf,
            chunk_size: params.chunk_size,
            salt: params.salt,
            nonce_prefix: params.nonce_prefix,
            key_check: [0; 16],
        };
        let payload = derive(&mut header, secret)?;
        let chunks = ChunkCipher::new(&header, &payload)?;
        Ok(FileCipher {
            header,
            chunks,
            batch_bytes: BATCH_BYTES,
        })
    }

    /// Keys an existing file from its parsed header. Error: [`Error::WrongKey`] when the key check
    /// does not match (checked in constant time).
    pub fn for_decryption(header: &Header, secret: Secret<'_>) -> Result<FileCipher> {
        let mut derived = header.clone();
        let payload = derive(&mut derived, secret)?;
        if !ct_eq(&derived.key_check, &header.key_check) {
            return Err(Error::WrongKey);
        }
        let chunks = ChunkCipher::new(header, &payload)?;
        Ok(FileCipher {
            header: header.clone(),
            chunks,
            batch_bytes: BATCH_BYTES,
        })
    }

    /// Sets the plaintext bytes per batch (rounded up to whole chunks, at least one chunk per thread;
    /// default [`BATCH_BYTES`]). Small batches let a CPU limit act often; the output is the same.
    pub fn set_batch_bytes(&mut self, bytes: usize) {
        self.batch_bytes = bytes;
    }

    /// The cipher and key of this file's key stream, for an external [`KeystreamSource`] (a GPU);
    /// `None` for XChaCha20-Poly1305. The key is secret (zeroized on drop).
    pub fn keystream_key(&self) -> Option<KeystreamKey> {
        self.chunks.keystream_key()
    }

    /// Takes every chunk's key stream from `source` (keyed from [`Self::keystream_key`]) from now on,
    /// computing and checking only the tags on the worker threads: the container bytes are exactly
    /// those of the CPU path. Raises the batch to at least [`KEYSTREAM_BATCH_BYTES`], so that each
    /// call of the source covers several MiB. Error: the AEAD cannot be split.
    pub fn set_keystream_source(&mut self, source: Box<dyn KeystreamSource>) -> Result<()> {
        self.chunks.set_keystream_source(source)?;
        self.batch_bytes = self.batch_bytes.max(KEYSTREAM_BATCH_BYTES);
        Ok(())
    }

    /// Whether the chunks take their key stream from an external source.
    pub fn has_keystream_source(&self) -> bool {
        self.chunks.has_keystream_source()
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Writes the header and the sealed chunks of everything `input` holds; returns the plaintext
    /// bytes read. `on_batch` gets the plaintext bytes of every job (batch) once it is written.
    /// With `threads > 1` the chunks are sealed on that many worker threads while this thread reads
    /// and writes (`super::jobs`); the output is the same for any thread count.
    pub fn encrypt<R: Read, W: Write>(
        &self,
        input: R,
        mut output: W,
        threads: usize,
        on_batch: &mut dyn FnMut(u64),
    ) -> Result<u64> {
        output
            .write_all(&self.header.to_bytes())
            .map_err(Error::Output)?;
        self.encrypt_range(0, true, input, output, threads, on_batch)
    }

    /// Seals the plaintext of chunks `first_chunk..` that `input` holds and writes them without a
    /// header: the bytes that [`Self::encrypt`] writes for those chunks of the same plaintext, so
    /// ranges sealed apart (on other threads, processes or machines, each with a cipher keyed from
    /// the same [`EncryptParams`] and secret) and concatenated in order after the header are the
    /// same file. With `last` the range ends the file: its final chunk (possibly empty) is sealed
    /// as final. Without it `input` must hold whole chunks, none of them final. Returns the
    /// plaintext bytes read; `on_batch` and `threads` as for [`Self::encrypt`]. Errors:
    /// [`Error::InvalidParameter`] for a non-final range that is not whole chunks, or one whose
    /// chunks would pass the format's 2^62 chunk indexes.
    pub fn encrypt_range<R: Read, W: Write>(
        &self,
        first_chunk: u64,
        last: bool,
        mut input: R,
        mut output: W,
        threads: usize,
        on_batch: &mut dyn FnMut(u64),
    ) -> Result<u64> {
        if first_chunk >= 1 << 62 {
            return Err(Error::InvalidParameter("chunk index out of range"));
        }
        let cs = self.chunks.chunk_size();
        let tag_len = self.chunks.tag_len();
        let job_chunks = job_chunks(self.batch_bytes, cs);
        let mut total = 0u64;
        jobs::run(
            threads,
            || Job::new(job_chunks * cs, job_chunks * tag_len),
            |job| {
                job.len = read_full(&mut input, &mut job.data).map_err(Error::Input)?;
                job.last = job.len < job.data.len();
                Ok(())
            },
            &|job| {
                let first = first_chunk + job.index * job_chunks as u64;
                self.chunks.seal_job(
                    first,
                    &mut job.data[..job.len],
                    job.last && last,
                    &mut job.tags,
                )
            },
            |job| {
                // Each chunk's ciphertext and then its tag, in one vectored write per job.
                let count = self.chunks.chunks_in_plain(job.len, job.last && last)?;
                let mut pieces = job.data[..job.len]
                    .chunks(cs)
                    .chain(std::iter::once(&[][..]));
                let tags = job.tags.chunks_exact(tag_len).take(count);
                // One small allocation per job (not per chunk): the slices borrow this job's buffers.
                let mut slices = Vec::with_capacity(2 * count);
                for tag in tags {
                    slices.push(IoSlice::new(pieces.next().unwrap_or_default()));
                    slices.push(IoSlice::new(tag));
                }
                write_all_vectored(&mut output, &mut slices).map_err(Error::Output)?;
                total += job.len as u64;
                on_batch(job.len as u64);
                Ok(())
            },
        )?;
        output.flush().map_err(Error::Output)?;
        Ok(total)
    }

    /// The chunk cipher of this file: seals and opens single jobs of chunks in place, for callers
    /// that drive the chunks themselves (a streaming writer or reader).
    pub fn chunk_cipher(&self) -> &ChunkCipher {
        &self.chunks
    }

    /// Reads the chunks that follow the header from `input`, verifies and decrypts them, and writes
    /// each job's plaintext only after all its tags (and those of every job before it) verified;
    /// returns the plaintext bytes written. Errors: [`Error::ChunkAuthentication`] (the first failing
    /// chunk), [`Error::Truncated`] when the input ends at a chunk boundary with no final chunk.
    /// `on_batch` gets the plaintext bytes of every job (batch) once it is written.
    pub fn decrypt<R: Read, W: Write>(
        &self,
        mut input: R,
        mut output: W,
        threads: usize,
        on_batch: &mut dyn FnMut(u64),
    ) -> Result<u64> {
        let slot = self.chunks.sealed_chunk_len();
        let tag_len = self.chunks.tag_len();
        let job_chunks = job_chunks(self.batch_bytes, self.chunks.chunk_size());
        let mut total = 0u64;
        jobs::run(
            threads,
            || Job::new(job_chunks * slot, 0),
            |job| {
                job.len = read_full(&mut input, &mut job.data).map_err(Error::Input)?;
                job.last = job.len < job.data.len();
                Ok(())
            },
            &|job| {
                let first = job.index * job_chunks as u64;
                let sealed = &mut job.data[..job.len];
                if job.last && sealed.len().is_multiple_of(slot) {
                    // Only full chunks (or nothing) before the end: the final chunk is gone. The
                    // chunks that are there are checked first, so damage is reported as such.
                    self.chunks.open_job(first, sealed, false)?;
                    return Err(Error::Truncated {
                        chunks: first + (sealed.len() / slot) as u64,
                    });
                }
                self.chunks.open_job(first, sealed, job.last)
            },
            |job| {
                // Every chunk's plaintext, skipping the tags, in one vectored write per job.
                let mut slices = Vec::with_capacity(job_chunks);
                let mut plain_len = 0;
                for sealed in job.data[..job.len].chunks(slot) {
                    let plain = &sealed[..sealed.len() - tag_len];
                    plain_len += plain.len();
                    slices.push(IoSlice::new(plain));
                }
                write_all_vectored(&mut output, &mut slices).map_err(Error::Output)?;
                total += plain_len as u64;
                on_batch(plain_len as u64);
                Ok(())
            },
        )?;
        output.flush().map_err(Error::Output)?;
        Ok(total)
    }
}

/// Fills `header.key_check` and returns the payload key.
fn derive(header: &mut Header, secret: Secret<'_>) -> Result<zeroize::Zeroizing<[u8; KEY_LEN]>> {
    let ikm = input_key(header.kdf, secret, &header.salt)?;
    let keys = file_keys(&ikm, &header.salt, &header.fields());
    header.key_check = keys.check;
    Ok(keys.payload)
}

/// Reads and parses the header at the start of `input`, consuming exactly its bytes.
pub fn read_header<R: Read>(mut input: R) -> Result<Header> {
    let mut bytes = [0u8; HEADER_LEN];
    let n = read_full(&mut input, &mut bytes).map_err(Error::Input)?;
    Header::parse(&bytes[..n])
}

/// Chunks per job: `batch_bytes` of plaintext rounded up to whole chunks, at least one.
fn job_chunks(batch_bytes: usize, chunk_size: usize) -> usize {
    batch_bytes.div_ceil(chunk_size).max(1)
}

/// Writes all of `slices` with vectored writes (`write_all_vectored` is not stable).
fn write_all_vectored<W: Write>(
    output: &mut W,
    mut slices: &mut [IoSlice<'_>],
) -> std::io::Result<()> {
    IoSlice::advance_slices(&mut slices, 0);
    while !slices.is_empty() {
        match output.write_vectored(slices) {
            Ok(0) => return Err(ErrorKind::WriteZero.into()),
            Ok(n) => IoSlice::advance_slices(&mut slices, n),
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
fn read_full<R: Read>(input: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}
