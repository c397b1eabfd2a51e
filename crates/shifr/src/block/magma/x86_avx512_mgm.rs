//! MGM's counter modes (RFC 9058, [`crate::block::BlockCipher::half_ctr_xor`]) on the AVX-512
//! Magma kernel (`x86_avx512`), in the Magma byte order (big-endian halves), with the counters made
//! in registers.
//!
//! A counter block's left half is its `a_1` word and its right half its `a_0` word, so sixteen
//! consecutive `incr_r` counters (MGM's `Y_i`) are, after the kernel's split into an `a_0` and an
//! `a_1` register, the broadcast right half plus the lane index (a 32-bit add, which wraps mod
//! 2^32 as the standard's counter does) and the broadcast left half; `incr_l` (MGM's `Z_i`) the
//! other way round. No shuffle and no memory on the way in; the key stream is XORed into the data
//! as it leaves the registers. Four groups of sixteen blocks are interleaved, as in the kernel's
//! own CTR; a tail of at most sixteen blocks after the last pass rides along as a fifth group, so
//! that its latency hides under the pass instead of costing a call of its own.

use core::arch::x86_64::{
    __m512i, _mm512_add_epi32, _mm512_loadu_si512, _mm512_set1_epi32, _mm512_set_epi32,
    _mm512_setzero_si512, _mm512_storeu_si512, _mm512_xor_si512,
};

use zeroize::Zeroize;

use super::nibble::NibbleTables;
use super::soft::Layout;
use super::x86_avx512::{rounds, Avx512Vbmi, Consts, LANES};

/// Bytes of one group of sixteen blocks.
const GROUP_BYTES: usize = 8 * LANES;
/// Groups interleaved per pass: 64 blocks.
const PASS_GROUPS: usize = 4;
/// Bytes of one pass.
const PASS_BYTES: usize = PASS_GROUPS * GROUP_BYTES;

/// XORs `E(c) || E(inc(c)) || ...` into `data` (the last block may be partial), `c` the counter
/// block `counter` (big-endian) and `inc` adding one to its left (`LEFT`) or right half mod 2^32,
/// under the key words `words` with the Magma byte order.
pub(super) fn half_ctr_xor<const LEFT: bool>(
    _proof: Avx512Vbmi,
    words: &[u32; 8],
    tables: &NibbleTables,
    counter: u64,
    data: &mut [u8],
) {
    // SAFETY: an `Avx512Vbmi` exists only when the CPU has AVX-512 F, BW and VBMI.
    unsafe { run::<LEFT>(words, tables, counter, data) }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn run<const LEFT: bool>(words: &[u32; 8], tables: &NibbleTables, counter: u64, data: &mut [u8]) {
    let c = Consts::new(tables, Layout::BigEndian);
    let key: [__m512i; 8] = core::array::from_fn(|i| _mm512_set1_epi32(words[i] as i32));
    let (left, right) = ((counter >> 32) as u32, counter as u32);
    // The counting half's value at the first block of each pass, and the fixed half.
    let (mut count, fixed) = if LEFT { (left, right) } else { (right, left) };
    let passes = data.len() / PASS_BYTES;
    let (mut data, mut rest) = data.split_at_mut(passes * PASS_BYTES);
    for i in 0..passes {
        let (chunk, more) = core::mem::take(&mut data).split_at_mut(PASS_BYTES);
        data = more;
        if i + 1 == passes && !rest.is_empty() && rest.len() <= GROUP_BYTES {
            // A tail of at most one group rides along as a fifth group: its latency hides
            // under the pass (MGM's steps end with such a tail, the length block's `H`).
            let tail = core::mem::take(&mut rest);
            groups::<{ PASS_GROUPS + 1 }, LEFT>(chunk, tail, count, fixed, &key, &c);
        } else {
            groups::<PASS_GROUPS, LEFT>(chunk, &mut [], count, fixed, &key, &c);
        }
        count = count.wrapping_add((PASS_BYTES / 8) as u32);
    }
    if !rest.is_empty() {
        // The last pass, as few groups as cover it, its last group partial or not.
        let whole = rest.len() / GROUP_BYTES * GROUP_BYTES;
        let (full, tail) = rest.split_at_mut(whole);
        let (k, c) = (&key, &c);
        match rest_groups(full.len(), tail.len()) {
            1 => groups::<1, LEFT>(full, tail, count, fixed, k, c),
            2 => groups::<2, LEFT>(full, tail, count, fixed, k, c),
            3 => groups::<3, LEFT>(full, tail, count, fixed, k, c),
            _ => groups::<PASS_GROUPS, LEFT>(full, tail, count, fixed, k, c),
        }
    }
}

/// Groups that cover `full` bytes of whole groups and a `tail` of a partial one.
fn rest_groups(full: usize, tail: usize) -> usize {
    full / GROUP_BYTES + usize::from(tail > 0)
}

/// XORs the key stream of `16 * G` counter blocks into `data` (whole groups) and then into `tail`
/// (the last group, which may be partial or empty; empty when `data` holds all `G` groups): block
/// `i` has `count + i` (mod 2^32) in its counting half and `fixed` in the other.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn groups<const G: usize, const LEFT: bool>(
    data: &mut [u8],
    tail: &mut [u8],
    count: u32,
    fixed: u32,
    key: &[__m512i; 8],
    c: &Consts,
) {
    let lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    let fixed = _mm512_set1_epi32(fixed as i32);
    let mut state = [[_mm512_setzero_si512(); 2]; G];
    for (g, s) in state.iter_mut().enumerate() {
        let first = count.wrapping_add((g * LANES) as u32);
        let counting = _mm512_add_epi32(_mm512_set1_epi32(first as i32), lanes);
        // `[a_0, a_1]`: the right half, then the left.
        *s = if LEFT {
            [fixed, counting]
        } else {
            [counting, fixed]
        };
    }
    rounds::<G, false>(&mut state, &[*key; G], c);
    let whole = data.len() / GROUP_BYTES;
    for (g, s) in state.iter().enumerate() {
        // The rounds end without the last swap: the a_0 word is in s[1].
        let [x, y] = c.join([s[1], s[0]]);
        if g < whole {
            let group = &mut data[g * GROUP_BYTES..(g + 1) * GROUP_BYTES];
            // SAFETY: `group` is exactly 128 readable and writable bytes, read and written as
            // two unaligned 64-byte halves.
            unsafe {
                let p = group.as_mut_ptr();
                let (dx, dy) = (
                    _mm512_loadu_si512(p.cast()),
                    _mm512_loadu_si512(p.add(64).cast()),
                );
                _mm512_storeu_si512(p.cast(), _mm512_xor_si512(dx, x));
                _mm512_storeu_si512(p.add(64).cast(), _mm512_xor_si512(dy, y));
            }
        } else if g == whole && !tail.is_empty() {
            let mut ks = [0u8; GROUP_BYTES];
            // SAFETY: `ks` is 128 writable bytes, written as two unaligned 64-byte halves.
            unsafe {
                _mm512_storeu_si512(ks.as_mut_ptr().cast(), x);
                _mm512_storeu_si512(ks.as_mut_ptr().add(64).cast(), y);
            }
            for (d, k) in tail.iter_mut().zip(ks.iter()) {
                *d ^= *k;
            }
            ks.zeroize();
        }
    }
}
