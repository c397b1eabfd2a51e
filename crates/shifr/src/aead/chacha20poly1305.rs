//! AEAD_CHACHA20_POLY1305 (RFC 8439 section 2.8) and AEAD_XChaCha20_Poly1305
//! (draft-irtf-cfrg-xchacha-03 section 2).
//!
//! Seal: the Poly1305 one-time key is the first 32 bytes of ChaCha20 block 0 ([`poly1305_key_gen`]),
//! the data is encrypted from block counter 1, and the tag is Poly1305 over
//! `aad || pad16 || ct || pad16 || le64(len(aad)) || le64(len(ct))`. Open recomputes the tag over
//! the received ciphertext and compares it in constant time ([`crate::util::ct_eq`]); on any
//! failure the buffer holds the ciphertext it was given. The stitched AVX-512 code decrypts in the
//! pass that authenticates and applies the key stream again on a mismatch; the other paths
//! decrypt only after the tag matched. XChaCha20-Poly1305 does the same with
//! the HChaCha20 subkey and the nonce `0^32 || nonce[16..24]`.
//!
//! Seal encrypts and authenticates piece by piece (16 KiB at a time), so the data crosses memory
//! once (a message of one piece is encrypted, then tagged in one call); open there checks the tag
//! before it decrypts, so it reads the data twice. Poly1305 runs on
//! AVX-512 IFMA, AVX-512 or AVX2 where the CPU has it, ChaCha20 on AVX-512/AVX2/SSE2 (see their
//! modules).
//!
//! A message of up to `SHORT_MAX` bytes takes one key stream call for block 0 and its own blocks
//! together (`KeystreamPrefix`: as narrow a kernel call as covers them; on AVX-512 the four- and
//! eight-block short kernel up to 448 bytes), and its tag is computed in one pass of the scalar
//! Poly1305 code (`mac::poly1305_u64`) while the vector backends would not start: per-message
//! set-up, not the data, is what short messages cost. A longer message takes block 0 from the
//! kernel's narrowest call too, and the message is encrypted from block 1 by the stream cipher.
//!
//! On x86-64 CPUs whose ChaCha20 plan is AVX-512 (F, BW, VL), messages of up to 2 KiB take the
//! stitched code of `chacha20poly1305_x86.rs` instead (key stream in vector registers XORed
//! straight into the data while a scalar Poly1305 absorbs the ciphertext already produced); every
//! other CPU, backend forced by `SHIFR_BACKEND`, and longer message takes the path above.
//!
//! Keys are zeroized on drop; so are the per-message one-time key, key stream and subkey.

#[cfg(target_arch = "x86_64")]
use super::chacha20poly1305_x86 as x86;
use super::{Aead, Tag};
use crate::mac::poly1305::{Poly1305, VECTOR_MIN_BYTES};
use crate::mac::poly1305_u64;
use crate::stream::chacha20::{self, ChaCha20, KeystreamPrefix, LONG_PREFIX, SHORT_PREFIX};
use crate::{util, Error, Result};
use zeroize::{Zeroize, ZeroizeOnDrop};

const TAG_LEN: usize = 16;

/// The Poly1305 one-time key for `nonce`: the first 32 bytes of `chacha20_block(key, 0, nonce)`
/// (RFC 8439 section 2.6).
pub fn poly1305_key_gen(key: &[u8; 32], nonce: &[u8; 12]) -> [u8; 32] {
    let mut state = chacha20::setup_state(key, 0, nonce);
    let mut block = chacha20::block(&state);
    let mut otk = [0u8; 32];
    for (o, w) in otk.chunks_exact_mut(4).zip(&block[..8]) {
        o.copy_from_slice(&w.to_le_bytes());
    }
    state.zeroize();
    block.zeroize();
    otk
}

fn key_array(key: &[u8]) -> Result<[u8; 32]> {
    key.try_into().map_err(|_| Error::InvalidKeyLength {
        expected: "32",
        got: key.len(),
    })
}

/// Poly1305 keyed with the one-time key `otk` with the padded `aad` absorbed (RFC 8439 section
/// 2.8).
fn start_mac(otk: &[u8; 32], aad: &[u8]) -> Poly1305 {
    let mut mac = Poly1305::from_key(otk);
    mac.update_padded(aad);
    mac
}

/// Longest message sealed and opened from one key stream prefix (block 0 and the message's
/// blocks in one kernel call).
const SHORT_MAX: usize = LONG_PREFIX - 64;

/// The one-time key (block 0) and the key stream for `len` bytes of data (from block 1), both
/// views into a prefix's key stream `ks`; `None` if `ks` is too short.
fn short_keystream(ks: &[u8], len: usize) -> Option<(&[u8; 32], &[u8])> {
    Some((ks.first_chunk::<32>()?, ks.get(64..64 + len)?))
}

