//! The catalogue's entries, with the OpenSSL behaviour each one was checked against.
//!
//! Observed with OpenSSL 3.0.19 and its gost engine (`openssl enc [-engine gost] -<name> -P` prints the
//! key and IV lengths it uses; outputs compared with `openssl enc -nopad -K .. -iv ..`):
//! - `openssl enc` pads or truncates a wrong-length `-iv` silently ("hex string is too short, padding
//!   with zero bytes"); shifr rejects a wrong length instead.
//! - `openssl enc` refuses every AEAD ("AEAD ciphers not supported"), so the `-gcm`, `-poly1305` and
//!   `-mgm` entries follow their RFCs / SP 800-38D only.
//! - With `-engine gost`, non-GOST ciphers fail ("unimplemented cipher"); the GOST names need it.
//! - The engine offers kuznyechik-{ecb,cbc,cfb,ofb,ctr,ctr-acpkm} but for Magma only
//!   magma-{cbc,ctr,ctr-acpkm}; magma-{ecb,ofb,cfb} here follow GOST R 34.13-2015.
//! - GOST CBC/CFB/OFB in the engine use a one-block register (m = n: `-P` shows a 16-byte IV for
//!   kuznyechik-cbc/cfb/ofb, 8 bytes for magma-cbc); shifr also accepts m = z*n as GOST R 34.13 allows.
//! - GOST CTR takes half a block (magma-ctr: 4 bytes, kuznyechik-ctr: 8 bytes), counter block
//!   = IV || 0^(n/2); engine output equals the GOST R 34.13-2015 Annex A vectors.
//! - CTR-ACPKM in the engine re-keys every 1024 bytes for Magma and every 4096 bytes for Kuznyechik
//!   (first byte differing from plain CTR over zeros: 1025 / 4097).
//! - magma-ctr-acpkm-omac / kuznyechik-ctr-acpkm-omac are not offered: the engine derives their keys
//!   from a random seed, so two runs with the same key and IV give different output.
//! - `openssl dgst -mac magma-mac` gives the full 8-byte GOST R 34.13 MAC (Annex A.2.6 vector);
//!   `-mac kuznyechik-mac` is broken in this engine (prints the Magma MAC followed by 8 bytes of
//!   uninitialised memory), so kuznyechik-mac follows GOST R 34.13 only.
//! - chacha20: `-P` shows a 16-byte IV = 32-bit little-endian block counter || 96-bit nonce (RFC 8439
//!   vector reproduced with IV 01000000 || nonce). OpenSSL carries a counter overflow into the nonce;
//!   shifr refuses to wrap the 32-bit counter (Error::LengthLimit) as RFC 8439 requires.
//! - aes-*-cfb is CFB128, -cfb8 CFB8; des-ede3-cfb / des-ede-cfb are 64-bit CFB; des-ede and des-ede3
//!   are ECB aliases; ECB and CBC pad with PKCS#7 unless `-nopad`.
//! - OpenSSL has no TDEA CTR; des-ede3-ctr / des-ede-ctr follow SP 800-38A (an 8-byte IV is the first
//!   counter block, incremented as a 64-bit big-endian integer), as RustCrypto's `Ctr64BE` does.

use super::object::Algorithm;
use super::{AlgInfo, IvSpec, Kind, Padding, TagSpec};
use crate::aead::algorithm::{
    AesGcmAlgorithm, ChaCha20Poly1305Algorithm, MgmAlgorithm, XChaCha20Poly1305Algorithm,
};
use crate::block::aes::AesAlgorithm as Aes;
use crate::block::kuznyechik::KuznyechikAlgorithm as Kuznyechik;
use crate::block::magma::{Gost28147Algorithm as Gost28147, MagmaAlgorithm as Magma, SBox};
use crate::block::tdes::TdesAlgorithm as Tdes;
use crate::block::BlockAlgorithm;
use crate::mac::algorithm::{CmacAlgorithm, OmacAcpkmAlgorithm};
use crate::mode::algorithm::{BlockMode, Mode};
use crate::stream::chacha20::algorithm::{ChaCha20Algorithm, XChaCha20Algorithm};

/// Decimal text for the small sizes the catalogue uses (error messages need `&'static str`).
pub(crate) const fn num(n: usize) -> &'static str {
    match n {
        0 => "0",
        1 => "1",
        4 => "4",
        8 => "8",
        12 => "12",
        16 => "16",
        24 => "24",
        32 => "32",
        _ => "see `shifr list`",
    }
}

