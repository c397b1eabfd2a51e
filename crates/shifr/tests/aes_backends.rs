//! Every AES backend this CPU has (AES-NI, 256-bit VAES, 512-bit VAES) against the portable oracle
//! and RustCrypto: ECB both ways, multi-stream lanes with many keys, GCM seal/open (which uses the
//! one-pass VAES CTR and the wide GHASH, or the stitched VAES-512 + VPCLMULQDQ loop), CTR (the
//! one-pass 128-bit counter path), on random keys and IVs, odd lengths and misaligned buffers.

use aes_gcm::aead::consts::U16;
use aes_gcm::aead::{AeadInPlace, KeyInit as _};
use aes_gcm::aes::{Aes128, Aes192, Aes256};
use aes_gcm::{AesGcm as RefGcm, Nonce};
use rand::{rngs::StdRng, Rng, RngCore, SeedableRng};
use shifr::aead::gcm::AesGcm;
use shifr::aead::Aead;
use shifr::cpu::Backend;
use shifr::hazmat::block::aes::Aes;
use shifr::hazmat::block::BlockCipher;
use shifr::hazmat::mode::{ctr, multistream};

/// Byte lengths: empty, sub-block, around one block, and past every batch size (8 and 32 blocks
/// per pass, 16-block GHASH groups, 512-byte GCM pieces).
const LENGTHS: &[usize] = &[
    0,
    1,
    15,
    16,
    17,
    31,
    33,
    63,
    64,
    65,
    127,
    128,
    129,
    192,
    193,
    255,
    256,
    257,
    271,
    272,
    273,
    288,
    511,
    513,
    1024 + 48,
    4096 + 13,
];

/// The fast backends to compare; those this CPU lacks are reported and skipped.
fn fast_backends() -> Vec<Backend> {
    let mut v = Vec::new();
    for b in [Backend::AesNi, Backend::Vaes, Backend::Avx512] {
        match Aes::with_backend(&[0; 16], b) {
            Ok(_) => v.push(b),
            Err(_) => println!("{} not available on this CPU: skipped", b.name()),
        }
    }
    v
}

fn rng() -> StdRng {
    let seed = rand::random::<u64>();
    println!("seed {seed}");
    StdRng::seed_from_u64(seed)
}

fn random(rng: &mut StdRng, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    rng.fill_bytes(&mut v);
    v
}

/// A copy of `data` placed at byte offset `offset` of a larger buffer (to test misalignment).
fn at_offset(data: &[u8], offset: usize) -> Vec<u8> {
    let mut v = vec![0xa5u8; offset];
    v.extend_from_slice(data);
    v
}

#[test]
fn ecb_both_ways_match_portable_on_odd_lengths_and_offsets() {
    let mut rng = rng();
    for backend in fast_backends() {
        for key_len in [16, 24, 32] {
            let key = random(&mut rng, key_len);
            let fast = Aes::with_backend(&key, backend).unwrap();
            assert_eq!(fast.backend(), backend);
            let oracle = Aes::with_backend(&key, Backend::Portable).unwrap();
            for &len in LENGTHS {
                let offset = rng.gen_range(0..16);
                let data = random(&mut rng, len);
                let mut expect = data.clone();
                oracle.encrypt_blocks(&mut expect);

                let mut buf = at_offset(&data, offset);
                fast.encrypt_blocks(&mut buf[offset..]);
                assert_eq!(buf[offset..], expect[..], "{backend:?} {key_len} len {len}");
                assert!(buf[..offset].iter().all(|&b| b == 0xa5));

                fast.decrypt_blocks(&mut buf[offset..]);
                assert_eq!(buf[offset..], data[..], "{backend:?} decrypt len {len}");
            }
        }
    }
}

