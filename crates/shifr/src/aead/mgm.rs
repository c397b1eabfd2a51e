//! MGM, the Multilinear Galois Mode AEAD (RFC 9058; R 1323565.1.026-2019), for 64- and 128-bit block
//! ciphers (Magma, Kuznyechik).
//!
//! With nonce `ICN` (`n` bytes whose most significant bit must be 0): `Y_1 = E_K(0 || ICN)` starts the
//! encryption counter (`incr_r`: the right half mod `2^(n/2)`), `Z_1 = E_K(1 || ICN)` starts the
//! authentication counter (`incr_l`: the left half), `H_i = E_K(Z_i)`, and
//! `T = MSB_S(E_K(sum H_i * A_i ^ sum H_(h+j) * C_j ^ H_(h+q+1) * (len(A) || len(C))))` in GF(2^n) with
//! `x^64 + x^4 + x^3 + x + 1` or `x^128 + x^7 + x^2 + x + 1`, blocks read as big-endian polynomials.
//! `Y_i` and `H_i` are enciphered [`BATCH_BLOCKS`] at a time.
//!
//! The multilinear sum is kept unreduced and reduced once per message (`mgm_field`), with PCLMULQDQ
//! where the CPU has it. Constant time: both multipliers have no data-dependent branches or table
//! indices, and the tag comparison uses [`ct_eq`].
//!
//! Parameters chosen here: tag length `4..=n` bytes (RFC 9058 allows 32..=n bits); RFC 9058 requires
//! `0 < |A| + |P|` and `|A|, |P|, |A| + |P| < 2^(n/2)` bits, so an empty message with empty associated data
//! is rejected ([`Error::InvalidParameter`]) and longer inputs give [`Error::LengthLimit`].

use super::mgm_field::{reduce, Multiplier, Wide};
use crate::aead::{Aead, Tag};
use crate::block::BlockCipher;
use crate::util::{ct_eq, xor_in_place};
use crate::{Error, Result};
use zeroize::Zeroize;

/// Counter blocks enciphered per `encrypt_blocks` call.
pub const BATCH_BLOCKS: usize = 64;

const MAX_BLOCK: usize = 16;

/// Bytes `seal` encrypts and then hashes per step (a multiple of both block sizes), so that the
/// ciphertext is hashed while still in L1.
const SEAL_CHUNK_BYTES: usize = 4096;

/// Smallest tag this implementation accepts (RFC 9058: 32 bits).
const MIN_TAG_LEN: usize = 4;

/// MGM over a keyed 64- or 128-bit block cipher.
pub struct Mgm<C: BlockCipher> {
    cipher: C,
    n: usize,
    tag_len: usize,
    multiplier: Multiplier,
}

/// Reads an `n`-byte big-endian block into the low bits of a `u128`.
fn load(block: &[u8]) -> u128 {
    block
        .iter()
        .fold(0u128, |acc, &b| (acc << 8) | u128::from(b))
}

/// Writes the low `out.len()` bytes of `x` big-endian.
fn store(x: u128, out: &mut [u8]) {
    let bytes = x.to_be_bytes();
    out.copy_from_slice(&bytes[16 - out.len()..]);
}

impl<C: BlockCipher> Mgm<C> {
    /// MGM with `tag_len` bytes of tag (`4..=n`); the cipher must have 8- or 16-byte blocks.
    pub fn new(cipher: C, tag_len: usize) -> Result<Self> {
        let n = cipher.block_size();
        if n != 8 && n != 16 {
            return Err(Error::InvalidParameter(
                "MGM needs a 64- or 128-bit block cipher",
            ));
        }
        if !(MIN_TAG_LEN..=n).contains(&tag_len) {
            return Err(Error::InvalidTagLength {
                expected: "4..=block size bytes",
                got: tag_len,
            });
        }
        Ok(Mgm {
            cipher,
            n,
            tag_len,
            multiplier: Multiplier::select(),
        })
    }

    /// Adds `k` to the right (least significant) half of a counter block, mod `2^(n/2)`:
    /// `incr_r` applied `k` times.
    fn add_r(&self, x: u128, k: usize) -> u128 {
        let half = 4 * self.n as u32; // n/2 in bits
        let low_mask = (1u128 << half) - 1;
        (x & !low_mask) | (x.wrapping_add(k as u128) & low_mask)
    }

    /// Adds `k` to the left (most significant) half of a counter block, mod `2^(n/2)`:
    /// `incr_l` applied `k` times.
    fn add_l(&self, x: u128, k: usize) -> u128 {
        let half = 4 * self.n as u32;
        let block_mask = if self.n == 16 {
            u128::MAX
        } else {
            (1u128 << 64) - 1
        };
        x.wrapping_add((k as u128) << half) & block_mask
    }

