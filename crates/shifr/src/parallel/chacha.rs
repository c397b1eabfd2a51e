//! ChaCha20, ChaCha20-Poly1305 and XChaCha20-Poly1305 with one large message split over the
//! engine's threads, byte-identical to the single-thread calls for any thread count.
//!
//! - **ChaCha20**: part `k`, starting `o_k` bytes into the message (a multiple of 64), is the key
//!   stream from block counter `counter + o_k / 64`.
//! - **Poly1305** is `h = sum m_i r^(N - i + 1) mod p` (`p = 2^130 - 5`) over the padded AAD,
//!   the padded ciphertext and the length block. A segment of `c` blocks hashed from zero gives
//!   `A = sum m_j r^(c - j + 1)`; hashing it from `h` instead adds `h r^c`, so the whole sum is
//!   the fold `h = h r^(c_k) + A_k` over the AAD, the parts and the length block, and the tag is
//!   `h + s mod 2^128`. Each part runs the library's own Poly1305 (its vector backends) over its
//!   ciphertext and hands back its sum `A_k mod p` unfinished (`Poly1305::finalize_sum`). The
//!   fold (a few products per part) runs on Poly1305's own field arithmetic
//!   (`crate::mac::poly1305_field`).
//!
//! Seal encrypts and hashes each part 4 KiB at a time, open hashes and decrypts it 4 KiB at a time
//! (the data crosses memory once either way). A rejected message gets its key stream applied once
//! more (`Engine::open`), so the buffer holds its ciphertext again. The one-time key and the
//! XChaCha20 subkey are zeroized after use.

use super::aead::ParallelAead;
use super::Engine;
use crate::aead::chacha20poly1305::{poly1305_key_gen, ChaCha20Poly1305, XChaCha20Poly1305};
use crate::aead::Tag;
use crate::mac::poly1305::Poly1305;
use crate::mac::poly1305_field::Fe;
use crate::stream::chacha20::{self, ChaCha20};
use crate::{Error, Result};
use zeroize::{Zeroize, Zeroizing};

/// ChaCha20's block, the unit its messages are cut at.
const CHACHA_BLOCK: usize = 64;

/// Bytes encrypted and hashed (or hashed and decrypted) per step of a part, kept in L1 between the
/// two.
const INTERLEAVE_BYTES: usize = 4096;

const TOO_LONG: Error =
    Error::LengthLimit("ChaCha20-Poly1305 message longer than the 32-bit block counter allows");

impl Engine {
    /// XORs the ChaCha20 key stream of `key` and the 12-byte `nonce`, from block `counter` on, into
    /// `data` with the message split over this engine's threads — the same as
    /// [`ChaCha20::new`]`(key, nonce, counter)` then [`ChaCha20::apply_keystream`] (whose errors it
    /// returns, before touching `data`).
    pub fn chacha20_apply(
        &self,
        key: &[u8],
        nonce: &[u8],
        counter: u32,
        data: &mut [u8],
    ) -> Result<()> {
        let first = ChaCha20::new(key, nonce, counter)?;
        if data.len() as u64 > first.remaining_bytes() {
            return Err(Error::LengthLimit(
                "ChaCha20 32-bit block counter would wrap (at most 256 GiB per nonce)",
            ));
        }
        let ranges = self.cut(data.len(), CHACHA_BLOCK);
        let results = self.split_map(data, &ranges, |offset, part| {
            let mut c = ChaCha20::new(key, nonce, block_at(counter, offset)?)?;
            c.apply_keystream(part)
        })?;
        results.into_iter().collect()
    }
}

/// The steps both ChaCha20 AEADs share once `begin` made the message key: the parts and the
/// tag are the message key's; a tag of the wrong length fails the constant-time comparison, as in
/// the single-thread `open`.
macro_rules! message_key_steps {
    () => {
        type Message = MessageKey;
        type Sum = Segment;

        fn unit(&self) -> usize {
            CHACHA_BLOCK
        }

        fn check_tag_len(&self, _: &[u8]) -> Result<()> {
            Ok(())
        }

        fn crypt_part(
            &self,
            k: &MessageKey,
            _: usize,
            offset: usize,
            part: &mut [u8],
            open: bool,
        ) -> Result<Segment> {
            match open {
                false => k.crypt_part::<false>(offset, part),
                true => k.crypt_part::<true>(offset, part),
            }
        }

        fn keystream_part(&self, k: &MessageKey, offset: usize, part: &mut [u8]) -> Result<()> {
            k.keystream_part(offset, part)
        }

        fn tag(
            &self,
            k: &MessageKey,
            aad: &[u8],
            len: usize,
            sums: &mut [(Segment, usize)],
        ) -> Result<Tag> {
            k.tag_of_parts(aad, len, sums)
        }
    };
}

impl ParallelAead for ChaCha20Poly1305 {
    message_key_steps!();

    fn begin(&self, nonce: &[u8], _: &[u8], data: &[u8]) -> Result<MessageKey> {
        MessageKey::new(self.key_bytes(), nonce12(nonce)?, data.len())
    }
}

impl ParallelAead for XChaCha20Poly1305 {
    message_key_steps!();

    /// ChaCha20-Poly1305 under the HChaCha20 subkey (zeroized here; the message key keeps its own
    /// zeroized copy).
    fn begin(&self, nonce: &[u8], _: &[u8], data: &[u8]) -> Result<MessageKey> {
        let (subkey, inner) = chacha20::xchacha_subkey(self.key_bytes(), nonce)?;
        let subkey = Zeroizing::new(subkey);
        MessageKey::new(&subkey, &inner, data.len())
    }
}

