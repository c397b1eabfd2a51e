//! Fuzzes the passphrase-file parser (`shifr_input::secret_text::passphrase_from_file`). Properties:
//! `shifr_input::invariants::passphrase_file`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| shifr_input::invariants::passphrase_file(data));
