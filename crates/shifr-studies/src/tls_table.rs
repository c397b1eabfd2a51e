//! `tls-table` (seed 000): ChaCha20 against AES-128/256-GCM and AES-128/256-CBC on 8192-byte buffers,
//! the mean of five runs, as the seed's table — in three setups on one machine, so that both halves
//! of the seed's conclusion are tested:
//!
//! - best backend: each cipher on the fastest shifr backend this CPU has for it (AES: every hardware
//!   AES backend — AES-NI, VAES, VAES on 512-bit registers, Arm crypto — is measured and the fastest
//!   kept; ChaCha20 on the engine the process selects);
//! - AES-NI era: an emulation of the seed's 2017 processors, AES with AES-NI and ChaCha20 limited to
//!   AVX2 (a child process under `SHIFR_BACKEND=avx2`), where the CPU has both;
//! - portable: what a processor without AES instructions runs.
//!
//! "ChaCha20" in a TLS table means the ChaCha20-Poly1305 AEAD (RFC 8439), so that is the cipher the
//! verdicts compare; bare ChaCha20 (no MAC) is measured too. GCM and ChaCha20-Poly1305 rows are whole
//! records: a 12-byte nonce, 13 bytes of associated data (the TLS 1.2 record header), encryption and
//! the tag. CBC rows are CBC encryption of the 8192 bytes (no MAC, as the seed's column names say).
//!
//! The software half runs in a child process under `SHIFR_BACKEND=portable` (ChaCha20's engine is
//! chosen per process); without a child binary it runs in-process with portable AES and ChaCha20 as
//! selected, and the implementation column says so. The AES-NI-era half needs the child process (it
//! is left out without one).

use super::seeds::seed000_tls as seed;
use super::verdict::{Outcome, Verdict};
use super::{Config, Outcome as StudyOutcome, Study, StudyError};
use serde::{Deserialize, Serialize};
use shifr::aead::chacha20poly1305::ChaCha20Poly1305;
use shifr::aead::gcm::AesGcm;
use shifr::aead::Aead;
use shifr::cpu::Backend;
use shifr::hazmat::block::aes::Aes;
use shifr::hazmat::stream::chacha20::ChaCha20;
use shifr_bench::measure;
use shifr_bench::report::chart;
use shifr_bench::report::csv::{self, Csv};
use shifr_bench::report::markdown::{num, Markdown};

/// The seed's buffer size.
pub const BYTES: usize = 8192;

/// Which half of the experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Half {
    /// The fastest backend this machine has for each cipher.
    Hardware,
    /// The seed's processors emulated: AES-NI for AES, ChaCha20 no wider than AVX2.
    AesNiEra,
    /// The portable backend: a processor without AES instructions.
    Software,
}

impl Half {
    /// The label of the half in tables and charts.
    pub fn label(self) -> &'static str {
        match self {
            Half::Hardware => "this machine, best backend",
            Half::AesNiEra => "this machine, AES-NI era emulation (AES-NI; ChaCha20 on AVX2)",
            Half::Software => "this machine, portable",
        }
    }

    /// The source column of the CSV (no commas).
    pub fn csv_source(self) -> &'static str {
        match self {
            Half::Hardware => "this machine (best backend)",
            Half::AesNiEra => "this machine (AES-NI era emulation)",
            Half::Software => "this machine (portable)",
        }
    }

    /// The half a child run measures: AES-NI era under `SHIFR_BACKEND=avx2`, else the software half.
    pub fn for_child() -> Half {
        match std::env::var("SHIFR_BACKEND") {
            Ok(b) if b.trim().eq_ignore_ascii_case(Backend::Avx2.name()) => Half::AesNiEra,
            _ => Half::Software,
        }
    }
}

/// The hardware AES backends this CPU has; empty without AES instructions. A forced
/// `SHIFR_BACKEND` narrows them to the one the library selects.
fn hardware_aes_backends() -> Vec<Backend> {
    let forced = std::env::var("SHIFR_BACKEND")
        .is_ok_and(|v| !v.trim().is_empty() && !v.trim().eq_ignore_ascii_case("auto"));
    let candidates = if forced {
        Aes::new(&[0u8; 16])
            .map(|a| vec![a.backend()])
            .unwrap_or_default()
    } else {
        [
            Backend::AesNi,
            Backend::Vaes,
            Backend::Avx512,
            Backend::ArmCrypto,
        ]
        .into_iter()
        .filter(|b| Aes::with_backend(&[0u8; 16], *b).is_ok_and(|a| a.backend() == *b))
        .collect()
    };
    candidates
        .into_iter()
        .filter(|b| *b != Backend::Portable)
        .collect()
}

