//! Multi-stream AES-CBC encryption against RustCrypto `cbc` stream by stream, on every AES backend
//! this CPU has (and on mixed backends, which take the narrowest register width, and mixed key
//! sizes): the stream counts around the kernels' register and batch sizes (1, 3, 4, 15, 16, 17, 33,
//! 64; 65 is also past the key list kept on the stack), streams of one length (0, 16 and 512 bytes:
//! the kernels whole) and of unequal lengths (the stretch-by-stretch path), every key size, random
//! keys, IVs and data.

use aes::cipher::{block_padding::NoPadding, BlockEncryptMut, KeyIvInit};
use rand::{rngs::StdRng, Rng, RngCore, SeedableRng};
use shifr::cpu::Backend;
use shifr::hazmat::block::aes::Aes;
use shifr::hazmat::mode::multistream;

const STREAM_COUNTS: &[usize] = &[1, 3, 4, 15, 16, 17, 33, 64, 65];

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

/// Every backend AES offers here, portable included.
fn backends() -> Vec<Backend> {
    let mut v = vec![Backend::Portable];
    for b in [Backend::AesNi, Backend::Vaes, Backend::Avx512] {
        match Aes::with_backend(&[0; 16], b) {
            Ok(_) => v.push(b),
            Err(_) => println!("{} not available on this CPU: skipped", b.name()),
        }
    }
    v
}

/// RustCrypto CBC (no padding) of one stream.
fn reference(key: &[u8], iv: &[u8], data: &[u8]) -> Vec<u8> {
    let mut out = data.to_vec();
    let len = out.len();
    match key.len() {
        16 => cbc::Encryptor::<aes::Aes128>::new_from_slices(key, iv)
            .unwrap()
            .encrypt_padded_mut::<NoPadding>(&mut out, len)
            .unwrap(),
        24 => cbc::Encryptor::<aes::Aes192>::new_from_slices(key, iv)
            .unwrap()
            .encrypt_padded_mut::<NoPadding>(&mut out, len)
            .unwrap(),
        _ => cbc::Encryptor::<aes::Aes256>::new_from_slices(key, iv)
            .unwrap()
            .encrypt_padded_mut::<NoPadding>(&mut out, len)
            .unwrap(),
    };
    out
}

/// Encrypts random streams of `lens` bytes (stream `i` on `backend_of(i)`, all with `key_len`-byte
/// keys, or keys of random sizes when `key_len` is 0) and checks each against RustCrypto.
fn check(
    rng: &mut StdRng,
    key_len: usize,
    lens: &[usize],
    backend_of: impl Fn(usize) -> Backend,
    what: &str,
) {
    let streams = lens.len();
    let keys: Vec<Vec<u8>> = (0..streams)
        .map(|_| {
            let n = match key_len {
                0 => [16, 24, 32][rng.gen_range(0..3)],
                n => n,
            };
            random(rng, n)
        })
        .collect();
    let ivs: Vec<Vec<u8>> = (0..streams).map(|_| random(rng, 16)).collect();
    let data: Vec<Vec<u8>> = lens.iter().map(|&n| random(rng, n)).collect();
    let ciphers: Vec<Aes> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| Aes::with_backend(k, backend_of(i)).unwrap())
        .collect();
    let refs: Vec<&Aes> = ciphers.iter().collect();
    let iv_refs: Vec<&[u8]> = ivs.iter().map(Vec::as_slice).collect();
    let mut bufs = data.clone();
    let mut buf_refs: Vec<&mut [u8]> = bufs.iter_mut().map(Vec::as_mut_slice).collect();
    multistream::cbc_encrypt(&refs, &iv_refs, &mut buf_refs).unwrap();
    for i in 0..streams {
        assert_eq!(
            bufs[i],
            reference(&keys[i], &ivs[i], &data[i]),
            "{what}: stream {i} of {streams}, key {key_len}, lengths {lens:?}"
        );
    }
}

#[test]
fn equal_lengths_match_rustcrypto_on_every_backend() {
    let mut rng = rng();
    for backend in backends() {
        for &streams in STREAM_COUNTS {
            for len in [0, 16, 512] {
                for key_len in [16, 24, 32] {
                    let what = format!("{backend:?} equal");
                    check(&mut rng, key_len, &vec![len; streams], |_| backend, &what);
                }
            }
        }
    }
}

#[test]
fn unequal_lengths_match_rustcrypto_on_every_backend() {
    let mut rng = rng();
    for backend in backends() {
        for &streams in STREAM_COUNTS {
            let key_len = [16, 24, 32][rng.gen_range(0..3)];
            // Whole blocks, empty streams included, with some lengths repeated.
            let lens: Vec<usize> = (0..streams).map(|_| 16 * rng.gen_range(0..12)).collect();
            check(
                &mut rng,
                key_len,
                &lens,
                |_| backend,
                &format!("{backend:?} unequal"),
            );
        }
    }
}

#[test]
fn mixed_backends_match_rustcrypto() {
    let mut rng = rng();
    let fast = backends();
    for &streams in STREAM_COUNTS {
        let key_len = [16, 24, 32][rng.gen_range(0..3)];
        let picks: Vec<Backend> = (0..streams)
            .map(|_| fast[rng.gen_range(0..fast.len())])
            .collect();
        let same: Vec<usize> = vec![512; streams];
        check(&mut rng, key_len, &same, |i| picks[i], "mixed equal");
        let lens: Vec<usize> = (0..streams).map(|_| 16 * rng.gen_range(0..40)).collect();
        check(&mut rng, key_len, &lens, |i| picks[i], "mixed unequal");
        // Key sizes differ between the streams too.
        check(&mut rng, 0, &same, |i| picks[i], "mixed key sizes");
    }
}
