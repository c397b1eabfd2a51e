//! One large AEAD message split over the engine's threads, byte-identical to the single-thread
//! [`Aead`] calls for any thread count: one [`Engine::seal`] and one [`Engine::open`] for every
//! AEAD that takes its message in parts ([`ParallelAead`]: AES-GCM, MGM, and (X)ChaCha20-Poly1305
//! in `chacha.rs`).
//!
//! Each part is encrypted from its own counter and hashed into a partial sum; the calling thread
//! combines the sums into the tag. The GCM and MGM tags are sums of per-block products, so a message cut at block boundaries can be hashed
//! part by part and the parts' sums combined:
//!
//! - **GCM**: part `k` (`c_k` blocks, starting `b_k` blocks into the text) runs CTR from the counter
//!   `inc32^(b_k)(J0)` and returns GHASH of its ciphertext from a zero state, `S_k`. Hashing from
//!   `Y` instead of zero adds `Y H^(c_k)`, so the whole GHASH is the fold `Y = Y H^(c_k) ^ S_k` over
//!   the AAD and the parts, then the length block; `GHash::combine_parts` does that.
//! - **MGM**: the encryption counter of part `k` is `Y_1` with `b_k` added to its right half (the
//!   standard's `incr_r` applied `b_k` times), the hash counter `Z_1` with `h + b_k` added to its
//!   left half (`incr_l`), `h` the AAD's blocks. Products are summed unreduced and reduced once, so
//!   the parts' sums simply add (XOR).
//!
//! Each part runs the AEAD module's own kernels (the stitched VAES-512 + VPCLMULQDQ loop for GCM),
//! through narrow crate-internal entry points. `open` is one pass too, as in the single-thread
//! `open`: each part is hashed and decrypted together, then the tag is compared in constant time;
//! if it does not match (or any part failed), every opened part gets its key stream applied once
//! more, in parallel, so the buffer holds its ciphertext again when the error returns. Messages
//! below [`Engine::min_parallel`] bytes go to the single-thread call itself.

use super::Engine;
use crate::aead::gcm::AesGcm;
use crate::aead::mgm::{Direction, Mgm};
use crate::aead::mgm_field::Wide;
use crate::aead::{Aead, Tag};
use crate::block::BlockCipher;
use crate::util::ct_eq;
use crate::{Error, Result};

/// GCM's block, the unit its messages are cut at.
const GCM_BLOCK: usize = 16;

/// The piece-wise steps of an AEAD whose message [`Engine`] can split: start a message, encrypt
/// and hash (or hash and decrypt) a part from its own counter, apply a part's key stream again,
/// combine the parts' sums into the tag. Implemented for AES-GCM, MGM, ChaCha20-Poly1305 and
/// XChaCha20-Poly1305, whose texts are a key stream XORed into the data.
pub trait ParallelAead: Aead {
    /// What a message's parts share (initial counters, the message's one-time key).
    type Message: Sync;
    /// A part's hash sum.
    type Sum: Send;

    /// The unit parts are cut at, in bytes (the block or key stream block).
    fn unit(&self) -> usize;

    /// Validates the nonce and lengths and starts a message.
    fn begin(&self, nonce: &[u8], aad: &[u8], data: &[u8]) -> Result<Self::Message>;

    /// Checks the length of a tag given to `open` (as the single-thread `open` does).
    fn check_tag_len(&self, tag: &[u8]) -> Result<()>;

    /// Encrypts the part `offset` bytes into the message in place and returns the hash sum of its
    /// ciphertext; with `open`, decrypts the ciphertext part in place and returns the same sum.
    /// One pass over the part either way.
    fn crypt_part(
        &self,
        m: &Self::Message,
        aad_len: usize,
        offset: usize,
        part: &mut [u8],
        open: bool,
    ) -> Result<Self::Sum>;

    /// XORs the key stream of the part `offset` bytes into the message into `part`: gives a part
    /// that `crypt_part` opened its ciphertext back.
    fn keystream_part(&self, m: &Self::Message, offset: usize, part: &mut [u8]) -> Result<()>;

    /// The tag from the parts' sums and lengths, in message order.
    fn tag(
        &self,
        m: &Self::Message,
        aad: &[u8],
        len: usize,
        sums: &mut [(Self::Sum, usize)],
    ) -> Result<Tag>;
}

impl Engine {
    /// [`Aead::seal`] of `aead` with the message split over this engine's threads: the same
    /// ciphertext and tag for any thread count.
    pub fn seal<A: ParallelAead>(
        &self,
        aead: &A,
        nonce: &[u8],
        aad: &[u8],
        data: &mut [u8],
    ) -> Result<Tag> {
        let ranges = self.cut(data.len(), aead.unit());
        if ranges.len() <= 1 {
            return aead.seal(nonce, aad, data);
        }
        let len = data.len();
        let m = aead.begin(nonce, aad, data)?;
        let sums = self.split_map(data, &ranges, |offset, part| {
            let bytes = part.len();
            aead.crypt_part(&m, aad.len(), offset, part, false)
                .map(|s| (s, bytes))
        })?;
        let mut sums = sums.into_iter().collect::<Result<Vec<_>>>()?;
        aead.tag(&m, aad, len, &mut sums)
    }

