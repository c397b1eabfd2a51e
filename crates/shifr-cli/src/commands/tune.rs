//! `shifr tune`: measures which backend is fastest on this CPU for each primitive's kinds of work
//! (a few seconds) and writes the calibration file that every later `shifr` (and the Python
//! package) installs at start-up. `shifr list` shows what it changed.

use crate::cli::TuneArgs;
use anyhow::{Context, Result};
use shifr::cpu::{calibration, Work};
use shifr_bench::tune;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

pub fn run(args: &TuneArgs) -> Result<ExitCode> {
    let path = match &args.out {
        Some(p) => p.clone(),
        None => shifr_files::tune_cache::cache_path()
            .context("no cache directory ($HOME is not set); name the file with --out")?,
    };
    let terminal = std::io::stderr().is_terminal();
    let (timings, entries) = tune::calibrate(args.seconds, |probe| {
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
    let mut out = String::new();
    out.push_str("PRIMITIVE   WORK   BACKEND         MEASURED (MB/s at the largest probe size)\n");
    for probe in tune::PROBES {
        let chosen = entries
            .iter()
            .find(|e| e.primitive == probe.primitive && e.work == probe.work);
        let size = match (probe.work, chosen) {
            (Work::Short, Some(e)) => e.short_max,
            _ => *probe.sizes.last().unwrap_or(&0),
        };
        let measured: Vec<String> = timings
            .iter()
            .filter(|t| t.bytes == size && probe.sizes.contains(&t.bytes))
            .filter(|_| chosen.is_some() || probe.work != Work::Short)
            .map(|t| format!("{} {:.0}", t.backend.name(), t.mb_s))
            .collect();
        let choice = match chosen {
            Some(e) if e.work == Work::Short => {
                format!("{} <= {} B", e.backend.name(), e.short_max)
            }
            Some(e) => e.backend.name().to_string(),
            None => "as bulk".to_string(),
        };
        out.push_str(&format!(
            "{:<11} {:<6} {:<15} {}\n",
            probe.primitive.name(),
            probe.work.name(),
            choice,
            measured.join(", ")
        ));
    }
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
