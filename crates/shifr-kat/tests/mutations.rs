//! Mutation tests over every record of the shared vector files: a copy of a record with any one
//! hex field changed must FAIL (so every field is really compared), a copy with an unknown field
//! must be skipped, and a tag-bearing record marked `result = invalid` must pass only when its tag
//! has been broken.

use std::path::PathBuf;

use shifr_kat::{check, parse, Field, Outcome, Record};

/// Fields that hold decimal numbers or words, not hex byte strings.
const NOT_HEX: &[&str] = &[
    "cipher",
    "mode",
    "result",
    "s",
    "m",
    "section_bits",
    "tstar_bits",
    "tag_bits",
    "counter",
    "index",
];

fn vector_records() -> Vec<Record> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("SHIFR_VECTORS_DIR")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    dirs.push(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/vectors/").into());
    dirs.push(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../../shared/vectors/").into());
    let mut records = Vec::new();
    for file in ["std.txt", "gost.txt"] {
        match dirs.iter().map(|d| d.join(file)).find(|p| p.is_file()) {
            Some(path) => {
                let text = std::fs::read_to_string(&path).expect("readable vector file");
                records.extend(parse(&text).expect("vector file parses"));
            }
            None => println!("skipping {file}: vector file not found"),
        }
    }
    records
}

/// The record with field `name`'s value replaced.
fn with_value(r: &Record, name: &str, value: String) -> Record {
    let mut r = r.clone();
    for f in &mut r.fields {
        if f.name == name {
            f.value = value.clone();
        }
    }
    r
}

/// Flips the top bit of the first byte of a hex value.
fn flip_first(value: &str) -> String {
    let first = u8::from_str_radix(&value[..1], 16).expect("hex digit");
    format!("{:x}{}", first ^ 8, &value[1..])
}

/// Flips the lowest bit of the last byte of a hex value.
fn flip_last(value: &str) -> String {
    let cut = value.len() - 1;
    let last = u8::from_str_radix(&value[cut..], 16).expect("hex digit");
    format!("{}{:x}", &value[..cut], last ^ 1)
}

fn add_field(r: &Record, name: &str, value: &str) -> Record {
    let mut r = r.clone();
    r.fields.push(Field {
        name: name.into(),
        value: value.into(),
        line: 0,
    });
    r
}

/// Mutants that provably cannot change any output, so no check can catch them.
fn equivalent_mutant(r: &Record, field: &str, before: &str, after: &str) -> bool {
    let cipher = r.get("cipher").unwrap_or("");
    // DES ignores the lowest bit of every key byte (the parity bit).
    let des_parity = cipher == "tdes"
        && field == "key"
        && before.len() == after.len()
        && before[..before.len() - 1] == after[..after.len() - 1];
    // Poly1305 with r = 0 yields the tag s for every message.
    let zero_r = cipher == "poly1305"
        && field == "pt"
        && r.get("key")
            .is_some_and(|k| k.len() == 64 && k[..32].bytes().all(|b| b == b'0'));
    des_parity || zero_r
}

#[test]
fn every_hex_field_of_every_record_is_checked() {
    let records = vector_records();
    let mut survivors = Vec::new();
    let mut mutants = 0;
    for r in &records {
        assert_eq!(check(r), Outcome::Pass, "{} must pass unmodified", r.name);
        for f in r
            .fields
            .iter()
            .filter(|f| !NOT_HEX.contains(&f.name.as_str()))
        {
            if f.value.is_empty() {
                continue;
            }
            for mutated in [flip_first(&f.value), flip_last(&f.value)] {
                if equivalent_mutant(r, &f.name, &f.value, &mutated) {
                    continue;
                }
                mutants += 1;
                let outcome = check(&with_value(r, &f.name, mutated));
                if !outcome.is_fail() {
                    survivors.push(format!("{} field {}: {outcome}", r.name, f.name));
                }
            }
        }
    }
    println!("{mutants} mutants of {} records", records.len());
    assert!(
        survivors.is_empty(),
        "mutants not caught:\n{}",
        survivors.join("\n")
    );
}

#[test]
fn an_unknown_field_makes_every_record_skip() {
    for r in vector_records() {
        match check(&add_field(&r, "frobnicate", "00")) {
            Outcome::Skip(why) => assert!(why.contains("frobnicate"), "{}: {why}", r.name),
            other => panic!("{}: {other:?}", r.name),
        }
    }
}

#[test]
fn tag_records_marked_invalid_pass_only_with_a_broken_tag() {
    let mut seen = 0;
    for r in vector_records().iter().filter(|r| r.get("tag").is_some()) {
        seen += 1;
        let invalid = add_field(r, "result", "invalid");
        let tag = r.get("tag").unwrap().to_string();
        let broken = with_value(&invalid, "tag", flip_last(&tag));
        assert_eq!(
            check(&broken),
            Outcome::Pass,
            "{} with a broken tag",
            r.name
        );
        match check(&invalid) {
            Outcome::Fail(why) => assert!(why.contains("accepted"), "{}: {why}", r.name),
            other => panic!("{} with its genuine tag: {other:?}", r.name),
        }
    }
    println!("{seen} tag-bearing records");
}

#[test]
fn odd_sizes_in_any_field_never_panic() {
    let sizes = [
        0usize, 1, 3, 7, 8, 9, 12, 15, 16, 17, 23, 24, 31, 32, 33, 64, 200,
    ];
    let mut panics = Vec::new();
    for r in vector_records() {
        for f in r
            .fields
            .iter()
            .filter(|f| !NOT_HEX.contains(&f.name.as_str()))
        {
            for &n in &sizes {
                for invalid in [false, true] {
                    let mut mutated = with_value(&r, &f.name, "a5".repeat(n));
                    if invalid {
                        mutated = add_field(&mutated, "result", "invalid");
                    }
                    if let Outcome::Fail(why) = check(&mutated) {
                        if why.starts_with("panicked") {
                            panics.push(format!("{} field {} = {n} bytes: {why}", r.name, f.name));
                        }
                    }
                }
            }
        }
    }
    assert!(panics.is_empty(), "panics:\n{}", panics.join("\n"));
}

#[test]
fn extreme_numbers_never_panic() {
    const NUMERIC: &[&str] = &[
        "s",
        "m",
        "section_bits",
        "tstar_bits",
        "tag_bits",
        "counter",
    ];
    let values = [
        "0",
        "1",
        "8",
        "64",
        "128",
        "4294967295",
        "18446744073709551615",
        "99999999999999999999999",
    ];
    let mut panics = Vec::new();
    for r in vector_records() {
        for f in r
            .fields
            .iter()
            .filter(|f| NUMERIC.contains(&f.name.as_str()))
        {
            for v in values {
                if let Outcome::Fail(why) = check(&with_value(&r, &f.name, v.to_string())) {
                    if why.starts_with("panicked") {
                        panics.push(format!("{} field {} = {v}: {why}", r.name, f.name));
                    }
                }
            }
        }
    }
    assert!(panics.is_empty(), "panics:\n{}", panics.join("\n"));
}
