//! The backend plan of one primitive on this CPU: which backend runs bulk work, which runs short
//! messages (and up to how many bytes), and which runs a single-stream feedback chain — and why.
//!
//! Sources, strongest first: a backend forced by `SHIFR_BACKEND` (every kind of work on it); a
//! calibration installed from `shifr tune` for this very CPU ([`super::calibration`]); the table of
//! choices measured per micro-architecture ([`super::table`]); the preference order of
//! [`Backend::ALL`] with each primitive's built-in short-message rule. Every backend of a primitive
//! produces the same bytes, so the plan changes speed only, never a result; and it is fixed when a
//! key is set up, so no timing is taken on the data path.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use super::{best, calibration, forced, microarch, table, Backend};

/// The primitives whose backends are chosen by a plan (in [`Primitive::ALL`] order: the
/// discriminant indexes the plan cache).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Primitive {
    /// AES (FIPS 197), all key sizes.
    Aes,
    /// Triple DES (its bitsliced path's word width).
    Tdes,
    /// Magma and GOST 28147-89.
    Magma,
    /// Kuznyechik.
    Kuznyechik,
    /// The ChaCha20 key stream.
    ChaCha20,
}

impl Primitive {
    /// Every primitive with a plan.
    pub const ALL: &'static [Primitive] = &[
        Primitive::Aes,
        Primitive::Tdes,
        Primitive::Magma,
        Primitive::Kuznyechik,
        Primitive::ChaCha20,
    ];

    /// The name in `shifr list` and in the calibration file.
    pub fn name(self) -> &'static str {
        match self {
            Primitive::Aes => "aes",
            Primitive::Tdes => "3des",
            Primitive::Magma => "magma",
            Primitive::Kuznyechik => "kuznyechik",
            Primitive::ChaCha20 => "chacha20",
        }
    }

    /// Parses [`Primitive::name`].
    pub fn from_name(name: &str) -> Option<Primitive> {
        Primitive::ALL.iter().copied().find(|p| p.name() == name)
    }

    /// The kinds of work whose backend the primitive's keys take from the plan; other work runs
    /// on the bulk backend (AES chains, for one, run the AES-NI chain kernels on every x86
    /// backend).
    pub fn works(self) -> &'static [Work] {
        match self {
            Primitive::Aes | Primitive::Tdes => &[Work::Bulk, Work::Short],
            Primitive::Magma => &[Work::Bulk, Work::Short, Work::Chain],
            Primitive::Kuznyechik | Primitive::ChaCha20 => &[Work::Bulk],
        }
    }
}

/// The kinds of work a plan distinguishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Work {
    /// Many independent blocks (ECB, CTR, CBC decryption, multi-stream lanes), long messages.
    Bulk,
    /// A message of at most [`Plan::short_max`] bytes.
    Short,
    /// A single-stream feedback chain (CBC/CFB encryption, OFB, CBC-MAC), one block at a time.
    Chain,
}

impl Work {
    /// Every kind of work.
    pub const ALL: &'static [Work] = &[Work::Bulk, Work::Short, Work::Chain];

    /// The name in `shifr list` and in the calibration file.
    pub fn name(self) -> &'static str {
        match self {
            Work::Bulk => "bulk",
            Work::Short => "short",
            Work::Chain => "chain",
        }
    }

    /// Parses [`Work::name`].
    pub fn from_name(name: &str) -> Option<Work> {
        Work::ALL.iter().copied().find(|w| w.name() == name)
    }
}

/// Where a plan came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// `SHIFR_BACKEND` or an explicit `with_backend`.
    Forced,
    /// `shifr tune`'s measurement on this CPU.
    Calibrated,
    /// The table of measured choices for this micro-architecture.
    Table(microarch::Microarch),
    /// No measured entry: the fastest backend in preference order.
    Preference,
}

impl Reason {
    /// One phrase for `shifr list`.
    pub fn describe(self) -> String {
        match self {
            Reason::Forced => "forced (SHIFR_BACKEND)".into(),
            Reason::Calibrated => "calibrated (shifr tune)".into(),
            Reason::Table(m) => format!("table ({})", m.name()),
            Reason::Preference => "preference order".into(),
        }
    }
}

