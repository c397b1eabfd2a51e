//! PNG charts of the studies (plotters, drawn into a pixel buffer and encoded with the png crate, as
//! the library's `report::plot` does; text in the embedded DejaVu Sans Mono so that
//! no system font library is needed): grouped bars by category, and lines or points over a numeric x.

use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

/// The font every chart uses, embedded in the binary.
const FONT: &[u8] = include_bytes!("../../assets/DejaVuSansMono.ttf");

/// How the series are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// One group of bars per category (x = category index), one bar per series.
    Bars,
    /// Lines with markers over a numeric x.
    Lines,
    /// Points only (scatter) over a numeric x.
    Points,
}

/// One named series of (x, y) points.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// Points; for [`Kind::Bars`], x is the category index.
    pub points: Vec<(f64, f64)>,
}

/// A chart to draw.
#[derive(Debug, Clone)]
pub struct Chart {
    /// Title line.
    pub title: String,
    /// X axis description.
    pub x_label: String,
    /// Y axis description.
    pub y_label: String,
    /// How to draw.
    pub kind: Kind,
    /// Category names for [`Kind::Bars`].
    pub categories: Vec<String>,
    /// The data.
    pub series: Vec<Series>,
}

const COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The font is a fixed, known-good file; should registration ever fail, plotters reports the
        // missing font as a drawing error, which `write_png` returns.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

/// Draws `chart` as a PNG of `width` × `height` pixels.
pub fn write_png(chart: &Chart, path: &Path, (width, height): (u32, u32)) -> Result<(), String> {
    register_font();
    let fail = |e: String| format!("chart {}: {e}", path.display());
    let mut pixels = vec![0u8; width as usize * height as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, (width, height)).into_drawing_area();
        draw(chart, &root).map_err(|e| fail(e.to_string()))?;
        root.present().map_err(|e| fail(e.to_string()))?;
    }
    crate::png_file::write_rgb_png(path, (width, height), &pixels).map_err(|e| fail(e.to_string()))
}

fn draw<DB: DrawingBackend>(
    chart: &Chart,
    root: &DrawingArea<DB, plotters::coord::Shift>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let points = chart.series.iter().flat_map(|s| s.points.iter());
    let y_max = points
        .clone()
        .map(|p| p.1)
        .filter(|y| y.is_finite())
        .fold(0.0f64, f64::max)
        .max(1e-9)
        * 1.1;
    let (x_min, x_max) = match chart.kind {
        Kind::Bars => (0.0, chart.categories.len().max(1) as f64),
        _ => {
            let xs = points.map(|p| p.0).filter(|x| x.is_finite());
            let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
                (lo.min(x), hi.max(x))
            });
            if lo.is_finite() && hi > lo {
                (lo, hi + (hi - lo) * 0.02)
            } else {
                (0.0, 1.0)
            }
        }
    };
    let mut ctx = ChartBuilder::on(root)
        .caption(&chart.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(55)
        .y_label_area_size(70)
        .build_cartesian_2d(x_min..x_max, 0.0..y_max)?;
    let categories = chart.categories.clone();
    let bars = chart.kind == Kind::Bars;
    ctx.configure_mesh()
        .x_desc(&chart.x_label)
        .y_desc(&chart.y_label)
        .x_labels(if bars { categories.len() * 2 + 1 } else { 10 })
        .x_label_formatter(&|x| {
            if bars {
                let i = x.floor() as usize;
                if (x - x.floor() - 0.5).abs() < 1e-6 && i < categories.len() {
                    categories[i].clone()
                } else {
                    String::new()
                }
            } else {
                format!("{x:.0}")
            }
        })
        .label_style(("sans-serif", 12))
        .draw()?;
    let n = chart.series.len().max(1) as f64;
    for (k, series) in chart.series.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        let drawn =
            match chart.kind {
                Kind::Bars => {
                    let width = 0.8 / n;
                    ctx.draw_series(series.points.iter().filter(|p| p.1.is_finite()).map(
                        |&(x, y)| {
                            let left = x + 0.1 + width * k as f64;
                            Rectangle::new([(left, 0.0), (left + width * 0.95, y)], color.filled())
                        },
                    ))?
                }
                Kind::Lines => {
                    let pts: Vec<(f64, f64)> = series
                        .points
                        .iter()
                        .copied()
                        .filter(|p| p.1.is_finite())
                        .collect();
                    ctx.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
                    ctx.draw_series(LineSeries::new(pts, color.stroke_width(2)))?
                }
                Kind::Points => ctx.draw_series(
                    series
                        .points
                        .iter()
                        .filter(|p| p.1.is_finite())
                        .map(|&p| Circle::new(p, 3, color.filled())),
                )?,
            };
        drawn
            .label(series.name.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    ctx.configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 12))
        .position(SeriesLabelPosition::UpperLeft)
        .draw()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_writes_a_png() {
        let dir = std::env::temp_dir().join(format!("shifr-chart-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (i, kind) in [Kind::Bars, Kind::Lines, Kind::Points]
            .into_iter()
            .enumerate()
        {
            let chart = Chart {
                title: "t".into(),
                x_label: "x".into(),
                y_label: "y".into(),
                kind,
                categories: vec!["a".into(), "b".into()],
                series: vec![
                    Series {
                        name: "s1".into(),
                        points: vec![(0.0, 1.0), (1.0, 2.0)],
                    },
                    Series {
                        name: "s2".into(),
                        points: vec![(0.0, 3.0), (1.0, f64::NAN)],
                    },
                ],
            };
            let path = dir.join(format!("{i}.png"));
            write_png(&chart, &path, (400, 300)).unwrap();
            let bytes = std::fs::read(&path).unwrap();
            assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
