//! The multi-core engine: one large job of a mode without feedback split over threads, and
//! multi-stream jobs spread over threads, with results byte-identical for any thread count.
//!
//! - ECB and CBC decryption: the data is cut at block (CBC: register) boundaries into one part per
//!   thread; CBC decryption copies the ciphertext block before each part as that part's IV first.
//! - CTR: part `k` starts at the counter block advanced by the number of blocks before it (a
//!   big-endian addition mod `2^n`, as the counter itself wraps); a part takes the backend's fused
//!   one-pass CTR where it has one (AES on 512-bit VAES), else the single-thread mode's batches:
//!   the same code per byte as on one thread.
//! - Multi-stream CBC / CFB ([`crate::mode::multistream`]): the streams are divided into contiguous
//!   groups of about equal bytes, one per thread; each group still runs its streams in lockstep
//!   through `encrypt_lanes`, so fewer streams per group means narrower lanes.
//! - AES-GCM and MGM ([`Engine::gcm_seal`], [`Engine::gcm_open`], [`Engine::mgm_seal`],
//!   [`Engine::mgm_open`], in `engine_aead.rs`): parts of whole blocks; each part runs CTR from its
//!   own counter and returns its hash's partial sum, and the sums are combined on the calling
//!   thread — GHASH sums by powers of `H` (`Y = Y H^(c_k) ^ S_k`), MGM's unreduced sums by adding
//!   them, its counters jumped ahead by adding to their halves as `incr_r` / `incr_l` define. Open
//!   hashes the parts in parallel, checks the tag in constant time, and only then decrypts the
//!   parts in parallel, so a rejected message leaves the buffer untouched.
//! - Not split: OFB (its key stream is a serial chain), CBC encryption and CFB of one stream
//!   (feedback), and ChaCha20-Poly1305 (its Poly1305 parts would combine by powers of `r` the same
//!   way; not built).
//!
//! Jobs smaller than [`Engine::min_parallel`] bytes (default [`DEFAULT_MIN_PARALLEL`]) run on the
//! calling thread; larger ones use scoped threads (`std::thread::scope`), the calling thread taking
//! the last part. Every input is validated before any thread starts, so errors do not depend on the
//! thread count either.

#[path = "engine_aead.rs"]
mod aead_split;

use crate::block::BlockCipher;
use crate::mode::ctr::xor_keystream;
use crate::mode::{cbc, multistream};
use crate::{Error, Result};

/// Jobs of at least this many bytes are split over threads (1 MiB).
pub const DEFAULT_MIN_PARALLEL: usize = 1 << 20;

/// A thread count and a size threshold; cheap to create and to copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Engine {
    threads: usize,
    min_parallel: usize,
}

impl Engine {
    /// An engine using `threads` threads; 0 means every core (`std::thread::available_parallelism`,
    /// 1 if unknown).
    pub fn new(threads: usize) -> Engine {
        let threads = if threads == 0 {
            std::thread::available_parallelism().map_or(1, usize::from)
        } else {
            threads
        };
        Engine {
            threads,
            min_parallel: DEFAULT_MIN_PARALLEL,
        }
    }

    /// The same engine splitting only jobs of at least `bytes` bytes (0 or 1: every job).
    pub fn with_min_parallel(self, bytes: usize) -> Engine {
        Engine {
            min_parallel: bytes,
            ..self
        }
    }

    /// Threads this engine uses for a large job.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The size from which jobs are split.
    pub fn min_parallel(&self) -> usize {
        self.min_parallel
    }

    /// Number of parts for a job of `bytes` bytes made of `units` indivisible units.
    fn parts(&self, bytes: usize, units: usize) -> usize {
        if bytes < self.min_parallel.max(1) || units == 0 {
            1
        } else {
            self.threads.min(units).max(1)
        }
    }

    /// Cuts `data` into `parts` pieces of whole `unit`s (sizes differ by at most one unit) and runs
    /// `work(offset, piece)` on each, in parallel; the calling thread takes the last piece.
    fn split<F>(data: &mut [u8], unit: usize, parts: usize, work: F)
    where
        F: Fn(usize, &mut [u8]) + Sync,
    {
        Engine::split_map(data, unit, parts, work);
    }

