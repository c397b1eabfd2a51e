//! Magma / GOST 28147-89 with AVX-512 (F, BW) and AVX512-VBMI: sixteen blocks per 512-bit register.
//!
//! Sixteen blocks are split into a register of their sixteen `a_0` halves and one of their `a_1`
//! halves by one `vpermi2b` each, which also applies the byte order of the layout. A round is then
//! `a_1 ^= g(a_0 + k)` for all sixteen lanes: the S-box step `t` is two `vpermb` lookups into
//! 64-byte tables held in registers (index = nibble plus 16 times its byte position, so the eight
//! different 4-bit S-boxes of a word cost two instructions; see `nibble.rs`), the rotation by 11 is
//! `vprold`, and the final OR and XOR are one `vpternlogd`. Independent groups of sixteen blocks are
//! interleaved to hide the latency of a round: four in the bulk paths (ECB and the fused CTR of
//! [`Avx512Vbmi::ctr_xor`], which makes its counter blocks in registers), where a round's
//! dependency chain (add, index, `vpermb`, rotate, XOR) is several times what the issue of one
//! group's round takes.
//!
//! Constant-time: the S-boxes are looked up inside registers and every instruction used here has
//! data-independent timing; no memory address depends on the key or the data.
//!
//! Multi-stream ([`Avx512Vbmi::lanes`]): lane `i` carries block `i` under its own key; the eight key
//! words of each lane are transposed once per call into eight lane-wise key registers, a cost spread
//! over the 32 rounds.

use core::arch::x86_64::{
    __m256i, __m512i, _mm256_add_epi32, _mm256_loadu_si256, _mm256_permutex2var_epi8,
    _mm256_rol_epi32, _mm256_ror_epi32, _mm256_set1_epi32, _mm256_set1_epi8, _mm256_setzero_si256,
    _mm256_slli_epi32, _mm256_srli_epi32, _mm256_ternarylogic_epi32, _mm512_add_epi32,
    _mm512_add_epi64, _mm512_castsi256_si512, _mm512_inserti64x4, _mm512_loadu_si512,
    _mm512_permutex2var_epi32, _mm512_permutex2var_epi8, _mm512_permutexvar_epi8, _mm512_rol_epi32,
    _mm512_set1_epi32, _mm512_set1_epi64, _mm512_set1_epi8, _mm512_set_epi64, _mm512_setzero_si512,
    _mm512_srli_epi32, _mm512_storeu_si512, _mm512_ternarylogic_epi32, _mm512_xor_si512,
};
use core::arch::x86_64::{
    _mm512_castsi512_si256, _mm512_mask_storeu_epi8, _mm512_maskz_loadu_epi8,
};

use zeroize::Zeroize;

use super::nibble::{key_index, NibbleTables};
use super::soft::Layout;

/// Blocks per 512-bit register.
pub(super) const LANES: usize = 16;
/// Bytes per register group (two registers: 16 blocks).
const GROUP_BYTES: usize = 8 * LANES;
/// Groups processed together in a multi-stream call: the most lanes one [`Avx512Vbmi::lanes`]
/// call takes is `LANES * GROUPS`.
const GROUPS: usize = 2;
/// Groups processed together in the single-key bulk paths (ECB, CTR): 64 blocks.
const BULK_GROUPS: usize = 4;
/// Bytes of one bulk pass.
const BULK_BYTES: usize = BULK_GROUPS * GROUP_BYTES;
/// The most streams [`Avx512Vbmi::lanes`] accepts per call.
pub(super) const MAX_LANES: usize = LANES * GROUPS;

/// Proof that this CPU has AVX-512 F, BW, VL and VBMI: [`Avx512Vbmi::new`] is the only constructor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Avx512Vbmi(());

impl Avx512Vbmi {
    /// `Some` only if the CPU supports the AVX-512 backend (F, BW, VL) and VBMI.
    pub(super) fn new() -> Option<Avx512Vbmi> {
        let vbmi = crate::cpu::features().avx512vbmi;
        (vbmi && crate::cpu::Backend::Avx512.is_supported()).then_some(Avx512Vbmi(()))
    }

