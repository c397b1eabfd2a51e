//! MGM's counter modes (RFC 9058, [`crate::block::BlockCipher::half_ctr_xor`]) on the gfni backend's
//! byte-sliced kernel (`x86_avx512_gfni`), without a counter buffer. The counters count in one half
//! of the block mod 2^64: the right half (bytes 8..15, `incr_r`, MGM's `Y_i`) or the left half
//! (bytes 0..7, `incr_l`, MGM's `Z_i`).
//!
//! As in that kernel's CTR, 64 consecutive counters share every byte but the two low bytes of their
//! counting half (bytes 14 and 15, or 6 and 7), except that where those two bytes wrap inside the
//! pass the counters after the wrap share other values. So the first round runs once per side of
//! the wrap, on one block, for the shared bytes (each block picks its side by a mask, with no branch
//! on the counters, which derive from the key); only the two varying bytes go through S one by one
//! and reach L through their two columns. The key stream is XORed into the data on the store. A tail of
//! at most sixteen blocks after the last pass runs in the lane kernel's registers, its rounds
//! interleaved with that pass's, so that its latency hides under the pass's throughput (MGM's
//! steps end with such a tail: the length block's `H`, a short AAD's). No memory access depends
//! on key or data.

use core::arch::x86_64::{
    __m512i, _mm512_add_epi8, _mm512_cmplt_epu8_mask, _mm512_gf2p8affine_epi64_epi8,
    _mm512_gf2p8mul_epi8, _mm512_loadu_si512, _mm512_mask_add_epi8, _mm512_mask_blend_epi8,
    _mm512_maskz_mov_epi8, _mm512_set1_epi8, _mm512_shuffle_epi8, _mm512_storeu_si512,
    _mm512_xor_si512,
};

use zeroize::Zeroize;

use super::aes_field::{gfni_constants, GfniConstants};
use super::x86_avx512_gfni::{
    broadcast_block, cipher_keys, fold_key, linear_xor, load_registers, sliced_lsx_rounds,
    substitute, xor3, xor_sliced_key_stream, GfniKeys, Registers, SLICED, VECTOR,
};

/// XORs `E(c) || E(inc(c)) || ...` into `data` (the last block may be partial), `c` the counter
/// block `counter` and `inc` adding one to its left (`LEFT`) or right half mod 2^64.
pub(super) fn half_ctr_xor<const LEFT: bool>(keys: &GfniKeys, counter: &[u8; 16], data: &mut [u8]) {
    // SAFETY: a `GfniKeys` exists only on a CPU with AVX-512 F/BW/VBMI and GFNI (`GfniKeys::new`).
    unsafe { run::<LEFT>(keys, u128::from_be_bytes(*counter), data) }
}

/// `c` advanced by `k` in its counting half (mod 2^64); the other half unchanged.
fn advance<const LEFT: bool>(c: u128, k: u64) -> u128 {
    let low = u128::from(u64::MAX);
    if LEFT {
        let left = ((c >> 64) as u64).wrapping_add(k);
        (u128::from(left) << 64) | (c & low)
    } else {
        (c & !low) | u128::from((c as u64).wrapping_add(k))
    }
}

/// The upper of the counting half's two low bytes (block bytes, most significant first): the
/// bytes that vary within a pass are this one and the next.
const fn high_byte<const LEFT: bool>() -> usize {
    if LEFT {
        6
    } else {
        14
    }
}

