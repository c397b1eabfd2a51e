//! Fuzzes the option-value parsers of the CLI: hex (`--iv`, `--aad`, `--tag`), whole numbers
//! (`--threads`, `--reps`), decimals (`--cpu-limit`, `--seconds`) and sizes (`--size`,
//! `--max-kdf-memory`). Properties: `shifr_input::invariants::option_value`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| shifr_input::invariants::option_value(data));
