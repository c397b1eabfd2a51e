//! `shifr tune`: measures, on this CPU, which of shifr's backends is fastest for each primitive's
//! kinds of work, and turns the timings into the calibration entries of
//! [`shifr::cpu::calibration`]. Every backend gives the same bytes, so a calibration changes speed
//! only; the decision itself ([`decide`]) is a pure function of the timings, tested with made-up
//! ones. The measuring is the caller's: a backend is forced per process (`SHIFR_BACKEND`), so the
//! `shifr` command measures each one in a child `shifr bench --backend B`.

use shifr::cpu::{Backend, Entry, Primitive, Work};

use crate::BenchError;

/// One measurement plan: a primitive's kind of work, measured through a catalogue algorithm at
/// the given message sizes (ascending).
#[derive(Debug, Clone, Copy)]
pub struct Probe {
    /// Whose choice.
    pub primitive: Primitive,
    /// Which kind of work.
    pub work: Work,
    /// The catalogue algorithm that exercises it.
    pub algorithm: &'static str,
    /// Message sizes in bytes, ascending (for [`Work::Short`]: the candidates for its bound).
    pub sizes: &'static [usize],
}

/// What `shifr tune` measures: the choices the library's primitives consult (bulk for each; short
/// calls for AES, 3DES and Magma, whose narrow paths share the wide path's keys; chains for Magma,
/// whose one-lane kernel competes with its portable rounds). Bulk probes come before the short probes
/// of the same primitive, which compare against the bulk winner.
pub const PROBES: &[Probe] = &[
    Probe {
        primitive: Primitive::Aes,
        work: Work::Bulk,
        algorithm: "aes-128-ctr",
        sizes: &[16384],
    },
    Probe {
        primitive: Primitive::Aes,
        work: Work::Short,
        algorithm: "aes-128-ecb",
        sizes: &[64, 128, 256, 512, 1024],
    },
    Probe {
        primitive: Primitive::Tdes,
        work: Work::Bulk,
        algorithm: "des-ede3-ecb",
        sizes: &[16384],
    },
    Probe {
        primitive: Primitive::Tdes,
        work: Work::Short,
        algorithm: "des-ede3-ecb",
        sizes: &[512, 1024, 2048, 4096],
    },
    Probe {
        primitive: Primitive::Magma,
        work: Work::Bulk,
        algorithm: "magma-ctr",
        sizes: &[16384],
    },
    Probe {
        primitive: Primitive::Magma,
        work: Work::Short,
        algorithm: "magma-ecb",
        sizes: &[8, 16, 32, 64, 128],
    },
    Probe {
        primitive: Primitive::Magma,
        work: Work::Chain,
        algorithm: "magma-cbc",
        sizes: &[4096],
    },
    Probe {
        primitive: Primitive::Kuznyechik,
        work: Work::Bulk,
        algorithm: "kuznyechik-ctr",
        sizes: &[16384],
    },
    Probe {
        primitive: Primitive::ChaCha20,
        work: Work::Bulk,
        algorithm: "chacha20",
        sizes: &[16384],
    },
];

/// One measured speed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// The backend that ran.
    pub backend: Backend,
    /// Message size in bytes.
    pub bytes: usize,
    /// MB/s (10^6 B/s).
    pub mb_s: f64,
}

/// A short-call backend must beat the bulk one by this factor at a size for the size to count
/// (a smaller lead is within the noise of a few-second calibration).
const SHORT_LEAD: f64 = 1.03;

