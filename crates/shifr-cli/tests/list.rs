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
