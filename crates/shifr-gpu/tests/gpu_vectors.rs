//! The primary-source vectors of ../shared/vectors (parsed with shifr-kat) through the GPU kernels:
//! CTR / ECB of Magma, Kuznyechik and AES-128/256, ChaCha20 streams, and the Magma CFB / CBC / MAC
//! records with a one-block register (m = n), run as one stream of the multi-stream kernel. Records
//! of other shapes (m = 2n, truncated segments, AES-192, which the GPU does not implement) are
//! counted as not applicable. Without a device the test prints why and passes.

use std::path::PathBuf;

use shifr::block::magma::SBox;
use shifr_gpu::{GpuContext, GpuError, GpuJob, MagmaVariant, StreamMode};
use shifr_kat::Record;

fn vector_dir() -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("SHIFR_VECTORS")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    dirs.push(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/vectors").into());
    dirs.push(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../../shared/vectors").into());
    dirs.into_iter().find(|d| d.join("gost.txt").is_file())
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex field"))
        .collect()
}

/// Runs one record on the GPU; Some(passed) if the GPU implements its shape.
fn run(ctx: &GpuContext, r: &Record) -> Option<bool> {
    if r.get("result") == Some("invalid") {
        return None;
    }
    let field = |n: &str| r.get(n).map(hex);
    let (cipher, mode) = (r.get("cipher")?, r.get("mode")?);
    let key = field("key")?;
    let n = match cipher {
        "magma" => 8,
        "chacha20" => 64,
        _ => 16,
    };
    if let Some(s) = r.get("s") {
        if s.parse::<usize>().ok()? != 8 * n && mode != "mac" {
            return None;
        }
    }
    if let Some(m) = r.get("m") {
        if m.parse::<usize>().ok()? != 8 * n {
            return None;
        }
    }
    let job = match (cipher, mode) {
        ("magma", "ctr") => {
            GpuJob::magma_ctr(&key, &field("iv")?, SBox::Tc26Z, MagmaVariant::Tables)
        }
        ("magma", "ecb") => GpuJob::magma_ecb(&key, SBox::Tc26Z, MagmaVariant::Boolean),
        ("kuznyechik", "ctr") => GpuJob::kuznyechik_ctr(&key, &field("iv")?),
        ("kuznyechik", "ecb") => GpuJob::kuznyechik_ecb(&key),
        ("aes128" | "aes256", "ctr") => GpuJob::aes_ctr(&key, &field("iv")?),
        ("aes128" | "aes256", "ecb") => GpuJob::aes_ecb(&key),
        ("chacha20", "stream") => {
            let counter = r.get("counter").map_or(Ok(0), str::parse).ok()?;
            GpuJob::chacha20(&key, &field("nonce")?, counter)
        }
        ("magma", "cfb" | "cbc" | "mac") => {
            let key: [u8; 32] = key.try_into().ok()?;
            let mut data = field("pt")?;
            let iv: [u8; 8] = match mode {
                "mac" => [0; 8],
                _ => field("iv")?.try_into().ok()?,
            };
            let stream_mode = match mode {
                "cfb" => StreamMode::CfbEncrypt,
                "cbc" => StreamMode::CbcEncrypt,
                _ => StreamMode::Mac,
            };
            let len = data.len();
            let tags = ctx
                .magma_streams(stream_mode, SBox::Tc26Z, &[key], &[iv], &mut data, len)
                .ok()?;
            return Some(match mode {
                "mac" => {
                    let want = field("tag")?;
                    tags[0][..want.len()] == want[..]
                }
                _ => data == field("ct")?,
            });
        }
        _ => return None,
    };
    let job = job.expect("record key / IV accepted by the GPU job");
    let mut data = field("pt")?;
    ctx.apply(&job, &mut data).expect("GPU run");
    Some(data == field("ct")?)
}

#[test]
fn shared_vectors_pass_through_the_gpu() {
    let ctx = match GpuContext::new() {
        Ok(ctx) => ctx,
        Err(GpuError::NoDevice(why)) => {
            eprintln!("skipped: {why}");
            return;
        }
        Err(e) => panic!("GPU context: {e}"),
    };
    let Some(dir) = vector_dir() else {
        eprintln!("skipped: no vector directory (set SHIFR_VECTORS)");
        return;
    };
    let (mut passed, mut failed) = (0, Vec::new());
    for file in ["gost.txt", "std.txt"] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        for record in shifr_kat::parse(&text).unwrap() {
            match run(&ctx, &record) {
                Some(true) => passed += 1,
                Some(false) => failed.push(format!("{file}:{} {}", record.line, record.name)),
                None => {}
            }
        }
    }
    eprintln!("{passed} vectors passed through {}", ctx.describe());
    assert!(failed.is_empty(), "failed: {failed:?}");
    // gost.txt alone has Magma and Kuznyechik CTR / ECB and the Magma MAC: a run that checks
    // nothing is a defect.
    assert!(passed >= 5, "only {passed} vectors applied");
}
