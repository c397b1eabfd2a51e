//! The library stays light: nothing it depends on, directly or through other crates, is OpenSSL,
//! an async runtime or HTTP stack, a TLS stack, a GPU runtime binding or one of the workspace's tool
//! crates. Those belong to the `shifr` binary's optional features (README "Features and platforms").
//!
//! The closure is read from the workspace's Cargo.lock, starting at the `[dependencies]` of this
//! crate's Cargo.toml (dev-dependencies are not part of the library). Cargo.lock lists every
//! dependency a package may use on any target, so the check is conservative: what `cargo tree -p
//! shifr` can show is a subset of what is checked here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Crate names the library must never reach (an entry ending in `*` is a prefix).
const FORBIDDEN: &[&str] = &[
    "openssl*",
    "tokio*",
    "hyper*",
    "rustls*",
    "ring",
    "aws-lc*",
    "cudarc",
    "opencl3",
    "cl3",
    "dlopen2*",
    "libloading",
    "shifr-bench",
    "shifr-studies",
    "shifr-gpu",
    "shifr-tls",
    "shifr-cli",
];

fn forbidden(name: &str) -> bool {
    FORBIDDEN.iter().any(|f| match f.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => name == *f,
    })
}

/// The package names under `[dependencies]` of a Cargo.toml (`package = "..."` renames honoured).
fn direct_dependencies(manifest: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut inside = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[dependencies]";
            continue;
        }
        if !inside || line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let renamed = value
            .split_once("package")
            .and_then(|(_, rest)| rest.split('"').nth(1));
        names.push(renamed.unwrap_or(key.trim()).to_string());
    }
    names
}

/// Cargo.lock as package name -> the names it depends on (all versions of a name merged).
fn lock_graph(lock: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut in_deps = false;
    for line in lock.lines().map(str::trim) {
        if line == "[[package]]" {
            current = None;
            in_deps = false;
        } else if let Some(name) = line.strip_prefix("name = ") {
            let name = name.trim_matches('"').to_string();
            graph.entry(name.clone()).or_default();
            current = Some(name);
        } else if line.starts_with("dependencies = [") {
            in_deps = true;
        } else if in_deps && line == "]" {
            in_deps = false;
        } else if in_deps {
            // ` "name"`, ` "name version"` or ` "name version (source)"`.
            let dep = line.trim_matches(|c| c == '"' || c == ',');
            let dep = dep.split_whitespace().next().unwrap_or(dep).to_string();
            if let Some(pkg) = &current {
                graph.entry(pkg.clone()).or_default().insert(dep);
            }
        }
    }
    graph
}

#[test]
fn the_library_reaches_no_heavy_crate() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(here.join("Cargo.toml")).unwrap();
    let lock = std::fs::read_to_string(here.join("../../Cargo.lock")).unwrap();
    let graph = lock_graph(&lock);

    let direct = direct_dependencies(&manifest);
    assert!(direct.contains(&"argon2".to_string()), "{direct:?}");
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut todo: Vec<(String, String)> = direct.iter().map(|d| (d.clone(), d.clone())).collect();
    while let Some((name, path)) = todo.pop() {
        assert!(!forbidden(&name), "shifr depends on {name} through {path}");
        if !seen.insert(name.clone()) {
            continue;
        }
        let deps = graph
            .get(&name)
            .unwrap_or_else(|| panic!("{name} is not in Cargo.lock"));
        for dep in deps {
            todo.push((dep.clone(), format!("{path} -> {dep}")));
        }
    }
    // The walk really covered the graph below the direct dependencies.
    assert!(seen.contains("sha2") && seen.contains("digest"), "{seen:?}");
}

#[test]
fn the_fence_sees_the_crates_it_keeps_out() {
    let lock = "[[package]]\nname = \"shifr-cli\"\ndependencies = [\n \"openssl 0.10.1\",\n \"tokio\",\n]\n";
    let graph = lock_graph(lock);
    assert_eq!(
        graph["shifr-cli"].iter().collect::<Vec<_>>(),
        ["openssl", "tokio"]
    );
    assert!(forbidden("openssl-sys") && forbidden("ring") && !forbidden("ring-buffer"));
    assert!(!forbidden("sha2") && !forbidden("zeroize"));
    assert_eq!(
        direct_dependencies("[dependencies]\na = \"1\"\nb2 = { package = \"b\", version = \"1\" }\n[dev-dependencies]\nc = \"1\"\n"),
        ["a", "b"]
    );
}
