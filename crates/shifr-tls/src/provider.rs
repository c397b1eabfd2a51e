//! A rustls [`CryptoProvider`] whose record protection is shifr's own: ChaCha20-Poly1305
//! ([`shifr::aead::chacha20poly1305`]) and AES-128/256-GCM ([`shifr::aead::gcm`]) for TLS 1.3 and for
//! the TLS 1.2 ECDHE-ECDSA suites (RFC 5288 / RFC 7905 nonce construction).
//!
//! Only the AEADs are replaced: key exchange (X25519, P-256, P-384), signatures, hashing, HKDF, the
//! TLS 1.2 PRF and the random source stay those of rustls' `ring` provider, taken from its suites, so
//! that a comparison with the ring provider differs in the record layer alone — which is what the seed
//! measures.
//!
//! Backends are chosen by [`shifr::cpu::select`] when a key is installed, so `SHIFR_BACKEND=portable`
//! in the process environment makes every record go through the portable, constant-time code (the
//! bitsliced AES and scalar ChaCha20): that is how the study runs this provider "without AES
//! instructions". [`implementation`] says what a process would use.

use rustls::crypto::cipher::{
    make_tls12_aad, make_tls13_aad, AeadKey, InboundOpaqueMessage, InboundPlainMessage, Iv,
    KeyBlockShape, MessageDecrypter, MessageEncrypter, Nonce, OutboundOpaqueMessage,
    OutboundPlainMessage, PrefixedPayload, Tls12AeadAlgorithm, Tls13AeadAlgorithm,
    UnsupportedOperationError, NONCE_LEN,
};
use rustls::crypto::ring::cipher_suite as ring_suites;
use rustls::crypto::CryptoProvider;
use rustls::{
    CipherSuiteCommon, ConnectionTrafficSecrets, ContentType, Error, ProtocolVersion,
    SupportedCipherSuite, Tls12CipherSuite, Tls13CipherSuite,
};
use shifr::aead::Aead;
use shifr::catalog::{self, AlgInfo};
use std::sync::OnceLock;

const TAG_LEN: usize = 16;
/// TLS 1.2 GCM: 4-byte implicit salt from the key block, 8-byte explicit nonce in each record.
const GCM_SALT_LEN: usize = 4;
const GCM_EXPLICIT_LEN: usize = 8;

/// The AEAD behind a suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    ChaCha20Poly1305,
    Aes128Gcm,
    Aes256Gcm,
}

impl Kind {
    fn key_len(self) -> usize {
        match self {
            Kind::Aes128Gcm => 16,
            _ => 32,
        }
    }

    /// The catalogue entry of the suite's AEAD.
    fn algorithm(self) -> Option<&'static AlgInfo> {
        catalog::lookup(match self {
            Kind::ChaCha20Poly1305 => "chacha20-poly1305",
            Kind::Aes128Gcm => "aes-128-gcm",
            Kind::Aes256Gcm => "aes-256-gcm",
        })
        .ok()
    }

    /// A keyed shifr AEAD. rustls hands over keys of exactly `key_len` bytes, so a refusal is a
    /// broken invariant; it surfaces as an encryption / decryption error on the first record.
    fn keyed(self, key: &[u8]) -> Option<Box<dyn Aead>> {
        let aead = self.algorithm()?.aead(key, Some(TAG_LEN)).ok()?;
        Some(aead)
    }

    fn secrets(self, key: AeadKey, iv: Iv) -> ConnectionTrafficSecrets {
        match self {
            Kind::ChaCha20Poly1305 => ConnectionTrafficSecrets::Chacha20Poly1305 { key, iv },
            Kind::Aes128Gcm => ConnectionTrafficSecrets::Aes128Gcm { key, iv },
            Kind::Aes256Gcm => ConnectionTrafficSecrets::Aes256Gcm { key, iv },
        }
    }
}

static CHACHA: Kind = Kind::ChaCha20Poly1305;
static AES128: Kind = Kind::Aes128Gcm;
static AES256: Kind = Kind::Aes256Gcm;

