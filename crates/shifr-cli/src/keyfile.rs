//! Where the key comes from: a key file (raw bytes, or hex text) or the environment variable
//! `SHIFR_KEY` (hex). There is deliberately no way to pass a key as an argument, where it would be
//! visible to other users in the process list and kept in shell history. What a key file may hold is
//! decided by [`shifr_input::secret_text::key_from_file`], one rule for every command.
//!
//! Every buffer that holds key bytes or their hex text is zeroized when dropped. Error messages never
//! quote key material.

use crate::secret_file::{self, FileId};
use anyhow::{anyhow, bail, Result};
use shifr_input::secret_text::{self, HexTextError, KeyTextError, MAX_KEY_FILE_BYTES};
use std::path::Path;
use zeroize::Zeroizing;

/// The environment variable that may hold the key as hex.
pub const KEY_ENV: &str = "SHIFR_KEY";

/// Loads a `key_len`-byte key from `file`, or else from `SHIFR_KEY`. `data` is the identity of the
/// data input, which the key file must not be.
pub fn load(
    file: Option<&Path>,
    key_len: usize,
    data: Option<FileId>,
) -> Result<Zeroizing<Vec<u8>>> {
    match file {
        Some(path) => from_file(path, key_len, data),
        None => match from_env(key_len)? {
            Some(key) => Ok(key),
            None => bail!("missing key: use --key-file FILE or set {KEY_ENV} to the key in hex"),
        },
    }
}

fn from_file(path: &Path, key_len: usize, data: Option<FileId>) -> Result<Zeroizing<Vec<u8>>> {
    let bytes = secret_file::read(path, "key file", MAX_KEY_FILE_BYTES, data)?;
    let shown = path.display();
    secret_text::key_from_file(&bytes, key_len).map_err(|why| match why {
        KeyTextError::OddHex(_)
        | KeyTextError::HexLength { .. }
        | KeyTextError::RawLength { .. } => {
            anyhow!("invalid key length in key file {shown}: {why}")
        }
        KeyTextError::Empty | KeyTextError::TooLarge => anyhow!("unusable key file {shown}: {why}"),
    })
}

/// The key in `SHIFR_KEY`, or `None` when it is not set.
pub fn from_env(key_len: usize) -> Result<Option<Zeroizing<Vec<u8>>>> {
    let Some(value) = std::env::var_os(KEY_ENV) else {
        return Ok(None);
    };
    let value = Zeroizing::new(value.into_encoded_bytes());
    secret_text::key_from_hex_text(&value, key_len)
        .map(Some)
        .map_err(|why| match why {
            HexTextError::Length { .. } => anyhow!("invalid key length in {KEY_ENV}: {why}"),
            _ => anyhow!("{KEY_ENV} is not valid hex: {why}"),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_file(name: &str, contents: &[u8]) -> std::path::PathBuf {
        let path =
            std::env::temp_dir().join(format!("shifr-keyfile-{}-{name}", std::process::id()));
        std::fs::write(&path, contents).unwrap();
        path
    }

    #[test]
    fn raw_and_hex_key_files() {
        let raw = temp_file("raw", &[7u8; 16]);
        assert_eq!(&load(Some(&raw), 16, None).unwrap()[..], &[7u8; 16]);
        let hex = temp_file("hex", b"000102030405060708090a0b0c0d0e0f\n");
        assert_eq!(
            &load(Some(&hex), 16, None).unwrap()[..],
            &(0u8..16).collect::<Vec<_>>()[..]
        );
        // The same hex file for a 32-byte key: a length error, not 33 raw bytes.
        let e = load(Some(&hex), 32, None).unwrap_err().to_string();
        assert!(
            e.contains("32 hex digits") && e.contains("expected 64"),
            "{e}"
        );
        // A 16-byte raw key file is not a valid 32-byte key, whatever its bytes.
        assert!(load(Some(&raw), 32, None).is_err());
        // 32 binary bytes for a 16-byte key: a length error, not a hex error.
        let binary = temp_file("binary", &[0xffu8; 32]);
        let e = load(Some(&binary), 16, None).unwrap_err().to_string();
        assert!(e.contains("32 bytes"), "{e}");
        std::fs::remove_file(binary).unwrap();
        // Not all hex digits, 32 bytes: raw bytes of the wrong length; the message quotes nothing.
        let bad = temp_file("bad", b"zz0102030405060708090a0b0c0d0e0f");
        let e = load(Some(&bad), 16, None).unwrap_err().to_string();
        assert!(e.contains("not all hex digits") && !e.contains("zz"), "{e}");
        // The key file is the data input: refused before reading.
        let id = FileId::of(&std::fs::File::open(&raw).unwrap());
        let e = load(Some(&raw), 16, id).unwrap_err().to_string();
        assert!(e.contains("is the data input"), "{e}");
        for p in [raw, hex, bad] {
            std::fs::remove_file(p).unwrap();
        }
    }
}
