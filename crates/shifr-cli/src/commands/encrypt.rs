//! `shifr encrypt [-a AEAD] [-o OUT] [IN]`: a file or stdin into a shifr container (docs/FORMAT.md).

use crate::container_args::{EncryptArgs, RunArgs, SealArgs, SecretArgs};
use crate::container_io::{choose_backend, name_paths, open_input, run_pass, Direction};
use crate::cpu_limit::CpuLimit;
use crate::output_target::{OutputTarget, Payload};
use crate::progress::Progress;
use crate::{random, secret_source};
use anyhow::{anyhow, Result};
use shifr::container::{Algorithm, EncryptParams, FileCipher};
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
    let mut target = OutputTarget::open(output, run.force, Payload::Encrypted)?;
    let mut input = open_input(input)?;
    let (owned, kdf) = secret_source::for_encryption(secret, input.id)?;
    let mut params = EncryptParams::new(algorithm, kdf, random::bytes()?, random::bytes()?);
    if let Some(size) = seal.chunk_size {
        params.chunk_size = size;
    }
    let mut cipher = FileCipher::for_encryption(&params, owned.as_secret())?;
    drop(owned);
    choose_backend(&mut cipher, run, input.size)?;
    let mut progress = Progress::new(label, input.size, run.quiet, run.progress);
    target.with_writer(|out, out_name| {
        run_pass(
            &mut cipher,
            Direction::Encrypt,
            &mut input.reader,
            out,
            run,
            &mut limit,
            &mut progress,
        )
        .map_err(|e| name_paths(e, &input.name, out_name))
    })?;
    target.finish()
}