/// rustls' ring provider with the six AEAD suites replaced by shifr-backed ones (the ring provider's
/// RSA suites are left out: the study's certificate is ECDSA).
pub fn provider() -> CryptoProvider {
    let mut p = rustls::crypto::ring::default_provider();
    p.cipher_suites = suites().to_vec();
    p
}

/// The shifr-backed suites, TLS 1.3 first, in rustls' default preference order.
pub fn suites() -> &'static [SupportedCipherSuite] {
    static SUITES: OnceLock<Vec<SupportedCipherSuite>> = OnceLock::new();
    SUITES.get_or_init(|| {
        [
            (ring_suites::TLS13_AES_256_GCM_SHA384, &AES256),
            (ring_suites::TLS13_AES_128_GCM_SHA256, &AES128),
            (ring_suites::TLS13_CHACHA20_POLY1305_SHA256, &CHACHA),
            (
                ring_suites::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
                &AES256,
            ),
            (
                ring_suites::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
                &AES128,
            ),
            (
                ring_suites::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
                &CHACHA,
            ),
        ]
        .into_iter()
        .map(|(ring, kind)| with_shifr_aead(ring, kind))
        .collect()
    })
}

/// The same suite as `ring`'s, with its AEAD replaced. The suite lives for the whole process (rustls
/// wants `'static` suites); it is built once, by [`suites`].
fn with_shifr_aead(ring: SupportedCipherSuite, kind: &'static Kind) -> SupportedCipherSuite {
    let common = |c: &CipherSuiteCommon| CipherSuiteCommon {
        suite: c.suite,
        hash_provider: c.hash_provider,
        confidentiality_limit: c.confidentiality_limit,
    };
    match ring {
        SupportedCipherSuite::Tls13(r) => {
            SupportedCipherSuite::Tls13(Box::leak(Box::new(Tls13CipherSuite {
                common: common(&r.common),
                hkdf_provider: r.hkdf_provider,
                aead_alg: kind,
                quic: None,
            })))
        }
        SupportedCipherSuite::Tls12(r) => {
            SupportedCipherSuite::Tls12(Box::leak(Box::new(Tls12CipherSuite {
                common: common(&r.common),
                prf_provider: r.prf_provider,
                kx: r.kx,
                sign: r.sign,
                aead_alg: kind,
            })))
        }
    }
}

/// What shifr runs for `cipher` in this process: `aes-gcm aesni`, `chacha20 avx2 + poly1305`, ...
pub fn implementation(cipher: crate::combo::Cipher) -> String {
    use crate::combo::Cipher;
    let backend = |kind: Kind| {
        kind.algorithm().map_or_else(
            || "not in the catalogue".into(),
            |a| a.implementation().to_string(),
        )
    };
    match cipher {
        Cipher::ChaCha20 => format!("chacha20 {} + poly1305", backend(Kind::ChaCha20Poly1305)),
        Cipher::Aes128Gcm | Cipher::Aes256Gcm => format!("aes-gcm {}", backend(Kind::Aes128Gcm)),
        Cipher::Aes128Cbc | Cipher::Aes256Cbc => "not offered by this provider".into(),
    }
}

impl Tls13AeadAlgorithm for Kind {
    fn encrypter(&self, key: AeadKey, iv: Iv) -> Box<dyn MessageEncrypter> {
        Box::new(Tls13Records {
            aead: self.keyed(key.as_ref()),
            iv,
        })
    }

    fn decrypter(&self, key: AeadKey, iv: Iv) -> Box<dyn MessageDecrypter> {
        Box::new(Tls13Records {
            aead: self.keyed(key.as_ref()),
            iv,
        })
    }

    fn key_len(&self) -> usize {
        Kind::key_len(*self)
    }

    fn extract_keys(
        &self,
        key: AeadKey,
        iv: Iv,
    ) -> Result<ConnectionTrafficSecrets, UnsupportedOperationError> {
        Ok(self.secrets(key, iv))
    }
}

