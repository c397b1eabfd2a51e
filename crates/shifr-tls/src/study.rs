//! `shifr study tls`: starts one server child per (engine, AES setting), measures every selected
//! combination against it, runs the external clients, and writes the report.

use crate::cert::Identity;
use crate::combo::{Aes, Cipher, Combo, Engine, TlsVersion};
use crate::external::{self, Check};
use crate::measure::{self, Figures, Plan};
use crate::server::ServerProcess;
use crate::{client, report, TlsError};
use serde::{Deserialize, Serialize};
use shifr_studies::progress::Progress;
use std::path::PathBuf;
use std::time::Duration;

/// What a study run needs.
#[derive(Debug, Clone)]
pub struct Config {
    /// Directory for report.md, tls.csv, tls.json and the PNG charts (created if missing).
    pub out: PathBuf,
    /// The `shifr` binary, re-run as `shifr study tls --serve ENGINE` for every server.
    pub exe: PathBuf,
    /// The combinations to measure.
    pub combos: Vec<Combo>,
    /// How much to measure per combination.
    pub plan: Plan,
    /// Run openssl s_client, curl and h2load against the servers.
    pub external: bool,
    /// Show progress on a terminal.
    pub progress: bool,
    /// The command line, for the report.
    pub command: String,
    /// `full`, `quick` or `tiny`, for the report.
    pub scale: String,
    /// The 1-minute load average when the study began, for the report's header.
    pub load_before: Option<f64>,
}

impl Config {
    /// The plans of the three scales.
    pub fn plan(scale: &str) -> Plan {
        match scale {
            "tiny" => Plan {
                bulk_bytes: 64 * 1024,
                reps: 1,
                min_time: Duration::ZERO,
                min_count: 3,
            },
            "quick" => Plan {
                bulk_bytes: 16 << 20,
                reps: 3,
                min_time: Duration::from_millis(300),
                min_count: 10,
            },
            _ => Plan {
                bulk_bytes: 64 << 20,
                reps: 5,
                min_time: Duration::from_secs(1),
                min_count: 20,
            },
        }
    }
}

/// One measured combination.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The combination.
    pub combo: Combo,
    /// The server's own account of its record-protection code.
    pub server_implementation: String,
    /// The figures.
    pub figures: Figures,
}

/// Runs the study and writes the report; the files written (report.md first) and the verdicts.
pub fn run(cfg: &Config) -> Result<report::Written, TlsError> {
    std::fs::create_dir_all(&cfg.out)?;
    let scratch = cfg.out.join(".tls-server");
    std::fs::create_dir_all(&scratch)?;
    let id = Identity::generate()?;
    id.save(&scratch)?;
    let result = measure_all(cfg, &id, &scratch);
    // The scratch directory holds only the certificate and its key; a failure to remove it is harmless.
    let _ = std::fs::remove_dir_all(&scratch);
    let (rows, checks) = result?;
    report::write(cfg, &rows, &checks)
}

fn measure_all(
    cfg: &Config,
    id: &Identity,
    scratch: &std::path::Path,
) -> Result<(Vec<Row>, Vec<Check>), TlsError> {
    let mut rows = Vec::new();
    let mut progress = Progress::new("tls", cfg.combos.len(), cfg.progress);
    let mut groups: Vec<(Engine, Aes)> = Vec::new();
    for c in &cfg.combos {
        if !groups.contains(&(c.engine, c.aes)) {
            groups.push((c.engine, c.aes));
        }
    }
    for (engine, aes) in groups {
        let server = ServerProcess::start(&cfg.exe, engine, aes, scratch)?;
        for combo in cfg
            .combos
            .iter()
            .filter(|c| c.engine == engine && c.aes == aes)
        {
            progress.step(&combo.label());
            let mut driver = client::driver(combo, server.port, id)?;
            let figures = measure::measure(driver.as_mut(), &server, &cfg.plan)
                .map_err(|e| TlsError::Client(format!("{combo}: {e}")))?;
            rows.push(Row {
                combo: *combo,
                server_implementation: server.implementation.clone(),
                figures,
            });
        }
    }
    progress.finish();
    let checks = if cfg.external {
        externals(cfg, id, scratch)?
    } else {
        Vec::new()
    };
    Ok((rows, checks))
}

/// s_client with every suite of both servers, curl and h2load against the shifr-backed server.
fn externals(
    cfg: &Config,
    id: &Identity,
    scratch: &std::path::Path,
) -> Result<Vec<Check>, TlsError> {
    let ca = external::write_ca_pem(id, scratch)?;
    let mut checks = Vec::new();
    let aead: Vec<(TlsVersion, Cipher)> = [TlsVersion::Tls12, TlsVersion::Tls13]
        .into_iter()
        .flat_map(|v| {
            Cipher::ALL
                .into_iter()
                .filter(|c| !c.is_cbc())
                .map(move |c| (v, c))
        })
        .collect();
    let shifr = ServerProcess::start(&cfg.exe, Engine::RustlsShifr, Aes::Hardware, scratch)?;
    checks.extend(external::s_client(
        Engine::RustlsShifr.name(),
        shifr.port,
        &ca,
        &aead,
    ));
    checks.extend(external::curl(Engine::RustlsShifr.name(), shifr.port, &ca));
    checks.extend(external::h2load(
        Engine::RustlsShifr.name(),
        shifr.port,
        cfg.plan.min_count * 10,
    ));
    drop(shifr);
    let openssl = ServerProcess::start(&cfg.exe, Engine::OpenSsl, Aes::Disabled, scratch)?;
    let cbc = [
        (TlsVersion::Tls12, Cipher::Aes128Cbc),
        (TlsVersion::Tls12, Cipher::Aes256Cbc),
    ];
    checks.extend(external::s_client(
        "openssl (no AES-NI)",
        openssl.port,
        &ca,
        &cbc,
    ));
    Ok(checks)
}
