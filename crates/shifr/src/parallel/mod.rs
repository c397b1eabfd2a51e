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
//! - AEADs ([`Engine::seal`], [`Engine::open`], in `aead.rs`, over the [`ParallelAead`] steps
//!   of AES-GCM, MGM and (X)ChaCha20-Poly1305): parts of whole blocks; each part runs CTR (or
//!   ChaCha20) from its own counter and returns its hash's partial sum, and the sums are combined
//!   on the calling thread — GHASH sums by powers of `H` (`Y = Y H^(c_k) ^ S_k`), MGM's unreduced
//!   sums by adding them, Poly1305 sums by powers of `r` (`chacha.rs`). Open hashes the parts in
//!   parallel, checks the tag in constant time, and only then decrypts the parts in parallel, so a
//!   rejected message leaves the buffer untouched.
//! - ChaCha20 ([`Engine::chacha20_apply`], in `chacha.rs`): parts start at their block counter.
//! - Not split: OFB (its key stream is a serial chain), CBC encryption and CFB of one stream
//!   (feedback).
//!
//! Jobs smaller than [`Engine::min_parallel`] bytes (default [`DEFAULT_MIN_PARALLEL`]) run on the
//! calling thread. Larger ones are cut into parts (between `threads` and `16 * threads`, at least
//! 32 KiB each where the job allows, at block boundaries and at multiples of 64 bytes) and run on a
//! persistent worker pool (`parallel/pool.rs`: `threads - 1` parked workers from one process-wide
//! pool, plus the calling thread); the threads take parts from a shared counter, so they finish
//! within about one part of each other whatever their start and speed. A panic in a part becomes
//! [`Error::Internal`]. Every input is validated before any part starts, so errors do not depend on
//! the thread count either.

mod aead;
mod chacha;
mod pool;

pub use aead::ParallelAead;

use crate::block::BlockCipher;
use crate::mode::ctr::xor_keystream;
use crate::mode::{cbc, multistream};
use crate::{Error, Result};
use pool::Pool;
use std::ops::Range;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// Jobs of at least this many bytes are split over threads (1 MiB).
pub const DEFAULT_MIN_PARALLEL: usize = 1 << 20;

/// Parts per thread a large job is cut into at most: enough that the threads finish within a small
/// fraction of the job of each other however their start and speed differ.
const PARTS_PER_THREAD: usize = 16;

/// Parts are no smaller than this (when the job is large enough for one per thread), so that a
/// part's fixed cost (a counter jump, a hash sum to combine, a claim on the shared counter) stays
/// negligible.
const MIN_PART_BYTES: usize = 32 << 10;

/// Part boundaries fall on multiples of this many bytes (and of the job's unit) when the job is
/// large enough: no two threads write the same cache line.
const CACHE_LINE: usize = 64;

/// A thread count and a size threshold, and (once a job is split) a handle on the shared worker
/// pool. Cheap to create and to clone; clones share the pool.
#[derive(Debug, Clone)]
pub struct Engine {
    threads: usize,
    min_parallel: usize,
    pool: OnceLock<Arc<Pool>>,
}

impl PartialEq for Engine {
    fn eq(&self, other: &Engine) -> bool {
        (self.threads, self.min_parallel) == (other.threads, other.min_parallel)
    }
}

impl Eq for Engine {}

/// The process-wide pool, grown (replaced by a larger one) when an engine needs more workers than
/// it has; engines holding the old pool keep it until they are dropped, which joins its workers.
fn shared_pool(workers: usize) -> Arc<Pool> {
    static SHARED: Mutex<Option<Arc<Pool>>> = Mutex::new(None);
    let mut shared = SHARED.lock().unwrap_or_else(PoisonError::into_inner);
    match &*shared {
        Some(p) if p.workers() >= workers => Arc::clone(p),
        _ => {
            let p = Arc::new(Pool::new(workers));
            *shared = Some(Arc::clone(&p));
            p
        }
    }
}

/// The error a panic inside a part becomes (a bug; the job's output is then incomplete).
const WORKER_PANICKED: Error = Error::Internal("engine: a part of the job panicked");

