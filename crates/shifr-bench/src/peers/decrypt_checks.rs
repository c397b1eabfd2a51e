//! Decryption checks of every peer: its decryption op, on the first message, turns shifr's
//! ciphertext (the catalogue's one-shot call with stream 0's key, IV / nonce and AAD) back into
//! the plaintext, for every algorithm the peer offers, at 16, 64 and 1040 bytes. An AEAD op is run
//! once (it seals a message of that length itself), then given shifr's ciphertext and tag to
//! open. The checked cases are counted per peer, so no peer passes by checking nothing.

use super::Peer;
use crate::workload::{one_shot, Direction, Workload};
use shifr::catalog::{self, AlgInfo, Kind};

const LENGTHS: [usize; 3] = [16, 64, 1040];

fn input(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 13 + 5) as u8).collect()
}

fn decrypting(alg: &'static AlgInfo, len: usize) -> Workload {
    Workload {
        direction: Direction::Decrypt,
        ..Workload::new(alg, len)
    }
}

/// Checks every algorithm `peer` offers (those it builds a decryption op for); returns the names
/// checked, one entry per algorithm.
fn check(peer: Peer) -> Vec<&'static str> {
    let mut names = Vec::new();
    for alg in catalog::all() {
        if alg.kind == Kind::Mac || !peer.applies(alg) {
            continue;
        }
        let mut checked = 0;
        for len in LENGTHS {
            let w = decrypting(alg, len);
            if w.validate().is_err() {
                continue;
            }
            let Ok(mut op) = peer.op(&w) else {
                continue;
            };
            let plain = input(len);
            let shifr = one_shot(alg, &plain);
            let what = format!("{} decrypting {} at {len} bytes", peer.name(), alg.name);
            let mut buf = if alg.kind == Kind::Aead {
                let mut own = plain.clone();
                op.run(&mut own)
                    .unwrap_or_else(|e| panic!("{what}: own seal: {e}"));
                assert_eq!(own, plain, "{what}: its own sealed message");
                let sealed = op
                    .sealed_mut()
                    .unwrap_or_else(|| panic!("{what}: no sealed message"));
                assert_eq!(sealed.0.len(), len, "{what}");
                *sealed = (shifr.data.clone(), shifr.tag.clone());
                vec![0xa5; len]
            } else {
                shifr.data.clone()
            };
            op.run(&mut buf).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(buf, plain, "{what}");
            checked += 1;
        }
        if checked > 0 {
            assert_eq!(checked, LENGTHS.len(), "{} {}", peer.name(), alg.name);
            names.push(alg.name);
        }
    }
    eprintln!("{}: decryption checked for {names:?}", peer.name());
    names
}

fn assert_covers(peer: Peer, checked: &[&str], must: &[&str], at_least: usize) {
    for name in must {
        assert!(
            checked.contains(name),
            "{}: {name} not checked",
            peer.name()
        );
    }
    assert!(
        checked.len() >= at_least,
        "{}: {} algorithms checked",
        peer.name(),
        checked.len()
    );
}

#[test]
fn rustcrypto_decrypts_shifr_ciphertext() {
    let checked = check(Peer::RustCrypto);
    assert_covers(
        Peer::RustCrypto,
        &checked,
        &[
            "aes-128-ecb",
            "aes-192-cbc",
            "aes-256-cfb",
            "aes-128-cfb8",
            "aes-128-ofb",
            "aes-256-ctr",
            "chacha20",
            "aes-128-gcm",
            "chacha20-poly1305",
            "xchacha20-poly1305",
            "magma-cbc",
            "kuznyechik-ctr",
            "magma-mgm",
            "kuznyechik-mgm",
        ],
        20,
    );
}

