//! Differential tests: shifr's AES (both backends) against RustCrypto `aes` on random keys of all
//! three sizes and random multi-block data.

use aes::cipher::{generic_array::GenericArray, BlockDecrypt, BlockEncrypt, KeyInit as _};
use rand::{rngs::StdRng, Rng, RngCore, SeedableRng};
use shifr::cpu::Backend;
use shifr::hazmat::block::aes::Aes;
use shifr::hazmat::block::{BlockCipher, KeyInit};

/// Block counts around the four-block (portable) and eight-block (AES-NI) batch sizes.
const BLOCK_COUNTS: &[usize] = &[0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 257];

fn backends() -> Vec<Backend> {
    let mut v = vec![Backend::Portable];
    if Backend::AesNi.is_supported() {
        v.push(Backend::AesNi);
    } else {
        println!("AES-NI not available on this CPU: testing the portable backend only");
    }
    v
}

fn rng() -> StdRng {
    let seed = rand::random::<u64>();
    println!("seed {seed}");
    StdRng::seed_from_u64(seed)
}

/// RustCrypto's AES, block by block.
fn reference(key: &[u8], data: &mut [u8], decrypt: bool) {
    macro_rules! run {
        ($cipher:ty) => {{
            let c = <$cipher>::new_from_slice(key).expect("key size");
            for block in data.chunks_exact_mut(16) {
                let b = GenericArray::from_mut_slice(block);
                if decrypt {
                    c.decrypt_block(b);
                } else {
                    c.encrypt_block(b);
                }
            }
        }};
    }
    match key.len() {
        16 => run!(aes::Aes128),
        24 => run!(aes::Aes192),
        32 => run!(aes::Aes256),
        n => panic!("unexpected key length {n}"),
    }
}

#[test]
fn matches_rustcrypto_on_random_keys_and_data() {
    let mut rng = rng();
    for key_len in [16usize, 24, 32] {
        for &blocks in BLOCK_COUNTS {
            let mut key = vec![0u8; key_len];
            rng.fill_bytes(&mut key);
            // A tail of 0..=15 extra bytes that must be left alone.
            let tail = rng.gen_range(0..16);
            let mut pt = vec![0u8; blocks * 16 + tail];
            rng.fill_bytes(&mut pt);

            let mut expect = pt.clone();
            reference(&key, &mut expect[..blocks * 16], false);

            for backend in backends() {
                let aes = Aes::with_backend(&key, backend).unwrap();
                assert_eq!((aes.backend(), aes.key_len()), (backend, key_len));
                let mut data = pt.clone();
                aes.encrypt_blocks(&mut data);
                assert_eq!(data, expect, "{backend:?} key {key_len} blocks {blocks}");
                aes.decrypt_blocks(&mut data);
                assert_eq!(
                    data, pt,
                    "{backend:?} decrypt key {key_len} blocks {blocks}"
                );
            }
        }
    }
}

/// Byte lengths 0, 1, block - 1, block, block + 1 and several KiB: whole blocks are processed, the
/// rest is left as it was.
#[test]
fn edge_lengths_process_whole_blocks_only() {
    let mut rng = rng();
    for key_len in [16usize, 24, 32] {
        let mut key = vec![0u8; key_len];
        rng.fill_bytes(&mut key);
        for len in [0usize, 1, 15, 16, 17, 4096 + 5] {
            let mut pt = vec![0u8; len];
            rng.fill_bytes(&mut pt);
            let whole = len - len % 16;
            let mut expect = pt.clone();
            reference(&key, &mut expect[..whole], false);
            for backend in backends() {
                let aes = Aes::with_backend(&key, backend).unwrap();
                let mut data = pt.clone();
                aes.encrypt_blocks(&mut data);
                assert_eq!(data, expect, "{backend:?} key {key_len} len {len}");
                aes.decrypt_blocks(&mut data);
                assert_eq!(data, pt, "{backend:?} key {key_len} len {len}");
            }
        }
    }
}

