//! CSV files of the study results (RFC 4180 quoting: fields with `,`, `"` or line breaks are quoted).

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

/// An optional number as a CSV field: empty when unknown.
pub fn opt(value: Option<f64>) -> String {
    value
        .filter(|v| v.is_finite())
        .map(|v| format!("{v:.6}"))
        .unwrap_or_default()
}

/// A number as a CSV field.
pub fn num(value: f64) -> String {
    opt(Some(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_only_where_needed() {
        let mut csv = Csv::new(&["a", "b"]);
        csv.row(vec!["x,y".into(), "say \"hi\"".into()]);
        csv.row(vec![num(1.5), opt(None)]);
        assert_eq!(csv.text(), "a,b\n\"x,y\",\"say \"\"hi\"\"\"\n1.500000,\n");
    }
}
