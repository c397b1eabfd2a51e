//! OMAC1 (= CMAC, SP 800-38B; = the GOST R 34.13-2015 section 5.6 MAC) for 64- and 128-bit blocks.
//!
//! `R = E_K(0^n)`, `K1 = R * x`, `K2 = K1 * x` in GF(2^n) (doubling: shift left one bit, XOR `B_64 = 0x1b`
//! or `B_128 = 0x87` into the last byte when the top bit fell off; done with a mask, not a branch). The last
//! block is XORed with `K1` when whole, or padded with `10...0` and XORed with `K2`. The tag is the first
//! `tag_len` bytes (`1..=n`). [`Omac`] accepts the message in any pieces with the same result.

use crate::block::{BlockCipher, Chain};
use crate::util::{ct_eq, xor_in_place};
use crate::{Error, Result};
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

const MAX_BLOCK: usize = 16;

/// The reduction constant `B_n` for the block sizes OMAC is defined for.
fn reduction_constant(n: usize) -> Result<u8> {
    match n {
        8 => Ok(0x1b),
        16 => Ok(0x87),
        _ => Err(Error::InvalidParameter(
            "OMAC needs a 64- or 128-bit block cipher",
        )),
    }
}

/// Multiplies the big-endian block by `x` in GF(2^n) (in place), without branching on its value.
pub(crate) fn double(block: &mut [u8], constant: u8) {
    // 64- and 128-bit blocks as one integer shift; the reduction is masked in, not branched on.
    if let Ok(b) = <&mut [u8; 16]>::try_from(&mut *block) {
        let v = u128::from_be_bytes(*b);
        let mask = (v >> 127).wrapping_neg();
        *b = ((v << 1) ^ (mask & u128::from(constant))).to_be_bytes();
        return;
    }
    if let Ok(b) = <&mut [u8; 8]>::try_from(&mut *block) {
        let v = u64::from_be_bytes(*b);
        let mask = (v >> 63).wrapping_neg();
        *b = ((v << 1) ^ (mask & u64::from(constant))).to_be_bytes();
        return;
    }
    let top = block.first().map_or(0, |b| b >> 7);
    let mut carry = 0u8;
    for b in block.iter_mut().rev() {
        let next = *b >> 7;
        *b = (*b << 1) | carry;
        carry = next;
    }
    if let Some(last) = block.last_mut() {
        *last ^= constant & 0u8.wrapping_sub(top);
    }
}

/// The OMAC subkeys `(R, K1, K2)` of `c`, each `n` bytes.
#[allow(clippy::type_complexity)]
pub fn subkeys<C: BlockCipher + ?Sized>(
    c: &C,
) -> Result<(Zeroizing<Vec<u8>>, Zeroizing<Vec<u8>>, Zeroizing<Vec<u8>>)> {
    let n = c.block_size();
    let constant = reduction_constant(n)?;
    let mut r = [0u8; MAX_BLOCK];
    c.encrypt_blocks(&mut r[..n]);
    let (mut k1, mut k2) = derive_subkeys(&r[..n], constant);
    let keys = (
        Zeroizing::new(r[..n].to_vec()),
        Zeroizing::new(k1[..n].to_vec()),
        Zeroizing::new(k2[..n].to_vec()),
    );
    wipe(&mut r);
    wipe(&mut k1);
    wipe(&mut k2);
    Ok(keys)
}

/// `K1 = R * x` and `K2 = R * x^2` (first `r.len()` bytes used). Key material: the caller wipes
/// both (with [`wipe`]).
fn derive_subkeys(r: &[u8], constant: u8) -> ([u8; MAX_BLOCK], [u8; MAX_BLOCK]) {
    let n = r.len();
    let mut k1 = [0u8; MAX_BLOCK];
    k1[..n].copy_from_slice(r);
    double(&mut k1[..n], constant);
    let mut k2 = k1;
    double(&mut k2[..n], constant);
    (k1, k2)
}

/// Wipes a stack block of key material. Zeroizes it as a slice: one fill behind an optimisation
/// barrier, where `Zeroize` on a byte *array* (and so `Zeroizing<[u8; N]>` on drop) writes the
/// bytes one volatile store at a time, which cost a one-block MAC more than its cipher call.
#[inline(always)]
fn wipe(block: &mut [u8]) {
    block.zeroize();
}

/// Checks a tag length against the block size.
pub(crate) fn check_tag_len(n: usize, tag_len: usize) -> Result<()> {
    if tag_len == 0 || tag_len > n {
        return Err(Error::InvalidTagLength {
            expected: "1..=block size bytes",
            got: tag_len,
        });
    }
    Ok(())
}

