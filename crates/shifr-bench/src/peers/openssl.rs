//! OpenSSL's libcrypto (default provider) through the `openssl` crate, used the way `openssl speed
//! -evp` uses it: one context keyed once (for encryption or decryption, padding off), one in-place
//! `EVP_CipherUpdate` per message for ciphers, and for AEADs a whole message per call (nonce set,
//! AAD, update, final, tag) like `-aead`. AEAD decryption opens one sealed message per call, copied
//! into the buffer first (`aead_open`): nonce, AAD, update, the expected tag set, and the final
//! call, which verifies it.

use super::aead_open::{rejected, Open, SealOpen};
use super::evp::update_in_place;
use crate::workload::{bench_aad, bench_iv, bench_key, Direction, Op};
use crate::BenchError;
use openssl::cipher::Cipher;
use openssl::cipher_ctx::CipherCtx;
use shifr::catalog::{AlgInfo, Kind};

/// The OpenSSL op for stream `stream` of `alg`, or why there is none.
pub fn op(alg: &AlgInfo, stream: usize, dir: Direction) -> Result<Box<dyn Op>, String> {
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
    if alg.kind == Kind::Aead {
        let tag_len = alg.tag.map_or(16, |t| t.default);
        let seal = EvpAead {
            ctx: aead_ctx(&cipher, &key, iv.len(), Direction::Encrypt)?,
            nonce: iv.clone(),
            tag_len,
        };
        return Ok(match dir {
            Direction::Encrypt => Box::new(seal),
            Direction::Decrypt => Box::new(Open::new(EvpOpen {
                open: aead_ctx(&cipher, &key, iv.len(), Direction::Decrypt)?,
                seal,
            })),
        });
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
    let mut ctx = CipherCtx::new().map_err(|e| e.to_string())?;
    match dir {
        Direction::Encrypt => ctx.encrypt_init(Some(&cipher), Some(&key), iv_arg),
        Direction::Decrypt => ctx.decrypt_init(Some(&cipher), Some(&key), iv_arg),
    }
    .map_err(|e| e.to_string())?;
    ctx.set_padding(false);
    Ok(Box::new(EvpCipher {
        ctx,
        backend: "libcrypto",
    }))
}

/// An AEAD context keyed once for `dir`, with a nonce length of `iv_len` bytes.
fn aead_ctx(
    cipher: &openssl::cipher::CipherRef,
    key: &[u8],
    iv_len: usize,
    dir: Direction,
) -> Result<CipherCtx, String> {
    let mut ctx = CipherCtx::new().map_err(|e| e.to_string())?;
    let init = |ctx: &mut CipherCtx, c, k| match dir {
        Direction::Encrypt => ctx.encrypt_init(c, k, None),
        Direction::Decrypt => ctx.decrypt_init(c, k, None),
    };
    init(&mut ctx, Some(cipher), None).map_err(|e| e.to_string())?;
    ctx.set_iv_length(iv_len).map_err(|e| e.to_string())?;
    init(&mut ctx, None, Some(key)).map_err(|e| e.to_string())?;
    Ok(ctx)
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

impl EvpAead {
    /// Seals `buf` in place and returns the tag.
    fn seal(&mut self, buf: &mut [u8]) -> Result<[u8; 16], BenchError> {
        let err = |e: openssl::error::ErrorStack| BenchError::Unsupported(e.to_string());
        self.ctx
            .encrypt_init(None, None, Some(&self.nonce))
            .map_err(err)?;
        self.ctx.cipher_update(&bench_aad(), None).map_err(err)?;
        update_in_place(&mut self.ctx, buf).map_err(err)?;
        self.ctx.cipher_final(&mut []).map_err(err)?;
        let mut tag = [0u8; 16];
        self.ctx.tag(&mut tag[..self.tag_len]).map_err(err)?;
        Ok(tag)
    }
}

impl Op for EvpAead {
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        std::hint::black_box(self.seal(buf)?);
        Ok(())
    }

    fn backend(&self) -> String {
        format!("libcrypto ({})", openssl::version::version())
    }
}

/// An EVP AEAD opening one whole message per call, with the sealing context that makes it.
struct EvpOpen {
    seal: EvpAead,
    open: CipherCtx,
}

impl SealOpen for EvpOpen {
    fn seal_message(&mut self, buf: &mut [u8]) -> Result<Vec<u8>, BenchError> {
        let tag = self.seal.seal(buf)?;
        Ok(tag[..self.seal.tag_len].to_vec())
    }

    fn open_message(&mut self, buf: &mut [u8], tag: &[u8]) -> Result<(), BenchError> {
        let err = |e: openssl::error::ErrorStack| BenchError::Unsupported(e.to_string());
        self.open
            .decrypt_init(None, None, Some(&self.seal.nonce))
            .map_err(err)?;
        self.open.cipher_update(&bench_aad(), None).map_err(err)?;
        update_in_place(&mut self.open, buf).map_err(err)?;
        self.open.set_tag(tag).map_err(err)?;
        // The final call checks the tag: a mismatch fails here.
        self.open
            .cipher_final(&mut [])
            .map_err(|_| rejected("libcrypto"))?;
        Ok(())
    }

    fn backend(&self) -> String {
        self.seal.backend()
    }
}
