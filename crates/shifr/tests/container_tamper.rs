//! Tampering with a container: every header byte flipped, random body bytes flipped, chunks swapped,
//! duplicated and dropped, truncation at every chunk boundary and inside chunks, bytes appended. Each
//! must be rejected with the right error, and no plaintext of a failing batch may be released.

use rand::{Rng, RngCore};
use shifr::container::header::HEADER_LEN;
use shifr::container::{read_header, Algorithm, EncryptParams, Error, FileCipher, Kdf, Secret};

const CHUNK: usize = 1024;
const KEY: [u8; 32] = [0x42; 32];

struct Sample {
    alg: Algorithm,
    file: Vec<u8>,
    slot: usize,
    chunks: usize,
}

fn sample(alg: Algorithm) -> Sample {
    let mut salt = [0u8; 16];
    let mut prefix = [0u8; 16];
    rand::thread_rng().fill_bytes(&mut salt);
    rand::thread_rng().fill_bytes(&mut prefix);
    let mut params = EncryptParams::new(alg, Kdf::KeyFile, salt, prefix);
    params.chunk_size = CHUNK as u32;
    let mut plain = vec![0u8; 5 * CHUNK + 300];
    rand::thread_rng().fill_bytes(&mut plain);
    let cipher = FileCipher::for_encryption(&params, Secret::KeyFile(&KEY)).unwrap();
    let mut file = Vec::new();
    cipher
        .encrypt(&plain[..], &mut file, 2, &mut |_| {})
        .unwrap();
    Sample {
        alg,
        file,
        slot: CHUNK + alg.tag_len(),
        chunks: 6,
    }
}

/// Decrypts with the given batch size; returns the error and the bytes released before it.
fn open(file: &[u8], batch: Option<usize>) -> (Result<(), Error>, Vec<u8>) {
    let mut out = Vec::new();
    let result = (|| {
        let mut input = file;
        let header = read_header(&mut input)?;
        let mut cipher = FileCipher::for_decryption(&header, Secret::KeyFile(&KEY))?;
        if let Some(b) = batch {
            cipher.set_batch_bytes(b);
        }
        cipher.decrypt(input, &mut out, 2, &mut |_| {}).map(|_| ())
    })();
    (result, out)
}

/// Asserts the failure, and that nothing was released (one batch holds the whole sample).
fn rejected(file: &[u8], what: &str, expect: impl Fn(&Error) -> bool) {
    let (result, out) = open(file, None);
    let e = result.expect_err(what);
    assert!(expect(&e), "{what}: got {e:?}");
    assert!(out.is_empty(), "{what}: released {} bytes", out.len());
}

#[test]
fn intact_sample_opens() {
    for alg in Algorithm::ALL {
        let s = sample(alg);
        assert!(open(&s.file, None).0.is_ok());
        assert!(open(&s.file, Some(0)).0.is_ok());
    }
}

#[test]
fn every_header_byte_flipped() {
    for alg in Algorithm::ALL {
        let s = sample(alg);
        for i in 0..HEADER_LEN {
            for bit in [0x01u8, 0x80] {
                let mut f = s.file.clone();
                f[i] ^= bit;
                let what = format!("{alg:?} header byte {i} ^ {bit:#x}");
                match i {
                    0..=5 => rejected(&f, &what, |e| matches!(e, Error::NotShifr)),
                    6 => rejected(&f, &what, |e| matches!(e, Error::UnsupportedVersion(_))),
                    // Fields: either out of range, or in range and then the key check fails.
                    7..=63 => rejected(&f, &what, |e| {
                        matches!(
                            e,
                            Error::BadHeader(_) | Error::WrongKey | Error::WrongSecretKind { .. }
                        )
                    }),
                    _ => rejected(&f, &what, |e| matches!(e, Error::WrongKey)),
                }
            }
        }
    }
}

#[test]
fn random_body_bytes_flipped() {
    let mut rng = rand::thread_rng();
    for alg in Algorithm::ALL {
        let s = sample(alg);
        for _ in 0..200 {
            let mut f = s.file.clone();
            let pos = rng.gen_range(HEADER_LEN..f.len());
            f[pos] ^= 1 << rng.gen_range(0..8);
            let chunk = ((pos - HEADER_LEN) / s.slot) as u64;
            rejected(
                &f,
                &format!("{alg:?} body byte {pos}"),
                |e| matches!(e, Error::ChunkAuthentication(c) if *c == chunk),
            );
        }
    }
}

