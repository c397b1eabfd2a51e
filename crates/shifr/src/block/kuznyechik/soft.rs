//! Portable Kuznyechik over the fused lookup tables of `tables.rs`.
//!
//! A round `LSX[k]` is sixteen table lookups indexed by the bytes of `a ^ k` (secret-indexed: not
//! constant-time). Decryption runs the rounds of `L^-1 S^-1` with the round keys moved through `L^-1`:
//! with `y = L^-1(x)`, the step `x <- S^-1(L^-1(x)) ^ k` becomes `y <- L^-1(S^-1(y)) ^ L^-1(k)`.

use super::tables::{fused, ByteTables, PI, PI_INV};

/// Two blocks per step so that their independent lookups overlap.
const INTERLEAVE: usize = 2;

#[inline(always)]
fn lookup(tables: &ByteTables, x: u128) -> u128 {
    let bytes = x.to_be_bytes();
    let mut out = 0u128;
    for (table, &b) in tables.iter().zip(&bytes) {
        out ^= table[b as usize];
    }
    out
}

#[inline(always)]
fn substitute(x: u128, sbox: &[u8; 256]) -> u128 {
    let mut bytes = x.to_be_bytes();
    for b in bytes.iter_mut() {
        *b = sbox[*b as usize];
    }
    u128::from_be_bytes(bytes)
}

/// `LSX[k](a) = L(S(a ^ k))` with the fused tables.
pub(crate) fn lsx(k: u128, a: u128) -> u128 {
    lookup(&fused().encrypt, a ^ k)
}

/// `L^-1(a)`, computed as `L^-1(S^-1(S(a)))` with the fused decryption tables.
pub(crate) fn l_inv(a: u128) -> u128 {
    lookup(&fused().decrypt, substitute(a, &PI))
}

/// Encrypts whole 16-byte blocks in place; `keys` are K_1..K_10.
pub(crate) fn encrypt_blocks(keys: &[u128; 10], data: &mut [u8]) {
    let tables = &*fused().encrypt;
    process::<INTERLEAVE>(data, |x| encrypt_n(tables, keys, x));
}

/// Decrypts whole 16-byte blocks in place; `inv_keys` are K_1 and `L^-1(K_2)..L^-1(K_10)`.
pub(crate) fn decrypt_blocks(keys: &[u128; 10], inv_keys: &[u128; 10], data: &mut [u8]) {
    let tables = &*fused().decrypt;
    process::<INTERLEAVE>(data, |x| decrypt_n(tables, keys, inv_keys, x));
}

/// Runs `f` on groups of `N` blocks, then on the remaining blocks one by one.
#[inline(always)]
fn process<const N: usize>(data: &mut [u8], f: impl Fn(&mut [u128]) + Copy) {
    let mut groups = data.chunks_exact_mut(16 * N);
    for group in &mut groups {
        let mut x = [0u128; N];
        for (v, b) in x.iter_mut().zip(group.chunks_exact(16)) {
            *v = load(b);
        }
        f(&mut x);
        for (v, b) in x.iter().zip(group.chunks_exact_mut(16)) {
            b.copy_from_slice(&v.to_be_bytes());
        }
    }
    for block in groups.into_remainder().chunks_exact_mut(16) {
        let mut x = [load(block)];
        f(&mut x);
        block.copy_from_slice(&x[0].to_be_bytes());
    }
}

#[inline(always)]
fn load(b: &[u8]) -> u128 {
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&b[..16]);
    u128::from_be_bytes(bytes)
}

#[inline(always)]
fn encrypt_n(tables: &ByteTables, keys: &[u128; 10], x: &mut [u128]) {
    for v in x.iter_mut() {
        *v ^= keys[0];
    }
    for &k in &keys[1..] {
        for v in x.iter_mut() {
            *v = lookup(tables, *v) ^ k;
        }
    }
}

#[inline(always)]
fn decrypt_n(tables: &ByteTables, keys: &[u128; 10], inv_keys: &[u128; 10], x: &mut [u128]) {
    // y = L^-1(ct ^ K_10) = L^-1(S^-1(S(ct))) ^ L^-1(K_10)
    for v in x.iter_mut() {
        *v = lookup(tables, substitute(*v, &PI)) ^ inv_keys[9];
    }
    for &k in inv_keys[1..9].iter().rev() {
        for v in x.iter_mut() {
            *v = lookup(tables, *v) ^ k;
        }
    }
    for v in x.iter_mut() {
        *v = substitute(*v, &PI_INV) ^ keys[0];
    }
}
