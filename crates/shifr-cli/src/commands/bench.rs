//! `shifr bench`: measures every algorithm (or the chosen ones) at several message sizes, for
//! encryption, decryption or both (`--direction`), beside OpenSSL, OpenSSL's GOST engine, AWS-LC,
//! ring and RustCrypto, and answers which AEAD to use on this machine (shifr_bench::summary); the
//! full table with --full, JSON, CSV or charts on request.
//! The measuring is done by the shifr-bench crate; this file turns options into workloads and
//! output.

use crate::cli::{BenchArgs, BenchDirection};
use anyhow::{anyhow, bail, Context, Result};
use shifr::catalog::{self, AlgInfo};
use shifr::cpu::Backend;
use shifr_bench::peers;
use shifr_bench::report;
use shifr_bench::run::{Config, Runner};
use shifr_bench::{sizes, summary, Direction, Row, Workload};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;

/// Measured seconds per row by default, and with --quick: the default run of every algorithm at
/// the default sizes stays under a minute.
const SECONDS: f64 = 0.06;
const QUICK_SECONDS: f64 = 0.03;
/// Most independent streams per message.
const MAX_STREAMS: usize = 1 << 16;

pub fn run(args: &BenchArgs) -> Result<ExitCode> {
    if gpu_wanted(args.backend.as_deref()) {
        #[cfg(feature = "gpu")]
        return super::bench_gpu::run(args);
        #[cfg(not(feature = "gpu"))]
        return Err(crate::features::missing("gpu", "--backend gpu"));
    }
    let algs = algorithms(args.alg.as_deref())?;
    let sizes = match &args.size {
        Some(list) => sizes::parse_list(list).map_err(|e| anyhow!(e))?,
        None if args.quick => sizes::QUICK.to_vec(),
        None => sizes::DEFAULT.to_vec(),
    };
    let threads = thread_counts(&args.threads)?;
    let directions = directions(args.direction);
    if !(1..=MAX_STREAMS).contains(&args.streams) {
        bail!("--streams must be from 1 to {MAX_STREAMS}");
    }
    let backend = backend(args.backend.as_deref())?;
    let seconds = args
        .seconds
        .unwrap_or(if args.quick { QUICK_SECONDS } else { SECONDS });
    if !(seconds.is_finite() && (0.001..=60.0).contains(&seconds)) {
        bail!("--seconds must be a number from 0.001 to 60");
    }
    let mut notes: Vec<String> = Vec::new();
    let mut chosen = Vec::new();
    for p in peer_list(&args.peers)? {
        match p.available() {
            Ok(()) => chosen.push(p),
            Err(why) => notes.push(format!("{}: {why}", p.name())),
        }
    }
    let config = Config {
        seconds,
        samples: if args.quick { 3 } else { 5 },
        peers: chosen,
        resample: true,
    };
    let mut runner = Runner::new(config);

    // The no-AES rows of the summary: shifr's AES AEADs on the software backend at the summary's
    // size, when those were asked for and no backend is forced.
    let no_aes: Vec<&'static AlgInfo> = if backend.is_none() && threads.contains(&1) {
        let size = summary::USES.iter().find(|u| u.no_aes).map(|u| u.bytes);
        algs.iter()
            .copied()
            .filter(|a| summary::no_aes_algorithms().any(|n| n == a.name))
            .filter(|_| size.is_some_and(|b| sizes.contains(&b)))
            .collect()
    } else {
        Vec::new()
    };
    // The summary answers from encryption rows when there are any ([`summary::direction`]): the
    // no-AES rows are measured in that direction only.
    let no_aes_direction = directions[0];
    let total = algs.len() * sizes.len() * threads.len() * directions.len() + no_aes.len();
    let progress = std::io::stderr().is_terminal();
    let mut rows: Vec<Row> = Vec::new();
    let mut done = 0;
    for alg in &algs {
        for &bytes in &sizes {
            for &t in &threads {
                for &direction in &directions {
                    done += 1;
                    if progress {
                        eprint!(
                            "\r\x1b[K[{done}/{total}] {} {} {}",
                            alg.name,
                            sizes::human(bytes),
                            direction.name()
                        );
                    }
                    let w = Workload {
                        threads: t,
                        streams: args.streams,
                        direction,
                        backend,
                        ..Workload::new(alg, bytes)
                    };
                    match runner.measure(&w) {
                        Ok(m) => {
                            rows.extend(m.rows);
                            for n in m.notes {
                                if !notes.contains(&n) {
                                    notes.push(n);
                                }
                            }
                        }
                        Err(e) => notes.push(format!(
                            "{} at {} ({t} thread(s), {}): not measured: {e}",
                            alg.name,
                            sizes::human(bytes),
                            direction.name()
                        )),
                    }
                }
            }
        }
    }
    for alg in no_aes {
        done += 1;
        if progress {
            eprint!(
                "\r\x1b[K[{done}/{total}] {} without AES instructions",
                alg.name
            );
        }
        match measure_no_aes(&mut runner, alg, args.streams, no_aes_direction) {
            Ok(r) => rows.extend(r),
            Err(e) => notes.push(format!(
                "{} without AES instructions: not measured: {e}",
                alg.name
            )),
        }
    }
    if progress {
        eprint!("\r\x1b[K");
    }
    let machine = machine_name(args.machine.as_deref())?;
    let cpu = shifr_bench::machine::cpu_model();
    let backends = shifr_bench::machine::supported_backends();
    for r in &mut rows {
        r.machine = Some(machine.clone());
        r.cpu = Some(cpu.clone());
        r.cpu_backends = Some(backends.clone());
    }

    if let Some(path) = &args.csv {
        std::fs::write(path, report::csv::render(&rows))
            .with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(dir) = &args.plot {
        report::plot::write_all(&rows, dir)
            .with_context(|| format!("drawing charts into {}", dir.display()))?;
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", report::json::render(&rows))?;
        for n in &notes {
            eprintln!("shifr: note: {n}");
        }
    } else {
        let answers = summary::answers(&rows);
        if answers.iter().any(|a| a.pick.is_some()) {
            out.write_all(summary::render(&answers).as_bytes())?;
            writeln!(out)?;
        }
        if let Some(busy) = report::table::busy_note(&rows) {
            writeln!(out, "{busy}")?;
            writeln!(out)?;
        }
        if !args.full {
            writeln!(
                out,
                "{} rows measured ({machine}: {cpu}); the full table: shifr bench --full (or --json, --csv FILE).",
                rows.len()
            )?;
            if !notes.is_empty() {
                writeln!(
                    out,
                    "{} notes on rows that could not be measured: see --full.",
                    notes.len()
                )?;
            }
            debug_warning();
            return Ok(ExitCode::SUCCESS);
        }
        let versus = report::versus::render(&rows);
        if !versus.is_empty() {
            out.write_all(versus.as_bytes())?;
            writeln!(out)?;
        }
        out.write_all(report::table::render(&rows).as_bytes())?;
        writeln!(out)?;
        writeln!(
            out,
            "MB/s = 10^6 bytes/s, median of up to {} interleaved samples after warm-up (MIN/MAX beside it); \
             SHIFR/PEER = shifr MB/s / peer MB/s (above 1: shifr is faster).",
            runner.config().samples
        )?;
        if rows.iter().any(|r| r.direction != "encrypt") {
            writeln!(
                out,
                "DIR: enc = encryption, dec = decryption (AEADs: the sealed message copied into the buffer \
                 and opened, tag checked; feedback modes: chained decryption); SHIFR/PEER compares rows \
                 of the same direction."
            )?;
        }
        writeln!(out, "cycles: {}", runner.cycles_source())?;
        writeln!(
            out,
            "energy: {}",
            runner.energy_note().unwrap_or("RAPL package energy")
        )?;
        for n in &notes {
            writeln!(out, "note: {n}")?;
        }
    }
    debug_warning();
    Ok(ExitCode::SUCCESS)
}

