//! `shifr cipher`: stdin to stdout through one catalogue algorithm, raw bytes, no container.
//!
//! The whole input is read, the whole operation runs, and only then is anything written: an error
//! (bad tag, bad padding, ...) leaves stdout empty.

use crate::cli::CipherArgs;
use crate::keyfile;
use anyhow::{bail, Context, Result};
use shifr::catalog::{self, IvSpec, Params};
use shifr_input::hex_arg;
use std::io::{Read, Write};
use std::process::ExitCode;
use zeroize::Zeroizing;

pub fn run(args: &CipherArgs) -> Result<ExitCode> {
    let alg = catalog::lookup(&args.algorithm)?;
    let iv = match (&args.iv, alg.iv) {
        (Some(hex), _) => hex_arg::decode("--iv", hex).map_err(anyhow::Error::msg)?,
        (None, IvSpec::None) => Vec::new(),
        (None, spec) => bail!(
            "missing IV: {} needs --iv HEX ({} bytes)",
            alg.name,
            spec.describe()
        ),
    };
    let aad = args
        .aad
        .as_deref()
        .map(|h| hex_arg::decode("--aad", h).map_err(anyhow::Error::msg))
        .transpose()?
        .unwrap_or_default();
    let tag = args
        .tag
        .as_deref()
        .map(|h| hex_arg::decode("--tag", h).map_err(anyhow::Error::msg))
        .transpose()?;
    if tag.is_some() && !args.decrypt {
        bail!("--tag is only used with -d (the tag to verify)");
    }
    let params = Params {
        iv: &iv,
        aad: &aad,
        tag_len: args.tag_len,
        nopad: args.nopad,
        section: args.section,
        master_section: args.master_section,
    };
    let key = keyfile::load(
        args.key_file.as_deref(),
        alg.key_len,
        crate::secret_file::FileId::of_stdin(),
    )?;

    let mut input = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut input)
        .context("cannot read stdin")?;

    let output = if args.decrypt {
        // Plaintext: wiped once written.
        Zeroizing::new(alg.decrypt(&key, &params, input, tag.as_deref())?)
    } else {
        let mut out = alg.encrypt(&key, &params, input)?;
        out.data.extend_from_slice(&out.tag);
        Zeroizing::new(out.data)
    };
    drop(key);

    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(&output)
        .and_then(|()| stdout.flush())
        .context("cannot write stdout")?;
    Ok(ExitCode::SUCCESS)
}
