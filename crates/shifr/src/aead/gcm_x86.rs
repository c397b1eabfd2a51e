//! Stitched AES-GCM on 512-bit VAES and VPCLMULQDQ: one loop makes the counter-mode key stream,
//! XORs it into the data and folds the ciphertext into GHASH, 32 blocks (eight registers of four)
//! per iteration; the GHASH of one iteration's ciphertext runs in the next iteration beside its AES
//! rounds, so the AES and carry-less-multiply units work at the same time and the data crosses
//! memory once. Opening runs the same loop on ciphertext: what it hashes is what it reads instead
//! of what it writes. The rounds are unrolled per key size (10, 12, 14) and the GHASH is spread over
//! them: one register's three Karatsuba multiplies after each of rounds 2 to 9, the register that
//! carries the previous reduction's state last, and the reduction after round 10 (for AES-128,
//! after the last round): what a step needs has had a round or more to come out.
//! On AMD Zen 4 a 512-bit AESENC and a 512-bit PCLMULQDQ each take one cycle of the two ports they
//! share, so the loop's floor is one cycle per AESENC and per multiply (72 + 26 per 512 bytes for
//! AES-128, the first round coming from a table as below); the spreading keeps both kinds of work
//! in the scheduler at once. Karatsuba trades a multiply per register for a qword interleave and
//! half an XOR (two registers' XORs of halves come out of one pair of interleaves and one XOR),
//! which run on other ports; every other vector instruction in the loop (shuffles above all) still
//! takes a share of those ports in practice, so the loop keeps them few.
//!
//! First round from a table: a counter block `c` enters the first round as `c ^ rk0`, and
//! SubBytes works byte by byte, so the round's output is a term of the first 15 bytes of `c` and
//! a term of its last byte alone (see [`first_round_table`]). A group's first round is the common
//! term, made once per 2^8 counters, XORed with 32 consecutive entries of a table of the 256 last
//! bytes kept with the key: eight loads and XORs instead of eight AESENC, counter adds and key
//! XORs. In the group where the last byte wraps (1 in 8), the blocks from the wrap on take the
//! next common term (a masked blend per register), made one wrap ahead.
//!
//! GHASH here uses Montgomery reduction instead of the shift-and-fold of `mac::ghash_x86`. A block
//! loaded byte-reversed is a 128-bit register `a*` whose natural (bit i = x^i) reading is the
//! bit-reversed polynomial; the carry-less product of two such registers is
//! `a* b* = x^127 (a b mod p)* (mod p*)`, p* the reciprocal of GCM's polynomial. Multiplying by a
//! key stored as `(H^k)' = (H^k)* x mod p*` and reducing by x^128 (two folds of 64 bits, each one
//! carry-less multiply by 0xc2 << 56, a qword swap and XORs) therefore gives `(a H^k)*` exactly,
//! fully reduced. Products of all 32 blocks with H^32..H^1 are summed (XOR) before one reduction.
//!
//! Constant-time: AES rounds, carry-less multiplies, shuffles and XORs only; the one branch in the
//! key setup depends on nothing secret (the carry of `H << 1` is applied with a mask). The
//! first-round table holds key material, but which entries are read, and whether a group reads
//! them, follows from the counter values alone, which are public (the IV and the position).

use super::gcm::PreCounter;
use crate::x86_u128::{karatsuba_halves, to_u128, to_vec};
use core::arch::x86_64::{
    __m128i, __m512i, _mm256_castsi256_si128, _mm256_extracti128_si256, _mm512_add_epi32,
    _mm512_aesenc_epi128, _mm512_aesenclast_epi128, _mm512_broadcast_i32x4, _mm512_castsi512_si128,
    _mm512_castsi512_si256, _mm512_clmulepi64_epi128, _mm512_loadu_si512, _mm512_mask_blend_epi64,
    _mm512_mask_blend_epi8, _mm512_mask_storeu_epi8, _mm512_maskz_loadu_epi8,
    _mm512_maskz_mov_epi8, _mm512_set1_epi8, _mm512_set_epi32, _mm512_set_epi64,
    _mm512_setzero_si512, _mm512_shuffle_epi32, _mm512_shuffle_epi8, _mm512_shuffle_i64x2,
    _mm512_storeu_si512, _mm512_ternarylogic_epi64, _mm512_unpackhi_epi64, _mm512_unpacklo_epi64,
    _mm512_xor_si512, _mm512_zextsi128_si512, _mm_aesenc_si128, _mm_aesenclast_si128,
    _mm_clmulepi64_si128, _mm_cvtsi128_si32, _mm_loadu_si128, _mm_or_si128, _mm_set_epi32,
    _mm_set_epi64x, _mm_setzero_si128, _mm_shuffle_epi32, _mm_shuffle_epi8, _mm_srli_si128,
    _mm_storeu_si128, _mm_xor_si128,
};

use zeroize::{Zeroize, ZeroizeOnDrop};

/// Blocks per iteration and per GHASH reduction.
pub(super) const GROUP_BLOCKS: usize = 32;
/// Entries of the first-round table: one per last counter byte, then the first group's again, so
/// that a group whose counters' last byte wraps reads 32 consecutive entries.
const TABLE_LEN: usize = 256 + GROUP_BLOCKS;
/// Entries of the power table: H^32..H^1 and three zeros, so that four lanes loaded from any power
/// stay inside the table (the short-message path starts its loads at any power).
const POWERS_LEN: usize = GROUP_BLOCKS + 3;
/// 512-bit registers per iteration.
const REGS: usize = GROUP_BLOCKS / 4;

/// `x^-1`-free reduction constant: bits 127, 126, 121 and 0 of the natural reading (p* - x^128).
const POLY: u128 = 0xc200_0000_0000_0000_0000_0000_0000_0001;

/// The GHASH key powers and the first-round table for the stitched loop. Holding one proves that the CPU has what the loop
/// needs (AVX-512 F/BW, VAES, VPCLMULQDQ, PCLMULQDQ, SSSE3, AES-NI): [`StitchKey::new`] is the only
/// constructor and checks it.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(super) struct StitchKey {
    /// `powers[k] = (H^(32 - k))'` for `k < 32`, then zeros: block `k` of a group is multiplied
    /// by `H^(32 - k)`; memory order is register and lane order.
    powers: [u128; POWERS_LEN],
    /// `karatsuba[k]`: the XOR of the two 64-bit halves of `powers[k]`, in both halves, for the
    /// middle product of the stitched loop's Karatsuba multiplies (see [`products_karatsuba`]).
    karatsuba: [u128; GROUP_BLOCKS],
    /// `first_round[b % 256]`: what a last counter byte `b` adds to the first AES round's output
    /// of a counter block (see [`first_round_table`]); memory order is lane order, so four
    /// consecutive bytes are one 512-bit load.
    first_round: [u128; TABLE_LEN],
}

impl StitchKey {
    /// Precomputes H^1..H^32 in Montgomery form and the first-round table of the AES key whose
    /// first round key is `rk0`, or `None` when this CPU lacks an instruction. Made in place on
    /// the heap: returned by value, the 5.7 KB went through four copies, a third of a key setup.
    pub(super) fn new(h: &[u8; 16], rk0: &[u8; 16]) -> Option<Box<StitchKey>> {
        let f = crate::cpu::features();
        if !(f.avx512f && f.avx512bw && f.vaes && f.vpclmulqdq && f.pclmulqdq && f.ssse3 && f.aesni)
        {
            return None;
        }
        let h = u128::from_be_bytes(*h);
        // (H)' = H* x mod p*: shift left, and if x^128 came out, add p* - x^128 (masked).
        let carry = (h >> 127).wrapping_neg();
        let h1 = (h << 1) ^ (carry & POLY);
        let mut ascending = [0u128; GROUP_BLOCKS];
        // SAFETY: PCLMULQDQ and SSE2 were checked above.
        crate::util::powers(h1, &mut ascending, |a, b| unsafe { mont_mul_scalar(a, b) });
        let mut key = Box::new(StitchKey {
            powers: [0; POWERS_LEN],
            karatsuba: [0; GROUP_BLOCKS],
            first_round: [0; TABLE_LEN],
        });
        for (k, p) in key.powers[..GROUP_BLOCKS].iter_mut().enumerate() {
            *p = ascending[GROUP_BLOCKS - 1 - k];
        }
        ascending.zeroize();
        for (m, p) in key.karatsuba.iter_mut().zip(&key.powers) {
            *m = karatsuba_halves(*p);
        }
        // SAFETY: AVX-512 F and VAES were checked above.
        unsafe { first_round_table(rk0, &mut key.first_round) };
        Some(key)
    }

