//! Kuznyechik throughput per backend against RustCrypto's `kuznyechik`, on 16 KiB messages.
//!
//! `cargo run --release -p shifr --example kuznyechik_speed [SECONDS_PER_ROW]`
//!
//! Rows are ECB encryption, ECB decryption, CTR (shifr's `mode::ctr`, RustCrypto's `ctr::Ctr128BE`) and
//! 16-stream multi-stream encryption (`encrypt_lanes`, 16 keys, 512 B per stream, as CBC/CFB/OMAC use it).
//! Each figure is the best of five runs. Speed lives here, never in a test.

#[path = "support/timing.rs"]
mod timing;

use std::hint::black_box;

use cipher::{BlockDecrypt, BlockEncrypt, KeyInit as _, KeyIvInit, StreamCipher};
use shifr::cpu::Backend;
use shifr::hazmat::block::kuznyechik::Kuznyechik;
use shifr::hazmat::block::BlockCipher;
use shifr::hazmat::mode::ctr as shifr_ctr;

use timing::{measure, thread_cpu_seconds};

const MESSAGE: usize = 16 * 1024;
const STREAMS: usize = 16;
const STREAM_BYTES: usize = 512;

fn main() {
    let seconds: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    let key: [u8; 32] = core::array::from_fn(|i| i as u8 * 7 + 1);
    let iv = [0x5au8; 16];
    let mut data = vec![0x42u8; MESSAGE];

    let clock = if thread_cpu_seconds().is_some() {
        "thread CPU time"
    } else {
        "wall-clock time"
    };
    println!(
        "kuznyechik, {MESSAGE}-byte messages, MB/s over {clock} (best of 5), {seconds} s per row"
    );
    println!(
        "{:<22} {:>10} {:>10} {:>10} {:>14}",
        "implementation", "ecb-enc", "ecb-dec", "ctr", "16-stream-enc"
    );

    for backend in [Backend::Portable, Backend::Avx2, Backend::Gfni] {
        let Ok(c) = Kuznyechik::with_backend(&key, backend) else {
            println!("shifr {:<16} (not available on this CPU)", backend.name());
            continue;
        };
        let enc = measure(MESSAGE, seconds, || c.encrypt_blocks(black_box(&mut data)));
        let dec = measure(MESSAGE, seconds, || c.decrypt_blocks(black_box(&mut data)));
        let ctr = measure(MESSAGE, seconds, || {
            shifr_ctr::apply(&c, &iv, black_box(&mut data)).expect("16-byte counter block")
        });
        let ciphers: Vec<Kuznyechik> = (0..STREAMS)
            .map(|i| Kuznyechik::with_backend(&[i as u8; 32], backend).expect("available"))
            .collect();
        let refs: Vec<&Kuznyechik> = ciphers.iter().collect();
        let mut lanes = vec![0u8; 16 * STREAMS];
        let multi = measure(STREAMS * STREAM_BYTES, seconds, || {
            // CBC-like: each stream's next block depends on its previous one.
            for _ in 0..STREAM_BYTES / 16 {
                Kuznyechik::encrypt_lanes(&refs, black_box(&mut lanes));
            }
        });
        println!(
            "shifr {:<16} {enc:>10.0} {dec:>10.0} {ctr:>10.0} {multi:>14.0}",
            backend.name()
        );
    }

    let rc = kuznyechik::Kuznyechik::new_from_slice(&key).expect("32-byte key");
    let mut blocks = vec![cipher::Block::<kuznyechik::Kuznyechik>::default(); MESSAGE / 16];
    let enc = measure(MESSAGE, seconds, || {
        rc.encrypt_blocks(black_box(&mut blocks))
    });
    let dec = measure(MESSAGE, seconds, || {
        rc.decrypt_blocks(black_box(&mut blocks))
    });
    let ctr = measure(MESSAGE, seconds, || {
        let mut s = ::ctr::Ctr128BE::<kuznyechik::Kuznyechik>::new(&key.into(), &iv.into());
        s.apply_keystream(black_box(&mut data));
    });
    println!(
        "{:<22} {enc:>10.0} {dec:>10.0} {ctr:>10.0} {:>14}",
        "rustcrypto kuznyechik", "-"
    );
}
