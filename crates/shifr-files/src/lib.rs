//! How the shifr tools (the `shifr` command and the Python package) write files, in one place so that
//! both keep the same promises: an output appears under its final name only when complete
//! ([`AtomicOutput`]), a killed process leaves nothing behind, an existing file is replaced only when
//! asked, and only a regular file is ever replaced: a FIFO or a device node is never turned into a
//! file ([`OutputError::NotRegular`]).

mod atomic;
pub mod kdf_limit;
pub mod tune_cache;
#[cfg(target_os = "linux")]
mod unnamed;

pub use atomic::AtomicOutput;
use std::path::PathBuf;

/// Why an output could not be created or completed. Each message names the path.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OutputError {
    /// The target exists and replacing it was not asked for.
    #[error("{} exists", .0.display())]
    Exists(PathBuf),
    /// The target appeared while the output was written; it was not replaced.
    #[error("{} appeared while writing; not replaced", .0.display())]
    AppearedWhileWriting(PathBuf),
    /// The target is a directory.
    #[error("{} is a directory", .0.display())]
    IsDirectory(PathBuf),
    /// The target exists and is not a regular file (a FIFO, a device, a socket): never replaced.
    #[error("{} is not a regular file; only regular files are ever replaced", .0.display())]
    NotRegular(PathBuf),
    /// The path has no file name (`/`, `..`).
    #[error("{} does not name a file", .0.display())]
    NoFileName(PathBuf),
    /// A system call failed.
    #[error("{what} {}: {source}", .path.display())]
    Io {
        /// What was being done ("cannot create a temporary file in", "cannot write", ...).
        what: &'static str,
        /// The path it was done to.
        path: PathBuf,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
}

/// `Result` with [`OutputError`].
pub type Result<T> = std::result::Result<T, OutputError>;

fn io_error(
    what: &'static str,
    path: &std::path::Path,
) -> impl FnOnce(std::io::Error) -> OutputError {
    let path = path.to_path_buf();
    move |source| OutputError::Io { what, path, source }
}