#[cfg(feature = "peer-openssl")]
#[test]
fn openssl_decrypts_shifr_ciphertext() {
    let checked = check(Peer::OpenSsl);
    assert_covers(
        Peer::OpenSsl,
        &checked,
        &[
            "aes-128-ecb",
            "aes-256-cbc",
            "aes-128-cfb",
            "aes-192-ctr",
            "aes-128-ofb",
            "aes-128-gcm",
            "aes-256-gcm",
            "chacha20-poly1305",
        ],
        12,
    );
}

#[cfg(feature = "peer-openssl")]
#[test]
fn gost_engine_decrypts_shifr_ciphertext() {
    if let Err(why) = Peer::OpenSslGost.available() {
        eprintln!("openssl-gost: skipped: {why}");
        return;
    }
    let checked = check(Peer::OpenSslGost);
    assert_covers(Peer::OpenSslGost, &checked, &["kuznyechik-cbc"], 3);
}

#[cfg(feature = "peer-aws-lc")]
#[test]
fn aws_lc_decrypts_shifr_ciphertext() {
    let checked = check(Peer::AwsLc);
    assert_covers(
        Peer::AwsLc,
        &checked,
        &[
            "aes-128-gcm",
            "aes-192-gcm",
            "aes-256-gcm",
            "chacha20-poly1305",
            "aes-128-ecb",
            "aes-192-cbc",
            "aes-256-cfb",
            "aes-128-ctr",
        ],
        16,
    );
}

#[cfg(feature = "peer-ring")]
#[test]
fn ring_decrypts_shifr_ciphertext() {
    let checked = check(Peer::Ring);
    assert_covers(
        Peer::Ring,
        &checked,
        &["aes-128-gcm", "aes-256-gcm", "chacha20-poly1305"],
        3,
    );
}

/// Every peer's AEAD decryption op refuses a sealed message whose stored tag was corrupted, and
/// still opens it once the tag is restored.
#[test]
fn a_corrupted_tag_is_an_error() {
    let mut checked: Vec<(Peer, usize)> = Vec::new();
    for &peer in Peer::ALL {
        if peer.available().is_err() {
            continue;
        }
        let mut n = 0;
        for name in ["aes-128-gcm", "chacha20-poly1305", "kuznyechik-mgm"] {
            let alg = catalog::lookup(name).unwrap();
            if !peer.applies(alg) {
                continue;
            }
            let Ok(mut op) = peer.op(&decrypting(alg, 64)) else {
                continue;
            };
            let mut buf = input(64);
            op.run(&mut buf).unwrap();
            let sealed = op.sealed_mut().unwrap();
            sealed.1[0] ^= 1;
            let e = op.run(&mut buf);
            assert!(e.is_err(), "{} {name}: a corrupted tag opened", peer.name());
            op.sealed_mut().unwrap().1[0] ^= 1;
            op.run(&mut buf).unwrap();
            assert_eq!(buf, input(64), "{} {name}", peer.name());
            n += 1;
        }
        checked.push((peer, n));
    }
    // RustCrypto: all three; every C peer with AEADs: AES-GCM and ChaCha20-Poly1305.
    for (peer, n) in checked {
        let expected = match peer.name() {
            "rustcrypto" => 3,
            "openssl-gost" => 0,
            _ => 2,
        };
        assert_eq!(n, expected, "{}", peer.name());
    }
}

/// With several streams each stream's op decrypts its own part (one op per stream, one after the
/// other): an AEAD round-trips every part.
#[test]
fn multi_stream_decryption_runs_stream_after_stream() {
    for &peer in Peer::ALL {
        let alg = catalog::lookup("aes-128-gcm").unwrap();
        if peer.available().is_err() || !peer.applies(alg) {
            continue;
        }
        let w = Workload {
            streams: 4,
            ..decrypting(alg, 4096)
        };
        let mut op = peer.op(&w).unwrap();
        let mut buf = input(4096);
        op.run(&mut buf).unwrap();
        op.run(&mut buf).unwrap();
        assert_eq!(buf, input(4096), "{}", peer.name());
    }
}
