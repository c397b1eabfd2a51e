//! AES-GCM (NIST SP 800-38D): CTR encryption with inc32 counters and a GHASH tag.
//!
//! - IV: any length of at least one byte. A 96-bit IV gives `J0 = IV || 0^31 || 1`; any other
//!   length is hashed, `J0 = GHASH(IV || 0^s || 0^64 || [len(IV)]_64)` (Section 7.1, step 2).
//! - Tags of 12 to 16 bytes. The 4- and 8-byte tags of SP 800-38D Appendix C are deliberately
//!   rejected ([`Error::InvalidTagLength`]): they need per-key limits on message lengths and
//!   invocation counts that a general-purpose API cannot enforce.
//! - Keystream blocks are generated in batches through [`BlockCipher::encrypt_blocks`].
//! - `open` decrypts in the same pass that hashes the ciphertext (as `seal` encrypts in the pass
//!   that hashes it), then compares the tag in constant time; on a mismatch it applies the same
//!   key stream again, so the buffer holds the ciphertext it was given when the error returns.
//!   A tag of another length than the instance's is [`Error::InvalidTagLength`] (checked before
//!   anything is touched), a wrong tag [`Error::AuthenticationFailed`].
//! - Limits (SP 800-38D Section 5.2.1.1): plaintext at most 2^36 - 32 bytes, AAD and IV under 2^61
//!   bytes ([`Error::LengthLimit`] / [`Error::InvalidNonceLength`]).
//!
//! Backends follow the block cipher: with [`Backend::AesNi`] the AES rounds use AES-NI and GHASH
//! uses PCLMULQDQ; with [`Backend::Vaes`] AES runs on 256-bit VAES and GHASH on PCLMULQDQ; with
//! [`Backend::Avx512`] `seal` runs the stitched loop of `gcm_x86` (32 blocks per iteration: VAES-512
//! key stream with in-register inc32 counters, XOR, and VPCLMULQDQ GHASH of the previous
//! iteration's ciphertext, one Montgomery reduction per 32 blocks), so the data crosses memory
//! once. The end of every message on that backend, and the whole of a message of at most 32 GHASH
//! blocks (padded AAD, padded text, length block: 480 bytes of text with a 13-byte AAD), is one
//! fused call (`gcm_x86::StitchKey::finish`): masked 512-bit loads and stores, every GHASH block
//! against its power of H (kept in the key) and one reduction, `E_K(J0)` on AES-NI beside it; no
//! per-call allocation, copy of round keys or buffer to wipe. A longer message's AAD of up to 32
//! blocks is hashed the same way (one reduction) before the stitched loop, and a 96-bit IV reaches
//! both calls as it is, J0 being assembled in a register. A text of whole 32-block groups (1 KiB,
//! 2 KiB) with an AAD of up to 32 blocks is sealed in one call instead
//! (`gcm_x86::StitchKey::seal_message`): AAD, stitched loop, length block (one 128-bit multiply)
//! and `E_K(J0)`, the GHASH state never leaving a register. `open` takes the same calls, hashing
//! the ciphertext it reads instead of the one it writes.
//! Other backends encrypt and then hash each `INTERLEAVE_BYTES` piece while it is still in L1.
//! The portable backend is constant-time throughout (bitsliced AES, masked-multiply GHASH), and so
//! are the others (AES and carry-less multiply instructions have data-independent timing).

use zeroize::Zeroize;

use crate::aead::{Aead, Tag};
use crate::block::aes::Aes;
use crate::block::BlockCipher;
use crate::cpu::Backend;
use crate::mac::ghash::GHash;
use crate::util::ct_eq;
use crate::{Error, Result};

/// Counter blocks encrypted per `encrypt_blocks` call.
const BATCH_BLOCKS: usize = 32;

/// Bytes encrypted and then hashed per step of `seal` (a multiple of 16).
const INTERLEAVE_BYTES: usize = 512;

/// Longest plaintext SP 800-38D allows: 2^39 - 256 bits.
const MAX_TEXT_BYTES: u64 = (1 << 36) - 32;

/// Without the fused 512-bit VAES path (`aesni`, `vaes`, portable), messages of at most this many
/// bytes are sealed with `E_K(J0)` and their key stream in one cipher call (at most four blocks,
/// interleaved) instead of two calls one after the other.
const SHORT_TEXT: usize = 48;

