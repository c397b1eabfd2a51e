//! What one measurement runs: which server TLS stack, with or without AES instructions, which TLS
//! version and cipher, over which HTTP version.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The server's TLS implementation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
pub enum Engine {
    /// OpenSSL (libssl through the openssl crate), the seed's own stack; the only one with AES-CBC.
    OpenSsl,
    /// rustls with its default `ring` crypto provider.
    RustlsRing,
    /// rustls with [`crate::provider`]: record protection by shifr's AEADs.
    RustlsShifr,
}

impl Engine {
    /// Every engine.
    pub const ALL: [Engine; 3] = [Engine::OpenSsl, Engine::RustlsRing, Engine::RustlsShifr];

    /// Command-line and report name.
    pub fn name(self) -> &'static str {
        match self {
            Engine::OpenSsl => "openssl",
            Engine::RustlsRing => "rustls-ring",
            Engine::RustlsShifr => "rustls-shifr",
        }
    }

    /// Parses [`Engine::name`].
    pub fn from_name(name: &str) -> Option<Engine> {
        Engine::ALL.into_iter().find(|e| e.name() == name)
    }

    /// Whether the server of this engine can run with its AES instructions switched off: OpenSSL
    /// through `OPENSSL_ia32cap`, shifr through `SHIFR_BACKEND=portable`; ring offers no switch.
    pub fn can_disable_aes(self) -> bool {
        !matches!(self, Engine::RustlsRing)
    }

    /// HTTP versions this study runs on the engine: the OpenSSL server speaks HTTP/1.1 only (it is a
    /// small blocking responder; HTTP/2 over AES-CBC is forbidden anyway, RFC 7540 section 9.2.2).
    pub fn http_versions(self) -> &'static [Http] {
        match self {
            Engine::OpenSsl => &[Http::H1],
            _ => &[Http::H1, Http::H2],
        }
    }
}

/// Whether the server may use the CPU's AES instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
pub enum Aes {
    /// The CPU's AES (and carry-less multiply) instructions where the stack has a path for them.
    Hardware,
    /// AES instructions switched off for the server process (see [`Engine::can_disable_aes`]).
    Disabled,
}

impl Aes {
    /// Report name.
    pub fn name(self) -> &'static str {
        match self {
            Aes::Hardware => "AES instructions",
            Aes::Disabled => "no AES instructions",
        }
    }
}

/// TLS protocol version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
pub enum TlsVersion {
    /// TLS 1.2 (RFC 5246), ECDHE-ECDSA suites.
    Tls12,
    /// TLS 1.3 (RFC 8446).
    Tls13,
}

impl TlsVersion {
    /// Report name.
    pub fn name(self) -> &'static str {
        match self {
            TlsVersion::Tls12 => "TLS 1.2",
            TlsVersion::Tls13 => "TLS 1.3",
        }
    }

    /// Short name for `--combos` (`1.2`, `1.3`).
    pub fn short(self) -> &'static str {
        match self {
            TlsVersion::Tls12 => "1.2",
            TlsVersion::Tls13 => "1.3",
        }
    }
}

/// The record-protection cipher, in the seed's column order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
pub enum Cipher {
    /// ChaCha20-Poly1305 (RFC 8439 / RFC 7905).
    ChaCha20,
    /// AES-128-GCM.
    Aes128Gcm,
    /// AES-256-GCM.
    Aes256Gcm,
    /// AES-128-CBC with HMAC-SHA256 (TLS 1.2 only).
    Aes128Cbc,
    /// AES-256-CBC with HMAC-SHA384 (TLS 1.2 only).
    Aes256Cbc,
}

impl Cipher {
    /// Every cipher, in the seed's column order.
    pub const ALL: [Cipher; 5] = [
        Cipher::ChaCha20,
        Cipher::Aes128Gcm,
        Cipher::Aes256Gcm,
        Cipher::Aes128Cbc,
        Cipher::Aes256Cbc,
    ];

