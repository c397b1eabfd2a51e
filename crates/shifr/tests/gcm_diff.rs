//! Differential tests: shifr's AES-GCM (every backend) against RustCrypto `aes-gcm` on random keys
//! (all three sizes), IV lengths, AAD and plaintext lengths and tag lengths; tampering must fail.
//! Every text length 0..=300 meets every AAD length 0..=40, which covers each way a short message
//! splits into blocks and partial blocks (the short-message paths take up to 32 GHASH blocks).

use aes_gcm::aead::consts::{U1, U12, U13, U14, U15, U16, U60, U8};
use aes_gcm::aead::{AeadInPlace, KeyInit};
use aes_gcm::aes::{Aes128, Aes192, Aes256};
use aes_gcm::{AesGcm as RefGcm, Nonce};
use rand::{rngs::StdRng, Rng, RngCore, SeedableRng};
use shifr::aead::gcm::AesGcm;
use shifr::aead::Aead;
use shifr::cpu::Backend;
use shifr::Error;

/// (IV length, tag length) pairs the reference is instantiated for.
const SHAPES: &[(usize, usize)] = &[
    (1, 16),
    (8, 16),
    (12, 16),
    (16, 16),
    (60, 16),
    (12, 12),
    (12, 13),
    (12, 14),
    (12, 15),
    (8, 12),
];

/// Plaintext lengths: empty, around the block and the 32-block keystream batch, rests after whole
/// 32-block groups that do and do not fit the fused end with the length block, several KiB.
const TEXT_LENS: &[usize] = &[
    0,
    1,
    15,
    16,
    17,
    127,
    128,
    129,
    511,
    512,
    513,
    1024,
    2048,
    1519,
    1520,
    1521,
    1535,
    4096 + 7,
];

/// AAD lengths.
const AAD_LENS: &[usize] = &[0, 1, 13, 15, 16, 17, 50, 512, 513, 1000 + 3];

/// Every backend `AesGcm` can run on here: portable, and AES-NI, 256-bit VAES and 512-bit VAES
/// where this CPU has them.
fn backends() -> Vec<Backend> {
    let mut v = vec![Backend::Portable];
    for b in [Backend::AesNi, Backend::Vaes, Backend::Avx512] {
        if AesGcm::with_backend(&[0; 16], 16, b).is_ok() {
            v.push(b);
        } else {
            println!(
                "{} not available on this CPU: skipping that backend",
                b.name()
            );
        }
    }
    v
}

fn rng() -> StdRng {
    let seed = rand::random::<u64>();
    println!("seed {seed}");
    StdRng::seed_from_u64(seed)
}

/// RustCrypto AES-GCM seal: returns (ciphertext, tag).
fn reference_seal(
    key: &[u8],
    iv: &[u8],
    aad: &[u8],
    pt: &[u8],
    tag_len: usize,
) -> (Vec<u8>, Vec<u8>) {
    macro_rules! run {
        ($aes:ty, $n:ty, $t:ty) => {{
            let c = RefGcm::<$aes, $n, $t>::new_from_slice(key).expect("key size");
            let mut buf = pt.to_vec();
            let tag = c
                .encrypt_in_place_detached(Nonce::<$n>::from_slice(iv), aad, &mut buf)
                .expect("reference seal");
            (buf, tag.to_vec())
        }};
    }
    macro_rules! by_key {
        ($n:ty, $t:ty) => {
            match key.len() {
                16 => run!(Aes128, $n, $t),
                24 => run!(Aes192, $n, $t),
                32 => run!(Aes256, $n, $t),
                n => panic!("unexpected key length {n}"),
            }
        };
    }
    match (iv.len(), tag_len) {
        (1, 16) => by_key!(U1, U16),
        (8, 16) => by_key!(U8, U16),
        (12, 16) => by_key!(U12, U16),
        (16, 16) => by_key!(U16, U16),
        (60, 16) => by_key!(U60, U16),
        (12, 12) => by_key!(U12, U12),
        (12, 13) => by_key!(U12, U13),
        (12, 14) => by_key!(U12, U14),
        (12, 15) => by_key!(U12, U15),
        (8, 12) => by_key!(U8, U12),
        shape => panic!("no reference instantiation for {shape:?}"),
    }
}

