//! The RustCrypto crates (aes, des, magma, kuznyechik, chacha20, aes-gcm, chacha20poly1305, mgm with
//! the ecb, cbc, cfb-mode, cfb8, ofb, ctr and cmac mode crates), keyed once. Block modes keep their
//! chaining state from message to message, as OpenSSL's contexts do; AEADs seal a whole message.

use crate::workload::{bench_aad, bench_iv, bench_key, Op};
use crate::BenchError;
use aes_gcm::aead::AeadInPlace;
use cipher::generic_array::GenericArray;
use cipher::inout::InOutBuf;
use cipher::{BlockEncryptMut, KeyInit, KeyIvInit, StreamCipher};
use cmac::Mac;
use shifr::catalog::AlgInfo;

/// The RustCrypto op for stream `stream` of `alg`, or why there is none.
pub fn op(alg: &AlgInfo, stream: usize) -> Result<Box<dyn Op>, String> {
    let key = bench_key(alg.key_len, stream);
    let iv = bench_iv(alg.iv.default_len(), stream);
    let name = alg.name;
    let none = || format!("RustCrypto has no {name}");
    let made = match name {
        "chacha20" => stream_op(chacha20::ChaCha20::new_from_slices(&key, &iv[4..])),
        "xchacha20" => stream_op(chacha20::XChaCha20::new_from_slices(&key, &iv)),
        "chacha20-poly1305" => aead_op(
            chacha20poly1305::ChaCha20Poly1305::new_from_slice(&key),
            &iv,
        ),
        "xchacha20-poly1305" => aead_op(
            chacha20poly1305::XChaCha20Poly1305::new_from_slice(&key),
            &iv,
        ),
        "aes-128-gcm" => aead_op(aes_gcm::Aes128Gcm::new_from_slice(&key), &iv),
        "aes-192-gcm" => aead_op(
            aes_gcm::AesGcm::<aes::Aes192, cipher::consts::U12>::new_from_slice(&key),
            &iv,
        ),
        "aes-256-gcm" => aead_op(aes_gcm::Aes256Gcm::new_from_slice(&key), &iv),
        "magma-mgm" => mgm_op("magma", &key, &iv),
        "kuznyechik-mgm" => mgm_op("kuznyechik", &key, &iv),
        "des-ede3" => tdes3("ecb", &key, &iv),
        "des-ede" => tdes2("ecb", &key, &iv),
        _ => {
            if let Some(mode) = name.strip_prefix("aes-128-") {
                aes128(mode, &key, &iv)
            } else if let Some(mode) = name.strip_prefix("aes-192-") {
                aes192(mode, &key, &iv)
            } else if let Some(mode) = name.strip_prefix("aes-256-") {
                aes256(mode, &key, &iv)
            } else if let Some(mode) = name.strip_prefix("des-ede3-") {
                tdes3(mode, &key, &iv)
            } else if let Some(mode) = name.strip_prefix("des-ede-") {
                tdes2(mode, &key, &iv)
            } else if let Some(mode) = name.strip_prefix("magma-") {
                magma(mode, &key, &iv)
            } else if let Some(mode) = name.strip_prefix("kuznyechik-") {
                kuznyechik(mode, &key, &iv)
            } else {
                None
            }
        }
    };
    made.ok_or_else(none)?
}

type Made = Option<Result<Box<dyn Op>, String>>;

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

fn mac_op<M: Mac + cmac::digest::FixedOutputReset + Send + 'static, E: core::fmt::Display>(
    m: Result<M, E>,
) -> Made {
    Some(
        m.map(|m| Box::new(MacOp(m)) as Box<dyn Op>)
            .map_err(|e| e.to_string()),
    )
}

fn aead_op<A: AeadInPlace + Send + 'static, E: core::fmt::Display>(
    a: Result<A, E>,
    nonce: &[u8],
) -> Made {
    Some(
        a.map(|a| {
            Box::new(AeadOp {
                aead: a,
                nonce: nonce.to_vec(),
            }) as Box<dyn Op>
        })
        .map_err(|e| e.to_string()),
    )
}

/// RustCrypto's MGM (the `mgm` crate, of the cipher-0.3 generation) over Magma or Kuznyechik.
fn mgm_op(cipher: &str, key: &[u8], nonce: &[u8]) -> Made {
    use mgm::aead::generic_array::GenericArray;
    use mgm::aead::NewAead;
    let (key_len, nonce_len) = if cipher == "magma" { (32, 8) } else { (32, 16) };
    if key.len() != key_len || nonce.len() != nonce_len {
        return Some(Err(
            "key or nonce length does not fit RustCrypto's MGM".into()
        ));
    }
    let key = GenericArray::from_slice(key);
    let aead = if cipher == "magma" {
        RcMgm::Magma(mgm::Mgm::new(key))
    } else {
        RcMgm::Kuznyechik(Box::new(mgm::Mgm::new(key)))
    };
    Some(Ok(Box::new(MgmOp {
        aead,
        nonce: nonce.to_vec(),
    })))
}

/// The modes the RustCrypto mode crates give a block cipher `$c`; `$ctr` is the counter flavour
/// for its block size (GOST CTR counts over the whole block, big-endian, from IV || 0).
macro_rules! family {
    ($fn_name:ident, $c:ty, $ctr:ty, $gost:expr) => {
        fn $fn_name(mode: &str, key: &[u8], iv: &[u8]) -> Made {
            match mode {
                "ecb" => blocks_op(ecb::Encryptor::<$c>::new_from_slice(key)),
                "cbc" => blocks_op(cbc::Encryptor::<$c>::new_from_slices(key, iv)),
                "cfb" => blocks_op(cfb_mode::Encryptor::<$c>::new_from_slices(key, iv)),
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

/// An AEAD sealing one whole message (with the 13-byte AAD) per call.
struct AeadOp<A> {
    aead: A,
    nonce: Vec<u8>,
}

impl<A: AeadInPlace + Send> Op for AeadOp<A> {
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        let nonce = GenericArray::from_slice(&self.nonce);
        let tag = self
            .aead
            .encrypt_in_place_detached(nonce, &bench_aad(), buf)
            .map_err(|_| BenchError::Unsupported("rustcrypto AEAD refused the message".into()))?;
        std::hint::black_box(tag);
        Ok(())
    }

    fn backend(&self) -> String {
        "rustcrypto".into()
    }
}

/// RustCrypto's MGM over one of the two GOST ciphers.
enum RcMgm {
    Magma(mgm::Mgm<magma_mgm::Magma>),
    Kuznyechik(Box<mgm::Mgm<kuznyechik_mgm::Kuznyechik>>),
}

/// RustCrypto's MGM sealing one whole message (with the 13-byte AAD) per call.
struct MgmOp {
    aead: RcMgm,
    nonce: Vec<u8>,
}

impl Op for MgmOp {
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        use mgm::aead::generic_array::GenericArray;
        use mgm::aead::AeadInPlace;
        let refused = |_| BenchError::Unsupported("rustcrypto MGM refused the message".into());
        let aad = bench_aad();
        match &self.aead {
            RcMgm::Magma(a) => {
                let tag = a
                    .encrypt_in_place_detached(GenericArray::from_slice(&self.nonce), &aad, buf)
                    .map_err(refused)?;
                std::hint::black_box(tag);
            }
            RcMgm::Kuznyechik(a) => {
                let tag = a
                    .encrypt_in_place_detached(GenericArray::from_slice(&self.nonce), &aad, buf)
                    .map_err(refused)?;
                std::hint::black_box(tag);
            }
        }
        Ok(())
    }

    fn backend(&self) -> String {
        "rustcrypto".into()
    }
}
