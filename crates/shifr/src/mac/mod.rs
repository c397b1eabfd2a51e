//! Message authentication codes: Poly1305, GHASH (for GCM), OMAC/CMAC (the GOST R 34.13 MAC) and
//! OMAC-ACPKM.

pub mod algorithm;
pub mod ghash;
pub mod omac;
pub mod omac_acpkm;
pub mod poly1305;
pub(crate) mod poly1305_field;
#[cfg(target_arch = "x86_64")]
mod poly1305_ifma;
pub(crate) mod poly1305_u64;
#[cfg(target_arch = "x86_64")]
mod poly1305_x86;
