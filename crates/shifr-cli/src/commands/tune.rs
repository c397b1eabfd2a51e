//! `shifr tune`: measures which backend is fastest on this CPU for each primitive's kinds of work
//! (a few seconds) and writes the calibration file that every later `shifr` (and the Python
//! package) installs at start-up. `shifr list` shows what it changed. A backend is forced per
//! process, so each is measured in a child `shifr bench --backend B --json`.

use crate::cli::TuneArgs;
use anyhow::{Context, Result};
use shifr::cpu::{calibration, Backend, Work};
use shifr_bench::tune::{self, Probe, Timing};
use shifr_bench::{BenchError, Row};
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};

pub fn run(args: &TuneArgs) -> Result<ExitCode> {
    let path = match &args.out {
        Some(p) => p.clone(),
        None => shifr_files::tune_cache::cache_path()
            .context("no cache directory ($HOME is not set); name the file with --out")?,
    };
    let terminal = std::io::stderr().is_terminal();
    let exe = std::env::current_exe().context("cannot locate the shifr binary for the children")?;
    let measure = |probe: &Probe, backend: Backend| child_bench(&exe, args.seconds, probe, backend);
    let outcomes = tune::calibrate(measure, |probe| {
        if terminal {
            eprint!(
                "\rshifr tune: {} {} ({})          ",
                probe.primitive.name(),
                probe.work.name(),
                probe.algorithm
            );
        }
    })?;
    if terminal {
        eprintln!();
    }
    let mut out =
        String::from("PRIMITIVE   WORK   CHOICE          MB/s OF EACH BACKEND (ALGORITHM, SIZE)\n");
    for o in &outcomes {
        // The size that decided: the bound of a short-call choice, else the largest probed.
        let size = match o.entry {
            Some(e) if e.work == Work::Short => e.short_max,
            _ => *o.probe.sizes.last().unwrap_or(&0),
        };
        let measured: Vec<String> = o
            .timings
            .iter()
            .filter(|t| t.bytes == size)
            .map(|t| format!("{} {:.0}", t.backend.name(), t.mb_s))
            .collect();
        let choice = match o.entry {
            Some(e) if e.work == Work::Short => {
                format!("{} <= {} B", e.backend.name(), e.short_max)
            }
            Some(e) => e.backend.name().to_string(),
            None => "as bulk".to_string(),
        };
        out.push_str(&format!(
            "{:<11} {:<6} {:<15} {} ({}, {size} B)\n",
            o.probe.primitive.name(),
            o.probe.work.name(),
            choice,
            measured.join(", "),
            o.probe.algorithm,
        ));
    }
    let entries = tune::entries(&outcomes);
    let text = calibration::format(&entries);
    if args.dry_run {
        out.push_str(&format!(
            "\n--dry-run: {} not written. It would hold:\n{text}",
            path.display()
        ));
    } else {
        shifr_files::tune_cache::save(&path, &text)?;
        out.push_str(&format!(
            "\nwrote {} (installed by every later shifr on this CPU; delete it to return to the \
             built-in table)\n",
            path.display()
        ));
    }
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// The probe's speeds with `backend` forced, from a child `shifr bench` (no peers, JSON rows).
fn child_bench(
    exe: &Path,
    seconds: f64,
    probe: &Probe,
    backend: Backend,
) -> Result<Vec<Timing>, BenchError> {
    let sizes: Vec<String> = probe.sizes.iter().map(|s| s.to_string()).collect();
    let out = Command::new(exe)
        .args([
            "bench",
            "--json",
            "--peers",
            "none",
            "--backend",
            backend.name(),
        ])
        .args(["--alg", probe.algorithm, "--size", &sizes.join(",")])
        .args(["--seconds", &seconds.to_string()])
        .env_remove("SHIFR_BACKEND")
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()?;
    if !out.status.success() {
        return Err(BenchError::Invalid(format!(
            "shifr bench --backend {} --alg {}: {}",
            backend.name(),
            probe.algorithm,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let rows: Vec<Row> = serde_json::from_slice(&out.stdout)
        .map_err(|e| BenchError::Invalid(format!("shifr bench --json: {e}")))?;
    Ok(rows
        .iter()
        .filter(|r| r.implementation == "shifr")
        .filter_map(|r| {
            Some(Timing {
                backend: Backend::from_name(&r.backend)?,
                bytes: r.bytes,
                mb_s: r.mb_s,
            })
        })
        .collect())
}
