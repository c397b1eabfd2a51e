//! AEADs: AES-GCM (with `h` and `y0`), ChaCha20-Poly1305 / XChaCha20-Poly1305 (with `otk`) and MGM
//! (with `y1`, `z1`). Valid records: seal(pt) = (ct, tag), open(ct, tag) = pt, and open with a
//! flipped tag bit is rejected without touching the buffer. Invalid records: open must fail.

use shifr::aead::chacha20poly1305::{ChaCha20Poly1305, XChaCha20Poly1305};
use shifr::aead::gcm::AesGcm;
use shifr::aead::mgm::Mgm;
use shifr::aead::Aead;

use crate::chacha::one_time_key;
use crate::ciphers::{boxed, check_aes_key};
use crate::ctx::{fail, lib, skip, Ctx, Step};
use crate::mac::tag_len;
use crate::names::Name;

/// The fields every AEAD record has.
struct Message {
    nonce: Vec<u8>,
    aad: Vec<u8>,
    pt: Vec<u8>,
    ct: Vec<u8>,
    tag: Vec<u8>,
}

impl Message {
    fn read(ctx: &Ctx, nonce_field: &str) -> Step<Message> {
        Ok(Message {
            nonce: ctx.hex(nonce_field)?,
            aad: ctx.hex("aad")?,
            pt: ctx.hex("pt")?,
            ct: ctx.hex("ct")?,
            tag: ctx.hex("tag")?,
        })
    }
}

/// The seal/open checks for a keyed AEAD (`aead` is the key setup's result).
fn seal_and_open(ctx: &Ctx, aead: shifr::Result<Box<dyn Aead>>, m: &Message) -> Step {
    if ctx.invalid() {
        let attempt = aead.and_then(|a| a.open(&m.nonce, &m.aad, &mut m.ct.clone(), &m.tag));
        return ctx.rejected("open", attempt);
    }
    let a = lib("key setup", aead)?;
    let mut buf = m.pt.clone();
    let tag = lib("seal", a.seal(&m.nonce, &m.aad, &mut buf))?;
    ctx.same("seal(pt): ciphertext vs ct", &m.ct, &buf)?;
    ctx.same("seal(pt): tag", &m.tag, tag.as_ref())?;
    let mut buf = m.ct.clone();
    lib("open(ct, tag)", a.open(&m.nonce, &m.aad, &mut buf, &m.tag))?;
    ctx.same("open(ct, tag) vs pt", &m.pt, &buf)?;
    let mut bad = m.tag.clone();
    if let Some(last) = bad.last_mut() {
        *last ^= 1;
    }
    let mut buf = m.ct.clone();
    if a.open(&m.nonce, &m.aad, &mut buf, &bad).is_ok() {
        return fail("open accepted a tag with its last bit flipped");
    }
    if buf != m.ct {
        return fail("a rejected open modified the ciphertext buffer");
    }
    Ok(())
}

/// Compares an intermediate value (a function of key and nonce alone) when the record has it.
/// A valid record must let it be computed; an invalid record's nonce may allow none.
fn intermediate(ctx: &Ctx, field: &str, got: Option<Vec<u8>>) -> Step {
    if !ctx.has(field) {
        return Ok(());
    }
    match got {
        Some(v) => ctx.expect(field, &v),
        None if ctx.invalid() => ctx.opt_hex(field).map(drop),
        None => fail(format!(
            "`{field}` cannot be computed: the key or nonce was rejected"
        )),
    }
}

/// AES-GCM; the tag length is the tag field's; `h` = E_K(0^128), `y0` = J0 for the IV.
pub(crate) fn gcm(ctx: &Ctx, name: Name) -> Step {
    let key = ctx.hex("key")?;
    let m = Message::read(ctx, "iv")?;
    let gcm = check_aes_key(name, &key).and_then(|()| AesGcm::new(&key, m.tag.len()));
    if !ctx.invalid() && !(12..=16).contains(&m.tag.len()) && gcm.is_err() {
        // SP 800-38D allows 32- and 64-bit tags only under usage limits; shifr refuses them.
        return skip(format!(
            "field `tag`: {}-byte GCM tags are not offered by shifr (12 to 16 bytes)",
            m.tag.len()
        ));
    }
    let h = gcm.as_ref().ok().map(|g| g.hash_subkey().to_vec());
    let y0 = gcm
        .as_ref()
        .ok()
        .and_then(|g| g.pre_counter_block(&m.nonce).ok());
    seal_and_open(ctx, gcm.map(|g| Box::new(g) as Box<dyn Aead>), &m)?;
    intermediate(ctx, "h", h)?;
    intermediate(ctx, "y0", y0.map(|v| v.to_vec()))
}

/// ChaCha20-Poly1305 (12-byte nonce) or XChaCha20-Poly1305 (24-byte nonce); `otk` = the Poly1305
/// one-time key.
pub(crate) fn chacha(ctx: &Ctx, name: Name) -> Step {
    let key = ctx.hex("key")?;
    let m = Message::read(ctx, "nonce")?;
    let aead: shifr::Result<Box<dyn Aead>> = if name.is_extended_nonce() {
        XChaCha20Poly1305::new(&key).map(|a| Box::new(a) as Box<dyn Aead>)
    } else {
        ChaCha20Poly1305::new(&key).map(|a| Box::new(a) as Box<dyn Aead>)
    };
    seal_and_open(ctx, aead, &m)?;
    let otk = one_time_key(name, &key, &m.nonce).ok();
    intermediate(ctx, "otk", otk.map(|k| k.to_vec()))
}

/// MGM (RFC 9058) over Magma or Kuznyechik (or any 64/128-bit block cipher); `tag_bits` = tag size,
/// `y1`/`z1` = E_K(0||ICN) and E_K(1||ICN).
pub(crate) fn mgm(ctx: &Ctx, name: Name) -> Step {
    let key = ctx.hex("key")?;
    let m = Message::read(ctx, "nonce")?;
    let len = tag_len(ctx, "tag_bits", &m.tag)?;
    let mgm = boxed(ctx, name, &key).and_then(|c| Mgm::new(c, len));
    let (y1, z1) = match mgm.as_ref().map(|g| g.y1_z1(&m.nonce)) {
        Ok(Ok((y1, z1))) => (Some(y1), Some(z1)),
        _ => (None, None),
    };
    seal_and_open(ctx, mgm.map(|g| Box::new(g) as Box<dyn Aead>), &m)?;
    intermediate(ctx, "y1", y1)?;
    intermediate(ctx, "z1", z1)
}
