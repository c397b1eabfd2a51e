//! Key derivation: Argon2id turns a passphrase into input key material (a key file is used as is), and
//! HKDF-SHA256 turns that into the per-file payload key and the header's key check. The payload key is
//! never the raw key: it depends on the salt and on every header field.

use super::algorithm::KEY_LEN;
use super::error::{Error, Result};
use super::header::{FIELDS_LEN, KEY_CHECK_LEN};
use hkdf::Hkdf;
use sha2::Sha256;
use zeroize::Zeroizing;

/// HKDF info prefix of the payload key (followed by the 64 header field bytes).
pub const PAYLOAD_INFO: &[u8] = b"shifr v1 payload";
/// HKDF info prefix of the key check (followed by the 64 header field bytes).
pub const KEY_CHECK_INFO: &[u8] = b"shifr v1 key check";

/// Largest Argon2id memory a header may ask for (4 GiB), so that a hostile file cannot make the
/// decryptor allocate without bound.
pub const MAX_ARGON2_M_KIB: u32 = 4 << 20;
/// Largest Argon2id pass count a header may ask for.
pub const MAX_ARGON2_T: u32 = 64;
/// Largest Argon2id lane count a header may ask for.
pub const MAX_ARGON2_P: u32 = 64;

/// How the input key material is obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kdf {
    /// Argon2id (RFC 9106, version 0x13) over a passphrase: memory `m_kib` KiB, `t` passes, `p` lanes.
    Argon2id {
        /// Memory in KiB.
        m_kib: u32,
        /// Passes.
        t: u32,
        /// Lanes.
        p: u32,
    },
    /// A 32-byte key file, used directly as HKDF input.
    KeyFile,
}

impl Kdf {
    /// The default passphrase setting: Argon2id with 64 MiB, 3 passes, 1 lane.
    pub const DEFAULT_ARGON2ID: Kdf = Kdf::Argon2id {
        m_kib: 64 << 10,
        t: 3,
        p: 1,
    };

    /// Checks Argon2id parameters against RFC 9106's rules and shifr's upper bounds.
    pub fn validate(self) -> Result<()> {
        if let Kdf::Argon2id { m_kib, t, p } = self {
            let ok = (1..=MAX_ARGON2_P).contains(&p)
                && (1..=MAX_ARGON2_T).contains(&t)
                && m_kib >= 8 * p
                && m_kib <= MAX_ARGON2_M_KIB;
            if !ok {
                return Err(Error::InvalidParameter("Argon2id parameters out of range"));
            }
        }
        Ok(())
    }
}

/// The secret a user supplies.
#[derive(Clone, Copy)]
pub enum Secret<'a> {
    /// A passphrase (any bytes, not empty).
    Passphrase(&'a [u8]),
    /// The 32 bytes of a key file.
    KeyFile(&'a [u8; KEY_LEN]),
}

/// Input key material: Argon2id(passphrase, salt) or the key file's bytes.
pub fn input_key(
    kdf: Kdf,
    secret: Secret<'_>,
    salt: &[u8; 16],
) -> Result<Zeroizing<[u8; KEY_LEN]>> {
    let mut ikm = Zeroizing::new([0u8; KEY_LEN]);
    match (kdf, secret) {
        (Kdf::Argon2id { m_kib, t, p }, Secret::Passphrase(pass)) => {
            kdf.validate()?;
            if pass.is_empty() {
                return Err(Error::InvalidParameter("empty passphrase"));
            }
            let params = argon2::Params::new(m_kib, t, p, Some(KEY_LEN))
                .map_err(|_| Error::InvalidParameter("Argon2id parameters out of range"))?;
            // The memory is reserved fallibly: a header may ask for gigabytes, and a machine (or a
            // `ulimit -v`) without them must get an error, not an abort.
            let blocks = params.block_count();
            let mut memory = Vec::new();
            if memory.try_reserve_exact(blocks).is_err() {
                return Err(Error::KdfMemory(u64::from(m_kib) << 10));
            }
            memory.resize(blocks, argon2::Block::default());
            argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, params)
                .hash_password_into_with_memory(pass, salt, &mut ikm[..], &mut memory[..])
                .map_err(|_| Error::InvalidParameter("Argon2id refused its input"))?;
        }
        (Kdf::KeyFile, Secret::KeyFile(key)) => ikm.copy_from_slice(key),
        (Kdf::Argon2id { .. }, Secret::KeyFile(_)) => {
            return Err(Error::WrongSecretKind {
                expected: "passphrase",
            })
        }
        (Kdf::KeyFile, Secret::Passphrase(_)) => {
            return Err(Error::WrongSecretKind {
                expected: "key file",
            })
        }
    }
    Ok(ikm)
}

/// The per-file keys derived from the input key material.
pub struct FileKeys {
    /// The AEAD key of every chunk.
    pub payload: Zeroizing<[u8; KEY_LEN]>,
    /// The header's key check.
    pub check: [u8; KEY_CHECK_LEN],
}

/// HKDF-SHA256 with the header salt: `PRK = Extract(salt, ikm)`, then
/// `payload = Expand(PRK, "shifr v1 payload" || fields, 32)` and
/// `check = Expand(PRK, "shifr v1 key check" || fields, 16)`.
pub fn file_keys(ikm: &[u8; KEY_LEN], salt: &[u8; 16], fields: &[u8; FIELDS_LEN]) -> FileKeys {
    let hk = Hkdf::<Sha256>::new(Some(salt), ikm);
    let mut payload = Zeroizing::new([0u8; KEY_LEN]);
    let mut check = [0u8; KEY_CHECK_LEN];
    // Both lengths are far below HKDF-SHA256's 255 * 32-byte limit, so expansion cannot fail.
    if hk
        .expand_multi_info(&[PAYLOAD_INFO, fields], &mut payload[..])
        .is_err()
        || hk
            .expand_multi_info(&[KEY_CHECK_INFO, fields], &mut check)
            .is_err()
    {
        unreachable!("HKDF output lengths are constants within the limit");
    }
    FileKeys { payload, check }
}
