//! The studies' timing: repeated timed runs after a warm-up, medians, process CPU % from getrusage,
//! energy from RAPL where readable, and the same on N threads at once.
//!
//! A "run" repeats the work until it has taken at least `min_run` (so that a 20-byte file is not timed
//! from a single call), and its speed is bytes / seconds over that run. The median of the runs is the
//! reported value; min and max are kept to show the spread.

use std::path::{Path, PathBuf};
use std::sync::Barrier;
use std::time::{Duration, Instant};

use super::rusage::process_cpu_seconds;

/// How long and how often to measure.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Timed runs (after one untimed warm-up run).
    pub runs: usize,
    /// Each run repeats the work at least this long.
    pub min_run: Duration,
}

/// One measured case.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Median speed of the runs, 10^6 bytes per second.
    pub mb_s: f64,
    /// Slowest run.
    pub mb_s_min: f64,
    /// Fastest run.
    pub mb_s_max: f64,
    /// Median seconds for one call of the work.
    pub seconds_per_call: f64,
    /// Process CPU time (user + system) over wall time during the timed runs, in percent of one core.
    pub cpu_percent: f64,
    /// Energy per call of the work, joules (RAPL package domains), where readable.
    pub joules_per_call: Option<f64>,
    /// Mean package power during the timed runs, watts, where readable.
    pub watts: Option<f64>,
}

/// Measures `work`, which processes `bytes` bytes per call.
pub fn measure(plan: &Plan, bytes: usize, mut work: impl FnMut()) -> Sample {
    measure_runs(plan, bytes, || {
        work();
        1
    })
}

/// Measures `threads` threads at once, each calling its own `work(thread_index)` on `bytes` bytes per
/// call; the speed is the total over all threads. The threads start together (a barrier) and every
/// run ends when the slowest thread has done its share.
pub fn measure_threads<W>(
    plan: &Plan,
    threads: usize,
    bytes: usize,
    make: impl Fn(usize) -> W,
) -> Sample
where
    W: FnMut() + Send,
{
    let threads = threads.max(1);
    if threads == 1 {
        return measure(plan, bytes, make(0));
    }
    let mut workers: Vec<W> = (0..threads).map(&make).collect();
    // Calibrate calls per run with one thread so that every thread does the same fixed amount.
    let calls = calls_for(plan.min_run, &mut workers[0]);
    measure_runs(plan, bytes * threads, || {
        let barrier = Barrier::new(threads);
        std::thread::scope(|s| {
            for w in workers.iter_mut() {
                let barrier = &barrier;
                s.spawn(move || {
                    barrier.wait();
                    for _ in 0..calls {
                        w();
                    }
                });
            }
        });
        calls
    })
}

/// How many calls of `work` take about `target`.
fn calls_for(target: Duration, work: &mut impl FnMut()) -> u64 {
    let start = Instant::now();
    let mut calls = 0u64;
    while calls == 0 || start.elapsed() < target / 4 {
        work();
        calls += 1;
    }
    let per_call = start.elapsed().as_secs_f64() / calls as f64;
    ((target.as_secs_f64() / per_call.max(1e-9)).ceil() as u64).max(1)
}

/// The common loop: `batch()` does some calls and returns how many.
fn measure_runs(plan: &Plan, bytes_per_call: usize, mut batch: impl FnMut() -> u64) -> Sample {
    let run = |batch: &mut dyn FnMut() -> u64| {
        let start = Instant::now();
        let mut calls = 0u64;
        while calls == 0 || start.elapsed() < plan.min_run {
            calls += batch();
        }
        (start.elapsed().as_secs_f64(), calls)
    };
    run(&mut batch); // warm-up: caches, page faults, clock ramp-up
    let energy = Rapl::open().ok();
    let joules_before = energy.as_ref().and_then(|r| r.read_joules());
    let cpu_before = process_cpu_seconds();
    let wall = Instant::now();
    let mut speeds = Vec::with_capacity(plan.runs);
    let mut per_call = Vec::with_capacity(plan.runs);
    let mut total_calls = 0u64;
    for _ in 0..plan.runs.max(1) {
        let (secs, calls) = run(&mut batch);
        total_calls += calls;
        speeds.push(bytes_per_call as f64 * calls as f64 / secs / 1e6);
        per_call.push(secs / calls as f64);
    }
    let wall = wall.elapsed().as_secs_f64();
    let cpu = process_cpu_seconds() - cpu_before;
    let joules = match (energy.as_ref(), joules_before) {
        (Some(r), Some(before)) => r.read_joules().map(|after| r.delta(before, after)),
        _ => None,
    };
    Sample {
        mb_s: median(&mut speeds.clone()),
        mb_s_min: speeds.iter().copied().fold(f64::INFINITY, f64::min),
        mb_s_max: speeds.iter().copied().fold(0.0, f64::max),
        seconds_per_call: median(&mut per_call),
        cpu_percent: 100.0 * cpu / wall.max(1e-9),
        joules_per_call: joules.map(|j| j / total_calls.max(1) as f64),
        watts: joules.map(|j| j / wall.max(1e-9)),
    }
}

