//! Energy from Intel/AMD RAPL through Linux powercap (`/sys/class/powercap/intel-rapl:N/energy_uj`):
//! the package domains' cumulative energy counters, read before and after a measurement.
//!
//! RAPL counts the whole package (every core, whatever else runs) and is absent on most virtual
//! machines, and `energy_uj` is readable by root only on kernels since 2020; when it cannot be read,
//! [`EnergyMeter::open`] gives the reason that the reports print in place of the number.

use std::fs;
use std::path::{Path, PathBuf};

const POWERCAP: &str = "/sys/class/powercap";

/// One RAPL package domain.
#[derive(Debug, Clone)]
struct Domain {
    energy: PathBuf,
    /// The counter wraps at this many microjoules.
    range_uj: u64,
}

/// The package energy counters of the machine.
#[derive(Debug, Clone)]
pub struct EnergyMeter {
    domains: Vec<Domain>,
}

/// A reading of every domain, in microjoules.
#[derive(Debug, Clone)]
pub struct Reading(Vec<u64>);

impl EnergyMeter {
    /// Finds the package domains under `/sys/class/powercap`, or says why energy is not available.
    pub fn open() -> Result<EnergyMeter, String> {
        EnergyMeter::open_at(Path::new(POWERCAP))
    }

    /// [`EnergyMeter::open`] with another powercap root (for tests).
    pub fn open_at(root: &Path) -> Result<EnergyMeter, String> {
        let entries = fs::read_dir(root).map_err(|_| {
            format!(
                "no RAPL: {} is missing (virtual machine or no powercap driver)",
                root.display()
            )
        })?;
        let mut domains = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            // Package domains are intel-rapl:N (AMD uses the same driver); intel-rapl:N:M are sub-domains.
            let is_package = name
                .strip_prefix("intel-rapl:")
                .is_some_and(|n| !n.contains(':'));
            if !is_package {
                continue;
            }
            let dir = entry.path();
            let energy = dir.join("energy_uj");
            let range_uj = fs::read_to_string(dir.join("max_energy_range_uj"))
                .ok()
                .and_then(|s| s.trim().parse().ok())
                .unwrap_or(u64::MAX);
            if let Err(e) = fs::read_to_string(&energy) {
                return Err(format!(
                    "RAPL present but {} is not readable ({e}; root only on recent kernels)",
                    energy.display()
                ));
            }
            domains.push(Domain { energy, range_uj });
        }
        if domains.is_empty() {
            return Err(format!("no RAPL package domain under {}", root.display()));
        }
        Ok(EnergyMeter { domains })
    }

    /// Reads every domain.
    pub fn read(&self) -> Reading {
        Reading(
            self.domains
                .iter()
                .map(|d| {
                    fs::read_to_string(&d.energy)
                        .ok()
                        .and_then(|s| s.trim().parse().ok())
                        .unwrap_or(0)
                })
                .collect(),
        )
    }

    /// Joules consumed between two readings (each counter's wrap-around handled).
    pub fn joules_between(&self, before: &Reading, after: &Reading) -> f64 {
        let uj: u64 = self
            .domains
            .iter()
            .zip(before.0.iter().zip(&after.0))
            .map(|(d, (&b, &a))| {
                if a >= b {
                    a - b
                } else {
                    d.range_uj.saturating_sub(b).saturating_add(a)
                }
            })
            .sum();
        uj as f64 * 1e-6
    }
}

/// Joules per 10^9 bytes.
pub fn joules_per_gb(joules: f64, bytes: f64) -> f64 {
    if bytes > 0.0 {
        joules / (bytes / 1e9)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_powercap_gives_a_reason() {
        let reason = EnergyMeter::open_at(Path::new("/nonexistent/powercap")).unwrap_err();
        assert!(reason.contains("no RAPL"), "{reason}");
    }

    #[test]
    fn reads_a_fake_powercap_tree_and_handles_wrap_around() {
        let root = std::env::temp_dir().join(format!("shifr-bench-rapl-{}", std::process::id()));
        let pkg = root.join("intel-rapl:0");
        fs::create_dir_all(pkg.join("x")).unwrap();
        fs::create_dir_all(root.join("intel-rapl:0:0")).unwrap();
        fs::write(pkg.join("energy_uj"), "999000000\n").unwrap();
        fs::write(pkg.join("max_energy_range_uj"), "1000000000\n").unwrap();
        let meter = EnergyMeter::open_at(&root).unwrap();
        let before = meter.read();
        fs::write(pkg.join("energy_uj"), "1000000\n").unwrap();
        let after = meter.read();
        // 1 J to the wrap point plus 1 J after it.
        assert!((meter.joules_between(&before, &after) - 2.0).abs() < 1e-9);
        fs::remove_dir_all(&root).unwrap();
        assert_eq!(joules_per_gb(2.0, 5e8), 4.0);
    }
}
