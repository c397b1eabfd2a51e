//! The body of the cargo-fuzz target fuzz/fuzz_targets/container_parser.rs, run in `cargo test` on a
//! few thousand random and mutated inputs (valid containers of every AEAD with bytes flipped, inserted,
//! deleted, cut and appended): nothing may panic, and no mutated input may decrypt successfully.

use rand::{Rng, RngCore};
use shifr::container::{read_header, Algorithm, EncryptParams, FileCipher, Header, Kdf, Secret};

const KEY: [u8; 32] = [0x42; 32];

/// The fuzz target's body; returns whether the input opened as a valid container.
fn target(data: &[u8]) -> bool {
    let _ = Header::parse(data);
    let mut input = data;
    if let Ok(header) = read_header(&mut input) {
        if let Ok(mut cipher) = FileCipher::for_decryption(&header, Secret::KeyFile(&KEY)) {
            cipher.set_batch_bytes(usize::from(data.len().is_multiple_of(3)) * 4096);
            return cipher
                .decrypt(input, std::io::sink(), 1 + data.len() % 3, &mut |_| {})
                .is_ok();
        }
    }
    false
}

fn valid(alg: Algorithm, len: usize) -> Vec<u8> {
    let mut rng = rand::thread_rng();
    let mut params = EncryptParams::new(alg, Kdf::KeyFile, rng.gen(), rng.gen());
    params.chunk_size = 1024;
    let mut plain = vec![0u8; len];
    rng.fill_bytes(&mut plain);
    let mut out = Vec::new();
    FileCipher::for_encryption(&params, Secret::KeyFile(&KEY))
        .unwrap()
        .encrypt(&plain[..], &mut out, 2, &mut |_| {})
        .unwrap();
    out
}

#[test]
fn random_inputs() {
    let mut rng = rand::thread_rng();
    for i in 0..2000u32 {
        let mut data = vec![0u8; rng.gen_range(0..300)];
        rng.fill_bytes(&mut data);
        if i.is_multiple_of(2) && data.len() >= 7 {
            // A valid magic and version, so the rest of the header parser is reached.
            data[..7].copy_from_slice(b"shifr\0\x01");
        }
        assert!(!target(&data));
    }
}

#[test]
fn mutated_containers() {
    let mut rng = rand::thread_rng();
    for alg in Algorithm::ALL {
        let seed = valid(alg, rng.gen_range(0..4000));
        assert!(target(&seed));
        for _ in 0..600 {
            let mut data = seed.clone();
            match rng.gen_range(0..5) {
                0 => {
                    let i = rng.gen_range(0..data.len());
                    data[i] ^= 1 << rng.gen_range(0..8);
                }
                1 => {
                    let i = rng.gen_range(0..=data.len());
                    data.insert(i, rng.gen());
                }
                2 => {
                    data.remove(rng.gen_range(0..data.len()));
                }
                3 => data.truncate(rng.gen_range(0..data.len())),
                _ => data.extend((0..rng.gen_range(1..50)).map(|_| rng.gen::<u8>())),
            }
            assert!(!target(&data), "{alg:?}: a mutated container opened");
        }
    }
}