#[test]
fn lanes_with_many_keys_match_one_by_one() {
    let mut rng = rng();
    for backend in fast_backends() {
        for streams in [1usize, 2, 7, 8, 9, 16, 17, 64, 65, 130] {
            // Same key size everywhere (the interleaved path) or mixed sizes (the fallback).
            for mixed in [false, true] {
                let keys: Vec<Vec<u8>> = (0..streams)
                    .map(|i| random(&mut rng, if mixed { [16, 24, 32][i % 3] } else { 32 }))
                    .collect();
                let ciphers: Vec<Aes> = keys
                    .iter()
                    .map(|k| Aes::with_backend(k, backend).unwrap())
                    .collect();
                let refs: Vec<&Aes> = ciphers.iter().collect();
                let offset = rng.gen_range(0..16);
                // One extra block past the lanes, which must be left alone.
                let data = random(&mut rng, 16 * (streams + 1));
                let mut expect = data.clone();
                for (k, block) in keys.iter().zip(expect.chunks_exact_mut(16)) {
                    Aes::with_backend(k, Backend::Portable)
                        .unwrap()
                        .encrypt_blocks(block);
                }
                let mut buf = at_offset(&data, offset);
                Aes::encrypt_lanes(&refs, &mut buf[offset..]);
                assert_eq!(
                    buf[offset..],
                    expect[..],
                    "{backend:?} {streams} mixed {mixed}"
                );
                Aes::decrypt_lanes(&refs, &mut buf[offset..]);
                assert_eq!(buf[offset..], data[..], "{backend:?} {streams} decrypt");
            }
        }
    }
}

/// Multi-stream CBC on every backend against the portable one: streams of random lengths (the
/// lane walk) and streams of one length in counts of 4, 16, 20 and 7 (the 512-bit VAES kernel takes
/// multiples of four, sixteen interleaved, and hands the others back), every key size.
#[test]
fn multistream_cbc_matches_portable_streams() {
    let mut rng = rng();
    let shapes = [
        (16, None),
        (4, Some(1)),
        (16, Some(33)),
        (20, Some(7)),
        (7, Some(5)),
    ];
    for (backend, (streams, equal_blocks)) in fast_backends()
        .into_iter()
        .flat_map(|b| shapes.map(|shape| (b, shape)))
    {
        let key_len = [16, 24, 32][rng.gen_range(0..3)];
        let keys: Vec<Vec<u8>> = (0..streams).map(|_| random(&mut rng, key_len)).collect();
        let ivs: Vec<Vec<u8>> = (0..streams).map(|_| random(&mut rng, 16)).collect();
        let lens: Vec<usize> = (0..streams)
            .map(|_| 16 * equal_blocks.unwrap_or_else(|| rng.gen_range(0..40)))
            .collect();
        let data: Vec<Vec<u8>> = lens.iter().map(|&n| random(&mut rng, n)).collect();
        let run = |b: Backend| {
            let ciphers: Vec<Aes> = keys
                .iter()
                .map(|k| Aes::with_backend(k, b).unwrap())
                .collect();
            let refs: Vec<&Aes> = ciphers.iter().collect();
            let iv_refs: Vec<&[u8]> = ivs.iter().map(Vec::as_slice).collect();
            let mut bufs = data.clone();
            let mut buf_refs: Vec<&mut [u8]> = bufs.iter_mut().map(Vec::as_mut_slice).collect();
            multistream::cbc_encrypt(&refs, &iv_refs, &mut buf_refs).unwrap();
            bufs
        };
        assert_eq!(
            run(backend),
            run(Backend::Portable),
            "{backend:?} {streams} streams of {equal_blocks:?} blocks, key {key_len}"
        );
    }
}

fn reference_seal(key: &[u8], iv: &[u8], aad: &[u8], data: &mut [u8]) -> Vec<u8> {
    macro_rules! seal {
        ($aes:ty) => {{
            let c = RefGcm::<$aes, U16>::new_from_slice(key).unwrap();
            c.encrypt_in_place_detached(Nonce::<U16>::from_slice(iv), aad, data)
                .unwrap()
                .to_vec()
        }};
    }
    match key.len() {
        16 => seal!(Aes128),
        24 => seal!(Aes192),
        _ => seal!(Aes256),
    }
}

