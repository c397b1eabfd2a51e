//! Writing results: an aligned text table, JSON, CSV and charts (PNG and SVG).

pub mod csv;
pub mod json;
pub mod merge;
pub mod plot;
pub mod table;
