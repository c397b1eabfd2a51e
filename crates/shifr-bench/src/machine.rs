//! What a report says about the machine it was measured on: the processor and the shifr backends it
//! supports.

use shifr::cpu::Backend;

/// The backends this CPU supports, by name.
pub fn supported_backends() -> String {
    Backend::ALL
        .iter()
        .filter(|b| b.is_supported())
        .map(|b| b.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The processor's model name from /proc/cpuinfo, or the architecture.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}
