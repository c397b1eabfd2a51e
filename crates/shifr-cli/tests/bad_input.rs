//! Every kind of bad input gets exactly one line on stderr naming the problem, a non-zero exit
//! status, nothing on stdout, and never a panic.

mod support;

use support::{one_clean_line, shifr, temp_file, temp_path};

const KEY16: &str = "000102030405060708090a0b0c0d0e0f";
const KEY32: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const IV16: &str = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
const NONCE12: &str = "cafebabefacedbaddecaf888";

/// Runs a failing invocation and checks the error contract; `needle` must appear in the message.
fn fails(args: &[&str], stdin: &[u8], env: &[(&str, &str)], needle: &str) -> i32 {
    let run = shifr(args, stdin, env);
    assert_ne!(run.code, Some(0), "{args:?} succeeded");
    let code = run.code.expect("exited normally (no signal)");
    assert!(
        run.stdout.is_empty(),
        "{args:?}: stdout not empty: {:?}",
        run.stdout
    );
    assert!(
        one_clean_line(&run.stderr),
        "{args:?}: stderr is not one clean line: {:?}",
        run.stderr
    );
    assert!(
        run.stderr.starts_with("shifr: error: "),
        "{args:?}: {}",
        run.stderr
    );
    assert!(
        run.stderr.contains(needle),
        "{args:?}: {:?} does not mention {needle:?}",
        run.stderr
    );
    code
}

fn key_env(hex: &str) -> [(&str, &str); 1] {
    [("SHIFR_KEY", hex)]
}

/// Encrypts `pt` successfully (for the tamper tests).
fn encrypt(args: &[&str], pt: &[u8]) -> Vec<u8> {
    shifr(args, pt, &key_env(KEY16)).expect_ok("setup encryption")
}

#[test]
fn unknown_algorithm() {
    fails(
        &["cipher", "-a", "aes-128-xts"],
        b"x",
        &key_env(KEY16),
        "unknown algorithm 'aes-128-xts'",
    );
}

#[test]
fn wrong_key_lengths() {
    let short = temp_file("short-key", &[1u8; 15]);
    fails(
        &[
            "cipher",
            "-a",
            "aes-128-ecb",
            "--key-file",
            short.to_str().unwrap(),
        ],
        b"",
        &[],
        "invalid key length",
    );
    let hex_short = temp_file("short-hex-key", b"0011223344\n");
    fails(
        &[
            "cipher",
            "-a",
            "aes-128-ecb",
            "--key-file",
            hex_short.to_str().unwrap(),
        ],
        b"",
        &[],
        "invalid key length",
    );
    fails(
        &["cipher", "-a", "aes-256-ctr", "--iv", IV16],
        b"",
        &key_env(KEY16),
        "invalid key length in SHIFR_KEY: 16 bytes (expected 32)",
    );
}

#[test]
fn non_hex_key_material() {
    // Not all hex digits: raw bytes, here of the wrong length (one rule: crates/shifr-cli/src/parse).
    let f = temp_file("nonhex-key", b"000102030405060708090a0b0c0d0eXY\n");
    let code = fails(
        &[
            "cipher",
            "-a",
            "aes-128-ecb",
            "--key-file",
            f.to_str().unwrap(),
        ],
        b"",
        &[],
        "33 bytes that are not all hex digits",
    );
    assert_eq!(code, 1);
    let run = shifr(
        &[
            "cipher",
            "-a",
            "aes-128-ecb",
            "--key-file",
            f.to_str().unwrap(),
        ],
        b"",
        &[],
    );
    assert!(
        !run.stderr.contains("XY"),
        "key material quoted in {:?}",
        run.stderr
    );
    fails(
        &["cipher", "-a", "aes-128-ecb"],
        b"",
        &key_env("zz0102030405060708090a0b0c0d0e0f"),
        "SHIFR_KEY is not valid hex",
    );
}

#[test]
fn missing_or_unreadable_key() {
    fails(&["cipher", "-a", "aes-128-ecb"], b"", &[], "missing key");
    let gone = temp_path("no-such-key");
    fails(
        &[
            "cipher",
            "-a",
            "aes-128-ecb",
            "--key-file",
            gone.to_str().unwrap(),
        ],
        b"",
        &[],
        "cannot read key file",
    );
}

