//! `shifr report merge`: `shifr bench --json` results from several machines in one seed-style
//! report — one row per machine with its processor and shifr backends named, the AEADs of the
//! summary at 16 KiB (shifr and the best peer; a table for encryption and one for decryption, for
//! each direction the rows measured), each machine's answers, a CSV of the comparison, the merged
//! rows as CSV, and a bar chart.
//!
//! A machine is the `machine` field of its rows (`shifr bench --machine NAME`, else the host
//! name); rows without one are named after their file.

use crate::report::chart::{self, Chart, Kind, Series};
use crate::report::csv::{self, Csv};
use crate::report::markdown::Markdown;
use crate::run::Row;
use crate::summary;
use crate::BenchError;
use std::path::{Path, PathBuf};

/// The comparison columns: algorithm and message size.
pub const COLUMNS: &[(&str, usize)] = &[
    ("aes-128-gcm", 16 * 1024),
    ("aes-256-gcm", 16 * 1024),
    ("chacha20-poly1305", 16 * 1024),
    ("kuznyechik-mgm", 16 * 1024),
    ("magma-mgm", 16 * 1024),
];

/// One machine's rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Machine {
    /// Its name.
    pub name: String,
    /// Processor model, where the rows say.
    pub cpu: String,
    /// shifr backends the processor supports, where the rows say.
    pub backends: String,
    /// Every row measured there.
    pub rows: Vec<Row>,
}

/// One cell of the comparison: shifr's MB/s and the best peer's.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// shifr's MB/s and backend.
    pub shifr: Option<(f64, String)>,
    /// The fastest peer: name and MB/s.
    pub peer: Option<(String, f64)>,
    /// A deciding row was contended.
    pub busy: bool,
}

/// Reads `shifr bench --json` files and groups their rows by machine, in order of appearance.
pub fn read(files: &[PathBuf]) -> Result<Vec<Machine>, BenchError> {
    let mut named = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f)
            .map_err(|e| BenchError::Invalid(format!("{}: {e}", f.display())))?;
        let rows: Vec<Row> = serde_json::from_str(&text).map_err(|e| {
            BenchError::Invalid(format!(
                "{}: not the JSON of `shifr bench --json`: {e}",
                f.display()
            ))
        })?;
        let stem = f.file_stem().map_or_else(
            || f.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        named.push((stem, rows));
    }
    Ok(group(named))
}

/// Groups rows by machine (a row's `machine`, else the name of its source).
pub fn group(sources: Vec<(String, Vec<Row>)>) -> Vec<Machine> {
    let mut machines: Vec<Machine> = Vec::new();
    for (source, rows) in sources {
        for mut r in rows {
            let name = r.machine.clone().unwrap_or_else(|| source.clone());
            r.machine = Some(name.clone());
            let i = match machines.iter().position(|m| m.name == name) {
                Some(i) => i,
                None => {
                    machines.push(Machine {
                        name,
                        cpu: String::new(),
                        backends: String::new(),
                        rows: Vec::new(),
                    });
                    machines.len() - 1
                }
            };
            let m = &mut machines[i];
            if m.cpu.is_empty() {
                m.cpu = r.cpu.clone().unwrap_or_default();
            }
            if m.backends.is_empty() {
                m.backends = r.cpu_backends.clone().unwrap_or_default();
            }
            m.rows.push(r);
        }
    }
    machines
}

/// A direction a comparison table is made for.
#[derive(Clone, Copy)]
struct Direction {
    /// `Row::direction`.
    name: &'static str,
    /// The words its table is introduced with.
    intro: &'static str,
    /// Its noun in the chart title.
    noun: &'static str,
}

/// The directions, in table order.
const DIRECTIONS: &[Direction] = &[
    Direction {
        name: "encrypt",
        intro: "Encryption:",
        noun: "encryption",
    },
    Direction {
        name: "decrypt",
        intro:
            "Decryption (AEADs open a sealed message each call, its copy into the buffer counted):",
        noun: "decryption",
    },
];

/// A row that can decide a comparison cell: one thread, one stream, no scenario.
fn comparable(r: &Row) -> bool {
    r.threads == 1 && r.streams == 1 && r.scenario.is_none()
}

/// The directions of [`DIRECTIONS`] that some machine measured; encryption alone when none did,
/// so that the report still shows its (empty) table.
fn measured_directions(machines: &[Machine]) -> Vec<Direction> {
    let measured: Vec<_> = DIRECTIONS
        .iter()
        .copied()
        .filter(|d| {
            machines
                .iter()
                .flat_map(|m| &m.rows)
                .any(|r| r.direction == d.name && comparable(r))
        })
        .collect();
    if measured.is_empty() {
        DIRECTIONS[..1].to_vec()
    } else {
        measured
    }
}

