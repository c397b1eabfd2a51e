//! Where `shifr tune` keeps its calibration and how the tools load it: one small text file per
//! user (`$SHIFR_TUNE_FILE`, else `$XDG_CACHE_HOME/shifr/tune`, else `~/.cache/shifr/tune`), read
//! at start-up and installed into the library before any key is set up. A missing file is the
//! normal case (the table of measured choices applies); a file for another CPU or a damaged one is
//! ignored, and `shifr list` says why.

use std::io::Read;
use std::path::{Path, PathBuf};

use shifr::cpu::calibration;

/// The longest calibration file read (a real one is a few hundred bytes).
const MAX_BYTES: u64 = 64 * 1024;

/// What became of the calibration file at start-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheState {
    /// No cache location (no `$HOME`), or no file there.
    Absent(Option<PathBuf>),
    /// Installed: its choices apply to every key set up from now on.
    Installed(PathBuf),
    /// Present but not used, and why.
    Ignored(PathBuf, String),
}

impl CacheState {
    /// One line for `shifr list`.
    pub fn describe(&self) -> String {
        match self {
            CacheState::Absent(Some(p)) => {
                format!(
                    "none ({} does not exist; `shifr tune` writes it)",
                    p.display()
                )
            }
            CacheState::Absent(None) => "none (no cache directory: $HOME is not set)".into(),
            CacheState::Installed(p) => format!("{} (installed)", p.display()),
            CacheState::Ignored(p, why) => format!("{} ignored: {why}", p.display()),
        }
    }
}

/// The calibration file's path: `$SHIFR_TUNE_FILE`, `$XDG_CACHE_HOME/shifr/tune` or
/// `$HOME/.cache/shifr/tune` (the first variable that is set and not empty).
pub fn cache_path() -> Option<PathBuf> {
    let var = |name| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(file) = var("SHIFR_TUNE_FILE") {
        return Some(PathBuf::from(file));
    }
    let cache = var("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(cache.join("shifr").join("tune"))
}

/// Reads the calibration file, if there is one, and installs it into the library. Call once, at
/// start-up, before keys are set up.
pub fn install_from_cache() -> CacheState {
    let Some(path) = cache_path() else {
        return CacheState::Absent(None);
    };
    match read_small(&path) {
        Ok(None) => CacheState::Absent(Some(path)),
        Ok(Some(text)) => match calibration::install(&text) {
            Ok(()) => CacheState::Installed(path),
            Err(e) => CacheState::Ignored(path, e.to_string()),
        },
        Err(why) => CacheState::Ignored(path, why),
    }
}

/// The file's text; `None` when it does not exist.
fn read_small(path: &Path) -> Result<Option<String>, String> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    let mut text = String::new();
    file.take(MAX_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| e.to_string())?;
    if text.len() as u64 > MAX_BYTES {
        return Err(format!("longer than {MAX_BYTES} bytes"));
    }
    Ok(Some(text))
}

/// Writes `text` as the calibration file at `path` (created with its directory, replaced whole:
/// complete or not at all).
pub fn save(path: &Path, text: &str) -> Result<(), crate::OutputError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| crate::OutputError::Io {
            what: "cannot create the directory",
            path: dir.to_path_buf(),
            source,
        })?;
    }
    let mut out = crate::AtomicOutput::create(path, true)?;
    std::io::Write::write_all(out.file(), text.as_bytes()).map_err(|source| {
        crate::OutputError::Io {
            what: "cannot write",
            path: path.to_path_buf(),
            source,
        }
    })?;
    out.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("shifr-tune-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn save_creates_the_directory_and_read_returns_the_text() {
        let dir = temp_dir("save");
        let path = dir.join("sub").join("tune");
        save(&path, "shifr-tune 1\n").unwrap();
        assert_eq!(
            read_small(&path).unwrap().as_deref(),
            Some("shifr-tune 1\n")
        );
        save(&path, "replaced\n").unwrap();
        assert_eq!(read_small(&path).unwrap().as_deref(), Some("replaced\n"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_file_is_none_and_a_huge_or_odd_one_an_error() {
        let dir = temp_dir("read");
        assert_eq!(read_small(&dir.join("absent")).unwrap(), None);
        let big = dir.join("big");
        std::fs::write(&big, vec![b'#'; MAX_BYTES as usize + 1]).unwrap();
        assert!(read_small(&big).is_err());
        assert!(
            read_small(&dir).is_err(),
            "a directory is not a calibration"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