/// Incremental OMAC over a keyed block cipher.
pub struct Omac<C: BlockCipher> {
    cipher: C,
    n: usize,
    tag_len: usize,
    k1: [u8; MAX_BLOCK],
    k2: [u8; MAX_BLOCK],
    /// The chaining value `C_(i-1)`.
    state: [u8; MAX_BLOCK],
    /// Bytes not yet absorbed: up to one whole block, kept back in case it is the last one.
    buf: [u8; MAX_BLOCK],
    buf_len: usize,
}

impl<C: BlockCipher> Omac<C> {
    /// Starts a MAC with tag length `tag_len` (`1..=n` bytes); the cipher must have 8- or 16-byte blocks.
    pub fn new(cipher: C, tag_len: usize) -> Result<Self> {
        Self::start(cipher, tag_len, &[])
    }

    /// [`Omac::new`] that also absorbs `first`: empty, or one whole block that is not the message's
    /// last. Its encipherment shares one batch call with `R = E(0^n)`, so a message of two or more
    /// blocks pays no extra cipher latency for the subkeys. No allocation.
    fn start(cipher: C, tag_len: usize, first: &[u8]) -> Result<Self> {
        let n = cipher.block_size();
        check_tag_len(n, tag_len)?;
        let constant = reduction_constant(n)?;
        // `0^n || first`, enciphered together: `R || C_1` (key material: wiped below).
        let mut batch = [0u8; 2 * MAX_BLOCK];
        let used = n + first.len().min(n);
        batch[n..used].copy_from_slice(&first[..used - n]);
        match cipher.zero_block_image() {
            // `R` kept from key setup: only the first block (if any) needs the cipher.
            Some(r) if r.len() == n => {
                batch[..n].copy_from_slice(r);
                if used > n {
                    cipher.encrypt_blocks(&mut batch[n..used]);
                }
            }
            _ => cipher.encrypt_blocks(&mut batch[..used]),
        }
        let (k1, k2) = derive_subkeys(&batch[..n], constant);
        let mut mac = Omac {
            cipher,
            n,
            tag_len,
            k1,
            k2,
            state: [0u8; MAX_BLOCK],
            buf: [0u8; MAX_BLOCK],
            buf_len: 0,
        };
        mac.state[..used - n].copy_from_slice(&batch[n..used]);
        wipe(&mut batch);
        Ok(mac)
    }

    /// Absorbs the next part of the message.
    pub fn update(&mut self, data: &[u8]) {
        let n = self.n;
        let mut data = data;
        // Fill the held-back block first; absorb it only once more data shows it is not the last.
        if self.buf_len < n {
            let take = (n - self.buf_len).min(data.len());
            self.buf[self.buf_len..self.buf_len + take].copy_from_slice(&data[..take]);
            self.buf_len += take;
            data = &data[take..];
        }
        if data.is_empty() {
            return;
        }
        self.absorb_buf();
        // Whole blocks that are certainly not the last one: to the backend's CBC-MAC kernel
        // where it has one, else block by block.
        let before_last = (data.len() - 1) / n * n;
        if before_last > 0
            && self
                .cipher
                .feedback_chain(&mut self.state[..n], Chain::CbcMac(&data[..before_last]))
        {
            data = &data[before_last..];
        }
        while data.len() > n {
            xor_in_place(&mut self.state[..n], &data[..n]);
            self.cipher.encrypt_blocks(&mut self.state[..n]);
            data = &data[n..];
        }
        self.buf[..data.len()].copy_from_slice(data);
        self.buf_len = data.len();
    }

    fn absorb_buf(&mut self) {
        let n = self.n;
        xor_in_place(&mut self.state[..n], &self.buf[..n]);
        self.cipher.encrypt_blocks(&mut self.state[..n]);
        self.buf_len = 0;
    }

    /// Finishes and returns the `tag_len`-byte tag.
    pub fn finalize(self) -> Vec<u8> {
        let mut tag = [0u8; MAX_BLOCK];
        let len = self.tag_len;
        self.finish(&mut tag);
        tag[..len].to_vec()
    }

    /// Finishes and writes the tag into `tag`, which must be exactly `tag_len` bytes
    /// ([`Error::InvalidTagLength`] otherwise): the tag without an allocation.
    pub fn finalize_into(self, tag: &mut [u8]) -> Result<()> {
        if tag.len() != self.tag_len {
            return Err(Error::InvalidTagLength {
                expected: "the tag length the MAC was started with",
                got: tag.len(),
            });
        }
        let mut full = [0u8; MAX_BLOCK];
        self.finish(&mut full);
        tag.copy_from_slice(&full[..tag.len()]);
        Ok(())
    }

