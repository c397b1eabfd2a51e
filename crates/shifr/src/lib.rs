//! shifr: batch-first symmetric encryption.
//!
//! Which door to use:
//!
//! - **[`aead`]**: authenticated encryption of messages in memory (AES-GCM, ChaCha20-Poly1305,
//!   XChaCha20-Poly1305, Kuznyechik-MGM, Magma-MGM) through the [`aead::Aead`] trait; a tag is
//!   compared only in constant time ([`aead::Tag::ct_eq`]).
//! - **[`container`]**: files and streams of any size: the chunked, authenticated shifr format
//!   (docs/FORMAT.md) with a key or a passphrase, spread over threads.
//! - **[`catalog`]**: every algorithm by its OpenSSL-style name (`aes-256-gcm`, `magma-ctr`, ...),
//!   with its sizes and one uniform call, for tools that take names from users.
//! - [`parallel`] runs large and multi-stream jobs on many threads; [`cpu`] says which backend
//!   runs on this CPU and why.
//! - **[`hazmat`]**: the raw primitives (block ciphers, unauthenticated modes, key streams, MACs)
//!   for interoperability and tests. Misuse there is silent.
//!
//! Every primitive works on many blocks (or many independent streams) per call, so that SIMD and
//! GPU backends plug in behind the same calls. The library does no I/O.
//!
//! ```
//! use shifr::aead::{chacha20poly1305::ChaCha20Poly1305, Aead};
//!
//! let key = [0x42u8; 32];
//! let nonce = [7u8; 12]; // never twice under one key
//! let aead = ChaCha20Poly1305::new(&key)?;
//! let mut message = *b"attack at dawn";
//! let tag = aead.seal(&nonce, b"header", &mut message)?;
//! assert_ne!(&message, b"attack at dawn");
//! aead.open(&nonce, b"header", &mut message, tag.as_ref())?;
//! assert_eq!(&message, b"attack at dawn");
//! # Ok::<(), shifr::Error>(())
//! ```

#![forbid(unsafe_op_in_unsafe_fn)]

pub mod aead;
mod block;
pub mod catalog;
pub mod container;
pub mod cpu;
pub mod error;
pub mod hazmat;
mod mac;
mod mode;
pub mod parallel;
mod stream;
mod util;
mod wipe;
#[cfg(target_arch = "x86_64")]
mod x86_shift;
#[cfg(target_arch = "x86_64")]
mod x86_u128;

pub use error::{Error, Result};
