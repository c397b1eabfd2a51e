//! Charts, each as PNG and SVG: MB/s by message size per algorithm, cycles/byte bars, and scaling by
//! threads. Text is drawn with the embedded DejaVu Sans Mono (Bitstream Vera licence), so no system
//! font is needed.

use crate::run::Row;
use crate::BenchError;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Once;

const FONT: &[u8] = include_bytes!("../../assets/DejaVuSansMono.ttf");
const FAMILY: &str = "sans-serif";

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The embedded font is a valid TrueType file; a failure would only lose the text.
        let _ = plotters::style::register_font(FAMILY, FontStyle::Normal, FONT);
    });
}

fn plot_err<E: std::fmt::Display>(e: E) -> BenchError {
    BenchError::Plot(e.to_string())
}

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
    register_font();
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for name in ["throughput", "cycles", "scaling"] {
        let size = chart_size(name, rows);
        let svg = dir.join(format!("{prefix}{name}.svg"));
        {
            let root = SVGBackend::new(&svg, size).into_drawing_area();
            draw(name, &root, rows)?;
            root.present().map_err(plot_err)?;
        }
        written.push(svg);
        let png = dir.join(format!("{prefix}{name}.png"));
        let mut pixels = vec![0u8; size.0 as usize * size.1 as usize * 3];
        {
            let root = BitMapBackend::with_buffer(&mut pixels, size).into_drawing_area();
            draw(name, &root, rows)?;
            root.present().map_err(plot_err)?;
        }
        crate::png_file::write_rgb_png(&png, size, &pixels)?;
        written.push(png);
    }
    Ok(written)
}

/// Draws the chart called `name` on any back-end.
fn draw<DB: DrawingBackend>(
    name: &str,
    area: &DrawingArea<DB, Shift>,
    rows: &[Row],
) -> Result<(), BenchError> {
    match name {
        "throughput" => throughput(area, rows),
        "cycles" => cycles(area, rows),
        _ => scaling(area, rows),
    }
}

fn chart_size(name: &str, rows: &[Row]) -> (u32, u32) {
    match name {
        "cycles" => (1200, (160 + 18 * bars(rows).len() as u32).clamp(300, 4000)),
        _ => (1400, 900),
    }
}

/// Series label: `algorithm` for shifr, `algorithm (peer)` for peers.
fn label(r: &Row) -> String {
    if r.implementation == "shifr" {
        r.algorithm.clone()
    } else {
        format!("{} ({})", r.algorithm, r.implementation)
    }
}

fn color(i: usize) -> RGBAColor {
    Palette99::pick(i).to_rgba()
}

/// MB/s against message size (log-log), one line per algorithm and implementation (1 thread).
fn throughput<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    rows: &[Row],
) -> Result<(), BenchError> {
    area.fill(&WHITE).map_err(plot_err)?;
    let mut series: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.threads == 1 && r.mb_s > 0.0) {
        series
            .entry(label(r))
            .or_default()
            .push((r.bytes as f64, r.mb_s));
    }
    let xs = rows.iter().map(|r| r.bytes as f64);
    let ys = rows.iter().map(|r| r.mb_s).filter(|&y| y > 0.0);
    let (x0, x1) = bounds(xs, 16.0, 1048576.0);
    let (y0, y1) = bounds(ys, 1.0, 1000.0);
    let mut chart = ChartBuilder::on(area)
        .caption("Throughput by message size (1 thread)", (FAMILY, 22))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(
            (x0 / 1.5..x1 * 1.5).log_scale(),
            (y0 / 1.5..y1 * 1.5).log_scale(),
        )
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .x_desc("message size, bytes")
        .y_desc("MB/s (10^6 B/s)")
        .label_style((FAMILY, 13))
        .draw()
        .map_err(plot_err)?;
    for (i, (name, mut pts)) in series.into_iter().enumerate() {
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let c = color(i);
        chart
            .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
            .map_err(plot_err)?
            .label(name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2)));
        chart
            .draw_series(pts.into_iter().map(|p| Circle::new(p, 3, c.filled())))
            .map_err(plot_err)?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font((FAMILY, 11))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(plot_err)
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

