//! Which check runs for a (cipher, mode) pair, and which fields that check interprets.
//!
//! The field lists are checked before anything runs: a record with a field outside its list is
//! skipped, naming the field, so that no record passes while a field is silently ignored.

use crate::ctx::{field_index, skip, Ctx, Step};
use crate::names::Name;
use crate::{aead, block, chacha, keyschedule, mac, modes, tables, transforms};

/// Fields every record may carry.
const COMMON: &[&str] = &["cipher", "mode", "result"];

/// A check and the fields it reads.
pub(crate) struct Plan {
    /// Plain field names the check interprets.
    pub fields: &'static [&'static str],
    /// Indexed field families: prefix and inclusive index range (`k01`..`k32` = ("k", 1, 32)).
    pub indexed: &'static [(&'static str, usize, usize)],
    /// Whether `result = invalid` means something (a rejection the check can observe).
    pub rejects: bool,
    /// The check itself.
    pub run: fn(&Ctx, Name) -> Step,
}

const fn plan(
    fields: &'static [&'static str],
    indexed: &'static [(&'static str, usize, usize)],
    rejects: bool,
    run: fn(&Ctx, Name) -> Step,
) -> Plan {
    Plan {
        fields,
        indexed,
        rejects,
        run,
    }
}

/// The plan for a record's cipher and mode, or a skip naming what is not supported.
pub(crate) fn plan_for(name: Name, cipher: &str, mode: &str) -> Step<Plan> {
    const CIPHER_IO: &[&str] = &["key", "pt", "ct"];
    let p = match (mode, name) {
        ("table", Name::Kuznyechik) => plan(&["pi"], &[], false, tables::kuznyechik),
        ("table", n) if n.is_magma() => plan(
            &["packed"],
            &[("pi", 0, 7), ("k", 1, 8)],
            false,
            tables::magma,
        ),
        ("transform-S" | "transform-R" | "transform-L", Name::Kuznyechik) => {
            plan(&["in", "out"], &[], false, transforms::kuznyechik)
        }
        ("transform-t", n) if n.is_magma() => plan(&["in", "out"], &[], false, transforms::magma_t),
        ("transform-g", n) if n.is_magma() => {
            plan(&["k", "in", "out"], &[], false, transforms::magma_g)
        }
        ("keyschedule", Name::Kuznyechik) => plan(
            &["key"],
            &[("c", 1, 32), ("k", 1, 10)],
            false,
            keyschedule::kuznyechik,
        ),
        ("keyschedule", n) if n.is_magma() => {
            plan(&["key"], &[("k", 1, 32)], false, keyschedule::magma)
        }
        ("block", Name::Kuznyechik) => plan(CIPHER_IO, &[("lsx", 1, 9)], true, block::check),
        ("block", n) if n.is_magma() => plan(CIPHER_IO, &[("g", 1, 31)], true, block::check),
        ("block", n) if n.is_block_cipher() => plan(CIPHER_IO, &[], true, block::check),
        ("ecb", n) if n.is_block_cipher() => plan(CIPHER_IO, &[], true, modes::ecb),
        ("cbc", n) if n.is_block_cipher() => {
            plan(&["key", "iv", "pt", "ct", "m"], &[], true, modes::cbc)
        }
        ("cbc-pkcs7", n) if n.is_block_cipher() => {
            plan(&["key", "iv", "pt", "ct"], &[], true, modes::cbc_pkcs7)
        }
        ("cfb", n) if n.is_block_cipher() => {
            plan(&["key", "iv", "pt", "ct", "s", "m"], &[], true, modes::cfb)
        }
        ("ofb", n) if n.is_block_cipher() => {
            plan(&["key", "iv", "pt", "ct", "s", "m"], &[], true, modes::ofb)
        }
        ("ctr", n) if n.is_block_cipher() => {
            plan(&["key", "iv", "pt", "ct", "s"], &[], true, modes::ctr)
        }
        ("ctr-acpkm", n) if n.is_block_cipher() => plan(
            &["key", "iv", "pt", "ct", "s", "section_bits"],
            &[("sectionkey", 1, 999)],
            true,
            modes::ctr_acpkm,
        ),
        ("mac" | "cmac", n) if n.is_block_cipher() => plan(
            &["key", "pt", "tag", "s", "r", "k1", "k2"],
            &[],
            true,
            mac::omac,
        ),
        ("omac-acpkm", n) if n.is_block_cipher() => plan(
            &[
                "key",
                "pt",
                "tag",
                "s",
                "section_bits",
                "tstar_bits",
                "keymaterial",
            ],
            &[],
            true,
            mac::omac_acpkm,
        ),
        ("gcm", n) if n.is_aes() => plan(
            &["key", "iv", "aad", "pt", "ct", "tag", "h", "y0"],
            &[],
            true,
            aead::gcm,
        ),
        ("mgm", n) if n.is_block_cipher() => plan(
            &[
                "key", "nonce", "aad", "pt", "ct", "tag", "tag_bits", "y1", "z1",
            ],
            &[],
            true,
            aead::mgm,
        ),
        ("quarterround", Name::ChaCha20 | Name::XChaCha20) => {
            plan(&["in", "out", "index"], &[], false, chacha::quarterround)
        }
        ("block", Name::ChaCha20 | Name::XChaCha20) => plan(
            &[
                "key",
                "nonce",
                "counter",
                "state0",
                "state20",
                "state_out",
                "keystream",
            ],
            &[],
            true,
            chacha::block,
        ),
        ("stream", Name::ChaCha20 | Name::XChaCha20) => plan(
            &["key", "nonce", "counter", "pt", "ct", "keystream", "state0"],
            &[],
            true,
            chacha::stream,
        ),
        ("poly1305-keygen", n) if n.is_chacha() => plan(
            &[
                "key",
                "nonce",
                "counter",
                "otk",
                "state0",
                "state20",
                "state_out",
            ],
            &[],
            true,
            chacha::keygen,
        ),
        ("mac", Name::Poly1305) => plan(&["key", "pt", "tag"], &[], true, mac::poly1305),
        ("aead", Name::ChaCha20Poly1305 | Name::XChaCha20Poly1305) => plan(
            &["key", "nonce", "aad", "pt", "ct", "tag", "otk"],
            &[],
            true,
            aead::chacha,
        ),
        _ if !KNOWN_MODES.contains(&mode) => return skip(format!("unknown mode `{mode}`")),
        _ => {
            return skip(format!(
                "mode `{mode}` is not defined for cipher `{cipher}`"
            ))
        }
    };
    Ok(p)
}

/// The `mode` vocabulary.
const KNOWN_MODES: &[&str] = &[
    "table",
    "transform-S",
    "transform-R",
    "transform-L",
    "transform-t",
    "transform-g",
    "keyschedule",
    "block",
    "quarterround",
    "stream",
    "poly1305-keygen",
    "ecb",
    "cbc",
    "cbc-pkcs7",
    "cfb",
    "ofb",
    "ctr",
    "ctr-acpkm",
    "mac",
    "cmac",
    "omac-acpkm",
    "gcm",
    "aead",
    "mgm",
];

/// The first field of the record that `plan` does not interpret, if any.
pub(crate) fn foreign_field<'a>(ctx: &Ctx<'a>, plan: &Plan) -> Option<&'a str> {
    ctx.record()
        .fields
        .iter()
        .map(|f| f.name.as_str())
        .find(|name| {
            !COMMON.contains(name)
                && !plan.fields.contains(name)
                && !plan.indexed.iter().any(|&(prefix, lo, hi)| {
                    field_index(name, prefix).is_some_and(|i| (lo..=hi).contains(&i))
                })
        })
}
