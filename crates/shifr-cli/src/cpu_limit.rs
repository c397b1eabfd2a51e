//! `--cpu-limit PCT`: keeps the process's CPU time within PCT percent of the whole machine.
//!
//! A token bucket in CPU-seconds: it fills at `PCT / 100 * cores` per wall-clock second, holds at most
//! [`BURST`] of wall time's worth, and is drained by the CPU time getrusage reports; when it runs dry,
//! the process sleeps between batches until it is full again. The callers make batches small under a
//! limit (one chunk per thread), so over any 5-second window the CPU used is at most the rate times the
//! window plus the burst plus one batch — well within 2 percentage points.

use crate::process_cpu;
use anyhow::{bail, Result};
use std::time::{Duration, Instant};

/// Wall time's worth of CPU the bucket may save up while the process waits for I/O.
const BURST: Duration = Duration::from_millis(100);

/// The throttle; built before the key derivation so that Argon2id's CPU time counts too.
pub struct CpuLimit {
    /// CPU seconds allowed per wall-clock second.
    rate: f64,
    credit: f64,
    last_wall: Instant,
    last_cpu: Duration,
}

impl CpuLimit {
    /// A limit of `pct` percent of all cores, or `None` for no limit.
    pub fn new(pct: Option<f64>) -> Result<Option<CpuLimit>> {
        let Some(pct) = pct else {
            return Ok(None);
        };
        let min = shifr_input::number_arg::MIN_CPU_PERCENT;
        if !(min..=100.0).contains(&pct) {
            bail!("--cpu-limit must be a percentage from {min} to 100, got {pct}");
        }
        let Some(cpu) = process_cpu::used() else {
            bail!("--cpu-limit: getrusage is not available");
        };
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Ok(Some(CpuLimit {
            rate: pct / 100.0 * cores as f64,
            credit: 0.0,
            last_wall: Instant::now(),
            last_cpu: cpu,
        }))
    }

    /// Charges the CPU used since the last call and sleeps until the bucket is no longer in debt.
    pub fn throttle(&mut self) {
        let Some(cpu) = process_cpu::used() else {
            return;
        };
        let now = Instant::now();
        let earned = self.rate * now.duration_since(self.last_wall).as_secs_f64();
        let spent = cpu.saturating_sub(self.last_cpu).as_secs_f64();
        self.credit = (self.credit + earned).min(self.rate * BURST.as_secs_f64()) - spent;
        self.last_wall = now;
        self.last_cpu = cpu;
        if self.credit < 0.0 {
            // The rate is at least a thousandth of a core, so the debt is a few minutes of sleep at
            // most; a value no Duration holds is skipped rather than a panic.
            if let Ok(pause) = Duration::try_from_secs_f64(-self.credit / self.rate) {
                std::thread::sleep(pause);
            }
        }
    }
}
