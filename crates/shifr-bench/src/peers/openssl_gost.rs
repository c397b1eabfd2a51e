//! OpenSSL's GOST engine (libengine-gost-openssl): Magma, Kuznyechik and GOST 28147-89 modes,
//! through libcrypto with the engine's ciphers, keyed once for encryption or decryption and updated
//! in place per message (feedback modes continue their chain across messages).

use super::evp::Engine;
use super::openssl::EvpCipher;
use crate::workload::{bench_iv, bench_key, Direction, Op};
use openssl::cipher_ctx::CipherCtx;
use shifr::catalog::{AlgInfo, Kind};
use std::sync::OnceLock;

/// The engine, loaded once per process (or the reason it cannot be).
pub fn engine() -> Result<Engine, String> {
    static ENGINE: OnceLock<Result<Engine, String>> = OnceLock::new();
    ENGINE.get_or_init(|| Engine::load("gost")).clone()
}

/// Whether `alg` is one of the GOST ciphers (Magma, Kuznyechik, GOST 28147-89).
pub fn is_gost(alg: &AlgInfo) -> bool {
    ["magma", "kuznyechik", "gost89"]
        .iter()
        .any(|p| alg.name.starts_with(p))
}

/// The engine's op for stream `stream` of `alg`, or why there is none.
pub fn op(alg: &AlgInfo, stream: usize, dir: Direction) -> Result<Box<dyn Op>, String> {
    if !is_gost(alg) {
        return Err(format!("{} is not a GOST algorithm", alg.name));
    }
    if alg.kind != Kind::BlockMode {
        return Err(format!(
            "{}: only the engine's plain cipher modes are measured (not its AEAD/MAC interfaces)",
            alg.name
        ));
    }
    let engine = engine()?;
    let cipher = engine
        .cipher(alg.name)
        .ok_or_else(|| format!("the GOST engine does not offer {}", alg.name))?;
    let key = bench_key(alg.key_len, stream);
    let iv = bench_iv(alg.iv.default_len(), stream);
    let mut ctx = CipherCtx::new().map_err(|e| e.to_string())?;
    engine.cipher_init(
        &mut ctx,
        cipher,
        &key,
        &iv[..cipher.iv_length().min(iv.len())],
        dir == Direction::Encrypt,
    )?;
    ctx.set_padding(false);
    Ok(Box::new(EvpCipher {
        ctx,
        backend: "gost engine",
    }))
}
