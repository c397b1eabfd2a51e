//! The engine's split AEADs (AES-GCM, MGM with Magma and Kuznyechik) give the ciphertext and tag
//! of the single-thread `seal` and of RustCrypto (`aes-gcm`, `mgm`) for 1..=5 threads, on random
//! keys, nonces, AAD and message lengths, on every backend this CPU has (each cipher backend
//! forced in turn; the MGM multiplier and GHASH also through `SHIFR_BACKEND=portable` in a child
//! process). `open` returns the plaintext for every thread count and rejects a tampered tag,
//! ciphertext or AAD leaving the buffer untouched.

use aes_gcm::aead::consts::{U12, U16};
use aes_gcm::aead::{AeadInPlace, KeyInit};
use aes_gcm::aes::{Aes128, Aes192, Aes256};
use mgm::aead::generic_array::GenericArray;
use mgm::aead::{AeadInPlace as MgmAeadInPlace, NewAead};
use rand::rngs::StdRng;
use rand::{RngCore, SeedableRng};
use shifr::aead::gcm::AesGcm;
use shifr::aead::mgm::Mgm;
use shifr::aead::{Aead, Tag};
use shifr::cpu::Backend;
use shifr::hazmat::block::kuznyechik::Kuznyechik;
use shifr::hazmat::block::magma::{Magma, SBox};
use shifr::hazmat::block::BlockCipher;
use shifr::parallel::Engine;
use shifr::Error;

/// Split from this many bytes, so that the longer messages below really are split.
const MIN_PARALLEL: usize = 256;

const AAD_LENS: &[usize] = &[0, 1, 13, 17, 100];

/// Around one block, several KiB, and lengths above [`MIN_PARALLEL`] that leave partial blocks and
/// parts longer than the stitched GCM loop's 512-byte group.
const TEXT_LENS: &[usize] = &[0, 1, 15, 16, 17, 4096 + 3, 300, 1601, 16384 + 5];

/// Marks the child process that reruns the tests under `SHIFR_BACKEND=portable`.
const CHILD: &str = "SHIFR_ENGINE_AEAD_CHILD";

fn rng() -> StdRng {
    let seed = rand::random::<u64>();
    println!("seed {seed}");
    StdRng::seed_from_u64(seed)
}

fn random_bytes(rng: &mut StdRng, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    rng.fill_bytes(&mut v);
    v
}

fn engines() -> Vec<Engine> {
    (1..=5)
        .map(|t| Engine::new(t).with_min_parallel(MIN_PARALLEL))
        .collect()
}

/// The backends `make` accepts on this CPU (portable always).
fn backends<T>(make: impl Fn(Backend) -> shifr::Result<T>) -> Vec<Backend> {
    Backend::ALL
        .iter()
        .copied()
        .filter(|&b| make(b).is_ok())
        .collect()
}

/// RustCrypto AES-GCM (12-byte nonce, 16-byte tag): (ciphertext, tag).
fn reference_gcm(key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8]) -> (Vec<u8>, Vec<u8>) {
    macro_rules! run {
        ($aes:ty) => {{
            let c = aes_gcm::AesGcm::<$aes, U12, U16>::new_from_slice(key).expect("key size");
            let mut buf = pt.to_vec();
            let tag = c
                .encrypt_in_place_detached(aes_gcm::Nonce::<U12>::from_slice(nonce), aad, &mut buf)
                .expect("reference seal");
            (buf, tag.to_vec())
        }};
    }
    match key.len() {
        16 => run!(Aes128),
        24 => run!(Aes192),
        _ => run!(Aes256),
    }
}

/// RustCrypto MGM over its own Magma or Kuznyechik: (ciphertext, tag).
fn reference_mgm(n: usize, key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8]) -> (Vec<u8>, Vec<u8>) {
    macro_rules! run {
        ($cipher:ty) => {{
            let c = <mgm::Mgm<$cipher>>::new(GenericArray::from_slice(key));
            let mut buf = pt.to_vec();
            let tag = c
                .encrypt_in_place_detached(GenericArray::from_slice(nonce), aad, &mut buf)
                .expect("reference seal");
            (buf, tag.to_vec())
        }};
    }
    if n == 8 {
        run!(magma_mgm::Magma)
    } else {
        run!(kuznyechik_mgm::Kuznyechik)
    }
}

