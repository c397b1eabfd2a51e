//! MGM, the Multilinear Galois Mode AEAD (RFC 9058; R 1323565.1.026-2019), for 64- and 128-bit block
//! ciphers (Magma, Kuznyechik).
//!
//! With nonce `ICN` (`n` bytes whose most significant bit must be 0): `Y_1 = E_K(0 || ICN)` starts the
//! encryption counter (`incr_r`: the right half mod `2^(n/2)`), `Z_1 = E_K(1 || ICN)` starts the
//! authentication counter (`incr_l`: the left half), `H_i = E_K(Z_i)`, and
//! `T = MSB_S(E_K(sum H_i * A_i ^ sum H_(h+j) * C_j ^ H_(h+q+1) * (len(A) || len(C))))` in GF(2^n) with
//! `x^64 + x^4 + x^3 + x + 1` or `x^128 + x^7 + x^2 + x + 1`, blocks read as big-endian polynomials.
//!
//! One pass over the text, [`BATCH_BLOCKS`] blocks per step: the step writes its `Y` counters and
//! its `Z` counters (those of a short AAD too in the first step, the length block's in the last)
//! side by side and enciphers them in ONE `encrypt_blocks` call, so the wide SIMD kernels run at
//! full width, then XORs the key stream and multiplies the ciphertext while it is in L1. A short
//! message thus costs three cipher calls: `(Y_1, Z_1)`, the step, the tag. `open` hashes each step
//! before deciphering it and, if the tag does not match, applies the key stream once more, so the
//! caller's buffer holds the ciphertext again.
//!
//! Where the cipher has a fused counter mode for MGM's counters ([`BlockCipher::half_ctr_xor`]:
//! the gfni Kuznyechik and AVX-512 Magma kernels make them in registers, so no counter block goes
//! through memory), a step with at least [`BATCH_BLOCKS`] `Z` counters takes it: its `H` values
//! are that mode's key stream over zeros, and the key stream of a step of at least a batch of text
//! is XORed straight into the text; the `Y` counters of a shorter last step go through one
//! `encrypt_blocks` call. A text (or an AAD hashed alone) of more than one batch then goes in
//! steps of four batches, which spreads each fused call's fixed cost over more blocks.
//!
//! The multilinear sum is kept unreduced and reduced once per message (`mgm_field`), with
//! VPCLMULQDQ or PCLMULQDQ where the CPU has them. Constant time: the multipliers have no
//! data-dependent branches or table indices, and the tag comparison uses [`ct_eq`].
//!
//! Parameters chosen here: tag length `4..=n` bytes (RFC 9058 allows 32..=n bits); RFC 9058 requires
//! `0 < |A| + |P|` and `|A|, |P|, |A| + |P| < 2^(n/2)` bits, so an empty message with empty associated data
//! is rejected ([`Error::InvalidParameter`]) and longer inputs give [`Error::LengthLimit`].

use super::mgm_field::{reduce, Multiplier, Wide};
use crate::aead::{Aead, Tag};
use crate::block::{BlockCipher, CounterHalf};
use crate::util::{ct_eq, xor_in_place};
use crate::{Error, Result};
use zeroize::Zeroize;

/// Blocks of text per step; a step enciphers their `Y` and `Z` counters in one `encrypt_blocks`
/// call (128 blocks: four full passes of the 32-block AVX-512 Magma kernel).
pub const BATCH_BLOCKS: usize = 64;

const MAX_BLOCK: usize = 16;

/// Smallest tag this implementation accepts (RFC 9058: 32 bits).
const MIN_TAG_LEN: usize = 4;

