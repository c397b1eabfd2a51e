//! Kuznyechik's multi-stream feedback modes (CBC encryption, CFB both ways, OMAC) through
//! `mode::multistream` on every backend this CPU runs, against RustCrypto's kuznyechik with its cbc,
//! cfb-mode and cmac crates, for every stream count from 1 to 40 (so every split into the gfni
//! kernel's chunks of sixteen streams, four per register, and a short rest) and streams of one
//! length (0, 16, 32, 512 bytes, a few KiB) or of different lengths.

use cipher::generic_array::GenericArray;
use cipher::{AsyncStreamCipher, BlockEncryptMut, KeyInit, KeyIvInit};
use cmac::Mac;
use rand::{Rng, RngCore};
use shifr::cpu::Backend;
use shifr::hazmat::block::kuznyechik::Kuznyechik;
use shifr::hazmat::mode::multistream;

fn random_bytes(len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rand::thread_rng().fill_bytes(&mut v);
    v
}

#[derive(Clone, Copy, Debug)]
enum Op {
    CbcEncrypt,
    CfbEncrypt,
    CfbDecrypt,
    Omac,
}

/// One stream through RustCrypto: CBC / CFB in place (returns nothing), or the OMAC tag.
fn reference(op: Op, key: &[u8], iv: &[u8], data: &mut [u8]) -> Vec<u8> {
    type Rc = kuznyechik::Kuznyechik;
    match op {
        Op::CbcEncrypt => {
            let mut e = cbc::Encryptor::<Rc>::new_from_slices(key, iv).unwrap();
            for b in data.chunks_exact_mut(16) {
                e.encrypt_block_mut(GenericArray::from_mut_slice(b));
            }
        }
        Op::CfbEncrypt => cfb_mode::Encryptor::<Rc>::new_from_slices(key, iv)
            .unwrap()
            .encrypt(data),
        Op::CfbDecrypt => cfb_mode::Decryptor::<Rc>::new_from_slices(key, iv)
            .unwrap()
            .decrypt(data),
        Op::Omac => {
            let mut mac = <cmac::Cmac<Rc> as KeyInit>::new_from_slice(key).unwrap();
            mac.update(data);
            return mac.finalize().into_bytes().to_vec();
        }
    }
    Vec::new()
}

fn backends() -> Vec<Backend> {
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

/// Every op over streams of `lens` bytes (CBC: cut to whole blocks) on `backend`.
fn check(backend: Backend, lens: &[usize]) {
    let count = lens.len();
    let keys: Vec<Vec<u8>> = (0..count).map(|_| random_bytes(32)).collect();
    let ivs: Vec<Vec<u8>> = (0..count).map(|_| random_bytes(16)).collect();
    let ciphers: Vec<Kuznyechik> = keys
        .iter()
        .map(|k| Kuznyechik::with_backend(k, backend).unwrap())
        .collect();
    let refs: Vec<&Kuznyechik> = ciphers.iter().collect();
    let iv_refs: Vec<&[u8]> = ivs.iter().map(Vec::as_slice).collect();
    for op in [Op::CbcEncrypt, Op::CfbEncrypt, Op::CfbDecrypt, Op::Omac] {
        let whole = matches!(op, Op::CbcEncrypt);
        let input: Vec<Vec<u8>> = lens
            .iter()
            .map(|&l| random_bytes(if whole { l / 16 * 16 } else { l }))
            .collect();
        let mut data = input.clone();
        let mut streams: Vec<&mut [u8]> = data.iter_mut().map(Vec::as_mut_slice).collect();
        let tags = match op {
            Op::CbcEncrypt => {
                multistream::cbc_encrypt(&refs, &iv_refs, &mut streams).map(|_| vec![])
            }
            Op::CfbEncrypt => {
                multistream::cfb_encrypt(&refs, &iv_refs, &mut streams).map(|_| vec![])
            }
            Op::CfbDecrypt => {
                multistream::cfb_decrypt(&refs, &iv_refs, &mut streams).map(|_| vec![])
            }
            Op::Omac => {
                let msgs: Vec<&[u8]> = input.iter().map(Vec::as_slice).collect();
                multistream::omac(&refs, &msgs, 16)
            }
        }
        .unwrap();
        for i in 0..count {
            let mut expected = input[i].clone();
            let tag = reference(op, &keys[i], &ivs[i], &mut expected);
            let context = format!(
                "{}: {op:?}, {count} streams, stream {i} of {} bytes",
                backend.name(),
                input[i].len()
            );
            match op {
                Op::Omac => assert_eq!(tags[i], tag, "{context}"),
                _ => assert_eq!(data[i], expected, "{context}"),
            }
        }
    }
}

#[test]
fn one_length_for_every_stream_count_up_to_40() {
    // Each count gets one of the lengths in turn, and 16 streams (the benchmark's shape) all.
    const LENGTHS: &[usize] = &[0, 16, 32, 512, 3 * 1024 + 16];
    for backend in backends() {
        for count in 1..=40 {
            check(backend, &vec![LENGTHS[count % LENGTHS.len()]; count]);
        }
        for &len in LENGTHS {
            check(backend, &[len; 16]);
        }
    }
}

#[test]
fn different_lengths_for_every_stream_count_up_to_40() {
    let mut rng = rand::thread_rng();
    for backend in backends() {
        for count in 1..=40 {
            let lens: Vec<usize> = (0..count).map(|_| rng.gen_range(0..=1200)).collect();
            check(backend, &lens);
        }
    }
}
