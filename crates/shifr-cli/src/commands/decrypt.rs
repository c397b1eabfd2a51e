//! `shifr decrypt [-o OUT] [IN]`: verifies and decrypts a shifr container. To a file, nothing appears
//! under OUT until every chunk verified; to stdout, each batch is written only after its tags verified.

use crate::atomic_output::AtomicOutput;
use crate::container_args::{DecryptArgs, RunArgs, SecretArgs};
use crate::container_io::{
    choose_backend, is_std, name_paths, open_input, run_pass, Direction, Input,
};
use crate::cpu_limit::CpuLimit;
use crate::progress::Progress;
use crate::secret_source;
use anyhow::Result;
use shifr::container::{read_header, FileCipher};
use std::path::Path;

pub fn run(args: &DecryptArgs) -> Result<()> {
    let mut limit = CpuLimit::new(args.run.cpu_limit)?;
    let to_stdout = is_std(args.output.as_deref());
    let mut target = match args.output.as_deref() {
        Some(path) if !to_stdout => Some(AtomicOutput::create(path, args.run.force)?),
        _ => None,
    };
    let (mut input, mut cipher) = open(args.input.as_deref(), &args.secret)?;
    let mut progress = Progress::new(
        "decrypt",
        plaintext_size(&input, &cipher),
        args.run.quiet,
        args.run.progress,
    );
    match target.as_mut() {
        None => {
            let mut stdout = std::io::stdout().lock();
            pass(
                &mut cipher,
                &mut input,
                &mut stdout,
                "stdout",
                &args.run,
                &mut limit,
                &mut progress,
            )?;
        }
        Some(out) => {
            let name = out.target().display().to_string();
            pass(
                &mut cipher,
                &mut input,
                out.file(),
                &name,
                &args.run,
                &mut limit,
                &mut progress,
            )?;
        }
    }
    if let Some(out) = target {
        out.commit()?;
    }
    Ok(())
}

/// Opens a container: reads its header, gets the secret it asks for and checks the key.
pub fn open(path: Option<&Path>, secret: &SecretArgs) -> Result<(Input, FileCipher)> {
    let mut input = open_input(path)?;
    let header = read_header(&mut input.reader).map_err(|e| name_paths(e, &input.name, "-"))?;
    let owned = secret_source::for_decryption(secret, header.kdf)?;
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
