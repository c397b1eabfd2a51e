//! Known answers through the CLI: every record of the shared vector files that a catalogue name can
//! express is run through `shifr cipher` in both directions, and `shifr kat` must pass both files.
//! Expected values come only from the vector files (read at test time).

mod support;

use support::{read_vectors, shifr, temp_file, vectors_dir, Record};

/// A `shifr cipher` invocation derived from a vector record.
struct Case {
    name: String,
    args: Vec<String>,
    pt: Vec<u8>,
    /// Encryption output: ciphertext, ciphertext || tag (AEAD) or the tag (MAC).
    expected: Vec<u8>,
    /// Whether the algorithm is a MAC (decryption input is then pt || tag).
    mac: bool,
}

fn bits_to_bytes(r: &Record, field: &str) -> Option<usize> {
    r.num(field).map(|b| b / 8)
}

/// Maps a record to a catalogue name and its options; `None` for records that test internals
/// (single blocks, transforms, key schedules) or parameters no name offers.
fn case(r: &Record) -> Option<Case> {
    let cipher = r.get("cipher")?;
    let mode = r.get("mode")?;
    let key = r.hex("key")?;
    let pt = r.hex("pt")?;
    let mut args: Vec<String> = Vec::new();
    // An option and its value (`--opt=value`, so that an empty value stays one argument); an
    // empty option name adds the value alone (a flag).
    let mut push = |k: &str, v: String| {
        args.push(if k.is_empty() { v } else { format!("{k}={v}") });
    };
    let mut expected = r.hex("ct").unwrap_or_default();
    let mut mac = false;
    let family = match cipher {
        "aes128" => "aes-128",
        "aes192" => "aes-192",
        "aes256" => "aes-256",
        "tdes" => "des-ede3",
        "magma" | "kuznyechik" => cipher,
        "chacha20" | "chacha20-poly1305" => "",
        _ => return None,
    };
    let block = if matches!(cipher, "tdes" | "magma") {
        8
    } else {
        16
    };
    let name = match (cipher, mode) {
        ("chacha20", "stream") => {
            // OpenSSL's chacha20 IV: 32-bit little-endian block counter || 96-bit nonce.
            let counter = u32::try_from(r.num("counter")?).ok()?;
            let iv = [&counter.to_le_bytes()[..], &r.hex("nonce")?].concat();
            push("--iv", hex::encode(iv));
            "chacha20".to_string()
        }
        ("chacha20-poly1305", "aead") => {
            push("--iv", r.get("nonce")?.to_string());
            push("--aad", r.get("aad")?.to_string());
            expected.extend(r.hex("tag")?);
            "chacha20-poly1305".to_string()
        }
        (_, "ecb") => {
            push("", "--nopad".to_string());
            format!("{family}-ecb")
        }
        (_, "cbc") => {
            push("", "--nopad".to_string());
            push("--iv", r.get("iv")?.to_string());
            format!("{family}-cbc")
        }
        (_, "ofb") => {
            push("--iv", r.get("iv")?.to_string());
            format!("{family}-ofb")
        }
        (_, "cfb") => {
            push("--iv", r.get("iv")?.to_string());
            match bits_to_bytes(r, "s")? {
                1 if family.starts_with("aes") => format!("{family}-cfb8"),
                s if s == block => format!("{family}-cfb"),
                _ => return None,
            }
        }
        (_, "ctr") => {
            push("--iv", r.get("iv")?.to_string());
            format!("{family}-ctr")
        }
        (_, "ctr-acpkm") => {
            push("--iv", r.get("iv")?.to_string());
            push("--section", bits_to_bytes(r, "section_bits")?.to_string());
            format!("{family}-ctr-acpkm")
        }
        (_, "gcm") => {
            push("--iv", r.get("iv")?.to_string());
            push("--aad", r.get("aad")?.to_string());
            let tag = r.hex("tag")?;
            push("--tag-len", tag.len().to_string());
            expected.extend(tag);
            format!("{family}-gcm")
        }
        ("magma" | "kuznyechik", "mgm") => {
            push("--iv", r.get("nonce")?.to_string());
            push("--aad", r.get("aad")?.to_string());
            let tag = r.hex("tag")?;
            push("--tag-len", tag.len().to_string());
            expected.extend(tag);
            format!("{family}-mgm")
        }
        ("magma" | "kuznyechik", "mac") => {
            mac = true;
            expected = r.hex("tag")?;
            push("--tag-len", expected.len().to_string());
            format!("{family}-mac")
        }
        ("magma" | "kuznyechik", "omac-acpkm") => {
            mac = true;
            expected = r.hex("tag")?;
            push("--tag-len", expected.len().to_string());
            push("--section", bits_to_bytes(r, "section_bits")?.to_string());
            push(
                "--master-section",
                bits_to_bytes(r, "tstar_bits")?.to_string(),
            );
            format!("{family}-omac-acpkm")
        }
        _ => return None,
    };
    let key_file = temp_file("kat-key", &key);
    args.splice(
        0..0,
        [
            "cipher",
            "-a",
            &name,
            "--key-file",
            &key_file.display().to_string(),
        ]
        .map(String::from),
    );
    Some(Case {
        name: r.name.clone(),
        args,
        pt,
        expected,
        mac,
    })
}

