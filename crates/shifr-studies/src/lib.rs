//! shifr-studies: `shifr study NAME --out DIR`, the seed studies reproduced on this machine. Each study writes
//! `report.md`, CSV files and PNG charts into DIR, putting the seed's own table or figure next to this
//! machine's numbers, and checks the seed's conclusion: holds, partly holds or does not hold here, and
//! why.
//!
//! Backends: a study measures in-process with the backend selection of this process (`SHIFR_BACKEND`
//! honoured). Where a study needs another backend that can only be chosen per process (ChaCha20 has no
//! explicit backend constructor), it runs the `shifr` binary ([`Config::exe`]) again as a child with
//! `SHIFR_BACKEND=NAME ... --part`, which measures and writes its rows as JSON (`part.json`) instead of a
//! report.
//!
//! The crate holds what writes the reports and judges the seeds' claims: one module per study, the
//! seeds' transcribed tables ([`seeds`]), the verdicts ([`verdict`]), the `files` corpus
//! ([`corpus`]) and progress lines ([`progress`]). Measuring is shifr-bench's: timed runs of one
//! piece of work ([`shifr_bench::measure`]), CPU time and energy; the charts, CSV files and
//! Markdown go through shifr-bench's report writers ([`shifr_bench::report`]), the same that
//! `shifr bench` and `shifr report merge` use.

pub mod corpus;
pub mod dump;
pub mod files;
pub mod gost_streams;
pub mod kuznyechik_platforms;
pub mod progress;
pub mod seeds;
pub mod tls_table;
pub mod verdict;

use serde::de::DeserializeOwned;
use serde::Serialize;
use shifr::cpu::Backend;
use shifr_bench::machine::{cpu_model, supported_backends};
use shifr_bench::measure;
use shifr_bench::report::{chart, markdown};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The studies, by command-line name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Study {
    /// Seed 000: ChaCha20 vs AES in TLS, with and without hardware AES.
    TlsTable,
    /// Seed 002: AES, 3DES and ChaCha20 over 150 files: time, speed, CPU %, energy.
    Files,
    /// Seed 001: multi-stream GOST 28147-89 / Magma and its parallel scaling.
    GostStreams,
    /// Seed 003: Kuznyechik speed per thread and per watt, and what it costs an application.
    KuznyechikPlatforms,
    /// Seed 004: encrypted disk dumps at a 15 % CPU limit, every container AEAD.
    Dump,
}

impl Study {
    /// Every study.
    pub const ALL: [Study; 5] = [
        Study::TlsTable,
        Study::Files,
        Study::GostStreams,
        Study::KuznyechikPlatforms,
        Study::Dump,
    ];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Study::TlsTable => "tls-table",
            Study::Files => "files",
            Study::GostStreams => "gost-streams",
            Study::KuznyechikPlatforms => "kuznyechik-platforms",
            Study::Dump => "dump",
        }
    }

    /// Parses a command-line name.
    pub fn from_name(name: &str) -> Option<Study> {
        Study::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The seed file the study reproduces.
    pub fn seed(self) -> &'static str {
        match self {
            Study::TlsTable => "shared/seeds/000_d9ec41b9aceac292.txt",
            Study::Files => "shared/seeds/002_d18f77431c570e4f.txt",
            Study::GostStreams => "shared/seeds/001_c747465b755099e0.txt",
            Study::KuznyechikPlatforms => "shared/seeds/003_0dc6d17d7817f206.txt",
            Study::Dump => "shared/seeds/004_5d4680ce0bfc61aa.txt",
        }
    }
}

/// How much to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// The study as the seed ran it (minutes).
    Full,
    /// Fewer, shorter runs (tens of seconds).
    Quick,
    /// The smallest configuration that still exercises every step (tests; numbers meaningless).
    Tiny,
}

impl Scale {
    /// The flag that selects this scale on the command line (for child runs).
    pub fn flag(self) -> Option<&'static str> {
        match self {
            Scale::Full => None,
            Scale::Quick => Some("--quick"),
            Scale::Tiny => Some("--tiny"),
        }
    }

    /// Runs and run length for one measured case.
    pub fn plan(self) -> measure::Plan {
        let (runs, ms) = match self {
            Scale::Full => (5, 200),
            Scale::Quick => (3, 40),
            Scale::Tiny => (1, 1),
        };
        measure::Plan {
            runs,
            min_run: Duration::from_millis(ms),
        }
    }
}

