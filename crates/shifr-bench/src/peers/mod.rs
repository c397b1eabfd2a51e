//! The implementations shifr is measured against, in the same process and interleaved with it:
//! OpenSSL's libcrypto (through the `openssl` crate), OpenSSL's GOST engine for Magma, Kuznyechik
//! and GOST 28147-89, and the RustCrypto crates.
//!
//! Peers measure encryption only (and MAC computation); a peer that does not offer an algorithm, or
//! is not installed, is reported with the reason and never stops the run.
//!
//! The peers in C libraries are Cargo features of this crate (`peer-openssl`: OpenSSL and its GOST
//! engine); a build without one has no variant for it, and [`parse_list`] names the missing feature
//! when it is asked for ([`left_out`]). The RustCrypto peer is pure Rust and always present.

#[cfg(feature = "peer-openssl")]
mod evp;
#[cfg(feature = "peer-openssl")]
mod openssl;
#[cfg(feature = "peer-openssl")]
mod openssl_gost;
mod rustcrypto;

use crate::workload::{Direction, Op, Sequential, Workload};
use crate::BenchError;

/// A peer implementation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Peer {
    /// OpenSSL's libcrypto, default provider.
    #[cfg(feature = "peer-openssl")]
    OpenSsl,
    /// OpenSSL with the GOST engine (libengine-gost-openssl).
    #[cfg(feature = "peer-openssl")]
    OpenSslGost,
    /// The RustCrypto crates.
    RustCrypto,
}

impl Peer {
    /// Every peer of this build, in report order.
    pub const ALL: &'static [Peer] = &[
        #[cfg(feature = "peer-openssl")]
        Peer::OpenSsl,
        #[cfg(feature = "peer-openssl")]
        Peer::OpenSslGost,
        Peer::RustCrypto,
    ];

    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            #[cfg(feature = "peer-openssl")]
            Peer::OpenSsl => "openssl",
            #[cfg(feature = "peer-openssl")]
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

    /// Whether the peer is meant for this algorithm at all (the GOST engine only for the GOST
    /// ciphers); a peer that is meant for it but lacks it gets a note instead.
    pub fn applies(self, _alg: &shifr::catalog::AlgInfo) -> bool {
        match self {
            #[cfg(feature = "peer-openssl")]
            Peer::OpenSslGost => openssl_gost::is_gost(_alg),
            #[cfg(feature = "peer-openssl")]
            Peer::OpenSsl => true,
            Peer::RustCrypto => true,
        }
    }

    /// Whether the peer can run at all here (the GOST engine loads, ...), or why not.
    pub fn available(self) -> Result<(), String> {
        match self {
            #[cfg(feature = "peer-openssl")]
            Peer::OpenSslGost => openssl_gost::engine().map(|_| ()),
            #[cfg(feature = "peer-openssl")]
            Peer::OpenSsl => Ok(()),
            Peer::RustCrypto => Ok(()),
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
                #[cfg(feature = "peer-openssl")]
                Peer::OpenSsl => openssl::op(w.alg, stream),
                #[cfg(feature = "peer-openssl")]
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

/// The peers this build leaves out: each name with the Cargo feature of this crate that adds it.
const LEFT_OUT: &[(&str, &str)] = &[
    #[cfg(not(feature = "peer-openssl"))]
    ("openssl", "peer-openssl"),
    #[cfg(not(feature = "peer-openssl"))]
    ("openssl-gost", "peer-openssl"),
];

/// The Cargo feature (of this crate) a peer name needs when this build leaves that peer out;
/// `None` for a peer that is in the build or a name that is no peer at all.
pub fn left_out(name: &str) -> Option<&'static str> {
    LEFT_OUT
        .iter()
        .find(|(peer, _)| peer.eq_ignore_ascii_case(name.trim()))
        .map(|&(_, feature)| feature)
}

/// Parses `openssl,rustcrypto` / `none` / `all` (every peer of this build).
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
        if let Some(feature) = left_out(name) {
            return Err(format!(
                "peer '{}' is not in this build (it needs the `{feature}` feature of shifr-bench)",
                name.trim()
            ));
        }
        let p = Peer::from_name(name).ok_or_else(|| {
            let known: Vec<&str> = Peer::ALL.iter().map(|p| p.name()).collect();
            format!(
                "unknown peer '{}' ({}, all, none)",
                name.trim(),
                known.join(", ")
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
            parse_list("rustcrypto, RustCrypto").unwrap(),
            vec![Peer::RustCrypto]
        );
        assert!(parse_list("boringssl").is_err());
        assert_eq!(left_out("boringssl"), None);
        assert_eq!(left_out("rustcrypto"), None);
    }

    #[cfg(feature = "peer-openssl")]
    #[test]
    fn openssl_peers_are_in_this_build() {
        assert_eq!(
            parse_list("rustcrypto, openssl,rustcrypto").unwrap(),
            vec![Peer::RustCrypto, Peer::OpenSsl]
        );
        assert_eq!(parse_list("openssl-gost").unwrap(), vec![Peer::OpenSslGost]);
        assert_eq!(left_out("openssl"), None);
    }

    /// A peer compiled out is refused with the feature that adds it, not taken for a typo.
    #[cfg(not(feature = "peer-openssl"))]
    #[test]
    fn openssl_peers_are_left_out_with_their_feature() {
        assert_eq!(Peer::ALL, &[Peer::RustCrypto]);
        for name in ["openssl", "OpenSSL-GOST"] {
            assert_eq!(left_out(name), Some("peer-openssl"));
            let e = parse_list(&format!("rustcrypto,{name}")).unwrap_err();
            assert!(e.contains("`peer-openssl`"), "{e}");
        }
    }
}