/// The backends of one primitive's keys on this CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Bulk work: the backend the key is built for.
    pub bulk: Backend,
    /// Messages (calls) of at most `short_max` bytes.
    pub short: Backend,
    /// The longest call that takes `short` (0: none does).
    pub short_max: usize,
    /// Single-stream feedback chains.
    pub chain: Backend,
    /// Where the plan came from (the strongest source that set any of its fields).
    pub reason: Reason,
}

impl Plan {
    /// Everything on `backend` (a forced backend, or an explicit `with_backend`).
    pub fn forced(backend: Backend) -> Plan {
        Plan {
            bulk: backend,
            short: backend,
            short_max: 0,
            chain: backend,
            reason: Reason::Forced,
        }
    }

    /// The backend for work of kind `work`.
    pub fn backend(&self, work: Work) -> Backend {
        match work {
            Work::Bulk => self.bulk,
            Work::Short => self.short,
            Work::Chain => self.chain,
        }
    }

    /// The backend for a call on `len` bytes of parallel work.
    #[inline]
    pub fn for_len(&self, len: usize) -> Backend {
        if len <= self.short_max {
            self.short
        } else {
            self.bulk
        }
    }

    /// Sets `work` to `backend` when the primitive offers it and this CPU runs it; `limit` is the
    /// short-message bound for [`Work::Short`].
    fn set(&mut self, work: Work, backend: Backend, limit: usize, offered: &[Backend]) -> bool {
        if !usable(backend, offered) {
            return false;
        }
        match work {
            Work::Bulk => self.bulk = backend,
            Work::Short => {
                self.short = backend;
                self.short_max = limit;
            }
            Work::Chain => self.chain = backend,
        }
        true
    }
}

/// One measured choice: for `primitive`, work of kind `work` runs on `backend` (for
/// [`Work::Short`]: calls of at most `short_max` bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// Whose choice.
    pub primitive: Primitive,
    /// For which work.
    pub work: Work,
    /// The backend that measured fastest.
    pub backend: Backend,
    /// For short messages: the longest call that takes `backend`.
    pub short_max: usize,
}

fn usable(backend: Backend, offered: &[Backend]) -> bool {
    backend == Backend::Portable || (offered.contains(&backend) && backend.is_supported())
}

/// Set once a plan has been made: a calibration installed after that would not apply to every
/// key, so [`calibration::install`] refuses it.
static PLANNED: AtomicBool = AtomicBool::new(false);

/// Whether any plan has been made in this process.
pub(crate) fn planned() -> bool {
    PLANNED.load(Ordering::Acquire)
}

/// The plan for `primitive`, which offers `offered` besides the portable backend, on this CPU:
/// made on first use and kept for the process (the CPU, `SHIFR_BACKEND` and the calibration do
/// not change; a primitive always offers the same backends on one CPU), so a key setup pays one
/// load for it.
pub fn plan(primitive: Primitive, offered: &[Backend]) -> Plan {
    static PLANS: [OnceLock<Plan>; Primitive::ALL.len()] =
        [const { OnceLock::new() }; Primitive::ALL.len()];
    *PLANS[primitive as usize].get_or_init(|| {
        PLANNED.store(true, Ordering::Release);
        if let Some(b) = forced() {
            if usable(b, offered) {
                return Plan::forced(b);
            }
        }
        resolve(
            primitive,
            offered,
            table::entries(microarch::microarch()),
            calibration::installed(),
            microarch::microarch(),
        )
    })
}

/// The plan from the preference order, then `table` (this micro-architecture's entries), then
/// `calibrated` (this CPU's measurement), each overriding the one before; kept apart from the
/// detection so that tests can give any table and calibration.
pub fn resolve(
    primitive: Primitive,
    offered: &[Backend],
    table: &[Entry],
    calibrated: &[Entry],
    arch: microarch::Microarch,
) -> Plan {
    let bulk = best(offered);
    let (short, short_max) = default_short(primitive, bulk, offered);
    let mut plan = Plan {
        bulk,
        short,
        short_max,
        chain: bulk,
        reason: Reason::Preference,
    };
    for (entries, reason) in [
        (table, Reason::Table(arch)),
        (calibrated, Reason::Calibrated),
    ] {
        for e in entries.iter().filter(|e| e.primitive == primitive) {
            if plan.set(e.work, e.backend, e.short_max, offered) {
                plan.reason = reason;
            }
        }
    }
    plan
}

