//! Kuznyechik over the fused LS tables with 128-bit vector XORs, eight blocks interleaved.
//!
//! NOT constant-time: like the portable backend, every round looks up 16 table entries indexed by
//! bytes of `state ^ key` (secret-indexed memory, observable through the cache). It exists because it
//! is the fastest table method; the constant-time `x86_avx512_gfni` backend is preferred where the CPU
//! has it.
//!
//! The state of a block sits in an XMM register in the byte order of the tables' `u128` entries
//! (`u128::from_be_bytes(block)`, so byte 15 of the register is wire byte 0): a table entry then XORs in
//! with one `VPXOR` from memory, and the sixteen indices come out of two 64-bit moves. Eight blocks
//! are in flight at once so that the loads of one hide the latency of the others.

use core::arch::x86_64::{
    __m128i, _mm_cvtsi128_si64, _mm_extract_epi64, _mm_load_si128, _mm_loadu_si128, _mm_set_epi8,
    _mm_setzero_si128, _mm_shuffle_epi8, _mm_storeu_si128, _mm_xor_si128,
};

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::tables::{fused, ByteTables, PI, PI_INV};

/// Blocks in flight per pass.
const INTERLEAVE: usize = 2;

/// The round keys (as `u128`, like the portable backend). Holding one proves the CPU has AVX2:
/// [`TableKeys::new`] is the only constructor and checks it.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(super) struct TableKeys {
    keys: [u128; 10],
    inv_keys: [u128; 10],
}

impl TableKeys {
    /// `keys` are K_1..K_10, `inv_keys` K_1 and `L^-1(K_2)..L^-1(K_10)`; `None` without AVX2.
    pub(super) fn new(keys: &[u128; 10], inv_keys: &[u128; 10]) -> Option<TableKeys> {
        if !crate::cpu::features().avx2 {
            return None;
        }
        Some(TableKeys {
            keys: *keys,
            inv_keys: *inv_keys,
        })
    }

    /// Encrypts every whole 16-byte block of `data` in place.
    pub(super) fn encrypt_blocks(&self, data: &mut [u8]) {
        let keys = [&self.keys; INTERLEAVE];
        // SAFETY: a `TableKeys` exists only if the CPU has AVX2 (see `new`).
        unsafe { run::<true, _>(data, |_| keys) }
    }

    /// Decrypts every whole 16-byte block of `data` in place.
    pub(super) fn decrypt_blocks(&self, data: &mut [u8]) {
        let keys = [self; INTERLEAVE];
        // SAFETY: as in `encrypt_blocks`.
        unsafe { run::<false, _>(data, |_| keys.map(|k| (&k.keys, &k.inv_keys))) }
    }
}

/// Multi-stream: block `i` of `blocks` goes through `keys[i]`; blocks past `keys.len()` are untouched.
pub(super) fn lanes(keys: &[&TableKeys], blocks: &mut [u8], encrypt: bool) {
    let count = keys.len().min(blocks.len() / 16);
    let blocks = &mut blocks[..16 * count];
    // Group `g` of blocks uses ciphers `INTERLEAVE * g ..`; the single-block tail uses the same indexing.
    let pick = |g: usize| -> [&TableKeys; INTERLEAVE] {
        core::array::from_fn(|i| keys[(INTERLEAVE * g + i).min(count - 1)])
    };
    if count == 0 {
        return;
    }
    // SAFETY: `keys` is non-empty and a `TableKeys` exists only on a CPU with AVX2 (see `new`).
    unsafe {
        if encrypt {
            run::<true, _>(blocks, |g| pick(g).map(|k| &k.keys))
        } else {
            run::<false, _>(blocks, |g| pick(g).map(|k| (&k.keys, &k.inv_keys)))
        }
    }
}

/// Runs the cipher over whole blocks: groups of [`INTERLEAVE`], then the rest one by one. `keys(g)` gives
/// the keys of the blocks of group `g` (the tail's block `i` counts as block `i` of group `g`).
#[target_feature(enable = "avx2")]
fn run<const ENCRYPT: bool, K: RoundKeys>(
    data: &mut [u8],
    keys: impl Fn(usize) -> [K; INTERLEAVE],
) {
    let tables: &ByteTables = if ENCRYPT {
        &fused().encrypt
    } else {
        &fused().decrypt
    };
    let mut groups = data.chunks_exact_mut(16 * INTERLEAVE);
    let mut g = 0;
    for group in &mut groups {
        let k = keys(g);
        let mut x = [zero(); INTERLEAVE];
        for (v, b) in x.iter_mut().zip(group.chunks_exact(16)) {
            *v = load(b);
        }
        rounds::<ENCRYPT, K, INTERLEAVE>(tables, &k, &mut x);
        for (v, b) in x.iter().zip(group.chunks_exact_mut(16)) {
            store(b, *v);
        }
        g += 1;
    }
    let k = keys(g);
    for (block, key) in groups.into_remainder().chunks_exact_mut(16).zip(k) {
        let mut x = [load(block)];
        rounds::<ENCRYPT, K, 1>(tables, &[key], &mut x);
        store(block, x[0]);
    }
}

