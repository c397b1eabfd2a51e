//! The server's self-signed certificate, generated at start with OpenSSL: an ECDSA P-256 key (every
//! suite of the study is ECDHE-ECDSA) and an X.509 v3 certificate for `localhost` / 127.0.0.1, valid
//! for one day. The client trusts exactly this certificate.

use openssl::asn1::Asn1Time;
use openssl::bn::{BigNum, MsbOption};
use openssl::ec::{EcGroup, EcKey};
use openssl::hash::MessageDigest;
use openssl::nid::Nid;
use openssl::pkey::PKey;
use openssl::x509::extension::SubjectAlternativeName;
use openssl::x509::{X509Builder, X509NameBuilder};
use std::path::Path;
use zeroize::Zeroizing;

/// The host name in the certificate and the SNI the clients send.
pub const SERVER_NAME: &str = "localhost";

/// A certificate and its private key, both DER.
#[derive(Clone)]
pub struct Identity {
    /// The X.509 certificate, DER.
    pub cert_der: Vec<u8>,
    /// The private key, PKCS#8 DER (zeroized on drop).
    pub key_der: Zeroizing<Vec<u8>>,
}

impl std::fmt::Debug for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Identity")
            .field("cert_der_len", &self.cert_der.len())
            .finish_non_exhaustive()
    }
}

const CERT_FILE: &str = "cert.der";
const KEY_FILE: &str = "key.der";

impl Identity {
    /// Generates a fresh key and self-signed certificate.
    pub fn generate() -> Result<Identity, openssl::error::ErrorStack> {
        let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1)?;
        let key = PKey::from_ec_key(EcKey::generate(&group)?)?;
        let mut name = X509NameBuilder::new()?;
        name.append_entry_by_nid(Nid::COMMONNAME, SERVER_NAME)?;
        let name = name.build();
        let mut b = X509Builder::new()?;
        b.set_version(2)?;
        let mut serial = BigNum::new()?;
        serial.rand(64, MsbOption::MAYBE_ZERO, false)?;
        b.set_serial_number(serial.to_asn1_integer()?.as_ref())?;
        b.set_subject_name(&name)?;
        b.set_issuer_name(&name)?;
        b.set_pubkey(&key)?;
        b.set_not_before(Asn1Time::days_from_now(0)?.as_ref())?;
        b.set_not_after(Asn1Time::days_from_now(1)?.as_ref())?;
        let san = SubjectAlternativeName::new()
            .dns(SERVER_NAME)
            .ip("127.0.0.1")
            .build(&b.x509v3_context(None, None))?;
        b.append_extension(san)?;
        b.sign(&key, MessageDigest::sha256())?;
        Ok(Identity {
            cert_der: b.build().to_der()?,
            key_der: Zeroizing::new(key.private_key_to_pkcs8()?),
        })
    }

    /// Writes `cert.der` and `key.der` (mode 0600) into `dir`, for a server child process.
    pub fn save(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::write(dir.join(CERT_FILE), &self.cert_der)?;
        let key_path = dir.join(KEY_FILE);
        write_private(&key_path, &self.key_der)
    }

    /// Reads what [`Identity::save`] wrote.
    pub fn load(dir: &Path) -> std::io::Result<Identity> {
        Ok(Identity {
            cert_der: std::fs::read(dir.join(CERT_FILE))?,
            key_der: Zeroizing::new(std::fs::read(dir.join(KEY_FILE))?),
        })
    }

    /// The certificate for rustls.
    pub fn rustls_cert(&self) -> rustls::pki_types::CertificateDer<'static> {
        rustls::pki_types::CertificateDer::from(self.cert_der.clone())
    }

    /// The private key for rustls.
    pub fn rustls_key(&self) -> rustls::pki_types::PrivateKeyDer<'static> {
        rustls::pki_types::PrivateKeyDer::Pkcs8(rustls::pki_types::PrivatePkcs8KeyDer::from(
            self.key_der.to_vec(),
        ))
    }
}

#[cfg(unix)]
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    f.write_all(bytes)
}

#[cfg(not(unix))]
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::write(path, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_certificate_openssl_can_parse_round_trips_through_files() {
        let id = Identity::generate().unwrap();
        let x = openssl::x509::X509::from_der(&id.cert_der).unwrap();
        let cn = x.subject_name().entries().next().unwrap();
        assert_eq!(cn.data().as_slice(), SERVER_NAME.as_bytes());
        // Self-signed: the certificate verifies under its own key.
        assert!(x.verify(&x.public_key().unwrap()).unwrap());
        let dir = std::env::temp_dir().join(format!("shifr-tls-cert-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        id.save(&dir).unwrap();
        let back = Identity::load(&dir).unwrap();
        assert_eq!(back.cert_der, id.cert_der);
        assert_eq!(*back.key_der, *id.key_der);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