fn random_bytes(rng: &mut StdRng, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    rng.fill_bytes(&mut v);
    v
}

/// Random bytes of a random length in `lens`.
fn random_len(rng: &mut StdRng, lens: std::ops::Range<usize>) -> Vec<u8> {
    let n = rng.gen_range(lens);
    random_bytes(rng, n)
}

#[test]
fn seal_and_open_match_rustcrypto() {
    let mut rng = rng();
    for key_len in [16usize, 24, 32] {
        for &(iv_len, tag_len) in SHAPES {
            for &pt_len in TEXT_LENS {
                let aad_len = AAD_LENS[rng.gen_range(0..AAD_LENS.len())];
                seal_open_match_rustcrypto(&mut rng, key_len, iv_len, tag_len, aad_len, pt_len);
            }
        }
    }
}

/// Every text length 0..=300 with every AAD length 0..=40 (96-bit IV, 16-byte tag; the key size
/// alternates), seal and open, on every backend.
#[test]
fn every_short_length_matches_rustcrypto() {
    let mut rng = rng();
    let backends = backends();
    let aad_all = random_bytes(&mut rng, 40);
    let pt_all = random_bytes(&mut rng, 300);
    for pt_len in 0..=300usize {
        let key = random_bytes(&mut rng, [16, 32][pt_len % 2]);
        let iv = random_bytes(&mut rng, 12);
        let ciphers: Vec<AesGcm> = backends
            .iter()
            .map(|&b| AesGcm::with_backend(&key, 16, b).unwrap())
            .collect();
        let pt = &pt_all[..pt_len];
        for aad_len in 0..=40usize {
            let aad = &aad_all[..aad_len];
            let (ct, tag) = reference_seal(&key, &iv, aad, pt, 16);
            for gcm in &ciphers {
                let b = gcm.backend();
                let mut data = pt.to_vec();
                let ours = gcm.seal(&iv, aad, &mut data).unwrap();
                assert_eq!(data, ct, "{b:?} ct, pt {pt_len} aad {aad_len}");
                assert_eq!(
                    ours.as_ref(),
                    &tag[..],
                    "{b:?} tag, pt {pt_len} aad {aad_len}"
                );
                gcm.open(&iv, aad, &mut data, &tag).unwrap();
                assert_eq!(data, pt, "{b:?} open, pt {pt_len} aad {aad_len}");
                let mut bad = tag.clone();
                bad[(pt_len + aad_len) % 16] ^= 0x40;
                let mut data = ct.clone();
                assert_eq!(
                    gcm.open(&iv, aad, &mut data, &bad),
                    Err(Error::AuthenticationFailed),
                    "{b:?} forged, pt {pt_len} aad {aad_len}"
                );
                assert_eq!(data, ct, "{b:?}: data changed on failure");
            }
        }
    }
}

