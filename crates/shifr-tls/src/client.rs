//! The study's own clients, one per server TLS stack so that each is driven by its own library: a
//! rustls (ring provider) + hyper client for the rustls servers, over HTTP/1.1 or HTTP/2, and a
//! blocking OpenSSL client speaking HTTP/1.1 for the OpenSSL server. Both offer exactly one TLS
//! version and one suite, resume no sessions, and run on the calling thread (so that its CPU clock
//! measures the client alone). The client always uses the CPU's AES instructions.

use crate::cert::{Identity, SERVER_NAME};
use crate::combo::{Combo, Engine, Http, TlsVersion};
use crate::server::rustls_server::{H2_CONNECTION_WINDOW, H2_STREAM_WINDOW};
use crate::{http1, TlsError};
use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::Request;
use hyper_util::rt::{TokioExecutor, TokioIo};
use openssl::ssl::{SslConnector, SslMethod, SslStream, SslVersion};
use openssl::x509::X509;
use rustls::pki_types::ServerName;
use rustls::{ClientConfig, RootCertStore};
use std::net::TcpStream;
use std::sync::Arc;

/// A client connected (or about to connect) to one server with one combination.
pub trait Driver {
    /// Opens a new connection (TCP + full TLS handshake + HTTP setup), replacing the current one.
    fn connect(&mut self) -> Result<(), TlsError>;
    /// `GET path` on the current connection; the body length.
    fn get(&mut self, path: &str) -> Result<u64, TlsError>;
    /// The suite and protocol the last handshake agreed on, for the report.
    fn negotiated(&self) -> String;
}

/// The client for `combo` against a server on 127.0.0.1:`port` presenting `id`'s certificate.
pub fn driver(combo: &Combo, port: u16, id: &Identity) -> Result<Box<dyn Driver>, TlsError> {
    match combo.engine {
        Engine::OpenSsl => Ok(Box::new(OpensslDriver::new(combo, port, id)?)),
        Engine::RustlsRing | Engine::RustlsShifr => {
            Ok(Box::new(RustlsDriver::new(combo, port, id)?))
        }
    }
}

fn client_err(what: &str, e: impl std::fmt::Display) -> TlsError {
    TlsError::Client(format!("{what}: {e}"))
}

/// rustls' identifier of the combination's suite (`None` for the CBC suites rustls lacks).
pub fn rustls_suite(combo: &Combo) -> Option<rustls::CipherSuite> {
    use crate::combo::Cipher;
    use rustls::CipherSuite as S;
    Some(match (combo.version, combo.cipher) {
        (TlsVersion::Tls13, Cipher::ChaCha20) => S::TLS13_CHACHA20_POLY1305_SHA256,
        (TlsVersion::Tls13, Cipher::Aes128Gcm) => S::TLS13_AES_128_GCM_SHA256,
        (TlsVersion::Tls13, Cipher::Aes256Gcm) => S::TLS13_AES_256_GCM_SHA384,
        (TlsVersion::Tls12, Cipher::ChaCha20) => S::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
        (TlsVersion::Tls12, Cipher::Aes128Gcm) => S::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
        (TlsVersion::Tls12, Cipher::Aes256Gcm) => S::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
        _ => return None,
    })
}

enum Sender {
    H1(hyper::client::conn::http1::SendRequest<Empty<Bytes>>),
    H2(hyper::client::conn::http2::SendRequest<Empty<Bytes>>),
}

/// rustls (ring provider, one suite) + hyper on a current-thread tokio runtime.
pub struct RustlsDriver {
    rt: tokio::runtime::Runtime,
    connector: tokio_rustls::TlsConnector,
    combo: Combo,
    port: u16,
    sender: Option<Sender>,
    negotiated: String,
}

impl RustlsDriver {
    /// A client offering only `combo`'s version and suite.
    pub fn new(combo: &Combo, port: u16, id: &Identity) -> Result<RustlsDriver, TlsError> {
        let mut provider = rustls::crypto::ring::default_provider();
        let iana = combo.cipher.iana(combo.version);
        let want = rustls_suite(combo);
        provider.cipher_suites.retain(|s| Some(s.suite()) == want);
        if provider.cipher_suites.is_empty() {
            return Err(TlsError::Client(format!("rustls has no suite {iana}")));
        }
        let version = match combo.version {
            TlsVersion::Tls12 => &rustls::version::TLS12,
            TlsVersion::Tls13 => &rustls::version::TLS13,
        };
        let mut roots = RootCertStore::empty();
        roots.add(id.rustls_cert())?;
        let mut cfg = ClientConfig::builder_with_provider(Arc::new(provider))
            .with_protocol_versions(&[version])?
            .with_root_certificates(roots)
            .with_no_client_auth();
        cfg.alpn_protocols = vec![combo.http.alpn().to_vec()];
        cfg.resumption = rustls::client::Resumption::disabled();
        Ok(RustlsDriver {
            rt: tokio::runtime::Builder::new_current_thread()
                .enable_io()
                .build()?,
            connector: tokio_rustls::TlsConnector::from(Arc::new(cfg)),
            combo: *combo,
            port,
            sender: None,
            negotiated: String::new(),
        })
    }
}

