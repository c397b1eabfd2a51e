//! The multi-stream feedback kernels (`BlockCipher::feedback_lanes`: CBC encryption, CFB both ways
//! and the OMAC chain over many streams with their own keys) on every Magma / GOST 28147-89 and
//! Kuznyechik backend this CPU runs, against RustCrypto's cbc, cfb-mode and cmac crates over its
//! magma and kuznyechik (GOST 28147-89 against shifr's portable backend, the oracle), for stream
//! counts around the lane widths (1, 3, 15, 16, 17, 32, 33, 64) and streams of one length (empty,
//! one block, 512 bytes, a partial last segment) or of different lengths.

use cipher::generic_array::GenericArray;
use cipher::{AsyncStreamCipher, BlockEncryptMut, KeyInit, KeyIvInit};
use cmac::Mac;
use rand::{Rng, RngCore};
use shifr::cpu::Backend;
use shifr::hazmat::block::kuznyechik::Kuznyechik;
use shifr::hazmat::block::magma::{Gost28147, Magma, SBox};
use shifr::hazmat::block::BlockCipher;
use shifr::hazmat::mode::multistream;

mod support;
use support::magma_backends;

const STREAM_COUNTS: &[usize] = &[1, 3, 15, 16, 17, 32, 33, 64];

fn random_bytes(len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rand::thread_rng().fill_bytes(&mut v);
    v
}

/// Stream lengths of one shape for `count` streams of `n`-byte blocks: 0 empty, 1 one block,
/// 2 512 bytes, 3 512 bytes and a partial segment, 4 different lengths (0..=700 bytes).
fn lengths(shape: usize, count: usize, n: usize) -> Vec<usize> {
    let mut rng = rand::thread_rng();
    (0..count)
        .map(|_| match shape {
            0 => 0,
            1 => n,
            2 => 512,
            3 => 512 + n / 2 + 1,
            _ => rng.gen_range(0..=700),
        })
        .collect()
}

/// What the single-stream reference computes for one stream.
#[derive(Clone, Copy, Debug)]
enum Op {
    CbcEncrypt,
    CfbEncrypt,
    CfbDecrypt,
    Omac,
}

/// One stream through the reference: CBC / CFB in place, or the full OMAC tag.
type Reference<'a> = &'a dyn Fn(Op, &[u8], &[u8], &mut [u8]) -> Vec<u8>;

/// Runs every op over `count` streams of `shape` with ciphers from `make` and compares each stream
/// with `reference`.
fn check<C: BlockCipher>(
    what: &str,
    n: usize,
    make: &dyn Fn(&[u8]) -> C,
    reference: Reference,
    count: usize,
    shape: usize,
) {
    let keys: Vec<Vec<u8>> = (0..count).map(|_| random_bytes(32)).collect();
    let ivs: Vec<Vec<u8>> = (0..count).map(|_| random_bytes(n)).collect();
    let ciphers: Vec<C> = keys.iter().map(|k| make(k)).collect();
    let refs: Vec<&C> = ciphers.iter().collect();
    let iv_refs: Vec<&[u8]> = ivs.iter().map(Vec::as_slice).collect();
    let lens = lengths(shape, count, n);
    for op in [Op::CbcEncrypt, Op::CfbEncrypt, Op::CfbDecrypt, Op::Omac] {
        let whole = matches!(op, Op::CbcEncrypt);
        let input: Vec<Vec<u8>> = lens
            .iter()
            .map(|&l| random_bytes(if whole { l / n * n } else { l }))
            .collect();
        let mut data = input.clone();
        let mut streams: Vec<&mut [u8]> = data.iter_mut().map(Vec::as_mut_slice).collect();
        let tags = match op {
            Op::CbcEncrypt => {
                multistream::cbc_encrypt(&refs, &iv_refs, &mut streams).unwrap();
                Vec::new()
            }
            Op::CfbEncrypt => {
                multistream::cfb_encrypt(&refs, &iv_refs, &mut streams).unwrap();
                Vec::new()
            }
            Op::CfbDecrypt => {
                multistream::cfb_decrypt(&refs, &iv_refs, &mut streams).unwrap();
                Vec::new()
            }
            Op::Omac => {
                let msgs: Vec<&[u8]> = input.iter().map(Vec::as_slice).collect();
                multistream::omac(&refs, &msgs, n).unwrap()
            }
        };
        for i in 0..count {
            let mut expected = input[i].clone();
            let tag = reference(op, &keys[i], &ivs[i], &mut expected);
            let context = format!("{what}: {op:?}, {count} streams, shape {shape}, stream {i}");
            match op {
                Op::Omac => assert_eq!(tags[i], tag, "{context}"),
                _ => assert_eq!(data[i], expected, "{context}"),
            }
        }
    }
}

