//! Portable DES core (FIPS 46-3): the tables of the standard, the key schedule and the 16-round
//! Feistel network, arranged so that a TDEA block needs only one initial and one final permutation.
//!
//! The eight S-boxes are merged with the permutation P into eight 64-entry `u32` tables (`SP`,
//! built at compile time from the standard's S and P tables). Their indices depend on the key and
//! the data: this path uses secret-indexed table lookups and is **not constant-time** against an
//! attacker who can observe cache timing.
//!
//! Speed comes from three arrangements, none of which changes the cipher:
//!
//! - IP and IP^-1 are five swap-moves (delta swaps) each on the two 32-bit halves, not a loop over
//!   the 64 bits.
//! - The halves are kept rotated right by 3 bits between IP and IP^-1. In that form the 6-bit
//!   groups of E(R) feeding S-boxes 7, 5, 3, 1 sit at bits 0, 8, 16, 24 of `R`, and those feeding
//!   S-boxes 6, 4, 2, 8 at bits 0, 8, 16, 24 of `R` rotated right by 4 more: one XOR with a packed
//!   round-key word ([`Schedule`]) per form gives all eight table indices as byte fields. The
//!   tables hold the S-box outputs after P, rotated the same way, so the XOR into `L` stays in the
//!   rotated form.
//! - The three DES operations of a TDEA block run back to back with no IP^-1/IP between them
//!   (they cancel).
//! - A round combines its eight table entries as a tree of ORs and additions, not a run of XORs
//!   (see [`round`]): a chain (CBC, CFB, OFB encryption) waits for every round's latency.

use std::sync::OnceLock;

/// Round keys of one DES key: for each of the 16 rounds, K_n packed as two words whose bytes
/// hold its 6-bit groups (group i feeds S-box i + 1) where the rotated `R` has the matching bits
/// of E(R): word 0 = groups 1, 3, 5, 7 (bytes 3 to 0), word 1 = groups 8, 2, 4, 6.
pub(super) type Schedule = [[u32; 2]; 16];

/// Bits the halves are rotated right by between IP and IP^-1 (see the module documentation).
const HALF_ROTATION: u32 = 3;

/// Initial permutation IP: output bit i (1-based, most significant first) is input bit IP[i].
pub(super) const IP: [u8; 64] = [
    58, 50, 42, 34, 26, 18, 10, 2, 60, 52, 44, 36, 28, 20, 12, 4, //
    62, 54, 46, 38, 30, 22, 14, 6, 64, 56, 48, 40, 32, 24, 16, 8, //
    57, 49, 41, 33, 25, 17, 9, 1, 59, 51, 43, 35, 27, 19, 11, 3, //
    61, 53, 45, 37, 29, 21, 13, 5, 63, 55, 47, 39, 31, 23, 15, 7,
];

/// Final permutation IP^-1, derived from IP rather than copied.
pub(super) const FP: [u8; 64] = invert(&IP);

/// Permutation P applied to the S-box outputs.
pub(super) const P: [u8; 32] = [
    16, 7, 20, 21, 29, 12, 28, 17, 1, 15, 23, 26, 5, 18, 31, 10, //
    2, 8, 24, 14, 32, 27, 3, 9, 19, 13, 30, 6, 22, 11, 4, 25,
];

/// Permuted choice 1: the 56 key bits (parity bits dropped) forming C0 || D0.
pub(super) const PC1: [u8; 56] = [
    57, 49, 41, 33, 25, 17, 9, 1, 58, 50, 42, 34, 26, 18, //
    10, 2, 59, 51, 43, 35, 27, 19, 11, 3, 60, 52, 44, 36, //
    63, 55, 47, 39, 31, 23, 15, 7, 62, 54, 46, 38, 30, 22, //
    14, 6, 61, 53, 45, 37, 29, 21, 13, 5, 28, 20, 12, 4,
];

/// Permuted choice 2: the 48 bits of K_n taken from C_n || D_n.
pub(super) const PC2: [u8; 48] = [
    14, 17, 11, 24, 1, 5, 3, 28, 15, 6, 21, 10, //
    23, 19, 12, 4, 26, 8, 16, 7, 27, 20, 13, 2, //
    41, 52, 31, 37, 47, 55, 30, 40, 51, 45, 33, 48, //
    44, 49, 39, 56, 34, 53, 46, 42, 50, 36, 29, 32,
];

/// Left shifts of C and D before each round's PC2.
pub(super) const SHIFTS: [u8; 16] = [1, 1, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 1];

