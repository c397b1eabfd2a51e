//! The library's one error type. Every fallible call returns it; nothing panics on bad input.

/// Errors returned by shifr's primitives, modes and AEADs.
///
/// New variants may be added in a minor release: a `match` outside this crate needs a `_` arm.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The key has the wrong number of bytes.
    #[error("invalid key length: {got} bytes (expected {expected})")]
    InvalidKeyLength { expected: &'static str, got: usize },
    /// The IV (or initial counter block / shift register) has the wrong number of bytes.
    #[error("invalid IV length: {got} bytes (expected {expected})")]
    InvalidIvLength { expected: &'static str, got: usize },
    /// The nonce has the wrong number of bytes.
    #[error("invalid nonce length: {got} bytes (expected {expected})")]
    InvalidNonceLength { expected: &'static str, got: usize },
    /// The requested or supplied tag length is not supported.
    #[error("invalid tag length: {got} bytes (expected {expected})")]
    InvalidTagLength { expected: &'static str, got: usize },
    /// A mode without padding was given data that is not a whole number of blocks.
    #[error("data length {got} is not a multiple of the {block}-byte block")]
    NotBlockAligned { block: usize, got: usize },
    /// Padding did not verify on decryption.
    #[error("bad padding")]
    BadPadding,
    /// An authentication tag did not verify; no plaintext was released.
    #[error("authentication failed: tag mismatch")]
    AuthenticationFailed,
    /// A mode parameter (segment size, register size, section size, ...) is out of range.
    #[error("invalid parameter: {0}")]
    InvalidParameter(&'static str),
    /// The message is longer than the algorithm allows (e.g. the ChaCha20 32-bit block counter would wrap).
    #[error("message too long for this algorithm: {0}")]
    LengthLimit(&'static str),
    /// The algorithm name is not one shifr knows.
    #[error("unknown algorithm '{0}' (see `shifr list`)")]
    UnknownAlgorithm(String),
    /// The requested backend is not available on this CPU or for this algorithm.
    #[error("backend '{0}' is not available here")]
    BackendUnavailable(&'static str),
    /// A fault inside shifr, not in the caller's input: a worker thread of a parallel job panicked
    /// (a bug). The job's output is incomplete and must not be used.
    #[error("internal error: {0}")]
    Internal(&'static str),
}

/// `Result` with shifr's [`Error`].
pub type Result<T> = core::result::Result<T, Error>;
