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
//!   field arithmetic of the fold (a few products per part) is [`Fe`], 26-bit limbs,
//!   constant-time.
//!
//! Seal encrypts and hashes each part 4 KiB at a time (the data crosses memory once). Open hashes
//! the parts in parallel, checks the tag in constant time, and only then decrypts the parts in
//! parallel: a rejected message leaves the buffer untouched. The one-time key and the XChaCha20
//! subkey are zeroized after use.

use super::Engine;
use crate::aead::chacha20poly1305::{poly1305_key_gen, ChaCha20Poly1305, XChaCha20Poly1305};
use crate::aead::{Aead, Tag};
use crate::mac::poly1305::Poly1305;
use crate::stream::chacha20::{self, ChaCha20};
use crate::util::ct_eq;
use crate::{Error, Result};
use zeroize::{Zeroize, Zeroizing};

/// ChaCha20's block, the unit its messages are cut at.
const CHACHA_BLOCK: usize = 64;

/// Bytes encrypted and then hashed per step of a sealed part (kept in L1 between the two).
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

    /// [`Aead::seal`] of ChaCha20-Poly1305 with the message split over this engine's threads: the
    /// same ciphertext and tag for any thread count.
    pub fn chacha20poly1305_seal(
        &self,
        aead: &ChaCha20Poly1305,
        nonce: &[u8],
        aad: &[u8],
        data: &mut [u8],
    ) -> Result<Tag> {
        let nonce12 = nonce12(nonce)?;
        match self.keyed(aead.key_bytes(), nonce12, data.len())? {
            Some(k) => self.seal_split(&k, aad, data),
            None => aead.seal(nonce, aad, data),
        }
    }

    /// [`Aead::open`] of ChaCha20-Poly1305 with the message split over this engine's threads. The
    /// tag is checked before anything is decrypted; on any failure `data` is left as it was.
    pub fn chacha20poly1305_open(
        &self,
        aead: &ChaCha20Poly1305,
        nonce: &[u8],
        aad: &[u8],
        data: &mut [u8],
        tag: &[u8],
    ) -> Result<()> {
        let nonce12 = nonce12(nonce)?;
        match self.keyed(aead.key_bytes(), nonce12, data.len())? {
            Some(k) => self.open_split(&k, aad, data, tag),
            None => aead.open(nonce, aad, data, tag),
        }
    }

    /// [`Aead::seal`] of XChaCha20-Poly1305 (24-byte nonce) split over this engine's threads.
    pub fn xchacha20poly1305_seal(
        &self,
        aead: &XChaCha20Poly1305,
        nonce: &[u8],
        aad: &[u8],
        data: &mut [u8],
    ) -> Result<Tag> {
        let (subkey, inner) = chacha20::xchacha_subkey(aead.key_bytes(), nonce)?;
        let subkey = Zeroizing::new(subkey);
        match self.keyed(&subkey, &inner, data.len())? {
            Some(k) => self.seal_split(&k, aad, data),
            None => aead.seal(nonce, aad, data),
        }
    }

    /// [`Aead::open`] of XChaCha20-Poly1305 split over this engine's threads; on any failure
    /// `data` is left as it was.
    pub fn xchacha20poly1305_open(
        &self,
        aead: &XChaCha20Poly1305,
        nonce: &[u8],
        aad: &[u8],
        data: &mut [u8],
        tag: &[u8],
    ) -> Result<()> {
        let (subkey, inner) = chacha20::xchacha_subkey(aead.key_bytes(), nonce)?;
        let subkey = Zeroizing::new(subkey);
        match self.keyed(&subkey, &inner, data.len())? {
            Some(k) => self.open_split(&k, aad, data, tag),
            None => aead.open(nonce, aad, data, tag),
        }
    }

    /// The message key for a split of `len` bytes; `None` when the message is not split (too
    /// small or one thread: the caller then makes the single-thread call).
    fn keyed(&self, key: &[u8; 32], nonce: &[u8; 12], len: usize) -> Result<Option<MessageKey>> {
        if self.cut(len, CHACHA_BLOCK).len() <= 1 {
            return Ok(None);
        }
        if len as u64 > ChaCha20::new(key, nonce, 1)?.remaining_bytes() {
            return Err(TOO_LONG);
        }
        let mut otk = Zeroizing::new(poly1305_key_gen(key, nonce));
        let mut r_key = Zeroizing::new([0u8; 32]);
        r_key[..16].copy_from_slice(&otk[..16]);
        let r = le128(&otk[..16]) & 0x0fff_fffc_0fff_fffc_0fff_fffc_0fff_ffff;
        let s = le128(&otk[16..]);
        otk.zeroize();
        Ok(Some(MessageKey {
            key: Zeroizing::new(*key),
            nonce: *nonce,
            r_key,
            r: Fe::from_parts(r, 0),
            s,
        }))
    }

    fn seal_split(&self, k: &MessageKey, aad: &[u8], data: &mut [u8]) -> Result<Tag> {
        let ranges = self.cut(data.len(), CHACHA_BLOCK);
        let len = data.len();
        let parts = self.split_map(data, &ranges, |offset, part| {
            let mut cipher = ChaCha20::new(&k.key[..], &k.nonce, block_at(1, offset)?)?;
            let mut mac = Poly1305::from_key(&k.r_key);
            for piece in part.chunks_mut(INTERLEAVE_BYTES) {
                cipher.apply_keystream(piece)?;
                mac.update(piece);
            }
            Ok(k.segment(mac, part.len()))
        })?;
        let parts = parts.into_iter().collect::<Result<Vec<_>>>()?;
        let tag = k.tag(aad, len, &parts);
        Tag::from_slice(&tag).ok_or(Error::InvalidTagLength {
            expected: "16",
            got: tag.len(),
        })
    }

    fn open_split(&self, k: &MessageKey, aad: &[u8], data: &mut [u8], tag: &[u8]) -> Result<()> {
        let ranges = self.cut(data.len(), CHACHA_BLOCK);
        let len = data.len();
        let parts = self.split_map(data, &ranges, |_, part| {
            let mut mac = Poly1305::from_key(&k.r_key);
            mac.update(part);
            k.segment(mac, part.len())
        })?;
        let expected = k.tag(aad, len, &parts);
        if !ct_eq(&expected, tag) {
            return Err(Error::AuthenticationFailed);
        }
        let results = self.split_map(data, &ranges, |offset, part| {
            ChaCha20::new(&k.key[..], &k.nonce, block_at(1, offset)?)?.apply_keystream(part)
        })?;
        results.into_iter().collect()
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
struct MessageKey {
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
type Segment = (Fe, u64);

impl MessageKey {
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

/// An element of GF(2^130 - 5) in five 26-bit limbs (a limb may carry a few bits more between
/// operations; every operation keeps the products within `u64`).
#[derive(Clone, Copy)]
struct Fe([u64; 5]);

const MASK26: u64 = (1 << 26) - 1;

impl Fe {
    const ZERO: Fe = Fe([0; 5]);

    /// `low + top * 2^128` (`top < 4`).
    fn from_parts(low: u128, top: u64) -> Fe {
        Fe([
            (low as u64) & MASK26,
            ((low >> 26) as u64) & MASK26,
            ((low >> 52) as u64) & MASK26,
            ((low >> 78) as u64) & MASK26,
            ((low >> 104) as u64) | (top << 24),
        ])
    }

    /// The sum, carried (limbs below 2^26 but the second, below 2^26 + 2^4).
    fn add(&self, o: &Fe) -> Fe {
        let mut d = [0u64; 5];
        for (i, x) in d.iter_mut().enumerate() {
            *x = self.0[i] + o.0[i];
        }
        Fe::carry(d)
    }

    /// The product mod `p`, partially reduced.
    fn mul(&self, o: &Fe) -> Fe {
        let [a0, a1, a2, a3, a4] = self.0;
        let [b0, b1, b2, b3, b4] = o.0;
        let [s1, s2, s3, s4] = [b1 * 5, b2 * 5, b3 * 5, b4 * 5];
        Fe::carry([
            a0 * b0 + a1 * s4 + a2 * s3 + a3 * s2 + a4 * s1,
            a0 * b1 + a1 * b0 + a2 * s4 + a3 * s3 + a4 * s2,
            a0 * b2 + a1 * b1 + a2 * b0 + a3 * s4 + a4 * s3,
            a0 * b3 + a1 * b2 + a2 * b1 + a3 * b0 + a4 * s4,
            a0 * b4 + a1 * b3 + a2 * b2 + a3 * b1 + a4 * b0,
        ])
    }

    /// `self^e` by square and multiply (`e` is a public length, so its bits may steer branches).
    fn pow(&self, e: u64) -> Fe {
        let mut acc = Fe([1, 0, 0, 0, 0]);
        for bit in (0..64 - e.leading_zeros()).rev() {
            acc = acc.mul(&acc);
            if (e >> bit) & 1 == 1 {
                acc = acc.mul(self);
            }
        }
        acc
    }

    /// Carries wide limbs into 26-bit ones, folding the carry out of the top limb back times 5.
    fn carry(mut d: [u64; 5]) -> Fe {
        for i in 0..4 {
            d[i + 1] += d[i] >> 26;
            d[i] &= MASK26;
        }
        d[0] += (d[4] >> 26) * 5;
        d[4] &= MASK26;
        d[1] += d[0] >> 26;
        d[0] &= MASK26;
        Fe(d)
    }

    /// The fully reduced value mod 2^128 (constant-time).
    fn low128(&self) -> u128 {
        let mut out = 0u128;
        for (i, limb) in self.reduced().into_iter().enumerate() {
            out = out.wrapping_add(u128::from(limb) << (26 * i));
        }
        out
    }

    /// The fully reduced value (below `p`) in 26-bit limbs, without branches.
    fn reduced(&self) -> [u64; 5] {
        let mut h = Fe::carry(self.0).0;
        // A second pass: limbs 1..4 below 2^26, then the fold leaves the value below 2^130.
        for i in 1..4 {
            h[i + 1] += h[i] >> 26;
            h[i] &= MASK26;
        }
        h[0] += (h[4] >> 26) * 5;
        h[4] &= MASK26;
        h[1] += h[0] >> 26;
        h[0] &= MASK26;
        // g = h + 5 - 2^130; the carry out of the top limb is 1 exactly when h >= p, and then
        // the result is g.
        let mut g = [0u64; 5];
        let mut c = 5u64;
        for (gi, hi) in g.iter_mut().zip(h) {
            let t = hi + c;
            *gi = t & MASK26;
            c = t >> 26;
        }
        let use_g = c.wrapping_neg();
        let mut out = [0u64; 5];
        for ((o, gi), hi) in out.iter_mut().zip(g).zip(h) {
            *o = (gi & use_g) | (hi & !use_g);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference arithmetic mod p on u128 pairs, by schoolbook bits (slow, independent of [`Fe`]).
    fn slow_mulmod(a: (u128, u64), b: (u128, u64)) -> (u128, u64) {
        // Values below 2^130 as bit vectors; shift-and-add with reduction by 2^130 = 5 mod p.
        let bits = |v: (u128, u64)| -> Vec<bool> {
            (0..130)
                .map(|i| {
                    if i < 128 {
                        (v.0 >> i) & 1 == 1
                    } else {
                        (v.1 >> (i - 128)) & 1 == 1
                    }
                })
                .collect()
        };
        // p = 3 * 2^128 + (2^128 - 5).
        let p_full = (u128::MAX - 4, 3u64);
        let ge = |x: (u128, u64), y: (u128, u64)| x.1 > y.1 || (x.1 == y.1 && x.0 >= y.0);
        let sub = |x: (u128, u64), y: (u128, u64)| {
            let (lo, borrow) = x.0.overflowing_sub(y.0);
            (lo, x.1 - y.1 - u64::from(borrow))
        };
        let add = |x: (u128, u64), y: (u128, u64)| {
            let (lo, carry) = x.0.overflowing_add(y.0);
            let mut s = (lo, x.1 + y.1 + u64::from(carry));
            while ge(s, p_full) {
                s = sub(s, p_full);
            }
            s
        };
        let mut acc = (0u128, 0u64);
        let mut addend = b;
        while ge(addend, p_full) {
            addend = sub(addend, p_full);
        }
        for bit in bits(a) {
            if bit {
                acc = add(acc, addend);
            }
            addend = add(addend, addend);
        }
        acc
    }

    #[test]
    fn field_products_match_the_slow_reference() {
        let mut x = 0x1234_5678_9abc_def0_0fed_cba9_8765_4321u128;
        for round in 0..200u64 {
            x = x
                .wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835)
                .wrapping_add(7);
            let y = x.rotate_left(37) ^ 0x5555;
            let (ta, tb) = (round % 4, (round / 4) % 4);
            let a = Fe::from_parts(x, ta % 3);
            let b = Fe::from_parts(y, tb % 3);
            let expect = slow_mulmod((x, ta % 3), (y, tb % 3));
            assert_eq!(a.mul(&b).low128(), expect.0, "round {round}");
        }
        // p itself reduces to zero, p + 1 to one.
        let p = Fe::from_parts(u128::MAX - 4, 3);
        assert_eq!(p.low128(), 0);
        assert_eq!(p.add(&Fe([1, 0, 0, 0, 0])).low128(), 1);
        let r = Fe::from_parts(12345, 0);
        assert_eq!(r.pow(3).low128(), 12345u128.pow(3));
        assert_eq!(r.pow(0).low128(), 1);
    }

    #[test]
    fn poly1305_sum_matches_horner_over_the_field() {
        // `finalize_sum` (through whatever vector backend this CPU gives Poly1305) against
        // `h = (h + m_i + 2^128) r mod p` evaluated block by block with `Fe`.
        let mut x = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128;
        let mut next = || {
            x = x
                .wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835)
                .wrapping_add(11);
            x
        };
        let mut tops = [0usize; 4];
        for round in 0..40usize {
            let r = next() & 0x0fff_fffc_0fff_fffc_0fff_fffc_0fff_ffff;
            let mut key = [0u8; 32];
            key[..16].copy_from_slice(&r.to_le_bytes());
            let blocks = 1 + round * 13;
            let msg: Vec<u8> = (0..blocks).flat_map(|_| next().to_le_bytes()).collect();
            let mut mac = Poly1305::from_key(&key);
            mac.update(&msg);
            let (low, top) = mac.finalize_sum();
            let fr = Fe::from_parts(r, 0);
            let mut h = Fe::ZERO;
            for m in msg.chunks_exact(16) {
                h = h.add(&Fe::from_parts(le128(m), 1)).mul(&fr);
            }
            assert_eq!(low, h.low128(), "{blocks} blocks");
            let expected_top = h.reduced()[4] >> 24;
            assert_eq!(top, expected_top, "{blocks} blocks");
            tops[top as usize] += 1;
        }
        assert!(
            tops[1] + tops[2] + tops[3] > 0,
            "the top bits were never exercised"
        );
    }
}
