//! Which Magma / GOST 28147-89 kernel runs: chosen once per key from the CPU's plan
//! ([`crate::cpu::plan`]: the bulk kernel, and whether single-stream chains take the portable
//! rounds instead), so `SHIFR_BACKEND` forces any of them; or required explicitly with
//! `with_backend`.

#[cfg(target_arch = "x86_64")]
use crate::block::Feedback;
use crate::cpu::{self, Backend, Primitive, Reason};
use crate::{Error, Result};

#[cfg(target_arch = "x86_64")]
use super::{nibble::NibbleTables, soft::Layout, x86_avx2::Avx2, x86_avx512::Avx512Vbmi};

/// The backend of one key: the portable table code or a SIMD backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kernel {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Simd(Simd),
    /// Eight blocks per pass with the S-boxes in NEON registers (`aarch64_neon`); it has no
    /// multi-stream kernel, so multi-stream calls run it one block at a time.
    #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
    Neon,
}

/// An x86-64 SIMD backend with a multi-stream kernel; holding one proves the CPU supports it.
#[cfg(target_arch = "x86_64")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Simd {
    #[cfg(target_arch = "x86_64")]
    Avx2(Avx2),
    #[cfg(target_arch = "x86_64")]
    Avx512(Avx512Vbmi),
}

/// The most lanes any SIMD backend takes in one `lanes` call.
#[cfg(target_arch = "x86_64")]
pub(crate) const MAX_LANES: usize = 32;

#[cfg(target_arch = "x86_64")]
const _: () =
    assert!(super::x86_avx2::MAX_LANES <= MAX_LANES && super::x86_avx512::MAX_LANES <= MAX_LANES);

/// The SIMD backends Magma offers on this CPU (its AVX-512 backend needs VBMI).
#[cfg(target_arch = "x86_64")]
fn offered() -> &'static [Backend] {
    if cpu::features().avx512vbmi {
        &[Backend::Avx2, Backend::Avx512]
    } else {
        &[Backend::Avx2]
    }
}

/// NEON is part of the AArch64 baseline; the backend needs the little-endian lane layout.
#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
fn offered() -> &'static [Backend] {
    &[Backend::Neon]
}

#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "aarch64", target_endian = "little")
)))]
fn offered() -> &'static [Backend] {
    &[]
}

/// Whether single-stream chains stay on `backend` rather than go to the portable rounds.
/// - AVX-512: it has a one-lane chain (`x86_avx512_chain`), the fastest path on every size.
/// - AVX2: no; a chain would call it one block at a time, each call a whole 16-block pass for one
///   live block, and it loses to the portable rounds by 2x (magma-cbc 16 KiB on AMD Zen 4: AVX2
///   44 MB/s, portable 90).
/// - NEON: yes, although its block calls have the same shape (an eight-block pass per block:
///   magma-cbc executes 185 instructions per byte under QEMU against the portable rounds' 99).
///   On AArch64 the default is the constant-time backend, as for Kuznyechik; the portable
///   rounds read secret-indexed tables. `SHIFR_BACKEND=portable` takes them.
fn chains_stay_on(backend: Backend) -> bool {
    matches!(backend, Backend::Avx512 | Backend::Neon)
}

/// `plan` with single-stream chains on the portable rounds where they do not stay on its chain
/// backend ([`chains_stay_on`]), unless the plan is forced (a forced backend runs everything,
/// chains included, as `with_backend` does).
fn with_chain_rule(mut plan: cpu::Plan) -> cpu::Plan {
    if plan.reason != Reason::Forced && !chains_stay_on(plan.chain) {
        plan.chain = Backend::Portable;
    }
    plan
}

impl Kernel {
    /// The CPU's plan for Magma ([`cpu::plan`]), with Magma's chain rule applied
    /// ([`with_chain_rule`]), so that `shifr list` names the backend chains really run on.
    pub(crate) fn plan() -> cpu::Plan {
        with_chain_rule(cpu::plan(Primitive::Magma, offered()))
    }

    /// The plan's bulk kernel; whether single-stream chains run on the portable rounds (the
    /// plan's chain backend is portable, or chains do not stay on the kernel: [`chains_stay_on`]);
    /// and the longest block call that runs on the portable rounds instead of the kernel (the
    /// plan's short calls, when they are portable; 0: none). A forced backend runs everything,
    /// chains and short calls included, on its own kernel, as `with_backend`.
    pub(crate) fn planned() -> (Kernel, bool, usize) {
        let plan = Kernel::plan();
        let kernel = Kernel::build(plan.bulk).unwrap_or(Kernel::Portable);
        let chain_portable = match plan.reason {
            Reason::Forced => kernel == Kernel::Portable,
            _ => plan.chain == Backend::Portable || !chains_stay_on(kernel.backend()),
        };
        let short_portable_max = match plan.short {
            Backend::Portable if plan.reason != Reason::Forced => plan.short_max,
            _ => 0,
        };
        (kernel, chain_portable, short_portable_max)
    }