    /// The seed's column name.
    pub fn name(self) -> &'static str {
        match self {
            Cipher::ChaCha20 => "ChaCha20",
            Cipher::Aes128Gcm => "AES-128-GCM",
            Cipher::Aes256Gcm => "AES-256-GCM",
            Cipher::Aes128Cbc => "AES-128-CBC",
            Cipher::Aes256Cbc => "AES-256-CBC",
        }
    }

    /// Parses [`Cipher::name`] case-insensitively (`chacha20`, `aes-128-gcm`, ...).
    pub fn from_name(name: &str) -> Option<Cipher> {
        Cipher::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(name))
    }

    /// Whether the cipher exists in TLS 1.3 (CBC suites do not).
    pub fn in_tls13(self) -> bool {
        !self.is_cbc()
    }

    /// Whether this is a CBC + HMAC suite (OpenSSL only here).
    pub fn is_cbc(self) -> bool {
        matches!(self, Cipher::Aes128Cbc | Cipher::Aes256Cbc)
    }

    /// Whether the cipher is AES (as opposed to ChaCha20).
    pub fn is_aes(self) -> bool {
        self != Cipher::ChaCha20
    }

    /// The IANA suite name in `version` with an ECDSA certificate.
    pub fn iana(self, version: TlsVersion) -> &'static str {
        match (version, self) {
            (TlsVersion::Tls13, Cipher::ChaCha20) => "TLS_CHACHA20_POLY1305_SHA256",
            (TlsVersion::Tls13, Cipher::Aes128Gcm) => "TLS_AES_128_GCM_SHA256",
            (TlsVersion::Tls13, _) => "TLS_AES_256_GCM_SHA384",
            (TlsVersion::Tls12, Cipher::ChaCha20) => {
                "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"
            }
            (TlsVersion::Tls12, Cipher::Aes128Gcm) => "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
            (TlsVersion::Tls12, Cipher::Aes256Gcm) => "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
            (TlsVersion::Tls12, Cipher::Aes128Cbc) => "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
            (TlsVersion::Tls12, Cipher::Aes256Cbc) => "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384",
        }
    }

    /// OpenSSL's name: a TLS 1.2 cipher-list entry or a TLS 1.3 ciphersuite.
    pub fn openssl(self, version: TlsVersion) -> &'static str {
        match (version, self) {
            (TlsVersion::Tls13, _) => self.iana(version),
            (TlsVersion::Tls12, Cipher::ChaCha20) => "ECDHE-ECDSA-CHACHA20-POLY1305",
            (TlsVersion::Tls12, Cipher::Aes128Gcm) => "ECDHE-ECDSA-AES128-GCM-SHA256",
            (TlsVersion::Tls12, Cipher::Aes256Gcm) => "ECDHE-ECDSA-AES256-GCM-SHA384",
            (TlsVersion::Tls12, Cipher::Aes128Cbc) => "ECDHE-ECDSA-AES128-SHA256",
            (TlsVersion::Tls12, Cipher::Aes256Cbc) => "ECDHE-ECDSA-AES256-SHA384",
        }
    }
}

/// HTTP version, chosen by ALPN.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
pub enum Http {
    /// HTTP/1.1 over TLS ("HTTPS" in the seed), ALPN `http/1.1`.
    H1,
    /// HTTP/2, ALPN `h2`.
    H2,
}

impl Http {
    /// Report name.
    pub fn name(self) -> &'static str {
        match self {
            Http::H1 => "HTTP/1.1",
            Http::H2 => "HTTP/2",
        }
    }

    /// Short name for `--combos` (`h1`, `h2`).
    pub fn short(self) -> &'static str {
        match self {
            Http::H1 => "h1",
            Http::H2 => "h2",
        }
    }

    /// The ALPN protocol id.
    pub fn alpn(self) -> &'static [u8] {
        match self {
            Http::H1 => b"http/1.1",
            Http::H2 => b"h2",
        }
    }
}

/// One measured combination.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
pub struct Combo {
    /// Server TLS stack.
    pub engine: Engine,
    /// Whether the server may use AES instructions.
    pub aes: Aes,
    /// TLS version.
    pub version: TlsVersion,
    /// Cipher.
    pub cipher: Cipher,
    /// HTTP version.
    pub http: Http,
}

impl Combo {
    /// Whether the combination exists: CBC only in TLS 1.2 and only in OpenSSL, the HTTP versions
    /// the engine serves, and AES switched off only where the engine can do it.
    pub fn is_valid(&self) -> bool {
        (self.version == TlsVersion::Tls12 || self.cipher.in_tls13())
            && (!self.cipher.is_cbc() || self.engine == Engine::OpenSsl)
            && self.engine.http_versions().contains(&self.http)
            && (self.aes == Aes::Hardware || self.engine.can_disable_aes())
    }

