//! The secret of a container call: a key file (the CLI's rule: 64 hex digits, or 32 raw bytes), 32
//! raw key bytes, or a passphrase (stretched with Argon2id; `SHIFR_TEST_ARGON2=m_kib,t,p` lowers the
//! parameters for test suites, as for the CLI).

use crate::errors::{Failure, Result};
use shifr::container::{Kdf, Secret};
use std::path::Path;
use zeroize::Zeroizing;

/// Environment variable with test-only Argon2id parameters for new files.
pub const TEST_ARGON2_ENV: &str = "SHIFR_TEST_ARGON2";

/// A secret owned by the call; zeroized on drop.
pub enum OwnedSecret {
    /// A passphrase.
    Passphrase(Zeroizing<Vec<u8>>),
    /// A 32-byte key.
    Key(Zeroizing<[u8; 32]>),
}

impl OwnedSecret {
    /// From the keyword arguments: exactly one of them.
    pub fn from_args(
        key_file: Option<&Path>,
        key: Option<&[u8]>,
        passphrase: Option<&[u8]>,
    ) -> Result<OwnedSecret> {
        match (key_file, key, passphrase) {
            (Some(path), None, None) => load_key_file(path),
            (None, Some(raw), None) => {
                let raw: [u8; 32] = raw.try_into().map_err(|_| {
                    Failure::invalid(format!("key must be 32 bytes, not {}", raw.len()))
                })?;
                Ok(OwnedSecret::Key(Zeroizing::new(raw)))
            }
            (None, None, Some([])) => Err(Failure::invalid("empty passphrase")),
            (None, None, Some(pass)) => Ok(OwnedSecret::Passphrase(Zeroizing::new(pass.to_vec()))),
            (None, None, None) => Err(Failure::invalid(
                "missing secret: give key_file, key or passphrase",
            )),
            _ => Err(Failure::invalid(
                "give only one of key_file, key and passphrase",
            )),
        }
    }

    /// The borrowed form the library takes.
    pub fn as_secret(&self) -> Secret<'_> {
        match self {
            OwnedSecret::Passphrase(p) => Secret::Passphrase(p),
            OwnedSecret::Key(k) => Secret::KeyFile(k),
        }
    }

    /// The KDF a new file records for this secret.
    pub fn kdf_for_new_file(&self) -> Result<Kdf> {
        match self {
            OwnedSecret::Key(_) => Ok(Kdf::KeyFile),
            OwnedSecret::Passphrase(_) => match std::env::var(TEST_ARGON2_ENV) {
                Ok(v) => parse_argon2(&v),
                Err(_) => Ok(Kdf::DEFAULT_ARGON2ID),
            },
        }
    }
}

/// A key file under the CLI's one rule (`shifr_input::secret_text::key_from_file`): hex digits
/// (optionally followed by whitespace) are hex, anything else is 32 raw bytes; read up to 4 KiB.
fn load_key_file(path: &Path) -> Result<OwnedSecret> {
    use shifr_input::secret_text::{key_from_file, MAX_KEY_FILE_BYTES};
    use std::io::Read;
    let file =
        std::fs::File::open(path).map_err(|e| Failure::io("cannot read key file", path, &e))?;
    // The whole capacity up front, so that no reallocation leaves a copy of the key behind.
    let mut bytes = Zeroizing::new(Vec::with_capacity(MAX_KEY_FILE_BYTES + 1));
    file.take(MAX_KEY_FILE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Failure::io("cannot read key file", path, &e))?;
    let parsed = key_from_file(&bytes, 32).map_err(|why| {
        Failure::invalid(format!("invalid key in key file {}: {why}", path.display()))
    })?;
    let mut key = Zeroizing::new([0u8; 32]);
    key.copy_from_slice(&parsed);
    Ok(OwnedSecret::Key(key))
}

fn parse_argon2(v: &str) -> Result<Kdf> {
    let bad = || Failure::invalid(format!("{TEST_ARGON2_ENV} must be m_kib,t,p"));
    let nums: Vec<u32> = v
        .split(',')
        .map(|s| s.trim().parse::<u32>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| bad())?;
    let [m_kib, t, p] = nums[..] else {
        return Err(bad());
    };
    let kdf = Kdf::Argon2id { m_kib, t, p };
    kdf.validate().map_err(|e| Failure::container(e, "", ""))?;
    Ok(kdf)
}
