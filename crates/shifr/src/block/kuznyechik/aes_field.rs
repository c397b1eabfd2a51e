//! Kuznyechik's field carried into the field the x86 GFNI instructions compute in, and the constants
//! the constant-time GFNI backend derives from that change of basis. Plain Rust, run once.
//!
//! Kuznyechik multiplies in GF(2^8) modulo x^8 + x^7 + x^6 + x + 1; `GF2P8MULB` multiplies modulo AES's
//! x^8 + x^4 + x^3 + x + 1. Both are GF(2^8), so there is a field isomorphism `phi`: it sends `alpha` (the
//! class of x, a root of Kuznyechik's modulus) to a root `beta` of that same polynomial in the AES field, and
//! `alpha^k` to `beta^k`. `phi` is GF(2)-linear — an 8x8 bit matrix, applied to every byte with
//! `GF2P8AFFINEQB` — and multiplicative. So the whole cipher can run on `phi`-images: key addition stays
//! XOR (with `phi`-mapped round keys), the S-box becomes the 256-byte table `phi . pi . phi^-1`, and each
//! coefficient `c` of the linear map becomes `phi(c)`, multiplied with `GF2P8MULB`.

use std::sync::OnceLock;

use super::tables::{L_COEFFS, PI, PI_INV};
use super::{transform_l, transform_l_inv};

/// Everything the GFNI backend needs, in the `phi` basis.
pub(crate) struct GfniConstants {
    /// `phi . pi . phi^-1`.
    pub(crate) sbox: [u8; 256],
    /// `phi . pi^-1 . phi^-1`.
    pub(crate) sbox_inv: [u8; 256],
    /// L in the diagonal form of the lane-per-block kernel, see [`diagonals`].
    pub(crate) l_diagonals: [[u8; 16]; 16],
    /// The same for `L^-1`.
    pub(crate) l_inv_diagonals: [[u8; 16]; 16],
    /// `phi` of the coefficients of `l` (RFC 7801 §4.2), in wire order, for `L = R^16`.
    pub(crate) l_coeffs: [u8; 16],
    /// [`sliced_key`] of the unit vectors: `sliced_columns[j]` is the form of a key whose byte `j`
    /// is 1 and every other byte 0. The form is linear over the AES field, so a key's form is the
    /// sum of its bytes times these columns.
    pub(crate) sliced_columns: [[u8; 16]; 16],
    /// L as a matrix over the AES field: `l_columns[j][i]` multiplies block byte `j` into output
    /// byte `i` (wire order).
    pub(crate) l_columns: [[u8; 16]; 16],
    /// `GF2P8AFFINEQB` matrix of `phi`.
    pub(crate) to_aes: u64,
    /// `GF2P8AFFINEQB` matrix of `phi^-1`.
    pub(crate) from_aes: u64,
    /// The one-block chained kernel's form of L (`x86_avx512_gfni_chain`), see [`Spread`].
    pub(crate) spread: Spread,
    /// The same for `L^-1`, for the one-block decryption.
    pub(crate) spread_inv: Spread,
}

/// L (or `L^-1`) as four 64-byte products for one block in the *spread* layout: byte position `p` of a 512-bit
/// register (128-bit lane `p / 16`, dword `p / 4 % 4`, byte `p % 4`) stands for block byte
/// [`spread_byte`]`(p) = 4 * (p / 16) + p % 4`, so every block byte appears in the four dwords of one
/// lane. Register `t`, position `p` (dword `d`) multiplies block byte `j = 4t + d` by the coefficient of
/// L that carries `j` into byte `spread_byte(p)`; XORing the four products and then the four dwords of
/// each lane sums all sixteen terms of every output byte, leaving the result spread again.
pub(crate) struct Spread {
    /// `VPERMB` indices: position `p` of gather `t` reads block byte `4t + d` from its home position.
    pub(crate) gather: [[u8; 64]; 4],
    /// `phi`-mapped coefficients of L matching `gather`.
    pub(crate) columns: [[u8; 64]; 4],
    /// `VPERMB` indices taking a block in bytes 0..16 to the spread layout.
    pub(crate) expand: [u8; 64],
    /// `VPERMB` indices taking the spread layout back to a block in bytes 0..16.
    pub(crate) compact: [u8; 64],
}

/// The block byte that spread position `p` stands for.
pub(crate) const fn spread_byte(p: usize) -> usize {
    4 * (p / 16) + p % 4
}

/// The spread positions that are home positions (dword 0 of every lane), as a byte mask.
pub(crate) const SPREAD_HOMES: u64 = 0x000f_000f_000f_000f;

/// The home position of block byte `j` in the spread layout (dword 0 of its lane).
const fn spread_home(j: usize) -> usize {
    16 * (j / 4) + j % 4
}

