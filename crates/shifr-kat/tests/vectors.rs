//! Runs the project's shared vector files through the KAT runner: every record must pass.
//!
//! The files live in `shared/vectors/` next to the checkout (or next to the worktree directory, for
//! the helpers' worktrees under `wt/`); `SHIFR_VECTORS_DIR` overrides. When they are missing the
//! test says so and does nothing.

use std::path::PathBuf;

use shifr_kat::{run_text, Outcome, Summary};

fn vector_path(file: &str) -> PathBuf {
    let mut dirs: Vec<PathBuf> = std::env::var_os("SHIFR_VECTORS_DIR")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    dirs.push(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/vectors/").into());
    dirs.push(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../../shared/vectors/").into());
    dirs.iter()
        .map(|d| d.join(file))
        .find(|p| p.is_file())
        .unwrap_or_else(|| dirs[0].join(file))
}

fn run_vector_file(file: &str) {
    let path = vector_path(file);
    let Ok(text) = std::fs::read_to_string(&path) else {
        println!("skipping: vector file {} not found", path.display());
        return;
    };
    let results = run_text(&text);
    for (name, outcome) in &results {
        println!("{name}: {outcome}");
    }
    let summary = Summary::of(&results);
    println!("{file}: {summary}");
    assert!(results.len() > 10, "{file}: suspiciously few records");
    let bad: Vec<_> = results
        .iter()
        .filter(|(_, o)| !matches!(o, Outcome::Pass))
        .map(|(n, o)| format!("{n}: {o}"))
        .collect();
    assert!(bad.is_empty(), "{file}: {summary}\n{}", bad.join("\n"));
}

#[test]
fn std_vectors_all_pass() {
    run_vector_file("std.txt");
}

#[test]
fn gost_vectors_all_pass() {
    run_vector_file("gost.txt");
}