/// A short message's AAD of at most this many bytes is hashed in one call with its text.
const SHORT_AAD: usize = 64;

/// J0 as the fused 512-bit VAES paths take it: a 96-bit IV (`J0 = IV || 0^31 || 1`, which they
/// assemble in a register), or J0 itself.
#[derive(Clone, Copy)]
pub(super) enum PreCounter<'a> {
    Iv96(&'a [u8; 12]),
    Block(&'a [u8; 16]),
}

impl PreCounter<'_> {
    /// J0 as bytes.
    fn block(self) -> [u8; 16] {
        match self {
            PreCounter::Iv96(iv) => {
                let mut j0 = [0u8; 16];
                j0[..12].copy_from_slice(iv);
                j0[15] = 1;
                j0
            }
            PreCounter::Block(b) => *b,
        }
    }
}

/// AES-GCM with a fixed tag length.
pub struct AesGcm {
    aes: Aes,
    /// GHASH keyed with H and nothing absorbed; cloned for every message.
    ghash: GHash,
    /// H powers for the stitched VAES-512 + VPCLMULQDQ loop, when AES runs on 512-bit VAES.
    #[cfg(target_arch = "x86_64")]
    stitch: Option<Box<super::gcm_x86::StitchKey>>,
    h: [u8; 16],
    tag_len: usize,
}

impl AesGcm {
    /// Bytes this keyed instance holds: the AES key schedule, the GHASH key and, on VAES-512, the
    /// tables of H powers and of the first AES round (see [`BlockCipher::state_bytes`]).
    pub fn state_bytes(&self) -> usize {
        let own = core::mem::size_of::<AesGcm>() - core::mem::size_of::<Aes>();
        #[cfg(target_arch = "x86_64")]
        let stitch = self
            .stitch
            .as_ref()
            .map_or(0, |s| core::mem::size_of_val(&**s));
        #[cfg(not(target_arch = "x86_64"))]
        let stitch = 0;
        own + self.aes.state_bytes() + stitch
    }

    /// AES-GCM with the best backend for this CPU; `key` of 16, 24 or 32 bytes, `tag_len` 12..=16.
    pub fn new(key: &[u8], tag_len: usize) -> Result<AesGcm> {
        Self::check_tag_len(tag_len)?;
        Self::from_aes(Aes::new(key)?, tag_len)
    }

    /// AES-GCM on the given backend ([`Error::BackendUnavailable`] if this CPU lacks it).
    pub fn with_backend(key: &[u8], tag_len: usize, backend: Backend) -> Result<AesGcm> {
        Self::check_tag_len(tag_len)?;
        Self::from_aes(Aes::with_backend(key, backend)?, tag_len)
    }

    fn check_tag_len(tag_len: usize) -> Result<()> {
        if (12..=16).contains(&tag_len) {
            Ok(())
        } else {
            Err(Error::InvalidTagLength {
                expected: "12..=16",
                got: tag_len,
            })
        }
    }

    fn from_aes(aes: Aes, tag_len: usize) -> Result<AesGcm> {
        let mut h = [0u8; 16];
        aes.encrypt_blocks(&mut h);
        // GHASH follows the cipher's backend; should the CPU lack an instruction the PCLMULQDQ path
        // needs (SSSE3), the portable GHASH takes over rather than failing.
        let ghash = GHash::with_backend(&h, aes.backend())
            .or_else(|_| GHash::with_backend(&h, Backend::Portable))?;
        #[cfg(target_arch = "x86_64")]
        let stitch = aes
            .vaes512_round_keys()
            .and_then(|(keys, _)| super::gcm_x86::StitchKey::new(&h, &keys[0]));
        Ok(AesGcm {
            aes,
            ghash,
            #[cfg(target_arch = "x86_64")]
            stitch,
            h,
            tag_len,
        })
    }

    /// The backend of the block cipher; GHASH uses PCLMULQDQ along with AES-NI.
    pub fn backend(&self) -> Backend {
        self.aes.backend()
    }

    /// The hash subkey H = E_K(0^128).
    pub fn hash_subkey(&self) -> [u8; 16] {
        self.h
    }

