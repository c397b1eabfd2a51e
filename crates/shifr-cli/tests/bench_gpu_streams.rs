//! `shifr bench --backend gpu` with the multi-stream rows (Kuznyechik CFB / CBC / MAC under both
//! names, Magma CBC) through the built binary, on whatever GPU or OpenCL device there is (PoCL's CPU
//! device in CI; without one the test prints `skipped: <reason>` and passes). Each row is checked
//! against the CPU library by the command itself before it is timed, so a wrong kernel fails the
//! command; no timing is checked.

#![cfg(feature = "gpu")]

#[path = "../../shifr-gpu/tests/support/mod.rs"]
mod gpu_support;
mod support;

use support::shifr;

#[test]
fn multistream_rows_run_and_are_checked_against_the_cpu() {
    let algs = "kuznyechik-cfb,kuznyechik-cbc-streams,kuznyechik-mac,magma-cbc-streams";
    let run = shifr(
        &[
            "bench",
            "--backend",
            "gpu",
            "--alg",
            algs,
            "--streams",
            "64",
            "--size",
            "64K",
            "--quick",
        ],
        b"",
        &[],
    );
    if !run.ok() && run.stderr.contains("no GPU") {
        gpu_support::no_device(
            "multistream_rows_run_and_are_checked_against_the_cpu",
            run.stderr.trim(),
        );
        return;
    }
    let stdout = String::from_utf8(run.stdout.clone()).unwrap();
    assert!(run.ok(), "stderr: {}\nstdout: {stdout}", run.stderr);
    gpu_support::ran_on(
        "multistream_rows_run_and_are_checked_against_the_cpu",
        "shifr bench --backend gpu",
    );
    for row in [
        "kuznyechik-cfb-encrypt 64 x 512 B",
        "kuznyechik-cbc-encrypt 64 x 512 B",
        "kuznyechik-mac 64 x 512 B",
        "magma-cbc-encrypt 64 x 512 B",
    ] {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(row))
            .unwrap_or_else(|| panic!("no row '{row}' in:\n{stdout}"));
        // Two figures: device-resident and host-to-host GB/s.
        let figures: Vec<f64> = line[row.len()..]
            .split_whitespace()
            .map(|f| f.parse().unwrap())
            .collect();
        assert_eq!(figures.len(), 2, "{line}");
    }
    // Magma CFB / CBC / MAC exist on the GPU only as multi-stream rows: plain names are refused.
    let run = shifr(
        &["bench", "--backend", "gpu", "--alg", "magma-cbc", "--quick"],
        b"",
        &[],
    );
    assert!(!run.ok());
    assert!(
        run.stderr.contains("unknown GPU workload"),
        "{}",
        run.stderr
    );
}
