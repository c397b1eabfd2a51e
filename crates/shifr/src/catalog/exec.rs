//! Runs a catalogue entry: builds the keyed primitive and applies the mode in one shot.

use super::{AlgInfo, Kind, Output, Padding, Params};
use crate::aead::chacha20poly1305::{ChaCha20Poly1305, XChaCha20Poly1305};
use crate::aead::gcm::AesGcm;
use crate::aead::mgm::Mgm;
use crate::aead::Aead;
use crate::block::aes::Aes;
use crate::block::kuznyechik::Kuznyechik;
use crate::block::magma::{Gost28147, Magma, SBox};
use crate::block::tdes::Tdes;
use crate::block::KeyInit;
use crate::mac::{omac, omac_acpkm};
use crate::mode::gost89::{self, KeyMeshing};
use crate::mode::{cbc, cfb, ctr, ctr_acpkm, ecb, ofb, padding};
use crate::stream::chacha20::{ChaCha20, XChaCha20};
use crate::util::ct_eq;
use crate::{Error, Result};
use zeroize::Zeroize;

/// The block cipher behind a block-mode entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    Aes,
    Tdes,
    Magma,
    Kuznyechik,
    /// GOST 28147-89 with OpenSSL's `gost89` byte conventions and the given S-box set.
    Gost28147(SBox),
}

impl Family {
    pub(crate) const fn block_size(self) -> usize {
        match self {
            Family::Aes | Family::Kuznyechik => 16,
            Family::Tdes | Family::Magma | Family::Gost28147(_) => 8,
        }
    }
}

/// The mode a block-cipher entry runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Ecb,
    Cbc,
    /// CFB with `segment` bytes per step (register = the IV).
    Cfb {
        segment: usize,
    },
    Ofb,
    /// SP 800-38A counter: the IV is the whole initial counter block.
    Ctr,
    /// GOST R 34.13 counter: the IV is half a block.
    GostCtr,
    CtrAcpkm,
    /// GOST 28147-89 CFB with CryptoPro key meshing (OpenSSL `gost89`).
    Gost89Cfb,
    /// GOST 28147-89 counter mode with CryptoPro key meshing (OpenSSL `gost89-cnt`, `gost89-cnt-12`).
    Gost89Cnt,
    Mgm,
    Cmac,
    OmacAcpkm,
}

/// What runs an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Engine {
    Block {
        family: Family,
        mode: Mode,
    },
    /// AES-GCM, keyed as a whole (GHASH needs its own key derived from the AES key).
    AesGcm,
    ChaCha20,
    XChaCha20,
    ChaCha20Poly1305,
    XChaCha20Poly1305,
}

impl Engine {
    /// The block-cipher mode, for block-cipher entries.
    pub(crate) fn mode(self) -> Option<Mode> {
        match self {
            Engine::Block { mode, .. } => Some(mode),
            _ => None,
        }
    }
}

/// See [`AlgInfo::implementation`].
pub(crate) fn implementation(alg: &AlgInfo) -> &'static str {
    const PORTABLE: &str = "portable";
    let zero_key = [0u8; 32];
    match alg.engine {
        Engine::Block {
            family: Family::Aes,
            ..
        }
        | Engine::AesGcm => {
            Aes::new(&zero_key[..alg.key_len]).map_or(PORTABLE, |a| a.backend().name())
        }
        Engine::ChaCha20
        | Engine::XChaCha20
        | Engine::ChaCha20Poly1305
        | Engine::XChaCha20Poly1305 => {
            ChaCha20::new(&zero_key, &[0u8; 12], 0).map_or(PORTABLE, |c| c.implementation())
        }
        Engine::Block {
            family: Family::Magma,
            ..
        } => Magma::new(&zero_key).map_or(PORTABLE, |m| m.backend().name()),
        Engine::Block {
            family: Family::Gost28147(sbox),
            ..
        } => Gost28147::new(&zero_key, sbox).map_or(PORTABLE, |m| m.backend().name()),
        Engine::Block {
            family: Family::Kuznyechik,
            ..
        } => Kuznyechik::new(&zero_key).map_or(PORTABLE, |k| k.backend().name()),
        Engine::Block {
            family: Family::Tdes,
            ..
        } => Tdes::new(&zero_key[..alg.key_len]).map_or(PORTABLE, |t| t.backend().name()),
    }
}

