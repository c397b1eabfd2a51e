//! How much work a file's header may ask of `decrypt` and `restore`: the shared limits of
//! `shifr_files::kdf_limit` (half of this machine's memory, the passes shifr writes), raised by
//! `--max-kdf-memory` and `--max-kdf-passes` for a file the user trusts.

use crate::container_args::KdfLimitArgs;
use anyhow::{bail, Result};
use shifr::container::Kdf;
use shifr_files::kdf_limit::Limits;

/// Checks `kdf` against the limits of `args`; the error names the options that raise them.
pub fn check(kdf: Kdf, args: &KdfLimitArgs) -> Result<()> {
    match Limits::new(args.max_kdf_memory, args.max_kdf_passes).check(kdf) {
        Ok(()) => Ok(()),
        Err(e) => bail!(
            "{e}; if you trust this file, raise the limits with --max-kdf-memory SIZE and \
             --max-kdf-passes N"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refusal_names_the_options() {
        let args = KdfLimitArgs {
            max_kdf_memory: Some(1 << 30),
            max_kdf_passes: Some(3),
        };
        let hostile = Kdf::Argon2id {
            m_kib: 4 << 20,
            t: 64,
            p: 64,
        };
        let e = check(hostile, &args).unwrap_err().to_string();
        assert!(
            e.contains("m = 4 GiB, t = 64, p = 64") && e.contains("--max-kdf-memory"),
            "{e}"
        );
        assert!(check(Kdf::KeyFile, &args).is_ok());
    }
}
