//! Shared by the modes_* tests: shifr BlockCipher adapters over RustCrypto's block ciphers (so the modes
//! can be tested before shifr's own ciphers exist, and against an independent implementation), and a
//! reader for the vector files in /work/shared/vectors.
#![allow(dead_code)]

use cipher::generic_array::GenericArray;
use cipher::{BlockDecrypt, BlockEncrypt, KeyInit as _};
use std::collections::HashMap;

/// Implements shifr's `BlockCipher + KeyInit` for a wrapper around a RustCrypto (cipher 0.4) cipher.
/// Byte order: RustCrypto's magma and kuznyechik take and return blocks in the wire order of
/// GOST R 34.12-2015 / RFC 8891 / RFC 7801 (checked by `adapter_reproduces_single_block_vectors`).
macro_rules! adapter {
    ($name:ident, $inner:ty, $block:expr, $key:expr) => {
        pub struct $name(pub $inner);

        impl shifr::hazmat::block::BlockCipher for $name {
            fn block_size(&self) -> usize {
                $block
            }
            fn encrypt_blocks(&self, data: &mut [u8]) {
                for block in data.chunks_exact_mut($block) {
                    self.0.encrypt_block(GenericArray::from_mut_slice(block));
                }
            }
            fn decrypt_blocks(&self, data: &mut [u8]) {
                for block in data.chunks_exact_mut($block) {
                    self.0.decrypt_block(GenericArray::from_mut_slice(block));
                }
            }
        }

        impl shifr::hazmat::block::KeyInit for $name {
            const KEY_SIZES: &'static [usize] = &[$key];
            fn new_from_slice(key: &[u8]) -> shifr::Result<Self> {
                <$inner>::new_from_slice(key).map($name).map_err(|_| {
                    shifr::Error::InvalidKeyLength {
                        expected: stringify!($key),
                        got: key.len(),
                    }
                })
            }
        }
    };
}

adapter!(Aes128, aes::Aes128, 16, 16);
adapter!(Aes192, aes::Aes192, 16, 24);
adapter!(Aes256, aes::Aes256, 16, 32);
adapter!(Magma, magma::Magma, 8, 32);
adapter!(Kuznyechik, kuznyechik::Kuznyechik, 16, 32);

/// Every Magma backend this machine can run, portable first.
pub fn magma_backends() -> Vec<shifr::cpu::Backend> {
    use shifr::cpu::Backend;
    use shifr::hazmat::block::magma::{Magma, SBox};
    [
        Backend::Portable,
        Backend::Avx2,
        Backend::Avx512,
        Backend::Neon,
    ]
    .into_iter()
    .filter(|&b| Magma::with_backend(&[0; 32], SBox::Tc26Z, b).is_ok())
    .collect()
}

/// One record of a vector file: its name and fields.
#[derive(Debug, Clone)]
pub struct Record {
    pub name: String,
    pub fields: HashMap<String, String>,
}

impl Record {
    /// A text field (panics with the record name if missing).
    pub fn get(&self, field: &str) -> &str {
        self.fields
            .get(field)
            .unwrap_or_else(|| panic!("{}: no field {field}", self.name))
    }

    /// An optional hex field, decoded.
    pub fn hex_opt(&self, field: &str) -> Option<Vec<u8>> {
        self.fields
            .get(field)
            .map(|v| hex::decode(v).unwrap_or_else(|e| panic!("{}: {field}: {e}", self.name)))
    }

    /// A hex field, decoded.
    pub fn hex(&self, field: &str) -> Vec<u8> {
        self.hex_opt(field)
            .unwrap_or_else(|| panic!("{}: no field {field}", self.name))
    }

    /// A decimal field.
    pub fn num(&self, field: &str) -> usize {
        self.get(field)
            .parse()
            .unwrap_or_else(|e| panic!("{}: {field}: {e}", self.name))
    }
}

/// The vector directory: `$SHIFR_VECTORS`, else `../shared/vectors` beside the checkout. A missing file fails the test.
fn vectors_dir() -> std::path::PathBuf {
    std::env::var_os("SHIFR_VECTORS")
        .map(Into::into)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/vectors").into())
}

/// All records of `file` (e.g. "gost.txt") in order.
pub fn records(file: &str) -> Vec<Record> {
    let path = vectors_dir().join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read vector file {}: {e}", path.display()));
    let mut out = Vec::new();
    for block in text.split("\n\n") {
        let mut name = String::new();
        let mut fields = HashMap::new();
        for line in block.lines() {
            if let Some(header) = line.strip_prefix("# ") {
                if name.is_empty() {
                    name = header.split(" / ").next().unwrap_or("").trim().to_string();
                }
            } else if let Some((k, v)) = line.split_once('=') {
                if !line.starts_with('#') {
                    fields.insert(k.trim().to_string(), v.trim().to_string());
                }
            }
        }
        if !fields.is_empty() {
            out.push(Record { name, fields });
        }
    }
    out
}

/// Records of `file` with the given cipher and mode; panics if there are none (a test over no vectors
/// would pass vacuously).
pub fn select(file: &str, cipher: &str, mode: &str) -> Vec<Record> {
    let found: Vec<Record> = records(file)
        .into_iter()
        .filter(|r| {
            r.fields.get("cipher").map(String::as_str) == Some(cipher)
                && r.fields.get("mode").map(String::as_str) == Some(mode)
        })
        .collect();
    assert!(!found.is_empty(), "no {cipher}/{mode} records in {file}");
    found
}

/// The lengths the differential tests run for block size `n`.
pub fn lengths(n: usize) -> Vec<usize> {
    vec![0, 1, n - 1, n, n + 1, 2 * n, 3 * n + 5, 5000, 8 * 1024 + 3]
}

/// Random bytes.
pub fn random_bytes(len: usize) -> Vec<u8> {
    use rand::RngCore;
    let mut v = vec![0u8; len];
    rand::thread_rng().fill_bytes(&mut v);
    v
}
