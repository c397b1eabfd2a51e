//! The RustCrypto crates (aes, des, magma, kuznyechik, chacha20, aes-gcm, chacha20poly1305, mgm with
//! the ecb, cbc, cfb-mode, cfb8, ofb, ctr and cmac mode crates), keyed once. Block modes keep their
//! chaining state from message to message, as OpenSSL's contexts do, and decrypt with the mode
//! crates' `Decryptor` types (OFB, CTR and ChaCha20 decrypt as they encrypt); AEADs seal a whole
//! message, or open one sealed message per call ([`super::rustcrypto_aead`]); MACs compute the tag
//! in either direction.

use super::rustcrypto_aead::{aead_op, mgm_op};
use crate::workload::{bench_iv, bench_key, Direction, Op};
use crate::BenchError;
use cipher::inout::InOutBuf;
use cipher::{
    BlockDecryptMut, BlockEncryptMut, KeyInit, KeyIvInit, StreamCipher, StreamCipherSeek,
};
use cmac::Mac;
use shifr::catalog::AlgInfo;

/// The RustCrypto op for stream `stream` of `alg`, or why there is none.
pub fn op(alg: &AlgInfo, stream: usize, dir: Direction) -> Result<Box<dyn Op>, String> {
    let dec = dir == Direction::Decrypt;
    let key = bench_key(alg.key_len, stream);
    let iv = bench_iv(alg.iv.default_len(), stream);
    let name = alg.name;
    let none = || format!("RustCrypto has no {name}");
    let made = match name {
        "chacha20" => stream_op(chacha20_at_counter(&key, &iv)),
        "xchacha20" => stream_op(chacha20::XChaCha20::new_from_slices(&key, &iv)),
        "chacha20-poly1305" => aead_op(
            chacha20poly1305::ChaCha20Poly1305::new_from_slice(&key),
            &iv,
            dir,
        ),
        "xchacha20-poly1305" => aead_op(
            chacha20poly1305::XChaCha20Poly1305::new_from_slice(&key),
            &iv,
            dir,
        ),
        "aes-128-gcm" => aead_op(aes_gcm::Aes128Gcm::new_from_slice(&key), &iv, dir),
        "aes-192-gcm" => aead_op(
            aes_gcm::AesGcm::<aes::Aes192, cipher::consts::U12>::new_from_slice(&key),
            &iv,
            dir,
        ),
        "aes-256-gcm" => aead_op(aes_gcm::Aes256Gcm::new_from_slice(&key), &iv, dir),
        "magma-mgm" => mgm_op("magma", &key, &iv, dir),
        "kuznyechik-mgm" => mgm_op("kuznyechik", &key, &iv, dir),
        "des-ede3" => tdes3("ecb", &key, &iv, dec),
        "des-ede" => tdes2("ecb", &key, &iv, dec),
        _ => {
            if let Some(mode) = name.strip_prefix("aes-128-") {
                aes128(mode, &key, &iv, dec)
            } else if let Some(mode) = name.strip_prefix("aes-192-") {
                aes192(mode, &key, &iv, dec)
            } else if let Some(mode) = name.strip_prefix("aes-256-") {
                aes256(mode, &key, &iv, dec)
            } else if let Some(mode) = name.strip_prefix("des-ede3-") {
                tdes3(mode, &key, &iv, dec)
            } else if let Some(mode) = name.strip_prefix("des-ede-") {
                tdes2(mode, &key, &iv, dec)
            } else if let Some(mode) = name.strip_prefix("magma-") {
                magma(mode, &key, &iv, dec)
            } else if let Some(mode) = name.strip_prefix("kuznyechik-") {
                kuznyechik(mode, &key, &iv, dec)
            } else {
                None
            }
        }
    };
    made.ok_or_else(none)?
}

pub(super) type Made = Option<Result<Box<dyn Op>, String>>;

/// RustCrypto's ChaCha20 for the catalogue's IV (32-bit little-endian block counter || 96-bit nonce,
/// as OpenSSL), positioned at that counter so that its key stream is shifr's.
fn chacha20_at_counter(key: &[u8], iv: &[u8]) -> Result<chacha20::ChaCha20, String> {
    let (counter, nonce) = iv
        .split_first_chunk::<4>()
        .ok_or("chacha20 takes a 16-byte IV")?;
    let mut c = chacha20::ChaCha20::new_from_slices(key, nonce).map_err(|e| e.to_string())?;
    c.try_seek(u64::from(u32::from_le_bytes(*counter)) * 64)
        .map_err(|e| e.to_string())?;
    Ok(c)
}

fn stream_op<S: StreamCipher + Send + 'static, E: core::fmt::Display>(s: Result<S, E>) -> Made {
    Some(
        s.map(|s| Box::new(Stream(s)) as Box<dyn Op>)
            .map_err(|e| e.to_string()),
    )
}

fn blocks_op<B: BlockEncryptMut + Send + 'static, E: core::fmt::Display>(b: Result<B, E>) -> Made {
    Some(
        b.map(|b| Box::new(Blocks(b)) as Box<dyn Op>)
            .map_err(|e| e.to_string()),
    )
}

