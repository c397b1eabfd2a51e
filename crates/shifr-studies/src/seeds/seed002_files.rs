//! Seed 002: L. S. Centellas Claros, L. Blanco Coca, J. P. Sandoval Alcocer, "Estudio comparativo de
//! los algoritmos de criptografía simétrica AES, 3DES y ChaCha20"
//! (`shared/seeds/002_d18f77431c570e4f.txt`, sections 5–8).
//!
//! Figures 1–5 of the seed are charts whose values are not printed in its text; what the text states
//! about them is kept here as claims, each checked by the `files` study against this machine.

/// The algorithms of the seed (AES and 3DES in ECB mode, one block at a time).
pub const ALGORITHMS: [&str; 5] = ["AES-128", "AES-192", "AES-256", "3DES", "ChaCha20"];

/// Corpus of section 5.1: (kind, count, smallest bytes, largest bytes), sizes "as uniform as possible".
pub const CORPUS: [(&str, usize, usize, usize); 3] = [
    ("text", 50, 20, 1000),
    ("audio", 50, 10_000, 500_000),
    ("image", 50, 100_000, 300_000),
];

/// Section 5.2/5.4: how and where the seed measured.
pub const SETUP: &str = "Python 3.10.0 + NumPy 1.21.5, own implementations, one block per call, \
table S-boxes; Intel Core i7-6700HQ @ 2.60 GHz laptop, Windows 10; time from time stamps, CPU % as \
the maximum psutil sample during the run, power with a KWS-AC300 wattmeter (idle 16.00 W subtracted).";

/// Laptop idle power the seed subtracted, W.
pub const IDLE_WATTS: f64 = 16.0;

/// Section 6.1 (figure 1): ChaCha20 is fastest, "up to 6 times faster than the next fastest".
pub const CHACHA_OVER_NEXT: f64 = 6.0;
/// Section 6.1: AES-128 is "almost 1.4 times faster" than AES-256, encrypting and decrypting.
pub const AES128_OVER_AES256: f64 = 1.4;
/// Section 6.3 (figures 4, 5): the power differences between algorithms are "below 5 W in most cases".
pub const POWER_SPREAD_WATTS: f64 = 5.0;

/// What each figure shows.
pub const FIGURES: [(&str, &str); 5] = [
    (
        "Figure 1",
        "mean encryption/decryption speed per algorithm, bytes/s",
    ),
    ("Figure 2", "CPU % against file size, encryption"),
    ("Figure 3", "CPU % against file size, decryption"),
    ("Figure 4", "watts against file size, encryption"),
    ("Figure 5", "watts against file size, decryption"),
];

/// The seed's conclusions (section 8), paraphrased in English.
pub const CONCLUSIONS: [&str; 4] = [
    "ChaCha20 is the fastest, about 6 times faster than any AES version.",
    "AES-128 is about 1.4 times faster than AES-256.",
    "3DES uses the most CPU; the AES versions and ChaCha20 use about the same.",
    "No significant difference in energy between the algorithms (below 5 W); 3DES is the least efficient.",
];