    /// [`Engine::split`] collecting each piece's result, in piece order. The last piece may hold
    /// the part of a unit left over.
    fn split_map<R, F>(data: &mut [u8], unit: usize, parts: usize, work: F) -> Vec<R>
    where
        R: Send,
        F: Fn(usize, &mut [u8]) -> R + Sync,
    {
        if parts <= 1 {
            return vec![work(0, data)];
        }
        let units = data.len() / unit;
        let (base, extra) = (units / parts, units % parts);
        std::thread::scope(|scope| {
            let mut rest = data;
            let mut offset = 0;
            let mut handles = Vec::with_capacity(parts - 1);
            let mut last = None;
            for k in 0..parts {
                let len = (base + usize::from(k < extra)) * unit;
                let len = if k == parts - 1 { rest.len() } else { len };
                let (piece, tail) = rest.split_at_mut(len);
                rest = tail;
                let work = &work;
                if k == parts - 1 {
                    last = Some(work(offset, piece));
                } else {
                    handles.push(scope.spawn(move || work(offset, piece)));
                }
                offset += len;
            }
            let mut out: Vec<R> = handles
                .into_iter()
                // A worker panics only if `work` does; pass the panic on as the scope would.
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect();
            out.extend(last);
            out
        })
    }

    /// ECB encryption of `data` (a whole number of blocks) in place.
    pub fn ecb_encrypt<C: BlockCipher + ?Sized>(&self, c: &C, data: &mut [u8]) -> Result<()> {
        let n = check_aligned(c.block_size(), data.len())?;
        let parts = self.parts(data.len(), data.len() / n);
        Engine::split(data, n, parts, |_, piece| c.encrypt_blocks(piece));
        Ok(())
    }

    /// ECB decryption of `data` (a whole number of blocks) in place.
    pub fn ecb_decrypt<C: BlockCipher + ?Sized>(&self, c: &C, data: &mut [u8]) -> Result<()> {
        let n = check_aligned(c.block_size(), data.len())?;
        let parts = self.parts(data.len(), data.len() / n);
        Engine::split(data, n, parts, |_, piece| c.decrypt_blocks(piece));
        Ok(())
    }

    /// CBC decryption in place, with the register `iv` of `z * n` bytes exactly as
    /// [`crate::mode::cbc::decrypt`] (whose errors it returns).
    pub fn cbc_decrypt<C: BlockCipher + ?Sized>(
        &self,
        c: &C,
        iv: &[u8],
        data: &mut [u8],
    ) -> Result<()> {
        let n = c.block_size();
        // Validation (and the whole job when it is not split) by the single-thread mode.
        let m = iv.len();
        if n == 0 || m == 0 || !m.is_multiple_of(n) || !data.len().is_multiple_of(n) {
            return cbc::decrypt(c, iv, data);
        }
        let units = data.len() / m;
        let parts = self.parts(data.len(), units);
        if parts <= 1 {
            return cbc::decrypt(c, iv, data);
        }
        // Each part's register is the ciphertext just before it: copy them all before any
        // part is decrypted in place. Parts are whole registers except the last, as in `split`.
        let (base, extra) = (units / parts, units % parts);
        let mut registers = Vec::with_capacity(parts);
        let mut start = 0;
        for k in 0..parts {
            registers.push(if k == 0 {
                iv.to_vec()
            } else {
                data[start - m..start].to_vec()
            });
            start += (base + usize::from(k < extra)) * m;
        }
        Engine::split(data, m, parts, |offset, piece| {
            let k = part_index(offset / m, base, extra);
            // Cannot fail: the register length and every piece's alignment were checked above.
            let _ = cbc::decrypt(c, &registers[k], piece);
        });
        Ok(())
    }

