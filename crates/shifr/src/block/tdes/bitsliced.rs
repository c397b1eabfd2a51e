//! Bitsliced TDEA: `64 * N` blocks at once, each bit of every block in its own lane of `N` 64-bit
//! words, the S-boxes as Boolean circuits. Constant-time: no table is indexed by key or data, and
//! no branch depends on them (the only tables read are the public bit positions of FIPS 46-3).
//!
//! Layout: a batch of up to `64 * N` blocks is a 64 x 64 bit matrix per word lane; block `j * N + g`
//! is row `j` of lane `g`. One transposition turns rows into bit slices (slice `k` holds bit `k` of
//! every block), after which the permutations IP, E, P and IP^-1 are renamings of slices and cost
//! nothing. A key becomes 64 slices too, each all-ones or all-zeros for a single key, or holding
//! one key bit per lane for multi-stream calls ([`KeySlices::lanes`]); the key schedule is then a
//! fixed renaming of key slices ([`ROUND_KEY_BITS`]), so per-lane keys cost one transposition.
//!
//! S-boxes: with input bits `b1..b6`, the output is split as
//! `S(b) = XOR_a A_a(b2,b3) & XOR_c (B_c(b4,b5) & T_{a,c}(b1,b6))`, where `A`, `B` are the minterms
//! of two bits and `T_{a,c}` the column's output as a function of the row bits; the sixteen such
//! two-variable functions are computed once per S-box. The circuit is generic over the word type
//! and compiled for each width: `N = 1` (portable `u64`), 4 (AVX2) and 8 (AVX-512), where the
//! compiler vectorises the word operations.

use super::soft::{FP, IP, P, PC1, PC2, S, SHIFTS};
use core::ops::{BitAnd, BitOr, BitXor, BitXorAssign, Not, Shl, Shr};
use zeroize::Zeroize;

/// `N` 64-bit words, one bit slice of `64 * N` blocks.
#[derive(Clone, Copy)]
pub(super) struct Lanes<const N: usize>([u64; N]);

impl<const N: usize> Lanes<N> {
    const ZERO: Self = Lanes([0; N]);

    #[inline(always)]
    fn splat(x: u64) -> Self {
        Lanes([x; N])
    }

    /// `self & !other`.
    #[inline(always)]
    fn and_not(self, other: Self) -> Self {
        let mut r = self.0;
        for (a, b) in r.iter_mut().zip(other.0) {
            *a &= !b;
        }
        Lanes(r)
    }
}

macro_rules! lanewise {
    ($trait:ident, $method:ident, $op:tt) => {
        impl<const N: usize> $trait for Lanes<N> {
            type Output = Self;
            #[inline(always)]
            fn $method(self, other: Self) -> Self {
                let mut r = self.0;
                for (a, b) in r.iter_mut().zip(other.0) {
                    *a $op b;
                }
                Lanes(r)
            }
        }
    };
}
lanewise!(BitAnd, bitand, &=);
lanewise!(BitOr, bitor, |=);
lanewise!(BitXor, bitxor, ^=);

impl<const N: usize> BitXorAssign for Lanes<N> {
    #[inline(always)]
    fn bitxor_assign(&mut self, other: Self) {
        *self = *self ^ other;
    }
}

impl<const N: usize> Not for Lanes<N> {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        let mut r = self.0;
        for a in r.iter_mut() {
            *a = !*a;
        }
        Lanes(r)
    }
}

impl<const N: usize> Shl<u32> for Lanes<N> {
    type Output = Self;
    #[inline(always)]
    fn shl(self, s: u32) -> Self {
        let mut r = self.0;
        for a in r.iter_mut() {
            *a <<= s;
        }
        Lanes(r)
    }
}

impl<const N: usize> Shr<u32> for Lanes<N> {
    type Output = Self;
    #[inline(always)]
    fn shr(self, s: u32) -> Self {
        let mut r = self.0;
        for a in r.iter_mut() {
            *a >>= s;
        }
        Lanes(r)
    }
}

fn wipe<const N: usize>(words: &mut [Lanes<N>]) {
    for w in words {
        w.0.zeroize();
    }
}

