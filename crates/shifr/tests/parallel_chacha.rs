//! The engine's split ChaCha20, ChaCha20-Poly1305 and XChaCha20-Poly1305 give the ciphertext and
//! tag of RustCrypto (`chacha20poly1305`, `chacha20`) and of the single-thread calls for 1..=5
//! threads, on random keys, nonces, AAD and lengths around the part boundaries (whole 64-byte
//! blocks, one byte either side, partial Poly1305 blocks, messages cut into many parts). `open`
//! returns the plaintext for every thread count and rejects a tampered tag, ciphertext or AAD with
//! the buffer untouched.

use chacha20::cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
use chacha20poly1305::aead::{AeadInPlace, KeyInit};
use rand::rngs::StdRng;
use rand::{RngCore, SeedableRng};
use shifr::aead::chacha20poly1305::{ChaCha20Poly1305, XChaCha20Poly1305};
use shifr::hazmat::stream::chacha20::ChaCha20;
use shifr::parallel::Engine;
use shifr::Error;

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

/// 1..=5 threads, splitting every message of two or more blocks.
fn engines() -> Vec<Engine> {
    (1..=5)
        .map(|t| Engine::new(t).with_min_parallel(1))
        .collect()
}

/// Lengths around one block, around `k * 64` for the part counts 2..=5 (parts are whole 64-byte
/// blocks, the last takes the rest), and large enough for many parts per thread.
fn text_lens() -> Vec<usize> {
    let mut lens = vec![0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 1000];
    for k in [2usize, 3, 4, 5, 6, 7, 10] {
        for d in [-17isize, -1, 0, 1, 16] {
            lens.push((k as isize * 64 + d) as usize);
        }
    }
    lens.extend([4096 * 5 + 3, 70_000, 300_001, 1 << 20]);
    lens
}

const AAD_LENS: &[usize] = &[0, 1, 16, 17, 200];

fn reference_seal(key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let mut ct = pt.to_vec();
    let tag = if nonce.len() == 12 {
        chacha20poly1305::ChaCha20Poly1305::new_from_slice(key)
            .unwrap()
            .encrypt_in_place_detached(nonce.into(), aad, &mut ct)
            .unwrap()
    } else {
        chacha20poly1305::XChaCha20Poly1305::new_from_slice(key)
            .unwrap()
            .encrypt_in_place_detached(nonce.into(), aad, &mut ct)
            .unwrap()
    };
    (ct, tag.to_vec())
}

/// The engine's seal/open of one AEAD, for both nonce sizes.
struct Split {
    c: ChaCha20Poly1305,
    x: XChaCha20Poly1305,
}

impl Split {
    fn seal(
        &self,
        e: &Engine,
        nonce: &[u8],
        aad: &[u8],
        data: &mut [u8],
    ) -> shifr::Result<Vec<u8>> {
        let tag = if nonce.len() == 12 {
            e.seal(&self.c, nonce, aad, data)?
        } else {
            e.seal(&self.x, nonce, aad, data)?
        };
        Ok(tag.as_ref().to_vec())
    }

    fn open(
        &self,
        e: &Engine,
        nonce: &[u8],
        aad: &[u8],
        data: &mut [u8],
        tag: &[u8],
    ) -> shifr::Result<()> {
        if nonce.len() == 12 {
            e.open(&self.c, nonce, aad, data, tag)
        } else {
            e.open(&self.x, nonce, aad, data, tag)
        }
    }
}

#[test]
fn split_aeads_match_rustcrypto_for_any_thread_count() {
    let mut rng = rng();
    for (i, len) in text_lens().into_iter().enumerate() {
        let key = random_bytes(&mut rng, 32);
        let split = Split {
            c: ChaCha20Poly1305::new(&key).unwrap(),
            x: XChaCha20Poly1305::new(&key).unwrap(),
        };
        let aad = random_bytes(&mut rng, AAD_LENS[i % AAD_LENS.len()]);
        let pt = random_bytes(&mut rng, len);
        for nonce_len in [12, 24] {
            let nonce = random_bytes(&mut rng, nonce_len);
            let (ct, tag) = reference_seal(&key, &nonce, &aad, &pt);
            for e in engines() {
                let label = format!("len {len}, nonce {nonce_len}, {} threads", e.threads());
                let mut data = pt.clone();
                let ours = split.seal(&e, &nonce, &aad, &mut data).unwrap();
                assert!(data == ct, "ciphertext, {label}");
                assert_eq!(ours, tag, "tag, {label}");
                split.open(&e, &nonce, &aad, &mut data, &tag).unwrap();
                assert!(data == pt, "open, {label}");
            }
        }
    }
}

