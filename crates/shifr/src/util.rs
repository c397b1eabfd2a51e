//! Small helpers shared by the modes: XOR of byte slices and a constant-time comparison.

/// `dst[i] ^= src[i]` for `i < min(dst.len(), src.len())`.
#[inline]
pub fn xor_in_place(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d ^= *s;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ct_eq_compares_contents_and_lengths() {
        assert!(ct_eq(b"abc", b"abc"));
        assert!(!ct_eq(b"abc", b"abd"));
        assert!(!ct_eq(b"abc", b"ab"));
        assert!(ct_eq(b"", b""));
    }

    #[test]
    fn xor_stops_at_shorter() {
        let mut d = [1u8, 2, 3];
        xor_in_place(&mut d, &[1, 1]);
        assert_eq!(d, [0, 3, 3]);
    }
}
