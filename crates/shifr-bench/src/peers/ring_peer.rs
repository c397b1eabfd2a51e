//! `ring` (the Rust/assembly library behind rustls' `ring` provider): its AEADs through
//! `LessSafeKey::seal_in_place_separate_tag`, keyed once, one whole message (nonce, the 13-byte AAD,
//! encryption, tag) per call; decryption opens one sealed message per call with
//! `open_in_place_separate_tag` after copying it into the buffer (`aead_open`). `ring` offers
//! AES-128-GCM, AES-256-GCM and ChaCha20-Poly1305; it has no unauthenticated cipher modes.

use super::aead_open::Open;
use crate::workload::{bench_aad, bench_iv, bench_key, Direction, Op};
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
pub fn op(alg: &AlgInfo, stream: usize, dir: Direction) -> Result<Box<dyn Op>, String> {
    let seal = Seal::new(alg, stream)?;
    Ok(match dir {
        Direction::Encrypt => Box::new(seal),
        Direction::Decrypt => Box::new(Open::new(seal)),
    })
}

/// Opens `buf` in place against `tag`; whether the tag verified.
fn open_separate_tag(key: &LessSafeKey, nonce: Nonce, tag: &[u8], buf: &mut [u8]) -> bool {
    let Ok(tag) = aead::Tag::try_from(tag) else {
        return false;
    };
    key.open_in_place_separate_tag(nonce, Aad::from(bench_aad()), tag, buf, 0..)
        .is_ok()
}

ring_api_seal!(algorithm, "ring", "ring 0.17");
