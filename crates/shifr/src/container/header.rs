//! The 80-byte container header: its layout, serialisation and validating parser.
//!
//! ```text
//! offset  size  field
//!      0     6  magic "shifr\0"
//!      6     1  format version (1)
//!      7     1  AEAD id (Algorithm)
//!      8     1  KDF id: 1 = Argon2id over a passphrase, 2 = key file (HKDF only)
//!      9     1  flags, 0
//!     10     4  chunk size in bytes, little-endian (1 KiB ..= 16 MiB)
//!     14    12  KDF parameters: Argon2id m (KiB), t, p as three little-endian u32; zero for a key file
//!     26    16  salt
//!     42    16  nonce prefix
//!     58     6  reserved, 0
//!     64    16  key check: HKDF-Expand(PRK, "shifr v1 key check" || bytes 0..64)
//! ```

use super::algorithm::Algorithm;
use super::error::{Error, Result};
use super::kdf::Kdf;

/// The first six bytes of every container.
pub const MAGIC: [u8; 6] = *b"shifr\0";
/// The one format version this build writes and reads.
pub const VERSION: u8 = 1;
/// Bytes of the header fields that the keys are derived over (everything but the key check).
pub const FIELDS_LEN: usize = 64;
/// Bytes of the whole header.
pub const HEADER_LEN: usize = FIELDS_LEN + KEY_CHECK_LEN;
/// Bytes of the key check.
pub const KEY_CHECK_LEN: usize = 16;
/// Smallest chunk size the format allows.
pub const MIN_CHUNK_SIZE: u32 = 1024;
/// Largest chunk size: keeps every chunk far inside each AEAD's per-message limit (Magma-MGM:
/// 2^32 bits including the header) and the buffers of a batch modest.
pub const MAX_CHUNK_SIZE: u32 = 16 << 20;
/// The default chunk size.
pub const DEFAULT_CHUNK_SIZE: u32 = 64 << 10;

const KDF_ARGON2ID: u8 = 1;
const KDF_KEY_FILE: u8 = 2;

/// A parsed (or to-be-written) header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The AEAD sealing every chunk.
    pub algorithm: Algorithm,
    /// How the input key material is made.
    pub kdf: Kdf,
    /// Plaintext bytes per chunk (the final chunk holds fewer).
    pub chunk_size: u32,
    /// Salt of Argon2id and HKDF.
    pub salt: [u8; 16],
    /// Random per-file nonce prefix (docs/FORMAT.md says which bytes each AEAD uses).
    pub nonce_prefix: [u8; 16],
    /// Proves the key before any chunk is opened.
    pub key_check: [u8; KEY_CHECK_LEN],
}

impl Header {
    /// The 64 bytes of fields the keys and the key check are derived over.
    pub fn fields(&self) -> [u8; FIELDS_LEN] {
        let mut f = [0u8; FIELDS_LEN];
        f[..6].copy_from_slice(&MAGIC);
        f[6] = VERSION;
        f[7] = self.algorithm.id();
        let (kdf_id, params) = match self.kdf {
            Kdf::Argon2id { m_kib, t, p } => (KDF_ARGON2ID, [m_kib, t, p]),
            Kdf::KeyFile => (KDF_KEY_FILE, [0, 0, 0]),
        };
        f[8] = kdf_id;
        f[10..14].copy_from_slice(&self.chunk_size.to_le_bytes());
        for (i, v) in params.iter().enumerate() {
            f[14 + 4 * i..18 + 4 * i].copy_from_slice(&v.to_le_bytes());
        }
        f[26..42].copy_from_slice(&self.salt);
        f[42..58].copy_from_slice(&self.nonce_prefix);
        f
    }

    /// The whole serialised header.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[..FIELDS_LEN].copy_from_slice(&self.fields());
        h[FIELDS_LEN..].copy_from_slice(&self.key_check);
        h
    }

    /// Parses and validates a header from the start of `bytes` (extra bytes are ignored).
    /// Errors: [`Error::NotShifr`] for a wrong magic, [`Error::UnsupportedVersion`],
    /// [`Error::BadHeader`] for anything else out of range or missing.
    pub fn parse(bytes: &[u8]) -> Result<Header> {
        let magic_seen = &bytes[..bytes.len().min(MAGIC.len())];
        if magic_seen != &MAGIC[..magic_seen.len()] || bytes.is_empty() {
            return Err(Error::NotShifr);
        }
        if bytes.len() < MAGIC.len() + 1 {
            return Err(Error::BadHeader("the header is cut short"));
        }
        if bytes[6] != VERSION {
            return Err(Error::UnsupportedVersion(bytes[6]));
        }
        if bytes.len() < HEADER_LEN {
            return Err(Error::BadHeader("the header is cut short"));
        }
        let algorithm = Algorithm::from_id(bytes[7]).ok_or(Error::BadHeader("unknown AEAD id"))?;
        if bytes[9] != 0 {
            return Err(Error::BadHeader("unknown flags"));
        }
        if bytes[58..64].iter().any(|&b| b != 0) {
            return Err(Error::BadHeader("reserved bytes are not zero"));
        }
        let u32_at = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let chunk_size = u32_at(10);
        if !(MIN_CHUNK_SIZE..=MAX_CHUNK_SIZE).contains(&chunk_size) {
            return Err(Error::BadHeader("chunk size out of range"));
        }
        let params = [u32_at(14), u32_at(18), u32_at(22)];
        let kdf = match bytes[8] {
            KDF_ARGON2ID => {
                let kdf = Kdf::Argon2id {
                    m_kib: params[0],
                    t: params[1],
                    p: params[2],
                };
                kdf.validate()
                    .map_err(|_| Error::BadHeader("Argon2id parameters out of range"))?;
                kdf
            }
            KDF_KEY_FILE if params == [0, 0, 0] => Kdf::KeyFile,
            KDF_KEY_FILE => return Err(Error::BadHeader("key-file KDF with parameters")),
            _ => return Err(Error::BadHeader("unknown KDF id")),
        };
        let mut salt = [0u8; 16];
        salt.copy_from_slice(&bytes[26..42]);
        let mut nonce_prefix = [0u8; 16];
        nonce_prefix.copy_from_slice(&bytes[42..58]);
        let mut key_check = [0u8; KEY_CHECK_LEN];
        key_check.copy_from_slice(&bytes[FIELDS_LEN..HEADER_LEN]);
        Ok(Header {
            algorithm,
            kdf,
            chunk_size,
            salt,
            nonce_prefix,
            key_check,
        })
    }
}
