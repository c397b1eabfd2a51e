//! The implementations shifr is measured against, in the same process and interleaved with it:
//! OpenSSL's libcrypto (through the `openssl` crate), OpenSSL's GOST engine for Magma, Kuznyechik
//! and GOST 28147-89, AWS-LC (through `aws-lc-rs`, Cargo feature `peer-aws-lc`), `ring` (Cargo
//! feature `peer-ring`) and the RustCrypto crates.
//!
//! Peers measure encryption and decryption ([`crate::workload::Direction`]), each the way its users
//! call it, keyed once and in place: ciphers decrypt with the library's decrypting context or mode
//! type (feedback modes continue their chain across messages, as in encryption); AEADs open one
//! sealed message per call, the ciphertext copied into the buffer first (`aead_open`, the same
//! work as shifr's side); MACs compute the tag in either direction. A peer that does not offer an
//! algorithm, or is not installed, is reported with the reason and never stops the run.
//!
//! The peers in C libraries are Cargo features of this crate (`peer-openssl`: OpenSSL and its GOST
//! engine; `peer-aws-lc`; `peer-ring`); a build without one has no variant for it, and [`parse_list`]
//! names the missing feature when it is asked for ([`left_out`]). The RustCrypto peer is pure Rust and
//! always present.

/// The AEAD op of a peer with ring's `aead` API (ring itself, and aws-lc-rs, which mirrors it): a
/// `Seal` keyed once that seals one whole message in place per call (nonce, the 13-byte AAD,
/// encryption, tag), and opens one through `aead_open::Open` for decryption. Expanded in the
/// peer's module, where `aead`, `Aad`, `LessSafeKey`, `Nonce` and `UnboundKey` are that library's,
/// `$algorithm` maps a catalogue name to its AEAD and `open_separate_tag` opens a buffer in place
/// against a separate tag with the library's own call.
#[cfg(any(feature = "peer-aws-lc", feature = "peer-ring"))]
macro_rules! ring_api_seal {
    ($algorithm:ident, $lib:literal, $backend:literal) => {
        /// A keyed AEAD sealing one whole message per call.
        pub(crate) struct Seal {
            key: LessSafeKey,
            nonce: [u8; aead::NONCE_LEN],
        }

        impl Seal {
            pub(crate) fn new(alg: &AlgInfo, stream: usize) -> Result<Seal, String> {
                let a = $algorithm(alg.name)
                    .ok_or_else(|| format!(concat!($lib, " has no {}"), alg.name))?;
                let key = UnboundKey::new(a, &bench_key(alg.key_len, stream))
                    .map_err(|_| format!(concat!($lib, " refused the {} key"), alg.name))?;
                let nonce = bench_iv(alg.iv.default_len(), stream)
                    .try_into()
                    .map_err(|_| {
                        format!(
                            concat!("{}: ", $lib, " takes {}-byte nonces only"),
                            alg.name,
                            aead::NONCE_LEN
                        )
                    })?;
                Ok(Seal {
                    key: LessSafeKey::new(key),
                    nonce,
                })
            }

            /// Encrypts `buf` in place and returns the tag.
            pub(crate) fn seal(&self, buf: &mut [u8]) -> Result<aead::Tag, BenchError> {
                self.key
                    .seal_in_place_separate_tag(
                        Nonce::assume_unique_for_key(self.nonce),
                        Aad::from(bench_aad()),
                        buf,
                    )
                    .map_err(|_| {
                        BenchError::Unsupported(concat!($lib, " refused the message").into())
                    })
            }
        }

        impl Op for Seal {
            fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
                let _tag = std::hint::black_box(self.seal(buf)?);
                Ok(())
            }

            fn backend(&self) -> String {
                $backend.into()
            }
        }

        impl super::aead_open::SealOpen for Seal {
            fn seal_message(&mut self, buf: &mut [u8]) -> Result<Vec<u8>, BenchError> {
                Ok(self.seal(buf)?.as_ref().to_vec())
            }

            fn open_message(&mut self, buf: &mut [u8], tag: &[u8]) -> Result<(), BenchError> {
                let nonce = Nonce::assume_unique_for_key(self.nonce);
                if open_separate_tag(&self.key, nonce, tag, buf) {
                    Ok(())
                } else {
                    Err(super::aead_open::rejected($lib))
                }
            }

            fn backend(&self) -> String {
                $backend.into()
            }
        }
    };
}

