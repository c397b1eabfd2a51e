//! `kat FILE...`: the known-answer runner alone, for the cross targets under QEMU
//! (scripts/cross-test.sh). It checks records exactly as `shifr kat` does (the same
//! `shifr_kat::run_text`) and prints the same lines, but links only shifr and shifr-kat: the CLI
//! also pulls in clap, OpenSSL and the benchmark crate, which a cross build would have to compile
//! (and link against a target OpenSSL) for nothing.
//!
//! Exit status: 0 when nothing failed, 1 when a record failed, 2 when a file cannot be read or
//! parsed (checked for every file before any record runs).

use shifr_kat::Summary;
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: kat VECTOR_FILE...");
        return ExitCode::from(2);
    }
    let mut texts = Vec::with_capacity(files.len());
    for path in &files {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("kat: cannot read {path}: {e}");
                return ExitCode::from(2);
            }
        };
        if let Err(e) = shifr_kat::parse(&text) {
            eprintln!("kat: {path}: {e}");
            return ExitCode::from(2);
        }
        texts.push(text);
    }

    let mut total = Summary::default();
    let mut out = std::io::stdout().lock();
    for text in &texts {
        for (name, outcome) in shifr_kat::run_text(text) {
            // A closed pipe must not hide the verdict: the exit status still reports failures.
            let _ = writeln!(out, "{name}: {outcome}");
            total.add(&outcome);
        }
    }
    let _ = writeln!(out, "{total}");
    let _ = out.flush();
    if total.failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
