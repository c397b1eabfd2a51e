//! Exit codes of the container commands (docs/FORMAT.md, `shifr decrypt --help`): each failure a user
//! must tell apart has its own code; the error itself is printed as one line by [`report::error`].

use crate::report;
use shifr::container::Error;
use std::process::ExitCode;

/// Any other failure (bad option value, output exists, ...).
pub const OTHER: u8 = 1;
/// Not a shifr file, or a malformed header.
pub const NOT_SHIFR: u8 = 3;
/// A shifr file of a format version this build does not read.
pub const UNSUPPORTED_VERSION: u8 = 4;
/// Wrong key or passphrase (or an altered header).
pub const WRONG_KEY: u8 = 5;
/// Truncated: the final chunk is missing.
pub const TRUNCATED: u8 = 6;
/// A chunk failed authentication.
pub const CHUNK_AUTH: u8 = 7;
/// Reading or writing a file failed.
pub const IO: u8 = 8;

/// The exit code for an error: the first container error or I/O error in its chain decides.
pub fn code_for(e: &anyhow::Error) -> u8 {
    for cause in e.chain() {
        if let Some(ce) = cause.downcast_ref::<Error>() {
            return match ce {
                Error::NotShifr | Error::BadHeader(_) => NOT_SHIFR,
                Error::UnsupportedVersion(_) => UNSUPPORTED_VERSION,
                Error::WrongKey | Error::WrongSecretKind { .. } => WRONG_KEY,
                Error::Truncated { .. } => TRUNCATED,
                Error::ChunkAuthentication(_) => CHUNK_AUTH,
                Error::Input(_) | Error::Output(_) => IO,
                Error::InvalidParameter(_) | Error::KdfMemory(_) | Error::Crypto(_) => OTHER,
            };
        }
        if cause.is::<std::io::Error>() {
            return IO;
        }
    }
    OTHER
}

/// Reports a failed command on stderr and turns the result into the exit code.
pub fn finish(result: anyhow::Result<()>) -> anyhow::Result<ExitCode> {
    match result {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) => {
            report::error(&e);
            Ok(ExitCode::from(code_for(&e)))
        }
    }
}