/// MGM over a keyed 64- or 128-bit block cipher.
pub struct Mgm<C: BlockCipher> {
    cipher: C,
    n: usize,
    tag_len: usize,
    multiplier: Multiplier,
    /// Whether the cipher has the fused counter modes ([`BlockCipher::half_ctr_xor`]).
    fused: bool,
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
    /// Bytes this keyed instance holds: the cipher's key schedule and the multiplier's state (see
    /// [`BlockCipher::state_bytes`]).
    pub fn state_bytes(&self) -> usize {
        core::mem::size_of::<Self>() - core::mem::size_of::<C>() + self.cipher.state_bytes()
    }

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
        // An empty call tells whether the cipher has the fused counter modes.
        let fused = cipher.half_ctr_xor(&[0u8; MAX_BLOCK][..n], CounterHalf::Left, &mut []);
        Ok(Mgm {
            cipher,
            n,
            tag_len,
            multiplier: Multiplier::select(),
            fused,
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

    /// Writes the counter blocks `x, incr_r(x), incr_r^2(x), ...` into `out` (whole blocks). Block
    /// `i` is computed from `i` alone (the half wraps mod `2^(n/2)` as `i` does when truncated), so
    /// the loop has no carried dependency and vectorizes.
    fn fill_r(&self, x: u128, out: &mut [u8]) {
        if self.n == 8 {
            let left = (x as u64) & !u64::from(u32::MAX);
            let right = x as u32;
            for (i, block) in out.chunks_exact_mut(8).enumerate() {
                let counter = left | u64::from(right.wrapping_add(i as u32));
                block.copy_from_slice(&counter.to_be_bytes());
            }
        } else {
            let left = x & !u128::from(u64::MAX);
            let right = x as u64;
            for (i, block) in out.chunks_exact_mut(16).enumerate() {
                let counter = left | u128::from(right.wrapping_add(i as u64));
                block.copy_from_slice(&counter.to_be_bytes());
            }
        }
    }

    /// Writes the counter blocks `x, incr_l(x), incr_l^2(x), ...` into `out` (whole blocks), block
    /// `i` from `i` alone as in [`Mgm::fill_r`].
    fn fill_l(&self, x: u128, out: &mut [u8]) {
        if self.n == 8 {
            let right = u64::from(x as u32);
            let left = (x >> 32) as u32;
            for (i, block) in out.chunks_exact_mut(8).enumerate() {
                let counter = (u64::from(left.wrapping_add(i as u32)) << 32) | right;
                block.copy_from_slice(&counter.to_be_bytes());
            }
        } else {
            let right = u128::from(x as u64);
            let left = (x >> 64) as u64;
            for (i, block) in out.chunks_exact_mut(16).enumerate() {
                let counter = (u128::from(left.wrapping_add(i as u64)) << 64) | right;
                block.copy_from_slice(&counter.to_be_bytes());
            }
        }
    }

    /// XORs the key stream `E_K(y), E_K(incr_r(y)), ...` into `data`: through the fused counter
    /// mode from a batch on, where the cipher has it; else a batch per `encrypt_blocks` call.
    fn apply_keystream(&self, mut y: u128, data: &mut [u8]) {
        let n = self.n;
        if self.fused
            && data.len() >= BATCH_BLOCKS * n
            && self.fused_xor(y, CounterHalf::Right, data)
        {
            return;
        }
        let mut scratch = Scratch::<SCRATCH_BYTES>::new();
        for chunk in data.chunks_mut(BATCH_BLOCKS * n) {
            let blocks = chunk.len().div_ceil(n);
            let ks = scratch.take(blocks * n);
            self.fill_r(y, ks);
            self.cipher.encrypt_blocks(ks);
            xor_in_place(chunk, ks);
            y = self.add_r(y, blocks);
        }
    }

    /// `acc += sum H_i * X_i` over `data` read as blocks, the last one zero-padded, with `h` holding
    /// `H_i` for exactly those blocks.
    fn absorb_padded(&self, h: &[u8], data: &[u8], acc: &mut Wide) {
        let n = self.n;
        let whole = data.len() / n * n;
        self.multiplier.mul_sum(n, &h[..whole], &data[..whole], acc);
        if whole < data.len() {
            let mut padded = [0u8; MAX_BLOCK];
            padded[..data.len() - whole].copy_from_slice(&data[whole..]);
            self.multiplier
                .mul_sum(n, &h[whole..whole + n], &padded[..n], acc);
            padded.zeroize();
        }
    }

    /// `acc += sum H_i * X_i` over `data` (the last block zero-padded) and then the block `tail`,
    /// with `H` from `E_K(z)` on, one cipher call per step (see [`Mgm::crypt_and_hash`]).
    fn hash(&self, z: u128, data: &[u8], tail: Option<&[u8]>, acc: &mut Wide) {
        if self.long_steps(data.len()) {
            let mut scratch = Scratch::<LONG_SCRATCH_BYTES>::new();
            self.hash_steps(&mut scratch, FUSED_STEP_BLOCKS, z, data, tail, acc);
        } else {
            let mut scratch = Scratch::<SCRATCH_BYTES>::new();
            self.hash_steps(&mut scratch, BATCH_BLOCKS, z, data, tail, acc);
        }
    }

    /// [`Mgm::hash`] in steps of `step_blocks` blocks.
    fn hash_steps<const N: usize>(
        &self,
        scratch: &mut Scratch<N>,
        step_blocks: usize,
        mut z: u128,
        data: &[u8],
        tail: Option<&[u8]>,
        acc: &mut Wide,
    ) {
        let n = self.n;
        let steps = data.len().div_ceil(step_blocks * n).max(1);
        for (i, chunk) in data
            .chunks(step_blocks * n)
            .chain(data.is_empty().then_some(data))
            .enumerate()
        {
            let blocks = chunk.len().div_ceil(n);
            let extra = usize::from(i + 1 == steps && tail.is_some());
            let h = scratch.take((blocks + extra) * n);
            if h.is_empty() {
                return;
            }
            if self.fused && h.len() >= BATCH_BLOCKS * n {
                self.fused_h(z, h);
            } else {
                self.fill_l(z, h);
                self.cipher.encrypt_blocks(h);
            }
            let (h_data, h_tail) = h.split_at(blocks * n);
            self.absorb_padded(h_data, chunk, acc);
            if let (Some(tail), 1) = (tail, extra) {
                self.multiplier.mul_sum(n, h_tail, tail, acc);
            }
            z = self.add_l(z, blocks + extra);
        }
    }

    /// Whether `len` bytes of text (or AAD hashed alone) go in steps of [`FUSED_STEP_BLOCKS`]:
    /// where the cipher has the fused counter modes and there is more than one batch.
    fn long_steps(&self, len: usize) -> bool {
        self.fused && len > BATCH_BLOCKS * self.n
    }

    /// `h` (whole blocks) becomes `E_K(z), E_K(incr_l(z)), ...`: the fused counter mode's key
    /// stream over zeros ([`BlockCipher::half_ctr_xor`]), or, should the cipher decline, the
    /// counter blocks enciphered in place.
    fn fused_h(&self, z: u128, h: &mut [u8]) {
        h.fill(0);
        if !self.fused_xor(z, CounterHalf::Left, h) {
            self.fill_l(z, h);
            self.cipher.encrypt_blocks(h);
        }
    }

    /// [`BlockCipher::half_ctr_xor`] from the counter block `x`.
    fn fused_xor(&self, x: u128, half: CounterHalf, data: &mut [u8]) -> bool {
        let mut counter = [0u8; MAX_BLOCK];
        store(x, &mut counter[..self.n]);
        self.cipher.half_ctr_xor(&counter[..self.n], half, data)
    }

    /// Seals (or, for [`Direction::Open`], deciphers) `data` with the key stream from `y` and
    /// adds to `acc` the products of `prefix` (AAD of at most [`BATCH_BLOCKS`] blocks, zero-padded),
    /// then of the ciphertext (zero-padded) and then of the block `tail`, with `H` from `E_K(z)` on.
    /// Each step hashes its ciphertext while it is in L1. Without the fused counter modes a step
    /// is [`BATCH_BLOCKS`] blocks and enciphers its `Y` and `Z` counters in one `encrypt_blocks`
    /// call (a whole batch for the wide SIMD kernels); with them, a text of more than one batch
    /// goes in steps of [`FUSED_STEP_BLOCKS`], each fused call's setup spread over more blocks.
    #[allow(clippy::too_many_arguments)]
    fn crypt_and_hash(
        &self,
        direction: Direction,
        y: u128,
        z: u128,
        prefix: &[u8],
        data: &mut [u8],
        tail: Option<&[u8]>,
        acc: &mut Wide,
    ) {
        let args = (direction, y, z, prefix, tail);
        if self.long_steps(data.len()) {
            let mut scratch = Scratch::<LONG_SCRATCH_BYTES>::new();
            self.crypt_steps(&mut scratch, FUSED_STEP_BLOCKS, args, data, acc);
        } else {
            let mut scratch = Scratch::<SCRATCH_BYTES>::new();
            self.crypt_steps(&mut scratch, BATCH_BLOCKS, args, data, acc);
        }
    }

    /// [`Mgm::crypt_and_hash`] in steps of `step_blocks` blocks.
    fn crypt_steps<const N: usize>(
        &self,
        scratch: &mut Scratch<N>,
        step_blocks: usize,
        (direction, mut y, mut z, mut prefix, tail): (Direction, u128, u128, &[u8], Option<&[u8]>),
        data: &mut [u8],
        acc: &mut Wide,
    ) {
        let n = self.n;
        let steps = data.len().div_ceil(step_blocks * n).max(1);
        let mut empty = [0u8; 0];
        let empty_chunk = data.is_empty().then_some(&mut empty[..]);
        for (i, chunk) in data
            .chunks_mut(step_blocks * n)
            .chain(empty_chunk)
            .enumerate()
        {
            let p = prefix.len().div_ceil(n);
            let blocks = chunk.len().div_ceil(n);
            let extra = usize::from(i + 1 == steps && tail.is_some());
            // At least a batch of `Z` counters, and then of `Y` counters, through the fused
            // counter modes where the cipher has them; fewer (all, without them) in one call.
            let fused_h = self.fused && p + blocks + extra >= BATCH_BLOCKS;
            let fused_ks = fused_h && blocks >= BATCH_BLOCKS;
            let ks_len = if fused_ks { 0 } else { blocks * n };
            let buf = scratch.take(ks_len + (p + blocks + extra) * n);
            if buf.is_empty() {
                return;
            }
            let (ks, h) = buf.split_at_mut(ks_len);
            if !fused_h {
                self.fill_r(y, ks);
                self.fill_l(z, h);
                self.cipher.encrypt_blocks(buf);
            } else {
                self.fused_h(z, h);
                if !ks.is_empty() {
                    self.fill_r(y, ks);
                    self.cipher.encrypt_blocks(ks);
                }
            }
            let (ks, h) = buf.split_at(ks_len);
            let (h_prefix, h) = h.split_at(p * n);
            let (h_data, h_tail) = h.split_at(blocks * n);
            self.absorb_padded(h_prefix, prefix, acc);
            let crypt = |chunk: &mut [u8]| {
                if fused_ks {
                    self.apply_keystream(y, chunk);
                } else {
                    xor_in_place(chunk, ks);
                }
            };
            match direction {
                Direction::Seal => {
                    crypt(chunk);
                    self.absorb_padded(h_data, chunk, acc);
                }
                Direction::Open => {
                    self.absorb_padded(h_data, chunk, acc);
                    crypt(chunk);
                }
            }
            if let (Some(tail), 1) = (tail, extra) {
                self.multiplier.mul_sum(n, h_tail, tail, acc);
            }
            y = self.add_r(y, blocks);
            z = self.add_l(z, p + blocks + extra);
            prefix = &[];
        }
    }

    /// Seals or opens a whole message: the AAD's products (folded into the first step when it
    /// is short), then [`Mgm::crypt_and_hash`] with the length block as its tail. Returns the
    /// full `n`-byte tag.
    fn crypt_message(
        &self,
        direction: Direction,
        (y1, z1): (u128, u128),
        aad: &[u8],
        data: &mut [u8],
    ) -> [u8; MAX_BLOCK] {
        let n = self.n;
        let h = aad.len().div_ceil(n);
        let mut acc = Wide::default();
        let (prefix, z) = if h <= BATCH_BLOCKS {
            (aad, z1)
        } else {
            self.hash(z1, aad, None, &mut acc);
            (&[][..], self.add_l(z1, h))
        };
        let lengths = self.lengths_block(aad.len(), data.len());
        self.crypt_and_hash(
            direction,
            y1,
            z,
            prefix,
            data,
            Some(&lengths[..n]),
            &mut acc,
        );
        self.finish_tag(&mut acc)
    }

    /// `len(A) || len(C)` in bits, each `n/2` bits: the last block of the multilinear sum.
    fn lengths_block(&self, aad_len: usize, text_len: usize) -> [u8; MAX_BLOCK] {
        let n = self.n;
        let half = 4 * n as u32;
        let lengths = ((aad_len as u128 * 8) << half) | (text_len as u128 * 8);
        let mut block = [0u8; MAX_BLOCK];
        store(lengths, &mut block[..n]);
        block
    }

    /// The full `n`-byte tag over `aad` and the ciphertext `ct`.
    pub(super) fn compute_tag(&self, z1: u128, aad: &[u8], ct: &[u8]) -> [u8; MAX_BLOCK] {
        let n = self.n;
        let mut acc = Wide::default();
        self.hash(z1, aad, None, &mut acc);
        let lengths = self.lengths_block(aad.len(), ct.len());
        let z = self.add_l(z1, aad.len().div_ceil(n));
        self.hash(z, ct, Some(&lengths[..n]), &mut acc);
        self.finish_tag(&mut acc)
    }

    /// Reduces the sum (all products, the length block's included) and enciphers it: the full
    /// `n`-byte tag. The sum is zeroized.
    fn finish_tag(&self, acc: &mut Wide) -> [u8; MAX_BLOCK] {
        let n = self.n;
        let mut tag = [0u8; MAX_BLOCK];
        store(reduce(n, *acc), &mut tag[..n]);
        acc.zeroize();
        self.cipher.encrypt_blocks(&mut tag[..n]);
        tag
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

    /// For a message split over threads (`crate::parallel`): the checks of `seal` / `open`, then
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

    /// Seals (or, for [`Direction::Open`], opens) one part of a split message in one pass,
    /// `block_offset` blocks into the text, after `aad_len` bytes of AAD: the key stream from
    /// `Y_(1+offset)` (`incr_r` jumps by adding to the right half) and the unreduced sum of
    /// `H_i * C_i` from `Z_(h+1+offset)` (the left half).
    pub(crate) fn crypt_part(
        &self,
        direction: Direction,
        (y1, z1): (u128, u128),
        aad_len: usize,
        block_offset: usize,
        part: &mut [u8],
    ) -> Wide {
        let h = aad_len.div_ceil(self.n);
        let mut acc = Wide::default();
        self.crypt_and_hash(
            direction,
            self.add_r(y1, block_offset),
            self.add_l(z1, h + block_offset),
            &[],
            part,
            None,
            &mut acc,
        );
        acc
    }

    /// XORs the key stream of the part `block_offset` blocks into a split message: gives an
    /// opened part its ciphertext back.
    pub(crate) fn keystream_part(&self, y1: u128, block_offset: usize, part: &mut [u8]) {
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
        let mut acc = Wide::default();
        self.hash(z1, aad, None, &mut acc);
        let mut text_len = 0;
        let mut q = 0;
        for (sum, bytes) in parts.iter_mut() {
            acc.add(*sum);
            text_len += *bytes;
            q += bytes.div_ceil(n);
            sum.zeroize();
        }
        let lengths = self.lengths_block(aad.len(), text_len);
        self.hash(self.add_l(z1, h + q), &[], Some(&lengths[..n]), &mut acc);
        let full = self.finish_tag(&mut acc);
        self.truncate(full)
    }
}

/// Which way [`Mgm::crypt_and_hash`] runs: the hash always covers the ciphertext.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    Seal,
    Open,
}

/// Bytes of one step's counter blocks: `Y` for [`BATCH_BLOCKS`] blocks, `Z` for up to
/// [`BATCH_BLOCKS`] blocks of AAD, [`BATCH_BLOCKS`] of text and the length block.
const SCRATCH_BYTES: usize = (3 * BATCH_BLOCKS + 1) * MAX_BLOCK;

/// Blocks per step of a long text where the cipher has the fused counter modes: a step keeps only
/// its `H` values in memory, and each fused call's fixed cost is spread over more blocks.
const FUSED_STEP_BLOCKS: usize = 4 * BATCH_BLOCKS;

/// Bytes of such a step's counter blocks: `Z` for up to [`BATCH_BLOCKS`] blocks of AAD,
/// [`FUSED_STEP_BLOCKS`] of text and the length block (the `Y` of a short last step fit too).
const LONG_SCRATCH_BYTES: usize = (BATCH_BLOCKS + FUSED_STEP_BLOCKS + 1) * MAX_BLOCK;

/// The counter blocks of a step, enciphered in place into key stream and `H` values; on drop the
/// bytes that ever held them are zeroized (once, not per step).
struct Scratch<const N: usize> {
    buf: [u8; N],
    used: usize,
}

impl<const N: usize> Scratch<N> {
    fn new() -> Scratch<N> {
        Scratch {
            buf: [0u8; N],
            used: 0,
        }
    }

    /// The first `len` bytes (at most `N`).
    fn take(&mut self, len: usize) -> &mut [u8] {
        self.used = self.used.max(len);
        &mut self.buf[..len]
    }
}

impl<const N: usize> Drop for Scratch<N> {
    fn drop(&mut self) {
        self.buf[..self.used].zeroize();
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
        let counters = self.initial_blocks(nonce);
        let full = self.crypt_message(Direction::Seal, counters, aad, data);
        self.truncate(full)
    }

    /// Deciphers and hashes in the same pass (the ciphertext is hashed before each step is
    /// deciphered); if the tag does not match, the key stream is applied once more, so `data` is
    /// the ciphertext again when the error is returned.
    fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<()> {
        self.check_nonce(nonce)?;
        self.check_lengths(aad.len(), data.len())?;
        self.check_open_tag_len(tag)?;
        let counters = self.initial_blocks(nonce);
        let mut expected = self.crypt_message(Direction::Open, counters, aad, data);
        let ok = ct_eq(&expected[..self.tag_len], tag);
        expected.zeroize();
        if !ok {
            self.apply_keystream(counters.0, data);
            return Err(Error::AuthenticationFailed);
        }
        Ok(())
    }
}
