//! Random bytes from the operating system (getrandom(2)): salts, nonce prefixes, keys, temp names.

use anyhow::{anyhow, Result};

/// `N` random bytes.
pub fn bytes<const N: usize>() -> Result<[u8; N]> {
    let mut out = [0u8; N];
    getrandom::getrandom(&mut out)
        .map_err(|e| anyhow!("the system random generator failed: {e}"))?;
    Ok(out)
}
