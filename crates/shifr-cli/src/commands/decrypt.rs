//! `shifr decrypt [-o OUT] [IN]`: verifies and decrypts a shifr container. To a file, nothing appears
//! under OUT until every chunk verified; to stdout, each batch is written only after its tags verified.

use crate::container_args::{DecryptArgs, KdfLimitArgs, RunArgs, SecretArgs};
use crate::container_io::{choose_backend, name_paths, open_input, run_pass, Direction, Input};
use crate::cpu_limit::CpuLimit;
use crate::output_target::{OutputTarget, Payload};
use crate::progress::Progress;
use crate::{kdf_limit, secret_source};
use anyhow::Result;
use shifr::container::{read_header, FileCipher};
use std::path::Path;

pub fn run(args: &DecryptArgs) -> Result<()> {
    let mut limit = CpuLimit::new(args.run.cpu_limit)?;
    let mut target =
        OutputTarget::open(args.output.as_deref(), args.run.force, Payload::Decrypted)?;
    let (mut input, mut cipher) = open(args.input.as_deref(), &args.secret, &args.kdf)?;
    let mut progress = Progress::new(
        "decrypt",
        plaintext_size(&input, &cipher),
        args.run.quiet,
        args.run.progress,
    );
    target.with_writer(|out, out_name| {
        pass(
            &mut cipher,
            &mut input,
            out,
            out_name,
            &args.run,
            &mut limit,
            &mut progress,
        )
    })?;
    target.finish()
}

/// Opens a container: reads its header, checks its KDF against the work limits, gets the secret it
/// asks for and checks the key.
pub fn open(
    path: Option<&Path>,
    secret: &SecretArgs,
    limits: &KdfLimitArgs,
) -> Result<(Input, FileCipher)> {
    let input = open_input(path)?;
    open_from(input, secret, limits)
}

/// [`open`] for an input already opened.
pub fn open_from(
    mut input: Input,
    secret: &SecretArgs,
    limits: &KdfLimitArgs,
) -> Result<(Input, FileCipher)> {
    let header = read_header(&mut input.reader).map_err(|e| name_paths(e, &input.name, "-"))?;
    kdf_limit::check(header.kdf, limits)?;
    let owned = secret_source::for_decryption(secret, header.kdf, input.id)?;
    let cipher = FileCipher::for_decryption(&header, owned.as_secret())
        .map_err(|e| name_paths(e, &input.name, "-"))?;
    Ok((input, cipher))
}

/// The plaintext size the input's length implies, for the progress line.
pub fn plaintext_size(input: &Input, cipher: &FileCipher) -> Option<u64> {
    input
        .size
        .and_then(|s| super::info::layout(cipher.header(), s))
        .map(|(_, plain)| plain)
}

/// Decrypts the rest of `input` into `output`, naming the paths in errors.
pub fn pass(
    cipher: &mut FileCipher,
    input: &mut Input,
    output: &mut dyn std::io::Write,
    output_name: &str,
    run: &RunArgs,
    limit: &mut Option<CpuLimit>,
    progress: &mut Progress,
) -> Result<u64> {
    let size = plaintext_size(input, cipher);
    choose_backend(cipher, run, size)?;
    run_pass(
        cipher,
        Direction::Decrypt,
        &mut input.reader,
        output,
        run,
        limit,
        progress,
    )
    .map_err(|e| name_paths(e, &input.name, output_name))
}
