//! The S-box sets (substitution parameter sets) that Magma / GOST 28147-89 can be keyed with.

use std::sync::OnceLock;

/// A set of eight 4-bit S-boxes.
///
/// Row `i` of [`SBox::rows`] is the substitution applied to nibble `i` of the 32-bit word, counted from the
/// least significant nibble: `Pi'_i` in GOST R 34.12-2015 / RFC 8891, `K(i+1)` in RFC 4357.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum SBox {
    /// id-tc26-gost-28147-param-Z (RFC 7836 App. C): the fixed S-boxes of GOST R 34.12-2015 Magma, and
    /// the default parameter set of OpenSSL gost-engine 3.x for its `gost89*` ciphers.
    #[default]
    Tc26Z,
    /// id-Gost28147-89-CryptoPro-A-ParamSet (RFC 4357 §11.1), the classic CryptoPro GOST 28147-89 set
    /// (gost-engine uses it when configured with `CRYPT_PARAMS = id-Gost28147-89-CryptoPro-A-ParamSet`).
    CryptoProA,
}

/// RFC 8891 §4.1, Pi'_0 .. Pi'_7.
const TC26_Z: [[u8; 16]; 8] = [
    [12, 4, 6, 2, 10, 5, 11, 9, 14, 8, 13, 7, 0, 3, 15, 1],
    [6, 8, 2, 3, 9, 10, 5, 12, 1, 14, 4, 7, 11, 13, 0, 15],
    [11, 3, 5, 8, 2, 15, 10, 13, 14, 1, 7, 4, 12, 9, 6, 0],
    [12, 8, 2, 1, 13, 4, 15, 6, 7, 0, 10, 5, 3, 14, 9, 11],
    [7, 15, 5, 10, 8, 1, 6, 13, 0, 9, 3, 14, 11, 4, 2, 12],
    [5, 13, 15, 6, 9, 2, 12, 10, 11, 7, 8, 1, 4, 3, 14, 0],
    [8, 14, 2, 5, 6, 9, 1, 12, 15, 4, 11, 0, 13, 10, 3, 7],
    [1, 7, 14, 13, 0, 5, 8, 3, 4, 15, 10, 6, 9, 12, 11, 2],
];

/// RFC 4357 §11.1, columns K1 .. K8 of the CryptoPro-A table.
const CRYPTOPRO_A: [[u8; 16]; 8] = [
    [9, 6, 3, 2, 8, 11, 1, 7, 10, 4, 14, 15, 12, 0, 13, 5],
    [3, 7, 14, 9, 8, 10, 15, 0, 5, 2, 6, 12, 11, 4, 13, 1],
    [14, 4, 6, 2, 11, 3, 13, 8, 12, 15, 5, 10, 0, 7, 1, 9],
    [14, 7, 10, 12, 13, 1, 3, 9, 0, 2, 11, 4, 15, 8, 5, 6],
    [11, 5, 1, 9, 8, 13, 15, 0, 14, 4, 2, 3, 12, 7, 10, 6],
    [3, 10, 13, 12, 1, 2, 0, 11, 7, 5, 9, 4, 8, 15, 14, 6],
    [1, 13, 2, 9, 7, 10, 6, 0, 8, 12, 4, 5, 15, 3, 11, 14],
    [11, 10, 15, 5, 0, 12, 14, 8, 6, 2, 3, 9, 1, 7, 13, 4],
];

impl SBox {
    /// Every supported set.
    pub const ALL: &'static [SBox] = &[SBox::Tc26Z, SBox::CryptoProA];

    /// The eight S-boxes; row `i` acts on nibble `i` counted from the least significant one.
    pub fn rows(&self) -> [[u8; 16]; 8] {
        match self {
            SBox::Tc26Z => TC26_Z,
            SBox::CryptoProA => CRYPTOPRO_A,
        }
    }

    /// The parameter set's ASN.1 name.
    pub fn name(&self) -> &'static str {
        match self {
            SBox::Tc26Z => "id-tc26-gost-28147-param-Z",
            SBox::CryptoProA => "id-Gost28147-89-CryptoPro-A-ParamSet",
        }
    }

    /// The parameter set's object identifier.
    pub fn oid(&self) -> &'static str {
        match self {
            SBox::Tc26Z => "1.2.643.7.1.2.5.1.1",
            SBox::CryptoProA => "1.2.643.2.2.31.1",
        }
    }

    /// This set's cell of `cells` (one per set), filled by `build` on first use: the tables a
    /// backend derives from the S-boxes, built once per process and shared by every key.
    pub(crate) fn cached<T>(
        self,
        cells: &'static [OnceLock<T>; 2],
        build: impl FnOnce(SBox) -> T,
    ) -> &'static T {
        let cell = match self {
            SBox::Tc26Z => &cells[0],
            SBox::CryptoProA => &cells[1],
        };
        cell.get_or_init(|| build(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record's 16-nibble row, as printed in /work/shared/vectors/gost.txt.
    fn row(hex16: &str) -> [u8; 16] {
        let mut r = [0u8; 16];
        for (d, c) in r.iter_mut().zip(hex16.chars()) {
            *d = c.to_digit(16).unwrap() as u8;
        }
        r
    }

    #[test]
    fn tc26_z_matches_magma_pi_record() {
        // magma-pi / RFC 8891 §4.1
        let pi = [
            "c462a5b9e8d703f1",
            "68239a5c1e47bd0f",
            "b3582fade174c960",
            "c821d4f670a53e9b",
            "7f5a816d093eb42c",
            "5df692cab78143e0",
            "8e25691cf4b0da37",
            "17ed05834fa69cb2",
        ];
        let rows = SBox::Tc26Z.rows();
        for (i, p) in pi.iter().enumerate() {
            assert_eq!(rows[i], row(p), "Pi'_{i}");
        }
    }

    #[test]
    fn cryptopro_a_matches_table_and_der_record() {
        // gost28147-sbox-cryptopro-a / RFC 4357 §11.1
        let k = [
            "96328b17a4efc0d5",
            "37e98af0526cb4d1",
            "e462b3d8cf5a0719",
            "e7acd13902b4f856",
            "b5198df0e423c7a6",
            "3adc120b75948fe6",
            "1d297a608c45f3be",
            "baf50ce8623917d4",
        ];
        let rows = SBox::CryptoProA.rows();
        for (i, p) in k.iter().enumerate() {
            assert_eq!(rows[i], row(p), "K{}", i + 1);
        }
        // The DER form: byte 4*x+j holds K(2j+1)[x] in the high and K(2j+2)[x] in the low nibble.
        let packed = hex::decode(
            "93eeb31b67475ada3e6a1d2f292c9c9588bd8170ba31d2ac1fd3f06e70890b08\
             a5c0e78642f245c2e65b2943fca43459cb0fc8f104787f37dd15aebd519666e4",
        )
        .unwrap();
        for x in 0..16 {
            for j in 0..4 {
                let b = packed[4 * x + j];
                assert_eq!(b >> 4, rows[2 * j][x], "K{}[{x}]", 2 * j + 1);
                assert_eq!(b & 15, rows[2 * j + 1][x], "K{}[{x}]", 2 * j + 2);
            }
        }
    }

    #[test]
    fn every_row_is_a_permutation() {
        for s in SBox::ALL {
            for r in s.rows() {
                let mut seen = [false; 16];
                for v in r {
                    seen[v as usize] = true;
                }
                assert!(seen.iter().all(|&b| b), "{}", s.name());
            }
        }
    }
}
