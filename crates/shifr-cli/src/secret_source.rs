//! The secret of a container command: a key file or a passphrase, and the KDF a new file records.

use crate::container_args::SecretArgs;
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

/// The secret and KDF of a new file.
pub fn for_encryption(args: &SecretArgs) -> Result<(OwnedSecret, Kdf)> {
    if let Some(path) = &args.key_file {
        return Ok((load_key(path)?, Kdf::KeyFile));
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
    let pass = passphrase::read(args.passphrase_file.as_deref(), true)?;
    Ok((OwnedSecret::Passphrase(pass), kdf))
}

/// The secret for an existing file whose header names `kdf`.
pub fn for_decryption(args: &SecretArgs, kdf: Kdf) -> Result<OwnedSecret> {
    match (&args.key_file, kdf) {
        (Some(path), _) => load_key(path),
        (None, Kdf::KeyFile) => Err(shifr::container::Error::WrongSecretKind {
            expected: "key file",
        }
        .into()),
        (None, Kdf::Argon2id { .. }) => Ok(OwnedSecret::Passphrase(passphrase::read(
            args.passphrase_file.as_deref(),
            false,
        )?)),
    }
}

fn load_key(path: &std::path::Path) -> Result<OwnedSecret> {
    let bytes = keyfile::load(Some(path), 32)?;
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
