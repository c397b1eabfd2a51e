//! Kuznyechik's single-stream feedback modes and one-block calls against RustCrypto, timed in the
//! thread's CPU time (so that a loaded machine's time slices given to other processes do not count).
//!
//! `cargo run --release -p shifr --example kuznyechik_chain_speed [SECONDS_PER_ROW]`
//!
//! Rows: CBC encryption, CFB encryption, OFB, OMAC (CMAC) at 16 B and 16 KiB, GOST CTR at 16 B, on the
//! default backend (gfni where present) and on RustCrypto's `kuznyechik` 0.8 with the `cbc`,
//! `cfb-mode`, `ofb`, `cmac` and `ctr` crates. Each figure is the best of five runs. Speed lives here,
//! never in a test.

#[path = "support/timing.rs"]
mod timing;

use std::hint::black_box;

use cipher::{AsyncStreamCipher, BlockEncryptMut, KeyIvInit, StreamCipher};
use cmac::Mac;
use shifr::hazmat::block::kuznyechik::Kuznyechik;
use shifr::hazmat::mac::omac;
use shifr::hazmat::mode::{cbc, cfb, ctr, ofb};

use timing::measure;

type Theirs = kuznyechik::Kuznyechik;

fn main() {
    let seconds: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    let key: Vec<u8> = (0..32u8).map(|i| i.wrapping_mul(29) ^ 0x5c).collect();
    let iv: Vec<u8> = (0..16u8).map(|i| i.wrapping_mul(13) ^ 0xa1).collect();
    let ours = Kuznyechik::new(&key).unwrap();
    // RustCrypto keyed once, as shifr is: each call clones the keyed state.
    let their_cbc = ::cbc::Encryptor::<Theirs>::new_from_slices(&key, &iv).unwrap();
    let their_cfb = cfb_mode::Encryptor::<Theirs>::new_from_slices(&key, &iv).unwrap();
    let their_ofb = ::ofb::Ofb::<Theirs>::new_from_slices(&key, &iv).unwrap();
    let their_cmac = <cmac::Cmac<Theirs> as Mac>::new_from_slice(&key).unwrap();
    let mut counter = [0u8; 16];
    counter[..8].copy_from_slice(&iv[..8]);
    let their_ctr = ::ctr::Ctr128BE::<Theirs>::new_from_slices(&key, &counter).unwrap();
    println!("shifr backend: {}", ours.backend().name());
    println!(
        "{:<10} {:>7} {:>10} {:>10} {:>7}",
        "mode", "size", "shifr", "rustcrypto", "ratio"
    );
    for size in [16usize, 16 * 1024] {
        let mut buf = vec![0x3cu8; size];
        let rows: [(&str, f64, f64); 4] = [
            (
                "cbc-enc",
                measure(size, seconds, || {
                    cbc::encrypt(&ours, &iv, black_box(&mut buf)).unwrap()
                }),
                measure(size, seconds, || {
                    let mut enc = their_cbc.clone();
                    for block in black_box(&mut buf).chunks_exact_mut(16) {
                        enc.encrypt_block_mut(block.into());
                    }
                }),
            ),
            (
                "cfb-enc",
                measure(size, seconds, || {
                    cfb::encrypt(&ours, &iv, 16, black_box(&mut buf)).unwrap()
                }),
                measure(size, seconds, || {
                    their_cfb.clone().encrypt(black_box(&mut buf))
                }),
            ),
            (
                "ofb",
                measure(size, seconds, || {
                    ofb::apply(&ours, &iv, black_box(&mut buf)).unwrap()
                }),
                measure(size, seconds, || {
                    their_ofb.clone().apply_keystream(black_box(&mut buf))
                }),
            ),
            (
                "omac",
                measure(size, seconds, || {
                    black_box(omac::omac(&ours, 16, black_box(&buf)).unwrap());
                }),
                measure(size, seconds, || {
                    let mut mac = their_cmac.clone();
                    mac.update(black_box(&buf));
                    black_box(mac.finalize());
                }),
            ),
        ];
        for (name, a, b) in rows {
            println!("{name:<10} {size:>7} {a:>10.1} {b:>10.1} {:>6.2}x", a / b);
        }
    }
    let mut block = [0x3cu8; 16];
    let a = measure(16, seconds, || {
        ctr::apply_gost(&ours, &iv[..8], black_box(&mut block)).unwrap()
    });
    let b = measure(16, seconds, || {
        their_ctr.clone().apply_keystream(black_box(&mut block))
    });
    println!(
        "{:<10} {:>7} {a:>10.1} {b:>10.1} {:>6.2}x",
        "ctr",
        16,
        a / b
    );
}
