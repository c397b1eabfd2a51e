//! The fuzz targets' properties (`shifr_input::invariants`) on random and mutated inputs, in every
//! `cargo test`: the long runs are in fuzz/README.md.

use rand::{Rng, RngCore, SeedableRng};
use shifr_input::invariants;

/// Inputs near the interesting shapes (hex text, numbers with suffixes, line ends) and plain noise.
fn inputs(seed: u64, count: usize) -> Vec<Vec<u8>> {
    let seeds: [&[u8]; 10] = [
        b"000102030405060708090a0b0c0d0e0f\n",
        b"5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c",
        b"pw\r\nrest",
        b"64MiB",
        b"17179869184K",
        b"1e-300",
        b"1024",
        b" 00ff \n",
        b"\xff\xfe\x00\x01",
        b"",
    ];
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..count)
        .map(|i| {
            let mut v = seeds[i % seeds.len()].to_vec();
            for _ in 0..rng.gen_range(0..4) {
                match rng.gen_range(0..3) {
                    0 if !v.is_empty() => {
                        let at = rng.gen_range(0..v.len());
                        v[at] = rng.gen();
                    }
                    1 => {
                        let at = rng.gen_range(0..=v.len());
                        const ALPHABET: &[u8] = b"0123456789abcdefKMGT.\n \r-";
                        v.insert(at, ALPHABET[rng.gen_range(0..ALPHABET.len())]);
                    }
                    _ if !v.is_empty() => {
                        let at = rng.gen_range(0..v.len());
                        v.remove(at);
                    }
                    _ => {}
                }
            }
            if i % 7 == 0 {
                let mut noise = vec![0u8; rng.gen_range(0..80)];
                rng.fill_bytes(&mut noise);
                v = noise;
            }
            v
        })
        .collect()
}

#[test]
fn parsers_keep_their_properties_on_random_input() {
    for input in inputs(0x5eed, 60_000) {
        invariants::key_file(&input);
        invariants::passphrase_file(&input);
        invariants::option_value(&input);
    }
}

#[test]
fn oversized_secret_files_are_refused_not_parsed() {
    invariants::key_file(&vec![b'a'; 5000]);
    invariants::passphrase_file(&vec![b'p'; 70_000]);
}
