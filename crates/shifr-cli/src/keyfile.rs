//! Where the key comes from: a key file (raw bytes, or hex text) or the environment variable
//! `SHIFR_KEY` (hex). There is deliberately no way to pass a key as an argument, where it would be
//! visible to other users in the process list and kept in shell history.
//!
//! Every buffer that holds key bytes or their hex text is zeroized when dropped. Error messages never
//! quote key material.

use anyhow::{anyhow, bail, Context, Result};
use std::path::Path;
use zeroize::Zeroizing;

/// The environment variable that may hold the key as hex.
pub const KEY_ENV: &str = "SHIFR_KEY";

/// Loads a `key_len`-byte key from `file`, or else from `SHIFR_KEY`.
pub fn load(file: Option<&Path>, key_len: usize) -> Result<Zeroizing<Vec<u8>>> {
    match file {
        Some(path) => from_file(path, key_len),
        None => from_env(key_len),
    }
}

/// A key file holds either exactly `key_len` raw bytes or `2 * key_len` hex digits, optionally
/// surrounded by whitespace (a trailing newline from `echo`). The two cannot be confused: raw bytes
/// of the hex length are never a valid key.
fn from_file(path: &Path, key_len: usize) -> Result<Zeroizing<Vec<u8>>> {
    let shown = path.display();
    let bytes = Zeroizing::new(
        std::fs::read(path).with_context(|| format!("cannot read key file {shown}"))?,
    );
    let text = bytes.trim_ascii();
    // Only printable text of the hex length is read as hex; binary bytes that happen to have that
    // length are a raw key of the wrong size and get the length message below.
    if text.len() == 2 * key_len && text.iter().all(u8::is_ascii_graphic) {
        return decode_key_hex(text)
            .map_err(|why| anyhow!("key file {shown} is not valid hex: {why}"));
    }
    if bytes.len() == key_len {
        return Ok(bytes);
    }
    bail!(
        "invalid key length in key file {shown}: {} bytes (expected {key_len} raw bytes or {} hex digits)",
        bytes.len(),
        2 * key_len
    )
}

fn from_env(key_len: usize) -> Result<Zeroizing<Vec<u8>>> {
    let value = match std::env::var_os(KEY_ENV) {
        Some(v) => Zeroizing::new(v.into_encoded_bytes()),
        None => bail!("missing key: use --key-file FILE or set {KEY_ENV} to the key in hex"),
    };
    let key = decode_key_hex(value.trim_ascii())
        .map_err(|why| anyhow!("{KEY_ENV} is not valid hex: {why}"))?;
    if key.len() != key_len {
        bail!(
            "invalid key length in {KEY_ENV}: {} bytes (expected {key_len})",
            key.len()
        );
    }
    Ok(key)
}

/// Decodes hex key text into a zeroizing buffer. The error says where, never which character.
fn decode_key_hex(text: &[u8]) -> std::result::Result<Zeroizing<Vec<u8>>, String> {
    let mut out = Zeroizing::new(vec![0u8; text.len() / 2]);
    match hex::decode_to_slice(text, &mut out[..]) {
        Ok(()) => Ok(out),
        Err(hex::FromHexError::InvalidHexCharacter { index, .. }) => {
            Err(format!("non-hex character at position {index}"))
        }
        Err(hex::FromHexError::OddLength) => Err("odd number of hex digits".to_string()),
        Err(hex::FromHexError::InvalidStringLength) => Err("odd number of hex digits".to_string()),
    }
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
        assert_eq!(&load(Some(&raw), 16).unwrap()[..], &[7u8; 16]);
        let hex = temp_file("hex", b"000102030405060708090a0b0c0d0e0f\n");
        assert_eq!(
            &load(Some(&hex), 16).unwrap()[..],
            &(0u8..16).collect::<Vec<_>>()[..]
        );
        // A 16-byte raw key file is not a valid 32-byte key, whatever its bytes.
        assert!(load(Some(&raw), 32).is_err());
        // 32 binary bytes for a 16-byte key: a length error, not a hex error.
        let binary = temp_file("binary", &[0xffu8; 32]);
        let e = load(Some(&binary), 16).unwrap_err().to_string();
        assert!(
            e.contains("invalid key length") && e.contains("32 bytes"),
            "{e}"
        );
        std::fs::remove_file(binary).unwrap();
        let bad = temp_file("bad", b"zz0102030405060708090a0b0c0d0e0f");
        let e = load(Some(&bad), 16).unwrap_err().to_string();
        assert!(e.contains("not valid hex") && !e.contains("zz"), "{e}");
        for p in [raw, hex, bad] {
            std::fs::remove_file(p).unwrap();
        }
    }
}