    /// Encrypts (or decrypts) every whole block of `data` in place under key words `words`.
    pub(super) fn blocks(
        self,
        words: &[u32; 8],
        tables: &NibbleTables,
        layout: Layout,
        decrypt: bool,
        data: &mut [u8],
    ) {
        // SAFETY: an `Avx512Vbmi` exists only when `new` found AVX-512 F, BW, VL and VBMI.
        unsafe { blocks(words, tables, layout, decrypt, data) }
    }

    /// CTR in one pass: XORs the key stream `E(counter) || E(counter + 1) || ...` (each counter
    /// block the big-endian bytes of a 64-bit value, incremented mod 2^64) into all of `data` and
    /// advances `counter` by `ceil(data.len() / 8)` blocks.
    pub(super) fn ctr_xor(
        self,
        words: &[u32; 8],
        tables: &NibbleTables,
        layout: Layout,
        counter: &mut [u8; 8],
        data: &mut [u8],
    ) {
        // SAFETY: an `Avx512Vbmi` exists only when `new` found AVX-512 F, BW and VBMI.
        unsafe { ctr_xor(words, tables, layout, counter, data) }
    }

    /// Multi-stream: block `i` of `blocks` under `keys[i]`, for `i < keys.len() <= MAX_LANES`;
    /// `blocks` must hold at least `8 * keys.len()` bytes (extra bytes are left untouched).
    pub(super) fn lanes(
        self,
        keys: &[&[u32; 8]],
        tables: &NibbleTables,
        layout: Layout,
        decrypt: bool,
        blocks: &mut [u8],
    ) {
        // SAFETY: an `Avx512Vbmi` exists only when `new` found AVX-512 F, BW and VBMI.
        unsafe { lanes(keys, tables, layout, decrypt, blocks) }
    }
}

/// `vpermi2b` indices that gather the `a_0` (`half` 0) or `a_1` (`half` 1) words of sixteen blocks
/// (128 bytes in two registers) into one register, lane `i` from block `i`.
const fn gather_index(big_endian: bool, half: usize) -> [u8; 64] {
    let mut idx = [0u8; 64];
    let mut p = 0;
    while p < 64 {
        let (block, byte) = (p / 4, p % 4);
        // Gost89: a_0 = little-endian bytes 0..4, a_1 = bytes 4..8. Big-endian: the same after
        // reversing the eight bytes of the block.
        let s = 4 * half + byte;
        let s = if big_endian { 7 - s } else { s };
        idx[p] = (8 * block + s) as u8;
        p += 1;
    }
    idx
}

/// `vpermi2b` indices that write register `part` (bytes `64 * part ..`) of sixteen output blocks
/// from the final halves: the first operand holds the word that goes to the `a_1` slot, the second
/// the word for the `a_0` slot (the Feistel network ends without its last swap).
const fn scatter_index(big_endian: bool, part: usize) -> [u8; 64] {
    let mut idx = [0u8; 64];
    let mut p = 0;
    while p < 64 {
        let q = 64 * part + p;
        let (block, s) = (q / 8, q % 8);
        let s = if big_endian { 7 - s } else { s };
        idx[p] = if s < 4 {
            (64 + 4 * block + s) as u8
        } else {
            (4 * block + s - 4) as u8
        };
        p += 1;
    }
    idx
}

/// The four permutations of one layout.
struct Shuffles {
    gather: [[u8; 64]; 2],
    scatter: [[u8; 64]; 2],
}

const fn shuffles(big_endian: bool) -> Shuffles {
    Shuffles {
        gather: [gather_index(big_endian, 0), gather_index(big_endian, 1)],
        scatter: [scatter_index(big_endian, 0), scatter_index(big_endian, 1)],
    }
}

static BIG_ENDIAN: Shuffles = shuffles(true);
static GOST89: Shuffles = shuffles(false);

