//! Backend choices measured on this very CPU by `shifr tune`, à la FFTW wisdom: a few lines of
//! text the application keeps in the user's cache directory and installs at start-up, before it
//! sets up keys. The library does no I/O: the caller reads the file and hands the text to
//! [`install`]. A calibration made on another CPU (another vendor, family, model or set of
//! backends) is refused, so a copied home directory cannot carry one machine's choices to another.
//!
//! Format (UTF-8 lines; `#` starts a comment):
//!
//! ```text
//! shifr-tune 1
//! cpu amd 25 17 portable,sse2,aesni,avx2,vaes,avx512,gfni,avx512ifma
//! aes short aesni 256
//! magma chain portable
//! ```
//!
//! Each choice line is `PRIMITIVE WORK BACKEND [SHORT_MAX]` with the names of
//! [`Primitive::name`], [`Work::name`] and [`Backend::name`]; `SHORT_MAX` (bytes) only for `short`.

use std::sync::OnceLock;

use super::microarch::{cpu_id, Vendor};
use super::plan::{Entry, Primitive, Work};
use super::Backend;

/// The first line of every calibration file.
const MAGIC: &str = "shifr-tune 1";

/// Why a calibration text was not installed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CalibrationError {
    /// The text is not a calibration file, or a line of it is malformed.
    #[error("line {line}: {reason}")]
    Syntax {
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The file was measured on another CPU.
    #[error("made on another CPU ({file}; this one is {here})")]
    OtherCpu {
        /// The file's CPU signature.
        file: String,
        /// This CPU's.
        here: String,
    },
    /// A calibration is already installed in this process.
    #[error("a calibration is already installed")]
    AlreadyInstalled,
    /// Keys were set up before the calibration arrived: it would apply to some keys only.
    #[error("installed too late: keys were already set up in this process")]
    TooLate,
}

/// A parsed calibration: the CPU it was measured on and its choices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Calibration {
    /// [`signature`] of the CPU that measured it.
    pub cpu: String,
    /// The measured choices.
    pub entries: Vec<Entry>,
}

/// This CPU as a calibration names it: vendor, display family and model (decimal), and the
/// backends it supports.
pub fn signature() -> String {
    let id = cpu_id();
    let vendor = match id.vendor {
        Vendor::Intel => "intel",
        Vendor::Amd => "amd",
        Vendor::Other => "other",
    };
    format!(
        "{vendor} {} {} {}",
        id.family,
        id.model,
        super::supported()
            .iter()
            .map(|b| b.name())
            .collect::<Vec<_>>()
            .join(",")
    )
}

/// The calibration file for `entries`, measured on this CPU.
pub fn format(entries: &[Entry]) -> String {
    let mut text = format!("{MAGIC}\ncpu {}\n", signature());
    for e in entries {
        text.push_str(&format!(
            "{} {} {}",
            e.primitive.name(),
            e.work.name(),
            e.backend.name()
        ));
        if e.work == Work::Short {
            text.push_str(&format!(" {}", e.short_max));
        }
        text.push('\n');
    }
    text
}

