//! Writing a chart's RGB pixels as a PNG file, shared by `--plot` and the studies.
//!
//! Charts are committed to the repository (docs/studies), so the encoder trades time for size:
//! best deflate compression and adaptive per-row filters (a chart is mostly flat colour, which the
//! "sub"/"up" filters turn into long runs of zeros).

use std::io::{self, BufWriter};
use std::path::Path;

/// Encodes 8-bit RGB pixels, `w` x `h`, row by row, as the PNG file `path`.
pub(crate) fn write_rgb_png(path: &Path, (w, h): (u32, u32), rgb: &[u8]) -> io::Result<()> {
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