    /// The last block's encipherment; `out` gets the whole final chaining value (the tag is its
    /// first `tag_len` bytes).
    fn finish(mut self, out: &mut [u8; MAX_BLOCK]) {
        let n = self.n;
        let len = self.buf_len;
        // The last block: XORed with K1 when whole, else padded with 10...0 and XORed with K2.
        let subkey = if len == n {
            &self.k1
        } else {
            self.buf[len] = 0x80;
            self.buf[len + 1..n].fill(0);
            &self.k2
        };
        xor_in_place(&mut self.state[..n], &self.buf[..n]);
        xor_in_place(&mut self.state[..n], &subkey[..n]);
        self.cipher.encrypt_blocks(&mut self.state[..n]);
        out[..n].copy_from_slice(&self.state[..n]);
    }

    /// Finishes and compares with `tag` in constant time: [`Error::AuthenticationFailed`] on mismatch.
    pub fn verify(self, tag: &[u8]) -> Result<()> {
        let expected = self.finalize();
        if ct_eq(&expected, tag) {
            Ok(())
        } else {
            Err(Error::AuthenticationFailed)
        }
    }
}

impl<C: BlockCipher> Drop for Omac<C> {
    fn drop(&mut self) {
        wipe(&mut self.k1);
        wipe(&mut self.k2);
        wipe(&mut self.state);
        wipe(&mut self.buf);
    }
}

/// One-shot OMAC of `msg` with tag length `tag_len` (`1..=n` bytes).
pub fn omac<C: BlockCipher + ?Sized>(c: &C, tag_len: usize, msg: &[u8]) -> Result<Vec<u8>> {
    check_tag_len(c.block_size(), tag_len)?;
    let mut tag = [0u8; MAX_BLOCK];
    omac_into(c, msg, &mut tag[..tag_len])?;
    Ok(tag[..tag_len].to_vec())
}

/// One-shot OMAC of `msg` written into `tag`, whose length is the tag length (`1..=n` bytes): the
/// allocation-free form of [`omac`].
pub fn omac_into<C: BlockCipher + ?Sized>(c: &C, msg: &[u8], tag: &mut [u8]) -> Result<()> {
    let n = c.block_size();
    check_tag_len(n, tag.len())?;
    if let Some(r) = c
        .zero_block_image()
        .filter(|r| r.len() == n && n <= MAX_BLOCK)
    {
        return omac_from_r(c, r, msg, tag);
    }
    // A first block that is not the last one goes into the subkey's batch call (see `Omac::start`).
    let first = if msg.len() > n { &msg[..n] } else { &[] };
    let mut mac = Omac::start(c, tag.len(), first)?;
    mac.update(&msg[first.len()..]);
    mac.finalize_into(tag)
}

/// [`omac_into`] for a cipher that kept `R = E(0^n)` from key setup: the blocks before the last go
/// through one CBC-MAC chain (the backend's kernel where it has one), and only the one subkey the
/// last block needs is derived, in a stack block wiped with the chaining value at the end.
/// `tag.len()` is checked by the caller.
fn omac_from_r<C: BlockCipher + ?Sized>(c: &C, r: &[u8], msg: &[u8], tag: &mut [u8]) -> Result<()> {
    let n = r.len();
    let constant = reduction_constant(n)?;
    // The last block (whole unless the message is empty or ends in a partial block).
    let last_len = if msg.is_empty() {
        0
    } else {
        (msg.len() - 1) % n + 1
    };
    let (body, last) = msg.split_at(msg.len() - last_len);
    let mut state = [0u8; MAX_BLOCK];
    let state_n = &mut state[..n];
    // A one-block message has no body: no chain call at all.
    if !body.is_empty() && !c.feedback_chain(state_n, Chain::CbcMac(body)) {
        for block in body.chunks_exact(n) {
            xor_in_place(state_n, block);
            c.encrypt_blocks(state_n);
        }
    }
    // K1 = R * x for a whole last block; K2 = R * x^2 when it is padded with 10...0.
    let mut subkey = [0u8; MAX_BLOCK];
    let k = &mut subkey[..n];
    k.copy_from_slice(r);
    double(k, constant);
    if last_len < n {
        double(k, constant);
        state_n[last_len] ^= 0x80;
    }
    xor_in_place(state_n, last);
    xor_in_place(state_n, k);
    c.encrypt_blocks(state_n);
    tag.copy_from_slice(&state_n[..tag.len()]);
    wipe(&mut subkey);
    wipe(&mut state);
    Ok(())
}

