//! Every 3DES backend (portable bitsliced `u64`, AVX2, AVX-512 — those this CPU runs) against
//! RustCrypto's des 0.8 on random keys of both keying options: batch ECB at block counts around the
//! bitsliced threshold and the batch widths, misaligned buffers, CTR through the full-width key-stream
//! batches, and multi-stream calls with one key per lane.

use des::cipher::generic_array::GenericArray;
use des::cipher::{BlockDecrypt, BlockEncrypt, KeyInit as _};
use des::{TdesEde2, TdesEde3};
use rand::rngs::StdRng;
use rand::{Rng, RngCore, SeedableRng};
use shifr::cpu::Backend;
use shifr::hazmat::block::tdes::{Tdes, BITSLICE_MIN_BLOCKS};
use shifr::hazmat::block::BlockCipher;

const BLOCK_COUNTS: &[usize] = &[
    0, 1, 15, 16, 17, 47, 48, 49, 63, 64, 65, 255, 256, 257, 511, 512, 513, 1000, 2051,
];

/// The independent reference: one block at a time through RustCrypto.
enum Reference {
    Ede3(TdesEde3),
    Ede2(TdesEde2),
}

impl Reference {
    fn new(key: &[u8]) -> Reference {
        match key.len() {
            24 => Reference::Ede3(TdesEde3::new_from_slice(key).unwrap()),
            _ => Reference::Ede2(TdesEde2::new_from_slice(key).unwrap()),
        }
    }

    fn crypt(&self, data: &mut [u8], decrypt: bool) {
        for block in data.chunks_exact_mut(8) {
            let block = GenericArray::from_mut_slice(block);
            match (self, decrypt) {
                (Reference::Ede3(c), false) => c.encrypt_block(block),
                (Reference::Ede3(c), true) => c.decrypt_block(block),
                (Reference::Ede2(c), false) => c.encrypt_block(block),
                (Reference::Ede2(c), true) => c.decrypt_block(block),
            }
        }
    }
}

fn backends() -> Vec<Backend> {
    [Backend::Portable, Backend::Avx2, Backend::Avx512]
        .into_iter()
        .filter(|b| b.is_supported())
        .collect()
}

fn random_key(rng: &mut StdRng) -> Vec<u8> {
    let mut key = vec![0u8; if rng.gen() { 24 } else { 16 }];
    rng.fill_bytes(&mut key);
    key
}

#[test]
fn ecb_matches_rustcrypto_on_every_backend() {
    let mut rng = StdRng::seed_from_u64(0x3de5_b175);
    for backend in backends() {
        for round in 0..6 {
            let key = random_key(&mut rng);
            let ours = Tdes::with_backend(&key, backend).unwrap();
            assert_eq!(ours.backend(), backend);
            let theirs = Reference::new(&key);
            for &blocks in BLOCK_COUNTS {
                for decrypt in [false, true] {
                    // One spare byte in front makes the buffer misaligned for u64; three trailing
                    // bytes must stay untouched.
                    let mut buf = vec![0u8; 1 + blocks * 8 + 3];
                    rng.fill_bytes(&mut buf);
                    let mut expect = buf.clone();
                    theirs.crypt(&mut expect[1..1 + blocks * 8], decrypt);
                    let data = &mut buf[1..];
                    if decrypt {
                        ours.decrypt_blocks(data);
                    } else {
                        ours.encrypt_blocks(data);
                    }
                    assert_eq!(
                        buf,
                        expect,
                        "{} key {} bytes, {blocks} blocks, decrypt {decrypt}, round {round}",
                        backend.name(),
                        key.len()
                    );
                }
            }
        }
    }
}

/// Every block count from 1 to 600 on every backend: the batch plan (full batches of the widest
/// width, then one batch of the narrowest width that holds the rest) changes at 64, 256 and 512
/// blocks, and the table path ends at the bitsliced threshold. One key per backend and key length;
/// the direction alternates with the count.
#[test]
fn ecb_every_block_count_to_600_matches_rustcrypto() {
    let mut rng = StdRng::seed_from_u64(0x3de5_0600);
    for backend in backends() {
        let keys: Vec<Vec<u8>> = [16, 24]
            .into_iter()
            .map(|n| {
                let mut k = vec![0u8; n];
                rng.fill_bytes(&mut k);
                k
            })
            .collect();
        let ours: Vec<Tdes> = keys
            .iter()
            .map(|k| Tdes::with_backend(k, backend).unwrap())
            .collect();
        let theirs: Vec<Reference> = keys.iter().map(|k| Reference::new(k)).collect();
        let mut buf = vec![0u8; 600 * 8];
        for blocks in 1..=600usize {
            let which = blocks % 2;
            let decrypt = (blocks / 2) % 2 == 1;
            let data = &mut buf[..blocks * 8];
            rng.fill_bytes(data);
            let mut expect = data.to_vec();
            theirs[which].crypt(&mut expect, decrypt);
            if decrypt {
                ours[which].decrypt_blocks(data);
            } else {
                ours[which].encrypt_blocks(data);
            }
            assert!(
                *data == expect[..],
                "{} key {} bytes, {blocks} blocks, decrypt {decrypt}",
                backend.name(),
                keys[which].len()
            );
        }
    }
}