/// shifr and the best peer for `alg` at `bytes` in `direction` (one thread, one stream).
pub fn cell(rows: &[Row], alg: &str, bytes: usize, direction: &str) -> Cell {
    let fitting = rows.iter().filter(|r| {
        r.algorithm == alg && r.bytes == bytes && r.direction == direction && comparable(r)
    });
    let mut shifr: Option<&Row> = None;
    let mut peer: Option<&Row> = None;
    for r in fitting {
        let slot = if r.implementation == "shifr" {
            &mut shifr
        } else {
            &mut peer
        };
        if slot.is_none_or(|best| r.mb_s > best.mb_s) {
            *slot = Some(r);
        }
    }
    Cell {
        shifr: shifr.map(|r| (r.mb_s, r.backend.clone())),
        peer: peer.map(|r| (r.implementation.clone(), r.mb_s)),
        busy: shifr.is_some_and(|r| r.contended) || peer.is_some_and(|r| r.contended),
    }
}

fn cell_text(c: &Cell) -> String {
    let shifr = c.shifr.as_ref().map_or("-".to_string(), |(mb, backend)| {
        format!("{mb:.0} ({backend})")
    });
    let peer = c
        .peer
        .as_ref()
        .map_or("-".to_string(), |(name, mb)| format!("{mb:.0} ({name})"));
    let busy = if c.busy { " busy" } else { "" };
    format!("{shifr} / {peer}{busy}")
}

