//! Constant-time Kuznyechik with AVX-512 (F, BW, VBMI) and GFNI: four blocks per 512-bit register,
//! one block per 128-bit lane, no memory access indexed by key or data.
//!
//! Everything runs in the basis of `aes_field` (state bytes are `phi`-images, see there):
//! - S-box: the 256-byte table `phi . pi . phi^-1` lives in four registers. `VPERMI2B` looks up the low
//!   seven bits of every byte in the lower and in the upper 128 bytes, and a byte blend on bit 7
//!   (`VPMOVB2M`) picks the right half. Register permutes have data-independent timing.
//! - L: the matrix-vector product over its diagonals, baby-step giant-step (`aes_field::diagonals`):
//!   `L(x) = XOR_g rot_4g(XOR_b E_{4g+b} * rot_b(x))` for g, b in 0..4, where `rot_k` rotates each
//!   block (128-bit lane) by `k` bytes (`VPALIGNR`). Three byte rotations of `x`, sixteen
//!   `GF2P8MULB` by the mapped diagonals, and the four partial sums folded Horner-wise with three
//!   more rotations by four bytes; eight three-input XORs (`VPTERNLOGQ`) add the products and the
//!   round key, which enters the innermost partial sum pre-rotated ([`fold_key`]). Six shuffles per
//!   round instead of one byte broadcast per column. Up to four registers run round by round side
//!   by side ([`rounds`]), so that their latency chains overlap.
//! - `GF2P8AFFINEQB` maps blocks into the basis on load and back on store; round keys are mapped once at
//!   key setup.
//!
//! Decryption is the same with `pi^-1` and `L^-1`. Multi-stream calls put a different cipher's round
//! keys in each lane, so independent keys cost nothing extra.
//!
//! Bulk data (64 blocks at a time) goes through a byte-sliced kernel instead: an in-lane 16x16 byte
//! transpose (`VPUNPCK*`) puts byte `j` of 64 blocks into register `j`. Then `L = R^16` costs no
//! shuffles at all: `R` shifts the block by one byte (a register renaming) and adds one new byte
//! `l(a) = sum c_j a_j`, whose coefficients are a palindrome (`c_j = c_{14-j}`, `c_6 = c_15 = 1`), so it
//! is seven XORs, seven `GF2P8MULB` and four three-input XORs per 64 blocks. In encryption the round
//! key rides in one of those three-input XORs: each step adds a key-derived byte to the byte it makes
//! (`aes_field::sliced_key`), so no separate key addition is left. The S-box looks up the bytes with
//! bit 7 set in the upper half of the table, in place, and then the others in the lower half (two
//! merge-masked `VPERMI2B`, no blend). Also constant-time: the same instructions, no table in memory.
//!
//! CTR (64 blocks and more) runs on the byte-sliced kernel without a key-stream buffer: the counters
//! are made in the sliced layout, where bytes 0..14 of 64 consecutive counters are one broadcast each
//! (unless the low two bytes carry inside the pass, once in 1024 passes, which takes the buffered
//! path). So the first round runs once on those shared bytes in one lane, and per pass only bytes 14
//! and 15 go through S and reach L through its two columns. The key stream is XORed into the text on
//! the store.

use core::arch::x86_64::{
    __m128i, __m512i, _mm512_alignr_epi8, _mm512_broadcast_i32x4, _mm512_castsi128_si512,
    _mm512_castsi512_si128, _mm512_gf2p8affine_epi64_epi8, _mm512_gf2p8mul_epi8,
    _mm512_inserti32x4, _mm512_loadu_si512, _mm512_mask_blend_epi8, _mm512_mask_storeu_epi8,
    _mm512_maskz_loadu_epi8, _mm512_movepi8_mask, _mm512_permutex2var_epi8, _mm512_set1_epi64,
    _mm512_set1_epi8, _mm512_setzero_si512, _mm512_storeu_si512, _mm512_ternarylogic_epi64,
    _mm512_unpackhi_epi16, _mm512_unpackhi_epi32, _mm512_unpackhi_epi64, _mm512_unpackhi_epi8,
    _mm512_unpacklo_epi16, _mm512_unpacklo_epi32, _mm512_unpacklo_epi64, _mm512_unpacklo_epi8,
    _mm512_xor_si512, _mm_loadu_si128, _mm_prefetch, _mm_storeu_si128, _MM_HINT_T0,
};
use core::arch::x86_64::{
    _mm512_add_epi8, _mm512_cmplt_epu8_mask, _mm512_mask2_permutex2var_epi8, _mm512_mask_add_epi8,
    _mm512_maskz_mov_epi8, _mm512_maskz_permutexvar_epi8, _mm512_permutexvar_epi8,
    _mm512_set1_epi32, _mm512_shuffle_epi8, _mm512_shuffle_i64x2, _mm512_ternarylogic_epi32,
};

use std::sync::OnceLock;

use zeroize::Zeroize;

use super::aes_field::{gfni_constants, spread_key, to_aes_basis, GfniConstants, SPREAD_HOMES};
use super::x86_avx512_gfni_chain::{self, Chain};
use crate::wipe::{wipe, wipe_words};

/// Bytes per register: four blocks.
pub(super) const VECTOR: usize = 64;
/// Registers processed per pass of the lane-per-block loop, so that independent chains overlap.
const INTERLEAVE: usize = 4;
/// Bytes per pass of the byte-sliced kernel: 16 registers of four blocks.
pub(super) const SLICED: usize = 16 * VECTOR;

/// Whether this CPU runs the backend.
pub(super) fn supported() -> bool {
    let f = crate::cpu::features();
    f.avx512f && f.avx512bw && f.avx512vbmi && f.gfni
}

/// Round keys K_1..K_10 mapped into the AES-field basis. Holding one proves the CPU runs this backend:
/// [`GfniKeys::new`] is the only constructor and checks it.
#[derive(Clone)]
pub(super) struct GfniKeys {
    pub(super) keys: [[u8; 16]; 10],
    /// The same keys in the spread layout of the one-block kernel (`x86_avx512_gfni_chain`).
    spread: [[u8; 64]; 10],
    /// That kernel's decryption keys, made on the first one-block decryption.
    spread_inv: LazySpread,
    /// K_2..K_10 in the form the byte-sliced encryption adds them during L ([`sliced_key`]), each
    /// byte repeated in a dword for an embedded broadcast.
    pub(super) sliced: [[u32; 16]; 9],
}