impl Driver for RustlsDriver {
    fn connect(&mut self) -> Result<(), TlsError> {
        self.sender = None;
        let (connector, port, http) = (self.connector.clone(), self.port, self.combo.http);
        let (sender, negotiated) = self.rt.block_on(async move {
            let tcp = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
            tcp.set_nodelay(true)?;
            let name =
                ServerName::try_from(SERVER_NAME).map_err(|e| client_err("server name", e))?;
            let tls = connector.connect(name, tcp).await?;
            let conn = tls.get_ref().1;
            if conn.alpn_protocol() != Some(http.alpn()) {
                return Err(TlsError::Client(format!(
                    "server did not agree to {}",
                    http.name()
                )));
            }
            let negotiated = format!(
                "{} {}",
                conn.protocol_version()
                    .map_or("?".into(), |v| format!("{v:?}")),
                conn.negotiated_cipher_suite()
                    .map_or("?".into(), |s| format!("{:?}", s.suite()))
            );
            let io = TokioIo::new(tls);
            let sender = match http {
                Http::H1 => {
                    let (s, c) = hyper::client::conn::http1::handshake(io)
                        .await
                        .map_err(|e| client_err("HTTP/1.1", e))?;
                    tokio::spawn(c);
                    Sender::H1(s)
                }
                Http::H2 => {
                    let (s, c) = hyper::client::conn::http2::Builder::new(TokioExecutor::new())
                        .initial_stream_window_size(H2_STREAM_WINDOW)
                        .initial_connection_window_size(H2_CONNECTION_WINDOW)
                        .handshake(io)
                        .await
                        .map_err(|e| client_err("HTTP/2", e))?;
                    tokio::spawn(c);
                    Sender::H2(s)
                }
            };
            Ok::<_, TlsError>((sender, negotiated))
        })?;
        self.sender = Some(sender);
        self.negotiated = negotiated;
        Ok(())
    }

    fn get(&mut self, path: &str) -> Result<u64, TlsError> {
        let sender = self
            .sender
            .as_mut()
            .ok_or_else(|| TlsError::Client("not connected".into()))?;
        self.rt.block_on(async move {
            let resp = match sender {
                Sender::H1(s) => {
                    let req = Request::get(path)
                        .header(hyper::header::HOST, SERVER_NAME)
                        .body(Empty::new())
                        .map_err(|e| client_err("request", e))?;
                    s.ready().await.map_err(|e| client_err("HTTP/1.1", e))?;
                    s.send_request(req).await
                }
                Sender::H2(s) => {
                    let req = Request::get(format!("https://{SERVER_NAME}{path}"))
                        .body(Empty::new())
                        .map_err(|e| client_err("request", e))?;
                    s.ready().await.map_err(|e| client_err("HTTP/2", e))?;
                    s.send_request(req).await
                }
            }
            .map_err(|e| client_err("request", e))?;
            if !resp.status().is_success() {
                return Err(TlsError::Client(format!(
                    "status {} for {path}",
                    resp.status()
                )));
            }
            let mut body = resp.into_body();
            let mut n = 0u64;
            while let Some(frame) = body.frame().await {
                let frame = frame.map_err(|e| client_err("body", e))?;
                if let Some(d) = frame.data_ref() {
                    n += d.len() as u64;
                }
            }
            Ok(n)
        })
    }

    fn negotiated(&self) -> String {
        self.negotiated.clone()
    }
}

/// Blocking OpenSSL client, HTTP/1.1 with keep-alive.
pub struct OpensslDriver {
    connector: SslConnector,
    port: u16,
    stream: Option<SslStream<TcpStream>>,
    pending: Vec<u8>,
    negotiated: String,
}

impl OpensslDriver {
    /// A client offering only `combo`'s version and suite.
    pub fn new(combo: &Combo, port: u16, id: &Identity) -> Result<OpensslDriver, TlsError> {
        if combo.http != Http::H1 {
            return Err(TlsError::Client(
                "the OpenSSL client speaks HTTP/1.1 only".into(),
            ));
        }
        let mut b = SslConnector::builder(SslMethod::tls_client())?;
        let v = match combo.version {
            TlsVersion::Tls12 => SslVersion::TLS1_2,
            TlsVersion::Tls13 => SslVersion::TLS1_3,
        };
        b.set_min_proto_version(Some(v))?;
        b.set_max_proto_version(Some(v))?;
        match combo.version {
            TlsVersion::Tls12 => b.set_cipher_list(combo.cipher.openssl(combo.version))?,
            TlsVersion::Tls13 => b.set_ciphersuites(combo.cipher.openssl(combo.version))?,
        }
        b.cert_store_mut().add_cert(X509::from_der(&id.cert_der)?)?;
        b.set_alpn_protos(b"\x08http/1.1")?;
        Ok(OpensslDriver {
            connector: b.build(),
            port,
            stream: None,
            pending: Vec::new(),
            negotiated: String::new(),
        })
    }
}

impl Driver for OpensslDriver {
    fn connect(&mut self) -> Result<(), TlsError> {
        self.stream = None;
        self.pending.clear();
        let tcp = TcpStream::connect(("127.0.0.1", self.port))?;
        tcp.set_nodelay(true)?;
        let tls = self
            .connector
            .connect(SERVER_NAME, tcp)
            .map_err(|e| client_err("OpenSSL handshake", e))?;
        self.negotiated = format!(
            "{} {}",
            tls.ssl().version_str(),
            tls.ssl().current_cipher().map_or("?", |c| c.name())
        );
        self.stream = Some(tls);
        Ok(())
    }

    fn get(&mut self, path: &str) -> Result<u64, TlsError> {
        let stream = self
            .stream
            .as_mut()
            .ok_or_else(|| TlsError::Client("not connected".into()))?;
        Ok(http1::get(stream, path, &mut self.pending)?)
    }

    fn negotiated(&self) -> String {
        self.negotiated.clone()
    }
}
