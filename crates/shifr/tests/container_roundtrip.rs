//! Container round trips for every AEAD at the sizes around a chunk boundary, thread-count
//! determinism, passphrases, and the whole format rebuilt independently from RustCrypto's AEADs and
//! HKDF (header layout, key derivation, STREAM nonces, chunking) and compared byte for byte.

mod container_support;

use rand::RngCore;
use shifr::container::header::HEADER_LEN;
use shifr::container::{read_header, Algorithm, EncryptParams, Error, FileCipher, Kdf, Secret};

fn random_bytes(len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rand::thread_rng().fill_bytes(&mut v);
    v
}

fn random16() -> [u8; 16] {
    random_bytes(16).try_into().unwrap()
}

fn seal(
    params: &EncryptParams,
    secret: Secret<'_>,
    plain: &[u8],
    threads: usize,
    batch: Option<usize>,
) -> Vec<u8> {
    let mut cipher = FileCipher::for_encryption(params, secret).unwrap();
    if let Some(b) = batch {
        cipher.set_batch_bytes(b);
    }
    let mut out = Vec::new();
    let n = cipher
        .encrypt(plain, &mut out, threads, &mut |_| {})
        .unwrap();
    assert_eq!(n, plain.len() as u64);
    out
}

fn open(
    file: &[u8],
    secret: Secret<'_>,
    threads: usize,
    batch: Option<usize>,
) -> Result<Vec<u8>, Error> {
    let mut input = file;
    let header = read_header(&mut input)?;
    let mut cipher = FileCipher::for_decryption(&header, secret)?;
    if let Some(b) = batch {
        cipher.set_batch_bytes(b);
    }
    let mut out = Vec::new();
    cipher.decrypt(input, &mut out, threads, &mut |_| {})?;
    Ok(out)
}

#[test]
fn every_aead_round_trips_around_chunk_boundaries() {
    let key: [u8; 32] = random_bytes(32).try_into().unwrap();
    for chunk in [1024usize, 65536] {
        for alg in Algorithm::ALL {
            for len in [0, 1, chunk - 1, chunk, chunk + 1, 3 * chunk + 17] {
                let mut params = EncryptParams::new(alg, Kdf::KeyFile, random16(), random16());
                params.chunk_size = chunk as u32;
                let plain = random_bytes(len);
                let file = seal(&params, Secret::KeyFile(&key), &plain, 2, None);
                // Every chunk but the last is full; the last holds len % chunk bytes.
                let chunks = len / chunk + 1;
                assert_eq!(
                    file.len(),
                    HEADER_LEN + len + chunks * alg.tag_len(),
                    "{alg:?} {len}"
                );
                // At least 16 bytes, so that ciphertext equal to plaintext by chance (2^-8 per
                // byte) cannot make the check flaky.
                if len >= 16 {
                    assert_ne!(
                        &file[HEADER_LEN..HEADER_LEN + len.min(64)],
                        &plain[..len.min(64)]
                    );
                }
                for (threads, batch) in [(1, None), (3, Some(0))] {
                    let back = open(&file, Secret::KeyFile(&key), threads, batch).unwrap();
                    assert!(back == plain, "{alg:?} chunk {chunk} len {len}");
                }
            }
        }
    }
}

#[test]
fn output_is_identical_for_any_thread_count_and_batch() {
    let key = [7u8; 32];
    let plain = random_bytes(40 * 1024 + 5);
    for alg in Algorithm::ALL {
        let mut params = EncryptParams::new(alg, Kdf::KeyFile, random16(), random16());
        params.chunk_size = 1024;
        let reference = seal(&params, Secret::KeyFile(&key), &plain, 1, None);
        for (threads, batch) in [
            (2, None),
            (3, None),
            (8, None),
            (2, Some(0)),
            (5, Some(3000)),
        ] {
            assert!(
                seal(&params, Secret::KeyFile(&key), &plain, threads, batch) == reference,
                "{alg:?} threads {threads} batch {batch:?}"
            );
        }
    }
}

#[test]
fn passphrase_wrong_passphrase_and_wrong_kind() {
    let kdf = Kdf::Argon2id {
        m_kib: 256,
        t: 1,
        p: 1,
    };
    let params = EncryptParams::new(Algorithm::ChaCha20Poly1305, kdf, random16(), random16());
    let plain = random_bytes(5000);
    let file = seal(
        &params,
        Secret::Passphrase(b"correct horse"),
        &plain,
        2,
        None,
    );
    assert_eq!(
        open(&file, Secret::Passphrase(b"correct horse"), 2, None).unwrap(),
        plain
    );
    assert!(matches!(
        open(&file, Secret::Passphrase(b"correct horsf"), 2, None),
        Err(Error::WrongKey)
    ));
    assert!(matches!(
        open(&file, Secret::KeyFile(&[0; 32]), 2, None),
        Err(Error::WrongSecretKind {
            expected: "passphrase"
        })
    ));
    let params = EncryptParams::new(Algorithm::Aes256Gcm, Kdf::KeyFile, random16(), random16());
    let file = seal(&params, Secret::KeyFile(&[1; 32]), &plain, 2, None);
    assert!(matches!(
        open(&file, Secret::KeyFile(&[2; 32]), 2, None),
        Err(Error::WrongKey)
    ));
    assert!(matches!(
        open(&file, Secret::Passphrase(b"x"), 2, None),
        Err(Error::WrongSecretKind {
            expected: "key file"
        })
    ));
}

#[test]
fn encryptor_rejects_bad_parameters() {
    let mut params = EncryptParams::new(Algorithm::MagmaMgm, Kdf::KeyFile, [0; 16], [0; 16]);
    for bad in [0, 1023, (16 << 20) + 1] {
        params.chunk_size = bad;
        assert!(FileCipher::for_encryption(&params, Secret::KeyFile(&[0; 32])).is_err());
    }
    let params = EncryptParams::new(
        Algorithm::MagmaMgm,
        Kdf::Argon2id {
            m_kib: 7,
            t: 1,
            p: 1,
        },
        [0; 16],
        [0; 16],
    );
    assert!(FileCipher::for_encryption(&params, Secret::Passphrase(b"x")).is_err());
    let params = EncryptParams::new(
        Algorithm::MagmaMgm,
        Kdf::Argon2id {
            m_kib: 64,
            t: 1,
            p: 1,
        },
        [0; 16],
        [0; 16],
    );
    assert!(FileCipher::for_encryption(&params, Secret::Passphrase(b"")).is_err());
}

#[test]
fn matches_an_independent_implementation_of_the_format() {
    let ikm: [u8; 32] = random_bytes(32).try_into().unwrap();
    for alg in Algorithm::ALL {
        for len in [0, 1, 1023, 1024, 1025, 4096 + 100] {
            let (salt, prefix) = (random16(), random16());
            let plain = random_bytes(len);
            let mut params = EncryptParams::new(alg, Kdf::KeyFile, salt, prefix);
            params.chunk_size = 1024;
            let ours = seal(&params, Secret::KeyFile(&ikm), &plain, 2, None);
            let theirs =
                container_support::independent_container(alg, &ikm, salt, prefix, 1024, &plain);
            assert!(ours == theirs, "{alg:?} len {len}");
        }
    }
}