/// The block counter of the part `offset` bytes into a message that starts at block `counter`
/// (always below 2^32 once the message length was checked against the counter space).
fn block_at(counter: u32, offset: usize) -> Result<u32> {
    u32::try_from(u64::from(counter) + (offset / CHACHA_BLOCK) as u64).map_err(|_| TOO_LONG)
}

fn nonce12(nonce: &[u8]) -> Result<&[u8; 12]> {
    nonce.try_into().map_err(|_| Error::InvalidNonceLength {
        expected: "12",
        got: nonce.len(),
    })
}

fn le128(b: &[u8]) -> u128 {
    let mut w = [0u8; 16];
    w.copy_from_slice(&b[..16]);
    u128::from_le_bytes(w)
}

/// One message's ChaCha20 key and nonce and its Poly1305 one-time key, zeroized on drop (`r` and
/// `s` as plain integers: [`Fe`] and `u128` are `Copy`, cleared by [`Drop`] below).
pub struct MessageKey {
    key: Zeroizing<[u8; 32]>,
    nonce: [u8; 12],
    /// `r || 0^16`: the key the parts' Poly1305 sums are computed under (`s` plays no part in them).
    r_key: Zeroizing<[u8; 32]>,
    r: Fe,
    s: u128,
}

impl Drop for MessageKey {
    fn drop(&mut self) {
        self.r.0.zeroize();
        self.s.zeroize();
    }
}

/// A hashed segment: `A mod p` and its length in 16-byte blocks.
pub type Segment = (Fe, u64);

impl MessageKey {
    /// The message key of `key` and `nonce` for a message of `len` bytes.
    fn new(key: &[u8; 32], nonce: &[u8; 12], len: usize) -> Result<MessageKey> {
        if len as u64 > ChaCha20::new(key, nonce, 1)?.remaining_bytes() {
            return Err(TOO_LONG);
        }
        let mut otk = Zeroizing::new(poly1305_key_gen(key, nonce));
        let mut r_key = Zeroizing::new([0u8; 32]);
        r_key[..16].copy_from_slice(&otk[..16]);
        let r = le128(&otk[..16]) & 0x0fff_fffc_0fff_fffc_0fff_fffc_0fff_ffff;
        let s = le128(&otk[16..]);
        otk.zeroize();
        Ok(MessageKey {
            key: Zeroizing::new(*key),
            nonce: *nonce,
            r_key,
            r: Fe::from_parts(r, 0),
            s,
        })
    }

    /// Encrypts the part `offset` bytes into the message and hashes its ciphertext (with `OPEN`:
    /// hashes the ciphertext and decrypts it), [`INTERLEAVE_BYTES`] at a time, so the data
    /// crosses memory once.
    fn crypt_part<const OPEN: bool>(&self, offset: usize, part: &mut [u8]) -> Result<Segment> {
        let mut cipher = ChaCha20::new(&self.key[..], &self.nonce, block_at(1, offset)?)?;
        let mut mac = Poly1305::from_key(&self.r_key);
        for piece in part.chunks_mut(INTERLEAVE_BYTES) {
            if OPEN {
                mac.update(piece);
            }
            cipher.apply_keystream(piece)?;
            if !OPEN {
                mac.update(piece);
            }
        }
        Ok(self.segment(mac, part.len()))
    }

    /// XORs the key stream of the part `offset` bytes into the message into `part`.
    fn keystream_part(&self, offset: usize, part: &mut [u8]) -> Result<()> {
        ChaCha20::new(&self.key[..], &self.nonce, block_at(1, offset)?)?.apply_keystream(part)
    }

    fn tag_of_parts(&self, aad: &[u8], len: usize, sums: &[(Segment, usize)]) -> Result<Tag> {
        let parts: Vec<Segment> = sums.iter().map(|&(segment, _)| segment).collect();
        let tag = self.tag(aad, len, &parts);
        Tag::from_slice(&tag).ok_or(Error::InvalidTagLength {
            expected: "16",
            got: tag.len(),
        })
    }

    /// Finishes a part's Poly1305 (keyed with `r_key`, `bytes` absorbed): pads it to whole blocks
    /// and takes its sum `A mod p`.
    fn segment(&self, mut mac: Poly1305, bytes: usize) -> Segment {
        if !bytes.is_multiple_of(16) {
            mac.update(&[0u8; 16][bytes % 16..]);
        }
        let (low, top) = mac.finalize_sum();
        (Fe::from_parts(low, top), bytes.div_ceil(16) as u64)
    }

    /// The tag over the padded `aad`, the parts (in order) and the length block.
    fn tag(&self, aad: &[u8], ct_len: usize, parts: &[Segment]) -> [u8; 16] {
        let mut mac = Poly1305::from_key(&self.r_key);
        mac.update(aad);
        let aad_segment = self.segment(mac, aad.len());
        let mut h = Fe::ZERO;
        for &(a, blocks) in std::iter::once(&aad_segment).chain(parts) {
            h = h.mul(&self.r.pow(blocks)).add(&a);
        }
        let mut lengths = [0u8; 16];
        lengths[..8].copy_from_slice(&(aad.len() as u64).to_le_bytes());
        lengths[8..].copy_from_slice(&(ct_len as u64).to_le_bytes());
        h = h
            .add(&Fe::from_parts(u128::from_le_bytes(lengths), 1))
            .mul(&self.r);
        h.low128().wrapping_add(self.s).to_le_bytes()
    }
}