impl Zeroize for GfniKeys {
    fn zeroize(&mut self) {
        wipe(self.keys.as_flattened_mut());
        wipe(self.spread.as_flattened_mut());
        self.spread_inv.zeroize();
        wipe_words(self.sliced.as_flattened_mut());
    }
}

impl Drop for GfniKeys {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl GfniKeys {
    /// Maps the round keys, or returns `None` when this CPU lacks AVX-512 VBMI or GFNI.
    pub(super) fn new(round_keys: &[[u8; 16]; 10]) -> Option<GfniKeys> {
        if !supported() {
            return None;
        }
        let mut keys = GfniKeys {
            keys: [[0; 16]; 10],
            spread: [[0; 64]; 10],
            spread_inv: LazySpread::default(),
            sliced: [[0; 16]; 9],
        };
        // SAFETY: `supported()` above found AVX-512 F, BW, VBMI and GFNI.
        unsafe { map_keys(round_keys, gfni_constants(), &mut keys) };
        Some(keys)
    }

    /// CTR: XORs `E(counter) || E(counter + 1) || ...` (a big-endian 128-bit counter) into `data`
    /// and advances `counter` by `ceil(data.len() / 16)`.
    pub(super) fn ctr_xor(&self, counter: &mut [u8; 16], data: &mut [u8]) {
        // SAFETY: as in `encrypt_blocks`.
        unsafe { ctr_xor(self, counter, data) }
    }

    /// CTR for at most one block (`data.len() <= 16`): XORs `E(counter)` into `data` and advances
    /// `counter` by one, through the one-block kernel without a key-stream buffer.
    pub(super) fn ctr_xor_block(&self, counter: &mut [u8; 16], data: &mut [u8]) {
        // SAFETY: as in `encrypt_blocks`.
        unsafe { x86_avx512_gfni_chain::ctr_block(&self.spread, counter, data) }
        *counter = u128::from_be_bytes(*counter).wrapping_add(1).to_be_bytes();
    }

    /// Encrypts every whole 16-byte block of `data` in place.
    pub(super) fn encrypt_blocks(&self, data: &mut [u8]) {
        if data.len() / 16 == 1 {
            // SAFETY: a `GfniKeys` exists only if the CPU has AVX-512 F/BW/VBMI and GFNI (see `new`).
            return unsafe { x86_avx512_gfni_chain::encrypt_block(&self.spread, data) };
        }
        // SAFETY: as above.
        unsafe { blocks::<true>(self, data) }
    }

    /// Runs the single-stream feedback `mode` over `data` from and back into `iv` (16 bytes); `data`
    /// is whole blocks, except that the last block of [`Chain::Ofb`] may be partial.
    pub(super) fn chain(&self, mode: Chain, iv: &mut [u8], data: &mut [u8]) {
        // SAFETY: as in `encrypt_blocks`.
        unsafe { x86_avx512_gfni_chain::chain(&self.spread, mode, iv, data) }
    }

    /// The CBC-MAC chain over the whole blocks of `data`, from and back into `state` (16 bytes).
    pub(super) fn cbc_mac(&self, state: &mut [u8], data: &[u8]) {
        // SAFETY: as in `encrypt_blocks`.
        unsafe { x86_avx512_gfni_chain::cbc_mac(&self.spread, state, data) }
    }

    /// Decrypts every whole 16-byte block of `data` in place; `inv_keys` are the portable
    /// decryption keys (K_1, then `L^-1(K_2)..L^-1(K_10)`), which the one-block kernel's keys are
    /// made from on its first call.
    pub(super) fn decrypt_blocks(&self, data: &mut [u8], inv_keys: &[u128; 10]) {
        if data.len() / 16 == 1 {
            let keys = self.spread_inv.0.get_or_init(|| {
                Box::new(core::array::from_fn(|i| match i {
                    9 => spread_key(&self.keys[0], true),
                    _ => spread_key(&to_aes_basis(&inv_keys[9 - i].to_be_bytes()), false),
                }))
            });
            // SAFETY: as in `encrypt_blocks`.
            return unsafe { x86_avx512_gfni_chain::decrypt_block(keys, data) };
        }
        // SAFETY: as in `encrypt_blocks`.
        unsafe { blocks::<false>(self, data) }
    }
}

/// The one-block kernel's decryption keys (`L^-1(K_10)..L^-1(K_2)`, then K_1, spread), made on a
/// key's first one-block decryption rather than at key setup: CTR-ACPKM sets up a key every
/// section and never decrypts, and making them up front cost it about 9 % (kuznyechik-ctr-acpkm,
/// 16 KiB and 1 MiB, Zen 4). Boxed, so that a key that never decrypts one block carries a pointer,
/// not 640 bytes to move and wipe.
#[derive(Clone, Default)]
struct LazySpread(OnceLock<Box<[[u8; 64]; 10]>>);

impl Zeroize for LazySpread {
    fn zeroize(&mut self) {
        if let Some(keys) = self.0.get_mut() {
            wipe(keys.as_flattened_mut());
        }
    }
}

/// Multi-stream: block `i` of `blocks` goes through `keys[i]`; blocks past `keys.len()` are untouched.
pub(super) fn lanes(keys: &[&GfniKeys], blocks: &mut [u8], encrypt: bool) {
    if keys.is_empty() {
        return;
    }
    // SAFETY: `keys` is non-empty and a `GfniKeys` exists only on a CPU with the features (see `new`).
    unsafe {
        if encrypt {
            lanes_all::<true>(keys, blocks)
        } else {
            lanes_all::<false>(keys, blocks)
        }
    }
}

/// The constants as registers, broadcast to all four lanes.
pub(super) struct Registers {
    pub(super) sbox: [__m512i; 4],
    /// `aes_field::diagonals` of L (or `L^-1`), index `4g + b`.
    diagonals: [__m512i; 16],
    pub(super) to_aes: __m512i,
    pub(super) from_aes: __m512i,
    /// `phi` of `l`'s coefficients, each broadcast to every byte.
    coeffs: [__m512i; 16],
    /// All 64 mask bits set, opaque to the optimizer (see [`substitute_sliced`]).
    all_bytes: u64,
}

/// `VPERMB` indices that broadcast key byte `4 * i + l` to every byte of 128-bit lane `l`.
const KEY_BYTE_PER_LANE: [[u8; 64]; 4] = {
    let mut idx = [[0u8; 64]; 4];
    let mut i = 0;
    while i < 4 {
        let mut p = 0;
        while p < 64 {
            idx[i][p] = (4 * i + p / 16) as u8;
            p += 1;
        }
        i += 1;
    }
    idx
};

/// `VPERMB` indices that repeat each of bytes 0..16 in a dword.
const BYTE_PER_DWORD: [u8; 64] = {
    let mut idx = [0u8; 64];
    let mut p = 0;
    while p < 64 {
        idx[p] = (p / 4) as u8;
        p += 1;
    }
    idx
};

/// Maps `round_keys` into the AES-field basis (one `GF2P8AFFINEQB`) and lays out their spread form
/// (one `VPERMB`) and sliced form ([`sliced_form`]) with register instructions: CTR-ACPKM changes
/// the key every section, and byte-by-byte copies made up most of its key setup.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn map_keys(round_keys: &[[u8; 16]; 10], c: &GfniConstants, out: &mut GfniKeys) {
    let to_aes = _mm512_set1_epi64(c.to_aes as i64);
    let expand = load64(&c.spread.expand);
    let columns = sliced_columns(c);
    let repeat = load64(&BYTE_PER_DWORD);
    for (i, raw) in round_keys.iter().enumerate() {
        // SAFETY: `raw` is 16 readable bytes; `loadu` has no alignment requirement.
        let raw = _mm512_castsi128_si512(unsafe { _mm_loadu_si128(raw.as_ptr().cast()) });
        // Bytewise, and only bytes 0..16 are read back: whatever the cast left above them is unused.
        let key = _mm512_gf2p8affine_epi64_epi8::<0>(raw, to_aes);
        // SAFETY: `out.keys[i]` is 16 writable bytes; `storeu` has no alignment requirement.
        unsafe { _mm_storeu_si128(out.keys[i].as_mut_ptr().cast(), _mm512_castsi512_si128(key)) };
        // K_1 is added on its own, in every dword; the others before the dword sum of L, in dword 0.
        let lanes = if i == 0 { u64::MAX } else { SPREAD_HOMES };
        let spread = _mm512_maskz_permutexvar_epi8(lanes, expand, key);
        // SAFETY: `out.spread[i]` is 64 writable bytes; `storeu` has no alignment requirement.
        unsafe { _mm512_storeu_si512(out.spread[i].as_mut_ptr().cast(), spread) };
        if let Some(sliced) = i.checked_sub(1).and_then(|j| out.sliced.get_mut(j)) {
            let form = _mm512_permutexvar_epi8(repeat, sliced_form(key, &columns));
            // SAFETY: `sliced` is sixteen writable dwords (64 bytes); `storeu` has no alignment
            // requirement, and each dword's four equal bytes read the same in either byte order.
            unsafe { _mm512_storeu_si512(sliced.as_mut_ptr().cast(), form) };
        }
    }
}

