//! AES with VAES: the AES round instructions on 256-bit (two blocks per register, [`Width::Y256`])
//! or 512-bit registers (four blocks, [`Width::Z512`], needs AVX-512 F), eight registers in flight
//! per pass. Remainders that fill less than a register run through the 128-bit AES-NI forms.
//!
//! Constant-time by construction (the AES round instructions have data-independent timing). Round
//! keys, forward and inverse, come from [`AesNi`], which also zeroizes them on drop.

use core::arch::x86_64::{
    __m128i, __m256i, __m512i, _mm256_aesdec_epi128, _mm256_aesdeclast_epi128,
    _mm256_aesenc_epi128, _mm256_aesenclast_epi128, _mm256_broadcastsi128_si256,
    _mm256_castsi256_si128, _mm256_extracti128_si256, _mm256_inserti128_si256, _mm256_loadu_si256,
    _mm256_permute2x128_si256, _mm256_setzero_si256, _mm256_storeu_si256, _mm256_xor_si256,
    _mm256_zextsi128_si256, _mm512_add_epi32, _mm512_add_epi64, _mm512_aesdec_epi128,
    _mm512_aesdeclast_epi128, _mm512_aesenc_epi128, _mm512_aesenclast_epi128, _mm512_alignr_epi64,
    _mm512_broadcast_i32x4, _mm512_castsi512_si128, _mm512_extracti32x4_epi32, _mm512_inserti32x4,
    _mm512_loadu_si512, _mm512_mask_storeu_epi8, _mm512_maskz_loadu_epi8, _mm512_set_epi32,
    _mm512_set_epi64, _mm512_setzero_si512, _mm512_shuffle_epi8, _mm512_shuffle_i64x2,
    _mm512_storeu_si512, _mm512_xor_si512, _mm512_zextsi128_si512, _mm_aesdec_si128,
    _mm_aesdeclast_si128, _mm_aesenc_si128, _mm_aesenclast_si128, _mm_loadu_si128,
    _mm_setzero_si128, _mm_storeu_si128, _mm_xor_si128,
};

use core::mem::MaybeUninit;

use super::key_schedule::MAX_ROUND_KEYS;
use super::x86_aesni::AesNi;

/// Registers processed together in the main loop.
const REGS: usize = 8;

type RoundKeys = [[u8; 16]; MAX_ROUND_KEYS];

/// Register width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Width {
    /// 256-bit VAES (AVX2 encoding).
    Y256,
    /// 512-bit VAES (EVEX encoding, AVX-512 F).
    Z512,
}

/// Round keys and a register width. Holding one proves that the CPU has VAES (and AVX-512 F for
/// [`Width::Z512`]): [`Vaes::new`] is the only constructor and checks it.
#[derive(Clone)]
pub(super) struct Vaes {
    keys: AesNi,
    width: Width,
}

impl Vaes {
    /// Expands the key, or returns `None` when this CPU lacks what `width` needs.
    pub(super) fn new(key: &[u8], width: Width) -> Option<Vaes> {
        let f = crate::cpu::features();
        let ok = f.vaes
            && f.avx2
            && match width {
                Width::Y256 => true,
                Width::Z512 => f.avx512f,
            };
        if !ok {
            return None;
        }
        Some(Vaes {
            keys: AesNi::new(key)?,
            width,
        })
    }

    /// The AES-NI view of the same key (for 128-bit work such as multi-stream lanes).
    #[inline]
    pub(super) fn aesni(&self) -> &AesNi {
        &self.keys
    }

    #[inline]
    pub(super) fn width(&self) -> Width {
        self.width
    }

    /// Encrypts every whole 16-byte block of `data` in place.
    pub(super) fn encrypt_blocks(&self, data: &mut [u8]) {
        let (keys, rounds) = (self.keys.enc_keys(), self.keys.rounds());
        match self.width {
            // SAFETY: `new` checked VAES, AVX2 and AES-NI (AesNi::new) for 256-bit registers.
            Width::Y256 => unsafe { run_y256::<false>(keys, rounds, data) },
            // SAFETY: `new` checked VAES, AVX-512 F and AES-NI for 512-bit registers.
            Width::Z512 => unsafe { run_z512::<false>(keys, rounds, data) },
        }
    }

    /// [`Vaes::encrypt_blocks`] on 256-bit registers whatever the width (a 512-bit instance's CPU
    /// has VAES and AVX2 too): the short-call path of CPUs that split 512-bit instructions.
    pub(super) fn encrypt_blocks_y256(&self, data: &mut [u8]) {
        let (keys, rounds) = (self.keys.enc_keys(), self.keys.rounds());
        // SAFETY: `new` checked VAES, AVX2 and AES-NI for either width.
        unsafe { run_y256::<false>(keys, rounds, data) }
    }

    /// [`Vaes::decrypt_blocks`] on 256-bit registers whatever the width.
    pub(super) fn decrypt_blocks_y256(&self, data: &mut [u8]) {
        let (keys, rounds) = (self.keys.dec_keys(), self.keys.rounds());
        // SAFETY: as in `encrypt_blocks_y256`.
        unsafe { run_y256::<true>(keys, rounds, data) }
    }

    /// Decrypts every whole 16-byte block of `data` in place (Equivalent Inverse Cipher).
    pub(super) fn decrypt_blocks(&self, data: &mut [u8]) {
        let (keys, rounds) = (self.keys.dec_keys(), self.keys.rounds());
        match self.width {
            // SAFETY: as in `encrypt_blocks`.
            Width::Y256 => unsafe { run_y256::<true>(keys, rounds, data) },
            // SAFETY: as in `encrypt_blocks`.
            Width::Z512 => unsafe { run_z512::<true>(keys, rounds, data) },
        }
    }
}

impl Vaes {
    /// GCM-style CTR: XORs into `data` the key stream E(c_0) || E(c_1) || ... where `c_i` is
    /// `first` with its last four bytes, read big-endian, plus `i` mod 2^32 (SP 800-38D inc32).
    /// Only the 512-bit width has this path; returns `false`, touching nothing, otherwise.
    pub(super) fn ctr32_xor(&self, first: &[u8; 16], data: &mut [u8]) -> bool {
        match self.width {
            Width::Y256 => false,
            Width::Z512 => {
                let f = crate::cpu::features();
                if !f.avx512bw {
                    return false;
                }
                // SAFETY: `new` checked VAES, AVX-512 F and AES-NI; AVX-512 BW just above.
                unsafe { ctr_z512::<false>(self.keys.enc_keys(), self.keys.rounds(), first, data) };
                true
            }
        }
    }
}

impl Vaes {
    /// SP 800-38A CTR (the whole block a big-endian counter): XORs the key stream from `counter`
    /// into `data` and advances `counter` past the blocks used. Only the 512-bit width has this
    /// path, and only while the low 64 bits of the counter do not wrap within `data` (they are
    /// stepped by 64-bit vector adds); returns `false`, touching nothing, otherwise.
    pub(super) fn ctr128_xor(&self, counter: &mut [u8; 16], data: &mut [u8]) -> bool {
        if self.width != Width::Z512 || !crate::cpu::features().avx512bw {
            return false;
        }
        let start = u128::from_be_bytes(*counter);
        let blocks = data.len().div_ceil(16) as u128;
        // The counter's low half must reach start_low + blocks - 1 without a carry.
        if u128::from(start as u64) + blocks > u128::from(u64::MAX) + 1 {
            return false;
        }
        // SAFETY: `new` checked VAES, AVX-512 F and AES-NI; AVX-512 BW just above.
        unsafe { ctr_z512::<true>(self.keys.enc_keys(), self.keys.rounds(), counter, data) };
        *counter = start.wrapping_add(blocks).to_be_bytes();
        true
    }
}