/// What a study run needs.
#[derive(Debug, Clone)]
pub struct Config {
    /// Directory for report.md, CSV and PNG files (created if missing).
    pub out: PathBuf,
    /// How much to measure.
    pub scale: Scale,
    /// `files`: the user's own files instead of the generated corpus.
    pub corpus: Option<PathBuf>,
    /// `files`: every algorithm of the catalogue, not only the seed's five.
    pub all: bool,
    /// Most threads for the scaling studies (default: the machine's hardware threads).
    pub max_threads: usize,
    /// Backends to run in child processes besides this process's own selection (default: portable).
    pub backends: Vec<Backend>,
    /// The `shifr` binary, for child runs under another `SHIFR_BACKEND`; `None` measures in-process only.
    pub exe: Option<PathBuf>,
    /// Show progress on a terminal.
    pub progress: bool,
    /// The command line, for the report.
    pub command: String,
    /// The 1-minute load average when the study began (the report states it beside the load at
    /// the end, so a reader can tell an idle start from one that shared the CPU).
    pub load_before: Option<f64>,
}

impl Config {
    /// Defaults for `out`: full scale, generated corpus, the seed's algorithms, all hardware threads,
    /// the portable backend as the extra child run, no child binary, progress on.
    pub fn new(out: impl Into<PathBuf>) -> Config {
        Config {
            out: out.into(),
            scale: Scale::Full,
            corpus: None,
            all: false,
            max_threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            backends: vec![Backend::Portable],
            exe: None,
            progress: true,
            command: String::new(),
            load_before: verdict::load_average(),
        }
    }
}

/// A study failure: one line for the user.
#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    /// Reading or writing a file failed.
    #[error("{what}: {source}")]
    Io {
        /// The file and the operation.
        what: String,
        /// The cause.
        source: std::io::Error,
    },
    /// A chart could not be drawn.
    #[error("{0}")]
    Chart(String),
    /// A child measurement run failed.
    #[error("child run under SHIFR_BACKEND={backend}: {why}")]
    Child {
        /// The backend the child was asked to use.
        backend: &'static str,
        /// What went wrong.
        why: String,
    },
    /// A cipher call failed (a bug: the studies use valid keys and lengths).
    #[error("cipher: {0}")]
    Cipher(#[from] shifr::Error),
}

/// What a finished study wrote.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Every file written, report.md first.
    pub files: Vec<PathBuf>,
    /// The checked claims.
    pub verdicts: Vec<verdict::Verdict>,
}

/// Runs a study and writes its report.
pub fn run(study: Study, cfg: &Config) -> Result<Outcome, StudyError> {
    create_dir(&cfg.out)?;
    measure::reset_busy();
    match study {
        Study::TlsTable => tls_table::run(cfg),
        Study::Files => files::run(cfg),
        Study::GostStreams => gost_streams::run(cfg),
        Study::KuznyechikPlatforms => kuznyechik_platforms::run(cfg),
        Study::Dump => dump::run(cfg),
    }
}

/// The child side of a multi-backend study: measures with this process's backends and writes the
/// rows to `cfg.out/part.json`.
pub fn run_part(study: Study, cfg: &Config) -> Result<(), StudyError> {
    create_dir(&cfg.out)?;
    measure::reset_busy();
    let json = match study {
        Study::TlsTable => to_json(&tls_table::measure(cfg, tls_table::Half::for_child())?),
        Study::Files => to_json(&files::measure(cfg)?),
        Study::GostStreams => to_json(&gost_streams::measure(cfg)?),
        Study::KuznyechikPlatforms => to_json(&kuznyechik_platforms::measure(cfg)?),
        Study::Dump => to_json(&dump::measure(cfg)?),
    };
    write(&cfg.out.join("part.json"), &json)?;
    // The child's contended cases, for the parent's verdicts: the lowest CPU share of each.
    let shares: Vec<f64> =
        measure::busy().map_or_else(Vec::new, |b| vec![b.min_share; b.contended]);
    write(&cfg.out.join(BUSY_FILE), &to_json(&shares))
}

/// The file a child run lists its contended cases in (see [`run_part`]).
const BUSY_FILE: &str = "busy.json";

fn to_json<T: Serialize>(rows: &T) -> String {
    // Serialising plain structs of numbers and strings cannot fail.
    serde_json::to_string(rows).unwrap_or_default()
}