/// The entry `timings` decide for `probe`; `bulk` is the bulk winner of the same primitive (for
/// [`Work::Short`]). Bulk and chain: the fastest backend at the probe's (largest) size. Short: the
/// fastest backend at the smallest size, if it is not the bulk one, up to the largest size of the
/// run of sizes from the smallest where it leads the bulk backend by [`SHORT_LEAD`].
pub fn decide(probe: &Probe, bulk: Option<Backend>, timings: &[Timing]) -> Option<Entry> {
    let at = |bytes: usize, backend: Backend| {
        timings
            .iter()
            .filter(|t| t.bytes == bytes && t.backend == backend)
            .map(|t| t.mb_s)
            .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))
    };
    let fastest = |bytes: usize| {
        timings
            .iter()
            .filter(|t| t.bytes == bytes)
            .max_by(|a, b| a.mb_s.total_cmp(&b.mb_s))
            .map(|t| t.backend)
    };
    let entry = |backend, short_max| Entry {
        primitive: probe.primitive,
        work: probe.work,
        backend,
        short_max,
    };
    match probe.work {
        Work::Bulk | Work::Chain => Some(entry(fastest(*probe.sizes.last()?)?, 0)),
        Work::Short => {
            let bulk = bulk?;
            let first = *probe.sizes.first()?;
            let short = fastest(first)?;
            if short == bulk {
                return None;
            }
            let mut short_max = 0;
            for &size in probe.sizes {
                match (at(size, short), at(size, bulk)) {
                    (Some(s), Some(b)) if s > b * SHORT_LEAD => short_max = size,
                    _ => break,
                }
            }
            (short_max > 0).then(|| entry(short, short_max))
        }
    }
}

/// One probe's measurements and the entry they decided (`None`: no entry, e.g. short calls that
/// the bulk backend wins too).
#[derive(Debug, Clone)]
pub struct Outcome {
    /// What was measured.
    pub probe: Probe,
    /// Every backend that ran, at every size of the probe.
    pub timings: Vec<Timing>,
    /// The decision.
    pub entry: Option<Entry>,
}

/// Measures every probe on every backend this CPU supports and returns each probe's timings and
/// decision. `measure(probe, backend)` gives the probe's speeds with `backend` forced, each
/// labelled with the backend that ran (an algorithm without that backend runs its best one:
/// such repeats are dropped); `progress` is told each probe as it starts.
pub fn calibrate(
    mut measure: impl FnMut(&Probe, Backend) -> Result<Vec<Timing>, BenchError>,
    mut progress: impl FnMut(&Probe),
) -> Result<Vec<Outcome>, BenchError> {
    let mut outcomes: Vec<Outcome> = Vec::new();
    for probe in PROBES {
        progress(probe);
        let mut timings: Vec<Timing> = Vec::new();
        for backend in shifr::cpu::supported() {
            for t in measure(probe, backend)? {
                let repeat = timings
                    .iter()
                    .any(|s| s.backend == t.backend && s.bytes == t.bytes);
                if !repeat && probe.sizes.contains(&t.bytes) {
                    timings.push(t);
                }
            }
        }
        let bulk = outcomes
            .iter()
            .filter_map(|o| o.entry)
            .find(|e| e.primitive == probe.primitive && e.work == Work::Bulk)
            .map(|e| e.backend);
        let entry = decide(probe, bulk, &timings);
        outcomes.push(Outcome {
            probe: *probe,
            timings,
            entry,
        });
    }
    Ok(outcomes)
}

