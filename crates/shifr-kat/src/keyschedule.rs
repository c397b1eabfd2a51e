//! `mode = keyschedule`: round keys (and Kuznyechik's round constants).

use shifr::hazmat::block::kuznyechik::{self, Kuznyechik};
use shifr::hazmat::block::magma;

use crate::ciphers::gost28147_little_endian;
use crate::ctx::{lib, skip, Ctx, Step};
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

/// Kuznyechik: `c<i>` = round constant C_i (i = 1..32), `k<NN>` = round key K_NN (NN = 1..10).
pub(crate) fn kuznyechik(ctx: &Ctx, _: Name) -> Step {
    let key = ctx.hex("key")?;
    let cipher = lib("key setup", Kuznyechik::new(&key))?;
    for (i, field) in ctx.indexed("c") {
        if let Ok(i) = u8::try_from(i) {
            ctx.expect(field, &kuznyechik::round_constant(i))?;
        }
    }
    let keys = cipher.round_keys();
    for (i, field) in ctx.indexed("k") {
        if let Some(k) = i.checked_sub(1).and_then(|r| keys.get(r)) {
            ctx.expect(field, k)?;
        }
    }
    Ok(())
}