    /// CTR-encrypts (or, with `DECRYPT`, decrypts) the whole 32-block groups of `data` in place
    /// with the inc32 counters from `inc32(j0)` (AES round keys `keys[..=rounds]` of a 512-bit VAES
    /// key) and folds the ciphertext (what it writes, or with `DECRYPT` what it reads) into the
    /// GHASH state `y` (wire order). Returns the bytes processed.
    pub(super) fn crypt<const DECRYPT: bool>(
        &self,
        keys: &[[u8; 16]],
        rounds: usize,
        j0: PreCounter<'_>,
        y: &mut [u8; 16],
        data: &mut [u8],
    ) -> usize {
        let whole = data.len() / (16 * GROUP_BLOCKS) * (16 * GROUP_BLOCKS);
        // AES-128, -192 and -256 only: the loop is unrolled for those round counts.
        if whole == 0 || !matches!(rounds, 10 | 12 | 14) || keys.len() <= rounds {
            return 0;
        }
        // SAFETY: a `StitchKey` exists only if the CPU has every feature the loop enables.
        unsafe { crypt_groups::<DECRYPT>(keys, rounds, j0, self, y, &mut data[..whole]) };
        whole
    }

    /// Folds `data` (zero-padded to whole blocks) into the GHASH state `y` (wire order) with one
    /// reduction, when it is at most [`GROUP_BLOCKS`] blocks; `false`, touching nothing, when it
    /// is longer.
    pub(super) fn absorb(&self, y: &mut [u8; 16], data: &[u8]) -> bool {
        if data.len().div_ceil(16) > GROUP_BLOCKS {
            return false;
        }
        if !data.is_empty() {
            // SAFETY: a `StitchKey` exists only if the CPU has every feature the function enables.
            unsafe { absorb_blocks(&self.powers, y, data) };
        }
        true
    }

    /// Seals (or, with `DECRYPT`, opens) a whole message whose text is a non-empty multiple of 32
    /// blocks and whose AAD is at most [`GROUP_BLOCKS`] blocks in one call: the AAD hashed with
    /// one reduction, the stitched loop, the length block and `E_K(J0)`, the GHASH state kept in
    /// a register throughout. Returns the full tag (of the ciphertext: to compare, when
    /// opening), or `None`, touching nothing, when the lengths do not fit or `keys[..=rounds]`
    /// are not round keys of a 512-bit VAES key.
    pub(super) fn crypt_message<const DECRYPT: bool>(
        &self,
        keys: &[[u8; 16]],
        rounds: usize,
        j0: PreCounter<'_>,
        aad: &[u8],
        data: &mut [u8],
    ) -> Option<[u8; 16]> {
        if data.is_empty()
            || !data.len().is_multiple_of(16 * GROUP_BLOCKS)
            || aad.len().div_ceil(16) > GROUP_BLOCKS
            || !matches!(rounds, 10 | 12 | 14)
            || keys.len() <= rounds
        {
            return None;
        }
        // SAFETY: a `StitchKey` exists only if the CPU has every feature the function enables.
        Some(unsafe { crypt_message_groups::<DECRYPT>(keys, rounds, j0, self, aad, data) })
    }

    /// Whether `aad_len` bytes of AAD and `text_len` bytes of text fit one call of
    /// [`StitchKey::finish`]: with the length block at most [`GROUP_BLOCKS`] GHASH blocks.
    pub(super) fn fits_finish(aad_len: usize, text_len: usize) -> bool {
        aad_len.div_ceil(16) + text_len.div_ceil(16) < GROUP_BLOCKS
    }

    /// Ends a message in one pass: hashes `tail.aad` and encrypts `tail.text` (or, with
    /// `DECRYPT`, decrypts it, hashing what it reads), with the 512-bit VAES key stream (counters from
    /// `inc32^(1 + tail.skipped_blocks)(J0)`) XORed in by masked loads and stores; the GHASH state
    /// so far, the AAD, the text and the length block are multiplied by H^n..H^1 and summed before
    /// one reduction, and `E_K(J0)` runs beside them. Returns the full tag, or `None`, touching
    /// nothing, when the rest does not [fit](StitchKey::fits_finish) or `keys[..=rounds]` are not
    /// round keys of a 512-bit VAES key.
    pub(super) fn finish<const DECRYPT: bool>(
        &self,
        keys: &[[u8; 16]],
        rounds: usize,
        j0: PreCounter<'_>,
        tail: Tail<'_>,
    ) -> Option<[u8; 16]> {
        if !Self::fits_finish(tail.aad.len(), tail.text.len())
            || !matches!(rounds, 10 | 12 | 14)
            || keys.len() <= rounds
        {
            return None;
        }
        // SAFETY: a `StitchKey` exists only if the CPU has every feature the function enables.
        Some(unsafe { finish_message::<DECRYPT>(keys, rounds, j0, &self.powers, tail) })
    }
}

/// What [`StitchKey::finish`] still has to do for a message.
pub(super) struct Tail<'a> {
    /// The GHASH state (wire order) after the blocks hashed before; zero at the start.
    pub(super) state: [u8; 16],
    /// Text blocks before `text`.
    pub(super) skipped_blocks: usize,
    /// AAD to hash first: all of it, or none when it was hashed before.
    pub(super) aad: &'a [u8],
    /// The rest of the text.
    pub(super) text: &'a mut [u8],
    /// The whole message's AAD and text lengths in bytes, for the length block.
    pub(super) aad_len: usize,
    pub(super) text_len: usize,
}

/// Fills the first-round table of [`StitchKey`]. A counter block `c` enters the first AES round as
/// `c ^ rk0`, and SubBytes works byte by byte, so the round's output is the sum of two terms: the
/// round of `c ^ rk0` with its last byte replaced by 0x52 (which SubBytes maps to zero), the same
/// for every block whose first 15 bytes are those of `c` ([`first_round_base`]), and
/// `MixColumns(ShiftRows(SubBytes(c_15 ^ rk0_15) in byte 15, zeros elsewhere))`, which depends on
/// the last byte alone: entry `c_15`, made here by AESENC with a zero round key of the block of
/// 0x52 bytes that ends in `c_15 ^ rk0_15`, four entries per 512-bit AESENC.
#[target_feature(enable = "avx512f,vaes")]
fn first_round_table(rk0: &[u8; 16], table: &mut [u128; TABLE_LEN]) {
    let mut y = [0x52u8; 16];
    y[15] = rk0[15];
    let x = broadcast_key(&y);
    y.zeroize();
    // Four entries per AESENC: lane l of step j ends in `rk0_15 ^ (4j + l) mod 256`.
    for (j, t) in table.chunks_exact_mut(4).enumerate() {
        let b = |l: usize| i32::from((4 * j + l) as u8) << 24;
        let ends = _mm512_set_epi32(b(3), 0, 0, 0, b(2), 0, 0, 0, b(1), 0, 0, 0, b(0), 0, 0, 0);
        let v = _mm512_aesenc_epi128(_mm512_xor_si512(x, ends), _mm512_setzero_si512());
        // SAFETY: `t` is four u128 = 64 writable bytes; unaligned store.
        unsafe { _mm512_storeu_si512(t.as_mut_ptr().cast(), v) };
    }
}

