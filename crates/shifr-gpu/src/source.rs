//! The kernel program: one source text for both compilers (the prelude maps the dialects), plus the
//! Magma Boolean-function masks of one S-box set.

use shifr::block::magma::SBox;

const PRELUDE: &str = include_str!("../kernels/prelude.h");
const KERNELS: [&str; 5] = [
    include_str!("../kernels/chacha20.cl"),
    include_str!("../kernels/magma.cl"),
    include_str!("../kernels/kuznyechik.cl"),
    include_str!("../kernels/aes.cl"),
    include_str!("../kernels/segments.cl"),
];

/// The complete program text for the Magma S-box set `sbox` (the other kernels do not depend on it).
pub(crate) fn program(sbox: SBox) -> String {
    let mut src = String::from(PRELUDE);
    src.push_str(&crate::tables::magma_anf_defines(sbox));
    for k in KERNELS {
        src.push('\n');
        src.push_str(k);
    }
    src
}

/// FNV-1a of the source and the target (e.g. `compute_90`): the on-disk PTX cache key. Not a security
/// hash; a collision would only load a stale cached kernel, which the tests would catch.
pub(crate) fn cache_key(src: &str, target: &str) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in src.bytes().chain([0u8]).chain(target.bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
