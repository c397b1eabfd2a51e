//! The one error type of the GPU backend.

use std::fmt;

/// Why a GPU operation did not run.
#[derive(Debug)]
pub enum GpuError {
    /// No usable device: no CUDA driver / device and no OpenCL platform / device (the text says which).
    NoDevice(String),
    /// The CUDA driver or the OpenCL runtime returned an error.
    Api(String),
    /// NVRTC or the OpenCL compiler rejected the kernels (the build log follows).
    Compile(String),
    /// The request itself is invalid (key, IV or length), as the CPU library would also report.
    Invalid(shifr::Error),
}

/// Result of the GPU backend.
pub type Result<T> = std::result::Result<T, GpuError>;

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuError::NoDevice(why) => write!(f, "no GPU: {why}"),
            GpuError::Api(what) => write!(f, "GPU runtime error: {what}"),
            GpuError::Compile(log) => write!(f, "GPU kernel compilation failed:\n{log}"),
            GpuError::Invalid(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for GpuError {}

impl From<shifr::Error> for GpuError {
    fn from(e: shifr::Error) -> Self {
        GpuError::Invalid(e)
    }
}