/// Everything a round needs besides the state and the key, held in registers.
pub(super) struct Consts {
    low: __m512i,
    high: __m512i,
    nibble: __m512i,
    position: __m512i,
    gather: [__m512i; 2],
    scatter: [__m512i; 2],
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn load64(bytes: &[u8; 64]) -> __m512i {
    // SAFETY: `bytes` is 64 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm512_loadu_si512(bytes.as_ptr().cast()) }
}

impl Consts {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    pub(super) fn new(tables: &NibbleTables, layout: Layout) -> Consts {
        let sh = match layout {
            Layout::BigEndian => &BIG_ENDIAN,
            Layout::Gost89 => &GOST89,
        };
        Consts {
            low: load64(&tables.low),
            high: load64(&tables.high),
            nibble: _mm512_set1_epi8(0x0f),
            position: _mm512_set1_epi32(0x3020_1000),
            gather: [load64(&sh.gather[0]), load64(&sh.gather[1])],
            scatter: [load64(&sh.scatter[0]), load64(&sh.scatter[1])],
        }
    }

    /// The `[a_0, a_1]` registers of sixteen blocks (128 bytes: `x`, then `y`), lane `i` from
    /// block `i`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    pub(super) fn split(&self, x: __m512i, y: __m512i) -> [__m512i; 2] {
        [
            _mm512_permutex2var_epi8(x, self.gather[0], y),
            _mm512_permutex2var_epi8(x, self.gather[1], y),
        ]
    }

    /// The inverse of [`Consts::split`]: the 128 bytes of sixteen blocks from their `a_0` and
    /// `a_1` registers.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    pub(super) fn join(&self, [a0, a1]: [__m512i; 2]) -> [__m512i; 2] {
        [
            _mm512_permutex2var_epi8(a1, self.scatter[0], a0),
            _mm512_permutex2var_epi8(a1, self.scatter[1], a0),
        ]
    }
}

/// `b ^ (t(a + k) <<< 11)` in every lane.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn half_round(a: __m512i, b: __m512i, k: __m512i, c: &Consts) -> __m512i {
    let x = _mm512_add_epi32(a, k);
    // (nibble & 0x0f) | 16 * byte position: 0xEA is A & B | C.
    let low_index = _mm512_ternarylogic_epi32::<0xEA>(x, c.nibble, c.position);
    let high_index =
        _mm512_ternarylogic_epi32::<0xEA>(_mm512_srli_epi32::<4>(x), c.nibble, c.position);
    let low = _mm512_permutexvar_epi8(low_index, c.low);
    let high = _mm512_permutexvar_epi8(high_index, c.high);
    // The two halves occupy disjoint bits, so rotating each and XORing all three is exact.
    _mm512_ternarylogic_epi32::<0x96>(b, _mm512_rol_epi32::<11>(low), _mm512_rol_epi32::<11>(high))
}

/// The S-box tables for eight-lane (256-bit) rounds: each 64-entry table as the register pair of a
/// `vpermi2b`.
pub(super) struct HalfConsts {
    low: [__m256i; 2],
    high: [__m256i; 2],
    nibble: __m256i,
    position: __m256i,
}

/// Bytes `32 * half ..` of a 64-byte table.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
fn load32(table: &[u8; 64], half: usize) -> __m256i {
    // SAFETY: 32 readable bytes inside `table` (`half & 1` is 0 or 1); `loadu` has no alignment
    // requirement.
    unsafe { _mm256_loadu_si256(table.as_ptr().add(32 * (half & 1)).cast()) }
}

impl HalfConsts {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
    pub(super) fn new(tables: &NibbleTables) -> HalfConsts {
        HalfConsts {
            low: [load32(&tables.low, 0), load32(&tables.low, 1)],
            high: [load32(&tables.high, 0), load32(&tables.high, 1)],
            nibble: _mm256_set1_epi8(0x0f),
            position: _mm256_set1_epi32(0x3020_1000),
        }
    }
}

/// `t(x)` of eight lanes as its two halves, the S-box outputs of the low and of the high nibble of
/// every byte (disjoint bits, not yet rotated): each a `vpermi2b` into the 64-byte table of its
/// nibble, indexed by the nibble plus 16 times its byte position.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
fn lookups_256(x: __m256i, c: &HalfConsts) -> [__m256i; 2] {
    let low_index = _mm256_ternarylogic_epi32::<0xEA>(x, c.nibble, c.position);
    let high_index =
        _mm256_ternarylogic_epi32::<0xEA>(_mm256_srli_epi32::<4>(x), c.nibble, c.position);
    let low = _mm256_permutex2var_epi8(c.low[0], low_index, c.low[1]);
    let high = _mm256_permutex2var_epi8(c.high[0], high_index, c.high[1]);
    [low, high]
}

