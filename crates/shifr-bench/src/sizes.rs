//! Message sizes on the command line: `16`, `64`, `8K`, `1M` (K = 1024, M = 1024^2).

/// The default sizes, those the summary answers from ([`crate::summary::sizes`]): 64 B (short
/// messages), 1 KiB and 16 KiB (TLS records), 1 MiB (bulk files).
pub const DEFAULT: &[usize] = &[64, 1024, 16384, 1 << 20];

/// The `--quick` sizes: a small and a large message.
pub const QUICK: &[usize] = &[64, 16384];

/// The largest message size: each row holds a few buffers of it (a rotation for small sizes, input
/// and output), so this keeps a run within a few GiB of memory.
pub const MAX: usize = 1 << 30;

/// Parses one size with an optional K, M or G suffix (binary multiples), 1 byte to [`MAX`]: the
/// size grammar of every shifr option (`shifr_input::number_arg::bytes_in`).
pub fn parse(s: &str) -> Result<usize, String> {
    shifr_input::number_arg::bytes_in(s, 1, MAX as u64)
        .map(|bytes| bytes as usize)
        .map_err(|e| format!("bad size: {e}"))
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
        assert!(parse("18446744073709551615").is_err());
        assert!(parse("17179869184K").is_err());
        assert_eq!(parse("1024M").unwrap(), MAX);
        assert!(parse("1025M").is_err());
        assert_eq!(human(16384), "16 KiB");
        assert_eq!(human(1000), "1000 B");
    }
}
