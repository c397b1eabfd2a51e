//! The answer `shifr bench` opens with: for each common use, the fastest AEAD on this machine,
//! shifr's MB/s and the best peer's for it, and which of them wins.
//!
//! The choice is made from measured rows only ([`answers`]); a use whose rows are missing says so
//! instead of guessing, and a use decided by contended rows ([`Row::contended`]) is marked busy.
//! It answers from encryption rows when there are any, else from decryption rows ([`direction`]);
//! its heading says which.

use crate::run::Row;
use crate::sizes::human;

/// Where AES instructions are left unused ([`Row::scenario`]): shifr's AES rows on its
/// software backend, measured for the "CPU without AES instructions" answer.
pub const NO_AES: &str = "no-aes";

/// The AEADs of TLS 1.2 / 1.3.
const TLS_AEADS: &[&str] = &["aes-128-gcm", "aes-256-gcm", "chacha20-poly1305"];
/// The AEADs of shifr's container format (files).
const FILE_AEADS: &[&str] = &[
    "aes-128-gcm",
    "aes-256-gcm",
    "chacha20-poly1305",
    "xchacha20-poly1305",
];
/// The GOST R 34.13-2015 / R 1323565.1.026-2019 AEADs.
const GOST_AEADS: &[&str] = &["kuznyechik-mgm", "magma-mgm"];

/// One use a person has for a cipher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Use {
    /// What the use is, for the summary.
    pub label: &'static str,
    /// The AEADs that fit it.
    pub algorithms: &'static [&'static str],
    /// The message size that stands for it.
    pub bytes: usize,
    /// Whether it is answered from the no-AES rows (see [`NO_AES`]).
    pub no_aes: bool,
}

/// The uses the summary answers, in order.
pub const USES: &[Use] = &[
    Use {
        label: "TLS records of ~1 KiB",
        algorithms: TLS_AEADS,
        bytes: 1024,
        no_aes: false,
    },
    Use {
        label: "TLS records of 16 KiB",
        algorithms: TLS_AEADS,
        bytes: 16 * 1024,
        no_aes: false,
    },
    Use {
        label: "bulk files",
        algorithms: FILE_AEADS,
        bytes: 1 << 20,
        no_aes: false,
    },
    Use {
        label: "64-byte messages",
        algorithms: TLS_AEADS,
        bytes: 64,
        no_aes: false,
    },
    Use {
        label: "GOST-compliant AEAD",
        algorithms: GOST_AEADS,
        bytes: 16 * 1024,
        no_aes: false,
    },
    Use {
        label: "a CPU without AES instructions",
        algorithms: TLS_AEADS,
        bytes: 16 * 1024,
        no_aes: true,
    },
];

/// The message sizes the summary needs measured.
pub fn sizes() -> Vec<usize> {
    let mut s: Vec<usize> = USES.iter().map(|u| u.bytes).collect();
    s.sort_unstable();
    s.dedup();
    s
}

/// The algorithms the no-AES rows are measured for (those that use AES).
pub fn no_aes_algorithms() -> impl Iterator<Item = &'static str> {
    TLS_AEADS.iter().copied().filter(|a| uses_aes(a))
}

fn uses_aes(alg: &str) -> bool {
    alg.starts_with("aes-")
}

/// The answer for one use.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The use.
    pub label: &'static str,
    /// The direction of the rows it was answered from: `"encrypt"` or `"decrypt"`.
    pub direction: &'static str,
    /// The message size it was answered at.
    pub bytes: usize,
    /// The fastest fitting AEAD, with shifr's and the best peer's figures for it; `None` when
    /// nothing fitting was measured.
    pub pick: Option<Pick>,
}

