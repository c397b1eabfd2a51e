//! `shifr dump SRC OUT.shifr`: reads a block device or file sequentially and writes an encrypted image.
//! The reads are the pipeline's batches: 4 MiB (whole chunks) at offsets that are multiples of 4 MiB,
//! so they stay aligned for a block device; the image goes to a temporary file renamed into place.

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
