//! The calibration of `shifr tune`, installed once at start-up before any key is set up, and what
//! became of it (for `shifr list`).

use shifr_files::tune_cache::{self, CacheState};
use std::sync::OnceLock;

static STATE: OnceLock<CacheState> = OnceLock::new();

/// Installs the calibration file, if there is one (call first thing in `main`).
pub fn install() {
    STATE.get_or_init(tune_cache::install_from_cache);
}

/// What became of the calibration file.
pub fn state() -> &'static CacheState {
    STATE.get_or_init(tune_cache::install_from_cache)
}
