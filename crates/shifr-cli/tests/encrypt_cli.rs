//! The container commands through the built `shifr` binary: keygen, round trips for every AEAD,
//! passphrases from a file and the environment, stdin/stdout, dump/restore of an image file, info,
//! refusal to overwrite, and each failure's exit code with no output left behind.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use support::{random_bytes, shifr, temp_dir};

const AEADS: [&str; 5] = [
    "aes-256-gcm",
    "chacha20-poly1305",
    "xchacha20-poly1305",
    "kuznyechik-mgm",
    "magma-mgm",
];
/// Cheap Argon2id for tests (the header records it).
const TEST_ARGON2: (&str, &str) = ("SHIFR_TEST_ARGON2", "256,1,1");

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn keygen(dir: &Path) -> PathBuf {
    let key = dir.join("key");
    shifr(&["keygen", "-o", s(&key)], b"", &[]).expect_ok("keygen");
    key
}

#[test]
fn keygen_makes_a_0600_file_and_never_overwrites() {
    let dir = temp_dir("keygen");
    let key = keygen(&dir);
    let meta = std::fs::metadata(&key).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    let text = std::fs::read_to_string(&key).unwrap();
    assert_eq!(text.trim().len(), 64);
    assert!(hex::decode(text.trim()).is_ok());
    let again = shifr(&["keygen", "-o", s(&key)], b"", &[]);
    assert!(!again.ok());
    assert_eq!(std::fs::read_to_string(&key).unwrap(), text);
    let other = dir.join("key2");
    shifr(&["keygen", "-o", s(&other)], b"", &[]).expect_ok("keygen 2");
    assert_ne!(std::fs::read_to_string(&other).unwrap(), text);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn every_aead_round_trips_through_files() {
    let dir = temp_dir("files");
    let key = keygen(&dir);
    let (plain, sealed, back) = (dir.join("plain"), dir.join("sealed"), dir.join("back"));
    for alg in AEADS {
        for len in [0, 1, 65535, 65536, 65537, 3 * 65536 + 9] {
            let data = random_bytes(len);
            std::fs::write(&plain, &data).unwrap();
            let args = [
                "encrypt",
                "-a",
                alg,
                "--key-file",
                s(&key),
                "-o",
                s(&sealed),
                "--force",
                s(&plain),
            ];
            shifr(&args, b"", &[]).expect_ok("encrypt");
            let tag = if alg == "magma-mgm" { 8 } else { 16 };
            let size = std::fs::metadata(&sealed).unwrap().len() as usize;
            assert_eq!(size, 80 + len + (len / 65536 + 1) * tag, "{alg} {len}");
            let args = [
                "decrypt",
                "--key-file",
                s(&key),
                "-o",
                s(&back),
                "--force",
                s(&sealed),
            ];
            shifr(&args, b"", &[]).expect_ok("decrypt");
            assert!(std::fs::read(&back).unwrap() == data, "{alg} {len}");
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn passphrase_from_env_and_file_through_pipes() {
    let dir = temp_dir("pass");
    let data = random_bytes(200_000);
    let env = [("SHIFR_PASSPHRASE", "tr0ub4dor&3"), TEST_ARGON2];
    let sealed = shifr(&["encrypt", "--threads", "3"], &data, &env).expect_ok("encrypt stdin");
    assert_eq!(&sealed[..6], b"shifr\0");
    let back = shifr(&["decrypt", "-", "-o", "-"], &sealed, &env[..1]).expect_ok("decrypt stdin");
    assert!(back == data);
    let pass_file = dir.join("pass");
    std::fs::write(&pass_file, "tr0ub4dor&3\nignored second line\n").unwrap();
    let back = shifr(
        &["decrypt", "--passphrase-file", s(&pass_file)],
        &sealed,
        &[],
    )
    .expect_ok("decrypt with passphrase file");
    assert!(back == data);
    let wrong = shifr(
        &["decrypt"],
        &sealed,
        &[("SHIFR_PASSPHRASE", "tr0ub4dor&4")],
    );
    assert_eq!(wrong.code, Some(5), "{}", wrong.stderr);
    assert!(wrong.stdout.is_empty() && wrong.stderr.contains("wrong key or passphrase"));
    // No terminal, no file, no variable: a clear error, not a hang.
    let none = shifr(&["decrypt"], &sealed, &[]);
    assert!(!none.ok() && none.stdout.is_empty());
    // A key file for a passphrase container.
    let key = keygen(&dir);
    let kind = shifr(&["decrypt", "--key-file", s(&key)], &sealed, &[]);
    assert_eq!(kind.code, Some(5), "{}", kind.stderr);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn existing_output_needs_force() {
    let dir = temp_dir("force");
    let key = keygen(&dir);
    let out = dir.join("out");
    std::fs::write(&out, b"precious").unwrap();
    let args = ["encrypt", "--key-file", s(&key), "-o", s(&out)];
    let run = shifr(&args, b"data", &[]);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("--force"), "{}", run.stderr);
    assert_eq!(std::fs::read(&out).unwrap(), b"precious");
    assert_eq!(listing(&dir), ["key", "out"]);
    let args = ["encrypt", "--key-file", s(&key), "-o", s(&out), "--force"];
    shifr(&args, b"data", &[]).expect_ok("encrypt --force");
    assert_eq!(&std::fs::read(&out).unwrap()[..6], b"shifr\0");
    assert_eq!(listing(&dir), ["key", "out"]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// Decrypts `sealed` to a file: asserts the exit code, and that the directory holds only what it held
/// before (no temporary file, no output).
fn decrypt_fails(dir: &Path, key: &Path, sealed: &[u8], code: i32, message: &str) {
    let input = dir.join("input");
    std::fs::write(&input, sealed).unwrap();
    let before = listing(dir);
    let out = dir.join("out");
    let run = shifr(
        &["decrypt", "--key-file", s(key), "-o", s(&out), s(&input)],
        b"",
        &[],
    );
    assert_eq!(run.code, Some(code), "{message}: {}", run.stderr);
    assert!(run.stderr.contains(message), "{message}: {}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "one line: {}", run.stderr);
    assert_eq!(listing(dir), before, "{message}: output left behind");
}

#[test]
fn failures_have_distinct_codes_and_leave_nothing() {
    let dir = temp_dir("fail");
    let key = keygen(&dir);
    let data = random_bytes(3 * 65536 + 100);
    let sealed = shifr(
        &["encrypt", "-a", "chacha20-poly1305", "--key-file", s(&key)],
        &data,
        &[],
    )
    .expect_ok("encrypt");
    let slot = 65536 + 16;
    decrypt_fails(
        &dir,
        &key,
        b"PK\x03\x04 not a shifr file at all",
        3,
        "not a shifr file",
    );
    let mut v = sealed.clone();
    v[6] = 9;
    decrypt_fails(&dir, &key, &v, 4, "unsupported shifr format version 9");
    let mut v = sealed.clone();
    v[70] ^= 1;
    decrypt_fails(&dir, &key, &v, 5, "wrong key or passphrase");
    decrypt_fails(&dir, &key, &sealed[..80 + 2 * slot], 6, "truncated");
    let mut v = sealed.clone();
    v[80 + slot + 5] ^= 0x10;
    decrypt_fails(&dir, &key, &v, 7, "chunk 1 failed authentication");
    let mut v = sealed.clone();
    v.push(0);
    decrypt_fails(&dir, &key, &v, 7, "chunk 3 failed authentication");
    let missing = dir.join("missing");
    let run = shifr(&["decrypt", "--key-file", s(&key), s(&missing)], b"", &[]);
    assert_eq!(run.code, Some(8));
    assert!(run.stderr.contains(s(&missing)), "{}", run.stderr);
    let other_key = dir.join("other");
    shifr(&["keygen", "-o", s(&other_key)], b"", &[]).expect_ok("keygen");
    decrypt_fails(&dir, &other_key, &sealed, 5, "wrong key or passphrase");
    // A bad passphrase file is an I/O error naming the path.
    let run = shifr(&["encrypt", "--passphrase-file", s(&missing)], b"x", &[]);
    assert_eq!(run.code, Some(8), "{}", run.stderr);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn decrypt_to_stdout_releases_only_verified_batches() {
    let dir = temp_dir("stdout");
    let key = keygen(&dir);
    let data = random_bytes(10 << 20);
    let mut sealed = shifr(
        &["encrypt", "--key-file", s(&key), "-a", "magma-mgm"],
        &data,
        &[],
    )
    .expect_ok("encrypt");
    // Corrupt chunk 100 (in the second 4 MiB batch).
    let slot = 65536 + 8;
    sealed[80 + 100 * slot + 7] ^= 1;
    let run = shifr(&["decrypt", "--key-file", s(&key)], &sealed, &[]);
    assert_eq!(run.code, Some(7), "{}", run.stderr);
    assert!(run.stderr.contains("chunk 100 failed"));
    assert!(run.stdout.len() <= 100 * 65536 && run.stdout.len().is_multiple_of(65536));
    assert!(run.stdout[..] == data[..run.stdout.len()]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn dump_restore_and_info_of_an_image_file() {
    let dir = temp_dir("dump");
    let key = keygen(&dir);
    let image = dir.join("disk.img");
    let data = random_bytes(9 << 20 | 4096);
    std::fs::write(&image, &data).unwrap();
    let sealed = dir.join("disk.shifr");
    let args = [
        "dump",
        "--key-file",
        s(&key),
        "-a",
        "kuznyechik-mgm",
        "--chunk-size",
        "1048576",
        s(&image),
        s(&sealed),
    ];
    shifr(&args, b"", &[]).expect_ok("dump");
    let info = shifr(&["info", s(&sealed)], b"", &[]).expect_ok("info");
    let info = String::from_utf8(info).unwrap();
    assert!(
        info.contains("kuznyechik-mgm") && info.contains("key file"),
        "{info}"
    );
    assert!(
        info.contains(&format!("plaintext   {} bytes", data.len())),
        "{info}"
    );
    assert!(info.contains("chunk size  1048576"), "{info}");
    let restored = dir.join("restored.img");
    let args = ["restore", "--key-file", s(&key), s(&sealed), s(&restored)];
    shifr(&args, b"", &[]).expect_ok("restore");
    assert!(std::fs::read(&restored).unwrap() == data);
    let again = shifr(&args, b"", &[]);
    assert_eq!(
        again.code,
        Some(1),
        "restore over an existing file without --force"
    );
    let not_shifr = shifr(&["info", s(&image)], b"", &[]);
    assert_eq!(not_shifr.code, Some(3));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn usage_errors() {
    let run = shifr(
        &["encrypt", "-a", "aes-128-cbc", "--key-file", "/nonexistent"],
        b"",
        &[],
    );
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("unknown AEAD"), "{}", run.stderr);
    // Out of range: a usage error, like every malformed option value.
    let run = shifr(&["encrypt", "--cpu-limit", "0"], b"", &[]);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("from 0.1 to 100"), "{}", run.stderr);
    let run = shifr(&["encrypt", "--passphrase", "x"], b"", &[]);
    assert_eq!(run.code, Some(2), "no passphrase argument exists");
}

/// More than 1 GiB through a sparse file (slow: run with `cargo test -- --ignored`).
#[test]
#[ignore]
fn sparse_file_over_one_gib() {
    let dir = temp_dir("sparse");
    let key = keygen(&dir);
    let plain = dir.join("sparse");
    let file = std::fs::File::create(&plain).unwrap();
    let len = (1u64 << 30) + 65536 * 3 + 17;
    file.set_len(len).unwrap();
    drop(file);
    let (sealed, back) = (dir.join("sealed"), dir.join("back"));
    shifr(
        &[
            "encrypt",
            "--key-file",
            s(&key),
            "-o",
            s(&sealed),
            s(&plain),
        ],
        b"",
        &[],
    )
    .expect_ok("encrypt");
    shifr(
        &["decrypt", "--key-file", s(&key), "-o", s(&back), s(&sealed)],
        b"",
        &[],
    )
    .expect_ok("decrypt");
    assert_eq!(std::fs::metadata(&back).unwrap().len(), len);
    use std::io::Read;
    let mut f = std::fs::File::open(&back).unwrap();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        assert!(buf[..n].iter().all(|&b| b == 0));
    }
    std::fs::remove_dir_all(dir).unwrap();
}