/// Runs `cfg.exe study NAME --part` under `SHIFR_BACKEND=backend` and reads its rows.
pub(crate) fn child_rows<T: DeserializeOwned>(
    study: Study,
    cfg: &Config,
    backend: Backend,
) -> Result<Option<T>, StudyError> {
    let Some(exe) = &cfg.exe else {
        return Ok(None);
    };
    let fail = |why: String| StudyError::Child {
        backend: backend.name(),
        why,
    };
    let dir = cfg.out.join(format!(".part-{}", backend.name()));
    let mut cmd = Command::new(exe);
    cmd.args(["study", study.name(), "--part", "--out"])
        .arg(&dir)
        .args(["--threads", &cfg.max_threads.to_string()])
        .env("SHIFR_BACKEND", backend.name());
    if let Some(flag) = cfg.scale.flag() {
        cmd.arg(flag);
    }
    if let Some(corpus) = &cfg.corpus {
        cmd.arg("--corpus").arg(corpus);
    }
    if cfg.all {
        cmd.arg("--all");
    }
    let out = cmd
        .output()
        .map_err(|e| fail(format!("cannot start {}: {e}", exe.display())))?;
    if !out.status.success() {
        return Err(fail(
            String::from_utf8_lossy(&out.stderr).trim().to_string(),
        ));
    }
    let path = dir.join("part.json");
    let text =
        std::fs::read_to_string(&path).map_err(|e| fail(format!("{}: {e}", path.display())))?;
    let rows = serde_json::from_str(&text).map_err(|e| fail(format!("{}: {e}", path.display())))?;
    // A child that measured on a busy machine makes this run's verdicts wait too.
    let busy = dir.join(BUSY_FILE);
    let text =
        std::fs::read_to_string(&busy).map_err(|e| fail(format!("{}: {e}", busy.display())))?;
    let shares: Vec<f64> =
        serde_json::from_str(&text).map_err(|e| fail(format!("{}: {e}", busy.display())))?;
    for share in shares {
        measure::note_contended(share);
    }
    // The part directory is scratch; a failure to remove it leaves only a small file behind.
    let _ = std::fs::remove_dir_all(&dir);
    Ok(Some(rows))
}

pub(crate) fn create_dir(dir: &Path) -> Result<(), StudyError> {
    std::fs::create_dir_all(dir).map_err(|source| StudyError::Io {
        what: format!("create {}", dir.display()),
        source,
    })
}

pub(crate) fn write(path: &Path, text: &str) -> Result<(), StudyError> {
    std::fs::write(path, text).map_err(|source| StudyError::Io {
        what: format!("write {}", path.display()),
        source,
    })
}

/// Writes a chart as PNG into the study directory and returns its path.
pub(crate) fn png(cfg: &Config, file: &str, chart: &chart::Chart) -> Result<PathBuf, StudyError> {
    let path = cfg.out.join(file);
    chart::write_png(chart, &path, (900, 540)).map_err(StudyError::Chart)?;
    Ok(path)
}

/// The report's header: title, seed, date, command, machine.
pub(crate) fn header(md: &mut markdown::Markdown, study: Study, title: &str, cfg: &Config) {
    md.heading(1, title);
    let cpu = cpu_model();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    md.para(&format!(
        "Seed: `{}`. Generated {} by `{}` (scale: {:?}).\n\nMachine: {cpu}, {threads} hardware \
         thread(s); CPU features used by shifr: {}. Energy: {}. {}",
        study.seed(),
        utc_now(),
        if cfg.command.is_empty() {
            "shifr study"
        } else {
            &cfg.command
        },
        cfg.scale,
        supported_backends(),
        measure::energy_status(),
        load_note(threads, cfg.load_before),
    ));
}

/// The system load around the study: the 1-minute average when it began and the 1-, 5- and
/// 15-minute averages at the end (which count the study's own working threads), judged against
/// the rule for publishable figures: below 0.5 per hardware thread before the run.
pub fn load_note(threads: usize, before: Option<f64>) -> String {
    let Ok(text) = std::fs::read_to_string("/proc/loadavg") else {
        return "Load average: not readable here (no /proc/loadavg).".into();
    };
    let fields: Vec<f64> = text
        .split_whitespace()
        .take(3)
        .filter_map(|f| f.parse().ok())
        .collect();
    let [one, five, fifteen] = fields[..] else {
        return "Load average: /proc/loadavg could not be parsed.".into();
    };
    let limit = 0.5 * threads as f64;
    let start = match before {
        Some(b) if b < limit => format!(
            "{b:.2} (1 min) when the run began, below 0.5 per hardware thread: an idle machine"
        ),
        Some(b) => format!(
            "{b:.2} (1 min) when the run began, at or above 0.5 per hardware thread: other work \
             shared the CPU, so take the figures as a record of this run, not of this machine"
        ),
        None => "not read when the run began".into(),
    };
    format!(
        "Load average: {start}; {one:.2} (1 min), {five:.2} (5 min), {fifteen:.2} (15 min) at the \
         end, which includes the run's own working threads (up to {threads} here)."
    )
}

/// The current UTC date and time, `YYYY-MM-DD HH:MM UTC` (civil-from-days, no time-zone database).
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

/// A fixed, non-secret key of `len` bytes for measurements (its value does not affect the timings).
pub(crate) fn bench_key(len: usize, salt: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(salt))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in Study::ALL {
            assert_eq!(Study::from_name(s.name()), Some(s));
        }
        assert_eq!(Study::from_name("nope"), None);
    }

    #[test]
    fn utc_date_is_well_formed() {
        let d = utc_now();
        assert_eq!(d.len(), "2026-01-01 00:00 UTC".len(), "{d}");
        assert!(d.starts_with("20") && d.ends_with(" UTC"));
    }
}
