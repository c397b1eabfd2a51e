//! `shifr study tls --out DIR`: seed 000's TLS experiment over loopback (crate shifr-tls), and its
//! hidden server side, `shifr study tls --serve ENGINE --out DIR`, which the study starts as a child
//! process for every server so that the child's environment can switch AES instructions off.

use crate::cli::StudyArgs;
use anyhow::{anyhow, bail, Context, Result};
use shifr_tls::combo::{self, Combo, Engine};
use shifr_tls::study::Config;
use std::process::ExitCode;

pub fn run(args: &StudyArgs) -> Result<ExitCode> {
    if let Some(engine) = &args.serve {
        let engine =
            Engine::from_name(engine).ok_or_else(|| anyhow!("unknown engine '{engine}'"))?;
        shifr_tls::server::serve_child(engine, &args.out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let scale = if args.tiny {
        "tiny"
    } else if args.quick {
        "quick"
    } else {
        "full"
    };
    let mut plan = Config::plan(scale);
    if let Some(size) = &args.bulk_size {
        let n = shifr_bench::sizes::parse(size).map_err(|e| anyhow!("--bulk-size: {e}"))?;
        if n == 0 || n as u64 > shifr_tls::http1::MAX_BODY {
            bail!("--bulk-size must be between 1 byte and 1G");
        }
        plan.bulk_bytes = n as u64;
    }
    if let Some(reps) = args.reps {
        if reps == 0 {
            bail!("--reps must be at least 1");
        }
        plan.reps = reps;
    }
    let combos = match &args.combos {
        Some(filter) => combo::select(filter).map_err(|e| anyhow!(e))?,
        None if args.tiny => Combo::tiny(),
        None => Combo::all(),
    };
    if combos.is_empty() {
        bail!("--combos selects no combination");
    }
    let cfg = Config {
        out: args.out.clone(),
        exe: std::env::current_exe()
            .context("cannot locate the shifr binary for the server children")?,
        combos,
        plan,
        external: !args.no_external,
        progress: true,
        command: super::study::command_line(),
        scale: scale.to_string(),
        load_before: shifr_studies::verdict::load_average(),
    };
    let written = shifr_tls::study::run(&cfg)?;
    for file in &written.files {
        println!("wrote {}", file.display());
    }
    for v in &written.verdicts {
        println!("{}: {}", v.claim, v.outcome);
    }
    Ok(ExitCode::SUCCESS)
}
