//! Differential tests: shifr's TDEA against RustCrypto's des 0.8 (TdesEde3 for 24-byte keys,
//! TdesEde2 for 16-byte keys) on random keys and multi-block data, both directions.

use des::cipher::generic_array::GenericArray;
use des::cipher::{BlockDecrypt, BlockEncrypt, KeyInit as _};
use rand::rngs::StdRng;
use rand::{RngCore, SeedableRng};
use shifr::hazmat::block::tdes::Tdes;
use shifr::hazmat::block::{BlockCipher, KeyInit};

const BLOCK_COUNTS: &[usize] = &[0, 1, 2, 3, 7, 8, 9, 64, 513];

fn random_bytes(rng: &mut StdRng, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    rng.fill_bytes(&mut v);
    v
}

fn theirs_encrypt(c: &impl BlockEncrypt, data: &[u8]) -> Vec<u8> {
    let mut out = data.to_vec();
    for block in out.chunks_exact_mut(8) {
        c.encrypt_block(GenericArray::from_mut_slice(block));
    }
    out
}

fn theirs_decrypt(c: &impl BlockDecrypt, data: &[u8]) -> Vec<u8> {
    let mut out = data.to_vec();
    for block in out.chunks_exact_mut(8) {
        c.decrypt_block(GenericArray::from_mut_slice(block));
    }
    out
}

fn check(
    ours: &Tdes,
    enc: impl Fn(&[u8]) -> Vec<u8>,
    dec: impl Fn(&[u8]) -> Vec<u8>,
    rng: &mut StdRng,
) {
    for &blocks in BLOCK_COUNTS {
        let pt = random_bytes(rng, blocks * 8);
        let mut data = pt.clone();
        ours.encrypt_blocks(&mut data);
        assert_eq!(data, enc(&pt), "encrypt, {blocks} blocks");
        ours.decrypt_blocks(&mut data);
        assert_eq!(data, pt, "round trip, {blocks} blocks");

        // Decryption of arbitrary data (not our own ciphertext) agrees too.
        let ct = random_bytes(rng, blocks * 8);
        let mut data = ct.clone();
        ours.decrypt_blocks(&mut data);
        assert_eq!(data, dec(&ct), "decrypt, {blocks} blocks");
    }
}

#[test]
fn three_key_matches_des_tdes_ede3() {
    let mut rng = StdRng::seed_from_u64(0x3de5_0001);
    for _ in 0..40 {
        let key = random_bytes(&mut rng, 24);
        let ours = Tdes::new(&key).unwrap();
        assert_eq!(ours.keying_option(), 1);
        let theirs = des::TdesEde3::new_from_slice(&key).unwrap();
        check(
            &ours,
            |d| theirs_encrypt(&theirs, d),
            |d| theirs_decrypt(&theirs, d),
            &mut rng,
        );
    }
}

#[test]
fn two_key_matches_des_tdes_ede2() {
    let mut rng = StdRng::seed_from_u64(0x3de5_0002);
    for _ in 0..40 {
        let key = random_bytes(&mut rng, 16);
        let theirs = des::TdesEde2::new_from_slice(&key).unwrap();
        // Both the 16-byte form and the 24-byte form with K3 = K1.
        let long_key = [&key[..], &key[..8]].concat();
        for ours in [
            Tdes::new(&key).unwrap(),
            Tdes::new_from_slice(&long_key).unwrap(),
        ] {
            assert_eq!(ours.keying_option(), 2);
            check(
                &ours,
                |d| theirs_encrypt(&theirs, d),
                |d| theirs_decrypt(&theirs, d),
                &mut rng,
            );
        }
    }
}

#[test]
fn equal_keys_are_single_des() {
    let mut rng = StdRng::seed_from_u64(0x3de5_0003);
    for _ in 0..40 {
        let k = random_bytes(&mut rng, 8);
        let ours = Tdes::new(&[&k[..], &k[..], &k[..]].concat()).unwrap();
        let theirs = des::Des::new_from_slice(&k).unwrap();
        check(
            &ours,
            |d| theirs_encrypt(&theirs, d),
            |d| theirs_decrypt(&theirs, d),
            &mut rng,
        );
    }
}

/// The catalogue's des-ede3-ctr / des-ede-ctr (SP 800-38A CTR over the whole 64-bit block; OpenSSL has
/// no TDEA CTR) against RustCrypto's `Ctr64BE` over `TdesEde3` / `TdesEde2`, on random keys, IVs
/// (one at the top of the 64-bit counter) and lengths that are not whole blocks, both directions.
#[test]
fn catalogue_ctr_matches_ctr64be() {
    use des::cipher::{KeyIvInit, StreamCipher};
    let mut rng = StdRng::seed_from_u64(0x3de5_0004);
    for (name, key_len) in [("des-ede3-ctr", 24), ("des-ede-ctr", 16)] {
        let alg = shifr::catalog::lookup(name).unwrap();
        for len in [0usize, 1, 7, 8, 9, 63, 64, 65, 511, 4099] {
            let key = random_bytes(&mut rng, key_len);
            let mut iv = random_bytes(&mut rng, 8);
            if len == 9 {
                // The last two counter values: the increment is over all 64 bits.
                iv.copy_from_slice(&(u64::MAX - 1).to_be_bytes());
            }
            let pt = random_bytes(&mut rng, len);
            let params = shifr::catalog::Params {
                iv: &iv,
                ..Default::default()
            };
            let ours = alg.encrypt(&key, &params, pt.clone()).unwrap().data;
            let mut theirs = pt.clone();
            if key_len == 24 {
                ctr::Ctr64BE::<des::TdesEde3>::new_from_slices(&key, &iv)
                    .unwrap()
                    .apply_keystream(&mut theirs);
            } else {
                ctr::Ctr64BE::<des::TdesEde2>::new_from_slices(&key, &iv)
                    .unwrap()
                    .apply_keystream(&mut theirs);
            }
            assert_eq!(ours, theirs, "{name}, {len} bytes");
            let back = alg.decrypt(&key, &params, ours, None).unwrap();
            assert_eq!(back, pt, "{name} round trip, {len} bytes");
        }
    }
}