impl Vaes {
    /// CBC (`CBC`) or CFB-128 (full-block segments) decryption with a one-block register of
    /// `data`, whole blocks only: block `i` becomes `D(C_i) ^ C_(i-1)` or `C_i ^ E(C_(i-1))`
    /// with `C_(-1)` the register, and the register becomes the last ciphertext block. Every
    /// block before a block is ciphertext known in advance, so it is shifted into place in
    /// registers (one block across) and nothing but the output is written. The 512-bit width
    /// (with AVX-512 BW) takes messages from 64 bytes, the 256-bit width from
    /// [`CHAIN_Y256_MIN`]; returns `false`, touching nothing, otherwise.
    pub(super) fn decrypt_chain<const CBC: bool>(
        &self,
        register: &mut [u8; 16],
        data: &mut [u8],
    ) -> bool {
        if !data.len().is_multiple_of(16) {
            return false;
        }
        if data.is_empty() {
            return true;
        }
        let keys = if CBC {
            self.keys.dec_keys()
        } else {
            self.keys.enc_keys()
        };
        let rounds = self.keys.rounds();
        match self.width {
            Width::Z512 if data.len() < CHAIN_Z512_MIN => false,
            Width::Z512 if crate::cpu::features().avx512bw => {
                // SAFETY: `new` checked VAES, AVX-512 F and AES-NI; AVX-512 BW just above.
                unsafe { decrypt_chain_z512::<CBC>(keys, rounds, register, data) };
                true
            }
            Width::Z512 => false,
            Width::Y256 if data.len() < CHAIN_Y256_MIN => false,
            Width::Y256 => {
                // SAFETY: `new` checked VAES, AVX2 and AES-NI.
                unsafe { decrypt_chain_y256::<CBC>(keys, rounds, register, data) };
                true
            }
        }
    }
}

#[inline]
#[target_feature(enable = "sse2")]
fn load128(b: &[u8]) -> __m128i {
    let b = &b[..16];
    // SAFETY: `b` is exactly 16 readable bytes and `loadu` has no alignment requirement.
    unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "sse2")]
fn store128(b: &mut [u8], v: __m128i) {
    let b = &mut b[..16];
    // SAFETY: `b` is exactly 16 writable bytes and `storeu` has no alignment requirement.
    unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), v) }
}

/// The single-block remainder, with the 128-bit instructions.
#[inline]
#[target_feature(enable = "aes")]
fn run_blocks<const DEC: bool>(keys: &RoundKeys, rounds: usize, data: &mut [u8]) {
    for block in data.chunks_exact_mut(16) {
        let mut s = _mm_xor_si128(load128(block), load128(&keys[0]));
        for k in &keys[1..rounds] {
            let k = load128(k);
            s = if DEC {
                _mm_aesdec_si128(s, k)
            } else {
                _mm_aesenc_si128(s, k)
            };
        }
        let k = load128(&keys[rounds]);
        s = if DEC {
            _mm_aesdeclast_si128(s, k)
        } else {
            _mm_aesenclast_si128(s, k)
        };
        store128(block, s);
    }
}

/// Every whole block of `data` on 256-bit registers. A short call (up to `2 * REGS + 1` blocks)
/// goes to a function of its own: the bulk loop's frame (a table of broadcast round keys, aligned
/// on the stack, and the registers it saves) cost a four-block call about as much as its rounds.
///
/// # Safety
/// The CPU must have VAES, AVX2 and AES-NI.
#[inline(always)]
unsafe fn run_y256<const DEC: bool>(keys: &RoundKeys, rounds: usize, data: &mut [u8]) {
    if data.len() / 16 <= 2 * REGS + 1 {
        // SAFETY: the caller guarantees VAES, AVX2 and AES-NI.
        unsafe { short_y256_call::<DEC>(keys, rounds, data) }
    } else {
        // SAFETY: as above.
        unsafe { bulk_y256::<DEC>(keys, rounds, data) }
    }
}

/// [`short_y256`] out of line, with no more frame than its passes need.
#[inline(never)]
#[target_feature(enable = "avx2,vaes,aes")]
fn short_y256_call<const DEC: bool>(keys: &RoundKeys, rounds: usize, data: &mut [u8]) {
    short_y256::<DEC>(keys, rounds, data);
}

/// More than `2 * REGS + 1` blocks: `REGS` registers per pass with every round key broadcast once.
#[target_feature(enable = "avx2,vaes,aes")]
fn bulk_y256<const DEC: bool>(keys: &RoundKeys, rounds: usize, data: &mut [u8]) {
    let rk: [__m256i; MAX_ROUND_KEYS] =
        core::array::from_fn(|i| _mm256_broadcastsi128_si256(load128(&keys[i])));
    let mut groups = data.chunks_exact_mut(32 * REGS);
    for group in &mut groups {
        group_y256::<DEC, REGS>(&rk, rounds, group);
    }
    let mut pairs = groups.into_remainder().chunks_exact_mut(32);
    for pair in &mut pairs {
        group_y256::<DEC, 1>(&rk, rounds, pair);
    }
    run_blocks::<DEC>(keys, rounds, pairs.into_remainder());
}

/// Up to `2 * REGS + 1` blocks in one interleaved pass: a call this short is mostly set-up, so
/// every register (and an odd last block, on the 128-bit form) runs through the rounds together
/// and each round key is broadcast from memory as its round comes, instead of first filling a
/// table of all fifteen broadcast keys.
#[inline]
#[target_feature(enable = "avx2,vaes,aes")]
fn short_y256<const DEC: bool>(keys: &RoundKeys, rounds: usize, data: &mut [u8]) {
    let blocks = data.len() / 16;
    let data = &mut data[..16 * blocks];
    macro_rules! pass {
        ($n:literal) => {
            if blocks % 2 == 1 {
                pass_y256::<DEC, $n, true, 0>(keys, rounds, data)
            } else {
                pass_y256::<DEC, $n, false, 0>(keys, rounds, data)
            }
        };
    }
    // Up to five blocks (two registers and an odd block), the most common short messages: the
    // round count a constant too, so that the passes are straight runs of rounds.
    if (2..=5).contains(&blocks) {
        match rounds {
            10 => short_fixed::<DEC, 10>(keys, data),
            12 => short_fixed::<DEC, 12>(keys, data),
            _ => short_fixed::<DEC, 14>(keys, data),
        }
        return;
    }
    match blocks / 2 {
        0 => run_blocks::<DEC>(keys, rounds, data),
        1 => pass!(1),
        2 => pass!(2),
        3 => pass!(3),
        4 => pass!(4),
        5 => pass!(5),
        6 => pass!(6),
        7 => pass!(7),
        _ => pass!(8),
    }
}

/// Two to five whole blocks (`data` is exactly that), `NR` rounds.
#[inline]
#[target_feature(enable = "avx2,vaes,aes")]
fn short_fixed<const DEC: bool, const NR: usize>(keys: &RoundKeys, data: &mut [u8]) {
    match data.len() / 16 {
        2 => pass_y256::<DEC, 1, false, NR>(keys, NR, data),
        3 => pass_y256::<DEC, 1, true, NR>(keys, NR, data),
        4 => pass_y256::<DEC, 2, false, NR>(keys, NR, data),
        _ => pass_y256::<DEC, 2, true, NR>(keys, NR, data),
    }
}

