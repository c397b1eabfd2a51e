//! `mode = block` for the block ciphers: encryption and decryption of whole blocks, plus the
//! round-by-round traces the GOST standards print (Magma `g01..g31`, Kuznyechik `lsx1..lsx9`).

use shifr::hazmat::block::kuznyechik::Kuznyechik;
use shifr::hazmat::block::magma::Magma;
use shifr::Error;

use crate::ciphers::{block_len, boxed, gost28147_little_endian, magma_sbox};
use crate::ctx::{fail, lib, skip, Ctx, Step};
use crate::names::Name;

/// `pt`/`ct` are one or more whole blocks; both directions are checked.
pub(crate) fn check(ctx: &Ctx, name: Name) -> Step {
    let key = ctx.hex("key")?;
    let pt = ctx.hex("pt")?;
    let ct = ctx.hex("ct")?;
    let n = block_len(name);
    if ctx.invalid() {
        // Round traces of a record that must be rejected describe nothing; they are read only.
        for (_, field) in ctx.indexed("g").into_iter().chain(ctx.indexed("lsx")) {
            ctx.opt_hex(field)?;
        }
        let attempt = boxed(ctx, name, &key).and_then(|_| whole_blocks(&ct, n));
        return ctx.rejected("key setup and block decryption", attempt);
    }
    let cipher = lib("key setup", boxed(ctx, name, &key))?;
    lib("field `pt`", whole_blocks(&pt, n))?;
    lib("field `ct`", whole_blocks(&ct, n))?;
    let mut enc = pt.clone();
    cipher.encrypt_blocks(&mut enc);
    ctx.same("encrypt(pt) vs ct", &ct, &enc)?;
    let mut dec = ct.clone();
    cipher.decrypt_blocks(&mut dec);
    ctx.same("decrypt(ct) vs pt", &pt, &dec)?;
    if name.is_magma() {
        magma_trace(ctx, name, &key, &pt)?;
    }
    if name == Name::Kuznyechik {
        kuznyechik_trace(ctx, &key, &pt)?;
    }
    Ok(())
}

/// `Ok` when `data` is a non-empty whole number of `n`-byte blocks.
fn whole_blocks(data: &[u8], n: usize) -> shifr::Result<()> {
    if data.is_empty() || !data.len().is_multiple_of(n) {
        return Err(Error::NotBlockAligned {
            block: n,
            got: data.len(),
        });
    }
    Ok(())
}

/// `g<NN>` = `(a_1 || a_0)` after round NN of the single block `pt`.
fn magma_trace(ctx: &Ctx, name: Name, key: &[u8], pt: &[u8]) -> Step {
    let fields = ctx.indexed("g");
    if fields.is_empty() {
        return Ok(());
    }
    if name == Name::Gost28147 && gost28147_little_endian(ctx) {
        return skip("the library exposes no little-endian GOST 28147-89 round trace");
    }
    let Ok(block) = <[u8; 8]>::try_from(pt) else {
        return fail("a round trace needs `pt` to be exactly one block");
    };
    let cipher = lib("key setup", Magma::with_sbox(key, magma_sbox(name)))?;
    let trace = cipher.trace_block(&block);
    for (i, field) in fields {
        if let Some(state) = i.checked_sub(1).and_then(|r| trace.get(r)) {
            ctx.expect(field, state)?;
        }
    }
    Ok(())
}

/// `lsx<i>` = LSX[K_i]...LSX[K_1](pt) for the single block `pt`.
fn kuznyechik_trace(ctx: &Ctx, key: &[u8], pt: &[u8]) -> Step {
    let fields = ctx.indexed("lsx");
    if fields.is_empty() {
        return Ok(());
    }
    let Ok(block) = <[u8; 16]>::try_from(pt) else {
        return fail("a round trace needs `pt` to be exactly one block");
    };
    let cipher = lib("key setup", Kuznyechik::new(key))?;
    let trace = cipher.trace_block(&block);
    for (i, field) in fields {
        if let Some(state) = i.checked_sub(1).and_then(|r| trace.get(r)) {
            ctx.expect(field, state)?;
        }
    }
    Ok(())
}