/// One measured cipher.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Row {
    /// Which half.
    pub half: Half,
    /// Cipher as in the seed's columns (plus "ChaCha20 (no MAC)").
    pub cipher: String,
    /// The implementation that ran.
    pub implementation: String,
    /// Median MB/s of the runs.
    pub mb_s: f64,
    /// Slowest run.
    pub mb_s_min: f64,
    /// Fastest run.
    pub mb_s_max: f64,
    /// Process CPU % during the runs.
    pub cpu_percent: f64,
}

/// The TLS cipher the verdicts compare against AES.
const CHACHA_AEAD: &str = "ChaCha20-Poly1305";
const CHACHA_RAW: &str = "ChaCha20 (no MAC)";
const AES_CIPHERS: [&str; 4] = ["AES-128-GCM", "AES-256-GCM", "AES-128-CBC", "AES-256-CBC"];

/// Measures one half in this process. `Hardware` measures AES on every hardware AES backend of
/// this CPU and keeps the fastest (portable where there is none); `AesNiEra` uses AES-NI;
/// `Software` uses portable AES. ChaCha20 runs the engine this process selected.
pub fn measure(cfg: &Config, half: Half) -> Result<Vec<Row>, StudyError> {
    let aes_backends = match half {
        Half::Hardware => {
            let hw = hardware_aes_backends();
            if hw.is_empty() {
                vec![Backend::Portable]
            } else {
                hw
            }
        }
        Half::AesNiEra => vec![Backend::AesNi],
        Half::Software => vec![Backend::Portable],
    };
    let plan = cfg.scale.plan();
    let plan = measure::Plan {
        runs: plan.runs.max(5).min(if cfg.scale == super::Scale::Tiny {
            1
        } else {
            5
        }),
        ..plan
    };
    let nonce = [7u8; 12];
    let aad = [0x17u8; 13];
    let mut buf = vec![0x5au8; BYTES];
    let mut rows = Vec::new();
    let mut push = |cipher: &str, implementation: String, s: measure::Sample| {
        // Of several backends for one cipher, the fastest is kept.
        if let Some(old) = rows.iter().position(|r: &Row| r.cipher == cipher) {
            if rows[old].mb_s >= s.mb_s {
                return;
            }
            rows.remove(old);
        }
        rows.push(Row {
            half,
            cipher: cipher.to_string(),
            implementation,
            mb_s: s.mb_s,
            mb_s_min: s.mb_s_min,
            mb_s_max: s.mb_s_max,
            cpu_percent: s.cpu_percent,
        })
    };
    let key32 = super::bench_key(32, 1);
    let chacha_impl = ChaCha20::new(&key32, &nonce, 1)?
        .implementation()
        .to_string();

    let aead = ChaCha20Poly1305::new(&key32)?;
    let s = measure::measure(&plan, BYTES, || {
        // Valid nonce and sizes: sealing cannot fail; the result is kept alive for the optimiser.
        let _ = std::hint::black_box(aead.seal(&nonce, &aad, &mut buf));
    });
    push(CHACHA_AEAD, format!("chacha20 {chacha_impl} + poly1305"), s);

    let s = measure::measure(&plan, BYTES, || {
        if let Ok(mut c) = ChaCha20::new(&key32, &nonce, 1) {
            let _ = c.apply_keystream(&mut buf);
        }
        std::hint::black_box(&buf);
    });
    push(CHACHA_RAW, format!("chacha20 {chacha_impl}"), s);

    for &aes_backend in &aes_backends {
        for (cipher, key_len) in [("AES-128-GCM", 16), ("AES-256-GCM", 32)] {
            let gcm = AesGcm::with_backend(&super::bench_key(key_len, 2), 16, aes_backend)?;
            let s = measure::measure(&plan, BYTES, || {
                let _ = std::hint::black_box(gcm.seal(&nonce, &aad, &mut buf));
            });
            push(cipher, format!("aes {}", gcm.backend().name()), s);
        }
        for (cipher, key_len) in [("AES-128-CBC", 16), ("AES-256-CBC", 32)] {
            let aes = Aes::with_backend(&super::bench_key(key_len, 3), aes_backend)?;
            let iv = [9u8; 16];
            let s = measure::measure(&plan, BYTES, || {
                let _ = shifr::hazmat::mode::cbc::encrypt(&aes, &iv, &mut buf);
                std::hint::black_box(&buf);
            });
            push(cipher, format!("aes {}", aes.backend().name()), s);
        }
    }
    // Rows in the seed's column order.
    rows.sort_by_key(|r| {
        [CHACHA_AEAD, CHACHA_RAW]
            .iter()
            .chain(&AES_CIPHERS)
            .position(|c| *c == r.cipher)
    });
    Ok(rows)
}

