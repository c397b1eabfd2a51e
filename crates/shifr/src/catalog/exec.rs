//! The catalogue's one-shot calls over an entry's [`Algorithm`]: key it, run one message, wipe what
//! a failed call leaves.

use super::object::{Algorithm, Setup};
use super::{AlgInfo, Kind, Output, Padding, Params};
use crate::mode::padding;
use crate::util::ct_eq;
use crate::{Error, Result};
use zeroize::Zeroize;

/// What an implementation name falls back to when the entry cannot be keyed here.
const PORTABLE: &str = "portable";

/// See [`AlgInfo::implementation`].
pub(crate) fn implementation(alg: &AlgInfo) -> &'static str {
    let zero = [0u8; 32];
    let key = &zero[..alg.key_len.min(zero.len())];
    let Ok(setup) = alg.setup(&super::Options::default()) else {
        return PORTABLE;
    };
    match alg.algorithm {
        Algorithm::BlockMode(m) => m.key(key, &setup).map(|k| k.backend()),
        Algorithm::Stream(s) => {
            let iv = [0u8; 32];
            s.start(key, &iv[..alg.iv.default_len()], &setup)
                .map(|k| k.backend())
        }
        Algorithm::Aead(a) => a.key(key, &setup).map(|k| k.backend()),
        Algorithm::Mac(m) => m.key(key, &setup).map(|k| k.backend()),
    }
    .unwrap_or(PORTABLE)
}

/// The per-call parameters as keying options.
fn setup(alg: &AlgInfo, params: &Params<'_>, tag_len: Option<usize>) -> Result<Setup> {
    alg.setup(&super::Options {
        tag_len,
        section: params.section,
        master_section: params.master_section,
        ..super::Options::default()
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
    let setup = setup(alg, params, params.tag_len)?;
    match alg.algorithm {
        Algorithm::BlockMode(m) => {
            let cipher = m.key(key, &setup)?;
            if alg.padding == Padding::Pkcs7 && !params.nopad {
                padding::pkcs7_pad(data, alg.block_size)?;
            }
            cipher.encrypt(params.iv, data)?;
            Ok(Vec::new())
        }
        Algorithm::Stream(s) => {
            s.start(key, params.iv, &setup)?.apply(data)?;
            Ok(Vec::new())
        }
        Algorithm::Aead(a) => Ok(a
            .key(key, &setup)?
            .seal(params.iv, params.aad, data)?
            .as_ref()
            .to_vec()),
        Algorithm::Mac(m) => {
            let mut tag = vec![0u8; setup.tag_len];
            m.key(key, &setup)?.tag(data, &mut tag)?;
            Ok(tag)
        }
    }
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
    match decrypt_in_place(alg, key, params, &mut data, tag.as_deref()) {
        Ok(()) => Ok(data),
        Err(e) => {
            data.zeroize();
            Err(e)
        }
    }
}

fn decrypt_in_place(
    alg: &AlgInfo,
    key: &[u8],
    params: &Params<'_>,
    data: &mut Vec<u8>,
    tag: Option<&[u8]>,
) -> Result<()> {
    let tag = tag.unwrap_or(&[]);
    let setup = setup(alg, params, alg.tag.map(|_| tag.len()))?;
    match alg.algorithm {
        Algorithm::BlockMode(m) => {
            m.key(key, &setup)?.decrypt(params.iv, data)?;
            if alg.padding == Padding::Pkcs7 && !params.nopad {
                let len = padding::pkcs7_unpad(data, alg.block_size)?;
                data.truncate(len);
            }
            Ok(())
        }
        Algorithm::Stream(s) => s.start(key, params.iv, &setup)?.apply(data),
        Algorithm::Aead(a) => a.key(key, &setup)?.open(params.iv, params.aad, data, tag),
        Algorithm::Mac(m) => {
            let mut computed = vec![0u8; tag.len()];
            m.key(key, &setup)?.tag(data, &mut computed)?;
            if ct_eq(&computed, tag) {
                Ok(())
            } else {
                Err(Error::AuthenticationFailed)
            }
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
