//! Kuznyechik's constants (the S-box PI and the linear map's coefficients), GF(2^8) arithmetic, and
//! the fused substitution-plus-linear lookup tables of the portable backend, built on first use.

use std::sync::OnceLock;

/// The nonlinear bijection `pi` of GOST R 34.12-2015 / RFC 7801 §4.1: `PI[x]` substitutes byte `x`.
pub const PI: [u8; 256] = [
    252, 238, 221, 17, 207, 110, 49, 22, 251, 196, 250, 218, 35, 197, 4, 77, 233, 119, 240, 219,
    147, 46, 153, 186, 23, 54, 241, 187, 20, 205, 95, 193, 249, 24, 101, 90, 226, 92, 239, 33, 129,
    28, 60, 66, 139, 1, 142, 79, 5, 132, 2, 174, 227, 106, 143, 160, 6, 11, 237, 152, 127, 212,
    211, 31, 235, 52, 44, 81, 234, 200, 72, 171, 242, 42, 104, 162, 253, 58, 206, 204, 181, 112,
    14, 86, 8, 12, 118, 18, 191, 114, 19, 71, 156, 183, 93, 135, 21, 161, 150, 41, 16, 123, 154,
    199, 243, 145, 120, 111, 157, 158, 178, 177, 50, 117, 25, 61, 255, 53, 138, 126, 109, 84, 198,
    128, 195, 189, 13, 87, 223, 245, 36, 169, 62, 168, 67, 201, 215, 121, 214, 246, 124, 34, 185,
    3, 224, 15, 236, 222, 122, 148, 176, 188, 220, 232, 40, 80, 78, 51, 10, 74, 167, 151, 96, 115,
    30, 0, 98, 68, 26, 184, 56, 130, 100, 159, 38, 65, 173, 69, 70, 146, 39, 94, 85, 47, 140, 163,
    165, 125, 105, 213, 149, 59, 7, 88, 179, 64, 134, 172, 29, 247, 48, 55, 107, 228, 136, 217,
    231, 137, 225, 27, 131, 73, 76, 63, 248, 254, 141, 83, 170, 144, 202, 216, 133, 97, 32, 113,
    103, 164, 45, 43, 9, 91, 203, 155, 37, 208, 190, 229, 108, 82, 89, 166, 116, 210, 230, 244,
    180, 192, 209, 102, 175, 194, 57, 75, 99, 182,
];

/// The inverse of [`PI`], computed at compile time.
pub(crate) const PI_INV: [u8; 256] = invert(&PI);

const fn invert(p: &[u8; 256]) -> [u8; 256] {
    let mut inv = [0u8; 256];
    let mut x = 0;
    while x < 256 {
        inv[p[x] as usize] = x as u8;
        x += 1;
    }
    inv
}

/// Coefficients of the linear function `l(a_15, ..., a_0)` (RFC 7801 §4.2), in wire order:
/// `L_COEFFS[i]` multiplies byte `i` of the block as printed (byte 0 = a_15).
pub(crate) const L_COEFFS: [u8; 16] = [
    148, 32, 133, 16, 194, 192, 1, 251, 1, 192, 194, 16, 133, 32, 148, 1,
];

/// Multiplication in GF(2^8) modulo p(x) = x^8 + x^7 + x^6 + x + 1.
pub(crate) const fn gf_mul(mut a: u8, mut b: u8) -> u8 {
    let mut product = 0u8;
    while b != 0 {
        if b & 1 != 0 {
            product ^= a;
        }
        let carry = a & 0x80 != 0;
        a <<= 1;
        if carry {
            a ^= 0xc3;
        }
        b >>= 1;
    }
    product
}

/// One 256-entry table per block byte; a block is a big-endian `u128` (byte 0 most significant).
pub(crate) type ByteTables = [[u128; 256]; 16];

/// The fused tables: `encrypt[i][x] = L(S(x at byte i))` and `decrypt[i][x] = L^-1(S^-1(x at byte i))`,
/// so that `L(S(a)) = XOR_i encrypt[i][a_i]` and likewise for the inverse.
pub(crate) struct FusedTables {
    pub(crate) encrypt: Box<ByteTables>,
    pub(crate) decrypt: Box<ByteTables>,
}

/// The fused tables, built on first use from [`PI`] and the linear map.
pub(crate) fn fused() -> &'static FusedTables {
    static TABLES: OnceLock<FusedTables> = OnceLock::new();
    TABLES.get_or_init(|| FusedTables {
        encrypt: build(&PI, super::transform_l),
        decrypt: build(&PI_INV, super::transform_l_inv),
    })
}

/// `table[i][x] = linear(sbox[x] at byte i)`. The linear maps are GF(2^8)-linear, so the image of
/// `v` at byte `i` is `v` times the image of `1` at byte `i`, byte by byte.
fn build(sbox: &[u8; 256], linear: fn(&[u8; 16]) -> [u8; 16]) -> Box<ByteTables> {
    let mut tables = Box::new([[0u128; 256]; 16]);
    for (i, table) in tables.iter_mut().enumerate() {
        let mut unit = [0u8; 16];
        unit[i] = 1;
        let column = linear(&unit);
        for (entry, &s) in table.iter_mut().zip(sbox) {
            let mut bytes = [0u8; 16];
            for (b, &c) in bytes.iter_mut().zip(&column) {
                *b = gf_mul(s, c);
            }
            *entry = u128::from_be_bytes(bytes);
        }
    }
    tables
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pi_matches_rfc7801_record() {
        // kuznyechik-pi / RFC 7801 §4.1, as printed in /work/shared/vectors/gost.txt.
        let record = "fceedd11cf6e3116fbc4fada23c5044de977f0db932e99ba1736f1bb14cd5fc1f918655ae25cef21\
                      811c3c428b018e4f058402aee36a8fa0060bed987fd4d31feb342c51eac848abf22a68a2fd3aceccb5\
                      700e56080c7612bf7213479cb75d8715a19629107b9ac7f391786f9d9eb2b13275193dff358a7e6d54\
                      c680c3bd0d57dff524a93ea843c9d779d6f67c22b903e00fecde7a94b0bcdce828504e330a4aa79760\
                      731e0062441ab83882649f2641ad454692275e552f8ca3a57d69d5953b0758b34086ac1df730376be4\
                      88d9e789e11b83494c3ff8fe8d53aa90cad88561207167a42d2b095bcb9b25d0bee56c5259a674d2e6\
                      f4b4c0d166afc2394b63b6";
        assert_eq!(hex::encode(PI), record);
        for x in 0..=255u8 {
            assert_eq!(PI_INV[PI[x as usize] as usize], x);
        }
    }

    #[test]
    fn gf_mul_reduces_by_the_kuznyechik_polynomial() {
        // x^7 * x = x^8 = x^7 + x^6 + x + 1 = 0xc3.
        assert_eq!(gf_mul(0x80, 0x02), 0xc3);
        for a in 0..=255u8 {
            assert_eq!(gf_mul(a, 1), a);
            assert_eq!(gf_mul(1, a), a);
            assert_eq!(gf_mul(a, 0), 0);
        }
        // Every nonzero element has an inverse (the polynomial is irreducible).
        for a in 1..=255u8 {
            assert!((1..=255u8).any(|b| gf_mul(a, b) == 1), "{a}");
        }
    }
}
