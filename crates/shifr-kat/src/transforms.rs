//! `mode = transform-*`: the round transformations of Kuznyechik (S, R, L) and Magma (t, g).

use shifr::block::magma;

use crate::ciphers::magma_sbox;
use crate::ctx::{Ctx, Step};
use crate::names::Name;

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