/// `N` registers of two blocks each and, if `ODD`, one more block in a 128-bit register (`chunk`
/// is `32 * N + 16 * ODD` bytes), rounds interleaved, round keys broadcast from `keys` per round.
/// `NR`: the round count as a constant (the rounds unrolled), or 0 to take `rounds`.
#[inline]
#[target_feature(enable = "avx2,vaes,aes")]
fn pass_y256<const DEC: bool, const N: usize, const ODD: bool, const NR: usize>(
    keys: &RoundKeys,
    rounds: usize,
    chunk: &mut [u8],
) {
    let rounds = if NR == 0 { rounds } else { NR };
    let (pairs, last) = chunk.split_at_mut(32 * N);
    let k0 = load128(&keys[0]);
    let k0y = _mm256_broadcastsi128_si256(k0);
    let mut s: [__m256i; N] = core::array::from_fn(|i| {
        // SAFETY: `pairs` holds 32 * N bytes, so bytes 32i..32i+32 are readable; unaligned load.
        let v = unsafe { _mm256_loadu_si256(pairs.as_ptr().add(32 * i).cast()) };
        _mm256_xor_si256(v, k0y)
    });
    let mut t = if ODD {
        _mm_xor_si128(load128(last), k0)
    } else {
        _mm_setzero_si128()
    };
    for k in &keys[1..rounds] {
        let k = load128(k);
        let ky = _mm256_broadcastsi128_si256(k);
        for v in s.iter_mut() {
            *v = if DEC {
                _mm256_aesdec_epi128(*v, ky)
            } else {
                _mm256_aesenc_epi128(*v, ky)
            };
        }
        if ODD {
            t = if DEC {
                _mm_aesdec_si128(t, k)
            } else {
                _mm_aesenc_si128(t, k)
            };
        }
    }
    let k = load128(&keys[rounds]);
    let ky = _mm256_broadcastsi128_si256(k);
    for (i, v) in s.iter().enumerate() {
        let out = if DEC {
            _mm256_aesdeclast_epi128(*v, ky)
        } else {
            _mm256_aesenclast_epi128(*v, ky)
        };
        // SAFETY: bytes 32i..32i+32 of `pairs` are writable; unaligned store.
        unsafe { _mm256_storeu_si256(pairs.as_mut_ptr().add(32 * i).cast(), out) };
    }
    if ODD {
        let out = if DEC {
            _mm_aesdeclast_si128(t, k)
        } else {
            _mm_aesenclast_si128(t, k)
        };
        store128(last, out);
    }
}

/// `N` registers of two blocks each (`chunk` is 32 * N bytes), rounds interleaved.
#[inline]
#[target_feature(enable = "avx2,vaes")]
fn group_y256<const DEC: bool, const N: usize>(
    rk: &[__m256i; MAX_ROUND_KEYS],
    rounds: usize,
    chunk: &mut [u8],
) {
    let chunk = &mut chunk[..32 * N];
    let s: [__m256i; N] = core::array::from_fn(|i| {
        // SAFETY: `chunk` holds 32 * N bytes, so bytes 32i..32i+32 are readable; unaligned load.
        unsafe { _mm256_loadu_si256(chunk.as_ptr().add(32 * i).cast()) }
    });
    let out = crypt_regs_y256::<DEC, N>(rk, rounds, s);
    for (i, v) in out.iter().enumerate() {
        // SAFETY: bytes 32i..32i+32 of `chunk` are writable; unaligned store.
        unsafe { _mm256_storeu_si256(chunk.as_mut_ptr().add(32 * i).cast(), *v) };
    }
}

/// `N` registers of two blocks through the rounds together (the inverse cipher when `DEC`) with
/// broadcast round keys `rk`.
#[inline]
#[target_feature(enable = "avx2,vaes")]
fn crypt_regs_y256<const DEC: bool, const N: usize>(
    rk: &[__m256i; MAX_ROUND_KEYS],
    rounds: usize,
    mut s: [__m256i; N],
) -> [__m256i; N] {
    for v in s.iter_mut() {
        *v = _mm256_xor_si256(*v, rk[0]);
    }
    for k in &rk[1..rounds] {
        for v in s.iter_mut() {
            *v = if DEC {
                _mm256_aesdec_epi128(*v, *k)
            } else {
                _mm256_aesenc_epi128(*v, *k)
            };
        }
    }
    for v in s.iter_mut() {
        *v = if DEC {
            _mm256_aesdeclast_epi128(*v, rk[rounds])
        } else {
            _mm256_aesenclast_epi128(*v, rk[rounds])
        };
    }
    s
}

#[target_feature(enable = "avx512f,vaes,aes")]
fn run_z512<const DEC: bool>(keys: &RoundKeys, rounds: usize, data: &mut [u8]) {
    let rk: [__m512i; MAX_ROUND_KEYS] =
        core::array::from_fn(|i| _mm512_broadcast_i32x4(load128(&keys[i])));
    let mut groups = data.chunks_exact_mut(64 * REGS);
    for group in &mut groups {
        group_z512::<DEC, REGS>(&rk, rounds, group);
    }
    let mut quads = groups.into_remainder().chunks_exact_mut(64);
    for quad in &mut quads {
        group_z512::<DEC, 1>(&rk, rounds, quad);
    }
    run_blocks::<DEC>(keys, rounds, quads.into_remainder());
}

/// `N` registers of four blocks each (`chunk` is 64 * N bytes), rounds interleaved.
#[inline]
#[target_feature(enable = "avx512f,vaes")]
fn group_z512<const DEC: bool, const N: usize>(
    rk: &[__m512i; MAX_ROUND_KEYS],
    rounds: usize,
    chunk: &mut [u8],
) {
    let chunk = &mut chunk[..64 * N];
    let s: [__m512i; N] = core::array::from_fn(|i| {
        // SAFETY: `chunk` holds 64 * N bytes, so bytes 64i..64i+64 are readable; unaligned load.
        unsafe { _mm512_loadu_si512(chunk.as_ptr().add(64 * i).cast()) }
    });
    let out = crypt_regs::<DEC, N>(rk, rounds, s);
    for (i, v) in out.iter().enumerate() {
        // SAFETY: bytes 64i..64i+64 of `chunk` are writable; unaligned store.
        unsafe { _mm512_storeu_si512(chunk.as_mut_ptr().add(64 * i).cast(), *v) };
    }
}

/// `N` registers of four blocks through the rounds together with broadcast round keys `rk`.
#[inline]
#[target_feature(enable = "avx512f,vaes")]
fn crypt_regs<const DEC: bool, const N: usize>(
    rk: &[__m512i; MAX_ROUND_KEYS],
    rounds: usize,
    mut s: [__m512i; N],
) -> [__m512i; N] {
    for v in s.iter_mut() {
        *v = _mm512_xor_si512(*v, rk[0]);
    }
    for k in &rk[1..rounds] {
        for v in s.iter_mut() {
            *v = if DEC {
                _mm512_aesdec_epi128(*v, *k)
            } else {
                _mm512_aesenc_epi128(*v, *k)
            };
        }
    }
    for v in s.iter_mut() {
        *v = if DEC {
            _mm512_aesdeclast_epi128(*v, rk[rounds])
        } else {
            _mm512_aesenclast_epi128(*v, rk[rounds])
        };
    }
    s
}

