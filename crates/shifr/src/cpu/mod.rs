//! CPU feature detection and backend selection: the one place where shifr decides which
//! implementation runs.
//!
//! Each algorithm asks at key setup for its [`Plan`] (AES, 3DES, Magma, Kuznyechik, ChaCha20: the
//! backend for bulk work, for short calls and for single-stream chains, from the table measured
//! per micro-architecture and an optional calibration by `shifr tune`) or, for the MACs' field
//! arithmetic, for the best backend it has ([`select`]). The environment variable `SHIFR_BACKEND`
//! (e.g. `SHIFR_BACKEND=portable`) forces one for tests and benchmarks, and [`Backend`] can also be
//! passed explicitly to an algorithm's `with_backend` constructor.

use std::sync::OnceLock;

pub mod calibration;
pub mod microarch;
mod plan;
mod table;

pub use microarch::{microarch, Microarch};
pub use plan::{plan, resolve, Entry, Plan, Primitive, Reason, Work};

/// The plan of every primitive on this CPU, in [`Primitive::ALL`] order.
pub fn plans() -> Vec<(Primitive, Plan)> {
    Primitive::ALL
        .iter()
        .map(|&p| {
            let plan = match p {
                Primitive::Aes => crate::block::aes::Aes::plan(),
                Primitive::Tdes => crate::block::tdes::Tdes::plan(),
                Primitive::Magma => crate::block::magma::Magma::plan(),
                Primitive::Kuznyechik => crate::block::kuznyechik::Kuznyechik::plan(),
                Primitive::ChaCha20 => crate::stream::chacha20::ChaCha20::plan(),
            };
            (p, plan)
        })
        .collect()
}

/// The measured choices of the table for `arch` (what [`plan`] applies on such a CPU).
pub fn table_entries(arch: Microarch) -> &'static [Entry] {
    table::entries(arch)
}

/// An implementation strategy. Not every algorithm has every backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    /// Plain Rust, no CPU-specific instructions; the oracle every other backend is tested against.
    Portable,
    /// x86-64 SSE2 (the x86-64 baseline): 128-bit lanes.
    Sse2,
    /// AArch64 Advanced SIMD (NEON): 128-bit lanes, TBL/TBX table lookups.
    Neon,
    /// ARMv8 cryptography extensions (AESE/AESMC, PMULL).
    ArmCrypto,
    /// x86-64 AES-NI (+ PCLMULQDQ for GHASH).
    AesNi,
    /// x86-64 AVX2: 256-bit lanes.
    Avx2,
    /// x86-64 VAES + VPCLMULQDQ on 256-bit registers (AVX2 encoding).
    Vaes,
    /// x86-64 AVX-512 (F, BW, VL): 512-bit lanes, masked ops, vpermi2b where VBMI is present.
    Avx512,
    /// x86-64 AVX-512 with GFNI (Galois-field affine and multiply instructions).
    Gfni,
    /// x86-64 AVX-512 IFMA (52-bit integer multiply-add, `vpmadd52luq`/`vpmadd52huq`).
    Ifma,
}

impl Backend {
    /// Every backend shifr knows, in preference order from slowest to fastest.
    pub const ALL: &'static [Backend] = &[
        Backend::Portable,
        Backend::Sse2,
        Backend::Neon,
        Backend::ArmCrypto,
        Backend::AesNi,
        Backend::Avx2,
        Backend::Vaes,
        Backend::Avx512,
        Backend::Gfni,
        Backend::Ifma,
    ];

    /// The name used on the command line and in `SHIFR_BACKEND`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Portable => "portable",
            Backend::Sse2 => "sse2",
            Backend::Neon => "neon",
            Backend::ArmCrypto => "armv8-crypto",
            Backend::AesNi => "aesni",
            Backend::Avx2 => "avx2",
            Backend::Vaes => "vaes",
            Backend::Avx512 => "avx512",
            Backend::Gfni => "gfni",
            Backend::Ifma => "avx512ifma",
        }
    }

    /// Parses a backend name (case-insensitive).
    pub fn from_name(name: &str) -> Option<Backend> {
        Backend::ALL
            .iter()
            .copied()
            .find(|b| b.name().eq_ignore_ascii_case(name))
    }

    /// Whether this CPU can run the backend at all.
    pub fn is_supported(self) -> bool {
        let f = features();
        let avx512 = f.avx512f && f.avx512bw && f.avx512vl;
        match self {
            Backend::Portable => true,
            Backend::Sse2 => f.sse2,
            Backend::Neon => f.neon,
            Backend::ArmCrypto => f.neon && f.arm_aes && f.arm_pmull,
            Backend::AesNi => f.aesni && f.pclmulqdq && f.ssse3,
            Backend::Avx2 => f.avx2,
            Backend::Vaes => f.avx2 && f.vaes && f.vpclmulqdq,
            Backend::Avx512 => avx512,
            Backend::Gfni => avx512 && f.gfni,
            Backend::Ifma => avx512 && f.avx512ifma,
        }
    }
}

/// The CPU features shifr cares about.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Features {
    pub sse2: bool,
    pub aesni: bool,
    pub pclmulqdq: bool,
    pub ssse3: bool,
    pub avx2: bool,
    pub avx512f: bool,
    pub avx512bw: bool,
    pub avx512vl: bool,
    pub avx512vbmi: bool,
    pub avx512ifma: bool,
    pub gfni: bool,
    pub vaes: bool,
    pub vpclmulqdq: bool,
    pub neon: bool,
    pub arm_aes: bool,
    pub arm_pmull: bool,
}

