//! Where a command's output goes, decided before any work is done.
//!
//! - Nothing or `-`: stdout.
//! - A name that does not exist, or an existing regular file (with `--force`): a new file that appears
//!   under that name only when complete ([`AtomicOutput`]).
//! - An existing FIFO or character device (`/dev/null`, a terminal, `<(…)`), or a link to one: written
//!   into in place, as a stream, exactly like stdout. It is never replaced, `--force` or not: renaming a
//!   regular file over `/dev/null` would destroy the device node and leave the data in a file.
//! - A block device: refused; only `shifr restore` writes to one (after verifying the whole image).
//! - Anything else (a directory, a socket): refused.
//!
//! Binary output is not sent to a terminal unless the user named it (`-o -`, `-o /dev/tty`): an
//! implicit stdout that is a terminal is refused, for encrypted and decrypted data alike.

use anyhow::{anyhow, bail, Context, Result};
use shifr_files::{AtomicOutput, OutputError};
use std::fs::{File, OpenOptions};
use std::io::{IsTerminal, Write};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

/// An opened output.
pub enum OutputTarget {
    /// The process's stdout.
    Stdout,
    /// An existing FIFO or character device, opened for writing.
    Stream {
        /// The open device or FIFO.
        file: File,
        /// Its path as given.
        name: String,
    },
    /// A regular file on its way to its final name.
    File(AtomicOutput),
}

/// What the output holds, for the terminal message.
#[derive(Clone, Copy)]
pub enum Payload {
    /// Ciphertext.
    Encrypted,
    /// Plaintext.
    Decrypted,
    /// A key.
    Key,
}

impl Payload {
    fn words(self) -> &'static str {
        match self {
            Payload::Encrypted => "encrypted data",
            Payload::Decrypted => "decrypted data",
            Payload::Key => "a key",
        }
    }
}

impl OutputTarget {
    /// Opens the output for `path` (stdout for none or `-`).
    pub fn open(path: Option<&Path>, force: bool, payload: Payload) -> Result<OutputTarget> {
        let Some(path) = path.filter(|p| p.as_os_str() != "-") else {
            if path.is_none() && std::io::stdout().is_terminal() {
                bail!(
                    "refusing to write {} to a terminal (use -o FILE, a pipe, or -o - to insist)",
                    payload.words()
                );
            }
            return Ok(OutputTarget::Stdout);
        };
        let name = path.display().to_string();
        // Links are followed: `-o /dev/stdout` or a link to a FIFO is the thing it points to.
        let kind = match std::fs::metadata(path) {
            Ok(meta) => Some(meta.file_type()),
            Err(_) => None,
        };
        match kind {
            Some(t) if t.is_fifo() || t.is_char_device() => {
                let file = OpenOptions::new()
                    .write(true)
                    .open(path)
                    .with_context(|| format!("cannot open {name} for writing"))?;
                Ok(OutputTarget::Stream { file, name })
            }
            Some(t) if t.is_block_device() => bail!(
                "{name} is a block device: only `shifr restore` writes to one (it verifies the whole image first)"
            ),
            Some(t) if t.is_dir() => bail!("{name} is a directory"),
            Some(t) if !t.is_file() => {
                bail!("{name} is not a regular file, FIFO or character device; not written")
            }
            _ => match AtomicOutput::create(path, force) {
                Ok(out) => Ok(OutputTarget::File(out)),
                Err(OutputError::Exists(_)) => {
                    Err(anyhow!("{name} exists (use --force to replace it)"))
                }
                Err(e) => Err(e.into()),
            },
        }
    }

    /// The output's name in messages.
    pub fn name(&self) -> String {
        match self {
            OutputTarget::Stdout => "stdout".to_string(),
            OutputTarget::Stream { name, .. } => name.clone(),
            OutputTarget::File(out) => out.target().display().to_string(),
        }
    }

    /// Runs `f` with the writer and the output's name.
    pub fn with_writer<R>(&mut self, f: impl FnOnce(&mut dyn Write, &str) -> R) -> R {
        let name = self.name();
        match self {
            OutputTarget::Stdout => f(&mut std::io::stdout().lock(), &name),
            OutputTarget::Stream { file, .. } => f(file, &name),
            OutputTarget::File(out) => f(out.file(), &name),
        }
    }

    /// Completes the output: a file is flushed and put under its name; a stream or stdout is flushed.
    pub fn finish(self) -> Result<()> {
        match self {
            OutputTarget::Stdout => std::io::stdout().flush().context("cannot write stdout"),
            OutputTarget::Stream { mut file, name } => {
                file.flush().with_context(|| format!("cannot write {name}"))
            }
            OutputTarget::File(out) => match out.commit() {
                Err(OutputError::AppearedWhileWriting(p)) => Err(anyhow!(
                    "{} appeared while writing; not replaced (use --force)",
                    p.display()
                )),
                other => Ok(other?),
            },
        }
    }
}
