//! The S-boxes laid out for byte-shuffle instructions (`vpshufb`, `vpermb`), shared by the SIMD
//! backends. These tables hold only the public S-boxes; the lookups into them happen inside
//! registers, so no secret-dependent memory address is ever formed.

use std::sync::OnceLock;

use super::sbox::SBox;

/// Nibble tables of one S-box set: entry `16 * j + n` of `low` is row `2 * j` applied to `n` (the low
/// nibble of byte `j` of a 32-bit word), entry `16 * j + n` of `high` is row `2 * j + 1` applied to
/// `n`, already shifted into the high nibble. The byte position `j` is part of the index, so one
/// 64-entry `vpermb` substitutes all four bytes of a word; `vpshufb` uses the 16-byte rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C, align(64))]
pub(crate) struct NibbleTables {
    pub(crate) low: [u8; 64],
    pub(crate) high: [u8; 64],
}

impl NibbleTables {
    fn build(rows: &[[u8; 16]; 8]) -> NibbleTables {
        let mut low = [0u8; 64];
        let mut high = [0u8; 64];
        for j in 0..4 {
            for n in 0..16 {
                low[16 * j + n] = rows[2 * j][n];
                high[16 * j + n] = rows[2 * j + 1][n] << 4;
            }
        }
        NibbleTables { low, high }
    }
}

/// The nibble tables of `sbox`, built on first use.
pub(crate) fn nibble_tables(sbox: SBox) -> &'static NibbleTables {
    static CELLS: [OnceLock<NibbleTables>; 2] = [OnceLock::new(), OnceLock::new()];
    sbox.cached(&CELLS, |s| NibbleTables::build(&s.rows()))
}

/// Which of the eight key words round `r` (0-based) uses: encryption takes K_1..K_8 three times, then
/// K_8..K_1; decryption runs the same sequence backwards.
#[inline(always)]
pub(crate) const fn key_index(decrypt: bool, r: usize) -> usize {
    let r = if decrypt { 31 - r } else { r };
    if r < 24 {
        r % 8
    } else {
        31 - r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_index_matches_the_schedule() {
        let words: [u32; 8] = core::array::from_fn(|i| i as u32 + 1);
        let keys = super::super::schedule(&words);
        for (r, &k) in keys.iter().enumerate() {
            assert_eq!(words[key_index(false, r)], k);
            assert_eq!(words[key_index(true, 31 - r)], k);
        }
    }

    #[test]
    fn tables_substitute_like_transform_t() {
        for sbox in SBox::ALL {
            let t = nibble_tables(*sbox);
            let mut x = 0x89ab_cdefu32;
            for _ in 0..1000 {
                x = x.wrapping_mul(0x9e37_79b9).wrapping_add(0x7f4a_7c15);
                let mut out = 0u32;
                for j in 0..4 {
                    let byte = (x >> (8 * j)) as usize;
                    let sub = t.low[16 * j + (byte & 15)] | t.high[16 * j + ((byte >> 4) & 15)];
                    out |= (sub as u32) << (8 * j);
                }
                assert_eq!(out, super::super::transform_t(x, sbox));
            }
        }
    }
}
