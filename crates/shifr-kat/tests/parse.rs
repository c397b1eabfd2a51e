//! The vector-file parser and the summary/outcome formats.

use shifr_kat::{parse, run_text, Outcome, Summary};

#[test]
fn records_are_separated_by_blank_lines() {
    let text = "# one / src A\ncipher = magma\nmode = ecb\n\n# two / src B\ncipher = aes128\n";
    let recs = parse(text).unwrap();
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[0].name, "one");
    assert_eq!(recs[0].source, "src A");
    assert_eq!(recs[0].line, 1);
    assert_eq!(recs[0].get("mode"), Some("ecb"));
    assert_eq!(recs[1].name, "two");
    assert_eq!(recs[1].source, "src B");
    assert_eq!(recs[1].line, 5);
    assert_eq!(recs[1].get("mode"), None);
}

#[test]
fn several_blank_lines_whitespace_lines_and_crlf_are_separators() {
    let text = "# a / s\r\nx = 1\r\n\r\n  \t\n\n# b / s\r\ny = 2\r\n";
    let recs = parse(text).unwrap();
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[0].get("x"), Some("1"));
    assert_eq!(recs[1].get("y"), Some("2"));
    assert_eq!(recs[1].line, 6);
}

#[test]
fn notes_and_field_lines_are_kept_in_order() {
    let text = "# rec / RFC 1\n#   first note\n#   second = note\nkey = 00ff\npt = ab\n";
    let recs = parse(text).unwrap();
    assert_eq!(recs[0].notes, vec!["first note", "second = note"]);
    let names: Vec<_> = recs[0].fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["key", "pt"]);
    assert_eq!(recs[0].fields[1].line, 5);
}

#[test]
fn empty_values_are_empty_strings() {
    let recs = parse("# r / s\npt =\naad =   \nct = 00\n").unwrap();
    assert_eq!(recs[0].get("pt"), Some(""));
    assert_eq!(recs[0].get("aad"), Some(""));
    assert_eq!(recs[0].get("ct"), Some("00"));
}

#[test]
fn preamble_blocks_are_not_records() {
    let text = "# Title\n#   FORMAT\n#   cipher = x (this is prose)\n\n# r / s\nk = 1\n\n# trailing comment block\n";
    let recs = parse(text).unwrap();
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0].name, "r");
    assert!(parse("").unwrap().is_empty());
    assert!(parse("\n\n# only a preamble\n").unwrap().is_empty());
}

#[test]
fn header_without_source_is_accepted() {
    let recs = parse("# lonely-name\nk = 1\n").unwrap();
    assert_eq!(recs[0].name, "lonely-name");
    assert_eq!(recs[0].source, "");
}

#[test]
fn malformed_line_is_reported_with_its_number() {
    let err = parse("# r / s\ncipher = aes128\nthis line has no equals sign\n").unwrap_err();
    assert_eq!(err.line, 3);
    assert!(err.to_string().starts_with("line 3:"), "{err}");
}

#[test]
fn missing_field_name_is_an_error() {
    let err = parse("# r / s\n= 00\n").unwrap_err();
    assert_eq!(err.line, 2);
    let err = parse("# r / s\nbad name = 00\n").unwrap_err();
    assert_eq!(err.line, 2);
}

#[test]
fn record_without_header_is_an_error() {
    let err = parse("# r / s\nk = 1\n\nk = 2\n# late header\n").unwrap_err();
    assert_eq!(err.line, 4);
}

#[test]
fn repeated_field_is_an_error() {
    let err = parse("# r / s\nkey = 00\npt = 01\nkey = 02\n").unwrap_err();
    assert_eq!(err.line, 4);
    assert!(err.message.contains("key"), "{err}");
}

#[test]
fn run_text_reports_a_malformed_record_and_goes_on() {
    let text = "# broken / s\ngarbage\n\n# table / s\ncipher = nonsense\nmode = table\n";
    let results = run_text(text);
    assert_eq!(results.len(), 2);
    assert_eq!(results[0].0, "line 2");
    assert!(matches!(&results[0].1, Outcome::Fail(m) if m.contains("parse error")));
    assert_eq!(results[1].0, "table");
    assert!(matches!(results[1].1, Outcome::Skip(_)));
}

#[test]
fn summary_and_outcome_formats() {
    let results = vec![
        ("a".to_string(), Outcome::Pass),
        ("b".to_string(), Outcome::Fail("ct differs".into())),
        ("c".to_string(), Outcome::Skip("unknown mode".into())),
        ("d".to_string(), Outcome::Pass),
    ];
    let s = Summary::of(&results);
    assert_eq!(s.to_string(), "2 passed, 1 failed, 1 skipped");
    assert_eq!(
        Summary::default().to_string(),
        "0 passed, 0 failed, 0 skipped"
    );
    assert_eq!(Outcome::Pass.to_string(), "pass");
    assert_eq!(Outcome::Fail("x".into()).to_string(), "FAIL: x");
    assert_eq!(Outcome::Skip("y".into()).to_string(), "skip: y");
}
