//! ChaCha20-Poly1305 (RFC 8439 section 2.8) seal and open of messages up to [`STITCH_MAX`] bytes
//! on AVX-512 (F, BW, VL), with the two halves stitched: the key stream of the next eight blocks
//! is computed in vector registers by the horizontal kernel (`x86_avx512_short.rs`, a serial chain
//! of 20 rounds) while the scalar Poly1305 below absorbs the ciphertext of the blocks before them
//! on the general-purpose registers, so the two chains overlap in the core instead of running one
//! after the other.
//!
//! Block 0 (the one-time key) and the message's first seven blocks come from one call (four blocks
//! if the message has at most three; one group and the half-width two-block chain interleaved if it
//! has four or five; one two-block chain if it has one; on seal, that six-block call if the message
//! needs later calls and its block count is 0 or 1 modulo 4, so the later calls are as many and as
//! wide as after seven); the key stream is XORed straight from the registers into the data, the
//! last partial block with masked loads and stores, so no key stream buffer is written or wiped on
//! seal. Open makes the same calls, absorbing the received ciphertext of each call's own blocks
//! inside the call and decrypting them after it, and compares the tag at the end; on a mismatch it
//! applies the key stream again, so the caller gets its ciphertext back.
//!
//! Poly1305 here works on two 64-bit limbs and a small third (radix 2^64, the layout of OpenSSL's
//! 64-bit `poly1305_blocks`): four 64x64->128-bit products per block, each a `mul`/`mulx`, whose
//! time does not depend on the operands. The final reduction selects with a mask. Constant-time
//! throughout; branches and masks depend only on the (public) lengths.

use crate::stream::chacha20::x86_avx512::{self as wide, Head, BATCH as WIDE_BYTES};
use crate::stream::chacha20::{setup_state, x86_avx512_short as hz};
use core::arch::x86_64::{
    __m128i, __m256i, __m512i, _mm256_add_epi32, _mm256_broadcastsi128_si256,
    _mm256_maskz_set1_epi32, _mm256_set_epi32, _mm256_storeu_si256, _mm512_castsi256_si512,
    _mm512_castsi512_si128, _mm512_castsi512_si256, _mm512_extracti32x4_epi32, _mm512_inserti64x4,
    _mm512_loadu_si512, _mm512_mask_loadu_epi8, _mm512_mask_storeu_epi8, _mm512_setzero_si512,
    _mm512_storeu_si512, _mm512_xor_si512, _mm_bslli_si128, _mm_cvtsi128_si64, _mm_extract_epi64,
    _mm_loadu_si128, _mm_maskz_loadu_epi8, _mm_set_epi32,
};
use zeroize::Zeroize;

/// Longest message (bytes) sealed and opened here.
pub(crate) const STITCH_MAX: usize = 2048;

/// Longest message the AEAD seals with [`seal_long`] and opens with [`open_long`] (which take any
/// length below the 32-bit block counter's limit). Longer messages go in 16 KiB pieces, the
/// sixteen-block key stream ([`PieceStream`]) and the vector Poly1305 one after the other, which
/// wins from about here: the scalar Poly1305's chain of about 13 cycles a block is longer than
/// the kernel's 11, so the two stop overlapping, while the vector Poly1305's per-message key
/// powers (about 130 ns) weigh less and less. Seal crosses over sooner: its last batch's
/// ciphertext is absorbed after the last rounds, with nothing to overlap. Measured on Zen 4
/// against the pieces (`shifr bench --alg chacha20-poly1305 --peers none`, three runs of each
/// build alternating, load 0.2-0.3): seal 2112 B 1.13x, 2560 B 0.99x; open 2112 B 1.19x, 3 KiB
/// 1.02x, 3.5 KiB 1.04x.
pub(crate) const LONG_SEAL_MAX: usize = 2560;
/// See [`LONG_SEAL_MAX`].
pub(crate) const LONG_OPEN_MAX: usize = 3584;

/// Data bytes covered by the first kernel call of two groups (blocks 1 to 7).
const FIRST_BYTES: usize = 7 * 64;

/// Data bytes per later call (eight blocks).
const STEP_BYTES: usize = 8 * 64;

/// Ciphertext bytes a 1 KiB batch of [`seal_long`] and [`open_long`] absorbs after each of its
/// double rounds 1 to 8 (the ninth has none): the batch's 64 blocks spread over its rounds.
const ABSORB_BYTES: usize = WIDE_BYTES / 8;

/// Poly1305 over radix 2^64: `h = h2 * 2^128 + h1 * 2^64 + h0 + fold` (partially reduced, `h2` at
/// most 3 and `fold` below 2^64 between blocks), the clamped `r = r1 * 2^64 + r0` with
/// `s1 = r1 + r1 / 4` (`5 * r1 / 4`: the factor that folds the part of a product at 2^128 and above
/// back, 2^130 = 5 mod p, exact since the clamp clears the two low bits of `r1`), and the final
/// addend `pad`.
///
/// `fold` is the part of the last product at 2^130 and above, times 5, not yet added to the low
/// limbs: the next block adds it after its message words, so one carry chain, not two in a row,
/// lies between one block's product and the next block's multiplications.
#[derive(Zeroize)]
struct Poly {
    r0: u64,
    r1: u64,
    s1: u64,
    h: [u64; 3],
    fold: u64,
    pad: [u64; 2],
}