/// The round keys of one block: K_i for encryption, plus the `L^-1`-moved ones for decryption.
trait RoundKeys: Copy {
    fn keys(&self) -> &[u128; 10];
    fn inv_keys(&self) -> &[u128; 10];
}

impl RoundKeys for &[u128; 10] {
    fn keys(&self) -> &[u128; 10] {
        self
    }
    /// Never called: encryption uses only `keys`.
    fn inv_keys(&self) -> &[u128; 10] {
        self
    }
}

impl RoundKeys for (&[u128; 10], &[u128; 10]) {
    fn keys(&self) -> &[u128; 10] {
        self.0
    }
    fn inv_keys(&self) -> &[u128; 10] {
        self.1
    }
}

#[inline]
#[target_feature(enable = "avx2")]
fn zero() -> __m128i {
    _mm_setzero_si128()
}

/// A `u128` as a register (register byte `i` = byte `i` of the little-endian value).
#[inline]
#[target_feature(enable = "avx2")]
fn key(k: &u128) -> __m128i {
    // SAFETY: a `u128` is 16 readable bytes, 16-byte aligned on x86-64; x86-64 is little-endian.
    unsafe { _mm_load_si128((k as *const u128).cast()) }
}

/// Reverses the bytes of a register: wire order <-> `u128` order.
#[inline]
#[target_feature(enable = "avx2")]
fn reverse(v: __m128i) -> __m128i {
    _mm_shuffle_epi8(
        v,
        _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
    )
}

#[inline]
#[target_feature(enable = "avx2")]
fn load(b: &[u8]) -> __m128i {
    let b = &b[..16];
    // SAFETY: `b` is exactly 16 readable bytes and `loadu` has no alignment requirement.
    reverse(unsafe { _mm_loadu_si128(b.as_ptr().cast()) })
}

#[inline]
#[target_feature(enable = "avx2")]
fn store(b: &mut [u8], v: __m128i) {
    let b = &mut b[..16];
    // SAFETY: `b` is exactly 16 writable bytes and `storeu` has no alignment requirement.
    unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), reverse(v)) }
}

/// `XOR_j tables[j][byte j of x]` (byte 0 = the most significant byte of the `u128` value) `^ k`.
#[inline]
#[target_feature(enable = "avx2")]
fn lookup(tables: &ByteTables, x: __m128i, k: __m128i) -> __m128i {
    let low = _mm_cvtsi128_si64(x) as u64;
    let high = _mm_extract_epi64::<1>(x) as u64;
    let mut acc = k;
    for i in 0..8 {
        acc = _mm_xor_si128(acc, key(&tables[15 - i][(low >> (8 * i)) as u8 as usize]));
        acc = _mm_xor_si128(acc, key(&tables[7 - i][(high >> (8 * i)) as u8 as usize]));
    }
    acc
}

/// `sbox` on every byte (scalar: only the first and last decryption steps need it).
#[inline]
#[target_feature(enable = "avx2")]
fn substitute(x: __m128i, sbox: &[u8; 256]) -> __m128i {
    let mut bytes = [0u8; 16];
    // SAFETY: `bytes` is 16 writable bytes; `storeu` has no alignment requirement.
    unsafe { _mm_storeu_si128(bytes.as_mut_ptr().cast(), x) };
    for b in bytes.iter_mut() {
        *b = sbox[*b as usize];
    }
    // SAFETY: as above, reading.
    let v = unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) };
    bytes.zeroize();
    v
}

#[inline]
#[target_feature(enable = "avx2")]
fn rounds<const ENCRYPT: bool, K: RoundKeys, const N: usize>(
    tables: &ByteTables,
    k: &[K; N],
    x: &mut [__m128i; N],
) {
    if ENCRYPT {
        for (v, k) in x.iter_mut().zip(k) {
            *v = _mm_xor_si128(*v, key(&k.keys()[0]));
        }
        for r in 1..10 {
            for (v, k) in x.iter_mut().zip(k) {
                *v = lookup(tables, *v, key(&k.keys()[r]));
            }
        }
    } else {
        // y = L^-1(ct ^ K_10) = L^-1(S^-1(S(ct))) ^ L^-1(K_10); then y <- L^-1(S^-1(y)) ^ L^-1(K_i);
        // finally S^-1(y) ^ K_1.
        for (v, k) in x.iter_mut().zip(k) {
            *v = lookup(tables, substitute(*v, &PI), key(&k.inv_keys()[9]));
        }
        for r in (1..9).rev() {
            for (v, k) in x.iter_mut().zip(k) {
                *v = lookup(tables, *v, key(&k.inv_keys()[r]));
            }
        }
        for (v, k) in x.iter_mut().zip(k) {
            *v = _mm_xor_si128(substitute(*v, &PI_INV), key(&k.keys()[0]));
        }
    }
}
