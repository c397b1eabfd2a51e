//! `shifr keygen -o FILE`: a new random 32-byte key, written as hex to a file created with mode 0600;
//! an existing file is never replaced.

use crate::container_args::KeygenArgs;
use anyhow::{Context, Result};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use zeroize::Zeroizing;

pub fn run(args: &KeygenArgs) -> Result<()> {
    let shown = args.output.display();
    let key = Zeroizing::new(crate::random::bytes::<32>()?);
    let mut text = Zeroizing::new(hex::encode(&key[..]));
    text.push('\n');
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&args.output)
        .with_context(|| {
            format!("cannot create key file {shown} (an existing file is never replaced)")
        })?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .with_context(|| format!("cannot write key file {shown}"))?;
    Ok(())
}