/// Transposes, in every lane, the 64 x 64 bit matrix whose row `j` is `m[j]`: afterwards bit `j`
/// of `m[k]` is what bit `k` of `m[j]` was. Its own inverse.
#[inline(always)]
fn transpose<const N: usize>(m: &mut [Lanes<N>; 64]) {
    let mut s = 32usize;
    let mut mask = 0x0000_0000_ffff_ffffu64;
    while s != 0 {
        let keep = Lanes::splat(mask);
        for j in (0..64).filter(|j| j & s == 0) {
            let (a, b) = (m[j], m[j + s]);
            m[j] = (a & keep) | ((b & keep) << s as u32);
            m[j + s] = ((a >> s as u32) & keep) | b.and_not(keep);
        }
        s >>= 1;
        mask ^= mask << s;
    }
}

/// `ROUND_KEY_BITS[r][j]`: which bit of the 64-bit key (0 = most significant) is bit `j + 1` of
/// the round key K_(r+1): PC1, the cumulated rotations of C and D, then PC2, composed.
const ROUND_KEY_BITS: [[u8; 48]; 16] = round_key_bits();

const fn round_key_bits() -> [[u8; 48]; 16] {
    let mut out = [[0u8; 48]; 16];
    let mut rotation = 0usize;
    let mut r = 0;
    while r < 16 {
        rotation += SHIFTS[r] as usize;
        let mut j = 0;
        while j < 48 {
            let m = PC2[j] as usize - 1;
            let cd = if m < 28 {
                (m + rotation) % 28
            } else {
                28 + (m - 28 + rotation) % 28
            };
            out[r][j] = PC1[cd] - 1;
            j += 1;
        }
        r += 1;
    }
    out
}

/// `P_INVERSE[m]`: the position (0-based) in f's output of S-box output bit `m` (0-based).
const P_INVERSE: [u8; 32] = {
    let mut inv = [0u8; 32];
    let mut q = 0;
    while q < 32 {
        inv[P[q] as usize - 1] = q as u8;
        q += 1;
    }
    inv
};

/// `COLUMN_FUNCTIONS[s][t][a][c]`: output bit `t` (0 = most significant) of S-box `s + 1` for the
/// column `4a + c`, as a 4-bit truth table over the row `2 * b1 + b6`.
const COLUMN_FUNCTIONS: [[[[u8; 4]; 4]; 4]; 8] = {
    let mut out = [[[[0u8; 4]; 4]; 4]; 8];
    let mut s = 0;
    while s < 8 {
        let mut t = 0;
        while t < 4 {
            let mut col = 0;
            while col < 16 {
                let mut row = 0;
                while row < 4 {
                    if (S[s][row][col] >> (3 - t)) & 1 == 1 {
                        out[s][t][col / 4][col % 4] |= 1 << row;
                    }
                    row += 1;
                }
                col += 1;
            }
            t += 1;
        }
        s += 1;
    }
    out
};

/// The four minterms of `(hi, lo)`, indexed by `2 * hi + lo`.
#[inline(always)]
fn minterms<const N: usize>(hi: Lanes<N>, lo: Lanes<N>) -> [Lanes<N>; 4] {
    [!(hi | lo), lo.and_not(hi), hi.and_not(lo), hi & lo]
}

/// S-box `SBOX + 1` on the input slices `b1..b6`; returns its four output slices, most significant
/// first.
#[inline(always)]
fn sbox<const SBOX: usize, const N: usize>(b: [Lanes<N>; 6]) -> [Lanes<N>; 4] {
    let a = minterms(b[1], b[2]);
    let c = minterms(b[3], b[4]);
    let rows = minterms(b[0], b[5]);
    // Every function of the two row bits: entry `f` is the XOR of the row minterms in `f`.
    let mut of_rows = [Lanes::ZERO; 16];
    for f in 1..16 {
        of_rows[f] = of_rows[f & (f - 1)] ^ rows[f.trailing_zeros() as usize];
    }
    let mut out = [Lanes::ZERO; 4];
    for (t, out_t) in out.iter_mut().enumerate() {
        for (ai, a_term) in a.iter().enumerate() {
            let mut inner = Lanes::ZERO;
            for (ci, c_term) in c.iter().enumerate() {
                match COLUMN_FUNCTIONS[SBOX][t][ai][ci] {
                    0 => {}
                    15 => inner ^= *c_term,
                    f => inner ^= *c_term & of_rows[usize::from(f)],
                }
            }
            *out_t ^= *a_term & inner;
        }
    }
    out
}

