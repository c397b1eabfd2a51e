//! shifr-bench: the measurement library behind `shifr bench` and the seed studies (`shifr-studies`).
//!
//! The method (docs/BENCHMARKS.md has the long form): every row measures shifr and its peers
//! ([`peers::Peer`]) on the same [`workload::Workload`] in the same process, interleaved sample by
//! sample ([`run::Runner`]), each implementation over its own rotating buffers
//! ([`buffers::BufferPool`]), after a warm-up; the reported MB/s (10^6 B/s) is the median sample with
//! the minimum and maximum ([`stats::Summary`]). Cycles/byte come from the hardware counter when the
//! kernel offers one and otherwise from a measured core clock ([`timer`]); CPU % from `getrusage`
//! ([`rusage`]); energy from RAPL where readable ([`energy`]). The studies time their cases with
//! [`measure`] (repeated runs of one piece of work, medians, the same on N threads).
//!
//! [`report`] is the report plumbing of the whole workspace: the one chart module
//! ([`report::chart`], with the one embedded font), the one CSV writer ([`report::csv`]) and the
//! Markdown builder ([`report::markdown`]), used by `shifr bench`, `shifr report merge` and the
//! studies alike (shifr-studies depends on this crate, so they live here, below both).
//!
//! ```no_run
//! use shifr_bench::{run::{Config, Runner}, workload::Workload};
//! let mut runner = Runner::new(Config::default());
//! let alg = shifr::catalog::lookup("aes-128-gcm").unwrap();
//! let measured = runner.measure(&Workload::new(alg, 16 * 1024)).unwrap();
//! print!("{}", shifr_bench::report::table::render(&measured.rows));
//! ```

pub mod buffers;
pub mod energy;
pub mod machine;
pub mod measure;
pub mod peers;
pub mod report;
pub mod run;
pub mod rusage;
pub mod sizes;
pub mod stats;
pub mod summary;
pub mod timer;
pub mod tune;
pub mod workload;

pub use run::{Config, Measured, Row, Runner};
pub use workload::{Direction, Workload};

/// Errors of the measurement library.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// shifr refused a key, IV or parameter.
    #[error(transparent)]
    Shifr(#[from] shifr::Error),
    /// The workload or option makes no sense (empty streams, unaligned ECB, ...).
    #[error("{0}")]
    Invalid(String),
    /// An implementation does not offer this workload.
    #[error("{0}")]
    Unsupported(String),
    /// Writing a report failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// Drawing a chart failed.
    #[error("chart: {0}")]
    Plot(String),
}
