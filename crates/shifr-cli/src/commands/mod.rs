//! One file per subcommand.

mod cipher;
mod kat;
mod list;
mod study;

use crate::cli::Command;
use std::process::ExitCode;

/// Runs a parsed command; the exit code on success, an error (reported by `main`) otherwise.
pub fn run(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::List => list::run(),
        Command::Kat(args) => kat::run(&args),
        Command::Cipher(args) => cipher::run(&args),
        Command::Study(args) => study::run(&args),
    }
}