impl Spread {
    fn new(l_columns: &[[u8; 16]; 16]) -> Spread {
        let term = |t: usize, p: usize| 4 * t + p / 4 % 4;
        Spread {
            gather: core::array::from_fn(|t| {
                core::array::from_fn(|p| spread_home(term(t, p)) as u8)
            }),
            columns: core::array::from_fn(|t| {
                core::array::from_fn(|p| l_columns[term(t, p)][spread_byte(p)])
            }),
            expand: core::array::from_fn(|p| spread_byte(p) as u8),
            compact: core::array::from_fn(|p| spread_home(p % 16) as u8),
        }
    }
}

/// A round key (already `phi`-mapped) in the spread layout: in every dword when `everywhere` (added
/// on its own), else in dword 0 of each lane only (added before the dword sum of L, which then
/// carries it to every dword).
pub(crate) fn spread_key(key: &[u8; 16], everywhere: bool) -> [u8; 64] {
    core::array::from_fn(|p| {
        if everywhere || p / 4 % 4 == 0 {
            key[spread_byte(p)]
        } else {
            0
        }
    })
}

/// Multiplication modulo the AES polynomial x^8 + x^4 + x^3 + x + 1.
const fn aes_mul(mut a: u8, mut b: u8) -> u8 {
    let mut product = 0u8;
    while b != 0 {
        if b & 1 != 0 {
            product ^= a;
        }
        let carry = a & 0x80 != 0;
        a <<= 1;
        if carry {
            a ^= 0x1b;
        }
        b >>= 1;
    }
    product
}

/// The map `phi` as a 256-entry table and its inverse.
struct Isomorphism {
    forward: [u8; 256],
    inverse: [u8; 256],
}

impl Isomorphism {
    fn new() -> Isomorphism {
        // The smallest root of Kuznyechik's modulus in the AES field: b^8 + b^7 + b^6 + b + 1 = 0.
        let beta = (2..=255u8)
            .find(|&b| {
                let mut powers = [1u8; 9];
                for k in 1..9 {
                    powers[k] = aes_mul(powers[k - 1], b);
                }
                powers[8] ^ powers[7] ^ powers[6] ^ powers[1] ^ powers[0] == 0
            })
            .expect("an irreducible polynomial of degree 8 has roots in every GF(2^8)");
        let mut beta_powers = [1u8; 8];
        for k in 1..8 {
            beta_powers[k] = aes_mul(beta_powers[k - 1], beta);
        }
        let mut forward = [0u8; 256];
        let mut inverse = [0u8; 256];
        for x in 0..=255u8 {
            let image = (0..8)
                .filter(|k| x >> k & 1 != 0)
                .fold(0, |acc, k| acc ^ beta_powers[k]);
            forward[x as usize] = image;
            inverse[image as usize] = x;
        }
        Isomorphism { forward, inverse }
    }

    fn phi(&self, x: u8) -> u8 {
        self.forward[x as usize]
    }

    fn phi_inv(&self, x: u8) -> u8 {
        self.inverse[x as usize]
    }
}

/// The `GF2P8AFFINEQB` operand for a GF(2)-linear byte map `f`: byte `7 - i` of the qword holds the row
/// for output bit `i` (Intel SDM, GF2P8AFFINEQB: `out[i] = parity(A.byte[7 - i] & x)`).
fn affine_matrix(f: impl Fn(u8) -> u8) -> u64 {
    let mut matrix = 0u64;
    for i in 0..8 {
        let row = (0..8)
            .filter(|&k| f(1 << k) >> i & 1 != 0)
            .fold(0u64, |acc, k| acc | 1 << k);
        matrix |= row << (8 * (7 - i));
    }
    matrix
}

/// A linear map given by its `columns` (as [`columns`] builds them) in baby-step giant-step
/// diagonal form. With `rot_k(x)_i = x_{(i + k) mod 16}` (a byte rotation of the block towards byte 0)
/// and the diagonals `D_k[i] = M[i][(i + k) mod 16]` of the matrix `M[i][j] = columns[j][i]`,
/// `M x = XOR_k D_k * rot_k(x)`. Splitting `k = 4g + b` and moving `rot_4g` out of each group,
/// `M x = XOR_g rot_4g(XOR_b E_{4g+b} * rot_b(x))` with `E_{4g+b} = rot_-4g(D_{4g+b})`, which this
/// returns at index `4g + b`: three byte rotations of `x` (b = 1, 2, 3) and three dword rotations of
/// partial sums replace one byte broadcast per column.
pub(crate) fn diagonals(columns: &[[u8; 16]; 16]) -> [[u8; 16]; 16] {
    core::array::from_fn(|k| {
        let (g, b) = (k / 4, k % 4);
        core::array::from_fn(|i| {
            let row = (i + 16 - 4 * g) % 16;
            columns[(row + 4 * g + b) % 16][row]
        })
    })
}

