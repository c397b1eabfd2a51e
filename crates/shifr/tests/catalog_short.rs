//! The catalogue's keyed ECB, CTR and CMAC objects (the path a user keying once and sending many
//! short messages takes: the mode's straight path chosen at key setup, AES's one-block and short
//! 256-bit paths, CMAC's subkeys derived at key setup) against the same objects on the portable
//! backend, on every backend this CPU offers: every length 0..=300 (whole blocks for ECB), every
//! key size, both directions and the chained calls, every CMAC tag length.

use shifr::catalog::object::Cipher;
use shifr::catalog::{self, Options};
use shifr::cpu::Backend;

fn bytes(len: usize, seed: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i.wrapping_mul(131) ^ seed.wrapping_mul(17) ^ (i >> 3)) as u8)
        .collect()
}

fn keyed(name: &str, key: &[u8], backend: Backend) -> Option<Box<dyn Cipher>> {
    let options = Options {
        backend: Some(backend),
        ..Options::default()
    };
    let c = catalog::lookup(name)
        .unwrap()
        .cipher(key, &options)
        .unwrap();
    // An entry falls back to its default when it lacks the backend: test each backend once.
    (c.backend() == backend.name()).then_some(c)
}

#[test]
fn ecb_and_ctr_objects_match_portable() {
    let names = [
        ("aes-128-ecb", 16),
        ("aes-192-ecb", 24),
        ("aes-256-ecb", 32),
        ("aes-128-ctr", 16),
        ("aes-192-ctr", 24),
        ("aes-256-ctr", 32),
        ("kuznyechik-ecb", 32),
        ("magma-ecb", 32),
    ];
    for (name, key_len) in names {
        let alg = catalog::lookup(name).unwrap();
        let key = bytes(key_len, key_len);
        let iv = bytes(alg.iv.default_len(), 5);
        let portable = keyed(name, &key, Backend::Portable).unwrap();
        let ecb = name.ends_with("ecb");
        for backend in Backend::ALL {
            let Some(c) = keyed(name, &key, *backend) else {
                continue;
            };
            for len in (0..=300).filter(|l| !ecb || l % alg.block_size == 0) {
                let data = bytes(len, len);
                let mut expect = data.clone();
                portable.encrypt(&iv, &mut expect).unwrap();
                let mut ours = data.clone();
                c.encrypt(&iv, &mut ours).unwrap();
                assert_eq!(ours, expect, "{name} {backend:?} len {len}");
                let mut back = ours.clone();
                c.decrypt(&iv, &mut back).unwrap();
                assert_eq!(back, data, "{name} {backend:?} len {len} decrypt");
                let mut register = iv.clone();
                let mut chained = data.clone();
                c.encrypt_chained(&mut register, &mut chained).unwrap();
                assert_eq!(chained, expect, "{name} {backend:?} len {len} chained");
                let mut register = iv.clone();
                c.decrypt_chained(&mut register, &mut chained).unwrap();
                assert_eq!(
                    chained, data,
                    "{name} {backend:?} len {len} chained decrypt"
                );
            }
            if ecb {
                let mut odd = bytes(alg.block_size + 1, 1);
                assert!(c.encrypt(&iv, &mut odd).is_err(), "{name} {backend:?}");
                assert!(c.decrypt_chained(&mut iv.clone(), &mut odd).is_err());
            }
        }
    }
}

/// The keyed ECB objects (their own object type, the one-block AES-NI kernels chosen at key setup)
/// on every length 0..=48 and every backend, all four entry points: whole blocks equal the
/// portable backend and leave the register alone, every other length is the same
/// `NotBlockAligned` error and leaves the data untouched.
#[test]
fn ecb_objects_short_lengths_and_errors() {
    for (name, key_len) in [
        ("aes-128-ecb", 16),
        ("aes-192-ecb", 24),
        ("aes-256-ecb", 32),
        ("kuznyechik-ecb", 32),
        ("magma-ecb", 32),
    ] {
        let block = catalog::lookup(name).unwrap().block_size;
        let key = bytes(key_len, 7 * key_len);
        let portable = keyed(name, &key, Backend::Portable).unwrap();
        for backend in Backend::ALL {
            let Some(c) = keyed(name, &key, *backend) else {
                continue;
            };
            for len in 0..=48 {
                let data = bytes(len, 3 * len + 1);
                let register = bytes(block, len);
                let mut expect = data.clone();
                let expect_result = portable.encrypt(&[], &mut expect);
                let want_err = shifr::Error::NotBlockAligned { block, got: len };
                if len % block != 0 {
                    assert_eq!(expect_result, Err(want_err.clone()), "{name} len {len}");
                    assert_eq!(expect, data, "{name} len {len}: portable touched the data");
                }
                for (i, dir) in ["encrypt", "decrypt", "encrypt_chained", "decrypt_chained"]
                    .into_iter()
                    .enumerate()
                {
                    let mut ours = if i % 2 == 0 {
                        data.clone()
                    } else {
                        expect.clone()
                    };
                    let mut reg = register.clone();
                    let result = match i {
                        0 => c.encrypt(&register, &mut ours),
                        1 => c.decrypt(&register, &mut ours),
                        2 => c.encrypt_chained(&mut reg, &mut ours),
                        _ => c.decrypt_chained(&mut reg, &mut ours),
                    };
                    let what = format!("{name} {backend:?} {dir} len {len}");
                    if len % block != 0 {
                        assert_eq!(result, Err(want_err.clone()), "{what}");
                        assert_eq!(&ours, if i % 2 == 0 { &data } else { &expect }, "{what}");
                    } else {
                        assert_eq!(result, Ok(()), "{what}");
                        assert_eq!(&ours, if i % 2 == 0 { &expect } else { &data }, "{what}");
                    }
                    assert_eq!(reg, register, "{what}: the register changed");
                }
            }
        }
    }
}

#[test]
fn cmac_objects_match_portable() {
    let names = [
        ("aes-128-cmac", 16),
        ("aes-192-cmac", 24),
        ("aes-256-cmac", 32),
        ("kuznyechik-mac", 32),
        ("magma-mac", 32),
    ];
    for (name, key_len) in names {
        let Ok(alg) = catalog::lookup(name) else {
            panic!("{name} is not in the catalogue");
        };
        let key = bytes(key_len, 3 * key_len);
        for tag_len in 1..=alg.block_size {
            let options = |backend| Options {
                backend: Some(backend),
                tag_len: Some(tag_len),
                ..Options::default()
            };
            let portable = alg.mac(&key, &options(Backend::Portable)).unwrap();
            assert_eq!(portable.backend(), "portable");
            for backend in Backend::ALL {
                let m = alg.mac(&key, &options(*backend)).unwrap();
                if m.backend() != backend.name() {
                    continue;
                }
                for len in 0..=300 {
                    let msg = bytes(len, len + tag_len);
                    let mut expect = vec![0u8; tag_len];
                    portable.tag(&msg, &mut expect).unwrap();
                    let mut ours = vec![0u8; tag_len];
                    m.tag(&msg, &mut ours).unwrap();
                    assert_eq!(ours, expect, "{name} {backend:?} tag {tag_len} len {len}");
                }
                let mut wrong = vec![0u8; tag_len + 1];
                assert!(m.tag(b"abc", &mut wrong).is_err(), "{name} {backend:?}");
            }
        }
    }
}