/// [`seal_with`] for a message whose key stream fits an `N`-byte prefix with block 0.
fn seal_short<const N: usize>(
    key: &[u8; 32],
    nonce: &[u8; 12],
    aad: &[u8],
    data: &mut [u8],
) -> Option<[u8; 16]> {
    let prefix = KeystreamPrefix::<N>::new(key, nonce, 64 + data.len());
    let (otk, ks) = short_keystream(prefix.bytes(), data.len())?;
    util::xor_in_place(data, ks);
    Some(tag_with(otk, aad, data))
}

/// [`open_with`] for a message whose key stream fits an `N`-byte prefix with block 0: `None` if
/// the key stream was not computed, `Some(false)` if the tag is wrong (`data` untouched).
fn open_short<const N: usize>(
    key: &[u8; 32],
    nonce: &[u8; 12],
    aad: &[u8],
    data: &mut [u8],
    tag: &[u8],
) -> Option<bool> {
    let prefix = KeystreamPrefix::<N>::new(key, nonce, 64 + data.len());
    let (otk, ks) = short_keystream(prefix.bytes(), data.len())?;
    if !util::ct_eq(&tag_with(otk, aad, data), tag) {
        return Some(false);
    }
    util::xor_in_place(data, ks);
    Some(true)
}

/// Pads the ciphertext absorbed so far, absorbs the length block and returns the tag.
fn finish_mac(mut mac: Poly1305, aad_len: usize, ct_len: usize) -> [u8; 16] {
    if !ct_len.is_multiple_of(16) {
        mac.update(&[0u8; 16][ct_len % 16..]);
    }
    let mut lengths = [0u8; 16];
    lengths[..8].copy_from_slice(&(aad_len as u64).to_le_bytes());
    lengths[8..].copy_from_slice(&(ct_len as u64).to_le_bytes());
    mac.update(&lengths);
    mac.finalize()
}

/// The Poly1305 tag of RFC 8439 section 2.8 over `aad` and the ciphertext `ct` under the one-time
/// key `otk`: on the scalar code in one pass while the vector backends would not start (below
/// [`VECTOR_MIN_BYTES`]), else through [`Poly1305`] and its best backend.
fn tag_with(otk: &[u8; 32], aad: &[u8], ct: &[u8]) -> [u8; 16] {
    if ct.len() < VECTOR_MIN_BYTES && aad.len() < VECTOR_MIN_BYTES {
        return poly1305_u64::aead_tag(otk, aad, ct);
    }
    let mut mac = start_mac(otk, aad);
    mac.update(ct);
    finish_mac(mac, aad.len(), ct.len())
}

/// The one-time key (the first 32 bytes of block 0) of a message too long for [`SHORT_MAX`], from
/// the kernel's narrowest call. The message itself is then encrypted from block 1 by [`ChaCha20`],
/// whose whole 1 KiB batches are XORed in place: starting it on the extra blocks that call also
/// returns would shift every later batch off the message's 1 KiB pieces and send the tail of a
/// message of whole batches through the stream's buffer.
struct LongStart {
    prefix: KeystreamPrefix<SHORT_PREFIX>,
}

impl LongStart {
    fn new(key: &[u8; 32], nonce: &[u8; 12]) -> LongStart {
        LongStart {
            prefix: KeystreamPrefix::new(key, nonce, 64),
        }
    }

    /// The one-time key; `None` if block 0 was not computed.
    fn otk(&self) -> Option<&[u8; 32]> {
        self.prefix.bytes().first_chunk::<32>()
    }
}

/// ChaCha20 positioned at block `counter` for the `len` bytes of a message left after the
/// prefix; [`Error::LengthLimit`] if they would run past block counter 2^32 - 1.
fn rest_cipher(key: &[u8; 32], nonce: &[u8; 12], counter: u32, len: usize) -> Result<ChaCha20> {
    let cipher = ChaCha20::new(key, nonce, counter)?;
    if (len as u64) > cipher.remaining_bytes() {
        return Err(Error::LengthLimit(
            "ChaCha20-Poly1305 message longer than the 32-bit block counter allows",
        ));
    }
    Ok(cipher)
}

/// The Poly1305 tag of RFC 8439 section 2.8 over `aad` and the ciphertext `ct`.
fn compute_tag(key: &[u8; 32], nonce: &[u8; 12], aad: &[u8], ct: &[u8]) -> [u8; 16] {
    let mut otk = poly1305_key_gen(key, nonce);
    let tag = tag_with(&otk, aad, ct);
    otk.zeroize();
    tag
}

