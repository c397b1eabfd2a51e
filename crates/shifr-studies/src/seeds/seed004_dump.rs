//! Seed 004: "Второе пришествие ГОСТ 28147-89" (the second coming of GOST 28147-89), a blog post on
//! encrypted disk dumps made by the author's FastSecurityBoxs / ProjectFK program
//! (`shared/seeds/004_5d4680ce0bfc61aa.txt`). The figures are the ones its text states.

/// The machine: a four-core Skylake at 2.6 GHz with Hyper-Threading (8 logical CPUs); two SSDs that
/// read and write about 450–500 MB/s through the file system after a TRIM.
pub const PLATFORM: &str = "Skylake, 4 cores / 8 threads, 2.6 GHz; two SATA SSDs (450–500 MB/s)";
/// Logical CPUs of the seed's machine.
pub const LOGICAL_CPUS: usize = 8;
/// The CPU share a background encryption job may take, percent of the whole machine.
pub const CPU_LIMIT_PERCENT: f64 = 15.0;

/// Copying the disk without cryptography: MB/s.
pub const COPY_MB_S: f64 = 449.0;
/// CPU % of the machine for that copy: reading the sectors (5 %) plus writing the file (2 %).
pub const COPY_CPU_PERCENT: f64 = 5.0 + 2.0;

/// One encrypted dump of the seed: GOST 28147-89 in `streams` parallel streams.
#[derive(Debug, Clone, Copy)]
pub struct Dump {
    /// Parallel GOST 28147-89 streams.
    pub streams: usize,
    /// Speed of the encrypted dump, MB/s.
    pub mb_s: f64,
    /// CPU % of the whole machine used by the program.
    pub cpu_percent: f64,
}

/// The two encrypted dumps: 8 streams at 190 MB/s and 12 % CPU, 16 streams at 334 MB/s and 10.5 %.
pub const DUMPS: [Dump; 2] = [
    Dump {
        streams: 8,
        mb_s: 190.0,
        cpu_percent: 12.0,
    },
    Dump {
        streams: 16,
        mb_s: 334.0,
        cpu_percent: 10.5,
    },
];

/// CPU % of the whole machine spent on the cryptography itself in the 8-stream dump (at 190 MB/s).
pub const CRYPTO_CPU_PERCENT_AT_190: f64 = 7.0;

/// CPU-seconds per gigabyte (10^9 bytes) that the seed's cryptography costs: 7 % of 8 logical CPUs at
/// 190 MB/s.
pub fn crypto_cpu_seconds_per_gb() -> f64 {
    CRYPTO_CPU_PERCENT_AT_190 / 100.0 * LOGICAL_CPUS as f64 / (DUMPS[0].mb_s / 1000.0)
}

/// The seed's conclusion, paraphrased in English.
pub const CONCLUSION: &str = "Multi-stream GOST 28147-89 makes an encrypted disk dump at 190 MB/s (8 \
streams) and 334 MB/s (16 streams) as a background job held to about 15 % of the CPU (one logical core \
of eight), close to the 449 MB/s of a plain copy between the SSDs; the cryptography itself costs 7 % of \
the CPU at 190 MB/s.";
