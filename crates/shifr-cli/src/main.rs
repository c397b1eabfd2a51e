//! `shifr`: the command-line front end of the shifr library. Commands are thin: all cryptography is in
//! the library; this crate does argument parsing, file and stream I/O, and error reporting.
//!
//! Every failure is reported as exactly one line on stderr (`shifr: error: ...`) with a non-zero exit
//! status, and nothing is written to stdout unless the whole operation succeeded.

mod cli;
mod commands;
mod features;
mod keyfile;
mod report;
// The container commands' helpers.
#[cfg(target_os = "linux")]
mod block_device;
mod container_args;
mod container_io;
mod cpu_limit;
mod exit_status;
mod kdf_limit;
mod output_target;
mod passphrase;
mod process_cpu;
mod progress;
mod random;
mod secret_file;
mod secret_source;
mod tune_state;

use std::process::ExitCode;

fn main() -> ExitCode {
    report::install_panic_hook();
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    report::warn_about_backend_override();
    tune_state::install();
    match commands::run(cli.command) {
        Ok(code) => code,
        Err(e) => {
            report::error(&e);
            ExitCode::FAILURE
        }
    }
}
