//! The rustls + hyper server: one tokio thread (a current-thread runtime), every connection a task;
//! HTTP/2 or HTTP/1.1 by the ALPN protocol the handshake agreed on. No session cache and no
//! tickets, so that every connection costs a full handshake.

use super::body::Pattern;
use crate::cert::Identity;
use crate::http1::route;
use crate::TlsError;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use rustls::crypto::CryptoProvider;
use rustls::server::NoServerSessionStorage;
use rustls::ServerConfig;
use std::convert::Infallible;
use std::sync::Arc;

/// HTTP/2 windows large enough that flow control never limits a loopback bulk transfer.
pub const H2_STREAM_WINDOW: u32 = 8 << 20;
/// See [`H2_STREAM_WINDOW`].
pub const H2_CONNECTION_WINDOW: u32 = 16 << 20;

/// The server configuration: every suite and both TLS versions of `provider`, ALPN h2 and http/1.1.
pub fn config(provider: CryptoProvider, id: &Identity) -> Result<Arc<ServerConfig>, TlsError> {
    let mut cfg = ServerConfig::builder_with_provider(Arc::new(provider))
        .with_protocol_versions(&[&rustls::version::TLS12, &rustls::version::TLS13])?
        .with_no_client_auth()
        .with_single_cert(vec![id.rustls_cert()], id.rustls_key())?;
    cfg.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    cfg.session_storage = Arc::new(NoServerSessionStorage {});
    cfg.send_tls13_tickets = 0;
    Ok(Arc::new(cfg))
}

async fn respond(req: Request<hyper::body::Incoming>) -> Result<Response<Pattern>, Infallible> {
    let mut resp = match route(req.uri().path()) {
        Some(len) => Response::new(Pattern::new(len)),
        None => {
            let mut r = Response::new(Pattern::new(0));
            *r.status_mut() = StatusCode::NOT_FOUND;
            r
        }
    };
    resp.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/octet-stream"),
    );
    Ok(resp)
}

/// Serves `listener` until the process ends (or accepting fails).
pub fn serve(listener: std::net::TcpListener, cfg: Arc<ServerConfig>) -> Result<(), TlsError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()?;
    rt.block_on(async move {
        listener.set_nonblocking(true)?;
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let acceptor = tokio_rustls::TlsAcceptor::from(cfg);
        loop {
            let (tcp, _) = listener.accept().await?;
            // Small responses must not wait for Nagle's algorithm.
            tcp.set_nodelay(true)?;
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                // A failed handshake or a connection the client drops ends only that task.
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2");
                let io = TokioIo::new(tls);
                if h2 {
                    let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                        .initial_stream_window_size(H2_STREAM_WINDOW)
                        .initial_connection_window_size(H2_CONNECTION_WINDOW)
                        .serve_connection(io, service_fn(respond))
                        .await;
                } else {
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(io, service_fn(respond))
                        .await;
                }
            });
        }
    })
}
