//! `shifr.bench`: the measurements of `shifr bench` (the shifr-bench crate: medians over interleaved
//! samples, shifr beside its peers) as JSON rows.

use crate::errors::{Failure, Result};
use pyo3::prelude::*;
use shifr::catalog;
use shifr_bench::peers;
use shifr_bench::run::{Config, Runner};
use shifr_bench::{report, Workload};

/// Measures every algorithm at every size (bytes) with `threads` threads beside `peers` (a
/// comma-separated list as `shifr bench --peers`, or "none"); returns the rows as JSON and the notes
/// on what was not measured.
#[pyfunction]
#[pyo3(signature = (algorithms, sizes, peers="none", seconds=0.12, threads=1))]
pub fn bench_json(
    py: Python<'_>,
    algorithms: Vec<String>,
    sizes: Vec<usize>,
    peers: &str,
    seconds: f64,
    threads: usize,
) -> PyResult<(String, Vec<String>)> {
    if !(seconds.is_finite() && seconds > 0.0) {
        return Err(Failure::invalid("seconds must be a positive number").into());
    }
    if threads == 0 || sizes.contains(&0) {
        return Err(Failure::invalid("threads and sizes must be at least 1").into());
    }
    let algs = algorithms
        .iter()
        .map(|n| catalog::lookup(n).map_err(Failure::crypto))
        .collect::<Result<Vec<_>>>()?;
    let mut notes = Vec::new();
    let mut chosen = Vec::new();
    for p in peers::parse_list(peers).map_err(Failure::invalid)? {
        match p.available() {
            Ok(()) => chosen.push(p),
            Err(why) => notes.push(format!("{}: {why}", p.name())),
        }
    }
    let out = py.detach(move || {
        let mut runner = Runner::new(Config {
            seconds,
            samples: 5,
            peers: chosen,
            resample: true,
        });
        let mut rows = Vec::new();
        for alg in algs {
            for &bytes in &sizes {
                let w = Workload {
                    threads,
                    ..Workload::new(alg, bytes)
                };
                match runner.measure(&w) {
                    Ok(m) => {
                        rows.extend(m.rows);
                        for n in m.notes {
                            if !notes.contains(&n) {
                                notes.push(n);
                            }
                        }
                    }
                    Err(e) => notes.push(format!("{} at {bytes} B: not measured: {e}", alg.name)),
                }
            }
        }
        (report::json::render(&rows), notes)
    });
    Ok(out)
}