    pub(super) fn check_nonce(&self, nonce: &[u8]) -> Result<()> {
        if nonce.len() != self.n {
            return Err(Error::InvalidNonceLength {
                expected: if self.n == 8 { "8" } else { "16" },
                got: nonce.len(),
            });
        }
        if nonce[0] & 0x80 != 0 {
            return Err(Error::InvalidParameter(
                "MGM nonce must have its most significant bit clear",
            ));
        }
        Ok(())
    }

    pub(super) fn check_lengths(&self, aad_len: usize, data_len: usize) -> Result<()> {
        let limit = 1u128 << (4 * self.n); // 2^(n/2) bits
        let a_bits = aad_len as u128 * 8;
        let p_bits = data_len as u128 * 8;
        if a_bits + p_bits >= limit {
            return Err(Error::LengthLimit(
                "MGM: |A| + |P| must be below 2^(n/2) bits",
            ));
        }
        if a_bits + p_bits == 0 {
            return Err(Error::InvalidParameter(
                "MGM needs a non-empty message or associated data (RFC 9058)",
            ));
        }
        Ok(())
    }

    /// `(Y_1, Z_1) = (E_K(0 || ICN), E_K(1 || ICN))` for `nonce`, as the RFC 9058 examples print them.
    pub fn y1_z1(&self, nonce: &[u8]) -> Result<(Vec<u8>, Vec<u8>)> {
        self.check_nonce(nonce)?;
        let (y1, z1) = self.initial_blocks(nonce);
        let mut y = vec![0u8; self.n];
        let mut z = vec![0u8; self.n];
        store(y1, &mut y);
        store(z1, &mut z);
        Ok((y, z))
    }

    /// `Y_1` and `Z_1`, enciphered in one call.
    pub(super) fn initial_blocks(&self, nonce: &[u8]) -> (u128, u128) {
        let n = self.n;
        let mut blocks = [0u8; 2 * MAX_BLOCK];
        blocks[..n].copy_from_slice(nonce);
        blocks[n..2 * n].copy_from_slice(nonce);
        blocks[n] |= 0x80;
        self.cipher.encrypt_blocks(&mut blocks[..2 * n]);
        let pair = (load(&blocks[..n]), load(&blocks[n..2 * n]));
        blocks.zeroize();
        pair
    }

    /// XORs the key stream `E_K(Y_1), E_K(Y_2), ...` into `data`.
    fn apply_keystream(&self, y1: u128, data: &mut [u8]) {
        let n = self.n;
        let mut y = y1;
        let mut ks = [0u8; BATCH_BLOCKS * MAX_BLOCK];
        for chunk in data.chunks_mut(BATCH_BLOCKS * n) {
            let ks = &mut ks[..chunk.len().div_ceil(n) * n];
            for block in ks.chunks_exact_mut(n) {
                store(y, block);
                y = self.add_r(y, 1);
            }
            self.cipher.encrypt_blocks(ks);
            xor_in_place(chunk, ks);
        }
        // Only the bytes a batch used hold key stream (zeroize writes byte by byte).
        ks[..data.len().div_ceil(n).min(BATCH_BLOCKS) * n].zeroize();
    }

