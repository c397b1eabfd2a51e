//! Differential tests: shifr's ChaCha20, XChaCha20, Poly1305, ChaCha20-Poly1305 and
//! XChaCha20-Poly1305 against the independent RustCrypto implementations (chacha20 0.9,
//! poly1305 0.8, chacha20poly1305 0.10) on random keys, nonces, counters, AAD, lengths and splits.

use chacha20::cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
use chacha20poly1305::aead::{AeadInPlace, KeyInit};
use rand::rngs::StdRng;
use rand::{Rng, RngCore, SeedableRng};
use shifr::aead::chacha20poly1305::{ChaCha20Poly1305, XChaCha20Poly1305};
use shifr::aead::Aead;
use shifr::hazmat::mac::poly1305::{poly1305, Poly1305};
use shifr::hazmat::stream::chacha20::{ChaCha20, XChaCha20};
use shifr::Error;

/// Message lengths around the 64-byte block and the internal batch, plus several KiB.
const LENGTHS: &[usize] = &[
    0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512, 513, 1000, 4096, 5000,
    16411,
];

fn rng() -> StdRng {
    StdRng::seed_from_u64(0x5348_4946_5231)
}

fn random_bytes(rng: &mut StdRng, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    rng.fill_bytes(&mut v);
    v
}

/// Cuts `len` into random piece sizes (including empty pieces).
fn random_splits(rng: &mut StdRng, len: usize) -> Vec<usize> {
    let mut pieces = Vec::new();
    let mut left = len;
    while left > 0 {
        let n = match rng.gen_range(0..4) {
            0 => 0,
            1 => rng.gen_range(1..=64.min(left)),
            _ => rng.gen_range(1..=left),
        };
        pieces.push(n);
        left -= n;
    }
    pieces
}

fn apply_pieces(mut f: impl FnMut(&mut [u8]), data: &mut [u8], pieces: &[usize]) {
    let mut rest = data;
    for &n in pieces {
        let (now, later) = rest.split_at_mut(n);
        f(now);
        rest = later;
    }
    assert!(rest.is_empty());
}

#[test]
fn chacha20_matches_rustcrypto() {
    let mut rng = rng();
    for &len in LENGTHS {
        for _ in 0..4 {
            let key = random_bytes(&mut rng, 32);
            let nonce = random_bytes(&mut rng, 12);
            let counter: u32 = rng.gen_range(0..1 << 30);
            let pt = random_bytes(&mut rng, len);

            let mut expected = pt.clone();
            let mut theirs = chacha20::ChaCha20::new(key[..].into(), nonce[..].into());
            theirs.seek(u64::from(counter) * 64);
            theirs.apply_keystream(&mut expected);

            let mut ours = pt.clone();
            ChaCha20::new(&key, &nonce, counter)
                .unwrap()
                .apply_keystream(&mut ours)
                .unwrap();
            assert_eq!(ours, expected, "len {len} counter {counter}");

            let pieces = random_splits(&mut rng, len);
            let mut c = ChaCha20::new(&key, &nonce, counter).unwrap();
            let mut streamed = pt.clone();
            apply_pieces(|p| c.apply_keystream(p).unwrap(), &mut streamed, &pieces);
            assert_eq!(streamed, expected, "len {len} pieces {pieces:?}");
        }
    }
}

#[test]
fn chacha20_near_counter_end_matches_rustcrypto() {
    // RustCrypto stops one block earlier (it never produces block 2^32 - 1), so compare the blocks
    // both produce and check the last one through the RFC block function.
    let mut rng = rng();
    let key = random_bytes(&mut rng, 32);
    let nonce = random_bytes(&mut rng, 12);
    let counter = u32::MAX - 9;
    let len = 9 * 64;
    let mut expected = vec![0u8; len];
    let mut theirs = chacha20::ChaCha20::new(key[..].into(), nonce[..].into());
    theirs.seek(u64::from(counter) * 64);
    theirs.apply_keystream(&mut expected);

    let mut c = ChaCha20::new(&key, &nonce, counter).unwrap();
    assert_eq!(c.remaining_bytes(), 10 * 64);
    let mut ours = vec![0u8; len];
    let pieces = random_splits(&mut rng, len);
    apply_pieces(|p| c.apply_keystream(p).unwrap(), &mut ours, &pieces);
    assert_eq!(ours, expected);
    let mut last = [0u8; 64];
    assert_eq!(
        c.apply_keystream(&mut [0u8; 65]),
        Err(Error::LengthLimit(
            "ChaCha20 32-bit block counter would wrap (at most 256 GiB per nonce)"
        ))
    );
    c.apply_keystream(&mut last).unwrap();
    assert_eq!(c.remaining_bytes(), 0);
    assert!(c.apply_keystream(&mut [0u8; 1]).is_err());
}

#[test]
fn xchacha20_matches_rustcrypto() {
    let mut rng = rng();
    for &len in LENGTHS {
        for _ in 0..3 {
            let key = random_bytes(&mut rng, 32);
            let nonce = random_bytes(&mut rng, 24);
            let counter: u32 = rng.gen_range(0..1 << 30);
            let pt = random_bytes(&mut rng, len);

            let mut expected = pt.clone();
            let mut theirs = chacha20::XChaCha20::new(key[..].into(), nonce[..].into());
            theirs.seek(u64::from(counter) * 64);
            theirs.apply_keystream(&mut expected);

            let pieces = random_splits(&mut rng, len);
            let mut c = XChaCha20::new(&key, &nonce, counter).unwrap();
            let mut ours = pt.clone();
            apply_pieces(|p| c.apply_keystream(p).unwrap(), &mut ours, &pieces);
            assert_eq!(ours, expected, "len {len} pieces {pieces:?}");
        }
    }
}

