//! `kuznyechik-platforms` (seed 003): Kuznyechik MB/s, MB/s per thread and, where energy is readable,
//! MB/s per watt, next to the seed's table of ARM / x86 platforms; and "what it costs your
//! application": for each application rate the seed lists, the share of one core each cipher needs
//! here.
//!
//! Every cipher encrypts 1 MiB buffers (ECB for the block ciphers, which is what the seed's
//! table-driven C code measured; ChaCha20 as a stream) on 1..N threads, each thread its own buffer.

use super::seeds::seed003_kuznyechik as seed;
use super::verdict::{Outcome, Verdict};
use super::{Config, Outcome as StudyOutcome, Scale, Study, StudyError};
use serde::{Deserialize, Serialize};
use shifr::cpu;
use shifr::hazmat::block::aes::Aes;
use shifr::hazmat::block::kuznyechik::Kuznyechik;
use shifr::hazmat::block::magma::Magma;
use shifr::hazmat::stream::chacha20::ChaCha20;
use shifr_bench::measure;
use shifr_bench::report::chart;
use shifr_bench::report::csv::{self, Csv};
use shifr_bench::report::markdown::{num, Markdown};

/// One measured (cipher, thread count).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Row {
    /// Cipher name.
    pub cipher: String,
    /// Which process selection ran it: `default` or `SHIFR_BACKEND=NAME`.
    pub run: String,
    /// Implementation that ran, where the library reports it.
    pub implementation: String,
    /// Threads.
    pub threads: usize,
    /// Total MB/s.
    pub mb_s: f64,
    /// MB/s per thread.
    pub mb_s_per_thread: f64,
    /// Process CPU %.
    pub cpu_percent: f64,
    /// Mean package power while measuring, W (RAPL), where readable.
    pub watts: Option<f64>,
}

impl Row {
    /// MB/s per watt, where energy is readable.
    pub fn mb_s_per_watt(&self) -> Option<f64> {
        self.watts.filter(|w| *w > 0.0).map(|w| self.mb_s / w)
    }
}

/// The ciphers of the cost table: Kuznyechik first.
pub const CIPHERS: [&str; 4] = ["kuznyechik", "magma", "aes-256", "chacha20"];

fn buffer_bytes(scale: Scale) -> usize {
    if scale == Scale::Tiny {
        4096
    } else {
        1 << 20
    }
}

fn thread_counts(cfg: &Config) -> Vec<usize> {
    if cfg.scale == Scale::Tiny {
        return vec![1, cfg.max_threads.clamp(1, 2)];
    }
    (1..=cfg.max_threads.max(1)).collect()
}

/// Measures every cipher on 1..N threads with this process's backend selection.
pub fn measure(cfg: &Config) -> Result<Vec<Row>, StudyError> {
    let run = match cpu::forced() {
        Some(b) => format!("SHIFR_BACKEND={}", b.name()),
        None => "default".to_string(),
    };
    let bytes = buffer_bytes(cfg.scale);
    let plan = cfg.scale.plan();
    let key = super::bench_key(32, 5);
    let kuz = Kuznyechik::new(&key)?;
    let magma = Magma::new(&key)?;
    let aes = Aes::new(&key)?;
    let chacha_impl = ChaCha20::new(&key, &[0u8; 12], 0)?.implementation();
    let mut rows = Vec::new();
    for threads in thread_counts(cfg) {
        for cipher in CIPHERS {
            let (implementation, s) = match cipher {
                "kuznyechik" => (
                    kuz.backend().name().to_string(),
                    measure::encrypt_in_place(&plan, threads, bytes, &kuz),
                ),
                "magma" => (
                    magma.backend().name().to_string(),
                    measure::encrypt_in_place(&plan, threads, bytes, &magma),
                ),
                "aes-256" => (
                    aes.backend().name().to_string(),
                    measure::encrypt_in_place(&plan, threads, bytes, &aes),
                ),
                _ => {
                    let s = measure::measure_threads(&plan, threads, bytes, |_| {
                        let mut buf = vec![0u8; bytes];
                        let key = key.clone();
                        move || {
                            if let Ok(mut c) = ChaCha20::new(&key, &[0u8; 12], 0) {
                                let _ = c.apply_keystream(&mut buf);
                            }
                            std::hint::black_box(&buf);
                        }
                    });
                    (chacha_impl.to_string(), s)
                }
            };
            rows.push(Row {
                cipher: cipher.to_string(),
                run: run.clone(),
                implementation,
                threads,
                mb_s: s.mb_s,
                mb_s_per_thread: s.mb_s / threads as f64,
                cpu_percent: s.cpu_percent,
                watts: s.watts,
            });
        }
    }
    Ok(rows)
}

