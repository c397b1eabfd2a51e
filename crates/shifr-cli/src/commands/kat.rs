//! `shifr kat FILE...`: runs every record of every vector file and prints one line per record, then
//! the total `N passed, N failed, N skipped`.
//!
//! Exit status: 0 when nothing failed, 1 when a record failed, 2 when a file cannot be read or parsed
//! (checked for all files before any record runs, so that a typo in the last file is not found after
//! minutes of work).

use crate::cli::KatArgs;
use anyhow::{anyhow, Result};
use shifr_kat::{Outcome, Summary};
use std::io::Write;
use std::process::ExitCode;

/// Exit status for unreadable or malformed vector files.
const BAD_INPUT: u8 = 2;

pub fn run(args: &KatArgs) -> Result<ExitCode> {
    let mut texts = Vec::with_capacity(args.files.len());
    for path in &args.files {
        let shown = path.display();
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => return bad_input(anyhow!("cannot read {shown}: {e}")),
        };
        match shifr_kat::parse(&text) {
            Err(e) => return bad_input(anyhow!("{shown}: {e}")),
            // A file with no record would pass "0 passed" and hide a wrong path or a truncated copy.
            Ok(records) if records.is_empty() => {
                return bad_input(anyhow!("{shown} holds no test vectors"))
            }
            Ok(_) => {}
        }
        texts.push(text);
    }

    let mut total = Summary::default();
    let mut stdout = std::io::stdout().lock();
    for text in &texts {
        let results: Vec<(String, Outcome)> = shifr_kat::run_text(text);
        for (name, outcome) in &results {
            writeln!(stdout, "{name}: {outcome}")?;
            total.add(outcome);
        }
    }
    writeln!(stdout, "{total}")?;
    stdout.flush()?;
    Ok(if total.failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn bad_input(e: anyhow::Error) -> Result<ExitCode> {
    crate::report::error(&e);
    Ok(ExitCode::from(BAD_INPUT))
}
