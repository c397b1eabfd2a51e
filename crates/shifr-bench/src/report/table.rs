//! The aligned text table `shifr bench` prints.

use crate::run::Row;
use crate::sizes::human;

fn num(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// The NOTE column: `busy` for a contended row (see [`busy_note`]), the scenario if any.
fn note(r: &Row) -> String {
    let mut parts = Vec::new();
    if r.contended {
        parts.push(format!("busy (CPU {:.0} %)", r.cpu_share));
    }
    if let Some(s) = &r.scenario {
        parts.push(s.clone());
    }
    parts.join(", ")
}

/// The line under a table with contended rows, or `None` when there are none.
pub fn busy_note(rows: &[Row]) -> Option<String> {
    let busy = rows.iter().filter(|r| r.contended).count();
    (busy > 0).then(|| {
        format!(
            "busy: {busy} of {} rows stayed contended after a re-sample (the measuring threads were on a CPU \
             less than {:.0} % of the time, or the samples spread over more than {:.0} % of the median): \
             other work shared the CPU, so their figures and ratios are not to be trusted. \
             Rerun on an idle machine.",
            rows.len(),
            crate::run::MIN_CPU_SHARE * 100.0,
            crate::run::MAX_SPREAD * 100.0
        )
    })
}

/// The DIR cell: `enc` or `dec`.
fn direction(r: &Row) -> String {
    match r.direction.as_str() {
        "encrypt" => "enc".into(),
        "decrypt" => "dec".into(),
        other => other.into(),
    }
}

/// The rows as an aligned table, one line per row, with a header. A DIR column (`enc` / `dec`)
/// follows ALGORITHM when any row is not an encryption row.
pub fn render(rows: &[Row]) -> String {
    let with_dir = rows.iter().any(|r| r.direction != "encrypt");
    let mut header: Vec<String> = [
        "ALGORITHM",
        "IMPL",
        "BACKEND",
        "SIZE",
        "THR",
        "STR",
        "MB/s",
        "MIN",
        "MAX",
        "CYC/B",
        "CPU%",
        "J/GB",
        "SHIFR/PEER",
        "NOTE",
    ]
    .map(String::from)
    .to_vec();
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let mut cells = vec![
                r.algorithm.clone(),
                r.implementation.clone(),
                r.backend.clone(),
                human(r.bytes),
                r.threads.to_string(),
                r.streams.to_string(),
                num(r.mb_s),
                num(r.mb_s_min),
                num(r.mb_s_max),
                r.cycles_per_byte.map_or("-".into(), num),
                format!("{:.0}", r.cpu_percent),
                r.joules_per_gb.map_or("-".into(), num),
                r.ratio_vs_shifr
                    .map_or(String::new(), |x| format!("{x:.2}x")),
                note(r),
            ];
            if with_dir {
                cells.insert(1, direction(r));
            }
            cells
        })
        .collect();
    if with_dir {
        header.insert(1, "DIR".into());
    }
    // Text columns (ALGORITHM, DIR, IMPL, BACKEND and NOTE) left-aligned, numbers right-aligned.
    let text_columns = if with_dir { 4 } else { 3 };
    let last = header.len() - 1;
    let mut widths = vec![0usize; header.len()];
    for line in std::iter::once(&header).chain(&body) {
        for (w, cell) in widths.iter_mut().zip(line) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for line in std::iter::once(&header).chain(&body) {
        let mut text = String::new();
        for (i, (w, cell)) in widths.iter().zip(line).enumerate() {
            if i < text_columns || i == last {
                text.push_str(&format!("{cell:<w$}  "));
            } else {
                text.push_str(&format!("{cell:>w$}  "));
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// `rows` followed by a copy of each as a decryption row.
    pub(crate) fn with_decryption_copies(mut rows: Vec<Row>) -> Vec<Row> {
        let dec: Vec<Row> = rows
            .iter()
            .map(|r| Row {
                direction: "decrypt".into(),
                ..r.clone()
            })
            .collect();
        rows.extend(dec);
        rows
    }

    pub(crate) fn sample_rows() -> Vec<Row> {
        let shifr = Row {
            implementation: "shifr".into(),
            algorithm: "aes-128-gcm".into(),
            backend: "aesni".into(),
            direction: "encrypt".into(),
            bytes: 16384,
            threads: 1,
            streams: 1,
            mb_s: 2000.0,
            mb_s_min: 1900.0,
            mb_s_max: 2100.0,
            samples: 5,
            cycles_per_byte: Some(1.5),
            cycles_source: "core clock estimate".into(),
            cpu_percent: 99.0,
            joules_per_gb: None,
            energy_note: Some("no RAPL, here".into()),
            ratio_vs_shifr: None,
            cpu_share: 99.0,
            contended: false,
            scenario: None,
            state_bytes: None,
            machine: None,
            cpu: None,
            cpu_backends: None,
        };
        let peer = Row {
            implementation: "openssl".into(),
            backend: "libcrypto".into(),
            mb_s: 4000.0,
            ratio_vs_shifr: Some(0.5),
            ..shifr.clone()
        };
        vec![shifr, peer]
    }

    #[test]
    fn header_and_aligned_rows() {
        let text = render(&sample_rows());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("ALGORITHM"));
        assert!(lines[1].contains("16 KiB") && lines[1].contains("2000"));
        assert!(lines[2].ends_with("0.50x"));
        assert!(!lines[0].contains("DIR"), "encryption only: no DIR column");
    }

    #[test]
    fn decryption_rows_get_a_dir_column() {
        let rows = with_decryption_copies(sample_rows());
        let text = render(&rows);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5);
        let cells = |l: &str| l.split_whitespace().take(3).collect::<Vec<_>>().join(" ");
        assert_eq!(cells(lines[0]), "ALGORITHM DIR IMPL");
        assert_eq!(cells(lines[1]), "aes-128-gcm enc shifr");
        assert_eq!(cells(lines[4]), "aes-128-gcm dec openssl");
    }
}