/// The first AES round's output for a counter block whose last byte SubBytes maps to zero (see
/// [`first_round_table`]), in every lane: from the first 15 bytes of lane 0 of `reversed` (counter
/// blocks byte-reversed) and the round keys `rk0`, `rk1` (broadcast).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes")]
fn first_round_base(reversed: __m512i, rk0: __m512i, rk1: __m512i) -> __m512i {
    let x = _mm512_xor_si512(reverse_lanes(reversed), rk0);
    // Byte 15 of every lane.
    let x = _mm512_mask_blend_epi8(0x8000_8000_8000_8000, x, _mm512_set1_epi8(0x52));
    _mm512_broadcast_i32x4(_mm512_castsi512_si128(_mm512_aesenc_epi128(x, rk1)))
}

/// Montgomery product of two 128-bit registers (scalar in and out), for the key powers.
#[target_feature(enable = "pclmulqdq,sse2")]
fn mont_mul_scalar(a: u128, b: u128) -> u128 {
    to_u128(mont_mul(to_vec(a), to_vec(b)))
}

/// Montgomery product `a b x^-128 mod p*` of two 128-bit registers, fully reduced.
#[inline]
#[target_feature(enable = "pclmulqdq,sse2")]
fn mont_mul(va: __m128i, vb: __m128i) -> __m128i {
    let lo = _mm_clmulepi64_si128::<0x00>(va, vb);
    let hi = _mm_clmulepi64_si128::<0x11>(va, vb);
    let mid = _mm_xor_si128(
        _mm_clmulepi64_si128::<0x01>(va, vb),
        _mm_clmulepi64_si128::<0x10>(va, vb),
    );
    let poly = to_vec(POLY);
    // Fold the low 64 bits twice: lo into mid, then mid into hi (see the module doc).
    let t = _mm_clmulepi64_si128::<0x10>(lo, poly);
    let mid = _mm_xor_si128(mid, _mm_xor_si128(t, _mm_shuffle_epi32::<0x4e>(lo)));
    let t = _mm_clmulepi64_si128::<0x10>(mid, poly);
    _mm_xor_si128(hi, _mm_xor_si128(t, _mm_shuffle_epi32::<0x4e>(mid)))
}

/// Reverses the bytes of each 128-bit lane (GCM blocks are big-endian).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn reverse_lanes(v: __m512i) -> __m512i {
    let (hi, lo) = (0x0001_0203_0405_0607_i64, 0x0809_0a0b_0c0d_0e0f_i64);
    _mm512_shuffle_epi8(v, _mm512_set_epi64(hi, lo, hi, lo, hi, lo, hi, lo))
}

/// `n` added to the 32-bit word 0 of every 128-bit lane (`n + lane` when `per_lane`).
#[inline]
#[target_feature(enable = "avx512f")]
fn lane_counter(n: i32, per_lane: bool) -> __m512i {
    let d = i32::from(per_lane);
    _mm512_set_epi32(
        0,
        0,
        0,
        n + 3 * d,
        0,
        0,
        0,
        n + 2 * d,
        0,
        0,
        0,
        n + d,
        0,
        0,
        0,
        n,
    )
}

/// XOR of the four 128-bit lanes: the halves swapped and added, then the two lanes of the low
/// half (two lane moves instead of three extracts).
#[inline]
#[target_feature(enable = "avx512f")]
fn fold_lanes(v: __m512i) -> __m128i {
    let v = _mm512_castsi512_si256(_mm512_xor_si512(v, _mm512_shuffle_i64x2::<0x4e>(v, v)));
    _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v))
}

/// `acc += x * h` lane by lane, unreduced (low, middle, high products).
#[inline]
#[target_feature(enable = "avx512f,vpclmulqdq")]
fn accumulate(acc: &mut [__m512i; 3], x: __m512i, h: __m512i) {
    acc[0] = _mm512_xor_si512(acc[0], _mm512_clmulepi64_epi128::<0x00>(x, h));
    acc[1] = _mm512_xor_si512(acc[1], _mm512_clmulepi64_epi128::<0x01>(x, h));
    acc[1] = _mm512_xor_si512(acc[1], _mm512_clmulepi64_epi128::<0x10>(x, h));
    acc[2] = _mm512_xor_si512(acc[2], _mm512_clmulepi64_epi128::<0x11>(x, h));
}

/// Montgomery reduction of the summed products `acc` in all four lanes at once (the reduction is
/// linear), then the XOR of the lanes.
#[inline]
#[target_feature(enable = "avx512f,vpclmulqdq")]
fn reduce(acc: &[__m512i; 3]) -> __m128i {
    let poly = _mm512_broadcast_i32x4(to_vec(POLY));
    let [lo, mid, hi] = *acc;
    let t = _mm512_clmulepi64_epi128::<0x10>(lo, poly);
    let mid = _mm512_xor_si512(mid, _mm512_xor_si512(t, _mm512_shuffle_epi32::<0x4e>(lo)));
    let t = _mm512_clmulepi64_epi128::<0x10>(mid, poly);
    fold_lanes(_mm512_xor_si512(
        hi,
        _mm512_xor_si512(t, _mm512_shuffle_epi32::<0x4e>(mid)),
    ))
}