    /// The pre-counter block J0 (the GCM spec's Y0) for `iv`.
    pub fn pre_counter_block(&self, iv: &[u8]) -> Result<[u8; 16]> {
        if iv.is_empty() {
            return Err(Error::InvalidNonceLength {
                expected: "at least 1 byte",
                got: 0,
            });
        }
        if iv.len() == 12 {
            let mut j0 = [0u8; 16];
            j0[..12].copy_from_slice(iv);
            j0[15] = 1;
            return Ok(j0);
        }
        let iv_bits = u64::try_from(iv.len())
            .ok()
            .and_then(|n| n.checked_mul(8))
            .ok_or(Error::InvalidNonceLength {
                expected: "at most 2^61 - 1 bytes",
                got: iv.len(),
            })?;
        let mut g = self.ghash.clone();
        g.update_padded(iv);
        let mut lengths = [0u8; 16];
        lengths[8..].copy_from_slice(&iv_bits.to_be_bytes());
        g.update(&lengths);
        Ok(g.finalize())
    }

    /// XORs the keystream for counters inc32(J0), inc32^2(J0), ... into `data`.
    fn apply_keystream(&self, j0: &[u8; 16], data: &mut [u8]) {
        let mut counter = u32::from_be_bytes([j0[12], j0[13], j0[14], j0[15]]);
        let mut first = *j0;
        first[12..].copy_from_slice(&counter.wrapping_add(1).to_be_bytes());
        if self.aes.ctr32_xor(&first, data) {
            return;
        }
        let mut keystream = [0u8; 16 * BATCH_BLOCKS];
        for chunk in data.chunks_mut(16 * BATCH_BLOCKS) {
            let used = &mut keystream[..chunk.len().div_ceil(16) * 16];
            for block in used.chunks_exact_mut(16) {
                counter = counter.wrapping_add(1);
                block[..12].copy_from_slice(&j0[..12]);
                block[12..].copy_from_slice(&counter.to_be_bytes());
            }
            self.aes.encrypt_blocks(used);
            for (d, k) in chunk.iter_mut().zip(used.iter()) {
                *d ^= k;
            }
        }
        // Only the bytes a batch used hold key stream (zeroize writes byte by byte).
        keystream[..data.len().div_ceil(16).min(BATCH_BLOCKS) * 16].zeroize();
    }

    /// Encrypts (or, with `DECRYPT`, decrypts) `data` in place and returns the full tag of the
    /// ciphertext, hashing each piece while it is in L1.
    fn crypt_and_tag<const DECRYPT: bool>(
        &self,
        j0: &[u8; 16],
        aad: &[u8],
        data: &mut [u8],
    ) -> [u8; 16] {
        let mut g = self.ghash.clone();
        g.update_padded(aad);
        self.crypt_and_hash::<DECRYPT>(j0, &mut g, data);
        g.update_padded(&[]);
        self.finish_tag(g, j0, aad.len(), data.len())
    }

    /// Encrypts (or, with `DECRYPT`, decrypts) `data` with the inc32 counters after `j0` and
    /// absorbs the ciphertext into `g` (which has no partial block pending): the stitched loop
    /// where there is one, then [`INTERLEAVE_BYTES`] pieces encrypted and hashed (hashed and
    /// decrypted) while in L1.
    fn crypt_and_hash<const DECRYPT: bool>(&self, j0: &[u8; 16], g: &mut GHash, data: &mut [u8]) {
        let done = self.crypt_stitched::<DECRYPT>(PreCounter::Block(j0), g, data);
        let mut counter_block = inc32_by(j0, done / 16);
        for piece in data[done..].chunks_mut(INTERLEAVE_BYTES) {
            if DECRYPT {
                g.update(piece);
            }
            self.apply_keystream(&counter_block, piece);
            if !DECRYPT {
                g.update(piece);
            }
            counter_block = inc32_by(&counter_block, INTERLEAVE_BYTES / 16);
        }
    }

    /// For a message split over threads (`crate::parallel`): validates the lengths as `seal` and
    /// `open` do and returns J0.
    pub(crate) fn begin_split(&self, nonce: &[u8], aad: &[u8], data: &[u8]) -> Result<[u8; 16]> {
        self.prepare(nonce, aad, data)
    }

