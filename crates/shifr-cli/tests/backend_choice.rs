//! The per-CPU backend plan as the CLI shows and calibrates it: `shifr list`'s plan section, and
//! `shifr tune`'s calibration file installed by every later run (or ignored, with the reason,
//! when it belongs to another CPU or is damaged). The assertions are about where a choice came
//! from and what the file says, never about a speed.

mod support;

use shifr::cpu::calibration;
use shifr::cpu::{Backend, Entry, Primitive, Work};
use support::{shifr, temp_dir};

/// The plan section of `shifr list`: primitive name -> (its row, its WHY column).
fn plan_rows(env: &[(&str, &str)]) -> (String, Vec<(String, String)>) {
    let out = shifr(&["list"], b"", env).expect_ok("shifr list");
    let text = String::from_utf8(out).expect("utf-8");
    let section = text
        .split("Backend choice on this CPU")
        .nth(1)
        .unwrap_or_else(|| panic!("no plan section: {text}"))
        .to_string();
    let rows = section
        .lines()
        .skip(2) // the title line's rest, the header
        .filter(|l| !l.is_empty())
        .map(|l| {
            let name = l.split_whitespace().next().unwrap_or("").to_string();
            (name, l.to_string())
        })
        .collect();
    (section, rows)
}

#[test]
fn list_shows_every_primitive_and_a_forced_backend() {
    let (section, rows) = plan_rows(&[("SHIFR_BACKEND", "portable")]);
    let names: Vec<&str> = rows.iter().map(|(n, _)| n.as_str()).collect();
    let expected: Vec<&str> = Primitive::ALL.iter().map(|p| p.name()).collect();
    assert_eq!(names, expected, "{section}");
    for (_, row) in &rows {
        assert!(row.contains("portable"), "{row}");
        assert!(row.ends_with("forced (SHIFR_BACKEND)"), "{row}");
    }
    assert!(
        section.contains("no-such-tune-file does not exist"),
        "{section}"
    );
}

#[test]
fn a_calibration_decides_and_is_reported() {
    let dir = temp_dir("tune-file");
    let file = dir.join("tune");
    // Made for this CPU by the library's own writer; the portable backend runs everywhere, so the
    // entry applies on any machine the test runs on.
    let text = calibration::format(&[Entry {
        primitive: Primitive::Magma,
        work: Work::Chain,
        backend: Backend::Portable,
        short_max: 0,
    }]);
    std::fs::write(&file, text).unwrap();
    let file_s = file.to_str().unwrap();
    let (section, rows) = plan_rows(&[("SHIFR_TUNE_FILE", file_s)]);
    assert!(
        section.contains(&format!("{file_s} (installed)")),
        "{section}"
    );
    let magma = &rows
        .iter()
        .find(|(n, _)| n == "magma")
        .expect("magma row")
        .1;
    let cells: Vec<&str> = magma
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(cells[3], "portable", "{magma}");
    assert_eq!(cells[4], "calibrated (shifr tune)", "{magma}");
    // A forced backend still wins over the calibration.
    let (_, rows) = plan_rows(&[("SHIFR_TUNE_FILE", file_s), ("SHIFR_BACKEND", "portable")]);
    assert!(rows
        .iter()
        .all(|(_, r)| r.ends_with("forced (SHIFR_BACKEND)")));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn another_cpus_or_a_damaged_calibration_is_ignored_with_the_reason() {
    let dir = temp_dir("tune-bad");
    let other = dir.join("other");
    std::fs::write(
        &other,
        "shifr-tune 1\ncpu other 0 0 portable\nmagma chain portable\n",
    )
    .unwrap();
    let damaged = dir.join("damaged");
    std::fs::write(&damaged, "magma chain portable\n").unwrap();
    for (file, why) in [
        (&other, "ignored: made on another CPU"),
        (&damaged, "ignored: line 1: not a shifr-tune 1 file"),
    ] {
        let (section, rows) = plan_rows(&[("SHIFR_TUNE_FILE", file.to_str().unwrap())]);
        assert!(section.contains(why), "{section}");
        assert!(
            rows.iter().all(|(_, r)| !r.contains("calibrated")),
            "{section}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tune_writes_a_calibration_for_this_cpu_that_later_runs_install() {
    let dir = temp_dir("tune-run");
    let file = dir.join("cache").join("tune");
    let file_s = file.to_str().unwrap();
    let out = shifr(&["tune", "--seconds", "0.005", "--out", file_s], b"", &[]).expect_ok("tune");
    let report = String::from_utf8(out).unwrap();
    assert!(report.contains(&format!("wrote {file_s}")), "{report}");
    let text = std::fs::read_to_string(&file).expect("the calibration file");
    let parsed = calibration::parse(&text).expect("a well-formed calibration");
    assert_eq!(parsed.cpu, calibration::signature());
    // Every primitive gets its bulk choice (which backend wins is the machine's business).
    for &p in Primitive::ALL {
        assert!(
            parsed
                .entries
                .iter()
                .any(|e| e.primitive == p && e.work == Work::Bulk),
            "{p:?}: {text}"
        );
    }
    let (section, rows) = plan_rows(&[("SHIFR_TUNE_FILE", file_s)]);
    assert!(section.contains("(installed)"), "{section}");
    assert!(
        rows.iter()
            .all(|(_, r)| r.ends_with("calibrated (shifr tune)")),
        "{section}"
    );

    // --dry-run prints the file's text and writes nothing.
    let dry = dir.join("dry");
    let out = shifr(
        &[
            "tune",
            "--seconds",
            "0.005",
            "--dry-run",
            "--out",
            dry.to_str().unwrap(),
        ],
        b"",
        &[],
    )
    .expect_ok("tune --dry-run");
    assert!(String::from_utf8(out).unwrap().contains("shifr-tune 1"));
    assert!(!dry.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tune_refuses_an_out_of_range_sample_time() {
    let run = shifr(&["tune", "--seconds", "0"], b"", &[]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
}
