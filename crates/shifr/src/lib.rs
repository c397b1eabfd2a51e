//! shifr: batch-first symmetric encryption.
//!
//! Every primitive works on many blocks (or many independent streams) per call, so that SIMD and GPU
//! backends can be plugged in behind the same calls. The library does no I/O.
//!
//! Layout: [`block`] holds block ciphers, [`stream`] stream ciphers, [`mac`] message authentication
//! codes, [`mode`] the modes of operation (including multi-stream feedback modes), [`aead`] the
//! authenticated ciphers, [`catalog`] the OpenSSL-style algorithm names used by the tools, and [`cpu`]
//! the one place where backends are chosen, and [`parallel`] spreads large and multi-stream jobs over
//! threads.

#![forbid(unsafe_op_in_unsafe_fn)]

pub mod aead;
pub mod block;
pub mod catalog;
pub mod container;
pub mod cpu;
pub mod error;
pub mod mac;
pub mod mode;
pub mod parallel;
pub mod stream;
pub mod util;
#[cfg(target_arch = "x86_64")]
mod x86_shift;
#[cfg(target_arch = "x86_64")]
mod x86_u128;

pub use error::{Error, Result};
