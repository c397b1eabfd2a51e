//! Sixteen Kuznyechik streams at once, position-sliced, for the multi-stream feedback modes of the
//! constant-time backend (AVX-512 F/BW/VBMI and GFNI): CBC encryption, CFB (both directions) and the
//! CBC-MAC chain of OMAC, when a chunk has more than eight streams (`x86_avx512_gfni_streams` runs the
//! rest).
//!
//! Why a second layout: the lane-per-block kernel broadcasts each of the 16 block bytes across its
//! lane (`VPSHUFB`) before multiplying it by L's column, so every four blocks cost sixteen shuffles
//! and sixteen `GF2P8MULB` per round, and the shuffles and products compete for the same two vector
//! ports. Here the 16 blocks of a step are transposed once (per block step, off the chain) so that
//! register `R` lane `k` byte `s` holds byte position `4R + k` of stream `s`. Then each byte of a
//! 128-bit lane needs the same coefficient of L, and all of L is sixteen products per output
//! register: the four input registers, each in its four lane rotations (`VSHUFI64X2`, twelve per
//! round for all sixteen blocks), times constant vectors of L's coefficients — 64 `GF2P8MULB`, 12
//! lane rotations and 32 three-input XORs per round for sixteen blocks, against 64 products *and*
//! 64 byte shuffles in the lane-per-block form.
//!
//! The S-box is byte-wise, so it is the same four-register `VPERMI2B` lookup in any layout (its bit-7
//! mask comes from `VPTESTMB`, which leaves the port of the products free); the change of basis
//! (`GF2P8AFFINEQB`) is byte-wise too. Round keys are transposed once per call; chaining values stay
//! transposed and in the AES-field basis from block to block, and only the data crossing in and out
//! is transposed (eight `VPERMI2B`, its own inverse) and mapped. Constant-time: register lookups,
//! permutes and fixed-latency arithmetic only; the addresses touched depend only on the (public)
//! stream lengths, never on keys or data.

use core::arch::x86_64::{
    __m128i, __m512i, _mm512_castsi128_si512, _mm512_extracti32x4_epi32,
    _mm512_gf2p8affine_epi64_epi8, _mm512_gf2p8mul_epi8, _mm512_inserti32x4, _mm512_loadu_si512,
    _mm512_mask_blend_epi8, _mm512_permutex2var_epi8, _mm512_set1_epi64, _mm512_set1_epi8,
    _mm512_setzero_si512, _mm512_shuffle_i64x2, _mm512_storeu_si512, _mm512_ternarylogic_epi64,
    _mm512_test_epi8_mask, _mm512_xor_si512, _mm_loadu_si128, _mm_setzero_si128, _mm_storeu_si128,
};
use std::sync::OnceLock;

use zeroize::Zeroize;

use super::aes_field::{gfni_constants, GfniConstants};
use super::x86_avx512_gfni::GfniKeys;
use crate::block::Feedback;

/// The four modes, as a const parameter of the block loop.
const CBC: u8 = 0;
const CFB_ENCRYPT: u8 = 1;
const CFB_DECRYPT: u8 = 2;

/// L's coefficients and the transpose indices for the position-sliced layout, built once.
struct Sliced {
    /// `products[16 * out + 4 * input + t]`, lane `k`: the coefficient of L (AES-field basis) that
    /// carries byte position `4 * input + (k + t) % 4` into position `4 * out + k`, in all 16 bytes.
    products: [[u8; 64]; 64],
    /// `VPERMI2B` indices of the two stages of the 16x16 byte transpose (see [`transpose`]).
    first: [[u8; 64]; 2],
    second: [[u8; 64]; 2],
}

