//! Writing results: an aligned text table, JSON, CSV, Markdown and charts (PNG and SVG). The chart,
//! CSV and Markdown writers are shared with the studies (shifr-studies).

pub mod chart;
pub mod csv;
pub mod json;
pub mod markdown;
pub mod merge;
pub mod plot;
pub mod table;
pub mod versus;
