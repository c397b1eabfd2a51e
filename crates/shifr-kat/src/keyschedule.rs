//! `mode = keyschedule`: round keys (and Kuznyechik's round constants).

use shifr::block::magma;

use crate::ciphers::gost28147_little_endian;
use crate::ctx::{skip, Ctx, Step};
use crate::names::Name;

/// Magma: `k01..k32` = the 32-bit round keys K_1..K_32, printed big-endian.
pub(crate) fn magma(ctx: &Ctx, name: Name) -> Step {
    if name == Name::Gost28147 && gost28147_little_endian(ctx) {
        return skip("the library exposes no little-endian GOST 28147-89 key schedule");
    }
    let key = ctx.hex_array::<32>("key")?;
    let keys = magma::round_keys(&key);
    for (i, field) in ctx.indexed("k") {
        if let Some(k) = i.checked_sub(1).and_then(|r| keys.get(r)) {
            ctx.expect(field, &k.to_be_bytes())?;
        }
    }
    Ok(())
}
