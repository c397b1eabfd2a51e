//! The container's error type: one variant per thing a user must be told apart (docs/FORMAT.md lists
//! the matching exit codes of the `shifr` tool).

/// Errors of the shifr container format.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input does not start with the shifr magic.
    #[error("not a shifr file")]
    NotShifr,
    /// The magic is right but the format version is not one this build reads.
    #[error("unsupported shifr format version {0} (this build reads version 1)")]
    UnsupportedVersion(u8),
    /// A header field is out of range or the header is cut short.
    #[error("malformed shifr header: {0}")]
    BadHeader(&'static str),
    /// The key check in the header does not match the derived key: wrong key or passphrase, or an
    /// altered header (the two cannot be told apart, by design).
    #[error("wrong key or passphrase (or the header was altered)")]
    WrongKey,
    /// A passphrase was given for a key-file container or the other way round.
    #[error("this file was encrypted with a {expected}; give that instead")]
    WrongSecretKind {
        /// What the header asks for: "passphrase" or "key file".
        expected: &'static str,
    },
    /// The input ends at a chunk boundary without the final chunk: data was cut off.
    #[error("truncated: the final chunk is missing after {chunks} chunks")]
    Truncated {
        /// Chunks that verified before the end of the input.
        chunks: u64,
    },
    /// Chunk `index` (counting from 0) did not verify: corrupted, reordered, cut, or extended.
    #[error("chunk {0} failed authentication")]
    ChunkAuthentication(u64),
    /// The memory Argon2id needs (bytes) could not be allocated.
    #[error("cannot allocate the {} MiB of memory that the file's Argon2id parameters ask for", .0 >> 20)]
    KdfMemory(u64),
    /// A parameter given to the encryptor is out of range.
    #[error("invalid parameter: {0}")]
    InvalidParameter(&'static str),
    /// Reading the input failed.
    #[error("read failed: {0}")]
    Input(#[source] std::io::Error),
    /// Writing the output failed.
    #[error("write failed: {0}")]
    Output(#[source] std::io::Error),
    /// A primitive refused its input (a length limit, an unusable key).
    #[error(transparent)]
    Crypto(#[from] crate::Error),
}

/// `Result` with the container's [`Error`].
pub type Result<T> = core::result::Result<T, Error>;
