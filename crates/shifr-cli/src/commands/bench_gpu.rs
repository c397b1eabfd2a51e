//! `shifr bench --backend gpu` (or `SHIFR_BACKEND=gpu shifr bench`): the GPU kernels of shifr-gpu,
//! device-resident (data already in GPU memory: the kernels' own speed) and host to host (pinned
//! host memory -> GPU -> host memory, pipelined over several streams), plus the multi-stream GOST
//! R 34.13 modes (Magma and Kuznyechik CFB / CBC / MAC) over `--streams` sectors of 512 bytes with
//! their own keys: device-resident, and host to host as one upload, kernel and download per pass (not
//! pipelined); each is first checked against the CPU library on a few streams.
//! The kernels' correctness is the shifr-gpu tests' job (scripts/gpu-bench.sh runs them first).

use crate::cli::BenchArgs;
use anyhow::{anyhow, bail, Result};
use shifr::cpu::Backend;
use shifr::hazmat::block::kuznyechik::Kuznyechik;
use shifr::hazmat::block::magma::{Magma, SBox};
use shifr::hazmat::block::BlockCipher;
use shifr::hazmat::mode::multistream;
use shifr_bench::sizes;
use shifr_gpu::{GpuContext, GpuJob, MagmaVariant, StreamMode, MIN_GPU_BYTES};
use std::process::ExitCode;
use std::time::Duration;

/// Bytes per measurement by default and with --quick.
const BYTES: usize = 256 << 20;
const QUICK_BYTES: usize = 16 << 20;
/// Seed 001's sectors.
pub(crate) const SECTOR: usize = 512;
const DEFAULT_STREAMS: usize = 16_384;

/// Every GPU workload, by its `--alg` name.
const ALGS: &[&str] = &[
    "chacha20",
    "magma-ctr",
    "magma-ctr-anf",
    "kuznyechik-ctr",
    "aes-128-ctr",
    "aes-256-ctr",
    "magma-ecb",
    "kuznyechik-ecb",
    "aes-128-ecb",
    "magma-cfb-streams",
    "magma-cbc-streams",
    "magma-mac-streams",
    "kuznyechik-cfb-streams",
    "kuznyechik-cbc-streams",
    "kuznyechik-mac-streams",
];

/// The block cipher of a multi-stream workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StreamCipher {
    Magma,
    Kuznyechik,
}

impl StreamCipher {
    pub(crate) fn name(self) -> &'static str {
        match self {
            StreamCipher::Magma => "magma",
            StreamCipher::Kuznyechik => "kuznyechik",
        }
    }

    fn block(self) -> usize {
        match self {
            StreamCipher::Magma => 8,
            StreamCipher::Kuznyechik => 16,
        }
    }
}

/// `magma-cfb-streams` / `kuznyechik-mac-streams` (also without `-streams`: Kuznyechik CFB / CBC /
/// MAC exist on the GPU only as multi-stream kernels) -> cipher and mode.
fn stream_workload(name: &str) -> Option<(StreamCipher, StreamMode)> {
    let base = name.strip_suffix("-streams").unwrap_or(name);
    let (cipher, mode) = base.split_once('-')?;
    let cipher = match cipher {
        "magma" if name.ends_with("-streams") => StreamCipher::Magma,
        "kuznyechik" => StreamCipher::Kuznyechik,
        _ => return None,
    };
    let mode = match mode {
        "cfb" => StreamMode::CfbEncrypt,
        "cbc" => StreamMode::CbcEncrypt,
        "mac" => StreamMode::Mac,
        _ => return None,
    };
    Some((cipher, mode))
}

fn job(name: &str) -> Result<GpuJob> {
    let key = [0x5au8; 32];
    let job = match name {
        "chacha20" => GpuJob::chacha20(&key, &[7u8; 12], 0),
        "magma-ctr" => GpuJob::magma_ctr(&key, &[1, 2, 3, 4], SBox::Tc26Z, MagmaVariant::Tables),
        "magma-ctr-anf" => {
            GpuJob::magma_ctr(&key, &[1, 2, 3, 4], SBox::Tc26Z, MagmaVariant::Boolean)
        }
        "kuznyechik-ctr" => GpuJob::kuznyechik_ctr(&key, &[9u8; 8]),
        "aes-128-ctr" => GpuJob::aes_ctr(&key[..16], &[3u8; 16]),
        "aes-256-ctr" => GpuJob::aes_ctr(&key, &[3u8; 16]),
        "magma-ecb" => GpuJob::magma_ecb(&key, SBox::Tc26Z, MagmaVariant::Tables),
        "kuznyechik-ecb" => GpuJob::kuznyechik_ecb(&key),
        "aes-128-ecb" => GpuJob::aes_ecb(&key[..16]),
        other => bail!(
            "unknown GPU workload '{other}' (GPU has: {})",
            ALGS.join(", ")
        ),
    };
    job.map_err(|e| anyhow!(e))
}

