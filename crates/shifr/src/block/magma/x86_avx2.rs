//! Magma / GOST 28147-89 with AVX2: eight blocks per pair of 256-bit registers.
//!
//! Eight blocks (64 bytes, two registers) are split into a register of their `a_0` halves and one of
//! their `a_1` halves (`vpshufb` for the byte order of the layout, then `vshufps`). A round is
//! `a_1 ^= g(a_0 + k)` for all eight lanes: `vpaddd`; the S-box step `t` as 4-bit lookups with
//! `vpshufb` into sixteen-byte rows held in registers (one lookup per S-box row, each masked to the
//! byte of the word it belongs to); the rotation by 11 as two shifts and an OR. Two groups of eight
//! blocks are interleaved to hide the latency of a round.
//!
//! Constant-time: the S-boxes are looked up inside registers and every instruction used here has
//! data-independent timing; no memory address depends on the key or the data.
//!
//! Multi-stream ([`Avx2::lanes`]): lane `i` carries block `i` under its own key; the key words are
//! transposed once per call into eight lane-wise key registers, a cost spread over the 32 rounds.

use core::arch::x86_64::{
    __m256i, _mm256_add_epi32, _mm256_and_si256, _mm256_broadcastsi128_si256, _mm256_castps_si256,
    _mm256_castsi256_ps, _mm256_loadu_si256, _mm256_or_si256, _mm256_set1_epi32, _mm256_set1_epi8,
    _mm256_setr_epi8, _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_shuffle_ps,
    _mm256_slli_epi32, _mm256_srli_epi32, _mm256_storeu_si256, _mm256_unpackhi_epi32,
    _mm256_unpacklo_epi32, _mm256_xor_si256, _mm_loadu_si128,
};

use zeroize::Zeroize;

use super::nibble::{key_index, NibbleTables};
use super::soft::Layout;

/// Blocks per register pair.
const LANES: usize = 8;
/// Bytes per register group (two registers: 8 blocks).
const GROUP_BYTES: usize = 8 * LANES;
/// Groups processed together.
const GROUPS: usize = 2;
/// The most streams [`Avx2::lanes`] accepts per call.
pub(super) const MAX_LANES: usize = LANES * GROUPS;

/// Which block each 32-bit lane of a split register holds: `vshufps` takes the even words of each
/// 128-bit half of its two sources, so lanes 0..8 hold blocks 0, 1, 4, 5, 2, 3, 6, 7.
const LANE_BLOCK: [usize; LANES] = [0, 1, 4, 5, 2, 3, 6, 7];

/// Proof that this CPU has AVX2: [`Avx2::new`] is the only constructor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Avx2(());

impl Avx2 {
    /// `Some` only if the CPU supports AVX2.
    pub(super) fn new() -> Option<Avx2> {
        crate::cpu::Backend::Avx2.is_supported().then_some(Avx2(()))
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
        // SAFETY: an `Avx2` exists only when `new` found AVX2.
        unsafe { blocks(words, tables, layout, decrypt, data) }
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
        // SAFETY: an `Avx2` exists only when `new` found AVX2.
        unsafe { lanes(keys, tables, layout, decrypt, blocks) }
    }
}

/// Everything a round needs besides the state and the key.
struct Consts {
    low: [__m256i; 4],
    high: [__m256i; 4],
    byte: [__m256i; 4],
    nibble: __m256i,
    /// Byte order of a block to and from the Gost89 word order (`None`: already in it).
    reverse: Option<__m256i>,
}

impl Consts {
    #[inline]
    #[target_feature(enable = "avx2")]
    fn new(tables: &NibbleTables, layout: Layout) -> Consts {
        let row = |t: &[u8; 64], j: usize| {
            let r = &t[16 * j..16 * j + 16];
            // SAFETY: `r` is 16 readable bytes; `loadu` has no alignment requirement.
            _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(r.as_ptr().cast()) })
        };
        Consts {
            low: core::array::from_fn(|j| row(&tables.low, j)),
            high: core::array::from_fn(|j| row(&tables.high, j)),
            byte: core::array::from_fn(|j| _mm256_set1_epi32((0xffu32 << (8 * j)) as i32)),
            nibble: _mm256_set1_epi8(0x0f),
            reverse: match layout {
                Layout::BigEndian => Some(_mm256_setr_epi8(
                    7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
                    15, 14, 13, 12, 11, 10, 9, 8,
                )),
                Layout::Gost89 => None,
            },
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn order(&self, v: __m256i) -> __m256i {
        match self.reverse {
            Some(r) => _mm256_shuffle_epi8(v, r),
            None => v,
        }
    }
}

