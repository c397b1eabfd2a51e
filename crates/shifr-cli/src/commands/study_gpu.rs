//! The GPU part of `shifr study gost-streams --backend gpu`: seed 001's GPU experiment (figure 5) —
//! Magma over 16,384 sectors of 512 bytes, each with its own key — as multi-stream GOST R 34.13 CFB
//! (encrypt, decrypt), CBC (encrypt, decrypt) and MAC, and the same sectors with Kuznyechik,
//! device-resident and host to host, written to `gpu.md` in the study's output directory. Each mode
//! is checked against the CPU library before it is timed. (The CPU part of the study, in
//! shifr-bench, stays the seed's Magma-only design; Kuznyechik is here as the GPU's 128-bit row.)

use super::bench_gpu::{streams_host_time, streams_time, StreamCipher, SECTOR};
use anyhow::{anyhow, Context, Result};
use shifr_gpu::{GpuContext, StreamMode};
use shifr_studies::Scale;
use std::fmt::Write as _;
use std::path::Path;

pub fn run(out: &Path, scale: Scale) -> Result<()> {
    let ctx = GpuContext::new().map_err(|e| anyhow!("--backend gpu: {e}"))?;
    let (streams, iterations) = match scale {
        Scale::Full => (16_384, 10),
        Scale::Quick => (16_384, 3),
        Scale::Tiny => (256, 1),
    };
    let bytes = streams * SECTOR;
    let mut md = String::new();
    writeln!(md, "# gost-streams on the GPU (seed 001, figure 5)\n")?;
    writeln!(md, "Device: {}\n", ctx.describe())?;
    writeln!(
        md,
        "{streams} streams x {SECTOR} B, each with its own key and IV; median of {iterations} passes. Magma: GOST R 34.12-2015 (param-Z S-boxes), the seed's cipher; Kuznyechik: the same sectors with the 128-bit cipher (seed 003 found its OpenCL Kuznyechik on a Mali GPU 46x slower than the CPU), key schedule in the kernel.\n"
    )?;
    writeln!(
        md,
        "| cipher | mode | device-resident MB/s | host-to-host MB/s |"
    )?;
    writeln!(md, "|---|---|---|---|")?;
    for cipher in [StreamCipher::Magma, StreamCipher::Kuznyechik] {
        for mode in StreamMode::ALL {
            let resident = streams_time(&ctx, cipher, mode, streams, iterations)?;
            let h2h = streams_host_time(&ctx, cipher, mode, streams, iterations)?;
            let mb_s = |t: std::time::Duration| bytes as f64 / t.as_secs_f64() / 1e6;
            writeln!(
                md,
                "| {} | {} | {:.0} | {:.0} |",
                cipher.name(),
                mode.name(),
                mb_s(resident),
                mb_s(h2h)
            )?;
        }
    }
    writeln!(
        md,
        "\nEach mode was checked against the CPU library on four streams before it was timed. The seed reports 2,588 MB/s on a GTX 750 (S-box as a Boolean function, copies pipelined). Host-to-host here is one upload, one kernel and one download per pass (not pipelined). Both kernels read secret-indexed tables: not constant-time."
    )?;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let path = out.join("gpu.md");
    std::fs::write(&path, md).with_context(|| format!("writing {}", path.display()))?;
    println!("wrote {}", path.display());
    Ok(())
}
