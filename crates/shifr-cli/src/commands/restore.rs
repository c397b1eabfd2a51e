//! `shifr restore IN.shifr DST`: writes an encrypted image back, verifying as it goes.
//!
//! To a file: like `shifr decrypt -o DST` (temporary file, renamed only after every chunk verified);
//! to an existing FIFO or character device: streamed into it like `decrypt` to stdout.
//! To a block device, which cannot be renamed over: the whole image is first verified in a dry pass
//! that writes nothing, and only then written in place and fsynced, so a damaged or wrongly keyed image
//! never touches the device. Overwriting a device always needs `--force`. The image is read twice, so
//! it must be a file (or stdin redirected from a file), not a pipe: that is checked before anything
//! else.

use crate::container_args::RestoreArgs;
use crate::container_io::{size_of, stdin_file, Input};
use crate::cpu_limit::CpuLimit;
use crate::output_target::{OutputTarget, Payload};
use crate::progress::Progress;
use crate::secret_file::FileId;
use anyhow::{bail, Context, Result};
use std::fs::File;
use std::io::{Seek, SeekFrom};
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
    let mut out = OutputTarget::open(Some(&args.destination), args.run.force, Payload::Decrypted)?;
    let (mut input, mut cipher) = super::decrypt::open(Some(&args.input), &args.secret, &args.kdf)?;
    let size = super::decrypt::plaintext_size(&input, &cipher);
    let mut progress = Progress::new("restore", size, args.run.quiet, args.run.progress);
    out.with_writer(|writer, name| {
        super::decrypt::pass(
            &mut cipher,
            &mut input,
            writer,
            name,
            &args.run,
            &mut limit,
            &mut progress,
        )
    })?;
    out.finish()
}

/// The image as a file that can be read twice, and where it starts (stdin may be positioned).
fn seekable_image(args: &RestoreArgs) -> Result<(File, String, u64)> {
    let (mut file, name) = if args.input.as_os_str() == "-" {
        (stdin_file()?, "stdin".to_string())
    } else {
        let name = args.input.display().to_string();
        let file = File::open(&args.input).with_context(|| format!("cannot open {name}"))?;
        (file, name)
    };
    let is_file = file.metadata().map(|m| m.is_file()).unwrap_or(false);
    if !is_file {
        bail!(
            "{name} is not a regular file: restoring onto a block device reads the image twice \
             (verify, then write), so give it as a file or redirect stdin from one"
        );
    }
    let start = file
        .stream_position()
        .with_context(|| format!("cannot read {name}"))?;
    Ok((file, name, start))
}

/// An [`Input`] over the image from `start`.
fn image_input(file: &File, name: &str, start: u64) -> Result<Input> {
    let mut reader = file
        .try_clone()
        .with_context(|| format!("cannot read {name}"))?;
    reader
        .seek(SeekFrom::Start(start))
        .with_context(|| format!("cannot read {name}"))?;
    let size = reader
        .metadata()
        .ok()
        .map(|m| m.len().saturating_sub(start));
    Ok(Input {
        id: FileId::of(&reader),
        reader: Box::new(reader),
        name: name.to_string(),
        size,
    })
}

fn to_device(args: &RestoreArgs) -> Result<()> {
    let name = args.destination.display().to_string();
    if !args.run.force {
        bail!("{name} is a block device: restoring overwrites it (use --force)");
    }
    let (image, image_name, start) = seekable_image(args)?;
    let mut limit = CpuLimit::new(args.run.cpu_limit)?;
    let (mut input, mut cipher) = super::decrypt::open_from(
        image_input(&image, &image_name, start)?,
        &args.secret,
        &args.kdf,
    )?;
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
    drop(input);
    // Verified: read it again (with the same key) and write it this time. Every chunk is verified
    // again as it is written, so a file changed between the passes stops the write at that chunk.
    let mut input = image_input(&image, &image_name, start)?;
    let header = shifr::container::read_header(&mut input.reader)
        .map_err(|e| crate::container_io::name_paths(e, &input.name, "-"))?;
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
