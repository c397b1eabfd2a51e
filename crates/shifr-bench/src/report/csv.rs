//! CSV with a header line; empty fields where a value is unknown.

use crate::run::Row;

/// The header line's columns.
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

/// Quotes a field when it holds a comma, quote or line break (RFC 4180).
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn opt(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.4}")).unwrap_or_default()
}

/// The rows as CSV text.
pub fn render(rows: &[Row]) -> String {
    let mut out = HEADER.join(",");
    out.push('\n');
    for r in rows {
        let cells = [
            field(&r.implementation),
            field(&r.algorithm),
            field(&r.backend),
            field(&r.direction),
            r.bytes.to_string(),
            r.threads.to_string(),
            r.streams.to_string(),
            format!("{:.3}", r.mb_s),
            format!("{:.3}", r.mb_s_min),
            format!("{:.3}", r.mb_s_max),
            r.samples.to_string(),
            opt(r.cycles_per_byte),
            field(&r.cycles_source),
            format!("{:.1}", r.cpu_percent),
            opt(r.joules_per_gb),
            field(r.energy_note.as_deref().unwrap_or("")),
            opt(r.ratio_vs_shifr),
            format!("{:.1}", r.cpu_share),
            r.contended.to_string(),
            field(r.scenario.as_deref().unwrap_or("")),
            r.state_bytes.map(|b| b.to_string()).unwrap_or_default(),
            field(r.machine.as_deref().unwrap_or("")),
            field(r.cpu.as_deref().unwrap_or("")),
            field(r.cpu_backends.as_deref().unwrap_or("")),
        ];
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::tests::sample_rows;

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
        assert_eq!(field("a\"b"), "\"a\"\"b\"");
    }
}