/// `N` registers of four blocks through the rounds together (the inverse cipher when `DEC`),
/// each round key broadcast from `keys` as its round comes (a short call: no table of
/// broadcast keys first).
#[inline]
#[target_feature(enable = "avx512f,vaes")]
fn crypt_regs_mem<const DEC: bool, const N: usize>(
    keys: &RoundKeys,
    rounds: usize,
    mut s: [__m512i; N],
) -> [__m512i; N] {
    let k0 = _mm512_broadcast_i32x4(load128(&keys[0]));
    for v in s.iter_mut() {
        *v = _mm512_xor_si512(*v, k0);
    }
    for k in &keys[1..rounds] {
        let k = _mm512_broadcast_i32x4(load128(k));
        for v in s.iter_mut() {
            *v = if DEC {
                _mm512_aesdec_epi128(*v, k)
            } else {
                _mm512_aesenc_epi128(*v, k)
            };
        }
    }
    let k = _mm512_broadcast_i32x4(load128(&keys[rounds]));
    for v in s.iter_mut() {
        *v = if DEC {
            _mm512_aesdeclast_epi128(*v, k)
        } else {
            _mm512_aesenclast_epi128(*v, k)
        };
    }
    s
}

/// Reverses the bytes of each 128-bit lane.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn reverse_lanes(v: __m512i) -> __m512i {
    let (hi, lo) = (0x0001_0203_0405_0607_i64, 0x0809_0a0b_0c0d_0e0f_i64);
    _mm512_shuffle_epi8(v, _mm512_set_epi64(hi, lo, hi, lo, hi, lo, hi, lo))
}

/// `n` added to the counter of every 128-bit lane (`n + lane` when `per_lane`): to its 32-bit
/// word 0 (GCM's inc32) or, when `LOW64`, to its 64-bit word 0 (the low half of a 128-bit counter,
/// which the caller has checked cannot carry into the high half).
#[inline]
#[target_feature(enable = "avx512f")]
fn advance<const LOW64: bool>(ctr: __m512i, n: i32, per_lane: bool) -> __m512i {
    let d = i32::from(per_lane);
    if LOW64 {
        let [a, b, c, e] = [n, n + d, n + 2 * d, n + 3 * d].map(i64::from);
        _mm512_add_epi64(ctr, _mm512_set_epi64(0, e, 0, c, 0, b, 0, a))
    } else {
        _mm512_add_epi32(
            ctr,
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
            ),
        )
    }
}

/// The CTR key stream of `4 N` counter blocks from `ctr` (the counter blocks byte-reversed, so
/// that the big-endian counter's low word is word 0 of each lane and a vector add increments it).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes")]
fn keystream_regs<const N: usize, const LOW64: bool>(
    rk: &[__m512i; MAX_ROUND_KEYS],
    rounds: usize,
    ctr: __m512i,
) -> [__m512i; N] {
    crypt_regs::<false, N>(rk, rounds, counter_regs::<N, LOW64>(ctr))
}

/// The `4 N` counter blocks from `ctr` in wire order, four to a register.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn counter_regs<const N: usize, const LOW64: bool>(ctr: __m512i) -> [__m512i; N] {
    core::array::from_fn(|i| reverse_lanes(advance::<LOW64>(ctr, 4 * i as i32, false)))
}

/// [`keystream_regs`] with each round key broadcast from `keys` as its round comes: for a short
/// call, which would otherwise first fill a table of all fifteen broadcast keys.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes")]
fn keystream_regs_mem<const N: usize, const LOW64: bool>(
    keys: &RoundKeys,
    rounds: usize,
    ctr: __m512i,
) -> [__m512i; N] {
    crypt_regs_mem::<false, N>(keys, rounds, counter_regs::<N, LOW64>(ctr))
}

/// XORs the first `part.len()` (at most 64) bytes of `k` into `part` with a masked load and
/// store: the key stream never leaves the register, so there is no buffer to wipe (which cost a
/// short message more than its encryption).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn xor_masked(part: &mut [u8], k: __m512i) {
    store_masked(part, _mm512_xor_si512(load_masked(part), k));
}

/// The mask of the first `len` bytes of a 512-bit register (all of them from 64 up).
#[inline(always)]
fn byte_mask(len: usize) -> u64 {
    if len >= 64 {
        u64::MAX
    } else {
        (1u64 << len) - 1
    }
}

/// Longest message [`ctr_z512`] encrypts in one interleaved pass of [`keystream_regs_mem`].
const SHORT_CTR_MAX: usize = 4 * 64;

/// [`ctr_z512`] for at most [`SHORT_CTR_MAX`] bytes: `N` registers of key stream in one pass,
/// XORed in with masked loads and stores (the key stream never leaves the registers).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes")]
fn ctr_short_z512<const N: usize, const LOW64: bool>(
    keys: &RoundKeys,
    rounds: usize,
    ctr: __m512i,
    data: &mut [u8],
) {
    let ks = keystream_regs_mem::<N, LOW64>(keys, rounds, ctr);
    for (part, k) in data.chunks_mut(64).zip(ks) {
        xor_masked(part, k);
    }
}

/// XORs the key stream from the counter block `first` into `data` (any length); see
/// [`advance`] for the two counter steps.
#[target_feature(enable = "avx512f,avx512bw,vaes,aes")]
fn ctr_z512<const LOW64: bool>(keys: &RoundKeys, rounds: usize, first: &[u8; 16], data: &mut [u8]) {
    if data.len() <= SHORT_CTR_MAX {
        let ctr = advance::<LOW64>(
            reverse_lanes(_mm512_broadcast_i32x4(load128(first))),
            0,
            true,
        );
        match data.len().div_ceil(64) {
            0 => {}
            1 => ctr_short_z512::<1, LOW64>(keys, rounds, ctr, data),
            2 => ctr_short_z512::<2, LOW64>(keys, rounds, ctr, data),
            3 => ctr_short_z512::<3, LOW64>(keys, rounds, ctr, data),
            _ => ctr_short_z512::<4, LOW64>(keys, rounds, ctr, data),
        }
        return;
    }
    let rk: [__m512i; MAX_ROUND_KEYS] =
        core::array::from_fn(|i| _mm512_broadcast_i32x4(load128(&keys[i])));
    let base = reverse_lanes(_mm512_broadcast_i32x4(load128(first)));
    let mut ctr = advance::<LOW64>(base, 0, true);
    let mut groups = data.chunks_exact_mut(64 * REGS);
    for group in &mut groups {
        let ks = keystream_regs::<REGS, LOW64>(&rk, rounds, ctr);
        for (i, k) in ks.iter().enumerate() {
            let at = group[64 * i..64 * i + 64].as_mut_ptr();
            // SAFETY: `at` points to 64 readable and writable bytes of `group`; unaligned access.
            unsafe {
                let d = _mm512_loadu_si512(at.cast());
                _mm512_storeu_si512(at.cast(), _mm512_xor_si512(d, *k));
            }
        }
        ctr = advance::<LOW64>(ctr, 4 * REGS as i32, false);
    }
    for part in groups.into_remainder().chunks_mut(64) {
        let [k] = keystream_regs::<1, LOW64>(&rk, rounds, ctr);
        xor_masked(part, k);
        ctr = advance::<LOW64>(ctr, 4, false);
    }
}

/// The block before each block of `c` (four blocks): the last block of `prev`, then the first
/// three of `c`. These are CFB's cipher inputs and CBC's XOR operands.
#[inline]
#[target_feature(enable = "avx512f")]
fn blocks_before(c: __m512i, prev: __m512i) -> __m512i {
    _mm512_alignr_epi64::<6>(c, prev)
}

/// The first `part.len()` (at most 64) bytes of `part`, zeros above.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn load_masked(part: &[u8]) -> __m512i {
    let mask = byte_mask(part.len());
    // SAFETY: only the bytes selected by `mask`, all inside `part`, are read; masked-off bytes
    // are neither accessed nor faulted on.
    unsafe { _mm512_maskz_loadu_epi8(mask, part.as_ptr().cast()) }
}