#[test]
fn gcm_matches_rustcrypto_and_portable_on_every_backend() {
    let mut rng = rng();
    for backend in fast_backends() {
        for key_len in [16, 24, 32] {
            let key = random(&mut rng, key_len);
            let gcm = AesGcm::with_backend(&key, 16, backend).unwrap();
            let oracle = AesGcm::with_backend(&key, 16, Backend::Portable).unwrap();
            for &len in LENGTHS.iter().chain(&[16 * 16 * 3 + 5, 16384]) {
                let aad_len = rng.gen_range(0..300);
                let aad = random(&mut rng, aad_len);
                let data = random(&mut rng, len);
                let offset = rng.gen_range(0..16);

                // 16-byte IVs (hashed into J0, so the counter starts anywhere) against RustCrypto.
                let iv16 = random(&mut rng, 16);
                let mut expect = data.clone();
                let ref_tag = reference_seal(&key, &iv16, &aad, &mut expect);
                let mut buf = at_offset(&data, offset);
                let tag = gcm.seal(&iv16, &aad, &mut buf[offset..]).unwrap();
                assert_eq!(buf[offset..], expect[..], "{backend:?} ct len {len}");
                assert_eq!(tag.as_ref(), &ref_tag[..], "{backend:?} tag len {len}");
                gcm.open(&iv16, &aad, &mut buf[offset..], tag.as_ref())
                    .unwrap();
                assert_eq!(buf[offset..], data[..]);

                // 12-byte IVs against the portable backend.
                let iv12 = random(&mut rng, 12);
                let mut a = data.clone();
                let mut b = at_offset(&data, offset);
                let ta = oracle.seal(&iv12, &aad, &mut a).unwrap();
                let tb = gcm.seal(&iv12, &aad, &mut b[offset..]).unwrap();
                assert_eq!((b[offset..].to_vec(), tb.as_ref()), (a, ta.as_ref()));
            }
        }
    }
}

/// SP 800-38A CTR (`mode::ctr::apply`, the whole block a big-endian counter) on every backend
/// against the portable backend and RustCrypto `ctr`, at odd lengths and offsets, from random
/// counters and from counters whose low 64 bits, or all 128 bits, wrap inside the message (the
/// 512-bit VAES path steps the low half with 64-bit adds and must hand such messages back).
#[test]
fn ctr_matches_rustcrypto_and_portable_on_every_backend() {
    use cipher::{KeyIvInit, StreamCipher};
    let mut rng = rng();
    let low_wrap = {
        let mut c = random(&mut rng, 16);
        c[8..].copy_from_slice(&(u64::MAX - 2).to_be_bytes());
        c
    };
    for backend in fast_backends() {
        for key_len in [16, 24, 32] {
            let key = random(&mut rng, key_len);
            let fast = Aes::with_backend(&key, backend).unwrap();
            let oracle = Aes::with_backend(&key, Backend::Portable).unwrap();
            for &len in LENGTHS.iter().chain(&[16384 + 3]) {
                for counter in [random(&mut rng, 16), low_wrap.clone(), vec![0xff; 16]] {
                    let data = random(&mut rng, len);
                    let offset = rng.gen_range(0..16);
                    let mut expect = data.clone();
                    ctr::apply(&oracle, &counter, &mut expect).unwrap();
                    let mut buf = at_offset(&data, offset);
                    ctr::apply(&fast, &counter, &mut buf[offset..]).unwrap();
                    let what = format!("{backend:?} key {key_len} len {len} ctr {counter:02x?}");
                    assert_eq!(buf[offset..], expect[..], "{what}");
                    assert!(buf[..offset].iter().all(|&b| b == 0xa5));

                    let mut theirs = data.clone();
                    match key_len {
                        16 => ::ctr::Ctr128BE::<Aes128>::new(key[..].into(), counter[..].into())
                            .apply_keystream(&mut theirs),
                        24 => ::ctr::Ctr128BE::<Aes192>::new(key[..].into(), counter[..].into())
                            .apply_keystream(&mut theirs),
                        _ => ::ctr::Ctr128BE::<Aes256>::new(key[..].into(), counter[..].into())
                            .apply_keystream(&mut theirs),
                    }
                    assert_eq!(theirs, expect, "RustCrypto {what}");
                }
            }
        }
    }
}
