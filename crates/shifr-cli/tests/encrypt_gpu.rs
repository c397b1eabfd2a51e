//! `shifr encrypt / decrypt --backend gpu` through the built binary, on whatever GPU or OpenCL device
//! there is (PoCL's CPU device in CI, where a missing device fails the test: tests/support of shifr-gpu).
//! With the threshold lowered (SHIFR_GPU_MIN_BYTES=0) and 1 KiB chunks, the GPU path really runs for
//! sizes 0, 1, chunk - 1, chunk, chunk + 1 and several chunks: the file must be byte-identical to the
//! CPU container with the same salt and nonce prefix (re-encrypted here with the library's CPU path),
//! decrypt both with and without --backend gpu, and reject a flipped body byte leaving no output. The
//! fallbacks print their one-line note: below the threshold, xchacha20-poly1305, an unknown backend.

#![cfg(feature = "gpu")]

#[path = "../../shifr-gpu/tests/support/mod.rs"]
mod gpu_support;
mod support;

use rand::RngCore;
use shifr::container::{read_header, EncryptParams, FileCipher, Secret};
use std::path::{Path, PathBuf};
use support::{shifr, temp_path};

const GPU_AEADS: [&str; 4] = [
    "aes-256-gcm",
    "chacha20-poly1305",
    "kuznyechik-mgm",
    "magma-mgm",
];
const CHUNK: usize = 1024;
const ALWAYS_GPU: (&str, &str) = ("SHIFR_GPU_MIN_BYTES", "0");

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn random_bytes(len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rand::thread_rng().fill_bytes(&mut v);
    v
}

/// A raw 32-byte key file and its bytes.
fn key_file() -> (PathBuf, [u8; 32]) {
    let key: [u8; 32] = random_bytes(32).try_into().unwrap();
    let path = temp_path("gpu-key");
    std::fs::write(&path, key).unwrap();
    (path, key)
}

/// Whether `shifr --backend gpu` finds a GPU or OpenCL device; prints its note (the reason) if not.
/// Asked of the binary rather than opened here: PoCL's start-up must not race between test threads.
fn have_gpu(test: &str, key: &Path) -> bool {
    let run = shifr(
        &["encrypt", "--key-file", s(key), "--backend", "gpu"],
        b"x",
        &[ALWAYS_GPU],
    );
    if run.stderr.contains("GPU path") {
        gpu_support::ran_on(test, "shifr encrypt --backend gpu");
        eprintln!("{}", run.stderr.trim());
        true
    } else {
        gpu_support::no_device(test, run.stderr.trim());
        false
    }
}

/// The CPU container of `plain` with the header (salt, nonce prefix, chunk size) of `file`.
fn cpu_reference(file: &[u8], key: &[u8; 32], plain: &[u8]) -> Vec<u8> {
    let header = read_header(file).unwrap();
    let mut params = EncryptParams::new(
        header.algorithm,
        header.kdf,
        header.salt,
        header.nonce_prefix,
    );
    params.chunk_size = header.chunk_size;
    let cipher = FileCipher::for_encryption(&params, Secret::KeyFile(key)).unwrap();
    let mut out = Vec::new();
    cipher.encrypt(plain, &mut out, 1, &mut |_| {}).unwrap();
    out
}

