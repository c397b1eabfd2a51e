//! `ring` (the Rust/assembly library behind rustls' `ring` provider): its AEADs through
//! `LessSafeKey::seal_in_place_separate_tag`, keyed once, one whole message (nonce, the 13-byte AAD,
//! encryption, tag) per call. `ring` offers AES-128-GCM, AES-256-GCM and ChaCha20-Poly1305; it has
//! no unauthenticated cipher modes.

use crate::workload::{bench_aad, bench_iv, bench_key, Op};
use crate::BenchError;
use ring::aead::{self, Aad, LessSafeKey, Nonce, UnboundKey};
use shifr::catalog::AlgInfo;

/// ring's AEAD for a catalogue name.
fn algorithm(name: &str) -> Option<&'static aead::Algorithm> {
    match name {
        "aes-128-gcm" => Some(&aead::AES_128_GCM),
        "aes-256-gcm" => Some(&aead::AES_256_GCM),
        "chacha20-poly1305" => Some(&aead::CHACHA20_POLY1305),
        _ => None,
    }
}

/// Whether ring offers `alg`.
pub fn offers(alg: &AlgInfo) -> bool {
    algorithm(alg.name).is_some()
}

/// The ring op for stream `stream` of `alg`, or why there is none.
pub fn op(alg: &AlgInfo, stream: usize) -> Result<Box<dyn Op>, String> {
    Ok(Box::new(Seal::new(alg, stream)?))
}

ring_api_seal!(algorithm, "ring", "ring 0.17");
