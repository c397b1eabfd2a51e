//! A seed's claim checked against this machine's numbers: holds, partly holds, does not hold, or
//! cannot be tested here — always with the numbers that decided it.

use shifr_bench::report::markdown::Markdown;
use std::fmt;

/// How a claim fared on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Every measured case agrees with the claim.
    Holds,
    /// Some measured cases agree and some do not.
    Partly,
    /// No measured case agrees with the claim.
    DoesNotHold,
    /// This machine cannot measure what the claim is about (e.g. no energy counters).
    NotTestable,
    /// Not judged: other work shared the CPU while the numbers were taken (load average in
    /// hundredths, lowest CPU share of a contended case in percent).
    NotJudged {
        /// The 1-minute load average times 100.
        load_centi: u32,
        /// The lowest CPU share of a contended case, percent.
        share_percent: u32,
    },
}

impl Outcome {
    /// From how many of `total` cases agree with the claim.
    pub fn from_count(agree: usize, total: usize) -> Outcome {
        match (agree, total) {
            (_, 0) => Outcome::NotTestable,
            (0, _) => Outcome::DoesNotHold,
            (a, t) if a == t => Outcome::Holds,
            _ => Outcome::Partly,
        }
    }

    /// The words a report uses.
    pub fn words(self) -> String {
        match self {
            Outcome::Holds => "holds here".into(),
            Outcome::Partly => "holds only in part here".into(),
            Outcome::DoesNotHold => "does not hold here".into(),
            Outcome::NotTestable => "cannot be tested here".into(),
            Outcome::NotJudged {
                load_centi,
                share_percent,
            } => format!(
                "not judged: the machine was busy (load {:.2}, CPU share {share_percent} %)",
                f64::from(load_centi) / 100.0
            ),
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.words())
    }
}

/// How to get verdicts when the machine was busy, for reports and the command line.
pub const RERUN: &str = "Numbers taken while other work shared the CPU are not judged. Rerun the \
    study on an idle machine: stop other jobs, check that the load average (`uptime`) is below 0.5 \
    per hardware thread, and run the same command again.";

/// The verdicts as they are, or, when `busy` says some case stayed contended, every one of them
/// withheld as [`Outcome::NotJudged`] with the load average `load` (never a verdict from
/// contended numbers).
pub fn unless_busy(
    verdicts: Vec<Verdict>,
    busy: Option<shifr_bench::measure::Busy>,
    load: f64,
) -> Vec<Verdict> {
    let Some(busy) = busy else {
        return verdicts;
    };
    let outcome = Outcome::NotJudged {
        load_centi: (load.max(0.0) * 100.0).round() as u32,
        share_percent: (busy.min_share.clamp(0.0, 1.0) * 100.0).round() as u32,
    };
    verdicts
        .into_iter()
        .map(|v| Verdict {
            outcome,
            why: format!(
                "{} of {} measured cases stayed contended after a second measurement; the \
                 figures above are shown but not judged.",
                busy.contended, busy.cases
            ),
            ..v
        })
        .collect()
}

/// [`unless_busy`] with this thread's contention record and the current load average.
pub fn judged(verdicts: Vec<Verdict>) -> Vec<Verdict> {
    unless_busy(
        verdicts,
        shifr_bench::measure::busy(),
        load_average().unwrap_or(0.0),
    )
}

/// The 1-minute load average from /proc/loadavg, where readable.
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Writes the checked claims as a Markdown list, followed by the advice to rerun where a claim was
/// not judged.
pub fn write(md: &mut Markdown, verdicts: &[Verdict]) {
    let mut list: String = verdicts.iter().map(Verdict::markdown).collect();
    list.push('\n');
    md.raw(&list);
    if verdicts
        .iter()
        .any(|v| matches!(v.outcome, Outcome::NotJudged { .. }))
    {
        md.para(RERUN);
    }
}

/// One checked claim.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The seed's claim, in a sentence.
    pub claim: String,
    /// How it fared.
    pub outcome: Outcome,
    /// Why: the numbers that decided it and, where it does not hold, the reason.
    pub why: String,
}

impl Verdict {
    /// Builds a verdict.
    pub fn new(claim: impl Into<String>, outcome: Outcome, why: impl Into<String>) -> Verdict {
        Verdict {
            claim: claim.into(),
            outcome,
            why: why.into(),
        }
    }

    /// The verdict as a Markdown list item: `- **claim** — holds here. why`.
    pub fn markdown(&self) -> String {
        format!("- **{}** — {}. {}\n", self.claim, self.outcome, self.why)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_map_to_outcomes() {
        assert_eq!(Outcome::from_count(3, 3), Outcome::Holds);
        assert_eq!(Outcome::from_count(1, 3), Outcome::Partly);
        assert_eq!(Outcome::from_count(0, 3), Outcome::DoesNotHold);
        assert_eq!(Outcome::from_count(0, 0), Outcome::NotTestable);
    }

    #[test]
    fn a_busy_run_withholds_every_verdict() {
        let verdicts = vec![
            Verdict::new("A is faster", Outcome::Holds, "A: 2 MB/s, B: 1 MB/s."),
            Verdict::new("B scales", Outcome::DoesNotHold, "B: 1x."),
        ];
        assert_eq!(unless_busy(verdicts.clone(), None, 9.0), verdicts);
        let busy = shifr_bench::measure::Busy {
            cases: 10,
            contended: 3,
            min_share: 0.415,
        };
        let withheld = unless_busy(verdicts, Some(busy), 3.456);
        assert_eq!(withheld.len(), 2);
        for v in &withheld {
            let line = v.markdown();
            assert!(
                line.contains("— not judged: the machine was busy (load 3.46, CPU share 42 %)"),
                "{line}"
            );
            assert!(
                !line.contains("holds") && !line.contains("does not hold"),
                "{line}"
            );
            assert!(line.contains("3 of 10"), "{line}");
        }
        assert_eq!(withheld[0].claim, "A is faster");
    }

    #[test]
    fn the_list_ends_with_the_rerun_advice_when_a_claim_was_not_judged() {
        let mut md = Markdown::new();
        write(&mut md, &[Verdict::new("c", Outcome::Holds, "w")]);
        assert_eq!(md.finish(), "- **c** — holds here. w\n\n");
        let busy = shifr_bench::measure::Busy {
            cases: 1,
            contended: 1,
            min_share: 0.5,
        };
        let withheld = unless_busy(
            vec![Verdict::new("c", Outcome::Holds, "w")],
            Some(busy),
            2.0,
        );
        let mut md = Markdown::new();
        write(&mut md, &withheld);
        assert!(
            md.finish().ends_with(&format!("{RERUN}\n\n")),
            "{}",
            md.finish()
        );
    }

    #[test]
    fn markdown_names_claim_outcome_and_reason() {
        let v = Verdict::new("X is faster", Outcome::DoesNotHold, "X: 1 MB/s, Y: 2 MB/s.");
        assert_eq!(
            v.markdown(),
            "- **X is faster** — does not hold here. X: 1 MB/s, Y: 2 MB/s.\n"
        );
    }
}