/// S-boxes S1..S8, each as 4 rows (selected by the outer input bits) of 16 columns.
pub(super) const S: [[[u8; 16]; 4]; 8] = [
    [
        [14, 4, 13, 1, 2, 15, 11, 8, 3, 10, 6, 12, 5, 9, 0, 7],
        [0, 15, 7, 4, 14, 2, 13, 1, 10, 6, 12, 11, 9, 5, 3, 8],
        [4, 1, 14, 8, 13, 6, 2, 11, 15, 12, 9, 7, 3, 10, 5, 0],
        [15, 12, 8, 2, 4, 9, 1, 7, 5, 11, 3, 14, 10, 0, 6, 13],
    ],
    [
        [15, 1, 8, 14, 6, 11, 3, 4, 9, 7, 2, 13, 12, 0, 5, 10],
        [3, 13, 4, 7, 15, 2, 8, 14, 12, 0, 1, 10, 6, 9, 11, 5],
        [0, 14, 7, 11, 10, 4, 13, 1, 5, 8, 12, 6, 9, 3, 2, 15],
        [13, 8, 10, 1, 3, 15, 4, 2, 11, 6, 7, 12, 0, 5, 14, 9],
    ],
    [
        [10, 0, 9, 14, 6, 3, 15, 5, 1, 13, 12, 7, 11, 4, 2, 8],
        [13, 7, 0, 9, 3, 4, 6, 10, 2, 8, 5, 14, 12, 11, 15, 1],
        [13, 6, 4, 9, 8, 15, 3, 0, 11, 1, 2, 12, 5, 10, 14, 7],
        [1, 10, 13, 0, 6, 9, 8, 7, 4, 15, 14, 3, 11, 5, 2, 12],
    ],
    [
        [7, 13, 14, 3, 0, 6, 9, 10, 1, 2, 8, 5, 11, 12, 4, 15],
        [13, 8, 11, 5, 6, 15, 0, 3, 4, 7, 2, 12, 1, 10, 14, 9],
        [10, 6, 9, 0, 12, 11, 7, 13, 15, 1, 3, 14, 5, 2, 8, 4],
        [3, 15, 0, 6, 10, 1, 13, 8, 9, 4, 5, 11, 12, 7, 2, 14],
    ],
    [
        [2, 12, 4, 1, 7, 10, 11, 6, 8, 5, 3, 15, 13, 0, 14, 9],
        [14, 11, 2, 12, 4, 7, 13, 1, 5, 0, 15, 10, 3, 9, 8, 6],
        [4, 2, 1, 11, 10, 13, 7, 8, 15, 9, 12, 5, 6, 3, 0, 14],
        [11, 8, 12, 7, 1, 14, 2, 13, 6, 15, 0, 9, 10, 4, 5, 3],
    ],
    [
        [12, 1, 10, 15, 9, 2, 6, 8, 0, 13, 3, 4, 14, 7, 5, 11],
        [10, 15, 4, 2, 7, 12, 9, 5, 6, 1, 13, 14, 0, 11, 3, 8],
        [9, 14, 15, 5, 2, 8, 12, 3, 7, 0, 4, 10, 1, 13, 11, 6],
        [4, 3, 2, 12, 9, 5, 15, 10, 11, 14, 1, 7, 6, 0, 8, 13],
    ],
    [
        [4, 11, 2, 14, 15, 0, 8, 13, 3, 12, 9, 7, 5, 10, 6, 1],
        [13, 0, 11, 7, 4, 9, 1, 10, 14, 3, 5, 12, 2, 15, 8, 6],
        [1, 4, 11, 13, 12, 3, 7, 14, 10, 15, 6, 8, 0, 5, 9, 2],
        [6, 11, 13, 8, 1, 4, 10, 7, 9, 5, 0, 15, 14, 2, 3, 12],
    ],
    [
        [13, 2, 8, 4, 6, 15, 11, 1, 10, 9, 3, 14, 5, 0, 12, 7],
        [1, 15, 13, 8, 10, 3, 7, 4, 12, 5, 6, 11, 0, 14, 9, 2],
        [7, 11, 4, 1, 9, 12, 14, 2, 0, 6, 10, 13, 15, 3, 5, 8],
        [2, 1, 14, 7, 4, 10, 8, 13, 15, 12, 9, 0, 3, 5, 6, 11],
    ],
];