    /// XORs the CTR key stream starting at `counter_block` (`n` bytes, incremented as a big-endian
    /// integer over all `n` bytes) into `data` (any length) — the same as
    /// [`crate::mode::ctr::apply`].
    pub fn ctr_apply<C: BlockCipher + ?Sized>(
        &self,
        c: &C,
        counter_block: &[u8],
        data: &mut [u8],
    ) -> Result<()> {
        let n = c.block_size();
        if n == 0 || n > 16 || !n.is_multiple_of(2) || counter_block.len() != n {
            // The single-thread mode returns the matching error.
            return crate::mode::ctr::apply(c, counter_block, &mut []);
        }
        let parts = self.parts(data.len(), data.len().div_ceil(n));
        Engine::split(data, n, parts, |offset, piece| {
            let mut counter = [0u8; 16];
            counter[..n].copy_from_slice(counter_block);
            add_be(&mut counter[..n], (offset / n) as u64);
            ctr_part(c, &mut counter[..n], piece);
        });
        Ok(())
    }

    /// [`multistream::cbc_encrypt`] with the streams spread over threads.
    pub fn multistream_cbc_encrypt<C: BlockCipher>(
        &self,
        ciphers: &[&C],
        ivs: &[&[u8]],
        data: &mut [&mut [u8]],
    ) -> Result<()> {
        self.multistream(ciphers, ivs, data, true, multistream::cbc_encrypt)
    }

    /// [`multistream::cbc_decrypt`] with the streams spread over threads.
    pub fn multistream_cbc_decrypt<C: BlockCipher>(
        &self,
        ciphers: &[&C],
        ivs: &[&[u8]],
        data: &mut [&mut [u8]],
    ) -> Result<()> {
        self.multistream(ciphers, ivs, data, true, multistream::cbc_decrypt)
    }

    /// [`multistream::cfb_encrypt`] (full-block segments) with the streams spread over threads.
    pub fn multistream_cfb_encrypt<C: BlockCipher>(
        &self,
        ciphers: &[&C],
        ivs: &[&[u8]],
        data: &mut [&mut [u8]],
    ) -> Result<()> {
        self.multistream(ciphers, ivs, data, false, multistream::cfb_encrypt)
    }

    /// [`multistream::cfb_decrypt`] (full-block segments) with the streams spread over threads.
    pub fn multistream_cfb_decrypt<C: BlockCipher>(
        &self,
        ciphers: &[&C],
        ivs: &[&[u8]],
        data: &mut [&mut [u8]],
    ) -> Result<()> {
        self.multistream(ciphers, ivs, data, false, multistream::cfb_decrypt)
    }

    fn multistream<C: BlockCipher>(
        &self,
        ciphers: &[&C],
        ivs: &[&[u8]],
        data: &mut [&mut [u8]],
        whole_blocks: bool,
        run: MultistreamFn<C>,
    ) -> Result<()> {
        let total: usize = data.iter().map(|d| d.len()).sum();
        let parts = self.parts(total, data.len());
        if parts <= 1 {
            return run(ciphers, ivs, data);
        }
        check_streams(ciphers, ivs, data, whole_blocks)?;
        // Contiguous groups of streams, cut where the running byte count passes k * total / parts.
        let mut bounds = vec![0usize];
        let mut sum = 0;
        for (i, d) in data.iter().enumerate() {
            sum += d.len();
            let k = bounds.len();
            if k < parts && sum * parts >= total * k && i + 1 < data.len() {
                bounds.push(i + 1);
            }
        }
        bounds.push(data.len());
        let results: Vec<Result<()>> = std::thread::scope(|scope| {
            let mut rest = data;
            let mut handles = Vec::new();
            for w in bounds.windows(2) {
                let (group, tail) = rest.split_at_mut(w[1] - w[0]);
                rest = tail;
                let (c, v) = (&ciphers[w[0]..w[1]], &ivs[w[0]..w[1]]);
                handles.push(scope.spawn(move || run(c, v, group)));
            }
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or(Err(Error::InvalidParameter("worker failed")))
                })
                .collect()
        });
        results.into_iter().collect()
    }
}

/// A single-thread multi-stream mode of [`crate::mode::multistream`].
type MultistreamFn<C> = fn(&[&C], &[&[u8]], &mut [&mut [u8]]) -> Result<()>;