fn le64(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[..8]);
    u64::from_le_bytes(w)
}

/// The 1 to 15 bytes of `tail` zero-padded to 16 as two little-endian words, from loads that
/// overlap within `tail` (no padded copy: a zeroed block with the bytes copied in is a `memset`
/// and a `memcpy` call, and its word loads wait on the byte stores). Branches on the (public)
/// length only.
#[inline(always)]
fn tail_words(tail: &[u8]) -> (u64, u64) {
    let n = tail.len();
    if n >= 8 {
        // Bytes 8..n are the top n - 8 bytes of the word at n - 8.
        let hi = le64(&tail[n - 8..]) >> (8 * (15 - n)) >> 8;
        (le64(tail), hi)
    } else if n >= 4 {
        let le32 = |b: &[u8]| u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        // Bytes 4..n are the top n - 4 bytes of the word at n - 4.
        let hi = le32(&tail[n - 4..]) >> (8 * (8 - n)) << 32;
        (le32(tail) | hi, 0)
    } else if n > 0 {
        // Bytes 0, n / 2 and n - 1 cover 1 to 3 bytes.
        let b = |i: usize| u64::from(tail[i]) << (8 * i);
        (b(0) | b(n / 2) | b(n - 1), 0)
    } else {
        (0, 0)
    }
}

impl Poly {
    /// Keyed with the one-time key `r || pad` given as four little-endian words.
    fn new(otk: [u64; 4]) -> Poly {
        let r0 = otk[0] & 0x0fff_fffc_0fff_ffff;
        let r1 = otk[1] & 0x0fff_fffc_0fff_fffc;
        Poly {
            r0,
            r1,
            s1: r1 + (r1 >> 2),
            h: [0; 3],
            fold: 0,
            pad: [otk[2], otk[3]],
        }
    }

    /// `h = (h + m + 2^128) * r mod 2^130 - 5` (partially) for the block `m = m1 * 2^64 + m0`.
    #[inline(always)]
    fn block(&mut self, m0: u64, m1: u64) {
        let [h0, h1, h2] = self.h;
        // The message words first (ready before `fold` is), then `fold`.
        let hm = (u128::from(h1) << 64 | u128::from(h0))
            .overflowing_add(u128::from(m1) << 64 | u128::from(m0));
        let a = hm.0.overflowing_add(u128::from(self.fold));
        let (a0, a1) = (a.0 as u64, (a.0 >> 64) as u64);
        // h2 <= 3 before, so at most 6 here; every product below fits its type: r0, r1 < 2^60,
        // s1 < 2^61.
        let a2 = h2 + 1 + u64::from(hm.1) + u64::from(a.1);
        let (r0, r1, s1) = (
            u128::from(self.r0),
            u128::from(self.r1),
            u128::from(self.s1),
        );
        let d0 = u128::from(a0) * r0 + u128::from(a1) * s1;
        // a2 * s1 < 2^64: one 64-bit multiplication, not a 128-bit product.
        let d1 = u128::from(a0) * r1 + u128::from(a1) * r0 + u128::from(a2 * self.s1) + (d0 >> 64);
        // top < 2^63: d0 < 2^124 + 2^124 * 5 / 4, so d0 >> 64 < 2^62; d1 < 2^125 + 2^64 + 2^62,
        // so d1 >> 64 <= 2^61; and a2 * r0 <= 6 * (2^60 - 1).
        let top = a2 * self.r0 + (d1 >> 64) as u64;
        self.h = [d0 as u64, d1 as u64, top & 3];
        // Everything at 2^130 and above, times 5 (below 2^64 since top < 2^63), for the next block.
        self.fold = (top >> 2) + (top & !3);
    }

    /// Absorbs the whole 16-byte blocks of `data`; bytes after the last whole block are ignored.
    #[inline(always)]
    fn blocks(&mut self, data: &[u8]) {
        for m in data.chunks_exact(16) {
            self.block(le64(&m[..8]), le64(&m[8..]));
        }
    }

    /// Absorbs `data` zero-padded to a multiple of 16 bytes (RFC 8439 section 2.8).
    fn padded(&mut self, data: &[u8]) {
        self.blocks(data);
        let tail = &data[data.len() - data.len() % 16..];
        if !tail.is_empty() {
            let (m0, m1) = tail_words(tail);
            self.block(m0, m1);
        }
    }

    /// Absorbs the length block and returns the tag: `h` reduced modulo 2^130 - 5, plus `pad`
    /// modulo 2^128.
    fn finish(&mut self, aad_len: usize, ct_len: usize) -> [u8; 16] {
        self.block(aad_len as u64, ct_len as u64);
        let [h0, h1, h2] = self.h;
        let (h, c) = (u128::from(h1) << 64 | u128::from(h0)).overflowing_add(u128::from(self.fold));
        let (h0, h1, h2) = (h as u64, (h >> 64) as u64, h2 + u64::from(c));
        // g = h + 5; h >= p exactly when g reaches 2^130 (h < 2^130 + 2^128 < 2p here).
        let (g0, c) = h0.overflowing_add(5);
        let (g1, c) = h1.overflowing_add(u64::from(c));
        let g2 = h2 + u64::from(c);
        let use_g = 0u64.wrapping_sub(g2 >> 2);
        let h0 = (g0 & use_g) | (h0 & !use_g);
        let h1 = (g1 & use_g) | (h1 & !use_g);
        let (t0, c) = h0.overflowing_add(self.pad[0]);
        let t1 = h1.wrapping_add(self.pad[1]).wrapping_add(u64::from(c));
        let mut tag = [0u8; 16];
        tag[..8].copy_from_slice(&t0.to_le_bytes());
        tag[8..].copy_from_slice(&t1.to_le_bytes());
        self.zeroize();
        tag
    }
}

