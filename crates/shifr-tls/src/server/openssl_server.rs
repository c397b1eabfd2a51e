//! The OpenSSL server: libssl through the openssl crate, one blocking thread per connection, HTTP/1.1
//! with keep-alive (ALPN `http/1.1`). It offers every TLS 1.2 ECDHE-ECDSA suite of the study
//! (AES-CBC included) and the three TLS 1.3 suites; no session cache and no tickets.

use crate::cert::Identity;
use crate::combo::{Cipher, TlsVersion};
use crate::http1;
use crate::TlsError;
use openssl::pkey::PKey;
use openssl::ssl::{
    AlpnError, SslAcceptor, SslMethod, SslOptions, SslSessionCacheMode, SslVersion,
};
use openssl::x509::X509;
use std::net::{TcpListener, TcpStream};

/// The acceptor: the study's certificate, every suite, TLS 1.2 and 1.3.
pub fn acceptor(id: &Identity) -> Result<SslAcceptor, TlsError> {
    let mut b = SslAcceptor::mozilla_intermediate_v5(SslMethod::tls_server())?;
    let tls12: Vec<&str> = Cipher::ALL
        .iter()
        .map(|c| c.openssl(TlsVersion::Tls12))
        .collect();
    b.set_cipher_list(&tls12.join(":"))?;
    let tls13: Vec<&str> = Cipher::ALL
        .iter()
        .filter(|c| c.in_tls13())
        .map(|c| c.openssl(TlsVersion::Tls13))
        .collect();
    b.set_ciphersuites(&tls13.join(":"))?;
    b.set_min_proto_version(Some(SslVersion::TLS1_2))?;
    b.set_max_proto_version(Some(SslVersion::TLS1_3))?;
    let key = PKey::private_key_from_pkcs8(&id.key_der)?;
    let cert = X509::from_der(&id.cert_der)?;
    b.set_private_key(&key)?;
    b.set_certificate(&cert)?;
    b.check_private_key()?;
    b.set_session_cache_mode(SslSessionCacheMode::OFF);
    b.set_options(SslOptions::NO_TICKET);
    b.set_num_tickets(0)?;
    b.set_alpn_select_callback(|_, client| {
        openssl::ssl::select_next_proto(b"\x08http/1.1", client).ok_or(AlpnError::NOACK)
    });
    Ok(b.build())
}

/// Serves `listener` until the process ends (or accepting fails).
pub fn serve(listener: TcpListener, acceptor: SslAcceptor) -> Result<(), TlsError> {
    for stream in listener.incoming() {
        let stream = stream?;
        let acceptor = acceptor.clone();
        std::thread::spawn(move || {
            // A failed handshake or a dropped connection ends only this thread.
            let _ = connection(&acceptor, stream);
        });
    }
    Ok(())
}

fn connection(acceptor: &SslAcceptor, stream: TcpStream) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    let mut tls = acceptor
        .accept(stream)
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let mut pending = Vec::new();
    while let Some(head) = http1::read_head(&mut tls, &mut pending)? {
        let len = http1::get_target(&head).ok().and_then(http1::route);
        http1::write_response(&mut tls, len)?;
    }
    Ok(())
}