fn check_every_shape<C: BlockCipher>(
    what: &str,
    n: usize,
    make: &dyn Fn(&[u8]) -> C,
    reference: Reference,
) {
    for &count in STREAM_COUNTS {
        for shape in 0..5 {
            check(what, n, make, reference, count, shape);
        }
    }
}

/// RustCrypto's modes over its block cipher `$rc` (wire order, like shifr's Magma and Kuznyechik).
macro_rules! rustcrypto {
    ($name:ident, $rc:ty) => {
        fn $name(op: Op, key: &[u8], iv: &[u8], data: &mut [u8]) -> Vec<u8> {
            match op {
                Op::CbcEncrypt => {
                    let mut e = cbc::Encryptor::<$rc>::new_from_slices(key, iv).unwrap();
                    for b in data.chunks_exact_mut(iv.len()) {
                        e.encrypt_block_mut(GenericArray::from_mut_slice(b));
                    }
                }
                Op::CfbEncrypt => cfb_mode::Encryptor::<$rc>::new_from_slices(key, iv)
                    .unwrap()
                    .encrypt(data),
                Op::CfbDecrypt => cfb_mode::Decryptor::<$rc>::new_from_slices(key, iv)
                    .unwrap()
                    .decrypt(data),
                Op::Omac => {
                    let mut mac = <cmac::Cmac<$rc> as KeyInit>::new_from_slice(key).unwrap();
                    mac.update(data);
                    return mac.finalize().into_bytes().to_vec();
                }
            }
            Vec::new()
        }
    };
}

rustcrypto!(rustcrypto_magma, magma::Magma);
rustcrypto!(rustcrypto_kuznyechik, kuznyechik::Kuznyechik);

/// shifr's single-stream modes over `cipher` (the portable oracle).
fn single_stream<C: BlockCipher>(cipher: &C, op: Op, iv: &[u8], data: &mut [u8]) -> Vec<u8> {
    let n = cipher.block_size();
    match op {
        Op::CbcEncrypt => shifr::hazmat::mode::cbc::encrypt(cipher, iv, data).unwrap(),
        Op::CfbEncrypt => shifr::hazmat::mode::cfb::encrypt(cipher, iv, n, data).unwrap(),
        Op::CfbDecrypt => shifr::hazmat::mode::cfb::decrypt(cipher, iv, n, data).unwrap(),
        Op::Omac => return shifr::hazmat::mac::omac::omac(cipher, n, data).unwrap(),
    }
    Vec::new()
}

fn kuznyechik_backends() -> Vec<Backend> {
    [
        Backend::Portable,
        Backend::Avx2,
        Backend::Gfni,
        Backend::Neon,
    ]
    .into_iter()
    .filter(|&b| Kuznyechik::with_backend(&[0; 32], b).is_ok())
    .collect()
}

#[test]
fn magma_matches_rustcrypto_on_every_backend() {
    for backend in magma_backends() {
        let make = |k: &[u8]| Magma::with_backend(k, SBox::Tc26Z, backend).unwrap();
        check_every_shape(
            &format!("magma {}", backend.name()),
            8,
            &make,
            &rustcrypto_magma,
        );
    }
}

#[test]
fn gost28147_matches_portable_on_every_backend() {
    for backend in magma_backends() {
        for &sbox in SBox::ALL {
            let make = |k: &[u8]| Gost28147::with_backend(k, sbox, backend).unwrap();
            let oracle = |op: Op, k: &[u8], iv: &[u8], data: &mut [u8]| {
                let c = Gost28147::with_backend(k, sbox, Backend::Portable).unwrap();
                single_stream(&c, op, iv, data)
            };
            for &count in STREAM_COUNTS {
                // One length (the kernels) and different lengths (runs between drop-outs).
                for shape in [2, 4] {
                    check(
                        &format!("gost28147 {} {sbox:?}", backend.name()),
                        8,
                        &make,
                        &oracle,
                        count,
                        shape,
                    );
                }
            }
        }
    }
}

#[test]
fn kuznyechik_matches_rustcrypto_on_every_backend() {
    for backend in kuznyechik_backends() {
        let make = |k: &[u8]| Kuznyechik::with_backend(k, backend).unwrap();
        check_every_shape(
            &format!("kuznyechik {}", backend.name()),
            16,
            &make,
            &rustcrypto_kuznyechik,
        );
    }
}