/// Tells the compiler that the AES states and the GHASH sums pass through here, so that its
/// instruction scheduler keeps each round's AES instructions and the GHASH step placed after them
/// together instead of gathering all carry-less multiplies of a group in one block: on CPUs whose
/// AES and carry-less multiply share execution ports (AMD Zen 4), a block of 34 dependent
/// multiplies in front of the AES rounds fills the scheduler and leaves the AES ports idle.
#[inline]
#[target_feature(enable = "avx512f")]
fn round_fence(s: &mut [__m512i; REGS], acc: &mut [__m512i; 6]) {
    let [s0, s1, s2, s3, s4, s5, s6, s7] = s;
    let [a0, a1, a2, a3, a4, a5] = acc;
    // SAFETY: the template is only a comment: no instruction is emitted, no memory, flag or stack
    // is touched, and every register operand comes back unchanged.
    unsafe {
        core::arch::asm!(
            "/* {0} {1} {2} {3} {4} {5} {6} {7} {8} {9} {10} {11} {12} {13} */",
            inout(zmm_reg) * s0,
            inout(zmm_reg) * s1,
            inout(zmm_reg) * s2,
            inout(zmm_reg) * s3,
            inout(zmm_reg) * s4,
            inout(zmm_reg) * s5,
            inout(zmm_reg) * s6,
            inout(zmm_reg) * s7,
            inout(zmm_reg) * a0,
            inout(zmm_reg) * a1,
            inout(zmm_reg) * a2,
            inout(zmm_reg) * a3,
            inout(zmm_reg) * a4,
            inout(zmm_reg) * a5,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
}

#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq,pclmulqdq,ssse3")]
fn crypt_groups<const DECRYPT: bool>(
    keys: &[[u8; 16]],
    rounds: usize,
    j0: PreCounter<'_>,
    key: &StitchKey,
    state: &mut [u8; 16],
    data: &mut [u8],
) {
    match rounds {
        10 => crypt_rounds::<10, DECRYPT>(keys, j0, key, state, data),
        12 => crypt_rounds::<12, DECRYPT>(keys, j0, key, state, data),
        _ => crypt_rounds::<14, DECRYPT>(keys, j0, key, state, data),
    }
}

/// [`crypt_groups`] for AES with `R` rounds (round keys `keys[..=R]`): the GHASH state is loaded
/// and stored around [`stitch_rounds`].
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq,pclmulqdq,ssse3")]
fn crypt_rounds<const R: usize, const DECRYPT: bool>(
    keys: &[[u8; 16]],
    j0: PreCounter<'_>,
    key: &StitchKey,
    state: &mut [u8; 16],
    data: &mut [u8],
) {
    let reverse = _mm_set_epi64x(0x0001_0203_0405_0607, 0x0809_0a0b_0c0d_0e0f);
    // SAFETY: `state` is 16 readable bytes; unaligned load.
    let y = unsafe { _mm_shuffle_epi8(_mm_loadu_si128(state.as_ptr().cast()), reverse) };
    let y = stitch_rounds::<R, DECRYPT>(keys, load_j0(j0), key, y, data);
    // SAFETY: `state` is 16 writable bytes; unaligned store.
    unsafe { _mm_storeu_si128(state.as_mut_ptr().cast(), _mm_shuffle_epi8(y, reverse)) };
}

/// The stitched loop for AES with `R` rounds over the whole groups of `data` (a multiple of 32
/// blocks), counters from `inc32(J0)`, GHASH state `y` byte-reversed in and out: the rounds
/// unrolled, so that the GHASH of the previous group is spread over them (see [`group`]). With
/// `DECRYPT` the data is ciphertext, hashed as it is read.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq,pclmulqdq,ssse3")]
fn stitch_rounds<const R: usize, const DECRYPT: bool>(
    keys: &[[u8; 16]],
    j0v: __m128i,
    key: &StitchKey,
    mut y: __m128i,
    data: &mut [u8],
) -> __m128i {
    // Read in place, not copied into an array: a copy would need wiping.
    let rk: [__m512i; R] = core::array::from_fn(|i| broadcast_key(&keys[i]));
    let rk_last = broadcast_key(&keys[R]);
    let h = Powers {
        h: core::array::from_fn(|j| load4(&key.powers[4 * j..])),
        k: core::array::from_fn(|j| load4(&key.karatsuba[4 * j..])),
    };
    // Counters inc32^(1 + lane)(J0), byte-reversed so that inc32 is a 32-bit lane add, the last
    // byte of the first one (byte 15 of J0 plus one) and their first round's common term.
    let reversed = _mm512_add_epi32(
        reverse_lanes(_mm512_broadcast_i32x4(j0v)),
        lane_counter(1, true),
    );
    let mut ctr = Counters {
        reversed,
        low: ((_mm_cvtsi128_si32(_mm_srli_si128::<12>(j0v)) as u32) >> 24).wrapping_add(1) as u8,
        first_round: first_round_base(reversed, rk[0], rk[1]),
        next_round: _mm512_setzero_si512(),
    };
    ctr.next_round = next_round_base(&ctr, rk[0], rk[1]);
    let mut groups = data.chunks_exact_mut(16 * GROUP_BLOCKS);
    let Some(head) = groups.next() else {
        return y;
    };
    let mut pending = [_mm512_setzero_si512(); REGS];
    let keys = (&rk, rk_last, &key.first_round);
    group::<R, false, DECRYPT>(keys, &h, &mut ctr, &mut y, &mut pending, head);
    for g in groups {
        group::<R, true, DECRYPT>(keys, &h, &mut ctr, &mut y, &mut pending, g);
    }
    // The last group's GHASH, `(y ^ X_1) H^32 ^ ... ^ X_32 H`, with nothing left to overlap.
    pending[0] = _mm512_xor_si512(pending[0], _mm512_zextsi128_si512(y));
    let mut acc = [_mm512_setzero_si512(); 6];
    let mut pair = _mm512_setzero_si512();
    for j in 0..=REGS {
        ghash_step(j, &mut acc, &mut pair, &pending, &h, &mut y);
    }
    y
}

/// The key powers of one group in registers: `h[j]` against register `j` of the group, `k[j]`
/// the XOR of the halves of each lane of `h[j]` (see [`products_karatsuba`]).
struct Powers {
    h: [__m512i; REGS],
    k: [__m512i; REGS],
}

/// The first four entries of `p` as one register (lane order = memory order).
#[inline]
#[target_feature(enable = "avx512f")]
fn load4(p: &[u128]) -> __m512i {
    let p = &p[..4];
    // SAFETY: `p` is four u128 = 64 readable bytes whose little-endian layout is the lane layout
    // `to_vec` uses; unaligned load.
    unsafe { _mm512_loadu_si512(p.as_ptr().cast()) }
}

/// `x * h` lane by lane, unreduced, by Karatsuba: the low and high products and, between them,
/// the product of the XORs of the halves, so three carry-less multiplies instead of four; the
/// real middle product is the XOR of all three, taken once for the sums ([`reduce_karatsuba`]).
/// `xk` holds the XOR of the halves of each lane of `x` in its low (`MID = 0x00`) or high
/// (`MID = 0x11`) qword, `hk` those of `h` in both. On Zen 4 the multiplies share ports with the
/// AES rounds and the XORs and qword moves that make `xk` do not.
#[inline]
#[target_feature(enable = "avx512f,vpclmulqdq")]
fn products_karatsuba<const MID: i32>(
    x: __m512i,
    xk: __m512i,
    h: __m512i,
    hk: __m512i,
) -> [__m512i; 3] {
    [
        _mm512_clmulepi64_epi128::<0x00>(x, h),
        _mm512_clmulepi64_epi128::<MID>(xk, hk),
        _mm512_clmulepi64_epi128::<0x11>(x, h),
    ]
}

/// For Karatsuba's middle products of two registers: in each lane, the XOR of the halves of `a`
/// in the low qword and of `b` in the high one (two qword interleaves and one XOR for both).
#[inline]
#[target_feature(enable = "avx512f")]
fn karatsuba_pair(a: __m512i, b: __m512i) -> __m512i {
    _mm512_xor_si512(_mm512_unpacklo_epi64(a, b), _mm512_unpackhi_epi64(a, b))
}

/// [`reduce`] of sums made by [`products_karatsuba`].
#[inline]
#[target_feature(enable = "avx512f,vpclmulqdq")]
fn reduce_karatsuba(acc: &[__m512i; 3]) -> __m128i {
    let [lo, mid, hi] = *acc;
    reduce(&[lo, _mm512_xor_si512(mid, _mm512_xor_si512(lo, hi)), hi])
}

/// The counter blocks of the next group.
struct Counters {
    /// The group's first four counter blocks, byte-reversed.
    reversed: __m512i,
    /// The last byte of the group's first counter block.
    low: u8,
    /// [`first_round_base`] of the group's first counter block, in every lane: the first round's
    /// output for the blocks that share its first 15 bytes, less the table's term.
    first_round: __m512i,
    /// The same for the first counter block after the next wrap of the last byte.
    next_round: __m512i,
}

/// [`Counters::next_round`] for `ctr`: [`first_round_base`] of the counter `256 - ctr.low` blocks
/// on (inc32 wraps mod 2^32 as the 32-bit lane add does).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes")]
fn next_round_base(ctr: &Counters, rk0: __m512i, rk1: __m512i) -> __m512i {
    let to_wrap = 256 - i32::from(ctr.low);
    let reversed = _mm512_add_epi32(ctr.reversed, lane_counter(to_wrap, false));
    first_round_base(reversed, rk0, rk1)
}

/// One group of [`crypt_rounds`]: encrypts (or, with `DECRYPT`, decrypts) `data` (32 blocks)
/// with the counters from `ctr` and leaves its byte-reversed ciphertext (what it wrote, or what
/// it read) in `pending`; with `GHASH`, also folds the previous
/// group's `pending` into `y`, one register's three multiplies after each of AES rounds 2 to 9 and
/// the reduction after round 10 (or the last round), so the carry-less multiplies run between the
/// AES instructions that share their ports. `table` is the key's first-round table.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq,pclmulqdq,ssse3")]
fn group<const R: usize, const GHASH: bool, const DECRYPT: bool>(
    (rk, rk_last, table): (&[__m512i; R], __m512i, &[u128; TABLE_LEN]),
    h: &Powers,
    ctr: &mut Counters,
    y: &mut __m128i,
    pending: &mut [__m512i; REGS],
    data: &mut [u8],
) {
    // The first round is the common term XORed with the table's entries for the counters' last
    // bytes, which are consecutive: eight loads and XORs instead of eight AES rounds, counter adds
    // and key XORs. When the last byte wraps inside the group (1 group in 8), the blocks from the
    // wrap on take the next common term. The tests, the masks and the table index are counter
    // values, which follow from the public IV.
    let low = usize::from(ctr.low);
    let t = &table[low..];
    let mut s: [__m512i; REGS] = if low + GROUP_BLOCKS <= 256 {
        core::array::from_fn(|i| _mm512_xor_si512(ctr.first_round, load4(&t[4 * i..])))
    } else {
        // Blocks of register i before the wrap: 256 - low - 4i, clamped to 0..=4; the lanes from
        // there on (two mask bits each) take the next term.
        core::array::from_fn(|i| {
            let before = (256 - low).saturating_sub(4 * i).min(4);
            let next = (0xffu32 << (2 * before)) as u8;
            let base = _mm512_mask_blend_epi64(next, ctr.first_round, ctr.next_round);
            _mm512_xor_si512(base, load4(&t[4 * i..]))
        })
    };
    // The next group's first counter has other first 15 bytes when the last byte wrapped.
    if low + GROUP_BLOCKS >= 256 {
        ctr.first_round = ctr.next_round;
    }
    ctr.reversed = _mm512_add_epi32(ctr.reversed, lane_counter(GROUP_BLOCKS as i32, false));
    ctr.low = ctr.low.wrapping_add(GROUP_BLOCKS as u8);
    if low + GROUP_BLOCKS >= 256 {
        ctr.next_round = next_round_base(ctr, rk[0], rk[1]);
    }
    let mut acc = [_mm512_setzero_si512(); 6];
    let mut pair = _mm512_setzero_si512();
    if GHASH {
        pending[0] = _mm512_xor_si512(pending[0], _mm512_zextsi128_si512(*y));
    }
    // Rounds 2..R (at most 13) written out, each with a constant index so that nothing is indexed
    // at run time and the rounds are not left in a loop; a round past R - 1 is dropped at compile
    // time.
    macro_rules! round {
        ($($r:literal)*) => {$(
            if $r < R {
                for v in s.iter_mut() {
                    *v = _mm512_aesenc_epi128(*v, rk[$r]);
                }
                if GHASH {
                    // From the second round on, so that the previous group's last ciphertext has
                    // a round more to come out.
                    ghash_step($r - 2, &mut acc, &mut pair, pending, h, y);
                }
                round_fence(&mut s, &mut acc);
            }
        )*};
    }
    round!(2 3 4 5 6 7 8 9 10 11 12 13);
    for (i, (v, c)) in s.iter().zip(pending.iter_mut()).enumerate() {
        let at = data[64 * i..64 * i + 64].as_mut_ptr();
        // AESENCLAST ends with the XOR of its key, so the text goes into the key: the ciphertext
        // comes out of the last round, one XOR earlier for the next group's GHASH.
        // SAFETY: `at` points to 64 readable and writable bytes of `data`; unaligned access.
        unsafe {
            let text = _mm512_loadu_si512(at.cast());
            let out = _mm512_aesenclast_epi128(*v, _mm512_xor_si512(text, rk_last));
            _mm512_storeu_si512(at.cast(), out);
            *c = reverse_lanes(if DECRYPT { text } else { out });
        }
    }
    // With 10 rounds the reduction comes after the last one.
    if GHASH && R - 3 < REGS {
        ghash_step(REGS, &mut acc, &mut pair, pending, h, y);
    }
}

/// Step `j` of a group's GHASH in [`group`] (`acc`: the three sums, then an even step's
/// products; `pair`: an even step's [`karatsuba_pair`], for it and the next step): register
/// `j + 1`'s products for `j < 7`, register 0's for `j = 7`, the reduction into `y` for `j = 8`,
/// nothing after. Register 0 holds the state from the previous reduction, so it comes last: the
/// previous group's reduction then has a whole group's rounds to finish before anything waits for
/// it.
#[inline]
#[target_feature(enable = "avx512f,vpclmulqdq")]
fn ghash_step(
    j: usize,
    acc: &mut [__m512i; 6],
    pair: &mut __m512i,
    x: &[__m512i; REGS],
    h: &Powers,
    y: &mut __m128i,
) {
    if j < REGS {
        let r = (j + 1) % REGS;
        let p = if j.is_multiple_of(2) {
            *pair = karatsuba_pair(x[r], x[(j + 2) % REGS]);
            products_karatsuba::<0x00>(x[r], *pair, h.h[r], h.k[r])
        } else {
            products_karatsuba::<0x11>(x[r], *pair, h.h[r], h.k[r])
        };
        // An even step's products wait in `acc[3..]` and go into the sums with the next step's,
        // three-way XORs: half as many XORs, which on Zen 4 may take the AES rounds' ports.
        for i in 0..3 {
            if j.is_multiple_of(2) {
                acc[3 + i] = p[i];
            } else {
                acc[i] = _mm512_ternarylogic_epi64::<0x96>(acc[i], acc[3 + i], p[i]);
            }
        }
    } else if j == REGS {
        *y = reduce_karatsuba(&[acc[0], acc[1], acc[2]]);
    }
}

/// One round key broadcast to every lane.
#[inline]
#[target_feature(enable = "avx512f")]
fn broadcast_key(k: &[u8; 16]) -> __m512i {
    // SAFETY: `k` is 16 readable bytes; unaligned load.
    _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(k.as_ptr().cast()) })
}

