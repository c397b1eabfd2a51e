//! Where a passphrase comes from: `--passphrase-file` (its first line), else the environment variable
//! `SHIFR_PASSPHRASE`, else the terminal (/dev/tty) with echo off. Never a command-line argument.
//! Every buffer holding it is zeroized on drop.

use crate::secret_file::{self, FileId};
use anyhow::{anyhow, bail, Context, Result};
use shifr_input::secret_text::{self, MAX_PASSPHRASE_FILE_BYTES};
use std::path::Path;
use zeroize::Zeroizing;

/// The environment variable that may hold the passphrase.
pub const PASSPHRASE_ENV: &str = "SHIFR_PASSPHRASE";

/// Reads the passphrase; on the terminal it is asked twice when `confirm` (for encryption). `data` is
/// the identity of the data input, which the passphrase file must not be.
pub fn read(
    file: Option<&Path>,
    confirm: bool,
    data: Option<FileId>,
) -> Result<Zeroizing<Vec<u8>>> {
    let pass = if let Some(path) = file {
        let all = secret_file::read(path, "passphrase file", MAX_PASSPHRASE_FILE_BYTES, data)?;
        secret_text::passphrase_from_file(&all)
            .map_err(|why| anyhow!("passphrase file {}: {why}", path.display()))?
    } else if let Some(v) = std::env::var_os(PASSPHRASE_ENV) {
        Zeroizing::new(v.into_encoded_bytes())
    } else {
        let first = ask("shifr: passphrase: ")?;
        if confirm {
            let again = ask("shifr: passphrase again: ")?;
            if first != again {
                bail!("the passphrases differ");
            }
        }
        first
    };
    if pass.is_empty() {
        bail!("empty passphrase");
    }
    Ok(pass)
}

fn ask(prompt: &str) -> Result<Zeroizing<Vec<u8>>> {
    let line = Zeroizing::new(rpassword::prompt_password(prompt).with_context(|| {
        format!(
            "no passphrase: no terminal to ask on (use --passphrase-file, {PASSPHRASE_ENV}, --key-file or SHIFR_KEY)"
        )
    })?);
    Ok(Zeroizing::new(line.as_bytes().to_vec()))
}