impl Engine {
    /// An engine using `threads` threads; 0 means every core (`std::thread::available_parallelism`,
    /// 1 if unknown). Its worker threads (`threads - 1` of them, from a pool shared by all engines
    /// of the process) are started by the first job it splits and parked between jobs.
    pub fn new(threads: usize) -> Engine {
        let threads = if threads == 0 {
            std::thread::available_parallelism().map_or(1, usize::from)
        } else {
            threads
        };
        Engine {
            threads,
            min_parallel: DEFAULT_MIN_PARALLEL,
            pool: OnceLock::new(),
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

    /// Whether a job of `bytes` bytes is split at all.
    fn splits(&self, bytes: usize) -> bool {
        self.threads > 1 && bytes >= self.min_parallel.max(1)
    }

    /// The byte ranges a job of `len` bytes is cut into, each a whole number of `unit`s except the
    /// last, which takes what is left (a partial unit included). One range when the job is not
    /// split. Otherwise between `threads` and `threads * PARTS_PER_THREAD` ranges of at least
    /// `MIN_PART_BYTES` where the job allows, cut at multiples of 64 bytes where it has enough of
    /// them; sizes differ by at most one granule.
    fn cut(&self, len: usize, unit: usize) -> Vec<Range<usize>> {
        let unit = unit.max(1);
        if !self.splits(len) || len / unit < 2 {
            return std::iter::once(0..len).collect();
        }
        let line = lcm(unit, CACHE_LINE);
        let granule = if len / line >= self.threads {
            line
        } else {
            unit
        };
        let granules = len / granule;
        let parts = (len / MIN_PART_BYTES)
            .clamp(self.threads, self.threads * PARTS_PER_THREAD)
            .min(granules);
        let (base, extra) = (granules / parts, granules % parts);
        let mut ranges = Vec::with_capacity(parts);
        let mut start = 0;
        for k in 0..parts {
            let end = if k + 1 == parts {
                len
            } else {
                start + (base + usize::from(k < extra)) * granule
            };
            ranges.push(start..end);
            start = end;
        }
        ranges
    }

    /// Runs `task(k)` for each `k` in `0..parts` on this engine's threads (the calling thread
    /// takes parts too) and returns when all have finished.
    fn run(&self, parts: usize, task: &pool::Task<'_>) -> Result<()> {
        if parts <= 1 || self.threads <= 1 {
            return pool::run_alone(parts, task).map_err(|_| WORKER_PANICKED);
        }
        let pool = self.pool.get_or_init(|| shared_pool(self.threads - 1));
        pool.run(self.threads - 1, parts, task)
            .map_err(|_| WORKER_PANICKED)
    }

    /// Cuts `data` into `ranges` and runs `work(offset, piece)` on each on this engine's threads,
    /// collecting each piece's result in piece order.
    fn split_map<R, F>(&self, data: &mut [u8], ranges: &[Range<usize>], work: F) -> Result<Vec<R>>
    where
        R: Send,
        F: Fn(usize, &mut [u8]) -> R + Sync,
    {
        if ranges.len() <= 1 {
            return Ok(vec![work(0, data)]);
        }
        let mut pieces = Vec::with_capacity(ranges.len());
        let mut rest = data;
        for r in ranges {
            let (piece, tail) = rest.split_at_mut(r.len());
            pieces.push(Mutex::new(Some((r.start, piece))));
            rest = tail;
        }
        let results: Vec<Mutex<Option<R>>> = ranges.iter().map(|_| Mutex::new(None)).collect();
        self.run(ranges.len(), &|k| {
            let taken = pieces[k]
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            if let Some((offset, piece)) = taken {
                let r = work(offset, piece);
                *results[k].lock().unwrap_or_else(PoisonError::into_inner) = Some(r);
            }
        })?;
        results
            .into_iter()
            .map(|r| {
                r.into_inner()
                    .unwrap_or_else(PoisonError::into_inner)
                    .ok_or(WORKER_PANICKED)
            })
            .collect()
    }

    /// [`Engine::split_map`] for work without a result.
    fn split<F>(&self, data: &mut [u8], ranges: &[Range<usize>], work: F) -> Result<()>
    where
        F: Fn(usize, &mut [u8]) + Sync,
    {
        self.split_map(data, ranges, work).map(|_| ())
    }

    /// ECB encryption of `data` (a whole number of blocks) in place.
    pub fn ecb_encrypt<C: BlockCipher + ?Sized>(&self, c: &C, data: &mut [u8]) -> Result<()> {
        let n = check_aligned(c.block_size(), data.len())?;
        let ranges = self.cut(data.len(), n);
        self.split(data, &ranges, |_, piece| c.encrypt_blocks(piece))
    }

    /// ECB decryption of `data` (a whole number of blocks) in place.
    pub fn ecb_decrypt<C: BlockCipher + ?Sized>(&self, c: &C, data: &mut [u8]) -> Result<()> {
        let n = check_aligned(c.block_size(), data.len())?;
        let ranges = self.cut(data.len(), n);
        self.split(data, &ranges, |_, piece| c.decrypt_blocks(piece))
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
        let ranges = self.cut(data.len(), m);
        if ranges.len() <= 1 {
            return cbc::decrypt(c, iv, data);
        }
        // Each part's register is the ciphertext just before it: copy them all before any part is
        // decrypted in place. Every part but the last is a whole number of registers.
        let registers: Vec<Vec<u8>> = ranges
            .iter()
            .map(|r| match r.start {
                0 => iv.to_vec(),
                s => data[s - m..s].to_vec(),
            })
            .collect();
        let starts: Vec<usize> = ranges.iter().map(|r| r.start).collect();
        self.split(data, &ranges, |offset, piece| {
            let k = starts.partition_point(|&s| s < offset);
            // Cannot fail: the register length and every piece's alignment were checked above.
            let _ = cbc::decrypt(c, &registers[k], piece);
        })
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
        let ranges = self.cut(data.len(), n);
        self.split(data, &ranges, |offset, piece| {
            let mut counter = [0u8; 16];
            counter[..n].copy_from_slice(counter_block);
            add_be(&mut counter[..n], (offset / n) as u64);
            ctr_part(c, &mut counter[..n], piece);
        })
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
        let parts = if self.splits(total) {
            self.threads.min(data.len())
        } else {
            1
        };
        if parts <= 1 {
            return run(ciphers, ivs, data);
        }
        check_streams(ciphers, ivs, data, whole_blocks)?;
        // Contiguous groups of streams, cut where the running byte count passes k * total / parts:
        // as few groups as threads, since each group runs its streams in lockstep lanes.
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
        let mut groups = Vec::with_capacity(bounds.len() - 1);
        let mut rest = data;
        for w in bounds.windows(2) {
            let (group, tail) = rest.split_at_mut(w[1] - w[0]);
            rest = tail;
            groups.push(Mutex::new(Some((w[0]..w[1], group))));
        }
        let results: Vec<Mutex<Result<()>>> = groups
            .iter()
            .map(|_| Mutex::new(Err(WORKER_PANICKED)))
            .collect();
        self.run(groups.len(), &|k| {
            let taken = groups[k]
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            if let Some((r, group)) = taken {
                let out = run(&ciphers[r.clone()], &ivs[r], group);
                *results[k].lock().unwrap_or_else(PoisonError::into_inner) = out;
            }
        })?;
        results
            .into_iter()
            .try_for_each(|r| r.into_inner().unwrap_or_else(PoisonError::into_inner))
    }
}

/// A single-thread multi-stream mode of [`crate::mode::multistream`].
type MultistreamFn<C> = fn(&[&C], &[&[u8]], &mut [&mut [u8]]) -> Result<()>;

/// Least common multiple (of small positive sizes).
fn lcm(a: usize, b: usize) -> usize {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    a / x * b
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
    fn cuts_cover_the_job_in_aligned_parts() {
        for threads in 1..6 {
            let e = Engine::new(threads).with_min_parallel(1);
            for unit in [1usize, 8, 16, 24, 48, 64] {
                for len in [
                    0usize,
                    1,
                    15,
                    64,
                    100,
                    1000,
                    4096,
                    70_000,
                    1 << 20,
                    (1 << 20) + 9,
                ] {
                    let ranges = e.cut(len, unit);
                    assert_eq!(ranges.first().map(|r| r.start), Some(0));
                    assert_eq!(ranges.last().map(|r| r.end), Some(len));
                    assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
                    assert!(ranges.len() <= (threads * PARTS_PER_THREAD).max(1));
                    if threads > 1 && len / unit >= 2 {
                        assert!(
                            ranges.len() >= threads.min(len / unit),
                            "{threads} {unit} {len}"
                        );
                    }
                    let body = &ranges[..ranges.len() - 1];
                    assert!(body
                        .iter()
                        .all(|r| r.start % unit == 0 && r.len() % unit == 0));
                    if len / lcm(unit, 64) >= threads {
                        assert!(
                            body.iter().all(|r| r.len() % 64 == 0),
                            "{threads} {unit} {len}"
                        );
                    }
                }
            }
        }
        assert_eq!(
            Engine::new(1).with_min_parallel(1).cut(1 << 20, 16).len(),
            1
        );
        assert_eq!(Engine::new(4).cut(1000, 16).len(), 1);
        assert_eq!(Engine::new(2).cut(8 << 20, 16).len(), 2 * PARTS_PER_THREAD);
    }

    #[test]
    fn lcm_of_block_sizes() {
        assert_eq!(lcm(16, 64), 64);
        assert_eq!(lcm(8, 64), 64);
        assert_eq!(lcm(48, 64), 192);
        assert_eq!(lcm(1, 64), 64);
    }
}