/// Writes the first `part.len()` (at most 64) bytes of `v` to `part`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn store_masked(part: &mut [u8], v: __m512i) {
    let mask = byte_mask(part.len());
    // SAFETY: only the bytes selected by `mask`, all inside `part`, are written.
    unsafe { _mm512_mask_storeu_epi8(part.as_mut_ptr().cast(), mask, v) }
}

/// The cipher inputs and the XOR operands of the ciphertext registers `c` after `prev`: CBC
/// deciphers each block and XORs the block before it, CFB enciphers the block before and XORs
/// the block itself.
#[inline]
#[target_feature(enable = "avx512f")]
fn chain_operands<const CBC: bool, const N: usize>(
    c: &[__m512i; N],
    prev: __m512i,
) -> ([__m512i; N], [__m512i; N]) {
    let before: [__m512i; N] =
        core::array::from_fn(|i| blocks_before(c[i], if i == 0 { prev } else { c[i - 1] }));
    if CBC {
        (*c, before)
    } else {
        (before, *c)
    }
}

/// [`decrypt_chain_z512`] for 1 to `4 N` blocks, `N` registers in one pass.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes")]
fn decrypt_chain_short_z512<const CBC: bool, const N: usize>(
    keys: &RoundKeys,
    rounds: usize,
    prev: __m512i,
    data: &mut [u8],
) {
    let mut c = [_mm512_setzero_si512(); N];
    for (v, part) in c.iter_mut().zip(data.chunks(64)) {
        *v = load_masked(part);
    }
    let (inputs, operands) = chain_operands::<CBC, N>(&c, prev);
    let out = crypt_regs_mem::<CBC, N>(keys, rounds, inputs);
    for ((part, o), x) in data.chunks_mut(64).zip(out).zip(operands) {
        store_masked(part, _mm512_xor_si512(o, x));
    }
}

/// CBC (`CBC`, with the decryption round keys) or CFB-128 (the encryption round keys)
/// decryption of `data` (whole blocks, at least one) from `register`, which becomes the last
/// ciphertext block.
#[target_feature(enable = "avx512f,avx512bw,vaes,aes")]
fn decrypt_chain_z512<const CBC: bool>(
    keys: &RoundKeys,
    rounds: usize,
    register: &mut [u8; 16],
    data: &mut [u8],
) {
    let next = load128(&data[data.len() - 16..]);
    // Only the top lane of `prev` is read, as the block before the first.
    let mut prev = _mm512_broadcast_i32x4(load128(register));
    if data.len() <= SHORT_CTR_MAX {
        match data.len().div_ceil(64) {
            1 => decrypt_chain_short_z512::<CBC, 1>(keys, rounds, prev, data),
            2 => decrypt_chain_short_z512::<CBC, 2>(keys, rounds, prev, data),
            3 => decrypt_chain_short_z512::<CBC, 3>(keys, rounds, prev, data),
            _ => decrypt_chain_short_z512::<CBC, 4>(keys, rounds, prev, data),
        }
    } else {
        let rk: [__m512i; MAX_ROUND_KEYS] =
            core::array::from_fn(|i| _mm512_broadcast_i32x4(load128(&keys[i])));
        let mut groups = data.chunks_exact_mut(64 * REGS);
        for group in &mut groups {
            let c: [__m512i; REGS] = core::array::from_fn(|i| {
                // SAFETY: `group` holds 64 * REGS bytes, so bytes 64i..64i+64 are readable;
                // unaligned load.
                unsafe { _mm512_loadu_si512(group.as_ptr().add(64 * i).cast()) }
            });
            let (inputs, operands) = chain_operands::<CBC, REGS>(&c, prev);
            let out = crypt_regs::<CBC, REGS>(&rk, rounds, inputs);
            for (i, (o, x)) in out.iter().zip(&operands).enumerate() {
                // SAFETY: bytes 64i..64i+64 of `group` are writable; unaligned store.
                unsafe {
                    _mm512_storeu_si512(
                        group.as_mut_ptr().add(64 * i).cast(),
                        _mm512_xor_si512(*o, *x),
                    )
                };
            }
            prev = c[REGS - 1];
        }
        for part in groups.into_remainder().chunks_mut(64) {
            let c = [load_masked(part)];
            let (inputs, [x]) = chain_operands::<CBC, 1>(&c, prev);
            let [o] = crypt_regs::<CBC, 1>(&rk, rounds, inputs);
            store_masked(part, _mm512_xor_si512(o, x));
            prev = c[0];
        }
    }
    store128(register, next);
}

/// Shortest message [`decrypt_chain_y256`] takes: below one full pass the broadcast of every
/// round key costs more than the wider rounds save, and the 128-bit AES-NI kernel runs it.
const CHAIN_Y256_MIN: usize = 32 * REGS;

/// Shortest message [`decrypt_chain_z512`] takes.
const CHAIN_Z512_MIN: usize = 64;

/// [`decrypt_chain_z512`] on 256-bit registers, `REGS` of them per pass; the block before a
/// register's low block is the high block of the register before. An odd last block runs on
/// the 128-bit form.
#[target_feature(enable = "avx2,vaes,aes")]
fn decrypt_chain_y256<const CBC: bool>(
    keys: &RoundKeys,
    rounds: usize,
    register: &mut [u8; 16],
    data: &mut [u8],
) {
    let next = load128(&data[data.len() - 16..]);
    let rk: [__m256i; MAX_ROUND_KEYS] =
        core::array::from_fn(|i| _mm256_broadcastsi128_si256(load128(&keys[i])));
    // Only the high block of `prev` is read, as the block before the first.
    let mut prev = _mm256_broadcastsi128_si256(load128(register));
    let mut groups = data.chunks_exact_mut(32 * REGS);
    for group in &mut groups {
        prev = decrypt_chain_group_y256::<CBC, REGS>(&rk, rounds, prev, group);
    }
    let mut pairs = groups.into_remainder().chunks_exact_mut(32);
    for pair in &mut pairs {
        prev = decrypt_chain_group_y256::<CBC, 1>(&rk, rounds, prev, pair);
    }
    let last = pairs.into_remainder();
    if !last.is_empty() {
        let (c, before) = (load128(last), _mm256_extracti128_si256::<1>(prev));
        let (input, operand) = if CBC { (c, before) } else { (before, c) };
        let mut s = _mm_xor_si128(input, _mm256_castsi256_si128(rk[0]));
        for k in &rk[1..rounds] {
            let k = _mm256_castsi256_si128(*k);
            s = if CBC {
                _mm_aesdec_si128(s, k)
            } else {
                _mm_aesenc_si128(s, k)
            };
        }
        let k = _mm256_castsi256_si128(rk[rounds]);
        let out = if CBC {
            _mm_aesdeclast_si128(s, k)
        } else {
            _mm_aesenclast_si128(s, k)
        };
        store128(last, _mm_xor_si128(out, operand));
    }
    store128(register, next);
}

/// The `2 N` blocks of `chunk` after the high block of `prev`; returns the last register of
/// ciphertext.
#[inline]
#[target_feature(enable = "avx2,vaes")]
fn decrypt_chain_group_y256<const CBC: bool, const N: usize>(
    rk: &[__m256i; MAX_ROUND_KEYS],
    rounds: usize,
    prev: __m256i,
    chunk: &mut [u8],
) -> __m256i {
    let chunk = &mut chunk[..32 * N];
    let c: [__m256i; N] = core::array::from_fn(|i| {
        // SAFETY: `chunk` holds 32 * N bytes, so bytes 32i..32i+32 are readable; unaligned load.
        unsafe { _mm256_loadu_si256(chunk.as_ptr().add(32 * i).cast()) }
    });
    // Low block: the high block of the register before; high block: the low block of `c[i]`.
    let before: [__m256i; N] = core::array::from_fn(|i| {
        _mm256_permute2x128_si256::<0x21>(if i == 0 { prev } else { c[i - 1] }, c[i])
    });
    let (inputs, operands) = if CBC { (c, before) } else { (before, c) };
    let out = crypt_regs_y256::<CBC, N>(rk, rounds, inputs);
    for (i, (o, x)) in out.iter().zip(&operands).enumerate() {
        // SAFETY: bytes 32i..32i+32 of `chunk` are writable; unaligned store.
        unsafe {
            _mm256_storeu_si256(
                chunk.as_mut_ptr().add(32 * i).cast(),
                _mm256_xor_si256(*o, *x),
            )
        };
    }
    c[N - 1]
}

