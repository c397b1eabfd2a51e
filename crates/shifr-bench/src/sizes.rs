//! Message sizes on the command line: `16`, `64`, `8K`, `1M` (K = 1024, M = 1024^2).

/// The default sizes, those the summary answers from ([`crate::summary::sizes`]): 64 B (short
/// messages), 1 KiB and 16 KiB (TLS records), 1 MiB (bulk files).
pub const DEFAULT: &[usize] = &[64, 1024, 16384, 1 << 20];

/// The `--quick` sizes: a small and a large message.
pub const QUICK: &[usize] = &[64, 16384];

/// Parses one size with an optional K or M suffix (binary multiples).
pub fn parse(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let (digits, mult) = match t.chars().last() {
        Some('k' | 'K') => (&t[..t.len() - 1], 1024usize),
        Some('m' | 'M') => (&t[..t.len() - 1], 1 << 20),
        _ => (t, 1),
    };
    let n: usize = digits
        .parse()
        .map_err(|_| format!("bad size '{s}' (a number with optional K or M suffix)"))?;
    n.checked_mul(mult)
        .filter(|&b| b > 0)
        .ok_or_else(|| format!("bad size '{s}' (must be at least 1 byte)"))
}

/// Parses a comma-separated list of sizes.
pub fn parse_list(list: &str) -> Result<Vec<usize>, String> {
    list.split(',').map(parse).collect()
}

/// `16 B`, `8 KiB`, `1 MiB`, `1000 B`.
pub fn human(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1024 && bytes.is_multiple_of(1024) {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes() {
        assert_eq!(parse("16").unwrap(), 16);
        assert_eq!(parse("8K").unwrap(), 8192);
        assert_eq!(parse("1m").unwrap(), 1 << 20);
        assert_eq!(parse_list("16,1K").unwrap(), vec![16, 1024]);
        assert!(parse("0").is_err());
        assert!(parse("x").is_err());
        assert!(parse("99999999999999999999M").is_err());
        assert_eq!(human(16384), "16 KiB");
        assert_eq!(human(1000), "1000 B");
    }
}
