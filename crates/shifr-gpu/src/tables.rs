//! Host-side preparation of what the kernels read: S-box tables, round keys and the Boolean-function
//! (algebraic normal form) masks of the Magma S-boxes. Everything is derived from the CPU library's
//! public definitions (S-box rows, PI, transforms L and L^-1, round constants, key schedules), so GPU
//! and CPU share one source of truth. Round keys are returned in `Zeroizing` buffers.
//!
//! The key-independent tables are named by [`TableId`]: each device uploads one once and keeps it for
//! the life of its context (`device::TableCache`), so a call uploads only its keys and data.

use shifr::hazmat::block::kuznyechik::{self, Kuznyechik};
use shifr::hazmat::block::magma::{self, SBox};
use shifr::{Error, Result};
use zeroize::Zeroizing;

/// A key-independent constant table the kernels read from device memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum TableId {
    /// [`magma_nibble_tables`] of one S-box set (512 bytes).
    MagmaNibbles(SBox),
    /// [`kuznyechik_tables`]: the fused LS tables (64 KiB).
    KuznyechikLs,
    /// [`kuznyechik_round_constants`]: C_1..C_32 of the key schedule (512 bytes).
    KuznyechikConstants,
    /// [`kuznyechik_inverse_tables`]: fused L^-1 S^-1 tables, PI and PI^-1 (64 KiB + 512 bytes).
    KuznyechikInverse,
    /// [`aes_tables`]: T0 and the S-box (2 KiB).
    Aes,
}

impl TableId {
    /// The table's bytes as the kernels read them (little-endian words).
    pub(crate) fn bytes(self) -> Vec<u8> {
        match self {
            TableId::MagmaNibbles(sbox) => le_u32(&magma_nibble_tables(sbox)),
            TableId::KuznyechikLs => le_u64(&kuznyechik_tables()),
            TableId::KuznyechikConstants => le_u64(&kuznyechik_round_constants()),
            TableId::KuznyechikInverse => kuznyechik_inverse_tables(),
            TableId::Aes => le_u32(&aes_tables()),
        }
    }
}