/// The register width of a multi-stream CBC call: 128-bit AES-NI (one stream per register),
/// 256-bit VAES (two) or 512-bit VAES (four).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum StreamWidth {
    X128,
    Y256,
    Z512,
}

impl StreamWidth {
    /// Streams per register.
    fn per_register(self) -> usize {
        match self {
            StreamWidth::X128 => 1,
            StreamWidth::Y256 => 2,
            StreamWidth::Z512 => 4,
        }
    }

    fn supported(self) -> bool {
        let f = crate::cpu::features();
        match self {
            StreamWidth::X128 => f.aesni,
            StreamWidth::Y256 => f.aesni && f.vaes && f.avx2,
            StreamWidth::Z512 => f.aesni && f.vaes && f.avx512f,
        }
    }
}

/// Most registers interleaved in one kernel call: enough independent AES chains to cover the
/// round instruction's latency times its throughput on current cores, few enough that the lane
/// pointers stay in registers.
const MAX_STREAM_REGS: usize = 8;

/// Most registers for which the 512-bit kernel takes four blocks per step (`quad_z4`): its inputs
/// and outputs are four registers per chaining register, so eight chaining registers (32 streams)
/// would need 64 and spill; measured at 32 x 512 B the four-block step was about 15 % slower than
/// the one-block step there, while at 16 streams it is at least as fast (and three times as fast
/// for streams a power of two apart).
const QUAD_MAX_REGS: usize = 4;

/// Calls `$kernel::<R>` with the register count `$regs` (1..=[`MAX_STREAM_REGS`]) as a constant.
macro_rules! dispatch {
    ($regs:expr, $kernel:ident, $batch:expr, $streams:expr) => {
        match $regs {
            1 => $kernel::<1>(&$batch, $streams),
            2 => $kernel::<2>(&$batch, $streams),
            3 => $kernel::<3>(&$batch, $streams),
            4 => $kernel::<4>(&$batch, $streams),
            5 => $kernel::<5>(&$batch, $streams),
            6 => $kernel::<6>(&$batch, $streams),
            7 => $kernel::<7>(&$batch, $streams),
            _ => $kernel::<MAX_STREAM_REGS>(&$batch, $streams),
        }
    };
}

/// Multi-stream CBC encryption with the chaining values held in registers: lane `l` of register
/// `g` belongs to one stream, so each register needs its streams' round keys side by side; those
/// are laid out once per call (not once per block, which would cost inserts every round). Up to
/// [`MAX_STREAM_REGS`] registers run interleaved, so that that many independent AES chains hide
/// the round latency; more streams go in balanced batches of at most that many registers. A batch
/// whose stream count does not fill its last register leaves the spare lanes unloaded and unstored
/// (they run under an all-zero key on whatever the register held: nothing secret). `keys`, `ivs`
/// (16 bytes each) and `streams` (all one length, a multiple of 16) are equally many and the keys
/// have one round count; `false`, touching nothing, if that does not hold or the CPU lacks `width`.
pub(super) fn cbc_encrypt_streams(
    width: StreamWidth,
    keys: &[&AesNi],
    ivs: &[&[u8]],
    streams: &mut [&mut [u8]],
) -> bool {
    let len = streams.first().map_or(0, |s| s.len());
    let rounds = keys.first().map_or(0, |k| k.rounds());
    let usable = width.supported()
        && keys.len() == streams.len()
        && ivs.len() == streams.len()
        && keys.iter().all(|k| k.rounds() == rounds)
        && ivs.iter().all(|iv| iv.len() == 16)
        && streams.iter().all(|s| s.len() == len)
        && len.is_multiple_of(16);
    if !usable {
        return false;
    }
    if len == 0 {
        return true;
    }
    let per = width.per_register();
    let total = streams.len();
    let batches = total.div_ceil(per * MAX_STREAM_REGS);
    let mut done = 0;
    for b in 0..batches {
        // Balanced: the first batches take one stream more where the count does not divide.
        let take = (total - done).div_ceil(batches - b);
        let range = done..done + take;
        let batch = StreamBatch {
            keys: &keys[range.clone()],
            ivs: &ivs[range.clone()],
            rounds,
            blocks: len / 16,
        };
        let regs = take.div_ceil(per);
        let streams = &mut streams[range];
        // SAFETY: `width.supported()` checked the CPU features each kernel enables; the streams
        // are `batch.keys.len()` (at most `regs * per`) of `batch.blocks` whole blocks each.
        unsafe {
            match width {
                StreamWidth::X128 => dispatch!(regs, cbc_streams_x128, batch, streams),
                StreamWidth::Y256 => dispatch!(regs, cbc_streams_y256, batch, streams),
                StreamWidth::Z512 => dispatch!(regs, cbc_streams_z512, batch, streams),
            }
        }
        done += take;
    }
    true
}

/// The streams of one kernel call: their round keys and IVs, the round count and the number of
/// 16-byte blocks in every stream.
struct StreamBatch<'a> {
    keys: &'a [&'a AesNi],
    ivs: &'a [&'a [u8]],
    rounds: usize,
    blocks: usize,
}

