//! `shifr restore IN.shifr DST`: writes an encrypted image back, verifying as it goes.
//!
//! To a file: like `shifr decrypt -o DST` (temporary file, renamed only after every chunk verified).
//! To a block device, which cannot be renamed over: the whole image is first verified in a dry pass
//! that writes nothing, and only then written in place and fsynced, so a damaged or wrongly keyed image
//! never touches the device. Overwriting a device always needs `--force`.

use crate::atomic_output::AtomicOutput;
use crate::container_args::RestoreArgs;
use crate::container_io::{name_paths, open_input, size_of};
use crate::cpu_limit::CpuLimit;
use crate::progress::Progress;
use anyhow::{bail, Context, Result};
use shifr::container::read_header;
use std::os::unix::fs::FileTypeExt;

pub fn run(args: &RestoreArgs) -> Result<()> {
    let is_device = std::fs::metadata(&args.destination)
        .map(|m| m.file_type().is_block_device())
        .unwrap_or(false);
    if is_device {
        to_device(args)
    } else {
        to_file(args)
    }
}

fn to_file(args: &RestoreArgs) -> Result<()> {
    let mut limit = CpuLimit::new(args.run.cpu_limit)?;
    let mut out = AtomicOutput::create(&args.destination, args.run.force)?;
    let (mut input, mut cipher) = super::decrypt::open(Some(&args.input), &args.secret)?;
    let size = super::decrypt::plaintext_size(&input, &cipher);
    let mut progress = Progress::new("restore", size, args.run.quiet, args.run.progress);
    let name = args.destination.display().to_string();
    super::decrypt::pass(
        &mut cipher,
        &mut input,
        out.file(),
        &name,
        &args.run,
        &mut limit,
        &mut progress,
    )?;
    out.commit()
}

fn to_device(args: &RestoreArgs) -> Result<()> {
    let name = args.destination.display().to_string();
    if !args.run.force {
        bail!("{name} is a block device: restoring overwrites it (use --force)");
    }
    let mut limit = CpuLimit::new(args.run.cpu_limit)?;
    let (mut input, mut cipher) = super::decrypt::open(Some(&args.input), &args.secret)?;
    let size = super::decrypt::plaintext_size(&input, &cipher);
    let mut device = std::fs::OpenOptions::new()
        .write(true)
        .open(&args.destination)
        .with_context(|| format!("cannot open {name} for writing"))?;
    if let (Some(plain), Some(capacity)) = (size, size_of(&mut device)) {
        if plain > capacity {
            bail!("{name} holds {capacity} bytes; the image needs {plain}");
        }
    }
    let mut verify = Progress::new("verify", size, args.run.quiet, args.run.progress);
    super::decrypt::pass(
        &mut cipher,
        &mut input,
        &mut std::io::sink(),
        "-",
        &args.run,
        &mut limit,
        &mut verify,
    )?;
    // Verified: read it again (with the same key) and write it this time. Every chunk is verified
    // again as it is written, so a file changed between the passes stops the write at that chunk.
    let mut input = open_input(Some(&args.input))?;
    let header = read_header(&mut input.reader).map_err(|e| name_paths(e, &input.name, "-"))?;
    if &header != cipher.header() {
        bail!("{} changed during the restore", input.name);
    }
    let mut progress = Progress::new("restore", size, args.run.quiet, args.run.progress);
    super::decrypt::pass(
        &mut cipher,
        &mut input,
        &mut device,
        &name,
        &args.run,
        &mut limit,
        &mut progress,
    )?;
    device
        .sync_all()
        .with_context(|| format!("cannot write {name}: fsync failed"))
}