/// The OMAC subkeys of a keyed 128-bit block cipher, derived once: `K1 = R * x` and
/// `K2 = R * x^2`. A MAC keyed once and used for many messages then spends nothing per message on
/// the subkeys (a one-block tag is one XOR and one encipherment). Key material: wiped on drop.
#[derive(Zeroize, ZeroizeOnDrop)]
pub(crate) struct Subkeys128 {
    k1: [u8; 16],
    k2: [u8; 16],
}

impl Subkeys128 {
    /// The subkeys of `c`; `None` unless its blocks are 16 bytes.
    pub(crate) fn new<C: BlockCipher + ?Sized>(c: &C) -> Option<Subkeys128> {
        if c.block_size() != 16 {
            return None;
        }
        let mut r = [0u8; 16];
        match c.zero_block_image() {
            Some(image) if image.len() == 16 => r.copy_from_slice(image),
            _ => c.encrypt_blocks(&mut r),
        }
        let (mut k1, mut k2) = derive_subkeys(&r, 0x87);
        // Copies: the stack blocks are wiped below.
        let keys = Subkeys128 { k1, k2 };
        wipe(&mut r);
        wipe(&mut k1);
        wipe(&mut k2);
        Some(keys)
    }

    /// [`omac_into`] for `c`, the cipher these subkeys were derived from. A one-block message is
    /// one XOR with `K1` and one encipherment; longer ones go through [`Subkeys128::absorb`]. The
    /// stack block holding the chaining value is wiped.
    #[inline]
    pub(crate) fn tag_into<C: BlockCipher + ?Sized>(
        &self,
        c: &C,
        msg: &[u8],
        tag: &mut [u8],
    ) -> Result<()> {
        check_tag_len(16, tag.len())?;
        let mut state = [0u8; 16];
        match <&[u8; 16]>::try_from(msg) {
            Ok(block) => {
                state = *block;
                xor_block(&mut state, &self.k1);
            }
            Err(_) => self.absorb(c, msg, &mut state),
        }
        c.encrypt_blocks(&mut state);
        match <&mut [u8; 16]>::try_from(&mut *tag) {
            Ok(whole) => *whole = state,
            Err(_) => tag.copy_from_slice(&state[..tag.len()]),
        }
        wipe(&mut state);
        Ok(())
    }

    /// `state` (zero on entry) becomes the last block's input to the cipher: the blocks before
    /// the last through one CBC-MAC chain (the backend's kernel where it has one), then the last
    /// block XORed in with its subkey (`K1` when whole, else padded with 10...0 and `K2`).
    #[inline(never)]
    fn absorb<C: BlockCipher + ?Sized>(&self, c: &C, msg: &[u8], state: &mut [u8; 16]) {
        // The last block (whole unless the message is empty or ends in a partial block).
        let last_len = if msg.is_empty() {
            0
        } else {
            (msg.len() - 1) % 16 + 1
        };
        let (body, last) = msg.split_at(msg.len() - last_len);
        if !body.is_empty() && !c.feedback_chain(state, Chain::CbcMac(body)) {
            for block in body.chunks_exact(16) {
                xor_in_place(state, block);
                c.encrypt_blocks(state);
            }
        }
        let subkey = match <&[u8; 16]>::try_from(last) {
            Ok(last) => {
                xor_block(state, last);
                &self.k1
            }
            Err(_) => {
                xor_in_place(state, last);
                state[last_len] ^= 0x80;
                &self.k2
            }
        };
        xor_block(state, subkey);
    }
}

/// `state ^= block`, written so that it compiles to one 128-bit XOR in a vector register.
#[inline(always)]
fn xor_block(state: &mut [u8; 16], block: &[u8; 16]) {
    for (s, b) in state.iter_mut().zip(block) {
        *s ^= b;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubling_matches_gost_subkeys() {
        // GOST R 34.13-2015 A.2.6: R -> K1 -> K2 for Magma (B_64 = 0x1b).
        let mut k = hex_block("2fa2cd99a1290a12");
        double(&mut k, 0x1b);
        assert_eq!(k, hex_block("5f459b3342521424"));
        double(&mut k, 0x1b);
        assert_eq!(k, hex_block("be8b366684a42848"));
        // A.1.6 for Kuznyechik (B_128 = 0x87): K1 -> K2 crosses the top bit.
        let mut k = hex_block("297d82bc4d39e3ca0de0573298151dc7");
        double(&mut k, 0x87);
        assert_eq!(k, hex_block("52fb05789a73c7941bc0ae65302a3b8e"));
        let mut k = hex_block("94bec15e269cf1e506f02b994c0a8ea0");
        double(&mut k, 0x87);
        assert_eq!(k, hex_block("297d82bc4d39e3ca0de0573298151dc7"));
    }

    fn hex_block(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }
}