/// Generates a multi-stream CBC kernel for one register width: `R` registers of `$per` lanes.
/// Lane `l` of register `g` is stream `g * $per + l`; its round keys are laid out once per call as
/// whole registers, `rk[g][r]`, transposed in registers from the streams' own key schedules (`$keys`)
/// and stored in one piece: a register loaded back from sixteen-byte stores would wait for them to
/// reach the cache (no store forwarding across pieces), which cost a short call more than its
/// blocks. Every stream is addressed as its start plus one shared offset, so moving on is one add
/// per block.
macro_rules! cbc_streams_kernel {
    (
        $(#[$doc:meta])*
        $name:ident, $features:literal, $vec:ty, $per:literal,
        zero: $zero:ident, keys: $keys:ident, gather: $gather:ident, scatter: $scatter:ident,
        xor: $xor:ident, enc: $enc:ident, enc_last: $last:ident
        $(, quad: $quad:ident)? $(,)?
    ) => {
        $(#[$doc])*
        /// # Safety
        /// The CPU must have the features enabled here, and `streams` must hold
        /// `batch.keys.len()` streams (at most `R * $per`), each of at least `batch.blocks` whole
        /// blocks, with as many IVs of 16 bytes.
        // Index loops, not iterator adapters: see the note on closures below. (`% $per` is
        // `% 1` in the 128-bit instance.)
        #[allow(clippy::needless_range_loop, clippy::modulo_one)]
        #[target_feature(enable = $features)]
        unsafe fn $name<const R: usize>(batch: &StreamBatch<'_>, streams: &mut [&mut [u8]]) {
            let mut start = [[core::ptr::null_mut::<u8>(); $per]; R];
            let mut read = [[core::ptr::null::<u8>(); $per]; R];
            let mut key = [[core::ptr::null::<u8>(); $per]; R];
            let mut iv = [[core::ptr::null::<u8>(); $per]; R];
            let lanes = batch.keys.iter().zip(batch.ivs).zip(streams.iter_mut());
            let mut count = 0;
            for (s, ((k, v), stream)) in lanes.take(R * $per).enumerate() {
                let (g, l) = (s / $per, s % $per);
                start[g][l] = stream.as_mut_ptr();
                read[g][l] = stream.as_ptr();
                key[g][l] = k.enc_keys().as_ptr().cast();
                iv[g][l] = v.as_ptr();
                count = s + 1;
            }
            // Streams in the last register; the spare lanes after them are never loaded or stored
            // (they run under an all-zero key on zeros: nothing secret).
            let last = count.saturating_sub((R - 1) * $per);
            // At most 14 (AES-256): bounded so that the round-key indexing needs no checks.
            let rounds = batch.rounds.min(MAX_ROUND_KEYS - 1);
            // No closures or `array::from_fn` around the intrinsics below: those would be compiled
            // without this function's target features and called, not inlined, every block.
            // Entries `0..=rounds` of each row are written here and only those are read (no
            // zeroing first: that was sixty register stores a call for AES-128).
            let mut rk = [[MaybeUninit::<$vec>::uninit(); MAX_ROUND_KEYS]; R];
            let mut state = [$zero(); R];
            for g in 0..R {
                let live = if g + 1 == R { last } else { $per };
                // SAFETY: lanes below `live` point at key schedules of `MAX_ROUND_KEYS` round keys,
                // and `rounds < MAX_ROUND_KEYS`.
                unsafe { $keys(&key[g], live, rounds, &mut rk[g]) };
                // SAFETY: the IVs are 16 bytes each (checked by the caller).
                state[g] = unsafe { $gather(&iv[g], 0, live) };
            }
            // SAFETY (for every `assume_init` below): `$keys` wrote `rk[g][r]` for all `r <= rounds`.
            let mut at = 0;
            let end = 16 * batch.blocks;
            $(
                // Four blocks of every stream at a time, where the width has such a step and the
                // batch is small enough for it (see `QUAD_MAX_REGS`).
                while R <= QUAD_MAX_REGS && at + 64 <= end {
                    // SAFETY: as for the gather below, for `at..at + 64`; `rk` as above.
                    unsafe { $quad::<R>(&read, &start, at, last, &rk, rounds, &mut state) };
                    at += 64;
                }
            )?
            while at < end {
                for g in 0..R {
                    let live = if g + 1 == R { last } else { $per };
                    // SAFETY: the first `live` lanes are streams of at least `batch.blocks` whole
                    // blocks, so `at..at + 16` lies in each.
                    let p = unsafe { $gather(&read[g], at, live) };
                    let k = unsafe { rk[g][0].assume_init() };
                    state[g] = $xor($xor(state[g], p), k);
                }
                for r in 1..rounds {
                    for g in 0..R {
                        state[g] = $enc(state[g], unsafe { rk[g][r].assume_init() });
                    }
                }
                for g in 0..R {
                    let live = if g + 1 == R { last } else { $per };
                    state[g] = $last(state[g], unsafe { rk[g][rounds].assume_init() });
                    // SAFETY: as for the gather.
                    unsafe { $scatter(&start[g], at, live, state[g]) };
                }
                at += 16;
            }
            // The wipe: one volatile register store per round key written above (the zeroize
            // crate's array walk would store them sixteen bytes at a time, from code compiled
            // without these features), then a fence so that no later access moves before it.
            for g in 0..R {
                for r in 0..=rounds {
                    // SAFETY: `rk[g][r]` is a live, aligned local.
                    unsafe { core::ptr::write_volatile(&mut rk[g][r], MaybeUninit::new($zero())) };
                }
            }
            core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
        }
    };
}

cbc_streams_kernel!(
    /// 128-bit AES-NI: one stream per register.
    cbc_streams_x128, "aes", __m128i, 1,
    zero: _mm_setzero_si128, keys: keys_x1, gather: gather_x1, scatter: scatter_x1,
    xor: _mm_xor_si128, enc: _mm_aesenc_si128, enc_last: _mm_aesenclast_si128,
);

cbc_streams_kernel!(
    /// 256-bit VAES: two streams per register.
    cbc_streams_y256, "avx2,vaes,aes", __m256i, 2,
    zero: _mm256_setzero_si256, keys: keys_y2, gather: gather_y2, scatter: scatter_y2,
    xor: _mm256_xor_si256, enc: _mm256_aesenc_epi128, enc_last: _mm256_aesenclast_epi128,
);

cbc_streams_kernel!(
    /// 512-bit VAES: four streams per register.
    cbc_streams_z512, "avx512f,vaes,aes", __m512i, 4,
    zero: _mm512_setzero_si512, keys: keys_z4, gather: gather_z4, scatter: scatter_z4,
    xor: _mm512_xor_si512, enc: _mm512_aesenc_epi128, enc_last: _mm512_aesenclast_epi128,
    quad: quad_z4,
);

// The key layouts write `rk[0..=rounds]`: entry `r` holds round key `r` of stream `l` in lane
// `l`, for `l < live`, and zero in the spare lanes. Each stream's schedule is read a register at a
// time (`$per` consecutive round keys) and transposed between the streams in registers; the last
// group starts early enough to end at `rounds` (overlapping the one before it), so no read passes
// the last round key. Safety, for all three: `key[l]` must point at `MAX_ROUND_KEYS` round keys
// (16 bytes each) for every `l < live`, and `rounds < MAX_ROUND_KEYS`.

#[inline]
#[target_feature(enable = "sse2")]
unsafe fn keys_x1(
    key: &[*const u8; 1],
    live: usize,
    rounds: usize,
    rk: &mut [MaybeUninit<__m128i>; MAX_ROUND_KEYS],
) {
    debug_assert_eq!(live, 1);
    for (r, k) in rk.iter_mut().take(rounds + 1).enumerate() {
        // SAFETY: per the contract above; unaligned load.
        k.write(unsafe { _mm_loadu_si128(key[0].add(16 * r).cast()) });
    }
}

#[inline]
#[target_feature(enable = "avx2")]
unsafe fn keys_y2(
    key: &[*const u8; 2],
    live: usize,
    rounds: usize,
    rk: &mut [MaybeUninit<__m256i>; MAX_ROUND_KEYS],
) {
    let mut q = 0;
    while q <= rounds {
        let first = q.min(rounds - 1);
        // SAFETY: per the contract above (`first + 1 <= rounds`); unaligned loads.
        let (a, b) = unsafe {
            let a = _mm256_loadu_si256(key[0].add(16 * first).cast());
            let b = if live > 1 {
                _mm256_loadu_si256(key[1].add(16 * first).cast())
            } else {
                _mm256_setzero_si256()
            };
            (a, b)
        };
        rk[first].write(_mm256_permute2x128_si256::<0x20>(a, b));
        rk[first + 1].write(_mm256_permute2x128_si256::<0x31>(a, b));
        q += 2;
    }
}

#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn keys_z4(
    key: &[*const u8; 4],
    live: usize,
    rounds: usize,
    rk: &mut [MaybeUninit<__m512i>; MAX_ROUND_KEYS],
) {
    let mut q = 0;
    while q <= rounds {
        // `rounds >= 10`, so a group of four fits.
        let first = q.min(rounds - 3);
        let mut row = [_mm512_setzero_si512(); 4];
        for l in 0..live.min(4) {
            // SAFETY: per the contract above (`first + 3 <= rounds`); unaligned load.
            row[l] = unsafe { _mm512_loadu_si512(key[l].add(16 * first).cast()) };
        }
        let [k0, k1, k2, k3] = transpose_z4(row);
        rk[first].write(k0);
        rk[first + 1].write(k1);
        rk[first + 2].write(k2);
        rk[first + 3].write(k3);
        q += 4;
    }
}

/// The 4 x 4 transpose of 128-bit lanes (its own inverse): lane `j` of register `i` goes to lane
/// `i` of register `j`.
#[inline]
#[target_feature(enable = "avx512f")]
fn transpose_z4(row: [__m512i; 4]) -> [__m512i; 4] {
    let lo01 = _mm512_shuffle_i64x2::<0x44>(row[0], row[1]);
    let hi01 = _mm512_shuffle_i64x2::<0xEE>(row[0], row[1]);
    let lo23 = _mm512_shuffle_i64x2::<0x44>(row[2], row[3]);
    let hi23 = _mm512_shuffle_i64x2::<0xEE>(row[2], row[3]);
    [
        _mm512_shuffle_i64x2::<0x88>(lo01, lo23),
        _mm512_shuffle_i64x2::<0xDD>(lo01, lo23),
        _mm512_shuffle_i64x2::<0x88>(hi01, hi23),
        _mm512_shuffle_i64x2::<0xDD>(hi01, hi23),
    ]
}

/// Four CBC steps of the 512-bit multi-stream kernel: blocks `at..at + 64` of every stream, moved
/// as one 64-byte load and one 64-byte store per stream and transposed in registers, instead of
/// sixteen-byte inserts and extracts. Each cache line of a stream is then touched twice, not
/// eight times, which matters when the streams lie a power of two apart (4 KiB sectors, say): then
/// the lines of all streams at one offset share an L1 set, more of them than it has ways, and the
/// one-block step missed the cache on nearly every access. Outputs wait in registers for the
/// store transpose; spare lanes of the last register are neither loaded nor stored.
///
/// # Safety
/// `read[g][l]` and `start[g][l]` (the same stream) must have 64 readable and writable bytes at
/// `at`, for every lane `l` of register `g` below `4` (below `last` in register `R - 1`), and
/// `rk[g][r]` must be written for every `r <= rounds < MAX_ROUND_KEYS`.
#[inline]
#[allow(clippy::needless_range_loop)]
#[target_feature(enable = "avx512f,vaes,aes")]
unsafe fn quad_z4<const R: usize>(
    read: &[[*const u8; 4]; R],
    start: &[[*mut u8; 4]; R],
    at: usize,
    last: usize,
    rk: &[[MaybeUninit<__m512i>; MAX_ROUND_KEYS]; R],
    rounds: usize,
    state: &mut [__m512i; R],
) {
    let zero = _mm512_setzero_si512();
    let mut input = [[zero; 4]; R];
    for g in 0..R {
        let live = if g + 1 == R { last } else { 4 };
        let mut row = [zero; 4];
        for l in 0..live.min(4) {
            // SAFETY: per the contract; unaligned load.
            row[l] = unsafe { _mm512_loadu_si512(read[g][l].add(at).cast()) };
        }
        input[g] = transpose_z4(row);
    }
    let mut output = [[zero; 4]; R];
    for j in 0..4 {
        for g in 0..R {
            // SAFETY (every `assume_init` here): `rk` is written up to `rounds` (the contract).
            let k = unsafe { rk[g][0].assume_init() };
            state[g] = _mm512_xor_si512(_mm512_xor_si512(state[g], input[g][j]), k);
        }
        for r in 1..rounds {
            for g in 0..R {
                state[g] = _mm512_aesenc_epi128(state[g], unsafe { rk[g][r].assume_init() });
            }
        }
        for g in 0..R {
            let k = unsafe { rk[g][rounds].assume_init() };
            state[g] = _mm512_aesenclast_epi128(state[g], k);
            output[g][j] = state[g];
        }
    }
    for g in 0..R {
        let live = if g + 1 == R { last } else { 4 };
        let row = transpose_z4(output[g]);
        for l in 0..live.min(4) {
            // SAFETY: per the contract; unaligned store.
            unsafe { _mm512_storeu_si512(start[g][l].add(at).cast(), row[l]) };
        }
    }
}

// The gathers load the 16 bytes at `start[l] + at` of the first `live` lanes into a register
// (the other lanes are zero: they are spare); the scatters store those lanes back. Neither depends
// on the chaining values, so the loads run ahead of the AES chains. Safety, for all six:
// `start[l] + at` must be 16 readable (gather) or writable (scatter) bytes for every `l < live`.

#[inline]
#[target_feature(enable = "sse2")]
unsafe fn gather_x1(start: &[*const u8; 1], at: usize, live: usize) -> __m128i {
    debug_assert_eq!(live, 1);
    // SAFETY: per the contract above; unaligned load.
    unsafe { _mm_loadu_si128(start[0].add(at).cast()) }
}

#[inline]
#[target_feature(enable = "sse2")]
unsafe fn scatter_x1(start: &[*mut u8; 1], at: usize, live: usize, v: __m128i) {
    debug_assert_eq!(live, 1);
    // SAFETY: per the contract above; unaligned store.
    unsafe { _mm_storeu_si128(start[0].add(at).cast(), v) }
}

#[inline]
#[target_feature(enable = "avx2")]
unsafe fn gather_y2(start: &[*const u8; 2], at: usize, live: usize) -> __m256i {
    // SAFETY: per the contract above; unaligned loads.
    unsafe {
        let v = _mm256_zextsi128_si256(_mm_loadu_si128(start[0].add(at).cast()));
        if live < 2 {
            return v;
        }
        _mm256_inserti128_si256::<1>(v, _mm_loadu_si128(start[1].add(at).cast()))
    }
}

#[inline]
#[target_feature(enable = "avx2")]
unsafe fn scatter_y2(start: &[*mut u8; 2], at: usize, live: usize, v: __m256i) {
    // SAFETY: per the contract above; unaligned stores.
    unsafe {
        _mm_storeu_si128(start[0].add(at).cast(), _mm256_castsi256_si128(v));
        if live > 1 {
            _mm_storeu_si128(start[1].add(at).cast(), _mm256_extracti128_si256::<1>(v));
        }
    }
}

#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn gather_z4(start: &[*const u8; 4], at: usize, live: usize) -> __m512i {
    // SAFETY: per the contract above; unaligned loads.
    unsafe {
        let mut v = _mm512_zextsi128_si512(_mm_loadu_si128(start[0].add(at).cast()));
        if live > 1 {
            v = _mm512_inserti32x4::<1>(v, _mm_loadu_si128(start[1].add(at).cast()));
        }
        if live > 2 {
            v = _mm512_inserti32x4::<2>(v, _mm_loadu_si128(start[2].add(at).cast()));
        }
        if live > 3 {
            v = _mm512_inserti32x4::<3>(v, _mm_loadu_si128(start[3].add(at).cast()));
        }
        v
    }
}

#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn scatter_z4(start: &[*mut u8; 4], at: usize, live: usize, v: __m512i) {
    // SAFETY: per the contract above; unaligned stores.
    unsafe {
        _mm_storeu_si128(start[0].add(at).cast(), _mm512_castsi512_si128(v));
        if live > 1 {
            _mm_storeu_si128(start[1].add(at).cast(), _mm512_extracti32x4_epi32::<1>(v));
        }
        if live > 2 {
            _mm_storeu_si128(start[2].add(at).cast(), _mm512_extracti32x4_epi32::<2>(v));
        }
        if live > 3 {
            _mm_storeu_si128(start[3].add(at).cast(), _mm512_extracti32x4_epi32::<3>(v));
        }
    }
}