/// Default CTR-ACPKM section for 64-bit blocks: the gost engine's magma-ctr-acpkm.
const SECTION_64: usize = 1024;
/// Default CTR-ACPKM section for 128-bit blocks: the gost engine's kuznyechik-ctr-acpkm (also used
/// for AES, which OpenSSL does not offer with ACPKM; RFC 8645 sets no default).
const SECTION_128: usize = 4096;

/// What a block-cipher entry's metadata follows from: its mode (the object runs it).
#[derive(Clone, Copy)]
enum Shape {
    Ecb,
    Cbc,
    Cfb,
    Ofb,
    Ctr,
    GostCtr,
    CtrAcpkm,
    Gost89Cfb,
    Gost89Cnt,
    Mgm,
    Cmac,
    OmacAcpkm,
}

/// The object of a block-cipher entry: the cipher `$c` in mode `$mode` (CFB with its segment).
macro_rules! object {
    ($c:expr, Mgm) => {
        Algorithm::Aead(&MgmAlgorithm($c))
    };
    ($c:expr, Cmac) => {
        Algorithm::Mac(&CmacAlgorithm($c))
    };
    ($c:expr, OmacAcpkm) => {
        Algorithm::Mac(&OmacAcpkmAlgorithm($c))
    };
    ($c:expr, Cfb, $segment:expr) => {
        Algorithm::BlockMode(&BlockMode {
            cipher: $c,
            mode: Mode::Cfb { segment: $segment },
        })
    };
    ($c:expr, $mode:ident) => {
        Algorithm::BlockMode(&BlockMode {
            cipher: $c,
            mode: Mode::$mode,
        })
    };
}

/// A block-cipher entry: name, cipher (with its parameters), key length, mode, description. `gost`
/// marks the GOST R 34.13 ciphers, whose feedback registers may be several blocks.
macro_rules! block {
    (@ $gost:literal, $name:expr, $cipher:ident $(($arg:expr))?, $key:expr,
     Mode::$mode:ident $({ segment: $segment:expr $(,)? })?, $description:expr $(,)?) => {
        block_entry(
            $name,
            <$cipher as BlockAlgorithm>::BLOCK_SIZE,
            $gost,
            $key,
            Shape::$mode,
            object!($cipher $(($arg))?, $mode $(, $segment)?),
            $description,
        )
    };
    ($($t:tt)*) => {
        block!(@ false, $($t)*)
    };
}

/// [`block!`] for Magma and Kuznyechik (GOST R 34.13 registers).
macro_rules! gost_block {
    ($($t:tt)*) => {
        block!(@ true, $($t)*)
    };
}

const fn block_entry(
    name: &'static str,
    n: usize,
    gost: bool,
    key_len: usize,
    shape: Shape,
    algorithm: Algorithm,
    description: &'static str,
) -> AlgInfo {
    let section_default = if n == 8 { SECTION_64 } else { SECTION_128 };
    let (kind, iv, tag, padding, section) = match shape {
        Shape::Ecb => (Kind::BlockMode, IvSpec::None, None, Padding::Pkcs7, None),
        Shape::Cbc => (Kind::BlockMode, reg(gost, n), None, Padding::Pkcs7, None),
        Shape::Cfb | Shape::Ofb => (Kind::BlockMode, reg(gost, n), None, Padding::None, None),
        Shape::Ctr => (Kind::BlockMode, IvSpec::Exact(n), None, Padding::None, None),
        Shape::GostCtr => (
            Kind::BlockMode,
            IvSpec::Exact(n / 2),
            None,
            Padding::None,
            None,
        ),
        Shape::CtrAcpkm => (
            Kind::BlockMode,
            IvSpec::Exact(n / 2),
            None,
            Padding::None,
            Some(section_default),
        ),
        Shape::Gost89Cfb | Shape::Gost89Cnt => {
            (Kind::BlockMode, IvSpec::Exact(n), None, Padding::None, None)
        }
        Shape::Mgm => (
            Kind::Aead,
            IvSpec::Exact(n),
            Some(TagSpec {
                default: n,
                min: 4,
                max: n,
            }),
            Padding::None,
            None,
        ),
        Shape::Cmac => (
            Kind::Mac,
            IvSpec::None,
            Some(TagSpec {
                default: n,
                min: 1,
                max: n,
            }),
            Padding::None,
            None,
        ),
        Shape::OmacAcpkm => (
            Kind::Mac,
            IvSpec::None,
            Some(TagSpec {
                default: n,
                min: 1,
                max: n,
            }),
            Padding::None,
            Some(section_default),
        ),
    };
    AlgInfo {
        name,
        kind,
        key_len,
        iv,
        tag,
        block_size: n,
        padding,
        section,
        description,
        algorithm,
    }
}