/// `SP[i][b]`: P applied to the output of S-box i + 1 on the 6-bit input `b`, placed in its
/// nibble, then rotated right by [`HALF_ROTATION`] like the halves (2 KiB in all).
static SP: [[u32; 64]; 8] = build_sp();

/// Bit permutation in the standard's notation: output bit j (1-based, most significant first, of
/// a `table.len()`-bit result) is bit `table[j]` (1-based, most significant first) of the
/// `in_bits`-bit input. Data-independent: a fixed sequence of shifts.
const fn permute(input: u64, in_bits: u32, table: &[u8]) -> u64 {
    let mut out = 0u64;
    let mut j = 0;
    while j < table.len() {
        out = (out << 1) | ((input >> (in_bits - table[j] as u32)) & 1);
        j += 1;
    }
    out
}

const fn invert(table: &[u8; 64]) -> [u8; 64] {
    let mut inv = [0u8; 64];
    let mut j = 0;
    while j < 64 {
        inv[table[j] as usize - 1] = j as u8 + 1;
        j += 1;
    }
    inv
}

const fn build_sp() -> [[u32; 64]; 8] {
    let mut sp = [[0u32; 64]; 8];
    let mut i = 0;
    while i < 8 {
        let mut b = 0;
        while b < 64 {
            // Row from the outer bits b1 b6, column from the inner bits b2..b5.
            let row = ((b >> 4) & 2) | (b & 1);
            let col = (b >> 1) & 0xf;
            let nibble = (S[i][row][col] as u64) << (28 - 4 * i);
            sp[i][b] = (permute(nibble, 32, &P) as u32).rotate_right(HALF_ROTATION);
            b += 1;
        }
        i += 1;
    }
    sp
}

/// The 16 round keys of one 8-byte DES key (parity bits ignored), packed as [`Schedule`] says.
pub(super) fn schedule(key: &[u8; 8]) -> Schedule {
    // PC1, the rotations and PC2 only select key bits: each bit of the schedule is one key bit or
    // zero, so the schedule of a key is the XOR of the schedules of its set bits. Masked XORs of
    // the 64 one-bit schedules: constant-time (no branch or address depends on the key) and
    // vectorised by the compiler, where the bit-by-bit permutations took about 1 us per key.
    let k = u64::from_be_bytes(*key);
    let mut ks = [[0u32; 2]; 16];
    for (bit, unit) in unit_schedules().iter().enumerate() {
        let mask = 0u32.wrapping_sub((k >> (63 - bit)) as u32 & 1);
        for (word, unit_word) in ks.as_flattened_mut().iter_mut().zip(unit.as_flattened()) {
            *word ^= unit_word & mask;
        }
    }
    ks
}

/// The schedules of the 64 one-bit keys (bit 0 the most significant of byte 0), made once.
fn unit_schedules() -> &'static [Schedule; 64] {
    static UNITS: OnceLock<[Schedule; 64]> = OnceLock::new();
    UNITS.get_or_init(|| {
        core::array::from_fn(|bit| schedule_by_bits(&(1u64 << (63 - bit)).to_be_bytes()))
    })
}

/// The key schedule computed bit by bit, as FIPS 46-3 states it.
fn schedule_by_bits(key: &[u8; 8]) -> Schedule {
    const MASK28: u32 = 0x0fff_ffff;
    let cd = permute(u64::from_be_bytes(*key), 64, &PC1);
    let mut c = (cd >> 28) as u32 & MASK28;
    let mut d = cd as u32 & MASK28;
    let mut ks = [[0u32; 2]; 16];
    for (round, shift) in ks.iter_mut().zip(SHIFTS) {
        c = ((c << shift) | (c >> (28 - shift))) & MASK28;
        d = ((d << shift) | (d >> (28 - shift))) & MASK28;
        let k = permute((u64::from(c) << 28) | u64::from(d), 56, &PC2);
        // Group i (0-based) of K_n: its 6 bits, most significant group first.
        let group = |i: u32| ((k >> (42 - 6 * i)) & 0x3f) as u32;
        *round = [
            (group(0) << 24) | (group(2) << 16) | (group(4) << 8) | group(6),
            (group(7) << 24) | (group(1) << 16) | (group(3) << 8) | group(5),
        ];
    }
    ks
}

/// The schedule in reverse round order: DES decryption with the same key.
pub(super) fn reversed(ks: &Schedule) -> Schedule {
    let mut r = *ks;
    r.reverse();
    r
}

