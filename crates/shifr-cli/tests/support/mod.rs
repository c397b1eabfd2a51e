//! Helpers shared by the CLI tests: running the built `shifr`, temporary key files, and a minimal
//! reader for the shared vector files (format: shared/vectors/README.md).

#![allow(dead_code)] // each test file uses a different subset

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// What a run of `shifr` produced.
pub struct Run {
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl Run {
    pub fn ok(&self) -> bool {
        self.code == Some(0)
    }

    /// Panics with the command's stderr unless it succeeded.
    pub fn expect_ok(self, what: &str) -> Vec<u8> {
        assert!(
            self.ok(),
            "{what}: exit {:?}, stderr: {}",
            self.code,
            self.stderr
        );
        self.stdout
    }
}

/// Runs `shifr args...` with `stdin` and extra environment variables. `SHIFR_KEY` and
/// `SHIFR_BACKEND` from the test's own environment are removed first, and `SHIFR_TUNE_FILE` names
/// a file that does not exist (so that a calibration in the user's cache cannot take part) unless
/// `env` sets it.
pub fn shifr(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_shifr"));
    cmd.args(args)
        .env_remove("SHIFR_KEY")
        .env_remove("SHIFR_BACKEND")
        .env(
            "SHIFR_TUNE_FILE",
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("no-such-tune-file"),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn shifr");
    let mut pipe = child.stdin.take().expect("stdin pipe");
    let input = stdin.to_vec();
    // Feed stdin from a thread so that a large input cannot deadlock against a full stdout pipe.
    let feeder = std::thread::spawn(move || {
        // shifr may exit early on a bad argument without reading; a broken pipe is fine then.
        let _ = pipe.write_all(&input);
    });
    let Output {
        status,
        stdout,
        stderr,
    } = child.wait_with_output().expect("wait for shifr");
    feeder.join().expect("stdin feeder");
    Run {
        code: status.code(),
        stdout,
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    }
}

/// A fresh path under the integration-test scratch directory.
pub fn temp_path(tag: &str) -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("shifr-cli-{}-{tag}-{n}", std::process::id()))
}

/// A fresh empty directory for one test, under the integration-test scratch directory.
pub fn temp_dir(tag: &str) -> PathBuf {
    let dir = temp_path(tag);
    std::fs::create_dir_all(&dir).expect("create a test directory");
    dir
}

/// `len` random bytes.
pub fn random_bytes(len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rand::RngCore::fill_bytes(&mut rand::thread_rng(), &mut v);
    v
}

/// Writes `contents` to a fresh temporary file and returns its path.
pub fn temp_file(tag: &str, contents: &[u8]) -> PathBuf {
    let path = temp_path(tag);
    std::fs::write(&path, contents).expect("write temp file");
    path
}

/// The shared vector directory (read at test time): `shared/vectors` next to the checkout
/// (`../../../shared` from this crate), next to the worktree directory one level further up, or
/// inside the checkout.
pub fn vectors_dir() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    [
        "../../../shared/vectors",
        "../../../../shared/vectors",
        "../../shared/vectors",
    ]
    .iter()
    .map(|rel| manifest.join(rel))
    .find(|dir| dir.join("std.txt").is_file())
    .unwrap_or_else(|| panic!("shared/vectors not found near {}", manifest.display()))
}

/// One vector record: its name and its `field = value` lines.
pub struct Record {
    pub name: String,
    pub fields: BTreeMap<String, String>,
}

impl Record {
    pub fn get(&self, k: &str) -> Option<&str> {
        self.fields.get(k).map(String::as_str)
    }

    pub fn hex(&self, k: &str) -> Option<Vec<u8>> {
        self.get(k).map(|v| hex::decode(v).expect("hex field"))
    }

    pub fn num(&self, k: &str) -> Option<usize> {
        self.get(k).map(|v| v.parse().expect("decimal field"))
    }
}

/// Reads the records of a shared vector file.
pub fn read_vectors(file: &str) -> Vec<Record> {
    let path = vectors_dir().join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut out = Vec::new();
    for block in text.split("\n\n") {
        let mut name = None;
        let mut fields = BTreeMap::new();
        for line in block.lines() {
            if let Some(h) = line.strip_prefix("# ") {
                name.get_or_insert_with(|| h.split(" / ").next().unwrap_or(h).trim().to_string());
            } else if let Some((k, v)) = line.split_once('=') {
                if !line.starts_with('#') {
                    fields.insert(k.trim().to_string(), v.trim().to_string());
                }
            }
        }
        if let (Some(name), false) = (name, fields.is_empty()) {
            out.push(Record { name, fields });
        }
    }
    out
}

/// Whether stderr is exactly one line and shows no sign of a panic.
pub fn one_clean_line(stderr: &str) -> bool {
    stderr.lines().count() == 1
        && stderr.ends_with('\n')
        && !stderr.contains("panicked")
        && !stderr.contains("internal error")
        && !stderr.contains("RUST_BACKTRACE")
}