#[test]
fn split_open_rejects_tampering_and_leaves_the_buffer() {
    let mut rng = rng();
    let key = random_bytes(&mut rng, 32);
    let split = Split {
        c: ChaCha20Poly1305::new(&key).unwrap(),
        x: XChaCha20Poly1305::new(&key).unwrap(),
    };
    for len in [129usize, 5000, 70_001] {
        let pt = random_bytes(&mut rng, len);
        let aad = random_bytes(&mut rng, 20);
        for nonce_len in [12, 24] {
            let nonce = random_bytes(&mut rng, nonce_len);
            let (ct, tag) = reference_seal(&key, &nonce, &aad, &pt);
            for e in engines().into_iter().skip(1) {
                let mut bad_tag = tag.clone();
                bad_tag[len % 16] ^= 1;
                let mut data = ct.clone();
                let r = split.open(&e, &nonce, &aad, &mut data, &bad_tag);
                assert_eq!(r, Err(Error::AuthenticationFailed));
                assert!(data == ct, "buffer changed after a bad tag");
                // A flipped bit in the last part and in the first part.
                for at in [len - 1, 0] {
                    data[at] ^= 0x20;
                    let r = split.open(&e, &nonce, &aad, &mut data, &tag);
                    assert_eq!(r, Err(Error::AuthenticationFailed));
                    data[at] ^= 0x20;
                    assert!(data == ct, "buffer changed after a bad ciphertext");
                }
                let mut bad_aad = aad.clone();
                bad_aad[3] ^= 0x80;
                let r = split.open(&e, &nonce, &bad_aad, &mut data, &tag);
                assert_eq!(r, Err(Error::AuthenticationFailed));
                let r = split.open(&e, &nonce, &aad, &mut data, &tag[..15]);
                assert_eq!(r, Err(Error::AuthenticationFailed));
                assert!(data == ct);
            }
        }
    }
}

#[test]
fn split_aeads_return_the_single_thread_errors() {
    let split = Split {
        c: ChaCha20Poly1305::new(&[7u8; 32]).unwrap(),
        x: XChaCha20Poly1305::new(&[7u8; 32]).unwrap(),
    };
    let e = Engine::new(3).with_min_parallel(1);
    let mut data = vec![5u8; 1000];
    for n in [0usize, 8, 11, 13, 23, 25] {
        let nonce = vec![0u8; n];
        assert!(matches!(
            split.seal(&e, &nonce, b"", &mut data),
            Err(Error::InvalidNonceLength { .. })
        ));
        assert!(matches!(
            split.open(&e, &nonce, b"", &mut data, &[0u8; 16]),
            Err(Error::InvalidNonceLength { .. })
        ));
    }
    assert_eq!(data, vec![5u8; 1000]);
    let mut data = vec![0u8; 100];
    assert!(matches!(
        e.chacha20_apply(&[0u8; 31], &[0u8; 12], 0, &mut data),
        Err(Error::InvalidKeyLength { .. })
    ));
    // Two blocks from counter 2^32 - 1 would wrap.
    assert!(matches!(
        e.chacha20_apply(&[0u8; 32], &[0u8; 12], u32::MAX, &mut data),
        Err(Error::LengthLimit(_))
    ));
    assert_eq!(data, vec![0u8; 100]);
}

#[test]
fn split_chacha20_matches_rustcrypto_and_one_thread() {
    let mut rng = rng();
    for len in text_lens() {
        let key = random_bytes(&mut rng, 32);
        let nonce = random_bytes(&mut rng, 12);
        let counter = rng.next_u32() >> 8;
        let pt = random_bytes(&mut rng, len);
        let mut expect = pt.clone();
        let mut reference = chacha20::ChaCha20::new(key[..].into(), nonce[..].into());
        reference.seek(u64::from(counter) * 64);
        reference.apply_keystream(&mut expect);
        let mut single = pt.clone();
        ChaCha20::new(&key, &nonce, counter)
            .unwrap()
            .apply_keystream(&mut single)
            .unwrap();
        assert!(single == expect, "single thread, len {len}");
        for e in engines() {
            let mut data = pt.clone();
            e.chacha20_apply(&key, &nonce, counter, &mut data).unwrap();
            assert!(data == expect, "len {len}, {} threads", e.threads());
        }
    }
}
