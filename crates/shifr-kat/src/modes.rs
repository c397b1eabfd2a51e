//! The block-cipher modes: ECB, CBC (with the GOST `m`-bit register), CBC with PKCS#7 padding, CFB,
//! OFB, CTR (SP 800-38A full counter block or GOST half-block IV) and CTR-ACPKM. Every record is
//! checked in both directions: encrypt(pt) = ct and decrypt(ct) = pt.

use shifr::hazmat::block::{BlockCipher, KeyInit};
use shifr::hazmat::mode::{cbc, cfb, ctr, ctr_acpkm, ecb, ofb, padding};
use shifr::Error;

use crate::ciphers::{block_len, boxed, with_cipher, Visit};
use crate::ctx::{fail, lib, skip, Ctx, Step};
use crate::names::Name;

/// One direction of a mode over a buffer that it may grow or shrink (padding).
type Op<'a> = &'a dyn Fn(&dyn BlockCipher, &mut Vec<u8>) -> shifr::Result<()>;

/// Runs `enc` on pt and `dec` on ct and compares; for `result = invalid`, only `dec`, which must fail.
fn both_ways(ctx: &Ctx, name: Name, enc: Op, dec: Op) -> Step {
    let key = ctx.hex("key")?;
    let pt = ctx.hex("pt")?;
    let ct = ctx.hex("ct")?;
    if ctx.invalid() {
        let attempt = boxed(ctx, name, &key).and_then(|c| dec(&*c, &mut ct.clone()));
        return ctx.rejected("decryption", attempt);
    }
    let cipher = lib("key setup", boxed(ctx, name, &key))?;
    let mut buf = pt.clone();
    lib("encryption", enc(&*cipher, &mut buf))?;
    ctx.same("encrypt(pt) vs ct", &ct, &buf)?;
    let mut buf = ct;
    lib("decryption", dec(&*cipher, &mut buf))?;
    ctx.same("decrypt(ct) vs pt", &pt, &buf)
}

/// The IV, checked against the register size `m` (bits) when the record gives it.
fn register_iv(ctx: &Ctx) -> Step<Vec<u8>> {
    let iv = ctx.hex("iv")?;
    if let Some(m) = ctx.opt_dec("m")? {
        if m != 8 * iv.len() as u64 {
            return fail(format!("`iv` is {} bits but `m` = {m}", 8 * iv.len()));
        }
    }
    Ok(iv)
}

/// The segment size `s` in bytes (the whole block when absent).
fn segment(ctx: &Ctx, name: Name) -> Step<usize> {
    Ok(ctx.opt_bytes_of_bits("s")?.unwrap_or(block_len(name)))
}

/// For CTR-ACPKM, whose GOST form could truncate the gamma to `s < n` bits per block: shifr offers
/// only `s = n` there (R 1323565.1.017 defines its sections for full-block gamma).
fn full_block_segment(ctx: &Ctx, name: Name, mode: &str) -> Step {
    let n = block_len(name);
    if let Some(s) = ctx.opt_dec("s")? {
        if s != 8 * n as u64 {
            return skip(format!(
                "{mode} with s = {s} bits: shifr's {mode} uses the whole {}-bit block of gamma (s = n)",
                8 * n
            ));
        }
    }
    Ok(())
}

/// ECB: whole blocks.
pub(crate) fn ecb(ctx: &Ctx, name: Name) -> Step {
    both_ways(ctx, name, &|c, b| ecb::encrypt(c, b), &|c, b| {
        ecb::decrypt(c, b)
    })
}

/// CBC; `m` = register bits (n, 2n, 3n: interleaved chains), default n.
pub(crate) fn cbc(ctx: &Ctx, name: Name) -> Step {
    let iv = register_iv(ctx)?;
    both_ways(ctx, name, &|c, b| cbc::encrypt(c, &iv, b), &|c, b| {
        cbc::decrypt(c, &iv, b)
    })
}

/// `ct` includes the PKCS#7 padding; `pt` is unpadded. Invalid records have bad padding (or IV).
pub(crate) fn cbc_pkcs7(ctx: &Ctx, name: Name) -> Step {
    let iv = ctx.hex("iv")?;
    let enc = |c: &dyn BlockCipher, b: &mut Vec<u8>| {
        padding::pkcs7_pad(b, c.block_size())?;
        cbc::encrypt(c, &iv, b)
    };
    let dec = |c: &dyn BlockCipher, b: &mut Vec<u8>| {
        cbc::decrypt(c, &iv, b)?;
        let len = padding::pkcs7_unpad(b, c.block_size())?;
        b.truncate(len);
        Ok(())
    };
    both_ways(ctx, name, &enc, &dec)
}

