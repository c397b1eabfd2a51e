//! Differential test of the `shifr` binary against `openssl enc`.
//!
//! For every name that both `shifr list` and `openssl enc` (with `-engine gost` for the GOST names)
//! offer, on random keys, IVs and lengths, `shifr cipher -a NAME --key-file F --iv HEX --nopad` must
//! print exactly what `openssl enc -NAME -nopad -K HEX -iv HEX` prints, each tool must decrypt the
//! other's output back to the plaintext, and ECB/CBC names are also compared with PKCS#7 padding.
//! The key reaches shifr only through a 0600 temporary key file, never its command line.
//!
//! The test prints which names were compared and which were skipped, and why. It is skipped as a
//! whole (with the reason printed) when `openssl` cannot be run; the GOST names alone are skipped
//! when the GOST engine is missing. A name both tools offer with different output — or different key
//! or IV sizes, which makes `openssl enc` silently zero-pad or truncate — is a failure.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use rand::RngCore;

const SHIFR: &str = env!("CARGO_BIN_EXE_shifr");

/// One row of `shifr list`.
#[derive(Debug)]
struct Entry {
    name: String,
    kind: String,
    key_len: usize,
    /// IV bytes to use; `None` for names without an IV (ECB).
    iv_len: Option<usize>,
    /// ECB/CBC: PKCS#7 by default, whole blocks only with `--nopad`.
    padded: bool,
}