fn sliced() -> &'static Sliced {
    static SLICED: OnceLock<Sliced> = OnceLock::new();
    SLICED.get_or_init(|| {
        let columns = &gfni_constants().l_columns;
        Sliced {
            products: core::array::from_fn(|n| {
                let (out, input, t) = (n / 16, n / 4 % 4, n % 4);
                core::array::from_fn(|b| {
                    let k = b / 16;
                    columns[4 * input + (k + t) % 4][4 * out + k]
                })
            }),
            first: core::array::from_fn(|h| core::array::from_fn(|w| first_index(h, w))),
            second: core::array::from_fn(|h| core::array::from_fn(|b| second_index(h, b))),
        }
    })
}

/// The transpose swaps the two indices of a 16x16 byte matrix held in four registers, register
/// `v` byte `16 * l + p` being row `4v + l`, column `p`. Stage one, output `(g, h)` (rows `8g..8g+8`
/// of the source, going to destination registers `2h, 2h + 1`), byte `w` holds destination register
/// `2h + w / 32`, lane `w % 32 / 8`, from source row `8g + w % 8`. Its index depends only on `h`.
fn first_index(h: usize, w: usize) -> u8 {
    let dest = 2 * h + w / 32;
    let column = 4 * dest + w % 32 / 8;
    let row_in_pair = w % 8;
    (64 * (row_in_pair / 4) + 16 * (row_in_pair % 4) + column) as u8
}

/// Stage two: destination register `R` (`h = R / 2`) byte `b` (row `4R + b / 16` of the result,
/// column `b % 16` = source row) from stage-one output `(b % 16 / 8, h)`. Depends only on `R % 2`.
fn second_index(odd: usize, b: usize) -> u8 {
    let source_row = b % 16;
    (64 * (source_row / 8) + 32 * odd + 8 * (b / 16) + source_row % 8) as u8
}

/// Ten round keys in the sliced layout, four registers' worth each.
type Keys = [[[u8; 64]; 4]; 10];

/// The constants as registers (the products stay in memory, as instruction operands).
struct Registers {
    sbox: [__m512i; 4],
    bit7: __m512i,
    to_aes: __m512i,
    from_aes: __m512i,
    first: [__m512i; 2],
    second: [__m512i; 2],
}

#[inline]
#[target_feature(enable = "avx512f")]
fn load64(bytes: &[u8; 64]) -> __m512i {
    // SAFETY: `bytes` is 64 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm512_loadu_si512(bytes.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "avx512f")]
fn load_registers(c: &GfniConstants, s: &Sliced) -> Registers {
    Registers {
        sbox: core::array::from_fn(|i| {
            // SAFETY: `64 * i + 64 <= 256`: the 64 bytes read lie inside the table.
            unsafe { _mm512_loadu_si512(c.sbox.as_ptr().add(64 * i).cast()) }
        }),
        bit7: _mm512_set1_epi8(-128),
        to_aes: _mm512_set1_epi64(c.to_aes as i64),
        from_aes: _mm512_set1_epi64(c.from_aes as i64),
        first: s.first.each_ref().map(|b| load64(b)),
        second: s.second.each_ref().map(|b| load64(b)),
    }
}

#[inline]
#[target_feature(enable = "avx512f")]
fn xor3(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
    _mm512_ternarylogic_epi64::<0x96>(a, b, c)
}

/// Rows and columns of the 16x16 byte matrix in `a` swapped (its own inverse): eight `VPERMI2B`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn transpose(a: [__m512i; 4], r: &Registers) -> [__m512i; 4] {
    let mut w = [[_mm512_setzero_si512(); 2]; 2];
    for (g, pair) in w.iter_mut().enumerate() {
        for (h, v) in pair.iter_mut().enumerate() {
            *v = _mm512_permutex2var_epi8(a[2 * g], r.first[h], a[2 * g + 1]);
        }
    }
    let mut out = [_mm512_setzero_si512(); 4];
    for (dest, v) in out.iter_mut().enumerate() {
        let h = dest / 2;
        *v = _mm512_permutex2var_epi8(w[0][h], r.second[dest % 2], w[1][h]);
    }
    out
}

