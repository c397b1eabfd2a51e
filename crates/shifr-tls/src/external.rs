//! Real external clients against the study's servers, so that the servers are not only tested by the
//! study's own client: `openssl s_client` handshakes with every suite, `curl` fetches over HTTP/1.1
//! and HTTP/2, and `h2load` (nghttp2) measures request rates over both. A tool that is not installed
//! is skipped with the reason.

use crate::cert::{Identity, SERVER_NAME};
use crate::combo::{Cipher, Http, TlsVersion};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::process::{Command, Stdio};

/// One external check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// The tool (`openssl s_client`, `curl`, `h2load`).
    pub tool: String,
    /// What it was pointed at (server engine, protocol, suite or URL).
    pub target: String,
    /// `ok`, `failed` or `skipped`.
    pub outcome: String,
    /// What it printed that decided the outcome, or why it was skipped.
    pub detail: String,
    /// h2load: requests per second.
    pub requests_per_s: Option<f64>,
}

impl Check {
    fn new(tool: &str, target: String, ok: bool, detail: String) -> Check {
        Check {
            tool: tool.into(),
            target,
            outcome: if ok { "ok" } else { "failed" }.into(),
            detail,
            requests_per_s: None,
        }
    }

    fn skipped(tool: &str, target: String, why: String) -> Check {
        Check {
            tool: tool.into(),
            target,
            outcome: "skipped".into(),
            detail: why,
            requests_per_s: None,
        }
    }

    /// Whether the check ran and passed.
    pub fn ok(&self) -> bool {
        self.outcome == "ok"
    }
}