/// `phi(f(e_j))` for every unit block `e_j`: byte `i` of column `j` multiplies block byte `j` into
/// output byte `i` (wire order).
fn columns(iso: &Isomorphism, linear: fn(&[u8; 16]) -> [u8; 16]) -> [[u8; 16]; 16] {
    core::array::from_fn(|j| {
        let mut unit = [0u8; 16];
        unit[j] = 1;
        linear(&unit).map(|c| iso.phi(c))
    })
}

/// The constants, built on first use.
pub(crate) fn gfni_constants() -> &'static GfniConstants {
    static CONSTANTS: OnceLock<GfniConstants> = OnceLock::new();
    CONSTANTS.get_or_init(|| {
        let iso = Isomorphism::new();
        let l_columns = columns(&iso, transform_l);
        let l_inv_columns = columns(&iso, transform_l_inv);
        let l_coeffs = L_COEFFS.map(|c| iso.phi(c));
        GfniConstants {
            spread: Spread::new(&l_columns),
            spread_inv: Spread::new(&l_inv_columns),
            sbox: core::array::from_fn(|x| iso.phi(PI[iso.phi_inv(x as u8) as usize])),
            sbox_inv: core::array::from_fn(|x| iso.phi(PI_INV[iso.phi_inv(x as u8) as usize])),
            l_diagonals: diagonals(&l_columns),
            l_inv_diagonals: diagonals(&l_inv_columns),
            l_coeffs,
            sliced_columns: core::array::from_fn(|j| {
                let mut unit = [0u8; 16];
                unit[j] = 1;
                sliced_key_with(&l_coeffs, &unit)
            }),
            l_columns,
            to_aes: affine_matrix(|x| iso.phi(x)),
            from_aes: affine_matrix(|x| iso.phi_inv(x)),
        }
    })
}

/// The round key `key` (AES-field basis) in the form the byte-sliced kernel adds it during L: the
/// sixteen steps of `L = R^16` each make one new byte `l(window)`, and step `t` makes output byte
/// `15 - t`. Adding `key[15 - t]` to that byte as it is made changes the windows of the later steps,
/// so each step adds `d[t] = key[15 - t] ^ l(window made of the key bytes added so far)`, which
/// gives `L(x) ^ key` after the sixteenth step (l is linear). The reference for the kernel's key
/// setup, which sums [`GfniConstants::sliced_columns`] with `GF2P8MULB` instead.
#[cfg(test)]
pub(crate) fn sliced_key(key: &[u8; 16]) -> [u8; 16] {
    sliced_key_with(&gfni_constants().l_coeffs, key)
}

/// [`sliced_key`] with the coefficients of `l` given (`coeffs`, AES-field basis). 256 scalar
/// products: for the constants, once per process.
fn sliced_key_with(coeffs: &[u8; 16], key: &[u8; 16]) -> [u8; 16] {
    let mut window = [0u8; 16];
    core::array::from_fn(|t| {
        let made = window
            .iter()
            .zip(coeffs)
            .fold(0, |acc, (&x, &c)| acc ^ aes_mul(x, c));
        let want = key[15 - t];
        window.copy_within(..15, 1);
        window[0] = want;
        want ^ made
    })
}

