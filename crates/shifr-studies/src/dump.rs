//! `dump` (seed 004): an encrypted disk dump as a background job held to 15 % of the CPU, for every
//! AEAD of the container, beside the seed's 190 and 334 MB/s.
//!
//! Every case runs the real command, `shifr dump SOURCE IMAGE --cpu-limit 15 -a AEAD` (the `shifr`
//! binary of [`Config::exe`]), as a child process: its speed is the source's bytes over the child's wall
//! time (start to exit, so the key derivation, the final fsync and the rename are included) and its CPU
//! is the child's user + system time from `getrusage(RUSAGE_CHILDREN)`. The same dump without a limit
//! (all cores) and a plain copy without cryptography (this process: read, write, fsync) are the
//! yardsticks, as the seed's plain copy is. The source is a file of random bytes in the page cache (no
//! block device is needed, and the machine's disks are not what is measured); the image is written to
//! the output directory's file system and fsynced.

use super::seeds::seed004_dump as seed;
use super::verdict::{Outcome, Verdict};
use super::{Config, Outcome as StudyOutcome, Scale, Study, StudyError};
use serde::{Deserialize, Serialize};
use shifr_bench::report::chart;
use shifr_bench::report::csv::{self, Csv};
use shifr_bench::report::markdown::Markdown;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// The container's AEADs, in `shifr encrypt -a` names.
pub const AEADS: [&str; 5] = [
    "aes-256-gcm",
    "chacha20-poly1305",
    "xchacha20-poly1305",
    "kuznyechik-mgm",
    "magma-mgm",
];
/// The workload name of the plain copy.
pub const COPY: &str = "copy (no encryption)";

/// One measured case.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Row {
    /// An AEAD name, or [`COPY`].
    pub workload: String,
    /// The `--cpu-limit` percentage, if any.
    pub cpu_limit: Option<f64>,
    /// Bytes of the source.
    pub bytes: u64,
    /// Median speed, 10^6 bytes per second.
    pub mb_s: f64,
    /// Slowest run.
    pub mb_s_min: f64,
    /// Fastest run.
    pub mb_s_max: f64,
    /// CPU time over wall time of the median run, in percent of the whole machine (all cores).
    pub machine_cpu_percent: f64,
    /// CPU-seconds per 10^9 bytes of the median run.
    pub cpu_s_per_gb: f64,
}

/// Bytes of the source and timed runs per case.
fn plan(scale: Scale) -> (u64, usize) {
    match scale {
        Scale::Full => (256 << 20, 3),
        Scale::Quick => (32 << 20, 1),
        Scale::Tiny => (256 << 10, 1),
    }
}

fn io_err(what: String) -> impl FnOnce(std::io::Error) -> StudyError {
    move |source| StudyError::Io { what, source }
}

/// The scratch files: the source, the key and the image.
struct Scratch {
    dir: PathBuf,
    source: PathBuf,
    key: PathBuf,
    image: PathBuf,
}

