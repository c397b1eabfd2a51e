//! Killing `shifr encrypt` with SIGKILL in the middle of its output leaves the output directory exactly
//! as it was: no partial file under the final name and no temporary file either (the data is in an
//! unnamed O_TMPFILE file until the commit). The input is a FIFO this test keeps open, so the process
//! is certainly still running, with output written, when it is killed.

use std::ffi::CString;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn scratch(tag: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("shifr-kill-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn mkfifo(path: &Path) {
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: `c` is a valid NUL-terminated path; mkfifo only reads it.
    let rc = unsafe { libc::mkfifo(c.as_ptr(), 0o600) };
    assert_eq!(rc, 0, "mkfifo: {}", std::io::Error::last_os_error());
}

/// Bytes written so far to the file the child has open in `dir` (unnamed or not), if any.
fn bytes_written_in(pid: u32, dir: &Path) -> Option<u64> {
    let dir = std::fs::canonicalize(dir).ok()?;
    for entry in std::fs::read_dir(format!("/proc/{pid}/fd")).ok()? {
        let link = entry.ok()?.path();
        let Ok(to) = std::fs::read_link(&link) else {
            continue;
        };
        if to.starts_with(&dir) {
            return std::fs::metadata(&link).ok().map(|m| m.len());
        }
    }
    None
}

/// Starts `shifr encrypt` from the FIFO `fifo` into `out`, with `extra` arguments.
fn spawn_encrypt(key: &Path, fifo: &Path, out: &Path, extra: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_shifr"))
        .args(["encrypt", "-q", "-a", "chacha20-poly1305", "--key-file"])
        .arg(key)
        .args(extra)
        .arg("-o")
        .arg(out)
        .arg(fifo)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .env_remove("SHIFR_BACKEND")
        .spawn()
        .expect("spawn shifr")
}

/// Feeds `feed` bytes into the FIFO, waits until the child has written at least `written` bytes of
/// output into `out_dir`, then kills it with SIGKILL while the FIFO is still open.
fn kill_mid_way(key: &Path, out_dir: &Path, out: &Path, extra: &[&str], feed: usize, written: u64) {
    let fifo_dir = scratch(&format!(
        "fifo-{}",
        out_dir.file_name().unwrap().to_string_lossy()
    ));
    let fifo = fifo_dir.join("in");
    mkfifo(&fifo);
    let mut child = spawn_encrypt(key, &fifo, out, extra);
    // Opening the write end blocks until shifr opens the read end.
    let mut writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    writer.write_all(&vec![0x5a; feed]).unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if bytes_written_in(child.id(), out_dir).is_some_and(|n| n >= written) {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "shifr exited before it was killed"
        );
        assert!(Instant::now() < deadline, "shifr wrote no output in 60 s");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    let status = child.wait().unwrap();
    assert!(!status.success());
    drop(writer);
    std::fs::remove_dir_all(fifo_dir).unwrap();
}

#[test]
fn sigkill_mid_encryption_leaves_no_entry() {
    let keys = scratch("key");
    let key = keys.join("key");
    std::fs::write(&key, [0xc3u8; 32]).unwrap();

    // A new output: killed right after the header, and after several MiB of chunks.
    for (i, written) in [1u64, 4 << 20].into_iter().enumerate() {
        let dir = scratch(&format!("new{i}"));
        kill_mid_way(&key, &dir, &dir.join("out.shifr"), &[], 9 << 20, written);
        assert_eq!(listing(&dir), Vec::<String>::new(), "entries left behind");
        std::fs::remove_dir_all(dir).unwrap();
    }

    // Replacing an existing output with --force: the old file is intact and nothing else appears.
    let dir = scratch("force");
    let out = dir.join("out.shifr");
    std::fs::write(&out, b"the old file").unwrap();
    kill_mid_way(&key, &dir, &out, &["--force"], 9 << 20, 4 << 20);
    assert_eq!(listing(&dir), ["out.shifr"]);
    assert_eq!(std::fs::read(&out).unwrap(), b"the old file");
    std::fs::remove_dir_all(dir).unwrap();
    std::fs::remove_dir_all(keys).unwrap();
}