/// `phi` applied to every byte of a block (for the round keys).
pub(crate) fn to_aes_basis(block: &[u8; 16]) -> [u8; 16] {
    static ISO: OnceLock<Isomorphism> = OnceLock::new();
    let iso = ISO.get_or_init(Isomorphism::new);
    block.map(|b| iso.phi(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::kuznyechik::tables::gf_mul;

    /// `GF2P8AFFINEQB` on one byte with a zero constant, from the instruction's definition.
    fn affine(matrix: u64, x: u8) -> u8 {
        (0..8).fold(0, |acc, i| {
            let row = (matrix >> (8 * (7 - i))) as u8;
            acc | (((row & x).count_ones() & 1) as u8) << i
        })
    }

    #[test]
    fn phi_is_a_field_isomorphism() {
        let iso = Isomorphism::new();
        for a in 0..=255u8 {
            assert_eq!(iso.phi_inv(iso.phi(a)), a);
            for b in 0..=255u8 {
                assert_eq!(iso.phi(gf_mul(a, b)), aes_mul(iso.phi(a), iso.phi(b)));
                assert_eq!(iso.phi(a ^ b), iso.phi(a) ^ iso.phi(b));
            }
        }
    }

    #[test]
    fn affine_matrices_apply_phi_and_its_inverse() {
        let iso = Isomorphism::new();
        let c = gfni_constants();
        for x in 0..=255u8 {
            assert_eq!(affine(c.to_aes, x), iso.phi(x));
            assert_eq!(affine(c.from_aes, x), iso.phi_inv(x));
        }
    }

    #[test]
    fn mapped_l_coefficients_keep_the_symmetry_the_sliced_kernel_uses() {
        // l's coefficients are a palindrome over bytes 0..=14 with 1 in the middle and last:
        // the byte-sliced kernel adds those pairs before multiplying.
        let c = gfni_constants().l_coeffs;
        for j in 0..7 {
            assert_eq!(c[j], c[14 - j], "{j}");
        }
        assert_eq!((c[7], c[15]), (Isomorphism::new().phi(251), 1));
        assert_eq!(c[6], 1);
    }

    #[test]
    fn spread_products_sum_to_l_and_its_inverse() {
        // The spread form of L (and of L^-1), evaluated byte by byte: products, the XOR of the four
        // registers, the XOR of the four dwords of each lane; every position must hold its byte of
        // L(x).
        let iso = Isomorphism::new();
        let c = gfni_constants();
        let forms = [
            (&c.spread, transform_l as fn(&[u8; 16]) -> [u8; 16]),
            (&c.spread_inv, transform_l_inv),
        ];
        for (form, reference) in forms {
            for seed in 0..8u8 {
                let x: [u8; 16] =
                    core::array::from_fn(|i| (i as u8 ^ seed).wrapping_mul(59) ^ 0x1e);
                let mapped = x.map(|b| iso.phi(b));
                let spread: [u8; 64] = core::array::from_fn(|p| mapped[form.expand[p] as usize]);
                let mut sum = [0u8; 64];
                for (gather, cols) in form.gather.iter().zip(&form.columns) {
                    for p in 0..64 {
                        sum[p] ^= aes_mul(spread[gather[p] as usize], cols[p]);
                    }
                }
                let want = reference(&x);
                for p in 0..64 {
                    let lane = p / 16 * 16;
                    let total = (0..4).fold(0, |acc, d| acc ^ sum[lane + 4 * d + p % 4]);
                    assert_eq!(iso.phi_inv(total), want[spread_byte(p)], "{seed} {p}");
                }
                let back: [u8; 16] = core::array::from_fn(|i| spread[form.compact[i] as usize]);
                assert_eq!(back, mapped);
            }
        }
    }

    /// `rot_k` of [`diagonals`]: byte `i` of the result is byte `(i + k) mod 16` of `x`.
    fn rot(x: &[u8; 16], k: usize) -> [u8; 16] {
        core::array::from_fn(|i| x[(i + k) % 16])
    }

    #[test]
    fn diagonal_form_computes_l_and_its_inverse() {
        // Evaluated byte by byte as the lane-per-block kernel does, in the phi basis: the baby
        // rotations, the products, and the giant rotations of the four partial sums.
        let iso = Isomorphism::new();
        let c = gfni_constants();
        let forms = [
            (&c.l_diagonals, transform_l as fn(&[u8; 16]) -> [u8; 16]),
            (&c.l_inv_diagonals, transform_l_inv),
        ];
        for (diagonals, reference) in forms {
            for seed in 0..32u8 {
                let x: [u8; 16] =
                    core::array::from_fn(|i| (i as u8 ^ seed).wrapping_mul(167).wrapping_add(seed));
                let mapped = x.map(|b| iso.phi(b));
                let mut sum = [0u8; 16];
                for g in 0..4 {
                    let mut part = [0u8; 16];
                    for b in 0..4 {
                        let y = rot(&mapped, b);
                        for i in 0..16 {
                            part[i] ^= aes_mul(diagonals[4 * g + b][i], y[i]);
                        }
                    }
                    for (s, p) in sum.iter_mut().zip(rot(&part, 4 * g)) {
                        *s ^= p;
                    }
                }
                assert_eq!(sum.map(|b| iso.phi_inv(b)), reference(&x), "{seed}");
            }
        }
    }

    #[test]
    fn mapped_round_matches_reference_round() {
        // L(S(x)) computed in the phi basis with the mapped tables equals the reference transforms.
        let iso = Isomorphism::new();
        let c = gfni_constants();
        let x: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(37) ^ 0xa5);
        let s = x.map(|b| c.sbox[iso.phi(b) as usize]);
        let mut y = [0u8; 16];
        for (j, column) in columns(&iso, transform_l).iter().enumerate() {
            for (out, &coeff) in y.iter_mut().zip(column) {
                *out ^= aes_mul(coeff, s[j]);
            }
        }
        let want = transform_l(&super::super::transform_s(&x));
        assert_eq!(y.map(|b| iso.phi_inv(b)), want);
        let back = x.map(|b| c.sbox_inv[c.sbox[iso.phi(b) as usize] as usize]);
        assert_eq!(back.map(|b| iso.phi_inv(b)), x);
    }
}