/// [`GfniConstants::sliced_columns`] four to a register (columns `4i..4i + 4` in register `i`).
#[inline]
#[target_feature(enable = "avx512f")]
fn sliced_columns(c: &GfniConstants) -> [__m512i; 4] {
    let columns = c.sliced_columns.as_flattened();
    core::array::from_fn(|i| {
        let four: &[u8; 64] = columns[64 * i..64 * i + 64]
            .try_into()
            .expect("sixteen 16-byte columns are four 64-byte rows");
        load64(four)
    })
}

/// A round key's form for the byte-sliced kernel (`aes_field::sliced_key`), in bytes 0..16, from
/// the key (AES-field basis) in bytes 0..16 of `key`: the sum of its bytes times the forms of the
/// unit vectors (`columns`, [`sliced_columns`]), sixteen `GF2P8MULB` four at a time and the four
/// lanes folded, instead of 256 scalar products; no branch on key bytes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn sliced_form(key: __m512i, columns: &[__m512i; 4]) -> __m512i {
    let mut sum = _mm512_setzero_si512();
    for (idx, column) in KEY_BYTE_PER_LANE.iter().zip(columns) {
        let bytes = _mm512_permutexvar_epi8(load64(idx), key);
        sum = _mm512_xor_si512(sum, _mm512_gf2p8mul_epi8(bytes, *column));
    }
    let sum = _mm512_xor_si512(sum, _mm512_shuffle_i64x2::<0x4e>(sum, sum));
    _mm512_xor_si512(sum, _mm512_shuffle_i64x2::<0xb1>(sum, sum))
}

/// One 64-byte row as a register.
#[inline]
#[target_feature(enable = "avx512f")]
fn load64(bytes: &[u8; 64]) -> __m512i {
    // SAFETY: `bytes` is 64 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm512_loadu_si512(bytes.as_ptr().cast()) }
}

/// [`sliced_form`] of a key in memory (AES-field basis).
#[cfg(test)]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn sliced_key(key: &[u8; 16], c: &GfniConstants) -> [u8; 16] {
    // SAFETY: `key` is 16 readable bytes; `loadu` has no alignment requirement.
    let key = _mm512_castsi128_si512(unsafe { _mm_loadu_si128(key.as_ptr().cast()) });
    let mut form = [0u8; 16];
    let sum = sliced_form(key, &sliced_columns(c));
    // SAFETY: `form` is 16 writable bytes; `storeu` has no alignment requirement.
    unsafe { _mm_storeu_si128(form.as_mut_ptr().cast(), _mm512_castsi512_si128(sum)) };
    form
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn load_registers(c: &GfniConstants, encrypt: bool) -> Registers {
    let (table, diagonals) = if encrypt {
        (&c.sbox, &c.l_diagonals)
    } else {
        (&c.sbox_inv, &c.l_inv_diagonals)
    };
    let mut sbox = [_mm512_set1_epi8(0); 4];
    for (r, part) in sbox.iter_mut().zip(table.chunks_exact(VECTOR)) {
        // SAFETY: `part` is 64 readable bytes; `loadu` has no alignment requirement.
        *r = unsafe { _mm512_loadu_si512(part.as_ptr().cast()) };
    }
    Registers {
        sbox,
        diagonals: core::array::from_fn(|k| broadcast_block(&diagonals[k])),
        to_aes: _mm512_set1_epi64(c.to_aes as i64),
        from_aes: _mm512_set1_epi64(c.from_aes as i64),
        coeffs: core::array::from_fn(|j| _mm512_set1_epi8(c.l_coeffs[j] as i8)),
        all_bytes: core::hint::black_box(u64::MAX),
    }
}

#[inline]
#[target_feature(enable = "avx512f")]
fn load_block(block: &[u8; 16]) -> __m128i {
    // SAFETY: `block` is 16 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm_loadu_si128(block.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn broadcast_block(block: &[u8; 16]) -> __m512i {
    _mm512_broadcast_i32x4(load_block(block))
}