    /// Seals (or, with `DECRYPT`, opens) one part of a split message in one pass: `part` starts
    /// `block_offset` blocks into the text, so its counters continue from inc32 applied that many
    /// times; returns the part's GHASH partial sum (its ciphertext hashed from a zero state, a
    /// final partial block zero-padded).
    pub(crate) fn crypt_part<const DECRYPT: bool>(
        &self,
        j0: &[u8; 16],
        block_offset: usize,
        part: &mut [u8],
    ) -> [u8; 16] {
        let mut g = self.ghash.clone();
        self.crypt_and_hash::<DECRYPT>(&inc32_by(j0, block_offset), &mut g, part);
        g.finalize()
    }

    /// XORs the key stream of the part `block_offset` blocks into a split message: gives an
    /// opened part its ciphertext back.
    pub(crate) fn keystream_part(&self, j0: &[u8; 16], block_offset: usize, part: &mut [u8]) {
        self.apply_keystream(&inc32_by(j0, block_offset), part);
    }

    /// The tag of a split message from its parts' partial sums `(S_k, bytes_k)` in text order
    /// (every part but the last a whole number of blocks): the AAD's hash and the parts are
    /// combined by powers of H, then the length block and E_K(J0) finish it as in `seal`; the
    /// result is truncated to the instance's tag length. The partial sums are zeroized.
    pub(crate) fn tag_from_parts(
        &self,
        j0: &[u8; 16],
        aad: &[u8],
        parts: &mut [([u8; 16], usize)],
    ) -> Result<Tag> {
        let mut g = self.ghash.clone();
        g.update_padded(aad);
        let mut sums = Vec::with_capacity(parts.len() + 1);
        sums.push((g.finalize(), aad.len().div_ceil(16) as u64));
        let mut text_len = 0;
        for (sum, bytes) in parts.iter_mut() {
            sums.push((*sum, bytes.div_ceil(16) as u64));
            text_len += *bytes;
            sum.zeroize();
        }
        let mut y = self.ghash.combine_parts(&sums);
        for (sum, _) in sums.iter_mut() {
            sum.zeroize();
        }
        let g = self.ghash.resume(&y);
        y.zeroize();
        let mut tag = self.finish_tag(g, j0, aad.len(), text_len);
        let out = Tag::from_slice(&tag[..self.tag_len]).ok_or(Error::InvalidTagLength {
            expected: "12..=16",
            got: self.tag_len,
        });
        tag.zeroize();
        out
    }

    /// Checks that `tag` has this instance's length (the first check `open` makes).
    pub(crate) fn check_open_tag_len(&self, tag: &[u8]) -> Result<()> {
        if tag.len() != self.tag_len {
            return Err(Error::InvalidTagLength {
                expected: "the tag length this AesGcm was made with",
                got: tag.len(),
            });
        }
        Ok(())
    }

    /// Encrypts (or, with `DECRYPT`, decrypts) and hashes the leading whole 32-block groups of
    /// `data` in the stitched VAES-512 + VPCLMULQDQ loop when this key has one; returns the bytes
    /// done (0 otherwise).
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    fn crypt_stitched<const DECRYPT: bool>(
        &self,
        j0: PreCounter<'_>,
        g: &mut GHash,
        data: &mut [u8],
    ) -> usize {
        #[cfg(target_arch = "x86_64")]
        if let (Some(key), Some((keys, rounds)), Some(y)) = (
            &self.stitch,
            self.aes.vaes512_round_keys(),
            g.block_state_mut(),
        ) {
            return key.crypt::<DECRYPT>(keys, rounds, j0, y, data);
        }
        0
    }