fn cycles<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    rows: &[Row],
) -> Result<(), BenchError> {
    area.fill(&WHITE).map_err(plot_err)?;
    let data = bars(rows);
    let largest = rows
        .iter()
        .filter(|r| r.threads == 1)
        .map(|r| r.bytes)
        .max();
    let max = data.iter().map(|d| d.1).fold(1.0f64, f64::max) * 1.1;
    let n = data.len().max(1) as i32;
    let names: Vec<String> = data.iter().map(|d| d.0.clone()).collect();
    let caption = format!(
        "Cycles per byte at {} (1 thread; shorter is faster)",
        largest.map_or("-".into(), crate::sizes::human)
    );
    let mut chart = ChartBuilder::on(area)
        .caption(caption, (FAMILY, 22))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(300)
        .build_cartesian_2d(0f64..max, 0i32..n)
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(n as usize)
        .y_label_formatter(&|i| names.get(*i as usize).cloned().unwrap_or_default())
        .x_desc("cycles / byte")
        .label_style((FAMILY, 12))
        .draw()
        .map_err(plot_err)?;
    chart
        .draw_series(data.iter().enumerate().map(|(i, (name, v))| {
            let c = if name.contains('(') {
                color(3)
            } else {
                color(0)
            };
            Rectangle::new([(0.0, i as i32), (*v, i as i32 + 1)], c.filled())
        }))
        .map_err(plot_err)?;
    Ok(())
}

/// MB/s against threads, one line per algorithm, implementation and size.
fn scaling<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    rows: &[Row],
) -> Result<(), BenchError> {
    area.fill(&WHITE).map_err(plot_err)?;
    let mut series: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.mb_s > 0.0) {
        let key = format!("{} {}", label(r), crate::sizes::human(r.bytes));
        series
            .entry(key)
            .or_default()
            .push((r.threads as f64, r.mb_s));
    }
    let multi = rows.iter().any(|r| r.threads > 1);
    // Without multi-threaded rows there is nothing to scale: keep the chart small and say so.
    if !multi {
        series.retain(|_, v| v.len() > 1);
    }
    let max_threads = rows.iter().map(|r| r.threads).max().unwrap_or(1).max(2) as f64;
    let y1 = rows.iter().map(|r| r.mb_s).fold(1.0f64, f64::max) * 1.1;
    let caption = if multi {
        "Scaling by threads".to_string()
    } else {
        "Scaling by threads (no multi-threaded rows: run with --threads 1,2,...)".to_string()
    };
    let mut chart = ChartBuilder::on(area)
        .caption(caption, (FAMILY, 22))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(0.5f64..max_threads + 0.5, 0f64..y1)
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .x_desc("threads")
        .y_desc("MB/s (10^6 B/s)")
        .label_style((FAMILY, 13))
        .draw()
        .map_err(plot_err)?;
    for (i, (name, mut pts)) in series.into_iter().enumerate() {
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let c = color(i);
        chart
            .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
            .map_err(plot_err)?
            .label(name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2)));
        chart
            .draw_series(pts.into_iter().map(|p| Circle::new(p, 3, c.filled())))
            .map_err(plot_err)?;
    }
    if multi {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font((FAMILY, 11))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(plot_err)?;
    }
    Ok(())
}

/// Min and max of positive values, or the defaults when there are none.
fn bounds(values: impl Iterator<Item = f64>, lo: f64, hi: f64) -> (f64, f64) {
    let (mut a, mut b) = (f64::INFINITY, 0.0f64);
    for v in values.filter(|v| *v > 0.0 && v.is_finite()) {
        a = a.min(v);
        b = b.max(v);
    }
    if a.is_finite() && b > 0.0 {
        (a, b)
    } else {
        (lo, hi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::tests::sample_rows;

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
}
