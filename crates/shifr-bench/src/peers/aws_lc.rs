//! AWS-LC (Amazon's fork of BoringSSL, rustls' default provider) through `aws-lc-rs`, keyed once:
//!
//! - AEADs (AES-128/192/256-GCM, ChaCha20-Poly1305) through `LessSafeKey::seal_in_place_separate_tag`,
//!   one whole message (nonce, the 13-byte AAD, encryption, tag) per call; decryption opens one
//!   sealed message per call with `open_in_place_separate_tag` after copying it into the buffer
//!   (`aead_open`);
//! - the unauthenticated AES modes aws-lc-rs exposes (`cipher::EncryptingKey` / `DecryptingKey`:
//!   CTR, CBC without padding, CFB128 and ECB, 128/192/256-bit keys) through `less_safe_encrypt` /
//!   `decrypt`, in place, each message from the stream's IV (the timing does not depend on where
//!   the chain starts; aws-lc-rs keys carry no chaining state between calls).

use super::aead_open::Open;
use crate::workload::{bench_aad, bench_iv, bench_key, Direction, Op};
use crate::BenchError;
use aws_lc_rs::aead::{self, Aad, LessSafeKey, Nonce, UnboundKey};
use aws_lc_rs::cipher::{
    DecryptingKey, DecryptionContext, EncryptingKey, EncryptionContext, UnboundCipherKey,
};
use aws_lc_rs::iv::FixedLength;
use shifr::catalog::AlgInfo;

/// aws-lc-rs's AEAD for a catalogue name.
fn aead_algorithm(name: &str) -> Option<&'static aead::Algorithm> {
    match name {
        "aes-128-gcm" => Some(&aead::AES_128_GCM),
        "aes-192-gcm" => Some(&aead::AES_192_GCM),
        "aes-256-gcm" => Some(&aead::AES_256_GCM),
        "chacha20-poly1305" => Some(&aead::CHACHA20_POLY1305),
        _ => None,
    }
}

/// The unauthenticated AES modes aws-lc-rs exposes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Ecb,
    Cbc,
    Cfb128,
    Ctr,
}

/// aws-lc-rs's cipher and mode for a catalogue name.
fn cipher_algorithm(name: &str) -> Option<(&'static aws_lc_rs::cipher::Algorithm, Mode)> {
    let rest = name.strip_prefix("aes-")?;
    let (bits, mode) = rest.split_once('-')?;
    let cipher = match bits {
        "128" => &aws_lc_rs::cipher::AES_128,
        "192" => &aws_lc_rs::cipher::AES_192,
        "256" => &aws_lc_rs::cipher::AES_256,
        _ => return None,
    };
    let mode = match mode {
        "ecb" => Mode::Ecb,
        "cbc" => Mode::Cbc,
        "cfb" => Mode::Cfb128,
        "ctr" => Mode::Ctr,
        _ => return None,
    };
    Some((cipher, mode))
}

/// Whether aws-lc-rs offers `alg`.
pub fn offers(alg: &AlgInfo) -> bool {
    aead_algorithm(alg.name).is_some() || cipher_algorithm(alg.name).is_some()
}

/// The AWS-LC op for stream `stream` of `alg`, or why there is none.
pub fn op(alg: &AlgInfo, stream: usize, dir: Direction) -> Result<Box<dyn Op>, String> {
    if aead_algorithm(alg.name).is_some() {
        let seal = Seal::new(alg, stream)?;
        return Ok(match dir {
            Direction::Encrypt => Box::new(seal),
            Direction::Decrypt => Box::new(Open::new(seal)),
        });
    }
    Ok(match dir {
        Direction::Encrypt => Box::new(Encrypt::new(alg, stream)?),
        Direction::Decrypt => Box::new(Decrypt::new(alg, stream)?),
    })
}

ring_api_seal!(aead_algorithm, "aws-lc-rs", "aws-lc-rs 1");

/// Opens `buf` in place against `tag`; whether the tag verified.
fn open_separate_tag(key: &LessSafeKey, nonce: Nonce, tag: &[u8], buf: &mut [u8]) -> bool {
    key.open_in_place_separate_tag(nonce, Aad::from(bench_aad()), tag, buf)
        .is_ok()
}

/// The cipher, mode, unbound key and IV (none for ECB) of stream `stream` of `alg`.
fn cipher_key(
    alg: &AlgInfo,
    stream: usize,
) -> Result<(UnboundCipherKey, Mode, Option<[u8; 16]>), String> {
    let (cipher, mode) =
        cipher_algorithm(alg.name).ok_or_else(|| format!("aws-lc-rs has no {}", alg.name))?;
    let key =
        UnboundCipherKey::new(cipher, &bench_key(alg.key_len, stream)).map_err(|_| refused(alg))?;
    let iv = match mode {
        Mode::Ecb => None,
        _ => Some(
            bench_iv(alg.iv.default_len(), stream)
                .try_into()
                .map_err(|_| format!("{}: aws-lc-rs takes 16-byte IVs", alg.name))?,
        ),
    };
    Ok((key, mode, iv))
}

fn refused(alg: &AlgInfo) -> String {
    format!("aws-lc-rs refused the {} key", alg.name)
}

/// A keyed AWS-LC AES mode encrypting each message in place.
pub(crate) struct Encrypt {
    key: EncryptingKey,
    iv: Option<[u8; 16]>,
}

impl Encrypt {
    pub(crate) fn new(alg: &AlgInfo, stream: usize) -> Result<Encrypt, String> {
        let (key, mode, iv) = cipher_key(alg, stream)?;
        let key = match mode {
            Mode::Ecb => EncryptingKey::ecb(key),
            Mode::Cbc => EncryptingKey::cbc(key),
            Mode::Cfb128 => EncryptingKey::cfb128(key),
            Mode::Ctr => EncryptingKey::ctr(key),
        }
        .map_err(|_| refused(alg))?;
        Ok(Encrypt { key, iv })
    }
}

impl Op for Encrypt {
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        let context = match self.iv {
            Some(iv) => EncryptionContext::Iv128(FixedLength::from(iv)),
            None => EncryptionContext::None,
        };
        self.key
            .less_safe_encrypt(buf, context)
            .map_err(|_| BenchError::Unsupported("aws-lc-rs refused the message".into()))?;
        Ok(())
    }

    fn backend(&self) -> String {
        "aws-lc-rs 1".into()
    }
}

/// A keyed AWS-LC AES mode decrypting each message in place.
pub(crate) struct Decrypt {
    key: DecryptingKey,
    iv: Option<[u8; 16]>,
}

impl Decrypt {
    pub(crate) fn new(alg: &AlgInfo, stream: usize) -> Result<Decrypt, String> {
        let (key, mode, iv) = cipher_key(alg, stream)?;
        let key = match mode {
            Mode::Ecb => DecryptingKey::ecb(key),
            Mode::Cbc => DecryptingKey::cbc(key),
            Mode::Cfb128 => DecryptingKey::cfb128(key),
            Mode::Ctr => DecryptingKey::ctr(key),
        }
        .map_err(|_| refused(alg))?;
        Ok(Decrypt { key, iv })
    }
}

impl Op for Decrypt {
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        let context = match self.iv {
            Some(iv) => DecryptionContext::Iv128(FixedLength::from(iv)),
            None => DecryptionContext::None,
        };
        self.key
            .decrypt(buf, context)
            .map_err(|_| BenchError::Unsupported("aws-lc-rs refused the message".into()))?;
        Ok(())
    }

    fn backend(&self) -> String {
        "aws-lc-rs 1".into()
    }
}
