//! shifr-bench: measurement of shifr's ciphers and the seed-study reproductions.

pub mod study;
