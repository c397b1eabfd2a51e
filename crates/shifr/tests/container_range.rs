//! `FileCipher::encrypt_range`: chunk ranges sealed apart, each by its own cipher keyed from the same
//! parameters, and concatenated after the header are byte for byte the file `encrypt` writes; and
//! `chunk_cipher` seals and opens single jobs that match it too.

use shifr::container::header::HEADER_LEN;
use shifr::container::{read_header, Algorithm, EncryptParams, Error, FileCipher, Kdf, Secret};

const KEY: [u8; 32] = [7; 32];

fn params(algorithm: Algorithm) -> EncryptParams {
    let mut p = EncryptParams::new(algorithm, Kdf::KeyFile, [0x40; 16], [0x80; 16]);
    p.chunk_size = 1024;
    p
}

fn plain(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 31 % 251) as u8).collect()
}

fn whole(p: &EncryptParams, data: &[u8]) -> Vec<u8> {
    let cipher = FileCipher::for_encryption(p, Secret::KeyFile(&KEY)).unwrap();
    let mut out = Vec::new();
    cipher.encrypt(data, &mut out, 2, &mut |_| {}).unwrap();
    out
}

#[test]
fn ranges_sealed_apart_concatenate_to_the_whole_file() {
    for algorithm in Algorithm::ALL {
        let p = params(algorithm);
        // Around the chunk boundaries: a final chunk that is empty, short, or one byte short.
        for len in [0usize, 1, 1023, 1024, 3 * 1024, 5 * 1024 + 77, 8 * 1024 - 1] {
            let data = plain(len);
            let expected = whole(&p, &data);
            // Split points in whole chunks; the last range holds the final chunk.
            for split_chunks in [1usize, 2, 3] {
                let split = (split_chunks * 1024).min(len / 1024 * 1024);
                let mut file = Vec::new();
                let header_cipher = FileCipher::for_encryption(&p, Secret::KeyFile(&KEY)).unwrap();
                file.extend_from_slice(&header_cipher.header().to_bytes());
                let first = FileCipher::for_encryption(&p, Secret::KeyFile(&KEY)).unwrap();
                let n = first
                    .encrypt_range(0, false, &data[..split], &mut file, 1, &mut |_| {})
                    .unwrap();
                assert_eq!(n, split as u64);
                let second = FileCipher::for_encryption(&p, Secret::KeyFile(&KEY)).unwrap();
                second
                    .encrypt_range(
                        (split / 1024) as u64,
                        true,
                        &data[split..],
                        &mut file,
                        3,
                        &mut |_| {},
                    )
                    .unwrap();
                assert_eq!(
                    file,
                    expected,
                    "{} len {len} split {split}",
                    algorithm.name()
                );
            }
        }
    }
}

#[test]
fn a_non_final_range_must_hold_whole_chunks() {
    let cipher =
        FileCipher::for_encryption(&params(Algorithm::ChaCha20Poly1305), Secret::KeyFile(&KEY))
            .unwrap();
    let mut out = Vec::new();
    let e = cipher
        .encrypt_range(0, false, &plain(1500)[..], &mut out, 1, &mut |_| {})
        .unwrap_err();
    assert!(matches!(e, Error::InvalidParameter(_)), "{e}");
    let e = cipher
        .encrypt_range(1 << 62, true, &[][..], &mut out, 1, &mut |_| {})
        .unwrap_err();
    assert!(matches!(e, Error::InvalidParameter(_)), "{e}");
}

#[test]
fn chunk_cipher_jobs_match_the_file() {
    let p = params(Algorithm::MagmaMgm);
    let data = plain(2 * 1024 + 10);
    let file = whole(&p, &data);
    let cipher = FileCipher::for_encryption(&p, Secret::KeyFile(&KEY)).unwrap();
    let chunks = cipher.chunk_cipher();
    // Seal chunk 1 (full, not final) alone and find it in the file.
    let mut one = data[1024..2048].to_vec();
    let mut tag = vec![0u8; chunks.tag_len()];
    chunks.seal_job(1, &mut one, false, &mut tag).unwrap();
    let slot = chunks.sealed_chunk_len();
    let at = HEADER_LEN + slot;
    assert_eq!(&file[at..at + 1024], &one[..]);
    assert_eq!(&file[at + 1024..at + slot], &tag[..]);
    // Open the final chunk alone with a decrypting cipher.
    let header = read_header(&file[..]).unwrap();
    let reader = FileCipher::for_decryption(&header, Secret::KeyFile(&KEY)).unwrap();
    let mut last = file[HEADER_LEN + 2 * slot..].to_vec();
    reader.chunk_cipher().open_job(2, &mut last, true).unwrap();
    assert_eq!(&last[..10], &data[2048..]);
}
