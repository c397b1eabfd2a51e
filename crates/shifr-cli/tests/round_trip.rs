//! Round trips through the built `shifr` binary for every catalogue name: random keys (raw key file,
//! hex key file, SHIFR_KEY), random IVs, lengths 0, 1, 15, 16, 17 and 1000 (with --nopad only the
//! block-aligned ones), checking output lengths, that encryption changed the data, and that
//! decryption restores it.

mod support;

use rand::{Rng, RngCore};
use shifr::catalog::{self, AlgInfo, IvSpec, Kind, Padding};
use support::{shifr, temp_file};

const LENGTHS: [usize; 6] = [0, 1, 15, 16, 17, 1000];

fn random_bytes(len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rand::thread_rng().fill_bytes(&mut v);
    v
}

/// A random IV the algorithm accepts; `wide` picks a two-block register where GOST allows it.
fn random_iv(alg: &AlgInfo, wide: bool) -> Vec<u8> {
    let len = match alg.iv {
        IvSpec::MultipleOf(n) if wide => 2 * n,
        spec => spec.default_len(),
    };
    let mut iv = random_bytes(len);
    if alg.name.ends_with("-mgm") {
        iv[0] &= 0x7f; // RFC 9058: the nonce's most significant bit is 0
    }
    if alg.name == "chacha20" {
        iv[3] = 0; // keep the 32-bit block counter far from wrapping
    }
    iv
}

/// How the key reaches the binary.
#[derive(Clone, Copy, Debug)]
enum KeySource {
    RawFile,
    HexFile,
    Env,
}

struct Invocation {
    args: Vec<String>,
    env: Vec<(String, String)>,
}

fn invocation(alg: &AlgInfo, key: &[u8], source: KeySource, iv: &[u8]) -> Invocation {
    let mut args = vec!["cipher".to_string(), "-a".to_string(), alg.name.to_string()];
    let mut env = Vec::new();
    match source {
        KeySource::RawFile => {
            let f = temp_file("raw-key", key);
            args.extend(["--key-file".to_string(), f.display().to_string()]);
        }
        KeySource::HexFile => {
            let f = temp_file("hex-key", format!("{}\n", hex::encode(key)).as_bytes());
            args.extend(["--key-file".to_string(), f.display().to_string()]);
        }
        KeySource::Env => env.push(("SHIFR_KEY".to_string(), hex::encode(key))),
    }
    if alg.iv != IvSpec::None {
        args.extend(["--iv".to_string(), hex::encode(iv)]);
    }
    Invocation { args, env }
}

fn run(inv: &Invocation, extra: &[String], stdin: &[u8]) -> support::Run {
    let args: Vec<&str> = inv.args.iter().chain(extra).map(String::as_str).collect();
    let env: Vec<(&str, &str)> = inv
        .env
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    shifr(&args, stdin, &env)
}

fn round_trip(alg: &AlgInfo, len: usize, nopad: bool, source: KeySource, wide_iv: bool) {
    let key = random_bytes(alg.key_len);
    let iv = random_iv(alg, wide_iv);
    let inv = invocation(alg, &key, source, &iv);
    let what = format!("{} len {len} nopad {nopad} key {source:?}", alg.name);
    let pt = random_bytes(len);
    let mut extra = Vec::new();
    if nopad {
        extra.push("--nopad".to_string());
    }
    if alg.kind == Kind::Aead {
        // MGM needs a non-empty message or AAD (RFC 9058); len 1000 covers the empty AAD.
        let aad_len = if len == 0 { 7 } else { len % 20 };
        extra.extend(["--aad".to_string(), hex::encode(random_bytes(aad_len))]);
    }
    let out = run(&inv, &extra, &pt).expect_ok(&format!("encrypt {what}"));

    let n = alg.block_size;
    let tag_len = alg.tag.map_or(0, |t| t.default);
    let expected_len = match alg.kind {
        Kind::Mac => tag_len,
        Kind::Aead => len + tag_len,
        _ if alg.padding == Padding::Pkcs7 && !nopad => (len / n + 1) * n,
        _ => len,
    };
    assert_eq!(out.len(), expected_len, "output length of {what}");
    if alg.kind != Kind::Mac && len >= 15 {
        assert_ne!(&out[..len], &pt[..], "{what}: ciphertext equals plaintext");
    }

    let mut dec_args = extra.clone();
    dec_args.push("-d".to_string());
    let ct = if alg.kind == Kind::Mac {
        [pt.as_slice(), out.as_slice()].concat()
    } else {
        out.clone()
    };
    let back = run(&inv, &dec_args, &ct).expect_ok(&format!("decrypt {what}"));
    assert_eq!(back, pt, "round trip of {what}");

    if alg.tag.is_some() {
        // The tag may also come separately.
        let (body, tag) = ct.split_at(ct.len() - tag_len);
        let mut with_tag = dec_args.clone();
        with_tag.extend(["--tag".to_string(), hex::encode(tag)]);
        let back = run(&inv, &with_tag, body).expect_ok(&format!("decrypt {what} with --tag"));
        assert_eq!(back, pt, "round trip of {what} with --tag");
    }
}

#[test]
fn every_algorithm_round_trips_at_edge_lengths() {
    let sources = [KeySource::RawFile, KeySource::HexFile, KeySource::Env];
    let mut runs = 0;
    for (i, alg) in catalog::all().iter().enumerate() {
        for (j, &len) in LENGTHS.iter().enumerate() {
            let source = sources[(i + j) % sources.len()];
            let wide = j % 2 == 1;
            round_trip(alg, len, false, source, wide);
            runs += 1;
            if alg.padding == Padding::Pkcs7 && len % alg.block_size == 0 {
                round_trip(alg, len, true, source, wide);
                runs += 1;
            }
        }
    }
    assert!(runs >= catalog::all().len() * LENGTHS.len());
}

#[test]
fn key_file_and_environment_give_the_same_output() {
    let mut rng = rand::thread_rng();
    for alg in catalog::all() {
        let key = random_bytes(alg.key_len);
        let iv = random_iv(alg, false);
        let pt = random_bytes(rng.gen_range(1..100));
        let outputs: Vec<Vec<u8>> = [KeySource::RawFile, KeySource::HexFile, KeySource::Env]
            .into_iter()
            .map(|s| run(&invocation(alg, &key, s, &iv), &[], &pt).expect_ok(alg.name))
            .collect();
        assert_eq!(outputs[0], outputs[1], "{}: raw vs hex key file", alg.name);
        assert_eq!(
            outputs[0], outputs[2],
            "{}: key file vs SHIFR_KEY",
            alg.name
        );
    }
}

#[test]
fn forcing_the_portable_backend_changes_nothing() {
    for name in ["aes-128-ctr", "aes-256-gcm", "aes-192-cbc", "aes-128-cmac"] {
        let alg = catalog::lookup(name).unwrap();
        let key = random_bytes(alg.key_len);
        let iv = random_iv(alg, false);
        let pt = random_bytes(333);
        let inv = invocation(alg, &key, KeySource::Env, &iv);
        let auto = run(&inv, &[], &pt).expect_ok(name);
        let mut forced = inv;
        forced
            .env
            .push(("SHIFR_BACKEND".to_string(), "portable".to_string()));
        assert_eq!(run(&forced, &[], &pt).expect_ok(name), auto, "{name}");
    }
}
