//! The container format rebuilt from docs/FORMAT.md with RustCrypto's AEADs, HKDF and SHA-256 only,
//! for comparison with shifr's output.

#![allow(dead_code)] // each test file uses a different subset

use aes_gcm::aead::{AeadInPlace, KeyInit};
use shifr::container::Algorithm;

/// The container built from the FORMAT.md rules with RustCrypto's primitives only.
pub fn independent_container(
    alg: Algorithm,
    ikm: &[u8; 32],
    salt: [u8; 16],
    prefix: [u8; 16],
    chunk: usize,
    plain: &[u8],
) -> Vec<u8> {
    let mut fields = [0u8; 64];
    fields[..6].copy_from_slice(b"shifr\0");
    fields[6] = 1;
    fields[7] = alg.id();
    fields[8] = 2; // key file
    fields[10..14].copy_from_slice(&(chunk as u32).to_le_bytes());
    fields[26..42].copy_from_slice(&salt);
    fields[42..58].copy_from_slice(&prefix);
    let hk = hkdf::Hkdf::<sha2::Sha256>::new(Some(&salt), ikm);
    let mut payload = [0u8; 32];
    let mut check = [0u8; 16];
    hk.expand(&[&b"shifr v1 payload"[..], &fields].concat(), &mut payload)
        .unwrap();
    hk.expand(&[&b"shifr v1 key check"[..], &fields].concat(), &mut check)
        .unwrap();
    let header = [&fields[..], &check].concat();
    let mut out = header.clone();
    let pieces: Vec<&[u8]> = if plain.len().is_multiple_of(chunk) {
        plain
            .chunks(chunk)
            .chain(std::iter::once(&[][..]))
            .collect()
    } else {
        plain.chunks(chunk).collect()
    };
    for (i, piece) in pieces.iter().enumerate() {
        let last = i + 1 == pieces.len();
        let nlen = alg.nonce_len();
        let mut nonce = vec![0u8; nlen];
        if nlen == 8 {
            nonce.copy_from_slice(&(((last as u64) << 62) | i as u64).to_be_bytes());
        } else {
            nonce[..nlen - 9].copy_from_slice(&prefix[..nlen - 9]);
            nonce[nlen - 9..nlen - 1].copy_from_slice(&(i as u64).to_be_bytes());
            nonce[nlen - 1] = last as u8;
            if nlen == 16 {
                nonce[0] &= 0x7f;
            }
        }
        let mut data = piece.to_vec();
        let tag: Vec<u8> = match alg {
            Algorithm::Aes256Gcm => aes_gcm::Aes256Gcm::new_from_slice(&payload)
                .unwrap()
                .encrypt_in_place_detached(nonce[..].into(), &header, &mut data)
                .unwrap()
                .to_vec(),
            Algorithm::ChaCha20Poly1305 => {
                chacha20poly1305::ChaCha20Poly1305::new_from_slice(&payload)
                    .unwrap()
                    .encrypt_in_place_detached(nonce[..].into(), &header, &mut data)
                    .unwrap()
                    .to_vec()
            }
            Algorithm::XChaCha20Poly1305 => {
                chacha20poly1305::XChaCha20Poly1305::new_from_slice(&payload)
                    .unwrap()
                    .encrypt_in_place_detached(nonce[..].into(), &header, &mut data)
                    .unwrap()
                    .to_vec()
            }
            Algorithm::KuznyechikMgm | Algorithm::MagmaMgm => {
                mgm_seal(alg, &payload, &nonce, &header, &mut data)
            }
        };
        out.extend_from_slice(&data);
        out.extend_from_slice(&tag);
    }
    out
}

fn mgm_seal(alg: Algorithm, key: &[u8; 32], nonce: &[u8], aad: &[u8], data: &mut [u8]) -> Vec<u8> {
    use mgm::aead::generic_array::GenericArray;
    use mgm::aead::{AeadInPlace as _, NewAead};
    if alg == Algorithm::KuznyechikMgm {
        <mgm::Mgm<kuznyechik_mgm::Kuznyechik>>::new(GenericArray::from_slice(key))
            .encrypt_in_place_detached(GenericArray::from_slice(nonce), aad, data)
            .unwrap()
            .to_vec()
    } else {
        <mgm::Mgm<magma_mgm::Magma>>::new(GenericArray::from_slice(key))
            .encrypt_in_place_detached(GenericArray::from_slice(nonce), aad, data)
            .unwrap()
            .to_vec()
    }
}
