//! Keyed block ciphers for a record's `cipher` name, keyed through the library's `BlockAlgorithm`
//! values.
//!
//! GOST 28147-89 records: the cipher is keyed with the CryptoPro-A S-boxes. The vector format prints
//! byte strings "as the source prints them"; for GOST ciphers that is the GOST R 34.12-2015 order
//! (most significant byte first). So a `gost28147` record is run with the Magma byte conventions
//! ([`Magma::with_sbox`]) unless one of its notes states a little-endian byte order, in which case
//! the GOST 28147-89 / OpenSSL gost89 conventions ([`Gost28147Algorithm`]) are used.

use shifr::hazmat::block::aes::AesAlgorithm;
use shifr::hazmat::block::kuznyechik::KuznyechikAlgorithm;
use shifr::hazmat::block::magma::{Gost28147Algorithm, Magma, MagmaAlgorithm, SBox};
use shifr::hazmat::block::tdes::TdesAlgorithm;
use shifr::hazmat::block::{BlockAlgorithm, BlockCipher, KeyInit};
use shifr::Error;

use crate::ctx::Ctx;
use crate::names::Name;

/// Something to do with a concretely typed cipher (for the generic modes that re-key).
pub(crate) trait Visit {
    type Out;
    fn visit<C: KeyInit + 'static>(self, cipher: C) -> Self::Out;
}

/// Block size in bytes of a block cipher name (0 for the others).
pub(crate) fn block_len(name: Name) -> usize {
    match name {
        Name::Aes128 | Name::Aes192 | Name::Aes256 | Name::Kuznyechik => 16,
        Name::Tdes | Name::Magma | Name::Gost28147 => 8,
        _ => 0,
    }
}

/// Whether a `gost28147` record asks for the little-endian (RFC 5830 / OpenSSL gost89) byte order.
pub(crate) fn gost28147_little_endian(ctx: &Ctx) -> bool {
    ctx.record()
        .notes
        .iter()
        .any(|n| n.to_ascii_lowercase().contains("little-endian"))
}

/// The S-box set a Magma-family record uses.
pub(crate) fn magma_sbox(name: Name) -> SBox {
    if name == Name::Gost28147 {
        SBox::CryptoProA
    } else {
        SBox::Tc26Z
    }
}

/// An AES record's key must have the length its cipher name says (`aes128` = 16 bytes, ...).
pub(crate) fn check_aes_key(name: Name, key: &[u8]) -> shifr::Result<()> {
    let want = match name {
        Name::Aes128 => 16,
        Name::Aes192 => 24,
        _ => 32,
    };
    if key.len() != want {
        return Err(Error::InvalidKeyLength {
            expected: "the length the record's AES variant names",
            got: key.len(),
        });
    }
    Ok(())
}

/// Keys the cipher `name` with `key` and hands it to `v`.
pub(crate) fn with_cipher<V: Visit>(
    ctx: &Ctx,
    name: Name,
    key: &[u8],
    v: V,
) -> shifr::Result<V::Out> {
    Ok(match name {
        Name::Aes128 | Name::Aes192 | Name::Aes256 => {
            check_aes_key(name, key)?;
            v.visit(AesAlgorithm.key(key, None)?)
        }
        Name::Tdes => v.visit(TdesAlgorithm.key(key, None)?),
        Name::Kuznyechik => v.visit(KuznyechikAlgorithm.key(key, None)?),
        Name::Magma => v.visit(MagmaAlgorithm.key(key, None)?),
        Name::Gost28147 if gost28147_little_endian(ctx) => {
            v.visit(Gost28147Algorithm(SBox::CryptoProA).key(key, None)?)
        }
        // GOST 28147-89's S-boxes with GOST R 34.12's byte order: no catalogue cipher has it.
        Name::Gost28147 => v.visit(Magma::with_sbox(key, SBox::CryptoProA)?),
        _ => {
            return Err(Error::UnknownAlgorithm(format!(
                "{name:?} as a block cipher"
            )))
        }
    })
}

struct Boxed;

impl Visit for Boxed {
    type Out = Box<dyn BlockCipher>;
    fn visit<C: KeyInit + 'static>(self, cipher: C) -> Box<dyn BlockCipher> {
        Box::new(cipher)
    }
}

/// The keyed cipher behind a trait object (for the modes that take `?Sized` ciphers).
pub(crate) fn boxed(ctx: &Ctx, name: Name, key: &[u8]) -> shifr::Result<Box<dyn BlockCipher>> {
    with_cipher(ctx, name, key, Boxed)
}