/// Poly1305 keyed from block 0 of a call's key stream (its first 32 bytes).
#[inline]
#[target_feature(enable = "avx512f")]
fn poly_from_block0(block0: __m512i) -> Poly {
    let r = _mm512_castsi512_si128(block0);
    let pad = _mm512_extracti32x4_epi32::<1>(block0);
    Poly::new([
        _mm_cvtsi128_si64(r) as u64,
        _mm_extract_epi64::<1>(r) as u64,
        _mm_cvtsi128_si64(pad) as u64,
        _mm_extract_epi64::<1>(pad) as u64,
    ])
}

/// The ChaCha20 setup state of `key` and `nonce` as its four rows, built in registers straight
/// from the key and nonce bytes; word 12 (the block counter) is zero, the kernel calls add theirs.
/// The state is never written to memory, so there is no copy of the key to wipe, and the first
/// round does not wait on a row reloaded from a stack copy just written word by word (a 16-byte
/// load that store forwarding cannot serve).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn state_rows(key: &[u8; 32], nonce: &[u8; 12]) -> [__m128i; 4] {
    // "expand 32-byte k" (RFC 8439 section 2.3).
    let constants = _mm_set_epi32(0x6b20_6574, 0x7962_2d32, 0x3320_646e, 0x6170_7865);
    // SAFETY: `key` is 32 readable bytes, each load reads 16 of them; `loadu` has no alignment
    // requirement. SSE2 is implied by AVX-512 F.
    let (k0, k1) = unsafe {
        (
            _mm_loadu_si128(key.as_ptr().cast()),
            _mm_loadu_si128(key[16..].as_ptr().cast()),
        )
    };
    // SAFETY: the mask selects the 12 bytes of `nonce`; masked-off bytes are neither read nor
    // faulted on. AVX-512 BW and VL are enabled on this function.
    let n = unsafe { _mm_maskz_loadu_epi8(0x0fff, nonce.as_ptr().cast()) };
    // Nonce words to 13..15, a zero counter in word 12.
    [constants, k0, k1, _mm_bslli_si128::<4>(n)]
}

/// The input rows of blocks `counter` and `counter + 1` of the state `rows` on 256-bit registers
/// (the two-block form of [`hz::start_rows`]).
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
fn start2(rows: &[__m128i; 4], counter: u32) -> [__m256i; 4] {
    let mut s = rows.map(|r| _mm256_broadcastsi128_si256(r));
    let row3 = _mm256_add_epi32(s[3], _mm256_maskz_set1_epi32(0x11, counter as i32));
    s[3] = _mm256_add_epi32(row3, _mm256_set_epi32(0, 0, 0, 1, 0, 0, 0, 0));
    s
}

/// Blocks 0 and 1 of the state `rows`: the half-width chain (`hz::double_round2`), a little
/// shorter than a group of four, for messages of one block.
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
fn two_blocks(rows: &[__m128i; 4]) -> [__m512i; 2] {
    let start = start2(rows, 0);
    let mut x = start;
    for _ in 0..10 {
        hz::double_round2(&mut x);
    }
    hz::finish2(&x, &start).map(|[lo, hi]| _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi))
}

/// Blocks 0 to 5 of the state `rows`: one group of four and the half-width chain for blocks 4
/// and 5, interleaved, for messages of four or five blocks (two groups would compute two blocks
/// that go unused) and as the first call of the longer seals whose later calls it leaves as many
/// and as wide (see [`seal`]).
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
fn six_blocks(rows: &[__m128i; 4]) -> [__m512i; 6] {
    let start = hz::start_rows::<1>(rows, 0);
    let start2 = start2(rows, 4);
    let (mut x, mut y) = (start, start2);
    for _ in 0..10 {
        hz::double_round(&mut x);
        hz::double_round2(&mut y);
    }
    let [[b0, b1, b2, b3]] = hz::finish(&x, &start);
    let [b4, b5] = hz::finish2(&y, &start2)
        .map(|[lo, hi]| _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi));
    [b0, b1, b2, b3, b4, b5]
}

/// The key stream of the `4 * G` blocks from `counter` for the state `rows`, with the whole
/// 16-byte blocks of `pending` absorbed into `poly` between the double rounds.
#[inline]
#[target_feature(enable = "avx512f")]
fn keystream_absorbing<const G: usize>(
    rows: &[__m128i; 4],
    counter: u32,
    poly: &mut Poly,
    pending: &[u8],
) -> [[__m512i; 4]; G] {
    let start = hz::start_rows::<G>(rows, counter);
    let mut x = start;
    let mut blocks = pending.chunks_exact(16);
    let per_round = (pending.len() / 16).div_ceil(10);
    for _ in 0..10 {
        hz::double_round(&mut x);
        for m in blocks.by_ref().take(per_round) {
            poly.block(le64(&m[..8]), le64(&m[8..]));
        }
    }
    hz::finish(&x, &start)
}