/// Seal and open under one engine, compared with the expected (ciphertext, tag); then every kind
/// of tampering (when the message is long enough to be split) must fail and leave the data alone.
fn check_engine<A: Aead>(
    label: &str,
    aead: &A,
    seal: impl Fn(&A, &[u8], &[u8], &mut [u8]) -> shifr::Result<Tag>,
    open: impl Fn(&A, &[u8], &[u8], &mut [u8], &[u8]) -> shifr::Result<()>,
    (nonce, aad, pt): (&[u8], &[u8], &[u8]),
    (ct, tag): (&[u8], &[u8]),
) {
    let mut data = pt.to_vec();
    let ours = seal(aead, nonce, aad, &mut data).unwrap();
    assert_eq!(data, ct, "{label}: ciphertext");
    assert_eq!(ours.as_ref(), tag, "{label}: tag");
    open(aead, nonce, aad, &mut data, tag).unwrap();
    assert_eq!(data, pt, "{label}: open");

    if pt.len() < MIN_PARALLEL {
        return;
    }
    let mut bad_tag = tag.to_vec();
    bad_tag[tag.len() - 1] ^= 0x01;
    let mut data = ct.to_vec();
    assert_eq!(
        open(aead, nonce, aad, &mut data, &bad_tag),
        Err(Error::AuthenticationFailed),
        "{label}: bad tag"
    );
    assert_eq!(data, ct, "{label}: bad tag left data alone");
    // A flipped bit in the first and in the last part.
    for at in [0, ct.len() - 1] {
        let mut data = ct.to_vec();
        data[at] ^= 0x20;
        let tampered = data.clone();
        assert_eq!(
            open(aead, nonce, aad, &mut data, tag),
            Err(Error::AuthenticationFailed),
            "{label}: ciphertext byte {at}"
        );
        assert_eq!(data, tampered, "{label}: tampered ciphertext left alone");
    }
    let mut bad_aad = aad.to_vec();
    bad_aad.push(0);
    let mut data = ct.to_vec();
    assert_eq!(
        open(aead, nonce, &bad_aad, &mut data, tag),
        Err(Error::AuthenticationFailed),
        "{label}: longer AAD"
    );
    assert_eq!(data, ct, "{label}: bad AAD left data alone");
    assert!(matches!(
        open(aead, nonce, aad, &mut data, &tag[..tag.len() - 1]),
        Err(Error::InvalidTagLength { .. })
    ));
    assert_eq!(data, ct);
}

#[test]
fn gcm_split_matches_single_thread_and_rustcrypto() {
    let mut rng = rng();
    for key_len in [16usize, 24, 32] {
        let key = random_bytes(&mut rng, key_len);
        for backend in backends(|b| AesGcm::with_backend(&key, 16, b)) {
            let gcm = AesGcm::with_backend(&key, 16, backend).unwrap();
            for &aad_len in AAD_LENS {
                for &len in TEXT_LENS {
                    let nonce = random_bytes(&mut rng, 12);
                    let aad = random_bytes(&mut rng, aad_len);
                    let pt = random_bytes(&mut rng, len);
                    let (ct, tag) = reference_gcm(&key, &nonce, &aad, &pt);
                    let mut single = pt.clone();
                    let single_tag = gcm.seal(&nonce, &aad, &mut single).unwrap();
                    assert_eq!((&single, single_tag.as_ref()), (&ct, &tag[..]));
                    for e in engines() {
                        let label = format!(
                            "aes-{} gcm {backend:?}, {} threads, aad {aad_len}, text {len}",
                            key_len * 8,
                            e.threads()
                        );
                        check_engine(
                            &label,
                            &gcm,
                            |a, n, d, m| e.seal(a, n, d, m),
                            |a, n, d, m, t| e.open(a, n, d, m, t),
                            (&nonce, &aad, &pt),
                            (&ct, &tag),
                        );
                    }
                }
            }
        }
    }
}

/// Non-96-bit nonces (J0 from GHASH), a 12-byte tag and the default 1 MiB threshold, against the
/// single-thread call; and the errors the single-thread call gives.
#[test]
fn gcm_split_other_shapes_and_errors() {
    let mut rng = rng();
    let key = random_bytes(&mut rng, 32);
    let gcm = AesGcm::new(&key, 12).unwrap();
    let pt = random_bytes(&mut rng, (1 << 20) + 77);
    let aad = random_bytes(&mut rng, 40);
    for nonce_len in [1usize, 8, 16, 60] {
        let nonce = random_bytes(&mut rng, nonce_len);
        let mut expect = pt.clone();
        let tag = gcm.seal(&nonce, &aad, &mut expect).unwrap();
        for threads in [2, 3] {
            let e = Engine::new(threads);
            let mut data = pt.clone();
            let got = e.seal(&gcm, &nonce, &aad, &mut data).unwrap();
            assert!(got.ct_eq(tag), "nonce {nonce_len}, {threads} threads: tag");
            assert!(data == expect, "nonce {nonce_len}, {threads} threads");
            e.open(&gcm, &nonce, &aad, &mut data, tag.as_ref()).unwrap();
            assert!(data == pt);
        }
    }
    let e = Engine::new(3).with_min_parallel(1);
    let mut data = pt[..1000].to_vec();
    assert!(matches!(
        e.seal(&gcm, &[], &aad, &mut data),
        Err(Error::InvalidNonceLength { .. })
    ));
    assert!(matches!(
        e.open(&gcm, &[0; 12], &aad, &mut data, &[0; 16]),
        Err(Error::InvalidTagLength { .. })
    ));
    assert!(data == pt[..1000]);
}

