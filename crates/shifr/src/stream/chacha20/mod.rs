//! ChaCha20 (RFC 8439: 256-bit key, 96-bit nonce, 32-bit block counter) and XChaCha20
//! (draft-irtf-cfrg-xchacha-03: 192-bit nonce through the HChaCha20 subkey).
//!
//! [`ChaCha20`] is a streaming cipher: `apply_keystream` may be called with any split of the input
//! and gives the same output as one call over the whole input. Key stream is produced sixteen
//! blocks at a time (see `kernel.rs`); unused bytes of a batch are kept for the next call. The block
//! counter never wraps: a call that would need a block past counter 2^32 - 1 fails with
//! [`Error::LengthLimit`] and changes nothing.
//!
//! Implementations (`kernel.rs`): AVX-512 (16 blocks per call; fills of at most eight blocks by
//! the 4/8-block short kernel, `x86_avx512_short.rs`; calls of 256 to 1023 bytes XORed in place by
//! the same form, `x86_avx512_narrow.rs`) or AVX2 (8 blocks) when the CPU has it,
//! else SSE2 (x86-64 baseline, 4 blocks), NEON on AArch64 (4 blocks, `aarch64_neon.rs`), else
//! portable Rust (4 blocks per call, `soft.rs`);
//! `SHIFR_BACKEND=portable` forces the portable one. All are tested against each other.
//!
//! ChaCha20 is constant-time by construction (additions, XORs and fixed rotations only).
//!
//! The free functions ([`qr`], [`quarter_round`], [`setup_state`], [`rounds`], [`block`],
//! [`hchacha20`]) expose the RFC's intermediate values for the known-answer tests.

#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
mod aarch64_neon;
pub mod algorithm;
mod kernel;
mod soft;
#[cfg(target_arch = "x86_64")]
mod x86_avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_avx512;
#[cfg(target_arch = "x86_64")]
mod x86_avx512_narrow;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_avx512_short;
#[cfg(target_arch = "x86_64")]
mod x86_sse2;

use crate::wipe::wipe;
use crate::{Error, Result};
use kernel::{Kernel, Prepared, BATCH_BLOCKS, BATCH_BYTES};
use soft::CONSTANTS;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Number of 32-bit block counter values: the key stream of one (key, nonce) has 2^32 blocks.
const COUNTER_SPACE: u64 = 1 << 32;

/// The ChaCha quarter round on four words (RFC 8439 section 2.1): returns the new `(a, b, c, d)`.
pub fn qr(a: u32, b: u32, c: u32, d: u32) -> (u32, u32, u32, u32) {
    soft::quarter(a, b, c, d)
}

/// `QUARTERROUND(a, b, c, d)` on the words of a state (RFC 8439 section 2.2).
///
/// If any index is 16 or more the state is left unchanged (this never panics).
pub fn quarter_round(s: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
    if a < 16 && b < 16 && c < 16 && d < 16 {
        soft::quarter_at(s, a, b, c, d);
    }
}

/// The initial state (RFC 8439 section 2.3): constants, key words, block counter, nonce words.
pub fn setup_state(key: &[u8; 32], counter: u32, nonce: &[u8; 12]) -> [u32; 16] {
    let mut s = [0u32; 16];
    s[..4].copy_from_slice(&CONSTANTS);
    for (w, b) in s[4..12].iter_mut().zip(key.chunks_exact(4)) {
        *w = le_word(b);
    }
    s[12] = counter;
    for (w, b) in s[13..].iter_mut().zip(nonce.chunks_exact(4)) {
        *w = le_word(b);
    }
    s
}

/// The 20 rounds applied to `state`, without adding the input (the RFC's "state after 20 rounds").
pub fn rounds(state: &[u32; 16]) -> [u32; 16] {
    soft::rounds20(state)
}

/// The ChaCha20 block function: the 20 rounds plus the word-wise addition of the input state.
/// Serializing the result little-endian gives 64 bytes of key stream.
pub fn block(state: &[u32; 16]) -> [u32; 16] {
    let mut out = soft::rounds20(state);
    for (o, i) in out.iter_mut().zip(state) {
        *o = o.wrapping_add(*i);
    }
    out
}

