//! The container commands used as a hostile or careless user would: outputs that are FIFOs, device
//! nodes or directories, secret files that are the data itself, out-of-range arguments, a hostile KDF
//! header, a full file system under `keygen`, very long output names and ambiguous key files. Each case
//! checks the exit status, the one-line message and that nothing was lost or replaced.
//!
//! Device nodes are made with mknod under a temporary directory (never a node of /dev), which needs
//! root: the node cases say so on stderr and do nothing else when the tests do not run as root; the
//! FIFO cases run everywhere.

mod support;

use std::ffi::CString;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::{one_clean_line, random_bytes, shifr, temp_dir};

/// Cheap Argon2id for tests (the header records it).
const TEST_ARGON2: (&str, &str) = ("SHIFR_TEST_ARGON2", "256,1,1");
const KEY_HEX: &str = "5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c5c";

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A key file holding [`KEY_HEX`] in `dir`.
fn key_file(dir: &Path) -> PathBuf {
    let key = dir.join("key");
    std::fs::write(&key, format!("{KEY_HEX}\n")).unwrap();
    key
}

/// A container of `plain` sealed with the key file `key`.
fn sealed_with_key(key: &Path, plain: &[u8]) -> Vec<u8> {
    shifr(&["encrypt", "-q", "--key-file", s(key)], plain, &[]).expect_ok("encrypt")
}

/// A test directory with a key file and `f.shifr`, the container of `plain` under that key.
fn fixture(tag: &str, plain: &[u8]) -> (PathBuf, PathBuf, PathBuf) {
    let dir = temp_dir(tag);
    let key = key_file(&dir);
    let sealed = dir.join("f.shifr");
    std::fs::write(&sealed, sealed_with_key(&key, plain)).unwrap();
    (dir, key, sealed)
}

/// `shifr decrypt -q --key-file KEY EXTRA.. -o OUT SEALED`.
fn decrypt_into(key: &Path, out: &Path, sealed: &Path, extra: &[&str]) -> support::Run {
    let mut args = vec!["decrypt", "-q", "--key-file", s(key)];
    args.extend_from_slice(extra);
    args.extend(["-o", s(out), s(sealed)]);
    shifr(&args, b"", &[])
}