/// TLS 1.3 record protection (RFC 8446 section 5.2): nonce = IV xor sequence number, the inner
/// content type appended to the plaintext, the record header as AAD.
struct Tls13Records {
    aead: Option<Box<dyn Aead>>,
    iv: Iv,
}

impl MessageEncrypter for Tls13Records {
    fn encrypt(
        &mut self,
        msg: OutboundPlainMessage<'_>,
        seq: u64,
    ) -> Result<OutboundOpaqueMessage, Error> {
        let aead = self.aead.as_ref().ok_or(Error::EncryptError)?;
        let total = self.encrypted_payload_len(msg.payload.len());
        let mut payload = PrefixedPayload::with_capacity(total);
        payload.extend_from_chunks(&msg.payload);
        payload.extend_from_slice(&[u8::from(msg.typ)]);
        let nonce = Nonce::new(&self.iv, seq).0;
        let tag = aead
            .seal(&nonce, &make_tls13_aad(total), payload.as_mut())
            .map_err(|_| Error::EncryptError)?;
        payload.extend_from_slice(tag.as_ref());
        // TLS 1.3 records carry the legacy version 1.2 (RFC 8446 section 5.1).
        Ok(OutboundOpaqueMessage::new(
            ContentType::ApplicationData,
            ProtocolVersion::TLSv1_2,
            payload,
        ))
    }

    fn encrypted_payload_len(&self, payload_len: usize) -> usize {
        payload_len + 1 + TAG_LEN
    }
}

impl MessageDecrypter for Tls13Records {
    fn decrypt<'a>(
        &mut self,
        mut msg: InboundOpaqueMessage<'a>,
        seq: u64,
    ) -> Result<InboundPlainMessage<'a>, Error> {
        let aead = self.aead.as_ref().ok_or(Error::DecryptError)?;
        let len = msg.payload.len();
        let Some(plain_len) = len.checked_sub(TAG_LEN) else {
            return Err(Error::DecryptError);
        };
        let nonce = Nonce::new(&self.iv, seq).0;
        let (data, tag) = msg.payload.split_at_mut(plain_len);
        aead.open(&nonce, &make_tls13_aad(len), data, tag)
            .map_err(|_| Error::DecryptError)?;
        msg.payload.truncate(plain_len);
        msg.into_tls13_unpadded_message()
    }
}

impl Tls12AeadAlgorithm for Kind {
    fn encrypter(&self, key: AeadKey, iv: &[u8], extra: &[u8]) -> Box<dyn MessageEncrypter> {
        Box::new(Tls12Records {
            aead: self.keyed(key.as_ref()),
            iv: self.tls12_iv(iv, extra),
            explicit: *self != Kind::ChaCha20Poly1305,
        })
    }

    fn decrypter(&self, key: AeadKey, iv: &[u8]) -> Box<dyn MessageDecrypter> {
        Box::new(Tls12Records {
            aead: self.keyed(key.as_ref()),
            iv: self.tls12_iv(iv, &[]),
            explicit: *self != Kind::ChaCha20Poly1305,
        })
    }

    fn key_block_shape(&self) -> KeyBlockShape {
        match self {
            // RFC 7905: a 12-byte fixed IV from the key block, no explicit nonce.
            Kind::ChaCha20Poly1305 => KeyBlockShape {
                enc_key_len: 32,
                fixed_iv_len: NONCE_LEN,
                explicit_nonce_len: 0,
            },
            // RFC 5288: a 4-byte salt from the key block, an 8-byte explicit nonce per record.
            _ => KeyBlockShape {
                enc_key_len: Kind::key_len(*self),
                fixed_iv_len: GCM_SALT_LEN,
                explicit_nonce_len: GCM_EXPLICIT_LEN,
            },
        }
    }

