//! Hazardous materials: the primitives the safe surface is built from, for those who know what
//! they are doing — raw block ciphers and their key schedules, unauthenticated modes (ECB, CBC,
//! CTR, ...), the bare ChaCha20 key stream, MACs on their own, and byte helpers.
//!
//! Nothing here authenticates, pads or checks lengths for you: ECB leaks equal blocks,
//! `BlockCipher::encrypt_blocks` ignores trailing bytes that do not fill a block, a CTR or OFB key
//! stream reused under one key leaks the XOR of the plaintexts, and a Poly1305 key must never
//! authenticate two messages. Use the AEADs ([`crate::aead`]), the file container
//! ([`crate::container`]) or the catalogue's named algorithms ([`crate::catalog`]) unless an
//! interoperability or test requirement needs the parts.
//!
//! Where a backend uses secret-indexed tables (the portable Magma / GOST 28147-89 and Kuznyechik
//! rounds, the table DES of short 3DES calls), its module says so; every other backend is
//! constant-time.

/// Block ciphers (AES, 3DES, Magma / GOST 28147-89, Kuznyechik) behind the batch-first
/// [`block::BlockCipher`] trait.
pub mod block {
    pub use crate::block::{
        aes, kuznyechik, magma, tdes, BlockAlgorithm, BlockCipher, Chain, CounterHalf,
        DecryptChain, Feedback, KeyInit,
    };
}

/// Modes of operation without authentication, including multi-stream feedback modes.
pub mod mode {
    pub use crate::mode::{cbc, cfb, ctr, ctr_acpkm, ecb, gost89, multistream, ofb, padding};
}

/// Stream ciphers: the ChaCha20 and XChaCha20 key streams.
pub mod stream {
    pub use crate::stream::chacha20;
}

/// Message authentication codes on their own: GHASH, CMAC / OMAC, OMAC-ACPKM, Poly1305.
pub mod mac {
    pub use crate::mac::{ghash, omac, omac_acpkm, poly1305};
}

/// Byte helpers: XOR in place, a constant-time comparison, the CFB shift register.
pub mod util {
    pub use crate::util::{ct_eq, shift_in, xor_in_place};
}