#[test]
fn no_key_argument_exists() {
    fails(
        &["cipher", "-a", "aes-128-ecb", "--key", KEY16],
        b"",
        &[],
        "--key",
    );
}

#[test]
fn iv_problems() {
    let env = key_env(KEY16);
    fails(
        &["cipher", "-a", "aes-128-cbc", "--iv", "000102"],
        b"",
        &env,
        "invalid IV length: 3 bytes (expected 16)",
    );
    fails(&["cipher", "-a", "aes-128-cbc"], b"", &env, "missing IV");
    fails(
        &["cipher", "-a", "aes-128-cbc", "--iv", "00010g"],
        b"",
        &env,
        "--iv is not valid hex",
    );
    fails(
        &["cipher", "-a", "aes-128-cbc", "--iv", "000"],
        b"",
        &env,
        "--iv is not valid hex",
    );
    fails(
        &["cipher", "-a", "aes-128-ecb", "--iv", IV16],
        b"",
        &env,
        "invalid IV length",
    );
    fails(
        &["cipher", "-a", "aes-128-gcm", "--iv", ""],
        b"",
        &env,
        "invalid nonce length",
    );
    let env32 = key_env(KEY32);
    fails(
        &["cipher", "-a", "magma-ctr", "--iv", "0011223344556677"],
        b"",
        &env32,
        "invalid IV length: 8 bytes (expected 4)",
    );
    fails(
        &["cipher", "-a", "kuznyechik-cbc", "--iv", "0011223344556677"],
        b"",
        &env32,
        "invalid IV length",
    );
    // RFC 9058: the MGM nonce's most significant bit must be 0.
    fails(
        &["cipher", "-a", "magma-mgm", "--iv", "8011223344556677"],
        b"abc",
        &env32,
        "nonce",
    );
}

#[test]
fn aad_and_tag_problems() {
    let env = key_env(KEY16);
    let gcm = ["cipher", "-a", "aes-128-gcm", "--iv", NONCE12];
    fails(
        &[&gcm[..], &["--aad", "xyz0"]].concat(),
        b"",
        &env,
        "--aad is not valid hex",
    );
    fails(
        &[&gcm[..], &["--tag-len", "3"]].concat(),
        b"",
        &env,
        "invalid tag length: 3 bytes",
    );
    fails(
        &[&gcm[..], &["-d", "--tag", "00112233"]].concat(),
        b"",
        &env,
        "invalid tag length: 4 bytes",
    );
    fails(
        &[&gcm[..], &["-d", "--tag", "0g"]].concat(),
        b"",
        &env,
        "--tag is not valid hex",
    );
    fails(
        &[&gcm[..], &["--tag", "00112233445566778899aabbccddeeff"]].concat(),
        b"",
        &env,
        "--tag",
    );
    fails(
        &["cipher", "-a", "aes-128-cbc", "--iv", IV16, "--aad", "00"],
        b"",
        &env,
        "associated data",
    );
    fails(
        &[
            "cipher",
            "-a",
            "aes-128-ctr",
            "--iv",
            IV16,
            "--tag-len",
            "16",
        ],
        b"",
        &env,
        "tag length",
    );
    fails(
        &[
            "cipher",
            "-a",
            "chacha20-poly1305",
            "--iv",
            NONCE12,
            "--tag-len",
            "12",
        ],
        b"",
        &key_env(KEY32),
        "invalid tag length",
    );
    fails(
        &[&gcm[..], &["--tag-len", "x"]].concat(),
        b"",
        &env,
        "--tag-len",
    );
}

#[test]
fn truncated_and_tampered_aead_input() {
    let env = key_env(KEY16);
    let gcm = [
        "cipher",
        "-a",
        "aes-128-gcm",
        "--iv",
        NONCE12,
        "--aad",
        "0102",
    ];
    let ct = encrypt(&gcm, b"attack at dawn, with all forces");
    let dec = [&gcm[..], &["-d"]].concat();
    assert_eq!(
        shifr(&dec, &ct, &env).expect_ok("untampered"),
        b"attack at dawn, with all forces"
    );
    fails(&dec, &ct[..10], &env, "truncated");
    for i in [0, ct.len() / 2, ct.len() - 1] {
        let mut bad = ct.clone();
        bad[i] ^= 0x01;
        fails(&dec, &bad, &env, "authentication failed");
    }
    let wrong_aad = [
        "cipher",
        "-a",
        "aes-128-gcm",
        "--iv",
        NONCE12,
        "--aad",
        "0103",
        "-d",
    ];
    fails(&wrong_aad, &ct, &env, "authentication failed");

    let env32 = key_env(KEY32);
    for (alg, iv) in [
        ("chacha20-poly1305", NONCE12),
        ("kuznyechik-mgm", "00112233445566778899aabbccddeeff"),
    ] {
        let args = ["cipher", "-a", alg, "--iv", iv];
        let mut ct = shifr(&args, b"some plaintext", &env32).expect_ok(alg);
        let last = ct.len() - 1;
        ct[last] ^= 0x80;
        fails(
            &[&args[..], &["-d"]].concat(),
            &ct,
            &env32,
            "authentication failed",
        );
    }
}