mod aead_open;
#[cfg(feature = "peer-aws-lc")]
mod aws_lc;
#[cfg(feature = "peer-openssl")]
mod evp;
#[cfg(feature = "peer-openssl")]
mod openssl;
#[cfg(feature = "peer-openssl")]
mod openssl_gost;
#[cfg(feature = "peer-ring")]
mod ring_peer;
mod rustcrypto;
mod rustcrypto_aead;

use crate::workload::{Op, Sequential, Workload};
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
    /// AWS-LC through `aws-lc-rs` (AES-GCM, ChaCha20-Poly1305, AES ECB/CBC/CFB/CTR).
    #[cfg(feature = "peer-aws-lc")]
    AwsLc,
    /// `ring` (AES-128/256-GCM, ChaCha20-Poly1305).
    #[cfg(feature = "peer-ring")]
    Ring,
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
        #[cfg(feature = "peer-aws-lc")]
        Peer::AwsLc,
        #[cfg(feature = "peer-ring")]
        Peer::Ring,
        Peer::RustCrypto,
    ];

    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            #[cfg(feature = "peer-openssl")]
            Peer::OpenSsl => "openssl",
            #[cfg(feature = "peer-openssl")]
            Peer::OpenSslGost => "openssl-gost",
            #[cfg(feature = "peer-aws-lc")]
            Peer::AwsLc => "aws-lc",
            #[cfg(feature = "peer-ring")]
            Peer::Ring => "ring",
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
    /// ciphers, AWS-LC and ring only for what they offer); a peer that is meant for it but lacks it
    /// gets a note instead.
    #[allow(unused_variables)] // `alg` is unused in a build with no C peer
    pub fn applies(self, alg: &shifr::catalog::AlgInfo) -> bool {
        match self {
            #[cfg(feature = "peer-openssl")]
            Peer::OpenSslGost => openssl_gost::is_gost(alg),
            #[cfg(feature = "peer-aws-lc")]
            Peer::AwsLc => aws_lc::offers(alg),
            #[cfg(feature = "peer-ring")]
            Peer::Ring => ring_peer::offers(alg),
            #[cfg(feature = "peer-openssl")]
            Peer::OpenSsl => true,
            Peer::RustCrypto => true,
        }
    }

    /// Whether the peer can run at all here (the GOST engine loads, ...), or why not.
    pub fn available(self) -> Result<(), String> {
        match self {
            #[cfg(feature = "peer-openssl")]
            Peer::OpenSsl => Ok(()),
            #[cfg(feature = "peer-openssl")]
            Peer::OpenSslGost => openssl_gost::engine().map(|_| ()),
            #[cfg(feature = "peer-aws-lc")]
            Peer::AwsLc => Ok(()),
            #[cfg(feature = "peer-ring")]
            Peer::Ring => Ok(()),
            Peer::RustCrypto => Ok(()),
        }
    }

    /// The peer's op for one thread of `w` (all of its streams), or why it has none.
    pub fn op(self, w: &Workload) -> Result<Box<dyn Op>, BenchError> {
        let one = |stream: usize| -> Result<Box<dyn Op>, BenchError> {
            match self {
                #[cfg(feature = "peer-openssl")]
                Peer::OpenSsl => openssl::op(w.alg, stream, w.direction),
                #[cfg(feature = "peer-openssl")]
                Peer::OpenSslGost => openssl_gost::op(w.alg, stream, w.direction),
                #[cfg(feature = "peer-aws-lc")]
                Peer::AwsLc => aws_lc::op(w.alg, stream, w.direction),
                #[cfg(feature = "peer-ring")]
                Peer::Ring => ring_peer::op(w.alg, stream, w.direction),
                Peer::RustCrypto => rustcrypto::op(w.alg, stream, w.direction),
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

/// The names of every peer this build has, comma-separated.
pub fn names() -> String {
    Peer::ALL
        .iter()
        .map(|p| p.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The peers this build leaves out: each name with the Cargo feature of this crate that adds it.
const LEFT_OUT: &[(&str, &str)] = &[
    #[cfg(not(feature = "peer-openssl"))]
    ("openssl", "peer-openssl"),
    #[cfg(not(feature = "peer-openssl"))]
    ("openssl-gost", "peer-openssl"),
    #[cfg(not(feature = "peer-aws-lc"))]
    ("aws-lc", "peer-aws-lc"),
    #[cfg(not(feature = "peer-ring"))]
    ("ring", "peer-ring"),
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
        let p = Peer::from_name(name)
            .ok_or_else(|| format!("unknown peer '{}' ({}, all, none)", name.trim(), names()))?;
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
        for name in ["openssl", "OpenSSL-GOST"] {
            assert_eq!(left_out(name), Some("peer-openssl"));
            let e = parse_list(&format!("rustcrypto,{name}")).unwrap_err();
            assert!(e.contains("`peer-openssl`"), "{e}");
        }
    }
}

/// Differential checks: each of these peers' first message equals shifr's catalogue call with the
/// same key, IV / nonce and AAD (ciphertext and tag), so a peer row is known to do the real work.
#[cfg(all(test, any(feature = "peer-aws-lc", feature = "peer-ring")))]
mod differential {
    use crate::workload::Workload;
    use shifr::catalog::{self, AlgInfo, Kind};

    /// shifr's one-shot encryption of `input` with stream 0's key and IV: (ciphertext, tag).
    fn shifr_output(alg: &AlgInfo, input: &[u8]) -> (Vec<u8>, Vec<u8>) {
        let out = crate::workload::one_shot(alg, input);
        (out.data, out.tag)
    }

    fn input(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 11 + 7) as u8).collect()
    }

    const AEADS: [&str; 3] = ["aes-128-gcm", "aes-256-gcm", "chacha20-poly1305"];

    #[cfg(feature = "peer-aws-lc")]
    #[test]
    fn aws_lc_equals_shifr() {
        let mut checked = 0;
        for alg in catalog::all() {
            if !super::aws_lc::offers(alg) {
                continue;
            }
            for len in [16usize, 64, 1040] {
                let input = input(len);
                let (data, tag) = shifr_output(alg, &input);
                let mut ours = input.clone();
                if alg.kind == Kind::Aead {
                    let seal = super::aws_lc::Seal::new(alg, 0).unwrap();
                    let got = seal.seal(&mut ours).unwrap();
                    assert_eq!(got.as_ref(), &tag[..], "{} tag at {len}", alg.name);
                } else {
                    let mut op = super::Peer::AwsLc.op(&Workload::new(alg, len)).unwrap();
                    op.run(&mut ours).unwrap();
                }
                assert_eq!(ours, data, "{} at {len} bytes", alg.name);
                checked += 1;
            }
        }
        for name in AEADS
            .iter()
            .chain(&["aes-128-ctr", "aes-256-ecb", "aes-192-cbc"])
        {
            assert!(
                super::aws_lc::offers(catalog::lookup(name).unwrap()),
                "{name}"
            );
        }
        assert!(checked >= 3 * 12, "{checked} cases");
    }

    #[cfg(feature = "peer-ring")]
    #[test]
    fn ring_equals_shifr() {
        for name in AEADS {
            let alg = catalog::lookup(name).unwrap();
            assert!(super::ring_peer::offers(alg));
            for len in [16usize, 64, 1040] {
                let input = input(len);
                let (data, tag) = shifr_output(alg, &input);
                let mut ours = input.clone();
                let seal = super::ring_peer::Seal::new(alg, 0).unwrap();
                let got = seal.seal(&mut ours).unwrap();
                assert_eq!(ours, data, "{name} at {len} bytes");
                assert_eq!(got.as_ref(), &tag[..], "{name} tag at {len}");
                // The op the runner measures does the same work.
                let mut via_op = input.clone();
                super::Peer::Ring
                    .op(&Workload::new(alg, len))
                    .unwrap()
                    .run(&mut via_op)
                    .unwrap();
                assert_eq!(via_op, data, "{name} op at {len} bytes");
            }
        }
        assert!(!super::ring_peer::offers(
            catalog::lookup("aes-128-ctr").unwrap()
        ));
    }
}

#[cfg(test)]
mod decrypt_checks;