/// Four round keys, one per lane.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn gather_keys(k: [&[u8; 16]; 4]) -> __m512i {
    let v = _mm512_castsi128_si512(load_block(k[0]));
    let v = _mm512_inserti32x4::<1>(v, load_block(k[1]));
    let v = _mm512_inserti32x4::<2>(v, load_block(k[2]));
    _mm512_inserti32x4::<3>(v, load_block(k[3]))
}

#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn xor3(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
    _mm512_ternarylogic_epi64::<0x96>(a, b, c)
}

/// The S-box (or its inverse) on every byte, from the table in four registers.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) fn substitute(x: __m512i, t: &[__m512i; 4]) -> __m512i {
    let low = _mm512_permutex2var_epi8(t[0], x, t[1]);
    let high = _mm512_permutex2var_epi8(t[2], x, t[3]);
    _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), low, high)
}

/// [`substitute`] for the throughput-bound byte-sliced kernel: the upper half of the table looks up
/// the bytes with bit 7 set in place (merge-masked `VPERMI2B`, which overwrites its index register),
/// then the lower half the others. No blend and no copy of a table register, at the price of the two
/// lookups running one after the other, which the sixteen independent registers hide.
///
/// The second mask is `high ^ all`, `all` being [`Registers::all_bytes`]: the optimizer, seeing
/// `!high`, would instead compare the whole vector to zero again, a 512-bit operation on the
/// vector pipes that this kernel is bound by, where a mask-register XOR costs less.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn substitute_sliced(x: __m512i, t: &[__m512i; 4], all: u64) -> __m512i {
    let high = _mm512_movepi8_mask(x);
    let x = _mm512_mask2_permutex2var_epi8(t[2], x, high, t[3]);
    _mm512_mask2_permutex2var_epi8(t[0], x, high ^ all, t[1])
}

/// `rot_K` on each 128-bit lane: byte `i` becomes byte `(i + K) mod 16`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn rot<const K: i32>(x: __m512i) -> __m512i {
    _mm512_alignr_epi8::<K>(x, x)
}

/// A round key `k` (one per lane) in the form [`linear_xor`] adds: `rot_4(k)`, which the three giant
/// steps of the Horner sum carry back to `rot_12(rot_4(k)) = k`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn fold_key(k: __m512i) -> __m512i {
    rot::<4>(k)
}

/// The keys of [`rounds`]: encryption adds `keys[0]` as it is and the others through [`linear_xor`],
/// so those are folded; decryption adds every key as it is.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn cipher_keys<const ENCRYPT: bool>(keys: [__m512i; 10]) -> [__m512i; 10] {
    core::array::from_fn(|i| {
        if ENCRYPT && i > 0 {
            fold_key(keys[i])
        } else {
            keys[i]
        }
    })
}

/// `L(x) ^ k` (or `L^-1`, by the diagonals given) for the four blocks of `x`; `folded` is
/// [`fold_key`]`(k)`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
pub(super) fn linear_xor(x: __m512i, r: &Registers, folded: __m512i) -> __m512i {
    let y = [x, rot::<1>(x), rot::<2>(x), rot::<3>(x)];
    let m = |g: usize, b: usize| _mm512_gf2p8mul_epi8(y[b], r.diagonals[4 * g + b]);
    // Partial sum of giant step g, plus the running sum carried from step g + 1. The products come
    // first so that only the last XOR waits on the chain of giant rotations.
    let step = |g: usize, carried: __m512i| xor3(xor3(m(g, 0), m(g, 1), m(g, 2)), m(g, 3), carried);
    let s = step(3, folded);
    let s = step(2, rot::<4>(s));
    let s = step(1, rot::<4>(s));
    step(0, rot::<4>(s))
}

/// Ten rounds on `N` registers of four blocks, in the AES-field basis, register `v` under the keys
/// `k[v]` (laid out by [`cipher_keys`]): encryption `X[K10] LSX[K9]..LSX[K1]`, or decryption
/// `X[K1] (S^-1 L^-1 X)[K2]..[K10]`. Round by round over all registers, so that their independent
/// chains overlap (one register alone waits on the latency of each round).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
pub(super) fn rounds<const ENCRYPT: bool, const N: usize>(
    x: &mut [__m512i; N],
    r: &Registers,
    k: &[[__m512i; 10]; N],
) {
    if ENCRYPT {
        for (x, k) in x.iter_mut().zip(k) {
            *x = _mm512_xor_si512(*x, k[0]);
        }
        lsx_rounds::<N>(x, r, k);
    } else {
        for (x, k) in x.iter_mut().zip(k) {
            *x = _mm512_xor_si512(*x, k[9]);
        }
        let zero = _mm512_set1_epi8(0);
        for i in (0..9).rev() {
            for (x, k) in x.iter_mut().zip(k) {
                *x = _mm512_xor_si512(substitute(linear_xor(*x, r, zero), &r.sbox), k[i]);
            }
        }
    }
}

/// The nine `LSX` rounds of encryption (keys `k[v][1..]`), after the first round key went in: the
/// multi-stream CBC kernel adds that key together with the block, in one three-input XOR.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
pub(super) fn lsx_rounds<const N: usize>(
    x: &mut [__m512i; N],
    r: &Registers,
    k: &[[__m512i; 10]; N],
) {
    for i in 1..10 {
        for (x, k) in x.iter_mut().zip(k) {
            *x = linear_xor(substitute(*x, &r.sbox), r, k[i]);
        }
    }
}

/// [`rounds`] on blocks in the wire basis: mapped into the AES-field basis and back.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn cipher<const ENCRYPT: bool, const N: usize>(
    x: &mut [__m512i; N],
    r: &Registers,
    k: &[[__m512i; 10]; N],
) {
    for v in x.iter_mut() {
        *v = _mm512_gf2p8affine_epi64_epi8::<0>(*v, r.to_aes);
    }
    rounds::<ENCRYPT, N>(x, r, k);
    for v in x.iter_mut() {
        *v = _mm512_gf2p8affine_epi64_epi8::<0>(*v, r.from_aes);
    }
}

/// The `N` registers of `data` (at most `64 * N` bytes, the last register possibly partial) through
/// [`cipher`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn cipher_bytes<const ENCRYPT: bool, const N: usize>(
    data: &mut [u8],
    r: &Registers,
    k: &[[__m512i; 10]; N],
) {
    let mut x = [_mm512_set1_epi8(0); N];
    for (v, chunk) in x.iter_mut().zip(data.chunks(VECTOR)) {
        *v = load_partial(chunk);
    }
    cipher::<ENCRYPT, N>(&mut x, r, k);
    for (v, chunk) in x.iter().zip(data.chunks_mut(VECTOR)) {
        store_partial(chunk, *v);
    }
}

