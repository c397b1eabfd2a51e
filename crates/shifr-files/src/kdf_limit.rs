//! How much work a file's header may ask of decryption, for the CLI and the Python package alike.
//!
//! A passphrase container names its own Argon2id cost, and the format allows up to 4 GiB, 64 passes
//! and 64 lanes: a hostile file within those limits could make a decryption allocate gigabytes and
//! compute for minutes before it can even say "wrong passphrase". So decryption refuses a header that
//! asks for more memory than half of this machine's RAM (or of the address-space limit, `ulimit -v`,
//! when that is lower), or more passes than shifr itself writes, naming the parameters; each front
//! end lets the user raise the limits for a file they trust (`--max-kdf-memory`, `max_kdf_memory=`).

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

/// A header that asks for more than the limits; the message names its parameters and the limits.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the file asks for Argon2id m = {}, t = {t}, p = {p}: more than decryption allows here \
     (m <= {}{}, t <= {})",
    human(*.memory),
    human(.limits.memory),
    if .limits.machine_default { " (half of this machine's memory)" } else { "" },
    .limits.passes
)]
pub struct TooCostly {
    /// The memory the file asks for, in bytes.
    pub memory: u64,
    /// Its passes.
    pub t: u32,
    /// Its lanes.
    pub p: u32,
    /// The limits it exceeds.
    pub limits: Limits,
}

/// The passes shifr writes (`Kdf::DEFAULT_ARGON2ID`): the default pass limit.
fn default_passes() -> u32 {
    match Kdf::DEFAULT_ARGON2ID {
        Kdf::Argon2id { t, .. } => t,
        Kdf::KeyFile => 3,
    }
}

impl Limits {
    /// The given limits, each defaulting to this machine's (half its memory; the passes shifr
    /// writes).
    pub fn new(memory: Option<u64>, passes: Option<u32>) -> Limits {
        Limits {
            memory: memory.unwrap_or_else(default_memory),
            passes: passes.unwrap_or_else(default_passes),
            machine_default: memory.is_none(),
        }
    }

    /// Refuses a KDF that asks for more than these limits.
    pub fn check(&self, kdf: Kdf) -> Result<(), TooCostly> {
        let Kdf::Argon2id { m_kib, t, p } = kdf else {
            return Ok(());
        };
        let memory = u64::from(m_kib) << 10;
        if memory <= self.memory && t <= self.passes {
            return Ok(());
        }
        Err(TooCostly {
            memory,
            t,
            p,
            limits: *self,
        })
    }
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
            e.contains("m = 4 GiB, t = 64, p = 64") && e.contains("m <= 1 GiB, t <= 3"),
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
    fn what_shifr_writes_passes_the_machine_default() {
        let machine = Limits::new(None, None);
        assert!(machine.machine_default);
        assert!(machine.memory >= 64 << 20, "{machine:?}");
        assert_eq!(machine.check(Kdf::DEFAULT_ARGON2ID), Ok(()));
        assert_eq!(machine.check(Kdf::KeyFile), Ok(()));
        let e = Limits::new(Some(1 << 20), None)
            .check(Kdf::Argon2id {
                m_kib: 2048,
                t: 1,
                p: 1,
            })
            .unwrap_err();
        assert!(!e.to_string().contains("half of this machine"), "{e}");
    }
}