/// The substitution of an eight-lane round, XORed into a word held rotated: `b_rotated ^ t(x)`,
/// where `b_rotated` is the word the round XORs into, rotated right by 11, so that the round's
/// result `b ^ (t(x) <<< 11)` is this rotated left by 11 (see [`rounds_256`]).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
fn substitute_256(x: __m256i, b_rotated: __m256i, c: &HalfConsts) -> __m256i {
    let [low, high] = lookups_256(x, c);
    // The two halves occupy disjoint bits: XORing both into `b` is XORing their OR.
    _mm256_ternarylogic_epi32::<0x96>(b_rotated, low, high)
}

/// `b ^ (t(x) <<< 11)` on eight lanes, each substituted half rotated by two shifts merged into the
/// XORs: the shortest dependency chain of a round (a shift has less latency than `vprold` on AMD
/// Zen 4), at two more shift/shuffle-pipe ops per round than [`substitute_256`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
fn half_round_256(x: __m256i, b: __m256i, c: &HalfConsts) -> __m256i {
    let [low, high] = lookups_256(x, c);
    let b = _mm256_ternarylogic_epi32::<0x96>(
        b,
        _mm256_slli_epi32::<11>(low),
        _mm256_srli_epi32::<21>(low),
    );
    _mm256_ternarylogic_epi32::<0x96>(
        b,
        _mm256_slli_epi32::<11>(high),
        _mm256_srli_epi32::<21>(high),
    )
}

/// [`rounds`] on `H` independent groups of eight lanes.
///
/// The dependency chain of a round is what a feedback mode waits for, and on AMD Zen 4 a 256-bit
/// `vpermi2b` has less latency than the 512-bit `vpermb` (which runs as two halves). A round
/// makes its new word as `u = (b >>> 11) ^ t(x)`, the word itself being `u <<< 11`, and keeps
/// `u`: two rounds on, when that word is the one XORed into, `u` is it already rotated right by
/// 11. So a round costs one rotation (of its new word, on the chain), where rotating each
/// substituted half takes two shifts apiece in the shift/shuffle pipes the lookups also need.
/// That keeps two groups side by side from contending for those pipes; a single group has them
/// to itself and runs the shorter chain of [`half_round_256`] instead.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
#[allow(clippy::needless_range_loop)]
pub(super) fn rounds_256<const H: usize, const DECRYPT: bool>(
    state: &mut [[__m256i; 2]; H],
    keys: &[[__m256i; 8]; H],
    c: &HalfConsts,
) {
    if H == 1 {
        let mut r = 0;
        while r < 32 {
            let (k0, k1) = (key_index(DECRYPT, r), key_index(DECRYPT, r + 1));
            for (s, k) in state.iter_mut().zip(keys) {
                s[1] = half_round_256(_mm256_add_epi32(s[0], k[k0]), s[1], c);
                s[0] = half_round_256(_mm256_add_epi32(s[1], k[k1]), s[0], c);
            }
            r += 2;
        }
        return;
    }
    let zero = _mm256_setzero_si256();
    // `a`: the round's input word, `a_rotated` the same rotated right by 11; `b`: the word the
    // round XORs into, rotated right by 11; `last`: the input word of the round before (the other
    // output word after the last round).
    let mut a = [zero; H];
    let mut a_rotated = [zero; H];
    let mut b = [zero; H];
    let mut last = [zero; H];
    for h in 0..H {
        a[h] = state[h][0];
        a_rotated[h] = _mm256_ror_epi32::<11>(state[h][0]);
        b[h] = _mm256_ror_epi32::<11>(state[h][1]);
    }
    let mut r = 0;
    while r < 32 {
        let k = key_index(DECRYPT, r);
        for h in 0..H {
            let u = substitute_256(_mm256_add_epi32(a[h], keys[h][k]), b[h], c);
            // The next round's input word is `u <<< 11`; it XORs into this round's input word.
            last[h] = a[h];
            b[h] = a_rotated[h];
            a_rotated[h] = u;
            a[h] = _mm256_rol_epi32::<11>(u);
        }
        r += 1;
    }
    // The rounds end without the last swap: the newest word first, as [`rounds`] leaves them.
    for h in 0..H {
        state[h] = [a[h], last[h]];
    }
}