/// Parses `shifr list`: a header row starting with `NAME`, then one row per algorithm until the
/// first blank line. Cells are separated by at least two spaces (a cell never holds two).
fn shifr_list() -> Vec<Entry> {
    let out = Command::new(SHIFR)
        .arg("list")
        .output()
        .expect("run shifr list");
    assert!(
        out.status.success(),
        "shifr list failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("shifr list prints UTF-8");
    let mut lines = text.lines().skip_while(|l| !l.starts_with("NAME"));
    let header = split_cells(lines.next().expect("shifr list has a NAME header"));
    let col = |title: &str| {
        header
            .iter()
            .position(|h| *h == title)
            .unwrap_or_else(|| panic!("shifr list has no {title} column"))
    };
    let (name, kind, key, iv, padding) = (
        col("NAME"),
        col("KIND"),
        col("KEY"),
        col("IV"),
        col("PADDING"),
    );
    lines
        .take_while(|l| !l.trim().is_empty())
        .map(|line| {
            let cells = split_cells(line);
            let cell = |i: usize| cells.get(i).copied().unwrap_or("");
            Entry {
                name: cell(name).to_string(),
                kind: cell(kind).to_string(),
                key_len: cell(key).parse().unwrap_or(0),
                iv_len: parse_iv(cell(iv)),
                padded: cell(padding) == "pkcs7",
            }
        })
        .collect()
}

fn split_cells(line: &str) -> Vec<&str> {
    line.split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect()
}

/// `-` = none, `16` = exactly, `8*z` = a register of z blocks (OpenSSL uses z = 1), `12 (1+)` =
/// default 12.
fn parse_iv(cell: &str) -> Option<usize> {
    let digits: String = cell.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The block size that decides the interesting lengths (the ChaCha20 block for chacha20).
fn block_size(name: &str) -> usize {
    if name.starts_with("aes") || name.starts_with("kuznyechik") {
        16
    } else if name.starts_with("chacha20") {
        64
    } else {
        8
    }
}

fn needs_gost_engine(name: &str) -> bool {
    name.starts_with("magma") || name.starts_with("kuznyechik") || name.starts_with("gost")
}

/// Runs `program args` with `input` on stdin (written from another thread, so large outputs
/// cannot deadlock the pipe).
fn run(program: &str, args: &[String], input: &[u8]) -> Output {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let data = input.to_vec();
    let writer = std::thread::spawn(move || {
        // A tool that rejects its input early may close stdin; its exit status reports that.
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().expect("wait for child");
    writer.join().expect("stdin writer");
    out
}

/// `openssl enc [-engine gost] -NAME ...` arguments.
fn openssl_args(
    name: &str,
    key: &[u8],
    iv: Option<&[u8]>,
    nopad: bool,
    decrypt: bool,
) -> Vec<String> {
    let mut args = vec!["enc".to_string()];
    if needs_gost_engine(name) {
        args.extend(["-engine".to_string(), "gost".to_string()]);
    }
    args.push(format!("-{name}"));
    if nopad {
        args.push("-nopad".into());
    }
    if decrypt {
        args.push("-d".into());
    }
    args.extend(["-K".to_string(), hex::encode(key)]);
    if let Some(iv) = iv {
        args.extend(["-iv".to_string(), hex::encode(iv)]);
    }
    args
}

/// Asks `openssl enc -P` which key and IV sizes it uses for `name` (it prints the key and IV after
/// zero-padding or truncating what it was given). `Err` = openssl does not offer the name.
fn openssl_sizes(name: &str) -> Result<(usize, usize), String> {
    let mut args = openssl_args(name, &[0; 64], Some(&[0; 32]), false, false);
    args.push("-P".into());
    let out = run("openssl", &args, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let first = err
            .lines()
            .find(|l| !l.starts_with("Engine"))
            .unwrap_or("")
            .trim();
        return Err(format!("openssl enc does not offer it ({first})"));
    }
    let hex_len = |prefix: &str| {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(prefix))
            .map_or(0, |v| v.trim().len() / 2)
    };
    Ok((hex_len("key="), hex_len("iv =")))
}

/// A key file readable only by the owner, removed on drop.
struct KeyFile(PathBuf);

impl KeyFile {
    fn new(key: &[u8]) -> KeyFile {
        use std::os::unix::fs::OpenOptionsExt;
        let path = std::env::temp_dir().join(format!(
            "shifr-openssl-diff-{}-{}.key",
            std::process::id(),
            rand::thread_rng().next_u64()
        ));
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .expect("create key file");
        f.write_all(hex::encode(key).as_bytes())
            .expect("write key file");
        KeyFile(path)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for KeyFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn shifr_args(
    name: &str,
    key_file: &KeyFile,
    iv: Option<&[u8]>,
    nopad: bool,
    decrypt: bool,
) -> Vec<String> {
    let mut args = vec!["cipher".to_string(), "-a".to_string(), name.to_string()];
    if decrypt {
        args.push("-d".into());
    }
    args.push("--key-file".into());
    args.push(key_file.path().display().to_string());
    if let Some(iv) = iv {
        args.extend(["--iv".to_string(), hex::encode(iv)]);
    }
    if nopad {
        args.push("--nopad".into());
    }
    args
}

fn first_difference(ours: &[u8], theirs: &[u8]) -> String {
    match ours.iter().zip(theirs).position(|(a, b)| a != b) {
        Some(i) => format!(
            "first differing byte at offset {i}: shifr {:02x}, openssl {:02x} (lengths {} / {})",
            ours[i],
            theirs[i],
            ours.len(),
            theirs.len()
        ),
        None => format!(
            "lengths differ: shifr {} bytes, openssl {} bytes",
            ours.len(),
            theirs.len()
        ),
    }
}

/// Lengths to try: around one block and several KiB (past the ACPKM sections of 1 KiB and 4 KiB);
/// only whole blocks where the input may not be padded.
fn lengths(block: usize, whole_blocks_only: bool) -> Vec<usize> {
    if whole_blocks_only {
        vec![
            0,
            block,
            2 * block,
            1024,
            4096 + block,
            9000 / block * block,
        ]
    } else {
        vec![0, 1, block - 1, block, block + 1, 3 * block + 5, 1025, 9000]
    }
}

/// Compares one name on one input; returns a description of every disagreement.
fn compare_one(entry: &Entry, nopad: bool, len: usize, rng: &mut impl RngCore) -> Vec<String> {
    let name = &entry.name;
    let mut key = vec![0u8; entry.key_len];
    rng.fill_bytes(&mut key);
    let iv = entry.iv_len.map(|n| {
        let mut v = vec![0u8; n];
        rng.fill_bytes(&mut v);
        v
    });
    let mut pt = vec![0u8; len];
    rng.fill_bytes(&mut pt);
    let key_file = KeyFile::new(&key);
    let iv = iv.as_deref();
    let case = format!(
        "{name}{} len {len} key {} iv {}",
        if nopad { " -nopad" } else { "" },
        hex::encode(&key),
        iv.map_or("-".to_string(), hex::encode)
    );
    let mut failures = Vec::new();

    let theirs = run("openssl", &openssl_args(name, &key, iv, nopad, false), &pt);
    if !theirs.status.success() {
        failures.push(format!(
            "{case}: openssl enc failed: {}",
            String::from_utf8_lossy(&theirs.stderr).trim()
        ));
        return failures;
    }
    let ours = run(SHIFR, &shifr_args(name, &key_file, iv, nopad, false), &pt);
    if !ours.status.success() {
        failures.push(format!(
            "{case}: shifr cipher failed: {}",
            String::from_utf8_lossy(&ours.stderr).trim()
        ));
        return failures;
    }
    if ours.stdout != theirs.stdout {
        failures.push(format!(
            "{case}: encryption differs: {}",
            first_difference(&ours.stdout, &theirs.stdout)
        ));
        return failures;
    }

    // Each tool decrypts the (common) ciphertext.
    let ours_pt = run(
        SHIFR,
        &shifr_args(name, &key_file, iv, nopad, true),
        &theirs.stdout,
    );
    if !ours_pt.status.success() || ours_pt.stdout != pt {
        failures.push(format!(
            "{case}: shifr -d of openssl's ciphertext: {}",
            if ours_pt.status.success() {
                first_difference(&ours_pt.stdout, &pt)
            } else {
                String::from_utf8_lossy(&ours_pt.stderr).trim().to_string()
            }
        ));
    }
    let theirs_pt = run(
        "openssl",
        &openssl_args(name, &key, iv, nopad, true),
        &ours.stdout,
    );
    if !theirs_pt.status.success() || theirs_pt.stdout != pt {
        failures.push(format!(
            "{case}: openssl -d of shifr's ciphertext does not give the plaintext back"
        ));
    }
    failures
}

#[test]
fn shifr_cipher_matches_openssl_enc() {
    let version = Command::new("openssl").arg("version").output();
    let Some(version) = version.ok().filter(|o| o.status.success()) else {
        eprintln!("SKIP shifr_cipher_matches_openssl_enc: cannot run `openssl version`");
        return;
    };
    eprintln!(
        "openssl: {}",
        String::from_utf8_lossy(&version.stdout).trim()
    );
    let engine = run("openssl", &["engine".into(), "gost".into()], &[]);
    let gost_engine = engine.status.success();
    if !gost_engine {
        eprintln!("GOST engine missing: the GOST names are skipped");
    }

    let mut rng = rand::thread_rng();
    let mut compared = Vec::new();
    let mut skipped = Vec::new();
    let mut failures = Vec::new();
    for entry in shifr_list() {
        let name = entry.name.as_str();
        if entry.kind == "aead" || entry.kind == "mac" {
            skipped.push(format!(
                "{name}: {} (openssl enc has no AEAD or MAC mode)",
                entry.kind
            ));
            continue;
        }
        if needs_gost_engine(name) && !gost_engine {
            skipped.push(format!("{name}: no GOST engine"));
            continue;
        }
        let (key_len, iv_len) = match openssl_sizes(name) {
            Ok(sizes) => sizes,
            Err(why) => {
                skipped.push(format!("{name}: {why}"));
                continue;
            }
        };
        if key_len != entry.key_len || iv_len != entry.iv_len.unwrap_or(0) {
            failures.push(format!(
                "{name}: sizes differ: shifr key {} iv {:?}, openssl key {key_len} iv {iv_len} \
                 (openssl would zero-pad or truncate)",
                entry.key_len, entry.iv_len
            ));
            continue;
        }
        let block = block_size(name);
        let before = failures.len();
        for len in lengths(block, entry.padded) {
            failures.extend(compare_one(&entry, true, len, &mut rng));
        }
        if entry.padded {
            for len in lengths(block, false) {
                failures.extend(compare_one(&entry, false, len, &mut rng));
            }
        }
        let verdict = if failures.len() == before {
            "ok"
        } else {
            "FAIL"
        };
        compared.push(format!("{name} ({verdict})"));
    }

    let mut report = String::new();
    let _ = writeln!(
        report,
        "compared {} names: {}",
        compared.len(),
        compared.join(", ")
    );
    let _ = writeln!(report, "skipped {} names:", skipped.len());
    for s in &skipped {
        let _ = writeln!(report, "  {s}");
    }
    eprintln!("{report}");
    assert!(!compared.is_empty(), "no name was compared: {report}");
    assert!(
        failures.is_empty(),
        "{} mismatches between shifr and openssl:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn random_lengths_cover_the_edges() {
    // The helpers themselves: whole-block lists contain only multiples, the others the edges.
    for block in [8usize, 16, 64] {
        assert!(lengths(block, true).iter().all(|l| l.is_multiple_of(block)));
        let l = lengths(block, false);
        for want in [0, 1, block - 1, block, block + 1] {
            assert!(l.contains(&want), "{want} missing for block {block}");
        }
    }
    assert_eq!(parse_iv("8*z"), Some(8));
    assert_eq!(parse_iv("12 (1+)"), Some(12));
    assert_eq!(parse_iv("-"), None);
    assert_eq!(
        split_cells("aes-128-cbc  block mode  16  16"),
        ["aes-128-cbc", "block mode", "16", "16"]
    );
}