/// A round key as an SSE register.
#[inline]
#[target_feature(enable = "sse2")]
fn load_key(k: &[u8; 16]) -> __m128i {
    // SAFETY: `k` is 16 readable bytes; unaligned load.
    unsafe { _mm_loadu_si128(k.as_ptr().cast()) }
}

/// J0 in a register: from a 96-bit IV, `IV || 0^31 || 1` assembled from a masked load of the IV
/// (a 16-byte load of a J0 that was just written to memory piece by piece would wait for those
/// stores to reach the cache: a load is forwarded only from one store that covers it).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn load_j0(j0: PreCounter<'_>) -> __m128i {
    match j0 {
        PreCounter::Iv96(iv) => {
            // SAFETY: the mask selects the 12 bytes of `iv`, which are readable; nothing else is
            // read.
            let iv = unsafe { _mm512_maskz_loadu_epi8(0x0fff, iv.as_ptr().cast()) };
            _mm_or_si128(
                _mm512_castsi512_si128(iv),
                _mm_set_epi32(0x0100_0000, 0, 0, 0),
            )
        }
        // SAFETY: `b` is 16 readable bytes; unaligned load.
        PreCounter::Block(b) => unsafe { _mm_loadu_si128(b.as_ptr().cast()) },
    }
}

/// Byte mask selecting the first `min(len, 64)` bytes of a 64-byte chunk.
#[inline]
fn chunk_mask(len: usize) -> u64 {
    if len >= 64 {
        u64::MAX
    } else {
        (1u64 << len) - 1
    }
}

/// The four powers `(H^e)', (H^(e-1))', ...` (zeros past H^1) as one register; `1 <= e <= 32`.
#[inline]
#[target_feature(enable = "avx512f")]
fn powers_from(powers: &[u128; POWERS_LEN], e: usize) -> __m512i {
    let p = &powers[GROUP_BLOCKS - e..GROUP_BLOCKS - e + 4];
    // SAFETY: `p` is four u128 = 64 readable bytes in lane layout (see `seal_groups`).
    unsafe { _mm512_loadu_si512(p.as_ptr().cast()) }
}

/// The body of [`StitchKey::absorb`] for 1 to 32 blocks: block i (from 1) of n against `H^(n + 1 -
/// i)`, the state so far added to the first; masked loads supply the zero padding and the zero
/// lanes past the end.
#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq,pclmulqdq,ssse3")]
fn absorb_blocks(powers: &[u128; POWERS_LEN], state: &mut [u8; 16], data: &[u8]) {
    let reverse = _mm_set_epi64x(0x0001_0203_0405_0607, 0x0809_0a0b_0c0d_0e0f);
    // SAFETY: `state` is 16 readable bytes; unaligned load.
    let y = unsafe { _mm_shuffle_epi8(_mm_loadu_si128(state.as_ptr().cast()), reverse) };
    let y = absorb_into(powers, y, data);
    // SAFETY: `state` is 16 writable bytes; unaligned store.
    unsafe { _mm_storeu_si128(state.as_mut_ptr().cast(), _mm_shuffle_epi8(y, reverse)) };
}