fn debug_warning() {
    if cfg!(debug_assertions) {
        crate::report::warning(
            "this shifr is a debug build: its numbers say nothing about speed (use --release)",
        );
    }
}

/// shifr alone on `alg` with the software AES backend, as a processor without AES instructions
/// runs it; the rows carry the scenario [`summary::NO_AES`].
fn measure_no_aes(
    runner: &mut Runner,
    alg: &'static AlgInfo,
    streams: usize,
    direction: Direction,
) -> Result<Vec<Row>> {
    let bytes = summary::USES
        .iter()
        .find(|u| u.no_aes)
        .map_or(16 * 1024, |u| u.bytes);
    let w = Workload {
        streams,
        direction,
        backend: Some(Backend::Portable),
        ..Workload::new(alg, bytes)
    };
    let op = shifr_bench::workload::shifr_op(&w)?;
    let mut rows = runner.measure_ops(&w, vec![("shifr".to_string(), vec![op])])?;
    for r in &mut rows {
        if r.backend != Backend::Portable.name() {
            bail!(
                "{} ran on {}, not on the software backend",
                alg.name,
                r.backend
            );
        }
        r.scenario = Some(summary::NO_AES.to_string());
    }
    Ok(rows)
}

/// `--machine NAME`, or the host name, for merged reports.
fn machine_name(given: Option<&str>) -> Result<String> {
    if let Some(name) = given {
        let name = name.trim();
        if name.is_empty() || name.contains(['\n', '\r']) {
            bail!("--machine needs a name on one line");
        }
        return Ok(name.to_string());
    }
    Ok(std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "this machine".to_string()))
}

/// Whether the GPU bench was asked for: `--backend gpu`, or `SHIFR_BACKEND=gpu` without `--backend`.
fn gpu_wanted(backend: Option<&str>) -> bool {
    match backend {
        Some(b) => b.eq_ignore_ascii_case("gpu"),
        None => std::env::var("SHIFR_BACKEND").is_ok_and(|v| v.trim().eq_ignore_ascii_case("gpu")),
    }
}