/// CTR (`mode::ctr::apply`, which hands the message to `Tdes::ctr_xor`'s full-width batches) on
/// every backend against a block-at-a-time RustCrypto key stream: lengths on both sides of the
/// bitsliced threshold and of the 64 / 256 / 512-block batch widths, partial final blocks, counters
/// that cross a 2^32 and the 2^64 boundary, misaligned buffers.
#[test]
fn ctr_matches_rustcrypto_on_every_backend() {
    let mut rng = StdRng::seed_from_u64(0x3de5_c7a0);
    for backend in backends() {
        for (round, start) in [0u64, 0xffff_fff0, u64::MAX - 20, 0x0123_4567_89ab_cdef]
            .into_iter()
            .enumerate()
        {
            let key = random_key(&mut rng);
            let ours = Tdes::with_backend(&key, backend).unwrap();
            let theirs = Reference::new(&key);
            for &blocks in BLOCK_COUNTS {
                for extra in [0, 5] {
                    let len = (blocks * 8 + extra).saturating_sub(if blocks > 0 { 8 } else { 0 });
                    let mut buf = vec![0u8; 1 + len];
                    rng.fill_bytes(&mut buf);
                    let mut expect = buf.clone();
                    let mut keystream: Vec<u8> = (0..len.div_ceil(8) as u64)
                        .flat_map(|i| start.wrapping_add(i).to_be_bytes())
                        .collect();
                    theirs.crypt(&mut keystream, false);
                    for (b, k) in expect[1..].iter_mut().zip(&keystream) {
                        *b ^= k;
                    }
                    shifr::hazmat::mode::ctr::apply(&ours, &start.to_be_bytes(), &mut buf[1..])
                        .unwrap();
                    assert_eq!(
                        buf,
                        expect,
                        "{} key {} bytes, {len} bytes, start {start:#x}, round {round}",
                        backend.name(),
                        key.len()
                    );
                }
            }
        }
    }
}

#[test]
fn both_keying_options_round_trip_and_agree_across_backends() {
    let mut rng = StdRng::seed_from_u64(0x3de5_0002);
    let mut k16 = [0u8; 16];
    rng.fill_bytes(&mut k16);
    // Keying option 2 given as 16 bytes and as 24 bytes with K3 = K1 is the same cipher.
    let mut k24 = [0u8; 24];
    k24[..16].copy_from_slice(&k16);
    k24[16..].copy_from_slice(&k16[..8]);
    let mut pt = vec![0u8; 777 * 8];
    rng.fill_bytes(&mut pt);
    let mut outputs = Vec::new();
    for backend in backends() {
        for key in [&k16[..], &k24[..]] {
            let c = Tdes::with_backend(key, backend).unwrap();
            assert_eq!(c.keying_option(), 2);
            let mut data = pt.clone();
            c.encrypt_blocks(&mut data);
            outputs.push(data.clone());
            c.decrypt_blocks(&mut data);
            assert_eq!(data, pt, "{} round trip", backend.name());
        }
    }
    assert!(outputs.windows(2).all(|w| w[0] == w[1]));
    assert_ne!(outputs[0], pt);
}

#[test]
fn lanes_with_own_keys_match_rustcrypto() {
    let mut rng = StdRng::seed_from_u64(0x3de5_1a7e);
    for backend in backends() {
        for lanes in [
            1,
            2,
            BITSLICE_MIN_BLOCKS - 1,
            BITSLICE_MIN_BLOCKS,
            17,
            64,
            65,
            300,
            600,
        ] {
            let keys: Vec<Vec<u8>> = (0..lanes).map(|_| random_key(&mut rng)).collect();
            let ours: Vec<Tdes> = keys
                .iter()
                .map(|k| Tdes::with_backend(k, backend).unwrap())
                .collect();
            let refs: Vec<&Tdes> = ours.iter().collect();
            for decrypt in [false, true] {
                // Two extra blocks beyond the lanes are left untouched.
                let mut data = vec![0u8; (lanes + 2) * 8];
                rng.fill_bytes(&mut data);
                let mut expect = data.clone();
                for (key, block) in keys.iter().zip(expect.chunks_exact_mut(8)) {
                    Reference::new(key).crypt(block, decrypt);
                }
                if decrypt {
                    Tdes::decrypt_lanes(&refs, &mut data);
                } else {
                    Tdes::encrypt_lanes(&refs, &mut data);
                }
                assert_eq!(
                    data,
                    expect,
                    "{} {lanes} lanes, decrypt {decrypt}",
                    backend.name()
                );
            }
        }
    }
}

#[test]
fn lanes_with_fewer_blocks_than_ciphers_use_only_the_blocks() {
    let mut rng = StdRng::seed_from_u64(0x3de5_0003);
    let keys: Vec<Vec<u8>> = (0..40).map(|_| random_key(&mut rng)).collect();
    let ours: Vec<Tdes> = keys.iter().map(|k| Tdes::new(k).unwrap()).collect();
    let refs: Vec<&Tdes> = ours.iter().collect();
    // 20 whole blocks and 5 stray bytes for 40 ciphers.
    let mut data = vec![0u8; 20 * 8 + 5];
    rng.fill_bytes(&mut data);
    let mut expect = data.clone();
    for (key, block) in keys.iter().zip(expect.chunks_exact_mut(8)) {
        Reference::new(key).crypt(block, false);
    }
    Tdes::encrypt_lanes(&refs, &mut data);
    assert_eq!(data, expect);
    Tdes::encrypt_lanes(&[], &mut data);
    assert_eq!(data, expect);
}

#[test]
fn unknown_backend_is_refused() {
    assert!(matches!(
        Tdes::with_backend(&[0u8; 24], Backend::AesNi),
        Err(shifr::Error::BackendUnavailable(_))
    ));
}