    /// A hasher whose first `H` is `E_K(z)`, for `blocks` blocks.
    fn hasher(&self, z: u128, blocks: usize) -> Hasher<'_, C> {
        Hasher {
            mgm: self,
            z,
            remaining: blocks,
            h: [0u8; BATCH_BLOCKS * MAX_BLOCK],
            pos: 0,
            len: 0,
            used: 0,
            acc: Wide::default(),
        }
    }

    /// The full `n`-byte tag over `aad` and the ciphertext `ct`.
    pub(super) fn compute_tag(&self, z1: u128, aad: &[u8], ct: &[u8]) -> [u8; MAX_BLOCK] {
        let n = self.n;
        let mut hasher = self.hasher(z1, aad.len().div_ceil(n) + ct.len().div_ceil(n) + 1);
        hasher.absorb_padded(aad);
        hasher.absorb_padded(ct);
        self.finish_tag(hasher, aad.len(), ct.len())
    }

    /// Absorbs the length block `len(A) || len(C)` (the hasher stands at `Z_(h+q+1)`), reduces the
    /// sum and enciphers it: the full `n`-byte tag.
    fn finish_tag(
        &self,
        mut hasher: Hasher<'_, C>,
        aad_len: usize,
        text_len: usize,
    ) -> [u8; MAX_BLOCK] {
        let n = self.n;
        let half = 4 * n as u32;
        let lengths = ((aad_len as u128 * 8) << half) | (text_len as u128 * 8);
        let mut block = [0u8; MAX_BLOCK];
        store(lengths, &mut block[..n]);
        hasher.absorb_blocks(&block[..n]);
        let mut tag = [0u8; MAX_BLOCK];
        store(reduce(n, hasher.acc), &mut tag[..n]);
        self.cipher.encrypt_blocks(&mut tag[..n]);
        tag
    }

    /// Encrypts `data` with the counters from `y` and absorbs its ciphertext into `hasher`,
    /// [`SEAL_CHUNK_BYTES`] at a time so that each chunk is hashed while still in L1.
    fn encrypt_and_absorb(&self, y: u128, hasher: &mut Hasher<'_, C>, data: &mut [u8]) {
        let blocks_per_chunk = SEAL_CHUNK_BYTES / self.n;
        for (i, chunk) in data.chunks_mut(SEAL_CHUNK_BYTES).enumerate() {
            self.apply_keystream(self.add_r(y, i * blocks_per_chunk), chunk);
            hasher.absorb_padded(chunk);
        }
    }

    /// The tag as [`Aead::seal`] returns it: the first `tag_len` bytes of the full tag.
    fn truncate(&self, mut full: [u8; MAX_BLOCK]) -> Result<Tag> {
        let out = Tag::from_slice(&full[..self.tag_len]).ok_or(Error::InvalidTagLength {
            expected: "at most 16 bytes",
            got: self.tag_len,
        });
        full.zeroize();
        out
    }

    /// For a message split over threads (`crate::engine`): the checks of `seal` / `open`, then
    /// `(Y_1, Z_1)`.
    pub(crate) fn begin_split(
        &self,
        nonce: &[u8],
        aad_len: usize,
        data_len: usize,
    ) -> Result<(u128, u128)> {
        self.check_nonce(nonce)?;
        self.check_lengths(aad_len, data_len)?;
        Ok(self.initial_blocks(nonce))
    }

    /// Checks that `tag` has this instance's length (as `open` does).
    pub(crate) fn check_open_tag_len(&self, tag: &[u8]) -> Result<()> {
        if tag.len() != self.tag_len {
            return Err(Error::InvalidTagLength {
                expected: "the tag length this MGM was created with",
                got: tag.len(),
            });
        }
        Ok(())
    }

    /// The block size `n` (the unit a split message is cut at).
    pub(crate) fn block_len(&self) -> usize {
        self.n
    }

    /// Seals one part of a split message, `block_offset` blocks into the text, after `aad_len`
    /// bytes of AAD: the key stream from `Y_(1+offset)` (`incr_r` jumps by adding to the right
    /// half) and the unreduced sum of `H_i * C_i` from `Z_(h+1+offset)` (the left half).
    pub(crate) fn seal_part(
        &self,
        (y1, z1): (u128, u128),
        aad_len: usize,
        block_offset: usize,
        part: &mut [u8],
    ) -> Wide {
        let h = aad_len.div_ceil(self.n);
        let mut hasher = self.hasher(
            self.add_l(z1, h + block_offset),
            part.len().div_ceil(self.n),
        );
        self.encrypt_and_absorb(self.add_r(y1, block_offset), &mut hasher, part);
        hasher.acc
    }

    /// The unreduced sum of one part of a split ciphertext (as [`Mgm::seal_part`] returns).
    pub(crate) fn hash_part(
        &self,
        z1: u128,
        aad_len: usize,
        block_offset: usize,
        part: &[u8],
    ) -> Wide {
        let h = aad_len.div_ceil(self.n);
        let mut hasher = self.hasher(
            self.add_l(z1, h + block_offset),
            part.len().div_ceil(self.n),
        );
        hasher.absorb_padded(part);
        hasher.acc
    }

    /// Decrypts one part of a split ciphertext, `block_offset` blocks into the text.
    pub(crate) fn decrypt_part(&self, y1: u128, block_offset: usize, part: &mut [u8]) {
        self.apply_keystream(self.add_r(y1, block_offset), part);
    }

    /// The tag of a split message from its parts' unreduced sums `(S_k, bytes_k)` in text order:
    /// the AAD's products and the length block's are added (the sums are reduced only once, so
    /// partial sums simply add), then reduced and enciphered as in `seal`, truncated to the tag
    /// length. The partial sums are zeroized.
    pub(crate) fn tag_from_parts(
        &self,
        z1: u128,
        aad: &[u8],
        parts: &mut [(Wide, usize)],
    ) -> Result<Tag> {
        let n = self.n;
        let h = aad.len().div_ceil(n);
        let mut aad_hasher = self.hasher(z1, h);
        aad_hasher.absorb_padded(aad);
        let mut text_len = 0;
        let mut q = 0;
        let mut acc = aad_hasher.acc;
        for (sum, bytes) in parts.iter_mut() {
            acc.add(*sum);
            text_len += *bytes;
            q += bytes.div_ceil(n);
            sum.zeroize();
        }
        let mut hasher = self.hasher(self.add_l(z1, h + q), 1);
        hasher.acc = acc;
        acc.zeroize();
        let full = self.finish_tag(hasher, aad.len(), text_len);
        self.truncate(full)
    }
}

