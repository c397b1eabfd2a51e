//! The allocation-free OMAC calls (`omac::omac_into`, `Omac::finalize_into`) against RustCrypto's
//! `cmac` crate: every AES backend this CPU runs (forced in turn through `Aes::with_backend`), all
//! three AES key sizes, Kuznyechik and Magma on their backends, a cipher without a kept `E_K(0)`
//! (RustCrypto's AES behind shifr's trait, which takes `Omac::start`'s path), lengths around one
//! and two blocks and several KiB, whole and truncated tags, messages in pieces, and the tag-length
//! errors.

mod support;

use cmac::Mac;
use shifr::cpu::Backend;
use shifr::hazmat::block::aes::Aes;
use shifr::hazmat::block::kuznyechik::Kuznyechik;
use shifr::hazmat::block::magma::{Magma, SBox};
use shifr::hazmat::block::BlockCipher;
use shifr::hazmat::mac::omac::{self, Omac};
use shifr::Error;
use support::random_bytes;

const LENGTHS: &[usize] = &[0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 48, 4096 + 5, 8192];

/// RustCrypto's CMAC tag of `msg` under `key` for the cipher `$c`.
macro_rules! rc_tag {
    ($c:ty, $key:expr, $msg:expr) => {{
        let mut m = <cmac::Cmac<$c> as cmac::digest::KeyInit>::new_from_slice($key).unwrap();
        Mac::update(&mut m, $msg);
        m.finalize().into_bytes().to_vec()
    }};
}

/// Checks every allocation-free form against `expect` (the full RustCrypto tag) for `c`.
fn check<C: BlockCipher>(what: &str, c: &C, msg: &[u8], expect: &[u8]) {
    let n = c.block_size();
    assert_eq!(expect.len(), n);
    for tag_len in [n, 4, 1] {
        let mut tag = vec![0xa5u8; tag_len];
        omac::omac_into(c, msg, &mut tag).unwrap();
        assert_eq!(tag, &expect[..tag_len], "{what}: omac_into, tag {tag_len}");
        assert_eq!(
            omac::omac(c, tag_len, msg).unwrap(),
            tag,
            "{what}: omac, tag {tag_len}"
        );
    }
    // Streaming, in two pieces cut at a few points, then in 5-byte pieces.
    let len = msg.len();
    for cut in [0, len / 3, len.saturating_sub(1), len] {
        let mut mac = Omac::new(c, n).unwrap();
        mac.update(&msg[..cut]);
        mac.update(&msg[cut..]);
        let mut tag = [0u8; 16];
        mac.finalize_into(&mut tag[..n]).unwrap();
        assert_eq!(&tag[..n], expect, "{what}: Omac cut {cut}");
    }
    let mut mac = Omac::new(c, 4).unwrap();
    for piece in msg.chunks(5) {
        mac.update(piece);
    }
    let mut tag = [0u8; 4];
    mac.finalize_into(&mut tag).unwrap();
    assert_eq!(&tag[..], &expect[..4], "{what}: Omac in 5-byte pieces");
}

fn aes_backends(key: &[u8]) -> Vec<(Backend, Aes)> {
    let all: Vec<(Backend, Aes)> = Backend::ALL
        .iter()
        .filter_map(|&b| Aes::with_backend(key, b).ok().map(|c| (b, c)))
        .collect();
    assert_eq!(all.first().map(|(b, _)| *b), Some(Backend::Portable));
    all
}

#[test]
fn aes_every_backend_matches_rustcrypto_cmac() {
    for key_len in [16, 24, 32] {
        for &len in LENGTHS {
            let key = random_bytes(key_len);
            let msg = random_bytes(len);
            let expect = match key_len {
                16 => rc_tag!(aes::Aes128, &key, &msg),
                24 => rc_tag!(aes::Aes192, &key, &msg),
                _ => rc_tag!(aes::Aes256, &key, &msg),
            };
            for (backend, c) in aes_backends(&key) {
                check(
                    &format!("{backend:?} AES-{} len {len}", key_len * 8),
                    &c,
                    &msg,
                    &expect,
                );
            }
            // The same cipher without a kept E_K(0): `omac_into` through `Omac::start`.
            if key_len == 16 {
                let c = <support::Aes128 as shifr::hazmat::block::KeyInit>::new_from_slice(&key)
                    .unwrap();
                check(&format!("no E_K(0), len {len}"), &c, &msg, &expect);
            }
        }
    }
}

#[test]
fn gost_ciphers_match_rustcrypto_cmac() {
    for &len in LENGTHS {
        let key = random_bytes(32);
        let msg = random_bytes(len);
        let expect = rc_tag!(::kuznyechik::Kuznyechik, &key, &msg);
        for b in Backend::ALL {
            if let Ok(c) = Kuznyechik::with_backend(&key, *b) {
                check(&format!("{b:?} Kuznyechik len {len}"), &c, &msg, &expect);
            }
        }
        let expect = rc_tag!(::magma::Magma, &key, &msg);
        for b in Backend::ALL {
            if let Ok(c) = Magma::with_backend(&key, SBox::Tc26Z, *b) {
                check(&format!("{b:?} Magma len {len}"), &c, &msg, &expect);
            }
        }
    }
}

#[test]
fn tag_lengths_outside_one_to_block_are_refused() {
    let c = Aes::new(&random_bytes(16)).unwrap();
    let msg = random_bytes(20);
    for bad in [0usize, 17, 32] {
        let mut tag = vec![0u8; bad];
        assert!(
            matches!(
                omac::omac_into(&c, &msg, &mut tag),
                Err(Error::InvalidTagLength { got, .. }) if got == bad
            ),
            "omac_into, tag {bad}"
        );
        assert!(tag.iter().all(|&b| b == 0), "nothing written on error");
    }
    // `finalize_into` wants exactly the tag length the MAC started with.
    for bad in [0usize, 8, 15, 17] {
        let mut mac = Omac::new(&c, 16).unwrap();
        mac.update(&msg);
        let mut tag = vec![0u8; bad];
        assert!(
            matches!(
                mac.finalize_into(&mut tag),
                Err(Error::InvalidTagLength { got, .. }) if got == bad
            ),
            "finalize_into, buffer {bad}"
        );
    }
}