/// Runs a tool; its stdout + stderr, or why it could not run.
fn output(cmd: &mut Command) -> Result<(bool, String), String> {
    let program = cmd.get_program().to_string_lossy().into_owned();
    match cmd.stdin(Stdio::null()).output() {
        Ok(o) => Ok((
            o.status.success(),
            format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            ),
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(format!(
            "{program} is not installed{}",
            if program == "h2load" {
                " (Debian package nghttp2-client)"
            } else {
                ""
            }
        )),
        Err(e) => Err(format!("cannot run {program}: {e}")),
    }
}

/// Writes the certificate as PEM for the tools' `-CAfile` / `--cacert`.
pub fn write_ca_pem(id: &Identity, dir: &Path) -> Result<std::path::PathBuf, crate::TlsError> {
    let pem = openssl::x509::X509::from_der(&id.cert_der)?.to_pem()?;
    let path = dir.join("ca.pem");
    std::fs::write(&path, pem)?;
    Ok(path)
}

/// `openssl s_client` handshakes with `suites` (version, cipher) against `engine` on `port`: each
/// must verify the certificate and agree on exactly the offered suite.
pub fn s_client(engine: &str, port: u16, ca: &Path, suites: &[(TlsVersion, Cipher)]) -> Vec<Check> {
    suites
        .iter()
        .map(|&(version, cipher)| {
            let target = format!("{engine} {} {}", version.name(), cipher.iana(version));
            let mut cmd = Command::new("openssl");
            cmd.args(["s_client", "-brief", "-connect"])
                .arg(format!("127.0.0.1:{port}"))
                .args([
                    "-servername",
                    SERVER_NAME,
                    "-verify_return_error",
                    "-CAfile",
                ])
                .arg(ca);
            match version {
                TlsVersion::Tls12 => cmd.args(["-tls1_2", "-cipher", cipher.openssl(version)]),
                TlsVersion::Tls13 => {
                    cmd.args(["-tls1_3", "-ciphersuites", cipher.openssl(version)])
                }
            };
            match output(&mut cmd) {
                Err(why) => Check::skipped("openssl s_client", target, why),
                Ok((_, text)) => {
                    let want_version = match version {
                        TlsVersion::Tls12 => "TLSv1.2",
                        TlsVersion::Tls13 => "TLSv1.3",
                    };
                    let ok = text.contains(&format!("Protocol version: {want_version}"))
                        && text.contains(&format!("Ciphersuite: {}", cipher.openssl(version)))
                        && text.contains("Verification: OK");
                    let detail = text
                        .lines()
                        .filter(|l| {
                            l.starts_with("Protocol version")
                                || l.starts_with("Ciphersuite")
                                || l.starts_with("Verification")
                        })
                        .collect::<Vec<_>>()
                        .join("; ");
                    Check::new("openssl s_client", target, ok, detail)
                }
            }
        })
        .collect()
}

/// `curl` fetches `/small` over each HTTP version and checks version and size.
pub fn curl(engine: &str, port: u16, ca: &Path) -> Vec<Check> {
    [Http::H1, Http::H2]
        .into_iter()
        .map(|http| {
            let url = format!("https://{SERVER_NAME}:{port}/small");
            let target = format!("{engine} {} {url}", http.name());
            let mut cmd = Command::new("curl");
            cmd.args([
                "-sS",
                "-o",
                "/dev/null",
                "-w",
                "%{http_version} %{size_download}",
                "--cacert",
            ])
            .arg(ca)
            .arg("--resolve")
            .arg(format!("{SERVER_NAME}:{port}:127.0.0.1"))
            .arg(match http {
                Http::H1 => "--http1.1",
                Http::H2 => "--http2",
            })
            .arg(&url);
            match output(&mut cmd) {
                Err(why) => Check::skipped("curl", target, why),
                Ok((status, text)) => {
                    let want = match http {
                        Http::H1 => "1.1",
                        Http::H2 => "2",
                    };
                    let ok =
                        status && text.trim() == format!("{want} {}", crate::http1::SMALL_BODY);
                    Check::new(
                        "curl",
                        target,
                        ok,
                        format!("version and bytes: {}", text.trim()),
                    )
                }
            }
        })
        .collect()
}

/// `h2load` over HTTP/2 and HTTP/1.1: `requests` small responses over 2 connections.
pub fn h2load(engine: &str, port: u16, requests: usize) -> Vec<Check> {
    [Http::H2, Http::H1]
        .into_iter()
        .map(|http| {
            let url = format!("https://127.0.0.1:{port}/small");
            let target = format!("{engine} {} {url}", http.name());
            let mut cmd = Command::new("h2load");
            cmd.args(["-n", &requests.max(2).to_string(), "-c", "2", "-m", "1"]);
            if http == Http::H1 {
                cmd.arg("--h1");
            }
            cmd.arg(&url);
            match output(&mut cmd) {
                Err(why) => Check::skipped("h2load", target, why),
                Ok((status, text)) => {
                    let summary = parse_h2load(&text);
                    let ok = status
                        && summary
                            .as_ref()
                            .is_some_and(|s| s.failed == 0 && s.succeeded > 0);
                    let detail = text
                        .lines()
                        .filter(|l| {
                            l.starts_with("finished in")
                                || l.starts_with("requests:")
                                || l.starts_with("Cipher:")
                                || l.starts_with("TLS Protocol:")
                                || l.starts_with("Application protocol:")
                        })
                        .collect::<Vec<_>>()
                        .join("; ");
                    let mut c = Check::new("h2load", target, ok, detail);
                    c.requests_per_s = summary.map(|s| s.requests_per_s);
                    c
                }
            }
        })
        .collect()
}

/// The figures of an h2load run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct H2loadSummary {
    /// From `finished in Xs, N req/s, ...`.
    pub requests_per_s: f64,
    /// From `requests: ... N succeeded, N failed, ...`.
    pub succeeded: u64,
    /// See `succeeded`.
    pub failed: u64,
}

/// Reads h2load's summary lines.
pub fn parse_h2load(text: &str) -> Option<H2loadSummary> {
    let finished = text.lines().find(|l| l.starts_with("finished in"))?;
    let requests_per_s = finished
        .split(',')
        .find(|p| p.trim_end().ends_with("req/s"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    let requests = text.lines().find(|l| l.starts_with("requests:"))?;
    let count = |word: &str| {
        requests
            .split(',')
            .find(|p| p.trim().ends_with(word))
            .and_then(|p| p.split_whitespace().next())
            .and_then(|n| n.parse().ok())
    };
    Some(H2loadSummary {
        requests_per_s,
        succeeded: count("succeeded")?,
        failed: count("failed")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_an_h2load_summary() {
        let text = "starting benchmark...\n\
            finished in 20.10ms, 4975.12 req/s, 5.20MB/s\n\
            requests: 100 total, 100 started, 100 done, 98 succeeded, 2 failed, 0 errored, 0 timeout\n";
        let s = parse_h2load(text).unwrap();
        assert_eq!(s.requests_per_s, 4975.12);
        assert_eq!((s.succeeded, s.failed), (98, 2));
        assert!(parse_h2load("nothing here").is_none());
    }

    #[test]
    fn a_missing_tool_is_skipped_with_the_reason() {
        let err = output(&mut Command::new("h2load-not-a-real-tool")).unwrap_err();
        assert!(err.contains("not installed"), "{err}");
    }
}