/// Runs the study and writes the report.
pub fn run(cfg: &Config) -> Result<StudyOutcome, StudyError> {
    let mut progress = super::progress::Progress::new(
        "kuznyechik-platforms",
        1 + cfg.backends.len(),
        cfg.progress,
    );
    progress.step("default backends");
    let mut rows = measure(cfg)?;
    for &b in &cfg.backends {
        progress.step(&format!("SHIFR_BACKEND={}", b.name()));
        if let Some(more) = super::child_rows::<Vec<Row>>(Study::KuznyechikPlatforms, cfg, b)? {
            rows.extend(more);
        }
    }
    progress.finish();
    let verdicts = super::verdict::judged(verdicts(&rows));
    write_report(cfg, &rows, &verdicts)
}

fn single(rows: &[Row], cipher: &str, run: &str) -> Option<f64> {
    rows.iter()
        .find(|r| r.cipher == cipher && r.run == run && r.threads == 1)
        .map(|r| r.mb_s)
}

/// Share of one core, in percent, that `rate` MB/s needs from a cipher doing `single_thread` MB/s.
pub fn core_share(rate: f64, single_thread: f64) -> f64 {
    100.0 * rate / single_thread
}

/// The seed's claims checked against the rows.
pub fn verdicts(rows: &[Row]) -> Vec<Verdict> {
    let mut out = Vec::new();
    let kuz1 = single(rows, "kuznyechik", "default").unwrap_or(f64::NAN);
    let kuz_backend = rows
        .iter()
        .find(|r| r.cipher == "kuznyechik" && r.run == "default" && r.threads == 1)
        .map_or("?", |r| r.implementation.as_str());
    let intel: Vec<&seed::Platform> = seed::TABLE
        .iter()
        .filter(|p| p.name.starts_with("Intel"))
        .collect();
    let (lo, hi) = intel.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), p| {
        (lo.min(p.mb_s_per_thread), hi.max(p.mb_s_per_thread))
    });
    let within = kuz1 >= lo / 2.0 && kuz1 <= hi * 2.0;
    out.push(Verdict::new(
        format!("Kuznyechik on a desktop or server x86 core runs at {lo:.2}–{hi:.2} MB/s per thread"),
        if within { Outcome::Holds } else { Outcome::DoesNotHold },
        format!(
            "Here one thread does {kuz1:.1} MB/s ({:.1}× the seed's best x86 figure) on shifr's \
             `{kuz_backend}` backend. The seed compiled generic C without optimisation (nettle / \
             GostCrypt sources, -O3); shifr's portable Kuznyechik already uses fused LS lookup tables \
             (16 table look-ups per round).",
            kuz1 / hi
        ),
    ));
    let best_iot = seed::TABLE
        .iter()
        .filter(|p| !p.name.starts_with("Intel"))
        .filter_map(|p| p.mb_s_per_watt)
        .fold(0.0, f64::max);
    let best_x86 = intel
        .iter()
        .filter_map(|p| p.mb_s_per_watt)
        .fold(0.0, f64::max);
    let ours = rows
        .iter()
        .filter(|r| r.cipher == "kuznyechik" && r.run == "default")
        .filter_map(|r| r.mb_s_per_watt())
        .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))));
    let (outcome, why) = match ours {
        Some(w) => (
            Outcome::from_count(usize::from(best_iot > 2.0 * w), 1),
            format!("Here Kuznyechik does {w:.2} MB/s per W of package power (RAPL) against the seed's best IoT chip's {best_iot:.2}."),
        ),
        None => (Outcome::NotTestable, format!("No energy reading here ({}).", measure::energy_status())),
    };
    out.push(Verdict::new(
        "IoT processors can be many times more energy-efficient (MB/s per W) than server processors",
        outcome,
        format!(
            "{why} In the seed's own table the best IoT figure ({best_iot:.2} MB/s/W, Amlogic 905) is {:.1}× the best \
             x86 figure ({best_x86:.2}, Xeon E5-2697 v3) — rated power, not measured; only the Kalray Bostan \
             (26.84) is many times better.",
            best_iot / best_x86
        ),
    ));
    let heaviest = seed::APPLICATIONS
        .iter()
        .map(|a| a.mb_s)
        .fold(0.0, f64::max);
    let share = core_share(heaviest, kuz1);
    let weak: Vec<&str> = seed::TABLE
        .iter()
        .filter(|p| p.mb_s < heaviest)
        .map(|p| p.name)
        .collect();
    out.push(Verdict::new(
        "Kuznyechik is too heavy for the heaviest applications on weak (IoT) processors, not on a desktop or server core",
        if share <= 100.0 { Outcome::Holds } else { Outcome::DoesNotHold },
        format!(
            "The heaviest application ({heaviest} MB/s, 4K conferencing) needs {share:.1} % of one core of this \
             machine; in the seed's table it exceeds the whole chip on {} of {} platforms ({}).",
            weak.len(),
            seed::TABLE.len(),
            weak.join(", ")
        ),
    ));
    out
}

