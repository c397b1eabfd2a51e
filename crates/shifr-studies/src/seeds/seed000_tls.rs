//! Seed 000: S. A. Morozov, "Оптимизация защищённой передачи данных в сетях автоматизированных
//! информационных систем на водном транспорте", Вестник ГУМРФ им. адм. С. О. Макарова, 2017, т. 9,
//! № 5 (`shared/seeds/000_d9ec41b9aceac292.txt`, section "Результаты тестирования").
//!
//! Method as published: OpenSSL on Gentoo Linux 4.11.3, "random text of 8192 bytes", the average of
//! five runs, in MB/s; AES-NI used where the processor has it (rows marked `*` in the seed).

/// The five ciphers of the table, in the seed's column order.
pub const CIPHERS: [&str; 5] = [
    "ChaCha20",
    "AES-128-GCM",
    "AES-256-GCM",
    "AES-128-CBC",
    "AES-256-CBC",
];

/// One row of the seed's table.
#[derive(Debug, Clone, Copy)]
pub struct Platform {
    /// Processor as the seed names it.
    pub name: &'static str,
    /// Whether the seed marks it as supporting AES-NI (`*`).
    pub aes_ni: bool,
    /// MB/s in [`CIPHERS`] order.
    pub mb_s: [f64; 5],
}

/// The table "Результаты тестирования", MB/s, 8192-byte buffers, mean of 5 runs.
pub const TABLE: [Platform; 6] = [
    Platform {
        name: "Intel i7-6700",
        aes_ni: true,
        mb_s: [567.0, 2598.0, 2233.0, 1529.0, 1161.0],
    },
    Platform {
        name: "Intel i7-950",
        aes_ni: false,
        mb_s: [421.0, 228.0, 199.0, 319.0, 245.0],
    },
    Platform {
        name: "Intel Xeon E5-2630",
        aes_ni: true,
        mb_s: [256.0, 947.0, 853.0, 538.0, 388.0],
    },
    Platform {
        name: "Intel ATOM D525",
        aes_ni: false,
        mb_s: [102.0, 47.0, 41.0, 26.0, 19.0],
    },
    Platform {
        name: "AMD FX 8350",
        aes_ni: true,
        mb_s: [377.0, 1435.0, 1287.0, 721.0, 509.0],
    },
    Platform {
        name: "AMD Phenom 965",
        aes_ni: false,
        mb_s: [409.0, 80.0, 62.0, 279.0, 191.0],
    },
];

/// The seed's text after the table: with AES-NI, each AES variant is faster than ChaCha20 "on average"
/// by this many percent (AES-128-GCM, AES-256-GCM, AES-128-CBC, AES-256-CBC).
pub const AES_NI_AES_FASTER_PERCENT: [f64; 4] = [302.91, 256.13, 123.68, 63.77];

/// The seed's text: on the purely software platforms ChaCha20 is faster than each AES variant "on
/// average" by this many percent (same order).
pub const SOFTWARE_CHACHA_FASTER_PERCENT: [f64; 4] = [204.3, 279.3, 63.75, 76.21];

/// The seed's conclusion, paraphrased in English (its "Заключение").
pub const CONCLUSION: &str = "ChaCha20 is faster than every AES variant on processors without \
hardware AES, and slower than them on processors with AES-NI; so ChaCha20 is the better TLS cipher \
for embedded and mobile systems without AES instructions.";