/// 32 rounds on `G` independent groups; `state[g]` is `[a_0, a_1]` and ends as
/// `[a_1-slot word, a_0-slot word]` of the output.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) fn rounds<const G: usize, const DECRYPT: bool>(
    state: &mut [[__m512i; 2]; G],
    keys: &[[__m512i; 8]; G],
    c: &Consts,
) {
    let mut r = 0;
    while r < 32 {
        let (k0, k1) = (key_index(DECRYPT, r), key_index(DECRYPT, r + 1));
        for (s, k) in state.iter_mut().zip(keys) {
            s[1] = half_round(s[0], s[1], k[k0], c);
        }
        for (s, k) in state.iter_mut().zip(keys) {
            s[0] = half_round(s[1], s[0], k[k1], c);
        }
        r += 2;
    }
}

/// Loads, encrypts and stores `G` groups of sixteen blocks (`data.len() == G * GROUP_BYTES`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn run<const G: usize>(data: &mut [u8], keys: &[[__m512i; 8]; G], decrypt: bool, c: &Consts) {
    let mut state = [[_mm512_setzero_si512(); 2]; G];
    for (s, group) in state.iter_mut().zip(data.chunks_exact(GROUP_BYTES)) {
        // SAFETY: `group` is exactly 128 readable bytes (`chunks_exact`), read as two unaligned
        // 64-byte loads.
        let (x, y) = unsafe {
            let p = group.as_ptr();
            (
                _mm512_loadu_si512(p.cast()),
                _mm512_loadu_si512(p.add(64).cast()),
            )
        };
        *s = c.split(x, y);
    }
    if decrypt {
        rounds::<G, true>(&mut state, keys, c);
    } else {
        rounds::<G, false>(&mut state, keys, c);
    }
    for (s, group) in state.iter().zip(data.chunks_exact_mut(GROUP_BYTES)) {
        // The rounds end without the last swap: the a_0 word is in s[1].
        let [x, y] = c.join([s[1], s[0]]);
        // SAFETY: `group` is exactly 128 writable bytes (`chunks_exact_mut`), written as two
        // unaligned 64-byte stores.
        unsafe {
            let p = group.as_mut_ptr();
            _mm512_storeu_si512(p.cast(), x);
            _mm512_storeu_si512(p.add(64).cast(), y);
        }
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
fn blocks(words: &[u32; 8], tables: &NibbleTables, layout: Layout, decrypt: bool, data: &mut [u8]) {
    let c = Consts::new(tables, layout);
    let key: [__m512i; 8] = core::array::from_fn(|i| _mm512_set1_epi32(words[i] as i32));
    let mut wide = data.chunks_exact_mut(BULK_BYTES);
    for chunk in &mut wide {
        run::<BULK_GROUPS>(chunk, &[key; BULK_GROUPS], decrypt, &c);
    }
    // The rest: whole groups at the width they fill, then a padded group.
    let rest = wide.into_remainder();
    let whole = rest.len() / GROUP_BYTES * GROUP_BYTES;
    let (groups, tail) = rest.split_at_mut(whole);
    match groups.len() / GROUP_BYTES {
        3 => run::<3>(groups, &[key; 3], decrypt, &c),
        2 => run::<2>(groups, &[key; 2], decrypt, &c),
        1 => run::<1>(groups, &[key], decrypt, &c),
        _ => {}
    }
    let whole = tail.len() / 8 * 8;
    if (1..=SHORT_BYTES).contains(&whole) {
        short_group(words, tables, decrypt, &c, &mut tail[..whole]);
    } else if whole > 0 {
        let mut buf = [0u8; GROUP_BYTES];
        buf[..whole].copy_from_slice(&tail[..whole]);
        run::<1>(&mut buf, &[key], decrypt, &c);
        tail[..whole].copy_from_slice(&buf[..whole]);
        buf.zeroize();
    }
}

/// The most bytes [`short_group`] takes: eight blocks, one 256-bit register of each word.
const SHORT_BYTES: usize = 8 * HALF_LANES;

/// Lanes of a 256-bit register.
const HALF_LANES: usize = LANES / 2;

/// One to eight blocks (`data`, whole blocks): a call of a few blocks, or the last few of a longer
/// one. They run as one group of eight lanes on the 256-bit rounds of [`rounds_256`], whose round
/// has less latency than the 512-bit one on AMD Zen 4 (and as little on Intel), with a masked load
/// and store instead of a padded copy: about 0.65 of the time of the padded sixteen-lane group.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
fn short_group(
    words: &[u32; 8],
    tables: &NibbleTables,
    decrypt: bool,
    c: &Consts,
    data: &mut [u8],
) {
    let mask = u64::MAX >> (64 - data.len().clamp(1, SHORT_BYTES));
    // SAFETY: only the bytes selected by `mask` are read, all inside `data`; masked-off bytes are
    // neither read nor faulted on.
    let x = unsafe { _mm512_maskz_loadu_epi8(mask, data.as_ptr().cast()) };
    // Blocks 0..8 split into lanes 0..8 of each word register; the lanes above stay unused.
    let [a0, a1] = c.split(x, _mm512_setzero_si512());
    let mut state = [[_mm512_castsi512_si256(a0), _mm512_castsi512_si256(a1)]];
    let keys = [words.map(|w| _mm256_set1_epi32(w as i32))];
    let half = HalfConsts::new(tables);
    if decrypt {
        rounds_256::<1, true>(&mut state, &keys, &half);
    } else {
        rounds_256::<1, false>(&mut state, &keys, &half);
    }
    // The rounds end without the last swap: the a_0 word is in state[0][1].
    let [s0, s1] = state[0];
    let [out, _] = c.join([_mm512_castsi256_si512(s1), _mm512_castsi256_si512(s0)]);
    // SAFETY: only the bytes selected by `mask` are written, all inside `data`.
    unsafe { _mm512_mask_storeu_epi8(data.as_mut_ptr().cast(), mask, out) };
}

/// The `[a_0, a_1]` split of counter blocks held as native `u64` values, eight per register: a
/// counter block is its value's big-endian bytes, the reverse of the native order, so each layout
/// splits them with the other layout's gather.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn counter_split(layout: Layout) -> [__m512i; 2] {
    let sh = match layout {
        Layout::BigEndian => &GOST89,
        Layout::Gost89 => &BIG_ENDIAN,
    };
    [load64(&sh.gather[0]), load64(&sh.gather[1])]
}