/// HChaCha20 (draft-irtf-cfrg-xchacha-03 section 2.2): the 20 rounds over constants, key and a
/// 128-bit nonce in place of counter || nonce, returning words 0..3 and 12..15 little-endian (no
/// addition of the input state).
pub fn hchacha20(key: &[u8; 32], nonce16: &[u8; 16]) -> [u8; 32] {
    let mut s = [0u32; 16];
    s[..4].copy_from_slice(&CONSTANTS);
    for (w, b) in s[4..12].iter_mut().zip(key.chunks_exact(4)) {
        *w = le_word(b);
    }
    for (w, b) in s[12..].iter_mut().zip(nonce16.chunks_exact(4)) {
        *w = le_word(b);
    }
    let mut x = soft::rounds20(&s);
    let mut out = [0u8; 32];
    for (o, w) in out.chunks_exact_mut(4).zip(x[..4].iter().chain(&x[12..])) {
        o.copy_from_slice(&w.to_le_bytes());
    }
    s.zeroize();
    x.zeroize();
    out
}

/// Whether ChaCha20 runs on the AVX-512 kernels on this CPU (its plan, or `SHIFR_BACKEND`, chose
/// them, which `cpu` allows only where AVX-512 F, BW and VL are reported): the gate of the code
/// built on [`x86_avx512_short`] outside this module.
#[cfg(target_arch = "x86_64")]
pub(crate) fn avx512_planned() -> bool {
    Kernel::select() == Kernel::Avx512
}

