//! Modes of operation for any [`BlockCipher`](crate::block::BlockCipher): ECB, CBC, CFB, OFB, CTR,
//! CTR-ACPKM, padding, and multi-stream feedback modes (many independent streams in one call).

pub mod algorithm;
pub mod cbc;
pub mod cfb;
pub mod ctr;
pub mod ctr_acpkm;
pub mod ecb;
pub mod gost89;
pub mod multistream;
pub mod ofb;
pub mod padding;
