//! RustCrypto's AEADs (aes-gcm, chacha20poly1305 and the `mgm` crate over Magma and Kuznyechik),
//! keyed once: encryption seals one whole message per call (nonce, the 13-byte AAD, encryption,
//! tag) with `encrypt_in_place_detached`; decryption opens one sealed message per call with
//! `decrypt_in_place_detached` after copying it into the buffer ([`super::aead_open`]).

use super::aead_open::{rejected, Open, SealOpen};
use super::rustcrypto::Made;
use crate::workload::{bench_aad, Direction, Op};
use crate::BenchError;
use aes_gcm::aead::AeadInPlace;
use cipher::generic_array::GenericArray;

/// The op of a keyed AEAD `a` with this nonce, sealing or opening per `dir`.
pub(super) fn aead_op<A: AeadInPlace + Send + 'static, E: core::fmt::Display>(
    a: Result<A, E>,
    nonce: &[u8],
    dir: Direction,
) -> Made {
    Some(
        a.map(|a| {
            let aead = AeadOp {
                aead: a,
                nonce: nonce.to_vec(),
            };
            match dir {
                Direction::Encrypt => Box::new(aead) as Box<dyn Op>,
                Direction::Decrypt => Box::new(Open::new(aead)),
            }
        })
        .map_err(|e| e.to_string()),
    )
}

/// RustCrypto's MGM (the `mgm` crate, of the cipher-0.3 generation) over Magma or Kuznyechik.
pub(super) fn mgm_op(cipher: &str, key: &[u8], nonce: &[u8], dir: Direction) -> Made {
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
    let op = MgmOp {
        aead,
        nonce: nonce.to_vec(),
    };
    Some(Ok(match dir {
        Direction::Encrypt => Box::new(op),
        Direction::Decrypt => Box::new(Open::new(op)),
    }))
}

/// An AEAD sealing one whole message (with the 13-byte AAD) per call.
struct AeadOp<A> {
    aead: A,
    nonce: Vec<u8>,
}

impl<A: AeadInPlace + Send> Op for AeadOp<A> {
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        std::hint::black_box(self.seal_message(buf)?);
        Ok(())
    }

    fn backend(&self) -> String {
        "rustcrypto".into()
    }
}

impl<A: AeadInPlace + Send> SealOpen for AeadOp<A> {
    fn seal_message(&mut self, buf: &mut [u8]) -> Result<Vec<u8>, BenchError> {
        let nonce = GenericArray::from_slice(&self.nonce);
        let tag = self
            .aead
            .encrypt_in_place_detached(nonce, &bench_aad(), buf)
            .map_err(|_| BenchError::Unsupported("rustcrypto AEAD refused the message".into()))?;
        Ok(tag.to_vec())
    }

    fn open_message(&mut self, buf: &mut [u8], tag: &[u8]) -> Result<(), BenchError> {
        if tag.len() != self.aead_tag_len() {
            return Err(rejected("rustcrypto"));
        }
        let nonce = GenericArray::from_slice(&self.nonce);
        self.aead
            .decrypt_in_place_detached(nonce, &bench_aad(), buf, GenericArray::from_slice(tag))
            .map_err(|_| rejected("rustcrypto"))
    }

    fn backend(&self) -> String {
        "rustcrypto".into()
    }
}

impl<A: AeadInPlace> AeadOp<A> {
    /// The AEAD's tag length (the length `decrypt_in_place_detached` takes).
    fn aead_tag_len(&self) -> usize {
        <A::TagSize as cipher::typenum::Unsigned>::USIZE
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
        std::hint::black_box(self.seal_message(buf)?);
        Ok(())
    }

    fn backend(&self) -> String {
        "rustcrypto".into()
    }
}

impl SealOpen for MgmOp {
    fn seal_message(&mut self, buf: &mut [u8]) -> Result<Vec<u8>, BenchError> {
        use mgm::aead::generic_array::GenericArray;
        use mgm::aead::AeadInPlace;
        let refused = |_| BenchError::Unsupported("rustcrypto MGM refused the message".into());
        let aad = bench_aad();
        Ok(match &self.aead {
            RcMgm::Magma(a) => a
                .encrypt_in_place_detached(GenericArray::from_slice(&self.nonce), &aad, buf)
                .map_err(refused)?
                .to_vec(),
            RcMgm::Kuznyechik(a) => a
                .encrypt_in_place_detached(GenericArray::from_slice(&self.nonce), &aad, buf)
                .map_err(refused)?
                .to_vec(),
        })
    }

    fn open_message(&mut self, buf: &mut [u8], tag: &[u8]) -> Result<(), BenchError> {
        use mgm::aead::generic_array::GenericArray;
        use mgm::aead::AeadInPlace;
        let aad = bench_aad();
        let opened = match &self.aead {
            RcMgm::Magma(a) if tag.len() == 8 => a.decrypt_in_place_detached(
                GenericArray::from_slice(&self.nonce),
                &aad,
                buf,
                GenericArray::from_slice(tag),
            ),
            RcMgm::Kuznyechik(a) if tag.len() == 16 => a.decrypt_in_place_detached(
                GenericArray::from_slice(&self.nonce),
                &aad,
                buf,
                GenericArray::from_slice(tag),
            ),
            _ => return Err(rejected("rustcrypto MGM")),
        };
        opened.map_err(|_| rejected("rustcrypto MGM"))
    }

    fn backend(&self) -> String {
        "rustcrypto".into()
    }
}
