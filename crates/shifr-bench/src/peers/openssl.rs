//! OpenSSL's libcrypto (default provider) through the `openssl` crate, used the way `openssl speed
//! -evp` uses it: one context keyed once, `EVP_EncryptUpdate` per message (in place) for ciphers,
//! and for AEADs a whole message per call (nonce set, AAD, update, final, tag) like `-aead`.

use super::evp::update_in_place;
use crate::workload::{bench_aad, bench_iv, bench_key, Op};
use crate::BenchError;
use openssl::cipher::Cipher;
use openssl::cipher_ctx::CipherCtx;
use shifr::catalog::{AlgInfo, Kind};

/// The OpenSSL op for stream `stream` of `alg`, or why there is none.
pub fn op(alg: &AlgInfo, stream: usize) -> Result<Box<dyn Op>, String> {
    if alg.kind == Kind::Mac {
        return Err(format!(
            "{}: MACs are not measured through OpenSSL",
            alg.name
        ));
    }
    let cipher = Cipher::fetch(None, alg.name, None)
        .map_err(|_| format!("{} is not in libcrypto's default provider", alg.name))?;
    let key = bench_key(alg.key_len, stream);
    let iv = bench_iv(alg.iv.default_len(), stream);
    let mut ctx = CipherCtx::new().map_err(|e| e.to_string())?;
    if alg.kind == Kind::Aead {
        ctx.encrypt_init(Some(&cipher), None, None)
            .map_err(|e| e.to_string())?;
        ctx.set_iv_length(iv.len()).map_err(|e| e.to_string())?;
        ctx.encrypt_init(None, Some(&key), None)
            .map_err(|e| e.to_string())?;
        return Ok(Box::new(EvpAead {
            ctx,
            nonce: iv,
            tag_len: alg.tag.map_or(16, |t| t.default),
        }));
    }
    if key.len() != cipher.key_length() || iv.len() < cipher.iv_length() {
        return Err(format!(
            "{}: libcrypto's key/IV sizes {}/{} differ from shifr's {}/{}",
            alg.name,
            cipher.key_length(),
            cipher.iv_length(),
            key.len(),
            iv.len()
        ));
    }
    let iv_arg = (cipher.iv_length() > 0).then_some(&iv[..]);
    ctx.encrypt_init(Some(&cipher), Some(&key), iv_arg)
        .map_err(|e| e.to_string())?;
    ctx.set_padding(false);
    Ok(Box::new(EvpCipher {
        ctx,
        backend: "libcrypto",
    }))
}

/// A keyed EVP cipher context, updated in place message after message.
pub struct EvpCipher {
    pub ctx: CipherCtx,
    pub backend: &'static str,
}

impl Op for EvpCipher {
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        update_in_place(&mut self.ctx, buf).map_err(|e| BenchError::Unsupported(e.to_string()))
    }

    fn backend(&self) -> String {
        format!("{} ({})", self.backend, openssl::version::version())
    }
}

/// An EVP AEAD sealing one whole message per call.
struct EvpAead {
    ctx: CipherCtx,
    nonce: Vec<u8>,
    tag_len: usize,
}

impl Op for EvpAead {
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        let err = |e: openssl::error::ErrorStack| BenchError::Unsupported(e.to_string());
        self.ctx
            .encrypt_init(None, None, Some(&self.nonce))
            .map_err(err)?;
        self.ctx.cipher_update(&bench_aad(), None).map_err(err)?;
        update_in_place(&mut self.ctx, buf).map_err(err)?;
        self.ctx.cipher_final(&mut []).map_err(err)?;
        let mut tag = [0u8; 16];
        self.ctx.tag(&mut tag[..self.tag_len]).map_err(err)?;
        std::hint::black_box(tag);
        Ok(())
    }

    fn backend(&self) -> String {
        format!("libcrypto ({})", openssl::version::version())
    }
}
