//! The progress line on stderr: bytes done, total, rate and ETA, redrawn at most five times a second.
//! Shown on a terminal unless `--quiet`, or anywhere with `--progress`; never on stdout.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

const REDRAW: Duration = Duration::from_millis(200);

/// A progress line for one pass over the data.
pub struct Progress {
    enabled: bool,
    label: &'static str,
    total: Option<u64>,
    done: u64,
    start: Instant,
    last_draw: Option<Instant>,
}

impl Progress {
    /// A progress line labelled `label` for `total` bytes (if known).
    pub fn new(label: &'static str, total: Option<u64>, quiet: bool, forced: bool) -> Progress {
        Progress {
            enabled: forced || (!quiet && std::io::stderr().is_terminal()),
            label,
            total,
            done: 0,
            start: Instant::now(),
            last_draw: None,
        }
    }

    /// Counts `bytes` more and redraws if it is time.
    pub fn add(&mut self, bytes: u64) {
        self.done += bytes;
        if self.enabled && self.last_draw.is_none_or(|t| t.elapsed() >= REDRAW) {
            self.draw();
        }
    }

    /// Draws the final state and ends the line.
    pub fn finish(&mut self) {
        if self.enabled {
            self.draw();
            eprintln!();
        }
    }

    fn draw(&mut self) {
        self.last_draw = Some(Instant::now());
        let secs = self.start.elapsed().as_secs_f64().max(1e-3);
        let rate = self.done as f64 / secs;
        let mut line = format!("{} {}", self.label, bytes(self.done as f64));
        if let Some(total) = self.total.filter(|&t| t > 0) {
            let pct = 100.0 * self.done as f64 / total as f64;
            line += &format!(" / {} {pct:5.1}%", bytes(total as f64));
            if rate > 0.0 && self.done < total {
                let eta = ((total - self.done) as f64 / rate) as u64;
                line += &format!("  ETA {}:{:02}", eta / 60, eta % 60);
            }
        }
        line += &format!("  {}/s", bytes(rate));
        let mut err = std::io::stderr().lock();
        // A progress line that cannot be drawn is not worth failing the job for.
        let _ = write!(err, "\r{line:<60}");
        let _ = err.flush();
    }
}

/// Bytes in binary units with one decimal.
fn bytes(n: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}