    /// Seals (or, with `DECRYPT`, decrypts) the message on 512-bit VAES with a fused end
    /// (`gcm_x86::StitchKey::finish`): a message of at most 32 GHASH blocks goes through it whole;
    /// a longer one has its AAD hashed, its whole 32-block groups done by the stitched loop, and
    /// its rest (unless that is 32 blocks, which with the length block would not fit) encrypted and
    /// hashed together with the length block and `E_K(J0)`. Returns the full tag of the
    /// ciphertext, or `None`, touching nothing, when the key has no such path or the rest does not
    /// fit.
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    fn crypt_fused<const DECRYPT: bool>(
        &self,
        j0: PreCounter<'_>,
        aad: &[u8],
        data: &mut [u8],
    ) -> Option<[u8; 16]> {
        #[cfg(target_arch = "x86_64")]
        if let (Some(key), Some((keys, rounds))) = (&self.stitch, self.aes.vaes512_round_keys()) {
            use super::gcm_x86::{StitchKey, Tail, GROUP_BLOCKS};
            let (aad_len, text_len) = (aad.len(), data.len());
            if StitchKey::fits_finish(aad_len, text_len) {
                let tail = Tail {
                    state: [0; 16],
                    skipped_blocks: 0,
                    aad,
                    text: data,
                    aad_len,
                    text_len,
                };
                return key.finish::<DECRYPT>(keys, rounds, j0, tail);
            }
            // Whole 32-block groups and a short AAD: one call, the state in a register.
            if let Some(tag) = key.crypt_message::<DECRYPT>(keys, rounds, j0, aad, data) {
                return Some(tag);
            }
            if !StitchKey::fits_finish(0, text_len % (16 * GROUP_BLOCKS)) {
                return None;
            }
            // An AAD of up to 32 blocks is hashed with the key's powers and one reduction.
            let mut state = [0u8; 16];
            if !key.absorb(&mut state, aad) {
                let mut g = self.ghash.clone();
                g.update_padded(aad);
                state = g.finalize();
            }
            let done = key.crypt::<DECRYPT>(keys, rounds, j0, &mut state, data);
            let (head, rest) = data.split_at_mut(done);
            let tail = Tail {
                state,
                skipped_blocks: head.len() / 16,
                aad: &[],
                text: rest,
                aad_len,
                text_len,
            };
            if let Some(tag) = key.finish::<DECRYPT>(keys, rounds, j0, tail) {
                return Some(tag);
            }
            // Not reached while the stitched loop takes every whole group; should it stop short,
            // the rest is done the general way from the state it left.
            let j0 = j0.block();
            let mut g = self.ghash.resume(&state);
            self.crypt_and_hash::<DECRYPT>(&inc32_by(&j0, done / 16), &mut g, rest);
            g.update_padded(&[]);
            return Some(self.finish_tag(g, &j0, aad_len, text_len));
        }
        None
    }

    /// The full 16-byte tag E_K(J0) ^ GHASH(A, C).
    pub(super) fn full_tag(&self, j0: &[u8; 16], aad: &[u8], ciphertext: &[u8]) -> [u8; 16] {
        let mut g = self.ghash.clone();
        g.update_padded(aad);
        g.update_padded(ciphertext);
        self.finish_tag(g, j0, aad.len(), ciphertext.len())
    }

    /// Seals a message of at most [`SHORT_TEXT`] bytes: the tag mask `E_K(J0)` and the key stream
    /// `E_K(inc32^i(J0))` come out of one batch, so the cipher's latency is paid once.
    fn seal_short(&self, j0: &[u8; 16], aad: &[u8], data: &mut [u8]) -> [u8; 16] {
        let mut blocks = [0u8; 16 + SHORT_TEXT];
        let used = &mut blocks[..16 * (1 + data.len().div_ceil(16))];
        for (i, block) in used.chunks_exact_mut(16).enumerate() {
            block.copy_from_slice(&inc32_by(j0, i));
        }
        self.aes.encrypt_blocks(used);
        for (d, k) in data.iter_mut().zip(&used[16..]) {
            *d ^= k;
        }
        let mut g = self.ghash.clone();
        let mut tag = if aad.len() <= SHORT_AAD {
            // AAD, text and length block, each zero-padded, in one buffer: one GHASH call, so one
            // aggregated reduction instead of one per part.
            let mut input = [0u8; SHORT_AAD + SHORT_TEXT + 16];
            let a = aad.len().div_ceil(16) * 16;
            let t = a + data.len().div_ceil(16) * 16;
            input[..aad.len()].copy_from_slice(aad);
            input[a..a + data.len()].copy_from_slice(data);
            input[t..t + 8].copy_from_slice(&(aad.len() as u64 * 8).to_be_bytes());
            input[t + 8..t + 16].copy_from_slice(&(data.len() as u64 * 8).to_be_bytes());
            g.update(&input[..t + 16]);
            g.finalize()
        } else {
            g.update_padded(aad);
            g.update_padded(data);
            hash_lengths(g, aad.len(), data.len())
        };
        for (t, m) in tag.iter_mut().zip(&used[..16]) {
            *t ^= m;
        }
        used.zeroize();
        tag
    }