fn le_word(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// The ChaCha20 stream cipher of RFC 8439 (key 32 bytes, nonce 12 bytes, 32-bit block counter).
///
/// Encryption and decryption are the same call, [`ChaCha20::apply_keystream`]. Key material and
/// buffered key stream are zeroized on drop.
#[derive(Clone)]
pub struct ChaCha20 {
    /// Setup state; word 12 (the counter) is supplied per batch from `next_block`.
    state: [u32; 16],
    /// The kernels' precomputation from `state` (a part of the first round), made once here
    /// rather than in every call.
    prepared: Prepared,
    /// Key stream of the latest batch; bytes `pos..end` are still unused.
    buf: [u8; BATCH_BYTES],
    pos: usize,
    end: usize,
    /// Bytes of `buf` ever written (what a wipe must cover).
    dirty: usize,
    /// Counter of the first block after the buffered batch (up to 2^32 = exhausted).
    next_block: u64,
    /// Key stream implementation (portable, SSE2 or AVX2), fixed at construction.
    kernel: Kernel,
}

impl ChaCha20 {
    /// The backends new ciphers take on this CPU, and why ([`crate::cpu::plan`]).
    pub fn plan() -> crate::cpu::Plan {
        Kernel::plan()
    }

    /// Creates the cipher positioned at the start of block `counter`.
    ///
    /// Errors: [`Error::InvalidKeyLength`] unless `key` is 32 bytes, [`Error::InvalidNonceLength`]
    /// unless `nonce` is 12 bytes.
    pub fn new(key: &[u8], nonce: &[u8], counter: u32) -> Result<ChaCha20> {
        let key: &[u8; 32] = key.try_into().map_err(|_| Error::InvalidKeyLength {
            expected: "32",
            got: key.len(),
        })?;
        let nonce: &[u8; 12] = nonce.try_into().map_err(|_| Error::InvalidNonceLength {
            expected: "12",
            got: nonce.len(),
        })?;
        let state = setup_state(key, counter, nonce);
        Ok(ChaCha20 {
            prepared: Prepared::new(&state),
            state,
            buf: [0u8; BATCH_BYTES],
            pos: 0,
            end: 0,
            dirty: 0,
            next_block: u64::from(counter),
            kernel: Kernel::select(),
        })
    }

    /// XORs the next `data.len()` key stream bytes into `data` (encrypts or decrypts in place).
    ///
    /// Errors: [`Error::LengthLimit`] if that would run past block counter 2^32 - 1; `data` and the
    /// stream position are then unchanged.
    pub fn apply_keystream(&mut self, data: &mut [u8]) -> Result<()> {
        if (data.len() as u64) > self.remaining_bytes() {
            return Err(Error::LengthLimit(
                "ChaCha20 32-bit block counter would wrap (at most 256 GiB per nonce)",
            ));
        }
        let mut rest = data;
        while !rest.is_empty() {
            if self.pos == self.end {
                // A call of 256 bytes up to a batch (AVX-512): the key stream goes straight into
                // its whole blocks; only a partial last block's goes through the buffer. (A whole
                // batch is faster on the sixteen-block kernel below.)
                if rest.len() < BATCH_BYTES {
                    if let Some(computed) = self.kernel.xor_narrow(
                        &self.state,
                        self.next_block as u32,
                        rest,
                        &mut self.buf,
                    ) {
                        let whole = rest.len() / 64;
                        // Blocks past the end of the counter space are computed (wrapped) but
                        // never used; the call's own blocks are all below it (checked above).
                        let blocks =
                            (COUNTER_SPACE - self.next_block).min(computed as u64) as usize;
                        self.dirty = self.dirty.max(computed.saturating_sub(whole) * 64);
                        self.next_block += blocks as u64;
                        self.pos = 0;
                        self.end = blocks.saturating_sub(whole) * 64;
                        let (_, later) = rest.split_at_mut(64 * whole);
                        rest = later;
                        continue;
                    }
                }
                // Whole batches go straight into the data, without the key stream buffer, in
                // one kernel call for the whole run (as many as the counter space still holds).
                let batches = (rest.len() / BATCH_BYTES)
                    .min(((COUNTER_SPACE - self.next_block) / BATCH_BLOCKS as u64) as usize);
                if batches > 0 {
                    let (now, later) = rest.split_at_mut(batches * BATCH_BYTES);
                    // `next_block < 2^32` here, so the cast is exact.
                    self.kernel.xor_batches(
                        &self.prepared,
                        &self.state,
                        self.next_block as u32,
                        now,
                    );
                    self.next_block += (batches * BATCH_BLOCKS) as u64;
                    rest = later;
                    continue;
                }
                self.refill(rest.len());
            }
            let n = rest.len().min(self.end - self.pos);
            let (now, later) = rest.split_at_mut(n);
            crate::util::xor_in_place(now, &self.buf[self.pos..self.pos + n]);
            self.pos += n;
            rest = later;
        }
        Ok(())
    }

    /// Key stream bytes left before the block counter would wrap.
    pub fn remaining_bytes(&self) -> u64 {
        (self.end - self.pos) as u64 + (COUNTER_SPACE - self.next_block) * 64
    }

    /// The key stream implementation in use: `"avx512"`, `"avx2"`, `"sse2"` or `"portable"`.
    pub fn implementation(&self) -> &'static str {
        self.kernel.name()
    }

    /// Computes the next key stream into the buffer: at least the blocks `wanted` bytes need, up
    /// to a batch, as the kernel's narrowest call gives them; only called while blocks remain.
    fn refill(&mut self, wanted: usize) {
        let written = self.kernel.fill_blocks(
            &self.state,
            // `next_block < 2^32` here, so the cast is exact.
            self.next_block as u32,
            &mut self.buf,
            wanted.div_ceil(64),
        );
        // Blocks past the end of the counter space are computed (wrapped) but never used.
        let blocks = (COUNTER_SPACE - self.next_block).min(written as u64);
        self.dirty = self.dirty.max(written * 64);
        self.next_block += blocks;
        self.pos = 0;
        self.end = blocks as usize * 64;
    }
}

/// The first key stream bytes of one (key, nonce) from block counter 0, computed in one kernel
/// call (block 0, the Poly1305 one-time key of ChaCha20-Poly1305, together with the blocks of a
/// short message) into an `N`-byte buffer ([`SHORT_PREFIX`] or [`LONG_PREFIX`]) and wiped on drop
/// as far as they were written.
pub(crate) struct KeystreamPrefix<const N: usize> {
    buf: [u8; N],
    written: usize,
}

/// Bytes of the smaller prefix (the short kernels' widest call).
pub(crate) const SHORT_PREFIX: usize = kernel::SHORT_BYTES;

/// Bytes of the larger prefix (one batch).
pub(crate) const LONG_PREFIX: usize = BATCH_BYTES;

