//! The secret of a container command: a key or a passphrase, and the KDF a new file records.
//!
//! Where it comes from, first match wins: `--key-file`, `--passphrase-file`, `SHIFR_KEY` (hex),
//! `SHIFR_PASSPHRASE`, the terminal. `SHIFR_KEY` and `SHIFR_PASSPHRASE` both set, with neither option,
//! is refused as ambiguous. When decrypting, the header says which kind the file needs.

use crate::container_args::SecretArgs;
use crate::secret_file::FileId;
use crate::{keyfile, passphrase, report};
use anyhow::{bail, Result};
use shifr::container::{Kdf, Secret};
use zeroize::Zeroizing;

/// For tests only: Argon2id parameters `m_kib,t,p` replacing the default (64 MiB, 3, 1) when
/// encrypting, so that test suites need not spend 64 MiB and a fraction of a second per file. The
/// header records them; decryption needs nothing.
pub const TEST_ARGON2_ENV: &str = "SHIFR_TEST_ARGON2";

/// A secret owned by the command.
pub enum OwnedSecret {
    /// A passphrase.
    Passphrase(Zeroizing<Vec<u8>>),
    /// A key file's 32 bytes.
    Key(Zeroizing<[u8; 32]>),
}

impl OwnedSecret {
    /// The borrowed form the library takes.
    pub fn as_secret(&self) -> Secret<'_> {
        match self {
            OwnedSecret::Passphrase(p) => Secret::Passphrase(p),
            OwnedSecret::Key(k) => Secret::KeyFile(k),
        }
    }
}

/// The secret and KDF of a new file; `data` is the identity of the data input.
pub fn for_encryption(args: &SecretArgs, data: Option<FileId>) -> Result<(OwnedSecret, Kdf)> {
    if let Some(path) = &args.key_file {
        return Ok((load_key(path, data)?, Kdf::KeyFile));
    }
    if args.passphrase_file.is_none() {
        if let Some(key) = key_from_env()? {
            return Ok((key, Kdf::KeyFile));
        }
    }
    let kdf = match std::env::var(TEST_ARGON2_ENV) {
        Ok(v) => {
            let kdf = parse_argon2(&v)?;
            report::warning(&format!(
                "{TEST_ARGON2_ENV} is set: Argon2id {v} (for tests only, weaker than the default)"
            ));
            kdf
        }
        Err(_) => Kdf::DEFAULT_ARGON2ID,
    };
    let pass = passphrase::read(args.passphrase_file.as_deref(), true, data)?;
    Ok((OwnedSecret::Passphrase(pass), kdf))
}

/// The secret for an existing file whose header names `kdf`; `data` is the identity of the input.
pub fn for_decryption(args: &SecretArgs, kdf: Kdf, data: Option<FileId>) -> Result<OwnedSecret> {
    match (&args.key_file, &args.passphrase_file, kdf) {
        (Some(path), _, _) => load_key(path, data),
        (None, None, Kdf::KeyFile) => match key_from_env()? {
            Some(key) => Ok(key),
            None => Err(shifr::container::Error::WrongSecretKind {
                expected: "key file",
            }
            .into()),
        },
        (None, Some(_), Kdf::KeyFile) => Err(shifr::container::Error::WrongSecretKind {
            expected: "key file",
        }
        .into()),
        (None, _, Kdf::Argon2id { .. }) => {
            if args.passphrase_file.is_none()
                && std::env::var_os(passphrase::PASSPHRASE_ENV).is_none()
                && std::env::var_os(keyfile::KEY_ENV).is_some()
            {
                return Err(shifr::container::Error::WrongSecretKind {
                    expected: "passphrase",
                }
                .into());
            }
            Ok(OwnedSecret::Passphrase(passphrase::read(
                args.passphrase_file.as_deref(),
                false,
                data,
            )?))
        }
    }
}

/// The key in `SHIFR_KEY`, unless `SHIFR_PASSPHRASE` is set too (ambiguous: refused).
fn key_from_env() -> Result<Option<OwnedSecret>> {
    let Some(bytes) = keyfile::from_env(32)? else {
        return Ok(None);
    };
    if std::env::var_os(passphrase::PASSPHRASE_ENV).is_some() {
        bail!(
            "both {} and {} are set; unset one, or choose with --key-file / --passphrase-file",
            keyfile::KEY_ENV,
            passphrase::PASSPHRASE_ENV
        );
    }
    let mut key = Zeroizing::new([0u8; 32]);
    key.copy_from_slice(&bytes);
    Ok(Some(OwnedSecret::Key(key)))
}

fn load_key(path: &std::path::Path, data: Option<FileId>) -> Result<OwnedSecret> {
    let bytes = keyfile::load(Some(path), 32, data)?;
    let mut key = Zeroizing::new([0u8; 32]);
    key.copy_from_slice(&bytes);
    Ok(OwnedSecret::Key(key))
}

fn parse_argon2(v: &str) -> Result<Kdf> {
    let nums: Vec<u32> = v
        .split(',')
        .map(|s| s.trim().parse::<u32>())
        .collect::<Result<_, _>>()
        .map_err(|_| anyhow::anyhow!("{TEST_ARGON2_ENV} must be m_kib,t,p"))?;
    let [m_kib, t, p] = nums[..] else {
        bail!("{TEST_ARGON2_ENV} must be m_kib,t,p");
    };
    let kdf = Kdf::Argon2id { m_kib, t, p };
    kdf.validate()?;
    Ok(kdf)
}