/// Whether this CPU can emulate the seed's AES-NI-era processors (AES-NI and AVX2).
fn era_possible() -> bool {
    Backend::AesNi.is_supported() && Backend::Avx2.is_supported()
}

/// Runs the three halves and writes the report.
pub fn run(cfg: &Config) -> Result<StudyOutcome, StudyError> {
    let mut progress = super::progress::Progress::new("tls-table", 3, cfg.progress);
    progress.step("best backends");
    let hardware = measure(cfg, Half::Hardware)?;
    progress.step("AES-NI era (SHIFR_BACKEND=avx2)");
    let era = if era_possible() {
        super::child_rows::<Vec<Row>>(Study::TlsTable, cfg, Backend::Avx2)?.map(|rows| {
            rows.into_iter()
                .map(|r| Row {
                    half: Half::AesNiEra,
                    ..r
                })
                .collect()
        })
    } else {
        None
    };
    progress.step("software half (SHIFR_BACKEND=portable)");
    let software = match super::child_rows::<Vec<Row>>(Study::TlsTable, cfg, Backend::Portable)? {
        Some(rows) => rows,
        None => measure(cfg, Half::Software)?,
    };
    progress.finish();
    let era: Vec<Row> = era.unwrap_or_default();
    let verdicts = super::verdict::judged(verdicts(&hardware, &era, &software));
    write_report(cfg, &hardware, &era, &software, &verdicts)
}

fn speed(rows: &[Row], cipher: &str) -> Option<f64> {
    rows.iter().find(|r| r.cipher == cipher).map(|r| r.mb_s)
}

/// The seed's "on average by N %" figures recomputed from its own table: for the AES-NI rows, mean of
/// (AES / ChaCha20 − 1); for the others, mean of (ChaCha20 / AES − 1); in percent, per AES column.
pub fn seed_averages(aes_ni: bool) -> [f64; 4] {
    let rows: Vec<&seed::Platform> = seed::TABLE.iter().filter(|p| p.aes_ni == aes_ni).collect();
    let mut out = [0.0; 4];
    for (k, o) in out.iter_mut().enumerate() {
        let sum: f64 = rows
            .iter()
            .map(|p| {
                let (chacha, aes) = (p.mb_s[0], p.mb_s[k + 1]);
                if aes_ni {
                    aes / chacha - 1.0
                } else {
                    chacha / aes - 1.0
                }
            })
            .sum();
        *o = 100.0 * sum / rows.len() as f64;
    }
    out
}

/// Whether every AES row of a half ran on hardware AES.
fn hardware_aes(rows: &[Row]) -> bool {
    let mut aes = rows
        .iter()
        .filter(|r| AES_CIPHERS.contains(&r.cipher.as_str()))
        .peekable();
    aes.peek().is_some() && aes.all(|r| !r.implementation.contains("portable"))
}

/// The implementations a half's rows ran on, for the verdict text.
fn backends_of(rows: &[Row]) -> String {
    let mut names: Vec<&str> = rows.iter().map(|r| r.implementation.as_str()).collect();
    names.dedup();
    names.join(", ")
}