fn gbps(bytes: usize, t: Duration) -> f64 {
    bytes as f64 / t.as_secs_f64() / 1e9
}

pub fn run(args: &BenchArgs) -> Result<ExitCode> {
    let ctx = GpuContext::new().map_err(|e| anyhow!("--backend gpu: {e}"))?;
    let names: Vec<String> = match &args.alg {
        Some(list) => list.split(',').map(|s| s.trim().to_string()).collect(),
        None => ALGS.iter().map(|s| s.to_string()).collect(),
    };
    let bytes = match &args.size {
        Some(list) => *sizes::parse_list(list)
            .map_err(|e| anyhow!(e))?
            .iter()
            .max()
            .ok_or_else(|| anyhow!("--size: no size"))?,
        None if args.quick => QUICK_BYTES,
        None => BYTES,
    };
    let bytes = bytes.max(64) / 64 * 64;
    let iterations = if args.quick { 3 } else { 10 };
    let streams = if args.streams > 1 {
        args.streams
    } else {
        DEFAULT_STREAMS
    };
    println!("device: {}", ctx.describe());
    println!(
        "bytes per pass: {bytes}; pipeline chunk: {} bytes; median of {iterations} passes",
        ctx.chunk()
    );
    if bytes < MIN_GPU_BYTES {
        println!(
            "note: below {MIN_GPU_BYTES} bytes shifr keeps work on the CPU (copies and launch cost more); measured here anyway"
        );
    }
    if names.iter().any(|n| stream_workload(n).is_some()) {
        println!(
            "multi-stream rows: {streams} streams x {SECTOR} B, own key and IV each; host-host = one upload, kernel and download per pass (not pipelined)"
        );
    }
    println!(
        "{:<36} {:>16} {:>16}",
        "workload", "device GB/s", "host-host GB/s"
    );
    let mut host = ctx.host_buffer(bytes).map_err(|e| anyhow!(e))?;
    for name in &names {
        if let Some((cipher, mode)) = stream_workload(name) {
            let resident = streams_time(&ctx, cipher, mode, streams, iterations)?;
            let h2h = streams_host_time(&ctx, cipher, mode, streams, iterations)?;
            let label = format!("{}-{} {streams} x {SECTOR} B", cipher.name(), mode.name());
            println!(
                "{label:<36} {:>16.3} {:>16.3}",
                gbps(streams * SECTOR, resident),
                gbps(streams * SECTOR, h2h)
            );
            continue;
        }
        let job = job(name)?;
        let resident = ctx
            .time_resident(&job, bytes, iterations)
            .map_err(|e| anyhow!(e))?;
        // Host to host: warm-up, then the median of timed passes over the pinned buffer.
        let mut times = Vec::new();
        for _ in 0..=iterations.min(5) {
            let start = std::time::Instant::now();
            ctx.apply(&job, &mut host).map_err(|e| anyhow!(e))?;
            times.push(start.elapsed());
        }
        times.remove(0);
        times.sort();
        let h2h = times[times.len() / 2];
        println!(
            "{:<36} {:>16.3} {:>16.3}",
            job.label(),
            gbps(bytes, resident),
            gbps(bytes, h2h)
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Per-stream keys and IVs of a multi-stream workload (distinct, not secret: a benchmark).
fn stream_inputs(streams: usize) -> (Vec<[u8; 32]>, Vec<[u8; 16]>) {
    let keys = (0..streams).map(|i| [(i % 251) as u8; 32]).collect();
    let ivs = (0..streams).map(|i| (i as u128).to_be_bytes()).collect();
    (keys, ivs)
}

/// The IVs cut to Magma's 8-byte block.
fn magma_ivs(ivs: &[[u8; 16]]) -> Vec<[u8; 8]> {
    ivs.iter()
        .map(|iv| iv[8..].try_into().expect("8 of 16 bytes"))
        .collect()
}

/// One multi-stream call on the GPU over `data` (`SECTOR` bytes per key); the tags' bytes for MAC.
pub(crate) fn gpu_streams(
    ctx: &GpuContext,
    cipher: StreamCipher,
    mode: StreamMode,
    keys: &[[u8; 32]],
    ivs: &[[u8; 16]],
    data: &mut [u8],
) -> Result<Vec<Vec<u8>>> {
    let tags = match cipher {
        StreamCipher::Magma => ctx
            .magma_streams(mode, SBox::Tc26Z, keys, &magma_ivs(ivs), data, SECTOR)
            .map(|t| t.iter().map(|t| t.to_vec()).collect()),
        StreamCipher::Kuznyechik => ctx
            .kuznyechik_streams(mode, keys, ivs, data, SECTOR)
            .map(|t| t.iter().map(|t| t.to_vec()).collect()),
    };
    tags.map_err(|e| anyhow!(e))
}

/// The CPU library's multi-stream result for `data` (in place) and the tags for MAC.
fn cpu_streams<C: BlockCipher>(
    ciphers: &[C],
    mode: StreamMode,
    ivs: &[&[u8]],
    data: &mut [u8],
) -> Result<Vec<Vec<u8>>> {
    let refs: Vec<&C> = ciphers.iter().collect();
    let in_place = |f: StreamFn<C>, data: &mut [u8]| -> Result<Vec<Vec<u8>>> {
        let mut pieces: Vec<&mut [u8]> = data.chunks_mut(SECTOR).collect();
        f(&refs, ivs, &mut pieces)?;
        Ok(Vec::new())
    };
    match mode {
        StreamMode::CfbEncrypt => in_place(multistream::cfb_encrypt, data),
        StreamMode::CfbDecrypt => in_place(multistream::cfb_decrypt, data),
        StreamMode::CbcEncrypt => in_place(multistream::cbc_encrypt, data),
        StreamMode::CbcDecrypt => in_place(multistream::cbc_decrypt, data),
        StreamMode::Mac => {
            let msgs: Vec<&[u8]> = data.chunks(SECTOR).collect();
            let n = ciphers.first().map_or(16, |c| c.block_size());
            Ok(multistream::omac(&refs, &msgs, n)?)
        }
    }
}

/// A multi-stream cipher mode of the CPU library.
type StreamFn<C> = fn(&[&C], &[&[u8]], &mut [&mut [u8]]) -> shifr::Result<()>;

/// Checks four streams of the workload against the CPU library (portable backend).
fn check_streams(
    ctx: &GpuContext,
    cipher: StreamCipher,
    mode: StreamMode,
    keys: &[[u8; 32]],
    ivs: &[[u8; 16]],
) -> Result<()> {
    let check = 4.min(keys.len());
    let (keys, ivs) = (&keys[..check], &ivs[..check]);
    let mut data: Vec<u8> = (0..check * SECTOR).map(|i| i as u8).collect();
    let mut want = data.clone();
    let tags = gpu_streams(ctx, cipher, mode, keys, ivs, &mut data)?;
    let n = cipher.block();
    let iv_refs: Vec<&[u8]> = ivs.iter().map(|iv| &iv[16 - n..]).collect();
    let cpu_tags = match cipher {
        StreamCipher::Magma => {
            let ciphers = keys
                .iter()
                .map(|k| Magma::with_backend(k, SBox::Tc26Z, Backend::Portable))
                .collect::<shifr::Result<Vec<_>>>()?;
            cpu_streams(&ciphers, mode, &iv_refs, &mut want)?
        }
        StreamCipher::Kuznyechik => {
            let ciphers = keys
                .iter()
                .map(|k| Kuznyechik::with_backend(k, Backend::Portable))
                .collect::<shifr::Result<Vec<_>>>()?;
            cpu_streams(&ciphers, mode, &iv_refs, &mut want)?
        }
    };
    if data != want || tags != cpu_tags {
        bail!(
            "GPU multi-stream {} {} disagrees with the CPU library; not timing it",
            cipher.name(),
            mode.name()
        );
    }
    Ok(())
}

/// Multi-stream `cipher` in `mode`: checks four streams against the CPU library, then times the
/// kernel with `streams` sectors of 512 bytes resident on the device.
pub(crate) fn streams_time(
    ctx: &GpuContext,
    cipher: StreamCipher,
    mode: StreamMode,
    streams: usize,
    iterations: usize,
) -> Result<Duration> {
    let (keys, ivs) = stream_inputs(streams);
    check_streams(ctx, cipher, mode, &keys, &ivs)?;
    let t = match cipher {
        StreamCipher::Magma => {
            ctx.time_magma_streams(mode, &keys, &magma_ivs(&ivs), SECTOR, iterations)
        }
        StreamCipher::Kuznyechik => {
            ctx.time_kuznyechik_streams(mode, &keys, &ivs, SECTOR, iterations)
        }
    };
    t.map_err(|e| anyhow!(e))
}

/// Host memory to host memory: the median of `iterations` whole calls (upload of keys, IVs and
/// data, kernel, download), after one warm-up call.
pub(crate) fn streams_host_time(
    ctx: &GpuContext,
    cipher: StreamCipher,
    mode: StreamMode,
    streams: usize,
    iterations: usize,
) -> Result<Duration> {
    let (keys, ivs) = stream_inputs(streams);
    let mut data = vec![0x3cu8; streams * SECTOR];
    let mut times = Vec::new();
    for _ in 0..=iterations.max(1) {
        let start = std::time::Instant::now();
        gpu_streams(ctx, cipher, mode, &keys, &ivs, &mut data)?;
        times.push(start.elapsed());
    }
    times.remove(0);
    times.sort();
    Ok(times[times.len() / 2])
}
