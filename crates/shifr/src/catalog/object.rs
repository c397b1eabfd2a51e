//! The objects a catalogue entry carries, rustls-style: one small trait per kind of algorithm
//! (block mode, stream cipher, AEAD, MAC), each implemented beside its algorithm, keyed once and
//! then serving many messages.
//!
//! An entry's [`Algorithm`] keys the primitive ([`Setup`] holds everything decided at keying: the
//! tag length, the ACPKM sections, a forced backend, a [`crate::parallel::Engine`] to spread large
//! messages over threads); the keyed object then runs one message per call with no further
//! dispatch on the algorithm, so a benchmark or a server pays the key schedule once.

use crate::aead::Aead;
use crate::cpu::Backend;
use crate::parallel::Engine;
use crate::Result;

/// What keys an entry: one trait object per kind of algorithm.
#[derive(Debug, Clone, Copy)]
pub enum Algorithm {
    /// A block cipher in a mode of operation without authentication.
    BlockMode(&'static dyn BlockModeAlgorithm),
    /// A stream cipher.
    Stream(&'static dyn StreamAlgorithm),
    /// An AEAD.
    Aead(&'static dyn AeadAlgorithm),
    /// A MAC.
    Mac(&'static dyn MacAlgorithm),
}

impl Algorithm {
    /// Whether a [`Setup::engine`] splits one message of this algorithm over threads (modes
    /// without feedback and the AEADs built on them); the others run each message on the calling
    /// thread whatever the engine.
    pub fn splits(self) -> bool {
        match self {
            Algorithm::BlockMode(a) => a.splits(),
            Algorithm::Stream(a) => a.splits(),
            Algorithm::Aead(a) => a.splits(),
            Algorithm::Mac(_) => false,
        }
    }
}

/// Everything fixed when an entry is keyed. [`super::AlgInfo`] fills it from the entry's defaults
/// and the caller's [`super::Options`].
#[derive(Debug, Clone)]
pub struct Setup {
    /// The backend to run on; one the primitive does not offer here falls back to its default, as
    /// [`crate::cpu::select`] does (the keyed object reports which one runs). `None`: the default.
    pub backend: Option<Backend>,
    /// Tag length in bytes (AEADs and MACs).
    pub tag_len: usize,
    /// CTR-ACPKM key change period, OMAC-ACPKM message section `N`, in bytes.
    pub section: usize,
    /// OMAC-ACPKM: the section `T*` of the run that derives the section keys, in bytes.
    pub master_section: usize,
    /// Spreads each large message over threads, for the algorithms that [`Algorithm::splits`].
    pub engine: Option<Engine>,
}

/// A block cipher in a mode of operation.
pub trait BlockModeAlgorithm: core::fmt::Debug + Sync {
    /// The mode keyed with `key`.
    fn key(&self, key: &[u8], setup: &Setup) -> Result<Box<dyn Cipher>>;

    /// One keyed instance per stream, run side by side (`None`: the mode has no multi-stream form).
    fn key_streams(&self, keys: &[&[u8]], setup: &Setup) -> Result<Option<Box<dyn MultiStream>>>;

    /// See [`Algorithm::splits`].
    fn splits(&self) -> bool;
}

/// A keyed block mode (no padding: the catalogue pads around it).
pub trait Cipher: Send + Sync {
    /// Encrypts `data` in place from the IV (or register, or initial counter block) `iv`.
    fn encrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()>;

    /// Decrypts `data` in place from `iv`.
    fn decrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()>;

    /// [`Cipher::encrypt`] that leaves in `register` what continues the chain, so that messages
    /// sent one after the other form one chain as in an OpenSSL `EVP_CIPHER_CTX`: the last `m`
    /// bytes of `register || ciphertext` (CBC, CFB), of the key stream (OFB). Modes without
    /// feedback leave `register` as it is (every message starts from it).
    fn encrypt_chained(&self, register: &mut [u8], data: &mut [u8]) -> Result<()>;

    /// [`Cipher::decrypt`] continuing the chain as [`Cipher::encrypt_chained`] does.
    fn decrypt_chained(&self, register: &mut [u8], data: &mut [u8]) -> Result<()>;

    /// The backend that runs (`"aesni"`, `"portable"`, ...).
    fn backend(&self) -> &'static str;

    /// Bytes of key schedule and per-key tables this instance holds
    /// ([`crate::block::BlockCipher::state_bytes`]).
    fn state_bytes(&self) -> usize;
}

/// Many independently keyed streams of one algorithm, processed side by side in one call.
pub trait MultiStream: Send + Sync {
    /// Encrypts `data[i]` in place under key `i` from `ivs[i]` (block modes).
    fn encrypt(&self, ivs: &[&[u8]], data: &mut [&mut [u8]]) -> Result<()>;

    /// Decrypts `data[i]` in place under key `i` from `ivs[i]` (block modes).
    fn decrypt(&self, ivs: &[&[u8]], data: &mut [&mut [u8]]) -> Result<()>;

    /// The tag of `msgs[i]` under key `i` (MACs).
    fn tag(&self, msgs: &[&[u8]]) -> Result<Vec<Vec<u8>>>;

    /// The backend that runs.
    fn backend(&self) -> &'static str;
}

/// A stream cipher.
pub trait StreamAlgorithm: core::fmt::Debug + Sync {
    /// The key stream of `key` and `iv`, from its start.
    fn start(&self, key: &[u8], iv: &[u8], setup: &Setup) -> Result<Box<dyn KeyStream>>;

    /// See [`Algorithm::splits`].
    fn splits(&self) -> bool;
}

/// A running key stream: each call continues where the last one stopped.
pub trait KeyStream: Send {
    /// XORs the next `data.len()` bytes of key stream into `data`.
    fn apply(&mut self, data: &mut [u8]) -> Result<()>;

    /// Bytes left before the counter would wrap.
    fn remaining_bytes(&self) -> u64;

    /// The backend that runs.
    fn backend(&self) -> &'static str;

    /// Bytes of key material and buffered key stream this instance holds (the default: its own
    /// size, right for a cipher that keeps everything inline).
    fn state_bytes(&self) -> usize {
        core::mem::size_of_val(self)
    }
}

/// An authenticated cipher.
pub trait AeadAlgorithm: core::fmt::Debug + Sync {
    /// The AEAD keyed with `key`, with the tag length `setup.tag_len`.
    fn key(&self, key: &[u8], setup: &Setup) -> Result<Box<dyn KeyedAead>>;

    /// See [`Algorithm::splits`].
    fn splits(&self) -> bool {
        true
    }
}

/// A keyed AEAD ([`Aead::seal`] and [`Aead::open`] in place with a detached tag).
pub trait KeyedAead: Aead {
    /// The backend that runs.
    fn backend(&self) -> &'static str;

    /// Bytes of key schedule and per-key tables this instance holds.
    fn state_bytes(&self) -> usize;
}

/// A message authentication code.
pub trait MacAlgorithm: core::fmt::Debug + Sync {
    /// The MAC keyed with `key`, giving `setup.tag_len`-byte tags.
    fn key(&self, key: &[u8], setup: &Setup) -> Result<Box<dyn Mac>>;

    /// One keyed instance per stream (`None`: no multi-stream form).
    fn key_streams(&self, keys: &[&[u8]], setup: &Setup) -> Result<Option<Box<dyn MultiStream>>>;
}

/// A keyed MAC.
pub trait Mac: Send + Sync {
    /// Writes the tag of `msg` into `tag` (the tag length chosen at keying).
    fn tag(&self, msg: &[u8], tag: &mut [u8]) -> Result<()>;

    /// Tag length in bytes.
    fn tag_len(&self) -> usize;

    /// The backend that runs.
    fn backend(&self) -> &'static str;

    /// Bytes of key schedule and per-key tables this instance holds.
    fn state_bytes(&self) -> usize;
}