#[test]
fn gpu_encryption_is_byte_identical_and_decrypts_both_ways() {
    let (key, key_bytes) = key_file();
    if !have_gpu(
        "gpu_encryption_is_byte_identical_and_decrypts_both_ways",
        &key,
    ) {
        return;
    }
    let chunk = CHUNK.to_string();
    for aead in GPU_AEADS {
        for len in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 9 * CHUNK + 37] {
            let plain = random_bytes(len);
            let input = temp_path("gpu-in");
            std::fs::write(&input, &plain).unwrap();
            let sealed = temp_path("gpu-sealed");
            let run = shifr(
                &[
                    "encrypt",
                    "-a",
                    aead,
                    "--chunk-size",
                    &chunk,
                    "--key-file",
                    s(&key),
                    "--backend",
                    "gpu",
                    "-o",
                    s(&sealed),
                    s(&input),
                ],
                b"",
                &[ALWAYS_GPU],
            );
            let note = run.stderr.clone();
            run.expect_ok("encrypt --backend gpu");
            assert!(note.contains("GPU path"), "{aead} {len}: {note}");
            let file = std::fs::read(&sealed).unwrap();
            assert!(
                file == cpu_reference(&file, &key_bytes, &plain),
                "{aead} {len} bytes: GPU container differs from the CPU one"
            );
            // Decrypt on the CPU (no --backend) and on the GPU.
            let out = shifr(&["decrypt", "--key-file", s(&key), s(&sealed)], b"", &[])
                .expect_ok("decrypt on the CPU");
            assert_eq!(out, plain, "{aead} {len}");
            let out = shifr(
                &[
                    "decrypt",
                    "--key-file",
                    s(&key),
                    "--backend",
                    "gpu",
                    s(&sealed),
                ],
                b"",
                &[ALWAYS_GPU],
            )
            .expect_ok("decrypt --backend gpu");
            assert_eq!(out, plain, "{aead} {len}");
            if len > 0 {
                let mut bad = file.clone();
                bad[80 + len / 2] ^= 0x01;
                let tampered = temp_path("gpu-bad");
                std::fs::write(&tampered, &bad).unwrap();
                let target = temp_path("gpu-out");
                let run = shifr(
                    &[
                        "decrypt",
                        "--key-file",
                        s(&key),
                        "--backend",
                        "gpu",
                        "-o",
                        s(&target),
                        s(&tampered),
                    ],
                    b"",
                    &[ALWAYS_GPU],
                );
                assert_eq!(run.code, Some(7), "{aead} {len}: {}", run.stderr);
                assert!(!target.exists(), "no output after a failed decryption");
            }
        }
    }
}

#[test]
fn gpu_encryption_from_stdin_uses_the_gpu() {
    let (key, key_bytes) = key_file();
    if !have_gpu("gpu_encryption_from_stdin_uses_the_gpu", &key) {
        return;
    }
    let plain = random_bytes(5 * CHUNK + 3);
    let run = shifr(
        &[
            "encrypt",
            "-a",
            "chacha20-poly1305",
            "--chunk-size",
            "1024",
            "--key-file",
            s(&key),
            "--backend",
            "gpu",
        ],
        &plain,
        &[],
    );
    assert!(run.stderr.contains("GPU path"), "{}", run.stderr);
    let file = run.expect_ok("encrypt from stdin");
    assert!(file == cpu_reference(&file, &key_bytes, &plain));
}

#[test]
fn small_inputs_and_xchacha_stay_on_the_cpu_with_a_note() {
    let (key, _) = key_file();
    let input = temp_path("gpu-small");
    std::fs::write(&input, b"hello").unwrap();
    let run = shifr(
        &[
            "encrypt",
            "--key-file",
            s(&key),
            "--backend",
            "gpu",
            s(&input),
        ],
        b"",
        &[],
    );
    assert!(
        run.stderr.contains("input below 4 MiB") && run.stderr.contains("CPU path"),
        "{}",
        run.stderr
    );
    let sealed = run.expect_ok("small input");
    let out = shifr(&["decrypt", "--key-file", s(&key)], &sealed, &[]).expect_ok("decrypt");
    assert_eq!(out, b"hello");

    let run = shifr(
        &[
            "encrypt",
            "-a",
            "xchacha20-poly1305",
            "--key-file",
            s(&key),
            "--backend",
            "gpu",
            s(&input),
        ],
        b"",
        &[ALWAYS_GPU],
    );
    assert!(
        run.stderr
            .contains("xchacha20-poly1305 has no GPU key stream"),
        "{}",
        run.stderr
    );
    run.expect_ok("xchacha on the CPU");

    let run = shifr(
        &[
            "encrypt",
            "--key-file",
            s(&key),
            "--backend",
            "tpu",
            s(&input),
        ],
        b"",
        &[],
    );
    assert!(
        !run.ok() && run.stderr.contains("unknown --backend"),
        "{}",
        run.stderr
    );
}

#[test]
fn no_gpu_falls_back_with_the_reason() {
    let (key, _) = key_file();
    let input = temp_path("gpu-none");
    std::fs::write(&input, b"data").unwrap();
    // An OpenCL library that cannot be found and no CUDA requested: the reason is printed.
    let run = shifr(
        &[
            "encrypt",
            "--key-file",
            s(&key),
            "--backend",
            "gpu",
            s(&input),
        ],
        b"",
        &[
            ALWAYS_GPU,
            ("SHIFR_GPU", "opencl"),
            ("OPENCL_DYLIB_PATH", "/nonexistent/libOpenCL.so.1"),
            ("OCL_ICD_VENDORS", "/nonexistent"),
        ],
    );
    assert!(
        run.stderr.contains("note: no GPU") && run.stderr.contains("CPU path"),
        "{}",
        run.stderr
    );
    run.expect_ok("fallback");
}
