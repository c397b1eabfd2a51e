//! The report of `shifr study tls`: report.md (method, verdicts on the seed's claims, the seed's
//! table beside this machine's numbers, every figure), tls.csv, tls.json and PNG charts, written with
//! shifr-bench's study helpers (Markdown, CSV, charts, verdicts) in the house style of the other
//! studies.

use crate::combo::{Aes, Cipher, Combo, Engine, Http, TlsVersion};
use crate::external::Check;
use crate::study::{Config, Row};
use crate::TlsError;
use serde::Serialize;
use shifr_bench::report::chart::{self, Chart, Kind, Series};
use shifr_bench::report::csv::{self, Csv};
use shifr_bench::report::markdown::{num, Markdown};
use shifr_studies::seeds::seed000_tls as seed;
use shifr_studies::verdict::{Outcome, Verdict};
use std::path::PathBuf;

/// What the report wrote.
#[derive(Debug, Clone)]
pub struct Written {
    /// Every file, report.md first.
    pub files: Vec<PathBuf>,
    /// The checked claims.
    pub verdicts: Vec<Verdict>,
}

/// The seed file this study reproduces.
pub const SEED: &str = "shared/seeds/000_d9ec41b9aceac292.txt";

fn bulk(rows: &[Row], key: (Engine, Aes, TlsVersion, Http), cipher: Cipher) -> Option<f64> {
    rows.iter()
        .find(|r| {
            let c = r.combo;
            (c.engine, c.aes, c.version, c.http) == key && c.cipher == cipher
        })
        .map(|r| r.figures.bulk_mb_s)
}