/// The median (mean of the middle two for an even count); NaN for no values.
pub fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// The RAPL package-energy counters under /sys/class/powercap.
#[derive(Debug)]
pub struct Rapl {
    /// (energy_uj file, wrap-around range in µJ) per package domain.
    domains: Vec<(PathBuf, f64)>,
}

const POWERCAP: &str = "/sys/class/powercap";

impl Rapl {
    /// Opens every readable package domain (`intel-rapl:N` with name `package-*`); the error says why
    /// energy cannot be measured here.
    pub fn open() -> Result<Rapl, String> {
        Rapl::open_at(Path::new(POWERCAP))
    }

    fn open_at(root: &Path) -> Result<Rapl, String> {
        let entries = std::fs::read_dir(root).map_err(|_| {
            format!(
                "no RAPL: {} does not exist (no energy counters exposed, e.g. a VM)",
                root.display()
            )
        })?;
        let mut domains = Vec::new();
        let mut unreadable = false;
        for entry in entries.flatten() {
            let dir = entry.path();
            let name = std::fs::read_to_string(dir.join("name")).unwrap_or_default();
            if !name.trim().starts_with("package") {
                continue;
            }
            let energy = dir.join("energy_uj");
            if std::fs::read_to_string(&energy).is_err() {
                unreadable = true;
                continue;
            }
            let range = std::fs::read_to_string(dir.join("max_energy_range_uj"))
                .ok()
                .and_then(|s| s.trim().parse::<f64>().ok())
                .unwrap_or(f64::MAX);
            domains.push((energy, range));
        }
        if domains.is_empty() {
            return Err(if unreadable {
                "no RAPL: energy_uj is not readable by this user (root only since Linux 5.10)"
                    .into()
            } else {
                format!("no RAPL: no package domain under {}", root.display())
            });
        }
        Ok(Rapl { domains })
    }

    /// Per-domain readings in joules.
    fn read_joules(&self) -> Option<Vec<f64>> {
        self.domains
            .iter()
            .map(|(path, _)| {
                std::fs::read_to_string(path)
                    .ok()?
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .map(|uj| uj / 1e6)
            })
            .collect()
    }

    /// Joules between two readings, counting one wrap-around per domain.
    fn delta(&self, before: Vec<f64>, after: Vec<f64>) -> f64 {
        self.domains
            .iter()
            .zip(before.iter().zip(&after))
            .map(|((_, range), (b, a))| if a >= b { a - b } else { a + range / 1e6 - b })
            .sum()
    }
}

/// Why energy is or is not reported on this machine, in one line.
pub fn energy_status() -> String {
    match Rapl::open() {
        Ok(r) => format!("RAPL package energy ({} domain(s))", r.domains.len()),
        Err(why) => why,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_even_and_empty() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&mut []).is_nan());
    }

    #[test]
    fn a_sample_is_consistent() {
        let plan = Plan {
            runs: 3,
            min_run: Duration::from_millis(2),
        };
        let mut sink = vec![0u8; 1024];
        let s = measure(&plan, sink.len(), || {
            for b in sink.iter_mut() {
                *b = std::hint::black_box(b.wrapping_add(1));
            }
        });
        assert!(s.mb_s_min <= s.mb_s && s.mb_s <= s.mb_s_max, "{s:?}");
        assert!(s.seconds_per_call > 0.0 && s.cpu_percent >= 0.0);
        let t = measure_threads(&plan, 2, 64, |_| {
            || {
                std::hint::black_box([0u8; 64]);
            }
        });
        assert!(t.mb_s > 0.0);
    }

    #[test]
    fn rapl_absence_is_explained() {
        let missing = Path::new("/nonexistent/powercap");
        let err = Rapl::open_at(missing).unwrap_err();
        assert!(err.contains("does not exist"), "{err}");
        let empty = std::env::temp_dir().join(format!("shifr-rapl-{}", std::process::id()));
        std::fs::create_dir_all(empty.join("intel-rapl:0")).unwrap();
        std::fs::write(empty.join("intel-rapl:0/name"), "package-0\n").unwrap();
        std::fs::write(empty.join("intel-rapl:0/energy_uj"), "1000000\n").unwrap();
        std::fs::write(empty.join("intel-rapl:0/max_energy_range_uj"), "5000000\n").unwrap();
        let r = Rapl::open_at(&empty).unwrap();
        assert_eq!(r.read_joules(), Some(vec![1.0]));
        assert_eq!(r.delta(vec![4.0], vec![1.0]), 2.0);
        std::fs::remove_dir_all(&empty).unwrap();
    }
}
