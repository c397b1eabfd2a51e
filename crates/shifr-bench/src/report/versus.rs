//! shifr against the best peer: for every algorithm and size that a peer measured too, shifr's
//! MB/s, the fastest peer's and their ratio, with the rows where shifr is behind counted and named.
//! Only plain rows are compared (one thread, one stream, no scenario), and only rows of the same
//! direction: the question is what a user of one thread gets for one message. Encryption comes
//! first; decryption rows, when measured, get a comparison of their own.

use crate::run::Row;
use crate::sizes::human;

/// One algorithm at one size: shifr's best row and the fastest peer's.
#[derive(Debug, Clone, PartialEq)]
pub struct Versus {
    /// The catalogue name.
    pub algorithm: String,
    /// Message size in bytes.
    pub bytes: usize,
    /// shifr's MB/s and backend.
    pub shifr: (f64, String),
    /// The fastest peer: its name and MB/s.
    pub peer: (String, f64),
    /// Whether either row stayed contended (its ratio is not to be trusted).
    pub busy: bool,
}

impl Versus {
    /// shifr's MB/s over the peer's (above 1: shifr is faster).
    pub fn ratio(&self) -> f64 {
        self.shifr.0 / self.peer.1
    }
}

/// The directions compared, in order, with the word the heading uses.
const DIRECTIONS: [(&str, &str); 2] = [("encrypt", "encryption"), ("decrypt", "decryption")];

fn plain(r: &Row) -> bool {
    r.threads == 1 && r.streams == 1 && r.scenario.is_none()
}

/// Every (algorithm, size) with a shifr row and at least one peer row of `direction`
/// (`"encrypt"` or `"decrypt"`), in the rows' order.
pub fn compare(rows: &[Row], direction: &str) -> Vec<Versus> {
    let mut out: Vec<Versus> = Vec::new();
    let plain = |r: &Row| plain(r) && r.direction == direction;
    for r in rows
        .iter()
        .filter(|r| plain(r) && r.implementation == "shifr")
    {
        if out
            .iter()
            .any(|v| v.algorithm == r.algorithm && v.bytes == r.bytes)
        {
            continue;
        }
        let same = |x: &&Row| plain(x) && x.algorithm == r.algorithm && x.bytes == r.bytes;
        let best = |it: &mut dyn Iterator<Item = &Row>| {
            it.max_by(|a, b| a.mb_s.total_cmp(&b.mb_s)).cloned()
        };
        let Some(ours) = best(
            &mut rows
                .iter()
                .filter(same)
                .filter(|x| x.implementation == "shifr"),
        ) else {
            continue;
        };
        let Some(peer) = best(
            &mut rows
                .iter()
                .filter(same)
                .filter(|x| x.implementation != "shifr"),
        ) else {
            continue;
        };
        out.push(Versus {
            algorithm: r.algorithm.clone(),
            bytes: r.bytes,
            busy: ours.contended || peer.contended,
            shifr: (ours.mb_s, ours.backend),
            peer: (peer.implementation, peer.mb_s),
        });
    }
    out
}