impl Scratch {
    fn create(cfg: &Config, bytes: u64) -> Result<Scratch, StudyError> {
        let dir = cfg.out.join(".dump-scratch");
        super::create_dir(&dir)?;
        let scratch = Scratch {
            source: dir.join("source.img"),
            key: dir.join("key"),
            image: dir.join("image.shifr"),
            dir,
        };
        std::fs::write(&scratch.key, super::bench_key(32, 40))
            .map_err(io_err(format!("write {}", scratch.key.display())))?;
        // Random-looking bytes from a xorshift generator: the content does not change the speed, but
        // a source of zeros could be special-cased by a file system.
        let mut file = std::fs::File::create(&scratch.source)
            .map_err(io_err(format!("create {}", scratch.source.display())))?;
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut block = vec![0u8; 1 << 20];
        let mut left = bytes;
        while left > 0 {
            for word in block.chunks_exact_mut(8) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                word.copy_from_slice(&state.to_le_bytes());
            }
            let n = left.min(block.len() as u64) as usize;
            file.write_all(&block[..n])
                .map_err(io_err(format!("write {}", scratch.source.display())))?;
            left -= n as u64;
        }
        file.sync_all()
            .map_err(io_err(format!("fsync {}", scratch.source.display())))?;
        Ok(scratch)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // Scratch only: a failure leaves files in the study's own output directory.
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// One timed run: (seconds, CPU seconds).
type Run = (f64, f64);

/// Runs `shifr dump` once.
fn dump_once(
    exe: &Path,
    s: &Scratch,
    aead: &str,
    limit: Option<f64>,
    threads: usize,
) -> Result<Run, StudyError> {
    let mut cmd = Command::new(exe);
    cmd.arg("dump")
        .arg(&s.source)
        .arg(&s.image)
        .args([
            "-a",
            aead,
            "--force",
            "-q",
            "--threads",
            &threads.to_string(),
        ])
        .arg("--key-file")
        .arg(&s.key)
        .env_remove("SHIFR_PASSPHRASE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if let Some(pct) = limit {
        cmd.args(["--cpu-limit", &pct.to_string()]);
    }
    let fail = |why: String| StudyError::Child {
        backend: "default",
        why: format!("shifr dump -a {aead}: {why}"),
    };
    let cpu_before = shifr_bench::rusage::children_cpu_seconds();
    let start = Instant::now();
    let out = cmd
        .output()
        .map_err(|e| fail(format!("cannot start {}: {e}", exe.display())))?;
    let wall = start.elapsed().as_secs_f64();
    let cpu = shifr_bench::rusage::children_cpu_seconds() - cpu_before;
    if !out.status.success() {
        return Err(fail(
            String::from_utf8_lossy(&out.stderr).trim().to_string(),
        ));
    }
    Ok((wall, cpu))
}

/// Copies the source to the image path without cryptography, as `shifr dump` would read and write it.
fn copy_once(s: &Scratch) -> Result<Run, StudyError> {
    let cpu_before = shifr_bench::rusage::process_cpu_seconds();
    let start = Instant::now();
    let mut input =
        std::fs::File::open(&s.source).map_err(io_err(format!("open {}", s.source.display())))?;
    let what = format!("write {}", s.image.display());
    let mut output = std::fs::File::create(&s.image).map_err(io_err(what.clone()))?;
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = input
            .read(&mut buf)
            .map_err(io_err(format!("read {}", s.source.display())))?;
        if n == 0 {
            break;
        }
        output.write_all(&buf[..n]).map_err(io_err(what.clone()))?;
    }
    output.sync_all().map_err(io_err(what))?;
    let wall = start.elapsed().as_secs_f64();
    Ok((
        wall,
        shifr_bench::rusage::process_cpu_seconds() - cpu_before,
    ))
}

/// The row of `runs` timed runs of `bytes` each (the median run by speed).
fn row(workload: &str, cpu_limit: Option<f64>, bytes: u64, runs: &[Run]) -> Row {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    let mut by_speed: Vec<(f64, f64, f64)> = runs
        .iter()
        .map(|&(wall, cpu)| (bytes as f64 / wall.max(1e-9) / 1e6, wall, cpu))
        .collect();
    by_speed.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (mb_s, wall, cpu) = by_speed[by_speed.len() / 2];
    Row {
        workload: workload.to_string(),
        cpu_limit,
        bytes,
        mb_s,
        mb_s_min: by_speed[0].0,
        mb_s_max: by_speed[by_speed.len() - 1].0,
        machine_cpu_percent: 100.0 * cpu / wall.max(1e-9) / cores,
        cpu_s_per_gb: cpu / (bytes as f64 / 1e9),
    }
}

/// Measures the plain copy and every AEAD with and without the 15 % limit; the cases are interleaved
/// run by run, so that a change in the machine's load spreads over all of them.
pub fn measure(cfg: &Config) -> Result<Vec<Row>, StudyError> {
    let exe = cfg.exe.clone().ok_or_else(|| StudyError::Child {
        backend: "default",
        why: "the dump study runs `shifr dump`, but no shifr binary was given".into(),
    })?;
    let (bytes, runs) = plan(cfg.scale);
    let scratch = Scratch::create(cfg, bytes)?;
    let limits = [Some(seed::CPU_LIMIT_PERCENT), None];
    let mut progress = super::progress::Progress::new("dump", runs, cfg.progress);
    let mut copy_runs = Vec::new();
    let mut dump_runs = vec![Vec::new(); AEADS.len() * limits.len()];
    for r in 0..runs {
        progress.step(&format!("run {} of {runs}", r + 1));
        copy_runs.push(copy_once(&scratch)?);
        for (i, aead) in AEADS.iter().enumerate() {
            for (j, limit) in limits.iter().enumerate() {
                let run = dump_once(&exe, &scratch, aead, *limit, cfg.max_threads)?;
                dump_runs[i * limits.len() + j].push(run);
            }
        }
    }
    progress.finish();
    let mut rows = vec![row(COPY, None, bytes, &copy_runs)];
    for (i, aead) in AEADS.iter().enumerate() {
        for (j, limit) in limits.iter().enumerate() {
            rows.push(row(aead, *limit, bytes, &dump_runs[i * limits.len() + j]));
        }
    }
    Ok(rows)
}