/// The IV of a feedback mode: exactly one block (AES, TDES, as OpenSSL) or a GOST R 34.13 register.
const fn reg(gost: bool, n: usize) -> IvSpec {
    if gost {
        IvSpec::MultipleOf(n)
    } else {
        IvSpec::Exact(n)
    }
}

const fn gcm_entry(name: &'static str, key_len: usize, description: &'static str) -> AlgInfo {
    AlgInfo {
        name,
        kind: Kind::Aead,
        key_len,
        iv: IvSpec::AtLeast(1),
        tag: Some(TagSpec {
            default: 16,
            min: 12,
            max: 16,
        }),
        block_size: 16,
        padding: Padding::None,
        section: None,
        description,
        algorithm: Algorithm::Aead(&AesGcmAlgorithm),
    }
}

const fn chacha_entry(
    name: &'static str,
    algorithm: Algorithm,
    kind: Kind,
    iv: usize,
    description: &'static str,
) -> AlgInfo {
    AlgInfo {
        name,
        kind,
        key_len: 32,
        iv: IvSpec::Exact(iv),
        tag: if matches!(kind, Kind::Aead) {
            Some(TagSpec {
                default: 16,
                min: 16,
                max: 16,
            })
        } else {
            None
        },
        block_size: 1,
        padding: Padding::None,
        section: None,
        description,
        algorithm,
    }
}

macro_rules! aes_family {
    ($bits:literal, $key:literal) => {
        [
            block!(
                concat!("aes-", $bits, "-ecb"),
                Aes,
                $key,
                Mode::Ecb,
                concat!("AES-", $bits, " ECB (SP 800-38A), PKCS#7 padding"),
            ),
            block!(
                concat!("aes-", $bits, "-cbc"),
                Aes,
                $key,
                Mode::Cbc,
                concat!("AES-", $bits, " CBC (SP 800-38A), PKCS#7 padding"),
            ),
            block!(
                concat!("aes-", $bits, "-cfb"),
                Aes,
                $key,
                Mode::Cfb { segment: 16 },
                concat!("AES-", $bits, " CFB128 (SP 800-38A)"),
            ),
            block!(
                concat!("aes-", $bits, "-cfb8"),
                Aes,
                $key,
                Mode::Cfb { segment: 1 },
                concat!("AES-", $bits, " CFB8 (SP 800-38A)"),
            ),
            block!(
                concat!("aes-", $bits, "-ofb"),
                Aes,
                $key,
                Mode::Ofb,
                concat!("AES-", $bits, " OFB (SP 800-38A)"),
            ),
            block!(
                concat!("aes-", $bits, "-ctr"),
                Aes,
                $key,
                Mode::Ctr,
                concat!(
                    "AES-",
                    $bits,
                    " CTR, IV = full 128-bit initial counter block (SP 800-38A)"
                ),
            ),
            gcm_entry(
                concat!("aes-", $bits, "-gcm"),
                $key,
                concat!("AES-", $bits, " GCM (SP 800-38D)"),
            ),
            block!(
                concat!("aes-", $bits, "-cmac"),
                Aes,
                $key,
                Mode::Cmac,
                concat!("AES-", $bits, " CMAC (SP 800-38B)"),
            ),
        ]
    };
}

const AES128: [AlgInfo; 8] = aes_family!("128", 16);
const AES192: [AlgInfo; 8] = aes_family!("192", 24);
const AES256: [AlgInfo; 8] = aes_family!("256", 32);