/// Byte `p` of each byte-sliced register belongs to block `4 * (p % 16) + p / 16` of the pass (see
/// `transpose`): its offset from the first counter.
static OFFSETS: [u8; 64] = {
    let mut offsets = [0u8; 64];
    let mut p = 0;
    while p < 64 {
        offsets[p] = (4 * (p % 16) + p / 16) as u8;
        p += 1;
    }
    offsets
};

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn run<const LEFT: bool>(cipher: &GfniKeys, mut value: u128, data: &mut [u8]) {
    let c = gfni_constants();
    let r = load_registers(c, true);
    let passes = data.len() / SLICED;
    let (mut data, mut tail) = data.split_at_mut(passes * SLICED);
    // A short tail rides along with the last pass (see `pass`) instead of a call of its own.
    let mut stitched = false;
    for i in 0..passes {
        let (chunk, rest) = core::mem::take(&mut data).split_at_mut(SLICED);
        data = rest;
        let next = advance::<LEFT>(value, 64);
        if i + 1 < passes || tail.is_empty() || tail.len() > EXTRA_BYTES {
            pass::<LEFT, 0>(chunk, value, &mut [], next, cipher, c, &r);
        } else {
            let extra = core::mem::take(&mut tail);
            match extra.len().div_ceil(VECTOR) {
                1 => pass::<LEFT, 1>(chunk, value, extra, next, cipher, c, &r),
                2 => pass::<LEFT, 2>(chunk, value, extra, next, cipher, c, &r),
                3 => pass::<LEFT, 3>(chunk, value, extra, next, cipher, c, &r),
                _ => pass::<LEFT, 4>(chunk, value, extra, next, cipher, c, &r),
            }
            stitched = true;
        }
        value = next;
    }
    if !stitched && !tail.is_empty() {
        buffered::<LEFT>(tail, value, cipher);
    }
}

/// The most bytes of tail [`pass`] takes along: four registers of four blocks.
const EXTRA_BYTES: usize = 4 * VECTOR;

/// At most 64 blocks through a counter buffer and the block kernel: the tail of the data.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn buffered<const LEFT: bool>(chunk: &mut [u8], first: u128, cipher: &GfniKeys) {
    let mut buf = [0u8; SLICED];
    let ks = &mut buf[..chunk.len().div_ceil(16) * 16];
    for (i, block) in ks.chunks_exact_mut(16).enumerate() {
        block.copy_from_slice(&advance::<LEFT>(first, i as u64).to_be_bytes());
    }
    cipher.encrypt_blocks(ks);
    for (d, k) in chunk.iter_mut().zip(ks.iter()) {
        *d ^= *k;
    }
    buf.zeroize();
}