/// Exchanges the bits of `b` selected by `mask` with the bits of `a` selected by `mask << shift`.
#[inline(always)]
fn swap_move(a: &mut u32, b: &mut u32, shift: u32, mask: u32) {
    let t = ((*a >> shift) ^ *b) & mask;
    *b ^= t;
    *a ^= t << shift;
}

/// IP of the block `hi || lo`: returns (L0, R0).
#[inline(always)]
fn initial_permutation(mut hi: u32, mut lo: u32) -> (u32, u32) {
    swap_move(&mut hi, &mut lo, 4, 0x0f0f_0f0f);
    swap_move(&mut hi, &mut lo, 16, 0x0000_ffff);
    swap_move(&mut lo, &mut hi, 2, 0x3333_3333);
    swap_move(&mut lo, &mut hi, 8, 0x00ff_00ff);
    swap_move(&mut hi, &mut lo, 1, 0x5555_5555);
    (hi, lo)
}

/// IP^-1: the swap-moves of [`initial_permutation`] in reverse order (each is an involution);
/// takes the pre-output `R16 || L16` and returns the block's two halves.
#[inline(always)]
fn final_permutation(mut hi: u32, mut lo: u32) -> (u32, u32) {
    swap_move(&mut hi, &mut lo, 1, 0x5555_5555);
    swap_move(&mut lo, &mut hi, 8, 0x00ff_00ff);
    swap_move(&mut lo, &mut hi, 2, 0x3333_3333);
    swap_move(&mut hi, &mut lo, 16, 0x0000_ffff);
    swap_move(&mut hi, &mut lo, 4, 0x0f0f_0f0f);
    (hi, lo)
}

/// Entry of table `sp` for the 6-bit group at bits `at .. at + 6` of `x`.
#[inline(always)]
fn lookup(sp: &[u32; 64], x: u32, at: u32) -> u32 {
    sp[((x >> at) & 0x3f) as usize]
}

/// `l ^ f(R, K)`, f(R, K) = P(S(E(R) xor K)), on the rotated `R` and `l`, result rotated alike.
///
/// The eight table entries fill disjoint bits (P sends the outputs of different S-boxes to
/// different bits), so OR and addition combine them as XOR does. Written with XOR alone, LLVM
/// chains the nine terms into nine dependent XORs with memory operands; mixed operators keep a
/// tree, three levels after the last load, where a feedback chain waits for every round: on AMD
/// Zen 4 a round takes 14.5 cycles instead of 16.7.
#[inline(always)]
fn round(l: u32, r: u32, k: &[u32; 2]) -> u32 {
    let u = r ^ k[0];
    let t = r.rotate_right(4) ^ k[1];
    let a = lookup(&SP[0], u, 24) | lookup(&SP[2], u, 16);
    let b = lookup(&SP[4], u, 8) | lookup(&SP[6], u, 0);
    let c = lookup(&SP[7], t, 24) | lookup(&SP[1], t, 16);
    let d = lookup(&SP[3], t, 8) | lookup(&SP[5], t, 0);
    (l ^ (a + b)) ^ (c + d)
}

/// Sixteen rounds on (L0, R0) of each of `N` independent blocks, interleaved round by round so
/// that their latency chains overlap; returns each block's pre-output (R16, L16), which is also
/// the (L0, R0) of a following DES operation once its IP has cancelled this one's IP^-1.
#[inline(always)]
fn rounds<const N: usize>(mut l: [u32; N], mut r: [u32; N], ks: &Schedule) -> ([u32; N], [u32; N]) {
    for pair in ks.chunks_exact(2) {
        for i in 0..N {
            l[i] = round(l[i], r[i], &pair[0]);
        }
        for i in 0..N {
            r[i] = round(r[i], l[i], &pair[1]);
        }
    }
    (r, l)
}

/// Runs `N` blocks (big-endian words) through DES with each schedule in turn (E or D depending on
/// whether the schedule is forward or reversed), with one IP at the start and one IP^-1 at the
/// end of each block.
#[inline(always)]
fn crypt_words<const N: usize>(x: [u64; N], schedules: &[Schedule; 3]) -> [u64; N] {
    let (mut l, mut r) = ([0u32; N], [0u32; N]);
    for i in 0..N {
        let (li, ri) = initial_permutation((x[i] >> 32) as u32, x[i] as u32);
        l[i] = li.rotate_right(HALF_ROTATION);
        r[i] = ri.rotate_right(HALF_ROTATION);
    }
    for ks in schedules {
        (l, r) = rounds(l, r, ks);
    }
    std::array::from_fn(|i| {
        let (hi, lo) = final_permutation(
            l[i].rotate_left(HALF_ROTATION),
            r[i].rotate_left(HALF_ROTATION),
        );
        (u64::from(hi) << 32) | u64::from(lo)
    })
}

