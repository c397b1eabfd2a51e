//! The charts of every report (`shifr bench --plot`, `shifr report merge`, the studies): one
//! description ([`Chart`]), drawn by plotters as PNG ([`write_png`], a pixel buffer encoded with the
//! png crate) or SVG ([`write_svg`]). Text is drawn in DejaVu Sans Mono (Bitstream Vera licence),
//! embedded here once for the whole workspace, so that no system font library (fontconfig,
//! freetype) is needed.

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::io::{self, BufWriter};
use std::path::Path;
use std::sync::Once;

/// The font every chart uses, embedded in the binary.
const FONT: &[u8] = include_bytes!("../../assets/DejaVuSansMono.ttf");
/// The family the font is registered under.
const FAMILY: &str = "sans-serif";

/// How the series are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// One group of bars per category (x = category index), one bar per series.
    Bars,
    /// One horizontal bar per category, categories up the vertical axis (a point's x is the
    /// category index, its y the bar's length); the series tell groups of categories apart by
    /// colour only (no legend: the names stand beside the bars). `x_label` describes the
    /// horizontal (value) axis.
    HBars,
    /// Lines with markers over a numeric x.
    Lines,
    /// Lines with markers over a numeric x, both axes logarithmic (points with x or y not above
    /// zero are left out).
    LogLines,
    /// Points only (scatter) over a numeric x.
    Points,
}

/// One named series of (x, y) points.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// Points; for [`Kind::Bars`] and [`Kind::HBars`], x is the category index.
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
    /// Category names for [`Kind::Bars`] and [`Kind::HBars`].
    pub categories: Vec<String>,
    /// The data.
    pub series: Vec<Series>,
}

/// The first series' colours; later series take Palette99's.
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

fn color(k: usize) -> RGBColor {
    COLORS.get(k).copied().unwrap_or_else(|| {
        let (r, g, b) = Palette99::pick(k).rgb();
        RGBColor(r, g, b)
    })
}

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The font is a fixed, known-good file; should registration ever fail, plotters reports the
        // missing font as a drawing error, which the writers return.
        let _ = plotters::style::register_font(FAMILY, FontStyle::Normal, FONT);
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
    encode_png(path, (width, height), &pixels).map_err(|e| fail(e.to_string()))
}

/// Draws `chart` as an SVG of `width` × `height` pixels.
pub fn write_svg(chart: &Chart, path: &Path, size: (u32, u32)) -> Result<(), String> {
    register_font();
    let fail = |e: String| format!("chart {}: {e}", path.display());
    let root = SVGBackend::new(path, size).into_drawing_area();
    draw(chart, &root).map_err(|e| fail(e.to_string()))?;
    root.present().map_err(|e| fail(e.to_string()))
}

/// Encodes 8-bit RGB pixels, `w` x `h`, row by row, as the PNG file `path`.
///
/// Charts are committed to the repository (docs/studies), so the encoder trades time for size:
/// best deflate compression and adaptive per-row filters (a chart is mostly flat colour, which the
/// "sub"/"up" filters turn into long runs of zeros).
fn encode_png(path: &Path, (w, h): (u32, u32), rgb: &[u8]) -> io::Result<()> {
    let file = BufWriter::new(std::fs::File::create(path)?);
    let mut enc = png::Encoder::new(file, w, h);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_compression(png::Compression::Best);
    enc.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
    let mut writer = enc.write_header().map_err(io::Error::other)?;
    writer.write_image_data(rgb).map_err(io::Error::other)?;
    writer.finish().map_err(io::Error::other)
}

type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// How the axes of a chart are labelled (what differs between the kinds).
struct Axes<'f> {
    x_labels: usize,
    x_format: Option<&'f dyn Fn(&f64) -> String>,
    y_labels: Option<usize>,
    y_format: Option<&'f dyn Fn(&f64) -> String>,
    /// Width of the vertical axis' label area, pixels.
    y_label_area: u32,
}

fn draw<DB: DrawingBackend>(chart: &Chart, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let points = chart.series.iter().flat_map(|s| s.points.iter());
    let values = points.clone().map(|p| p.1).filter(|y| y.is_finite());
    let value_max = values.fold(0.0f64, f64::max).max(1e-9) * 1.1;
    let categories = chart.categories.len().max(1) as f64;
    // A category's name sits under (or beside) the middle of its slot, between two ticks.
    let category_name = |x: &f64| {
        let i = x.floor() as usize;
        if (x - x.floor() - 0.5).abs() < 1e-6 && i < chart.categories.len() {
            chart.categories[i].clone()
        } else {
            String::new()
        }
    };
    let whole = |x: &f64| format!("{x:.0}");
    let ticks = chart.categories.len() * 2 + 1;
    match chart.kind {
        Kind::Bars => {
            let axes = Axes {
                x_labels: ticks,
                x_format: Some(&category_name),
                y_labels: None,
                y_format: None,
                y_label_area: 70,
            };
            plot(chart, root, 0.0..categories, 0.0..value_max, axes)
        }
        Kind::HBars => {
            let longest = chart.categories.iter().map(|c| c.chars().count());
            let axes = Axes {
                x_labels: 10,
                x_format: None,
                y_labels: Some(ticks),
                y_format: Some(&category_name),
                y_label_area: (longest.max().unwrap_or(0) as u32 * 8 + 20).clamp(70, 400),
            };
            plot(chart, root, 0.0..value_max, 0.0..categories, axes)
        }
        Kind::Lines | Kind::Points => {
            let xs = points.map(|p| p.0).filter(|x| x.is_finite());
            let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
                (lo.min(x), hi.max(x))
            });
            let (x_min, x_max) = if lo.is_finite() && hi > lo {
                (lo, hi + (hi - lo) * 0.02)
            } else {
                (0.0, 1.0)
            };
            let axes = Axes {
                x_labels: 10,
                x_format: Some(&whole),
                y_labels: None,
                y_format: None,
                y_label_area: 70,
            };
            plot(chart, root, x_min..x_max, 0.0..value_max, axes)
        }
        Kind::LogLines => {
            let positive = |v: &f64| *v > 0.0 && v.is_finite();
            let (x0, x1) = bounds(points.clone().map(|p| p.0).filter(positive));
            let (y0, y1) = bounds(points.map(|p| p.1).filter(positive));
            let axes = Axes {
                x_labels: 10,
                x_format: Some(&whole),
                y_labels: None,
                y_format: None,
                y_label_area: 70,
            };
            let x = (x0 / 1.5..x1 * 1.5).log_scale();
            plot(chart, root, x, (y0 / 1.5..y1 * 1.5).log_scale(), axes)
        }
    }
}

