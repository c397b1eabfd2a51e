//! Parsers of untrusted text: secret files and option values. None of them reads a file or panics;
//! each returns a message fit for the tool's one-line error.

pub mod hex_arg;
pub mod number_arg;
pub mod secret_text;