/// [`absorb_blocks`] on a byte-reversed state in a register, for 1 to 32 blocks.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq,pclmulqdq,ssse3")]
fn absorb_into(powers: &[u128; POWERS_LEN], mut y: __m128i, data: &[u8]) -> __m128i {
    let mut e = data.len().div_ceil(16);
    let mut acc = [_mm512_setzero_si512(); 3];
    for chunk in data.chunks(64) {
        // SAFETY: only the bytes selected by the mask, all inside `chunk`, are read.
        let x = unsafe { _mm512_maskz_loadu_epi8(chunk_mask(chunk.len()), chunk.as_ptr().cast()) };
        let x = _mm512_xor_si512(reverse_lanes(x), _mm512_zextsi128_si512(y));
        // Only the first block takes the state.
        y = _mm_setzero_si128();
        accumulate(&mut acc, x, powers_from(powers, e));
        e -= chunk.len().div_ceil(16);
    }
    reduce(&acc)
}

/// `E_K(J0)` on AES-NI, round keys `keys[..=rounds]` read where they are used (not copied to the
/// stack first).
#[inline]
#[target_feature(enable = "sse2,aes")]
fn tag_mask(keys: &[[u8; 16]], rounds: usize, j0v: __m128i) -> __m128i {
    let mut mask = _mm_xor_si128(j0v, load_key(&keys[0]));
    for k in &keys[1..rounds] {
        mask = _mm_aesenc_si128(mask, load_key(k));
    }
    _mm_aesenclast_si128(mask, load_key(&keys[rounds]))
}

/// The body of [`StitchKey::crypt_message`]: the AAD hashed with one reduction (it is needed only
/// by the second group's GHASH, so it runs beside the first group's AES rounds), the stitched
/// loop, then the length block `(y ^ L) H` on one 128-bit multiply and `E_K(J0)` on AES-NI, both
/// in registers; returns the full tag in wire order.
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq,pclmulqdq,ssse3,aes")]
fn crypt_message_groups<const DECRYPT: bool>(
    keys: &[[u8; 16]],
    rounds: usize,
    j0: PreCounter<'_>,
    key: &StitchKey,
    aad: &[u8],
    data: &mut [u8],
) -> [u8; 16] {
    let powers = &key.powers;
    let j0v = load_j0(j0);
    let mask = tag_mask(keys, rounds, j0v);
    let mut y = _mm_setzero_si128();
    if !aad.is_empty() {
        y = absorb_into(powers, y, aad);
    }
    let lengths = _mm_set_epi64x(
        (aad.len() as u64 * 8) as i64,
        (data.len() as u64 * 8) as i64,
    );
    y = match rounds {
        10 => stitch_rounds::<10, DECRYPT>(keys, j0v, key, y, data),
        12 => stitch_rounds::<12, DECRYPT>(keys, j0v, key, y, data),
        _ => stitch_rounds::<14, DECRYPT>(keys, j0v, key, y, data),
    };
    let y = mont_mul(_mm_xor_si128(y, lengths), to_vec(powers[GROUP_BLOCKS - 1]));
    let reverse = _mm_set_epi64x(0x0001_0203_0405_0607, 0x0809_0a0b_0c0d_0e0f);
    let mut tag = [0u8; 16];
    // SAFETY: `tag` is 16 writable bytes; unaligned store.
    unsafe {
        _mm_storeu_si128(
            tag.as_mut_ptr().cast(),
            _mm_xor_si128(_mm_shuffle_epi8(y, reverse), mask),
        )
    };
    tag
}

