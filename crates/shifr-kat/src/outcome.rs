//! The verdict on one record and the tally over many.

use core::fmt;

/// The verdict on one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Every field was checked and agrees (or, for `result = invalid`, the record was rejected).
    Pass,
    /// Some value disagrees, a field is malformed, or an invalid record was accepted.
    Fail(String),
    /// The record cannot be checked here; the reason names the field, cipher or mode.
    Skip(String),
}

impl Outcome {
    /// Whether this is [`Outcome::Fail`].
    pub fn is_fail(&self) -> bool {
        matches!(self, Outcome::Fail(_))
    }
}

/// `pass`, `FAIL: reason` or `skip: reason` — the text after `name: ` on the CLI's record line.
impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Pass => write!(f, "pass"),
            Outcome::Fail(why) => write!(f, "FAIL: {why}"),
            Outcome::Skip(why) => write!(f, "skip: {why}"),
        }
    }
}

/// Counts of outcomes; displays as `N passed, N failed, N skipped`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Records that passed.
    pub passed: usize,
    /// Records that failed.
    pub failed: usize,
    /// Records that were skipped.
    pub skipped: usize,
}

impl Summary {
    /// Counts one outcome.
    pub fn add(&mut self, outcome: &Outcome) {
        match outcome {
            Outcome::Pass => self.passed += 1,
            Outcome::Fail(_) => self.failed += 1,
            Outcome::Skip(_) => self.skipped += 1,
        }
    }

    /// Tallies the results of [`crate::run_text`] (or any list of named outcomes).
    pub fn of<'a, I>(results: I) -> Summary
    where
        I: IntoIterator<Item = &'a (String, Outcome)>,
    {
        let mut s = Summary::default();
        for (_, o) in results {
            s.add(o);
        }
        s
    }

    /// Adds another tally (e.g. of a second file).
    pub fn merge(&mut self, other: Summary) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.skipped += other.skipped;
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} passed, {} failed, {} skipped",
            self.passed, self.failed, self.skipped
        )
    }
}
