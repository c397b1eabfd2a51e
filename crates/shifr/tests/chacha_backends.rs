//! Every ChaCha20 engine (portable, SSE2, AVX2, AVX-512) and Poly1305 backend (portable, AVX2,
//! AVX-512)
//! against RustCrypto: odd lengths, misaligned buffers, random keys and nonces, and the AEAD.
//!
//! Also long runs of key stream: whole 1 KiB batches handed to the engine in one call (the AVX-512
//! engine runs them all in one loop), mixed with partial blocks, random splits and counters near the
//! end of the 32-bit counter space; and ChaCha20-Poly1305 / XChaCha20-Poly1305 at those lengths.
//!
//! The ChaCha20 engine is fixed per process by `SHIFR_BACKEND`, so `every_engine_in_a_child`
//! reruns the engine-dependent tests in a child process of this test binary once per backend.

use chacha20::cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
use chacha20poly1305::aead::{AeadInPlace, KeyInit};
use rand::rngs::StdRng;
use rand::{Rng, RngCore, SeedableRng};
use shifr::aead::chacha20poly1305::{ChaCha20Poly1305, XChaCha20Poly1305};
use shifr::aead::Aead;
use shifr::cpu::Backend;
use shifr::hazmat::mac::poly1305::Poly1305;
use shifr::hazmat::stream::chacha20::ChaCha20;

const LENGTHS: &[usize] = &[
    0,
    1,
    15,
    16,
    17,
    63,
    64,
    65,
    255,
    256,
    1023,
    1024,
    1025,
    4096 + 13,
    16384,
];

/// Lengths around one block, one 16-block batch and several batches.
const RUN_LENGTHS: &[usize] = &[
    0,
    1,
    63,
    64,
    65,
    255,
    256,
    257,
    1023,
    1024,
    1025,
    2047,
    2048,
    3 * 1024 + 1,
    16 * 1024,
    16 * 1024 + 63,
    64 * 1024 + 17,
];

/// Set in the child processes of `every_engine_in_a_child`.
const CHILD: &str = "SHIFR_CHACHA_BACKENDS_CHILD";

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

/// ChaCha20 and ChaCha20-Poly1305 with whichever engine this process selected, at random byte
/// offsets, against RustCrypto.
#[test]
fn engine_matches_rustcrypto() {
    let mut rng = rng();
    if let Ok(forced) = std::env::var("SHIFR_BACKEND") {
        let name = ChaCha20::new(&[0; 32], &[0; 12], 0)
            .unwrap()
            .implementation();
        // A forced backend ChaCha20 has no engine for (e.g. armv8-crypto) falls back to its best.
        let engines = ["portable", "sse2", "avx2", "avx512", "neon"];
        let supported = engines.contains(&forced.as_str())
            && Backend::from_name(&forced).is_some_and(|b| b.is_supported());
        if supported {
            assert_eq!(
                name, forced,
                "SHIFR_BACKEND={forced} must select that engine"
            );
        }
    }
    for &len in LENGTHS {
        let key = random(&mut rng, 32);
        let nonce = random(&mut rng, 12);
        let counter = rng.gen_range(0..1000u32);
        let data = random(&mut rng, len);
        let offset = rng.gen_range(0..64);

        let mut expect = data.clone();
        let mut theirs = chacha20::ChaCha20::new(key[..].into(), nonce[..].into());
        theirs.seek(u64::from(counter) * 64);
        theirs.apply_keystream(&mut expect);
        let mut buf = vec![0u8; offset];
        buf.extend_from_slice(&data);
        let mut ours = ChaCha20::new(&key, &nonce, counter).unwrap();
        ours.apply_keystream(&mut buf[offset..]).unwrap();
        assert_eq!(buf[offset..], expect[..], "chacha20 len {len}");

        let aad = random(&mut rng, len % 37);
        let aead = chacha20poly1305::ChaCha20Poly1305::new(key[..].into());
        let mut expect = data.clone();
        let tag = aead
            .encrypt_in_place_detached(nonce[..].into(), &aad, &mut expect)
            .unwrap();
        let ours = ChaCha20Poly1305::new(&key).unwrap();
        let mut buf = vec![0u8; offset];
        buf.extend_from_slice(&data);
        let our_tag = ours.seal(&nonce, &aad, &mut buf[offset..]).unwrap();
        assert_eq!(buf[offset..], expect[..], "aead ct len {len}");
        assert_eq!(our_tag.as_ref(), tag.as_slice(), "aead tag len {len}");
        ours.open(&nonce, &aad, &mut buf[offset..], tag.as_slice())
            .unwrap();
        assert_eq!(buf[offset..], data[..]);
    }
}