/// Bytes encrypted and then authenticated per step of `seal`: the ciphertext is hashed while it is
/// still in L1 (32 KiB or more on the x86-64 and AArch64 cores targeted), so the message crosses
/// memory once. Each step ends the vector Poly1305's run of blocks (its lanes folded by the key
/// powers and summed), a fixed cost per step: the step is as long as L1 comfortably holds.
const INTERLEAVE_BYTES: usize = 16384;

/// Encrypts from block counter 1 and returns the tag (the shared core of both AEADs).
fn seal_with(key: &[u8; 32], nonce: &[u8; 12], aad: &[u8], data: &mut [u8]) -> Result<Tag> {
    #[cfg(target_arch = "x86_64")]
    if data.len() <= x86::STITCH_MAX && chacha20::avx512_planned() {
        // SAFETY: the AVX-512 ChaCha20 plan is only taken where `cpu` reported AVX-512 F/BW/VL.
        return as_tag(&unsafe { x86::seal(key, nonce, aad, data) });
    }
    #[cfg(target_arch = "x86_64")]
    if data.len() <= x86::LONG_SEAL_MAX && chacha20::avx512_planned() {
        // SAFETY: as above; the length is below the 32-bit block counter's limit.
        return as_tag(&unsafe { x86::seal_long(key, nonce, aad, data) });
    }
    #[cfg(target_arch = "x86_64")]
    if data.len() <= SPLIT_MAX && chacha20::avx512_planned() {
        return seal_pieces(key, nonce, aad, data);
    }
    seal_generic(key, nonce, aad, data)
}

/// Longest message [`seal_pieces`] takes: far below the 32-bit block counter's limit (2^32 - 1
/// blocks after block 0), which longer messages reach through [`seal_generic`] and its error.
#[cfg(target_arch = "x86_64")]
const SPLIT_MAX: usize = 1 << 36;

/// [`seal_generic`]'s pieces on AVX-512 without its stream object: the key stream from
/// [`x86::PieceStream`] (registers and a few words), each piece hashed by [`Poly1305`] while in
/// L1.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn seal_pieces(key: &[u8; 32], nonce: &[u8; 12], aad: &[u8], data: &mut [u8]) -> Result<Tag> {
    // SAFETY: callers take this path only where the AVX-512 ChaCha20 plan is (AVX-512 F/BW/VL).
    let (stream, mac) = unsafe { start_pieces(key, nonce, aad) };
    as_tag(&crypt_pieces::<false>(&stream, mac, aad.len(), data))
}

/// [`open_with`] in [`seal_pieces`]'s pieces, in one pass: each piece is hashed, then decrypted
/// while in L1; on a tag mismatch the key stream is applied to the whole message again, so the
/// caller gets its ciphertext back with the error.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn open_pieces(
    key: &[u8; 32],
    nonce: &[u8; 12],
    aad: &[u8],
    data: &mut [u8],
    tag: &[u8],
) -> Result<()> {
    // SAFETY: callers take this path only where the AVX-512 ChaCha20 plan is (AVX-512 F/BW/VL).
    let (stream, mac) = unsafe { start_pieces(key, nonce, aad) };
    let mut expected = crypt_pieces::<true>(&stream, mac, aad.len(), data);
    let authentic = util::ct_eq(&expected, tag);
    expected.zeroize();
    if !authentic {
        // SAFETY: as above.
        unsafe { stream.xor(1, data) };
        return Err(Error::AuthenticationFailed);
    }
    Ok(())
}

/// The key stream of [`seal_pieces`] and [`open_pieces`] and the Poly1305 keyed from its block 0
/// with `aad` absorbed; the one-time key is wiped here. Callers must have checked that the CPU
/// supports AVX-512 F, BW and VL.
#[cfg(target_arch = "x86_64")]
unsafe fn start_pieces(
    key: &[u8; 32],
    nonce: &[u8; 12],
    aad: &[u8],
) -> (x86::PieceStream, Poly1305) {
    // SAFETY: the caller checked the CPU features.
    let (stream, mut otk) = unsafe { x86::PieceStream::new(key, nonce) };
    let mac = start_mac(&otk, aad);
    otk.zeroize();
    (stream, mac)
}

/// Encrypts (with `OPEN`, decrypts) `data` from block 1 in [`INTERLEAVE_BYTES`] pieces, each
/// piece's ciphertext absorbed into `mac` while in L1, and returns the tag.
#[cfg(target_arch = "x86_64")]
fn crypt_pieces<const OPEN: bool>(
    stream: &x86::PieceStream,
    mut mac: Poly1305,
    aad_len: usize,
    data: &mut [u8],
) -> [u8; 16] {
    let mut counter = 1u32;
    for piece in data.chunks_mut(INTERLEAVE_BYTES) {
        if OPEN {
            mac.update(piece);
        }
        // SAFETY: `stream` exists only where the callers checked AVX-512 F/BW/VL; `data` is
        // below `SPLIT_MAX`, far inside the block counter.
        unsafe { stream.xor(counter, piece) };
        if !OPEN {
            mac.update(piece);
        }
        counter = counter.wrapping_add((INTERLEAVE_BYTES / 64) as u32);
    }
    finish_mac(mac, aad_len, data.len())
}

