//! Errors as the `shifr` package raises them: one Python exception class per category of the CLI's
//! exit codes (docs/FORMAT.md), defined in `shifr/_errors.py` and built here by name.

use pyo3::prelude::*;
use shifr::container::Error as ContainerError;

/// A failure on its way to Python: the exception class (in `shifr._errors`) and the message.
#[derive(Debug)]
pub struct Failure {
    /// Class name in `shifr._errors`.
    pub class: &'static str,
    /// One line for the user.
    pub message: String,
}

/// `Result` of the binding's Rust side.
pub type Result<T> = std::result::Result<T, Failure>;

impl Failure {
    /// A failure of class `class`.
    pub fn new(class: &'static str, message: impl Into<String>) -> Failure {
        Failure {
            class,
            message: message.into(),
        }
    }

    /// A bad argument (`InvalidParameterError`, also a `ValueError`).
    pub fn invalid(message: impl Into<String>) -> Failure {
        Failure::new("InvalidParameterError", message)
    }

    /// An I/O failure on `path` (`ShifrIOError`, also an `OSError`).
    pub fn io(what: &str, path: &std::path::Path, e: &std::io::Error) -> Failure {
        Failure::new("ShifrIOError", format!("{what} {}: {e}", path.display()))
    }

    /// A container error, with `input` and `output` naming the paths of read and write failures.
    pub fn container(e: ContainerError, input: &str, output: &str) -> Failure {
        let class = match &e {
            ContainerError::NotShifr | ContainerError::BadHeader(_) => "NotShifrError",
            ContainerError::UnsupportedVersion(_) => "UnsupportedVersionError",
            ContainerError::WrongKey | ContainerError::WrongSecretKind { .. } => "WrongKeyError",
            ContainerError::Truncated { .. } => "TruncatedError",
            ContainerError::ChunkAuthentication(_) => "AuthenticationError",
            ContainerError::Input(_) | ContainerError::Output(_) => "ShifrIOError",
            ContainerError::InvalidParameter(_)
            | ContainerError::KdfMemory(_)
            | ContainerError::Crypto(_) => "InvalidParameterError",
        };
        let message = match &e {
            ContainerError::Input(io) => format!("reading {input}: {io}"),
            ContainerError::Output(io) => format!("writing {output}: {io}"),
            ContainerError::NotShifr
            | ContainerError::BadHeader(_)
            | ContainerError::UnsupportedVersion(_)
            | ContainerError::Truncated { .. }
            | ContainerError::ChunkAuthentication(_)
                if !input.is_empty() =>
            {
                format!("{input}: {e}")
            }
            _ => e.to_string(),
        };
        Failure::new(class, message)
    }

    /// A primitive's error (a bad key, nonce or tag length).
    pub fn crypto(e: shifr::Error) -> Failure {
        Failure::invalid(e.to_string())
    }
}

impl From<Failure> for PyErr {
    fn from(f: Failure) -> PyErr {
        Python::attach(|py| {
            let made = py
                .import("shifr._errors")
                .and_then(|m| m.getattr("make"))
                .and_then(|make| make.call1((f.class, f.message.as_str())));
            match made {
                Ok(exc) => PyErr::from_value(exc),
                Err(e) => e,
            }
        })
    }
}