/// Checks the failure contract and returns the exit code. The warning that `SHIFR_TEST_ARGON2` prints
/// is not part of the error.
fn fails(mut run: support::Run, needle: &str) -> i32 {
    assert!(!run.ok(), "succeeded; stderr: {}", run.stderr);
    if let Some(rest) = run.stderr.strip_prefix("shifr: warning: SHIFR_TEST_ARGON2") {
        run.stderr = rest.split_once('\n').map_or("", |(_, r)| r).to_string();
    }
    assert!(
        one_clean_line(&run.stderr),
        "not one clean line: {:?}",
        run.stderr
    );
    assert!(
        run.stderr.contains(needle),
        "{:?} does not mention {needle:?}",
        run.stderr
    );
    run.code.expect("exited normally (no signal)")
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// mknod under a test directory; `kind` is `libc::S_IFCHR` or `libc::S_IFBLK`.
fn mknod(path: &Path, kind: libc::mode_t, major: u32, minor: u32) {
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: `c` is a valid NUL-terminated path for the duration of the call; mknod takes plain
    // integers otherwise.
    let rc = unsafe { libc::mknod(c.as_ptr(), kind | 0o600, libc::makedev(major, minor)) };
    assert_eq!(
        rc,
        0,
        "mknod {}: {}",
        path.display(),
        std::io::Error::last_os_error()
    );
}

fn mkfifo(path: &Path) {
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: `c` is a valid NUL-terminated path for the duration of the call.
    let rc = unsafe { libc::mkfifo(c.as_ptr(), 0o600) };
    assert_eq!(rc, 0, "mkfifo: {}", std::io::Error::last_os_error());
}

/// Runs `shifr args` with stdin from `stdin`, killing it after `limit`; `None` if it had to be killed.
fn run_with_stdin(args: &[&str], stdin: Stdio, limit: Duration) -> Option<support::Run> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_shifr"))
        .args(args)
        .env_remove("SHIFR_KEY")
        .env_remove("SHIFR_BACKEND")
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut stdout = Vec::new();
            let mut stderr = String::new();
            child
                .stdout
                .take()
                .unwrap()
                .read_to_end(&mut stdout)
                .unwrap();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut stderr)
                .unwrap();
            return Some(support::Run {
                code: status.code(),
                stdout,
                stderr,
            });
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_fifo_output_is_written_into_never_replaced() {
    let plain = random_bytes(100_000);
    let (dir, key, sealed) = fixture("fifo", &plain);
    for force in [false, true] {
        let fifo = dir.join(format!("fifo-{force}"));
        mkfifo(&fifo);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        let mut args = vec!["decrypt", "-q", "--key-file", s(&key), "-o", s(&fifo)];
        if force {
            args.push("--force");
        }
        args.push(s(&sealed));
        shifr(&args, b"", &[]).expect_ok("decrypt into a FIFO");
        assert!(
            reader.join().unwrap() == plain,
            "the FIFO's reader got other bytes"
        );
        let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(kind.is_fifo(), "the FIFO was replaced (force = {force})");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn device_nodes_are_never_replaced() {
    if !is_root() {
        eprintln!(
            "device_nodes_are_never_replaced: not root, mknod unavailable: only the FIFO test ran"
        );
        return;
    }
    let plain = random_bytes(100_000);
    let (dir, key, sealed) = fixture("nodes", &plain);

    // A character node like /dev/null (1, 3), made here: written into, still a node afterwards.
    let nul = dir.join("nul");
    mknod(&nul, libc::S_IFCHR, 1, 3);
    for command in [&["decrypt", "--force"][..], &["decrypt"][..]] {
        let mut args = command.to_vec();
        args.extend(["-q", "--key-file", s(&key), "-o", s(&nul), s(&sealed)]);
        shifr(&args, b"", &[]).expect_ok("decrypt into a character node");
        let meta = std::fs::symlink_metadata(&nul).unwrap();
        assert!(
            meta.file_type().is_char_device(),
            "{args:?} replaced the node"
        );
    }
    let encrypted = shifr(
        &[
            "encrypt",
            "-q",
            "--force",
            "--key-file",
            s(&key),
            "-o",
            s(&nul),
        ],
        &plain,
        &[],
    );
    assert!(
        encrypted.ok(),
        "encrypt into a character node: {}",
        encrypted.stderr
    );
    assert!(std::fs::symlink_metadata(&nul)
        .unwrap()
        .file_type()
        .is_char_device());
    // A link to the node is followed, not replaced.
    let link = dir.join("link-to-nul");
    std::os::unix::fs::symlink(&nul, &link).unwrap();
    decrypt_into(&key, &link, &sealed, &["--force"]).expect_ok("decrypt through a link to a node");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());

    // A block node (a loop device's numbers) is refused by decrypt, encrypt and dump, and stays.
    let blk = dir.join("blk");
    mknod(&blk, libc::S_IFBLK, 7, 250);
    let runs = [
        decrypt_into(&key, &blk, &sealed, &["--force"]),
        shifr(
            &[
                "encrypt",
                "-q",
                "--force",
                "--key-file",
                s(&key),
                "-o",
                s(&blk),
            ],
            &plain,
            &[],
        ),
        shifr(
            &[
                "dump",
                "-q",
                "--force",
                "--key-file",
                s(&key),
                s(&sealed),
                s(&blk),
            ],
            b"",
            &[],
        ),
    ];
    for run in runs {
        fails(run, "is a block device");
        assert!(std::fs::symlink_metadata(&blk)
            .unwrap()
            .file_type()
            .is_block_device());
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn force_keeps_the_replaced_files_mode_and_refuses_directories() {
    let (dir, key, sealed) = fixture("mode", b"hello");
    let out = dir.join("out");
    std::fs::write(&out, b"old").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o640)).unwrap();
    decrypt_into(&key, &out, &sealed, &["--force"]).expect_ok("decrypt --force over a file");
    assert_eq!(std::fs::read(&out).unwrap(), b"hello");
    let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o640, "--force changed the mode");

    let sub = dir.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let run = decrypt_into(&key, &sub, &sealed, &["--force"]);
    fails(run, "is a directory");
    assert!(std::fs::metadata(&sub).unwrap().is_dir());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_secret_file_that_is_the_data_is_refused() {
    let dir = temp_dir("secret-is-data");
    // The case: passphrase and data on one pipe.
    let out = dir.join("x.shifr");
    let mut piped = b"pw\n".to_vec();
    piped.extend(random_bytes(5000));
    for path in ["/dev/stdin", "/proc/self/fd/0", "-"] {
        let run = shifr(
            &["encrypt", "-q", "--passphrase-file", path, "-o", s(&out)],
            &piped,
            &[TEST_ARGON2],
        );
        fails(run, "is the data input");
        assert!(!out.exists(), "{path}: output left behind");
    }
    // The same file as key file and input, and as passphrase file and input.
    let data = dir.join("data");
    std::fs::write(&data, [7u8; 32]).unwrap();
    let run = shifr(
        &[
            "encrypt",
            "-q",
            "--key-file",
            s(&data),
            "-o",
            s(&out),
            s(&data),
        ],
        b"",
        &[],
    );
    fails(run, "is the data input");
    let run = shifr(
        &[
            "encrypt",
            "-q",
            "--passphrase-file",
            s(&data),
            "-o",
            s(&out),
            s(&data),
        ],
        b"",
        &[TEST_ARGON2],
    );
    fails(run, "is the data input");
    // `shifr cipher` reads its data from stdin: a key file on stdin is refused too.
    let run = shifr(
        &[
            "cipher",
            "-a",
            "aes-128-ctr",
            "--key-file",
            "/dev/stdin",
            "--iv",
            "00000000000000000000000000000000",
        ],
        b"000102030405060708090a0b0c0d0e0f",
        &[],
    );
    fails(run, "is the data input");
    assert!(!out.exists());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn out_of_range_arguments_get_one_line() {
    let dir = temp_dir("ranges");
    let key = key_file(&dir);
    let out = dir.join("o.shifr");
    let k = s(&key);
    let o = s(&out);
    let cases: [(&[&str], &str); 9] = [
        (
            &["encrypt", "--key-file", k, "-o", o, "--threads", "100000"],
            "from 1 to 1024",
        ),
        (
            &["encrypt", "--key-file", k, "-o", o, "--threads", "0"],
            "from 1 to 1024",
        ),
        (
            &["encrypt", "--key-file", k, "-o", o, "--cpu-limit", "1e-300"],
            "from 0.1 to 100",
        ),
        (
            &["encrypt", "--key-file", k, "-o", o, "--cpu-limit", "5e-324"],
            "from 0.1 to 100",
        ),
        (
            &[
                "encrypt",
                "--key-file",
                k,
                "-o",
                o,
                "--chunk-size",
                "99999999999",
            ],
            "from 1024",
        ),
        (&["bench", "--size", "18446744073709551615"], "bad size"),
        (&["bench", "--size", "17179869184K"], "bad size"),
        (&["bench", "--alg", ""], "names no algorithm"),
        (
            &["bench", "--alg", "aes-128-ctr", "--seconds", "1e300"],
            "--seconds",
        ),
    ];
    for (args, needle) in cases {
        let run = shifr(args, b"data", &[]);
        let code = fails(run, needle);
        assert!(code == 1 || code == 2, "{args:?}: exit {code}");
        assert!(!out.exists(), "{args:?} left output");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Sets the Argon2id parameters (bytes 14..26 of the header) of a passphrase container.
fn with_argon2(sealed: &[u8], m_kib: u32, t: u32, p: u32) -> Vec<u8> {
    let mut v = sealed.to_vec();
    v[14..18].copy_from_slice(&m_kib.to_le_bytes());
    v[18..22].copy_from_slice(&t.to_le_bytes());
    v[22..26].copy_from_slice(&p.to_le_bytes());
    v
}

#[test]
fn a_hostile_kdf_header_is_refused_before_any_work() {
    let dir = temp_dir("kdf");
    let pass = dir.join("pass");
    std::fs::write(&pass, b"pw\n").unwrap();
    let sealed = shifr(
        &["encrypt", "-q", "--passphrase-file", s(&pass)],
        b"secret data",
        &[TEST_ARGON2],
    )
    .expect_ok("encrypt with a passphrase");
    // The header: m = 4 GiB, t = 64, p = 64.
    let hostile = dir.join("hostile.shifr");
    std::fs::write(&hostile, with_argon2(&sealed, 4 << 20, 64, 64)).unwrap();
    let out = dir.join("out");
    let started = Instant::now();
    let run = shifr(
        &[
            "decrypt",
            "-q",
            "--passphrase-file",
            s(&pass),
            "-o",
            s(&out),
            s(&hostile),
        ],
        b"",
        &[],
    );
    let code = fails(run, "m = 4 GiB, t = 64, p = 64");
    assert_eq!(code, 1);
    assert!(!out.exists());
    // Refused from the header alone: no Argon2id ran (a generous bound, not a timing check).
    assert!(started.elapsed() < Duration::from_secs(30));

    // More passes than the default limit: refused, and accepted with --max-kdf-passes (the altered
    // header then fails its key check: exit 5).
    let passes = dir.join("passes.shifr");
    std::fs::write(&passes, with_argon2(&sealed, 256, 4, 1)).unwrap();
    let run = shifr(
        &["decrypt", "-q", "--passphrase-file", s(&pass), s(&passes)],
        b"",
        &[],
    );
    fails(run, "t = 4");
    let run = shifr(
        &[
            "decrypt",
            "-q",
            "--passphrase-file",
            s(&pass),
            "--max-kdf-passes",
            "4",
            s(&passes),
        ],
        b"",
        &[],
    );
    assert_eq!(fails(run, "wrong key or passphrase"), 5);
    // A memory limit below what the file asks.
    let run = shifr(
        &[
            "decrypt",
            "-q",
            "--passphrase-file",
            s(&pass),
            "--max-kdf-memory",
            "1M",
            s(&hostile),
        ],
        b"",
        &[],
    );
    fails(run, "m <= 1 MiB");
    // Allowed by the options but more than the process may allocate (`ulimit -v`): an error, not an
    // abort.
    let limited = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1000000; exec \"$0\" decrypt -q --passphrase-file \"$1\" --max-kdf-memory 4G --max-kdf-passes 64 \"$2\"")
        .arg(env!("CARGO_BIN_EXE_shifr"))
        .arg(&pass)
        .arg(&hostile)
        .output()
        .unwrap();
    let run = support::Run {
        code: limited.status.code(),
        stdout: limited.stdout,
        stderr: String::from_utf8_lossy(&limited.stderr).into_owned(),
    };
    assert_eq!(fails(run, "cannot allocate the 4096 MiB"), 1);
    // The untouched file still decrypts under the default limits.
    let hostile_ok = dir.join("ok.shifr");
    std::fs::write(&hostile_ok, &sealed).unwrap();
    let plain = shifr(
        &[
            "decrypt",
            "-q",
            "--passphrase-file",
            s(&pass),
            s(&hostile_ok),
        ],
        b"",
        &[],
    )
    .expect_ok("decrypt");
    assert_eq!(plain, b"secret data");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn shifr_key_is_honoured_by_the_container_commands() {
    let dir = temp_dir("shifr-key");
    let key = key_file(&dir);
    let plain = random_bytes(3000);
    let sealed = shifr(&["encrypt", "-q"], &plain, &[("SHIFR_KEY", KEY_HEX)])
        .expect_ok("encrypt with SHIFR_KEY");
    // Made with SHIFR_KEY, opened with the key file holding the same key, and the reverse.
    let opened =
        shifr(&["decrypt", "-q", "--key-file", s(&key)], &sealed, &[]).expect_ok("decrypt");
    assert_eq!(opened, plain);
    let sealed2 = sealed_with_key(&key, &plain);
    let opened = shifr(&["decrypt", "-q"], &sealed2, &[("SHIFR_KEY", KEY_HEX)])
        .expect_ok("decrypt with SHIFR_KEY");
    assert_eq!(opened, plain);
    // Both variables set: ambiguous, refused.
    let run = shifr(
        &["encrypt", "-q"],
        &plain,
        &[("SHIFR_KEY", KEY_HEX), ("SHIFR_PASSPHRASE", "pw")],
    );
    fails(run, "both SHIFR_KEY and SHIFR_PASSPHRASE");
    // A passphrase file wins over SHIFR_KEY.
    let pass = dir.join("pass");
    std::fs::write(&pass, b"pw\n").unwrap();
    let by_pass = shifr(
        &["encrypt", "-q", "--passphrase-file", s(&pass)],
        &plain,
        &[("SHIFR_KEY", KEY_HEX), TEST_ARGON2],
    )
    .expect_ok("encrypt with a passphrase file");
    let info_file = dir.join("p.shifr");
    std::fs::write(&info_file, &by_pass).unwrap();
    let info =
        String::from_utf8(shifr(&["info", s(&info_file)], b"", &[]).expect_ok("info")).unwrap();
    assert!(info.contains("argon2id"), "{info}");
    // A passphrase container with only SHIFR_KEY: told what it needs.
    let run = shifr(
        &["decrypt", "-q", s(&info_file)],
        b"",
        &[("SHIFR_KEY", KEY_HEX)],
    );
    assert_eq!(fails(run, "passphrase"), 5);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn keygen_is_atomic_and_writes_to_stdout_with_dash() {
    let dir = temp_dir("keygen");
    let key = dir.join("k");
    // A full file system, as far as this process can tell: no byte may be written (RLIMIT_FSIZE 0,
    // SIGXFSZ ignored so that the write fails with EFBIG instead of killing the process).
    let status = Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 0; exec \"$0\" keygen -o \"$1\"")
        .arg(env!("CARGO_BIN_EXE_shifr"))
        .arg(&key)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(
        !status.status.success(),
        "keygen succeeded without room to write"
    );
    let stderr = String::from_utf8_lossy(&status.stderr);
    assert!(one_clean_line(&stderr), "{stderr:?}");
    assert!(!key.exists(), "a partial key file was left behind");
    assert!(
        std::fs::read_dir(&dir).unwrap().next().is_none(),
        "something was left in the directory"
    );
    // The retry works, and makes a 0600 file of 64 hex digits.
    shifr(&["keygen", "-o", s(&key)], b"", &[]).expect_ok("keygen retry");
    let text = std::fs::read_to_string(&key).unwrap();
    assert_eq!(text.trim_end().len(), 64);
    assert_eq!(
        std::fs::metadata(&key).unwrap().permissions().mode() & 0o777,
        0o600
    );

    // `-o -`: the key on stdout, no file named "-".
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_shifr"));
    let out = cmd
        .args(["keygen", "-o", "-"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let printed = String::from_utf8(out.stdout).unwrap();
    assert_eq!(printed.trim_end().len(), 64);
    assert!(printed.trim_end().bytes().all(|b| b.is_ascii_hexdigit()));
    assert!(!dir.join("-").exists());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn force_works_on_the_longest_names() {
    let (dir, key, sealed) = fixture("long", b"long name");
    let out = dir.join("n".repeat(250));
    std::fs::write(&out, b"old").unwrap();
    decrypt_into(&key, &out, &sealed, &["--force"])
        .expect_ok("decrypt --force to a 250-character name");
    assert_eq!(std::fs::read(&out).unwrap(), b"long name");
    let fresh = dir.join("m".repeat(255));
    decrypt_into(&key, &fresh, &sealed, &[]).expect_ok("decrypt to a 255-character name");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn one_key_file_rule_for_every_command() {
    let dir = temp_dir("key-rule");
    // 32 hex digits, no newline: a 16-byte key for AES-128 (as `openssl enc -K` reads it)...
    let hex32 = dir.join("hex32");
    std::fs::write(&hex32, b"000102030405060708090a0b0c0d0e0f").unwrap();
    let by_file = shifr(
        &[
            "cipher",
            "-a",
            "aes-128-ctr",
            "--key-file",
            s(&hex32),
            "--iv",
            "00000000000000000000000000000000",
        ],
        b"sixteen byte msg",
        &[],
    )
    .expect_ok("aes-128-ctr with a 32-digit hex key file");
    let by_env = shifr(
        &[
            "cipher",
            "-a",
            "aes-128-ctr",
            "--iv",
            "00000000000000000000000000000000",
        ],
        b"sixteen byte msg",
        &[("SHIFR_KEY", "000102030405060708090a0b0c0d0e0f")],
    )
    .expect_ok("aes-128-ctr with SHIFR_KEY");
    assert_eq!(by_file, by_env);
    // ...and for a 256-bit cipher or a container a length error, never 32 raw ASCII bytes.
    let run = shifr(
        &[
            "cipher",
            "-a",
            "aes-256-ctr",
            "--key-file",
            s(&hex32),
            "--iv",
            "00000000000000000000000000000000",
        ],
        b"x",
        &[],
    );
    fails(run, "32 hex digits (16 bytes); expected 64");
    let run = shifr(&["encrypt", "-q", "--key-file", s(&hex32)], b"x", &[]);
    fails(run, "32 hex digits (16 bytes); expected 64");
    // 64 hex digits without a newline are a container key.
    let hex64 = dir.join("hex64");
    std::fs::write(&hex64, KEY_HEX).unwrap();
    let sealed =
        shifr(&["encrypt", "-q", "--key-file", s(&hex64)], b"abc", &[]).expect_ok("encrypt");
    let opened = shifr(&["decrypt", "-q"], &sealed, &[("SHIFR_KEY", KEY_HEX)]).expect_ok("decrypt");
    assert_eq!(opened, b"abc");
    // A key file is read only up to a few KiB: an endless one is refused, not read to the end.
    let big = dir.join("big");
    std::fs::write(&big, vec![b'a'; 100_000]).unwrap();
    fails(
        shifr(&["encrypt", "-q", "--key-file", s(&big)], b"x", &[]),
        "larger than 4096 bytes",
    );
    let run = run_with_stdin(
        &[
            "encrypt",
            "-q",
            "--key-file",
            "/dev/zero",
            "-o",
            s(&dir.join("z")),
        ],
        Stdio::null(),
        Duration::from_secs(60),
    )
    .expect("shifr read /dev/zero without end");
    fails(run, "larger than 4096 bytes");
    let pass_big = dir.join("pass-big");
    std::fs::write(&pass_big, vec![b'p'; 100_000]).unwrap();
    let run = shifr(
        &["encrypt", "-q", "--passphrase-file", s(&pass_big)],
        b"x",
        &[TEST_ARGON2],
    );
    fails(run, "larger than 65536 bytes");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn restore_from_a_pipe_onto_a_device_refuses_at_once() {
    if !is_root() {
        eprintln!("restore_from_a_pipe_onto_a_device_refuses_at_once: not root, mknod unavailable: nothing run");
        return;
    }
    let dir = temp_dir("restore-pipe");
    let key = key_file(&dir);
    let image = dir.join("img.shifr");
    std::fs::write(&image, sealed_with_key(&key, &random_bytes(10_000))).unwrap();
    let blk = dir.join("blk");
    mknod(&blk, libc::S_IFBLK, 7, 251);
    // stdin a pipe: the image cannot be read twice; refused before the device is opened.
    let mut feeder = Command::new("cat")
        .arg(&image)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let pipe = Stdio::from(feeder.stdout.take().unwrap());
    let run = run_with_stdin(
        &[
            "restore",
            "-q",
            "--force",
            "--key-file",
            s(&key),
            "-",
            s(&blk),
        ],
        pipe,
        Duration::from_secs(60),
    )
    .expect("restore from a pipe hung");
    let _ = feeder.wait();
    fails(run, "not a regular file");
    // Restoring to a file from stdin (a pipe) still works: one pass.
    let out = dir.join("out");
    let mut cat = Command::new("cat")
        .arg(&image)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let run = run_with_stdin(
        &["restore", "-q", "--key-file", s(&key), "-", s(&out)],
        Stdio::from(cat.stdout.take().unwrap()),
        Duration::from_secs(60),
    )
    .expect("restore to a file from a pipe hung");
    let _ = cat.wait();
    assert!(run.ok(), "{}", run.stderr);
    assert_eq!(std::fs::read(&out).unwrap().len(), 10_000);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn an_empty_vector_file_is_an_error() {
    let dir = temp_dir("kat");
    let empty = dir.join("empty.txt");
    std::fs::write(&empty, b"").unwrap();
    let comments = dir.join("comments.txt");
    std::fs::write(&comments, b"# only a comment\n\n").unwrap();
    for f in [&empty, &comments] {
        let code = fails(shifr(&["kat", s(f)], b"", &[]), "holds no test vectors");
        assert_eq!(code, 2);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Runs `shifr args` with stdout on a new pseudo-terminal (util-linux `script`, whose own record goes
/// to a file in `dir`); returns the exit status and everything the terminal showed.
fn on_a_terminal(dir: &Path, args: &str) -> (bool, String) {
    let record = dir.join("typescript");
    let out = Command::new("script")
        .args(["-q", "-e", "-c"])
        .arg(format!("{} {args}", env!("CARGO_BIN_EXE_shifr")))
        .arg(&record)
        .stdin(Stdio::null())
        .output()
        .expect("util-linux script (bsdutils) runs the command on a pseudo-terminal");
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.success(), shown)
}

#[test]
fn binary_output_reaches_a_terminal_only_when_named() {
    let (dir, key, sealed) = fixture("tty", b"plain text\n");
    let plain = dir.join("plain");
    std::fs::write(&plain, b"plain text\n").unwrap();
    let k = s(&key);
    // Implicit stdout on a terminal: refused for encryption and decryption alike.
    let (ok, shown) = on_a_terminal(&dir, &format!("encrypt -q --key-file {k} {}", s(&plain)));
    assert!(
        !ok && shown.contains("refusing to write encrypted data to a terminal"),
        "{shown}"
    );
    let (ok, shown) = on_a_terminal(&dir, &format!("decrypt -q --key-file {k} {}", s(&sealed)));
    assert!(
        !ok && shown.contains("refusing to write decrypted data to a terminal"),
        "{shown}"
    );
    // Named explicitly: written.
    let (ok, shown) = on_a_terminal(
        &dir,
        &format!("decrypt -q --key-file {k} -o - {}", s(&sealed)),
    );
    assert!(ok && shown.contains("plain text"), "{shown}");
    let (ok, shown) = on_a_terminal(&dir, "keygen -o -");
    assert!(
        !ok && shown.contains("refusing to print a key on a terminal"),
        "{shown}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}