/// Parses a calibration file (without checking which CPU it was made on).
pub fn parse(text: &str) -> Result<Calibration, CalibrationError> {
    let err = |line: usize, reason| CalibrationError::Syntax { line, reason };
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.split('#').next().unwrap_or("").trim()))
        .filter(|(_, l)| !l.is_empty());
    match lines.next() {
        Some((_, l)) if l == MAGIC => {}
        Some((n, _)) => return Err(err(n, "not a shifr-tune 1 file")),
        None => return Err(err(1, "empty")),
    }
    let cpu = match lines.next() {
        Some((_, l)) if l.starts_with("cpu ") => l["cpu ".len()..].trim().to_string(),
        Some((n, _)) => return Err(err(n, "expected the `cpu` line")),
        None => return Err(err(2, "no `cpu` line")),
    };
    let mut entries = Vec::new();
    for (n, line) in lines {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (primitive, work, backend, limit) = match fields[..] {
            [p, w, b] => (p, w, b, None),
            [p, w, b, m] => (p, w, b, Some(m)),
            _ => return Err(err(n, "expected PRIMITIVE WORK BACKEND [SHORT_MAX]")),
        };
        let primitive = Primitive::from_name(primitive).ok_or(err(n, "unknown primitive"))?;
        let work = Work::from_name(work).ok_or(err(n, "unknown kind of work"))?;
        let backend = Backend::from_name(backend).ok_or(err(n, "unknown backend"))?;
        let short_max = match (work, limit) {
            (Work::Short, Some(m)) => m
                .parse::<usize>()
                .ok()
                .filter(|&m| m > 0)
                .ok_or(err(n, "SHORT_MAX must be a positive number of bytes"))?,
            (Work::Short, None) => return Err(err(n, "`short` needs SHORT_MAX")),
            (_, Some(_)) => return Err(err(n, "only `short` takes SHORT_MAX")),
            (_, None) => 0,
        };
        entries.push(Entry {
            primitive,
            work,
            backend,
            short_max,
        });
    }
    Ok(Calibration { cpu, entries })
}

static INSTALLED: OnceLock<Vec<Entry>> = OnceLock::new();

/// Installs a calibration file's choices for every key of this process: call it before any key
/// is set up. Errors: a malformed file, one made on another CPU, a second installation, or one
/// after keys were set up.
pub fn install(text: &str) -> Result<(), CalibrationError> {
    let calibration = parse(text)?;
    let here = signature();
    if calibration.cpu != here {
        return Err(CalibrationError::OtherCpu {
            file: calibration.cpu,
            here,
        });
    }
    if super::plan::planned() {
        return Err(CalibrationError::TooLate);
    }
    INSTALLED
        .set(calibration.entries)
        .map_err(|_| CalibrationError::AlreadyInstalled)
}

/// The installed calibration's choices (empty when none is).
pub fn installed() -> &'static [Entry] {
    INSTALLED.get().map_or(&[], Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Entry> {
        vec![
            Entry {
                primitive: Primitive::Aes,
                work: Work::Short,
                backend: Backend::AesNi,
                short_max: 256,
            },
            Entry {
                primitive: Primitive::Magma,
                work: Work::Chain,
                backend: Backend::Portable,
                short_max: 0,
            },
        ]
    }

    #[test]
    fn format_and_parse_round_trip() {
        let text = format(&sample());
        let parsed = parse(&text).unwrap();
        assert_eq!(parsed.cpu, signature());
        assert_eq!(parsed.entries, sample());
    }

    #[test]
    fn comments_and_blank_lines_are_skipped() {
        let text =
            "# made by hand\nshifr-tune 1\n\ncpu amd 25 17 portable\nmagma chain portable # why\n";
        let parsed = parse(text).unwrap();
        assert_eq!(parsed.cpu, "amd 25 17 portable");
        assert_eq!(parsed.entries.len(), 1);
    }

    #[test]
    fn malformed_lines_are_refused_with_their_number() {
        let bad = |body: &str| parse(&format!("shifr-tune 1\ncpu x\n{body}\n")).unwrap_err();
        assert_eq!(
            bad("aes short aesni"),
            CalibrationError::Syntax {
                line: 3,
                reason: "`short` needs SHORT_MAX"
            }
        );
        assert!(matches!(
            bad("aes bulk aesni 64"),
            CalibrationError::Syntax { line: 3, .. }
        ));
        assert!(matches!(
            bad("sm4 bulk aesni"),
            CalibrationError::Syntax { line: 3, .. }
        ));
        assert!(matches!(
            bad("aes short aesni 0"),
            CalibrationError::Syntax { line: 3, .. }
        ));
        assert!(matches!(
            parse("magma chain portable"),
            Err(CalibrationError::Syntax { line: 1, .. })
        ));
    }

    #[test]
    fn another_cpus_file_is_refused() {
        let text = "shifr-tune 1\ncpu intel 6 143 portable\nmagma chain portable\n";
        if signature() != "intel 6 143 portable" {
            assert!(matches!(
                install(text),
                Err(CalibrationError::OtherCpu { .. })
            ));
        }
    }
}
