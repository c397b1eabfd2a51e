//! OMAC-ACPKM (R 1323565.1.017-2018; RFC 8645 section 6.2.3): OMAC whose key changes every section of
//! `N` bytes of message.
//!
//! The keys come from `ACPKM-Master(K, T*, l) = K^1 || K^1_1 || ... || K^l || K^l_1` (`k + n` bits per
//! section), which is CTR-ACPKM under the master key with section size `T*` and `IV = 1^(n/2)` applied to
//! `l*(k+n)` zero bits. Message block `i` (1-based) is enciphered under `K^ceil(i*n/N)`; the last block
//! is XORed with `K^l_1` when whole, or padded with `10...0` and XORed with `K^l_1 * x` (the OMAC
//! doubling). `N` and `T*` must be positive multiples of the block size.
//!
//! `k` is the cipher's key length: [`omac_acpkm`] and [`acpkm_master`] use the cipher's only key size;
//! the `*_with_key_len` variants take it explicitly (for AES).

use crate::block::{Chain, KeyInit};
use crate::mac::omac::{check_tag_len, double};
use crate::mode::ctr_acpkm::{apply_with_key_len, check_key_len, check_section, sole_key_len};
use crate::util::xor_in_place;
use crate::{Error, Result};
use zeroize::{Zeroize, Zeroizing};

const MAX_BLOCK: usize = 16;

fn reduction_constant(n: usize) -> Result<u8> {
    match n {
        8 => Ok(0x1b),
        16 => Ok(0x87),
        _ => Err(Error::InvalidParameter(
            "OMAC-ACPKM needs a 64- or 128-bit block cipher",
        )),
    }
}

/// `ACPKM-Master(K, T*, sections)`: `sections * (k + n)` bytes of key material (the `keymaterial` KAT
/// field) for a cipher with one key size.
pub fn acpkm_master<C: KeyInit>(
    c: &C,
    tstar_bytes: usize,
    sections: usize,
) -> Result<Zeroizing<Vec<u8>>> {
    acpkm_master_with_key_len(c, sole_key_len::<C>()?, tstar_bytes, sections)
}

/// [`acpkm_master`] with an explicit key length `key_len` (bytes).
pub fn acpkm_master_with_key_len<C: KeyInit>(
    c: &C,
    key_len: usize,
    tstar_bytes: usize,
    sections: usize,
) -> Result<Zeroizing<Vec<u8>>> {
    let n = c.block_size();
    check_section(n, tstar_bytes)?;
    check_key_len::<C>(n, key_len)?;
    let len = sections
        .checked_mul(key_len + n)
        .ok_or(Error::LengthLimit("ACPKM-Master output too long"))?;
    let mut material = Zeroizing::new(vec![0u8; len]);
    let iv_half = vec![0xffu8; n / 2];
    apply_with_key_len(c, key_len, &iv_half, tstar_bytes, &mut material)?;
    Ok(material)
}

/// OMAC-ACPKM tag (`tag_len` = `1..=n` bytes) of `msg` with sections of `section_bytes` and master-key
/// sections of `tstar_bytes`, for a cipher with one key size.
pub fn omac_acpkm<C: KeyInit>(
    c: &C,
    section_bytes: usize,
    tstar_bytes: usize,
    tag_len: usize,
    msg: &[u8],
) -> Result<Vec<u8>> {
    omac_acpkm_with_key_len(
        c,
        sole_key_len::<C>()?,
        section_bytes,
        tstar_bytes,
        tag_len,
        msg,
    )
}

/// [`omac_acpkm`] with an explicit key length `key_len` (bytes).
pub fn omac_acpkm_with_key_len<C: KeyInit>(
    c: &C,
    key_len: usize,
    section_bytes: usize,
    tstar_bytes: usize,
    tag_len: usize,
    msg: &[u8],
) -> Result<Vec<u8>> {
    let n = c.block_size();
    let constant = reduction_constant(n)?;
    check_tag_len(n, tag_len)?;
    check_section(n, section_bytes)?;
    // q blocks (an empty message is one empty, padded block), in l sections.
    let q = msg.len().div_ceil(n).max(1);
    let sections = (q * n).div_ceil(section_bytes);
    let material = acpkm_master_with_key_len(c, key_len, tstar_bytes, sections)?;
    let stride = key_len + n;
    let section_key = |j: usize| &material[j * stride..j * stride + key_len];

    let mut state = [0u8; MAX_BLOCK];
    let blocks_per_section = section_bytes / n;
    for j in 0..sections {
        let cipher = c.rekey(section_key(j))?;
        let first = j * blocks_per_section;
        let end = q.min(first + blocks_per_section);
        // Every block but the message's last is whole and only chained: one call of the
        // cipher's chain kernel where it has one (round keys and constants loaded once per
        // section, not once per block), else block by block.
        let body = &msg[first * n..end.min(q - 1).max(first) * n];
        if !body.is_empty() && !cipher.feedback_chain(&mut state[..n], Chain::CbcMac(body)) {
            for block in body.chunks_exact(n) {
                xor_in_place(&mut state[..n], block);
                cipher.encrypt_blocks(&mut state[..n]);
            }
        }
        if end == q {
            // The last block: whole, XOR K^l_1; partial, pad 10...0 and XOR K^l_1 * x.
            let block = &msg[(q - 1) * n..];
            let mut input = [0u8; MAX_BLOCK];
            input[..block.len()].copy_from_slice(block);
            let mut last_key = [0u8; MAX_BLOCK];
            last_key[..n].copy_from_slice(&material[j * stride + key_len..(j + 1) * stride]);
            if block.len() < n {
                input[block.len()] = 0x80;
                double(&mut last_key[..n], constant);
            }
            xor_in_place(&mut input[..n], &last_key[..n]);
            last_key.zeroize();
            xor_in_place(&mut state[..n], &input[..n]);
            input.zeroize();
            cipher.encrypt_blocks(&mut state[..n]);
        }
    }
    let tag = state[..tag_len].to_vec();
    state.zeroize();
    Ok(tag)
}
