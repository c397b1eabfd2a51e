//! Numeric option values with their ranges. Every numeric option of the tool goes through one of
//! these (as a clap `value_parser`), so that an out-of-range value gets one line naming the range
//! instead of a panic, an abort or an hour-long run.

/// Most worker threads a command starts: far above any machine's useful count, far below what
/// exhausts the process's thread or memory limits.
pub const MAX_THREADS: usize = 1024;

/// Lowest `--cpu-limit`: below a tenth of a percent a run would last days and the throttle's sleeps
/// would no longer be representable.
pub const MIN_CPU_PERCENT: f64 = 0.1;

/// `--threads N`: a whole number in `1..=MAX_THREADS`.
pub fn threads(s: &str) -> Result<usize, String> {
    whole_in(s, 1, MAX_THREADS as u64).map(|n| n as usize)
}

/// A whole number in `min..=max`.
pub fn whole_in(s: &str, min: u64, max: u64) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!("'{s}' is not a whole number from {min} to {max}")),
    }
}

/// `--cpu-limit PCT`: a percentage from [`MIN_CPU_PERCENT`] to 100.
pub fn cpu_percent(s: &str) -> Result<f64, String> {
    decimal_in(s, MIN_CPU_PERCENT, 100.0)
}

/// A finite decimal number in `min..=max`.
pub fn decimal_in(s: &str, min: f64, max: f64) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && (min..=max).contains(&x) => Ok(x),
        _ => Err(format!("'{s}' is not a number from {min} to {max}")),
    }
}

/// A byte count with an optional binary suffix K, M, G or T (and optional `B`/`iB`: `64M`,
/// `64MiB`, `1G`), in `min..=max` bytes.
pub fn bytes_in(s: &str, min: u64, max: u64) -> Result<u64, String> {
    let bad = || {
        format!(
            "'{s}' is not a size from {} to {} (a number with an optional K, M, G or T suffix)",
            human(min),
            human(max)
        )
    };
    let t = s.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(t);
    let (digits, shift) = match t.chars().last() {
        Some('k' | 'K') => (&t[..t.len() - 1], 10),
        Some('m' | 'M') => (&t[..t.len() - 1], 20),
        Some('g' | 'G') => (&t[..t.len() - 1], 30),
        Some('t' | 'T') => (&t[..t.len() - 1], 40),
        _ => (t, 0),
    };
    let n: u64 = digits.parse().map_err(|_| bad())?;
    let bytes = n.checked_mul(1 << shift).ok_or_else(bad)?;
    if (min..=max).contains(&bytes) {
        Ok(bytes)
    } else {
        Err(bad())
    }
}

/// `1 GiB`, `64 MiB`, `1024 B`.
pub fn human(bytes: u64) -> String {
    for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if bytes >= 1 << shift && bytes.is_multiple_of(1 << shift) {
            return format!("{} {unit}", bytes >> shift);
        }
    }
    format!("{bytes} B")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts() {
        assert_eq!(threads("4"), Ok(4));
        assert_eq!(threads("1024"), Ok(1024));
        for bad in ["0", "1025", "100000", "-1", "x", "", "18446744073709551616"] {
            let e = threads(bad).unwrap_err();
            assert!(e.contains("from 1 to 1024"), "{e}");
        }
    }

    #[test]
    fn percentages() {
        assert_eq!(cpu_percent("15"), Ok(15.0));
        assert_eq!(cpu_percent("100"), Ok(100.0));
        for bad in [
            "0", "1e-300", "5e-324", "0.05", "100.5", "NaN", "inf", "-3", "x",
        ] {
            assert!(cpu_percent(bad).is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn byte_sizes() {
        let max = 1 << 40;
        assert_eq!(bytes_in("64M", 1, max), Ok(64 << 20));
        assert_eq!(bytes_in("64MiB", 1, max), Ok(64 << 20));
        assert_eq!(bytes_in("2G", 1, max), Ok(2 << 30));
        assert_eq!(bytes_in("4096", 1, max), Ok(4096));
        for bad in [
            "0",
            "18446744073709551615",
            "17179869184K",
            "2T",
            "x",
            "1.5G",
            "",
        ] {
            assert!(bytes_in(bad, 1, max).is_err(), "{bad} accepted");
        }
        assert_eq!(human(1 << 30), "1 GiB");
        assert_eq!(human(1000), "1000 B");
    }
}