/// XORs the key stream of the `16 * G` counter blocks `first, first + 1, ...` into `data`
/// (`data.len() == G * GROUP_BYTES`). The counters are made in registers (a 64-bit add per eight
/// blocks and the split `vpermi2b` pair per sixteen), so no counter block goes through memory.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn ctr_groups<const G: usize>(
    data: &mut [u8],
    first: u64,
    key: &[__m512i; 8],
    split: &[__m512i; 2],
    c: &Consts,
) {
    let lanes = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    let eight = _mm512_set1_epi64(8);
    let mut state = [[_mm512_setzero_si512(); 2]; G];
    let mut value = first;
    for s in state.iter_mut() {
        let x = _mm512_add_epi64(_mm512_set1_epi64(value as i64), lanes);
        let y = _mm512_add_epi64(x, eight);
        *s = [
            _mm512_permutex2var_epi8(x, split[0], y),
            _mm512_permutex2var_epi8(x, split[1], y),
        ];
        value = value.wrapping_add(LANES as u64);
    }
    rounds::<G, false>(&mut state, &[*key; G], c);
    for (s, group) in state.iter().zip(data.chunks_exact_mut(GROUP_BYTES)) {
        // The rounds end without the last swap: the a_0 word is in s[1].
        let [x, y] = c.join([s[1], s[0]]);
        // SAFETY: `group` is exactly 128 readable and writable bytes (`chunks_exact_mut`), read
        // and written as two unaligned 64-byte halves.
        unsafe {
            let p = group.as_mut_ptr();
            let (dx, dy) = (
                _mm512_loadu_si512(p.cast()),
                _mm512_loadu_si512(p.add(64).cast()),
            );
            _mm512_storeu_si512(p.cast(), _mm512_xor_si512(dx, x));
            _mm512_storeu_si512(p.add(64).cast(), _mm512_xor_si512(dy, y));
        }
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn ctr_xor(
    words: &[u32; 8],
    tables: &NibbleTables,
    layout: Layout,
    counter: &mut [u8; 8],
    data: &mut [u8],
) {
    let c = Consts::new(tables, layout);
    let split = counter_split(layout);
    let key: [__m512i; 8] = core::array::from_fn(|i| _mm512_set1_epi32(words[i] as i32));
    let mut value = u64::from_be_bytes(*counter);
    let mut wide = data.chunks_exact_mut(BULK_BYTES);
    for chunk in &mut wide {
        ctr_groups::<BULK_GROUPS>(chunk, value, &key, &split, &c);
        value = value.wrapping_add((BULK_BYTES / 8) as u64);
    }
    let rest = wide.into_remainder();
    if !rest.is_empty() {
        // The last pass, as few groups as cover it, in a buffer: the key stream past the end of
        // `data` (up to a partial block and the rest of the group) is made and dropped.
        let mut buf = [0u8; BULK_BYTES];
        buf[..rest.len()].copy_from_slice(rest);
        match rest.len().div_ceil(GROUP_BYTES) {
            1 => ctr_groups::<1>(&mut buf[..GROUP_BYTES], value, &key, &split, &c),
            2 => ctr_groups::<2>(&mut buf[..2 * GROUP_BYTES], value, &key, &split, &c),
            3 => ctr_groups::<3>(&mut buf[..3 * GROUP_BYTES], value, &key, &split, &c),
            _ => ctr_groups::<BULK_GROUPS>(&mut buf, value, &key, &split, &c),
        }
        rest.copy_from_slice(&buf[..rest.len()]);
        buf.zeroize();
        value = value.wrapping_add(rest.len().div_ceil(8) as u64);
    }
    *counter = value.to_be_bytes();
}

/// `vpermt2d` indices of the three stages of the key transposition in [`lane_keys`]. Each stage
/// merges two registers `A`, `B` (index `i` of `B` is `16 + i`) into two outputs (`[out][pos]`):
/// - stage 1: `A` = lanes 0, 1 and `B` = lanes 2, 3 (eight words each, `lane * 8 + word`) into words
///   `4 * out ..` of lanes 0..4 (`pos` = `word * 4 + lane`);
/// - stage 2: `A` = lanes 0..4, `B` = lanes 4..8 (four words, `word * 4 + lane`) into words
///   `2 * out ..` of lanes 0..8 (`pos` = `word * 8 + lane`);
/// - stage 3: `A` = lanes 0..8, `B` = lanes 8..16 (two words, `word * 8 + lane`) into word `out` of
///   lanes 0..16 (`pos` = `lane`).
const fn transpose_index(stage: usize) -> [[u32; 16]; 2] {
    let mut idx = [[0u32; 16]; 2];
    let mut out = 0;
    while out < 2 {
        let mut pos = 0;
        while pos < 16 {
            let (lane, word, half) = match stage {
                1 => (pos % 4, 4 * out + pos / 4, 2),
                2 => (pos % 8, 2 * out + pos / 8, 4),
                _ => (pos, out, 8),
            };
            let (from_b, lane) = if lane < half {
                (0, lane)
            } else {
                (16, lane - half)
            };
            let at = match stage {
                1 => lane * 8 + word,
                _ => word * half + lane,
            };
            idx[out][pos] = (from_b + at) as u32;
            pos += 1;
        }
        out += 1;
    }
    idx
}

static TRANSPOSE: [[[u32; 16]; 2]; 3] =
    [transpose_index(1), transpose_index(2), transpose_index(3)];

/// Key words of lanes without a cipher (their blocks are padding).
static NO_KEY: [u32; 8] = [0; 8];

/// The key words of lane `lane` (zeros past the last key).
#[inline(always)]
fn lane_key<'k>(keys: &[&'k [u32; 8]], lane: usize) -> &'k [u32; 8] {
    match keys.get(lane) {
        Some(key) => key,
        None => &NO_KEY,
    }
}

