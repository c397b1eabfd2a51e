//! `shifr study dump --tiny`: runs `shifr dump` for every AEAD with and without `--cpu-limit 15` and
//! writes report.md (the seed's figures, a verdict per claim), dump.csv and two PNG charts, and removes
//! its scratch files. No timing is checked.

mod support;

use support::{shifr, temp_path};

#[test]
fn dump_study_writes_report_csv_and_charts() {
    let out = temp_path("study-dump");
    let out_s = out.to_str().unwrap().to_string();
    let stdout = shifr(
        &["study", "dump", "--tiny", "--out", &out_s, "--threads", "2"],
        b"",
        &[],
    )
    .expect_ok("study dump");
    let stdout = String::from_utf8(stdout).unwrap();
    assert!(stdout.contains("report.md"), "{stdout}");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("## Verdict") && report.contains("Seed's conclusion"));
    assert!(report.contains("190") && report.contains("334"), "{report}");
    let csv = std::fs::read_to_string(out.join("dump.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("source,workload,cpu_limit_percent,bytes,mb_s,mb_s_min,mb_s_max,machine_cpu_percent,cpu_s_per_gb")
    );
    // The seed's three rows, the plain copy, and each of the five AEADs with and without the limit.
    assert_eq!(lines.count(), 3 + 1 + 5 * 2, "{csv}");
    for aead in [
        "aes-256-gcm",
        "chacha20-poly1305",
        "xchacha20-poly1305",
        "kuznyechik-mgm",
        "magma-mgm",
    ] {
        assert_eq!(
            csv.matches(&format!(",{aead},")).count(),
            2,
            "{aead}: {csv}"
        );
    }
    for png in ["dump-speed.png", "dump-cpu.png"] {
        let bytes = std::fs::read(out.join(png)).unwrap();
        assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{png}");
    }
    assert!(!out.join(".dump-scratch").exists(), "scratch left behind");
    std::fs::remove_dir_all(&out).unwrap();
}