/// [`seal_with`] on the stream cipher's kernels and the Poly1305 backends (every CPU; on AVX-512
/// for messages longer than the stitched code takes). Out of line: its frame (key stream
/// buffers of some kilobytes) is then not set up, nor the stack probed, on every stitched call.
#[inline(never)]
fn seal_generic(key: &[u8; 32], nonce: &[u8; 12], aad: &[u8], data: &mut [u8]) -> Result<Tag> {
    let short = if data.len() <= SHORT_PREFIX - 64 {
        seal_short::<SHORT_PREFIX>(key, nonce, aad, data)
    } else if data.len() <= SHORT_MAX {
        seal_short::<LONG_PREFIX>(key, nonce, aad, data)
    } else {
        None
    };
    if let Some(tag) = short {
        return as_tag(&tag);
    }
    let start = LongStart::new(key, nonce);
    let otk = start.otk().ok_or(Error::InvalidParameter(
        "ChaCha20 computed no key stream for block 0",
    ))?;
    // Fails before touching `data` if the message exceeds the 32-bit block counter.
    let mut cipher = rest_cipher(key, nonce, 1, data.len())?;
    if data.len() <= INTERLEAVE_BYTES {
        // One piece: encrypt, then tag in one call, which below the vector threshold is the
        // single pass of the scalar code instead of a `Poly1305` fed AAD, padding and lengths
        // call by call.
        cipher.apply_keystream(data)?;
        return as_tag(&tag_with(otk, aad, data));
    }
    let mut mac = start_mac(otk, aad);
    for piece in data.chunks_mut(INTERLEAVE_BYTES) {
        cipher.apply_keystream(piece)?;
        mac.update(piece);
    }
    as_tag(&finish_mac(mac, aad.len(), data.len()))
}

/// A computed 16-byte Poly1305 tag as the AEAD's [`Tag`].
fn as_tag(tag: &[u8; 16]) -> Result<Tag> {
    Tag::from_slice(tag).ok_or(Error::InvalidTagLength {
        expected: "16",
        got: tag.len(),
    })
}

/// Opens `data` in place, the tag compared in constant time; on a mismatch `data` is left as it
/// came (the shared core of both AEADs).
fn open_with(
    key: &[u8; 32],
    nonce: &[u8; 12],
    aad: &[u8],
    data: &mut [u8],
    tag: &[u8],
) -> Result<()> {
    #[cfg(target_arch = "x86_64")]
    if data.len() <= x86::STITCH_MAX && chacha20::avx512_planned() {
        // SAFETY: the AVX-512 ChaCha20 plan is only taken where `cpu` reported AVX-512 F/BW/VL.
        return match unsafe { x86::open(key, nonce, aad, data, tag) } {
            true => Ok(()),
            false => Err(Error::AuthenticationFailed),
        };
    }
    #[cfg(target_arch = "x86_64")]
    if data.len() <= x86::LONG_OPEN_MAX && chacha20::avx512_planned() {
        // SAFETY: as above; the length is below the 32-bit block counter's limit.
        return match unsafe { x86::open_long(key, nonce, aad, data, tag) } {
            true => Ok(()),
            false => Err(Error::AuthenticationFailed),
        };
    }
    #[cfg(target_arch = "x86_64")]
    if data.len() <= SPLIT_MAX && chacha20::avx512_planned() {
        return open_pieces(key, nonce, aad, data, tag);
    }
    open_generic(key, nonce, aad, data, tag)
}

/// [`open_with`] on the stream cipher's kernels and the Poly1305 backends (every CPU; on AVX-512
/// for messages longer than the stitched code takes). Out of line: its frame (key stream
/// buffers of some kilobytes) is then not set up, nor the stack probed, on every stitched call.
#[inline(never)]
fn open_generic(
    key: &[u8; 32],
    nonce: &[u8; 12],
    aad: &[u8],
    data: &mut [u8],
    tag: &[u8],
) -> Result<()> {
    let short = if data.len() <= SHORT_PREFIX - 64 {
        open_short::<SHORT_PREFIX>(key, nonce, aad, data, tag)
    } else if data.len() <= SHORT_MAX {
        open_short::<LONG_PREFIX>(key, nonce, aad, data, tag)
    } else {
        None
    };
    match short {
        Some(true) => return Ok(()),
        Some(false) => return Err(Error::AuthenticationFailed),
        None => {}
    }
    let start = LongStart::new(key, nonce);
    let otk = start.otk().ok_or(Error::InvalidParameter(
        "ChaCha20 computed no key stream for block 0",
    ))?;
    // No valid ciphertext is this long; refuse before hashing it.
    let mut cipher = rest_cipher(key, nonce, 1, data.len())?;
    if !util::ct_eq(&tag_with(otk, aad, data), tag) {
        return Err(Error::AuthenticationFailed);
    }
    cipher.apply_keystream(data)
}

