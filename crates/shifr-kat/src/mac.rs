//! MACs: OMAC / CMAC (the GOST R 34.13 MAC, AES-CMAC), OMAC-ACPKM and Poly1305. The tag is
//! computed one-shot and incrementally (with the message split at several points) and verified;
//! `result = invalid` records pass only if verification fails.

use shifr::hazmat::block::{BlockCipher, KeyInit};
use shifr::hazmat::mac::omac::{self, Omac};
use shifr::hazmat::mac::omac_acpkm;
use shifr::hazmat::mac::poly1305::{self, Poly1305};
use shifr::hazmat::util::ct_eq;
use shifr::Error;

use crate::ciphers::{block_len, boxed, with_cipher, Visit};
use crate::ctx::{fail, lib, Ctx, Step};
use crate::names::Name;

/// Tag length in bytes: `field` bits when the record gives it (and the tag must match), else the tag's.
pub(crate) fn tag_len(ctx: &Ctx, field: &str, tag: &[u8]) -> Step<usize> {
    match ctx.opt_bytes_of_bits(field)? {
        Some(len) if len != tag.len() => fail(format!(
            "`tag` is {} bits but `{field}` = {}",
            8 * tag.len(),
            8 * len
        )),
        _ => Ok(tag.len()),
    }
}

/// `Ok` when `got` equals `tag`, else the error a verifier returns.
pub(crate) fn verify(got: &[u8], tag: &[u8]) -> shifr::Result<()> {
    if ct_eq(got, tag) {
        Ok(())
    } else {
        Err(Error::AuthenticationFailed)
    }
}

/// Split points for incremental MAC checks: around the first block boundaries and the middle.
fn splits(len: usize, n: usize) -> Vec<usize> {
    let mut at: Vec<usize> = [0, 1, n.saturating_sub(1), n, n + 1, len / 2, len]
        .into_iter()
        .filter(|&k| k <= len)
        .collect();
    at.sort_unstable();
    at.dedup();
    at
}

/// OMAC1 = CMAC = the GOST R 34.13-2015 MAC: `s` = tag bits, `r` = E(0^n), `k1`/`k2` the subkeys.
pub(crate) fn omac(ctx: &Ctx, name: Name) -> Step {
    let key = ctx.hex("key")?;
    let msg = ctx.hex("pt")?;
    let tag = ctx.hex("tag")?;
    let len = tag_len(ctx, "s", &tag)?;
    if ctx.invalid() {
        for field in ["r", "k1", "k2"] {
            ctx.opt_hex(field)?;
        }
        let attempt = boxed(ctx, name, &key).and_then(|c| {
            let mut mac = Omac::new(c, len)?;
            mac.update(&msg);
            mac.verify(&tag)
        });
        return ctx.rejected("MAC verification", attempt);
    }
    let cipher = lib("key setup", boxed(ctx, name, &key))?;
    let cipher: &dyn BlockCipher = &*cipher;
    let got = lib("OMAC", omac::omac(cipher, len, &msg))?;
    ctx.same("tag", &tag, &got)?;
    for at in splits(msg.len(), block_len(name)) {
        let mut mac = lib("OMAC", Omac::new(cipher, len))?;
        mac.update(&msg[..at]);
        mac.update(&msg[at..]);
        if mac.verify(&tag).is_err() {
            return fail(format!(
                "incremental OMAC split at byte {at} rejects the tag"
            ));
        }
    }
    let mut bad = tag.clone();
    if let Some(last) = bad.last_mut() {
        *last ^= 1;
    }
    let mut mac = lib("OMAC", Omac::new(cipher, len))?;
    mac.update(&msg);
    if mac.verify(&bad).is_ok() {
        return fail("OMAC verification accepted a tag with its last bit flipped");
    }
    if ["r", "k1", "k2"].iter().any(|f| ctx.has(f)) {
        let (r, k1, k2) = lib("OMAC subkeys", omac::subkeys(cipher))?;
        ctx.expect_if("r", || Ok(r.to_vec()))?;
        ctx.expect_if("k1", || Ok(k1.to_vec()))?;
        ctx.expect_if("k2", || Ok(k2.to_vec()))?;
    }
    Ok(())
}

/// OMAC-ACPKM: `section_bits` = N, `tstar_bits` = T*, `keymaterial` = ACPKM-Master output.
pub(crate) fn omac_acpkm(ctx: &Ctx, name: Name) -> Step {
    let key = ctx.hex("key")?;
    let msg = ctx.hex("pt")?;
    let tag = ctx.hex("tag")?;
    let len = tag_len(ctx, "s", &tag)?;
    let section = ctx.bytes_of_bits("section_bits")?;
    let tstar = ctx.bytes_of_bits("tstar_bits")?;
    let material = ctx.opt_hex("keymaterial")?;
    let run = OmacAcpkm {
        key_len: key.len(),
        section,
        tstar,
        tag_len: len,
        msg: &msg,
        material_len: material.as_ref().map_or(0, Vec::len),
    };
    let result = with_cipher(ctx, name, &key, run).and_then(|r| r);
    if ctx.invalid() {
        return ctx.rejected(
            "MAC verification",
            result.and_then(|(t, _)| verify(&t, &tag)),
        );
    }
    let (got, got_material) = lib("OMAC-ACPKM", result)?;
    ctx.same("tag", &tag, &got)?;
    if let Some(material) = material {
        match got_material {
            Some(got) => ctx.same("keymaterial", &material, &got)?,
            None => {
                return fail(format!(
                    "`keymaterial` ({} bytes) is not a whole number of (key + block)-byte sections",
                    material.len()
                ))
            }
        }
    }
    Ok(())
}

/// Computes the tag and, when asked, `material_len` bytes of ACPKM-Master key material.
struct OmacAcpkm<'a> {
    key_len: usize,
    section: usize,
    tstar: usize,
    tag_len: usize,
    msg: &'a [u8],
    material_len: usize,
}

impl Visit for OmacAcpkm<'_> {
    type Out = shifr::Result<(Vec<u8>, Option<Vec<u8>>)>;

    fn visit<C: KeyInit + 'static>(self, c: C) -> Self::Out {
        let tag = omac_acpkm::omac_acpkm_with_key_len(
            &c,
            self.key_len,
            self.section,
            self.tstar,
            self.tag_len,
            self.msg,
        )?;
        let stride = self.key_len + c.block_size();
        let material = if self.material_len.is_multiple_of(stride) {
            let sections = self.material_len / stride;
            let m = omac_acpkm::acpkm_master_with_key_len(&c, self.key_len, self.tstar, sections)?;
            Some(m.to_vec())
        } else {
            None
        };
        Ok((tag, material))
    }
}

/// Poly1305 with a 32-byte one-time key `r || s`.
pub(crate) fn poly1305(ctx: &Ctx, _: Name) -> Step {
    let key = ctx.hex("key")?;
    let msg = ctx.hex("pt")?;
    let tag = ctx.hex("tag")?;
    if ctx.invalid() {
        let attempt = poly1305::poly1305(&key, &msg).and_then(|t| verify(&t, &tag));
        return ctx.rejected("MAC verification", attempt);
    }
    let got = lib("Poly1305", poly1305::poly1305(&key, &msg))?;
    ctx.same("tag", &tag, &got)?;
    for at in splits(msg.len(), 16) {
        let mut mac = lib("Poly1305", Poly1305::new(&key))?;
        mac.update(&msg[..at]);
        mac.update(&msg[at..]);
        ctx.same(
            &format!("incremental tag (split at byte {at})"),
            &tag,
            &mac.finalize(),
        )?;
    }
    Ok(())
}