#[test]
fn tampered_mac() {
    let env = key_env(KEY32);
    let args = ["cipher", "-a", "magma-mac"];
    let tag = shifr(&args, b"message", &env).expect_ok("mac");
    let mut input = [b"message".as_slice(), &tag].concat();
    input[0] ^= 1;
    fails(
        &[&args[..], &["-d"]].concat(),
        &input,
        &env,
        "authentication failed",
    );
}

#[test]
fn bad_padding() {
    let env = key_env(KEY16);
    // A zero block encrypted without padding decrypts to a last byte of 0: never valid PKCS#7.
    let enc = ["cipher", "-a", "aes-128-cbc", "--iv", IV16, "--nopad"];
    let ct = shifr(&enc, &[0u8; 32], &env).expect_ok("setup");
    fails(
        &["cipher", "-a", "aes-128-cbc", "--iv", IV16, "-d"],
        &ct,
        &env,
        "bad padding",
    );
    // An empty ciphertext has no padding at all.
    fails(&["cipher", "-a", "aes-128-ecb", "-d"], b"", &env, "");
}

#[test]
fn unaligned_input() {
    let env = key_env(KEY16);
    fails(
        &["cipher", "-a", "aes-128-ecb", "--nopad"],
        &[0u8; 17],
        &env,
        "not a multiple of the 16-byte block",
    );
    fails(
        &["cipher", "-a", "aes-128-cbc", "--iv", IV16, "-d"],
        &[0u8; 20],
        &env,
        "not a multiple",
    );
}

#[test]
fn chacha20_counter_must_not_wrap() {
    // OpenSSL would carry into the nonce here; RFC 8439 forbids reusing the counter space.
    let iv = "ffffffff000000000000000000000000";
    fails(
        &["cipher", "-a", "chacha20", "--iv", iv],
        &[0u8; 65],
        &key_env(KEY32),
        "counter would wrap",
    );
}

#[test]
fn bad_section_sizes() {
    let env = key_env(KEY32);
    fails(
        &[
            "cipher",
            "-a",
            "kuznyechik-ctr-acpkm",
            "--iv",
            "0011223344556677",
            "--section",
            "10",
        ],
        b"",
        &env,
        "section",
    );
    fails(
        &[
            "cipher",
            "-a",
            "kuznyechik-ctr",
            "--iv",
            "0011223344556677",
            "--section",
            "32",
        ],
        b"",
        &env,
        "section",
    );
}

#[test]
fn kat_file_problems_exit_2() {
    let gone = temp_path("no-such-vectors");
    assert_eq!(
        fails(&["kat", gone.to_str().unwrap()], b"", &[], "cannot read"),
        2
    );
    let malformed = temp_file(
        "malformed-vectors",
        b"# r / s\ncipher = aes128\nthis line is wrong\n",
    );
    assert_eq!(
        fails(&["kat", malformed.to_str().unwrap()], b"", &[], "line 3"),
        2
    );
}

#[test]
fn unknown_backend_is_a_warning() {
    let run = shifr(
        &["cipher", "-a", "aes-128-ctr", "--iv", IV16],
        b"hello",
        &[("SHIFR_KEY", KEY16), ("SHIFR_BACKEND", "quantum")],
    );
    assert!(run.ok(), "{}", run.stderr);
    assert_eq!(run.stdout.len(), 5);
    assert!(one_clean_line(&run.stderr), "{:?}", run.stderr);
    assert!(
        run.stderr
            .starts_with("shifr: warning: unknown SHIFR_BACKEND 'quantum'"),
        "{}",
        run.stderr
    );
}
