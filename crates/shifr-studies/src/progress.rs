//! Progress of a long study on stderr: a counter redrawn in place when stderr is a terminal, nothing
//! otherwise (so logs and tests stay clean).

use std::io::{IsTerminal, Write};

/// Steps done out of a known total.
#[derive(Debug)]
pub struct Progress {
    study: &'static str,
    total: usize,
    done: usize,
    enabled: bool,
}

impl Progress {
    /// A counter for `total` steps, shown only if `wanted` and stderr is a terminal.
    pub fn new(study: &'static str, total: usize, wanted: bool) -> Progress {
        Progress {
            study,
            total,
            done: 0,
            enabled: wanted && std::io::stderr().is_terminal(),
        }
    }

    /// Marks the start of the next step, named `what`.
    pub fn step(&mut self, what: &str) {
        self.done += 1;
        if self.enabled {
            let width = 30;
            let filled = (self.done * width / self.total.max(1)).min(width);
            let mut err = std::io::stderr().lock();
            // A failed progress write must never stop a measurement.
            let _ = write!(
                err,
                "\r\x1b[2K{} [{}{}] {}/{} {}",
                self.study,
                "#".repeat(filled),
                " ".repeat(width - filled),
                self.done,
                self.total,
                what
            );
            let _ = err.flush();
        }
    }

    /// Clears the progress line.
    pub fn finish(&mut self) {
        if self.enabled {
            let _ = write!(std::io::stderr(), "\r\x1b[2K");
        }
    }
}