fn le_u32(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn le_u64(words: &[u64]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The eight Magma nibble tables as 128 words: entry `16 p + v` is `(S_p(v) << 4p) <<< 11`, so the
/// round function is the XOR of one entry per nibble (the kernel replicates them per bank).
pub(crate) fn magma_nibble_tables(sbox: SBox) -> Vec<u32> {
    let rows = sbox.rows();
    let mut out = Vec::with_capacity(128);
    for (p, row) in rows.iter().enumerate() {
        for &s in row {
            out.push((u32::from(s) << (4 * p)).rotate_left(11));
        }
    }
    out
}

/// `#define MAGMA_ANF_j_m` masks: bit `4p` of mask (j, m) is the coefficient of monomial `m` (a subset
/// of the input bits, as a 4-bit mask) in the algebraic normal form of output bit `j` of S-box `p`.
pub(crate) fn magma_anf_defines(sbox: SBox) -> String {
    let rows = sbox.rows();
    let mut masks = [[0u32; 16]; 4];
    for (p, row) in rows.iter().enumerate() {
        for (j, mask_row) in masks.iter_mut().enumerate() {
            // Moebius transform of the truth table of output bit j.
            let mut anf: [u8; 16] = core::array::from_fn(|v| (row[v] >> j) & 1);
            for bit in 0..4 {
                for v in 0..16 {
                    if v & (1 << bit) != 0 {
                        anf[v] ^= anf[v ^ (1 << bit)];
                    }
                }
            }
            for (m, &coefficient) in anf.iter().enumerate() {
                mask_row[m] |= u32::from(coefficient) << (4 * p);
            }
        }
    }
    let mut out = String::new();
    for (j, row) in masks.iter().enumerate() {
        for (m, mask) in row.iter().enumerate() {
            out.push_str(&format!("#define MAGMA_ANF_{j}_{m} 0x{mask:08x}u\n"));
        }
    }
    out
}

/// K1..K8 as numbers (the key's big-endian words), the order the kernels expand.
pub(crate) fn magma_key_words(key: &[u8]) -> Result<Zeroizing<Vec<u32>>> {
    let key: &[u8; 32] = key.try_into().map_err(|_| Error::InvalidKeyLength {
        expected: "32",
        got: key.len(),
    })?;
    let round_keys = Zeroizing::new(magma::round_keys(key));
    Ok(Zeroizing::new(round_keys[..8].to_vec()))
}

/// The sixteen fused LS tables of Kuznyechik, `T[j][b] = L(S(b) in byte j)`, as pairs of
/// little-endian 64-bit words (byte order of the wire).
pub(crate) fn kuznyechik_tables() -> Vec<u64> {
    let mut out = Vec::with_capacity(16 * 256 * 2);
    for j in 0..16 {
        for b in 0..256 {
            let mut block = [0u8; 16];
            block[j] = kuznyechik::PI[b];
            let l = kuznyechik::transform_l(&block);
            out.extend(words_le(&l));
        }
    }
    out
}

/// The key-schedule constants C_1..C_32 (`C_i = L(Vec_128(i))`) as pairs of little-endian 64-bit
/// words in wire byte order, for the kernels that expand keys themselves.
pub(crate) fn kuznyechik_round_constants() -> Vec<u64> {
    (1..=32u8)
        .flat_map(|i| words_le(&kuznyechik::round_constant(i)))
        .collect()
}

/// The inverse of PI.
fn kuznyechik_pi_inv() -> [u8; 256] {
    let mut inv = [0u8; 256];
    for (x, &y) in kuznyechik::PI.iter().enumerate() {
        inv[usize::from(y)] = x as u8;
    }
    inv
}

/// Decryption tables: the sixteen fused tables `IT[j][b] = L^-1(PI^-1(b) in byte j)` (64 KiB, pairs of
/// little-endian words as [`kuznyechik_tables`]), then PI (256 bytes) and PI^-1 (256 bytes).
/// `L^-1(x)` is `XOR_j IT[j][PI(x_j)]`, which the kernels use for the inverse round keys.
pub(crate) fn kuznyechik_inverse_tables() -> Vec<u8> {
    let pi_inv = kuznyechik_pi_inv();
    let mut out = Vec::with_capacity(16 * 256 * 16 + 512);
    for j in 0..16 {
        for &s in &pi_inv {
            let mut block = [0u8; 16];
            block[j] = s;
            out.extend_from_slice(&kuznyechik::transform_l_inv(&block));
        }
    }
    out.extend_from_slice(&kuznyechik::PI);
    out.extend_from_slice(&pi_inv);
    out
}

/// The ten Kuznyechik round keys as 20 little-endian 64-bit words.
pub(crate) fn kuznyechik_round_keys(key: &[u8]) -> Result<Zeroizing<Vec<u64>>> {
    let cipher = Kuznyechik::new(key)?;
    let keys = Zeroizing::new(cipher.round_keys());
    Ok(Zeroizing::new(keys.iter().flat_map(words_le).collect()))
}

fn words_le(block: &[u8; 16]) -> [u64; 2] {
    let mut lo = [0u8; 8];
    let mut hi = [0u8; 8];
    lo.copy_from_slice(&block[..8]);
    hi.copy_from_slice(&block[8..]);
    [u64::from_le_bytes(lo), u64::from_le_bytes(hi)]
}

/// Multiplication in GF(2^8) modulo the AES polynomial.
fn gf_mul(mut a: u8, mut b: u8) -> u8 {
    let mut p = 0u8;
    while b != 0 {
        if b & 1 != 0 {
            p ^= a;
        }
        let carry = a & 0x80 != 0;
        a <<= 1;
        if carry {
            a ^= 0x1b;
        }
        b >>= 1;
    }
    p
}

/// The AES S-box, computed from its definition (inverse in GF(2^8), then the affine map).
fn aes_sbox() -> [u8; 256] {
    core::array::from_fn(|x| {
        let x = x as u8;
        // x^254 is the inverse (0 for 0).
        let mut inv = 1u8;
        for _ in 0..254 {
            inv = gf_mul(inv, x);
        }
        inv ^ inv.rotate_left(1)
            ^ inv.rotate_left(2)
            ^ inv.rotate_left(3)
            ^ inv.rotate_left(4)
            ^ 0x63
    })
}

/// T0 (bytes 2s, s, s, 3s as a little-endian word) followed by the S-box, 512 words.
pub(crate) fn aes_tables() -> Vec<u32> {
    let sbox = aes_sbox();
    let t0 = sbox
        .iter()
        .map(|&s| u32::from_le_bytes([gf_mul(s, 2), s, s, gf_mul(s, 3)]));
    t0.chain(sbox.iter().map(|&s| u32::from(s))).collect()
}

/// The FIPS 197 key expansion as little-endian column words, and the number of rounds.
pub(crate) fn aes_round_keys(key: &[u8]) -> Result<(Zeroizing<Vec<u32>>, u32)> {
    let nk = match key.len() {
        16 => 4,
        32 => 8,
        got => {
            return Err(Error::InvalidKeyLength {
                expected: "16 or 32",
                got,
            })
        }
    };
    let rounds = nk + 6;
    let sbox = aes_sbox();
    let sub_word = |w: u32| u32::from_le_bytes(w.to_le_bytes().map(|b| sbox[usize::from(b)]));
    let mut w = Zeroizing::new(Vec::with_capacity(4 * (rounds + 1)));
    for c in key.chunks_exact(4) {
        w.push(u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
    }
    let mut rcon = 1u8;
    for i in nk..4 * (rounds + 1) {
        let mut t = w[i - 1];
        if i % nk == 0 {
            t = sub_word(t.rotate_right(8)) ^ u32::from(rcon);
            rcon = gf_mul(rcon, 2);
        } else if nk > 6 && i % nk == 4 {
            t = sub_word(t);
        }
        let word = w[i - nk] ^ t;
        w.push(word);
    }
    Ok((w, rounds as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aes_sbox_known_entries() {
        // FIPS 197 figure 7: S(0x00) = 0x63, S(0x53) = 0xed, S(0xff) = 0x16.
        let s = aes_sbox();
        assert_eq!((s[0x00], s[0x53], s[0xff]), (0x63, 0xed, 0x16));
    }

    #[test]
    fn aes128_last_round_key_matches_fips197_appendix_a1() {
        let key = [
            0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6, 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf,
            0x4f, 0x3c,
        ];
        let (w, rounds) = aes_round_keys(&key).unwrap();
        assert_eq!(rounds, 10);
        // w[43] = b6630ca6 (big-endian print in FIPS 197).
        assert_eq!(
            w[43],
            u32::from_be_bytes([0xb6, 0x63, 0x0c, 0xa6]).swap_bytes()
        );
    }

    #[test]
    fn kuznyechik_inverse_tables_invert_the_fused_tables() {
        let forward = kuznyechik_tables();
        let inverse = kuznyechik_inverse_tables();
        let pi_inv = &inverse[16 * 256 * 16 + 256..];
        for (x, &y) in kuznyechik::PI.iter().enumerate() {
            assert_eq!(usize::from(pi_inv[usize::from(y)]), x);
        }
        // IT[j][T[j][b]'s byte-j input] undoes T: L^-1(L(S(b) in byte j)) = S(b) in byte j, and
        // IT[j][S(b)] = L^-1(b in byte j); checked through transform_l on whole blocks.
        for j in [0usize, 7, 15] {
            for b in [0usize, 1, 0x5a, 0xff] {
                let mut it = [0u8; 16];
                it.copy_from_slice(
                    &inverse[(j * 256 + usize::from(kuznyechik::PI[b])) * 16..][..16],
                );
                let mut unit = [0u8; 16];
                unit[j] = b as u8;
                assert_eq!(kuznyechik::transform_l(&it), unit, "IT[{j}][PI[{b}]]");
                let t = &forward[(j * 256 + b) * 2..][..2];
                let mut block = [0u8; 16];
                block[..8].copy_from_slice(&t[0].to_le_bytes());
                block[8..].copy_from_slice(&t[1].to_le_bytes());
                let mut s = [0u8; 16];
                s[j] = kuznyechik::PI[b];
                assert_eq!(kuznyechik::transform_l_inv(&block), s, "T[{j}][{b}]");
            }
        }
    }

    #[test]
    fn anf_masks_reproduce_the_sbox() {
        for sbox in SBox::ALL {
            let defines = magma_anf_defines(*sbox);
            let mut masks = [[0u32; 16]; 4];
            for line in defines.lines() {
                let parts: Vec<&str> = line.split_whitespace().collect();
                let name: Vec<usize> = parts[1]
                    .trim_start_matches("MAGMA_ANF_")
                    .split('_')
                    .map(|n| n.parse().unwrap())
                    .collect();
                let hex = parts[2].trim_start_matches("0x").trim_end_matches('u');
                masks[name[0]][name[1]] = u32::from_str_radix(hex, 16).unwrap();
            }
            for x in [0u32, 1, 0x12345678, 0xdeadbeef, 0xffffffff, 0x0f0f0f0f] {
                let mut y = 0u32;
                for (j, row) in masks.iter().enumerate() {
                    let mut bit = 0u32;
                    for (m, mask) in row.iter().enumerate() {
                        let mut mono = 0x1111_1111u32;
                        for b in 0..4 {
                            if m & (1 << b) != 0 {
                                mono &= (x >> b) & 0x1111_1111;
                            }
                        }
                        bit ^= mono & mask;
                    }
                    y |= bit << j;
                }
                assert_eq!(y, magma::transform_t(x, sbox), "{}", sbox.name());
            }
        }
    }
}