/// The entries of `outcomes`, in probe order: what the calibration file holds.
pub fn entries(outcomes: &[Outcome]) -> Vec<Entry> {
    outcomes.iter().filter_map(|o| o.entry).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(work: Work, sizes: &'static [usize]) -> Probe {
        Probe {
            primitive: Primitive::Aes,
            work,
            algorithm: "aes-128-ecb",
            sizes,
        }
    }

    fn t(backend: Backend, bytes: usize, mb_s: f64) -> Timing {
        Timing {
            backend,
            bytes,
            mb_s,
        }
    }

    #[test]
    fn bulk_and_chain_take_the_fastest() {
        let timings = [
            t(Backend::AesNi, 16384, 10_000.0),
            t(Backend::Avx512, 16384, 21_000.0),
            t(Backend::Vaes, 16384, 20_000.0),
        ];
        let e = decide(&probe(Work::Bulk, &[16384]), None, &timings).unwrap();
        assert_eq!(
            (e.backend, e.work, e.short_max),
            (Backend::Avx512, Work::Bulk, 0)
        );
        let e = decide(&probe(Work::Chain, &[16384]), None, &timings).unwrap();
        assert_eq!(e.backend, Backend::Avx512);
    }

    #[test]
    fn short_bound_is_the_last_size_of_the_leading_run() {
        let sizes: &'static [usize] = &[64, 128, 256, 512];
        let timings = [
            t(Backend::AesNi, 64, 6800.0),
            t(Backend::Avx512, 64, 2500.0),
            t(Backend::AesNi, 128, 8000.0),
            t(Backend::Avx512, 128, 5000.0),
            // Within the noise margin: the run ends here, even though AES-NI leads again later.
            t(Backend::AesNi, 256, 10_100.0),
            t(Backend::Avx512, 256, 10_000.0),
            t(Backend::AesNi, 512, 12_000.0),
            t(Backend::Avx512, 512, 11_000.0),
        ];
        let e = decide(&probe(Work::Short, sizes), Some(Backend::Avx512), &timings).unwrap();
        assert_eq!((e.backend, e.short_max), (Backend::AesNi, 128));
    }

    #[test]
    fn no_short_entry_when_the_bulk_backend_wins_short_calls_too() {
        let sizes: &'static [usize] = &[64, 128];
        let timings = [
            t(Backend::AesNi, 64, 2000.0),
            t(Backend::Avx512, 64, 3000.0),
            t(Backend::AesNi, 128, 4000.0),
            t(Backend::Avx512, 128, 6000.0),
        ];
        assert_eq!(
            decide(&probe(Work::Short, sizes), Some(Backend::Avx512), &timings),
            None
        );
        // Without a bulk winner there is nothing to compare against.
        assert_eq!(decide(&probe(Work::Short, sizes), None, &timings), None);
    }

    #[test]
    fn calibrate_decides_from_the_measurements_it_is_given() {
        // A fake CPU where the portable backend is fastest for everything: every bulk and chain
        // entry names it, and no short entry appears (the bulk backend wins short calls too).
        // Backends the algorithm lacks report the portable one, as a forced child would.
        let outcomes = calibrate(
            |probe, backend| {
                Ok(probe
                    .sizes
                    .iter()
                    .map(|&bytes| Timing {
                        backend,
                        bytes,
                        mb_s: if backend == Backend::Portable {
                            100.0
                        } else {
                            50.0
                        },
                    })
                    .collect())
            },
            |_| {},
        )
        .unwrap();
        assert_eq!(outcomes.len(), PROBES.len());
        for o in &outcomes {
            let repeats = o.timings.iter().enumerate().any(|(i, t)| {
                o.timings[..i]
                    .iter()
                    .any(|s| s.backend == t.backend && s.bytes == t.bytes)
            });
            assert!(!repeats, "{o:?}");
            match o.probe.work {
                Work::Short => assert_eq!(o.entry, None, "{o:?}"),
                _ => assert_eq!(o.entry.map(|e| e.backend), Some(Backend::Portable), "{o:?}"),
            }
        }
        assert_eq!(
            entries(&outcomes).len(),
            PROBES.iter().filter(|p| p.work != Work::Short).count()
        );
    }

    #[test]
    fn probes_name_catalogue_algorithms_and_bulk_comes_first() {
        for (i, p) in PROBES.iter().enumerate() {
            assert!(
                shifr::catalog::lookup(p.algorithm).is_ok(),
                "{}",
                p.algorithm
            );
            assert!(p.sizes.windows(2).all(|w| w[0] < w[1]));
            if p.work == Work::Short {
                assert!(PROBES[..i]
                    .iter()
                    .any(|q| q.primitive == p.primitive && q.work == Work::Bulk));
            }
        }
    }
}