/// AEAD_CHACHA20_POLY1305 (RFC 8439): 32-byte key, 12-byte nonce, 16-byte tag.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct ChaCha20Poly1305 {
    key: [u8; 32],
}

impl ChaCha20Poly1305 {
    /// Creates the AEAD. Error: [`Error::InvalidKeyLength`] unless `key` is 32 bytes.
    pub fn new(key: &[u8]) -> Result<ChaCha20Poly1305> {
        Ok(ChaCha20Poly1305 {
            key: key_array(key)?,
        })
    }

    /// The key, for the engine's split of one message over threads (`crate::parallel`).
    pub(crate) fn key_bytes(&self) -> &[u8; 32] {
        &self.key
    }

    fn nonce(nonce: &[u8]) -> Result<&[u8; 12]> {
        nonce.try_into().map_err(|_| Error::InvalidNonceLength {
            expected: "12",
            got: nonce.len(),
        })
    }
}

impl Aead for ChaCha20Poly1305 {
    fn tag_len(&self) -> usize {
        TAG_LEN
    }

    fn nonce_len_desc(&self) -> &'static str {
        "12"
    }

    fn seal(&self, nonce: &[u8], aad: &[u8], data: &mut [u8]) -> Result<Tag> {
        seal_with(&self.key, Self::nonce(nonce)?, aad, data)
    }

    fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<()> {
        open_with(&self.key, Self::nonce(nonce)?, aad, data, tag)
    }
}

/// ChaCha20-Poly1305 split for an external key stream: ChaCha20 from block counter 1 (the start is
/// `le32(1) || nonce`, state words 12..15), the Poly1305 one-time key from block 0 on this CPU.
impl super::keystream::SplitAead for ChaCha20Poly1305 {
    fn keystream_cipher(&self) -> super::keystream::KeystreamCipher {
        super::keystream::KeystreamCipher::ChaCha20
    }

    fn keystream_start(&self, nonce: &[u8]) -> Result<[u8; 16]> {
        let nonce = Self::nonce(nonce)?;
        let mut start = [0u8; 16];
        start[..4].copy_from_slice(&1u32.to_le_bytes());
        start[4..].copy_from_slice(nonce);
        Ok(start)
    }

    fn ciphertext_tag(&self, nonce: &[u8], aad: &[u8], ct: &[u8]) -> Result<Tag> {
        let nonce = Self::nonce(nonce)?;
        // Block counter 1 onwards holds at most 2^32 - 1 blocks.
        if ct.len() as u64 > ((1u64 << 32) - 1) * 64 {
            return Err(Error::LengthLimit(
                "ChaCha20-Poly1305 message longer than the 32-bit block counter allows",
            ));
        }
        as_tag(&compute_tag(&self.key, nonce, aad, ct))
    }
}

/// AEAD_XChaCha20_Poly1305 (draft-irtf-cfrg-xchacha-03): 32-byte key, 24-byte nonce, 16-byte tag.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct XChaCha20Poly1305 {
    key: [u8; 32],
}

impl XChaCha20Poly1305 {
    /// Creates the AEAD. Error: [`Error::InvalidKeyLength`] unless `key` is 32 bytes.
    pub fn new(key: &[u8]) -> Result<XChaCha20Poly1305> {
        Ok(XChaCha20Poly1305 {
            key: key_array(key)?,
        })
    }

    /// The key, for the engine's split of one message over threads (`crate::parallel`).
    pub(crate) fn key_bytes(&self) -> &[u8; 32] {
        &self.key
    }
}

impl Aead for XChaCha20Poly1305 {
    fn tag_len(&self) -> usize {
        TAG_LEN
    }