fn run_case(c: &Case, invalid: bool) {
    let args: Vec<&str> = c.args.iter().map(String::as_str).collect();
    let mut dec_args = args.clone();
    dec_args.push("-d");
    let dec_input = if c.mac {
        [c.pt.as_slice(), c.expected.as_slice()].concat()
    } else {
        c.expected.clone()
    };
    let dec = shifr(&dec_args, &dec_input, &[]);
    if invalid {
        assert!(!dec.ok(), "{}: invalid record accepted", c.name);
        assert!(
            dec.stdout.is_empty(),
            "{}: output despite rejection",
            c.name
        );
        return;
    }
    let enc = shifr(&args, &c.pt, &[]).expect_ok(&c.name);
    assert_eq!(
        hex::encode(enc),
        hex::encode(&c.expected),
        "{}: encryption",
        c.name
    );
    let pt = dec.expect_ok(&format!("{} decryption", c.name));
    assert_eq!(
        hex::encode(pt),
        hex::encode(&c.pt),
        "{}: decryption",
        c.name
    );
}

fn run_file(file: &str) -> usize {
    let mut ran = 0;
    for r in read_vectors(file) {
        if let Some(c) = case(&r) {
            run_case(&c, r.get("result") == Some("invalid"));
            ran += 1;
        }
    }
    ran
}

#[test]
fn standard_vectors_through_the_cli() {
    // 3 x (ecb, cbc, 2 cfb, ofb, ctr, 6 gcm) + 5 chacha20 streams + 2 AEADs + 9 TDEA records.
    let expected_at_least = 3 * 12 + 5 + 2 + 9;
    assert!(run_file("std.txt") >= expected_at_least);
}

#[test]
fn gost_vectors_through_the_cli() {
    // 2 x (ecb, ctr, ofb, cbc, cfb, mac, ctr-acpkm, 2 omac-acpkm) + 4 MGM + AES-256 CTR-ACPKM.
    let expected_at_least = 2 * 9 + 4 + 1;
    assert!(run_file("gost.txt") >= expected_at_least);
}

#[test]
fn kat_passes_both_vector_files() {
    let dir = vectors_dir();
    let files = [dir.join("std.txt"), dir.join("gost.txt")];
    let args: Vec<String> = std::iter::once("kat".to_string())
        .chain(files.iter().map(|f| f.display().to_string()))
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = shifr(&args, b"", &[]);
    let out = String::from_utf8(run.stdout).expect("utf-8 report");
    let lines: Vec<&str> = out.lines().collect();
    let last = lines.last().copied().unwrap_or_default();
    assert!(
        last.ends_with(" passed, 0 failed, 0 skipped"),
        "last line: {last}"
    );
    assert!(!last.starts_with("0 passed"), "no record ran");
    for l in &lines[..lines.len() - 1] {
        assert!(l.ends_with(": pass"), "unexpected line: {l}");
    }
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
}

#[test]
fn kat_reports_a_failing_record_with_status_1() {
    // A correct AES-128 ECB record (FIPS 197 C.1) with its ciphertext's last byte changed.
    let file = temp_file(
        "bad-kat",
        b"# broken / test\ncipher = aes128\nmode = ecb\nkey = 000102030405060708090a0b0c0d0e0f\n\
          pt = 00112233445566778899aabbccddeeff\nct = 69c4e0d86a7b0430d8cdb78070b4c55b\n",
    );
    let run = shifr(&["kat", &file.display().to_string()], b"", &[]);
    let out = String::from_utf8(run.stdout).unwrap();
    assert!(out.starts_with("broken: FAIL"), "{out}");
    assert!(
        out.trim_end().ends_with("0 passed, 1 failed, 0 skipped"),
        "{out}"
    );
    assert_eq!(run.code, Some(1));
}