const CSV_HEADER: [&str; 10] = [
    "source",
    "platform",
    "cipher",
    "implementation",
    "threads",
    "mb_s",
    "mb_s_per_thread",
    "watts",
    "mb_s_per_watt",
    "cpu_percent",
];

fn write_report(
    cfg: &Config,
    rows: &[Row],
    verdicts: &[Verdict],
) -> Result<StudyOutcome, StudyError> {
    let energy = measure::energy_status();
    let mut md = Markdown::new();
    super::header(
        &mut md,
        Study::KuznyechikPlatforms,
        "Kuznyechik on many platforms (seed 003) and on this machine",
        cfg,
    );
    md.para(&format!(
        "Method (seed): generic C/C++ (nettle / GostCrypt), -O3, MB/s over all threads; power is the \
         platform's rated power. Here: shifr, {} buffers per thread, ECB for the block ciphers, the \
         median of {} runs of at least {} ms; power from RAPL where readable ({energy}).",
        if cfg.scale == Scale::Tiny { "4 KiB" } else { "1 MiB" },
        cfg.scale.plan().runs,
        cfg.scale.plan().min_run.as_millis()
    ));
    md.heading(2, "Verdict");
    md.para(&format!("Seed's conclusion: {}", seed::CONCLUSION));
    super::verdict::write(&mut md, verdicts);

    md.heading(2, "The seed's table and this machine (Kuznyechik)");
    let mut table: Vec<Vec<String>> = seed::TABLE
        .iter()
        .chain(&seed::OTHER)
        .map(|p| {
            vec![
                p.name.to_string(),
                p.threads.to_string(),
                num(p.watts, 1, "-"),
                format!("{:.2}", p.mb_s),
                format!("{:.2}", p.mb_s_per_thread),
                num(p.mb_s_per_watt, 2, "-"),
                "-".into(),
            ]
        })
        .collect();
    let kuz_ecb = shifr::catalog::lookup("kuznyechik-ecb").ok();
    for r in rows.iter().filter(|r| r.cipher == "kuznyechik") {
        // Key schedule and per-key tables one keyed instance holds on the backend that ran.
        let key_state = kuz_ecb
            .zip(shifr::cpu::Backend::from_name(&r.implementation))
            .and_then(|(alg, b)| shifr_bench::workload::state_bytes(alg, Some(b)).ok())
            .map_or("-".to_string(), |(bytes, _)| bytes.to_string());
        table.push(vec![
            format!("**this machine** ({}, {})", r.implementation, r.run),
            r.threads.to_string(),
            num(r.watts, 1, "no RAPL"),
            format!("{:.2}", r.mb_s),
            format!("{:.2}", r.mb_s_per_thread),
            num(r.mb_s_per_watt(), 2, "no RAPL"),
            key_state,
        ]);
    }
    md.table(
        &[
            "platform",
            "threads",
            "W",
            "MB/s",
            "MB/s per thread",
            "MB/s per W",
            "key state (B)",
        ],
        &table,
    );
    md.para(
        "key state: bytes of round keys and per-key tables one keyed Kuznyechik instance holds on \
         that backend (from the library; tables shared by every instance not counted; the seed gives \
         no memory figures). `shifr list --memory` lists it for every algorithm and backend, with \
         the peak RSS of a run of each algorithm alone.",
    );

    md.heading(2, "What it costs your application");
    md.para("Share of one core of this machine each cipher needs for the seed's application rates (the upper end of each range the seed gives), from its single-thread speed. Above 100 % the application needs more than one core.");
    let runs: Vec<String> = {
        let mut v: Vec<String> = rows.iter().map(|r| r.run.clone()).collect();
        v.dedup();
        v
    };
    let mut header = vec!["application".to_string(), "MB/s".to_string()];
    let mut columns = Vec::new();
    for run in &runs {
        for c in CIPHERS {
            if let Some(speed) = single(rows, c, run) {
                header.push(if run == "default" {
                    c.to_string()
                } else {
                    format!("{c} ({run})")
                });
                columns.push(speed);
            }
        }
    }
    let cost: Vec<Vec<String>> = seed::APPLICATIONS
        .iter()
        .map(|a| {
            let mut r = vec![
                a.name.to_string(),
                format!("{} (seed: {})", a.mb_s, a.seed_range),
            ];
            r.extend(
                columns
                    .iter()
                    .map(|&s| format!("{:.2} %", core_share(a.mb_s, s))),
            );
            r
        })
        .collect();
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    md.table(&header_refs, &cost);

    md.heading(2, "All measurements");
    let all: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.cipher.clone(),
                format!("{} ({})", r.implementation, r.run),
                r.threads.to_string(),
                format!("{:.1}", r.mb_s),
                format!("{:.1}", r.mb_s_per_thread),
                format!("{:.0}", r.cpu_percent),
                num(r.mb_s_per_watt(), 2, "no RAPL"),
            ]
        })
        .collect();
    md.table(
        &[
            "cipher",
            "implementation",
            "threads",
            "MB/s",
            "MB/s per thread",
            "CPU %",
            "MB/s per W",
        ],
        &all,
    );

    let mut files = vec![cfg.out.join("report.md")];
    let mut csv = Csv::new(&CSV_HEADER);
    for p in seed::TABLE.iter().chain(&seed::OTHER) {
        csv.row(vec![
            "seed003".into(),
            p.name.into(),
            "kuznyechik".into(),
            "generic C (seed)".into(),
            p.threads.to_string(),
            csv::num(p.mb_s),
            csv::num(p.mb_s_per_thread),
            csv::opt(p.watts),
            csv::opt(p.mb_s_per_watt),
            String::new(),
        ]);
    }
    for r in rows {
        csv.row(vec![
            "this machine".into(),
            shifr_bench::machine::cpu_model(),
            r.cipher.clone(),
            format!("{} ({})", r.implementation, r.run),
            r.threads.to_string(),
            csv::num(r.mb_s),
            csv::num(r.mb_s_per_thread),
            csv::opt(r.watts),
            csv::opt(r.mb_s_per_watt()),
            csv::num(r.cpu_percent),
        ]);
    }
    let path = cfg.out.join("kuznyechik-platforms.csv");
    csv.write(&path).map_err(|source| StudyError::Io {
        what: format!("write {}", path.display()),
        source,
    })?;
    files.push(path);

    md.heading(2, "Charts");
    let ours = rows
        .iter()
        .filter(|r| r.cipher == "kuznyechik" && r.run == "default")
        .max_by(|a, b| a.mb_s.total_cmp(&b.mb_s));
    let mut categories: Vec<String> = seed::TABLE
        .iter()
        .map(|p| {
            p.name
                .replace("Samsung ", "")
                .replace("Allwinner ", "AW ")
                .replace("Broadcom ", "")
        })
        .collect();
    categories.push("this machine".into());
    let mut per_thread: Vec<(f64, f64)> = seed::TABLE
        .iter()
        .enumerate()
        .map(|(i, p)| (i as f64, p.mb_s_per_thread))
        .collect();
    per_thread.push((
        seed::TABLE.len() as f64,
        ours.map_or(f64::NAN, |r| r.mb_s_per_thread),
    ));
    let mut per_watt: Vec<(f64, f64)> = seed::TABLE
        .iter()
        .enumerate()
        .map(|(i, p)| (i as f64, p.mb_s_per_watt.unwrap_or(f64::NAN)))
        .collect();
    per_watt.push((
        seed::TABLE.len() as f64,
        ours.and_then(Row::mb_s_per_watt).unwrap_or(f64::NAN),
    ));
    for (file, title, y, points) in [
        (
            "kuznyechik-per-thread.png",
            "Kuznyechik MB/s per thread: seed platforms and this machine",
            "MB/s per thread",
            per_thread,
        ),
        (
            "kuznyechik-per-watt.png",
            "Kuznyechik MB/s per W (this machine: only with RAPL)",
            "MB/s per W",
            per_watt,
        ),
    ] {
        let c = chart::Chart {
            title: title.into(),
            x_label: "platform".into(),
            y_label: y.into(),
            kind: chart::Kind::Bars,
            categories: categories.clone(),
            series: vec![chart::Series {
                name: "Kuznyechik".into(),
                points,
            }],
        };
        files.push(super::png(cfg, file, &c)?);
        md.image(title, file);
    }
    let scaling = chart::Chart {
        title: "MB/s by threads on this machine".into(),
        x_label: "threads".into(),
        y_label: "MB/s".into(),
        kind: chart::Kind::Lines,
        categories: Vec::new(),
        series: CIPHERS
            .iter()
            .map(|c| chart::Series {
                name: c.to_string(),
                points: rows
                    .iter()
                    .filter(|r| r.cipher == *c && r.run == "default")
                    .map(|r| (r.threads as f64, r.mb_s))
                    .collect(),
            })
            .collect(),
    };
    files.push(super::png(cfg, "kuznyechik-threads.png", &scaling)?);
    md.image("MB/s by threads", "kuznyechik-threads.png");
    super::write(&files[0], md.finish())?;
    Ok(StudyOutcome {
        files,
        verdicts: verdicts.to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_share_is_rate_over_speed() {
        assert_eq!(core_share(20.0, 200.0), 10.0);
        assert_eq!(core_share(5.7, 5.7), 100.0);
    }

    #[test]
    fn verdicts_follow_the_numbers() {
        let row = |cipher: &str, mb_s: f64, watts: Option<f64>| Row {
            cipher: cipher.into(),
            run: "default".into(),
            implementation: "portable".into(),
            threads: 1,
            mb_s,
            mb_s_per_thread: mb_s,
            cpu_percent: 100.0,
            watts,
        };
        let v = verdicts(&[row("kuznyechik", 15.0, None)]);
        assert_eq!(v[0].outcome, Outcome::Holds);
        assert_eq!(v[1].outcome, Outcome::NotTestable);
        assert_eq!(v[2].outcome, Outcome::DoesNotHold);
        let v = verdicts(&[row("kuznyechik", 150.0, Some(10.0))]);
        assert_eq!(v[0].outcome, Outcome::DoesNotHold);
        assert_eq!(v[1].outcome, Outcome::DoesNotHold, "{}", v[1].why);
        assert_eq!(v[2].outcome, Outcome::Holds);
    }
}