// ACPKM re-keys with E(D_1)||...||E(D_(k/n)), so the key must be a whole number of blocks (RFC 8645
// section 6.2.2): AES-128 and AES-256 only.
const AES_ACPKM: [AlgInfo; 2] = [
    block!(
        "aes-128-ctr-acpkm",
        Aes,
        16,
        Mode::CtrAcpkm,
        "AES-128 CTR-ACPKM (RFC 8645), IV = 64-bit ICN",
    ),
    block!(
        "aes-256-ctr-acpkm",
        Aes,
        32,
        Mode::CtrAcpkm,
        "AES-256 CTR-ACPKM (RFC 8645), IV = 64-bit ICN",
    ),
];

const CHACHA: [AlgInfo; 4] = [
    chacha_entry(
        "chacha20",
        Algorithm::Stream(&ChaCha20Algorithm),
        Kind::Stream,
        16,
        "ChaCha20 (RFC 8439); IV = 32-bit LE block counter || 96-bit nonce, as OpenSSL",
    ),
    chacha_entry(
        "chacha20-poly1305",
        Algorithm::Aead(&ChaCha20Poly1305Algorithm),
        Kind::Aead,
        12,
        "AEAD_CHACHA20_POLY1305 (RFC 8439), 96-bit nonce",
    ),
    chacha_entry(
        "xchacha20",
        Algorithm::Stream(&XChaCha20Algorithm),
        Kind::Stream,
        24,
        "XChaCha20 (HChaCha20 subkey), 192-bit nonce, counter from 0",
    ),
    chacha_entry(
        "xchacha20-poly1305",
        Algorithm::Aead(&XChaCha20Poly1305Algorithm),
        Kind::Aead,
        24,
        "XChaCha20-Poly1305, 192-bit nonce",
    ),
];

const TDES: [AlgInfo; 13] = [
    block!(
        "des-ede3",
        Tdes,
        24,
        Mode::Ecb,
        "3-key TDEA ECB (alias of des-ede3-ecb), PKCS#7 padding",
    ),
    block!(
        "des-ede3-ecb",
        Tdes,
        24,
        Mode::Ecb,
        "3-key TDEA ECB (SP 800-67), PKCS#7 padding",
    ),
    block!(
        "des-ede3-cbc",
        Tdes,
        24,
        Mode::Cbc,
        "3-key TDEA CBC, PKCS#7 padding",
    ),
    block!(
        "des-ede3-cfb",
        Tdes,
        24,
        Mode::Cfb { segment: 8 },
        "3-key TDEA CFB64",
    ),
    block!(
        "des-ede3-cfb8",
        Tdes,
        24,
        Mode::Cfb { segment: 1 },
        "3-key TDEA CFB8",
    ),
    block!("des-ede3-ofb", Tdes, 24, Mode::Ofb, "3-key TDEA OFB"),
    block!(
        "des-ede3-ctr",
        Tdes,
        24,
        Mode::Ctr,
        "3-key TDEA CTR (SP 800-38A, 64-bit counter block; not in OpenSSL)",
    ),
    block!(
        "des-ede",
        Tdes,
        16,
        Mode::Ecb,
        "2-key TDEA ECB (alias of des-ede-ecb), PKCS#7 padding",
    ),
    block!(
        "des-ede-ecb",
        Tdes,
        16,
        Mode::Ecb,
        "2-key TDEA ECB (K3 = K1), PKCS#7 padding",
    ),
    block!(
        "des-ede-cbc",
        Tdes,
        16,
        Mode::Cbc,
        "2-key TDEA CBC, PKCS#7 padding",
    ),
    block!(
        "des-ede-cfb",
        Tdes,
        16,
        Mode::Cfb { segment: 8 },
        "2-key TDEA CFB64",
    ),
    block!("des-ede-ofb", Tdes, 16, Mode::Ofb, "2-key TDEA OFB"),
    block!(
        "des-ede-ctr",
        Tdes,
        16,
        Mode::Ctr,
        "2-key TDEA CTR (SP 800-38A, 64-bit counter block; not in OpenSSL)",
    ),
];

