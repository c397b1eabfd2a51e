//! The kernel program: one source text for both compilers (the prelude maps the dialects), plus the
//! Magma Boolean-function masks of one S-box set.

use shifr::hazmat::block::magma::SBox;

const PRELUDE: &str = include_str!("../kernels/prelude.h");
const KERNELS: [&str; 5] = [
    include_str!("../kernels/chacha20.cl"),
    include_str!("../kernels/magma.cl"),
    include_str!("../kernels/kuznyechik.cl"),
    include_str!("../kernels/aes.cl"),
    include_str!("../kernels/segments.cl"),
];

/// The kernels the host launches, by name: the job, key-stream and multi-stream code name them
/// through these constants, and the CUDA compile check ([`crate::cuda_compile_check`]) finds each
/// among the PTX entry points.
pub(crate) mod entry {
    pub(crate) const CHACHA20_XOR: &str = "chacha20_xor";
    pub(crate) const MAGMA_CTR_TAB: &str = "magma_ctr_tab";
    pub(crate) const MAGMA_ECB_TAB: &str = "magma_ecb_tab";
    pub(crate) const MAGMA_CTR_ANF: &str = "magma_ctr_anf";
    pub(crate) const MAGMA_ECB_ANF: &str = "magma_ecb_anf";
    pub(crate) const MAGMA_STREAMS_TAB: &str = "magma_streams_tab";
    pub(crate) const KUZNYECHIK_CTR: &str = "kuznyechik_ctr";
    pub(crate) const KUZNYECHIK_ECB: &str = "kuznyechik_ecb";
    pub(crate) const KUZNYECHIK_STREAMS: &str = "kuznyechik_streams";
    pub(crate) const AES_CTR: &str = "aes_ctr";
    pub(crate) const AES_ECB: &str = "aes_ecb";
    pub(crate) const AES_CTR_SEGMENTS: &str = "aes_ctr_segments";
    pub(crate) const KUZNYECHIK_CTR_SEGMENTS: &str = "kuznyechik_ctr_segments";
    pub(crate) const MAGMA_CTR_SEGMENTS: &str = "magma_ctr_segments";
    pub(crate) const CHACHA20_SEGMENTS: &str = "chacha20_segments";
}

/// Every name in [`entry`].
pub(crate) const ENTRY_POINTS: [&str; 15] = [
    entry::CHACHA20_XOR,
    entry::MAGMA_CTR_TAB,
    entry::MAGMA_ECB_TAB,
    entry::MAGMA_CTR_ANF,
    entry::MAGMA_ECB_ANF,
    entry::MAGMA_STREAMS_TAB,
    entry::KUZNYECHIK_CTR,
    entry::KUZNYECHIK_ECB,
    entry::KUZNYECHIK_STREAMS,
    entry::AES_CTR,
    entry::AES_ECB,
    entry::AES_CTR_SEGMENTS,
    entry::KUZNYECHIK_CTR_SEGMENTS,
    entry::MAGMA_CTR_SEGMENTS,
    entry::CHACHA20_SEGMENTS,
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

/// FNV-1a of the source and the target (e.g. `sm_90`): the on-disk CUBIN cache key. Not a security
/// hash; a collision would only load a stale cached kernel, which the tests would catch.
pub(crate) fn cache_key(src: &str, target: &str) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in src.bytes().chain([0u8]).chain(target.bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
