//! One Kuznyechik block at a time with the shortest dependency chain the constant-time backend
//! (AVX-512 F/BW/VBMI and GFNI) knows: for single-block calls in both directions (one-block CTR
//! messages included, their key stream XORed into the data from the register) and for the
//! single-stream feedback
//! modes (CBC encryption, CFB encryption, OFB, the CBC-MAC chain of OMAC), where each block needs
//! the previous one and only latency counts; and for the key schedule ([`schedule`]), whose 32
//! Feistel steps are a chain of such rounds.
//!
//! The block lives in one 512-bit register in the *spread* layout of `aes_field::Spread` (each block
//! byte in the four dwords of one 128-bit lane), in the AES-field basis. A round is then:
//! - S: `VPERMI2B` twice and a byte blend on bit 7, as in `x86_avx512_gfni`;
//! - L: four `VPERMB` gathers (in parallel) put block byte `4t + d` where register `t` needs it, four
//!   `GF2P8MULB` multiply by L's coefficients, two three-input XORs add them and the round key, and
//!   three in-lane dword shuffles (`VPSHUFD`) with two XORs sum the four dwords of every lane: 256
//!   products in four instructions instead of sixteen, and the result is spread again.
//!
//! Decryption runs the same two steps with `pi^-1` and the spread form of `L^-1`, in the order
//! `X[K_1] S^-1 (L^-1 X[K_2] S^-1) ... (L^-1 X[K_10])`: each key but `K_1` moves inside the
//! `L^-1` after it as `L^-1(K_i)`, so every round is again one substitution and one keyed linear
//! step.
//!
//! Per call, not per block: constants and round keys are loaded into registers once; the chaining
//! value stays in a register, spread and in the AES-field basis, from block to block, so only the data
//! crossing in and out is permuted and mapped (both off the chain). Constant-time: register permutes
//! and fixed-latency arithmetic only, no memory access depends on key or data.

use core::arch::x86_64::{
    __m512i, _mm512_gf2p8affine_epi64_epi8, _mm512_gf2p8mul_epi8, _mm512_loadu_si512,
    _mm512_mask_blend_epi8, _mm512_mask_storeu_epi8, _mm512_maskz_loadu_epi8,
    _mm512_maskz_mov_epi8, _mm512_movepi8_mask, _mm512_permutex2var_epi8, _mm512_permutexvar_epi8,
    _mm512_set1_epi64, _mm512_setzero_si512, _mm512_shuffle_epi32, _mm512_ternarylogic_epi64,
    _mm512_xor_si512,
};

use super::aes_field::{gfni_constants, GfniConstants, Spread, SPREAD_HOMES};

/// What each block of a chained run does with the chaining value `R` (`E` the cipher, `B` the block).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Chain {
    /// CBC encryption: `R = E(R ^ B)`, and `B` becomes `R`.
    Cbc,
    /// Full-block CFB encryption: `R = E(R) ^ B`, and `B` becomes `R`.
    Cfb,
    /// OFB: `R = E(R)`, and `B` becomes `B ^ R` (the last block may be partial).
    Ofb,
}

/// The constants and round keys as registers, for one call.
struct Registers {
    sbox: [__m512i; 4],
    gather: [__m512i; 4],
    columns: [__m512i; 4],
    expand: __m512i,
    compact: __m512i,
    to_aes: __m512i,
    from_aes: __m512i,
    /// Encryption: K_1 in every dword, then K_2..K_10 in dword 0 of each lane (see
    /// `aes_field::spread_key`). Decryption: `L^-1(K_10)..L^-1(K_2)` in dword 0, then K_1 in every
    /// dword.
    keys: [__m512i; 10],
}

#[inline]
#[target_feature(enable = "avx512f")]
fn load64(bytes: &[u8; 64]) -> __m512i {
    // SAFETY: `bytes` is 64 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm512_loadu_si512(bytes.as_ptr().cast()) }
}

/// Quarter `i` (0..4) of a 256-byte table.
#[inline]
#[target_feature(enable = "avx512f")]
fn load_quarter(table: &[u8; 256], i: usize) -> __m512i {
    let start = 64 * (i % 4);
    // SAFETY: `start + 64 <= 256`, so the 64 bytes read lie inside `table`; no alignment requirement.
    unsafe { _mm512_loadu_si512(table.as_ptr().add(start).cast()) }
}

/// The registers of one direction: `sbox` and `linear` are `c.sbox` and `c.spread` to encrypt,
/// `c.sbox_inv` and `c.spread_inv` to decrypt.
#[inline]
#[target_feature(enable = "avx512f")]
fn load_registers(
    c: &GfniConstants,
    sbox: &[u8; 256],
    linear: &Spread,
    keys: &[[u8; 64]; 10],
) -> Registers {
    Registers {
        sbox: core::array::from_fn(|i| load_quarter(sbox, i)),
        gather: linear.gather.each_ref().map(|b| load64(b)),
        columns: linear.columns.each_ref().map(|b| load64(b)),
        expand: load64(&linear.expand),
        compact: load64(&linear.compact),
        to_aes: _mm512_set1_epi64(c.to_aes as i64),
        from_aes: _mm512_set1_epi64(c.from_aes as i64),
        keys: keys.each_ref().map(|b| load64(b)),
    }
}

