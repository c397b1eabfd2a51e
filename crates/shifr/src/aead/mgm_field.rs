//! MGM's field arithmetic: the multilinear sum `sum H_i * X_i` in GF(2^64) mod
//! `x^64 + x^4 + x^3 + x + 1` or GF(2^128) mod `x^128 + x^7 + x^2 + x + 1`, blocks read as
//! big-endian polynomials.
//!
//! Reduction is linear, so the products of a whole message are summed unreduced (at most 255 bits,
//! a [`Wide`]) and reduced once, when the tag is computed: a block then costs only its carry-less
//! product and an XOR.
//!
//! Two multipliers, both constant time:
//! - portable: carry-less 32 x 32-bit products from integer multiplications of operands thinned to
//!   every fourth bit (the BearSSL `bmul32` technique), Karatsuba above that;
//! - PCLMULQDQ (`mgm_field_x86`, x86-64, chosen with [`Backend::AesNi`], whose CPU check includes
//!   PCLMULQDQ): the carry-less multiply instruction, whose timing does not depend on its operands;
//! - VPCLMULQDQ on 512-bit registers (`mgm_field_x86`, chosen with [`Backend::Avx512`] where the
//!   CPU has VPCLMULQDQ): four products per instruction, same timing property.

use crate::cpu::{self, Backend};

/// An unreduced sum of carry-less products: bits 0..=127 in `lo`, 128..=254 in `hi`. Sums over
/// parts of a message add (XOR) to the sum over the whole, which is how `crate::parallel` splits MGM.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq, zeroize::Zeroize)]
pub struct Wide {
    pub(super) lo: u128,
    pub(super) hi: u128,
}

impl Wide {
    pub(super) fn add(&mut self, other: Wide) {
        self.lo ^= other.lo;
        self.hi ^= other.hi;
    }
}

/// How the products are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Multiplier {
    Portable,
    /// A carry-less multiply instruction; only ever constructed after the CPU was found to have it.
    #[cfg(target_arch = "x86_64")]
    Clmul(super::mgm_field_x86::Clmul),
}

/// The multiplier backends on offer: PCLMULQDQ under [`Backend::AesNi`] (whose CPU check includes
/// it), 512-bit VPCLMULQDQ under [`Backend::Avx512`] (where the CPU also has VPCLMULQDQ).
const OFFERED: &[Backend] = &[Backend::AesNi, Backend::Avx512];

impl Multiplier {
    /// The fastest multiplier this CPU has, or the one `SHIFR_BACKEND` forces.
    pub(super) fn select() -> Multiplier {
        Multiplier::for_backend(cpu::select(OFFERED))
    }

    /// The multiplier for `backend`: VPCLMULQDQ for [`Backend::Avx512`] where the CPU has it,
    /// PCLMULQDQ for [`Backend::AesNi`] (and for `Avx512` without VPCLMULQDQ), portable otherwise.
    pub(super) fn for_backend(backend: Backend) -> Multiplier {
        #[cfg(target_arch = "x86_64")]
        {
            use super::mgm_field_x86::Clmul;
            if backend == Backend::Avx512
                && backend.is_supported()
                && Clmul::Vpclmul512.is_supported()
            {
                return Multiplier::Clmul(Clmul::Vpclmul512);
            }
            let pclmul = Backend::AesNi.is_supported() && Clmul::Pclmul.is_supported();
            if matches!(backend, Backend::AesNi | Backend::Avx512) && pclmul {
                return Multiplier::Clmul(Clmul::Pclmul);
            }
        }
        let _ = backend;
        Multiplier::Portable
    }

    /// `acc += sum_i H_i * X_i`, unreduced, over the `n`-byte blocks of `h` and `x` (`n` is 8 or 16;
    /// blocks beyond the shorter of the two slices, and a trailing partial block, are ignored).
    pub(super) fn mul_sum(self, n: usize, h: &[u8], x: &[u8], acc: &mut Wide) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Multiplier::Clmul(clmul) => {
                if super::mgm_field_x86::mul_sum(clmul, n, h, x, acc) {
                    return;
                }
                portable_mul_sum(n, h, x, acc)
            }
            Multiplier::Portable => portable_mul_sum(n, h, x, acc),
        }
    }
}

/// Reads an 8-byte big-endian block.
pub(super) fn be64(b: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[..8]);
    u64::from_be_bytes(w)
}