/// The mask selecting the first `bytes` bytes of a register (`bytes <= 64`).
#[inline(always)]
fn byte_mask(bytes: usize) -> u64 {
    if bytes >= VECTOR {
        u64::MAX
    } else {
        (1u64 << bytes) - 1
    }
}

/// Loads the first `min(chunk.len(), 64)` bytes, zero above.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn load_partial(chunk: &[u8]) -> __m512i {
    let mask = byte_mask(chunk.len());
    // SAFETY: only the bytes selected by `mask` are read, all inside `chunk`; masked-off bytes are
    // neither read nor faulted on.
    unsafe { _mm512_maskz_loadu_epi8(mask, chunk.as_ptr().cast()) }
}

/// Stores the first `min(chunk.len(), 64)` bytes of `v`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn store_partial(chunk: &mut [u8], v: __m512i) {
    let mask = byte_mask(chunk.len());
    // SAFETY: only the bytes selected by `mask` are written, all inside `chunk`.
    unsafe { _mm512_mask_storeu_epi8(chunk.as_mut_ptr().cast(), mask, v) }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn blocks<const ENCRYPT: bool>(cipher: &GfniKeys, data: &mut [u8]) {
    let keys = &cipher.keys;
    let whole = data.len() / 16 * 16;
    let data = &mut data[..whole];
    let r = load_registers(gfni_constants(), ENCRYPT);
    let mut sliced = data.chunks_exact_mut(SLICED);
    for chunk in &mut sliced {
        sliced_pass::<ENCRYPT>(chunk, cipher, &r);
    }
    let data = sliced.into_remainder();
    let k = cipher_keys::<ENCRYPT>(core::array::from_fn(|i| broadcast_block(&keys[i])));
    let mut groups = data.chunks_exact_mut(VECTOR * INTERLEAVE);
    for group in &mut groups {
        cipher_bytes::<ENCRYPT, INTERLEAVE>(group, &r, &[k; INTERLEAVE]);
    }
    let rest = groups.into_remainder();
    match rest.len().div_ceil(VECTOR) {
        0 => {}
        1 => cipher_bytes::<ENCRYPT, 1>(rest, &r, &[k]),
        2 => cipher_bytes::<ENCRYPT, 2>(rest, &r, &[k; 2]),
        3 => cipher_bytes::<ENCRYPT, 3>(rest, &r, &[k; 3]),
        // Up to 15 blocks: a short fourth register.
        _ => cipher_bytes::<ENCRYPT, INTERLEAVE>(rest, &r, &[k; INTERLEAVE]),
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn lanes_all<const ENCRYPT: bool>(keys: &[&GfniKeys], blocks: &mut [u8]) {
    let count = keys.len().min(blocks.len() / 16);
    let blocks = &mut blocks[..16 * count];
    let r = load_registers(gfni_constants(), ENCRYPT);
    let per_pass = 4 * INTERLEAVE;
    for (keys, chunk) in keys.chunks(per_pass).zip(blocks.chunks_mut(16 * per_pass)) {
        match keys.len().div_ceil(4) {
            1 => lanes_pass::<ENCRYPT, 1>(keys, chunk, &r),
            2 => lanes_pass::<ENCRYPT, 2>(keys, chunk, &r),
            3 => lanes_pass::<ENCRYPT, 3>(keys, chunk, &r),
            _ => lanes_pass::<ENCRYPT, 4>(keys, chunk, &r),
        }
    }
}

/// Up to `4 * N` blocks of `chunk`, block `i` under `keys[i]`, in `N` registers.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn lanes_pass<const ENCRYPT: bool, const N: usize>(
    keys: &[&GfniKeys],
    chunk: &mut [u8],
    r: &Registers,
) {
    // Lanes past the last block repeat the first cipher; they are not stored.
    let pick = |lane: usize| keys.get(lane).unwrap_or(&keys[0]);
    let k: [[__m512i; 10]; N] = core::array::from_fn(|v| {
        cipher_keys::<ENCRYPT>(core::array::from_fn(|i| {
            let lane = |l: usize| &pick(4 * v + l).keys[i];
            gather_keys([lane(0), lane(1), lane(2), lane(3)])
        }))
    });
    cipher_bytes::<ENCRYPT, N>(chunk, r, &k);
}

/// One stage of the in-lane 16x16 byte transpose: pairs registers whose indices differ in bit `P`
/// and interleaves their elements of `8 << P` bits. After stages 0..=3, register `i` lane `l` byte `r`
/// holds what register `r` lane `l` byte `i` held (index bookkeeping: stage `P` moves row bit `P` from the
/// register index into the element position and brings one column bit up from it).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn transpose_stage<const P: usize>(a: &[__m512i; 16]) -> [__m512i; 16] {
    core::array::from_fn(|o| {
        let high_part = (o >> (P + 1)) << (P + 1);
        let low_part = (o >> 1) & ((1 << P) - 1);
        let x = a[high_part | low_part];
        let y = a[high_part | 1 << P | low_part];
        match (P, o & 1) {
            (0, 0) => _mm512_unpacklo_epi8(x, y),
            (0, _) => _mm512_unpackhi_epi8(x, y),
            (1, 0) => _mm512_unpacklo_epi16(x, y),
            (1, _) => _mm512_unpackhi_epi16(x, y),
            (2, 0) => _mm512_unpacklo_epi32(x, y),
            (2, _) => _mm512_unpackhi_epi32(x, y),
            (_, 0) => _mm512_unpacklo_epi64(x, y),
            (_, _) => _mm512_unpackhi_epi64(x, y),
        }
    })
}

/// The 16x16 byte transpose inside every 128-bit lane (its own inverse).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) fn transpose(a: &[__m512i; 16]) -> [__m512i; 16] {
    let a = transpose_stage::<0>(a);
    let a = transpose_stage::<1>(&a);
    let a = transpose_stage::<2>(&a);
    transpose_stage::<3>(&a)
}