/// Each primitive's built-in rule for short calls, true on every CPU: AES on a VAES backend takes
/// the 128-bit AES-NI instructions for less than one 512-bit register (a wide call would first
/// broadcast every round key to a wide register).
fn default_short(primitive: Primitive, bulk: Backend, offered: &[Backend]) -> (Backend, usize) {
    match (primitive, bulk) {
        (Primitive::Aes, Backend::Vaes | Backend::Avx512) if usable(Backend::AesNi, offered) => {
            (Backend::AesNi, 63)
        }
        _ => (bulk, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::microarch::Microarch;
    use super::*;

    const AES: &[Backend] = &[Backend::AesNi, Backend::Vaes, Backend::Avx512];

    fn entry(primitive: Primitive, work: Work, backend: Backend, short_max: usize) -> Entry {
        Entry {
            primitive,
            work,
            backend,
            short_max,
        }
    }

    #[test]
    fn preference_without_entries() {
        let p = resolve(Primitive::Magma, &[], &[], &[], Microarch::Other);
        assert_eq!(p.bulk, Backend::Portable);
        assert_eq!(p.chain, Backend::Portable);
        assert_eq!(p.short_max, 0);
        assert_eq!(p.reason, Reason::Preference);
        assert_eq!(p.for_len(64), Backend::Portable);
    }

    #[test]
    fn table_then_calibration_override_in_order() {
        // Entries name the portable backend, which every CPU runs, so the test holds everywhere.
        let table = [entry(Primitive::Magma, Work::Chain, Backend::Portable, 0)];
        let p = resolve(Primitive::Magma, &[], &table, &[], Microarch::Zen4);
        assert_eq!(p.chain, Backend::Portable);
        assert_eq!(p.reason, Reason::Table(Microarch::Zen4));

        let calibrated = [entry(Primitive::Magma, Work::Short, Backend::Portable, 512)];
        let p = resolve(Primitive::Magma, &[], &table, &calibrated, Microarch::Zen4);
        assert_eq!((p.short, p.short_max), (Backend::Portable, 512));
        assert_eq!(p.reason, Reason::Calibrated);
        assert_eq!(p.for_len(512), Backend::Portable);
    }

    #[test]
    fn entries_of_other_primitives_and_unusable_backends_are_ignored() {
        let table = [
            entry(Primitive::Aes, Work::Chain, Backend::Portable, 0),
            // Magma never offers AES-NI: the entry cannot apply.
            entry(Primitive::Magma, Work::Bulk, Backend::AesNi, 0),
        ];
        let p = resolve(Primitive::Magma, &[], &table, &[], Microarch::Zen4);
        assert_eq!(p.reason, Reason::Preference);
        assert_eq!(p.bulk, Backend::Portable);
    }

    #[test]
    fn aes_short_rule_follows_the_bulk_backend() {
        let p = resolve(Primitive::Aes, AES, &[], &[], Microarch::Other);
        if p.bulk == Backend::Avx512 || p.bulk == Backend::Vaes {
            assert_eq!((p.short, p.short_max), (Backend::AesNi, 63));
        } else {
            assert_eq!(p.short_max, 0);
            assert_eq!(p.short, p.bulk);
        }
    }

    #[test]
    fn forced_plan_runs_everything_on_one_backend() {
        let p = Plan::forced(Backend::Portable);
        for &w in Work::ALL {
            assert_eq!(p.backend(w), Backend::Portable);
        }
        assert_eq!(p.for_len(1), Backend::Portable);
        assert_eq!(p.reason, Reason::Forced);
    }

    #[test]
    fn all_lists_every_primitive_in_discriminant_order() {
        for (i, &p) in Primitive::ALL.iter().enumerate() {
            assert_eq!(p as usize, i);
        }
    }

    #[test]
    fn names_round_trip() {
        for &p in Primitive::ALL {
            assert_eq!(Primitive::from_name(p.name()), Some(p));
        }
        for &w in Work::ALL {
            assert_eq!(Work::from_name(w.name()), Some(w));
        }
    }
}