    /// Absorbs the length block into `g` (which holds the padded AAD and ciphertext) and masks
    /// the hash with E_K(J0).
    fn finish_tag(&self, g: GHash, j0: &[u8; 16], aad_len: usize, text_len: usize) -> [u8; 16] {
        let mut tag = hash_lengths(g, aad_len, text_len);
        let mut mask = *j0;
        self.aes.encrypt_blocks(&mut mask);
        for (t, m) in tag.iter_mut().zip(mask.iter()) {
            *t ^= m;
        }
        mask.zeroize();
        tag
    }

    /// Validates lengths and returns J0.
    pub(super) fn prepare(&self, nonce: &[u8], aad: &[u8], data: &[u8]) -> Result<[u8; 16]> {
        Self::check_lengths(aad, data.len())?;
        self.pre_counter_block(nonce)
    }

    /// Checks the AAD and text lengths against SP 800-38D's limits.
    fn check_lengths(aad: &[u8], text_len: usize) -> Result<()> {
        if text_len as u64 > MAX_TEXT_BYTES {
            return Err(Error::LengthLimit(
                "GCM plaintext is limited to 2^36 - 32 bytes",
            ));
        }
        if (aad.len() as u64).checked_mul(8).is_none() {
            return Err(Error::LengthLimit("GCM AAD is limited to 2^61 - 1 bytes"));
        }
        Ok(())
    }

    /// Validates lengths and runs `f` with J0: a 96-bit nonce is handed on as it is (see
    /// [`PreCounter`]), any other is hashed first.
    fn with_pre_counter<T>(
        &self,
        nonce: &[u8],
        aad: &[u8],
        text_len: usize,
        f: impl FnOnce(PreCounter<'_>) -> T,
    ) -> Result<T> {
        Self::check_lengths(aad, text_len)?;
        match <&[u8; 12]>::try_from(nonce) {
            Ok(iv) => Ok(f(PreCounter::Iv96(iv))),
            Err(_) => Ok(f(PreCounter::Block(&self.pre_counter_block(nonce)?))),
        }
    }
}

impl Aead for AesGcm {
    fn tag_len(&self) -> usize {
        self.tag_len
    }

    fn nonce_len_desc(&self) -> &'static str {
        "any length >= 1 byte (12 recommended)"
    }

    fn seal(&self, nonce: &[u8], aad: &[u8], data: &mut [u8]) -> Result<Tag> {
        let len = data.len();
        let tag = self.with_pre_counter(nonce, aad, len, |j0| {
            if let Some(tag) = self.crypt_fused::<false>(j0, aad, data) {
                return tag;
            }
            let j0 = j0.block();
            if len <= SHORT_TEXT {
                self.seal_short(&j0, aad, data)
            } else {
                self.crypt_and_tag::<false>(&j0, aad, data)
            }
        })?;
        Tag::from_slice(&tag[..self.tag_len]).ok_or(Error::InvalidTagLength {
            expected: "12..=16",
            got: self.tag_len,
        })
    }

    fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<()> {
        self.check_open_tag_len(tag)?;
        self.with_pre_counter(nonce, aad, data.len(), |j0| {
            // One pass: the ciphertext is hashed as it is decrypted.
            let mut expected = match self.crypt_fused::<true>(j0, aad, data) {
                Some(tag) => tag,
                None => self.crypt_and_tag::<true>(&j0.block(), aad, data),
            };
            let authentic = ct_eq(&expected[..self.tag_len], tag);
            expected.zeroize();
            if !authentic {
                // The same key stream again gives the ciphertext back: nothing unauthenticated
                // is left in the buffer.
                self.apply_keystream(&j0.block(), data);
                return Err(Error::AuthenticationFailed);
            }
            Ok(())
        })?
    }
}

/// Absorbs GCM's length block (AAD and text lengths in bits) into `g` and returns the hash.
fn hash_lengths(mut g: GHash, aad_len: usize, text_len: usize) -> [u8; 16] {
    let mut lengths = [0u8; 16];
    lengths[..8].copy_from_slice(&(aad_len as u64 * 8).to_be_bytes());
    lengths[8..].copy_from_slice(&(text_len as u64 * 8).to_be_bytes());
    g.update(&lengths);
    g.finalize()
}

