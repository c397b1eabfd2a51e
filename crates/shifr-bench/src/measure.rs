//! The studies' timing: repeated timed runs after a warm-up, medians, process CPU % from getrusage,
//! energy from RAPL where readable, and the same on N threads at once.
//!
//! A "run" repeats the work until it has taken at least `min_run` (so that a 20-byte file is not timed
//! from a single call), and its speed is bytes / seconds over that run. The median of the runs is the
//! reported value; min and max are kept to show the spread. CPU time and energy come from the
//! library's [`crate::rusage`] and [`crate::energy`].
//!
//! Busy machines: a case whose working threads were on a CPU less than [`crate::run::MIN_CPU_SHARE`]
//! of the wall time (each thread's own CPU time, `CLOCK_THREAD_CPUTIME_ID`, so that other threads of
//! the process count as competition like any other process), or whose runs spread wider than [`crate::run::MAX_SPREAD`], is
//! measured once more; if its CPU share is still too low, it is counted in this thread's [`Busy`]
//! record, which the studies read ([`busy`]) to withhold their verdicts. (A wide spread alone, on
//! a machine that gave the process its cores, is not taken for a busy machine.)

use std::cell::Cell;
use std::sync::Barrier;
use std::time::{Duration, Instant};

use crate::energy::EnergyMeter;
use crate::rusage::{process_cpu_seconds, thread_cpu_seconds};
use std::sync::atomic::{AtomicU64, Ordering};

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
    /// Share of the wall time the working threads were on a CPU, 0..1 (their own CPU time over wall
    /// time and the cores they can use).
    pub cpu_share: f64,
    /// Contended (low CPU share or wide spread; see the module notes), after a second measurement
    /// where the first was.
    pub contended: bool,
}

/// Contention seen by the measurements on this thread since [`reset_busy`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Busy {
    /// Cases measured.
    pub cases: usize,
    /// Cases that stayed contended.
    pub contended: usize,
    /// The lowest CPU share (0..1) of a contended case.
    pub min_share: f64,
}

thread_local! {
    static SEEN: Cell<Busy> = const {
        Cell::new(Busy {
            cases: 0,
            contended: 0,
            min_share: 1.0,
        })
    };
}

/// Forgets the contention seen so far on this thread (a study calls it before measuring).
pub fn reset_busy() {
    SEEN.with(|b| {
        b.set(Busy {
            cases: 0,
            contended: 0,
            min_share: 1.0,
        })
    });
}

/// The contention seen on this thread since [`reset_busy`], if any case stayed contended.
pub fn busy() -> Option<Busy> {
    let b = SEEN.with(Cell::get);
    (b.contended > 0).then_some(b)
}

/// Records a case as contended (the studies' child runs report theirs through this too).
pub fn note_contended(share: f64) {
    SEEN.with(|b| {
        let mut v = b.get();
        v.cases += 1;
        v.contended += 1;
        v.min_share = v.min_share.min(share);
        b.set(v);
    });
}

fn note_clean() {
    SEEN.with(|b| {
        let mut v = b.get();
        v.cases += 1;
        b.set(v);
    });
}

