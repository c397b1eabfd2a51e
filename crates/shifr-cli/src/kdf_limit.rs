//! How much work a file's header may ask of decryption.
//!
//! A passphrase container names its own Argon2id cost, and the format allows up to 4 GiB, 64 passes and
//! 64 lanes: a hostile file within those limits could make `decrypt` allocate gigabytes and compute
//! for minutes before it can even say "wrong passphrase". So decryption refuses a header that asks for
//! more memory than half of this machine's RAM (or of the address-space limit, `ulimit -v`, when that
//! is lower), or more passes than shifr itself writes, naming the parameters; `--max-kdf-memory` and
//! `--max-kdf-passes` raise the limits for a file the user trusts.

use crate::container_args::KdfLimitArgs;
use anyhow::{bail, Result};
use shifr::container::Kdf;
use shifr_input::number_arg::human;

/// The limits in force: memory in bytes and passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most Argon2id memory, in bytes.
    pub memory: u64,
    /// Most Argon2id passes.
    pub passes: u32,
    /// Whether the memory limit is this machine's default (for the message).
    pub machine_default: bool,
}

/// The passes shifr writes (`Kdf::DEFAULT_ARGON2ID`): the default pass limit.
fn default_passes() -> u32 {
    match Kdf::DEFAULT_ARGON2ID {
        Kdf::Argon2id { t, .. } => t,
        Kdf::KeyFile => 3,
    }
}

impl Limits {
    /// The limits from the options, else from this machine.
    pub fn from_args(args: &KdfLimitArgs) -> Limits {
        Limits {
            memory: args.max_kdf_memory.unwrap_or_else(default_memory),
            passes: args.max_kdf_passes.unwrap_or_else(default_passes),
            machine_default: args.max_kdf_memory.is_none(),
        }
    }

    /// Refuses a KDF that asks for more than these limits.
    pub fn check(&self, kdf: Kdf) -> Result<()> {
        let Kdf::Argon2id { m_kib, t, p } = kdf else {
            return Ok(());
        };
        let memory = u64::from(m_kib) << 10;
        if memory <= self.memory && t <= self.passes {
            return Ok(());
        }
        let origin = if self.machine_default {
            " (half of this machine's memory)"
        } else {
            ""
        };
        bail!(
            "the file asks for Argon2id m = {}, t = {t}, p = {p}: more than decryption allows here \
             (m <= {}{origin}, t <= {}); if you trust this file, raise the limits with \
             --max-kdf-memory SIZE and --max-kdf-passes N",
            human(memory),
            human(self.memory),
            self.passes
        )
    }
}

/// Checks `kdf` against the limits of `args`.
pub fn check(kdf: Kdf, args: &KdfLimitArgs) -> Result<()> {
    Limits::from_args(args).check(kdf)
}

/// Half of the physical memory, or of the address-space limit when that is lower; rounded down to
/// whole MiB. 1 GiB where neither can be read.
fn default_memory() -> u64 {
    let ram = physical_memory().unwrap_or(2 << 30);
    let cap = match address_space_limit() {
        Some(limit) => ram.min(limit),
        None => ram,
    };
    (cap / 2) >> 20 << 20
}

fn physical_memory() -> Option<u64> {
    // SAFETY: sysconf only reads system configuration; it takes and returns plain integers.
    let (pages, page) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    (pages > 0 && page > 0).then(|| (pages as u64).saturating_mul(page as u64))
}

fn address_space_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit into the struct it is given, which lives for the call.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } == 0;
    // rlim_t is 32 bits wide on some 32-bit targets: the cast is not a no-op everywhere.
    #[allow(clippy::unnecessary_cast)]
    let current = limit.rlim_cur as u64;
    (ok && limit.rlim_cur != libc::RLIM_INFINITY).then_some(current)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(memory: u64, passes: u32) -> Limits {
        Limits {
            memory,
            passes,
            machine_default: false,
        }
    }

    #[test]
    fn hostile_header_is_refused_by_name() {
        let hostile = Kdf::Argon2id {
            m_kib: 4 << 20,
            t: 64,
            p: 64,
        };
        let e = limits(1 << 30, 3).check(hostile).unwrap_err().to_string();
        assert!(
            e.contains("m = 4 GiB, t = 64, p = 64") && e.contains("--max-kdf-memory"),
            "{e}"
        );
        // Memory alone, or passes alone, over the limit.
        let big_memory = Kdf::Argon2id {
            m_kib: 2 << 20,
            t: 1,
            p: 1,
        };
        assert!(limits(1 << 30, 3).check(big_memory).is_err());
        assert!(limits(2 << 30, 3).check(big_memory).is_ok());
        let many_passes = Kdf::Argon2id {
            m_kib: 64,
            t: 4,
            p: 1,
        };
        assert!(limits(1 << 30, 3).check(many_passes).is_err());
        assert!(limits(1 << 30, 4).check(many_passes).is_ok());
    }

    #[test]
    fn what_shifr_writes_always_passes_the_default() {
        let args = KdfLimitArgs {
            max_kdf_memory: None,
            max_kdf_passes: None,
        };
        let limits = Limits::from_args(&args);
        assert!(limits.memory >= 64 << 20, "{limits:?}");
        assert!(limits.check(Kdf::DEFAULT_ARGON2ID).is_ok());
        assert!(limits.check(Kdf::KeyFile).is_ok());
    }
}