#[test]
fn mixed_backends_in_one_call_stay_correct() {
    // A kernel must decline (or handle) lanes whose ciphers are on different backends.
    let backends = magma_backends();
    let keys: Vec<Vec<u8>> = (0..20).map(|_| random_bytes(32)).collect();
    let ciphers: Vec<Magma> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| Magma::with_backend(k, SBox::Tc26Z, backends[i % backends.len()]).unwrap())
        .collect();
    let refs: Vec<&Magma> = ciphers.iter().collect();
    let ivs: Vec<Vec<u8>> = (0..20).map(|_| random_bytes(8)).collect();
    let iv_refs: Vec<&[u8]> = ivs.iter().map(Vec::as_slice).collect();
    let input: Vec<Vec<u8>> = (0..20).map(|_| random_bytes(96)).collect();
    let mut data = input.clone();
    let mut streams: Vec<&mut [u8]> = data.iter_mut().map(Vec::as_mut_slice).collect();
    multistream::cfb_encrypt(&refs, &iv_refs, &mut streams).unwrap();
    for i in 0..20 {
        let mut expected = input[i].clone();
        rustcrypto_magma(Op::CfbEncrypt, &keys[i], &ivs[i], &mut expected);
        assert_eq!(data[i], expected, "stream {i}");
    }
}

#[test]
fn the_simd_backends_have_a_kernel_and_portable_declines() {
    // The comparisons above go through `mode::multistream`, which falls back to `encrypt_lanes`
    // when a cipher declines; here the kernels themselves are called.
    use shifr::hazmat::block::Feedback;
    let keys: Vec<Vec<u8>> = (0..17).map(|_| random_bytes(32)).collect();
    let ivs: Vec<Vec<u8>> = (0..17).map(|_| random_bytes(8)).collect();
    let input: Vec<Vec<u8>> = (0..17).map(|_| random_bytes(80)).collect();
    for backend in magma_backends() {
        let ciphers: Vec<Magma> = keys
            .iter()
            .map(|k| Magma::with_backend(k, SBox::Tc26Z, backend).unwrap())
            .collect();
        let refs: Vec<&Magma> = ciphers.iter().collect();
        let mut registers: Vec<u8> = ivs.concat();
        let mut data = input.clone();
        let mut streams: Vec<&mut [u8]> = data.iter_mut().map(Vec::as_mut_slice).collect();
        let ran = Magma::feedback_lanes(&refs, &mut registers, Feedback::CfbEncrypt(&mut streams));
        assert_eq!(ran, backend == Backend::Avx512, "{}", backend.name());
        if !ran {
            assert_eq!(data, input);
            continue;
        }
        for i in 0..17 {
            let mut expected = input[i].clone();
            rustcrypto_magma(Op::CfbEncrypt, &keys[i], &ivs[i], &mut expected);
            assert_eq!(data[i], expected, "stream {i}");
            // The register is the last ciphertext block.
            assert_eq!(registers[8 * i..8 * i + 8], expected[72..]);
        }
    }
    let ivs: Vec<Vec<u8>> = (0..17).map(|_| random_bytes(16)).collect();
    let input: Vec<Vec<u8>> = (0..17).map(|_| random_bytes(80)).collect();
    for backend in kuznyechik_backends() {
        let ciphers: Vec<Kuznyechik> = keys
            .iter()
            .map(|k| Kuznyechik::with_backend(k, backend).unwrap())
            .collect();
        let refs: Vec<&Kuznyechik> = ciphers.iter().collect();
        let mut registers: Vec<u8> = ivs.concat();
        let mut data = input.clone();
        let mut streams: Vec<&mut [u8]> = data.iter_mut().map(Vec::as_mut_slice).collect();
        let ran =
            Kuznyechik::feedback_lanes(&refs, &mut registers, Feedback::CbcEncrypt(&mut streams));
        assert_eq!(ran, backend == Backend::Gfni, "{}", backend.name());
        if !ran {
            assert_eq!(data, input);
            continue;
        }
        for i in 0..17 {
            let mut expected = input[i].clone();
            rustcrypto_kuznyechik(Op::CbcEncrypt, &keys[i], &ivs[i], &mut expected);
            assert_eq!(data[i], expected, "stream {i}");
            assert_eq!(registers[16 * i..16 * i + 16], expected[64..]);
        }
    }
    // Streams of different lengths are not a kernel's shape: declined, nothing touched.
    let c = Magma::new(&keys[0]).unwrap();
    let mut registers = [0u8; 16];
    let (mut a, mut b) = (vec![1u8; 16], vec![2u8; 8]);
    let mut streams: Vec<&mut [u8]> = vec![&mut a, &mut b];
    assert!(!Magma::feedback_lanes(
        &[&c, &c],
        &mut registers,
        Feedback::CbcEncrypt(&mut streams)
    ));
    assert_eq!((a, b, registers), (vec![1u8; 16], vec![2u8; 8], [0u8; 16]));
}