    /// Exactly `backend`; [`Error::BackendUnavailable`] if Magma or this CPU lacks it.
    pub(crate) fn with_backend(backend: Backend) -> Result<Kernel> {
        let backend = cpu::require(backend, offered())?;
        Kernel::build(backend).ok_or(Error::BackendUnavailable(backend.name()))
    }

    fn build(backend: Backend) -> Option<Kernel> {
        match backend {
            Backend::Portable => Some(Kernel::Portable),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => Avx2::new().map(|b| Kernel::Simd(Simd::Avx2(b))),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => Avx512Vbmi::new().map(|b| Kernel::Simd(Simd::Avx512(b))),
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Backend::Neon => Some(Kernel::Neon),
            _ => None,
        }
    }

    pub(crate) fn backend(self) -> Backend {
        match self {
            Kernel::Portable => Backend::Portable,
            #[cfg(target_arch = "x86_64")]
            Kernel::Simd(s) => s.backend(),
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Kernel::Neon => Backend::Neon,
        }
    }
}

#[cfg(target_arch = "x86_64")]
impl Simd {
    fn backend(self) -> Backend {
        match self {
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2(_) => Backend::Avx2,
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512(_) => Backend::Avx512,
        }
    }

    /// How many lanes one [`Simd::lanes`] call takes (at most [`MAX_LANES`]).
    pub(crate) fn max_lanes(self) -> usize {
        match self {
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2(_) => super::x86_avx2::MAX_LANES,
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512(_) => super::x86_avx512::MAX_LANES,
        }
    }

    /// Every whole block of `data` under one key (its eight key words).
    pub(crate) fn blocks(
        self,
        words: &[u32; 8],
        tables: &NibbleTables,
        layout: Layout,
        decrypt: bool,
        data: &mut [u8],
    ) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2(b) => b.blocks(words, tables, layout, decrypt, data),
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512(b) => b.blocks(words, tables, layout, decrypt, data),
        }
    }

    /// The multi-stream feedback kernel ([`crate::block::BlockCipher::feedback_lanes`]) where this
    /// backend has one (AVX-512); false, touching nothing, otherwise.
    pub(crate) fn feedback(
        self,
        keys: &[&[u32; 8]],
        tables: &NibbleTables,
        layout: Layout,
        registers: &mut [u8],
        run: Feedback<'_, '_>,
    ) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2(_) => false,
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512(b) => b.feedback(keys, tables, layout, registers, run),
        }
    }

    /// CTR in one pass ([`crate::block::BlockCipher::ctr_xor`]) where this backend has it
    /// (AVX-512); false, touching nothing, otherwise.
    pub(crate) fn ctr_xor(
        self,
        words: &[u32; 8],
        tables: &NibbleTables,
        layout: Layout,
        counter: &mut [u8; 8],
        data: &mut [u8],
    ) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2(_) => false,
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512(b) => {
                b.ctr_xor(words, tables, layout, counter, data);
                true
            }
        }
    }

    /// Block `i` of `blocks` under `keys[i]`, for `i < keys.len() <= self.max_lanes()`.
    pub(crate) fn lanes(
        self,
        keys: &[&[u32; 8]],
        tables: &NibbleTables,
        layout: Layout,
        decrypt: bool,
        blocks: &mut [u8],
    ) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2(b) => b.lanes(keys, tables, layout, decrypt, blocks),
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512(b) => b.lanes(keys, tables, layout, decrypt, blocks),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::{Microarch, Plan};

    fn plan(bulk: Backend, chain: Backend, reason: Reason) -> Plan {
        Plan {
            chain,
            reason,
            ..Plan::forced(bulk)
        }
    }

    /// Chains stay on AVX-512 (its one-lane chain), on NEON (constant-time on AArch64) and on a
    /// forced backend, and go to the portable rounds from every other planned backend; the
    /// other fields are left alone.
    #[test]
    fn the_chain_rule_moves_only_planned_avx2_chains() {
        use Backend::{Avx2, Avx512, Neon, Portable};
        use Reason::{Calibrated, Forced, Preference};
        let table = Reason::Table(Microarch::Zen4);
        // (bulk, chain, reason) -> chain
        let cases = [
            (Avx512, Avx512, Preference, Avx512),
            (Avx512, Avx512, Calibrated, Avx512),
            (Avx512, Portable, table, Portable),
            (Avx2, Avx2, Preference, Portable),
            (Avx512, Avx2, Calibrated, Portable),
            (Neon, Neon, Preference, Neon),
            (Avx2, Avx2, Forced, Avx2),
            (Neon, Neon, Forced, Neon),
        ];
        for (bulk, chain, reason, expected) in cases {
            let given = plan(bulk, chain, reason);
            let got = with_chain_rule(given);
            assert_eq!(got.chain, expected, "{given:?}");
            assert_eq!(Plan { chain, ..got }, given, "{given:?}");
        }
    }
}
