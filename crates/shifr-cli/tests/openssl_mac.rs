//! The MAC names against OpenSSL (openssl_diff.rs covers `openssl enc`, which has no MACs):
//! aes-*-cmac against `openssl mac CMAC`, magma-mac against `openssl dgst -engine gost -mac
//! magma-mac`. kuznyechik-mac is not compared: this engine's `-mac kuznyechik-mac` prints the
//! Magma MAC followed by 8 bytes of uninitialised memory; its vectors come from GOST R 34.13 instead.
//!
//! Skipped, with a message, where `openssl` (or its gost engine) cannot be run.

mod support;

use rand::RngCore;
use std::process::{Command, Stdio};
use support::{shifr, temp_file};

const LENGTHS: [usize; 9] = [0, 1, 7, 8, 15, 16, 17, 64, 1000];

fn random_bytes(len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rand::thread_rng().fill_bytes(&mut v);
    v
}

/// Runs openssl and returns the hex MAC it prints (the first word of its output: `openssl mac`
/// prints only the MAC, `openssl dgst -r` prints `<mac> *<file>`), lowercased, or `None` with the
/// reason on stderr.
fn openssl_mac(args: &[String]) -> Option<String> {
    let out = Command::new("openssl")
        .args(args)
        .env_remove("CRYPT_PARAMS")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| eprintln!("cannot run openssl: {e}"))
        .ok()?;
    if !out.status.success() {
        eprintln!(
            "openssl {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    text.split_whitespace().next().map(str::to_ascii_lowercase)
}

fn shifr_mac(name: &str, key: &[u8], msg: &[u8]) -> String {
    let key_file = temp_file("mac-key", key);
    let args = [
        "cipher",
        "-a",
        name,
        "--key-file",
        key_file.to_str().unwrap(),
    ];
    hex::encode(shifr(&args, msg, &[]).expect_ok(name))
}

#[test]
fn aes_cmac_matches_openssl_mac() {
    for (name, key_len, ossl) in [
        ("aes-128-cmac", 16, "AES-128-CBC"),
        ("aes-192-cmac", 24, "AES-192-CBC"),
        ("aes-256-cmac", 32, "AES-256-CBC"),
    ] {
        for len in LENGTHS {
            let key = random_bytes(key_len);
            let msg = random_bytes(len);
            let msg_file = temp_file("cmac-msg", &msg);
            let args = [
                "mac".to_string(),
                "-cipher".to_string(),
                ossl.to_string(),
                "-macopt".to_string(),
                format!("hexkey:{}", hex::encode(&key)),
                "-in".to_string(),
                msg_file.display().to_string(),
                "CMAC".to_string(),
            ];
            let Some(theirs) = openssl_mac(&args) else {
                eprintln!("openssl mac CMAC unavailable: comparison not run");
                return;
            };
            assert_eq!(shifr_mac(name, &key, &msg), theirs, "{name} len {len}");
        }
    }
}

#[test]
fn magma_mac_matches_openssl_gost_engine() {
    for len in LENGTHS {
        let key = random_bytes(32);
        let msg = random_bytes(len);
        let msg_file = temp_file("magma-mac-msg", &msg);
        let args = [
            "dgst".to_string(),
            "-engine".to_string(),
            "gost".to_string(),
            "-mac".to_string(),
            "magma-mac".to_string(),
            "-macopt".to_string(),
            format!("hexkey:{}", hex::encode(&key)),
            "-r".to_string(),
            msg_file.display().to_string(),
        ];
        let Some(theirs) = openssl_mac(&args) else {
            eprintln!("openssl gost engine magma-mac unavailable: comparison not run");
            return;
        };
        assert_eq!(
            shifr_mac("magma-mac", &key, &msg),
            theirs,
            "magma-mac len {len}"
        );
    }
}