/// Reads a 16-byte big-endian block.
pub(super) fn be128(b: &[u8]) -> u128 {
    let mut w = [0u8; 16];
    w.copy_from_slice(&b[..16]);
    u128::from_be_bytes(w)
}

fn portable_mul_sum(n: usize, h: &[u8], x: &[u8], acc: &mut Wide) {
    let pairs = h.chunks_exact(n).zip(x.chunks_exact(n));
    if n == 16 {
        for (hb, xb) in pairs {
            acc.add(clmul128(be128(hb), be128(xb)));
        }
    } else {
        for (hb, xb) in pairs {
            acc.lo ^= clmul64(be64(hb), be64(xb));
        }
    }
}

/// Reduces an unreduced sum in GF(2^(8n)); the result is in the low `8n` bits.
pub(super) fn reduce(n: usize, acc: Wide) -> u128 {
    if n == 16 {
        reduce128(acc)
    } else {
        u128::from(reduce64(acc.lo))
    }
}

/// Carry-less product of two 32-bit polynomials, constant time: integer multiplications of operands
/// thinned to every fourth bit, so that at most 8 terms meet at any bit position and carries can never
/// reach the next bit of the same residue class.
fn clmul32(x: u32, y: u32) -> u64 {
    const M: [u64; 4] = [
        0x1111_1111_1111_1111,
        0x2222_2222_2222_2222,
        0x4444_4444_4444_4444,
        0x8888_8888_8888_8888,
    ];
    let (x, y) = (u64::from(x), u64::from(y));
    let xs = [x & M[0], x & M[1], x & M[2], x & M[3]];
    let ys = [y & M[0], y & M[1], y & M[2], y & M[3]];
    let mut z = 0u64;
    for (r, mask) in M.iter().enumerate() {
        // Terms x_a * y_b with a + b = r (mod 4) land on bits of residue r.
        let mut acc = 0u64;
        for (a, xa) in xs.iter().enumerate() {
            acc ^= xa.wrapping_mul(ys[(4 + r - a) % 4]);
        }
        z |= acc & mask;
    }
    z
}

/// Carry-less 64 x 64 -> 127-bit product (Karatsuba over [`clmul32`]).
fn clmul64(x: u64, y: u64) -> u128 {
    let (x0, x1) = (x as u32, (x >> 32) as u32);
    let (y0, y1) = (y as u32, (y >> 32) as u32);
    let lo = clmul32(x0, y0);
    let hi = clmul32(x1, y1);
    let mid = clmul32(x0 ^ x1, y0 ^ y1) ^ lo ^ hi;
    (u128::from(hi) << 64) ^ (u128::from(mid) << 32) ^ u128::from(lo)
}

/// Carry-less 128 x 128 -> 255-bit product (Karatsuba over [`clmul64`]).
fn clmul128(a: u128, b: u128) -> Wide {
    let (a0, a1) = (a as u64, (a >> 64) as u64);
    let (b0, b1) = (b as u64, (b >> 64) as u64);
    let lo = clmul64(a0, b0);
    let hi = clmul64(a1, b1);
    let mid = clmul64(a0 ^ a1, b0 ^ b1) ^ lo ^ hi;
    Wide {
        lo: lo ^ (mid << 64),
        hi: hi ^ (mid >> 64),
    }
}

/// Reduces a 255-bit product mod `x^128 + x^7 + x^2 + x + 1`.
fn reduce128(p: Wide) -> u128 {
    let (low, high) = (p.lo, p.hi);
    // x^128 = x^7 + x^2 + x + 1: fold `high` in, then the at most 7 bits that overflow once more.
    let over = (high >> 127) ^ (high >> 126) ^ (high >> 121);
    low ^ high
        ^ (high << 1)
        ^ (high << 2)
        ^ (high << 7)
        ^ over
        ^ (over << 1)
        ^ (over << 2)
        ^ (over << 7)
}