/// XORs the key stream blocks `ks` (64 bytes each, in order) into `data`, the last partial block
/// with masked loads and stores; key stream past the end of `data` is unused.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn xor_into<'a>(ks: impl Iterator<Item = &'a __m512i>, data: &mut [u8]) {
    for (v, chunk) in ks.zip(data.chunks_mut(64)) {
        let p = chunk.as_mut_ptr();
        if chunk.len() == 64 {
            // SAFETY: `chunk` is 64 readable and writable bytes; `loadu`/`storeu` have no alignment
            // requirement. AVX-512 F is enabled on this function.
            unsafe {
                let d = _mm512_loadu_si512(p.cast());
                _mm512_storeu_si512(p.cast(), _mm512_xor_si512(d, *v));
            }
        } else {
            // `chunk.len()` is 1 to 63: the mask selects exactly its bytes.
            let mask = (1u64 << chunk.len()) - 1;
            // SAFETY: masked-off bytes are neither read nor written (no fault on them either), so
            // only `chunk`'s own bytes are accessed. AVX-512 BW is enabled on this function.
            unsafe {
                let d = _mm512_mask_loadu_epi8(_mm512_setzero_si512(), mask, p.cast());
                _mm512_mask_storeu_epi8(p.cast(), mask, _mm512_xor_si512(d, *v));
            }
        }
    }
}

/// Seals `$data[$done..]` (key stream from block `$counter` of the state rows `$state`) in calls
/// of eight blocks, each absorbing into `$poly` the ciphertext the call before it produced (the
/// first, `$data[$absorbed..$done]`), then absorbs the rest and evaluates to the tag (`$aad_len`
/// bytes of AAD). A macro, so that [`seal`] keeps this loop inline: as a function shared with
/// [`seal_long`] it was a call that cost [`seal`] 2-3 % at 1 KiB.
macro_rules! seal_rest {
    ($state:expr, $poly:expr, $aad_len:expr, $data:expr, $absorbed:expr, $done:expr, $counter:expr) => {{
        let (state, poly, data): (&[__m128i; 4], &mut Poly, &mut [u8]) = ($state, $poly, $data);
        let (mut absorbed, mut done, mut counter): (usize, usize, u32) =
            ($absorbed, $done, $counter);
        while done < data.len() {
            let pending = &data[absorbed..done];
            absorbed = done;
            let end = data.len().min(done + STEP_BYTES);
            // A last call of at most four blocks takes one group: the same latency, half the
            // work.
            if end - done <= STEP_BYTES / 2 {
                let ks = keystream_absorbing::<1>(state, counter, poly, pending);
                xor_into(ks.iter().flatten(), &mut data[done..end]);
            } else {
                let ks = keystream_absorbing::<2>(state, counter, poly, pending);
                xor_into(ks.iter().flatten(), &mut data[done..end]);
            }
            done = end;
            counter = counter.wrapping_add(8);
        }
        poly.padded(&data[absorbed..]);
        poly.finish($aad_len, data.len())
    }};
}

/// Seals `data` in place (key stream from block 1) and returns the tag. `data` must hold at most
/// [`STITCH_MAX`] bytes (longer data is left alone and gets a meaningless tag; callers check).
/// Callers must have checked that the CPU supports AVX-512 F, BW and VL.
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
pub(crate) fn seal(key: &[u8; 32], nonce: &[u8; 12], aad: &[u8], data: &mut [u8]) -> [u8; 16] {
    if data.len() > STITCH_MAX {
        return [0; 16];
    }
    let state = state_rows(key, nonce);
    let mut poly;
    let done;
    let mut counter = 0;
    if data.len() <= 64 {
        let [block0, block1] = two_blocks(&state);
        poly = poly_from_block0(block0);
        xor_into([block1].iter(), data);
        done = data.len();
    } else if data.len() <= 3 * 64 {
        let ks = keystream_absorbing::<1>(&state, 0, &mut Poly::new([0; 4]), &[]);
        poly = poly_from_block0(ks[0][0]);
        xor_into(ks.iter().flatten().skip(1), data);
        done = data.len();
    } else if data.len() <= 5 * 64 {
        let ks = six_blocks(&state);
        poly = poly_from_block0(ks[0]);
        xor_into(ks[1..].iter(), data);
        done = data.len();
    } else if data.len() <= FIRST_BYTES || data.len().div_ceil(64) % 4 > 1 {
        let ks = keystream_absorbing::<2>(&state, 0, &mut Poly::new([0; 4]), &[]);
        poly = poly_from_block0(ks[0][0]);
        done = data.len().min(FIRST_BYTES);
        xor_into(ks.iter().flatten().skip(1), &mut data[..done]);
        counter = 8;
    } else {
        // Blocks 0 to 5 first (the six-block call costs less than two groups), where the data
        // blocks after block 5 need as many later calls, the last as wide, as those after block 7
        // (n data blocks, n % 4 of 0 or 1): Poly1305, which needs block 0, starts sooner, for 128
        // more bytes absorbed after the last call.
        let ks = six_blocks(&state);
        poly = poly_from_block0(ks[0]);
        done = 5 * 64;
        xor_into(ks[1..].iter(), &mut data[..done]);
        counter = 6;
    }
    poly.padded(aad);
    seal_rest!(&state, &mut poly, aad.len(), data, 0, done, counter)
}