fn check_mgm<C: BlockCipher>(label: &str, mgm: &Mgm<C>, n: usize, key: &[u8], rng: &mut StdRng) {
    for &aad_len in AAD_LENS {
        for &len in TEXT_LENS {
            if aad_len + len == 0 {
                // RFC 9058 rejects an empty message with empty AAD (checked below).
                continue;
            }
            let mut nonce = random_bytes(rng, n);
            nonce[0] &= 0x7f;
            let aad = random_bytes(rng, aad_len);
            let pt = random_bytes(rng, len);
            let (ct, tag) = reference_mgm(n, key, &nonce, &aad, &pt);
            let mut single = pt.clone();
            let single_tag = mgm.seal(&nonce, &aad, &mut single).unwrap();
            assert_eq!((&single, single_tag.as_ref()), (&ct, &tag[..]), "{label}");
            for e in engines() {
                let label = format!(
                    "{label}, {} threads, aad {aad_len}, text {len}",
                    e.threads()
                );
                check_engine(
                    &label,
                    mgm,
                    |a, n, d, m| e.seal(a, n, d, m),
                    |a, n, d, m, t| e.open(a, n, d, m, t),
                    (&nonce, &aad, &pt),
                    (&ct, &tag),
                );
            }
        }
    }
    let e = Engine::new(4).with_min_parallel(1);
    let mut empty = [];
    assert!(matches!(
        e.seal(mgm, &vec![0u8; n], &[], &mut empty),
        Err(Error::InvalidParameter(_))
    ));
    let mut data = vec![5u8; 1000];
    let mut bad_nonce = vec![0u8; n];
    bad_nonce[0] = 0x80;
    assert!(matches!(
        e.seal(mgm, &bad_nonce, &[], &mut data),
        Err(Error::InvalidParameter(_))
    ));
    assert!(matches!(
        e.open(mgm, &vec![0u8; n], &[], &mut data, &[0u8; 3]),
        Err(Error::InvalidTagLength { .. })
    ));
    assert_eq!(data, vec![5u8; 1000]);
}

#[test]
fn mgm_split_matches_single_thread_and_rustcrypto() {
    let mut rng = rng();
    let key = random_bytes(&mut rng, 32);
    for b in backends(|b| Magma::with_backend(&key, SBox::Tc26Z, b)) {
        let mgm = Mgm::new(Magma::with_backend(&key, SBox::Tc26Z, b).unwrap(), 8).unwrap();
        check_mgm(&format!("magma-mgm {b:?}"), &mgm, 8, &key, &mut rng);
    }
    for b in backends(|b| Kuznyechik::with_backend(&key, b)) {
        let mgm = Mgm::new(Kuznyechik::with_backend(&key, b).unwrap(), 16).unwrap();
        check_mgm(&format!("kuznyechik-mgm {b:?}"), &mgm, 16, &key, &mut rng);
    }
    // A truncated tag is the prefix of the full one, split or not.
    let mgm = Mgm::new(Kuznyechik::new(&key).unwrap(), 5).unwrap();
    let mut nonce = random_bytes(&mut rng, 16);
    nonce[0] &= 0x7f;
    let pt = random_bytes(&mut rng, 5000);
    let mut expect = pt.clone();
    let tag = mgm.seal(&nonce, b"aad", &mut expect).unwrap();
    let mut data = pt.clone();
    let e = Engine::new(3).with_min_parallel(1);
    let got = e.seal(&mgm, &nonce, b"aad", &mut data).unwrap();
    assert_eq!(got.as_ref(), tag.as_ref());
    assert_eq!(data, expect);
}

/// Reruns this file's split tests with `SHIFR_BACKEND=portable`, which also makes the MGM
/// multiplier and `AesGcm::new`'s GHASH portable (in-process, the MGM multiplier follows the CPU).
#[test]
fn split_tests_with_portable_backend_forced() {
    if std::env::var(CHILD).is_ok() {
        return;
    }
    let exe = std::env::current_exe().expect("test binary path");
    for test in [
        "mgm_split_matches_single_thread_and_rustcrypto",
        "gcm_split_other_shapes_and_errors",
    ] {
        let out = std::process::Command::new(&exe)
            .args(["--exact", test, "--nocapture"])
            .env(CHILD, "1")
            .env("SHIFR_BACKEND", "portable")
            .output()
            .expect("run the test binary");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("1 passed"),
            "SHIFR_BACKEND=portable {test}: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