    /// [`Aead::open`] of `aead` with the message split over this engine's threads, in one pass
    /// over the data. On any failure `data` holds its ciphertext again when the error returns,
    /// except after a panic inside a part (a bug, returned as an error), which leaves that part's
    /// bytes unspecified.
    pub fn open<A: ParallelAead>(
        &self,
        aead: &A,
        nonce: &[u8],
        aad: &[u8],
        data: &mut [u8],
        tag: &[u8],
    ) -> Result<()> {
        let ranges = self.cut(data.len(), aead.unit());
        if ranges.len() <= 1 {
            return aead.open(nonce, aad, data, tag);
        }
        aead.check_tag_len(tag)?;
        let len = data.len();
        let m = aead.begin(nonce, aad, data)?;
        let opened = self.split_map(data, &ranges, |offset, part| {
            let bytes = part.len();
            aead.crypt_part(&m, aad.len(), offset, part, true)
                .map(|s| (s, bytes))
        })?;
        let done: Vec<bool> = opened.iter().map(Result::is_ok).collect();
        let verdict = opened
            .into_iter()
            .collect::<Result<Vec<_>>>()
            .and_then(|mut sums| aead.tag(&m, aad, len, &mut sums))
            .and_then(|expected| match ct_eq(expected.as_ref(), tag) {
                true => Ok(()),
                false => Err(Error::AuthenticationFailed),
            });
        if verdict.is_err() {
            // The same key stream again turns every opened part back into its ciphertext: nothing
            // unauthenticated is left in the buffer.
            let restored = self.split_map(data, &ranges, |offset, part| {
                match ranges.iter().position(|r| r.start == offset) {
                    Some(i) if done[i] => aead.keystream_part(&m, offset, part),
                    _ => Ok(()),
                }
            })?;
            restored.into_iter().collect::<Result<()>>()?;
        }
        verdict
    }
}

impl ParallelAead for AesGcm {
    /// `J0`.
    type Message = [u8; 16];
    type Sum = [u8; 16];

    fn unit(&self) -> usize {
        GCM_BLOCK
    }

    fn begin(&self, nonce: &[u8], aad: &[u8], data: &[u8]) -> Result<[u8; 16]> {
        self.begin_split(nonce, aad, data)
    }

    fn check_tag_len(&self, tag: &[u8]) -> Result<()> {
        self.check_open_tag_len(tag)
    }

    fn crypt_part(
        &self,
        j0: &[u8; 16],
        _: usize,
        offset: usize,
        part: &mut [u8],
        open: bool,
    ) -> Result<[u8; 16]> {
        let block_offset = offset / GCM_BLOCK;
        Ok(match open {
            false => AesGcm::crypt_part::<false>(self, j0, block_offset, part),
            true => AesGcm::crypt_part::<true>(self, j0, block_offset, part),
        })
    }

    fn keystream_part(&self, j0: &[u8; 16], offset: usize, part: &mut [u8]) -> Result<()> {
        AesGcm::keystream_part(self, j0, offset / GCM_BLOCK, part);
        Ok(())
    }

    fn tag(
        &self,
        j0: &[u8; 16],
        aad: &[u8],
        _: usize,
        sums: &mut [([u8; 16], usize)],
    ) -> Result<Tag> {
        self.tag_from_parts(j0, aad, sums)
    }
}

impl<C: BlockCipher> ParallelAead for Mgm<C> {
    /// `(Y_1, Z_1)`.
    type Message = (u128, u128);
    type Sum = Wide;

    fn unit(&self) -> usize {
        self.block_len()
    }

    fn begin(&self, nonce: &[u8], aad: &[u8], data: &[u8]) -> Result<(u128, u128)> {
        self.begin_split(nonce, aad.len(), data.len())
    }

    fn check_tag_len(&self, tag: &[u8]) -> Result<()> {
        self.check_open_tag_len(tag)
    }

    fn crypt_part(
        &self,
        m: &(u128, u128),
        aad_len: usize,
        offset: usize,
        part: &mut [u8],
        open: bool,
    ) -> Result<Wide> {
        let direction = if open {
            Direction::Open
        } else {
            Direction::Seal
        };
        let block_offset = offset / self.block_len();
        Ok(Mgm::crypt_part(
            self,
            direction,
            *m,
            aad_len,
            block_offset,
            part,
        ))
    }

    fn keystream_part(&self, m: &(u128, u128), offset: usize, part: &mut [u8]) -> Result<()> {
        Mgm::keystream_part(self, m.0, offset / self.block_len(), part);
        Ok(())
    }

    fn tag(
        &self,
        m: &(u128, u128),
        aad: &[u8],
        _: usize,
        sums: &mut [(Wide, usize)],
    ) -> Result<Tag> {
        self.tag_from_parts(m.1, aad, sums)
    }
}