/// Writes report.md, machines.csv, merged.csv and machines.png into `out`; returns the files.
pub fn write(machines: &[Machine], out: &Path) -> Result<Vec<PathBuf>, BenchError> {
    if machines.is_empty() {
        return Err(BenchError::Invalid("no rows to merge".into()));
    }
    std::fs::create_dir_all(out)?;
    let mut md = Markdown::new();
    md.heading(1, "shifr bench on several machines");
    md.para(
        "One row per machine. Each cell: shifr's MB/s (10^6 bytes/s, median sample; the backend that \
         ran) / the fastest peer's MB/s (its name), one thread, 16 KiB messages. \"busy\": the row \
         was contended when measured (see docs/BENCHMARKS.md), so the cell is not to be compared.",
    );
    let mut header = vec!["Machine", "CPU", "shifr backends"];
    header.extend(COLUMNS.iter().map(|(a, _)| *a));
    let directions = measured_directions(machines);
    let mut comparison = Csv::new(&[
        "machine",
        "cpu",
        "cpu_backends",
        "algorithm",
        "bytes",
        "shifr_mb_s",
        "shifr_backend",
        "best_peer",
        "best_peer_mb_s",
        "busy",
        "direction",
    ]);
    for d in &directions {
        md.para(d.intro);
        let mut table = Vec::new();
        for m in machines {
            let mut line = vec![m.name.clone(), m.cpu.clone(), m.backends.clone()];
            for (alg, bytes) in COLUMNS {
                let c = cell(&m.rows, alg, *bytes, d.name);
                line.push(cell_text(&c));
                let (shifr_mb, shifr_backend) = c
                    .shifr
                    .as_ref()
                    .map_or((String::new(), String::new()), |(mb, b)| {
                        (format!("{mb:.1}"), b.clone())
                    });
                let (peer, peer_mb) = c
                    .peer
                    .as_ref()
                    .map_or((String::new(), String::new()), |(n, mb)| {
                        (n.clone(), format!("{mb:.1}"))
                    });
                comparison.row(vec![
                    m.name.clone(),
                    m.cpu.clone(),
                    m.backends.clone(),
                    alg.to_string(),
                    bytes.to_string(),
                    shifr_mb,
                    shifr_backend,
                    peer,
                    peer_mb,
                    c.busy.to_string(),
                    d.name.to_string(),
                ]);
            }
            table.push(line);
        }
        md.table(&header, &table);
    }
    md.heading(2, "The answer on each machine");
    let mut header = vec!["Machine"];
    header.extend(summary::USES.iter().map(|u| u.label));
    let answers: Vec<Vec<String>> = machines
        .iter()
        .map(|m| {
            let mut line = vec![m.name.clone()];
            for a in summary::answers(&m.rows) {
                line.push(match a.pick {
                    None => "not measured".into(),
                    Some(p) => format!(
                        "{} ({}{})",
                        p.algorithm,
                        p.winner,
                        if p.busy { ", busy" } else { "" }
                    ),
                });
            }
            line
        })
        .collect();
    md.table(&header, &answers);
    md.para("Each cell: the fastest AEAD for that use on that machine, and the implementation that ran it fastest.");
    md.image("shifr MB/s per machine", "machines.png");
    let charted = directions[0];
    let chart = Chart {
        title: format!("shifr, one thread, 16 KiB messages, {}", charted.noun),
        x_label: "algorithm".into(),
        y_label: "MB/s".into(),
        kind: Kind::Bars,
        categories: COLUMNS.iter().map(|(a, _)| a.to_string()).collect(),
        series: machines
            .iter()
            .map(|m| Series {
                name: m.name.clone(),
                points: COLUMNS
                    .iter()
                    .enumerate()
                    .filter_map(|(i, (alg, bytes))| {
                        cell(&m.rows, alg, *bytes, charted.name)
                            .shifr
                            .map(|(mb, _)| (i as f64, mb))
                    })
                    .collect(),
            })
            .collect(),
    };
    let files = [
        out.join("report.md"),
        out.join("machines.csv"),
        out.join("merged.csv"),
        out.join("machines.png"),
    ];
    std::fs::write(&files[0], md.finish())?;
    comparison.write(&files[1])?;
    let all: Vec<Row> = machines.iter().flat_map(|m| m.rows.clone()).collect();
    std::fs::write(&files[2], csv::render(&all))?;
    chart::write_png(&chart, &files[3], (900, 540)).map_err(BenchError::Plot)?;
    Ok(files.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::tests::sample_rows;

    fn row(machine: Option<&str>, implementation: &str, alg: &str, mb_s: f64) -> Row {
        Row {
            implementation: implementation.into(),
            algorithm: alg.into(),
            mb_s,
            machine: machine.map(String::from),
            cpu: machine.map(|_| "Some CPU".to_string()),
            ..sample_rows()[0].clone()
        }
    }

    #[test]
    fn rows_group_by_machine_then_by_source() {
        let machines = group(vec![
            (
                "a".into(),
                vec![
                    row(Some("x"), "shifr", "aes-128-gcm", 1.0),
                    row(None, "shifr", "aes-128-gcm", 2.0),
                ],
            ),
            ("b".into(), vec![row(Some("x"), "ring", "aes-128-gcm", 3.0)]),
        ]);
        let names: Vec<&str> = machines.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["x", "a"]);
        assert_eq!(machines[0].rows.len(), 2);
        assert_eq!(machines[0].cpu, "Some CPU");
        let c = cell(&machines[0].rows, "aes-128-gcm", 16384, "encrypt");
        assert_eq!(c.shifr.map(|s| s.0), Some(1.0));
        assert_eq!(c.peer, Some(("ring".to_string(), 3.0)));
        assert!(cell(&machines[0].rows, "magma-mgm", 16384, "encrypt")
            .shifr
            .is_none());
        assert_eq!(
            cell(&machines[0].rows, "aes-128-gcm", 16384, "decrypt"),
            Cell {
                shifr: None,
                peer: None,
                busy: false
            }
        );
    }

    fn decrypting(mut r: Row) -> Row {
        r.direction = "decrypt".into();
        r
    }

    #[test]
    fn decryption_rows_get_their_own_table_and_csv_lines() {
        let rows = vec![
            row(Some("x"), "shifr", "aes-128-gcm", 10.0),
            row(Some("x"), "ring", "aes-128-gcm", 9.0),
            decrypting(row(Some("x"), "shifr", "aes-128-gcm", 8.0)),
            decrypting(row(Some("x"), "ring", "aes-128-gcm", 7.0)),
        ];
        let machines = group(vec![("a".into(), rows.clone())]);
        let c = cell(&machines[0].rows, "aes-128-gcm", 16384, "decrypt");
        assert_eq!(c.shifr.map(|s| s.0), Some(8.0));
        assert_eq!(c.peer, Some(("ring".to_string(), 7.0)));

        let out = std::env::temp_dir().join(format!("shifr-merge-test-{}", std::process::id()));
        let check = |machines: &[Machine], tables: &[&str]| {
            write(machines, &out).unwrap();
            let md = std::fs::read_to_string(out.join("report.md")).unwrap();
            let intros: Vec<&str> = DIRECTIONS
                .iter()
                .filter(|d| md.contains(d.intro))
                .map(|d| d.name)
                .collect();
            assert_eq!(intros, tables, "{md}");
            let csv = std::fs::read_to_string(out.join("machines.csv")).unwrap();
            for d in tables {
                let lines = csv.lines().filter(|l| l.ends_with(&format!(",{d}")));
                assert_eq!(lines.count(), COLUMNS.len(), "{csv}");
            }
            assert_eq!(csv.lines().count(), 1 + COLUMNS.len() * tables.len());
            md
        };
        let md = check(&machines, &["encrypt", "decrypt"]);
        assert!(md.contains("10 (") && md.contains("8 (") && md.contains("7 (ring)"));
        // Decryption alone: its table, and the chart from it.
        let opened = group(vec![("a".into(), rows[2..].to_vec())]);
        check(&opened, &["decrypt"]);
        // No comparable row (only a two-thread one): the (empty) encryption table still stands.
        let mut threaded = rows[2].clone();
        threaded.threads = 2;
        check(&group(vec![("a".into(), vec![threaded])]), &["encrypt"]);
        std::fs::remove_dir_all(&out).unwrap();
    }
}