/// The body of [`StitchKey::finish`]: returns `GHASH(A, C) ^ E_K(J0)` in wire order. The GHASH
/// input has n <= 32 blocks, so block i (from 1) is multiplied by `H^(n + 1 - i)` from the power
/// table (the state so far by `H^n`) and every product is summed before one Montgomery reduction;
/// the padding of a partial AAD or text block comes from zero-masked loads, and the lanes past the
/// end are zero.
#[target_feature(enable = "avx512f,avx512bw,vaes,vpclmulqdq,pclmulqdq,ssse3,aes")]
fn finish_message<const DECRYPT: bool>(
    keys: &[[u8; 16]],
    rounds: usize,
    j0: PreCounter<'_>,
    powers: &[u128; POWERS_LEN],
    tail: Tail<'_>,
) -> [u8; 16] {
    let reverse = _mm_set_epi64x(0x0001_0203_0405_0607, 0x0809_0a0b_0c0d_0e0f);
    let j0v = load_j0(j0);
    // SAFETY: `tail.state` is 16 readable bytes; unaligned load.
    let y = unsafe { _mm_shuffle_epi8(_mm_loadu_si128(tail.state.as_ptr().cast()), reverse) };

    // The tag mask E_K(J0) on AES-NI; independent of everything below, so it overlaps with it.
    let mask = tag_mask(keys, rounds, j0v);

    // The exponent of H for the next block; the state so far is multiplied by the highest.
    let mut e = tail.aad.len().div_ceil(16) + tail.text.len().div_ceil(16) + 1;
    let mut acc = [_mm512_setzero_si512(); 3];
    accumulate(&mut acc, _mm512_zextsi128_si512(y), powers_from(powers, e));
    for chunk in tail.aad.chunks(64) {
        // SAFETY: only the bytes selected by the mask, all inside `chunk`, are read.
        let x = unsafe { _mm512_maskz_loadu_epi8(chunk_mask(chunk.len()), chunk.as_ptr().cast()) };
        accumulate(&mut acc, reverse_lanes(x), powers_from(powers, e));
        e -= chunk.len().div_ceil(16);
    }

    // Counters inc32^(1 + skipped + 4r + lane)(J0), byte-reversed so that inc32 is a 32-bit lane
    // add (wrapping mod 2^32 as inc32 does).
    let ctr = _mm512_add_epi32(
        reverse_lanes(_mm512_broadcast_i32x4(j0v)),
        lane_counter((tail.skipped_blocks as u32).wrapping_add(1) as i32, true),
    );
    for (r, chunk) in tail.text.chunks_mut(64).enumerate() {
        let m = chunk_mask(chunk.len());
        // SAFETY: only the bytes selected by `m`, all inside `chunk`, are read.
        let text = unsafe { _mm512_maskz_loadu_epi8(m, chunk.as_ptr().cast()) };
        let block = reverse_lanes(_mm512_add_epi32(ctr, lane_counter(4 * r as i32, false)));
        let mut s = _mm512_xor_si512(block, broadcast_key(&keys[0]));
        for k in &keys[1..rounds] {
            s = _mm512_aesenc_epi128(s, broadcast_key(k));
        }
        let ks = _mm512_aesenclast_epi128(s, broadcast_key(&keys[rounds]));
        let out = _mm512_xor_si512(text, ks);
        // SAFETY: only the bytes selected by `m`, all inside `chunk`, are written.
        unsafe { _mm512_mask_storeu_epi8(chunk.as_mut_ptr().cast(), m, out) };
        // The ciphertext, zero past the end of the text (GHASH's padding): the masked load's
        // when decrypting, the output masked when encrypting.
        let c = if DECRYPT {
            text
        } else {
            _mm512_maskz_mov_epi8(m, out)
        };
        accumulate(&mut acc, reverse_lanes(c), powers_from(powers, e));
        e -= chunk.len().div_ceil(16);
    }

    // The length block, [len(A)]_64 || [len(C)]_64 in bits, byte-reversed, against H^1.
    let lengths = _mm_set_epi64x(
        (tail.aad_len as u64 * 8) as i64,
        (tail.text_len as u64 * 8) as i64,
    );
    accumulate(
        &mut acc,
        _mm512_zextsi128_si512(lengths),
        powers_from(powers, 1),
    );

    let y = reduce(&acc);
    let mut tag = [0u8; 16];
    // SAFETY: `tag` is 16 writable bytes; unaligned store.
    unsafe {
        _mm_storeu_si128(
            tag.as_mut_ptr().cast(),
            _mm_xor_si128(_mm_shuffle_epi8(y, reverse), mask),
        )
    };
    tag
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::aes::Aes;
    use crate::block::BlockCipher;
    use crate::cpu::Backend;
    use crate::mac::ghash::GHash;

    /// The 512-bit VAES AES key of `key_len` bytes `i * mul ^ xor`, its portable oracle, `H` and
    /// the GHASH key; `None`, saying why, where the CPU lacks VAES-512 or VPCLMULQDQ.
    fn keyed(key_len: usize, mul: u8, xor: u8) -> Option<(Aes, Aes, [u8; 16], Box<StitchKey>)> {
        let key: Vec<u8> = (0..key_len as u8)
            .map(|i| i.wrapping_mul(mul) ^ xor)
            .collect();
        let Ok(aes) = Aes::with_backend(&key, Backend::Avx512) else {
            println!("512-bit VAES not available: skipped");
            return None;
        };
        let oracle = Aes::with_backend(&key, Backend::Portable).unwrap();
        let mut h = [0u8; 16];
        oracle.encrypt_blocks(&mut h);
        let Some((keys, _)) = aes.vaes512_round_keys() else {
            println!("512-bit VAES not available: skipped");
            return None;
        };
        let Some(stitch) = StitchKey::new(&h, &keys[0]) else {
            println!("VPCLMULQDQ not available: skipped");
            return None;
        };
        Some((aes, oracle, h, stitch))
    }

    /// GCM's tag from the portable parts: `g` (keyed, possibly already holding a state) over the
    /// padded `aad` and ciphertext and the length block of `lens` (the whole message's AAD and
    /// text bytes), XORed with `E_K(j0)`.
    fn reference_tag(
        mut g: GHash,
        oracle: &Aes,
        j0: [u8; 16],
        (aad, ct): (&[u8], &[u8]),
        (aad_len, text_len): (usize, usize),
    ) -> [u8; 16] {
        g.update_padded(aad);
        g.update_padded(ct);
        let mut lengths = [0u8; 16];
        lengths[..8].copy_from_slice(&(aad_len as u64 * 8).to_be_bytes());
        lengths[8..].copy_from_slice(&(text_len as u64 * 8).to_be_bytes());
        g.update(&lengths);
        let mut tag = g.finalize();
        let mut mask = j0;
        oracle.encrypt_blocks(&mut mask);
        for (t, m) in tag.iter_mut().zip(mask) {
            *t ^= m;
        }
        tag
    }

    /// The stitched loop against block-by-block inc32 CTR on the portable AES and the portable
    /// GHASH, from a non-zero GHASH state, for every key size; the bytes after the whole groups
    /// must be left alone. The first counters are near the 2^32 wrap, which falls inside the
    /// message, and start at last bytes that put a group's 32 counters across a carry out of the
    /// last byte or not (byte adds versus 32-bit adds), over nine groups so that every phase of
    /// the last byte mod 256 is met.
    #[test]
    fn stitched_loop_seals_and_opens_as_portable_ctr_and_ghash_across_the_inc32_wrap() {
        for key_len in [16, 24, 32] {
            for (first_word, groups) in [
                (u32::MAX - 40, 3),
                (0xffff_ff00, 9),
                (0xffff_ff01, 9),
                (0xffff_ff1f, 9),
                (0xffff_ffe0, 9),
                (0xffff_ffe1, 9),
                (0xffff_ffff, 9),
                (0x0000_00ff, 2),
            ] {
                stitched_loop_case(key_len, first_word, groups);
            }
        }
    }

    /// One case of [`stitched_loop_seals_and_opens_as_portable_ctr_and_ghash_across_the_inc32_wrap`].
    fn stitched_loop_case(key_len: usize, first_word: u32, groups: usize) {
        let Some((aes, oracle, h, stitch)) = keyed(key_len, 29, 0x6b) else {
            return;
        };
        let (keys, rounds) = aes.vaes512_round_keys().unwrap();
        let mut j0 = [0x5au8; 16];
        j0[12..].copy_from_slice(&first_word.wrapping_sub(1).to_be_bytes());
        let mut first = j0;
        first[12..].copy_from_slice(&first_word.to_be_bytes());
        let done = 16 * GROUP_BLOCKS * groups;
        let data: Vec<u8> = (0..done + 100).map(|i| (i * 7 + 3) as u8).collect();

        let mut expect = data.clone();
        let mut counter = first;
        for block in expect.chunks_mut(16) {
            let mut ks = counter;
            oracle.encrypt_blocks(&mut ks);
            for (d, k) in block.iter_mut().zip(ks) {
                *d ^= k;
            }
            let c = u32::from_be_bytes([counter[12], counter[13], counter[14], counter[15]]);
            counter[12..].copy_from_slice(&c.wrapping_add(1).to_be_bytes());
        }
        let mut g = GHash::with_backend(&h, Backend::Portable).unwrap();
        g.update(&[9u8; 16]);
        let mut g_expect = g.clone();
        g_expect.update(&expect[..done]);

        let g_expect = g_expect.finalize();
        let what = format!("key {key_len} first counter {first_word:#x}");
        let j0 = PreCounter::Block(&j0);
        let mut sealing = g.clone();
        let mut buf = data.clone();
        let y = sealing.block_state_mut().unwrap();
        assert_eq!(stitch.crypt::<false>(keys, rounds, j0, y, &mut buf), done);
        assert_eq!(buf[..done], expect[..done], "{what}");
        assert_eq!(buf[done..], data[done..], "{what}");
        assert_eq!(sealing.finalize(), g_expect, "{what}");
        // Opening: the ciphertext is hashed as read and decrypted back.
        let mut opening = g;
        let mut buf = expect.clone();
        let y = opening.block_state_mut().unwrap();
        assert_eq!(stitch.crypt::<true>(keys, rounds, j0, y, &mut buf), done);
        assert_eq!(buf[..done], data[..done], "{what} open");
        assert_eq!(buf[done..], expect[done..], "{what} open");
        assert_eq!(opening.finalize(), g_expect, "{what} open");
    }

    /// The first-round table and [`first_round_base`] against AESENC of the counter block itself,
    /// for every last byte and every key size: their XOR must be the first round's output.
    #[test]
    fn first_round_table_matches_the_first_round() {
        for key_len in [16, 24, 32] {
            let Some((aes, _, _, stitch)) = keyed(key_len, 53, 0x91) else {
                return;
            };
            let (keys, _) = aes.vaes512_round_keys().unwrap();
            let mut block: [u8; 16] = core::array::from_fn(|i| (i * 37 + key_len) as u8);
            for last in 0..=255u8 {
                block[15] = last;
                // SAFETY: `keyed` found VAES-512 and AES-NI; `block` is 16 readable bytes.
                let (expect, base) = unsafe {
                    let c = _mm_loadu_si128(block.as_ptr().cast());
                    let first = _mm_xor_si128(c, load_key(&keys[0]));
                    let expect = to_u128(_mm_aesenc_si128(first, load_key(&keys[1])));
                    let reversed = reverse_lanes(_mm512_broadcast_i32x4(c));
                    let base = first_round_base(
                        reversed,
                        broadcast_key(&keys[0]),
                        broadcast_key(&keys[1]),
                    );
                    let mut lanes = [0u128; 4];
                    _mm512_storeu_si512(lanes.as_mut_ptr().cast(), base);
                    (expect, lanes)
                };
                for lane in base {
                    let got = lane ^ stitch.first_round[usize::from(last)];
                    assert_eq!(got, expect, "key {key_len} last byte {last}");
                }
                if let Some(again) = stitch.first_round.get(256 + usize::from(last)) {
                    assert_eq!(*again, stitch.first_round[usize::from(last)]);
                }
            }
        }
    }

    /// `absorb` against the portable GHASH from a non-zero state for every length up to 32 blocks
    /// and past it (where it must decline and leave the state alone), partial last blocks
    /// included.
    #[test]
    fn absorb_matches_portable_ghash_up_to_32_blocks() {
        let Some((_, _, h, stitch)) = keyed(16, 71, 0x2d) else {
            return;
        };
        let data: Vec<u8> = (0..16 * GROUP_BLOCKS + 40)
            .map(|i| (i * 13 + 5) as u8)
            .collect();
        for len in 0..=data.len() {
            let mut g = GHash::with_backend(&h, Backend::Portable).unwrap();
            g.update(&[0x3c; 16]);
            let mut y = g.clone().finalize();
            let before = y;
            let took = stitch.absorb(&mut y, &data[..len]);
            assert_eq!(took, len <= 16 * GROUP_BLOCKS, "len {len}");
            if took {
                g.update_padded(&data[..len]);
                assert_eq!(y, g.finalize(), "len {len}");
            } else {
                assert_eq!(y, before, "len {len}");
            }
        }
    }

    /// A whole message in `crypt_message` (sealing and opening) against portable block-by-block
    /// inc32 CTR, the portable
    /// GHASH and `E_K(J0)`: one to three groups, AAD lengths from none to 32 blocks (and one byte
    /// more, which it must decline untouched), counters wrapping mod 2^32 inside the text, every
    /// key size, J0 given as a block and as a 96-bit IV.
    #[test]
    fn crypt_message_matches_portable_gcm_across_the_inc32_wrap() {
        for key_len in [16, 24, 32] {
            let Some((aes, oracle, h, stitch)) = keyed(key_len, 37, 0x5e) else {
                return;
            };
            let (keys, rounds) = aes.vaes512_round_keys().unwrap();
            let aad_all: Vec<u8> = (0..16 * GROUP_BLOCKS + 1)
                .map(|i| (i * 11 + 1) as u8)
                .collect();
            for (groups, aad_len) in [
                (1, 0),
                (2, 13),
                (1, 16),
                (3, 17),
                (2, 512),
                (1, 513),
                (2, 1),
            ] {
                let text_len = 16 * GROUP_BLOCKS * groups;
                let aad = &aad_all[..aad_len];
                let text: Vec<u8> = (0..text_len).map(|i| (i * 5 + key_len) as u8).collect();
                let mut j0 = [0xc3u8; 16];
                j0[12..].copy_from_slice(&(u32::MAX - 20).to_be_bytes());
                let iv: [u8; 12] = j0[..12].try_into().unwrap();
                let mut j0_iv = [0u8; 16];
                j0_iv[..12].copy_from_slice(&iv);
                j0_iv[15] = 1;
                for (j0, pre) in [(j0, PreCounter::Block(&j0)), (j0_iv, PreCounter::Iv96(&iv))] {
                    let mut expect = text.clone();
                    for (i, block) in expect.chunks_mut(16).enumerate() {
                        let c = u32::from_be_bytes([j0[12], j0[13], j0[14], j0[15]]);
                        let mut ks = j0;
                        ks[12..].copy_from_slice(&c.wrapping_add(1 + i as u32).to_be_bytes());
                        oracle.encrypt_blocks(&mut ks);
                        for (d, k) in block.iter_mut().zip(ks) {
                            *d ^= k;
                        }
                    }
                    let g = GHash::with_backend(&h, Backend::Portable).unwrap();
                    let tag = reference_tag(g, &oracle, j0, (aad, &expect), (aad_len, text_len));

                    let mut buf = text.clone();
                    let got = stitch.crypt_message::<false>(keys, rounds, pre, aad, &mut buf);
                    let mut opened = expect.clone();
                    let again = stitch.crypt_message::<true>(keys, rounds, pre, aad, &mut opened);
                    let what = format!("key {key_len} groups {groups} aad {aad_len}");
                    if aad_len > 16 * GROUP_BLOCKS {
                        assert_eq!(got, None, "{what}");
                        assert_eq!(buf, text, "{what}: declined must not write");
                        assert_eq!(again, None, "{what} open");
                        assert_eq!(opened, expect, "{what}: declined open must not write");
                    } else {
                        assert_eq!(got, Some(tag), "{what}");
                        assert_eq!(buf, expect, "{what}");
                        assert_eq!(again, Some(tag), "{what} open");
                        assert_eq!(opened, text, "{what} open");
                    }
                }
            }
            // Texts that are not whole groups are declined untouched.
            for len in [0, 16, 16 * GROUP_BLOCKS - 1, 16 * GROUP_BLOCKS + 16] {
                let mut buf = vec![7u8; len];
                let j0 = [1u8; 16];
                let pre = PreCounter::Block(&j0);
                assert_eq!(
                    stitch.crypt_message::<false>(keys, rounds, pre, &[], &mut buf),
                    None,
                    "len {len}"
                );
                assert_eq!(
                    stitch.crypt_message::<true>(keys, rounds, pre, &[], &mut buf),
                    None,
                    "len {len}"
                );
                assert!(buf.iter().all(|&b| b == 7), "len {len}");
            }
        }
    }

    /// The fused end of a message against portable block-by-block inc32 CTR and the portable
    /// GHASH: a non-zero state so far, skipped blocks, AAD and a partial last block, counters
    /// that wrap mod 2^32 inside the text, sealing and opening, every key size.
    #[test]
    fn finish_matches_portable_ctr_and_ghash_across_the_inc32_wrap() {
        for key_len in [16, 24, 32] {
            let Some((aes, oracle, h, stitch)) = keyed(key_len, 13, 0x3c) else {
                return;
            };
            let (keys, rounds) = aes.vaes512_round_keys().unwrap();
            let mut j0 = [0xa5u8; 16];
            j0[12..].copy_from_slice(&(u32::MAX - 5).to_be_bytes());
            let (skipped, aad_len, text_len) = (3usize, 1000usize, 2000usize);
            let aad: Vec<u8> = (0..21u8).map(|i| i.wrapping_mul(31)).collect();
            let text: Vec<u8> = (0..100u8).map(|i| i.wrapping_mul(7) ^ 0x11).collect();

            let mut expect = text.clone();
            for (i, block) in expect.chunks_mut(16).enumerate() {
                let c = u32::from_be_bytes([j0[12], j0[13], j0[14], j0[15]]);
                let mut ks = j0;
                ks[12..].copy_from_slice(&c.wrapping_add((1 + skipped + i) as u32).to_be_bytes());
                oracle.encrypt_blocks(&mut ks);
                for (d, k) in block.iter_mut().zip(ks) {
                    *d ^= k;
                }
            }
            let mut g = GHash::with_backend(&h, Backend::Portable).unwrap();
            g.update(&[9u8; 16]);
            let state = g.clone().finalize();
            let tag = reference_tag(g, &oracle, j0, (&aad, &expect), (aad_len, text_len));

            let mut buf = text.clone();
            macro_rules! tail {
                ($text:expr) => {
                    Tail {
                        state,
                        skipped_blocks: skipped,
                        aad: &aad,
                        text: $text,
                        aad_len,
                        text_len,
                    }
                };
            }
            let got = stitch.finish::<false>(keys, rounds, PreCounter::Block(&j0), tail!(&mut buf));
            assert_eq!(buf, expect, "key {key_len}");
            assert_eq!(got, Some(tag), "key {key_len}");
            let again =
                stitch.finish::<true>(keys, rounds, PreCounter::Block(&j0), tail!(&mut buf));
            assert_eq!(buf, text, "key {key_len}: open");
            assert_eq!(again, Some(tag), "key {key_len}: open");
            for decrypt in [false, true] {
                let mut long = vec![0u8; 16 * GROUP_BLOCKS];
                let pre = PreCounter::Block(&j0);
                let got = if decrypt {
                    stitch.finish::<true>(keys, rounds, pre, tail!(&mut long))
                } else {
                    stitch.finish::<false>(keys, rounds, pre, tail!(&mut long))
                };
                assert_eq!(got, None);
                assert!(long.iter().all(|&b| b == 0));
            }
        }
    }
}
