//! `shifr report merge A.json B.json ... --out DIR`: `shifr bench --json` results from several
//! machines in one report (shifr_bench::report::merge).

use crate::cli::{MergeArgs, ReportCommand};
use anyhow::{Context, Result};
use shifr_bench::report::merge;
use std::process::ExitCode;

pub fn run(cmd: &ReportCommand) -> Result<ExitCode> {
    match cmd {
        ReportCommand::Merge(args) => run_merge(args),
    }
}

fn run_merge(args: &MergeArgs) -> Result<ExitCode> {
    let machines = merge::read(&args.files)?;
    let files = merge::write(&machines, &args.out)
        .with_context(|| format!("writing the report into {}", args.out.display()))?;
    for m in &machines {
        println!("{}: {} rows ({})", m.name, m.rows.len(), m.cpu);
    }
    for f in files {
        println!("wrote {}", f.display());
    }
    Ok(ExitCode::SUCCESS)
}