/// Detected once per process.
pub(crate) fn features() -> Features {
    static DETECTED: OnceLock<Features> = OnceLock::new();
    *DETECTED.get_or_init(detect)
}

/// Whether this CPU has the instruction-set extension `name` (the names of
/// `is_x86_feature_detected!`: `sse2`, `ssse3`, `aes`, `pclmulqdq`, `avx2`, `avx512f`, `avx512bw`,
/// `avx512vl`, `avx512vbmi`, `avx512ifma`, `gfni`, `vaes`, `vpclmulqdq`; on AArch64 `neon`, `aes`,
/// `pmull`), as shifr detected it. Unknown names are `false`.
pub fn has_feature(name: &str) -> bool {
    let f = features();
    match name {
        "sse2" => f.sse2,
        "ssse3" => f.ssse3,
        "aes" => f.aesni || f.arm_aes,
        "pclmulqdq" => f.pclmulqdq,
        "avx2" => f.avx2,
        "avx512f" => f.avx512f,
        "avx512bw" => f.avx512bw,
        "avx512vl" => f.avx512vl,
        "avx512vbmi" => f.avx512vbmi,
        "avx512ifma" => f.avx512ifma,
        "gfni" => f.gfni,
        "vaes" => f.vaes,
        "vpclmulqdq" => f.vpclmulqdq,
        "neon" => f.neon,
        "pmull" => f.arm_pmull,
        _ => false,
    }
}

#[cfg(any(target_arch = "x86_64", target_arch = "x86"))]
fn detect() -> Features {
    Features {
        sse2: std::arch::is_x86_feature_detected!("sse2"),
        aesni: std::arch::is_x86_feature_detected!("aes"),
        pclmulqdq: std::arch::is_x86_feature_detected!("pclmulqdq"),
        ssse3: std::arch::is_x86_feature_detected!("ssse3"),
        avx2: std::arch::is_x86_feature_detected!("avx2"),
        avx512f: std::arch::is_x86_feature_detected!("avx512f"),
        avx512bw: std::arch::is_x86_feature_detected!("avx512bw"),
        avx512vl: std::arch::is_x86_feature_detected!("avx512vl"),
        avx512vbmi: std::arch::is_x86_feature_detected!("avx512vbmi"),
        avx512ifma: std::arch::is_x86_feature_detected!("avx512ifma"),
        gfni: std::arch::is_x86_feature_detected!("gfni"),
        vaes: std::arch::is_x86_feature_detected!("vaes"),
        vpclmulqdq: std::arch::is_x86_feature_detected!("vpclmulqdq"),
        ..Features::default()
    }
}

#[cfg(target_arch = "aarch64")]
fn detect() -> Features {
    Features {
        neon: std::arch::is_aarch64_feature_detected!("neon"),
        arm_aes: std::arch::is_aarch64_feature_detected!("aes"),
        arm_pmull: std::arch::is_aarch64_feature_detected!("pmull"),
        ..Features::default()
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "x86", target_arch = "aarch64")))]
fn detect() -> Features {
    Features::default()
}

/// The backend forced by `SHIFR_BACKEND`, if any (`auto` or unset means none).
/// An unknown name is ignored rather than fatal; `shifr` reports it on startup.
pub fn forced() -> Option<Backend> {
    static FORCED: OnceLock<Option<Backend>> = OnceLock::new();
    *FORCED.get_or_init(|| {
        std::env::var("SHIFR_BACKEND")
            .ok()
            .and_then(|v| Backend::from_name(v.trim()))
    })
}

/// Picks the backend for an algorithm that implements `offered` (in any order).
///
/// A forced backend (`SHIFR_BACKEND`) wins if the algorithm offers it and the CPU supports it;
/// otherwise the algorithm falls back to its best supported backend, so that forcing `aesni` never
/// breaks, say, Magma. Portable is always acceptable.
pub fn select(offered: &[Backend]) -> Backend {
    if let Some(b) = forced() {
        if b == Backend::Portable || (offered.contains(&b) && b.is_supported()) {
            return b;
        }
    }
    best(offered)
}

/// Every backend this CPU supports, in preference order.
pub fn supported() -> Vec<Backend> {
    Backend::ALL
        .iter()
        .copied()
        .filter(|b| b.is_supported())
        .collect()
}

/// The fastest supported backend among `offered` (Portable if none).
pub fn best(offered: &[Backend]) -> Backend {
    Backend::ALL
        .iter()
        .rev()
        .copied()
        .find(|b| offered.contains(b) && b.is_supported())
        .unwrap_or(Backend::Portable)
}

/// Checks that `b` can be used for an algorithm offering `offered`.
pub fn require(b: Backend, offered: &[Backend]) -> crate::Result<Backend> {
    if b == Backend::Portable || (offered.contains(&b) && b.is_supported()) {
        Ok(b)
    } else {
        Err(crate::Error::BackendUnavailable(b.name()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &b in Backend::ALL {
            assert_eq!(Backend::from_name(b.name()), Some(b));
        }
        assert_eq!(Backend::from_name("nonsense"), None);
    }

    #[test]
    fn portable_is_always_available() {
        assert!(Backend::Portable.is_supported());
        assert_eq!(best(&[]), Backend::Portable);
        assert_eq!(require(Backend::Portable, &[]), Ok(Backend::Portable));
    }
}