/// 64 blocks (`chunk` is 1024 bytes) from the counter `first`. Bytes other than the two varying
/// ones are the same in all 64 counters, or, where the two low bytes wrap inside the pass, in all
/// counters before the wrap and in all after it: round 1 runs on them once per side, in one lane,
/// with the varying bytes zero after S; its L, with K_2 added, is the shared part of every
/// counter's first-round output, to which the varying bytes' S outputs add through their columns
/// of L. Each block picks its side by a mask, so the pass costs the same whatever the counter
/// (the counters derive from the key: no branch and no memory access depends on them).
///
/// `extra` (at most `16 * E` bytes, the last block possibly partial) takes the key stream of the
/// counters from `extra_first` on, in `E` registers of the lane kernel whose rounds run between
/// the byte-sliced ones: their latency-bound chains hide under the sliced rounds' throughput, where
/// a call of their own would wait for them.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn pass<const LEFT: bool, const E: usize>(
    chunk: &mut [u8],
    first: u128,
    extra: &mut [u8],
    extra_first: u128,
    cipher: &GfniKeys,
    c: &GfniConstants,
    r: &Registers,
) {
    let j = high_byte::<LEFT>();
    // Per 16-bit lane of the mask (one block), every byte but `j` and `j + 1`.
    let shared_bytes = u64::from(!(3u16 << j)) * 0x0001_0001_0001_0001;
    let keys = &cipher.keys;
    let ctr = first.to_be_bytes();
    // The extra blocks' counters, in the AES-field basis, through `X[K_1]`.
    let lane_keys = cipher_keys::<true>(core::array::from_fn(|i| broadcast_block(&keys[i])));
    let mut counters = [0u8; EXTRA_BYTES];
    let blocks = extra.len().div_ceil(16);
    for (i, block) in counters.chunks_exact_mut(16).take(blocks).enumerate() {
        block.copy_from_slice(&advance::<LEFT>(extra_first, i as u64).to_be_bytes());
    }
    let mut x: [__m512i; E] = core::array::from_fn(|v| {
        // SAFETY: `counters` holds `EXTRA_BYTES >= 64 * E` bytes; no alignment requirement.
        let raw = unsafe { _mm512_loadu_si512(counters.as_ptr().add(VECTOR * v).cast()) };
        _mm512_xor_si512(
            _mm512_gf2p8affine_epi64_epi8::<0>(raw, r.to_aes),
            lane_keys[0],
        )
    });
    let lane_round = |x: &mut [__m512i; E], k: usize| {
        for v in x.iter_mut() {
            *v = linear_xor(substitute(*v, &r.sbox), r, lane_keys[k]);
        }
    };
    lane_round(&mut x, 1);
    let shared_round = |ctr: &[u8; 16]| {
        let x = _mm512_gf2p8affine_epi64_epi8::<0>(broadcast_block(ctr), r.to_aes);
        let x = _mm512_maskz_mov_epi8(
            shared_bytes,
            substitute(_mm512_xor_si512(x, broadcast_block(&keys[0])), &r.sbox),
        );
        linear_xor(x, r, fold_key(broadcast_block(&keys[1])))
    };
    // The shared bytes before and after a wrap of the two low bytes: the counting half plus 2^16.
    let after = advance::<LEFT>(first, 1 << 16).to_be_bytes();
    let (shared, shared_after) = (shared_round(&ctr), shared_round(&after));
    // The varying bytes, byte-sliced: the low one plus the block's offset, the carry into the
    // high one.
    let base = _mm512_set1_epi8(ctr[j + 1] as i8);
    // SAFETY: `OFFSETS` is 64 readable bytes; `loadu` has no alignment requirement.
    let offsets = unsafe { _mm512_loadu_si512(OFFSETS.as_ptr().cast()) };
    let low = _mm512_add_epi8(offsets, base);
    let carried = _mm512_cmplt_epu8_mask(low, base);
    let high_start = _mm512_set1_epi8(ctr[j] as i8);
    let high = _mm512_mask_add_epi8(high_start, carried, high_start, _mm512_set1_epi8(1));
    // The blocks past the wrap: the high byte wrapped too.
    let wrapped = _mm512_cmplt_epu8_mask(high, high_start);
    let first_s = |v: __m512i, at: usize| {
        let v = _mm512_gf2p8affine_epi64_epi8::<0>(v, r.to_aes);
        substitute(
            _mm512_xor_si512(v, _mm512_set1_epi8(keys[0][at] as i8)),
            &r.sbox,
        )
    };
    let (high, low) = (first_s(high, j), first_s(low, j + 1));
    // Columns `j` and `j + 1` of L (AES-field basis): entry `i` is how those bytes reach output
    // byte `i` of the first round.
    let (high_column, low_column) = (&c.l_columns[j], &c.l_columns[j + 1]);
    let mut s: [__m512i; 16] = core::array::from_fn(|i| {
        // Byte i of every lane of `shared` is the same: broadcast it with an in-lane shuffle.
        let byte = _mm512_set1_epi8(i as i8);
        let part = _mm512_mask_blend_epi8(
            wrapped,
            _mm512_shuffle_epi8(shared, byte),
            _mm512_shuffle_epi8(shared_after, byte),
        );
        xor3(
            part,
            _mm512_gf2p8mul_epi8(high, _mm512_set1_epi8(high_column[i] as i8)),
            _mm512_gf2p8mul_epi8(low, _mm512_set1_epi8(low_column[i] as i8)),
        )
    });
    if E == 0 {
        sliced_lsx_rounds(&mut s, r, &cipher.sliced[1..]);
    } else {
        // Rounds 3..=10: one byte-sliced round, then the extra registers' round with the same key.
        for (k, form) in cipher.sliced[1..].chunks_exact(1).enumerate() {
            sliced_lsx_rounds(&mut s, r, form);
            lane_round(&mut x, k + 2);
        }
    }
    xor_sliced_key_stream(&s, r, chunk);
    for (v, out) in x.iter().zip(counters.chunks_exact_mut(VECTOR)) {
        let ks = _mm512_gf2p8affine_epi64_epi8::<0>(*v, r.from_aes);
        // SAFETY: `out` is 64 writable bytes; no alignment requirement.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), ks) };
    }
    if E > 0 {
        for (d, k) in extra.iter_mut().zip(counters.iter()) {
            *d ^= *k;
        }
        counters.zeroize();
    }
}