fn mb(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// The comparison as an aligned table, then one line counting where shifr leads and naming the
/// rows where it is behind; one such block per direction measured, encryption first. Empty when
/// no peer was measured.
pub fn render(rows: &[Row]) -> String {
    let blocks: Vec<String> = DIRECTIONS
        .iter()
        .map(|&(direction, word)| render_direction(&compare(rows, direction), word))
        .filter(|b| !b.is_empty())
        .collect();
    blocks.join("\n")
}

fn render_direction(all: &[Versus], word: &str) -> String {
    if all.is_empty() {
        return String::new();
    }
    let header = [
        "ALGORITHM",
        "SIZE",
        "SHIFR MB/s",
        "BEST PEER",
        "PEER MB/s",
        "SHIFR/PEER",
    ];
    let lines: Vec<[String; 6]> = all
        .iter()
        .map(|v| {
            let mark = if v.busy {
                " busy"
            } else if v.ratio() < 1.0 {
                " behind"
            } else {
                ""
            };
            [
                v.algorithm.clone(),
                human(v.bytes),
                mb(v.shifr.0),
                v.peer.0.clone(),
                mb(v.peer.1),
                format!("{:.2}x{mark}", v.ratio()),
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            lines
                .iter()
                .map(|l| l[i].len())
                .chain([header[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut text = format!("shifr against the fastest peer (one thread, {word}):\n\n");
    let mut push = |cells: &[String]| {
        let mut line = String::new();
        for (i, c) in cells.iter().enumerate() {
            // Names left-aligned, figures right-aligned.
            if matches!(i, 0 | 3) {
                line.push_str(&format!("{c:<w$}  ", w = widths[i]));
            } else {
                line.push_str(&format!("{c:>w$}  ", w = widths[i]));
            }
        }
        text.push_str(line.trim_end());
        text.push('\n');
    };
    push(&header.map(String::from));
    for l in &lines {
        push(l);
    }
    let behind: Vec<String> = all
        .iter()
        .filter(|v| !v.busy && v.ratio() < 1.0)
        .map(|v| format!("{} {} ({:.2}x)", v.algorithm, human(v.bytes), v.ratio()))
        .collect();
    text.push('\n');
    text.push_str(&format!(
        "shifr leads or ties in {} of {} comparisons",
        all.len() - behind.len(),
        all.len()
    ));
    if behind.is_empty() {
        text.push_str(".\n");
    } else {
        text.push_str(&format!("; behind in: {}.\n", behind.join(", ")));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::tests::sample_rows;

    fn row(implementation: &str, algorithm: &str, bytes: usize, mb_s: f64) -> Row {
        Row {
            implementation: implementation.into(),
            algorithm: algorithm.into(),
            backend: implementation.into(),
            direction: "encrypt".into(),
            bytes,
            threads: 1,
            streams: 1,
            mb_s,
            mb_s_min: mb_s,
            mb_s_max: mb_s,
            contended: false,
            scenario: None,
            ..sample_rows()[0].clone()
        }
    }

    #[test]
    fn picks_the_fastest_peer_and_names_the_rows_behind() {
        let mut rows = vec![
            row("shifr", "aes-128-gcm", 64, 700.0),
            row("ring", "aes-128-gcm", 64, 800.0),
            row("aws-lc", "aes-128-gcm", 64, 750.0),
            row("shifr", "aes-128-gcm", 1024, 5000.0),
            row("ring", "aes-128-gcm", 1024, 4000.0),
            row("shifr", "kuznyechik-mgm", 64, 100.0),
        ];
        // Not plain: two threads, a scenario; ignored.
        let mut two = row("ring", "aes-128-gcm", 1024, 9000.0);
        two.threads = 2;
        rows.push(two);
        let mut no_aes = row("shifr", "aes-128-gcm", 1024, 10.0);
        no_aes.scenario = Some("no-aes".into());
        rows.push(no_aes);

        let v = compare(&rows, "encrypt");
        assert_eq!(v.len(), 2, "{v:?}");
        assert_eq!(v[0].peer, ("ring".to_string(), 800.0));
        assert!((v[0].ratio() - 0.875).abs() < 1e-9);
        assert_eq!(v[1].peer, ("ring".to_string(), 4000.0));
        assert_eq!(v[1].shifr.0, 5000.0);

        let text = render(&rows);
        assert!(text.contains("0.88x behind"), "{text}");
        assert!(text.contains("1.25x"), "{text}");
        assert!(
            text.contains(
                "leads or ties in 1 of 2 comparisons; behind in: aes-128-gcm 64 B (0.88x)."
            ),
            "{text}"
        );
        assert!(!text.contains("kuznyechik"), "{text}");
    }

    #[test]
    fn decryption_rows_are_compared_among_themselves() {
        let dec = |r: Row| Row {
            direction: "decrypt".into(),
            ..r
        };
        let rows = vec![
            row("shifr", "aes-128-gcm", 64, 700.0),
            row("ring", "aes-128-gcm", 64, 350.0),
            dec(row("shifr", "aes-128-gcm", 64, 600.0)),
            dec(row("ring", "aes-128-gcm", 64, 800.0)),
            // Only an encryption peer: no decryption comparison for it.
            row("aws-lc", "aes-256-gcm", 64, 100.0),
            dec(row("shifr", "aes-256-gcm", 64, 100.0)),
        ];
        let enc = compare(&rows, "encrypt");
        assert_eq!(enc.len(), 1);
        assert_eq!(enc[0].peer, ("ring".to_string(), 350.0));
        let de = compare(&rows, "decrypt");
        assert_eq!(de.len(), 1);
        assert_eq!((de[0].shifr.0, de[0].peer.1), (600.0, 800.0));
        let text = render(&rows);
        let e = text.find("(one thread, encryption)").unwrap();
        let d = text.find("(one thread, decryption)").unwrap();
        assert!(e < d, "{text}");
        assert!(text[d..].contains("0.75x behind"), "{text}");
        assert!(text[..d].contains("2.00x"), "{text}");
    }

    #[test]
    fn no_peer_rows_render_nothing() {
        assert_eq!(render(&[row("shifr", "aes-128-gcm", 64, 700.0)]), "");
    }

    #[test]
    fn a_contended_row_is_marked_and_not_counted_as_behind() {
        let mut peer = row("ring", "aes-128-gcm", 64, 800.0);
        peer.contended = true;
        let text = render(&[row("shifr", "aes-128-gcm", 64, 700.0), peer]);
        assert!(text.contains("0.88x busy"), "{text}");
        assert!(
            text.contains("leads or ties in 1 of 1 comparisons."),
            "{text}"
        );
    }
}