/// The sixteen-block kernel's state for `key` and `nonce` (block counter 0; the calls add
/// theirs) and its precomputed head. The caller zeroizes the state words; the head wipes itself.
fn wide_state(key: &[u8; 32], nonce: &[u8; 12]) -> ([u32; 16], Head) {
    let words = setup_state(key, 0, nonce);
    let head = Head::new(&words);
    (words, head)
}

/// The key stream of one message for the generic path's pieces on AVX-512: the sixteen-block
/// kernel's state and head, and the state rows of the eight-block kernel for a last partial
/// batch. Built in registers and a few words from the key and nonce, where the generic path's
/// stream object (its 1 KiB buffer moved, zeroed and wiped, the one-time key from a buffered
/// prefix) cost about 100 ns a message. The state words are wiped on drop, the head wipes itself.
pub(crate) struct PieceStream {
    words: [u32; 16],
    head: Head,
    rows: [__m128i; 4],
}

impl Drop for PieceStream {
    fn drop(&mut self) {
        self.words.zeroize();
    }
}

impl PieceStream {
    /// The stream of `key` and `nonce` and the message's one-time key (block 0's first 32
    /// bytes; the caller wipes it). Callers must have checked that the CPU supports AVX-512 F,
    /// BW and VL.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub(crate) fn new(key: &[u8; 32], nonce: &[u8; 12]) -> (PieceStream, [u8; 32]) {
        let rows = state_rows(key, nonce);
        let [block0, _] = two_blocks(&rows);
        let mut otk = [0u8; 32];
        // SAFETY: `otk` is 32 writable bytes; unaligned store of the low 256 bits of block 0.
        unsafe {
            _mm256_storeu_si256(otk.as_mut_ptr().cast(), _mm512_castsi512_si256(block0));
        }
        let (words, head) = wide_state(key, nonce);
        (PieceStream { words, head, rows }, otk)
    }

    /// XORs the key stream from block `counter` into `data`: its whole 1 KiB batches on the
    /// sixteen-block kernel, the rest in eight-block calls. Callers must have checked that the
    /// CPU supports AVX-512 F, BW and VL, and the message length against the 32-bit counter.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub(crate) fn xor(&self, counter: u32, data: &mut [u8]) {
        let whole = data.len() / WIDE_BYTES * WIDE_BYTES;
        let (batches, rest) = data.split_at_mut(whole);
        wide::keystream_with::<true>(&self.head, &self.words, counter, batches);
        xor_steps(&self.rows, counter.wrapping_add((whole / 64) as u32), rest);
    }
}

/// Seals `data` of any length (key stream from block 1) and returns the tag, for messages longer
/// than [`STITCH_MAX`]: the whole 1 KiB batches of `data` on the sixteen-block kernel, each
/// absorbing the ciphertext of the batch before it between its double rounds (the scalar
/// Poly1305 on the general-purpose registers beside the vector rounds), the rest as in [`seal`].
/// The caller has checked the length against the 32-bit block counter and that the CPU supports
/// AVX-512 F, BW and VL.
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
pub(crate) fn seal_long(key: &[u8; 32], nonce: &[u8; 12], aad: &[u8], data: &mut [u8]) -> [u8; 16] {
    let state = state_rows(key, nonce);
    let [block0, _] = two_blocks(&state);
    let mut poly = poly_from_block0(block0);
    poly.padded(aad);
    let (mut words, head) = wide_state(key, nonce);
    let batches = data.len() / WIDE_BYTES;
    let mut counter = 1u32;
    for j in 0..batches {
        let (before, rest) = data.split_at_mut(j * WIDE_BYTES);
        let pending = &before[before.len().saturating_sub(WIDE_BYTES)..];
        let mut pieces = pending.chunks_exact(ABSORB_BYTES);
        if let Ok(batch) = <&mut [u8; WIDE_BYTES]>::try_from(&mut rest[..WIDE_BYTES]) {
            wide::xor_batch_between(&head, &words, counter, batch, |_, _| {
                if let Some(piece) = pieces.next() {
                    poly.blocks(piece);
                }
            });
        }
        counter = counter.wrapping_add(16);
    }
    words.zeroize();
    let done = batches * WIDE_BYTES;
    let absorbed = done.saturating_sub(WIDE_BYTES);
    seal_rest!(&state, &mut poly, aad.len(), data, absorbed, done, counter)
}

