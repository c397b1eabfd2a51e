//! Which processor this is, from CPUID's vendor, family and model: the key of the table of measured
//! backend choices (`super::table`). Two CPUs with the same instruction sets can want different
//! backends (Zen 4 splits 512-bit instructions into two 256-bit halves, so 512-bit VAES, which wins
//! on an Intel core from 64-byte calls, loses there to 256-bit VAES up to 384 bytes); the feature
//! flags alone cannot tell them apart.

use std::sync::OnceLock;

/// The CPU's vendor, as CPUID leaf 0 names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vendor {
    /// `GenuineIntel`.
    Intel,
    /// `AuthenticAMD` (and Hygon's `HygonGenuine`, a Zen derivative).
    Amd,
    /// Anything else, or a CPU without CPUID (every non-x86 target).
    Other,
}

/// Vendor, display family and display model (base family + extended family, extended model
/// prepended, as the vendors' manuals define them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuId {
    /// Who made it.
    pub vendor: Vendor,
    /// Display family (e.g. 25 = 0x19 for AMD Zen 3 and Zen 4, 6 for Intel Core and Xeon).
    pub family: u32,
    /// Display model.
    pub model: u32,
}

/// The micro-architectures the backend choice knows by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Microarch {
    /// AMD family 17h: Zen, Zen+, Zen 2 (AVX2, AES-NI; no AVX-512, no VAES).
    Zen2,
    /// AMD family 19h outside the Zen 4 models (AVX2, VAES on 256 bits; no AVX-512).
    Zen3,
    /// AMD family 19h, models 10h-1Fh, 60h-7Fh, A0h-AFh (Genoa, Raphael, Phoenix, Bergamo):
    /// AVX-512 executed as two 256-bit halves, VAES, GFNI.
    Zen4,
    /// AMD family 1Ah: full-width AVX-512.
    Zen5,
    /// Intel Xeon / Core with AVX-512 (Skylake-SP and later server cores, Ice Lake, Tiger Lake).
    IntelAvx512,
    /// Intel cores without AVX-512 (Haswell to Raptor Lake client cores).
    IntelAvx2,
    /// Anything else: an unknown x86 model, or an ARM / other core.
    Other,
}

impl Microarch {
    /// A short name for `shifr list` and the calibration file.
    pub fn name(self) -> &'static str {
        match self {
            Microarch::Zen2 => "AMD Zen 1-2",
            Microarch::Zen3 => "AMD Zen 3",
            Microarch::Zen4 => "AMD Zen 4",
            Microarch::Zen5 => "AMD Zen 5",
            Microarch::IntelAvx512 => "Intel with AVX-512",
            Microarch::IntelAvx2 => "Intel without AVX-512",
            Microarch::Other => "other",
        }
    }

    /// The micro-architecture of `id`; `avx512` says whether the CPU reports AVX-512 (which
    /// separates Intel's server and client cores more reliably than a list of model numbers).
    pub fn identify(id: CpuId, avx512: bool) -> Microarch {
        match (id.vendor, id.family) {
            (Vendor::Amd, 0x17) => Microarch::Zen2,
            (Vendor::Amd, 0x19) => match id.model {
                0x10..=0x1f | 0x60..=0x7f | 0xa0..=0xaf => Microarch::Zen4,
                _ => Microarch::Zen3,
            },
            (Vendor::Amd, 0x1a) => Microarch::Zen5,
            (Vendor::Intel, 6) if avx512 => Microarch::IntelAvx512,
            (Vendor::Intel, 6) => Microarch::IntelAvx2,
            _ => Microarch::Other,
        }
    }
}

/// This CPU's vendor, family and model (detected once).
pub fn cpu_id() -> CpuId {
    static ID: OnceLock<CpuId> = OnceLock::new();
    *ID.get_or_init(detect)
}

/// This CPU's micro-architecture (detected once).
pub fn microarch() -> Microarch {
    let f = super::features();
    Microarch::identify(cpu_id(), f.avx512f && f.avx512bw && f.avx512vl)
}

#[cfg(target_arch = "x86_64")]
fn detect() -> CpuId {
    use core::arch::x86_64::__cpuid;
    let vendor_leaf = __cpuid(0);
    let mut vendor = [0u8; 12];
    vendor[..4].copy_from_slice(&vendor_leaf.ebx.to_le_bytes());
    vendor[4..8].copy_from_slice(&vendor_leaf.edx.to_le_bytes());
    vendor[8..].copy_from_slice(&vendor_leaf.ecx.to_le_bytes());
    let vendor = match &vendor {
        b"GenuineIntel" => Vendor::Intel,
        b"AuthenticAMD" | b"HygonGenuine" => Vendor::Amd,
        _ => Vendor::Other,
    };
    let (family, model) = display_family_model(__cpuid(1).eax);
    CpuId {
        vendor,
        family,
        model,
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn detect() -> CpuId {
    CpuId {
        vendor: Vendor::Other,
        family: 0,
        model: 0,
    }
}

/// Display family and model from CPUID leaf 1's EAX: the extended family is added when the base
/// family is 0Fh; the extended model is prepended when the base family is 06h or 0Fh.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) fn display_family_model(eax: u32) -> (u32, u32) {
    let base_family = (eax >> 8) & 0xf;
    let base_model = (eax >> 4) & 0xf;
    let ext_family = (eax >> 20) & 0xff;
    let ext_model = (eax >> 16) & 0xf;
    let family = if base_family == 0xf {
        base_family + ext_family
    } else {
        base_family
    };
    let model = if base_family == 0x6 || base_family == 0xf {
        (ext_model << 4) | base_model
    } else {
        base_model
    };
    (family, model)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn amd(family: u32, model: u32) -> CpuId {
        CpuId {
            vendor: Vendor::Amd,
            family,
            model,
        }
    }

    #[test]
    fn family_and_model_from_eax() {
        // AMD EPYC 9004 (Genoa): family 19h model 11h, stepping 1 -> EAX 00A10F11.
        assert_eq!(display_family_model(0x00a1_0f11), (0x19, 0x11));
        // Intel Xeon Sapphire Rapids: family 6 model 8Fh -> EAX 000806F8.
        assert_eq!(display_family_model(0x0008_06f8), (6, 0x8f));
        // AMD Zen 2 (Rome): family 17h model 31h -> EAX 00830F10.
        assert_eq!(display_family_model(0x0083_0f10), (0x17, 0x31));
    }

    #[test]
    fn zen_generations() {
        assert_eq!(Microarch::identify(amd(0x19, 0x11), true), Microarch::Zen4);
        assert_eq!(Microarch::identify(amd(0x19, 0x61), true), Microarch::Zen4);
        assert_eq!(Microarch::identify(amd(0x19, 0x01), false), Microarch::Zen3);
        assert_eq!(Microarch::identify(amd(0x19, 0x21), false), Microarch::Zen3);
        assert_eq!(Microarch::identify(amd(0x17, 0x31), false), Microarch::Zen2);
        assert_eq!(Microarch::identify(amd(0x1a, 0x02), true), Microarch::Zen5);
    }

    #[test]
    fn intel_by_avx512() {
        let xeon = CpuId {
            vendor: Vendor::Intel,
            family: 6,
            model: 0x8f,
        };
        assert_eq!(Microarch::identify(xeon, true), Microarch::IntelAvx512);
        assert_eq!(Microarch::identify(xeon, false), Microarch::IntelAvx2);
        let other = CpuId {
            vendor: Vendor::Other,
            family: 0,
            model: 0,
        };
        assert_eq!(Microarch::identify(other, true), Microarch::Other);
    }
}
