//! Small helpers shared by the modes: XOR of byte slices, the shift of a feedback register (and the
//! register carried over a decryption in place), and a
//! constant-time comparison.

use crate::Result;

/// `dst[i] ^= src[i]` for `i < min(dst.len(), src.len())`.
#[inline]
pub fn xor_in_place(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d ^= *s;
    }
}

/// `register` becomes the last `register.len()` bytes of `register || text`: the shift register of
/// CBC and CFB after `text` (ciphertext) has gone through it. (Public for callers that keep such a
/// register themselves, e.g. the benchmark's chained decryption.)
#[inline]
pub fn shift_in(register: &mut [u8], text: &[u8]) {
    let m = register.len();
    if text.len() >= m {
        let tail = &text[text.len() - m..];
        // One copy for the usual one-block registers: a slice copy of run-time length is a
        // `memcpy` call, and a register written piecewise and then read whole waits for the
        // pieces (no store forwarding).
        if let (Ok(r), Ok(t)) = (
            <&mut [u8; 16]>::try_from(&mut *register),
            <&[u8; 16]>::try_from(tail),
        ) {
            *r = *t;
        } else if let (Ok(r), Ok(t)) = (
            <&mut [u8; 8]>::try_from(&mut *register),
            <&[u8; 8]>::try_from(tail),
        ) {
            *r = *t;
        } else {
            register.copy_from_slice(tail);
        }
    } else {
        register.copy_within(text.len().., 0);
        register[m - text.len()..].copy_from_slice(text);
    }
}

/// `r` shifted one byte towards the front with `byte` appended: one step of CFB8's register. On
/// x86-64 the new register is made in a vector register and written with one 16-byte store, so
/// that a 16-byte read of it right after is served from the store (a register written as several
/// smaller stores and then read whole is not, and the read waits for the stores to reach the cache).
#[inline(always)]
pub(crate) fn shift_byte_in(r: &mut [u8; 16], byte: u8) {
    #[cfg(target_arch = "x86_64")]
    crate::x86_shift::shift_byte_in(r, byte);
    #[cfg(not(target_arch = "x86_64"))]
    {
        *r = ((u128::from_be_bytes(*r) << 8) | u128::from(byte)).to_be_bytes();
    }
}

/// Compares two byte strings in time that depends only on their lengths.
/// Returns `false` at once if the lengths differ (lengths are public).
pub fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut diff = 0u8;
    for (x, y) in a.iter().zip(b) {
        diff |= x ^ y;
    }
    // Keep the optimiser from turning the accumulation into an early exit.
    core::hint::black_box(diff) == 0
}

/// Decryption of a feedback mode whose register shifts in the ciphertext, the input: the next
/// register (the last `m` bytes of `register || data`) is taken before `step` decrypts in place.
pub(crate) fn carry_input(
    register: &mut [u8],
    data: &mut [u8],
    step: impl FnOnce(&[u8], &mut [u8]) -> Result<()>,
) -> Result<()> {
    // Registers of up to four 128-bit blocks stay on the stack (no allocation per message).
    let mut stack = [0u8; 64];
    let mut heap = Vec::new();
    let next: &mut [u8] = match stack.get_mut(..register.len()) {
        Some(s) => s,
        None => {
            heap.resize(register.len(), 0);
            &mut heap
        }
    };
    next.copy_from_slice(register);
    shift_in(next, data);
    step(register, data)?;
    register.copy_from_slice(next);
    Ok(())
}

/// Fills `out` with `x^1, x^2, ...` under `mul`, a field multiplication (exact, so the grouping
/// does not change a bit of the result): power `m` is the product of powers `ceil(m/2)` and
/// `floor(m/2)`, so the longest chain of dependent products is `ceil(log2 n)` long instead of
/// `n - 1`, and the others overlap it in the core. Hash key setup (GHASH's powers of `H`) is such a
/// chain of carry-less multiplications.
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(dead_code)
)]
pub(crate) fn powers(x: u128, out: &mut [u128], mul: impl Fn(u128, u128) -> u128) {
    for k in 0..out.len() {
        let m = k + 1;
        out[k] = if m == 1 {
            x
        } else {
            mul(out[m.div_ceil(2) - 1], out[m / 2 - 1])
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powers_by_halves_are_the_successive_powers() {
        // Multiplication mod a prime stands in for the field: exact and associative.
        const P: u128 = (1 << 61) - 1;
        let mul = |a: u128, b: u128| a * b % P;
        let mut out = [0u128; 33];
        super::powers(123_456_789, &mut out, mul);
        let mut want = 1u128;
        for (k, got) in out.iter().enumerate() {
            want = mul(want, 123_456_789);
            assert_eq!(*got, want, "power {}", k + 1);
        }
    }

    #[test]
    fn ct_eq_compares_contents_and_lengths() {
        assert!(ct_eq(b"abc", b"abc"));
        assert!(!ct_eq(b"abc", b"abd"));
        assert!(!ct_eq(b"abc", b"ab"));
        assert!(ct_eq(b"", b""));
    }

    #[test]
    fn shift_in_keeps_the_last_register_bytes() {
        let mut r = [1u8, 2, 3, 4];
        shift_in(&mut r, &[9]);
        assert_eq!(r, [2, 3, 4, 9]);
        shift_in(&mut r, &[5, 6, 7, 8, 10, 11]);
        assert_eq!(r, [7, 8, 10, 11]);
        shift_in(&mut r, &[]);
        assert_eq!(r, [7, 8, 10, 11]);
        let mut block = [0u8; 16];
        let text: Vec<u8> = (0..20).collect();
        shift_in(&mut block, &text);
        assert_eq!(block[..], text[4..]);
        let mut half = [0u8; 8];
        shift_in(&mut half, &text);
        assert_eq!(half[..], text[12..]);
        shift_in(&mut half, &text[..3]);
        assert_eq!(half[..], [15, 16, 17, 18, 19, 0, 1, 2][..]);
    }

    #[test]
    fn shift_byte_in_appends_one_byte() {
        let mut r: [u8; 16] = core::array::from_fn(|i| i as u8 + 1);
        shift_byte_in(&mut r, 0xaa);
        let want: [u8; 16] = core::array::from_fn(|i| if i == 15 { 0xaa } else { i as u8 + 2 });
        assert_eq!(r, want);
        let mut s = r;
        shift_in(&mut s, &[0x55]);
        shift_byte_in(&mut r, 0x55);
        assert_eq!(r, s);
    }

    #[test]
    fn xor_stops_at_shorter() {
        let mut d = [1u8, 2, 3];
        xor_in_place(&mut d, &[1, 1]);
        assert_eq!(d, [0, 3, 3]);
    }
}
