//! Block padding: PKCS#7 (RFC 5652 section 6.3) and GOST R 34.13-2015 procedure 2 (append one `1` bit,
//! then zeros up to a whole block; ISO/IEC 9797-1 method 2).
//!
//! The unpadding checks look at a whole final block without branching on its contents, so the time they
//! take does not say where the padding went wrong (only that it did: every failure is
//! [`Error::BadPadding`]).

use crate::{Error, Result};

/// All-ones byte if `x != 0`, else zero, without a branch.
#[inline]
fn nonzero_mask(x: u8) -> u8 {
    // (x | -x) has its top bit set exactly when x != 0.
    let t = x | x.wrapping_neg();
    0u8.wrapping_sub(t >> 7)
}

/// All-ones byte if `a < b` (both < 256), else zero, without a branch.
#[inline]
fn lt_mask(a: usize, b: usize) -> u8 {
    // a, b < 2^16 here, so the borrow of a - b lands in bit 63 of the difference.
    let borrow = (a.wrapping_sub(b) >> (usize::BITS - 1)) as u8;
    0u8.wrapping_sub(borrow)
}

fn check_block(block: usize) -> Result<()> {
    if (1..=255).contains(&block) {
        Ok(())
    } else {
        Err(Error::InvalidParameter(
            "padding block size must be 1..=255 bytes",
        ))
    }
}

/// Appends PKCS#7 padding: `p` bytes of value `p`, 1 <= p <= `block` (a whole block when `data` is
/// already aligned). `block` must be 1..=255.
pub fn pkcs7_pad(data: &mut Vec<u8>, block: usize) -> Result<()> {
    check_block(block)?;
    let p = block - data.len() % block;
    data.resize(data.len() + p, p as u8);
    Ok(())
}

/// Checks PKCS#7 padding and returns the unpadded length. `data` must be a non-empty whole number of
/// blocks ending in `p` bytes of value `p` with 1 <= p <= `block`; anything else is
/// [`Error::BadPadding`].
pub fn pkcs7_unpad(data: &[u8], block: usize) -> Result<usize> {
    check_block(block)?;
    if data.is_empty() || !data.len().is_multiple_of(block) {
        return Err(Error::BadPadding);
    }
    let tail = &data[data.len() - block..];
    let p = tail[block - 1];
    // bad != 0 if p == 0 or p > block.
    let mut bad = !nonzero_mask(p) | !lt_mask(p as usize, block + 1);
    for (i, &b) in tail.iter().rev().enumerate() {
        // Bytes inside the claimed padding must equal p.
        bad |= lt_mask(i, p as usize) & (b ^ p);
    }
    if core::hint::black_box(bad) != 0 {
        return Err(Error::BadPadding);
    }
    Ok(data.len() - p as usize)
}

/// Appends GOST R 34.13-2015 padding procedure 2: one byte 0x80, then zeros up to a whole block. Always
/// adds at least one byte (a whole block when `data` is already aligned). `block` must be 1..=255.
pub fn gost_pad2(data: &mut Vec<u8>, block: usize) -> Result<()> {
    check_block(block)?;
    let p = block - data.len() % block;
    data.push(0x80);
    data.resize(data.len() + p - 1, 0);
    Ok(())
}

/// Checks GOST R 34.13-2015 procedure-2 padding and returns the unpadded length: the last block must end
/// in 0x80 followed by zero or more zero bytes. Anything else is [`Error::BadPadding`].
pub fn gost_unpad2(data: &[u8], block: usize) -> Result<usize> {
    check_block(block)?;
    if data.is_empty() || !data.len().is_multiple_of(block) {
        return Err(Error::BadPadding);
    }
    let tail = &data[data.len() - block..];
    let mut seen = 0u8; // all ones once the last non-zero byte has been passed
    let mut bad = 0u8;
    let mut pad_len = 0usize;
    for (i, &b) in tail.iter().rev().enumerate() {
        let nz = nonzero_mask(b);
        let marker = nz & !seen; // the last non-zero byte of the block
        bad |= marker & (b ^ 0x80);
        pad_len |= (i + 1) & usize::from(marker & 1).wrapping_neg();
        seen |= nz;
    }
    bad |= !seen;
    if core::hint::black_box(bad) != 0 {
        return Err(Error::BadPadding);
    }
    Ok(data.len() - pad_len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkcs7_round_trip_all_lengths() {
        for block in [8usize, 16] {
            for len in 0..3 * block {
                let mut v: Vec<u8> = (0..len as u8).collect();
                pkcs7_pad(&mut v, block).unwrap();
                assert_eq!(v.len() % block, 0);
                assert!(v.len() > len && v.len() <= len + block);
                assert!(v[len..].iter().all(|&b| b as usize == v.len() - len));
                assert_eq!(pkcs7_unpad(&v, block), Ok(len));
            }
        }
    }

    #[test]
    fn pkcs7_rejects_bad_padding() {
        let good = [0x41u8, 0x41, 0x41, 0x41, 0x41, 0x03, 0x03, 0x03];
        assert_eq!(pkcs7_unpad(&good, 8), Ok(5));
        assert_eq!(pkcs7_unpad(&[], 8), Err(Error::BadPadding));
        assert_eq!(pkcs7_unpad(&good[..7], 8), Err(Error::BadPadding));
        let mut zero = good;
        zero[7] = 0;
        assert_eq!(pkcs7_unpad(&zero, 8), Err(Error::BadPadding));
        let mut too_big = [9u8; 8];
        assert_eq!(pkcs7_unpad(&too_big, 8), Err(Error::BadPadding));
        too_big = [0xff; 8];
        assert_eq!(pkcs7_unpad(&too_big, 8), Err(Error::BadPadding));
        let mut inconsistent = good;
        inconsistent[5] = 0x02;
        assert_eq!(pkcs7_unpad(&inconsistent, 8), Err(Error::BadPadding));
        assert_eq!(pkcs7_unpad(&[8u8; 8], 8), Ok(0));
        assert!(pkcs7_unpad(&[1u8; 8], 0).is_err());
        assert!(pkcs7_pad(&mut Vec::new(), 256).is_err());
    }

    #[test]
    fn gost_pad2_round_trip_and_rejects() {
        for block in [8usize, 16] {
            for len in 0..3 * block {
                let mut v = vec![0u8; len];
                gost_pad2(&mut v, block).unwrap();
                assert_eq!(v.len() % block, 0);
                assert_eq!(v[len], 0x80);
                assert!(v[len + 1..].iter().all(|&b| b == 0));
                assert_eq!(gost_unpad2(&v, block), Ok(len));
            }
        }
        assert_eq!(gost_unpad2(&[], 8), Err(Error::BadPadding));
        assert_eq!(gost_unpad2(&[0u8; 8], 8), Err(Error::BadPadding));
        assert_eq!(
            gost_unpad2(&[1, 2, 3, 4, 5, 6, 7, 0x81], 8),
            Err(Error::BadPadding)
        );
        assert_eq!(
            gost_unpad2(&[1, 2, 3, 4, 5, 6, 0x40, 0], 8),
            Err(Error::BadPadding)
        );
        assert_eq!(
            gost_unpad2(&[0x80, 0, 0, 0, 0, 0, 0], 8),
            Err(Error::BadPadding)
        );
        // The marker must lie in the last block.
        let mut two = vec![0u8; 16];
        two[7] = 0x80;
        assert_eq!(gost_unpad2(&two, 8), Err(Error::BadPadding));
    }
}
