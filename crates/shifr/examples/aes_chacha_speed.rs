//! Throughput of the AES and ChaCha20 backends on 16 KiB messages, single thread, next to
//! RustCrypto (`cargo run --release -p shifr --example aes_chacha_speed`).
//!
//! AES rows run every backend this CPU has through `with_backend`; the ChaCha20 engine is fixed
//! per process by `SHIFR_BACKEND`, so the program reruns itself once per ChaCha20 backend. Each
//! figure is the best of five runs of about 0.2 s (MB/s = 10^6 bytes per second), divided by the
//! thread's CPU time (Linux `/proc/thread-self/schedstat`; wall time elsewhere), as `openssl speed`
//! divides by user CPU time: on a shared machine wall time would mostly measure the other load.
//! Compare with `openssl speed -evp <alg> -bytes 16384 -seconds 2` run alongside.

use std::hint::black_box;
use std::time::{Duration, Instant};

use aes_gcm::aead::{AeadInPlace, KeyInit as _};
use chacha20::cipher::{KeyIvInit, StreamCipher};
use shifr::aead::chacha20poly1305::ChaCha20Poly1305;
use shifr::aead::gcm::AesGcm;
use shifr::aead::Aead;
use shifr::cpu::Backend;
use shifr::hazmat::block::aes::Aes;
use shifr::hazmat::mode::{ctr, multistream};
use shifr::hazmat::stream::chacha20::ChaCha20;

const SIZE: usize = 16384;
const STREAMS: usize = 16;
const CHILD_FLAG: &str = "--chacha-only";

/// Seconds this thread has run on a CPU, if the OS tells us.
fn cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

/// Best MB/s of `f`, which processes `bytes` bytes per call.
fn measure(bytes: usize, mut f: impl FnMut()) -> f64 {
    let mut best = 0f64;
    for _ in 0..5 {
        let start = Instant::now();
        let cpu_start = cpu_seconds();
        let mut calls = 0u64;
        while start.elapsed() < Duration::from_millis(200) {
            for _ in 0..8 {
                f();
            }
            calls += 8;
        }
        let seconds = match (cpu_start, cpu_seconds()) {
            (Some(a), Some(b)) if b > a => b - a,
            _ => start.elapsed().as_secs_f64(),
        };
        best = best.max(calls as f64 * bytes as f64 / seconds / 1e6);
    }
    best
}

fn row(workload: &str, implementation: &str, mbps: f64) {
    println!("{workload:<28} {implementation:<24} {mbps:>10.0} MB/s");
}

fn aes_rows() {
    let key16 = [0x11u8; 16];
    let key32 = [0x22u8; 32];
    let mut data = vec![0x5au8; SIZE];
    for backend in [
        Backend::Portable,
        Backend::AesNi,
        Backend::Vaes,
        Backend::Avx512,
    ] {
        let Ok(aes) = Aes::with_backend(&key16, backend) else {
            continue;
        };
        let name = backend.name();
        row(
            "aes-128-ctr",
            name,
            measure(SIZE, || {
                ctr::apply(&aes, &[0u8; 16], black_box(&mut data)).unwrap();
            }),
        );
        for (label, key) in [("aes-128-gcm", &key16[..]), ("aes-256-gcm", &key32[..])] {
            let gcm = AesGcm::with_backend(key, 16, backend).unwrap();
            row(
                label,
                name,
                measure(SIZE, || {
                    black_box(gcm.seal(&[7u8; 12], &[], black_box(&mut data)).unwrap());
                }),
            );
        }
        let ciphers: Vec<Aes> = (0..STREAMS)
            .map(|i| Aes::with_backend(&[i as u8; 16], backend).unwrap())
            .collect();
        let refs: Vec<&Aes> = ciphers.iter().collect();
        let ivs = [[3u8; 16]; STREAMS];
        let iv_refs: Vec<&[u8]> = ivs.iter().map(|v| &v[..]).collect();
        let mut bufs = vec![vec![0u8; SIZE]; STREAMS];
        row(
            "aes-128-cbc x16 streams",
            name,
            measure(SIZE * STREAMS, || {
                let mut b: Vec<&mut [u8]> = bufs.iter_mut().map(|v| &mut v[..]).collect();
                multistream::cbc_encrypt(&refs, &iv_refs, &mut b).unwrap();
            }),
        );
    }

    // RustCrypto peers (they pick AES-NI / PCLMULQDQ themselves at run time).
    type Ctr = ::ctr::Ctr128BE<aes::Aes128>;
    row(
        "aes-128-ctr",
        "RustCrypto",
        measure(SIZE, || {
            let mut c = Ctr::new(&key16.into(), &[0u8; 16].into());
            c.apply_keystream(black_box(&mut data));
        }),
    );
    let g128 = aes_gcm::Aes128Gcm::new_from_slice(&key16).unwrap();
    row(
        "aes-128-gcm",
        "RustCrypto",
        measure(SIZE, || {
            let nonce = aes_gcm::Nonce::from_slice(&[7u8; 12]);
            black_box(g128.encrypt_in_place_detached(nonce, &[], black_box(&mut data))).unwrap();
        }),
    );
    let g256 = aes_gcm::Aes256Gcm::new_from_slice(&key32).unwrap();
    row(
        "aes-256-gcm",
        "RustCrypto",
        measure(SIZE, || {
            let nonce = aes_gcm::Nonce::from_slice(&[7u8; 12]);
            black_box(g256.encrypt_in_place_detached(nonce, &[], black_box(&mut data))).unwrap();
        }),
    );
}