#[test]
fn hchacha20_matches_rustcrypto() {
    let mut rng = rng();
    for _ in 0..100 {
        let key: [u8; 32] = random_bytes(&mut rng, 32).try_into().unwrap();
        let nonce: [u8; 16] = random_bytes(&mut rng, 16).try_into().unwrap();
        let theirs =
            chacha20::hchacha::<chacha20::cipher::consts::U10>((&key).into(), (&nonce).into());
        assert_eq!(
            shifr::hazmat::stream::chacha20::hchacha20(&key, &nonce),
            theirs.as_slice()
        );
    }
}

#[test]
fn poly1305_matches_rustcrypto() {
    let mut rng = rng();
    for &len in LENGTHS {
        for round in 0..6 {
            let mut key = random_bytes(&mut rng, 32);
            if round == 0 {
                // Extreme keys: all-ones r (clamped) and s, to exercise carries.
                key.iter_mut().for_each(|b| *b = 0xff);
            }
            let msg = if round == 1 {
                vec![0xff; len]
            } else {
                random_bytes(&mut rng, len)
            };
            let expected = poly1305::Poly1305::new(key[..].into()).compute_unpadded(&msg);

            assert_eq!(
                poly1305(&key, &msg).unwrap(),
                expected.as_slice(),
                "len {len}"
            );
            let mut p = Poly1305::new(&key).unwrap();
            let mut at = 0;
            for n in random_splits(&mut rng, len) {
                p.update(&msg[at..at + n]);
                at += n;
            }
            assert_eq!(p.finalize(), expected.as_slice(), "len {len} split");
        }
    }
}

/// Compares one AEAD against RustCrypto's (seal both ways, open, tamper rejection).
fn aead_case<T: AeadInPlace>(
    ours: &dyn Aead,
    theirs: &T,
    nonce: &[u8],
    aad: &[u8],
    pt: &[u8],
    rng: &mut StdRng,
) {
    let mut expected = pt.to_vec();
    let expected_tag = theirs
        .encrypt_in_place_detached(nonce.into(), aad, &mut expected)
        .unwrap();

    let mut data = pt.to_vec();
    let tag = ours.seal(nonce, aad, &mut data).unwrap();
    assert_eq!(data, expected, "ct, len {}", pt.len());
    assert_eq!(
        tag.as_ref(),
        expected_tag.as_slice(),
        "tag, len {}",
        pt.len()
    );

    // Tampered tag, ciphertext or AAD: rejected, buffer untouched.
    let mut bad_tag = expected_tag.to_vec();
    bad_tag[rng.gen_range(0..16)] ^= 1 << rng.gen_range(0..8);
    assert_eq!(
        ours.open(nonce, aad, &mut data, &bad_tag),
        Err(Error::AuthenticationFailed)
    );
    assert_eq!(data, expected);
    if !data.is_empty() {
        let i = rng.gen_range(0..data.len());
        data[i] ^= 0x20;
        let mut copy = data.clone();
        assert_eq!(
            ours.open(nonce, aad, &mut copy, tag.as_ref()),
            Err(Error::AuthenticationFailed)
        );
        assert_eq!(copy, data);
        data[i] ^= 0x20;
    }
    let mut bad_aad = aad.to_vec();
    if bad_aad.is_empty() {
        bad_aad.push(0);
    } else {
        let i = rng.gen_range(0..bad_aad.len());
        bad_aad[i] ^= 0x01;
    }
    assert_eq!(
        ours.open(nonce, &bad_aad, &mut data, tag.as_ref()),
        Err(Error::AuthenticationFailed)
    );
    assert_eq!(
        ours.open(nonce, aad, &mut data, &tag.as_ref()[..15]),
        Err(Error::AuthenticationFailed)
    );
    assert_eq!(data, expected);

    ours.open(nonce, aad, &mut data, tag.as_ref()).unwrap();
    assert_eq!(data, pt);

    // RustCrypto opens what we seal.
    let mut theirs_open = expected.clone();
    theirs
        .decrypt_in_place_detached(nonce.into(), aad, &mut theirs_open, tag.as_ref().into())
        .unwrap();
    assert_eq!(theirs_open, pt);
}

#[test]
fn chacha20poly1305_matches_rustcrypto() {
    let mut rng = rng();
    for &len in LENGTHS {
        for aad_len in [0usize, 1, 12, 16, 17, 100] {
            let key = random_bytes(&mut rng, 32);
            let nonce = random_bytes(&mut rng, 12);
            let aad = random_bytes(&mut rng, aad_len);
            let pt = random_bytes(&mut rng, len);
            let ours = ChaCha20Poly1305::new(&key).unwrap();
            let theirs = chacha20poly1305::ChaCha20Poly1305::new_from_slice(&key).unwrap();
            aead_case(&ours, &theirs, &nonce, &aad, &pt, &mut rng);
        }
    }
}

#[test]
fn xchacha20poly1305_matches_rustcrypto() {
    let mut rng = rng();
    for &len in LENGTHS {
        for aad_len in [0usize, 1, 15, 33] {
            let key = random_bytes(&mut rng, 32);
            let nonce = random_bytes(&mut rng, 24);
            let aad = random_bytes(&mut rng, aad_len);
            let pt = random_bytes(&mut rng, len);
            let ours = XChaCha20Poly1305::new(&key).unwrap();
            let theirs = chacha20poly1305::XChaCha20Poly1305::new_from_slice(&key).unwrap();
            aead_case(&ours, &theirs, &nonce, &aad, &pt, &mut rng);
        }
    }
}
