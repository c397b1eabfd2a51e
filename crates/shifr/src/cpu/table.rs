//! Backend choices measured per micro-architecture, where the preference order of
//! [`super::Backend::ALL`] (widest registers first) is not the fastest. Each entry cites the
//! measurement that decided it: `shifr bench --full --peers none --backend B` for every backend on
//! an idle machine of that micro-architecture (docs/ALGORITHMS.md, "Backend choice per CPU").
//! A micro-architecture without entries runs the preference order, which is what the backends
//! were tuned for on Intel cores with AVX-512.

use super::microarch::Microarch;
use super::plan::{Entry, Primitive, Work};
use super::Backend;

/// The measured choices for `arch` (empty where none differ from the preference order).
pub fn entries(arch: Microarch) -> &'static [Entry] {
    match arch {
        Microarch::Zen4 => ZEN4,
        _ => &[],
    }
}

/// AMD Zen 4 (EPYC 9004, family 19h model 11h; 2 threads, idle): AVX-512 instructions run as two
/// 256-bit halves, so the kernels that win on Intel by keeping one lane in 512-bit registers, or by
/// filling a 512-lane batch, lose where the work is narrow.
const ZEN4: &[Entry] = &[
    // aes-128-ecb: 256-bit VAES / 512-bit VAES / AES-NI, MB/s: 64 B 5,640 / 2,490 / 4,938;
    // 256 B 17,754 / 11,666 / 9,403; 384 B 16,891 / 13,492 / 9,841; 512 B 20,511 / 20,244 /
    // 10,058; 1 KiB 20,801 / 22,130 / 10,487. Calls below 64 B take AES-NI on every CPU.
    Entry {
        primitive: Primitive::Aes,
        work: Work::Short,
        backend: Backend::Vaes,
        short_max: 384,
    },
    // des-ede3-ctr 1 KiB: AVX2 (256-lane batch) 143 MB/s, AVX-512 (512-lane batch) 108; 2 KiB:
    // 286 / 212; 3 KiB: 216 / 311; 16 KiB: 283 / 413. A 512-lane batch costs 1.4 AVX2 batches
    // here, so up to one AVX2 batch (256 blocks = 2 KiB) the narrower width wins.
    Entry {
        primitive: Primitive::Tdes,
        work: Work::Short,
        backend: Backend::Avx2,
        short_max: 2048,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_names_a_backend_its_primitive_has() {
        let offers = |p: Primitive, b: Backend| match p {
            Primitive::Aes => matches!(b, Backend::AesNi | Backend::Vaes | Backend::Avx512),
            Primitive::Tdes => matches!(b, Backend::Avx2 | Backend::Avx512),
            Primitive::Magma => matches!(b, Backend::Avx2 | Backend::Avx512),
            Primitive::Kuznyechik => matches!(b, Backend::Avx2 | Backend::Gfni),
            Primitive::ChaCha20 => matches!(b, Backend::Sse2 | Backend::Avx2 | Backend::Avx512),
        };
        for e in ZEN4 {
            assert!(
                e.backend == Backend::Portable || offers(e.primitive, e.backend),
                "{e:?}"
            );
            assert_eq!(e.work == Work::Short, e.short_max > 0, "{e:?}");
        }
    }

    #[test]
    fn only_measured_architectures_have_entries() {
        assert!(!entries(Microarch::Zen4).is_empty());
        for arch in [Microarch::IntelAvx512, Microarch::Other, Microarch::Zen3] {
            assert!(entries(arch).is_empty());
        }
    }
}
