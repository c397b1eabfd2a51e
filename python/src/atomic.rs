//! Output that appears under its final name only when complete, never over a FIFO or a device: the
//! CLI's own implementation (crate `shifr-files`, docs/FORMAT.md "Errors and exit codes"), with its
//! failures turned into the package's exceptions.

use crate::errors::{Failure, Result};
use shifr_files::OutputError;
use std::fs::File;
use std::path::Path;

/// A file on its way to its final name.
pub struct AtomicOutput(shifr_files::AtomicOutput);

impl AtomicOutput {
    /// Creates the staging file for `target`. Errors: `target` exists and `force` is not set, or it
    /// is a directory, a FIFO or a device (never replaced).
    pub fn create(target: &Path, force: bool) -> Result<AtomicOutput> {
        shifr_files::AtomicOutput::create(target, force)
            .map(AtomicOutput)
            .map_err(failure)
    }

    /// The file to write.
    pub fn file(&mut self) -> &mut File {
        self.0.file()
    }

    /// The final name.
    pub fn target(&self) -> &Path {
        self.0.target()
    }

    /// Syncs the data and gives it its final name.
    pub fn commit(self) -> Result<()> {
        self.0.commit().map_err(failure)
    }
}

/// The exception for an output failure: the CLI's message, in the package's words for `force`.
fn failure(e: OutputError) -> Failure {
    match e {
        OutputError::Exists(p) => Failure::new(
            "OutputExistsError",
            format!("{} exists (use force=True to replace it)", p.display()),
        ),
        OutputError::AppearedWhileWriting(p) => Failure::new(
            "OutputExistsError",
            format!(
                "{} appeared while writing; not replaced (use force=True)",
                p.display()
            ),
        ),
        OutputError::NoFileName(_) => Failure::invalid(e.to_string()),
        other => Failure::new("ShifrIOError", other.to_string()),
    }
}