/// One S-box of the round function: `l ^= P(S_SBOX(E(r) ^ K))` restricted to that S-box's bits.
#[inline(always)]
fn sbox_step<const SBOX: usize, const N: usize>(
    l: &mut [Lanes<N>; 32],
    r: &[Lanes<N>; 32],
    key: &[Lanes<N>; 64],
    round_key: &[u8; 48],
) {
    let mut input = [Lanes::ZERO; 6];
    for (i, x) in input.iter_mut().enumerate() {
        // E: group SBOX takes R bits 4 * SBOX - 1 ..= 4 * SBOX + 4 (1-based, cyclically).
        *x = r[(4 * SBOX + i + 31) % 32] ^ key[usize::from(round_key[6 * SBOX + i])];
    }
    let out = sbox::<SBOX, N>(input);
    for (t, o) in out.into_iter().enumerate() {
        l[usize::from(P_INVERSE[4 * SBOX + t])] ^= o;
    }
}

/// One Feistel round without the swap: `l ^= f(r, K)`.
#[inline(always)]
fn feistel<const N: usize>(
    l: &mut [Lanes<N>; 32],
    r: &[Lanes<N>; 32],
    key: &[Lanes<N>; 64],
    round_key: &[u8; 48],
) {
    sbox_step::<0, N>(l, r, key, round_key);
    sbox_step::<1, N>(l, r, key, round_key);
    sbox_step::<2, N>(l, r, key, round_key);
    sbox_step::<3, N>(l, r, key, round_key);
    sbox_step::<4, N>(l, r, key, round_key);
    sbox_step::<5, N>(l, r, key, round_key);
    sbox_step::<6, N>(l, r, key, round_key);
    sbox_step::<7, N>(l, r, key, round_key);
}

/// Sixteen rounds (forward key order to encrypt, reversed to decrypt) on `(l, r) = (L0, R0)`,
/// leaving `(L16, R16)`: rounds alternate roles instead of swapping.
#[inline(always)]
fn des<const N: usize>(
    l: &mut [Lanes<N>; 32],
    r: &mut [Lanes<N>; 32],
    key: &[Lanes<N>; 64],
    decrypt: bool,
) {
    for i in (0..16).step_by(2) {
        let (first, second) = if decrypt {
            (15 - i, 14 - i)
        } else {
            (i, i + 1)
        };
        feistel(l, r, key, &ROUND_KEY_BITS[first]);
        feistel(r, l, key, &ROUND_KEY_BITS[second]);
    }
}

/// The three DES keys of a TDEA operation as bit slices (slice `p` = key bit `p`, most significant
/// first), in the order they are applied.
pub(super) struct KeySlices<const N: usize>([[Lanes<N>; 64]; 3]);

impl<const N: usize> KeySlices<N> {
    /// The same three keys in every lane.
    #[inline(always)]
    pub(super) fn single(keys: &[u64; 3]) -> Self {
        let mut out = [[Lanes::ZERO; 64]; 3];
        for (slices, key) in out.iter_mut().zip(keys) {
            for (p, slice) in slices.iter_mut().enumerate() {
                *slice = Lanes::splat(0u64.wrapping_sub((key >> (63 - p)) & 1));
            }
        }
        KeySlices(out)
    }

    /// Lane `j * N + g` gets `keys[j * N + g]`; at most `64 * N` keys, missing lanes get zero keys.
    #[inline(always)]
    pub(super) fn lanes(keys: &[[u64; 3]]) -> Self {
        let mut out = [[Lanes::ZERO; 64]; 3];
        for (op, slices) in out.iter_mut().enumerate() {
            let mut rows = [Lanes::ZERO; 64];
            for (i, key) in keys.iter().enumerate() {
                rows[i / N].0[i % N] = key[op];
            }
            transpose(&mut rows);
            for (p, slice) in slices.iter_mut().enumerate() {
                *slice = rows[63 - p];
            }
            wipe(&mut rows);
        }
        KeySlices(out)
    }
}

