//! The core clock, measured rather than assumed.
//!
//! The TSC ticks at a fixed rate that, on many virtual machines and on CPUs with turbo, is not the
//! rate the core runs at, so cycles/byte from `rdtsc` would be off by the turbo ratio. Instead the
//! core clock is measured: a chain of dependent integer operations, each of which takes one cycle on
//! every out-of-order core shifr targets (x86-64 since 2006, ARMv8), is timed with the monotonic
//! clock; `operations / seconds` is the clock rate the core ran at during the run. The median of
//! several runs is kept.

use crate::stats::Summary;
use std::hint::black_box;
use std::time::Instant;

/// Dependent operations per iteration of the chain (xor, add, xor, add: one cycle each).
const OPS_PER_ITERATION: u64 = 4;

/// Runs `iterations` of the dependent chain and returns the elapsed seconds.
fn time_chain(iterations: u64) -> f64 {
    let a = black_box(0x9e37_79b9_7f4a_7c15u64);
    let b = black_box(0x0123_4567_89ab_cdefu64);
    let mut x = black_box(1u64);
    let start = Instant::now();
    for _ in 0..iterations {
        // Each operation depends on the previous result, and mixing xor with add keeps the compiler
        // from folding the chain into a closed form or reassociating it into parallel chains.
        x ^= a;
        x = x.wrapping_add(b);
        x ^= b;
        x = x.wrapping_add(a);
    }
    let elapsed = start.elapsed().as_secs_f64();
    black_box(x);
    elapsed
}

/// Estimates the core clock in Hz: the median over `runs` runs of a chain of about `cycles`
/// dependent one-cycle operations (50 million take 10-25 ms on current machines).
pub fn estimate_core_hz(cycles: u64, runs: usize) -> f64 {
    let iterations = (cycles / OPS_PER_ITERATION).max(1);
    // One untimed run brings the core out of any low-power state.
    time_chain(iterations);
    let rates: Vec<f64> = (0..runs.max(1))
        .map(|_| (iterations * OPS_PER_ITERATION) as f64 / time_chain(iterations).max(1e-9))
        .collect();
    Summary::of(&rates).map_or(0.0, |s| s.median)
}

/// The measured core clock, kept for a whole benchmark run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CoreClock {
    /// Estimated core clock in Hz.
    pub hz: f64,
}

impl CoreClock {
    /// Measures the clock (about a tenth of a second).
    pub fn measure() -> CoreClock {
        CoreClock {
            hz: estimate_core_hz(50_000_000, 5),
        }
    }

    /// Core cycles spent by `threads` busy threads over `seconds` of wall time.
    pub fn cycles(&self, seconds: f64, threads: usize) -> f64 {
        self.hz * seconds * threads as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The estimate is a plausible clock rate. Generous bounds: this is a sanity check of the method
    /// (a folded chain would give absurd rates), not a timing test.
    #[test]
    fn estimate_is_a_plausible_clock_rate() {
        let hz = estimate_core_hz(20_000_000, 3);
        assert!(hz > 1e8 && hz < 1.5e10, "estimated core clock {hz} Hz");
    }

    #[test]
    fn cycles_scale_with_time_and_threads() {
        let c = CoreClock { hz: 2e9 };
        assert_eq!(c.cycles(0.5, 2), 2e9);
    }
}
