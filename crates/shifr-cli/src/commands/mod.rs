//! One file per subcommand.

mod bench;
mod cipher;
mod kat;
mod list;

use crate::cli::Command;
use std::process::ExitCode;

/// Runs a parsed command; the exit code on success, an error (reported by `main`) otherwise.
pub fn run(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::List => list::run(),
        Command::Kat(args) => kat::run(&args),
        Command::Cipher(args) => cipher::run(&args),
        Command::Bench(args) => bench::run(&args),
    }
}