#[inline]
#[target_feature(enable = "avx512f")]
fn xor3(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
    _mm512_ternarylogic_epi64::<0x96>(a, b, c)
}

/// The S-box on every byte, from the table in four registers.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn substitute(x: __m512i, t: &[__m512i; 4]) -> __m512i {
    let low = _mm512_permutex2var_epi8(t[0], x, t[1]);
    let high = _mm512_permutex2var_epi8(t[2], x, t[3]);
    _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), low, high)
}

/// `L(x) ^ k` on a spread block; `k` in dword 0 of each lane only.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn linear_xor(x: __m512i, r: &Registers, k: __m512i) -> __m512i {
    let p: [__m512i; 4] = core::array::from_fn(|t| {
        _mm512_gf2p8mul_epi8(_mm512_permutexvar_epi8(r.gather[t], x), r.columns[t])
    });
    let s = xor3(xor3(p[0], p[1], p[2]), p[3], k);
    // Sum the four dwords of each lane: the other three, each by one in-lane shuffle.
    let swap_halves = _mm512_shuffle_epi32::<0x4e>(s);
    let swap_pairs = _mm512_shuffle_epi32::<0xb1>(s);
    let reverse = _mm512_shuffle_epi32::<0x1b>(s);
    _mm512_xor_si512(xor3(s, swap_halves, swap_pairs), reverse)
}

/// Encryption rounds 1..9 after the first key addition (`$x` already holds `X ^ K_1`), ending with
/// `K_10`, with the registers `$r`. A macro, not a function: as a function its inlining into the
/// kernels sits at LLVM's cost threshold, and unrelated changes in this module (another caller of
/// the helpers, another parameter) made it a call, which costs a third of one-block encryption.
macro_rules! rounds {
    ($x:expr, $r:expr) => {{
        let r: &Registers = $r;
        let mut x: __m512i = $x;
        for k in &r.keys[1..] {
            x = linear_xor(substitute(x, &r.sbox), r, *k);
        }
        x
    }};
}

/// A block from memory (16 bytes) to the spread layout in the AES-field basis.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn load_block(bytes: &[u8], r: &Registers) -> __m512i {
    let raw = load_partial(bytes);
    _mm512_gf2p8affine_epi64_epi8::<0>(_mm512_permutexvar_epi8(r.expand, raw), r.to_aes)
}

/// A spread block in the AES-field basis back to wire bytes in bytes 0..16.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn unspread(x: __m512i, r: &Registers) -> __m512i {
    _mm512_gf2p8affine_epi64_epi8::<0>(_mm512_permutexvar_epi8(r.compact, x), r.from_aes)
}

/// Loads the first `min(bytes.len(), 16)` bytes, zero above.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn load_partial(bytes: &[u8]) -> __m512i {
    let mask = (1u64 << bytes.len().min(16)) - 1;
    // SAFETY: only the bytes selected by `mask` are read, all inside `bytes`; masked-off bytes are
    // neither read nor faulted on.
    unsafe { _mm512_maskz_loadu_epi8(mask, bytes.as_ptr().cast()) }
}

/// Stores the first `min(bytes.len(), 16)` bytes of `v`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn store_partial(bytes: &mut [u8], v: __m512i) {
    let mask = (1u64 << bytes.len().min(16)) - 1;
    // SAFETY: only the bytes selected by `mask` are written, all inside `bytes`.
    unsafe { _mm512_mask_storeu_epi8(bytes.as_mut_ptr().cast(), mask, v) }
}

/// Encrypts the first 16 bytes of `block` (at most 16 are touched) in place; the caller has checked
/// the CPU features.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
pub(super) fn encrypt_block(keys: &[[u8; 64]; 10], block: &mut [u8]) {
    let c = gfni_constants();
    let r = load_registers(c, &c.sbox, &c.spread, keys);
    let x = _mm512_xor_si512(load_block(block, &r), r.keys[0]);
    store_partial(block, unspread(rounds!(x, &r), &r));
}

/// Decrypts the first 16 bytes of `block` (at most 16 are touched) in place, with the decryption
/// keys of [`Registers::keys`]; the caller has checked the CPU features.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
pub(super) fn decrypt_block(keys: &[[u8; 64]; 10], block: &mut [u8]) {
    let c = gfni_constants();
    let r = load_registers(c, &c.sbox_inv, &c.spread_inv, keys);
    let mut y = linear_xor(load_block(block, &r), &r, r.keys[0]);
    for k in &r.keys[1..9] {
        y = linear_xor(substitute(y, &r.sbox), &r, *k);
    }
    y = _mm512_xor_si512(substitute(y, &r.sbox), r.keys[9]);
    store_partial(block, unspread(y, &r));
}

