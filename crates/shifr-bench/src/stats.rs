//! Summary statistics over repeated timed runs: the median is the reported value (robust against the
//! occasional preempted run on a shared machine), with the minimum and maximum beside it so that the
//! spread is visible.

/// Median, minimum and maximum of a set of samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// The middle value (the mean of the two middle values for an even count).
    pub median: f64,
    /// The smallest sample.
    pub min: f64,
    /// The largest sample.
    pub max: f64,
    /// How many samples were summarised.
    pub count: usize,
}

impl Summary {
    /// Summarises `samples`, ignoring NaNs; `None` when no finite sample is left.
    pub fn of(samples: &[f64]) -> Option<Summary> {
        let mut sorted: Vec<f64> = samples.iter().copied().filter(|x| !x.is_nan()).collect();
        if sorted.is_empty() {
            return None;
        }
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
        };
        Some(Summary {
            median,
            min: sorted[0],
            max: sorted[n - 1],
            count: n,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_count_takes_the_middle() {
        let s = Summary::of(&[5.0, 1.0, 3.0]).unwrap();
        assert_eq!((s.median, s.min, s.max, s.count), (3.0, 1.0, 5.0, 3));
    }

    #[test]
    fn even_count_averages_the_middle_pair() {
        let s = Summary::of(&[4.0, 1.0, 3.0, 2.0]).unwrap();
        assert_eq!((s.median, s.min, s.max), (2.5, 1.0, 4.0));
    }

    #[test]
    fn an_outlier_does_not_move_the_median() {
        let s = Summary::of(&[10.0, 10.0, 10.0, 10.0, 1e9]).unwrap();
        assert_eq!(s.median, 10.0);
        assert_eq!(s.max, 1e9);
    }

    #[test]
    fn empty_and_nan_only_give_none() {
        assert_eq!(Summary::of(&[]), None);
        assert_eq!(Summary::of(&[f64::NAN]), None);
        assert_eq!(Summary::of(&[f64::NAN, 7.0]).unwrap().median, 7.0);
    }
}
