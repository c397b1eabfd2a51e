//! The `cipher` vocabulary.

/// A value of the `cipher` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Name {
    Aes128,
    Aes192,
    Aes256,
    Tdes,
    Magma,
    Gost28147,
    Kuznyechik,
    ChaCha20,
    XChaCha20,
    Poly1305,
    ChaCha20Poly1305,
    XChaCha20Poly1305,
}

impl Name {
    pub(crate) fn parse(s: &str) -> Option<Name> {
        Some(match s {
            "aes128" => Name::Aes128,
            "aes192" => Name::Aes192,
            "aes256" => Name::Aes256,
            "tdes" => Name::Tdes,
            "magma" => Name::Magma,
            "gost28147" => Name::Gost28147,
            "kuznyechik" => Name::Kuznyechik,
            "chacha20" => Name::ChaCha20,
            "xchacha20" => Name::XChaCha20,
            "poly1305" => Name::Poly1305,
            "chacha20-poly1305" => Name::ChaCha20Poly1305,
            "xchacha20-poly1305" => Name::XChaCha20Poly1305,
            _ => return None,
        })
    }

    /// Whether this names a block cipher (usable with the block-cipher modes).
    pub(crate) fn is_block_cipher(self) -> bool {
        matches!(
            self,
            Name::Aes128
                | Name::Aes192
                | Name::Aes256
                | Name::Tdes
                | Name::Magma
                | Name::Gost28147
                | Name::Kuznyechik
        )
    }

    pub(crate) fn is_aes(self) -> bool {
        matches!(self, Name::Aes128 | Name::Aes192 | Name::Aes256)
    }

    /// The Magma family (GOST R 34.12-2015 Magma and GOST 28147-89).
    pub(crate) fn is_magma(self) -> bool {
        matches!(self, Name::Magma | Name::Gost28147)
    }

    /// The ChaCha family: its nonce is 12 bytes for the IETF variants, 24 for the X variants.
    pub(crate) fn is_chacha(self) -> bool {
        matches!(
            self,
            Name::ChaCha20 | Name::XChaCha20 | Name::ChaCha20Poly1305 | Name::XChaCha20Poly1305
        )
    }

    pub(crate) fn is_extended_nonce(self) -> bool {
        matches!(self, Name::XChaCha20 | Name::XChaCha20Poly1305)
    }
}
