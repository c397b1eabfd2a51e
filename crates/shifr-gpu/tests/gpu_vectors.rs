//! The primary-source vectors of ../shared/vectors (parsed with shifr-kat) through the GPU kernels:
//! CTR / ECB of Magma, Kuznyechik and AES-128/256, ChaCha20 streams, and the Magma and Kuznyechik
//! CFB / CBC / MAC records (GOST R 34.13 Annex A) through the multi-stream kernels: a register of
//! m = z * n bits is z interleaved chains (block i belongs to chain i mod z, with IV block i mod z),
//! each run as a stream of its own; CFB and CBC are checked in both directions. Records of other
//! shapes (truncated CFB segments, AES-192, which the GPU does not implement) are counted as not
//! applicable. Without a device the test prints why and passes.

mod support;

use std::path::PathBuf;

use shifr::hazmat::block::magma::SBox;
use shifr_gpu::{GpuContext, GpuError, GpuJob, MagmaVariant, StreamMode};

/// One stream of `cipher` (`magma` or `kuznyechik`) through the GPU's multi-stream kernel: the data
/// in place, and the tag for MAC.
fn one_stream(
    ctx: &GpuContext,
    cipher: &str,
    mode: StreamMode,
    key: &[u8],
    iv: &[u8],
    data: &mut [u8],
) -> Option<Vec<u8>> {
    let key: [u8; 32] = key.try_into().ok()?;
    let len = data.len();
    let tags = match cipher {
        "magma" => {
            let iv: [u8; 8] = iv.try_into().ok()?;
            let tags = ctx
                .magma_streams(mode, SBox::Tc26Z, &[key], &[iv], data, len)
                .ok()?;
            tags.iter().flatten().copied().collect()
        }
        _ => {
            let iv: [u8; 16] = iv.try_into().ok()?;
            let tags = ctx
                .kuznyechik_streams(mode, &[key], &[iv], data, len)
                .ok()?;
            tags.iter().flatten().copied().collect()
        }
    };
    Some(tags)
}

/// `mode` over the z = iv.len() / n interleaved chains of `input`, each as one GPU stream.
fn chains(
    ctx: &GpuContext,
    cipher: &str,
    mode: StreamMode,
    key: &[u8],
    iv: &[u8],
    n: usize,
    input: &[u8],
) -> Option<Vec<u8>> {
    let z = iv.len() / n;
    let blocks = input.len() / n;
    let mut out = input.to_vec();
    for c in 0..z {
        let index: Vec<usize> = (c..blocks).step_by(z).collect();
        let mut chain: Vec<u8> = index
            .iter()
            .flat_map(|&b| input[b * n..(b + 1) * n].iter().copied())
            .collect();
        one_stream(ctx, cipher, mode, key, &iv[c * n..(c + 1) * n], &mut chain)?;
        for (k, &b) in index.iter().enumerate() {
            out[b * n..(b + 1) * n].copy_from_slice(&chain[k * n..(k + 1) * n]);
        }
    }
    Some(out)
}
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
        if m.parse::<usize>().ok()? % (8 * n) != 0 {
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
        ("magma" | "kuznyechik", "mac") => {
            let mut data = field("pt")?;
            let tag = one_stream(ctx, cipher, StreamMode::Mac, &key, &[0; 16][..n], &mut data)?;
            let want = field("tag")?;
            return Some(tag[..want.len()] == want[..] && data == field("pt")?);
        }
        ("magma" | "kuznyechik", "cfb" | "cbc") => {
            let (pt, ct, iv) = (field("pt")?, field("ct")?, field("iv")?);
            if pt.len() % n != 0 || iv.len() % n != 0 || iv.is_empty() {
                return None;
            }
            let (enc, dec) = match mode {
                "cfb" => (StreamMode::CfbEncrypt, StreamMode::CfbDecrypt),
                _ => (StreamMode::CbcEncrypt, StreamMode::CbcDecrypt),
            };
            let encrypted = chains(ctx, cipher, enc, &key, &iv, n, &pt)?;
            let decrypted = chains(ctx, cipher, dec, &key, &iv, n, &ct)?;
            return Some(encrypted == ct && decrypted == pt);
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
            support::no_device("shared_vectors_pass_through_the_gpu", &why);
            return;
        }
        Err(e) => panic!("GPU context: {e}"),
    };
    support::ran_on("shared_vectors_pass_through_the_gpu", &ctx.describe());
    let Some(dir) = vector_dir() else {
        panic!("no vector directory (set SHIFR_VECTORS)");
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
    // gost.txt alone has Magma and Kuznyechik CTR / ECB / CFB / CBC / MAC: a run that checks
    // nothing is a defect.
    assert!(passed >= 10, "only {passed} vectors applied");
}
