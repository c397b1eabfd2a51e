//! A seed's claim checked against this machine's numbers: holds, partly holds, does not hold, or
//! cannot be tested here — always with the numbers that decided it.

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
    pub fn words(self) -> &'static str {
        match self {
            Outcome::Holds => "holds here",
            Outcome::Partly => "holds only in part here",
            Outcome::DoesNotHold => "does not hold here",
            Outcome::NotTestable => "cannot be tested here",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.words())
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
    fn markdown_names_claim_outcome_and_reason() {
        let v = Verdict::new("X is faster", Outcome::DoesNotHold, "X: 1 MB/s, Y: 2 MB/s.");
        assert_eq!(
            v.markdown(),
            "- **X is faster** — does not hold here. X: 1 MB/s, Y: 2 MB/s.\n"
        );
    }
}
