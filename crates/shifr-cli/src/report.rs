//! How shifr reports problems: one line on stderr each, prefixed `shifr: error:` or `shifr: warning:`.

use shifr::cpu::Backend;

/// Prints an error and its causes on one line.
pub fn error(e: &anyhow::Error) {
    eprintln!("shifr: error: {}", one_line(&format!("{e:#}")));
}

/// Prints a clap usage error (several lines of text) as one line: its first line, which names the
/// problem, without clap's own `error:` prefix.
pub fn usage_error(rendered: &str) {
    let first = rendered
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("invalid arguments");
    let msg = first.trim().trim_start_matches("error:").trim();
    eprintln!("shifr: error: {} (see `shifr --help`)", one_line(msg));
}

/// Prints a warning.
pub fn warning(msg: &str) {
    eprintln!("shifr: warning: {}", one_line(msg));
}

/// Collapses line breaks so that a message stays on one line.
fn one_line(s: &str) -> String {
    s.split(['\n', '\r'])
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

/// Makes a panic (there should be none) print one line instead of Rust's multi-line report.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let payload = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown cause".to_string());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("shifr: internal error{at}: {}", one_line(&payload));
    }));
}

/// Warns when `SHIFR_BACKEND` names no backend (the library then ignores it) or one this CPU lacks.
pub fn warn_about_backend_override() {
    let Ok(value) = std::env::var("SHIFR_BACKEND") else {
        return;
    };
    let value = value.trim();
    // `gpu` is not a CPU backend: `shifr bench` hands it to the GPU crate (SHIFR_GPU picks CUDA or
    // OpenCL), and the CPU algorithms choose automatically.
    if value.is_empty() || value.eq_ignore_ascii_case("auto") || value.eq_ignore_ascii_case("gpu") {
        return;
    }
    match Backend::from_name(value) {
        None => {
            let known: Vec<&str> = Backend::ALL.iter().map(|b| b.name()).collect();
            warning(&format!(
                "unknown SHIFR_BACKEND '{value}' (expected auto, {}); choosing automatically",
                known.join(", ")
            ));
        }
        Some(b) if !b.is_supported() => warning(&format!(
            "SHIFR_BACKEND={} is not supported by this CPU; falling back to the best available",
            b.name()
        )),
        Some(_) => {}
    }
}
