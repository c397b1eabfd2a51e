//! `mode = table`: the reference S-boxes against the library's tables.

use shifr::hazmat::block::kuznyechik;
use shifr::hazmat::block::magma::SBox;

use crate::ciphers::magma_sbox;
use crate::ctx::{Ctx, Step};
use crate::names::Name;

/// Kuznyechik: `pi` = the 256-byte substitution pi(0..255).
pub(crate) fn kuznyechik(ctx: &Ctx, _: Name) -> Step {
    ctx.expect("pi", &kuznyechik::PI)
}

/// Magma / GOST 28147-89 S-boxes: `pi0..pi7` (Pi'_i, RFC 8891) and `k1..k8` (K_i, RFC 4357) are
/// 16 nibbles each; `packed` is the 64-byte RFC 4357 DER OCTET STRING.
pub(crate) fn magma(ctx: &Ctx, name: Name) -> Step {
    let rows = magma_sbox(name).rows();
    for (i, field) in ctx.indexed("pi") {
        if let Some(row) = rows.get(i) {
            ctx.expect(field, &nibbles(row))?;
        }
    }
    for (i, field) in ctx.indexed("k") {
        if let Some(row) = i.checked_sub(1).and_then(|r| rows.get(r)) {
            ctx.expect(field, &nibbles(row))?;
        }
    }
    ctx.expect_if("packed", || Ok(packed(&magma_sbox(name))))
}

/// A row of 16 nibbles as 8 bytes, first nibble in the high half of the first byte.
fn nibbles(row: &[u8; 16]) -> Vec<u8> {
    row.chunks_exact(2).map(|p| p[0] << 4 | p[1]).collect()
}

/// RFC 4357 packing: byte `4x + j` holds K(2j+1)[x] in the high and K(2j+2)[x] in the low nibble.
fn packed(sbox: &SBox) -> Vec<u8> {
    let rows = sbox.rows();
    (0..16)
        .flat_map(|x| (0..4).map(move |j| (x, j)))
        .map(|(x, j)| rows[2 * j][x] << 4 | rows[2 * j + 1][x])
        .collect()
}
