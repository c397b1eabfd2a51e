//! Prints 3DES throughput (MB/s, 16 KiB messages, one thread) for every bitsliced backend this CPU
//! runs and for the table DES, then the engine's 1- vs 2-thread throughput on 8 MiB.
//!
//! `cargo run --release -p shifr --example tdes_speed`

use shifr::cpu::Backend;
use shifr::hazmat::block::aes::Aes;
use shifr::hazmat::block::tdes::Tdes;
use shifr::hazmat::block::BlockCipher;
use shifr::hazmat::mode::ctr;
use shifr::parallel::Engine;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// One engine job over a buffer.
type Job<'a> = dyn Fn(&Engine, &mut [u8]) + 'a;

/// Runs `f` over `buf` until `min` has passed; returns MB/s (10^6 bytes per second).
fn measure(buf: &mut [u8], min: Duration, mut f: impl FnMut(&mut [u8])) -> f64 {
    f(buf); // warm-up
    let start = Instant::now();
    let mut bytes = 0usize;
    while start.elapsed() < min {
        f(black_box(&mut *buf));
        bytes += buf.len();
    }
    bytes as f64 / start.elapsed().as_secs_f64() / 1e6
}

fn main() {
    let key: Vec<u8> = (0u8..24).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
    let counter = [0x42u8; 8];
    let run = Duration::from_millis(700);
    let mut msg = vec![0x17u8; 16 * 1024];

    println!("3DES, 16 KiB messages, 1 thread (MB/s):");
    for backend in [Backend::Portable, Backend::Avx2, Backend::Avx512] {
        if !backend.is_supported() {
            continue;
        }
        let c = Tdes::with_backend(&key, backend).unwrap();
        let ecb = measure(&mut msg, run, |m| c.encrypt_blocks(m));
        let ctr_engine = measure(&mut msg, run, |m| {
            Engine::new(1).ctr_apply(&c, &counter, m).unwrap()
        });
        let ctr_mode = measure(&mut msg, run, |m| ctr::apply(&c, &counter, m).unwrap());
        println!(
            "  bitsliced {:<8} des-ede3-ecb {ecb:8.1}   des-ede3-ctr (engine) {ctr_engine:8.1}   \
             des-ede3-ctr (mode::ctr, 32-block batches) {ctr_mode:8.1}",
            backend.name()
        );
    }
    let c = Tdes::new(&key).unwrap();
    let table = measure(&mut msg, run, |m| {
        for block in m.chunks_exact_mut(8) {
            c.encrypt_blocks(block);
        }
    });
    println!("  table DES (one block per call) des-ede3-ecb {table:8.1}");

    println!("Engine, 8 MiB, threads 1 / 2 (MB/s):");
    let mut big = vec![0x33u8; 8 << 20];
    let aes = Aes::new(&key[..16]).unwrap();
    let aes_counter = [0x24u8; 16];
    let jobs: [(&str, &Job); 4] = [
        ("des-ede3-ecb", &|e, m| e.ecb_encrypt(&c, m).unwrap()),
        ("des-ede3-ctr", &|e, m| {
            e.ctr_apply(&c, &counter, m).unwrap()
        }),
        ("aes-128-ecb", &|e, m| e.ecb_encrypt(&aes, m).unwrap()),
        ("aes-128-ctr", &|e, m| {
            e.ctr_apply(&aes, &aes_counter, m).unwrap()
        }),
    ];
    for (name, job) in jobs {
        let one = measure(&mut big, Duration::from_secs(2), |m| {
            job(&Engine::new(1), m)
        });
        let two = measure(&mut big, Duration::from_secs(2), |m| {
            job(&Engine::new(2), m)
        });
        println!(
            "  {name:<13} 1 thread {one:8.1}   2 threads {two:8.1}   ratio {:.2}",
            two / one
        );
    }
}