impl<const N: usize> KeystreamPrefix<N> {
    /// Computes at least the first `bytes` (at most `N`) key stream bytes; for an `N` other than
    /// [`SHORT_PREFIX`] and [`LONG_PREFIX`], none.
    pub(crate) fn new(key: &[u8; 32], nonce: &[u8; 12], bytes: usize) -> KeystreamPrefix<N> {
        let mut state = setup_state(key, 0, nonce);
        let mut buf = [0u8; N];
        let kernel = Kernel::select();
        let blocks = bytes.div_ceil(64);
        let written = if let Ok(batch) = <&mut [u8; BATCH_BYTES]>::try_from(&mut buf[..]) {
            kernel.fill_blocks(&state, 0, batch, blocks)
        } else if let Ok(short) = <&mut [u8; SHORT_PREFIX]>::try_from(&mut buf[..]) {
            kernel.fill_short(&state, 0, short, blocks)
        } else {
            0
        };
        state.zeroize();
        KeystreamPrefix {
            buf,
            written: written * 64,
        }
    }

    /// The key stream computed (at least the bytes asked for).
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.buf[..self.written]
    }
}

impl<const N: usize> Drop for KeystreamPrefix<N> {
    fn drop(&mut self) {
        wipe(&mut self.buf[..self.written]);
    }
}

impl Zeroize for ChaCha20 {
    /// Wipes the key (and what the kernels precomputed from it), the counter and the key stream
    /// buffer. The buffer is written only by `refill`, so only the bytes it ever wrote are wiped
    /// (none for a cipher that only ever took whole batches, the common case for large messages),
    /// 16 bytes per store.
    fn zeroize(&mut self) {
        self.state.zeroize();
        self.prepared.zeroize();
        wipe(&mut self.buf[..self.dirty]);
        self.pos = 0;
        self.end = 0;
        self.dirty = 0;
        self.next_block.zeroize();
    }
}

impl Drop for ChaCha20 {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl ZeroizeOnDrop for ChaCha20 {}

/// XChaCha20 (draft-irtf-cfrg-xchacha-03 section 2.3): ChaCha20 keyed with
/// `hchacha20(key, nonce[..16])` and the nonce `0^32 || nonce[16..24]`.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct XChaCha20 {
    inner: ChaCha20,
}

impl XChaCha20 {
    /// Creates the cipher positioned at the start of block `counter`.
    ///
    /// Errors: [`Error::InvalidKeyLength`] unless `key` is 32 bytes, [`Error::InvalidNonceLength`]
    /// unless `nonce` is 24 bytes.
    pub fn new(key: &[u8], nonce: &[u8], counter: u32) -> Result<XChaCha20> {
        let (mut subkey, inner_nonce) = xchacha_subkey(key, nonce)?;
        let inner = ChaCha20::new(&subkey, &inner_nonce, counter);
        subkey.zeroize();
        Ok(XChaCha20 { inner: inner? })
    }

    /// XORs the next `data.len()` key stream bytes into `data`; see [`ChaCha20::apply_keystream`].
    pub fn apply_keystream(&mut self, data: &mut [u8]) -> Result<()> {
        self.inner.apply_keystream(data)
    }

    /// Key stream bytes left before the block counter would wrap.
    pub fn remaining_bytes(&self) -> u64 {
        self.inner.remaining_bytes()
    }

    /// The key stream implementation in use: `"avx512"`, `"avx2"`, `"sse2"` or `"portable"`.
    pub fn implementation(&self) -> &'static str {
        self.inner.implementation()
    }
}

/// Checks an XChaCha20 key and 24-byte nonce and returns the HChaCha20 subkey and the 12-byte
/// ChaCha20 nonce `0^32 || nonce[16..24]`. The caller zeroizes the subkey.
pub(crate) fn xchacha_subkey(key: &[u8], nonce: &[u8]) -> Result<([u8; 32], [u8; 12])> {
    let key: &[u8; 32] = key.try_into().map_err(|_| Error::InvalidKeyLength {
        expected: "32",
        got: key.len(),
    })?;
    let nonce: &[u8; 24] = nonce.try_into().map_err(|_| Error::InvalidNonceLength {
        expected: "24",
        got: nonce.len(),
    })?;
    let mut head = [0u8; 16];
    head.copy_from_slice(&nonce[..16]);
    let mut inner_nonce = [0u8; 12];
    inner_nonce[4..].copy_from_slice(&nonce[16..]);
    Ok((hchacha20(key, &head), inner_nonce))
}

#[cfg(test)]
mod tests;