/// `l` on byte-sliced state, reading logical byte `j` from `s[at(j)]`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
fn l_sliced(s: &[__m512i; 16], at: impl Fn(usize) -> usize, c: &[__m512i; 16]) -> __m512i {
    let x = |j: usize| s[at(j)];
    let pair = |j: usize| _mm512_xor_si512(x(j), x(14 - j));
    let m = |j: usize| _mm512_gf2p8mul_epi8(pair(j), c[j]);
    let m7 = _mm512_gf2p8mul_epi8(x(7), c[7]);
    xor3(
        xor3(m(0), m(1), m(2)),
        xor3(m(3), m(4), m(5)),
        xor3(m7, pair(6), x(15)),
    )
}

/// [`l_sliced`] plus `d`, one byte of a round key in [`sliced_key`]'s form, broadcast. The newest
/// byte (logical 0, made by the previous step) goes through its product and the last XOR only, so
/// that the chain from step to step is one XOR, one product and one three-input XOR.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
fn l_sliced_keyed(
    s: &[__m512i; 16],
    at: impl Fn(usize) -> usize,
    c: &[__m512i; 16],
    d: u32,
) -> __m512i {
    let x = |j: usize| s[at(j)];
    let pair = |j: usize| _mm512_xor_si512(x(j), x(14 - j));
    let m = |j: usize| _mm512_gf2p8mul_epi8(pair(j), c[j]);
    let m7 = _mm512_gf2p8mul_epi8(x(7), c[7]);
    let key = _mm512_set1_epi32(d as i32);
    let older = xor3(
        xor3(m(1), m(2), m(3)),
        xor3(m(4), m(5), m7),
        _mm512_ternarylogic_epi32::<0x96>(x(6), x(8), key),
    );
    xor3(m(0), older, x(15))
}

/// Step `T` of `L = R^16` with the round key folded in: step `T` of [`sliced_key`]'s form `d`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
fn r_step_keyed<const T: usize>(s: &mut [__m512i; 16], c: &[__m512i; 16], d: &[u32; 16]) {
    s[(31 - T) & 15] = l_sliced_keyed(s, |j| (j + 16 - T) & 15, c, d[T]);
}

/// `L(x) ^ k` on byte-sliced state, `d` the round key `k` in [`sliced_key`]'s form.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
fn l_all_keyed(s: &mut [__m512i; 16], c: &[__m512i; 16], d: &[u32; 16]) {
    r_step_keyed::<0>(s, c, d);
    r_step_keyed::<1>(s, c, d);
    r_step_keyed::<2>(s, c, d);
    r_step_keyed::<3>(s, c, d);
    r_step_keyed::<4>(s, c, d);
    r_step_keyed::<5>(s, c, d);
    r_step_keyed::<6>(s, c, d);
    r_step_keyed::<7>(s, c, d);
    r_step_keyed::<8>(s, c, d);
    r_step_keyed::<9>(s, c, d);
    r_step_keyed::<10>(s, c, d);
    r_step_keyed::<11>(s, c, d);
    r_step_keyed::<12>(s, c, d);
    r_step_keyed::<13>(s, c, d);
    r_step_keyed::<14>(s, c, d);
    r_step_keyed::<15>(s, c, d);
}

/// Step `T` of `L^-1 = (R^-1)^16`: logical byte `j` sits in `s[(j + T) mod 16]`; the new byte 15,
/// `l(a_1, .., a_15, a_0)`, replaces byte 0.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
fn r_inv_step<const T: usize>(s: &mut [__m512i; 16], c: &[__m512i; 16]) {
    s[T & 15] = l_sliced(s, |j| (j + 1 + T) & 15, c);
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
fn l_inv_all(s: &mut [__m512i; 16], c: &[__m512i; 16]) {
    r_inv_step::<0>(s, c);
    r_inv_step::<1>(s, c);
    r_inv_step::<2>(s, c);
    r_inv_step::<3>(s, c);
    r_inv_step::<4>(s, c);
    r_inv_step::<5>(s, c);
    r_inv_step::<6>(s, c);
    r_inv_step::<7>(s, c);
    r_inv_step::<8>(s, c);
    r_inv_step::<9>(s, c);
    r_inv_step::<10>(s, c);
    r_inv_step::<11>(s, c);
    r_inv_step::<12>(s, c);
    r_inv_step::<13>(s, c);
    r_inv_step::<14>(s, c);
    r_inv_step::<15>(s, c);
}

/// XORs round key `k` (AES-field basis) into byte-sliced state, one broadcast byte per register.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn add_key(s: &mut [__m512i; 16], k: &[u8; 16]) {
    for (v, &b) in s.iter_mut().zip(k) {
        *v = _mm512_xor_si512(*v, _mm512_set1_epi8(b as i8));
    }
}

/// 64 blocks (`chunk` is 1024 bytes) through the byte-sliced kernel.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn sliced_pass<const ENCRYPT: bool>(chunk: &mut [u8], cipher: &GfniKeys, r: &Registers) {
    let keys = &cipher.keys;
    let mut a = [_mm512_set1_epi8(0); 16];
    for (v, bytes) in a.iter_mut().zip(chunk.chunks_exact(VECTOR)) {
        // SAFETY: `bytes` is 64 readable bytes; `loadu` has no alignment requirement.
        let raw = unsafe { _mm512_loadu_si512(bytes.as_ptr().cast()) };
        *v = _mm512_gf2p8affine_epi64_epi8::<0>(raw, r.to_aes);
    }
    let mut s = transpose(&a);
    if ENCRYPT {
        add_key(&mut s, &keys[0]);
        sliced_lsx_rounds(&mut s, r, &cipher.sliced);
    } else {
        add_key(&mut s, &keys[9]);
        for k in keys[..9].iter().rev() {
            l_inv_all(&mut s, &r.coeffs);
            for v in s.iter_mut() {
                *v = substitute_sliced(*v, &r.sbox, r.all_bytes);
            }
            add_key(&mut s, k);
        }
    }
    let a = transpose(&s);
    for (v, bytes) in a.iter().zip(chunk.chunks_exact_mut(VECTOR)) {
        let out = _mm512_gf2p8affine_epi64_epi8::<0>(*v, r.from_aes);
        // SAFETY: `bytes` is 64 writable bytes; `storeu` has no alignment requirement.
        unsafe { _mm512_storeu_si512(bytes.as_mut_ptr().cast(), out) };
    }
}

/// `LSX` rounds on byte-sliced state, one per entry of `keys` (round keys in [`sliced_key`]'s form).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
pub(super) fn sliced_lsx_rounds(s: &mut [__m512i; 16], r: &Registers, keys: &[[u32; 16]]) {
    // Sixteen state registers, four S-box and seven coefficient registers leave a handful for the
    // temporaries, so the compiler keeps part of the state in memory between uses; loads are cheap
    // next to the products. A local copy of the state would only move those spills to the stack.
    for d in keys {
        for v in s.iter_mut() {
            *v = substitute_sliced(*v, &r.sbox, r.all_bytes);
        }
        l_all_keyed(s, &r.coeffs, d);
    }
}

