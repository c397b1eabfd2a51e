//! `catalog_cipher ALG KEY_FILE [IV_HEX|-] [--nopad]`: encrypts stdin to stdout through the catalogue's
//! one-shot call, as `shifr cipher` does, but links only the library. scripts/cross-insn.sh runs it
//! under QEMU to count instructions per byte on the cross targets, where the CLI (which also links
//! OpenSSL and the benchmark crate) is not built.

use std::io::{Read, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("catalog_cipher: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [alg, key_file, rest @ ..] = &args[..] else {
        return Err("usage: catalog_cipher ALG KEY_FILE [IV_HEX|-] [--nopad]".into());
    };
    let alg = shifr::catalog::lookup(alg).map_err(|e| e.to_string())?;
    let key = std::fs::read(key_file).map_err(|e| format!("{key_file}: {e}"))?;
    let iv = match rest.first().map(String::as_str) {
        None | Some("-") | Some("--nopad") => Vec::new(),
        Some(h) => hex::decode(h).map_err(|e| format!("IV: {e}"))?,
    };
    let params = shifr::catalog::Params {
        iv: &iv,
        nopad: rest.iter().any(|a| a == "--nopad"),
        ..Default::default()
    };
    let mut data = Vec::new();
    std::io::stdin()
        .read_to_end(&mut data)
        .map_err(|e| format!("stdin: {e}"))?;
    let out = alg
        .encrypt(&key, &params, data)
        .map_err(|e| e.to_string())?;
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(&out.data)
        .and_then(|()| stdout.write_all(&out.tag))
        .map_err(|e| format!("stdout: {e}"))
}
