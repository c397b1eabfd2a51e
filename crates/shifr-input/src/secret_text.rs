//! What a key file or a passphrase file may hold.
//!
//! One rule for every command and every key length: a key file whose bytes are all hex digits,
//! optionally followed by whitespace (the newline of `echo` or of an editor), is hex, whatever its
//! length, and must then decode to exactly the key length; any other file is raw bytes and must be
//! exactly the key length. A file of 32 hex digits is therefore a 16-byte key for every algorithm, never
//! 32 raw ASCII bytes. Files are read only up to a small limit, so `--key-file /dev/zero` is refused
//! instead of filling the memory.

use zeroize::Zeroizing;

/// Most bytes read from a key file: far more than the 128 hex digits of the longest key plus
/// whitespace.
pub const MAX_KEY_FILE_BYTES: usize = 4096;
/// Most bytes read from a passphrase file (only its first line is used).
pub const MAX_PASSPHRASE_FILE_BYTES: usize = 64 * 1024;

/// Why a key file's bytes are not a key. The messages never quote key material.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum KeyTextError {
    /// Nothing but whitespace, or nothing at all.
    #[error("it is empty")]
    Empty,
    /// Larger than [`MAX_KEY_FILE_BYTES`].
    #[error("it is larger than {MAX_KEY_FILE_BYTES} bytes")]
    TooLarge,
    /// Hex text with an odd number of digits.
    #[error("it holds an odd number of hex digits ({0})")]
    OddHex(usize),
    /// Hex text of another key length.
    #[error("it holds {digits} hex digits ({} bytes); expected {} hex digits", digits / 2, 2 * expected)]
    HexLength {
        /// Hex digits seen.
        digits: usize,
        /// The key length in bytes.
        expected: usize,
    },
    /// Raw bytes (not all hex digits) of another length.
    #[error("it holds {len} bytes that are not all hex digits; expected {expected} raw bytes or {} hex digits", 2 * expected)]
    RawLength {
        /// Bytes seen.
        len: usize,
        /// The key length in bytes.
        expected: usize,
    },
}

/// Why a passphrase file's bytes are not a passphrase.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum PassphraseTextError {
    /// The first line is empty.
    #[error("its first line is empty")]
    Empty,
    /// Larger than [`MAX_PASSPHRASE_FILE_BYTES`].
    #[error("it is larger than {MAX_PASSPHRASE_FILE_BYTES} bytes")]
    TooLarge,
}

/// The key held by a key file's `bytes`, for a key of `key_len` bytes (the rule in the module text).
pub fn key_from_file(bytes: &[u8], key_len: usize) -> Result<Zeroizing<Vec<u8>>, KeyTextError> {
    if bytes.len() > MAX_KEY_FILE_BYTES {
        return Err(KeyTextError::TooLarge);
    }
    let text = bytes.trim_ascii_end();
    if text.is_empty() && bytes.len() != key_len {
        return Err(KeyTextError::Empty);
    }
    if !text.is_empty() && text.iter().all(u8::is_ascii_hexdigit) {
        if text.len() % 2 == 1 {
            return Err(KeyTextError::OddHex(text.len()));
        }
        if text.len() != 2 * key_len {
            return Err(KeyTextError::HexLength {
                digits: text.len(),
                expected: key_len,
            });
        }
        return Ok(decode_hex_digits(text));
    }
    if bytes.len() != key_len {
        return Err(KeyTextError::RawLength {
            len: bytes.len(),
            expected: key_len,
        });
    }
    Ok(Zeroizing::new(bytes.to_vec()))
}

/// Why the hex text of an environment variable is not a key. The messages never quote the value.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum HexTextError {
    /// A character that is not a hex digit.
    #[error("non-hex character at position {0}")]
    NonHex(usize),
    /// An odd number of digits.
    #[error("odd number of hex digits")]
    OddHex,
    /// Another key length.
    #[error("{bytes} bytes (expected {expected})")]
    Length {
        /// Bytes the text decodes to.
        bytes: usize,
        /// The key length.
        expected: usize,
    },
}

/// The key held by the hex text of an environment variable (surrounding whitespace ignored).
pub fn key_from_hex_text(text: &[u8], key_len: usize) -> Result<Zeroizing<Vec<u8>>, HexTextError> {
    let text = text.trim_ascii();
    if let Some(index) = text.iter().position(|b| !b.is_ascii_hexdigit()) {
        return Err(HexTextError::NonHex(index));
    }
    if text.len() % 2 == 1 {
        return Err(HexTextError::OddHex);
    }
    if text.len() != 2 * key_len {
        return Err(HexTextError::Length {
            bytes: text.len() / 2,
            expected: key_len,
        });
    }
    Ok(decode_hex_digits(text))
}

