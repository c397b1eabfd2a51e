//! The properties every parser of this crate keeps on arbitrary bytes, as functions that panic when
//! one is broken: the bodies of the fuzz targets in `fuzz/` and of the random-input test in
//! `tests/random_input.rs`, so that both check exactly the same things.

use crate::{hex_arg, number_arg, secret_text};

/// A key file's bytes, for a key length taken from the first byte (1 to 64): a key, when accepted,
/// has exactly that length and is either the file itself or the hex text it holds.
pub fn key_file(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let key_len = usize::from(first % 64) + 1;
    if let Ok(key) = secret_text::key_from_file(rest, key_len) {
        assert_eq!(key.len(), key_len);
        let digits = rest.trim_ascii_end();
        let is_hex = !digits.is_empty() && digits.iter().all(u8::is_ascii_hexdigit);
        if is_hex {
            assert!(
                hex::encode(&key[..]).eq_ignore_ascii_case(std::str::from_utf8(digits).unwrap())
            );
        } else {
            assert_eq!(&key[..], rest);
        }
    }
    if let Ok(key) = secret_text::key_from_hex_text(rest, key_len) {
        assert_eq!(key.len(), key_len);
    }
}

/// A passphrase file's bytes: an accepted passphrase is a non-empty prefix of the file with no line
/// end in it.
pub fn passphrase_file(data: &[u8]) {
    if let Ok(pass) = secret_text::passphrase_from_file(data) {
        assert!(!pass.is_empty());
        assert!(data.starts_with(&pass));
        assert!(!pass.contains(&b'\n'));
        assert!(data.len() <= secret_text::MAX_PASSPHRASE_FILE_BYTES);
    }
}

/// An option value: every numeric parser returns only values in its range, and hex decoding gives
/// half as many bytes as there are digits.
pub fn option_value(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(n) = number_arg::threads(&text) {
        assert!((1..=number_arg::MAX_THREADS).contains(&n));
    }
    if let Ok(p) = number_arg::cpu_percent(&text) {
        assert!(p.is_finite() && (number_arg::MIN_CPU_PERCENT..=100.0).contains(&p));
    }
    if let Ok(x) = number_arg::decimal_in(&text, 0.001, 60.0) {
        assert!((0.001..=60.0).contains(&x));
    }
    if let Ok(n) = number_arg::whole_in(&text, 3, 1000) {
        assert!((3..=1000).contains(&n));
    }
    if let Ok(b) = number_arg::bytes_in(&text, 1, 1 << 30) {
        assert!((1..=1 << 30).contains(&b));
    }
    if let Ok(bytes) = hex_arg::decode("--iv", &text) {
        assert_eq!(bytes.len() * 2, text.trim().len());
    }
    let _ = number_arg::human(
        data.iter()
            .fold(0u64, |a, &b| a.rotate_left(8) ^ u64::from(b)),
    );
}