/// Every way `open` can go (one fused call; whole 32-block groups in one call; stitched groups and
/// a fused end; the general pieces on other backends) decrypts while it hashes, so a failure must
/// give the ciphertext back on each of them.
#[test]
fn tampered_tag_ciphertext_aad_or_iv_fail_and_leave_data() {
    let mut rng = rng();
    let text_lens = [1..300, 512..513, 1024..1025, 513..3000];
    for backend in backends() {
        for key_len in [16usize, 24, 32] {
            for (&(iv_len, tag_len), lens) in SHAPES
                .iter()
                .flat_map(|shape| text_lens.iter().map(move |lens| (shape, lens)))
            {
                let key = random_bytes(&mut rng, key_len);
                let iv = random_bytes(&mut rng, iv_len);
                let aad = random_len(&mut rng, 1..40);
                let pt = random_len(&mut rng, lens.clone());
                let (ct, tag) = reference_seal(&key, &iv, &aad, &pt, tag_len);
                let gcm = AesGcm::with_backend(&key, tag_len, backend).unwrap();

                let fails = |iv: &[u8], aad: &[u8], ct: &[u8], tag: &[u8]| {
                    let mut data = ct.to_vec();
                    let r = gcm.open(iv, aad, &mut data, tag);
                    assert_eq!(r, Err(Error::AuthenticationFailed), "{backend:?}");
                    assert_eq!(data, ct, "{backend:?}: data changed on failure");
                };

                let mut t = tag.clone();
                let i = rng.gen_range(0..t.len());
                t[i] ^= 1 << rng.gen_range(0..8);
                fails(&iv, &aad, &ct, &t);

                let mut c = ct.clone();
                let i = rng.gen_range(0..c.len());
                c[i] ^= 1 << rng.gen_range(0..8);
                fails(&iv, &aad, &c, &tag);

                let mut a = aad.clone();
                let i = rng.gen_range(0..a.len());
                a[i] ^= 1 << rng.gen_range(0..8);
                fails(&iv, &a, &ct, &tag);
                fails(&iv, &aad[..aad.len() - 1], &ct, &tag);

                let mut v = iv.clone();
                let i = rng.gen_range(0..v.len());
                v[i] ^= 1 << rng.gen_range(0..8);
                fails(&v, &aad, &ct, &tag);

                // The untampered message still opens.
                let mut data = ct.clone();
                gcm.open(&iv, &aad, &mut data, &tag).unwrap();
                assert_eq!(data, pt);
            }
        }
    }
}

#[test]
fn portable_and_hardware_backends_agree_on_random_inputs() {
    if !Backend::AesNi.is_supported() {
        println!("AES-NI/PCLMULQDQ not available on this CPU: skipping the backend comparison");
        return;
    }
    let mut rng = rng();
    for _ in 0..100 {
        let key_len = [16, 24, 32][rng.gen_range(0..3)];
        let key = random_bytes(&mut rng, key_len);
        let iv = random_len(&mut rng, 1..100);
        let aad = random_len(&mut rng, 0..200);
        let pt = random_len(&mut rng, 0..3000);
        let tag_len = rng.gen_range(12..=16);
        let soft = AesGcm::with_backend(&key, tag_len, Backend::Portable).unwrap();
        let mut a = pt.clone();
        let ta = soft.seal(&iv, &aad, &mut a).unwrap();
        for backend in backends().into_iter().skip(1) {
            let ni = AesGcm::with_backend(&key, tag_len, backend).unwrap();
            assert_eq!(soft.hash_subkey(), ni.hash_subkey());
            assert_eq!(
                soft.pre_counter_block(&iv).unwrap(),
                ni.pre_counter_block(&iv).unwrap()
            );
            let mut b = pt.clone();
            let tb = ni.seal(&iv, &aad, &mut b).unwrap();
            assert_eq!((&a, ta.as_ref()), (&b, tb.as_ref()), "{backend:?}");
            ni.open(&iv, &aad, &mut b, ta.as_ref()).unwrap();
            assert_eq!(b, pt, "{backend:?} open");
        }
    }
}

