//! The TLS servers, each run in a child process of its own so that its environment can switch the
//! AES instructions off before any crypto library starts (`OPENSSL_ia32cap` is read when libcrypto
//! initialises, `SHIFR_BACKEND` once per process) and so that its CPU time can be read apart from
//! the client's (`/proc/PID/stat`, all of the child's threads).
//!
//! The parent ([`ServerProcess::start`]) runs `EXE study tls --serve ENGINE --out DIR`; the child
//! ([`serve_child`]) loads the certificate from DIR, listens on 127.0.0.1 on a free port, prints
//! `port N` on stdout and serves until its stdin closes.

pub mod body;
pub mod openssl_server;
pub mod rustls_server;

use crate::cert::Identity;
use crate::combo::{Aes, Engine};
use crate::TlsError;
use std::io::{BufRead, BufReader, Read};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};

/// `OPENSSL_ia32cap` mask that clears AES-NI (CPUID.1:ECX bit 25, capability bit 57) and PCLMULQDQ
/// (CPUID.1:ECX bit 1, capability bit 33) from what libcrypto detects; OpenSSL then runs AES with
/// its SSSE3 vector-permute code (vpaes) and GHASH without carry-less multiply. The `~` means "clear
/// these bits"; the second word after `:` is left as detected.
pub const OPENSSL_NO_AES: &str = "~0x200000200000000";

/// The environment that switches AES instructions off for an engine's server process.
pub fn no_aes_env(engine: Engine) -> Option<(&'static str, &'static str)> {
    match engine {
        Engine::OpenSsl => Some(("OPENSSL_ia32cap", OPENSSL_NO_AES)),
        Engine::RustlsShifr => Some(("SHIFR_BACKEND", "portable")),
        Engine::RustlsRing => None,
    }
}

/// A running server child.
pub struct ServerProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    /// The port it listens on (127.0.0.1).
    pub port: u16,
    /// What the server reported about its record protection (`impl ...` line), if anything.
    pub implementation: String,
}

impl ServerProcess {
    /// Starts `exe study tls --serve ENGINE --out dir` with the AES setting applied to its
    /// environment, and waits for its port.
    pub fn start(
        exe: &Path,
        engine: Engine,
        aes: Aes,
        dir: &Path,
    ) -> Result<ServerProcess, TlsError> {
        let mut cmd = Command::new(exe);
        cmd.args(["study", "tls", "--serve", engine.name(), "--out"])
            .arg(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            // The parent's own settings must not leak into a "with AES instructions" server.
            .env_remove("OPENSSL_ia32cap")
            .env_remove("SHIFR_BACKEND");
        if aes == Aes::Disabled {
            let (k, v) = no_aes_env(engine).ok_or_else(|| {
                TlsError::Server(format!(
                    "{} cannot run without AES instructions",
                    engine.name()
                ))
            })?;
            cmd.env(k, v);
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| TlsError::Server(format!("cannot start {}: {e}", exe.display())))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let mut server = ServerProcess {
            child,
            stdin,
            port: 0,
            implementation: String::new(),
        };
        let Some(stdout) = stdout else {
            return Err(TlsError::Server("server child has no stdout".into()));
        };
        let mut lines = BufReader::new(stdout).lines();
        for line in lines.by_ref() {
            let line = line?;
            if let Some(i) = line.strip_prefix("impl ") {
                server.implementation = i.to_string();
            } else if let Some(p) = line.strip_prefix("port ") {
                server.port = p
                    .trim()
                    .parse()
                    .map_err(|_| TlsError::Server(format!("server child said '{line}'")))?;
                return Ok(server);
            }
        }
        Err(TlsError::Server(format!(
            "{} server child ended before it listened",
            engine.name()
        )))
    }

    /// CPU seconds (user + system, every thread) the child has used so far.
    pub fn cpu_seconds(&self) -> Result<f64, TlsError> {
        process_cpu_seconds(self.child.id())
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        // Closing stdin asks the child to exit; kill is the fallback for a child that hangs. Both
        // may fail only if the child is already gone, which is the goal.
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// User + system CPU seconds of process `pid` (all its threads) from `/proc/PID/stat` (fields 14
/// and 15, in clock ticks).
pub fn process_cpu_seconds(pid: u32) -> Result<f64, TlsError> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map_err(|e| TlsError::Server(format!("/proc/{pid}/stat: {e}")))?;
    // The command name (field 2) may contain spaces; the fields after it start past the last ')'.
    let after = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest)
        .ok_or_else(|| TlsError::Server(format!("/proc/{pid}/stat: unexpected format")))?;
    let fields: Vec<&str> = after.split_whitespace().collect();
    // `after` starts at field 3 (state), so utime (14) and stime (15) are at 11 and 12.
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok());
    let (Some(user), Some(system)) = (ticks(11), ticks(12)) else {
        return Err(TlsError::Server(format!("/proc/{pid}/stat: no CPU times")));
    };
    // SAFETY: sysconf only reads a configuration value.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let hz = if hz > 0 { hz as f64 } else { 100.0 };
    Ok((user + system) as f64 / hz)
}

/// The child side: serves `engine` with the certificate in `dir` until stdin closes.
pub fn serve_child(engine: Engine, dir: &Path) -> Result<(), TlsError> {
    let id = Identity::load(dir)?;
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    println!("impl {}", implementation(engine));
    println!("port {port}");
    // The parent reads the port and then only closes stdin; when it does (or dies), exit.
    std::thread::spawn(|| {
        let mut sink = Vec::new();
        let _ = std::io::stdin().read_to_end(&mut sink);
        std::process::exit(0);
    });
    serve(engine, listener, &id)
}

/// Serves `engine` on `listener` in this process until accepting fails.
pub fn serve(engine: Engine, listener: TcpListener, id: &Identity) -> Result<(), TlsError> {
    match engine {
        Engine::OpenSsl => openssl_server::serve(listener, openssl_server::acceptor(id)?),
        Engine::RustlsRing => rustls_server::serve(
            listener,
            rustls_server::config(rustls::crypto::ring::default_provider(), id)?,
        ),
        Engine::RustlsShifr => rustls_server::serve(
            listener,
            rustls_server::config(crate::provider::provider(), id)?,
        ),
    }
}

/// A line describing the record-protection code the engine runs in this process.
pub fn implementation(engine: Engine) -> String {
    use crate::combo::Cipher;
    match engine {
        Engine::OpenSsl => format!(
            "{} (OPENSSL_ia32cap={})",
            openssl::version::version(),
            std::env::var("OPENSSL_ia32cap").unwrap_or_else(|_| "unset".into())
        ),
        Engine::RustlsRing => "rustls + ring (ring's own CPU detection)".into(),
        Engine::RustlsShifr => format!(
            "rustls + shifr: {}, {}",
            crate::provider::implementation(Cipher::ChaCha20),
            crate::provider::implementation(Cipher::Aes128Gcm)
        ),
    }
}