/// The (engine, AES, version, HTTP) groups present, in measurement order.
fn groups(rows: &[Row]) -> Vec<(Engine, Aes, TlsVersion, Http)> {
    let mut out = Vec::new();
    for r in rows {
        let k = (r.combo.engine, r.combo.aes, r.combo.version, r.combo.http);
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

fn group_name(k: (Engine, Aes, TlsVersion, Http)) -> String {
    format!(
        "{}, {}, {}, {}",
        k.0.name(),
        k.1.name(),
        k.2.name(),
        k.3.name()
    )
}

/// The seed's two claims, checked on the bulk throughput of every group that has ChaCha20 and at
/// least one AES cipher: with AES instructions every AES variant beats ChaCha20; without them
/// ChaCha20 beats every AES variant.
pub fn verdicts(rows: &[Row]) -> Vec<Verdict> {
    let mut out = Vec::new();
    for (aes, claim) in [
        (
            Aes::Hardware,
            "With AES instructions, every AES variant is faster than ChaCha20 in TLS (bulk throughput)",
        ),
        (
            Aes::Disabled,
            "Without AES instructions, ChaCha20 is faster than every AES variant in TLS (bulk throughput)",
        ),
    ] {
        let (mut agree, mut total, mut parts) = (0, 0, Vec::new());
        for k in groups(rows).into_iter().filter(|k| k.1 == aes) {
            let Some(chacha) = bulk(rows, k, Cipher::ChaCha20) else {
                continue;
            };
            let mut cells = Vec::new();
            for c in Cipher::ALL.into_iter().filter(|c| c.is_aes()) {
                let Some(v) = bulk(rows, k, c) else { continue };
                let ok = match aes {
                    Aes::Hardware => v > chacha,
                    Aes::Disabled => chacha > v,
                };
                agree += usize::from(ok);
                total += 1;
                cells.push(format!("{} {v:.0} ({:+.0} %)", c.name(), 100.0 * (v / chacha - 1.0)));
            }
            if !cells.is_empty() {
                parts.push(format!("{}: ChaCha20 {chacha:.0} MB/s, {}", group_name(k), cells.join(", ")));
            }
        }
        let why = if total == 0 {
            "No measured group has ChaCha20 and an AES cipher with this AES setting.".to_string()
        } else {
            format!(
                "{agree} of {total} comparisons agree. Percentages are each AES cipher's throughput relative to ChaCha20 in the same group. {}.",
                parts.join("; ")
            )
        };
        out.push(Verdict::new(claim, Outcome::from_count(agree, total), why));
    }
    out
}

#[derive(Serialize)]
struct JsonReport<'a> {
    study: &'static str,
    seed: &'static str,
    generated: String,
    command: &'a str,
    scale: &'a str,
    machine: JsonMachine,
    plan: JsonPlan,
    rows: &'a [Row],
    external: &'a [Check],
    verdicts: Vec<JsonVerdict>,
}

#[derive(Serialize)]
struct JsonMachine {
    cpu: String,
    hardware_threads: usize,
    shifr_backends: String,
    openssl: &'static str,
}

#[derive(Serialize)]
struct JsonPlan {
    bulk_bytes: u64,
    reps: usize,
    min_seconds: f64,
    min_count: usize,
    small_body_bytes: u64,
}

#[derive(Serialize)]
struct JsonVerdict {
    claim: String,
    outcome: String,
    why: String,
}

const CSV_HEADER: [&str; 19] = [
    "label",
    "engine",
    "aes",
    "tls_version",
    "cipher",
    "http",
    "negotiated",
    "bulk_mb_s",
    "bulk_mb_s_min",
    "bulk_mb_s_max",
    "bulk_server_cpu_percent",
    "bulk_client_cpu_percent",
    "requests_per_s",
    "requests_server_cpu_percent",
    "requests_client_cpu_percent",
    "handshakes_per_s",
    "handshakes_server_cpu_percent",
    "handshakes_client_cpu_percent",
    "server_implementation",
];

fn io_err(what: &str, e: impl std::fmt::Display) -> TlsError {
    TlsError::Report(format!("{what}: {e}"))
}

/// Writes report.md, tls.csv, tls.json and the charts into `cfg.out`.
pub fn write(cfg: &Config, rows: &[Row], checks: &[Check]) -> Result<Written, TlsError> {
    let verdicts = verdicts(rows);
    let mut files = vec![cfg.out.join("report.md")];

    let mut csv = Csv::new(&CSV_HEADER);
    for r in rows {
        let (c, f) = (r.combo, &r.figures);
        csv.row(vec![
            c.label(),
            c.engine.name().into(),
            c.aes.name().into(),
            c.version.name().into(),
            c.cipher.name().into(),
            c.http.name().into(),
            f.negotiated.clone(),
            csv::num(f.bulk_mb_s),
            csv::num(f.bulk_mb_s_min),
            csv::num(f.bulk_mb_s_max),
            csv::num(f.bulk_cpu.server_percent),
            csv::num(f.bulk_cpu.client_percent),
            csv::num(f.requests_per_s),
            csv::num(f.requests_cpu.server_percent),
            csv::num(f.requests_cpu.client_percent),
            csv::num(f.handshakes_per_s),
            csv::num(f.handshakes_cpu.server_percent),
            csv::num(f.handshakes_cpu.client_percent),
            r.server_implementation.clone(),
        ]);
    }
    let csv_path = cfg.out.join("tls.csv");
    csv.write(&csv_path).map_err(|e| io_err("tls.csv", e))?;
    files.push(csv_path);

    let json = JsonReport {
        study: "tls",
        seed: SEED,
        generated: shifr_studies::utc_now(),
        command: &cfg.command,
        scale: &cfg.scale,
        machine: JsonMachine {
            cpu: shifr_bench::machine::cpu_model(),
            hardware_threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            shifr_backends: shifr_bench::machine::supported_backends(),
            openssl: openssl::version::version(),
        },
        plan: JsonPlan {
            bulk_bytes: cfg.plan.bulk_bytes,
            reps: cfg.plan.reps,
            min_seconds: cfg.plan.min_time.as_secs_f64(),
            min_count: cfg.plan.min_count,
            small_body_bytes: crate::http1::SMALL_BODY,
        },
        rows,
        external: checks,
        verdicts: verdicts
            .iter()
            .map(|v| JsonVerdict {
                claim: v.claim.clone(),
                outcome: format!("{:?}", v.outcome),
                why: v.why.clone(),
            })
            .collect(),
    };
    let json_path = cfg.out.join("tls.json");
    let text = serde_json::to_string_pretty(&json).map_err(|e| io_err("tls.json", e))?;
    std::fs::write(&json_path, text).map_err(|e| io_err("tls.json", e))?;
    files.push(json_path);

    let mut md = Markdown::new();
    markdown(&mut md, cfg, rows, checks, &verdicts);
    md.heading(2, "Charts");
    for (file, title, pick) in charts() {
        let c = chart_of(rows, title, pick);
        if c.series.is_empty() {
            continue;
        }
        let path = cfg.out.join(file);
        chart::write_png(&c, &path, (1000, 560)).map_err(|e| io_err(file, e))?;
        files.push(path);
        md.image(title, file);
    }
    std::fs::write(&files[0], md.finish()).map_err(|e| io_err("report.md", e))?;
    Ok(Written { files, verdicts })
}

type Pick = fn(&Row) -> Option<f64>;

fn charts() -> [(&'static str, &'static str, Pick); 4] {
    [
        ("tls-bulk-aes.png", "Bulk MB/s with AES instructions", |r| {
            (r.combo.aes == Aes::Hardware).then_some(r.figures.bulk_mb_s)
        }),
        (
            "tls-bulk-no-aes.png",
            "Bulk MB/s without AES instructions (server)",
            |r| (r.combo.aes == Aes::Disabled).then_some(r.figures.bulk_mb_s),
        ),
        (
            "tls-requests.png",
            "Small responses per second, one keep-alive connection",
            |r| Some(r.figures.requests_per_s),
        ),
        (
            "tls-handshakes.png",
            "Full handshakes per second (connect + handshake + 1 request)",
            |r| Some(r.figures.handshakes_per_s),
        ),
    ]
}

/// Grouped bars: one group per cipher (the seed's columns), one bar per engine / AES / version /
/// HTTP group that has a value.
fn chart_of(rows: &[Row], title: &str, pick: Pick) -> Chart {
    let mut series = Vec::new();
    for k in groups(rows) {
        let points: Vec<(f64, f64)> = Cipher::ALL
            .iter()
            .enumerate()
            .filter_map(|(i, &c)| {
                rows.iter()
                    .find(|r| {
                        (r.combo.engine, r.combo.aes, r.combo.version, r.combo.http) == k
                            && r.combo.cipher == c
                    })
                    .and_then(pick)
                    .map(|v| (i as f64, v))
            })
            .collect();
        if !points.is_empty() {
            series.push(Series {
                name: format!(
                    "{} {}{} {}",
                    k.0.name(),
                    if k.1 == Aes::Disabled { "no-AES " } else { "" },
                    k.2.short(),
                    k.3.short()
                ),
                points,
            });
        }
    }
    Chart {
        title: title.into(),
        x_label: "cipher".into(),
        y_label: if title.starts_with("Bulk") {
            "MB/s"
        } else {
            "per second"
        }
        .into(),
        kind: Kind::Bars,
        categories: Cipher::ALL.iter().map(|c| c.name().to_string()).collect(),
        series,
    }
}

fn markdown(md: &mut Markdown, cfg: &Config, rows: &[Row], checks: &[Check], verdicts: &[Verdict]) {
    md.heading(
        1,
        "ChaCha20-Poly1305 vs AES in real TLS over loopback (seed 000)",
    );
    md.para(&format!(
        "Seed: `{SEED}`. Generated {} by `{}` (scale: {}).\n\nMachine: {}, {} hardware thread(s); CPU \
         features used by shifr: {}; {}. {}",
        shifr_studies::utc_now(),
        cfg.command,
        cfg.scale,
        shifr_bench::machine::cpu_model(),
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        shifr_bench::machine::supported_backends(),
        openssl::version::version(),
        shifr_studies::load_note(
            std::thread::available_parallelism().map_or(1, |n| n.get()),
            cfg.load_before,
        ),
    ));
    md.heading(2, "Method");
    md.para(&format!(
        "The seed (OpenSSL, 2017) reports one MB/s figure per cipher and platform for TLS 1.2/1.3 over \
         HTTP/2 and HTTPS, without saying how it was measured beyond \"8192-byte random text, mean of \
         five runs\". Here every combination is a real TLS connection on 127.0.0.1: a server in a child \
         process (`shifr study tls --serve ENGINE`, self-signed ECDSA P-256 certificate generated at \
         start, ECDHE key exchange) and a client in this process offering exactly one TLS version and \
         one suite.\n\n\
         - **Servers**: `rustls-ring` (rustls 0.23 with its ring provider) and `rustls-shifr` (rustls \
         with a CryptoProvider whose AEADs are shifr's ChaCha20-Poly1305 and AES-GCM; key exchange, \
         signatures and hashing stay ring's), both under hyper with HTTP/1.1 and HTTP/2 by ALPN on one \
         tokio thread; `openssl` (libssl through the openssl crate, a blocking thread per connection, \
         HTTP/1.1 only), the only one with the TLS 1.2 AES-CBC suites (ECDHE-ECDSA-AES128-SHA256, \
         ECDHE-ECDSA-AES256-SHA384), which rustls does not implement; HTTP/2 over CBC is forbidden by \
         RFC 7540 section 9.2.2 anyway.\n\
         - **Clients**: rustls (ring) + hyper for the rustls servers, OpenSSL for the OpenSSL server; the \
         client always uses the CPU's AES instructions. No session resumption anywhere.\n\
         - **AES instructions off (server only)**: OpenSSL's child runs with `OPENSSL_ia32cap={}` \
         (clears AES-NI and PCLMULQDQ before libcrypto initialises; AES then runs as OpenSSL's SSSE3 \
         vector-permute code and GHASH without carry-less multiply; ChaCha20 keeps its SIMD code). \
         The shifr provider's child runs with `SHIFR_BACKEND=portable`: constant-time bitsliced AES, \
         portable GHASH and *scalar* ChaCha20/Poly1305 — a processor with no SIMD at all. ring has no \
         such switch, so `rustls-ring` runs with AES instructions only.\n\
         - **Figures**: bulk = {} responses of {} bytes on one keep-alive connection after a warm-up, \
         MB/s = 10^6 B/s, median (min–max); requests = {}-byte responses, one in flight, at least {} \
         and at least {:.1} s; handshakes = new TCP connection + full handshake + one small request, as \
         many as fit in the same bounds. CPU % = CPU time / wall time, 100 % = one core: the server's \
         from /proc/PID/stat of its child (all threads, 10 ms ticks), the client's from its thread's \
         CPU clock.\n\
         - **Caveat**: client and server share the machine's cores (the load average in the header \
         says whether anything else ran), so the ratios between ciphers in one group matter more \
         than absolute numbers.",
        crate::server::OPENSSL_NO_AES,
        cfg.plan.reps,
        cfg.plan.bulk_bytes,
        crate::http1::SMALL_BODY,
        cfg.plan.min_count,
        cfg.plan.min_time.as_secs_f64()
    ));
    md.heading(2, "Verdict");
    md.para(&format!("Seed's conclusion: {}", seed::CONCLUSION));
    shifr_studies::verdict::write(md, verdicts);

    md.heading(2, "The seed's table and this machine");
    let mut header = vec!["platform / group"];
    header.extend(seed::CIPHERS);
    let mut table: Vec<Vec<String>> = seed::TABLE
        .iter()
        .map(|p| {
            let mut r = vec![format!(
                "{}{} (seed)",
                p.name,
                if p.aes_ni { " (AES-NI)" } else { "" }
            )];
            r.extend(p.mb_s.iter().map(|v| format!("{v:.0}")));
            r
        })
        .collect();
    for k in groups(rows) {
        let mut r = vec![format!("**{}**", group_name(k))];
        r.extend(Cipher::ALL.iter().map(|&c| num(bulk(rows, k, c), 0, "-")));
        table.push(r);
    }
    md.table(&header, &table);
    md.para(
        "Seed rows: MB/s as printed (OpenSSL, 8192-byte buffers). This machine: bulk MB/s through a whole \
         TLS connection (records, framing, HTTP and the loopback socket), server side as named.",
    );

    md.heading(2, "shifr's AEADs in rustls beside ring's");
    let mut cmp = Vec::new();
    for r in rows
        .iter()
        .filter(|r| r.combo.engine == Engine::RustlsShifr && r.combo.aes == Aes::Hardware)
    {
        let ring = Combo {
            engine: Engine::RustlsRing,
            ..r.combo
        };
        if let Some(g) = rows.iter().find(|x| x.combo == ring) {
            cmp.push(vec![
                format!(
                    "{} {} {}",
                    r.combo.version.name(),
                    r.combo.cipher.name(),
                    r.combo.http.name()
                ),
                format!("{:.0}", r.figures.bulk_mb_s),
                format!("{:.0}", g.figures.bulk_mb_s),
                format!("{:.2}", r.figures.bulk_mb_s / g.figures.bulk_mb_s),
                format!("{:.0}", r.figures.requests_per_s),
                format!("{:.0}", g.figures.requests_per_s),
            ]);
        }
    }
    if cmp.is_empty() {
        md.para("Not measured in this run (needs the same combination on rustls-ring and rustls-shifr).");
    } else {
        md.table(
            &[
                "combination",
                "shifr MB/s",
                "ring MB/s",
                "shifr / ring",
                "shifr req/s",
                "ring req/s",
            ],
            &cmp,
        );
    }

    md.heading(2, "Every combination");
    let detail: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let f = &r.figures;
            vec![
                r.combo.label(),
                f.negotiated.clone(),
                format!(
                    "{:.0} ({:.0}–{:.0})",
                    f.bulk_mb_s, f.bulk_mb_s_min, f.bulk_mb_s_max
                ),
                format!(
                    "{:.0} / {:.0}",
                    f.bulk_cpu.server_percent, f.bulk_cpu.client_percent
                ),
                format!("{:.0}", f.requests_per_s),
                format!(
                    "{:.0} / {:.0}",
                    f.requests_cpu.server_percent, f.requests_cpu.client_percent
                ),
                format!("{:.0}", f.handshakes_per_s),
                format!(
                    "{:.0} / {:.0}",
                    f.handshakes_cpu.server_percent, f.handshakes_cpu.client_percent
                ),
            ]
        })
        .collect();
    md.table(
        &[
            "combination",
            "negotiated",
            "bulk MB/s (min–max)",
            "CPU % srv / cli",
            "requests/s",
            "CPU % srv / cli",
            "handshakes/s",
            "CPU % srv / cli",
        ],
        &detail,
    );
    let mut impls: Vec<String> = Vec::new();
    for r in rows {
        let line = format!(
            "`{}` {}: {}",
            r.combo.engine.name(),
            r.combo.aes.name(),
            r.server_implementation
        );
        if !impls.contains(&line) {
            impls.push(line);
        }
    }
    md.para(&format!(
        "Server record-protection code, as each server child reported it:\n\n- {}",
        impls.join("\n- ")
    ));

    md.heading(2, "External clients");
    if checks.is_empty() {
        md.para("Not run (--no-external).");
    } else {
        let t: Vec<Vec<String>> = checks
            .iter()
            .map(|c| {
                vec![
                    c.tool.clone(),
                    c.target.clone(),
                    c.outcome.clone(),
                    c.requests_per_s
                        .map_or(String::new(), |v| format!("{v:.0}")),
                    c.detail.clone(),
                ]
            })
            .collect();
        md.table(&["tool", "target", "outcome", "req/s", "detail"], &t);
    }
}

#[cfg(test)]
mod tests;