/// The keyed AEAD of an AEAD entry (see [`AlgInfo::aead`]); the tag length is already checked.
pub(crate) fn keyed_aead(alg: &AlgInfo, key: &[u8], tag_len: usize) -> Result<Box<dyn Aead>> {
    Ok(match alg.engine {
        Engine::AesGcm => Box::new(AesGcm::new(key, tag_len)?),
        Engine::ChaCha20Poly1305 => Box::new(ChaCha20Poly1305::new(key)?),
        Engine::XChaCha20Poly1305 => Box::new(XChaCha20Poly1305::new(key)?),
        Engine::Block {
            family: Family::Magma,
            mode: Mode::Mgm,
        } => Box::new(Mgm::new(Magma::new(key)?, tag_len)?),
        Engine::Block {
            family: Family::Kuznyechik,
            mode: Mode::Mgm,
        } => Box::new(Mgm::new(Kuznyechik::new(key)?, tag_len)?),
        _ => return Err(Error::InvalidParameter("this algorithm is not an AEAD")),
    })
}

/// One-shot encryption (see [`AlgInfo::encrypt`]); key, IV and parameter sizes are already checked.
pub(crate) fn encrypt(
    alg: &AlgInfo,
    key: &[u8],
    params: &Params<'_>,
    mut data: Vec<u8>,
) -> Result<Output> {
    match encrypt_in_place(alg, key, params, &mut data) {
        Ok(tag) => {
            if alg.kind == Kind::Mac {
                // A MAC's output is the tag; the message itself is not repeated.
                data.zeroize();
                data.clear();
            }
            Ok(Output { data, tag })
        }
        Err(e) => {
            // The buffer may hold plaintext, or a mix of plaintext and ciphertext.
            data.zeroize();
            Err(e)
        }
    }
}

/// Encrypts `data` in place (growing it by the padding) and returns the tag, if the algorithm has one.
fn encrypt_in_place(
    alg: &AlgInfo,
    key: &[u8],
    params: &Params<'_>,
    data: &mut Vec<u8>,
) -> Result<Vec<u8>> {
    Ok(match alg.engine {
        Engine::AesGcm => seal(&AesGcm::new(key, alg.tag_len(params, None)?)?, params, data)?,
        Engine::Block { family, mode } => match family {
            Family::Aes => block_encrypt(alg, &Aes::new(key)?, mode, params, data)?,
            Family::Tdes => block_encrypt(alg, &Tdes::new(key)?, mode, params, data)?,
            Family::Magma => block_encrypt(alg, &Magma::new(key)?, mode, params, data)?,
            Family::Kuznyechik => block_encrypt(alg, &Kuznyechik::new(key)?, mode, params, data)?,
            Family::Gost28147(sbox) => {
                block_encrypt(alg, &Gost28147::new(key, sbox)?, mode, params, data)?
            }
        },
        Engine::ChaCha20 => {
            openssl_chacha20(key, params.iv)?.apply_keystream(data)?;
            Vec::new()
        }
        Engine::XChaCha20 => {
            XChaCha20::new(key, params.iv, 0)?.apply_keystream(data)?;
            Vec::new()
        }
        Engine::ChaCha20Poly1305 => seal(&ChaCha20Poly1305::new(key)?, params, data)?,
        Engine::XChaCha20Poly1305 => seal(&XChaCha20Poly1305::new(key)?, params, data)?,
    })
}

