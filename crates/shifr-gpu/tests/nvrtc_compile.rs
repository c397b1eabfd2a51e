//! The CUDA dialect of the kernels, compiled without a GPU: NVRTC needs no driver or device, so
//! wherever libnvrtc can be opened this test builds the program of every Magma S-box set for each
//! architecture of `arches()` through the same code path as a device
//! (`shifr_gpu::cuda_compile_check`), which fails on any NVRTC warning and checks that every kernel
//! the host launches is a PTX entry point. Without libnvrtc it
//! says so and passes (CI does not install the 60+ MB NVRTC wheel; scripts/nvrtc-check.sh fetches it
//! and runs this test with it).
//!
//! `SHIFR_PTX_OUT=DIR` also writes each PTX to `DIR/shifr-<arch>-<sbox>.ptx` (for `ptxas -v`).

use shifr_gpu::{cuda_compile_check, GpuError};

/// The real architectures compiled for: `SHIFR_NVRTC_ARCHES` (comma-separated, e.g. `sm_90,sm_80`),
/// else H100's sm_90, the device docs/GPU.md targets (it promises no older one).
fn arches() -> Vec<String> {
    std::env::var("SHIFR_NVRTC_ARCHES")
        .unwrap_or_else(|_| "sm_90".into())
        .split(',')
        .map(|a| a.trim().to_string())
        .filter(|a| !a.is_empty())
        .collect()
}

#[test]
fn cuda_program_compiles_for_every_sbox_set() {
    let out = std::env::var_os("SHIFR_PTX_OUT").map(std::path::PathBuf::from);
    for arch in arches() {
        let arch = arch.as_str();
        let ptxs = match cuda_compile_check(arch) {
            Ok(ptxs) => ptxs,
            Err(GpuError::NoDevice(why)) => {
                eprintln!("skipped: libnvrtc not found: CUDA kernels not compiled ({why})");
                return;
            }
            Err(e) => panic!("NVRTC, {arch}: {e}"),
        };
        assert_eq!(ptxs.len(), shifr::hazmat::block::magma::SBox::ALL.len());
        for (sbox, ptx) in &ptxs {
            let target = format!(".target {arch}");
            assert!(
                ptx.lines().any(|l| l.trim() == target),
                "{arch} {sbox:?}: PTX is not for {target}"
            );
            if let Some(dir) = &out {
                std::fs::create_dir_all(dir).expect("create SHIFR_PTX_OUT");
                let path = dir.join(format!("shifr-{arch}-{sbox:?}.ptx"));
                std::fs::write(&path, ptx).expect("write PTX");
            }
        }
        eprintln!(
            "{arch}: {} S-box sets compiled, every launched kernel present",
            ptxs.len()
        );
    }
}