/// Runs the study and writes the report.
pub fn run(cfg: &Config) -> Result<StudyOutcome, StudyError> {
    let rows = measure(cfg)?;
    let verdicts = verdicts(&rows);
    write_report(cfg, &rows, &verdicts)
}

fn limited<'a>(rows: &'a [Row], aead: &str) -> Option<&'a Row> {
    rows.iter()
        .find(|r| r.workload == aead && r.cpu_limit.is_some())
}

fn find_unlimited<'a>(rows: &'a [Row], workload: &str) -> Option<&'a Row> {
    rows.iter()
        .find(|r| r.workload == workload && r.cpu_limit.is_none())
}

/// The seed's claims checked against the rows.
pub fn verdicts(rows: &[Row]) -> Vec<Verdict> {
    let mut out = Vec::new();
    let seed_low = seed::DUMPS[0].mb_s;
    let limited_rows: Vec<&Row> = AEADS.iter().filter_map(|a| limited(rows, a)).collect();
    let fast = limited_rows.iter().filter(|r| r.mb_s >= seed_low).count();
    let listing = limited_rows
        .iter()
        .map(|r| format!("{} {:.0} MB/s", r.workload, r.mb_s))
        .collect::<Vec<_>>()
        .join(", ");
    out.push(Verdict::new(
        format!(
            "An encrypted dump held to {} % of the CPU runs at {:.0}–{:.0} MB/s",
            seed::CPU_LIMIT_PERCENT,
            seed::DUMPS[0].mb_s,
            seed::DUMPS[1].mb_s
        ),
        Outcome::from_count(fast, limited_rows.len()),
        format!(
            "At --cpu-limit {}: {listing}. Counted as agreeing when an AEAD reaches the seed's lower \
             figure, {seed_low:.0} MB/s. 15 % of this machine is {:.2} of a core; the seed's 15 % was \
             1.2 logical CPUs of 8.",
            seed::CPU_LIMIT_PERCENT,
            seed::CPU_LIMIT_PERCENT / 100.0
                * std::thread::available_parallelism().map_or(1, |n| n.get()) as f64
        ),
    ));
    let within = limited_rows
        .iter()
        .filter(|r| r.machine_cpu_percent <= seed::CPU_LIMIT_PERCENT + 2.0)
        .count();
    out.push(Verdict::new(
        format!(
            "The dump stays within {} % of the machine's CPU",
            seed::CPU_LIMIT_PERCENT
        ),
        Outcome::from_count(within, limited_rows.len()),
        format!(
            "CPU time over wall time of each limited dump, in % of all cores: {}. Counted as agreeing \
             within 2 points. A short run includes the limiter's 100 ms burst and the key derivation.",
            limited_rows
                .iter()
                .map(|r| format!("{} {:.1} %", r.workload, r.machine_cpu_percent))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ));
    let copy = find_unlimited(rows, COPY).map_or(0.0, |r| r.cpu_s_per_gb);
    let seed_cost = seed::crypto_cpu_seconds_per_gb();
    let costs: Vec<(String, f64)> = AEADS
        .iter()
        .filter_map(|a| find_unlimited(rows, a))
        .map(|r| (r.workload.clone(), (r.cpu_s_per_gb - copy).max(0.0)))
        .collect();
    let cheaper = costs.iter().filter(|(_, c)| *c <= seed_cost).count();
    out.push(Verdict::new(
        format!(
            "The cryptography costs {} % of the CPU at {:.0} MB/s ({seed_cost:.2} CPU-seconds per GB on the \
             seed's 8 logical CPUs)",
            seed::CRYPTO_CPU_PERCENT_AT_190,
            seed::DUMPS[0].mb_s
        ),
        Outcome::from_count(cheaper, costs.len()),
        format!(
            "CPU-seconds per GB of the unlimited dump minus the plain copy's ({copy:.2}): {}. Counted as \
             agreeing when an AEAD costs no more than the seed's GOST 28147-89; a CPU-second of this \
             machine and of the seed's 2.6 GHz Skylake are not the same amount of work.",
            costs
                .iter()
                .map(|(a, c)| format!("{a} {c:.2}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ));
    out
}

const CSV_HEADER: [&str; 9] = [
    "source",
    "workload",
    "cpu_limit_percent",
    "bytes",
    "mb_s",
    "mb_s_min",
    "mb_s_max",
    "machine_cpu_percent",
    "cpu_s_per_gb",
];

fn limit_text(limit: Option<f64>) -> String {
    limit.map_or("none (all cores)".into(), |p| format!("{p} %"))
}

fn write_report(
    cfg: &Config,
    rows: &[Row],
    verdicts: &[Verdict],
) -> Result<StudyOutcome, StudyError> {
    let (bytes, runs) = plan(cfg.scale);
    let mut md = Markdown::new();
    super::header(
        &mut md,
        Study::Dump,
        "Encrypted disk dumps at a 15 % CPU limit (seed 004) on this machine",
        cfg,
    );
    md.para(&format!(
        "Method (seed): FastSecurityBoxs / ProjectFK dumping an SSD to a file on another SSD with \
         multi-stream GOST 28147-89, the program held to about 15 % of the CPU ({}). Here: `shifr dump \
         SOURCE IMAGE --cpu-limit 15 -a AEAD` run as a child process for each AEAD of the container, \
         and the same without a limit on {} thread(s); the source is {} MiB of random bytes in the page \
         cache, the image is fsynced on the output directory's file system; speed = source bytes / \
         child wall time, CPU = the child's user + system time; median of {runs} interleaved run(s). \
         The plain copy (read, write, fsync; no cryptography) is this process.",
        seed::PLATFORM,
        cfg.max_threads,
        bytes >> 20
    ));
    md.heading(2, "Verdict");
    md.para(&format!("Seed's conclusion: {}", seed::CONCLUSION));
    super::verdict::write(&mut md, verdicts);
    md.heading(2, "The seed's figures");
    let mut seed_rows = vec![vec![
        "plain copy".to_string(),
        "-".into(),
        format!("{:.0}", seed::COPY_MB_S),
        format!("{:.1}", seed::COPY_CPU_PERCENT),
    ]];
    seed_rows.extend(seed::DUMPS.iter().map(|d| {
        vec![
            format!("GOST 28147-89, {} streams", d.streams),
            format!("{} %", seed::CPU_LIMIT_PERCENT),
            format!("{:.0}", d.mb_s),
            format!("{:.1}", d.cpu_percent),
        ]
    }));
    md.table(
        &["seed case", "CPU limit", "MB/s", "CPU % of machine"],
        &seed_rows,
    );
    md.heading(2, "This machine");
    let ours: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.workload.clone(),
                limit_text(r.cpu_limit),
                format!("{:.1}", r.mb_s),
                format!("{:.1}–{:.1}", r.mb_s_min, r.mb_s_max),
                format!("{:.1}", r.machine_cpu_percent),
                format!("{:.2}", r.cpu_s_per_gb),
            ]
        })
        .collect();
    md.table(
        &[
            "workload",
            "CPU limit",
            "MB/s",
            "min–max",
            "CPU % of machine",
            "CPU-s per GB",
        ],
        &ours,
    );

    let mut files = vec![cfg.out.join("report.md")];
    let mut csv = Csv::new(&CSV_HEADER);
    csv.row(vec![
        "seed004".into(),
        "plain copy".into(),
        String::new(),
        String::new(),
        csv::num(seed::COPY_MB_S),
        String::new(),
        String::new(),
        csv::num(seed::COPY_CPU_PERCENT),
        String::new(),
    ]);
    for d in &seed::DUMPS {
        csv.row(vec![
            "seed004".into(),
            format!("GOST 28147-89, {} streams", d.streams),
            csv::num(seed::CPU_LIMIT_PERCENT),
            String::new(),
            csv::num(d.mb_s),
            String::new(),
            String::new(),
            csv::num(d.cpu_percent),
            String::new(),
        ]);
    }
    for r in rows {
        csv.row(vec![
            "this machine".into(),
            r.workload.clone(),
            csv::opt(r.cpu_limit),
            r.bytes.to_string(),
            csv::num(r.mb_s),
            csv::num(r.mb_s_min),
            csv::num(r.mb_s_max),
            csv::num(r.machine_cpu_percent),
            csv::num(r.cpu_s_per_gb),
        ]);
    }
    let path = cfg.out.join("dump.csv");
    csv.write(&path)
        .map_err(io_err(format!("write {}", path.display())))?;
    files.push(path);

    md.heading(2, "Charts");
    let mut categories: Vec<String> = seed::DUMPS
        .iter()
        .map(|d| format!("seed GOST x{}", d.streams))
        .collect();
    let mut speed: Vec<(f64, f64)> = seed::DUMPS
        .iter()
        .enumerate()
        .map(|(i, d)| (i as f64, d.mb_s))
        .collect();
    let mut cpu: Vec<(f64, f64)> = seed::DUMPS
        .iter()
        .enumerate()
        .map(|(i, d)| (i as f64, d.cpu_percent))
        .collect();
    for aead in AEADS {
        if let Some(r) = limited(rows, aead) {
            speed.push((categories.len() as f64, r.mb_s));
            cpu.push((categories.len() as f64, r.machine_cpu_percent));
            categories.push(aead.to_string());
        }
    }
    let speed_chart = chart::Chart {
        title: format!(
            "Encrypted dump at --cpu-limit {} %: MB/s (seed: GOST 28147-89; plain copy {:.0} MB/s)",
            seed::CPU_LIMIT_PERCENT,
            seed::COPY_MB_S
        ),
        x_label: "implementation".into(),
        y_label: "MB/s".into(),
        kind: chart::Kind::Bars,
        categories: categories.clone(),
        series: vec![chart::Series {
            name: "MB/s".into(),
            points: speed,
        }],
    };
    files.push(super::png(cfg, "dump-speed.png", &speed_chart)?);
    md.image("MB/s at the 15 % limit", "dump-speed.png");
    let cpu_chart = chart::Chart {
        title: format!(
            "CPU % of the whole machine during the dump (limit {} %)",
            seed::CPU_LIMIT_PERCENT
        ),
        x_label: "implementation".into(),
        y_label: "CPU % of machine".into(),
        kind: chart::Kind::Bars,
        categories,
        series: vec![chart::Series {
            name: "CPU %".into(),
            points: cpu,
        }],
    };
    files.push(super::png(cfg, "dump-cpu.png", &cpu_chart)?);
    md.image("CPU % at the 15 % limit", "dump-cpu.png");
    super::write(&files[0], md.finish())?;
    Ok(StudyOutcome {
        files,
        verdicts: verdicts.to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(workload: &str, cpu_limit: Option<f64>, mb_s: f64, cpu: f64, per_gb: f64) -> Row {
        Row {
            workload: workload.into(),
            cpu_limit,
            bytes: 1 << 20,
            mb_s,
            mb_s_min: mb_s,
            mb_s_max: mb_s,
            machine_cpu_percent: cpu,
            cpu_s_per_gb: per_gb,
        }
    }

    #[test]
    fn median_run_and_machine_share() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
        // 1 MB in 1 s, 2 s and 4 s; the median run is the 2-second one with 0.5 CPU-seconds.
        let row = row("x", None, 1_000_000, &[(1.0, 0.1), (4.0, 0.2), (2.0, 0.5)]);
        assert_eq!(row.mb_s, 0.5);
        assert_eq!((row.mb_s_min, row.mb_s_max), (0.25, 1.0));
        assert!((row.machine_cpu_percent - 25.0 / cores).abs() < 1e-9);
        assert!((row.cpu_s_per_gb - 500.0).abs() < 1e-9);
    }

    #[test]
    fn verdicts_follow_the_numbers() {
        let mut rows = vec![r(COPY, None, 900.0, 20.0, 0.5)];
        for a in AEADS {
            rows.push(r(a, Some(15.0), 250.0, 14.0, 1.0));
            rows.push(r(a, None, 1500.0, 90.0, 1.5));
        }
        let v = verdicts(&rows);
        assert_eq!(v.len(), 3);
        assert!(v.iter().all(|v| v.outcome == Outcome::Holds), "{v:?}");
        rows.iter_mut()
            .filter(|r| r.workload == "magma-mgm")
            .for_each(|r| {
                r.mb_s = 20.0;
                r.machine_cpu_percent = 30.0;
                r.cpu_s_per_gb = 20.0;
            });
        let v = verdicts(&rows);
        assert!(v.iter().all(|v| v.outcome == Outcome::Partly), "{v:?}");
    }
}
