//! `shifr study NAME --out DIR`: runs one of the seed studies of `shifr_studies` and prints the
//! files it wrote and its verdicts.

use crate::cli::StudyArgs;
use anyhow::{anyhow, bail, Context, Result};
use shifr::cpu::Backend;
use shifr_studies::{self as study, Config, Scale, Study};
use std::process::ExitCode;

pub fn run(args: &StudyArgs) -> Result<ExitCode> {
    if args.name == "tls" {
        #[cfg(feature = "tls")]
        return super::study_tls::run(args);
        #[cfg(not(feature = "tls"))]
        return Err(crate::features::missing("tls", "study tls"));
    }
    let Some(which) = Study::from_name(&args.name) else {
        let mut names: Vec<&str> = vec!["tls"];
        names.extend(Study::ALL.iter().map(|s| s.name()));
        bail!(
            "unknown study '{}' (one of: {})",
            args.name,
            names.join(", ")
        );
    };
    let mut cfg = Config::new(&args.out);
    cfg.scale = if args.tiny {
        Scale::Tiny
    } else if args.quick {
        Scale::Quick
    } else {
        Scale::Full
    };
    cfg.corpus = args.corpus.clone();
    cfg.all = args.all;
    if let Some(n) = args.threads {
        if n == 0 {
            bail!("--threads must be at least 1");
        }
        cfg.max_threads = n;
    }
    // `--backend gpu` is not a CPU backend: it adds the GPU part of gost-streams (study_gpu.rs).
    let gpu = args
        .backend
        .iter()
        .any(|b| b.trim().eq_ignore_ascii_case("gpu"));
    if gpu && which != Study::GostStreams {
        bail!("--backend gpu: only the gost-streams study has a GPU part");
    }
    // Refused before the CPU part runs, not after it.
    #[cfg(not(feature = "gpu"))]
    if gpu {
        return Err(crate::features::missing("gpu", "--backend gpu"));
    }
    let cpu_backends: Vec<&String> = args
        .backend
        .iter()
        .filter(|b| !b.trim().eq_ignore_ascii_case("gpu"))
        .collect();
    if !cpu_backends.is_empty() {
        cfg.backends = cpu_backends
            .iter()
            .map(|name| {
                let b = Backend::from_name(name.trim())
                    .ok_or_else(|| anyhow!("unknown backend '{name}'"))?;
                if b.is_supported() {
                    Ok(b)
                } else {
                    Err(anyhow!("backend '{name}' is not available on this CPU"))
                }
            })
            .collect::<Result<_>>()?;
    }
    cfg.exe =
        Some(std::env::current_exe().context("cannot locate the shifr binary for child runs")?);
    cfg.progress = !args.part;
    cfg.command = command_line();
    if args.part {
        study::run_part(which, &cfg)?;
        return Ok(ExitCode::SUCCESS);
    }
    let outcome = study::run(which, &cfg)?;
    #[cfg(feature = "gpu")]
    if gpu {
        super::study_gpu::run(&args.out, cfg.scale)?;
    }
    for file in &outcome.files {
        println!("wrote {}", file.display());
    }
    for v in &outcome.verdicts {
        println!("{}: {}", v.claim, v.outcome);
    }
    if outcome
        .verdicts
        .iter()
        .any(|v| matches!(v.outcome, study::verdict::Outcome::NotJudged { .. }))
    {
        println!("{}", study::verdict::RERUN);
    }
    Ok(ExitCode::SUCCESS)
}

/// The command as typed, for the report (`shifr` plus the arguments).
pub(super) fn command_line() -> String {
    let args: Vec<String> = std::env::args().skip(1).collect();
    format!("shifr {}", args.join(" "))
}