/// The smallest and largest value, or 1..10 when there is none.
fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if lo.is_finite() {
        (lo, hi)
    } else {
        (1.0, 10.0)
    }
}

/// Draws the frame, the mesh, the series and the legend of `chart` over the axes `x` and `y`.
fn plot<DB, X, Y>(
    chart: &Chart,
    root: &DrawingArea<DB, Shift>,
    x: X,
    y: Y,
    axes: Axes<'_>,
) -> DrawResult<DB>
where
    DB: DrawingBackend,
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut ctx = ChartBuilder::on(root)
        .caption(&chart.title, (FAMILY, 20))
        .margin(12)
        .x_label_area_size(55)
        .y_label_area_size(axes.y_label_area)
        .build_cartesian_2d(x, y)?;
    let mut mesh = ctx.configure_mesh();
    mesh.x_desc(&chart.x_label)
        .y_desc(&chart.y_label)
        .x_labels(axes.x_labels);
    if let Some(format) = axes.x_format {
        mesh.x_label_formatter(format);
    }
    if let Some(n) = axes.y_labels {
        mesh.y_labels(n);
    }
    if let Some(format) = axes.y_format {
        mesh.y_label_formatter(format);
    }
    mesh.label_style((FAMILY, 12)).draw()?;
    let n = chart.series.len().max(1) as f64;
    for (k, series) in chart.series.iter().enumerate() {
        let color = color(k);
        let finite = series.points.iter().copied().filter(|p| p.1.is_finite());
        let drawn = match chart.kind {
            Kind::Bars => {
                let width = 0.8 / n;
                ctx.draw_series(finite.map(|(x, y)| {
                    let left = x + 0.1 + width * k as f64;
                    Rectangle::new([(left, 0.0), (left + width * 0.95, y)], color.filled())
                }))?
            }
            Kind::HBars => ctx.draw_series(
                finite.map(|(i, v)| Rectangle::new([(0.0, i + 0.1), (v, i + 0.9)], color.filled())),
            )?,
            Kind::Lines | Kind::LogLines => {
                let shown = |p: &(f64, f64)| chart.kind == Kind::Lines || (p.0 > 0.0 && p.1 > 0.0);
                let pts: Vec<(f64, f64)> = finite.filter(shown).collect();
                ctx.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
                ctx.draw_series(LineSeries::new(pts, color.stroke_width(2)))?
            }
            Kind::Points => ctx.draw_series(finite.map(|p| Circle::new(p, 3, color.filled())))?,
        };
        drawn
            .label(series.name.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    // No series, no legend (an empty box otherwise); horizontal bars carry their names beside
    // them, and a legend would cover the top bar.
    if !chart.series.is_empty() && chart.kind != Kind::HBars {
        ctx.configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font((FAMILY, 12))
            .position(SeriesLabelPosition::UpperLeft)
            .draw()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_writes_a_png_and_an_svg() {
        let dir = std::env::temp_dir().join(format!("shifr-chart-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (i, kind) in [
            Kind::Bars,
            Kind::HBars,
            Kind::Lines,
            Kind::LogLines,
            Kind::Points,
        ]
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
            let png = dir.join(format!("{i}.png"));
            write_png(&chart, &png, (400, 300)).unwrap();
            let bytes = std::fs::read(&png).unwrap();
            assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{kind:?}");
            let svg = dir.join(format!("{i}.svg"));
            write_svg(&chart, &svg, (400, 300)).unwrap();
            let text = std::fs::read_to_string(&svg).unwrap();
            assert!(
                text.contains("<svg") && text.trim_end().ends_with("</svg>"),
                "{kind:?}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_chart_without_series_still_draws() {
        let path =
            std::env::temp_dir().join(format!("shifr-chart-empty-{}.png", std::process::id()));
        let chart = Chart {
            title: "nothing".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            kind: Kind::Lines,
            categories: Vec::new(),
            series: Vec::new(),
        };
        write_png(&chart, &path, (300, 200)).unwrap();
        std::fs::remove_file(&path).unwrap();
    }
}