macro_rules! gost_family {
    ($name:literal, $title:literal, $family:ident) => {
        [
            gost_block!(
                concat!($name, "-ecb"),
                $family,
                32,
                Mode::Ecb,
                concat!($title, " ECB (GOST R 34.13-2015), PKCS#7 padding"),
            ),
            gost_block!(
                concat!($name, "-cbc"),
                $family,
                32,
                Mode::Cbc,
                concat!(
                    $title,
                    " CBC (GOST R 34.13-2015, register m = IV length), PKCS#7 padding"
                ),
            ),
            gost_block!(
                concat!($name, "-cfb"),
                $family,
                32,
                Mode::Cfb {
                    segment: <$family as BlockAlgorithm>::BLOCK_SIZE,
                },
                concat!(
                    $title,
                    " CFB, s = n (GOST R 34.13-2015, register m = IV length)"
                ),
            ),
            gost_block!(
                concat!($name, "-ofb"),
                $family,
                32,
                Mode::Ofb,
                concat!($title, " OFB (GOST R 34.13-2015, register m = IV length)"),
            ),
            gost_block!(
                concat!($name, "-ctr"),
                $family,
                32,
                Mode::GostCtr,
                concat!($title, " CTR (GOST R 34.13-2015), IV = half a block"),
            ),
            gost_block!(
                concat!($name, "-ctr-acpkm"),
                $family,
                32,
                Mode::CtrAcpkm,
                concat!(
                    $title,
                    " CTR-ACPKM (R 1323565.1.017-2018), IV = half a block"
                ),
            ),
            gost_block!(
                concat!($name, "-mgm"),
                $family,
                32,
                Mode::Mgm,
                concat!($title, " MGM AEAD (RFC 9058), nonce = one block with MSB 0"),
            ),
            gost_block!(
                concat!($name, "-mac"),
                $family,
                32,
                Mode::Cmac,
                concat!($title, " MAC = OMAC1 (GOST R 34.13-2015)"),
            ),
            gost_block!(
                concat!($name, "-omac-acpkm"),
                $family,
                32,
                Mode::OmacAcpkm,
                concat!($title, " OMAC-ACPKM (R 1323565.1.017-2018)"),
            ),
        ]
    };
}

const MAGMA: [AlgInfo; 9] = gost_family!("magma", "Magma", Magma);
const KUZNYECHIK: [AlgInfo; 9] = gost_family!("kuznyechik", "Kuznyechik", Kuznyechik);

// GOST 28147-89 as the engine's gost89* ciphers (see mode::gost89 and its OpenSSL differential
// tests): 8-byte IV; CFB and CNT re-key every 1024 bytes (CryptoPro key meshing, RFC 4357 2.3.2);
// S-boxes are the engine's defaults without CRYPT_PARAMS: TC26 Z for gost89, gost89-cnt-12 and
// gost89-cbc, CryptoPro-A (always) for gost89-cnt. gost89-cbc pads with PKCS#7 like any EVP block cipher.
const GOST89: [AlgInfo; 4] = [
    block!(
        "gost89",
        Gost28147(SBox::Tc26Z),
        32,
        Mode::Gost89Cfb,
        "GOST 28147-89 CFB with CryptoPro key meshing, TC26 Z S-box (OpenSSL gost89)",
    ),
    block!(
        "gost89-cnt",
        Gost28147(SBox::CryptoProA),
        32,
        Mode::Gost89Cnt,
        "GOST 28147-89 counter mode with CryptoPro key meshing, CryptoPro-A S-box",
    ),
    block!(
        "gost89-cnt-12",
        Gost28147(SBox::Tc26Z),
        32,
        Mode::Gost89Cnt,
        "GOST 28147-89 counter mode with CryptoPro key meshing, TC26 Z S-box",
    ),
    block!(
        "gost89-cbc",
        Gost28147(SBox::Tc26Z),
        32,
        Mode::Cbc,
        "GOST 28147-89 CBC, TC26 Z S-box, PKCS#7 padding (OpenSSL gost89-cbc)",
    ),
];

const fn concat_all() -> [AlgInfo; COUNT] {
    let groups: [&[AlgInfo]; 9] = [
        &AES128,
        &AES192,
        &AES256,
        &AES_ACPKM,
        &CHACHA,
        &TDES,
        &MAGMA,
        &KUZNYECHIK,
        &GOST89,
    ];
    let mut out = [AES128[0]; COUNT];
    let mut i = 0;
    let mut g = 0;
    while g < groups.len() {
        let mut j = 0;
        while j < groups[g].len() {
            out[i] = groups[g][j];
            i += 1;
            j += 1;
        }
        g += 1;
    }
    out
}

const COUNT: usize = 3 * 8 + 2 + 4 + 13 + 2 * 9 + 4;

/// Every entry, in `shifr list` order.
pub(crate) static ALGORITHMS: [AlgInfo; COUNT] = concat_all();
