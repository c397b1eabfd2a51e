//! Throughput of Magma (GOST R 34.12-2015) in shifr's backends next to RustCrypto's `magma` crate,
//! on 16 KiB messages, one thread.
//!
//! ```sh
//! cargo run --release -p shifr --example magma_speed
//! ```
//!
//! Prints one line per (implementation, workload) with MB/s (10^6 bytes per second of on-CPU time
//! of the measuring thread, read from Linux `schedstat`, so a busy shared machine does not skew
//! the figures; wall-clock time on other systems). Workloads:
//! ECB encryption, CTR (GOST R 34.13) and multi-stream CFB (16 streams of 512 bytes, each with its
//! own key and IV, in one call). Compare with the OpenSSL GOST engine on the same machine, e.g.
//! `openssl enc -engine gost -magma-ctr` over a large file timed by user CPU time (OpenSSL 3's
//! `openssl speed -evp` does not find engine ciphers).

use std::hint::black_box;
use std::time::{Duration, Instant};

use cipher::{BlockEncrypt, KeyInit as _, KeyIvInit, StreamCipher};
use shifr::cpu::Backend;
use shifr::hazmat::block::magma::{Magma, SBox};
use shifr::hazmat::block::BlockCipher;
use shifr::hazmat::mode::{ctr, ecb, multistream};

const MESSAGE: usize = 16 * 1024;
const STREAMS: usize = 16;
const STREAM_BYTES: usize = 512;
const MEASURE: Duration = Duration::from_millis(400);

/// Nanoseconds this thread has spent on a CPU (Linux `schedstat`), so that figures taken on a
/// shared, busy machine count only the time the work actually ran; `None` elsewhere.
fn thread_cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// Runs `f` (which processes `bytes` bytes) repeatedly for about [`MEASURE`]; returns MB/s per
/// second of on-CPU time (wall-clock time where that is not available).
fn throughput(bytes: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..20 {
        f();
    }
    let start = Instant::now();
    let cpu_start = thread_cpu_ns();
    let mut runs = 0u64;
    while start.elapsed() < MEASURE {
        for _ in 0..16 {
            f();
        }
        runs += 16;
    }
    let seconds = match (cpu_start, thread_cpu_ns()) {
        (Some(a), Some(b)) if b > a => (b - a) as f64 / 1e9,
        _ => start.elapsed().as_secs_f64(),
    };
    (runs as f64 * bytes as f64) / seconds / 1e6
}

fn report(name: &str, workload: &str, mbps: f64) {
    println!("{name:<22} {workload:<28} {mbps:>9.1} MB/s");
}

fn main() {
    let key: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(37).wrapping_add(1));
    let iv = [0x12u8, 0x34, 0x56, 0x78];
    let mut data = vec![0x5au8; MESSAGE];

    for backend in [Backend::Portable, Backend::Avx2, Backend::Avx512] {
        let Ok(c) = Magma::with_backend(&key, SBox::Tc26Z, backend) else {
            println!("shifr {:<16} not available on this CPU", backend.name());
            continue;
        };
        let name = format!("shifr {}", backend.name());
        let ecb = throughput(MESSAGE, || {
            ecb::encrypt(&c, black_box(&mut data)).unwrap_or_default()
        });
        report(&name, "magma-ecb 16 KiB", ecb);
        let ctr = throughput(MESSAGE, || {
            ctr::apply_gost(&c, &iv, black_box(&mut data)).unwrap_or_default()
        });
        report(&name, "magma-ctr 16 KiB", ctr);

        let keys: Vec<Magma> = (0..STREAMS)
            .map(|i| {
                let mut k = key;
                k[0] = i as u8;
                Magma::with_backend(&k, SBox::Tc26Z, backend)
            })
            .collect::<Result<_, _>>()
            .unwrap_or_default();
        let refs: Vec<&Magma> = keys.iter().collect();
        let ivs_owned: Vec<[u8; 8]> = (0..STREAMS).map(|i| [i as u8; 8]).collect();
        let ivs: Vec<&[u8]> = ivs_owned.iter().map(|v| &v[..]).collect();
        let mut buffers = vec![[0u8; STREAM_BYTES]; STREAMS];
        let cfb = throughput(STREAMS * STREAM_BYTES, || {
            let mut views: Vec<&mut [u8]> = buffers.iter_mut().map(|b| &mut b[..]).collect();
            multistream::cfb_encrypt(&refs, &ivs, black_box(&mut views)).unwrap_or_default()
        });
        report(&name, "magma-cfb 16 x 512 B streams", cfb);
        let mut lane_blocks = [0u8; 8 * STREAMS];
        let lanes = throughput(8 * STREAMS, || {
            Magma::encrypt_lanes(&refs, black_box(&mut lane_blocks))
        });
        report(&name, "encrypt_lanes, 16 keys", lanes);
    }

    let theirs = magma::Magma::new(&key.into());
    let ecb = throughput(MESSAGE, || {
        let blocks: &mut [u8] = black_box(&mut data);
        for b in blocks.chunks_exact_mut(8) {
            theirs.encrypt_block(b.into());
        }
    });
    report("RustCrypto magma 0.9", "magma-ecb 16 KiB", ecb);
    let mut counter = [0u8; 8];
    counter[..4].copy_from_slice(&iv);
    let ctr = throughput(MESSAGE, || {
        let mut s = ::ctr::Ctr64BE::<magma::Magma>::new(&key.into(), &counter.into());
        s.apply_keystream(black_box(&mut data));
    });
    report("RustCrypto magma 0.9", "magma-ctr 16 KiB", ctr);
}
