//! Seed 001: A. Krolevetsky (Код Безопасности), "Ускорение шифрования ГОСТ 28147-89" — multi-block
//! and multi-stream GOST 28147-89 on CPU (SIMD, general-purpose registers) and GPU
//! (`shared/seeds/001_c747465b755099e0.txt`, figures 3 and 5 and the text around them).
//!
//! The seed's CPU platform is 2 × Intel Xeon E5-2697 v3 @ 2.6 GHz (2 × 14 cores, 56 hardware threads);
//! the per-stream figures it prints are the totals divided by the number of streams over all threads
//! (9425 / 10.5 ≈ 56 × 16 streams). Figure 3: ECB over one 8 MB buffer; figure 5: 16,384 streams of
//! 512 bytes, each stream with its own key.

/// One CPU implementation of the seed's figure 3.
#[derive(Debug, Clone, Copy)]
pub struct CpuResult {
    /// Technique as the seed names it.
    pub technique: &'static str,
    /// Streams processed in parallel by one core.
    pub streams_per_core: u32,
    /// Total MB/s of the 56-thread platform.
    pub total_mb_s: f64,
    /// MB/s per stream as the seed prints it.
    pub per_stream_mb_s: f64,
    /// Cycles per byte on one core, where the seed gives it.
    pub cycles_per_byte: Option<f64>,
}

/// Figure 3 and its text: GPR (4 KB table S-box, 2 blocks in parallel), AVX (16 streams), AVX2 (32).
pub const CPU: [CpuResult; 3] = [
    CpuResult {
        technique: "GPR (general-purpose registers, 2 blocks)",
        streams_per_core: 2,
        total_mb_s: 2682.0,
        per_stream_mb_s: 23.9,
        cycles_per_byte: Some(30.0),
    },
    CpuResult {
        technique: "AVX (16 streams)",
        streams_per_core: 16,
        total_mb_s: 9425.0,
        per_stream_mb_s: 10.5,
        cycles_per_byte: Some(8.5),
    },
    CpuResult {
        technique: "AVX2 (32 streams)",
        streams_per_core: 32,
        total_mb_s: 13133.0,
        per_stream_mb_s: 7.3,
        cycles_per_byte: Some(6.7),
    },
];

/// Hardware threads of the seed's CPU platform (2 × 14 cores with Hyper-Threading).
pub const PLATFORM_THREADS: u32 = 56;
/// Physical cores of the seed's CPU platform.
pub const PLATFORM_CORES: u32 = 28;
/// Core clock of the seed's CPU platform, GHz.
pub const PLATFORM_GHZ: f64 = 2.6;

/// Cycles per byte of the one-block GPR implementation on Sandy/Ivy Bridge (before multi-blocking).
pub const GPR_ONE_BLOCK_CYCLES_PER_BYTE: f64 = 60.0;

/// "Коэффициент распараллеливания шифрования на ЦП составил 0,99 без использования технологии Intel
/// Hyper-threading": parallel efficiency over physical cores.
pub const PARALLEL_COEFFICIENT: f64 = 0.99;
/// The same coefficient with Hyper-Threading.
pub const PARALLEL_COEFFICIENT_HT: f64 = 0.65;
/// Hyper-Threading: +30 % total throughput, at −50 % per thread.
pub const HT_TOTAL_GAIN: f64 = 0.30;

/// Stream count and stream length of figure 5 (GPU, one 8 MB buffer).
pub const GPU_STREAMS: u32 = 16_384;
/// Bytes per stream (one HDD sector) in figure 5.
pub const SECTOR_BYTES: usize = 512;

/// One GPU result of figure 5 and its text.
#[derive(Debug, Clone, Copy)]
pub struct GpuResult {
    /// The GPU as the seed names it.
    pub gpu: &'static str,
    /// MB/s over 16,384 streams of 512 bytes.
    pub total_mb_s: f64,
}

/// Figure 5 and its text ("~1700" for the AMD card is given as approximate).
pub const GPU: [GpuResult; 3] = [
    GpuResult {
        gpu: "Nvidia GeForce GTX 750 (Maxwell)",
        total_mb_s: 2588.0,
    },
    GpuResult {
        gpu: "AMD HD 7790 (GCN 1.1)",
        total_mb_s: 1700.0,
    },
    GpuResult {
        gpu: "Intel integrated GPU",
        total_mb_s: 295.0,
    },
];

/// The seed's conclusion, paraphrased in English.
pub const CONCLUSION: &str = "Multi-stream GOST 28147-89 scales with the number of cores with a \
parallel coefficient of 0.99 (0.65 with Hyper-Threading); SIMD multi-stream reaches 6.7-8.5 \
cycles/byte per core, about AES-256 without AES-NI, so GOST 28147-89 approaches AES in speed.";