/// One-shot decryption / verification (see [`AlgInfo::decrypt`]). On any error the partially
/// processed buffer is wiped before it is dropped.
pub(crate) fn decrypt(
    alg: &AlgInfo,
    key: &[u8],
    params: &Params<'_>,
    mut data: Vec<u8>,
    given_tag: Option<&[u8]>,
) -> Result<Vec<u8>> {
    let tag = match alg.tag {
        Some(_) => {
            let len = alg.tag_len(params, given_tag)?;
            Some(match given_tag {
                Some(t) => t.to_vec(),
                None => split_tag(&mut data, len)?,
            })
        }
        None if given_tag.is_some() => {
            return Err(Error::InvalidParameter(
                "a tag is only accepted by AEAD and MAC algorithms",
            ))
        }
        None => None,
    };
    let tag = tag.as_deref().unwrap_or(&[]);
    let result = match alg.engine {
        Engine::AesGcm => {
            AesGcm::new(key, tag.len()).and_then(|a| a.open(params.iv, params.aad, &mut data, tag))
        }
        Engine::Block { family, mode } => match family {
            Family::Aes => block_decrypt(alg, &Aes::new(key)?, mode, params, &mut data, tag),
            Family::Tdes => block_decrypt(alg, &Tdes::new(key)?, mode, params, &mut data, tag),
            Family::Magma => block_decrypt(alg, &Magma::new(key)?, mode, params, &mut data, tag),
            Family::Kuznyechik => {
                block_decrypt(alg, &Kuznyechik::new(key)?, mode, params, &mut data, tag)
            }
            Family::Gost28147(sbox) => block_decrypt(
                alg,
                &Gost28147::new(key, sbox)?,
                mode,
                params,
                &mut data,
                tag,
            ),
        },
        Engine::ChaCha20 => {
            openssl_chacha20(key, params.iv).and_then(|mut c| c.apply_keystream(&mut data))
        }
        Engine::XChaCha20 => {
            XChaCha20::new(key, params.iv, 0).and_then(|mut c| c.apply_keystream(&mut data))
        }
        Engine::ChaCha20Poly1305 => {
            ChaCha20Poly1305::new(key).and_then(|a| a.open(params.iv, params.aad, &mut data, tag))
        }
        Engine::XChaCha20Poly1305 => {
            XChaCha20Poly1305::new(key).and_then(|a| a.open(params.iv, params.aad, &mut data, tag))
        }
    };
    match result {
        Ok(()) => Ok(data),
        Err(e) => {
            data.zeroize();
            Err(e)
        }
    }
}

/// Removes and returns the last `len` bytes of `data` (the appended tag).
fn split_tag(data: &mut Vec<u8>, len: usize) -> Result<Vec<u8>> {
    if data.len() < len {
        return Err(Error::InvalidParameter(
            "input is shorter than the tag: truncated ciphertext",
        ));
    }
    Ok(data.split_off(data.len() - len))
}

/// OpenSSL's chacha20: the 16-byte IV is a 32-bit little-endian block counter followed by the nonce.
fn openssl_chacha20(key: &[u8], iv: &[u8]) -> Result<ChaCha20> {
    let (counter, nonce) = iv.split_at_checked(4).ok_or(Error::InvalidIvLength {
        expected: "16",
        got: iv.len(),
    })?;
    let counter = u32::from_le_bytes([counter[0], counter[1], counter[2], counter[3]]);
    ChaCha20::new(key, nonce, counter)
}

fn seal<A: Aead>(aead: &A, params: &Params<'_>, data: &mut [u8]) -> Result<Vec<u8>> {
    Ok(aead.seal(params.iv, params.aad, data)?.as_ref().to_vec())
}

fn section(alg: &AlgInfo, params: &Params<'_>) -> usize {
    params.section.or(alg.section).unwrap_or(alg.block_size)
}

fn master_section(alg: &AlgInfo, params: &Params<'_>) -> usize {
    params
        .master_section
        .or(params.section)
        .or(alg.section)
        .unwrap_or(alg.block_size)
}