/// Opens `data` of any length longer than [`STITCH_MAX`] as [`open`] does: each whole 1 KiB batch
/// absorbs its own ciphertext between its double rounds and is decrypted after them, the rest
/// goes in calls of eight blocks that do the same; the tag is compared in constant time, and on a
/// mismatch the key stream is applied again. Returns whether the tag matched. The caller has
/// checked the length against the 32-bit block counter and that the CPU supports AVX-512 F, BW
/// and VL.
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
pub(crate) fn open_long(
    key: &[u8; 32],
    nonce: &[u8; 12],
    aad: &[u8],
    data: &mut [u8],
    tag: &[u8],
) -> bool {
    let len = data.len();
    let state = state_rows(key, nonce);
    let [block0, _] = two_blocks(&state);
    let mut poly = poly_from_block0(block0);
    poly.padded(aad);
    let (mut words, head) = wide_state(key, nonce);
    let mut counter = 1u32;
    let mut batches = data.chunks_exact_mut(WIDE_BYTES);
    for chunk in batches.by_ref() {
        if let Ok(batch) = <&mut [u8; WIDE_BYTES]>::try_from(chunk) {
            wide::xor_batch_between(&head, &words, counter, batch, |round, ct| {
                if let Some(piece) = ct.chunks_exact(ABSORB_BYTES).nth(round - 1) {
                    poly.blocks(piece);
                }
            });
        }
        counter = counter.wrapping_add(16);
    }
    words.zeroize();
    let rest = batches.into_remainder();
    for step in rest.chunks_mut(STEP_BYTES) {
        // Whole 16-byte blocks are absorbed inside the call; a partial last one after it, before
        // the step is decrypted.
        let ks: [__m512i; 8] = if step.len() <= STEP_BYTES / 2 {
            let [[b0, b1, b2, b3]] = keystream_absorbing::<1>(&state, counter, &mut poly, step);
            [b0, b1, b2, b3, b0, b1, b2, b3]
        } else {
            let [[b0, b1, b2, b3], [b4, b5, b6, b7]] =
                keystream_absorbing::<2>(&state, counter, &mut poly, step);
            [b0, b1, b2, b3, b4, b5, b6, b7]
        };
        poly.padded(&step[step.len() / 16 * 16..]);
        xor_into(ks.iter(), step);
        counter = counter.wrapping_add(8);
    }
    let ok = crate::util::ct_eq(&poly.finish(aad.len(), len), tag);
    if !ok {
        xor_keystream(&state, data);
    }
    ok
}

/// Opens `data` in place (key stream from block 1): decrypts it in the pass that absorbs the
/// received ciphertext, then compares the tag in constant time; returns whether it matched. On a
/// mismatch the key stream is applied again, so `data` holds the ciphertext it came with. `data`
/// must hold at most [`STITCH_MAX`] bytes (longer data is rejected and left alone). Callers must
/// have checked that the CPU supports AVX-512 F, BW and VL.
///
/// The calls are those of [`seal`]. Each later call absorbs the ciphertext of its own blocks (and
/// the first call's, which had to wait for the one-time key) between its double rounds, and those
/// blocks are decrypted right after it, so no key stream goes through memory.
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
pub(crate) fn open(
    key: &[u8; 32],
    nonce: &[u8; 12],
    aad: &[u8],
    data: &mut [u8],
    tag: &[u8],
) -> bool {
    let len = data.len();
    if len > STITCH_MAX {
        return false;
    }
    let state = state_rows(key, nonce);
    if len <= 64 {
        let [block0, block1] = two_blocks(&state);
        let mut poly = poly_from_block0(block0);
        poly.padded(aad);
        poly.padded(data);
        let ok = crate::util::ct_eq(&poly.finish(aad.len(), len), tag);
        if ok {
            xor_into([block1].iter(), data);
        }
        return ok;
    }
    let unused = _mm512_setzero_si512();
    // The first call's blocks (block 0 first), the bytes they cover and the next counter.
    let (ks0, first, mut counter): ([__m512i; 8], usize, u32) = if len <= 3 * 64 {
        let [[b0, b1, b2, b3]] = keystream_absorbing::<1>(&state, 0, &mut Poly::new([0; 4]), &[]);
        ([b0, b1, b2, b3, unused, unused, unused, unused], len, 4)
    } else if len <= 5 * 64 || (len > FIRST_BYTES && len.div_ceil(64) % 4 <= 1) {
        let [b0, b1, b2, b3, b4, b5] = six_blocks(&state);
        let ks = [b0, b1, b2, b3, b4, b5, unused, unused];
        (ks, len.min(5 * 64), 6)
    } else {
        let [[b0, b1, b2, b3], [b4, b5, b6, b7]] =
            keystream_absorbing::<2>(&state, 0, &mut Poly::new([0; 4]), &[]);
        ([b0, b1, b2, b3, b4, b5, b6, b7], len.min(FIRST_BYTES), 8)
    };
    let mut poly = poly_from_block0(ks0[0]);
    poly.padded(aad);
    if first == len {
        poly.padded(data);
        xor_into(ks0[1..].iter(), data);
    }
    let mut absorbed = 0;
    let mut done = first;
    while done < len {
        let end = len.min(done + STEP_BYTES);
        // Whole 16-byte blocks are absorbed inside the call; a partial last one after it, before
        // its bytes are decrypted.
        let pending = &data[absorbed..end];
        let ks: [__m512i; 8] = if end - done <= STEP_BYTES / 2 {
            let [[b0, b1, b2, b3]] = keystream_absorbing::<1>(&state, counter, &mut poly, pending);
            [b0, b1, b2, b3, unused, unused, unused, unused]
        } else {
            let [[b0, b1, b2, b3], [b4, b5, b6, b7]] =
                keystream_absorbing::<2>(&state, counter, &mut poly, pending);
            [b0, b1, b2, b3, b4, b5, b6, b7]
        };
        absorbed += pending.len() / 16 * 16;
        if absorbed < end {
            poly.padded(&data[absorbed..end]);
            absorbed = end;
        }
        if done == first {
            xor_into(ks0[1..].iter(), &mut data[..first]);
        }
        xor_into(ks.iter(), &mut data[done..end]);
        done = end;
        counter += 8;
    }
    let ok = crate::util::ct_eq(&poly.finish(aad.len(), len), tag);
    if !ok {
        xor_keystream(&state, data);
    }
    ok
}

