//! `shifr list`: one row per catalogue name with its sizes and the implementation that would run.

mod support;

use shifr::catalog;
use support::shifr;

fn rows(env: &[(&str, &str)]) -> Vec<String> {
    let out = shifr(&["list"], b"", env).expect_ok("shifr list");
    String::from_utf8(out)
        .expect("utf-8 table")
        .lines()
        .skip(1) // header
        .take_while(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

#[test]
fn lists_every_name_with_its_sizes() {
    let rows = rows(&[]);
    assert_eq!(rows.len(), catalog::all().len());
    for (row, alg) in rows.iter().zip(catalog::all()) {
        let cells: Vec<&str> = row
            .split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        assert_eq!(cells[0], alg.name);
        assert_eq!(cells[2], alg.key_len.to_string(), "{row}");
        assert!(cells[6].starts_with("cpu ("), "{row}");
    }
}

#[test]
fn forced_portable_backend_is_reported() {
    for row in rows(&[("SHIFR_BACKEND", "portable")]) {
        assert!(row.contains("cpu (portable)"), "{row}");
    }
}

#[test]
fn memory_lists_key_state_per_backend_and_peak_rss() {
    let out = shifr(
        &["list", "--memory", "--alg", "aes-128-gcm,magma-mgm"],
        b"",
        &[],
    )
    .expect_ok("shifr list --memory");
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().take_while(|l| !l.is_empty()).collect();
    assert!(
        lines[0].starts_with("NAME") && lines[0].contains("KEY STATE"),
        "{text}"
    );
    for name in ["aes-128-gcm", "magma-mgm"] {
        let line = lines
            .iter()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{name}: {text}"));
        let cells: Vec<&str> = line.split_whitespace().collect();
        let state: usize = cells[2].parse().unwrap();
        let rss: u64 = cells[3].parse().unwrap();
        assert!(state >= 32 && rss > 0, "{line}");
    }
    // Every backend line of AES-GCM is a key state in bytes; the portable one is always there.
    assert!(
        lines
            .iter()
            .any(|l| l.split_whitespace().next() == Some("portable")),
        "{text}"
    );
    // --alg needs --memory; a bad name is one line.
    for args in [
        &["list", "--alg", "aes-128-gcm"][..],
        &["list", "--memory", "--alg", "rot13"],
    ] {
        let run = shifr(args, b"", &[]);
        assert!(!run.ok(), "{args:?}");
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    }
}