/// Encrypts `data` in place with a block-cipher mode; returns the tag (empty for unauthenticated modes).
fn block_encrypt<C: KeyInit>(
    alg: &AlgInfo,
    c: &C,
    mode: Mode,
    params: &Params<'_>,
    data: &mut Vec<u8>,
) -> Result<Vec<u8>> {
    let n = c.block_size();
    let iv = params.iv;
    if alg.padding == Padding::Pkcs7 && !params.nopad {
        padding::pkcs7_pad(data, n)?;
    }
    match mode {
        Mode::Ecb => ecb::encrypt(c, data)?,
        Mode::Cbc => cbc::encrypt(c, iv, data)?,
        Mode::Cfb { segment } => cfb::encrypt(c, iv, segment, data)?,
        Mode::Ofb => ofb::apply(c, iv, data)?,
        Mode::Ctr => ctr::apply(c, iv, data)?,
        Mode::GostCtr => ctr::apply_gost(c, iv, data)?,
        Mode::CtrAcpkm => {
            ctr_acpkm::apply_with_key_len(c, alg.key_len, iv, section(alg, params), data)?
        }
        Mode::Gost89Cfb => gost89::cfb_encrypt(c, iv, KeyMeshing::CryptoPro, data)?,
        Mode::Gost89Cnt => gost89::cnt_apply(c, iv, KeyMeshing::CryptoPro, data)?,
        Mode::Mgm => return seal(&Mgm::new(c, alg.tag_len(params, None)?)?, params, data),
        Mode::Cmac => return omac::omac(c, alg.tag_len(params, None)?, data),
        Mode::OmacAcpkm => {
            return omac_acpkm::omac_acpkm_with_key_len(
                c,
                alg.key_len,
                section(alg, params),
                master_section(alg, params),
                alg.tag_len(params, None)?,
                data,
            )
        }
    }
    Ok(Vec::new())
}

/// Decrypts (or verifies) `data` in place with a block-cipher mode; `tag` is empty for modes without.
fn block_decrypt<C: KeyInit>(
    alg: &AlgInfo,
    c: &C,
    mode: Mode,
    params: &Params<'_>,
    data: &mut Vec<u8>,
    tag: &[u8],
) -> Result<()> {
    let iv = params.iv;
    match mode {
        Mode::Ecb => ecb::decrypt(c, data)?,
        Mode::Cbc => cbc::decrypt(c, iv, data)?,
        Mode::Cfb { segment } => cfb::decrypt(c, iv, segment, data)?,
        Mode::Ofb => ofb::apply(c, iv, data)?,
        Mode::Ctr => ctr::apply(c, iv, data)?,
        Mode::GostCtr => ctr::apply_gost(c, iv, data)?,
        Mode::CtrAcpkm => {
            ctr_acpkm::apply_with_key_len(c, alg.key_len, iv, section(alg, params), data)?
        }
        Mode::Gost89Cfb => gost89::cfb_decrypt(c, iv, KeyMeshing::CryptoPro, data)?,
        Mode::Gost89Cnt => gost89::cnt_apply(c, iv, KeyMeshing::CryptoPro, data)?,
        Mode::Mgm => Mgm::new(c, tag.len())?.open(iv, params.aad, data, tag)?,
        Mode::Cmac => verify(&omac::omac(c, tag.len(), data)?, tag)?,
        Mode::OmacAcpkm => verify(
            &omac_acpkm::omac_acpkm_with_key_len(
                c,
                alg.key_len,
                section(alg, params),
                master_section(alg, params),
                tag.len(),
                data,
            )?,
            tag,
        )?,
    }
    if alg.padding == Padding::Pkcs7 && !params.nopad {
        let len = padding::pkcs7_unpad(data, c.block_size())?;
        data.truncate(len);
    }
    Ok(())
}

fn verify(computed: &[u8], tag: &[u8]) -> Result<()> {
    if ct_eq(computed, tag) {
        Ok(())
    } else {
        Err(Error::AuthenticationFailed)
    }
}
