//! CTR-ACPKM (R 1323565.1.017-2018; RFC 8645 section 6.2.2): GOST R 34.13 counter mode whose key changes
//! after every section of `N` bytes.
//!
//! The key of section `i + 1` is `ACPKM(K^i) = E_(K^i)(D_1) || ... || E_(K^i)(D_(k/n))` with
//! `D = 0x80 0x81 ... 0x9f` (the first `k` bits), `k` the key length. The counter is *not* reset between
//! sections: it starts at `IV || 0^(n/2)` and runs on across the whole message. `N` must be a positive
//! multiple of the block size.
//!
//! `k` is the cipher's key length. For ciphers with one key size (Magma, Kuznyechik) [`apply`] knows it;
//! for ciphers with several (AES) use [`apply_with_key_len`] and say which one the key has.

use crate::block::{BlockCipher, KeyInit};
use crate::mode::ctr::{gost_counter_block, xor_keystream};
use crate::{Error, Result};
use zeroize::Zeroizing;

/// The ACPKM constant `D = 0x80 0x81 ... 0x9f` (256 bits; the first `k` bits are used).
const ACPKM_D: [u8; 32] = [
    0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f,
    0x90, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0x9b, 0x9c, 0x9d, 0x9e, 0x9f,
];

/// The key length of a cipher that has exactly one.
pub(crate) fn sole_key_len<C: KeyInit>() -> Result<usize> {
    match C::KEY_SIZES {
        [k] => Ok(*k),
        _ => Err(Error::InvalidParameter(
            "this cipher has several key sizes: use the *_with_key_len variant",
        )),
    }
}

/// Checks that `key_len` is a key size of `C`, a whole number of blocks and at most 32 bytes (the
/// length of `D`).
pub(crate) fn check_key_len<C: KeyInit>(n: usize, key_len: usize) -> Result<()> {
    if !C::KEY_SIZES.contains(&key_len) {
        return Err(Error::InvalidParameter(
            "ACPKM key length is not a key size of the cipher",
        ));
    }
    check_acpkm_key_len(n, key_len)
}

fn check_acpkm_key_len(n: usize, key_len: usize) -> Result<()> {
    if n == 0 || key_len == 0 || !key_len.is_multiple_of(n) || key_len > ACPKM_D.len() {
        return Err(Error::InvalidParameter(
            "ACPKM key length must be a whole number of blocks, at most 32 bytes",
        ));
    }
    Ok(())
}

/// Checks that a section size is a positive multiple of the block size.
pub(crate) fn check_section(n: usize, section_bytes: usize) -> Result<()> {
    if n == 0 || section_bytes == 0 || !section_bytes.is_multiple_of(n) {
        return Err(Error::InvalidParameter(
            "ACPKM section size must be a positive multiple of the block size",
        ));
    }
    Ok(())
}

/// The next section key `ACPKM(K) = E_K(D_1) || ...` of `key_len` bytes, under the current key `c`.
pub fn acpkm_next_key<C: BlockCipher + ?Sized>(
    c: &C,
    key_len: usize,
) -> Result<Zeroizing<Vec<u8>>> {
    check_acpkm_key_len(c.block_size(), key_len)?;
    let mut key = Zeroizing::new(ACPKM_D[..key_len].to_vec());
    c.encrypt_blocks(&mut key);
    Ok(key)
}

/// CTR-ACPKM for a cipher with a single key size: XORs the key stream for `iv_half` (`n/2` bytes) with
/// sections of `section_bytes` into `data`.
pub fn apply<C: KeyInit>(
    c: &C,
    iv_half: &[u8],
    section_bytes: usize,
    data: &mut [u8],
) -> Result<()> {
    apply_with_key_len(c, sole_key_len::<C>()?, iv_half, section_bytes, data)
}

/// CTR-ACPKM with an explicit key length `key_len` (`k / 8`: the length of the key `c` was made with).
pub fn apply_with_key_len<C: KeyInit>(
    c: &C,
    key_len: usize,
    iv_half: &[u8],
    section_bytes: usize,
    data: &mut [u8],
) -> Result<()> {
    let n = c.block_size();
    check_section(n, section_bytes)?;
    check_key_len::<C>(n, key_len)?;
    let mut counter = Zeroizing::new(gost_counter_block(iv_half, n)?);
    let mut section_cipher: Option<C> = None;
    for (i, section) in data.chunks_mut(section_bytes).enumerate() {
        if i > 0 {
            let current = section_cipher.as_ref().unwrap_or(c);
            let key = acpkm_next_key(current, key_len)?;
            section_cipher = Some(c.rekey(&key)?);
        }
        xor_keystream(section_cipher.as_ref().unwrap_or(c), &mut counter, section);
    }
    Ok(())
}