/// The seed's claims checked against the halves (`era` may be empty: not measured).
pub fn verdicts(hardware: &[Row], era: &[Row], software: &[Row]) -> Vec<Verdict> {
    let mut out = Vec::new();
    let hw_aes = hardware_aes(hardware);
    let compare = |rows: &[Row], aes_wins: bool| -> (usize, String) {
        let chacha = speed(rows, CHACHA_AEAD).unwrap_or(f64::NAN);
        let mut agree = 0;
        let mut parts = Vec::new();
        for c in AES_CIPHERS {
            let aes = speed(rows, c).unwrap_or(f64::NAN);
            let ok = if aes_wins { aes > chacha } else { chacha > aes };
            agree += usize::from(ok);
            let pct = if aes_wins {
                100.0 * (aes / chacha - 1.0)
            } else {
                100.0 * (chacha / aes - 1.0)
            };
            parts.push(format!("{c} {aes:.0} MB/s ({pct:+.1} %)"));
        }
        (
            agree,
            format!("ChaCha20-Poly1305 {chacha:.0} MB/s; {}", parts.join(", ")),
        )
    };
    let seed_hw = seed_averages(true);
    let seed_sw = seed_averages(false);
    let (agree, numbers) = compare(hardware, true);
    let (outcome, extra) = if hw_aes {
        (
            Outcome::from_count(agree, 4),
            format!(
                "Each cipher on its fastest shifr backend here ({}). Percentages are AES's lead over \
                 ChaCha20-Poly1305; averaged from the seed's table: {:.1} / {:.1} / {:.1} / {:.1} %. \
                 {agree} of 4 AES variants are faster here.",
                backends_of(hardware),
                seed_hw[0], seed_hw[1], seed_hw[2], seed_hw[3]
            ),
        )
    } else {
        (
            Outcome::NotTestable,
            "This CPU has no AES instructions shifr can use, so the hardware half ran in software."
                .to_string(),
        )
    };
    out.push(Verdict::new(
        "With hardware AES (AES-NI), every AES variant is faster than ChaCha20",
        outcome,
        format!("{numbers}. {extra}"),
    ));
    let (agree, numbers) = compare(software, false);
    let chacha_impl = software
        .iter()
        .find(|r| r.cipher == CHACHA_AEAD)
        .map_or("?", |r| r.implementation.as_str());
    out.push(Verdict::new(
        "Without hardware AES, ChaCha20 is faster than every AES variant",
        Outcome::from_count(agree, 4),
        format!(
            "{numbers} (percentages are ChaCha20's lead; averaged from the seed's table: {:.1} / {:.1} / {:.1} / {:.1} %; \
             ChaCha20 ran as {chacha_impl}, AES as constant-time bitsliced portable code — a table-based AES, \
             as in OpenSSL of 2017 on the seed's machines, is faster but leaks its key through the cache). \
             {agree} of 4 AES variants are slower than ChaCha20 here.",
            seed_sw[0], seed_sw[1], seed_sw[2], seed_sw[3]
        ),
    ));
    let printed_hw = seed::AES_NI_AES_FASTER_PERCENT;
    let printed_sw = seed::SOFTWARE_CHACHA_FASTER_PERCENT;
    let close = |a: &[f64; 4], b: &[f64; 4]| {
        a.iter()
            .zip(b)
            .filter(|(x, y)| (*x - *y).abs() < 0.05)
            .count()
    };
    let agree = close(&seed_hw, &printed_hw) + close(&seed_sw, &printed_sw);
    out.push(Verdict::new(
        "The seed's averages (302.91 / 256.13 / 123.68 / 63.77 % and 204.3 / 279.3 / 63.75 / 76.21 %) follow from its own table",
        Outcome::from_count(agree, 8),
        format!(
            "Recomputed as the mean over the platforms of each ratio minus one: {} and {}; {agree} of 8 agree to 0.05 points.",
            fmt4(&seed_hw),
            fmt4(&seed_sw)
        ),
    ));
    if hardware_aes(era) {
        let (agree, numbers) = compare(era, true);
        out.push(Verdict::new(
            "On the seed's kind of processor (AES-NI, ChaCha20 on AVX2), every AES variant is faster than ChaCha20",
            Outcome::from_count(agree, 4),
            format!(
                "{numbers}. This machine emulating a 2017 processor: AES on AES-NI only, ChaCha20-Poly1305 \
                 limited to AVX2 ({}). {agree} of 4 AES variants are faster here.",
                backends_of(era)
            ),
        ));
    }
    out
}

fn fmt4(v: &[f64; 4]) -> String {
    v.iter()
        .map(|x| format!("{x:.2}"))
        .collect::<Vec<_>>()
        .join(" / ")
}

const CSV_HEADER: [&str; 9] = [
    "source",
    "platform",
    "hardware_aes",
    "cipher",
    "implementation",
    "mb_s",
    "mb_s_min",
    "mb_s_max",
    "cpu_percent",
];

