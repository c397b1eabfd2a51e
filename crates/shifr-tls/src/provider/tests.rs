//! The differential test of the shifr provider: a full rustls handshake and data in both directions
//! between the shifr provider on one side and rustls' own ring provider on the other, for every suite
//! and both directions of the roles, in memory. ring is an independent implementation of the same
//! record protection, so any nonce, AAD or tag mistake shows up as a failed record.

use super::*;
use crate::cert::{Identity, SERVER_NAME};
use rustls::pki_types::ServerName;
use rustls::{
    ClientConfig, ClientConnection, Connection, RootCertStore, ServerConfig, ServerConnection,
};
use std::io::{Read, Write};
use std::sync::Arc;

fn only(mut p: CryptoProvider, suite: rustls::CipherSuite) -> Arc<CryptoProvider> {
    p.cipher_suites.retain(|s| s.suite() == suite);
    assert_eq!(p.cipher_suites.len(), 1, "{suite:?}");
    Arc::new(p)
}

fn version_of(s: &SupportedCipherSuite) -> &'static rustls::SupportedProtocolVersion {
    match s {
        SupportedCipherSuite::Tls12(_) => &rustls::version::TLS12,
        SupportedCipherSuite::Tls13(_) => &rustls::version::TLS13,
    }
}

/// A connected pair: (client, server), the server or the client using the shifr provider.
fn pair(
    id: &Identity,
    suite: &SupportedCipherSuite,
    shifr_serves: bool,
) -> (Connection, Connection) {
    let shifr = only(provider(), suite.suite());
    let ring = only(rustls::crypto::ring::default_provider(), suite.suite());
    let (server_p, client_p) = if shifr_serves {
        (shifr, ring)
    } else {
        (ring, shifr)
    };
    let versions = [version_of(suite)];
    let server = ServerConfig::builder_with_provider(server_p)
        .with_protocol_versions(&versions)
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![id.rustls_cert()], id.rustls_key())
        .unwrap();
    let mut roots = RootCertStore::empty();
    roots.add(id.rustls_cert()).unwrap();
    let client = ClientConfig::builder_with_provider(client_p)
        .with_protocol_versions(&versions)
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = ServerName::try_from(SERVER_NAME).unwrap();
    let c = ClientConnection::new(Arc::new(client), name).unwrap();
    let s = ServerConnection::new(Arc::new(server)).unwrap();
    (Connection::Client(c), Connection::Server(s))
}

/// Moves everything `from` has to send into `to`; `to`'s processing error, if any.
fn flow(from: &mut Connection, to: &mut Connection, tamper: bool) -> Result<usize, Error> {
    let mut wire = Vec::new();
    while from.wants_write() {
        from.write_tls(&mut wire).unwrap();
    }
    if tamper {
        if let Some(last) = wire.last_mut() {
            *last ^= 1;
        }
    }
    let mut rest = &wire[..];
    while !rest.is_empty() {
        to.read_tls(&mut rest).unwrap();
        to.process_new_packets()?;
    }
    Ok(wire.len())
}

fn handshake(c: &mut Connection, s: &mut Connection) {
    while c.is_handshaking() || s.is_handshaking() {
        flow(c, s, false).unwrap();
        flow(s, c, false).unwrap();
    }
    // Whatever the last flight left (TLS 1.3 tickets).
    flow(s, c, false).unwrap();
}

/// Sends `data` from one side to the other in as many rounds as rustls' buffers need.
fn send(from: &mut Connection, to: &mut Connection, data: &[u8]) {
    let (mut sent, mut got) = (0, Vec::new());
    while got.len() < data.len() {
        // At most 8 KiB per round, so the receiver's plaintext buffer never fills.
        let end = (sent + 8192).min(data.len());
        sent += from.writer().write(&data[sent..end]).unwrap();
        flow(from, to, false).unwrap();
        let mut buf = [0u8; 8192];
        loop {
            match to.reader().read(&mut buf) {
                Ok(n) if n > 0 => got.extend_from_slice(&buf[..n]),
                _ => break,
            }
        }
    }
    assert_eq!(got, data);
}

#[test]
fn every_suite_interoperates_with_the_ring_provider_both_ways() {
    let id = Identity::generate().unwrap();
    assert_eq!(suites().len(), 6);
    for suite in suites() {
        for shifr_serves in [true, false] {
            let (mut c, mut s) = pair(&id, suite, shifr_serves);
            handshake(&mut c, &mut s);
            assert_eq!(
                c.negotiated_cipher_suite().map(|x| x.suite()),
                Some(suite.suite())
            );
            // Lengths around the record size (16 KiB) and the AEAD block sizes.
            for len in [1usize, 15, 16, 17, 64, 1000, 16383, 16384, 16385, 70_000] {
                let data: Vec<u8> = (0..len).map(|i| (i * 31 + len) as u8).collect();
                send(&mut c, &mut s, &data);
                send(&mut s, &mut c, &data);
            }
        }
    }
}

#[test]
fn a_flipped_bit_in_a_record_is_refused() {
    let id = Identity::generate().unwrap();
    for suite in suites() {
        for shifr_serves in [true, false] {
            let (mut c, mut s) = pair(&id, suite, shifr_serves);
            handshake(&mut c, &mut s);
            // The side that decrypts the damaged record is the server, which runs shifr when
            // `shifr_serves` and ring otherwise; ring's refusal confirms the test itself.
            c.writer().write_all(b"attack at dawn").unwrap();
            let err = flow(&mut c, &mut s, true).unwrap_err();
            assert_eq!(err, Error::DecryptError, "{:?}", suite.suite());
        }
    }
}

#[test]
fn names_the_implementation_in_use() {
    use crate::combo::Cipher;
    assert!(implementation(Cipher::ChaCha20).starts_with("chacha20 "));
    assert!(implementation(Cipher::Aes128Gcm).starts_with("aes-gcm "));
}