/// Per lane, the mask of block bytes 0..14: all but the two low bytes of a big-endian counter.
const COUNTER_HIGH_BYTES: u64 = 0x3fff_3fff_3fff_3fff;

/// The constants of the byte-sliced CTR pass, loaded once per call.
struct CtrRegisters {
    /// Byte `p` of each byte-sliced register belongs to block `4 * (p % 16) + p / 16` of the pass
    /// (see [`transpose`]): its offset from the first counter.
    offsets: __m512i,
    /// Columns 14 and 15 of L (AES-field basis), entry `i` broadcast: how the two counter bytes
    /// that vary within a pass reach output byte `i` of the first round.
    columns: [[__m512i; 16]; 2],
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn ctr_registers(c: &GfniConstants) -> CtrRegisters {
    let offsets: [u8; 64] = core::array::from_fn(|p| (4 * (p % 16) + p / 16) as u8);
    CtrRegisters {
        // SAFETY: `offsets` is 64 readable bytes; `loadu` has no alignment requirement.
        offsets: unsafe { _mm512_loadu_si512(offsets.as_ptr().cast()) },
        columns: core::array::from_fn(|k| {
            core::array::from_fn(|i| _mm512_set1_epi8(c.l_columns[14 + k][i] as i8))
        }),
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn ctr_xor(cipher: &GfniKeys, counter: &mut [u8; 16], data: &mut [u8]) {
    let c = gfni_constants();
    let r = load_registers(c, true);
    let cr = ctr_registers(c);
    let mut value = u128::from_be_bytes(*counter);
    let whole = data.len() / SLICED * SLICED;
    let mut passes = data.chunks_exact_mut(SLICED);
    let mut next = SLICED;
    for chunk in &mut passes {
        // A pass reads its text only at the end, after ~2000 cycles of rounds: ask for the next
        // pass's text now, so that a message larger than L2 does not wait on those loads.
        if next < whole {
            prefetch_pass(chunk.as_ptr().wrapping_add(SLICED));
        }
        next += SLICED;
        // Counters are public: branching on them leaks nothing. Only once in 1024 passes does the
        // carry out of the low two bytes reach byte 13 inside a pass.
        if value as u16 <= u16::MAX - 63 {
            ctr_pass(chunk, value, cipher, &r, &cr);
        } else {
            ctr_buffered(chunk, value, cipher);
        }
        value = value.wrapping_add(64);
    }
    let tail = passes.into_remainder();
    if !tail.is_empty() {
        ctr_buffered(tail, value, cipher);
        value = value.wrapping_add(tail.len().div_ceil(16) as u128);
    }
    *counter = value.to_be_bytes();
}

/// Prefetches the 1024 bytes at `p` (16 cache lines) into L1. A prefetch neither faults nor has an
/// effect other than on the caches, whatever the address.
#[inline]
#[target_feature(enable = "avx512f")]
fn prefetch_pass(p: *const u8) {
    for line in 0..SLICED / 64 {
        _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(64 * line).cast());
    }
}

/// CTR for at most 64 blocks through a key-stream buffer and [`blocks`]: the tail of a message
/// and the rare pass whose counters differ above their two low bytes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn ctr_buffered(chunk: &mut [u8], first: u128, cipher: &GfniKeys) {
    let mut ks = [0u8; SLICED];
    let ks = &mut ks[..chunk.len().div_ceil(16) * 16];
    let mut value = first;
    for block in ks.chunks_exact_mut(16) {
        block.copy_from_slice(&value.to_be_bytes());
        value = value.wrapping_add(1);
    }
    blocks::<true>(cipher, ks);
    for (d, k) in chunk.iter_mut().zip(ks.iter()) {
        *d ^= *k;
    }
    ks.zeroize();
}

/// 64 blocks of CTR (`chunk` is 1024 bytes) from the counter `first`, whose low two bytes do not
/// carry within the pass (`first as u16 <= 0xffc0`). The counters are made byte-sliced: bytes 0..14
/// are the same in all 64 blocks, so the first round of those bytes runs once on one block, and only
/// bytes 14 and 15 go through S one by one and then into L by their two columns. The key stream
/// goes into `chunk` on the store.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn ctr_pass(chunk: &mut [u8], first: u128, cipher: &GfniKeys, r: &Registers, cr: &CtrRegisters) {
    let keys = &cipher.keys;
    let ctr = first.to_be_bytes();
    let k1 = broadcast_block(&keys[0]);
    // Round 1 on the bytes all counters share, the two low bytes set to zero after S: its L, with
    // K_2 added, is the shared part of every counter's first-round output.
    let shared = _mm512_gf2p8affine_epi64_epi8::<0>(broadcast_block(&ctr), r.to_aes);
    let shared = _mm512_maskz_mov_epi8(
        COUNTER_HIGH_BYTES,
        substitute(_mm512_xor_si512(shared, k1), &r.sbox),
    );
    let shared = linear_xor(shared, r, fold_key(broadcast_block(&keys[1])));
    // The two low counter bytes, byte-sliced, through X[K_1] and S.
    let base = _mm512_set1_epi8(ctr[15] as i8);
    let low = _mm512_add_epi8(cr.offsets, base);
    let carried = _mm512_cmplt_epu8_mask(low, base);
    let high = _mm512_set1_epi8(ctr[14] as i8);
    let high = _mm512_mask_add_epi8(high, carried, high, _mm512_set1_epi8(1));
    let first_s = |v: __m512i, j: usize| {
        let v = _mm512_gf2p8affine_epi64_epi8::<0>(v, r.to_aes);
        substitute(
            _mm512_xor_si512(v, _mm512_set1_epi8(keys[0][j] as i8)),
            &r.sbox,
        )
    };
    let (high, low) = (first_s(high, 14), first_s(low, 15));
    let mut s: [__m512i; 16] = core::array::from_fn(|i| {
        // Byte i of every lane of `shared` is the same: broadcast it with an in-lane shuffle.
        let part = _mm512_shuffle_epi8(shared, _mm512_set1_epi8(i as i8));
        xor3(
            part,
            _mm512_gf2p8mul_epi8(high, cr.columns[0][i]),
            _mm512_gf2p8mul_epi8(low, cr.columns[1][i]),
        )
    });
    sliced_lsx_rounds(&mut s, r, &cipher.sliced[1..]);
    xor_sliced_key_stream(&s, r, chunk);
}