/// `SHIFR_BACKEND=portable` must make `AesGcm::new` run AES and GHASH on the portable backend.
/// The variable is read once per process, so the check runs in a child process of this binary.
#[test]
fn environment_forces_portable_backend() {
    const MARK: &str = "SHIFR_GCM_DIFF_CHILD";
    if std::env::var(MARK).is_ok() {
        assert_eq!(std::env::var("SHIFR_BACKEND").as_deref(), Ok("portable"));
        let gcm = AesGcm::new(&[7u8; 32], 16).unwrap();
        assert_eq!(gcm.backend(), Backend::Portable);
        let g = shifr::hazmat::mac::ghash::GHash::new(&[9u8; 16]);
        assert_eq!(g.backend(), Backend::Portable);
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

/// Seals random data of the given sizes on every backend and checks ciphertext and tag against
/// RustCrypto, then opens it back.
fn seal_open_match_rustcrypto(
    rng: &mut StdRng,
    key_len: usize,
    iv_len: usize,
    tag_len: usize,
    aad_len: usize,
    pt_len: usize,
) {
    let key = random_bytes(rng, key_len);
    let iv = random_bytes(rng, iv_len);
    let aad = random_bytes(rng, aad_len);
    let pt = random_bytes(rng, pt_len);
    let (ct, tag) = reference_seal(&key, &iv, &aad, &pt, tag_len);
    let what = format!("key {key_len} iv {iv_len} tag {tag_len} aad {aad_len} pt {pt_len}");
    for backend in backends() {
        let gcm = AesGcm::with_backend(&key, tag_len, backend).unwrap();
        let mut data = pt.clone();
        let ours = gcm.seal(&iv, &aad, &mut data).unwrap();
        assert_eq!(data, ct, "{backend:?} ct, {what}");
        assert_eq!(ours.as_ref(), &tag[..], "{backend:?} tag, {what}");
        gcm.open(&iv, &aad, &mut data, &tag).unwrap();
        assert_eq!(data, pt, "{backend:?} open, {what}");
    }
}

/// Texts of whole 32-block groups (sealed in one call on 512-bit VAES when the AAD is at most 32
/// blocks) with AAD lengths on both sides of that limit, every key size, 96-bit and other IVs.
#[test]
fn whole_group_texts_match_rustcrypto() {
    let mut rng = rng();
    for key_len in [16usize, 24, 32] {
        for pt_len in [512usize, 1024, 1536, 2048] {
            for aad_len in [0usize, 1, 13, 16, 17, 496, 511, 512, 513, 600] {
                for iv_len in [12usize, 8] {
                    seal_open_match_rustcrypto(&mut rng, key_len, iv_len, 16, aad_len, pt_len);
                }
            }
        }
    }
}

/// Long texts (the stitched loop's 32-block groups, several of them, and rests on both sides of a
/// group boundary) with IVs of 8 and 16 bytes, whose hashed J0 puts the last counter byte, which
/// the loop steps by byte adds while it does not wrap, at a random phase; AAD lengths on both sides
/// of 32 blocks; every key size; seal and open.
#[test]
fn long_texts_at_random_counter_phases_match_rustcrypto() {
    let mut rng = rng();
    for key_len in [16usize, 24, 32] {
        for pt_len in [
            16 * 512 - 1,
            16 * 512,
            16 * 512 + 1,
            16 * 512 + 16,
            17 * 512 - 16,
            16384 + 512 + 100,
        ] {
            for (aad_len, iv_len) in [(0usize, 16usize), (13, 8), (512, 16), (513, 8)] {
                seal_open_match_rustcrypto(&mut rng, key_len, iv_len, 16, aad_len, pt_len);
            }
        }
    }
}

/// Texts with 96-bit IVs, whose first counter block ends in byte 2, from one group to past the 2^8
/// blocks after which the last counter byte wraps (eight groups and more: the 32-block group that
/// straddles the wrap, and the groups after it, whose other counter bytes differ), on both sides of
/// whole groups; AAD lengths on both sides of 32 blocks; every key size; seal and open.
#[test]
fn texts_across_the_last_counter_byte_wrap_match_rustcrypto() {
    let mut rng = rng();
    for key_len in [16usize, 24, 32] {
        for pt_len in [
            512usize,
            7 * 512,
            8 * 512 - 1,
            8 * 512,
            8 * 512 + 16,
            9 * 512,
            16384,
            16384 + 512 + 100,
            17 * 1024,
        ] {
            for aad_len in [0usize, 13, 513] {
                seal_open_match_rustcrypto(&mut rng, key_len, 12, 16, aad_len, pt_len);
            }
        }
    }
}