/// The chosen AEAD of an [`Answer`].
#[derive(Debug, Clone, PartialEq)]
pub struct Pick {
    /// The AEAD.
    pub algorithm: String,
    /// shifr's MB/s and backend, if shifr was measured for it.
    pub shifr: Option<(f64, String)>,
    /// The fastest peer for it: name and MB/s.
    pub peer: Option<(String, f64)>,
    /// `"shifr"` or the peer's name.
    pub winner: String,
    /// Some deciding row was contended: the machine was busy.
    pub busy: bool,
}

/// The direction the summary answers from: `"encrypt"` when any row is an encryption row (or
/// there are no decryption rows), else `"decrypt"`.
pub fn direction(rows: &[Row]) -> &'static str {
    let has = |d: &str| rows.iter().any(|r| r.direction == d);
    if !has("encrypt") && has("decrypt") {
        "decrypt"
    } else {
        "encrypt"
    }
}

/// Whether a row counts for a use: that size, one thread, one stream, `direction`, and for the
/// no-AES use either a no-AES row or an algorithm that does not use AES at all.
fn fits(u: &Use, r: &Row, direction: &str) -> bool {
    let shape = r.bytes == u.bytes
        && r.threads == 1
        && r.streams == 1
        && r.direction == direction
        && u.algorithms.contains(&r.algorithm.as_str());
    let scenario = if u.no_aes && uses_aes(&r.algorithm) {
        r.scenario.as_deref() == Some(NO_AES)
    } else {
        r.scenario.is_none()
    };
    shape && scenario
}

/// Answers every use from `rows`.
pub fn answers(rows: &[Row]) -> Vec<Answer> {
    let direction = direction(rows);
    USES.iter().map(|u| answer(u, rows, direction)).collect()
}

fn answer(u: &Use, rows: &[Row], direction: &'static str) -> Answer {
    let fitting: Vec<&Row> = rows
        .iter()
        .filter(|r| fits(u, r, direction) && r.mb_s > 0.0)
        .collect();
    let best = fitting
        .iter()
        .copied()
        .max_by(|a, b| a.mb_s.total_cmp(&b.mb_s));
    let pick = best.map(|best| {
        let same: Vec<&Row> = fitting
            .iter()
            .copied()
            .filter(|r| r.algorithm == best.algorithm)
            .collect();
        let shifr = same.iter().find(|r| r.implementation == "shifr");
        let peer = same
            .iter()
            .filter(|r| r.implementation != "shifr")
            .max_by(|a, b| a.mb_s.total_cmp(&b.mb_s));
        let busy = shifr.is_some_and(|r| r.contended) || peer.is_some_and(|r| r.contended);
        Pick {
            algorithm: best.algorithm.clone(),
            shifr: shifr.map(|r| (r.mb_s, r.backend.clone())),
            peer: peer.map(|r| (r.implementation.clone(), r.mb_s)),
            winner: best.implementation.clone(),
            busy,
        }
    });
    Answer {
        label: u.label,
        direction,
        bytes: u.bytes,
        pick,
    }
}

