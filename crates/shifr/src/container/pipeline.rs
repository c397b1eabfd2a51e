//! Whole-file encryption and decryption over any `Read` / `Write`: reads a batch of chunks, seals or
//! opens it on the worker threads, writes it, and reports progress after every batch (the caller
//! throttles CPU or draws a progress bar there). Decryption writes only chunks whose tags verified.

use super::algorithm::{Algorithm, KEY_LEN};
use super::error::{Error, Result};
use super::header::{Header, DEFAULT_CHUNK_SIZE, HEADER_LEN, MAX_CHUNK_SIZE, MIN_CHUNK_SIZE};
use super::kdf::{file_keys, input_key, Kdf, Secret};
use super::stream::ChunkCipher;
use crate::util::ct_eq;
use std::io::{ErrorKind, Read, Write};

/// Default plaintext bytes per batch: large sequential reads and writes, many chunks per thread.
pub const BATCH_BYTES: usize = 4 << 20;

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

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Writes the header and the sealed chunks of everything `input` holds; returns the plaintext
    /// bytes read. `on_batch` gets the plaintext bytes of every batch once it is written.
    pub fn encrypt<R: Read, W: Write>(
        &self,
        mut input: R,
        mut output: W,
        threads: usize,
        on_batch: &mut dyn FnMut(u64),
    ) -> Result<u64> {
        output
            .write_all(&self.header.to_bytes())
            .map_err(Error::Output)?;
        let cs = self.chunks.chunk_size();
        let batch_chunks = batch_chunks(self.batch_bytes, cs, threads);
        let mut plain = vec![0u8; batch_chunks * cs];
        let mut sealed = Vec::with_capacity(batch_chunks * self.chunks.sealed_chunk_len());
        let mut counter = 0u64;
        let mut total = 0u64;
        loop {
            let n = read_full(&mut input, &mut plain).map_err(Error::Input)?;
            let last = n < plain.len();
            self.chunks
                .seal_batch(counter, &plain[..n], last, &mut sealed, threads)?;
            output.write_all(&sealed).map_err(Error::Output)?;
            counter += (n / cs) as u64;
            total += n as u64;
            on_batch(n as u64);
            if last {
                break;
            }
        }
        output.flush().map_err(Error::Output)?;
        Ok(total)
    }

    /// Reads the chunks that follow the header from `input`, verifies and decrypts them, and writes
    /// each batch's plaintext only after all its tags verified; returns the plaintext bytes written.
    /// Errors: [`Error::ChunkAuthentication`] (the first failing chunk), [`Error::Truncated`] when the
    /// input ends at a chunk boundary with no final chunk. `on_batch` gets the plaintext bytes of
    /// every batch once it is written.
    pub fn decrypt<R: Read, W: Write>(
        &self,
        mut input: R,
        mut output: W,
        threads: usize,
        on_batch: &mut dyn FnMut(u64),
    ) -> Result<u64> {
        let slot = self.chunks.sealed_chunk_len();
        let batch_chunks = batch_chunks(self.batch_bytes, self.chunks.chunk_size(), threads);
        let mut buf = vec![0u8; batch_chunks * slot];
        let mut counter = 0u64;
        let mut total = 0u64;
        loop {
            let n = read_full(&mut input, &mut buf).map_err(Error::Input)?;
            let last = n < buf.len();
            if last && n.is_multiple_of(slot) {
                // Only full chunks (or nothing) before the end: the final chunk is gone.
                let full = (n / slot) as u64;
                self.chunks
                    .open_batch(counter, &mut buf[..n], false, threads)?;
                return Err(Error::Truncated {
                    chunks: counter + full,
                });
            }
            let plain_len = self
                .chunks
                .open_batch(counter, &mut buf[..n], last, threads)?;
            output.write_all(&buf[..plain_len]).map_err(Error::Output)?;
            counter += (n / slot) as u64;
            total += plain_len as u64;
            on_batch(plain_len as u64);
            if last {
                break;
            }
        }
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

/// Chunks per batch: `batch_bytes` of plaintext rounded up, and at least one chunk per thread.
fn batch_chunks(batch_bytes: usize, chunk_size: usize, threads: usize) -> usize {
    batch_bytes.div_ceil(chunk_size).max(threads).max(1)
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
