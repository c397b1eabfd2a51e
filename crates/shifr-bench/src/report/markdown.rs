//! A small Markdown writer for the reports (the studies, `shifr report merge`): headings, paragraphs,
//! tables, images and text the caller laid out itself.

/// A report being written.
#[derive(Debug, Default, Clone)]
pub struct Markdown {
    text: String,
}

impl Markdown {
    /// An empty document.
    pub fn new() -> Markdown {
        Markdown::default()
    }

    /// `#`-heading of the given level (1..=6).
    pub fn heading(&mut self, level: usize, title: &str) -> &mut Self {
        let hashes = "#".repeat(level.clamp(1, 6));
        self.text.push_str(&format!("{hashes} {title}\n\n"));
        self
    }

    /// A paragraph.
    pub fn para(&mut self, text: &str) -> &mut Self {
        self.text.push_str(text.trim_end());
        self.text.push_str("\n\n");
        self
    }

    /// A table; `|` inside cells is escaped so that a cell never splits.
    pub fn table<S: AsRef<str>>(&mut self, header: &[&str], rows: &[Vec<S>]) -> &mut Self {
        let line = |cells: Vec<&str>| {
            let escaped: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
            format!("| {} |\n", escaped.join(" | "))
        };
        self.text.push_str(&line(header.to_vec()));
        self.text
            .push_str(&format!("|{}\n", "---|".repeat(header.len())));
        for row in rows {
            self.text
                .push_str(&line(row.iter().map(|c| c.as_ref()).collect()));
        }
        self.text.push('\n');
        self
    }

    /// Markdown the caller laid out (a list, say), appended as it is.
    pub fn raw(&mut self, markdown: &str) -> &mut Self {
        self.text.push_str(markdown);
        self
    }

    /// An image link to a file next to the report.
    pub fn image(&mut self, alt: &str, file: &str) -> &mut Self {
        self.text.push_str(&format!("![{alt}]({file})\n\n"));
        self
    }

    /// The document.
    pub fn finish(&self) -> &str {
        &self.text
    }
}

/// A number with `digits` decimals, or the reason it is missing.
pub fn num(value: Option<f64>, digits: usize, missing: &str) -> String {
    match value {
        Some(v) if v.is_finite() => format!("{v:.digits$}"),
        _ => missing.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_headings_tables_lists_and_images() {
        let mut md = Markdown::new();
        md.heading(1, "T")
            .para("p")
            .table(&["a", "b"], &[vec!["1", "x|y"]])
            .raw("- c\n\n")
            .image("chart", "c.png");
        assert_eq!(
            md.finish(),
            "# T\n\np\n\n| a | b |\n|---|---|\n| 1 | x\\|y |\n\n- c\n\n![chart](c.png)\n\n"
        );
    }

    #[test]
    fn numbers_or_the_reason() {
        assert_eq!(num(Some(1.234), 1, "-"), "1.2");
        assert_eq!(num(None, 1, "no RAPL"), "no RAPL");
        assert_eq!(num(Some(f64::NAN), 1, "-"), "-");
    }
}
