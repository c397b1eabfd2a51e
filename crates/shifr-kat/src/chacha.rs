//! ChaCha20 / XChaCha20 internals and stream: quarter rounds, the block function's states
//! (`state0`, `state20`, `state_out`, printed as big-endian words in row order), key stream and
//! encryption in both directions (also split across calls), and the Poly1305 one-time key.
//!
//! XChaCha20 records use the same fields: the key stream and states are those of the ChaCha20
//! block keyed with the HChaCha20 subkey and the nonce `0^32 || nonce[16..24]`. An absent
//! `counter` means 0 (where the XChaCha20 and AEAD key streams start).

use shifr::aead::chacha20poly1305::poly1305_key_gen;
use shifr::hazmat::stream::chacha20::{self, ChaCha20, XChaCha20};
use shifr::Error;

use crate::ctx::{fail, lib, skip, Ctx, Step};
use crate::names::Name;

/// State words as the RFC prints them: each word big-endian, in row order.
fn words_be(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_be_bytes()).collect()
}

/// The serialized block (little-endian words): the key stream.
fn serialized(state: &[u32; 16]) -> Vec<u8> {
    state.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The initial block counter (decimal, 32 bits; 0 when absent).
fn counter(ctx: &Ctx) -> Step<u32> {
    let c = ctx.opt_dec("counter")?.unwrap_or(0);
    u32::try_from(c).or_else(|_| fail(format!("field `counter` = {c} does not fit 32 bits")))
}

/// The ChaCha20 key and 96-bit nonce behind a record: for the X variants, the HChaCha20 subkey
/// and `0^32 || nonce[16..24]` (draft-irtf-cfrg-xchacha section 2.3).
fn ietf_key_nonce(name: Name, key: &[u8], nonce: &[u8]) -> shifr::Result<([u8; 32], [u8; 12])> {
    let key: [u8; 32] = key.try_into().map_err(|_| Error::InvalidKeyLength {
        expected: "32",
        got: key.len(),
    })?;
    if name.is_extended_nonce() {
        let nonce: &[u8; 24] = nonce.try_into().map_err(|_| Error::InvalidNonceLength {
            expected: "24",
            got: nonce.len(),
        })?;
        let mut prefix = [0u8; 16];
        prefix.copy_from_slice(&nonce[..16]);
        let mut n12 = [0u8; 12];
        n12[4..].copy_from_slice(&nonce[16..]);
        Ok((chacha20::hchacha20(&key, &prefix), n12))
    } else {
        let n12 = nonce.try_into().map_err(|_| Error::InvalidNonceLength {
            expected: "12",
            got: nonce.len(),
        })?;
        Ok((key, n12))
    }
}

/// Valid records with the original 64-bit ChaCha20 nonce (64-bit counter) are outside what shifr
/// offers (RFC 8439 only): skipped rather than failed.
fn offered_nonce(ctx: &Ctx, name: Name, nonce: &[u8]) -> Step {
    if !ctx.invalid() && name == Name::ChaCha20 && nonce.len() == 8 {
        return skip("field `nonce`: 64-bit nonces (original ChaCha20) are not offered by shifr");
    }
    Ok(())
}

/// XORs the key stream into `data`, feeding it to the cipher in pieces of the given sizes (the
/// rest in one final call).
fn xor_stream(
    name: Name,
    key: &[u8],
    nonce: &[u8],
    counter: u32,
    data: &mut [u8],
    pieces: &[usize],
) -> shifr::Result<()> {
    enum Stream {
        Ietf(ChaCha20),
        Extended(XChaCha20),
    }
    let mut stream = if name.is_extended_nonce() {
        Stream::Extended(XChaCha20::new(key, nonce, counter)?)
    } else {
        Stream::Ietf(ChaCha20::new(key, nonce, counter)?)
    };
    let mut apply = |part: &mut [u8]| match &mut stream {
        Stream::Ietf(s) => s.apply_keystream(part),
        Stream::Extended(s) => s.apply_keystream(part),
    };
    let mut rest = data;
    for &len in pieces {
        let (part, tail) = rest.split_at_mut(len.min(rest.len()));
        apply(part)?;
        rest = tail;
    }
    apply(rest)
}

/// `in`/`out` = a||b||c||d (4 words), or a 16-word state with `index` = "a,b,c,d".
pub(crate) fn quarterround(ctx: &Ctx, _: Name) -> Step {
    let input = ctx.words("in")?;
    let output = ctx.words("out")?;
    let got: Vec<u32> = match input.len() {
        4 => {
            if ctx.has("index") {
                return fail("`index` applies only to a 16-word state");
            }
            let (a, b, c, d) = chacha20::qr(input[0], input[1], input[2], input[3]);
            vec![a, b, c, d]
        }
        16 => {
            let idx = indices(ctx.text("index")?)?;
            let mut state = [0u32; 16];
            state.copy_from_slice(&input);
            chacha20::quarter_round(&mut state, idx[0], idx[1], idx[2], idx[3]);
            state.to_vec()
        }
        n => return fail(format!("field `in`: {n} words, expected 4 or 16")),
    };
    ctx.same(
        "quarter round of in vs out",
        &words_be(&output),
        &words_be(&got),
    )
}

/// Four distinct word indices below 16, comma-separated.
fn indices(text: &str) -> Step<[usize; 4]> {
    let parsed: Option<Vec<usize>> = text
        .split(',')
        .map(|t| t.trim().parse::<usize>().ok().filter(|&i| i < 16))
        .collect();
    match parsed.as_deref() {
        Some(&[a, b, c, d]) if a != b && a != c && a != d && b != c && b != d && c != d => {
            Ok([a, b, c, d])
        }
        _ => fail(format!(
            "field `index`: `{text}` is not four distinct word indices 0..15"
        )),
    }
}

/// The block function: `state0` (setup), `state20` (after 20 rounds), `state_out` (sum), and
/// `keystream` (the serialized block, also generated through the stream cipher).
pub(crate) fn block(ctx: &Ctx, name: Name) -> Step {
    let key = ctx.hex("key")?;
    let nonce = ctx.hex("nonce")?;
    offered_nonce(ctx, name, &nonce)?;
    let ctr = counter(ctx)?;
    if ctx.invalid() {
        for field in ["state0", "state20", "state_out", "keystream"] {
            ctx.opt_hex(field)?;
        }
        return ctx.rejected("key and nonce setup", ietf_key_nonce(name, &key, &nonce));
    }
    let (k, n12) = lib("key and nonce setup", ietf_key_nonce(name, &key, &nonce))?;
    let state0 = chacha20::setup_state(&k, ctr, &n12);
    ctx.expect_if("state0", || Ok(words_be(&state0)))?;
    ctx.expect_if("state20", || Ok(words_be(&chacha20::rounds(&state0))))?;
    let out = chacha20::block(&state0);
    ctx.expect_if("state_out", || Ok(words_be(&out)))?;
    if ctx.has("keystream") {
        let want = ctx.hex("keystream")?;
        let mut stream = vec![0u8; want.len()];
        lib(
            "stream",
            xor_stream(name, &key, &nonce, ctr, &mut stream, &[]),
        )?;
        ctx.same("keystream (stream cipher)", &want, &stream)?;
        if want.len() <= 64 {
            ctx.same(
                "keystream (block function)",
                &want,
                &serialized(&out)[..want.len()],
            )?;
        }
    }
    Ok(())
}

/// Encryption pt -> ct and decryption ct -> pt, whole and split across calls; `keystream`;
/// `state0` = the setup state of the first block.
pub(crate) fn stream(ctx: &Ctx, name: Name) -> Step {
    let key = ctx.hex("key")?;
    let nonce = ctx.hex("nonce")?;
    offered_nonce(ctx, name, &nonce)?;
    let ctr = counter(ctx)?;
    let pt = ctx.hex("pt")?;
    let ct = ctx.hex("ct")?;
    if ctx.invalid() {
        for field in ["state0", "keystream"] {
            ctx.opt_hex(field)?;
        }
        let attempt = xor_stream(name, &key, &nonce, ctr, &mut ct.clone(), &[]);
        return ctx.rejected("decryption", attempt);
    }
    let mut buf = pt.clone();
    lib(
        "encryption",
        xor_stream(name, &key, &nonce, ctr, &mut buf, &[]),
    )?;
    ctx.same("encrypt(pt) vs ct", &ct, &buf)?;
    let mut buf = ct.clone();
    lib(
        "decryption",
        xor_stream(name, &key, &nonce, ctr, &mut buf, &[]),
    )?;
    ctx.same("decrypt(ct) vs pt", &pt, &buf)?;
    for pieces in [&[1usize, 63][..], &[63, 2], &[64, 1, 100], &[7, 7, 7]] {
        let mut buf = pt.clone();
        lib(
            "encryption",
            xor_stream(name, &key, &nonce, ctr, &mut buf, pieces),
        )?;
        ctx.same(
            &format!("encrypt(pt) in pieces {pieces:?} vs ct"),
            &ct,
            &buf,
        )?;
    }
    if ctx.has("keystream") {
        let want = ctx.hex("keystream")?;
        let mut stream = vec![0u8; want.len()];
        lib(
            "stream",
            xor_stream(name, &key, &nonce, ctr, &mut stream, &[]),
        )?;
        ctx.same("keystream", &want, &stream)?;
    }
    if ctx.has("state0") {
        let (k, n12) = lib("key and nonce setup", ietf_key_nonce(name, &key, &nonce))?;
        ctx.expect("state0", &words_be(&chacha20::setup_state(&k, ctr, &n12)))?;
    }
    Ok(())
}

/// The Poly1305 one-time key of RFC 8439 section 2.6 for `key`/`nonce` (X variants: via the
/// HChaCha20 subkey).
pub(crate) fn one_time_key(name: Name, key: &[u8], nonce: &[u8]) -> shifr::Result<[u8; 32]> {
    let (k, n12) = ietf_key_nonce(name, key, nonce)?;
    Ok(poly1305_key_gen(&k, &n12))
}

/// `otk` = the first 32 bytes of the block for `counter` (0 for the AEAD), plus its states.
pub(crate) fn keygen(ctx: &Ctx, name: Name) -> Step {
    let key = ctx.hex("key")?;
    let nonce = ctx.hex("nonce")?;
    offered_nonce(ctx, name, &nonce)?;
    let ctr = counter(ctx)?;
    if ctx.invalid() {
        for field in ["otk", "state0", "state20", "state_out"] {
            ctx.opt_hex(field)?;
        }
        return ctx.rejected("key and nonce setup", ietf_key_nonce(name, &key, &nonce));
    }
    let (k, n12) = lib("key and nonce setup", ietf_key_nonce(name, &key, &nonce))?;
    let state0 = chacha20::setup_state(&k, ctr, &n12);
    let out = chacha20::block(&state0);
    let want = ctx.hex("otk")?;
    ctx.same("otk (block function)", &want, &serialized(&out)[..32])?;
    if ctr == 0 {
        let otk = lib("key generation", one_time_key(name, &key, &nonce))?;
        ctx.same("otk (poly1305_key_gen)", &want, &otk)?;
    }
    ctx.expect_if("state0", || Ok(words_be(&state0)))?;
    ctx.expect_if("state20", || Ok(words_be(&chacha20::rounds(&state0))))?;
    ctx.expect_if("state_out", || Ok(words_be(&out)))
}
