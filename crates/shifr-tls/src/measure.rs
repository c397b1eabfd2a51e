//! The three figures of one combination, each with the CPU % of server and client while it ran:
//! bulk throughput (one keep-alive connection, `reps` responses of `bulk_bytes`, MB/s = 10^6 B/s per
//! response, median / min / max), the request rate of small responses on one keep-alive connection
//! (one request in flight), and full handshakes per second (each: TCP connect, handshake, one small
//! request, close).
//!
//! CPU %: the server's from `/proc/PID/stat` of its child process (all threads; clock ticks, so
//! short phases read coarsely), the client's from `CLOCK_THREAD_CPUTIME_ID` of the calling thread,
//! which runs the whole client. 100 % = one core busy.

use crate::client::Driver;
use crate::http1::SMALL_BODY;
use crate::server::ServerProcess;
use crate::TlsError;
use serde::{Deserialize, Serialize};
use shifr_bench::rusage::thread_cpu_seconds;
use std::time::{Duration, Instant};

/// How much to measure per combination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Body length of each bulk response.
    pub bulk_bytes: u64,
    /// Bulk responses timed (after one warm-up response).
    pub reps: usize,
    /// Least time for the request-rate and handshake phases.
    pub min_time: Duration,
    /// Least count for those phases.
    pub min_count: usize,
}

/// CPU use during a phase, percent of one core.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Cpu {
    /// Server process.
    pub server_percent: f64,
    /// Client thread.
    pub client_percent: f64,
}

/// The figures of one combination.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    /// What the handshake agreed on (protocol and suite), as the client saw it.
    pub negotiated: String,
    /// Bulk throughput, MB/s (10^6 B/s): median of the timed responses.
    pub bulk_mb_s: f64,
    /// Slowest timed bulk response, MB/s.
    pub bulk_mb_s_min: f64,
    /// Fastest timed bulk response, MB/s.
    pub bulk_mb_s_max: f64,
    /// CPU during the bulk phase.
    pub bulk_cpu: Cpu,
    /// Small responses per second on one keep-alive connection.
    pub requests_per_s: f64,
    /// CPU during the request phase.
    pub requests_cpu: Cpu,
    /// Full handshakes (new connection + one small request) per second.
    pub handshakes_per_s: f64,
    /// CPU during the handshake phase.
    pub handshakes_cpu: Cpu,
}

/// Runs `f`, returning its result, the wall seconds and the CPU of server and client meanwhile.
fn phase<T>(
    server: &ServerProcess,
    f: impl FnOnce() -> Result<T, TlsError>,
) -> Result<(T, f64, Cpu), TlsError> {
    let (s0, c0, t0) = (server.cpu_seconds()?, thread_cpu_seconds(), Instant::now());
    let out = f()?;
    let wall = t0.elapsed().as_secs_f64();
    let (s1, c1) = (server.cpu_seconds()?, thread_cpu_seconds());
    let pct = |cpu: f64| if wall > 0.0 { 100.0 * cpu / wall } else { 0.0 };
    Ok((
        out,
        wall,
        Cpu {
            server_percent: pct(s1 - s0),
            client_percent: pct(c1 - c0),
        },
    ))
}

fn expect_len(got: u64, want: u64) -> Result<(), TlsError> {
    if got == want {
        Ok(())
    } else {
        Err(TlsError::Client(format!(
            "response of {got} bytes, expected {want}"
        )))
    }
}

/// Repeats `step` until both `plan.min_time` and `plan.min_count` are reached; the count.
fn repeat(plan: &Plan, mut step: impl FnMut() -> Result<(), TlsError>) -> Result<usize, TlsError> {
    let start = Instant::now();
    let mut count = 0;
    while count < plan.min_count.max(1) || start.elapsed() < plan.min_time {
        step()?;
        count += 1;
    }
    Ok(count)
}

/// Measures one combination through `driver` against `server`.
pub fn measure(
    driver: &mut dyn Driver,
    server: &ServerProcess,
    plan: &Plan,
) -> Result<Figures, TlsError> {
    driver.connect()?;
    // Warm-up: one small and one bulk-sized response (at most 1 MiB) on the connection.
    expect_len(driver.get("/small")?, SMALL_BODY)?;
    let warm = plan.bulk_bytes.min(1 << 20);
    expect_len(driver.get(&format!("/bytes/{warm}"))?, warm)?;
    let negotiated = driver.negotiated();

    let bulk_path = format!("/bytes/{}", plan.bulk_bytes);
    let (mut speeds, _, bulk_cpu) = phase(server, || {
        let mut speeds = Vec::with_capacity(plan.reps);
        for _ in 0..plan.reps.max(1) {
            let t = Instant::now();
            expect_len(driver.get(&bulk_path)?, plan.bulk_bytes)?;
            speeds.push(plan.bulk_bytes as f64 / t.elapsed().as_secs_f64().max(1e-9) / 1e6);
        }
        Ok(speeds)
    })?;
    speeds.sort_by(f64::total_cmp);
    let median = speeds[speeds.len() / 2];

    let (requests, wall, requests_cpu) = phase(server, || {
        repeat(plan, || expect_len(driver.get("/small")?, SMALL_BODY))
    })?;
    let requests_per_s = requests as f64 / wall.max(1e-9);

    let (handshakes, wall, handshakes_cpu) = phase(server, || {
        repeat(plan, || {
            driver.connect()?;
            expect_len(driver.get("/small")?, SMALL_BODY)
        })
    })?;

    Ok(Figures {
        negotiated,
        bulk_mb_s: median,
        bulk_mb_s_min: speeds[0],
        bulk_mb_s_max: speeds[speeds.len() - 1],
        bulk_cpu,
        requests_per_s,
        requests_cpu,
        handshakes_per_s: handshakes as f64 / wall.max(1e-9),
        handshakes_cpu,
    })
}
