//! One file per subcommand.

mod bench;
#[cfg(feature = "gpu")]
mod bench_gpu;
mod cipher;
mod kat;
mod list;
mod report;
// The container commands.
mod decrypt;
mod dump;
mod encrypt;
mod info;
mod keygen;
mod restore;
mod study;
#[cfg(feature = "gpu")]
mod study_gpu;
#[cfg(feature = "tls")]
mod study_tls;
mod tune;

use crate::cli::Command;
use crate::exit_status;
use std::process::ExitCode;

/// Runs a parsed command; the exit code on success, an error (reported by `main`) otherwise.
pub fn run(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::List(args) => list::run(&args),
        Command::Kat(args) => kat::run(&args),
        Command::Cipher(args) => cipher::run(&args),
        // The container commands report their own errors, with distinct exit codes.
        Command::Encrypt(args) => exit_status::finish(encrypt::run(&args)),
        Command::Decrypt(args) => exit_status::finish(decrypt::run(&args)),
        Command::Dump(args) => exit_status::finish(dump::run(&args)),
        Command::Restore(args) => exit_status::finish(restore::run(&args)),
        Command::Info(args) => exit_status::finish(info::run(&args)),
        Command::Keygen(args) => exit_status::finish(keygen::run(&args)),
        Command::Bench(args) => bench::run(&args),
        Command::Study(args) => study::run(&args),
        Command::Report(cmd) => report::run(&cmd),
        Command::Tune(args) => tune::run(&args),
    }
}