/// Reduces a 127-bit product mod `x^64 + x^4 + x^3 + x + 1`.
fn reduce64(product: u128) -> u64 {
    let (low, high) = (product as u64, (product >> 64) as u64);
    // x^64 = x^4 + x^3 + x + 1.
    let over = (high >> 63) ^ (high >> 61) ^ (high >> 60);
    low ^ high
        ^ (high << 1)
        ^ (high << 3)
        ^ (high << 4)
        ^ over
        ^ (over << 1)
        ^ (over << 3)
        ^ (over << 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gf128_mul(a: u128, b: u128) -> u128 {
        reduce128(clmul128(a, b))
    }

    fn gf64_mul(a: u64, b: u64) -> u64 {
        reduce64(clmul64(a, b))
    }

    /// Bit-serial reference multiplication (shift-and-add), for checking the fast one.
    fn reference_mul(a: u128, b: u128, bits: u32, poly: u128) -> u128 {
        let top = 1u128 << (bits - 1);
        let mask = if bits == 128 {
            u128::MAX
        } else {
            (1u128 << bits) - 1
        };
        let mut acc = 0u128;
        let mut v = a;
        for i in 0..bits {
            if (b >> i) & 1 == 1 {
                acc ^= v;
            }
            let carry = v & top != 0;
            v = (v << 1) & mask;
            if carry {
                v ^= poly;
            }
        }
        acc
    }

    /// A fixed pseudo-random sequence (xorshift) plus edge values.
    fn values() -> Vec<u128> {
        let mut state = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834u128;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut values = vec![0u128, 1, 2, u128::MAX, 1 << 127, 0x87, u128::MAX >> 1];
        values.extend((0..300).map(|_| next()));
        values
    }

    #[test]
    fn fast_multiplication_matches_bit_serial() {
        let values = values();
        for &a in &values {
            for &b in values.iter().take(40) {
                assert_eq!(
                    gf128_mul(a, b),
                    reference_mul(a, b, 128, 0x87),
                    "{a:x} {b:x}"
                );
                let (a64, b64) = (a as u64, b as u64);
                assert_eq!(
                    u128::from(gf64_mul(a64, b64)),
                    reference_mul(a64.into(), b64.into(), 64, 0x1b),
                    "{a64:x} {b64:x}"
                );
            }
        }
    }

    #[test]
    fn field_multiplication_basics() {
        // x * x^127 = x^128 = x^7 + x^2 + x + 1.
        assert_eq!(gf128_mul(2, 1u128 << 127), 0x87);
        assert_eq!(gf64_mul(2, 1u64 << 63), 0x1b);
        let a = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128;
        let b = 0xdead_beef_0bad_f00d_1234_5678_9abc_def0u128;
        assert_eq!(gf128_mul(a, 1), a);
        assert_eq!(gf128_mul(a, b), gf128_mul(b, a));
        assert_eq!(gf64_mul(a as u64, b as u64), gf64_mul(b as u64, a as u64));
        let c = 0x55aa_55aa_0f0f_f0f0_3c3c_c3c3_1111_8888u128;
        assert_eq!(gf128_mul(a, b ^ c), gf128_mul(a, b) ^ gf128_mul(a, c));
    }

    /// The reduced unreduced sum equals the sum of reduced products (bit-serial reference), for
    /// every multiplier this CPU has, both field sizes and every count of blocks up to 40.
    #[test]
    fn sums_match_bit_serial_reference_on_every_multiplier() {
        let values = values();
        let mut multipliers = vec![Multiplier::Portable];
        for backend in [Backend::AesNi, Backend::Avx512] {
            let m = Multiplier::for_backend(backend);
            if !multipliers.contains(&m) {
                multipliers.push(m);
            }
        }
        for n in [8usize, 16] {
            let (bits, poly) = if n == 16 { (128, 0x87) } else { (64, 0x1b) };
            let mask = if n == 16 {
                u128::MAX
            } else {
                u128::from(u64::MAX)
            };
            for count in (0..40).chain([64, 67, 130]) {
                let hs: Vec<u128> = (0..count).map(|i| values[i] & mask).collect();
                let xs: Vec<u128> = (0..count).map(|i| values[i + 100] & mask).collect();
                let to_bytes = |v: &[u128]| -> Vec<u8> {
                    v.iter()
                        .flat_map(|x| x.to_be_bytes()[16 - n..].to_vec())
                        .collect()
                };
                let (hb, xb) = (to_bytes(&hs), to_bytes(&xs));
                let expected = hs
                    .iter()
                    .zip(&xs)
                    .fold(0u128, |s, (&h, &x)| s ^ reference_mul(h, x, bits, poly));
                for &m in &multipliers {
                    let mut acc = Wide::default();
                    // Split into two calls to check that sums continue across calls.
                    let split = (count / 3) * n;
                    m.mul_sum(n, &hb[..split], &xb[..split], &mut acc);
                    m.mul_sum(n, &hb[split..], &xb[split..], &mut acc);
                    assert_eq!(reduce(n, acc), expected, "{m:?} n={n} count={count}");
                }
            }
        }
    }
}
