//! What a GPU test does without a device, and the record of the tests that really ran on one. Shared
//! by the GPU tests of shifr-gpu and of the CLI (included there by path).
//!
//! Without a device a test may pass only where nobody asked for the kernels to be checked: under
//! `CI=true`, or with `SHIFR_REQUIRE_OPENCL=1` (scripts/test.sh sets it after installing PoCL and the
//! OpenCL ICD loader), a missing OpenCL platform fails the test instead. Every test that ran on a
//! device appends `NAME<TAB>DEVICE` to the file named by `SHIFR_GPU_CHECK_LOG`, which scripts/test.sh
//! counts and prints, so the output says how many GPU checks really ran.

#![allow(dead_code)] // each test file uses a part

use std::io::Write;

/// Whether a missing device must fail the test.
pub fn device_required() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
        || std::env::var("SHIFR_REQUIRE_OPENCL").is_ok_and(|v| v == "1")
}

/// Reports that `test` found no device (`why`): a failure where one is required, else a printed skip.
pub fn no_device(test: &str, why: &str) {
    assert!(
        !device_required(),
        "{test}: no GPU device, but one is required here (CI=true or SHIFR_REQUIRE_OPENCL=1; \
         scripts/test.sh installs pocl-opencl-icd and ocl-icd-libopencl1): {why}"
    );
    eprintln!("{test}: skipped: {why}");
}

/// Records that `test` ran its checks on `device`.
pub fn ran_on(test: &str, device: &str) {
    eprintln!("{test}: ran on {device}");
    let Some(path) = std::env::var_os("SHIFR_GPU_CHECK_LOG") else {
        return;
    };
    let line = format!("{test}\t{device}\n");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path);
    // One short append per test: lines from parallel tests do not interleave.
    if let Ok(mut f) = file {
        let _ = f.write_all(line.as_bytes());
    }
}