/// CTR for a message of at most one block: XORs `E(counter)` into `data` (at most 16 bytes are
/// touched). The key stream stays in a register; the caller has checked the CPU features.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
pub(super) fn ctr_block(keys: &[[u8; 64]; 10], counter: &[u8; 16], data: &mut [u8]) {
    let c = gfni_constants();
    let r = load_registers(c, &c.sbox, &c.spread, keys);
    let text = load_partial(data);
    let x = _mm512_xor_si512(load_block(counter, &r), r.keys[0]);
    store_partial(data, _mm512_xor_si512(unspread(rounds!(x, &r), &r), text));
}

/// Runs `mode` over `data` (whole blocks; for [`Chain::Ofb`] the last may be partial) from and back
/// into the chaining value `iv` (16 bytes: afterwards the last `R`); the caller has checked the CPU
/// features.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
pub(super) fn chain(keys: &[[u8; 64]; 10], mode: Chain, iv: &mut [u8], data: &mut [u8]) {
    let c = gfni_constants();
    let r = load_registers(c, &c.sbox, &c.spread, keys);
    let mut state = load_block(iv, &r);
    // Each block's input is loaded and mapped one block ahead: the rounds of a block fill the
    // reorder window, and CBC needs its input at the start of the chain.
    let mut next = load_block(data, &r);
    let mut start = 0;
    while start < data.len() {
        let end = (start + 16).min(data.len());
        let input = next;
        next = load_block(&data[end..], &r);
        let out = match mode {
            Chain::Cbc => {
                state = rounds!(xor3(state, input, r.keys[0]), &r);
                state
            }
            Chain::Cfb => {
                state = _mm512_xor_si512(rounds!(_mm512_xor_si512(state, r.keys[0]), &r), input);
                state
            }
            Chain::Ofb => {
                state = rounds!(_mm512_xor_si512(state, r.keys[0]), &r);
                _mm512_xor_si512(state, input)
            }
        };
        store_partial(&mut data[start..end], unspread(out, &r));
        start = end;
    }
    store_partial(iv, unspread(state, &r));
}

/// The CBC-MAC chain `R = E(R ^ B)` over the whole blocks of `data`, from and back into `state`
/// (16 bytes); the caller has checked the CPU features.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
pub(super) fn cbc_mac(keys: &[[u8; 64]; 10], state: &mut [u8], data: &[u8]) {
    let c = gfni_constants();
    let r = load_registers(c, &c.sbox, &c.spread, keys);
    let mut x = load_block(state, &r);
    // Inputs loaded one block ahead, as in `chain`.
    let mut next = load_block(data, &r);
    for start in (0..data.len() / 16 * 16).step_by(16) {
        let input = next;
        next = load_block(&data[start + 16..], &r);
        x = rounds!(xor3(x, input, r.keys[0]), &r);
    }
    store_partial(state, unspread(x, &r));
}

/// The key schedule (RFC 7801 section 4.3) on spread blocks in the AES-field basis: `K_1` and `K_2`
/// are the halves of `key`, and four times eight Feistel steps `(a_1, a_0) <- (L(S(a_1 ^ C_i)) ^ a_0,
/// a_1)` make `K_3..K_10`, each step one round of this kernel with `a_0` as its round key, so the
/// 32 steps cost 32 round latencies (the table-driven steps wait on a 64 KiB table in L2).
/// `constants` are `C_1..C_32`. Writes the round keys to `keys` and `K_1`, `L^-1(K_2)..L^-1(K_10)`
/// (the table-driven decryption's keys) to `inv_keys`, all as wire bytes; the caller has checked
/// the CPU features.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
pub(super) fn schedule(
    key: &[u8; 32],
    constants: &[[u8; 16]; 32],
    keys: &mut [[u8; 16]; 10],
    inv_keys: &mut [[u8; 16]; 10],
) {
    let c = gfni_constants();
    // The registers' own round keys go unused here: the steps take theirs from the schedule.
    let unused = [[0u8; 64]; 10];
    let r = load_registers(c, &c.sbox, &c.spread, &unused);
    let (first, second) = key.split_at(16);
    let mut a1 = load_block(first, &r);
    let mut a0 = load_block(second, &r);
    let mut spread = [a1, a0, a1, a0, a1, a0, a1, a0, a1, a0];
    for (pair, steps) in constants.chunks_exact(8).enumerate() {
        for constant in steps {
            let x = _mm512_xor_si512(a1, load_block(constant, &r));
            let a0_home = _mm512_maskz_mov_epi8(SPREAD_HOMES, a0);
            (a1, a0) = (linear_xor(substitute(x, &r.sbox), &r, a0_home), a1);
        }
        spread[2 * pair + 2] = a1;
        spread[2 * pair + 3] = a0;
    }
    let inverse = load_registers(c, &c.sbox_inv, &c.spread_inv, &unused);
    for (i, ((k, inv), s)) in keys
        .iter_mut()
        .zip(inv_keys.iter_mut())
        .zip(spread)
        .enumerate()
    {
        store_partial(k, unspread(s, &r));
        let moved = if i == 0 {
            s
        } else {
            linear_xor(s, &inverse, _mm512_setzero_si512())
        };
        store_partial(inv, unspread(moved, &r));
    }
}
