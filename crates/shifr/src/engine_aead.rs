//! One large AEAD message split over the engine's threads: AES-GCM and MGM, byte-identical to the
//! single-thread [`Aead`] calls for any thread count.
//!
//! Both tags are sums of per-block products, so a message cut at block boundaries can be hashed
//! part by part and the parts' sums combined:
//!
//! - **GCM**: part `k` (`c_k` blocks, starting `b_k` blocks into the text) runs CTR from the counter
//!   `inc32^(b_k)(J0)` and returns GHASH of its ciphertext from a zero state, `S_k`. Hashing from
//!   `Y` instead of zero adds `Y H^(c_k)`, so the whole GHASH is the fold `Y = Y H^(c_k) ^ S_k` over
//!   the AAD and the parts, then the length block; `crate::mac::ghash::combine_parts` does that.
//! - **MGM**: the encryption counter of part `k` is `Y_1` with `b_k` added to its right half (the
//!   standard's `incr_r` applied `b_k` times), the hash counter `Z_1` with `h + b_k` added to its
//!   left half (`incr_l`), `h` the AAD's blocks. Products are summed unreduced and reduced once, so
//!   the parts' sums simply add (XOR).
//!
//! Each part runs the AEAD module's own kernels (the stitched VAES-512 + VPCLMULQDQ loop for GCM),
//! through narrow crate-internal entry points. `open` first hashes the parts in parallel, compares
//! the tag in constant time, and only then decrypts the parts in parallel: on failure the buffer is
//! untouched, as in the single-thread `open`. Messages below [`Engine::min_parallel`] bytes go to
//! the single-thread call itself.

use super::Engine;
use crate::aead::gcm::AesGcm;
use crate::aead::mgm::Mgm;
use crate::aead::{Aead, Tag};
use crate::block::BlockCipher;
use crate::util::ct_eq;
use crate::{Error, Result};

/// GCM's block, the unit its messages are cut at.
const GCM_BLOCK: usize = 16;

impl Engine {
    /// [`Aead::seal`] of `gcm` with the message split over this engine's threads: the same
    /// ciphertext and tag for any thread count.
    pub fn gcm_seal(&self, gcm: &AesGcm, nonce: &[u8], aad: &[u8], data: &mut [u8]) -> Result<Tag> {
        let ranges = self.cut(data.len(), GCM_BLOCK);
        if ranges.len() <= 1 {
            return gcm.seal(nonce, aad, data);
        }
        let j0 = gcm.begin_split(nonce, aad, data)?;
        let mut sums = self.split_map(data, &ranges, |offset, part| {
            (gcm.seal_part(&j0, offset / GCM_BLOCK, part), part.len())
        })?;
        gcm.tag_from_parts(&j0, aad, &mut sums)
    }

    /// [`Aead::open`] of `gcm` with the message split over this engine's threads. The tag is
    /// checked before anything is decrypted; on any failure `data` is left as it was.
    pub fn gcm_open(
        &self,
        gcm: &AesGcm,
        nonce: &[u8],
        aad: &[u8],
        data: &mut [u8],
        tag: &[u8],
    ) -> Result<()> {
        let ranges = self.cut(data.len(), GCM_BLOCK);
        if ranges.len() <= 1 {
            return gcm.open(nonce, aad, data, tag);
        }
        gcm.check_open_tag_len(tag)?;
        let j0 = gcm.begin_split(nonce, aad, data)?;
        let mut sums =
            self.split_map(data, &ranges, |_, part| (gcm.hash_part(part), part.len()))?;
        let expected = gcm.tag_from_parts(&j0, aad, &mut sums)?;
        if !ct_eq(expected.as_ref(), tag) {
            return Err(Error::AuthenticationFailed);
        }
        self.split(data, &ranges, |offset, part| {
            gcm.decrypt_part(&j0, offset / GCM_BLOCK, part)
        })
    }

    /// [`Aead::seal`] of `mgm` with the message split over this engine's threads: the same
    /// ciphertext and tag for any thread count.
    pub fn mgm_seal<C: BlockCipher>(
        &self,
        mgm: &Mgm<C>,
        nonce: &[u8],
        aad: &[u8],
        data: &mut [u8],
    ) -> Result<Tag> {
        let n = mgm.block_len();
        let ranges = self.cut(data.len(), n);
        if ranges.len() <= 1 {
            return mgm.seal(nonce, aad, data);
        }
        let counters = mgm.begin_split(nonce, aad.len(), data.len())?;
        let mut sums = self.split_map(data, &ranges, |offset, part| {
            (
                mgm.seal_part(counters, aad.len(), offset / n, part),
                part.len(),
            )
        })?;
        mgm.tag_from_parts(counters.1, aad, &mut sums)
    }

    /// [`Aead::open`] of `mgm` with the message split over this engine's threads. The tag is
    /// checked before anything is decrypted; on any failure `data` is left as it was.
    pub fn mgm_open<C: BlockCipher>(
        &self,
        mgm: &Mgm<C>,
        nonce: &[u8],
        aad: &[u8],
        data: &mut [u8],
        tag: &[u8],
    ) -> Result<()> {
        let n = mgm.block_len();
        let ranges = self.cut(data.len(), n);
        if ranges.len() <= 1 {
            return mgm.open(nonce, aad, data, tag);
        }
        let (y1, z1) = mgm.begin_split(nonce, aad.len(), data.len())?;
        mgm.check_open_tag_len(tag)?;
        let mut sums = self.split_map(data, &ranges, |offset, part| {
            (mgm.hash_part(z1, aad.len(), offset / n, part), part.len())
        })?;
        let expected = mgm.tag_from_parts(z1, aad, &mut sums)?;
        if !ct_eq(expected.as_ref(), tag) {
            return Err(Error::AuthenticationFailed);
        }
        self.split(data, &ranges, |offset, part| {
            mgm.decrypt_part(y1, offset / n, part)
        })
    }
}