/// The summary as text: a heading line (naming the direction) and one aligned line per use.
pub fn render(answers: &[Answer]) -> String {
    let header = [
        "USE",
        "SIZE",
        "FASTEST AEAD",
        "SHIFR MB/s",
        "BEST PEER MB/s",
        "WINNER",
    ]
    .map(String::from);
    let body: Vec<[String; 6]> = answers
        .iter()
        .map(|a| {
            let Some(p) = &a.pick else {
                return [
                    a.label.to_string(),
                    human(a.bytes),
                    "not measured".into(),
                    "-".into(),
                    "-".into(),
                    "-".into(),
                ];
            };
            let shifr = p
                .shifr
                .as_ref()
                .map_or("-".into(), |(mb, backend)| format!("{mb:.0} ({backend})"));
            let peer = p
                .peer
                .as_ref()
                .map_or("-".into(), |(name, mb)| format!("{mb:.0} ({name})"));
            let mut winner = p.winner.clone();
            if let (Some((s, _)), Some((_, q))) = (&p.shifr, &p.peer) {
                let (hi, lo) = if s >= q { (s, q) } else { (q, s) };
                if *lo > 0.0 {
                    winner.push_str(&format!(" ({:.2}x)", hi / lo));
                }
            }
            if p.busy {
                winner.push_str(", busy: not judged");
            }
            [
                a.label.to_string(),
                human(a.bytes),
                p.algorithm.clone(),
                shifr,
                peer,
                winner,
            ]
        })
        .collect();
    let mut widths = [0usize; 6];
    for line in std::iter::once(&header).chain(&body) {
        for (w, cell) in widths.iter_mut().zip(line) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let word = match answers.first().map(|a| a.direction) {
        Some("decrypt") => "decryption",
        _ => "encryption",
    };
    let mut out = format!("On this machine (one thread, {word}, MB/s = 10^6 bytes/s):\n\n");
    for line in std::iter::once(&header).chain(&body) {
        let mut text = String::new();
        for (i, (w, cell)) in widths.iter().zip(line).enumerate() {
            if (3..5).contains(&i) {
                text.push_str(&format!("{cell:>w$}  "));
            } else {
                text.push_str(&format!("{cell:<w$}  "));
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::tests::sample_rows;

    fn row(implementation: &str, algorithm: &str, bytes: usize, mb_s: f64) -> Row {
        Row {
            implementation: implementation.into(),
            algorithm: algorithm.into(),
            backend: if implementation == "shifr" {
                "vaes".into()
            } else {
                implementation.into()
            },
            bytes,
            mb_s,
            mb_s_min: mb_s,
            mb_s_max: mb_s,
            ratio_vs_shifr: None,
            ..sample_rows()[0].clone()
        }
    }

    fn pick<'a>(answers: &'a [Answer], label: &str) -> &'a Pick {
        answers
            .iter()
            .find(|a| a.label == label)
            .and_then(|a| a.pick.as_ref())
            .unwrap_or_else(|| panic!("no answer for {label}"))
    }

    #[test]
    fn the_fastest_aead_wins_and_its_best_peer_is_named() {
        let k16 = 16 * 1024;
        let rows = vec![
            row("shifr", "aes-128-gcm", k16, 9000.0),
            row("aws-lc", "aes-128-gcm", k16, 11000.0),
            row("openssl", "aes-128-gcm", k16, 8000.0),
            row("shifr", "chacha20-poly1305", k16, 3000.0),
            row("ring", "chacha20-poly1305", k16, 3500.0),
            // Another size, another thread count: ignored for the 16 KiB answer.
            row("shifr", "aes-256-gcm", 1024, 99999.0),
            Row {
                threads: 2,
                ..row("shifr", "aes-256-gcm", k16, 50000.0)
            },
        ];
        let a = answers(&rows);
        let p = pick(&a, "TLS records of 16 KiB");
        assert_eq!(p.algorithm, "aes-128-gcm");
        assert_eq!(p.shifr, Some((9000.0, "vaes".to_string())));
        assert_eq!(p.peer, Some(("aws-lc".to_string(), 11000.0)));
        assert_eq!(p.winner, "aws-lc");
        assert!(!p.busy);
        // shifr faster than every peer: shifr wins.
        let rows = vec![
            row("shifr", "chacha20-poly1305", 64, 400.0),
            row("ring", "chacha20-poly1305", 64, 360.0),
            row("shifr", "aes-128-gcm", 64, 300.0),
        ];
        let p = pick(&answers(&rows), "64-byte messages").clone();
        assert_eq!(
            (p.algorithm.as_str(), p.winner.as_str()),
            ("chacha20-poly1305", "shifr")
        );
        assert!(answers(&rows)
            .iter()
            .filter(|a| a.label != "64-byte messages")
            .all(|a| a.pick.is_none()));
    }

    #[test]
    fn the_no_aes_answer_uses_software_aes_rows_and_any_chacha() {
        let k16 = 16 * 1024;
        let rows = vec![
            // With AES instructions AES-GCM is fastest, but that is not this use.
            row("shifr", "aes-128-gcm", k16, 9000.0),
            Row {
                scenario: Some(NO_AES.into()),
                backend: "portable".into(),
                ..row("shifr", "aes-128-gcm", k16, 150.0)
            },
            row("shifr", "chacha20-poly1305", k16, 2500.0),
            row("ring", "chacha20-poly1305", k16, 2000.0),
        ];
        let a = answers(&rows);
        let p = pick(&a, "a CPU without AES instructions");
        assert_eq!(p.algorithm, "chacha20-poly1305");
        assert_eq!(p.winner, "shifr");
        assert_eq!(p.peer, Some(("ring".to_string(), 2000.0)));
        // The no-AES row never answers the ordinary uses.
        assert_eq!(
            pick(&a, "TLS records of 16 KiB").shifr.as_ref().unwrap().0,
            9000.0
        );
        // Only software AES measured: it is the answer, with no peer.
        let rows = vec![Row {
            scenario: Some(NO_AES.into()),
            ..row("shifr", "aes-256-gcm", k16, 120.0)
        }];
        let p = pick(&answers(&rows), "a CPU without AES instructions").clone();
        assert_eq!((p.algorithm.as_str(), p.peer), ("aes-256-gcm", None));
    }

    #[test]
    fn contended_rows_mark_the_answer_busy_and_text_shows_it() {
        let rows = vec![
            Row {
                contended: true,
                ..row("shifr", "kuznyechik-mgm", 16 * 1024, 200.0)
            },
            row("shifr", "magma-mgm", 16 * 1024, 90.0),
        ];
        let a = answers(&rows);
        let p = pick(&a, "GOST-compliant AEAD");
        assert_eq!(p.algorithm, "kuznyechik-mgm");
        assert!(p.busy);
        let text = render(&a);
        assert!(text.contains("busy: not judged"), "{text}");
        assert!(text.contains("not measured"), "{text}");
        assert_eq!(
            text.lines().filter(|l| !l.is_empty()).count(),
            2 + USES.len()
        );
    }

    #[test]
    fn encryption_rows_answer_first_else_decryption_rows() {
        let k16 = 16 * 1024;
        let dec = |r: Row| Row {
            direction: "decrypt".into(),
            ..r
        };
        let rows = vec![
            row("shifr", "aes-128-gcm", k16, 9000.0),
            row("ring", "aes-128-gcm", k16, 8000.0),
            dec(row("shifr", "aes-128-gcm", k16, 7000.0)),
            dec(row("ring", "aes-128-gcm", k16, 9500.0)),
        ];
        assert_eq!(direction(&rows), "encrypt");
        let a = answers(&rows);
        assert_eq!(pick(&a, "TLS records of 16 KiB").winner, "shifr");
        assert!(render(&a).starts_with("On this machine (one thread, encryption,"));
        // Decryption rows only: the summary answers from them and says so.
        let a = answers(&rows[2..]);
        assert_eq!(direction(&rows[2..]), "decrypt");
        let p = pick(&a, "TLS records of 16 KiB");
        assert_eq!(
            (p.winner.as_str(), p.shifr.as_ref().unwrap().0),
            ("ring", 7000.0)
        );
        assert!(render(&a).starts_with("On this machine (one thread, decryption,"));
        assert_eq!(direction(&[]), "encrypt");
    }

    #[test]
    fn summary_sizes_cover_every_use() {
        assert_eq!(sizes(), vec![64, 1024, 16 * 1024, 1 << 20]);
        assert_eq!(
            sizes(),
            crate::sizes::DEFAULT,
            "the default run answers every use"
        );
        assert_eq!(
            no_aes_algorithms().collect::<Vec<_>>(),
            vec!["aes-128-gcm", "aes-256-gcm"]
        );
    }
}