/// Tests this binary runs once per ChaCha20 engine (the rest do not depend on it).
const ENGINE_TESTS: usize = 6;

#[test]
fn every_engine_in_a_child() {
    if std::env::var(CHILD).is_ok() {
        return;
    }
    let exe = std::env::current_exe().expect("test binary path");
    // avx512ifma: the ChaCha20 engine falls back to the best one, Poly1305 runs on IFMA.
    for backend in ["portable", "sse2", "avx2", "avx512", "avx512ifma"] {
        if !Backend::from_name(backend).is_some_and(|b| b.is_supported()) {
            println!("{backend} not available on this CPU: skipped");
            continue;
        }
        let out = std::process::Command::new(&exe)
            .args([
                "--skip",
                "every_engine_in_a_child",
                "--skip",
                "poly1305_backends",
            ])
            .arg("--nocapture")
            .env(CHILD, "1")
            .env("SHIFR_BACKEND", backend)
            .output()
            .expect("run the test binary");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains(&format!("{ENGINE_TESTS} passed")),
            "SHIFR_BACKEND={backend}: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Poly1305 on every backend against RustCrypto, including all-ones keys and messages (the most
/// carries), lengths around the 128- and 256-byte vector steps and random splits.
#[test]
fn poly1305_backends_match_rustcrypto() {
    let mut rng = rng();
    let mut backends = vec![Backend::Portable];
    for b in [Backend::Avx2, Backend::Avx512, Backend::Ifma] {
        if b.is_supported() {
            backends.push(b);
        } else {
            println!("{} not available on this CPU: skipped", b.name());
        }
    }
    for &len in LENGTHS
        .iter()
        .chain(&[48, 80, 127, 128, 129, 192, 320, 511, 512, 513, 768])
    {
        for round in 0..4 {
            let key = if round == 0 {
                vec![0xff; 32]
            } else {
                random(&mut rng, 32)
            };
            let msg = if round == 1 {
                vec![0xff; len]
            } else {
                random(&mut rng, len)
            };
            let expect = poly1305::Poly1305::new(key[..].into()).compute_unpadded(&msg);
            for &backend in &backends {
                let mut p = Poly1305::with_backend(&key, backend).unwrap();
                assert_eq!(p.backend(), backend);
                let cut = rng.gen_range(0..=len);
                p.update(&msg[..cut]);
                p.update(&msg[cut..]);
                assert_eq!(p.finalize(), expect.as_slice(), "{backend:?} len {len}");
            }
        }
    }
}

/// RustCrypto's key stream XORed into `data` from block `counter`.
fn reference(key: &[u8], nonce: &[u8], counter: u32, data: &mut [u8]) {
    let mut theirs = chacha20::ChaCha20::new(key.into(), nonce.into());
    theirs.seek(u64::from(counter) * 64);
    theirs.apply_keystream(data);
}

/// `data` copied to a buffer at byte offset `offset`, so the engine sees a misaligned slice.
fn misaligned(data: &[u8], offset: usize) -> Vec<u8> {
    let mut buf = vec![0u8; offset];
    buf.extend_from_slice(data);
    buf
}

#[test]
fn long_runs_match_rustcrypto() {
    let mut rng = rng();
    for &len in RUN_LENGTHS {
        let key = random(&mut rng, 32);
        let nonce = random(&mut rng, 12);
        let counter = rng.gen_range(0..1_000_000u32);
        let data = random(&mut rng, len);
        let mut expect = data.clone();
        reference(&key, &nonce, counter, &mut expect);

        // One call over the whole message, at a random misalignment.
        let offset = rng.gen_range(1..64);
        let mut buf = misaligned(&data, offset);
        let mut ours = ChaCha20::new(&key, &nonce, counter).unwrap();
        ours.apply_keystream(&mut buf[offset..]).unwrap();
        assert_eq!(buf[offset..], expect[..], "one call, len {len}");

        // A partial first piece, so the whole batches that follow start mid-block and the
        // buffered key stream is used up first.
        let head = rng.gen_range(0..=len.min(100));
        let mut buf = data.clone();
        let mut ours = ChaCha20::new(&key, &nonce, counter).unwrap();
        let (a, b) = buf.split_at_mut(head);
        ours.apply_keystream(a).unwrap();
        ours.apply_keystream(b).unwrap();
        assert_eq!(buf, expect, "split at {head}, len {len}");
    }
}

/// Runs that cross the 2^32 block counter wrap inside the engine's counter lanes are impossible
/// (the cipher stops at block 2^32 - 1), but runs that end exactly at it, or whose whole batches
/// are cut short by it, must still be right.
#[test]
fn runs_near_the_counter_end_match_rustcrypto() {
    let mut rng = rng();
    // RustCrypto never produces block 2^32 - 1, so the message stops one block before it.
    for blocks_left in [2u32, 16, 17, 31, 33, 40, 100] {
        let counter = u32::MAX - blocks_left + 1;
        let key = random(&mut rng, 32);
        let nonce = random(&mut rng, 12);
        let len = (blocks_left as usize - 1) * 64 - rng.gen_range(0..64);
        let data = random(&mut rng, len);
        let mut expect = data.clone();
        reference(&key, &nonce, counter, &mut expect);
        let offset = rng.gen_range(0..64);
        let mut buf = misaligned(&data, offset);
        let mut ours = ChaCha20::new(&key, &nonce, counter).unwrap();
        assert_eq!(ours.remaining_bytes(), u64::from(blocks_left) * 64);
        ours.apply_keystream(&mut buf[offset..]).unwrap();
        assert_eq!(buf[offset..], expect[..], "{blocks_left} blocks left");
        // What is left is at most the last block and a part of the one before.
        assert!(ours.remaining_bytes() <= 128);
        assert!(ours.apply_keystream(&mut [0u8; 129]).is_err());
    }
}

#[test]
fn aeads_over_long_runs_match_rustcrypto() {
    let mut rng = rng();
    for &len in RUN_LENGTHS {
        let key = random(&mut rng, 32);
        let data = random(&mut rng, len);
        let aad = random(&mut rng, len % 29);
        let offset = rng.gen_range(0..64);

        let nonce = random(&mut rng, 12);
        let theirs = chacha20poly1305::ChaCha20Poly1305::new(key[..].into());
        let mut expect = data.clone();
        let tag = theirs
            .encrypt_in_place_detached(nonce[..].into(), &aad, &mut expect)
            .unwrap();
        let ours = ChaCha20Poly1305::new(&key).unwrap();
        let mut buf = misaligned(&data, offset);
        let our_tag = ours.seal(&nonce, &aad, &mut buf[offset..]).unwrap();
        assert_eq!(buf[offset..], expect[..], "chacha20-poly1305 ct, len {len}");
        assert_eq!(our_tag.as_ref(), tag.as_slice(), "chacha20-poly1305 tag");
        ours.open(&nonce, &aad, &mut buf[offset..], tag.as_slice())
            .unwrap();
        assert_eq!(buf[offset..], data[..]);

        let nonce = random(&mut rng, 24);
        let theirs = chacha20poly1305::XChaCha20Poly1305::new(key[..].into());
        let mut expect = data.clone();
        let tag = theirs
            .encrypt_in_place_detached(nonce[..].into(), &aad, &mut expect)
            .unwrap();
        let ours = XChaCha20Poly1305::new(&key).unwrap();
        let mut buf = misaligned(&data, offset);
        let our_tag = ours.seal(&nonce, &aad, &mut buf[offset..]).unwrap();
        assert_eq!(
            buf[offset..],
            expect[..],
            "xchacha20-poly1305 ct, len {len}"
        );
        assert_eq!(our_tag.as_ref(), tag.as_slice(), "xchacha20-poly1305 tag");
        // A flipped ciphertext bit must be refused and leave the buffer as it was.
        if len > 0 {
            buf[offset + len / 2] ^= 1;
            let before = buf.clone();
            assert!(ours
                .open(&nonce, &aad, &mut buf[offset..], tag.as_slice())
                .is_err());
            assert_eq!(buf, before);
            buf[offset + len / 2] ^= 1;
        }
        ours.open(&nonce, &aad, &mut buf[offset..], tag.as_slice())
            .unwrap();
        assert_eq!(buf[offset..], data[..]);
    }
}

/// ChaCha20-Poly1305 and XChaCha20-Poly1305 at every length from 0 to 300 bytes and around the
/// one-batch short path (block 0 and the message from one key stream call, scalar Poly1305), with
/// random keys, nonces and AAD, against RustCrypto: seal, open, and a wrong tag refused with the
/// buffer left alone.
#[test]
fn aeads_at_every_short_length_match_rustcrypto() {
    let mut rng = rng();
    // The short kernels' and the one-batch path's ends, the vector Poly1305 threshold (768) and
    // seal's interleave piece (16384).
    let edges = [
        447, 448, 449, 511, 512, 513, 767, 768, 769, 959, 960, 961, 1024, 4095, 4096, 4097, 4103,
        16383, 16384, 16385, 32775,
    ];
    for len in (0..=300).chain(edges) {
        let key = random(&mut rng, 32);
        let data = random(&mut rng, len);
        let aad_len = rng.gen_range(0..40);
        let aad = random(&mut rng, aad_len);
        for x in [false, true] {
            let nonce = random(&mut rng, if x { 24 } else { 12 });
            let mut expect = data.clone();
            let tag =
                if x {
                    chacha20poly1305::XChaCha20Poly1305::new(key[..].into())
                        .encrypt_in_place_detached(nonce[..].into(), &aad, &mut expect)
                } else {
                    chacha20poly1305::ChaCha20Poly1305::new(key[..].into())
                        .encrypt_in_place_detached(nonce[..].into(), &aad, &mut expect)
                }
                .unwrap();
            let ours: Box<dyn Aead> = if x {
                Box::new(XChaCha20Poly1305::new(&key).unwrap())
            } else {
                Box::new(ChaCha20Poly1305::new(&key).unwrap())
            };
            let mut buf = data.clone();
            let our_tag = ours.seal(&nonce, &aad, &mut buf).unwrap();
            assert_eq!(buf, expect, "x {x} ct len {len} aad {aad_len}");
            assert_eq!(our_tag.as_ref(), tag.as_slice(), "x {x} tag len {len}");
            let mut bad = tag.to_vec();
            bad[len % 16] ^= 0x10;
            assert!(ours.open(&nonce, &aad, &mut buf, &bad).is_err());
            assert_eq!(buf, expect, "x {x} len {len}: refused open changed data");
            ours.open(&nonce, &aad, &mut buf, tag.as_slice()).unwrap();
            assert_eq!(buf, data, "x {x} open len {len}");
        }
    }
}

/// ChaCha20-Poly1305 at every length 0..=1100 (the 4- and 8-block short kernels end at 192 and 448
/// bytes, the one-batch path at 960) with assorted AAD lengths, against RustCrypto: seal, open and
/// a rejected tampered tag.
#[test]
fn aead_every_short_length_matches_rustcrypto() {
    let mut rng = rng();
    for len in 0..=1100usize {
        let key = random(&mut rng, 32);
        let nonce = random(&mut rng, 12);
        let aad = random(&mut rng, [0, 1, 13, 16, 17, 40][len % 6]);
        let pt = random(&mut rng, len);
        let theirs = chacha20poly1305::ChaCha20Poly1305::new_from_slice(&key).unwrap();
        let mut expected = pt.clone();
        let expected_tag = theirs
            .encrypt_in_place_detached(nonce[..].into(), &aad, &mut expected)
            .unwrap();
        let ours = ChaCha20Poly1305::new(&key).unwrap();
        let mut data = pt.clone();
        let tag = ours.seal(&nonce, &aad, &mut data).unwrap();
        assert_eq!(data, expected, "ct len {len}");
        assert_eq!(tag.as_ref(), expected_tag.as_slice(), "tag len {len}");
        let mut bad = expected_tag.to_vec();
        bad[len % 16] ^= 1;
        assert!(ours.open(&nonce, &aad, &mut data, &bad).is_err());
        assert_eq!(data, expected, "untouched after a bad tag, len {len}");
        ours.open(&nonce, &aad, &mut data, tag.as_ref()).unwrap();
        assert_eq!(data, pt, "open len {len}");
    }
}