/// The passphrase of a passphrase file: its first line, without the line end (`\n` or `\r\n`).
pub fn passphrase_from_file(bytes: &[u8]) -> Result<Zeroizing<Vec<u8>>, PassphraseTextError> {
    if bytes.len() > MAX_PASSPHRASE_FILE_BYTES {
        return Err(PassphraseTextError::TooLarge);
    }
    let line = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.is_empty() {
        return Err(PassphraseTextError::Empty);
    }
    Ok(Zeroizing::new(line.to_vec()))
}

/// Decodes hex digits already checked to be an even number of ASCII hex digits.
fn decode_hex_digits(text: &[u8]) -> Zeroizing<Vec<u8>> {
    let nibble = |c: u8| match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => c - b'A' + 10,
    };
    Zeroizing::new(
        text.chunks_exact(2)
            .map(|pair| (nibble(pair[0]) << 4) | nibble(pair[1]))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_whatever_the_key_length() {
        let hex32 = b"000102030405060708090a0b0c0d0e0f";
        // 32 hex digits with no newline: a 16-byte key, and for a 32-byte key a length error, never
        // 32 raw ASCII bytes.
        assert_eq!(
            &key_from_file(hex32, 16).unwrap()[..],
            &(0u8..16).collect::<Vec<_>>()[..]
        );
        assert_eq!(
            key_from_file(hex32, 32).unwrap_err(),
            KeyTextError::HexLength {
                digits: 32,
                expected: 32
            }
        );
        let mut with_newline = hex32.to_vec();
        with_newline.extend_from_slice(b"\r\n");
        assert_eq!(key_from_file(&with_newline, 16).unwrap().len(), 16);
        assert_eq!(
            key_from_file(b"ABCDEF0123456789abcdef0123456789", 16).unwrap()[0],
            0xab
        );
        assert_eq!(
            key_from_file(b"abc", 16).unwrap_err(),
            KeyTextError::OddHex(3)
        );
    }

    #[test]
    fn raw_bytes_of_exactly_the_key_length() {
        let raw = [0xffu8; 32];
        assert_eq!(&key_from_file(&raw, 32).unwrap()[..], &raw[..]);
        assert_eq!(
            key_from_file(&raw, 16).unwrap_err(),
            KeyTextError::RawLength {
                len: 32,
                expected: 16
            }
        );
        // Hex digits with a non-hex byte inside are raw bytes: of the key length they are a key.
        let mut mixed = [b'a'; 16];
        mixed[3] = b'z';
        assert_eq!(&key_from_file(&mixed, 16).unwrap()[..], &mixed[..]);
        // Leading whitespace is not hex text: raw bytes of the wrong length.
        assert!(matches!(
            key_from_file(b" 0011", 16),
            Err(KeyTextError::RawLength { .. })
        ));
    }

    #[test]
    fn empty_and_too_large() {
        assert_eq!(key_from_file(b"", 16).unwrap_err(), KeyTextError::Empty);
        assert_eq!(key_from_file(b"\n\n", 16).unwrap_err(), KeyTextError::Empty);
        let big = vec![0u8; MAX_KEY_FILE_BYTES + 1];
        assert_eq!(key_from_file(&big, 16).unwrap_err(), KeyTextError::TooLarge);
        // A 16-byte all-whitespace file is a raw key, not "empty".
        assert_eq!(key_from_file(&[b' '; 16], 16).unwrap().len(), 16);
    }

    #[test]
    fn environment_hex() {
        assert_eq!(key_from_hex_text(b" 00ff \n", 2).unwrap()[..], [0, 0xff]);
        assert_eq!(
            key_from_hex_text(b"zz", 1).unwrap_err(),
            HexTextError::NonHex(0)
        );
        assert_eq!(
            key_from_hex_text(b"0", 1).unwrap_err(),
            HexTextError::OddHex
        );
        assert_eq!(
            key_from_hex_text(b"0011", 1).unwrap_err(),
            HexTextError::Length {
                bytes: 2,
                expected: 1
            }
        );
    }

    #[test]
    fn passphrase_first_line() {
        assert_eq!(&passphrase_from_file(b"pw\r\nrest").unwrap()[..], b"pw");
        assert_eq!(&passphrase_from_file(b"pw").unwrap()[..], b"pw");
        assert_eq!(
            passphrase_from_file(b"\npw").unwrap_err(),
            PassphraseTextError::Empty
        );
        assert_eq!(
            passphrase_from_file(b"").unwrap_err(),
            PassphraseTextError::Empty
        );
        let big = vec![b'a'; MAX_PASSPHRASE_FILE_BYTES + 1];
        assert_eq!(
            passphrase_from_file(&big).unwrap_err(),
            PassphraseTextError::TooLarge
        );
    }
}
