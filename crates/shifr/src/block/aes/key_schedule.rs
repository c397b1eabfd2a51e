//! The AES key expansion (FIPS 197 Section 5.2), shared by every backend.
//!
//! SubWord is constant-time on every backend: the bitsliced S-box of [`super::soft`] by default,
//! the hardware's AES round where a backend passes one ([`expand_key_with`]).

use zeroize::Zeroize;

use super::soft::sub_bytes_ct;
use crate::wipe::wipe_words;

/// Round keys needed by AES-256 (Nr + 1 = 15); shorter keys use a prefix.
pub(super) const MAX_ROUND_KEYS: usize = 15;

/// Round constants Rcon[1..=10]: successive powers of x in GF(2^8).
const RCON: [u8; 10] = [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36];

/// Expands a 16-, 24- or 32-byte key (the caller checks the length) into round keys in wire order,
/// returning them with Nr. Round key `r` is words `w[4r..4r+4]`, serialized byte by byte.
pub(super) fn expand_key(key: &[u8]) -> ([[u8; 16]; MAX_ROUND_KEYS], usize) {
    expand_key_with(key, |word| {
        let mut bytes = word.to_le_bytes();
        sub_bytes_ct(&mut bytes);
        let out = u32::from_le_bytes(bytes);
        bytes.zeroize();
        out
    })
}

/// [`expand_key`] with SubWord done by `sub_word`, on a word whose first byte is its low byte. The
/// bitsliced S-box packs a four-block batch for each word: the 10 to 13 of a key made up most of
/// its setup (3.8 us for AES-256 on Zen 4), where a backend's AES instruction takes a few cycles.
pub(super) fn expand_key_with(
    key: &[u8],
    sub_word: impl Fn(u32) -> u32,
) -> ([[u8; 16]; MAX_ROUND_KEYS], usize) {
    let nk = key.len() / 4;
    let rounds = nk + 6;
    let total_words = 4 * (rounds + 1);
    let mut w = [0u32; 4 * MAX_ROUND_KEYS];
    for (word, chunk) in w.iter_mut().zip(key.chunks_exact(4)) {
        *word = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
    for i in nk..total_words {
        let mut temp = w[i - 1];
        if i % nk == 0 {
            // RotWord moves byte 1 to byte 0: with byte 0 the low byte, a right rotation.
            temp = sub_word(temp.rotate_right(8)) ^ u32::from(RCON[i / nk - 1]);
        } else if nk > 6 && i % nk == 4 {
            temp = sub_word(temp);
        }
        w[i] = w[i - nk] ^ temp;
    }
    let mut round_keys = [[0u8; 16]; MAX_ROUND_KEYS];
    for (rk, words) in round_keys
        .iter_mut()
        .zip(w.chunks_exact(4))
        .take(rounds + 1)
    {
        for (dst, word) in rk.chunks_exact_mut(4).zip(words) {
            dst.copy_from_slice(&word.to_le_bytes());
        }
    }
    wipe_words(&mut w);
    (round_keys, rounds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aes128_schedule_matches_fips197_appendix_a1() {
        // FIPS 197 Appendix A.1: key 2b7e1516 28aed2a6 abf71588 09cf4f3c; w[4..8] = a0fafe17
        // 88542cb1 23a33939 2a6c7605, w[40..44] = d014f9a8 c9ee2589 e13f0cc8 b6630ca6.
        let key = [
            0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6, 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf,
            0x4f, 0x3c,
        ];
        let (rk, rounds) = expand_key(&key);
        assert_eq!(rounds, 10);
        assert_eq!(rk[0], key);
        assert_eq!(
            rk[1],
            [
                0xa0, 0xfa, 0xfe, 0x17, 0x88, 0x54, 0x2c, 0xb1, 0x23, 0xa3, 0x39, 0x39, 0x2a, 0x6c,
                0x76, 0x05
            ]
        );
        assert_eq!(
            rk[10],
            [
                0xd0, 0x14, 0xf9, 0xa8, 0xc9, 0xee, 0x25, 0x89, 0xe1, 0x3f, 0x0c, 0xc8, 0xb6, 0x63,
                0x0c, 0xa6
            ]
        );
    }
}