fn chacha_rows() {
    let key = [0x33u8; 32];
    let nonce = [0x44u8; 12];
    let mut data = vec![0x5au8; SIZE];
    let engine = ChaCha20::new(&key, &nonce, 0).unwrap().implementation();
    row(
        "chacha20",
        engine,
        measure(SIZE, || {
            let mut c = ChaCha20::new(&key, &nonce, 0).unwrap();
            c.apply_keystream(black_box(&mut data)).unwrap();
        }),
    );
    let aead = ChaCha20Poly1305::new(&key).unwrap();
    let poly = shifr::hazmat::mac::poly1305::Poly1305::from_key(&key)
        .backend()
        .name();
    row(
        "chacha20-poly1305",
        &format!("{engine} + poly1305 {poly}"),
        measure(SIZE, || {
            black_box(aead.seal(&nonce, &[], black_box(&mut data)).unwrap());
        }),
    );
}

fn chacha_peer_rows() {
    let key = [0x33u8; 32];
    let nonce = [0x44u8; 12];
    let mut data = vec![0x5au8; SIZE];
    row(
        "chacha20",
        "RustCrypto",
        measure(SIZE, || {
            let mut c = chacha20::ChaCha20::new(&key.into(), &nonce.into());
            c.apply_keystream(black_box(&mut data));
        }),
    );
    let aead = chacha20poly1305::ChaCha20Poly1305::new_from_slice(&key).unwrap();
    row(
        "chacha20-poly1305",
        "RustCrypto",
        measure(SIZE, || {
            black_box(aead.encrypt_in_place_detached(&nonce.into(), &[], black_box(&mut data)))
                .unwrap();
        }),
    );
}

fn main() {
    if std::env::args().any(|a| a == CHILD_FLAG) {
        chacha_rows();
        return;
    }
    let clock = if cpu_seconds().is_some() {
        "thread CPU time"
    } else {
        "wall time"
    };
    println!("{SIZE}-byte messages, one thread, best of 5 x 0.2 s, per second of {clock}");
    aes_rows();
    let exe = std::env::current_exe().expect("own path");
    for backend in ["portable", "sse2", "avx2", "avx512"] {
        if !Backend::from_name(backend).is_some_and(|b| b.is_supported()) {
            continue;
        }
        let status = std::process::Command::new(&exe)
            .arg(CHILD_FLAG)
            .env("SHIFR_BACKEND", backend)
            .status()
            .expect("rerun for a ChaCha20 engine");
        assert!(
            status.success(),
            "ChaCha20 run with SHIFR_BACKEND={backend}"
        );
    }
    chacha_peer_rows();
}
