//! `shifr bench` end to end on a tiny configuration: JSON schema, one row per requested algorithm,
//! AWS-LC and ring rows, the summary, CSV and charts written, `shifr report merge`, bad options
//! refused. No timing thresholds.

mod support;

use support::shifr;

const FIELDS: &[&str] = &[
    "implementation",
    "algorithm",
    "backend",
    "bytes",
    "threads",
    "streams",
    "mb_s",
    "mb_s_min",
    "mb_s_max",
    "cycles_per_byte",
    "cycles_source",
    "cpu_percent",
    "joules_per_gb",
    "ratio_vs_shifr",
];

fn rows(stdout: &[u8]) -> Vec<serde_json::Value> {
    let v: serde_json::Value = serde_json::from_slice(stdout).expect("stdout is JSON");
    v.as_array().expect("a JSON array").clone()
}

#[test]
fn quick_json_has_a_row_per_algorithm_and_the_schema() {
    let algs = ["aes-128-gcm", "chacha20", "kuznyechik-ctr", "magma-cbc"];
    let dir = std::env::temp_dir().join(format!("shifr-bench-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("rows.csv");
    let plots = dir.join("plots");
    let out = shifr(
        &[
            "bench",
            "--quick",
            "--json",
            "--seconds",
            "0.002",
            "--size",
            "1K",
            "--alg",
            &algs.join(","),
            "--csv",
            csv.to_str().unwrap(),
            "--plot",
            plots.to_str().unwrap(),
        ],
        b"",
        &[],
    )
    .expect_ok("shifr bench --quick --json");
    let rows = rows(&out);
    for alg in algs {
        let shifr_rows: Vec<_> = rows
            .iter()
            .filter(|r| r["algorithm"] == alg && r["implementation"] == "shifr")
            .collect();
        assert_eq!(shifr_rows.len(), 1, "{alg}: one shifr row");
    }
    for r in &rows {
        for f in FIELDS {
            assert!(r.get(*f).is_some(), "row lacks {f}: {r}");
        }
        assert_eq!(r["bytes"], 1024);
        assert_eq!(r["threads"], 1);
        assert_eq!(r["streams"], 1);
        let (mid, lo, hi) = (
            r["mb_s"].as_f64().unwrap(),
            r["mb_s_min"].as_f64().unwrap(),
            r["mb_s_max"].as_f64().unwrap(),
        );
        assert!(lo <= mid && mid <= hi && lo > 0.0, "{r}");
        assert!(r["cycles_per_byte"].is_null() || r["cycles_per_byte"].as_f64().unwrap() > 0.0);
        assert!(r["joules_per_gb"].is_null() || r["joules_per_gb"].is_number());
        let is_peer = r["implementation"] != "shifr";
        assert_eq!(r["ratio_vs_shifr"].is_number(), is_peer, "{r}");
    }
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.starts_with("implementation,algorithm,backend,"));
    assert_eq!(text.lines().count(), rows.len() + 1);
    for name in ["throughput", "cycles", "scaling"] {
        let png = std::fs::read(plots.join(format!("{name}.png"))).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let svg = std::fs::read_to_string(plots.join(format!("{name}.svg"))).unwrap();
        assert!(svg.contains("<svg"));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The output of `shifr bench --quick --seconds 0.002 --size 1K --alg <algs>` and `extra`.
fn quick_1k(algs: &[&str], extra: &[&str]) -> Vec<u8> {
    let algs = algs.join(",");
    let mut args = vec![
        "bench",
        "--quick",
        "--seconds",
        "0.002",
        "--size",
        "1K",
        "--alg",
        &algs,
    ];
    args.extend_from_slice(extra);
    shifr(&args, b"", &[]).expect_ok(&args.join(" "))
}

#[test]
fn direction_both_gives_encrypt_and_decrypt_rows_for_shifr_and_a_peer() {
    let algs = ["aes-128-gcm", "magma-cbc"];
    let rows = rows(&quick_1k(&algs, &["--json", "--direction", "both"]));
    for alg in algs {
        for direction in ["encrypt", "decrypt"] {
            let of = |peer: bool| {
                rows.iter()
                    .filter(|r| r["algorithm"] == alg && r["direction"] == direction)
                    .filter(|r| (r["implementation"] != "shifr") == peer)
                    .count()
            };
            assert_eq!(of(false), 1, "{alg} {direction}: one shifr row");
            assert!(of(true) >= 1, "{alg} {direction}: no peer row");
        }
    }
    // A decryption-only run: the summary, when it answers, says it answers from decryption.
    let text = quick_1k(&["aes-128-gcm"], &["--full", "--direction", "decrypt"]);
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("(one thread, decryption, MB/s"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("ALGORITHM") && l.contains("DIR")),
        "{text}"
    );
    assert!(!text.contains("(one thread, encryption"), "{text}");
}

#[test]
fn threads_and_streams_rows_carry_their_shape() {
    let out = shifr(
        &[
            "bench",
            "--json",
            "--seconds",
            "0.002",
            "--size",
            "4K",
            "--alg",
            "aes-128-cbc",
            "--threads",
            "1,2",
            "--streams",
            "4",
            "--peers",
            "none",
        ],
        b"",
        &[],
    )
    .expect_ok("shifr bench --threads --streams");
    let rows = rows(&out);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["threads"], 1);
    assert_eq!(rows[1]["threads"], 2);
    assert!(rows.iter().all(|r| r["streams"] == 4));
}

#[test]
fn table_output_and_forced_portable_backend() {
    let out = shifr(
        &[
            "bench",
            "--seconds",
            "0.002",
            "--size",
            "64",
            "--alg",
            "aes-256-ctr",
            "--backend",
            "portable",
            "--peers",
            "none",
            "--full",
        ],
        b"",
        &[],
    )
    .expect_ok("shifr bench --backend portable");
    let text = String::from_utf8(out).unwrap();
    // No AEAD of the summary measured: no summary, the table first (a busy note may precede it).
    assert!(!text.contains("On this machine"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("ALGORITHM")), "{text}");
    assert!(
        text.contains("aes-256-ctr") && text.contains("portable"),
        "{text}"
    );
    assert!(text.contains("cycles:"));
}

#[test]
fn bad_options_are_one_line_errors() {
    for args in [
        &["bench", "--backend", "no-such-backend"][..],
        &["bench", "--alg", "rot13"],
        &["bench", "--size", "12Q"],
        &["bench", "--peers", "boringssl"],
        &["bench", "--threads", "0"],
        &["bench", "--direction", "sideways"],
    ] {
        let run = shifr(args, b"", &[]);
        assert!(!run.ok(), "{args:?} should fail");
        assert_eq!(run.stderr.lines().count(), 1, "{args:?}: {}", run.stderr);
        assert!(run.stderr.starts_with("shifr: error:"), "{}", run.stderr);
    }
    // `--backend gpu` reaches the GPU crate: a bad runtime name is its one-line error (whether or not
    // this machine has a GPU or an OpenCL platform). Without the `gpu` feature: tests/features.rs.
    #[cfg(feature = "gpu")]
    let run = shifr(
        &["bench", "--backend", "gpu"],
        b"",
        &[("SHIFR_GPU", "bogus")],
    );
    #[cfg(feature = "gpu")]
    {
        assert!(!run.ok());
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        assert!(run.stderr.contains("SHIFR_GPU=bogus"), "{}", run.stderr);
    }
}

#[test]
fn json_has_aws_lc_and_ring_rows_for_the_tls_aeads() {
    let algs = ["aes-128-gcm", "aes-256-gcm", "chacha20-poly1305"];
    let out = shifr(
        &[
            "bench",
            "--json",
            "--seconds",
            "0.002",
            "--size",
            "1K",
            "--alg",
            &algs.join(","),
        ],
        b"",
        &[],
    )
    .expect_ok("shifr bench --json");
    let rows = rows(&out);
    for alg in algs {
        for peer in ["aws-lc", "ring"] {
            let found = rows
                .iter()
                .filter(|r| r["algorithm"] == alg && r["implementation"] == peer)
                .count();
            assert_eq!(found, 1, "{alg}: one {peer} row");
        }
    }
    for r in &rows {
        assert!(
            r["cpu_share"].is_number() && r["contended"].is_boolean(),
            "{r}"
        );
        assert!(r["machine"].is_string() && r["cpu"].is_string(), "{r}");
        if r["implementation"] == "shifr" {
            assert!(r["state_bytes"].as_u64().is_some_and(|b| b >= 32), "{r}");
        }
    }
}

#[test]
fn default_output_is_the_summary_and_full_adds_the_table() {
    let args = [
        "bench",
        "--seconds",
        "0.002",
        "--size",
        "64,16K",
        "--alg",
        "aes-128-gcm,chacha20-poly1305,kuznyechik-mgm",
        "--peers",
        "ring",
    ];
    let text = String::from_utf8(shifr(&args, b"", &[]).expect_ok("shifr bench")).unwrap();
    assert!(text.starts_with("On this machine"), "{text}");
    for label in [
        "TLS records of 16 KiB",
        "64-byte messages",
        "GOST-compliant AEAD",
        "a CPU without AES instructions",
    ] {
        let line = text
            .lines()
            .find(|l| l.starts_with(label))
            .unwrap_or_else(|| panic!("{label}: {text}"));
        assert!(!line.contains("not measured"), "{line}");
    }
    // 1 KiB and 1 MiB were not asked for: said so, not guessed.
    let line = text.lines().find(|l| l.starts_with("bulk files")).unwrap();
    assert!(line.contains("not measured"), "{line}");
    assert!(
        !text.contains("ALGORITHM"),
        "no table without --full: {text}"
    );
    assert!(text.contains("--full"), "{text}");
    let mut full = args.to_vec();
    full.push("--full");
    let text = String::from_utf8(shifr(&full, b"", &[]).expect_ok("shifr bench --full")).unwrap();
    assert!(
        text.starts_with("On this machine") && text.contains("ALGORITHM"),
        "{text}"
    );
    assert!(
        text.contains("no-aes"),
        "the software-AES row is in the table: {text}"
    );
}

#[test]
fn report_merge_combines_two_machines() {
    let dir = support::temp_path("merge");
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = Vec::new();
    for (machine, backend) in [("fast-box", None), ("portable-box", Some("portable"))] {
        let env: Vec<(&str, &str)> = backend.map(|b| ("SHIFR_BACKEND", b)).into_iter().collect();
        let out = shifr(
            &[
                "bench",
                "--json",
                "--seconds",
                "0.002",
                "--size",
                "16K",
                "--alg",
                "aes-128-gcm,chacha20-poly1305",
                "--peers",
                "ring",
                "--machine",
                machine,
            ],
            b"",
            &env,
        )
        .expect_ok("shifr bench --json --machine");
        let path = dir.join(format!("{machine}.json"));
        std::fs::write(&path, out).unwrap();
        files.push(path);
    }
    let report = dir.join("report");
    let mut args = vec!["report", "merge"];
    args.extend(files.iter().map(|f| f.to_str().unwrap()));
    args.extend(["--out", report.to_str().unwrap()]);
    let out = String::from_utf8(shifr(&args, b"", &[]).expect_ok("shifr report merge")).unwrap();
    assert!(
        out.contains("fast-box") && out.contains("portable-box"),
        "{out}"
    );
    let md = std::fs::read_to_string(report.join("report.md")).unwrap();
    let lines: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("| fast-box") || l.starts_with("| portable-box"))
        .collect();
    // One line per machine in the comparison and one in the answers.
    assert_eq!(lines.len(), 4, "{md}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("| portable-box") && l.contains("(portable)")),
        "{md}"
    );
    let csv = std::fs::read_to_string(report.join("machines.csv")).unwrap();
    assert!(csv.starts_with("machine,cpu,cpu_backends,algorithm,"));
    assert_eq!(
        csv.lines()
            .filter(|l| l.starts_with("portable-box,"))
            .count(),
        5
    );
    let merged = std::fs::read_to_string(report.join("merged.csv")).unwrap();
    assert!(merged.contains("fast-box") && merged.contains("portable-box"));
    let png = std::fs::read(report.join("machines.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    // Not bench JSON: one line, non-zero exit.
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{}").unwrap();
    let run = shifr(
        &[
            "report",
            "merge",
            bad.to_str().unwrap(),
            "--out",
            report.to_str().unwrap(),
        ],
        b"",
        &[],
    );
    assert!(!run.ok());
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    std::fs::remove_dir_all(&dir).unwrap();
}