/// XORs the key stream of 64 blocks, byte-sliced in `s` as the rounds leave it, into `chunk`
/// (whole 64-byte registers of it): back to one block per lane, out of the AES field's basis,
/// one XOR per register.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
pub(super) fn xor_sliced_key_stream(s: &[__m512i; 16], r: &Registers, chunk: &mut [u8]) {
    let a = transpose(s);
    for (v, bytes) in a.iter().zip(chunk.chunks_exact_mut(VECTOR)) {
        let ks = _mm512_gf2p8affine_epi64_epi8::<0>(*v, r.from_aes);
        // SAFETY: `bytes` is 64 readable and writable bytes; no alignment requirement.
        unsafe {
            let text = _mm512_loadu_si512(bytes.as_ptr().cast());
            _mm512_storeu_si512(bytes.as_mut_ptr().cast(), _mm512_xor_si512(text, ks));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key setup's sum of unit forms equals the step-by-step form for random keys and the
    /// unit keys themselves.
    #[test]
    fn sliced_key_by_columns_matches_the_reference() {
        if !supported() {
            return;
        }
        let c = gfni_constants();
        let mut keys: Vec<[u8; 16]> =
            super::super::tests::pseudo_random_keys(0x9e37_79b9_7f4a_7c15, 200);
        keys.extend((0..16).map(|j| core::array::from_fn(|i| u8::from(i == j))));
        keys.push([0xff; 16]);
        for key in keys {
            // SAFETY: `supported()` checked above.
            let got = unsafe { sliced_key(&key, c) };
            assert_eq!(got, super::super::aes_field::sliced_key(&key), "{key:02x?}");
        }
    }

    #[test]
    fn affine_instruction_maps_into_the_aes_basis() {
        if !supported() {
            return;
        }
        let c = gfni_constants();
        let bytes: [u8; 64] = core::array::from_fn(|i| (i as u8).wrapping_mul(97) ^ 0x3c);
        let mut out = [0u8; 64];
        // SAFETY: the features were checked above; both buffers are 64 bytes.
        unsafe { map_bytes(&bytes, c.to_aes, &mut out) };
        for (chunk, mapped) in bytes.chunks(16).zip(out.chunks(16)) {
            let block: [u8; 16] = chunk.try_into().unwrap();
            assert_eq!(mapped, to_aes_basis(&block));
        }
    }

    #[test]
    fn linear_layer_matches_reference_l_and_l_inverse_per_lane() {
        if !supported() {
            return;
        }
        let c = gfni_constants();
        let from_aes = |block: &[u8]| {
            let mut out = [0u8; 64];
            let mut wide = [0u8; 64];
            wide[..16].copy_from_slice(block);
            // SAFETY: the features were checked above; both buffers are 64 bytes.
            unsafe { map_bytes(&wide, c.from_aes, &mut out) };
            <[u8; 16]>::try_from(&out[..16]).unwrap()
        };
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut random = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        };
        let references = [
            super::super::transform_l as fn(&[u8; 16]) -> [u8; 16],
            super::super::transform_l_inv,
        ];
        for (encrypt, reference) in [true, false].into_iter().zip(references) {
            for _ in 0..64 {
                let x: [u8; 64] = core::array::from_fn(|_| random());
                let key: [u8; 64] = core::array::from_fn(|_| random());
                // SAFETY: the features were checked above.
                let out = unsafe { linear_xor_bytes(&x, &key, encrypt) };
                for lane in 0..4 {
                    let bytes = 16 * lane..16 * lane + 16;
                    let x = from_aes(&x[bytes.clone()]);
                    let key = from_aes(&key[bytes.clone()]);
                    let mut want = reference(&x);
                    for (w, k) in want.iter_mut().zip(key) {
                        *w ^= k;
                    }
                    assert_eq!(from_aes(&out[bytes]), want, "{encrypt} {lane}");
                }
            }
        }
    }

    /// [`linear_xor`] on four blocks and four keys, all in the AES-field basis.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
    fn linear_xor_bytes(x: &[u8; 64], key: &[u8; 64], encrypt: bool) -> [u8; 64] {
        let r = load_registers(gfni_constants(), encrypt);
        let mut out = [0u8; 64];
        // SAFETY: all three buffers are 64 bytes; no alignment requirement.
        unsafe {
            let x = _mm512_loadu_si512(x.as_ptr().cast());
            let k = fold_key(_mm512_loadu_si512(key.as_ptr().cast()));
            _mm512_storeu_si512(out.as_mut_ptr().cast(), linear_xor(x, &r, k));
        }
        out
    }

    #[test]
    fn transpose_moves_byte_i_of_register_r_to_byte_r_of_register_i() {
        if !supported() {
            return;
        }
        let input: [[u8; 64]; 16] =
            core::array::from_fn(|r| core::array::from_fn(|b| (r * 64 + b) as u8 ^ (b as u8) << 3));
        // SAFETY: the features were checked above.
        let out = unsafe { transpose_bytes(&input) };
        for r in 0..16 {
            for lane in 0..4 {
                for i in 0..16 {
                    assert_eq!(
                        out[i][16 * lane + r],
                        input[r][16 * lane + i],
                        "{r} {lane} {i}"
                    );
                }
            }
        }
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    fn transpose_bytes(input: &[[u8; 64]; 16]) -> [[u8; 64]; 16] {
        // SAFETY: every row is 64 bytes; no alignment requirement.
        let a = input.map(|row| unsafe { _mm512_loadu_si512(row.as_ptr().cast()) });
        let t = transpose(&a);
        let mut out = [[0u8; 64]; 16];
        for (row, v) in out.iter_mut().zip(t) {
            // SAFETY: as above, writing.
            unsafe { _mm512_storeu_si512(row.as_mut_ptr().cast(), v) };
        }
        out
    }

    #[target_feature(enable = "avx512f,gfni")]
    fn map_bytes(input: &[u8; 64], matrix: u64, out: &mut [u8; 64]) {
        // SAFETY: both buffers are 64 bytes; no alignment requirement.
        unsafe {
            let v = _mm512_loadu_si512(input.as_ptr().cast());
            let m = _mm512_gf2p8affine_epi64_epi8::<0>(v, _mm512_set1_epi64(matrix as i64));
            _mm512_storeu_si512(out.as_mut_ptr().cast(), m);
        }
    }
}