/// The S-box on every byte, from the table in four registers.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn substitute(x: __m512i, r: &Registers) -> __m512i {
    let t = &r.sbox;
    let low = _mm512_permutex2var_epi8(t[0], x, t[1]);
    let high = _mm512_permutex2var_epi8(t[2], x, t[3]);
    _mm512_mask_blend_epi8(_mm512_test_epi8_mask(x, r.bit7), low, high)
}

/// Sixteen products and a round key summed by three-input XORs, as a tree.
#[inline]
#[target_feature(enable = "avx512f")]
fn sum17(p: &[__m512i; 16], k: __m512i) -> __m512i {
    let a = xor3(p[0], p[1], p[2]);
    let b = xor3(p[3], p[4], p[5]);
    let c = xor3(p[6], p[7], p[8]);
    let d = xor3(p[9], p[10], p[11]);
    let e = xor3(p[12], p[13], p[14]);
    xor3(xor3(a, b, c), xor3(d, e, p[15]), k)
}

/// One round after the first key addition: `L(S(x)) ^ k` on sixteen sliced blocks. Plain loops of
/// constant length (unrolled by the compiler) rather than closures, which it may leave out of line.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn round(
    x: &[__m512i; 4],
    r: &Registers,
    products: &[[u8; 64]; 64],
    k: &[[u8; 64]; 4],
) -> [__m512i; 4] {
    // Lane k of rotation t holds lane (k + t) % 4.
    let mut rotated = [_mm512_setzero_si512(); 16];
    for i in 0..4 {
        let s = substitute(x[i], r);
        rotated[4 * i] = s;
        rotated[4 * i + 1] = _mm512_shuffle_i64x2::<0x39>(s, s);
        rotated[4 * i + 2] = _mm512_shuffle_i64x2::<0x4e>(s, s);
        rotated[4 * i + 3] = _mm512_shuffle_i64x2::<0x93>(s, s);
    }
    let mut next = [_mm512_setzero_si512(); 4];
    for out in 0..4 {
        let mut p = [_mm512_setzero_si512(); 16];
        for n in 0..16 {
            p[n] = _mm512_gf2p8mul_epi8(rotated[n], load64(&products[16 * out + n]));
        }
        next[out] = sum17(&p, load64(&k[out]));
    }
    next
}

/// Rounds 1..9 after the first key addition (`x` already holds `X ^ K_1`), ending with `K_10`;
/// `keys` holds the ten sliced round keys, four registers each.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn rounds(mut x: [__m512i; 4], r: &Registers, s: &Sliced, keys: &Keys) -> [__m512i; 4] {
    for k in &keys[1..] {
        x = round(&x, r, &s.products, k);
    }
    x
}

/// The first 16 bytes of `block`, or zero where there is none.
#[inline]
#[target_feature(enable = "avx512f")]
fn load_lane(block: Option<&[u8]>) -> __m128i {
    match block.and_then(|b| b.get(..16)) {
        // SAFETY: `b` is 16 readable bytes; `loadu` has no alignment requirement.
        Some(b) => unsafe { _mm_loadu_si128(b.as_ptr().cast()) },
        None => _mm_setzero_si128(),
    }
}

/// The first 16 bytes of each of sixteen blocks (zero where one is missing), block `4v + l` in
/// lane `l` of register `v`.
#[inline]
#[target_feature(enable = "avx512f")]
fn load_blocks(blocks: &[Option<&[u8]>; 16]) -> [__m512i; 4] {
    let mut out = [_mm512_setzero_si512(); 4];
    for (v, x) in out.iter_mut().enumerate() {
        let y = _mm512_castsi128_si512(load_lane(blocks[4 * v]));
        let y = _mm512_inserti32x4::<1>(y, load_lane(blocks[4 * v + 1]));
        let y = _mm512_inserti32x4::<2>(y, load_lane(blocks[4 * v + 2]));
        *x = _mm512_inserti32x4::<3>(y, load_lane(blocks[4 * v + 3]));
    }
    out
}