/// XORs the key stream from block 1 of the state `rows` into `data` (any length below the 32-bit
/// block counter's limit): what a failed [`open`] or [`open_long`] does to give the ciphertext
/// back. Cold and out of line: the opening paths keep only a call to it.
#[cold]
#[inline(never)]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn xor_keystream(rows: &[__m128i; 4], data: &mut [u8]) {
    xor_steps(rows, 1, data);
}

/// XORs the key stream from block `counter` of the state `rows` into `data` in calls of eight
/// blocks, absorbing nothing.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
fn xor_steps(rows: &[__m128i; 4], mut counter: u32, data: &mut [u8]) {
    let mut none = Poly::new([0; 4]);
    for step in data.chunks_mut(STEP_BYTES) {
        let ks = keystream_absorbing::<2>(rows, counter, &mut none, &[]);
        xor_into(ks.iter().flatten(), step);
        counter = counter.wrapping_add(8);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chacha20poly1305::aead::{AeadInPlace, KeyInit};
    use rand::{Rng, RngCore, SeedableRng};

    fn supported() -> bool {
        crate::cpu::Backend::Avx512.is_supported()
    }

    /// The radix-2^64 Poly1305 (its fold carried into the next block) against RustCrypto's over
    /// random and all-ones keys and messages (the clamped `r` and every message word at their
    /// maxima, so the limbs, `top` and `fold` reach their bounds), for every length 0..=300 and
    /// around 2 KiB.
    #[test]
    fn poly_matches_rustcrypto() {
        use poly1305::universal_hash::KeyInit as _;
        let mut rng = rand::rngs::StdRng::seed_from_u64(0x5eed);
        for len in (0..=300usize).chain(2000..=2100) {
            for round in 0..4 {
                let mut key = [0xffu8; 32];
                let mut aad = vec![0xffu8; len % 37];
                let mut ct = vec![0xffu8; len];
                if round > 0 {
                    rng.fill_bytes(&mut key);
                    rng.fill_bytes(&mut aad);
                    rng.fill_bytes(&mut ct);
                }
                let mut padded = aad.clone();
                padded.resize(aad.len().div_ceil(16) * 16, 0);
                padded.extend_from_slice(&ct);
                padded.resize(padded.len().div_ceil(16) * 16, 0);
                padded.extend_from_slice(&(aad.len() as u64).to_le_bytes());
                padded.extend_from_slice(&(len as u64).to_le_bytes());
                let expected = poly1305::Poly1305::new(key[..].into()).compute_unpadded(&padded);
                let w: [u64; 4] = core::array::from_fn(|i| le64(&key[8 * i..]));
                let mut p = Poly::new(w);
                p.padded(&aad);
                p.padded(&ct);
                assert_eq!(
                    p.finish(aad.len(), len),
                    expected.as_slice(),
                    "len {len} round {round}"
                );
            }
        }
    }

    /// The tail of 0 to 15 bytes read by overlapping loads equals the zero-padded copy's words.
    #[test]
    fn tail_words_match_padded_copy() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(0x7a11);
        for n in 0..16 {
            for _ in 0..64 {
                let mut block = [0u8; 16];
                rng.fill_bytes(&mut block[..n]);
                assert_eq!(
                    tail_words(&block[..n]),
                    (le64(&block[..8]), le64(&block[8..])),
                    "n {n}"
                );
            }
        }
    }

    /// The input rows built in registers from the key and nonce hold, lane by lane, the setup
    /// state of each block (`chacha20::setup_state` with that block's counter) for the counters
    /// used here and around the 32-bit wrap; the two-block rows equal the first two lanes of a
    /// group.
    #[test]
    fn start_rows_match_setup_state() {
        if !supported() {
            return;
        }
        // SAFETY: a 512-bit vector is sixteen 32-bit words; any bit pattern is valid for both.
        let words = |v: __m512i| unsafe { core::mem::transmute::<__m512i, [u32; 16]>(v) };
        // SAFETY: as above, eight words.
        let words2 = |v: __m256i| unsafe { core::mem::transmute::<__m256i, [u32; 8]>(v) };
        let mut rng = rand::rngs::StdRng::seed_from_u64(0x57a7e);
        for counter in [0, 4, 6, 8, 16, 40, u32::MAX - 5, u32::MAX] {
            let mut key = [0u8; 32];
            let mut nonce = [0u8; 12];
            rng.fill_bytes(&mut key);
            rng.fill_bytes(&mut nonce);
            // SAFETY: AVX-512 F/BW/VL were checked above.
            let (groups, pair) = unsafe {
                let rows = state_rows(&key, &nonce);
                (hz::start_rows::<2>(&rows, counter), start2(&rows, counter))
            };
            for (g, group) in groups.iter().enumerate() {
                for lane in 0..4 {
                    let block = counter.wrapping_add((4 * g + lane) as u32);
                    let expected = crate::stream::chacha20::setup_state(&key, block, &nonce);
                    for (r, row) in group.iter().enumerate() {
                        assert_eq!(
                            words(*row)[4 * lane..4 * lane + 4],
                            expected[4 * r..4 * r + 4],
                            "counter {counter} group {g} lane {lane} row {r}"
                        );
                    }
                }
            }
            for r in 0..4 {
                assert_eq!(
                    words2(pair[r])[..],
                    words(groups[0][r])[..8],
                    "counter {counter}"
                );
            }
        }
    }

    /// Seal and open against RustCrypto's `chacha20poly1305` for every length 0..=2100 (the
    /// one- and two-group first call, the group with the two-block chain for four or five blocks,
    /// every later call's boundary, the limit and past it, where both refuse), AAD of 0 to 64 bytes and a few long ones, random keys and nonces; a corrupted
    /// tag, ciphertext or AAD is rejected with the data untouched.
    #[test]
    fn short_kernels_refuse_long_messages() {
        if !supported() {
            return;
        }
        let (key, nonce) = ([1u8; 32], [2u8; 12]);
        let mut data = vec![3u8; STITCH_MAX + 1];
        // SAFETY: AVX-512 F/BW/VL were checked above.
        let tag = unsafe { seal(&key, &nonce, &[], &mut data) };
        assert!(data.iter().all(|&b| b == 3));
        // SAFETY: as above.
        assert!(!unsafe { open(&key, &nonce, &[], &mut data, &tag) });
        assert!(data.iter().all(|&b| b == 3));
    }

    type SealFn = unsafe fn(&[u8; 32], &[u8; 12], &[u8], &mut [u8]) -> [u8; 16];
    type OpenFn = unsafe fn(&[u8; 32], &[u8; 12], &[u8], &mut [u8], &[u8]) -> bool;

    #[test]
    fn stitched_matches_rustcrypto() {
        if !supported() {
            return;
        }
        let seed = rand::random::<u64>();
        println!("seed {seed}");
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        // Every length of the short kernels, then the long ones around the 1 KiB batches of
        // `seal_long` / `open_long` (whole batches, a tail of one byte, of a partial step, of a
        // whole step) and past the AEAD's limits for them, where those are called directly.
        let long = [
            2101,
            2111,
            2112,
            2113,
            2560,
            3071,
            3072,
            3073,
            3500,
            4096,
            4097,
            4608,
            5000,
            6143,
            6144,
            6145,
            8192,
            9216 + 511,
            16384 + 13,
        ];
        for len in (0..=2100usize).chain(long) {
            let (seal, open): (SealFn, OpenFn) = if len <= STITCH_MAX {
                (seal, open)
            } else {
                (seal_long, open_long)
            };
            let aad_len = match len % 9 {
                8 => [100, 255, 256, 1000, 4097][len % 5],
                _ => rng.gen_range(0..=64),
            };
            let mut key = [0u8; 32];
            let mut nonce = [0u8; 12];
            rng.fill_bytes(&mut key);
            rng.fill_bytes(&mut nonce);
            if len % 7 == 0 {
                key = [0xff; 32];
            }
            let mut aad = vec![0u8; aad_len];
            let mut pt = vec![0u8; len];
            rng.fill_bytes(&mut aad);
            rng.fill_bytes(&mut pt);
            if len % 5 == 0 {
                pt.fill(0xff);
            }
            let mut data = pt.clone();
            // SAFETY: AVX-512 F/BW/VL were checked above.
            let tag = unsafe { seal(&key, &nonce, &aad, &mut data) };
            let mut expected = pt.clone();
            let expected_tag = chacha20poly1305::ChaCha20Poly1305::new(&key.into())
                .encrypt_in_place_detached(&nonce.into(), &aad, &mut expected)
                .unwrap();
            assert_eq!(data, expected, "ct len {len} aad {aad_len}");
            assert_eq!(tag, expected_tag.as_slice(), "tag len {len} aad {aad_len}");

            let ct = data.clone();
            let mut bad = tag;
            bad[rng.gen_range(0..16)] ^= 1 << rng.gen_range(0..8);
            // SAFETY: as above.
            assert!(!unsafe { open(&key, &nonce, &aad, &mut data, &bad) });
            assert_eq!(data, ct, "bad tag, len {len}");
            if len > 0 {
                data[rng.gen_range(0..len)] ^= 1;
                // SAFETY: as above.
                assert!(!unsafe { open(&key, &nonce, &aad, &mut data, &tag) });
                data.copy_from_slice(&ct);
            }
            if aad_len > 0 {
                let mut bad_aad = aad.clone();
                bad_aad[rng.gen_range(0..aad_len)] ^= 0x80;
                // SAFETY: as above.
                assert!(!unsafe { open(&key, &nonce, &bad_aad, &mut data, &tag) });
                assert_eq!(data, ct, "bad aad, len {len}");
            }
            // SAFETY: as above.
            assert!(!unsafe { open(&key, &nonce, &aad, &mut data, &tag[..15]) });
            // SAFETY: as above.
            assert!(
                unsafe { open(&key, &nonce, &aad, &mut data, &tag) },
                "len {len}"
            );
            assert_eq!(data, pt, "open len {len} aad {aad_len}");
        }
    }
}