/// Index of the part that starts at register `unit`, for parts of `base + 1` units (the first
/// `extra`) then `base` units.
fn part_index(unit: usize, base: usize, extra: usize) -> usize {
    let big = extra * (base + 1);
    if unit < big {
        unit / (base + 1)
    } else {
        extra + (unit - big) / base.max(1)
    }
}

fn check_aligned(n: usize, len: usize) -> Result<usize> {
    if n == 0 || !len.is_multiple_of(n) {
        return Err(Error::NotBlockAligned { block: n, got: len });
    }
    Ok(n)
}

/// The checks [`multistream`] makes, done once before the streams are divided.
fn check_streams<C: BlockCipher>(
    ciphers: &[&C],
    ivs: &[&[u8]],
    data: &[&mut [u8]],
    whole_blocks: bool,
) -> Result<()> {
    if ciphers.len() != data.len() || ivs.len() != data.len() {
        return Err(Error::InvalidParameter(
            "multistream: one cipher per stream (and one IV per stream) is required",
        ));
    }
    let n = ciphers.first().map_or(16, |c| c.block_size());
    if n == 0 || n > 16 || ciphers.iter().any(|c| c.block_size() != n) {
        return Err(Error::InvalidParameter(
            "multistream: all ciphers must have the same block size of at most 16 bytes",
        ));
    }
    if let Some(iv) = ivs.iter().find(|iv| iv.len() != n) {
        return Err(Error::InvalidIvLength {
            expected: "the block size",
            got: iv.len(),
        });
    }
    if whole_blocks {
        if let Some(d) = data.iter().find(|d| !d.len().is_multiple_of(n)) {
            return Err(Error::NotBlockAligned {
                block: n,
                got: d.len(),
            });
        }
    }
    Ok(())
}

/// Adds `k` to the big-endian integer `block`, mod `2^(8 * block.len())`.
fn add_be(block: &mut [u8], k: u64) {
    let mut carry = u128::from(k);
    for b in block.iter_mut().rev() {
        if carry == 0 {
            break;
        }
        let sum = u128::from(*b) + (carry & 0xff);
        *b = sum as u8;
        carry = (carry >> 8) + (sum >> 8);
    }
}

/// CTR over one part: exactly the single-thread mode's code (the backend's fused one-pass path
/// where it has one, else its batches of key stream), so that a part costs what the same bytes cost
/// on one thread.
fn ctr_part<C: BlockCipher + ?Sized>(c: &C, counter: &mut [u8], data: &mut [u8]) {
    xor_keystream(c, counter, data);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mode::ctr::increment_be;

    #[test]
    fn add_be_carries_and_wraps() {
        let mut b = [0x00, 0xff, 0xff];
        add_be(&mut b, 1);
        assert_eq!(b, [0x01, 0x00, 0x00]);
        let mut b = [0xff; 4];
        add_be(&mut b, 2);
        assert_eq!(b, [0, 0, 0, 1]);
        let mut b = [0u8; 16];
        add_be(&mut b, 0x0102_0304_0506_0708);
        assert_eq!(&b[8..], &[1, 2, 3, 4, 5, 6, 7, 8]);
        let mut b = [0xffu8; 16];
        add_be(&mut b, u64::MAX);
        // (2^128 - 1) + (2^64 - 1) = 2^64 - 2 mod 2^128.
        let mut expect = [0u8; 16];
        expect[8..].copy_from_slice(&(u64::MAX - 1).to_be_bytes());
        assert_eq!(b, expect);
    }

    #[test]
    fn add_be_equals_repeated_increment() {
        for k in [0u64, 1, 255, 256, 257, 70_000] {
            let mut a = [0xfe, 0xff, 0xfe, 0xf0];
            let mut b = a;
            add_be(&mut a, k);
            for _ in 0..k {
                increment_be(&mut b);
            }
            assert_eq!(a, b, "k = {k}");
        }
    }

    #[test]
    fn part_index_matches_the_split() {
        for parts in 1..6 {
            for units in parts..40 {
                let (base, extra) = (units / parts, units % parts);
                let mut start = 0;
                for k in 0..parts {
                    assert_eq!(part_index(start, base, extra), k);
                    start += base + usize::from(k < extra);
                }
            }
        }
    }
}
