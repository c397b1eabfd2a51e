//! Parsers of what a user of the `shifr` tool types or hands over: the contents of key files and
//! passphrase files, and the values of hex, numeric and size options. None of them reads a file,
//! allocates without bound or panics; each error is a message fit for the tool's one-line report.
//!
//! A crate of its own, with no dependency beyond `hex`, `thiserror` and `zeroize`, so that the fuzz
//! targets in `fuzz/` build it quickly with sanitizers and the tests reach it directly.

pub mod hex_arg;
pub mod invariants;
pub mod number_arg;
pub mod secret_text;
