//! The optional parts of the build (Cargo features `peers`, `gpu` and `tls`, README "Features"):
//! `shifr --version` names the ones this binary has, `--peers none` and the default peer list work in
//! every build, and a command that needs a part this build left out says so in one line — an error
//! with a non-zero exit, or for `encrypt --backend gpu` a note and the CPU path, as on a machine
//! without a GPU — never a panic and never a silent skip. The checks for absent parts run in a
//! `--no-default-features` build (scripts/cross-test.sh runs this file against the static musl
//! binary).

mod support;

use support::shifr;
#[cfg(not(all(feature = "gpu", feature = "tls", feature = "peers")))]
use support::{one_clean_line, temp_path};

/// Each optional part with whether this test build has it.
const FEATURES: [(&str, bool); 3] = [
    ("peers", cfg!(feature = "peers")),
    ("gpu", cfg!(feature = "gpu")),
    ("tls", cfg!(feature = "tls")),
];

#[test]
fn version_names_the_features_of_this_build() {
    let out = shifr(&["--version"], b"", &[]).expect_ok("--version");
    let text = String::from_utf8(out).unwrap();
    let list = text
        .split_once("optional features: ")
        .and_then(|(_, rest)| rest.split_once(';'))
        .map(|(list, _)| list)
        .unwrap_or_else(|| panic!("no feature list in {text:?}"));
    let want: Vec<&str> = FEATURES.iter().filter(|f| f.1).map(|f| f.0).collect();
    let want = if want.is_empty() {
        "none".to_string()
    } else {
        want.join(", ")
    };
    assert_eq!(list, want, "{text}");
}

/// The implementations of a `shifr bench --json` run.
fn bench_implementations(extra: &[&str]) -> Vec<String> {
    let mut args = vec![
        "bench",
        "--json",
        "--seconds",
        "0.002",
        "--size",
        "64",
        "--alg",
        "aes-128-ctr",
    ];
    args.extend_from_slice(extra);
    let out = shifr(&args, b"", &[]).expect_ok("shifr bench");
    let rows: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let mut names: Vec<String> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["implementation"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn peers_none_and_the_default_peers_work_in_every_build() {
    assert_eq!(bench_implementations(&["--peers", "none"]), ["shifr"]);
    // The default is every peer this build has: RustCrypto always, OpenSSL and AWS-LC (which offers
    // AES-CTR; ring does not) with `peers`.
    let mut want = vec!["rustcrypto", "shifr"];
    if cfg!(feature = "peers") {
        want.splice(0..0, ["aws-lc", "openssl"]);
    }
    assert_eq!(bench_implementations(&[]), want);
}

#[cfg(not(feature = "peers"))]
#[test]
fn openssl_peers_left_out_are_named() {
    for peers in ["openssl", "rustcrypto,openssl-gost"] {
        let run = shifr(
            &["bench", "--alg", "aes-128-ctr", "--peers", peers],
            b"",
            &[],
        );
        assert!(!run.ok(), "--peers {peers}");
        assert!(one_clean_line(&run.stderr), "{}", run.stderr);
        assert!(
            run.stderr
                .contains("this shifr was built without the `peers` feature"),
            "{}",
            run.stderr
        );
    }
}

#[cfg(not(feature = "gpu"))]
#[test]
fn gpu_left_out_is_named() {
    let without = "this shifr was built without the `gpu` feature";
    // bench: by option and by environment.
    for (args, env) in [
        (&["bench", "--backend", "gpu"][..], &[][..]),
        (&["bench", "--quick"][..], &[("SHIFR_BACKEND", "gpu")][..]),
    ] {
        let run = shifr(args, b"", env);
        assert!(!run.ok(), "{args:?}");
        assert!(one_clean_line(&run.stderr), "{}", run.stderr);
        assert!(run.stderr.contains(without), "{}", run.stderr);
    }
    // study: refused before the CPU part runs.
    let out = temp_path("no-gpu-study");
    let run = shifr(
        &[
            "study",
            "gost-streams",
            "--tiny",
            "--backend",
            "gpu",
            "--out",
            out.to_str().unwrap(),
        ],
        b"",
        &[],
    );
    assert!(!run.ok());
    assert!(one_clean_line(&run.stderr), "{}", run.stderr);
    assert!(run.stderr.contains(without), "{}", run.stderr);
    assert!(!out.join("report.md").exists());

    // encrypt: a note and the CPU path; the file decrypts.
    let key = temp_path("no-gpu-key");
    std::fs::write(&key, [0xc2u8; 32]).unwrap();
    let plain: Vec<u8> = (0..100_000u32).map(|i| (i * 7) as u8).collect();
    let run = shifr(
        &[
            "encrypt",
            "--key-file",
            key.to_str().unwrap(),
            "--backend",
            "gpu",
        ],
        &plain,
        &[],
    );
    assert!(one_clean_line(&run.stderr), "{}", run.stderr);
    assert!(
        run.stderr.contains(without) && run.stderr.contains("CPU path"),
        "{}",
        run.stderr
    );
    let sealed = run.expect_ok("encrypt --backend gpu");
    let back = shifr(
        &["decrypt", "--key-file", key.to_str().unwrap()],
        &sealed,
        &[],
    )
    .expect_ok("decrypt");
    assert_eq!(back, plain);
    std::fs::remove_file(&key).unwrap();
}

#[cfg(not(feature = "tls"))]
#[test]
fn tls_left_out_is_named() {
    let out = temp_path("no-tls-study");
    let run = shifr(
        &["study", "tls", "--tiny", "--out", out.to_str().unwrap()],
        b"",
        &[],
    );
    assert!(!run.ok());
    assert!(one_clean_line(&run.stderr), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("this shifr was built without the `tls` feature"),
        "{}",
        run.stderr
    );
    assert!(!out.exists());
}