fn write_report(
    cfg: &Config,
    hardware: &[Row],
    era: &[Row],
    software: &[Row],
    verdicts: &[Verdict],
) -> Result<StudyOutcome, StudyError> {
    let mut md = Markdown::new();
    super::header(
        &mut md,
        Study::TlsTable,
        "ChaCha20 vs AES in TLS (seed 000) on this machine",
        cfg,
    );
    md.para(&format!(
        "Method (seed): OpenSSL, random 8192-byte buffers, the mean of five runs, MB/s, AES-NI where the \
         CPU has it. Here: shifr, 8192-byte buffers, the median of {} timed runs after a warm-up \
         (each run at least {} ms), MB/s = 10^6 B/s, in three setups. Best backend: every hardware \
         AES backend of this CPU is measured and the fastest kept; ChaCha20 runs on the engine the \
         process selects. AES-NI era (where the CPU has AES-NI and AVX2): the seed's 2017 processors \
         emulated, AES on AES-NI and ChaCha20 limited to AVX2 (`SHIFR_BACKEND=avx2`). Portable \
         (`SHIFR_BACKEND=portable`): what a processor without AES instructions runs.",
        cfg.scale.plan().runs.min(5),
        cfg.scale.plan().min_run.as_millis()
    ));
    md.heading(2, "Verdict");
    md.para(&format!("Seed's conclusion: {}", seed::CONCLUSION));
    super::verdict::write(&mut md, verdicts);

    md.heading(2, "The seed's table and this machine");
    let mut header = vec!["platform"];
    header.extend(seed::CIPHERS);
    let mut rows: Vec<Vec<String>> = seed::TABLE
        .iter()
        .map(|p| {
            let mut r = vec![format!(
                "{}{}",
                p.name,
                if p.aes_ni { " (AES-NI)" } else { "" }
            )];
            r.extend(p.mb_s.iter().map(|v| format!("{v:.0}")));
            r
        })
        .collect();
    for half in [hardware, era, software] {
        let Some(first) = half.first() else {
            continue;
        };
        let mut r = vec![format!("**{}**", first.half.label())];
        let chacha = speed(half, CHACHA_AEAD);
        r.push(num(chacha, 0, "-"));
        r.extend(AES_CIPHERS.iter().map(|c| num(speed(half, c), 0, "-")));
        rows.push(r);
    }
    md.table(&header, &rows);
    md.para("Seed rows: MB/s as printed. This machine: ChaCha20 column = ChaCha20-Poly1305.");
    md.heading(2, "This machine in detail");
    let detail: Vec<Vec<String>> = hardware
        .iter()
        .chain(era)
        .chain(software)
        .map(|r| {
            vec![
                r.half.label().to_string(),
                r.cipher.clone(),
                r.implementation.clone(),
                format!("{:.0}", r.mb_s),
                format!("{:.0}–{:.0}", r.mb_s_min, r.mb_s_max),
                format!("{:.0}", r.cpu_percent),
            ]
        })
        .collect();
    md.table(
        &[
            "half",
            "cipher",
            "implementation",
            "MB/s (median)",
            "min–max",
            "CPU %",
        ],
        &detail,
    );

    let mut files = vec![cfg.out.join("report.md")];
    let mut csv = Csv::new(&CSV_HEADER);
    for p in &seed::TABLE {
        for (c, v) in seed::CIPHERS.iter().zip(p.mb_s) {
            csv.row(vec![
                "seed000".into(),
                p.name.into(),
                p.aes_ni.to_string(),
                c.to_string(),
                "OpenSSL (2017)".into(),
                csv::num(v),
                String::new(),
                String::new(),
                String::new(),
            ]);
        }
    }
    for r in hardware.iter().chain(era).chain(software) {
        csv.row(vec![
            r.half.csv_source().into(),
            shifr_bench::machine::cpu_model(),
            (r.half != Half::Software && hardware_aes(hardware)).to_string(),
            r.cipher.clone(),
            r.implementation.clone(),
            csv::num(r.mb_s),
            csv::num(r.mb_s_min),
            csv::num(r.mb_s_max),
            csv::num(r.cpu_percent),
        ]);
    }
    let csv_path = cfg.out.join("tls-table.csv");
    csv.write(&csv_path).map_err(|source| StudyError::Io {
        what: format!("write {}", csv_path.display()),
        source,
    })?;
    files.push(csv_path);

    md.heading(2, "Charts");
    for (file, aes_ni, ours) in [
        ("tls-aes-ni.png", true, vec![hardware, era]),
        ("tls-software.png", false, vec![software]),
    ] {
        let mut series: Vec<chart::Series> = seed::TABLE
            .iter()
            .filter(|p| p.aes_ni == aes_ni)
            .map(|p| chart::Series {
                name: format!("{} (seed)", p.name),
                points: p
                    .mb_s
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| (i as f64, v))
                    .collect(),
            })
            .collect();
        for half in ours.into_iter().filter(|h| !h.is_empty()) {
            let mut points = vec![(0.0, speed(half, CHACHA_AEAD).unwrap_or(f64::NAN))];
            points.extend(
                AES_CIPHERS
                    .iter()
                    .enumerate()
                    .map(|(i, c)| ((i + 1) as f64, speed(half, c).unwrap_or(f64::NAN))),
            );
            series.push(chart::Series {
                name: half[0].half.label().to_string(),
                points,
            });
        }
        let title = if aes_ni {
            "With hardware AES: seed platforms and this machine"
        } else {
            "Without AES-NI: seed platforms and this machine (portable)"
        };
        let c = chart::Chart {
            title: title.into(),
            x_label: "cipher (8192-byte buffers)".into(),
            y_label: "MB/s".into(),
            kind: chart::Kind::Bars,
            categories: seed::CIPHERS.iter().map(|s| s.to_string()).collect(),
            series,
        };
        files.push(super::png(cfg, file, &c)?);
        md.image(title, file);
    }
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
    fn the_seed_averages_are_recomputed_from_its_table() {
        let hw = seed_averages(true);
        for (got, printed) in hw.iter().zip(seed::AES_NI_AES_FASTER_PERCENT) {
            assert!((got - printed).abs() < 0.05, "{got} vs {printed}");
        }
        let sw = seed_averages(false);
        assert!((sw[0] - 204.3).abs() < 0.05, "{sw:?}");
    }

    fn row(half: Half, cipher: &str, implementation: &str, mb_s: f64) -> Row {
        Row {
            half,
            cipher: cipher.into(),
            implementation: implementation.into(),
            mb_s,
            mb_s_min: mb_s,
            mb_s_max: mb_s,
            cpu_percent: 100.0,
        }
    }

    #[test]
    fn verdicts_follow_the_numbers() {
        let hw = vec![
            row(
                Half::Hardware,
                CHACHA_AEAD,
                "chacha20 avx2 + poly1305",
                1000.0,
            ),
            row(Half::Hardware, "AES-128-GCM", "aes aesni", 3000.0),
            row(Half::Hardware, "AES-256-GCM", "aes aesni", 2500.0),
            row(Half::Hardware, "AES-128-CBC", "aes aesni", 900.0),
            row(Half::Hardware, "AES-256-CBC", "aes aesni", 700.0),
        ];
        let sw: Vec<Row> = hw
            .iter()
            .map(|r| Row {
                half: Half::Software,
                implementation: "portable".into(),
                mb_s: if r.cipher == CHACHA_AEAD {
                    400.0
                } else {
                    100.0
                },
                ..r.clone()
            })
            .collect();
        let v = verdicts(&hw, &[], &sw);
        assert_eq!(v.len(), 3, "no AES-NI-era rows, no verdict on them");
        assert_eq!(v[0].outcome, Outcome::Partly);
        assert_eq!(v[1].outcome, Outcome::Holds);
        assert_eq!(v[2].outcome, Outcome::Partly, "{}", v[2].why);
        // The AES-NI-era rows get their own verdict.
        let era: Vec<Row> = hw
            .iter()
            .map(|r| Row {
                half: Half::AesNiEra,
                mb_s: if r.cipher == CHACHA_AEAD {
                    500.0
                } else {
                    900.0
                },
                ..r.clone()
            })
            .collect();
        let v = verdicts(&hw, &era, &sw);
        assert_eq!(v.len(), 4);
        assert_eq!(v[3].outcome, Outcome::Holds, "{}", v[3].why);
        assert!(v[3].why.contains("AVX2"), "{}", v[3].why);
        let no_aesni: Vec<Row> = hw
            .iter()
            .map(|r| Row {
                implementation: "portable".into(),
                ..r.clone()
            })
            .collect();
        assert_eq!(
            verdicts(&no_aesni, &[], &sw)[0].outcome,
            Outcome::NotTestable
        );
    }
}
