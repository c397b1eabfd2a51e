//! Timing shared by the speed examples: MB/s in the thread's CPU time where the OS reports it.

use std::time::{Duration, Instant};

/// Seconds this thread has run on a CPU (Linux `/proc/thread-self/schedstat`), so that a loaded
/// machine's time slices given to other processes do not count; `None` where unavailable.
pub fn thread_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

/// MB/s (10^6 bytes per second) of `f`, which processes `bytes` per call; best of five runs of
/// `seconds / 5` each. Time is the thread's CPU time where the OS reports it, wall-clock time
/// otherwise; the clock is read every 16 calls so that a one-block call is not dominated by it.
pub fn measure(bytes: usize, seconds: f64, mut f: impl FnMut()) -> f64 {
    let per_run = Duration::from_secs_f64(seconds / 5.0);
    (0..5)
        .map(|_| {
            let start = Instant::now();
            let cpu_start = thread_cpu_seconds();
            let mut calls = 0u64;
            while start.elapsed() < per_run {
                for _ in 0..16 {
                    f();
                }
                calls += 16;
            }
            let elapsed = match (cpu_start, thread_cpu_seconds()) {
                (Some(a), Some(b)) if b > a => b - a,
                _ => start.elapsed().as_secs_f64(),
            };
            calls as f64 * bytes as f64 / elapsed / 1e6
        })
        .fold(0.0, f64::max)
}