fn unblocks_op<B: BlockDecryptMut + Send + 'static, E: core::fmt::Display>(
    b: Result<B, E>,
) -> Made {
    Some(
        b.map(|b| Box::new(Unblocks(b)) as Box<dyn Op>)
            .map_err(|e| e.to_string()),
    )
}

fn mac_op<M: Mac + cmac::digest::FixedOutputReset + Send + 'static, E: core::fmt::Display>(
    m: Result<M, E>,
) -> Made {
    Some(
        m.map(|m| Box::new(MacOp(m)) as Box<dyn Op>)
            .map_err(|e| e.to_string()),
    )
}

/// The modes the RustCrypto mode crates give a block cipher `$c` (decrypting with `dec`); `$ctr`
/// is the counter flavour for its block size (GOST CTR counts over the whole block, big-endian,
/// from IV || 0).
macro_rules! family {
    ($fn_name:ident, $c:ty, $ctr:ty, $gost:expr) => {
        fn $fn_name(mode: &str, key: &[u8], iv: &[u8], dec: bool) -> Made {
            match mode {
                "ecb" if dec => unblocks_op(ecb::Decryptor::<$c>::new_from_slice(key)),
                "ecb" => blocks_op(ecb::Encryptor::<$c>::new_from_slice(key)),
                "cbc" if dec => unblocks_op(cbc::Decryptor::<$c>::new_from_slices(key, iv)),
                "cbc" => blocks_op(cbc::Encryptor::<$c>::new_from_slices(key, iv)),
                "cfb" if dec => unblocks_op(cfb_mode::Decryptor::<$c>::new_from_slices(key, iv)),
                "cfb" => blocks_op(cfb_mode::Encryptor::<$c>::new_from_slices(key, iv)),
                "cfb8" if !$gost && dec => {
                    unblocks_op(cfb8::Decryptor::<$c>::new_from_slices(key, iv))
                }
                "cfb8" if !$gost => blocks_op(cfb8::Encryptor::<$c>::new_from_slices(key, iv)),
                "ofb" => stream_op(ofb::Ofb::<$c>::new_from_slices(key, iv)),
                "ctr" => {
                    let mut block = iv.to_vec();
                    if $gost {
                        block.resize(2 * iv.len(), 0);
                    }
                    stream_op(<$ctr>::new_from_slices(key, &block))
                }
                "cmac" | "mac" => mac_op(<cmac::Cmac<$c> as KeyInit>::new_from_slice(key)),
                _ => None,
            }
        }
    };
}

family!(aes128, aes::Aes128, ctr::Ctr128BE<aes::Aes128>, false);
family!(aes192, aes::Aes192, ctr::Ctr128BE<aes::Aes192>, false);
family!(aes256, aes::Aes256, ctr::Ctr128BE<aes::Aes256>, false);
family!(tdes3, des::TdesEde3, ctr::Ctr64BE<des::TdesEde3>, false);
family!(tdes2, des::TdesEde2, ctr::Ctr64BE<des::TdesEde2>, false);
family!(magma, magma::Magma, ctr::Ctr64BE<magma::Magma>, true);
family!(
    kuznyechik,
    kuznyechik::Kuznyechik,
    ctr::Ctr128BE<kuznyechik::Kuznyechik>,
    true
);

/// A block mode encrypting the whole blocks of each message (chaining continues across messages).
struct Blocks<B>(B);

impl<B: BlockEncryptMut + Send> Op for Blocks<B> {
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        let (blocks, _tail) = InOutBuf::from(buf).into_chunks();
        self.0.encrypt_blocks_inout_mut(blocks);
        Ok(())
    }

    fn backend(&self) -> String {
        "rustcrypto".into()
    }
}

/// A block mode decrypting the whole blocks of each message (chaining continues across messages).
struct Unblocks<B>(B);

impl<B: BlockDecryptMut + Send> Op for Unblocks<B> {
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        let (blocks, _tail) = InOutBuf::from(buf).into_chunks();
        self.0.decrypt_blocks_inout_mut(blocks);
        Ok(())
    }

    fn backend(&self) -> String {
        "rustcrypto".into()
    }
}

/// A stream cipher (or stream-like mode) continuing its key stream across messages.
struct Stream<S>(S);

impl<S: StreamCipher + Send> Op for Stream<S> {
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        self.0
            .try_apply_keystream(buf)
            .map_err(|e| BenchError::Unsupported(format!("rustcrypto: {e}")))
    }

    fn backend(&self) -> String {
        "rustcrypto".into()
    }
}

/// CMAC / GOST MAC over each message.
struct MacOp<M>(M);

impl<M: Mac + cmac::digest::FixedOutputReset + Send> Op for MacOp<M> {
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        Mac::update(&mut self.0, buf);
        std::hint::black_box(self.0.finalize_reset());
        Ok(())
    }

    fn backend(&self) -> String {
        "rustcrypto".into()
    }
}