/// `s` = segment bits (8 = CFB8, n = full-block CFB), `m` = register bits (default n).
pub(crate) fn cfb(ctx: &Ctx, name: Name) -> Step {
    let seg = segment(ctx, name)?;
    let iv = register_iv(ctx)?;
    both_ways(ctx, name, &|c, b| cfb::encrypt(c, &iv, seg, b), &|c, b| {
        cfb::decrypt(c, &iv, seg, b)
    })
}

/// OFB; `m` = register bits, default n; `s` = gamma bits taken from each output block, default n.
pub(crate) fn ofb(ctx: &Ctx, name: Name) -> Step {
    let seg = segment(ctx, name)?;
    let iv = register_iv(ctx)?;
    both_ways(
        ctx,
        name,
        &|c, b| ofb::apply_segmented(c, &iv, seg, b),
        &|c, b| ofb::apply_segmented(c, &iv, seg, b),
    )
}

/// `iv` of n bytes is the SP 800-38A initial counter block; `iv` of n/2 bytes is the GOST R 34.13
/// IV (`CTR_1 = iv || 0^(n/2)`).
pub(crate) fn ctr(ctx: &Ctx, name: Name) -> Step {
    let seg = segment(ctx, name)?;
    let iv = ctx.hex("iv")?;
    let apply = |c: &dyn BlockCipher, b: &mut Vec<u8>| {
        let n = c.block_size();
        if iv.len() == n {
            ctr::apply_segmented(c, &iv, seg, b)
        } else if 2 * iv.len() == n {
            ctr::apply_segmented(c, &ctr::gost_counter_block(&iv, n)?, seg, b)
        } else {
            Err(Error::InvalidIvLength {
                expected: "a full counter block (n) or a GOST IV (n/2)",
                got: iv.len(),
            })
        }
    };
    both_ways(ctx, name, &apply, &apply)
}

/// CTR-ACPKM: `section_bits` = N, `iv` = n/2 bits, `sectionkey<j>` = the key of section j
/// (`sectionkey1` is the key itself).
pub(crate) fn ctr_acpkm(ctx: &Ctx, name: Name) -> Step {
    full_block_segment(ctx, name, "ctr-acpkm")?;
    let section = ctx.bytes_of_bits("section_bits")?;
    let key = ctx.hex("key")?;
    let iv = ctx.hex("iv")?;
    let pt = ctx.hex("pt")?;
    let ct = ctx.hex("ct")?;
    let key_fields = ctx.indexed("sectionkey");
    let run = CtrAcpkm {
        key_len: key.len(),
        iv: &iv,
        section,
        pt: &pt,
        ct: &ct,
        next_keys: key_fields
            .iter()
            .map(|&(i, _)| i)
            .max()
            .unwrap_or(1)
            .saturating_sub(1),
        encrypt: !ctx.invalid(),
    };
    let result = with_cipher(ctx, name, &key, run).and_then(|r| r);
    if ctx.invalid() {
        // Section keys of an invalid record are not outputs; they are read, not compared.
        for (_, field) in &key_fields {
            ctx.opt_hex(field)?;
        }
        return ctx.rejected("decryption", result);
    }
    let (enc, dec, keys) = lib("CTR-ACPKM", result)?;
    ctx.same("encrypt(pt) vs ct", &ct, &enc)?;
    ctx.same("decrypt(ct) vs pt", &pt, &dec)?;
    for (j, field) in key_fields {
        let got = match j {
            1 => Some(key.as_slice()),
            _ => j
                .checked_sub(2)
                .and_then(|i| keys.get(i))
                .map(Vec::as_slice),
        };
        if let Some(got) = got {
            ctx.expect(field, got)?;
        }
    }
    Ok(())
}

/// Encrypts pt, decrypts ct and derives the section keys after the first.
struct CtrAcpkm<'a> {
    key_len: usize,
    iv: &'a [u8],
    section: usize,
    pt: &'a [u8],
    ct: &'a [u8],
    next_keys: usize,
    encrypt: bool,
}

type AcpkmOut = shifr::Result<(Vec<u8>, Vec<u8>, Vec<Vec<u8>>)>;

impl Visit for CtrAcpkm<'_> {
    type Out = AcpkmOut;

    fn visit<C: KeyInit + 'static>(self, c: C) -> AcpkmOut {
        let mut dec = self.ct.to_vec();
        ctr_acpkm::apply_with_key_len(&c, self.key_len, self.iv, self.section, &mut dec)?;
        if !self.encrypt {
            return Ok((Vec::new(), dec, Vec::new()));
        }
        let mut enc = self.pt.to_vec();
        ctr_acpkm::apply_with_key_len(&c, self.key_len, self.iv, self.section, &mut enc)?;
        let mut keys = Vec::with_capacity(self.next_keys);
        let mut current: Option<C> = None;
        for _ in 0..self.next_keys {
            let next = ctr_acpkm::acpkm_next_key(current.as_ref().unwrap_or(&c), self.key_len)?;
            current = Some(c.rekey(&next)?);
            keys.push(next.to_vec());
        }
        Ok((enc, dec, keys))
    }
}
