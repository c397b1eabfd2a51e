//! Fuzzes the `shifr kat` vector-file parser (`shifr_kat::parse`, format: shared/vectors/README.md):
//! nothing may panic, and the whole-file parse agrees with the per-block parse.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let blocks = shifr_kat::parse_blocks(&text);
    match shifr_kat::parse(&text) {
        Ok(records) => assert_eq!(records.len(), blocks.len()),
        Err(_) => assert!(blocks.iter().any(Result::is_err)),
    }
});