    /// Every valid combination, engines first, then AES mode, version, cipher and HTTP version.
    pub fn all() -> Vec<Combo> {
        let mut out = Vec::new();
        for engine in Engine::ALL {
            for aes in [Aes::Hardware, Aes::Disabled] {
                for version in [TlsVersion::Tls12, TlsVersion::Tls13] {
                    for cipher in Cipher::ALL {
                        for http in [Http::H1, Http::H2] {
                            let c = Combo {
                                engine,
                                aes,
                                version,
                                cipher,
                                http,
                            };
                            if c.is_valid() {
                                out.push(c);
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// The tiny set for tests: one combination per TLS version and HTTP version, spread over the
    /// three engines and both AES modes so that every server path runs.
    pub fn tiny() -> Vec<Combo> {
        let c = |engine, aes, version, cipher, http| Combo {
            engine,
            aes,
            version,
            cipher,
            http,
        };
        use {Aes::*, Cipher::*, Engine::*, Http::*, TlsVersion::*};
        vec![
            c(RustlsShifr, Hardware, Tls13, ChaCha20, H1),
            c(RustlsShifr, Disabled, Tls13, Aes128Gcm, H2),
            c(RustlsRing, Hardware, Tls12, Aes256Gcm, H2),
            c(OpenSsl, Disabled, Tls12, Aes128Cbc, H1),
        ]
    }

    /// The label used in tables and `--combos`: `rustls-shifr/no-aes/1.3/ChaCha20/h2`.
    pub fn label(&self) -> String {
        format!(
            "{}/{}/{}/{}/{}",
            self.engine.name(),
            match self.aes {
                Aes::Hardware => "aes",
                Aes::Disabled => "no-aes",
            },
            self.version.short(),
            self.cipher.name(),
            self.http.short()
        )
    }

    /// Whether the combination matches a `--combos` filter term: `/`-separated parts, each of which
    /// must equal one of the label's parts (case-insensitive), e.g. `shifr`-less terms like
    /// `1.3/h2` or `rustls-shifr/ChaCha20`.
    pub fn matches(&self, term: &str) -> bool {
        let label = self.label().to_ascii_lowercase();
        let parts: Vec<&str> = label.split('/').collect();
        term.split('/')
            .map(|p| p.trim().to_ascii_lowercase())
            .filter(|p| !p.is_empty())
            .all(|p| parts.contains(&p.as_str()))
    }
}

impl fmt::Display for Combo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

/// The combinations selected by a comma-separated filter (each term as in [`Combo::matches`]; a
/// combination is kept if any term matches). `None` if a term matches nothing.
pub fn select(filter: &str) -> Result<Vec<Combo>, String> {
    let terms: Vec<&str> = filter
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect();
    let all = Combo::all();
    for t in &terms {
        if !all.iter().any(|c| c.matches(t)) {
            return Err(format!(
                "--combos term '{t}' matches no combination (labels look like {})",
                all[0]
            ));
        }
    }
    Ok(all
        .into_iter()
        .filter(|c| terms.iter().any(|t| c.matches(t)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_full_set_has_every_valid_combination() {
        let all = Combo::all();
        // OpenSSL: (5 TLS 1.2 + 3 TLS 1.3) x HTTP/1.1 x 2 AES modes; ring: 6 suites x 2 HTTP;
        // shifr: 6 suites x 2 HTTP x 2 AES modes.
        assert_eq!(all.len(), 16 + 12 + 24);
        assert!(all.iter().all(Combo::is_valid));
        assert!(!all
            .iter()
            .any(|c| c.cipher.is_cbc() && c.version == TlsVersion::Tls13));
        assert!(Combo::tiny().iter().all(Combo::is_valid));
    }

    #[test]
    fn filters_by_label_parts() {
        let picked = select("rustls-shifr/1.3/chacha20").unwrap();
        assert_eq!(picked.len(), 4, "{picked:?}");
        assert!(select("no-such-thing").is_err());
        let cbc = select("aes-128-cbc").unwrap();
        assert_eq!(cbc.len(), 2);
        assert!(cbc.iter().all(|c| c.engine == Engine::OpenSsl));
    }
}
