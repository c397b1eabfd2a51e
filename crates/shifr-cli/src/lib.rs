//! The pure parsers of the `shifr` tool: what a key file, a passphrase file and the numeric and hex
//! options may hold. They are a library so that the fuzz targets in `fuzz/` and the tests reach them
//! directly; the binary (`src/main.rs`) does everything else.

pub mod parse;