/// `b ^ (t(a + k) <<< 11)` in every lane.
#[inline]
#[target_feature(enable = "avx2")]
fn half_round(a: __m256i, b: __m256i, k: __m256i, c: &Consts) -> __m256i {
    let x = _mm256_add_epi32(a, k);
    let lo = _mm256_and_si256(x, c.nibble);
    let hi = _mm256_and_si256(_mm256_srli_epi32::<4>(x), c.nibble);
    let mut t = _mm256_set1_epi32(0);
    for j in 0..4 {
        let s = _mm256_or_si256(
            _mm256_shuffle_epi8(c.low[j], lo),
            _mm256_shuffle_epi8(c.high[j], hi),
        );
        t = _mm256_or_si256(t, _mm256_and_si256(s, c.byte[j]));
    }
    let rotated = _mm256_or_si256(_mm256_slli_epi32::<11>(t), _mm256_srli_epi32::<21>(t));
    _mm256_xor_si256(b, rotated)
}

/// 32 rounds on `G` independent groups; `state[g]` is `[a_0, a_1]` and ends as
/// `[a_1-slot word, a_0-slot word]` of the output.
#[inline]
#[target_feature(enable = "avx2")]
fn rounds<const G: usize, const DECRYPT: bool>(
    state: &mut [[__m256i; 2]; G],
    keys: &[[__m256i; 8]; G],
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

/// Loads, encrypts and stores `G` groups of eight blocks (`data.len() == G * GROUP_BYTES`).
#[inline]
#[target_feature(enable = "avx2")]
fn run<const G: usize>(data: &mut [u8], keys: &[[__m256i; 8]; G], decrypt: bool, c: &Consts) {
    let mut state = [[_mm256_setzero_si256(); 2]; G];
    for (s, group) in state.iter_mut().zip(data.chunks_exact(GROUP_BYTES)) {
        // SAFETY: `group` is exactly 64 readable bytes (`chunks_exact`), read as two unaligned
        // 32-byte loads.
        let (x, y) = unsafe {
            let p = group.as_ptr();
            (
                _mm256_loadu_si256(p.cast()),
                _mm256_loadu_si256(p.add(32).cast()),
            )
        };
        let (x, y) = (
            _mm256_castsi256_ps(c.order(x)),
            _mm256_castsi256_ps(c.order(y)),
        );
        *s = [
            _mm256_castps_si256(_mm256_shuffle_ps::<0x88>(x, y)),
            _mm256_castps_si256(_mm256_shuffle_ps::<0xdd>(x, y)),
        ];
    }
    if decrypt {
        rounds::<G, true>(&mut state, keys, c);
    } else {
        rounds::<G, false>(&mut state, keys, c);
    }
    for (s, group) in state.iter().zip(data.chunks_exact_mut(GROUP_BYTES)) {
        // The a_0 slot (first word of each block in Gost89 order) takes s[1].
        let x = c.order(_mm256_unpacklo_epi32(s[1], s[0]));
        let y = c.order(_mm256_unpackhi_epi32(s[1], s[0]));
        // SAFETY: `group` is exactly 64 writable bytes (`chunks_exact_mut`), written as two
        // unaligned 32-byte stores.
        unsafe {
            let p = group.as_mut_ptr();
            _mm256_storeu_si256(p.cast(), x);
            _mm256_storeu_si256(p.add(32).cast(), y);
        }
    }
}

#[target_feature(enable = "avx2")]
fn blocks(words: &[u32; 8], tables: &NibbleTables, layout: Layout, decrypt: bool, data: &mut [u8]) {
    let c = Consts::new(tables, layout);
    let key: [__m256i; 8] = core::array::from_fn(|i| _mm256_set1_epi32(words[i] as i32));
    let mut wide = data.chunks_exact_mut(GROUPS * GROUP_BYTES);
    for chunk in &mut wide {
        run::<GROUPS>(chunk, &[key; GROUPS], decrypt, &c);
    }
    let mut single = wide.into_remainder().chunks_exact_mut(GROUP_BYTES);
    for chunk in &mut single {
        run::<1>(chunk, &[key], decrypt, &c);
    }
    let tail = single.into_remainder();
    let whole = tail.len() / 8 * 8;
    if whole > 0 {
        let mut buf = [0u8; GROUP_BYTES];
        buf[..whole].copy_from_slice(&tail[..whole]);
        run::<1>(&mut buf, &[key], decrypt, &c);
        tail[..whole].copy_from_slice(&buf[..whole]);
        buf.zeroize();
    }
}

/// Transposes the key words of up to eight lanes into eight lane-wise registers, in the lane order
/// of [`LANE_BLOCK`] (missing lanes get zero keys; their blocks are padding).
#[inline]
#[target_feature(enable = "avx2")]
fn lane_keys(keys: &[&[u32; 8]]) -> [__m256i; 8] {
    let mut columns = [[0u32; LANES]; 8];
    for (lane, &block) in LANE_BLOCK.iter().enumerate() {
        if let Some(words) = keys.get(block) {
            for (column, &w) in columns.iter_mut().zip(words.iter()) {
                column[lane] = w;
            }
        }
    }
    let mut out = [_mm256_set1_epi32(0); 8];
    for (v, column) in out.iter_mut().zip(&columns) {
        // SAFETY: `column` is 8 readable u32 (32 bytes); `loadu` has no alignment requirement.
        *v = unsafe { _mm256_loadu_si256(column.as_ptr().cast()) };
    }
    columns.zeroize();
    out
}

#[target_feature(enable = "avx2")]
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
