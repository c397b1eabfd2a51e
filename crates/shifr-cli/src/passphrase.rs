//! Where a passphrase comes from: `--passphrase-file` (its first line), else the environment variable
//! `SHIFR_PASSPHRASE`, else the terminal (/dev/tty) with echo off. Never a command-line argument.
//! Every buffer holding it is zeroized on drop.

use anyhow::{bail, Context, Result};
use std::path::Path;
use zeroize::Zeroizing;

/// The environment variable that may hold the passphrase.
pub const PASSPHRASE_ENV: &str = "SHIFR_PASSPHRASE";

/// Reads the passphrase; on the terminal it is asked twice when `confirm` (for encryption).
pub fn read(file: Option<&Path>, confirm: bool) -> Result<Zeroizing<Vec<u8>>> {
    let pass = if let Some(path) = file {
        let all = Zeroizing::new(
            std::fs::read(path)
                .with_context(|| format!("cannot read passphrase file {}", path.display()))?,
        );
        let line = all.split(|&b| b == b'\n').next().unwrap_or_default();
        Zeroizing::new(line.strip_suffix(b"\r").unwrap_or(line).to_vec())
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
            "no passphrase: no terminal to ask on (use --passphrase-file, {PASSPHRASE_ENV} or --key-file)"
        )
    })?);
    Ok(Zeroizing::new(line.as_bytes().to_vec()))
}
