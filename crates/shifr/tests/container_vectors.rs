//! The test vectors of docs/FORMAT.md: each is recomputed with shifr and, for the key-file vectors,
//! with the independent RustCrypto rebuild of the format in container_roundtrip.rs, and compared with
//! the values printed in the document.

mod container_support;

use sha2::{Digest, Sha256};
use shifr::container::header::HEADER_LEN;
use shifr::container::{Algorithm, EncryptParams, FileCipher, Kdf, Secret};

fn documented() -> Vec<(String, String)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/FORMAT.md");
    let text = std::fs::read_to_string(path).expect("docs/FORMAT.md");
    text.lines()
        .filter(|l| l.starts_with("vector-"))
        .map(|l| {
            let (k, v) = l.split_once(" = ").expect("vector line");
            (k.trim().to_string(), v.trim().to_string())
        })
        .collect()
}

fn value(name: &str) -> String {
    documented()
        .into_iter()
        .find(|(k, _)| k == name)
        .unwrap_or_else(|| panic!("{name} missing from docs/FORMAT.md"))
        .1
}

fn fixed(start: u8) -> [u8; 16] {
    core::array::from_fn(|i| start + i as u8)
}

fn seal(alg: Algorithm, kdf: Kdf, secret: Secret<'_>, plain: &[u8]) -> Vec<u8> {
    let mut params = EncryptParams::new(alg, kdf, fixed(0x40), fixed(0x80));
    params.chunk_size = 1024;
    let cipher = FileCipher::for_encryption(&params, secret).unwrap();
    let mut out = Vec::new();
    cipher.encrypt(plain, &mut out, 1, &mut |_| {}).unwrap();
    out
}

#[test]
fn key_file_vectors() {
    let ikm: [u8; 32] = core::array::from_fn(|i| i as u8);
    let plain: Vec<u8> = (0..1100u32).map(|i| i as u8).collect();
    for (n, alg) in [(1, Algorithm::ChaCha20Poly1305), (2, Algorithm::MagmaMgm)] {
        let ours = seal(alg, Kdf::KeyFile, Secret::KeyFile(&ikm), &plain);
        let theirs = container_support::independent_container(
            alg,
            &ikm,
            fixed(0x40),
            fixed(0x80),
            1024,
            &plain,
        );
        assert!(
            ours == theirs,
            "vector-{n}: shifr and the RustCrypto rebuild differ"
        );
        let last = &ours[HEADER_LEN + 1024 + alg.tag_len()..];
        let got = [
            ("header", hex::encode(&ours[..HEADER_LEN])),
            ("last-chunk", hex::encode(last)),
            ("sha256", hex::encode(Sha256::digest(&ours))),
        ];
        for (field, v) in got {
            assert_eq!(
                value(&format!("vector-{n} {field}")),
                v,
                "vector-{n} {field}"
            );
        }
    }
}

#[test]
fn passphrase_vector() {
    let kdf = Kdf::Argon2id {
        m_kib: 256,
        t: 2,
        p: 1,
    };
    let ours = seal(
        Algorithm::Aes256Gcm,
        kdf,
        Secret::Passphrase(b"password"),
        b"",
    );
    assert_eq!(value("vector-3 file"), hex::encode(&ours), "vector-3 file");
}