/// Writes lane `l` of register `v` to `out[4v + l]` (first 16 bytes), for the blocks there are.
#[inline]
#[target_feature(enable = "avx512f")]
fn store_blocks<'a>(out: impl Iterator<Item = &'a mut [u8]>, x: [__m512i; 4]) {
    let mut lanes = [_mm_setzero_si128(); 16];
    for v in 0..4 {
        lanes[4 * v] = _mm512_extracti32x4_epi32::<0>(x[v]);
        lanes[4 * v + 1] = _mm512_extracti32x4_epi32::<1>(x[v]);
        lanes[4 * v + 2] = _mm512_extracti32x4_epi32::<2>(x[v]);
        lanes[4 * v + 3] = _mm512_extracti32x4_epi32::<3>(x[v]);
    }
    for (block, lane) in out.zip(lanes) {
        if let Some(block) = block.get_mut(..16) {
            // SAFETY: `block` is 16 writable bytes; `storeu` has no alignment requirement.
            unsafe { _mm_storeu_si128(block.as_mut_ptr().cast(), lane) };
        }
    }
}

/// Block `at..at + 16` of each of up to sixteen streams.
fn blocks_at<'a>(streams: impl Iterator<Item = &'a [u8]>, at: usize) -> [Option<&'a [u8]>; 16] {
    let mut out = [None; 16];
    for (slot, stream) in out.iter_mut().zip(streams) {
        *slot = stream.get(at..);
    }
    out
}

/// Sixteen blocks from wire order and layout into the sliced layout and the AES-field basis.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn slice_in(x: [__m512i; 4], r: &Registers) -> [__m512i; 4] {
    let mut t = transpose(x, r);
    for v in t.iter_mut() {
        *v = _mm512_gf2p8affine_epi64_epi8::<0>(*v, r.to_aes);
    }
    t
}

/// The inverse of [`slice_in`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn slice_out(x: [__m512i; 4], r: &Registers) -> [__m512i; 4] {
    let mut x = x;
    for v in x.iter_mut() {
        *v = _mm512_gf2p8affine_epi64_epi8::<0>(*v, r.from_aes);
    }
    transpose(x, r)
}

/// Runs `run` over up to sixteen streams (one key each, all of one whole-block length), chaining
/// from and back into `registers` (sixteen bytes per key). The caller has checked the CPU features
/// (a `GfniKeys` proves them) and the shapes.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
pub(super) fn feedback(keys: &[&GfniKeys], registers: &mut [u8], run: &mut Feedback) {
    let s = sliced();
    let r = load_registers(gfni_constants(), s);
    // Round keys sliced like the data: stream `4v + l`'s key in lane `l` of register `v`, then
    // transposed. Streams past the last repeat its keys; their blocks are never stored.
    let mut sliced_keys: Keys = [[[0u8; 64]; 4]; 10];
    for (i, sliced) in sliced_keys.iter_mut().enumerate() {
        let mut round_keys = [None; 16];
        for (stream, slot) in round_keys.iter_mut().enumerate() {
            *slot = keys.get(stream).or(keys.last()).map(|k| &k.keys[i][..]);
        }
        let gathered = load_blocks(&round_keys);
        for (slot, v) in sliced.iter_mut().zip(transpose(gathered, &r)) {
            // SAFETY: `slot` is 64 writable bytes; `storeu` has no alignment requirement.
            unsafe { _mm512_storeu_si512(slot.as_mut_ptr().cast(), v) };
        }
    }
    let blocks = run.stream_len(0).unwrap_or(0) / 16;
    let mut chain = slice_in(load_blocks(&blocks_at(registers.chunks_exact(16), 0)), &r);
    match run {
        Feedback::CbcEncrypt(streams) => {
            blocks_mut::<CBC>(&r, s, &sliced_keys, &mut chain, streams, blocks)
        }
        Feedback::CfbEncrypt(streams) => {
            blocks_mut::<CFB_ENCRYPT>(&r, s, &sliced_keys, &mut chain, streams, blocks)
        }
        Feedback::CfbDecrypt(streams) => {
            blocks_mut::<CFB_DECRYPT>(&r, s, &sliced_keys, &mut chain, streams, blocks)
        }
        Feedback::CbcMac(streams) => mac(&r, s, &sliced_keys, &mut chain, streams, blocks),
    }
    store_blocks(registers.chunks_exact_mut(16), slice_out(chain, &r));
    sliced_keys.zeroize();
}

