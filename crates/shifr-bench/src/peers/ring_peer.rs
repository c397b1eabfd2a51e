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

/// A keyed ring AEAD sealing one whole message per call.
pub(crate) struct Seal {
    key: LessSafeKey,
    nonce: [u8; aead::NONCE_LEN],
}

impl Seal {
    pub(crate) fn new(alg: &AlgInfo, stream: usize) -> Result<Seal, String> {
        let a = algorithm(alg.name).ok_or_else(|| format!("ring has no {}", alg.name))?;
        let key = UnboundKey::new(a, &bench_key(alg.key_len, stream))
            .map_err(|_| format!("ring refused the {} key", alg.name))?;
        let nonce = bench_iv(alg.iv.default_len(), stream)
            .try_into()
            .map_err(|_| {
                format!(
                    "{}: ring takes {}-byte nonces only",
                    alg.name,
                    aead::NONCE_LEN
                )
            })?;
        Ok(Seal {
            key: LessSafeKey::new(key),
            nonce,
        })
    }

    /// Encrypts `buf` in place and returns the tag.
    pub(crate) fn seal(&self, buf: &mut [u8]) -> Result<aead::Tag, BenchError> {
        self.key
            .seal_in_place_separate_tag(
                Nonce::assume_unique_for_key(self.nonce),
                Aad::from(bench_aad()),
                buf,
            )
            .map_err(|_| BenchError::Unsupported("ring refused the message".into()))
    }
}

impl Op for Seal {
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        let _tag = std::hint::black_box(self.seal(buf)?);
        Ok(())
    }

    fn backend(&self) -> String {
        "ring 0.17".into()
    }
}
