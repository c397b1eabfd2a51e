//! The implementations shifr is measured against, in the same process and interleaved with it:
//! OpenSSL's libcrypto (through the `openssl` crate), OpenSSL's GOST engine for Magma, Kuznyechik
//! and GOST 28147-89, and the RustCrypto crates.
//!
//! Peers measure encryption only (and MAC computation); a peer that does not offer an algorithm, or
//! is not installed, is reported with the reason and never stops the run.

mod evp;
mod openssl;
mod openssl_gost;
mod rustcrypto;

use crate::workload::{Direction, Op, Sequential, Workload};
use crate::BenchError;

/// A peer implementation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Peer {
    /// OpenSSL's libcrypto, default provider.
    OpenSsl,
    /// OpenSSL with the GOST engine (libengine-gost-openssl).
    OpenSslGost,
    /// The RustCrypto crates.
    RustCrypto,
}

impl Peer {
    /// Every peer, in report order.
    pub const ALL: &'static [Peer] = &[Peer::OpenSsl, Peer::OpenSslGost, Peer::RustCrypto];

    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Peer::OpenSsl => "openssl",
            Peer::OpenSslGost => "openssl-gost",
            Peer::RustCrypto => "rustcrypto",
        }
    }

    /// Parses a peer name (case-insensitive).
    pub fn from_name(name: &str) -> Option<Peer> {
        Peer::ALL
            .iter()
            .copied()
            .find(|p| p.name().eq_ignore_ascii_case(name.trim()))
    }

    /// Whether the peer can run at all here (the GOST engine loads, ...), or why not.
    pub fn available(self) -> Result<(), String> {
        match self {
            Peer::OpenSsl | Peer::RustCrypto => Ok(()),
            Peer::OpenSslGost => openssl_gost::engine().map(|_| ()),
        }
    }

    /// The peer's op for one thread of `w` (all of its streams), or why it has none.
    pub fn op(self, w: &Workload) -> Result<Box<dyn Op>, BenchError> {
        if w.direction != Direction::Encrypt {
            return Err(BenchError::Unsupported(
                "peers are measured for encryption only".into(),
            ));
        }
        let one = |stream: usize| -> Result<Box<dyn Op>, BenchError> {
            match self {
                Peer::OpenSsl => openssl::op(w.alg, stream),
                Peer::OpenSslGost => openssl_gost::op(w.alg, stream),
                Peer::RustCrypto => rustcrypto::op(w.alg, stream),
            }
            .map_err(BenchError::Unsupported)
        };
        if w.streams == 1 {
            return one(0);
        }
        let ops = (0..w.streams).map(one).collect::<Result<Vec<_>, _>>()?;
        Ok(Box::new(Sequential::new(ops, w.alg.block_size.max(1))))
    }
}

/// Parses `openssl,rustcrypto` / `none` / `all`.
pub fn parse_list(list: &str) -> Result<Vec<Peer>, String> {
    let list = list.trim();
    if list.eq_ignore_ascii_case("none") || list.is_empty() {
        return Ok(Vec::new());
    }
    if list.eq_ignore_ascii_case("all") {
        return Ok(Peer::ALL.to_vec());
    }
    let mut peers = Vec::new();
    for name in list.split(',') {
        let p = Peer::from_name(name).ok_or_else(|| {
            format!(
                "unknown peer '{}' (openssl, openssl-gost, rustcrypto, none)",
                name.trim()
            )
        })?;
        if !peers.contains(&p) {
            peers.push(p);
        }
    }
    Ok(peers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peer_lists_parse() {
        assert_eq!(parse_list("none").unwrap(), vec![]);
        assert_eq!(parse_list("all").unwrap(), Peer::ALL.to_vec());
        assert_eq!(
            parse_list("rustcrypto, openssl,rustcrypto").unwrap(),
            vec![Peer::RustCrypto, Peer::OpenSsl]
        );
        assert!(parse_list("boringssl").is_err());
    }
}