fn chunk_range(s: &Sample, i: usize) -> std::ops::Range<usize> {
    let start = HEADER_LEN + i * s.slot;
    start..(start + s.slot).min(s.file.len())
}

#[test]
fn swapped_duplicated_and_dropped_chunks() {
    for alg in Algorithm::ALL {
        let s = sample(alg);
        let body = |order: &[usize]| {
            let mut f = s.file[..HEADER_LEN].to_vec();
            for &i in order {
                f.extend_from_slice(&s.file[chunk_range(&s, i)]);
            }
            f
        };
        let auth = |n: u64| move |e: &Error| matches!(e, Error::ChunkAuthentication(c) if *c == n);
        rejected(&body(&[0, 2, 1, 3, 4, 5]), "swap 1,2", auth(1));
        rejected(&body(&[1, 0, 2, 3, 4, 5]), "swap 0,1", auth(0));
        rejected(&body(&[0, 1, 1, 2, 3, 4, 5]), "duplicate 1", auth(2));
        rejected(&body(&[0, 1, 2, 3, 4, 5, 5]), "duplicate final", auth(5));
        rejected(&body(&[0, 1, 3, 4, 5]), "drop 2", auth(2));
        rejected(
            &body(&[0, 1, 2, 3, 4]),
            &format!("{alg:?} drop final"),
            |e| matches!(e, Error::Truncated { chunks: 5 }),
        );
        rejected(&body(&[0, 1, 2, 3, 5]), "drop 4", auth(4));
        // The final chunk moved forward fails where it lands: sealed as final, read as non-final.
        rejected(&body(&[5]), "final alone", auth(0));
        assert!(open(&body(&[0, 1, 2, 3, 4, 5]), None).0.is_ok());
    }
}

#[test]
fn truncation_at_every_boundary_and_inside_chunks() {
    for alg in Algorithm::ALL {
        let s = sample(alg);
        for k in 0..s.chunks {
            let cut = HEADER_LEN + k * s.slot;
            rejected(
                &s.file[..cut],
                &format!("{alg:?} cut at chunk {k}"),
                |e| matches!(e, Error::Truncated { chunks } if *chunks == k as u64),
            );
            // With batches of two chunks the verified batches before the cut are released, no more.
            let (result, out) = open(&s.file[..cut], Some(2 * CHUNK));
            assert!(matches!(result, Err(Error::Truncated { chunks }) if chunks == k as u64));
            assert!(out.len() <= k * CHUNK && out.len().is_multiple_of(2 * CHUNK));
            for inside in [1, s.alg.tag_len() - 1, s.alg.tag_len(), s.slot / 2] {
                let cut = cut + inside;
                if cut >= s.file.len() {
                    continue;
                }
                rejected(
                    &s.file[..cut],
                    &format!("{alg:?} cut inside chunk {k}"),
                    |e| matches!(e, Error::ChunkAuthentication(c) if *c == k as u64),
                );
            }
        }
        for cut in [0, 3, 6, 7, 40, HEADER_LEN - 1] {
            rejected(
                &s.file[..cut],
                &format!("{alg:?} header cut at {cut}"),
                |e| matches!(e, Error::NotShifr | Error::BadHeader(_)),
            );
        }
        rejected(&s.file[..s.file.len() - 1], "last byte cut", |e| {
            matches!(e, Error::ChunkAuthentication(5))
        });
    }
}

#[test]
fn appended_bytes() {
    for alg in Algorithm::ALL {
        let s = sample(alg);
        for extra in [1usize, 8, 16, s.slot, 3 * s.slot + 5] {
            let mut f = s.file.clone();
            f.extend(std::iter::repeat_n(0u8, extra));
            rejected(&f, &format!("{alg:?} + {extra} bytes"), |e| {
                matches!(e, Error::ChunkAuthentication(5))
            });
            // Appending a valid copy of the final chunk is caught too.
            let mut f = s.file.clone();
            f.extend_from_slice(&s.file[chunk_range(&s, 5)]);
            rejected(&f, "final chunk twice", |e| {
                matches!(e, Error::ChunkAuthentication(5))
            });
        }
    }
}