/// One block (a big-endian word) through the three DES operations of `schedules`.
#[inline]
pub(super) fn crypt_word(x: u64, schedules: &[Schedule; 3]) -> u64 {
    let [y] = crypt_words([x], schedules);
    y
}

/// [`crypt_word`] on every 8-byte block of `data` in place (a trailing partial block is left
/// alone), two blocks at a time: independent blocks overlap in the pipeline.
pub(super) fn crypt_blocks(data: &mut [u8], schedules: &[Schedule; 3]) {
    let (pairs, rest) = data.as_chunks_mut::<16>();
    for pair in pairs {
        let x = [0, 8].map(|at| {
            let mut word = [0u8; 8];
            word.copy_from_slice(&pair[at..at + 8]);
            u64::from_be_bytes(word)
        });
        let [y0, y1] = crypt_words(x, schedules);
        pair[..8].copy_from_slice(&y0.to_be_bytes());
        pair[8..].copy_from_slice(&y1.to_be_bytes());
    }
    if let Some(block) = rest.first_chunk_mut::<8>() {
        *block = crypt_word(u64::from_be_bytes(*block), schedules).to_be_bytes();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_from_unit_keys_matches_the_bitwise_one() {
        let mut x = 0x1f83_d9ab_fb41_bd6bu64;
        for _ in 0..500 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let key = x.to_be_bytes();
            assert_eq!(schedule(&key), schedule_by_bits(&key), "{key:02x?}");
        }
        for key in [[0u8; 8], [0xff; 8], *b"\x01\x23\x45\x67\x89\xab\xcd\xef"] {
            assert_eq!(schedule(&key), schedule_by_bits(&key), "{key:02x?}");
        }
    }

    #[test]
    fn fp_inverts_ip() {
        let x = 0x0123_4567_89ab_cdefu64;
        assert_eq!(permute(permute(x, 64, &IP), 64, &FP), x);
        assert_eq!(permute(permute(x, 64, &FP), 64, &IP), x);
    }

    /// The swap-move IP and IP^-1 agree with the standard's tables (applied bit by bit) on
    /// every single-bit input and on pseudo-random words.
    #[test]
    fn swap_moves_match_the_tables() {
        let words =
            (0..64)
                .map(|i| 1u64 << i)
                .chain((0..256u64).scan(0x9e37_79b9_7f4a_7c15u64, |s, _| {
                    *s ^= *s << 13;
                    *s ^= *s >> 7;
                    *s ^= *s << 17;
                    Some(*s)
                }));
        for x in words {
            let (l, r) = initial_permutation((x >> 32) as u32, x as u32);
            assert_eq!((u64::from(l) << 32) | u64::from(r), permute(x, 64, &IP));
            let (hi, lo) = final_permutation((x >> 32) as u32, x as u32);
            assert_eq!((u64::from(hi) << 32) | u64::from(lo), permute(x, 64, &FP));
        }
    }

    /// Each S-box row is a permutation of 0..15 (catches a mistyped entry); P and PC2 use
    /// each position at most once.
    #[test]
    fn tables_are_well_formed() {
        for sbox in &S {
            for row in sbox {
                let mut seen = [false; 16];
                row.iter().for_each(|&v| seen[usize::from(v)] = true);
                assert!(seen.iter().all(|&s| s));
            }
        }
        let mut p = P.to_vec();
        p.sort();
        assert_eq!(p, (1..=32).collect::<Vec<u8>>());
        let mut pc2 = PC2.to_vec();
        pc2.sort();
        pc2.dedup();
        assert_eq!(pc2.len(), 48);
    }

    /// [`round`] may OR and add table entries only because each `SP` table fills four bits no
    /// other table touches.
    #[test]
    fn the_sp_tables_fill_disjoint_bits() {
        let masks = SP.map(|t| t.iter().fold(0u32, |m, &e| m | e));
        for (i, a) in masks.iter().enumerate() {
            assert_eq!(a.count_ones(), 4, "table {i}");
            for b in &masks[i + 1..] {
                assert_eq!(a & b, 0, "table {i}");
            }
        }
    }
}