/// `block` with its low 32-bit word (big-endian) advanced by `k` mod 2^32: inc32 applied `k` times.
fn inc32_by(block: &[u8; 16], k: usize) -> [u8; 16] {
    let counter = u32::from_be_bytes([block[12], block[13], block[14], block[15]]);
    let mut out = *block;
    out[12..].copy_from_slice(&counter.wrapping_add(k as u32).to_be_bytes());
    out
}

/// Shows the parameters and backend, never key material.
impl core::fmt::Debug for AesGcm {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AesGcm")
            .field("key_bits", &(self.aes.key_len() * 8))
            .field("tag_len", &self.tag_len)
            .field("backend", &self.backend())
            .finish()
    }
}

impl Drop for AesGcm {
    fn drop(&mut self) {
        self.h.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One `gcm` record of /work/shared/vectors/std.txt.
    struct Record {
        name: String,
        fields: std::collections::HashMap<String, Vec<u8>>,
    }

    impl Record {
        fn get(&self, k: &str) -> &[u8] {
            self.fields
                .get(k)
                .unwrap_or_else(|| panic!("{}: no field {k}", self.name))
        }
    }

    /// The AES-GCM records (McGrew & Viega test cases 1-18) of the shared vector file.
    fn gcm_records() -> Vec<Record> {
        // $SHIFR_VECTORS, else ../shared/vectors beside the checkout (where CI puts it).
        let candidates = [
            std::env::var("SHIFR_VECTORS").unwrap_or_default(),
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/vectors").to_string(),
        ];
        let text = candidates
            .iter()
            .filter(|d| !d.is_empty())
            .find_map(|d| std::fs::read_to_string(format!("{d}/std.txt")).ok())
            .expect("std.txt not found: set SHIFR_VECTORS to the vectors folder");
        let mut out = Vec::new();
        for block in text.split("\n\n") {
            let mut name = String::new();
            let mut fields = std::collections::HashMap::new();
            for line in block.lines() {
                if let Some(h) = line.strip_prefix("# ") {
                    name = h.split(" / ").next().unwrap_or("").to_string();
                } else if let Some((k, v)) = line
                    .split_once(" = ")
                    .or_else(|| line.strip_suffix(" =").map(|k| (k, "")))
                {
                    fields.insert(k.trim().to_string(), v.trim().to_string());
                }
            }
            if fields.get("mode").map(String::as_str) == Some("gcm") {
                let fields = fields
                    .into_iter()
                    .filter(|(k, _)| k != "cipher" && k != "mode")
                    .map(|(k, v)| {
                        let bytes = hex::decode(&v).unwrap_or_else(|_| panic!("{name}: {k}"));
                        (k, bytes)
                    })
                    .collect();
                out.push(Record { name, fields });
            }
        }
        out
    }

    fn backends() -> Vec<Backend> {
        let mut v = vec![Backend::Portable];
        for b in [Backend::AesNi, Backend::Vaes, Backend::Avx512] {
            if Aes::with_backend(&[0; 16], b).is_ok() {
                v.push(b);
            } else {
                println!(
                    "{} not available on this CPU: skipping that backend",
                    b.name()
                );
            }
        }
        v
    }

    #[test]
    fn gcm_spec_test_cases_1_to_18() {
        let records = gcm_records();
        assert_eq!(records.len(), 18, "expected the 18 GCM spec test cases");
        for backend in backends() {
            for r in &records {
                let gcm = AesGcm::with_backend(r.get("key"), 16, backend).unwrap();
                assert_eq!(gcm.backend(), backend);
                assert_eq!(gcm.hash_subkey()[..], *r.get("h"), "{} h", r.name);
                let j0 = gcm.pre_counter_block(r.get("iv")).unwrap();
                assert_eq!(j0[..], *r.get("y0"), "{} y0", r.name);

                let mut data = r.get("pt").to_vec();
                let tag = gcm.seal(r.get("iv"), r.get("aad"), &mut data).unwrap();
                assert_eq!(data, r.get("ct"), "{} {backend:?} ct", r.name);
                assert_eq!(tag.as_ref(), r.get("tag"), "{} {backend:?} tag", r.name);

                gcm.open(r.get("iv"), r.get("aad"), &mut data, tag.as_ref())
                    .unwrap();
                assert_eq!(data, r.get("pt"), "{} open", r.name);

                // Truncated tags are prefixes of the full tag.
                let short = AesGcm::with_backend(r.get("key"), 12, backend).unwrap();
                let mut d2 = r.get("pt").to_vec();
                let t12 = short.seal(r.get("iv"), r.get("aad"), &mut d2).unwrap();
                assert_eq!(t12.as_ref(), &r.get("tag")[..12]);
            }
        }
    }

    #[test]
    fn tampering_is_rejected_and_data_left_alone() {
        for r in gcm_records().iter().filter(|r| !r.get("pt").is_empty()) {
            for backend in backends() {
                let gcm = AesGcm::with_backend(r.get("key"), 16, backend).unwrap();
                let (iv, aad, ct, tag) = (r.get("iv"), r.get("aad"), r.get("ct"), r.get("tag"));

                let mut bad_tag = tag.to_vec();
                bad_tag[15] ^= 1;
                let mut data = ct.to_vec();
                assert_eq!(
                    gcm.open(iv, aad, &mut data, &bad_tag),
                    Err(Error::AuthenticationFailed)
                );
                assert_eq!(data, ct);

                let mut data = ct.to_vec();
                data[0] ^= 0x80;
                let tampered = data.clone();
                assert_eq!(
                    gcm.open(iv, aad, &mut data, tag),
                    Err(Error::AuthenticationFailed)
                );
                assert_eq!(data, tampered);

                let mut longer_aad = aad.to_vec();
                longer_aad.push(0);
                let mut data = ct.to_vec();
                assert_eq!(
                    gcm.open(iv, &longer_aad, &mut data, tag),
                    Err(Error::AuthenticationFailed)
                );
                assert_eq!(data, ct);
            }
        }
    }

    /// SP 800-38D inc32: only the low 32 bits count, wrapping to zero; the first 96 bits stay.
    /// Long enough (70 blocks and a partial one) to wrap inside the widest batch of every backend.
    #[test]
    fn counter_wraps_in_low_32_bits_only() {
        for backend in backends() {
            let gcm = AesGcm::with_backend(&[0x42; 16], 16, backend).unwrap();
            let mut j0 = [0xab_u8; 16];
            j0[12..].copy_from_slice(&[0xff, 0xff, 0xff, 0xf0]);
            let len = 16 * 70 + 5;
            let mut data = vec![0u8; len];
            gcm.apply_keystream(&j0, &mut data);
            let mut expect = vec![0u8; 16 * 71];
            let mut counter = 0xffff_fff0_u32;
            for block in expect.chunks_exact_mut(16) {
                counter = counter.wrapping_add(1);
                block[..12].copy_from_slice(&j0[..12]);
                block[12..].copy_from_slice(&counter.to_be_bytes());
            }
            gcm.aes.encrypt_blocks(&mut expect);
            assert_eq!(data, expect[..len], "{backend:?}");
        }
    }

    #[test]
    fn parameter_validation() {
        for bad in [0usize, 4, 8, 11, 17, 32] {
            assert!(matches!(
                AesGcm::new(&[0u8; 16], bad),
                Err(Error::InvalidTagLength { .. })
            ));
        }
        assert!(matches!(
            AesGcm::new(&[0u8; 15], 16),
            Err(Error::InvalidKeyLength { .. })
        ));
        let gcm = AesGcm::new(&[0u8; 16], 16).unwrap();
        let mut data = [0u8; 4];
        assert!(matches!(
            gcm.seal(&[], &[], &mut data),
            Err(Error::InvalidNonceLength { .. })
        ));
        assert!(matches!(
            gcm.open(&[0u8; 12], &[], &mut data, &[0u8; 12]),
            Err(Error::InvalidTagLength { .. })
        ));
        assert!(gcm.pre_counter_block(&[]).is_err());
        assert_eq!(gcm.tag_len(), 16);
        let shown = format!("{gcm:?}");
        assert!(shown.contains("key_bits: 128") && shown.contains("tag_len: 16"));
    }
}