    fn nonce_len_desc(&self) -> &'static str {
        "24"
    }

    fn seal(&self, nonce: &[u8], aad: &[u8], data: &mut [u8]) -> Result<Tag> {
        let (mut subkey, inner_nonce) = chacha20::xchacha_subkey(&self.key, nonce)?;
        let result = seal_with(&subkey, &inner_nonce, aad, data);
        subkey.zeroize();
        result
    }

    fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<()> {
        let (mut subkey, inner_nonce) = chacha20::xchacha_subkey(&self.key, nonce)?;
        let result = open_with(&subkey, &inner_nonce, aad, data, tag);
        subkey.zeroize();
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The chacha20-poly1305-aead-* records of /work/shared/vectors/std.txt (RFC 8439 section 2.8.2
    /// and Appendix A.5), parsed into their fields (minus `cipher`, checked here).
    fn records() -> Vec<(String, BTreeMap<String, Vec<u8>>)> {
        let mut out = Vec::new();
        for chunk in STD_RECORDS.split("\n\n").filter(|c| c.contains(" = ")) {
            let name = chunk.trim().lines().next().unwrap().to_string();
            let mut fields = BTreeMap::new();
            for line in chunk
                .lines()
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
            {
                let (k, v) = line.split_once('=').unwrap();
                match k.trim() {
                    "cipher" => assert_eq!(v.trim(), "chacha20-poly1305"),
                    "mode" => assert_eq!(v.trim(), "aead"),
                    k => {
                        fields.insert(k.to_string(), hex::decode(v.trim()).unwrap());
                    }
                }
            }
            out.push((name, fields));
        }
        assert_eq!(out.len(), 2);
        out
    }

    #[test]
    fn rfc8439_records() {
        for (name, mut f) in records() {
            let mut take = |k: &str| f.remove(k).unwrap_or_else(|| panic!("{name}: no {k}"));
            let (key, nonce, aad, pt, ct, tag, otk) = (
                take("key"),
                take("nonce"),
                take("aad"),
                take("pt"),
                take("ct"),
                take("tag"),
                take("otk"),
            );
            assert!(f.is_empty(), "{name}: unchecked fields {:?}", f.keys());
            let key32: [u8; 32] = key.clone().try_into().unwrap();
            let nonce12: [u8; 12] = nonce.clone().try_into().unwrap();
            assert_eq!(
                poly1305_key_gen(&key32, &nonce12).to_vec(),
                otk,
                "{name} otk"
            );

            let aead = ChaCha20Poly1305::new(&key).unwrap();
            let mut data = pt.clone();
            let t = aead.seal(&nonce, &aad, &mut data).unwrap();
            assert_eq!(data, ct, "{name} ct");
            assert_eq!(t.as_ref(), &tag[..], "{name} tag");
            aead.open(&nonce, &aad, &mut data, &tag).unwrap();
            assert_eq!(data, pt, "{name} open");

            // Any flipped bit of the tag, ciphertext or AAD is rejected and leaves data alone.
            let mut bad_tag = tag.clone();
            bad_tag[15] ^= 0x80;
            let mut data = ct.clone();
            assert_eq!(
                aead.open(&nonce, &aad, &mut data, &bad_tag),
                Err(Error::AuthenticationFailed)
            );
            assert_eq!(data, ct);
            data[0] ^= 1;
            assert_eq!(
                aead.open(&nonce, &aad, &mut data, &tag),
                Err(Error::AuthenticationFailed)
            );
            data[0] ^= 1;
            let mut bad_aad = aad.clone();
            bad_aad[0] ^= 1;
            assert_eq!(
                aead.open(&nonce, &bad_aad, &mut data, &tag),
                Err(Error::AuthenticationFailed)
            );
            assert_eq!(
                aead.open(&nonce, &aad, &mut data, &tag[..15]),
                Err(Error::AuthenticationFailed)
            );
            assert_eq!(data, ct);
        }
    }

    // draft-irtf-cfrg-xchacha-03 Appendix A.3.1 "AEAD_XCHACHA20_POLY1305" (developer-friendly hex),
    // read from github.com/bikeshedders/xchacha-rfc draft-irtf-cfrg-xchacha-rfc-03.txt (commit 9c1dfb87).
    const X_PT: &str = "\
        4c616469657320616e642047656e746c656d656e206f662074686520636c6173\
        73206f66202739393a204966204920636f756c64206f6666657220796f75206f\
        6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73\
        637265656e20776f756c642062652069742e";
    const X_AAD: &str = "50515253c0c1c2c3c4c5c6c7";
    const X_KEY: &str = "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f";
    const X_IV: &str = "404142434445464748494a4b4c4d4e4f5051525354555657";
    const X_OTK: &str = "7b191f80f361f099094f6f4b8fb97df847cc6873a8f2b190dd73807183f907d5";
    const X_CT: &str = "\
        bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb\
        731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b452\
        2f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff9\
        21f9664c97637da9768812f615c68b13b52e";
    const X_TAG: &str = "c0875924c1c7987947deafd8780acf49";

    #[test]
    fn xchacha20_poly1305_matches_draft_a_3_1() {
        let h = |s: &str| hex::decode(s).unwrap();
        let (key, iv, aad, pt) = (h(X_KEY), h(X_IV), h(X_AAD), h(X_PT));
        let (subkey, inner_nonce) = chacha20::xchacha_subkey(&key, &iv).unwrap();
        assert_eq!(&inner_nonce[..4], &[0u8; 4], "32-bit fixed-common part");
        assert_eq!(poly1305_key_gen(&subkey, &inner_nonce).to_vec(), h(X_OTK));

        let aead = XChaCha20Poly1305::new(&key).unwrap();
        let mut data = pt.clone();
        let tag = aead.seal(&iv, &aad, &mut data).unwrap();
        assert_eq!(data, h(X_CT));
        assert_eq!(tag.as_ref(), &h(X_TAG)[..]);
        let mut bad = h(X_TAG);
        bad[0] ^= 4;
        assert_eq!(
            aead.open(&iv, &aad, &mut data, &bad),
            Err(Error::AuthenticationFailed)
        );
        assert_eq!(data, h(X_CT));
        aead.open(&iv, &aad, &mut data, tag.as_ref()).unwrap();
        assert_eq!(data, pt);
    }

    #[test]
    fn bad_lengths_are_rejected() {
        assert!(matches!(
            ChaCha20Poly1305::new(&[0u8; 16]),
            Err(Error::InvalidKeyLength { got: 16, .. })
        ));
        assert!(XChaCha20Poly1305::new(&[0u8; 31]).is_err());
        let c = ChaCha20Poly1305::new(&[0u8; 32]).unwrap();
        let x = XChaCha20Poly1305::new(&[0u8; 32]).unwrap();
        let mut data = [1u8; 5];
        for n in [0, 8, 11, 13, 24] {
            assert!(matches!(
                c.seal(&vec![0u8; n], b"", &mut data),
                Err(Error::InvalidNonceLength { .. })
            ));
        }
        for n in [0, 12, 23, 25] {
            assert!(matches!(
                x.open(&vec![0u8; n], b"", &mut data, &[0u8; 16]),
                Err(Error::InvalidNonceLength { .. })
            ));
        }
        assert_eq!(data, [1u8; 5]);
        assert_eq!((c.tag_len(), x.tag_len()), (16, 16));
    }

    /// The dispatching seal and open (the stitched AVX-512 code on such CPUs, up to its limits)
    /// against the generic path for every length 0..=2100 and lengths around the long stitched
    /// path's batches and limit, with random keys, nonces and AAD.
    #[test]
    fn dispatch_matches_generic_path() {
        use rand::{Rng, RngCore, SeedableRng};
        let seed = rand::random::<u64>();
        println!("seed {seed}");
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let long = [
            2560,
            2561,
            3072,
            3584,
            3585,
            4097,
            6145,
            20000,
            2 * 16384 + 1041,
        ];
        for len in (0..=2100usize).chain(long) {
            let mut key = [0u8; 32];
            let mut nonce = [0u8; 12];
            rng.fill_bytes(&mut key);
            rng.fill_bytes(&mut nonce);
            let mut aad = vec![0u8; rng.gen_range(0..=80)];
            let mut pt = vec![0u8; len];
            rng.fill_bytes(&mut aad);
            rng.fill_bytes(&mut pt);
            let (mut a, mut b) = (pt.clone(), pt.clone());
            let ta = seal_with(&key, &nonce, &aad, &mut a).unwrap();
            let tb = seal_generic(&key, &nonce, &aad, &mut b).unwrap();
            assert_eq!((&a, ta.as_ref()), (&b, tb.as_ref()), "len {len}");
            let mut bad = ta.as_ref().to_vec();
            bad[len % 16] ^= 2;
            assert_eq!(
                open_with(&key, &nonce, &aad, &mut a, &bad),
                Err(Error::AuthenticationFailed)
            );
            assert_eq!(a, b, "len {len}");
            open_with(&key, &nonce, &aad, &mut a, ta.as_ref()).unwrap();
            open_generic(&key, &nonce, &aad, &mut b, tb.as_ref()).unwrap();
            assert_eq!((&a, &b), (&pt, &pt), "len {len}");
        }
    }

    /// The generic open (every CPU without AVX-512, and forced backends) of long messages: a bad
    /// tag, a flipped ciphertext byte at either end, or other AAD must fail and leave the
    /// ciphertext in the buffer.
    #[test]
    fn generic_open_restores_the_ciphertext_on_failure() {
        use rand::{Rng, RngCore, SeedableRng};
        let seed = rand::random::<u64>();
        println!("seed {seed}");
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        for len in [
            SHORT_MAX + 1,
            INTERLEAVE_BYTES,
            INTERLEAVE_BYTES + 1,
            3 * INTERLEAVE_BYTES + 77,
        ] {
            let mut key = [0u8; 32];
            let mut nonce = [0u8; 12];
            rng.fill_bytes(&mut key);
            rng.fill_bytes(&mut nonce);
            let aad = vec![7u8; rng.gen_range(0..=40)];
            let pt: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            let mut ct = pt.clone();
            let tag = seal_generic(&key, &nonce, &aad, &mut ct).unwrap();
            let mut bad_tag = tag.as_ref().to_vec();
            bad_tag[3] ^= 0x10;
            let mut data = ct.clone();
            let r = open_generic(&key, &nonce, &aad, &mut data, &bad_tag);
            assert_eq!(r, Err(Error::AuthenticationFailed), "len {len}");
            assert!(data == ct, "bad tag, len {len}");
            for at in [0, len - 1] {
                data[at] ^= 1;
                let tampered = data.clone();
                let r = open_generic(&key, &nonce, &aad, &mut data, tag.as_ref());
                assert_eq!(r, Err(Error::AuthenticationFailed), "len {len} byte {at}");
                assert!(data == tampered, "tampered byte {at}, len {len}");
                data[at] ^= 1;
            }
            let r = open_generic(&key, &nonce, b"other", &mut data, tag.as_ref());
            assert_eq!(r, Err(Error::AuthenticationFailed));
            assert!(data == ct, "other aad, len {len}");
            open_generic(&key, &nonce, &aad, &mut data, tag.as_ref()).unwrap();
            assert!(data == pt, "open, len {len}");
        }
    }

    const STD_RECORDS: &str = r#"
# chacha20-poly1305-aead-2.8.2 / RFC 8439 section 2.8.2
#   nonce = 32-bit fixed-common part (07 00 00 00) || IV (40 41 42 43 44 45 46 47), as the RFC constructs it
#   otk = Poly1305 one-time key = chacha20_block(key, 0, nonce)[0..31]; encryption starts at block counter 1
cipher = chacha20-poly1305
mode = aead
key = 808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f
nonce = 070000004041424344454647
aad = 50515253c0c1c2c3c4c5c6c7
pt = 4c616469657320616e642047656e746c656d656e206f662074686520636c617373206f66202739393a204966204920636f756c64206f6666657220796f75206f6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73637265656e20776f756c642062652069742e
ct = d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc3ff4def08e4b7a9de576d26586cec64b6116
tag = 1ae10b594f09e26a7e902ecbd0600691
otk = 7bac2b252db447af09b67a55a4e955840ae1d6731075d9eb2a9375783ed553ff

# chacha20-poly1305-aead-a5 / RFC 8439 Appendix A.5
#   the RFC presents this as a decryption (received ct + tag -> pt); the values are direction-independent
#   pt is 265 bytes (an Internet-Draft boilerplate paragraph, contains UTF-8 quotes e2809c/e2809d)
cipher = chacha20-poly1305
mode = aead
key = 1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0
nonce = 000000000102030405060708
aad = f33388860000000000004e91
pt = 496e7465726e65742d4472616674732061726520647261667420646f63756d656e74732076616c696420666f722061206d6178696d756d206f6620736978206d6f6e74687320616e64206d617920626520757064617465642c207265706c616365642c206f72206f62736f6c65746564206279206f7468657220646f63756d656e747320617420616e792074696d652e20497420697320696e617070726f70726961746520746f2075736520496e7465726e65742d447261667473206173207265666572656e6365206d6174657269616c206f7220746f2063697465207468656d206f74686572207468616e206173202fe2809c776f726b20696e2070726f67726573732e2fe2809d
ct = 64a0861575861af460f062c79be643bd5e805cfd345cf389f108670ac76c8cb24c6cfc18755d43eea09ee94e382d26b0bdb7b73c321b0100d4f03b7f355894cf332f830e710b97ce98c8a84abd0b948114ad176e008d33bd60f982b1ff37c8559797a06ef4f0ef61c186324e2b3506383606907b6a7c02b0f9f6157b53c867e4b9166c767b804d46a59b5216cde7a4e99040c5a40433225ee282a1b0a06c523eaf4534d7f83fa1155b0047718cbc546a0d072b04b3564eea1b422273f548271a0bb2316053fa76991955ebd63159434ecebb4e466dae5a1073a6727627097a1049e617d91d361094fa68f0ff77987130305beaba2eda04df997b714d6c6f2c29a6ad5cb4022b02709b
tag = eead9d67890cbb22392336fea1851f38
otk = bdf04aa95ce4de8995b14bb6a18fecaf26478f50c054f563dbc0a21e261572aa
"#;
}
