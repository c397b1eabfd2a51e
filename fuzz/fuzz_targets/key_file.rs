//! Fuzzes the key-file reader's parser (`shifr_input::secret_text::key_from_file`) and the `SHIFR_KEY`
//! hex parser: the first byte picks the key length, the rest is the file. Properties:
//! `shifr_input::invariants::key_file`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| shifr_input::invariants::key_file(data));
