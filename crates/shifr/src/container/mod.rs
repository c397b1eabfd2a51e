//! The shifr container: authenticated streaming encryption of files, pipes and disk images
//! (docs/FORMAT.md is the specification).
//!
//! An 80-byte [`header`] names the AEAD, the KDF and its parameters, the chunk size, a salt and a nonce
//! prefix, and ends with a key check. The input key material (Argon2id over a passphrase, or a key file)
//! goes through HKDF-SHA256 with the salt and the header fields to give the per-file payload key
//! ([`kdf`]). The body is a sequence of chunks, each sealed with the AEAD, the whole header as
//! associated data and a nonce made of the chunk counter and a last-chunk flag (the STREAM
//! construction, [`nonce`], [`stream`]); dropping, duplicating, reordering, truncating or extending
//! chunks is detected. [`pipeline`] runs it over any `Read` / `Write` with parallel batches.
//!
//! The library takes its randomness (salt, nonce prefix) from the caller and opens no files.

pub mod algorithm;
pub mod error;
pub mod header;
mod jobs;
pub mod kdf;
pub mod nonce;
pub mod pipeline;
pub mod stream;

pub use crate::aead::keystream::{CpuKeystream, KeystreamCipher, KeystreamKey, KeystreamSource};
pub use algorithm::Algorithm;
pub use error::{Error, Result};
pub use header::Header;
pub use kdf::{Kdf, Secret};
pub use pipeline::{read_header, EncryptParams, FileCipher, KEYSTREAM_BATCH_BYTES};