/// The peers named by `--peers`. A peer this build left out is an error naming the feature, not a
/// silent skip.
fn peer_list(list: &str) -> Result<Vec<peers::Peer>> {
    #[cfg(not(feature = "peers"))]
    if let Some(name) = list.split(',').find(|n| peers::left_out(n).is_some()) {
        return Err(crate::features::missing(
            "peers",
            &format!("--peers {}", name.trim()),
        ));
    }
    peers::parse_list(list).map_err(|e| anyhow!(e))
}

/// The algorithms named by `--alg`, or every catalogue entry.
fn algorithms(list: Option<&str>) -> Result<Vec<&'static AlgInfo>> {
    match list {
        None => Ok(catalog::all().iter().collect()),
        Some(list) => {
            let algs: Vec<&'static AlgInfo> = list
                .split(',')
                .filter(|s| !s.trim().is_empty())
                .map(|name| catalog::lookup(name))
                .collect::<Result<_, _>>()?;
            if algs.is_empty() {
                bail!("--alg names no algorithm (give names from `shifr list`, comma-separated)");
            }
            Ok(algs)
        }
    }
}

/// The directions `--direction` asks for, encryption first.
fn directions(d: BenchDirection) -> Vec<Direction> {
    match d {
        BenchDirection::Encrypt => vec![Direction::Encrypt],
        BenchDirection::Decrypt => vec![Direction::Decrypt],
        BenchDirection::Both => vec![Direction::Encrypt, Direction::Decrypt],
    }
}

fn thread_counts(list: &str) -> Result<Vec<usize>> {
    list.split(',')
        .map(|s| match s.trim().parse::<usize>() {
            Ok(n) if (1..=1024).contains(&n) => Ok(n),
            _ => Err(anyhow!("bad thread count '{}' (1 to 1024)", s.trim())),
        })
        .collect()
}

/// The backend named by `--backend`: it must exist and run on this CPU. It is also exported as
/// `SHIFR_BACKEND`, so that algorithms chosen through `cpu::select` follow it.
fn backend(name: Option<&str>) -> Result<Option<Backend>> {
    let Some(name) = name else {
        return Ok(None);
    };
    let known: Vec<&str> = Backend::ALL.iter().map(|b| b.name()).collect();
    let b = Backend::from_name(name)
        .ok_or_else(|| anyhow!("unknown backend '{name}' (shifr has: {})", known.join(", ")))?;
    if !b.is_supported() {
        bail!("backend '{}' is not supported by this CPU", b.name());
    }
    // Single-threaded here: nothing else reads the environment concurrently.
    std::env::set_var("SHIFR_BACKEND", b.name());
    Ok(Some(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shifr_bench::peers::Peer;

    #[test]
    fn option_parsing() {
        assert_eq!(thread_counts("1,2").unwrap(), vec![1, 2]);
        assert!(thread_counts("0").is_err());
        assert!(backend(Some("gpu")).is_err());
        assert_eq!(algorithms(None).unwrap().len(), catalog::all().len());
        assert!(algorithms(Some("aes-128-ctr,nope")).is_err());
    }

    #[test]
    fn direction_parses_and_both_means_encrypt_then_decrypt() {
        use crate::cli::{Cli, Command};
        use clap::Parser;
        let parsed = |extra: &[&str]| {
            let cli = Cli::try_parse_from(["shifr", "bench"].iter().chain(extra)).unwrap();
            match cli.command {
                Command::Bench(args) => directions(args.direction),
                _ => panic!("not bench"),
            }
        };
        assert_eq!(parsed(&[]), vec![Direction::Encrypt]);
        assert_eq!(
            parsed(&["--direction", "decrypt"]),
            vec![Direction::Decrypt]
        );
        assert_eq!(
            parsed(&["--direction", "both"]),
            vec![Direction::Encrypt, Direction::Decrypt]
        );
        assert!(Cli::try_parse_from(["shifr", "bench", "--direction", "sideways"]).is_err());
    }

    #[test]
    fn every_peer_name_is_accepted() {
        let names: Vec<&str> = Peer::ALL.iter().map(|p| p.name()).collect();
        assert_eq!(peer_list(&names.join(",")).unwrap(), Peer::ALL.to_vec());
        assert_eq!(peer_list("all").unwrap(), Peer::ALL.to_vec());
        assert!(peer_list("none").unwrap().is_empty());
        assert!(peer_list("boringssl").is_err());
    }

    #[cfg(feature = "peers")]
    #[test]
    fn the_peers_feature_brings_openssl() {
        assert_eq!(peer_list("openssl,openssl-gost").unwrap().len(), 2);
    }

    #[cfg(not(feature = "peers"))]
    #[test]
    fn peers_left_out_name_the_feature() {
        let e = peer_list("rustcrypto,openssl").unwrap_err().to_string();
        assert!(e.contains("built without the `peers` feature"), "{e}");
    }
}
