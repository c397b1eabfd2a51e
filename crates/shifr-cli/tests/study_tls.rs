//! `shifr study tls` end to end on the tiny configuration: one combination per TLS version and HTTP
//! version, spread over the three server engines and both AES settings (so the OPENSSL_ia32cap and
//! SHIFR_BACKEND=portable server children both run), plus the external clients. Checks report.md,
//! tls.json's schema and the PNG files; no timing is checked. h2load is skipped with a printed
//! reason where it is not installed (scripts/test.sh installs nghttp2-client where it can).

#![cfg(feature = "tls")]

mod support;

use support::{one_clean_line, shifr, temp_path};

const PNG_MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

#[test]
fn tls_study_tiny() {
    let out = temp_path("study-tls");
    let out_s = out.to_str().unwrap().to_string();
    let stdout =
        shifr(&["study", "tls", "--tiny", "--out", &out_s], b"", &[]).expect_ok("study tls");
    let stdout = String::from_utf8(stdout).unwrap();
    assert!(stdout.contains("report.md"), "{stdout}");

    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("## Verdict") && report.contains("Seed's conclusion"));
    // The AES-off servers say how AES was switched off.
    assert!(
        report.contains("OPENSSL_ia32cap=~0x200000200000000"),
        "{report}"
    );
    assert!(
        report.contains("chacha20 portable + poly1305, aes-gcm portable"),
        "{report}"
    );

    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tls.json")).unwrap()).unwrap();
    assert_eq!(json["study"], "tls");
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    let mut seen = std::collections::BTreeSet::new();
    for r in rows {
        let c = &r["combo"];
        seen.insert((
            c["version"].as_str().unwrap().to_string(),
            c["http"].as_str().unwrap().to_string(),
        ));
        let f = &r["figures"];
        for key in ["bulk_mb_s", "requests_per_s", "handshakes_per_s"] {
            assert!(f[key].as_f64().unwrap() > 0.0, "{key} in {r}");
        }
        for phase in ["bulk_cpu", "requests_cpu", "handshakes_cpu"] {
            assert!(
                f[phase]["server_percent"].is_number() && f[phase]["client_percent"].is_number()
            );
        }
        // The handshake agreed on the offered suite.
        let negotiated = f["negotiated"].as_str().unwrap();
        assert!(!negotiated.contains('?'), "{negotiated}");
    }
    assert_eq!(
        seen.len(),
        4,
        "one combination per TLS version and HTTP version: {seen:?}"
    );

    let external = json["external"].as_array().unwrap();
    assert!(!external.is_empty());
    for c in external {
        match c["outcome"].as_str().unwrap() {
            "ok" => {}
            "skipped" => eprintln!("skipped: {} {}: {}", c["tool"], c["target"], c["detail"]),
            other => panic!("external check {other}: {c}"),
        }
    }

    let mut pngs = 0;
    for entry in std::fs::read_dir(&out).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "png") {
            pngs += 1;
            assert!(
                std::fs::read(&path).unwrap().starts_with(PNG_MAGIC),
                "{path:?}"
            );
        }
    }
    assert_eq!(pngs, 4);
    assert!(!out.join(".tls-server").exists(), "scratch left behind");
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn tls_study_refuses_bad_options() {
    let out = temp_path("study-tls-bad");
    let out_s = out.to_str().unwrap().to_string();
    for bad in [
        vec!["--combos", "nothing-matches"],
        vec!["--reps", "0"],
        vec!["--bulk-size", "0"],
    ] {
        let mut args = vec!["study", "tls", "--tiny", "--out", &out_s];
        args.extend(bad.iter().copied());
        let r = shifr(&args, b"", &[]);
        assert!(!r.ok(), "{bad:?} accepted");
        assert!(one_clean_line(&r.stderr), "{bad:?}: {}", r.stderr);
    }
    let _ = std::fs::remove_dir_all(&out);
}