    fn extract_keys(
        &self,
        key: AeadKey,
        iv: &[u8],
        explicit: &[u8],
    ) -> Result<ConnectionTrafficSecrets, UnsupportedOperationError> {
        Ok(self.secrets(key, self.tls12_iv(iv, explicit)))
    }
}

impl Kind {
    /// The 12-byte nonce base: the ChaCha20 fixed IV, or the GCM salt followed by the 8 extra
    /// key-block bytes rustls provides for the explicit part (zero on the decrypting side, where the
    /// explicit part comes from each record).
    fn tls12_iv(self, fixed: &[u8], extra: &[u8]) -> Iv {
        let mut iv = [0u8; NONCE_LEN];
        let fixed = &fixed[..fixed.len().min(NONCE_LEN)];
        iv[..fixed.len()].copy_from_slice(fixed);
        let room = NONCE_LEN - fixed.len();
        let extra = &extra[..extra.len().min(room)];
        iv[fixed.len()..fixed.len() + extra.len()].copy_from_slice(extra);
        Iv::from(iv)
    }
}

/// TLS 1.2 AEAD records (RFC 5246 section 6.2.3.3): AAD = sequence number, type, version, length.
/// GCM sends the last 8 nonce bytes in front of the ciphertext; they are the key-block bytes xor the
/// sequence number, so they never repeat under one key.
struct Tls12Records {
    aead: Option<Box<dyn Aead>>,
    iv: Iv,
    explicit: bool,
}

impl Tls12Records {
    fn explicit_len(&self) -> usize {
        if self.explicit {
            GCM_EXPLICIT_LEN
        } else {
            0
        }
    }
}

impl MessageEncrypter for Tls12Records {
    fn encrypt(
        &mut self,
        msg: OutboundPlainMessage<'_>,
        seq: u64,
    ) -> Result<OutboundOpaqueMessage, Error> {
        let aead = self.aead.as_ref().ok_or(Error::EncryptError)?;
        let total = self.encrypted_payload_len(msg.payload.len());
        let nonce = Nonce::new(&self.iv, seq).0;
        let aad = make_tls12_aad(seq, msg.typ, msg.version, msg.payload.len());
        let mut payload = PrefixedPayload::with_capacity(total);
        let start = self.explicit_len();
        payload.extend_from_slice(&nonce[NONCE_LEN - start..]);
        payload.extend_from_chunks(&msg.payload);
        let tag = aead
            .seal(&nonce, &aad, &mut payload.as_mut()[start..])
            .map_err(|_| Error::EncryptError)?;
        payload.extend_from_slice(tag.as_ref());
        Ok(OutboundOpaqueMessage::new(msg.typ, msg.version, payload))
    }

    fn encrypted_payload_len(&self, payload_len: usize) -> usize {
        self.explicit_len() + payload_len + TAG_LEN
    }
}

impl MessageDecrypter for Tls12Records {
    fn decrypt<'a>(
        &mut self,
        mut msg: InboundOpaqueMessage<'a>,
        seq: u64,
    ) -> Result<InboundPlainMessage<'a>, Error> {
        let aead = self.aead.as_ref().ok_or(Error::DecryptError)?;
        let start = self.explicit_len();
        let len = msg.payload.len();
        if len < start + TAG_LEN {
            return Err(Error::DecryptError);
        }
        let end = len - TAG_LEN;
        let mut nonce = Nonce::new(&self.iv, seq).0;
        if self.explicit {
            // GCM: salt from the key block, the rest as sent.
            nonce[GCM_SALT_LEN..].copy_from_slice(&msg.payload[..GCM_EXPLICIT_LEN]);
        }
        let aad = make_tls12_aad(seq, msg.typ, msg.version, end - start);
        let (head, tag) = msg.payload.split_at_mut(end);
        aead.open(&nonce, &aad, &mut head[start..], tag)
            .map_err(|_| Error::DecryptError)?;
        Ok(msg.into_plain_message_range(start..end))
    }
}

#[cfg(test)]
mod tests;