/// Measures `work`, which processes `bytes` bytes per call.
pub fn measure(plan: &Plan, bytes: usize, mut work: impl FnMut()) -> Sample {
    // The work runs on this thread: its CPU time is this thread's, whatever else the process runs.
    measure_runs(plan, bytes, 1, &thread_cpu_seconds, || {
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
    // The CPU time of the measuring threads alone, in nanoseconds: each adds its own when it ends.
    let worker_nanos = AtomicU64::new(0);
    let worker_cpu = || worker_nanos.load(Ordering::Relaxed) as f64 / 1e9;
    measure_runs(plan, bytes * threads, threads, &worker_cpu, || {
        let barrier = Barrier::new(threads);
        std::thread::scope(|s| {
            for w in workers.iter_mut() {
                let barrier = &barrier;
                let worker_nanos = &worker_nanos;
                s.spawn(move || {
                    let start = thread_cpu_seconds();
                    barrier.wait();
                    for _ in 0..calls {
                        w();
                    }
                    let used = ((thread_cpu_seconds() - start) * 1e9) as u64;
                    worker_nanos.fetch_add(used, Ordering::Relaxed);
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

/// The common loop: `batch()` does some calls and returns how many, on `threads` threads whose CPU
/// seconds so far `work_cpu()` tells (the CPU share judges those threads alone: other threads of the
/// process compete for the cores like any other process). A contended case is measured once more
/// before it is counted as contended.
fn measure_runs(
    plan: &Plan,
    bytes_per_call: usize,
    threads: usize,
    work_cpu: &dyn Fn() -> f64,
    mut batch: impl FnMut() -> u64,
) -> Sample {
    let first = measure_once(plan, bytes_per_call, threads, work_cpu, &mut batch);
    let sample = if first.contended {
        measure_once(plan, bytes_per_call, threads, work_cpu, &mut batch)
    } else {
        first
    };
    if sample.cpu_share < crate::run::MIN_CPU_SHARE {
        note_contended(sample.cpu_share);
    } else {
        note_clean();
    }
    sample
}

fn measure_once(
    plan: &Plan,
    bytes_per_call: usize,
    threads: usize,
    work_cpu: &dyn Fn() -> f64,
    batch: &mut dyn FnMut() -> u64,
) -> Sample {
    let run = |batch: &mut dyn FnMut() -> u64| {
        let start = Instant::now();
        let mut calls = 0u64;
        while calls == 0 || start.elapsed() < plan.min_run {
            calls += batch();
        }
        (start.elapsed().as_secs_f64(), calls)
    };
    run(batch); // warm-up: caches, page faults, clock ramp-up
    let energy = EnergyMeter::open().ok();
    let joules_before = energy.as_ref().map(EnergyMeter::read);
    let cpu_before = process_cpu_seconds();
    let work_before = work_cpu();
    let wall = Instant::now();
    let mut speeds = Vec::with_capacity(plan.runs);
    let mut per_call = Vec::with_capacity(plan.runs);
    let mut total_calls = 0u64;
    for _ in 0..plan.runs.max(1) {
        let (secs, calls) = run(batch);
        total_calls += calls;
        speeds.push(bytes_per_call as f64 * calls as f64 / secs / 1e6);
        per_call.push(secs / calls as f64);
    }
    let wall = wall.elapsed().as_secs_f64();
    let cpu = process_cpu_seconds() - cpu_before;
    let work = work_cpu() - work_before;
    let joules = match (energy.as_ref(), joules_before) {
        (Some(meter), Some(before)) => Some(meter.joules_between(&before, &meter.read())),
        _ => None,
    };
    let cores = threads.clamp(
        1,
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    );
    let cpu_share = work / (wall * cores as f64).max(1e-9);
    let mb_s = median(&mut speeds.clone());
    let mb_s_min = speeds.iter().copied().fold(f64::INFINITY, f64::min);
    let mb_s_max = speeds.iter().copied().fold(0.0, f64::max);
    Sample {
        mb_s,
        mb_s_min,
        mb_s_max,
        seconds_per_call: median(&mut per_call),
        cpu_percent: 100.0 * cpu / wall.max(1e-9),
        joules_per_call: joules.map(|j| j / total_calls.max(1) as f64),
        watts: joules.map(|j| j / wall.max(1e-9)),
        cpu_share,
        contended: crate::run::contended(cpu_share, mb_s_min, mb_s, mb_s_max),
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

/// Why energy is or is not reported on this machine, in one line.
pub fn energy_status() -> String {
    match EnergyMeter::open() {
        Ok(_) => {
            "RAPL package energy (whole package: every core and whatever else runs)".to_string()
        }
        Err(why) => why,
    }
}

/// Measures `threads` threads each encrypting its own `bytes`-byte buffer in place with `c`
/// (ECB over whole blocks): the single-buffer workload the studies share.
pub fn encrypt_in_place<C: shifr::hazmat::block::BlockCipher>(
    plan: &Plan,
    threads: usize,
    bytes: usize,
    c: &C,
) -> Sample {
    measure_threads(plan, threads, bytes, |_| {
        let mut buf = vec![0u8; bytes];
        move || {
            c.encrypt_blocks(&mut buf);
            std::hint::black_box(&buf);
        }
    })
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
}
