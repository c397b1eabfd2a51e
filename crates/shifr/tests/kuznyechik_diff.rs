//! Differential tests of `block::kuznyechik` against RustCrypto's `kuznyechik` crate.

use cipher::generic_array::GenericArray;
use cipher::{BlockDecrypt, BlockEncrypt, KeyInit as _};
use rand::RngCore;
use shifr::hazmat::block::kuznyechik::Kuznyechik;
use shifr::hazmat::block::{BlockCipher, KeyInit};
use shifr::Error;

/// Data lengths in blocks: empty, single, odd/even around the 2-block interleave, and several KiB.
const BLOCK_COUNTS: &[usize] = &[0, 1, 2, 3, 4, 5, 16, 17, 256, 513];

fn random_bytes(len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rand::thread_rng().fill_bytes(&mut v);
    v
}

#[test]
fn matches_rustcrypto_both_directions() {
    for _ in 0..8 {
        let key = random_bytes(32);
        let ours = Kuznyechik::new(&key).unwrap();
        let theirs = kuznyechik::Kuznyechik::new_from_slice(&key).unwrap();
        for &blocks in BLOCK_COUNTS {
            let pt = random_bytes(16 * blocks);
            let mut a = pt.clone();
            ours.encrypt_blocks(&mut a);
            let mut b = pt.clone();
            for block in b.chunks_exact_mut(16) {
                theirs.encrypt_block(GenericArray::from_mut_slice(block));
            }
            assert_eq!(a, b, "encrypt, {blocks} blocks");
            ours.decrypt_blocks(&mut a);
            assert_eq!(a, pt, "round trip, {blocks} blocks");

            let ct = random_bytes(16 * blocks);
            let mut a = ct.clone();
            ours.decrypt_blocks(&mut a);
            let mut b = ct.clone();
            for block in b.chunks_exact_mut(16) {
                theirs.decrypt_block(GenericArray::from_mut_slice(block));
            }
            assert_eq!(a, b, "decrypt, {blocks} blocks");
        }
    }
}

#[test]
fn trailing_partial_block_is_untouched() {
    let c = Kuznyechik::new(&random_bytes(32)).unwrap();
    for extra in 1..16 {
        let data = random_bytes(16 * 3 + extra);
        let mut a = data.clone();
        c.encrypt_blocks(&mut a);
        assert_eq!(&a[48..], &data[48..]);
        c.decrypt_blocks(&mut a);
        assert_eq!(a, data);
    }
}

#[test]
fn encrypt_lanes_equals_per_key_calls() {
    let ciphers: Vec<Kuznyechik> = (0..11)
        .map(|_| Kuznyechik::new(&random_bytes(32)).unwrap())
        .collect();
    let refs: Vec<&Kuznyechik> = ciphers.iter().collect();
    // One spare block past the lanes must stay untouched.
    let pt = random_bytes(16 * (ciphers.len() + 1));
    let mut lanes = pt.clone();
    Kuznyechik::encrypt_lanes(&refs, &mut lanes);
    for (i, c) in ciphers.iter().enumerate() {
        let mut one = pt[16 * i..16 * i + 16].to_vec();
        c.encrypt_blocks(&mut one);
        assert_eq!(&lanes[16 * i..16 * i + 16], &one[..], "lane {i}");
    }
    assert_eq!(&lanes[16 * ciphers.len()..], &pt[16 * ciphers.len()..]);
    Kuznyechik::decrypt_lanes(&refs, &mut lanes);
    assert_eq!(lanes, pt);
}

#[test]
fn rekey_gives_the_new_keys_cipher() {
    let c = Kuznyechik::new(&random_bytes(32)).unwrap();
    let key = random_bytes(32);
    let r = c.rekey(&key).unwrap();
    assert_eq!(r.round_keys(), Kuznyechik::new(&key).unwrap().round_keys());
    assert_ne!(r.round_keys(), c.round_keys());
}

#[test]
fn wrong_key_lengths_return_invalid_key_length() {
    for len in [0usize, 1, 16, 24, 31, 33, 64] {
        let key = random_bytes(len);
        let result = Kuznyechik::new_from_slice(&key).err();
        assert!(
            matches!(result, Some(Error::InvalidKeyLength { got, .. }) if got == len),
            "key length {len}: {result:?}"
        );
    }
}
