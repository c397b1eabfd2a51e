//! `shifr bench` end to end on a tiny configuration: JSON schema, one row per requested algorithm,
//! CSV and charts written, bad options refused. No timing thresholds.

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
        ],
        b"",
        &[],
    )
    .expect_ok("shifr bench --backend portable");
    let text = String::from_utf8(out).unwrap();
    assert!(text.starts_with("ALGORITHM"), "{text}");
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
