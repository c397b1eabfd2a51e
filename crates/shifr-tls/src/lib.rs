//! shifr-tls: `shifr study tls`, seed 000's TLS experiment reproduced for real over loopback.
//!
//! A TLS server on 127.0.0.1 ([`server`]: rustls + hyper with HTTP/1.1 and HTTP/2 by ALPN, or OpenSSL
//! for the AES-CBC suites rustls does not have), with a self-signed certificate generated at start
//! ([`cert`]), is driven by a client ([`client`]) for every combination of engine, AES instructions
//! on or off, TLS version, cipher and HTTP version ([`combo`]); [`measure`] takes bulk throughput,
//! small-response request rate and handshakes per second with the CPU % of both sides; [`external`]
//! runs `h2load`, `openssl s_client` and `curl` against the server; [`report`] writes report.md,
//! CSV, JSON and PNG charts next to the seed's table. [`provider`] is a rustls `CryptoProvider`
//! whose record protection is shifr's own AEADs, measured beside rustls' ring provider.

pub mod cert;
pub mod client;
pub mod combo;
pub mod external;
pub mod http1;
pub mod measure;
pub mod provider;
pub mod report;
pub mod server;
pub mod study;

/// A failure of the TLS study: one line for the user.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A socket or file operation failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// rustls refused a configuration.
    #[error("rustls: {0}")]
    Rustls(#[from] rustls::Error),
    /// OpenSSL refused a configuration.
    #[error("OpenSSL: {0}")]
    OpenSsl(#[from] openssl::error::ErrorStack),
    /// A server child could not be started or read.
    #[error("server: {0}")]
    Server(String),
    /// The client failed (handshake, request, wrong response).
    #[error("client: {0}")]
    Client(String),
    /// Writing the report failed.
    #[error("report: {0}")]
    Report(String),
}