/// The multilinear sum: pulls `H_i = E_K(Z_i)` in batches and accumulates `H_i * X_i` unreduced.
struct Hasher<'a, C: BlockCipher> {
    mgm: &'a Mgm<C>,
    /// The next `Z_i` to encipher.
    z: u128,
    /// `H` values still to be enciphered (so that short messages do not encipher a whole batch).
    remaining: usize,
    /// `H` values enciphered ahead; `h[pos..len]` are unused.
    h: [u8; BATCH_BLOCKS * MAX_BLOCK],
    pos: usize,
    len: usize,
    /// The longest batch so far: `h[..used]` is all that ever held key-derived bytes.
    used: usize,
    acc: Wide,
}

impl<C: BlockCipher> Hasher<'_, C> {
    /// Enciphers the next batch of `H` values once the current one is used up.
    fn refill(&mut self) {
        let n = self.mgm.n;
        if self.pos < self.len {
            return;
        }
        let blocks = self.remaining.clamp(1, BATCH_BLOCKS);
        self.remaining = self.remaining.saturating_sub(blocks);
        self.len = blocks * n;
        self.used = self.used.max(self.len);
        for block in self.h[..self.len].chunks_exact_mut(n) {
            store(self.z, block);
            self.z = self.mgm.add_l(self.z, 1);
        }
        self.pos = 0;
        self.mgm.cipher.encrypt_blocks(&mut self.h[..self.len]);
    }

    /// Absorbs whole `n`-byte blocks (`data.len()` is a multiple of `n`).
    fn absorb_blocks(&mut self, mut data: &[u8]) {
        let n = self.mgm.n;
        while !data.is_empty() {
            self.refill();
            let take = (self.len - self.pos).min(data.len());
            let h = &self.h[self.pos..self.pos + take];
            self.mgm
                .multiplier
                .mul_sum(n, h, &data[..take], &mut self.acc);
            self.pos += take;
            data = &data[take..];
        }
    }

    /// Absorbs `data` as blocks, the last one zero-padded.
    fn absorb_padded(&mut self, data: &[u8]) {
        let n = self.mgm.n;
        let whole = data.len() / n * n;
        self.absorb_blocks(&data[..whole]);
        if whole < data.len() {
            let mut padded = [0u8; MAX_BLOCK];
            padded[..data.len() - whole].copy_from_slice(&data[whole..]);
            self.absorb_blocks(&padded[..n]);
        }
    }
}

impl<C: BlockCipher> Drop for Hasher<'_, C> {
    fn drop(&mut self) {
        self.h[..self.used].zeroize();
        self.acc.lo.zeroize();
        self.acc.hi.zeroize();
    }
}

impl<C: BlockCipher> Aead for Mgm<C> {
    fn tag_len(&self) -> usize {
        self.tag_len
    }

    fn nonce_len_desc(&self) -> &'static str {
        if self.n == 8 {
            "8 bytes, most significant bit 0"
        } else {
            "16 bytes, most significant bit 0"
        }
    }

    fn seal(&self, nonce: &[u8], aad: &[u8], data: &mut [u8]) -> Result<Tag> {
        self.check_nonce(nonce)?;
        self.check_lengths(aad.len(), data.len())?;
        let (y1, z1) = self.initial_blocks(nonce);
        let n = self.n;
        let mut hasher = self.hasher(z1, aad.len().div_ceil(n) + data.len().div_ceil(n) + 1);
        hasher.absorb_padded(aad);
        self.encrypt_and_absorb(y1, &mut hasher, data);
        let full = self.finish_tag(hasher, aad.len(), data.len());
        self.truncate(full)
    }

    fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<()> {
        self.check_nonce(nonce)?;
        self.check_lengths(aad.len(), data.len())?;
        self.check_open_tag_len(tag)?;
        let (y1, z1) = self.initial_blocks(nonce);
        let expected = self.compute_tag(z1, aad, data);
        if !ct_eq(&expected[..self.tag_len], tag) {
            return Err(Error::AuthenticationFailed);
        }
        self.apply_keystream(y1, data);
        Ok(())
    }
}
