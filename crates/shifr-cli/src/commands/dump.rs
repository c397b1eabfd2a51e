//! `shifr dump SRC OUT.shifr`: reads a block device or file sequentially and writes an encrypted image.
//! The reads are the pipeline's jobs: 1 MiB (whole chunks; one chunk under `--cpu-limit`) at offsets
//! that are multiples of that size, so they stay aligned for a block device; a device's size comes
//! from the `BLKGETSIZE64` ioctl. The image goes to an unnamed file linked into place on success.

use crate::container_args::DumpArgs;
use anyhow::Result;

pub fn run(args: &DumpArgs) -> Result<()> {
    super::encrypt::seal(
        Some(&args.source),
        Some(&args.output),
        &args.seal,
        &args.secret,
        &args.run,
        "dump",
    )
}