/// The first key addition, from the sliced keys.
#[inline]
#[target_feature(enable = "avx512f")]
fn first_key(x: [__m512i; 4], y: [__m512i; 4], keys: &Keys) -> [__m512i; 4] {
    let mut out = x;
    for i in 0..4 {
        out[i] = xor3(x[i], y[i], load64(&keys[0][i]));
    }
    out
}

/// The block loop of CBC encryption and CFB: each stream's blocks are read and overwritten.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn blocks_mut<const MODE: u8>(
    r: &Registers,
    s: &Sliced,
    keys: &Keys,
    chain: &mut [__m512i; 4],
    streams: &mut [&mut [u8]],
    blocks: usize,
) {
    let zero = [_mm512_setzero_si512(); 4];
    for b in 0..blocks {
        let at = 16 * b;
        let input = slice_in(load_blocks(&blocks_at(streams.iter().map(|d| &**d), at)), r);
        let out = if MODE == CBC {
            *chain = rounds(first_key(*chain, input, keys), r, s, keys);
            *chain
        } else {
            let e = rounds(first_key(*chain, zero, keys), r, s, keys);
            let mut out = e;
            for i in 0..4 {
                out[i] = _mm512_xor_si512(e[i], input[i]);
            }
            *chain = if MODE == CFB_DECRYPT { input } else { out };
            out
        };
        let blocks = streams
            .iter_mut()
            .map(|d| d.get_mut(at..).unwrap_or_default());
        store_blocks(blocks, slice_out(out, r));
    }
}

/// The CBC-MAC block loop: the streams are only read.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn mac(
    r: &Registers,
    s: &Sliced,
    keys: &Keys,
    chain: &mut [__m512i; 4],
    streams: &[&[u8]],
    blocks: usize,
) {
    for b in 0..blocks {
        let at = 16 * b;
        let input = slice_in(load_blocks(&blocks_at(streams.iter().copied(), at)), r);
        *chain = rounds(first_key(*chain, input, keys), r, s, keys);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_swaps_rows_and_columns() {
        if !super::super::x86_avx512_gfni::supported() {
            return;
        }
        let input: [[u8; 64]; 4] =
            core::array::from_fn(|v| core::array::from_fn(|b| (64 * v + b) as u8));
        // SAFETY: the features were checked above.
        let out = unsafe { transpose_bytes(&input) };
        for row in 0..16 {
            for column in 0..16 {
                let at = |r: usize, c: usize| (r / 4, 16 * (r % 4) + c);
                let (v, b) = at(row, column);
                let (tv, tb) = at(column, row);
                assert_eq!(out[tv][tb], input[v][b], "row {row} column {column}");
            }
        }
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
    fn transpose_bytes(input: &[[u8; 64]; 4]) -> [[u8; 64]; 4] {
        let r = load_registers(gfni_constants(), sliced());
        let t = transpose(input.each_ref().map(|b| load64(b)), &r);
        let mut out = [[0u8; 64]; 4];
        for (o, v) in out.iter_mut().zip(t) {
            // SAFETY: `o` is 64 writable bytes; no alignment requirement.
            unsafe { _mm512_storeu_si512(o.as_mut_ptr().cast(), v) };
        }
        out
    }
}
