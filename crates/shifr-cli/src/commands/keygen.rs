//! `shifr keygen -o FILE`: a new random 32-byte key, written as hex (one line) to a file created with
//! mode 0600, atomically: the name appears only once the whole key is on disk, so a write error (a full
//! file system) leaves nothing behind and a retry works. An existing file is never replaced; an
//! existing FIFO is written into; `-o -` writes the key to stdout, unless that is a terminal.

use crate::container_args::KeygenArgs;
use crate::output_target::{OutputTarget, Payload};
use anyhow::{bail, Context, Result};
use std::io::IsTerminal;
use zeroize::Zeroizing;

pub fn run(args: &KeygenArgs) -> Result<()> {
    if args.output.as_os_str() == "-" && std::io::stdout().is_terminal() {
        bail!("refusing to print a key on a terminal (use -o FILE, or a pipe)");
    }
    let key = Zeroizing::new(crate::random::bytes::<32>()?);
    let mut text = Zeroizing::new(hex::encode(&key[..]));
    text.push('\n');
    let mut out = OutputTarget::open(Some(&args.output), false, Payload::Key)
        .context("cannot create the key file (an existing file is never replaced)")?;
    out.with_writer(|writer, name| {
        writer
            .write_all(text.as_bytes())
            .and_then(|()| writer.flush())
            .with_context(|| format!("cannot write key file {name}"))
    })?;
    out.finish()
}