#[test]
fn decryption_matches_rustcrypto_on_random_ciphertext() {
    let mut rng = rng();
    for key_len in [16usize, 24, 32] {
        let mut key = vec![0u8; key_len];
        rng.fill_bytes(&mut key);
        let mut ct = vec![0u8; 16 * 37];
        rng.fill_bytes(&mut ct);
        let mut expect = ct.clone();
        reference(&key, &mut expect, true);
        for backend in backends() {
            let mut data = ct.clone();
            Aes::with_backend(&key, backend)
                .unwrap()
                .decrypt_blocks(&mut data);
            assert_eq!(data, expect, "{backend:?} key {key_len}");
        }
    }
}

#[test]
fn portable_and_aesni_agree_on_random_inputs() {
    if !Backend::AesNi.is_supported() {
        println!("AES-NI not available on this CPU: skipping the backend comparison");
        return;
    }
    let mut rng = rng();
    for _ in 0..50 {
        let key_len = [16usize, 24, 32][rng.gen_range(0..3)];
        let mut key = vec![0u8; key_len];
        rng.fill_bytes(&mut key);
        let mut data = vec![0u8; 16 * rng.gen_range(0..100)];
        rng.fill_bytes(&mut data);
        let soft = Aes::with_backend(&key, Backend::Portable).unwrap();
        let ni = Aes::with_backend(&key, Backend::AesNi).unwrap();
        let (mut a, mut b) = (data.clone(), data.clone());
        soft.encrypt_blocks(&mut a);
        ni.encrypt_blocks(&mut b);
        assert_eq!(a, b);
        soft.decrypt_blocks(&mut a);
        ni.decrypt_blocks(&mut b);
        assert_eq!((&a, &b), (&data, &data));
    }
}

#[test]
fn key_init_and_lanes() {
    let mut rng = rng();
    let keys: Vec<Vec<u8>> = (0..5)
        .map(|i| {
            let mut k = vec![0u8; [16, 24, 32][i % 3]];
            rng.fill_bytes(&mut k);
            k
        })
        .collect();
    let ciphers: Vec<Aes> = keys
        .iter()
        .map(|k| Aes::new_from_slice(k).unwrap())
        .collect();
    let refs: Vec<&Aes> = ciphers.iter().collect();
    let mut blocks = vec![0u8; 16 * keys.len()];
    rng.fill_bytes(&mut blocks);
    let mut expect = blocks.clone();
    for (k, b) in keys.iter().zip(expect.chunks_exact_mut(16)) {
        reference(k, b, false);
    }
    let mut lanes = blocks.clone();
    Aes::encrypt_lanes(&refs, &mut lanes);
    assert_eq!(lanes, expect);
    Aes::decrypt_lanes(&refs, &mut lanes);
    assert_eq!(lanes, blocks);
    assert_eq!(<Aes as KeyInit>::KEY_SIZES, &[16, 24, 32]);
}

/// `SHIFR_BACKEND=portable` must make `Aes::new` pick the portable backend. The variable is read
/// once per process, so the check runs in a child process of this test binary.
#[test]
fn environment_forces_portable_backend() {
    const MARK: &str = "SHIFR_AES_DIFF_CHILD";
    if std::env::var(MARK).is_ok() {
        assert_eq!(std::env::var("SHIFR_BACKEND").as_deref(), Ok("portable"));
        let aes = Aes::new(&[7u8; 16]).unwrap();
        assert_eq!(aes.backend(), Backend::Portable);
        return;
    }
    let exe = std::env::current_exe().expect("test binary path");
    let out = std::process::Command::new(exe)
        .args([
            "--exact",
            "environment_forces_portable_backend",
            "--nocapture",
        ])
        .env(MARK, "1")
        .env("SHIFR_BACKEND", "portable")
        .output()
        .expect("run child test");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child failed: {stdout}");
    assert!(
        stdout.contains("1 passed"),
        "child did not run the test: {stdout}"
    );
}
