//! `mode = transform-*`: the round transformations of Kuznyechik (S, R, L) and Magma (t, g).

use shifr::hazmat::block::{kuznyechik, magma};

use crate::ciphers::magma_sbox;
use crate::ctx::{Ctx, Step};
use crate::names::Name;

/// Kuznyechik S, R or L (by the record's mode): `out = X(in)` and `in = X^-1(out)`.
pub(crate) fn kuznyechik(ctx: &Ctx, _: Name) -> Step {
    type Map = fn(&[u8; 16]) -> [u8; 16];
    let (forward, inverse): (Map, Map) = match ctx.text("mode")? {
        "transform-S" => (kuznyechik::transform_s, kuznyechik::transform_s_inv),
        "transform-R" => (kuznyechik::transform_r, kuznyechik::transform_r_inv),
        _ => (kuznyechik::transform_l, kuznyechik::transform_l_inv),
    };
    let input = ctx.hex_array::<16>("in")?;
    let output = ctx.hex_array::<16>("out")?;
    ctx.same("X(in) vs out", &output, &forward(&input))?;
    ctx.same("X^-1(out) vs in", &input, &inverse(&output))
}

/// Reads a 32-bit word printed big-endian (most significant digit first).
fn word(ctx: &Ctx, field: &str) -> Step<u32> {
    Ok(u32::from_be_bytes(ctx.hex_array::<4>(field)?))
}

/// Magma `t`: `out = t(in)` with the record cipher's S-boxes.
pub(crate) fn magma_t(ctx: &Ctx, name: Name) -> Step {
    let a = word(ctx, "in")?;
    let out = magma::transform_t(a, &magma_sbox(name));
    ctx.expect("out", &out.to_be_bytes())
}

/// Magma `g[k]`: `out = g[k](in)`.
pub(crate) fn magma_g(ctx: &Ctx, name: Name) -> Step {
    let k = word(ctx, "k")?;
    let a = word(ctx, "in")?;
    let out = magma::transform_g(k, a, &magma_sbox(name));
    ctx.expect("out", &out.to_be_bytes())
}
