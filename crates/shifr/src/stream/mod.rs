//! Stream ciphers: ChaCha20 (RFC 8439) and XChaCha20.

pub mod chacha20;
