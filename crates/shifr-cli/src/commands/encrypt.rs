//! `shifr encrypt [-a AEAD] [-o OUT] [IN]`: a file or stdin into a shifr container (docs/FORMAT.md).

use crate::atomic_output::AtomicOutput;
use crate::container_args::{EncryptArgs, RunArgs, SealArgs, SecretArgs};
use crate::container_io::{choose_backend, is_std, name_paths, open_input, run_pass, Direction};
use crate::cpu_limit::CpuLimit;
use crate::progress::Progress;
use crate::{random, secret_source};
use anyhow::{anyhow, bail, Result};
use shifr::container::{Algorithm, EncryptParams, FileCipher};
use std::io::IsTerminal;
use std::path::Path;

pub fn run(args: &EncryptArgs) -> Result<()> {
    seal(
        args.input.as_deref(),
        args.output.as_deref(),
        &args.seal,
        &args.secret,
        &args.run,
        "encrypt",
    )
}

/// Encrypts `input` (stdin for none or `-`) into `output` (stdout for none or `-`; otherwise a
/// temporary file renamed into place on success). Shared with `shifr dump`.
pub fn seal(
    input: Option<&Path>,
    output: Option<&Path>,
    seal: &SealArgs,
    secret: &SecretArgs,
    run: &RunArgs,
    label: &'static str,
) -> Result<()> {
    let mut limit = CpuLimit::new(run.cpu_limit)?;
    let algorithm = match &seal.algorithm {
        Some(name) => Algorithm::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = Algorithm::ALL.iter().map(|a| a.name()).collect();
            anyhow!(
                "unknown AEAD '{name}' for a container (choose {})",
                names.join(", ")
            )
        })?,
        None => Algorithm::default_for_this_cpu(),
    };
    let to_stdout = is_std(output);
    if to_stdout && std::io::stdout().is_terminal() {
        bail!("refusing to write encrypted data to a terminal (use -o FILE or a pipe)");
    }
    let mut target = match output {
        Some(path) if !to_stdout => Some(AtomicOutput::create(path, run.force)?),
        _ => None,
    };
    let mut input = open_input(input)?;
    let (owned, kdf) = secret_source::for_encryption(secret)?;
    let mut params = EncryptParams::new(algorithm, kdf, random::bytes()?, random::bytes()?);
    if let Some(size) = seal.chunk_size {
        params.chunk_size = size;
    }
    let mut cipher = FileCipher::for_encryption(&params, owned.as_secret())?;
    drop(owned);
    choose_backend(&mut cipher, run, input.size)?;
    let mut progress = Progress::new(label, input.size, run.quiet, run.progress);
    match target.as_mut() {
        None => {
            let mut stdout = std::io::stdout().lock();
            run_pass(
                &mut cipher,
                Direction::Encrypt,
                &mut input.reader,
                &mut stdout,
                run,
                &mut limit,
                &mut progress,
            )
            .map_err(|e| name_paths(e, &input.name, "stdout"))?;
        }
        Some(out) => {
            let out_name = out.target().display().to_string();
            run_pass(
                &mut cipher,
                Direction::Encrypt,
                &mut input.reader,
                out.file(),
                run,
                &mut limit,
                &mut progress,
            )
            .map_err(|e| name_paths(e, &input.name, &out_name))?;
        }
    }
    if let Some(out) = target {
        out.commit()?;
    }
    Ok(())
}
