//! `shifr bench --backend gpu` (or `SHIFR_BACKEND=gpu shifr bench`): the GPU kernels of shifr-gpu,
//! device-resident (data already in GPU memory: the kernels' own speed) and host to host (pinned
//! host memory -> GPU -> host memory, pipelined over several streams), plus multi-stream Magma CFB
//! over `--streams` sectors of 512 bytes with their own keys (first checked against the CPU library).
//! The kernels' correctness is the shifr-gpu tests' job (scripts/gpu-bench.sh runs them first).

use crate::cli::BenchArgs;
use anyhow::{anyhow, bail, Result};
use shifr::block::magma::{Magma, SBox};
use shifr::cpu::Backend;
use shifr::mode::multistream;
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
];

/// Whether the GPU bench was asked for: `--backend gpu`, or `SHIFR_BACKEND=gpu` without `--backend`.
pub fn wanted(backend: Option<&str>) -> bool {
    match backend {
        Some(b) => b.eq_ignore_ascii_case("gpu"),
        None => std::env::var("SHIFR_BACKEND").is_ok_and(|v| v.trim().eq_ignore_ascii_case("gpu")),
    }
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
    println!(
        "{:<30} {:>16} {:>16}",
        "workload", "device GB/s", "host-host GB/s"
    );
    let mut host = ctx.host_buffer(bytes).map_err(|e| anyhow!(e))?;
    for name in &names {
        if name == "magma-cfb-streams" {
            let t = streams_time(&ctx, StreamMode::CfbEncrypt, streams, iterations)?;
            let label = format!("magma-cfb {streams} x {SECTOR} B");
            println!(
                "{label:<30} {:>16.3} {:>16}",
                gbps(streams * SECTOR, t),
                "-"
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
            "{:<30} {:>16.3} {:>16.3}",
            job.label(),
            gbps(bytes, resident),
            gbps(bytes, h2h)
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Multi-stream Magma in `mode`: checks four streams against the CPU library, then times the kernel
/// with `streams` sectors of 512 bytes resident on the device.
pub(crate) fn streams_time(
    ctx: &GpuContext,
    mode: StreamMode,
    streams: usize,
    iterations: usize,
) -> Result<Duration> {
    let keys: Vec<[u8; 32]> = (0..streams).map(|i| [(i % 251) as u8; 32]).collect();
    let ivs: Vec<[u8; 8]> = (0..streams).map(|i| (i as u64).to_be_bytes()).collect();
    let check = 4.min(streams);
    let mut data: Vec<u8> = (0..check * SECTOR).map(|i| i as u8).collect();
    let mut want = data.clone();
    let tags = ctx
        .magma_streams(
            mode,
            SBox::Tc26Z,
            &keys[..check],
            &ivs[..check],
            &mut data,
            SECTOR,
        )
        .map_err(|e| anyhow!(e))?;
    let ciphers: Vec<Magma> = keys[..check]
        .iter()
        .map(|k| Magma::with_backend(k, SBox::Tc26Z, Backend::Portable))
        .collect::<shifr::Result<_>>()?;
    let refs: Vec<&Magma> = ciphers.iter().collect();
    let iv_refs: Vec<&[u8]> = ivs[..check].iter().map(|iv| &iv[..]).collect();
    let agrees = match mode {
        StreamMode::Mac => {
            let msgs: Vec<&[u8]> = want.chunks(SECTOR).collect();
            let cpu = multistream::omac(&refs, &msgs, 8)?;
            cpu.iter().zip(&tags).all(|(c, g)| c[..] == g[..])
        }
        _ => {
            let mut pieces: Vec<&mut [u8]> = want.chunks_mut(SECTOR).collect();
            match mode {
                StreamMode::CfbEncrypt => multistream::cfb_encrypt(&refs, &iv_refs, &mut pieces)?,
                StreamMode::CfbDecrypt => multistream::cfb_decrypt(&refs, &iv_refs, &mut pieces)?,
                _ => multistream::cbc_encrypt(&refs, &iv_refs, &mut pieces)?,
            }
            data == want
        }
    };
    if !agrees {
        bail!("GPU multi-stream Magma {mode:?} disagrees with the CPU library; not timing it");
    }
    ctx.time_magma_streams(mode, &keys, &ivs, SECTOR, iterations)
        .map_err(|e| anyhow!(e))
}
