//! The report writer on made-up figures: verdicts follow the numbers, and report.md, tls.csv,
//! tls.json (its documented fields) and the PNG charts are written.

use super::*;
use crate::measure::{Cpu, Figures};
use crate::study::Config;

fn row(
    engine: Engine,
    aes: Aes,
    version: TlsVersion,
    cipher: Cipher,
    http: Http,
    mb_s: f64,
) -> Row {
    let cpu = Cpu {
        server_percent: 90.0,
        client_percent: 40.0,
    };
    Row {
        combo: Combo {
            engine,
            aes,
            version,
            cipher,
            http,
        },
        server_implementation: "test".into(),
        figures: Figures {
            negotiated: "TLSv1.3 test".into(),
            bulk_mb_s: mb_s,
            bulk_mb_s_min: mb_s * 0.9,
            bulk_mb_s_max: mb_s * 1.1,
            bulk_cpu: cpu,
            requests_per_s: 5000.0,
            requests_cpu: cpu,
            handshakes_per_s: 800.0,
            handshakes_cpu: cpu,
        },
    }
}

/// ChaCha20 at 500 MB/s; AES-GCM at `aes` MB/s, for shifr and ring in TLS 1.3 over HTTP/2, with and
/// (shifr only) without AES instructions.
fn rows(hw_aes: f64, sw_aes: f64) -> Vec<Row> {
    use {Aes::*, Cipher::*, Engine::*, Http::*, TlsVersion::*};
    let mut out = Vec::new();
    for (engine, aes, v) in [
        (RustlsShifr, Hardware, hw_aes),
        (RustlsRing, Hardware, hw_aes),
        (RustlsShifr, Disabled, sw_aes),
    ] {
        out.push(row(engine, aes, Tls13, ChaCha20, H2, 500.0));
        out.push(row(engine, aes, Tls13, Aes128Gcm, H2, v));
        out.push(row(engine, aes, Tls13, Aes256Gcm, H2, v * 0.8));
    }
    out
}

#[test]
fn verdicts_follow_the_numbers() {
    let v = verdicts(&rows(2000.0, 50.0));
    assert_eq!(v[0].outcome, Outcome::Holds, "{}", v[0].why);
    assert_eq!(v[1].outcome, Outcome::Holds, "{}", v[1].why);
    // AES-128-GCM above ChaCha20 but AES-256-GCM (0.8x) below: partly, in both halves.
    let v = verdicts(&rows(600.0, 600.0));
    assert_eq!(v[0].outcome, Outcome::Partly, "{}", v[0].why);
    assert_eq!(v[1].outcome, Outcome::Partly, "{}", v[1].why);
    let v = verdicts(&rows(100.0, 5000.0));
    assert_eq!(v[0].outcome, Outcome::DoesNotHold);
    assert_eq!(v[1].outcome, Outcome::DoesNotHold);
    assert_eq!(verdicts(&[])[0].outcome, Outcome::NotTestable);
}

#[test]
fn writes_markdown_csv_json_and_png() {
    let out = std::env::temp_dir().join(format!("shifr-tls-report-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let cfg = Config {
        out: out.clone(),
        exe: PathBuf::from("shifr"),
        combos: Vec::new(),
        plan: Config::plan("tiny"),
        external: false,
        progress: false,
        command: "shifr study tls --tiny".into(),
        scale: "tiny".into(),
        load_before: Some(0.1),
    };
    let check = Check {
        tool: "h2load".into(),
        target: "x".into(),
        outcome: "skipped".into(),
        detail: "h2load is not installed".into(),
        requests_per_s: None,
    };
    let written = write(&cfg, &rows(2000.0, 50.0), &[check]).unwrap();
    assert!(written.files[0].ends_with("report.md"));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    for needle in [
        "## Verdict",
        "Seed's conclusion",
        "Intel ATOM D525 (seed)",
        "shifr / ring",
        "h2load is not installed",
    ] {
        assert!(md.contains(needle), "report lacks {needle}");
    }
    let csv = std::fs::read_to_string(out.join("tls.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 9);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tls.json")).unwrap()).unwrap();
    for key in [
        "study",
        "seed",
        "generated",
        "command",
        "machine",
        "plan",
        "rows",
        "external",
        "verdicts",
    ] {
        assert!(json.get(key).is_some(), "tls.json lacks {key}");
    }
    let first = &json["rows"][0];
    assert_eq!(first["combo"]["engine"], "RustlsShifr");
    assert!(first["figures"]["bulk_mb_s"].is_number());
    assert!(first["figures"]["handshakes_cpu"]["server_percent"].is_number());
    let pngs: Vec<_> = written
        .files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "png"))
        .collect();
    assert_eq!(pngs.len(), 4);
    for p in pngs {
        assert!(std::fs::read(p).unwrap().starts_with(b"\x89PNG\r\n\x1a\n"));
    }
    std::fs::remove_dir_all(&out).unwrap();
}
