//! The CSV writer of every report (`shifr bench --csv`, `shifr report merge`, the studies): a header
//! line, then one line per row, fields quoted per RFC 4180 (only those with `,`, `"` or a line
//! break), empty fields where a value is unknown. [`render`] lays out `shifr bench` rows.

use crate::run::Row;
use std::io;
use std::path::Path;

/// A CSV table with a fixed header.
#[derive(Debug, Clone)]
pub struct Csv {
    text: String,
    columns: usize,
}

impl Csv {
    /// A table with this header line.
    pub fn new(header: &[&str]) -> Csv {
        let mut csv = Csv {
            text: String::new(),
            columns: header.len(),
        };
        csv.push_line(header.iter().map(|s| s.to_string()).collect());
        csv
    }

    /// Appends a row; it must have as many fields as the header (a programming error otherwise, so the
    /// row is padded or cut rather than making the file unreadable).
    pub fn row(&mut self, mut fields: Vec<String>) -> &mut Self {
        debug_assert_eq!(fields.len(), self.columns, "CSV row width");
        fields.resize(self.columns, String::new());
        self.push_line(fields);
        self
    }

    fn push_line(&mut self, fields: Vec<String>) {
        let quoted: Vec<String> = fields.into_iter().map(quote).collect();
        self.text.push_str(&quoted.join(","));
        self.text.push('\n');
    }

    /// The file's text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The file's text, taken.
    pub fn finish(self) -> String {
        self.text
    }

    /// Writes the file.
    pub fn write(&self, path: &Path) -> io::Result<()> {
        std::fs::write(path, &self.text)
    }
}

fn quote(field: String) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field
    }
}

/// An optional number as a CSV field: six decimals, empty when unknown.
pub fn opt(value: Option<f64>) -> String {
    value
        .filter(|v| v.is_finite())
        .map(|v| format!("{v:.6}"))
        .unwrap_or_default()
}

/// A number as a CSV field (six decimals).
pub fn num(value: f64) -> String {
    opt(Some(value))
}

/// The columns of [`render`].
pub const HEADER: &[&str] = &[
    "implementation",
    "algorithm",
    "backend",
    "direction",
    "bytes",
    "threads",
    "streams",
    "mb_s",
    "mb_s_min",
    "mb_s_max",
    "samples",
    "cycles_per_byte",
    "cycles_source",
    "cpu_percent",
    "joules_per_gb",
    "energy_note",
    "ratio_vs_shifr",
    "cpu_share",
    "contended",
    "scenario",
    "state_bytes",
    "machine",
    "cpu",
    "cpu_backends",
];

/// `shifr bench` rows as CSV text (MB/s to three decimals, ratios and per-byte figures to four).
pub fn render(rows: &[Row]) -> String {
    let four = |v: Option<f64>| v.map(|x| format!("{x:.4}")).unwrap_or_default();
    let text = |v: Option<&String>| v.cloned().unwrap_or_default();
    let mut csv = Csv::new(HEADER);
    for r in rows {
        csv.row(vec![
            r.implementation.clone(),
            r.algorithm.clone(),
            r.backend.clone(),
            r.direction.clone(),
            r.bytes.to_string(),
            r.threads.to_string(),
            r.streams.to_string(),
            format!("{:.3}", r.mb_s),
            format!("{:.3}", r.mb_s_min),
            format!("{:.3}", r.mb_s_max),
            r.samples.to_string(),
            four(r.cycles_per_byte),
            r.cycles_source.clone(),
            format!("{:.1}", r.cpu_percent),
            four(r.joules_per_gb),
            text(r.energy_note.as_ref()),
            four(r.ratio_vs_shifr),
            format!("{:.1}", r.cpu_share),
            r.contended.to_string(),
            text(r.scenario.as_ref()),
            r.state_bytes.map(|b| b.to_string()).unwrap_or_default(),
            text(r.machine.as_ref()),
            text(r.cpu.as_ref()),
            text(r.cpu_backends.as_ref()),
        ]);
    }
    csv.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::tests::sample_rows;

    #[test]
    fn quotes_only_where_needed() {
        let mut csv = Csv::new(&["a", "b"]);
        csv.row(vec!["x,y".into(), "say \"hi\"".into()]);
        csv.row(vec![num(1.5), opt(None)]);
        assert_eq!(csv.text(), "a,b\n\"x,y\",\"say \"\"hi\"\"\"\n1.500000,\n");
    }

    #[test]
    fn header_and_one_line_per_row_with_quoting() {
        let text = render(&sample_rows());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], HEADER.join(","));
        assert_eq!(lines.len(), 3);
        assert!(lines[1].starts_with("shifr,aes-128-gcm,aesni,encrypt,16384,1,1,"));
        // The energy note has a comma: quoted, so every line has as many fields as the header
        // once quoted fields are taken as one.
        assert!(lines[1].contains("\"no RAPL, here\""));
    }
}