/// The `vpermt2d` indices of stage `stage` (0-based), output `out`, of [`lane_keys`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn key_transpose(stage: usize, out: usize) -> __m512i {
    let index = &TRANSPOSE[stage % 3][out % 2];
    // SAFETY: 16 readable u32 (64 bytes); `loadu` has no alignment requirement.
    unsafe { _mm512_loadu_si512(index.as_ptr().cast()) }
}

/// Transposes the eight key words of up to sixteen lanes into eight lane-wise registers (register
/// `w` holds word `w` of every lane) in three `vpermt2d` stages, without a round trip through
/// memory. Plain index loops, no closures: a closure handed to a generic function
/// (`array::from_fn`) is compiled without this function's target features, so the intrinsics in
/// it would not be inlined.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[allow(clippy::needless_range_loop)]
pub(super) fn lane_keys(keys: &[&[u32; 8]]) -> [__m512i; 8] {
    let zero = _mm512_setzero_si512();
    // Two lanes' eight words per register: lanes 2p, 2p + 1.
    let mut rows = [zero; 8];
    for p in 0..8 {
        let (a, b) = (lane_key(keys, 2 * p), lane_key(keys, 2 * p + 1));
        // SAFETY: each key is 8 readable u32 (32 bytes); `loadu` has no alignment requirement.
        let (a, b) = unsafe {
            (
                _mm256_loadu_si256(a.as_ptr().cast()),
                _mm256_loadu_si256(b.as_ptr().cast()),
            )
        };
        rows[p] = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(a), b);
    }
    // Stage 1: [q][h] = words 4h.. of lanes 4q..4q+4.
    let mut s1 = [[zero; 2]; 4];
    for q in 0..4 {
        for h in 0..2 {
            s1[q][h] = _mm512_permutex2var_epi32(rows[2 * q], key_transpose(0, h), rows[2 * q + 1]);
        }
    }
    // Stage 2: [r][h][g] = words 4h + 2g.. of lanes 8r..8r+8.
    let mut s2 = [[[zero; 2]; 2]; 2];
    for r in 0..2 {
        for h in 0..2 {
            for g in 0..2 {
                s2[r][h][g] =
                    _mm512_permutex2var_epi32(s1[2 * r][h], key_transpose(1, g), s1[2 * r + 1][h]);
            }
        }
    }
    // Stage 3: word 4h + 2g + t of all sixteen lanes.
    let mut words = [zero; 8];
    for w in 0..8 {
        let (h, g, t) = (w / 4, (w / 2) % 2, w % 2);
        words[w] = _mm512_permutex2var_epi32(s2[0][h][g], key_transpose(2, t), s2[1][h][g]);
    }
    words
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn lanes(
    keys: &[&[u32; 8]],
    tables: &NibbleTables,
    layout: Layout,
    decrypt: bool,
    blocks: &mut [u8],
) {
    let n = keys.len().min(MAX_LANES).min(blocks.len() / 8);
    if n == 0 {
        return;
    }
    let c = Consts::new(tables, layout);
    let run_lanes = |data: &mut [u8]| {
        if n <= LANES {
            run::<1>(data, &[lane_keys(&keys[..n])], decrypt, &c);
        } else {
            let k = [lane_keys(&keys[..LANES]), lane_keys(&keys[LANES..n])];
            run::<2>(data, &k, decrypt, &c);
        }
    };
    if n == LANES || n == MAX_LANES {
        // Whole groups: in place, no copy.
        run_lanes(&mut blocks[..8 * n]);
    } else {
        let group = if n <= LANES {
            GROUP_BYTES
        } else {
            2 * GROUP_BYTES
        };
        let mut buf = [0u8; GROUPS * GROUP_BYTES];
        buf[..8 * n].copy_from_slice(&blocks[..8 * n]);
        run_lanes(&mut buf[..group]);
        blocks[..8 * n].copy_from_slice(&buf[..8 * n]);
        buf.zeroize();
    }
}