impl<const N: usize> Drop for KeySlices<N> {
    fn drop(&mut self) {
        for slices in &mut self.0 {
            wipe(slices);
        }
    }
}

/// Encrypts (`E, D, E`) or decrypts (`D, E, D`, keys already in reverse order) the whole blocks of
/// `data`, at most `64 * N` of them.
#[inline(always)]
pub(super) fn crypt_batch<const N: usize>(data: &mut [u8], keys: &KeySlices<N>, decrypt: bool) {
    let mut rows = [Lanes::<N>::ZERO; 64];
    for (i, block) in data.chunks_exact(8).enumerate() {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(block);
        rows[i / N].0[i % N] = u64::from_be_bytes(bytes);
    }
    transpose(&mut rows);
    // Bit p (1-based, most significant first) of every block is rows[64 - p]; apply IP.
    let mut l = [Lanes::ZERO; 32];
    let mut r = [Lanes::ZERO; 32];
    for q in 0..32 {
        l[q] = rows[64 - usize::from(IP[q])];
        r[q] = rows[64 - usize::from(IP[q + 32])];
    }
    // E, D, E (or D, E, D). After each DES the halves swap: (L16, R16) becomes the next (L0, R0)
    // = (R16, L16), and after the last the pre-output R16 || L16.
    for (op, key) in keys.0.iter().enumerate() {
        des(&mut l, &mut r, key, decrypt ^ (op == 1));
        core::mem::swap(&mut l, &mut r);
    }
    for p in 0..64 {
        let src = usize::from(FP[p]) - 1;
        rows[63 - p] = if src < 32 { l[src] } else { r[src - 32] };
    }
    transpose(&mut rows);
    for (i, block) in data.chunks_exact_mut(8).enumerate() {
        block.copy_from_slice(&rows[i / N].0[i % N].to_be_bytes());
    }
    wipe(&mut rows);
    wipe(&mut l);
    wipe(&mut r);
}

/// The keys of a call: one key triple for every block, or one per block (multi-stream).
#[derive(Clone, Copy)]
pub(super) enum Keys<'a> {
    Single(&'a [u64; 3]),
    PerBlock(&'a [[u64; 3]]),
}

/// Encrypts or decrypts every whole block of `data` (for [`Keys::PerBlock`], as many blocks as
/// keys) in batches of `64 * N` blocks.
#[inline(always)]
pub(super) fn crypt<const N: usize>(data: &mut [u8], keys: Keys<'_>, decrypt: bool) {
    let lanes = 64 * N;
    let single = match keys {
        Keys::Single(triple) => Some(KeySlices::<N>::single(triple)),
        Keys::PerBlock(_) => None,
    };
    for (i, batch) in data.chunks_mut(lanes * 8).enumerate() {
        let per_lane;
        let slices = match (&single, keys) {
            (Some(slices), _) => slices,
            (None, Keys::Single(_)) => return,
            (None, Keys::PerBlock(all)) => {
                let start = (i * lanes).min(all.len());
                let end = (start + lanes).min(all.len());
                per_lane = KeySlices::<N>::lanes(&all[start..end]);
                &per_lane
            }
        };
        // One call site, so the (large) batch code is inlined once per width.
        crypt_batch(batch, slices, decrypt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_moves_bit_j_of_row_k_to_bit_k_of_row_j() {
        let mut m = [Lanes::<2>::ZERO; 64];
        // A few marked bits in each lane, at different places.
        m[3].0[0] = 1 << 17;
        m[60].0[1] = 1 << 2;
        transpose(&mut m);
        for (k, w) in m.iter().enumerate() {
            let expect0 = if k == 17 { 1 << 3 } else { 0 };
            let expect1 = if k == 2 { 1 << 60 } else { 0 };
            assert_eq!(w.0, [expect0, expect1], "row {k}");
        }
    }

    #[test]
    fn round_key_bits_never_use_parity_bits() {
        for round in ROUND_KEY_BITS {
            assert!(round.iter().all(|&b| b % 8 != 7));
        }
    }
}
