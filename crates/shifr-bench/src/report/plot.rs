//! `shifr bench --plot DIR`: the rows as charts, each as PNG and SVG ([`super::chart`]): MB/s by
//! message size per algorithm, cycles/byte bars, and scaling by threads.

use crate::report::chart::{self, Chart, Kind, Series};
use crate::run::Row;
use crate::BenchError;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Writes `throughput`, `cycles` and `scaling` charts (`.png` and `.svg`) into `dir`; returns the
/// files written.
pub fn write_all(rows: &[Row], dir: &Path) -> Result<Vec<PathBuf>, BenchError> {
    write_all_with_prefix(rows, dir, "")
}

/// [`write_all`] with a file-name prefix (`prefix` + `throughput.png`, ...).
pub fn write_all_with_prefix(
    rows: &[Row],
    dir: &Path,
    prefix: &str,
) -> Result<Vec<PathBuf>, BenchError> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for (name, chart) in [
        ("throughput", throughput(rows)),
        ("cycles", cycles(rows)),
        ("scaling", scaling(rows)),
    ] {
        let size = chart_size(name, rows);
        let svg = dir.join(format!("{prefix}{name}.svg"));
        chart::write_svg(&chart, &svg, size).map_err(BenchError::Plot)?;
        written.push(svg);
        let png = dir.join(format!("{prefix}{name}.png"));
        chart::write_png(&chart, &png, size).map_err(BenchError::Plot)?;
        written.push(png);
    }
    Ok(written)
}

fn chart_size(name: &str, rows: &[Row]) -> (u32, u32) {
    match name {
        "cycles" => (1200, (160 + 18 * bars(rows).len() as u32).clamp(300, 4000)),
        _ => (1400, 900),
    }
}

/// Series label: `algorithm` for shifr, `algorithm (peer)` for peers; a decryption row's algorithm
/// is followed by ` dec`, so the two directions never share a series or a bar.
fn label(r: &Row) -> String {
    let dec = if r.direction == "decrypt" { " dec" } else { "" };
    if r.implementation == "shifr" {
        format!("{}{dec}", r.algorithm)
    } else {
        format!("{}{dec} ({})", r.algorithm, r.implementation)
    }
}

/// Named series from `(name, point)` pairs, in name order, each sorted by x.
fn series(points: impl Iterator<Item = (String, (f64, f64))>) -> Vec<Series> {
    let mut by_name: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for (name, p) in points {
        by_name.entry(name).or_default().push(p);
    }
    by_name
        .into_iter()
        .map(|(name, mut points)| {
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            Series { name, points }
        })
        .collect()
}

/// MB/s against message size (log-log), one line per algorithm and implementation (1 thread).
fn throughput(rows: &[Row]) -> Chart {
    let one_thread = rows.iter().filter(|r| r.threads == 1 && r.mb_s > 0.0);
    Chart {
        title: "Throughput by message size (1 thread)".into(),
        x_label: "message size, bytes".into(),
        y_label: "MB/s (10^6 B/s)".into(),
        kind: Kind::LogLines,
        categories: Vec::new(),
        series: series(one_thread.map(|r| (label(r), (r.bytes as f64, r.mb_s)))),
    }
}

/// One bar per algorithm and implementation: cycles/byte at the largest single-thread size measured.
fn bars(rows: &[Row]) -> Vec<(String, f64)> {
    let largest = rows
        .iter()
        .filter(|r| r.threads == 1)
        .map(|r| r.bytes)
        .max()
        .unwrap_or(0);
    rows.iter()
        .filter(|r| r.threads == 1 && r.streams == 1 && r.bytes == largest)
        .filter_map(|r| r.cycles_per_byte.map(|c| (label(r), c)))
        .collect()
}

/// The [`bars`], shifr's and the peers' told apart by colour.
fn cycles(rows: &[Row]) -> Chart {
    let data = bars(rows);
    let largest = rows
        .iter()
        .filter(|r| r.threads == 1)
        .map(|r| r.bytes)
        .max();
    let of = |peers: bool, name: &str| {
        let points = data.iter().enumerate();
        let points = points.filter(|(_, (label, _))| label.contains('(') == peers);
        Series {
            name: name.into(),
            points: points.map(|(i, (_, c))| (i as f64, *c)).collect(),
        }
    };
    Chart {
        title: format!(
            "Cycles per byte at {} (1 thread; shorter is faster)",
            largest.map_or("-".into(), crate::sizes::human)
        ),
        x_label: "cycles / byte".into(),
        y_label: String::new(),
        kind: Kind::HBars,
        categories: data.iter().map(|d| d.0.clone()).collect(),
        series: vec![of(false, "shifr"), of(true, "peers")],
    }
}

/// MB/s against threads, one line per algorithm, implementation and size.
fn scaling(rows: &[Row]) -> Chart {
    let measured = rows.iter().filter(|r| r.mb_s > 0.0);
    let mut lines = series(measured.map(|r| {
        let key = format!("{} {}", label(r), crate::sizes::human(r.bytes));
        (key, (r.threads as f64, r.mb_s))
    }));
    let multi = rows.iter().any(|r| r.threads > 1);
    // Without multi-threaded rows there is nothing to scale: keep only lines (none) and say so.
    if !multi {
        lines.retain(|s| s.points.len() > 1);
    }
    Chart {
        title: if multi {
            "Scaling by threads".into()
        } else {
            "Scaling by threads (no multi-threaded rows: run with --threads 1,2,...)".into()
        },
        x_label: "threads".into(),
        y_label: "MB/s (10^6 B/s)".into(),
        kind: Kind::Lines,
        categories: Vec::new(),
        series: lines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::tests::{sample_rows, with_decryption_copies};

    #[test]
    fn writes_valid_png_and_svg_files() {
        let dir = std::env::temp_dir().join(format!("shifr-bench-plot-{}", std::process::id()));
        let mut rows = sample_rows();
        let mut small = rows[0].clone();
        small.bytes = 64;
        small.mb_s = 300.0;
        let mut two = rows[0].clone();
        two.threads = 2;
        two.mb_s = 3900.0;
        rows.extend([small, two]);
        let files = write_all(&rows, &dir).unwrap();
        assert_eq!(files.len(), 6);
        for f in &files {
            let bytes = std::fs::read(f).unwrap();
            if f.extension().unwrap() == "png" {
                assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{}", f.display());
                assert!(bytes.len() > 1000);
            } else {
                let text = String::from_utf8(bytes).unwrap();
                assert!(text.contains("<svg"), "{}", f.display());
                assert!(text.trim_end().ends_with("</svg>"));
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn directions_get_their_own_series() {
        let rows = with_decryption_copies(sample_rows());
        let names: Vec<String> = throughput(&rows)
            .series
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(
            names,
            [
                "aes-128-gcm",
                "aes-128-gcm (openssl)",
                "aes-128-gcm dec",
                "aes-128-gcm dec (openssl)"
            ]
        );
    }
}
