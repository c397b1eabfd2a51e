//! Seed 003: "Исследование характеристик шифра «Кузнечик» на российских процессорах и платформах IoT"
//! (conference slides; `shared/seeds/003_0dc6d17d7817f206.txt`, slides "Таблица измерений",
//! "Требуемые скорости", "Эльбрус", "Байкал – Т1", "Комдив", "Измерение на Bostan 288").
//!
//! Method as published: sources from nettle / GostCrypt / GOST, "pure C/C++ without hand optimisation",
//! `-O3`; power is the platform's rated power, not a measurement.

/// One row of the seed's measurement table.
#[derive(Debug, Clone, Copy)]
pub struct Platform {
    /// Vendor and chip as the seed names them.
    pub name: &'static str,
    /// Word size as the seed gives it.
    pub arch: &'static str,
    /// Threads used (the table's "Потоки макс.").
    pub threads: u32,
    /// Clock as printed.
    pub clock: &'static str,
    /// Power, W (None where the seed gives none).
    pub watts: Option<f64>,
    /// Kuznyechik MB/s over all threads.
    pub mb_s: f64,
    /// MB/s per thread as printed.
    pub mb_s_per_thread: f64,
    /// MB/s per W as printed (None where the seed gives none).
    pub mb_s_per_watt: Option<f64>,
}

/// A table row; `nums` = [W, MB/s, MB/s per thread, MB/s per W] as printed.
const fn row(
    name: &'static str,
    arch: &'static str,
    threads: u32,
    clock: &'static str,
    nums: [f64; 4],
) -> Platform {
    let [watts, mb_s, mb_s_per_thread, mb_s_per_watt] = nums;
    Platform {
        name,
        arch,
        threads,
        clock,
        watts: Some(watts),
        mb_s,
        mb_s_per_thread,
        mb_s_per_watt: Some(mb_s_per_watt),
    }
}

/// "Таблица измерений".
pub const TABLE: [Platform; 12] = [
    row(
        "Broadcom BCM2835",
        "32bit",
        1,
        "1000 MHz",
        [0.4, 0.70, 0.70, 1.75],
    ),
    row(
        "Broadcom BCM2709",
        "32bit (64 theor.)",
        4,
        "1400 MHz",
        [3.5, 4.70, 1.18, 1.34],
    ),
    row(
        "Allwinner R40",
        "64bit",
        4,
        "1200 MHz",
        [5.0, 5.20, 1.30, 1.04],
    ),
    row(
        "Allwinner H3",
        "32bit",
        4,
        "1200 MHz",
        [3.0, 5.70, 1.43, 1.90],
    ),
    row(
        "Allwinner H8",
        "32bit",
        4,
        "2000 MHz",
        [7.5, 7.10, 1.78, 0.95],
    ),
    row(
        "Allwinner H5",
        "64bit (HMP)",
        4,
        "1400 MHz",
        [5.0, 9.10, 2.28, 1.82],
    ),
    row(
        "Amlogic 905",
        "64bit",
        4,
        "1500 MHz",
        [4.0, 13.00, 3.25, 3.25],
    ),
    row(
        "Samsung S5P6818",
        "32bit",
        8,
        "1400 MHz",
        [7.0, 15.40, 1.93, 2.20],
    ),
    row(
        "Samsung Exynos 5422",
        "32bit (HMP)",
        8,
        "2 GHz / 1.3 GHz",
        [14.0, 31.40, 3.93, 2.24],
    ),
    row(
        "Intel i7-6700",
        "64bit",
        8,
        "4000 MHz",
        [91.0, 125.00, 15.63, 1.37],
    ),
    row(
        "Intel i7-5820",
        "64bit",
        12,
        "3600 MHz",
        [140.0, 160.00, 13.33, 1.14],
    ),
    row(
        "Intel Xeon E5-2697 v3",
        "64bit",
        28,
        "3600 MHz",
        [290.0, 490.00, 17.50, 1.69],
    ),
];

/// The Russian platforms and the Kalray Bostan, from the later slides (per core / per board).
pub const OTHER: [Platform; 4] = [
    Platform {
        name: "Elbrus (4 × e2k, 4 threads each)",
        arch: "e2k",
        threads: 16,
        clock: "750 MHz",
        watts: None,
        mb_s: 23.0,
        mb_s_per_thread: 1.44,
        mb_s_per_watt: None,
    },
    Platform {
        name: "Baikal-T1 (MIPS P5600)",
        arch: "mips32r2",
        threads: 2,
        clock: "1.2 GHz",
        watts: None,
        mb_s: 2.2,
        mb_s_per_thread: 1.11,
        mb_s_per_watt: None,
    },
    Platform {
        name: "Komdiv K64M",
        arch: "mips64",
        threads: 1,
        clock: "-",
        watts: None,
        mb_s: 2.7,
        mb_s_per_thread: 2.7,
        mb_s_per_watt: None,
    },
    Platform {
        name: "Kalray MPPA Bostan (288 cores)",
        arch: "k1b",
        threads: 288,
        clock: "600 MHz",
        watts: Some(25.0),
        mb_s: 671.0,
        mb_s_per_thread: 671.0 / 288.0,
        mb_s_per_watt: Some(26.84),
    },
];

/// One application rate of the slide "Требуемые скорости": the rate the issue checks is the upper end
/// of the seed's range.
#[derive(Debug, Clone, Copy)]
pub struct Application {
    /// The application, in English.
    pub name: &'static str,
    /// The seed's range as printed, MB/s.
    pub seed_range: &'static str,
    /// The rate used here, MB/s (the upper end of the range).
    pub mb_s: f64,
}

/// "Требуемые скорости".
pub const APPLICATIONS: [Application; 7] = [
    Application {
        name: "Telemetry",
        seed_range: "< 1",
        mb_s: 1.0,
    },
    Application {
        name: "CAN / MODBUS",
        seed_range: "< 1",
        mb_s: 1.0,
    },
    Application {
        name: "150 simultaneous VoIP (HQ) calls",
        seed_range: "2",
        mb_s: 2.0,
    },
    Application {
        name: "Access-control (SKUD) data replication",
        seed_range: "0.5-4",
        mb_s: 4.0,
    },
    Application {
        name: "Eight 1080p alarm-camera streams",
        seed_range: "5.7",
        mb_s: 5.7,
    },
    Application {
        name: "Remote administration",
        seed_range: "0.2-10",
        mb_s: 10.0,
    },
    Application {
        name: "4K UHQ video conference (4 streams)",
        seed_range: "12-20",
        mb_s: 20.0,
    },
];

/// The seed's conclusions ("IoT - Итоги"), paraphrased in English.
pub const CONCLUSION: &str =
    "The energy efficiency (MB/s per W) of IoT processors can exceed that of \
classic server processors many times over; the table tells in which applications Kuznyechik's load \
does not disturb the processor's main task and where GOST R 34.12-2015 is too heavy for a weak \
processor.";
