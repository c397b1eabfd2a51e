//! Measuring one workload: shifr and its peers side by side, interleaved.
//!
//! For each row every implementation ("contender") gets its own keyed ops (one per thread) and its
//! own rotating buffers. Each contender is first warmed up and calibrated: it runs until it has spent
//! a sample's worth of time, which also tells how many messages one timed sample needs. Then the
//! samples are taken round by round, A B C, B C A, C A B, ..., so that a burst of noise from the rest
//! of the machine hits every contender alike and the ratio between them holds. The reported MB/s is
//! the median sample (10^6 bytes per second), with the minimum and maximum.
//!
//! Busy machines: every sample also records the CPU time of the threads that did the work (thread
//! CPU clocks, which stand still while a thread waits for a core). A row whose threads were on a CPU
//! less than [`MIN_CPU_SHARE`] of the wall time, or whose samples spread wider than [`MAX_SPREAD`]
//! of the median, was contended: the whole row set is sampled once more, and rows still contended
//! are marked ([`Row::contended`]) so that reports say their figures are not to be judged.

use crate::buffers::BufferPool;
use crate::energy::{joules_per_gb, EnergyMeter};
use crate::peers::Peer;
use crate::rusage::{cpu_percent, process_cpu_seconds, thread_cpu_seconds};
use crate::stats::Summary;
use crate::timer::{CoreClock, CycleCounter};
use crate::workload::{shifr_engine_op, shifr_op, Op, Workload};
use crate::BenchError;
use std::time::Instant;

/// How long and how often to measure.
#[derive(Debug, Clone)]
pub struct Config {
    /// Target measured seconds per row, all contenders together (warm-up comes on top).
    pub seconds: f64,
    /// Timed samples per contender (fewer when a single message takes longer than the budget
    /// allows, but never fewer than [`MIN_SAMPLES`]).
    pub samples: usize,
    /// Peers measured beside shifr.
    pub peers: Vec<Peer>,
    /// Sample the workload once more when a row was contended (see [`contended`]).
    pub resample: bool,
}

/// The fewest samples a median is taken over.
pub const MIN_SAMPLES: usize = 3;

/// Below this share of wall time on a CPU, the measuring threads were kept waiting by other work.
pub const MIN_CPU_SHARE: f64 = 0.90;

/// Above this spread of the samples ((max - min) / median), the row was disturbed.
pub const MAX_SPREAD: f64 = 0.5;

/// Whether a row with this CPU share (0..1) and these sample speeds was contended.
pub fn contended(cpu_share: f64, mb_s_min: f64, mb_s: f64, mb_s_max: f64) -> bool {
    let spread = if mb_s > 0.0 {
        (mb_s_max - mb_s_min) / mb_s
    } else {
        f64::INFINITY
    };
    cpu_share < MIN_CPU_SHARE || spread > MAX_SPREAD
}

impl Default for Config {
    fn default() -> Config {
        Config {
            seconds: 0.15,
            samples: 5,
            peers: Peer::ALL.to_vec(),
            resample: true,
        }
    }
}

/// One line of results: one implementation on one workload.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct Row {
    /// `"shifr"` or the peer's name (`"openssl"`, `"openssl-gost"`, `"rustcrypto"`).
    pub implementation: String,
    /// Catalogue name of the algorithm.
    pub algorithm: String,
    /// The backend that ran (shifr: `aesni`, `avx2`, `portable`...; peers: their library).
    pub backend: String,
    /// `"encrypt"` or `"decrypt"`.
    pub direction: String,
    /// Message size in bytes.
    pub bytes: usize,
    /// Threads the message was split over.
    pub threads: usize,
    /// Independent streams (each its own key and IV).
    pub streams: usize,
    /// Median throughput, 10^6 bytes per second.
    pub mb_s: f64,
    /// Slowest sample.
    pub mb_s_min: f64,
    /// Fastest sample.
    pub mb_s_max: f64,
    /// Number of timed samples.
    pub samples: usize,
    /// Core cycles per byte (all threads' cycles), `None` if unknown.
    pub cycles_per_byte: Option<f64>,
    /// Where the cycles come from: `"perf_event"` or `"core clock estimate"`.
    pub cycles_source: String,
    /// Process CPU time over wall time during the samples, percent.
    pub cpu_percent: f64,
    /// Package energy per 10^9 bytes, `None` if the machine does not expose it.
    pub joules_per_gb: Option<f64>,
    /// Why `joules_per_gb` is missing, when it is.
    pub energy_note: Option<String>,
    /// shifr's MB/s over this implementation's (peers only): above 1, shifr is faster.
    pub ratio_vs_shifr: Option<f64>,
    /// Percent of the wall time the working threads spent on a CPU (thread CPU clocks; 100 on an
    /// idle machine).
    #[serde(default = "full_share")]
    pub cpu_share: f64,
    /// The row stayed contended after a re-sample: CPU share below 90 % or a wide spread. Its
    /// figures say more about the other work on the machine than about the cipher.
    #[serde(default)]
    pub contended: bool,
    /// What the row stands for when it is not a plain measurement of this machine's best setup
    /// (`"no-aes"`: shifr with the CPU's AES instructions left unused).
    #[serde(default)]
    pub scenario: Option<String>,
    /// Bytes of key schedule and per-key tables one keyed instance holds (shifr rows; see
    /// [`crate::workload::state_bytes`]).
    #[serde(default)]
    pub state_bytes: Option<usize>,
    /// The machine's name in merged reports (`shifr bench --machine`, else the host name).
    #[serde(default)]
    pub machine: Option<String>,
    /// The processor model.
    #[serde(default)]
    pub cpu: Option<String>,
    /// The shifr backends this processor supports, comma-separated.
    #[serde(default)]
    pub cpu_backends: Option<String>,
}

fn full_share() -> f64 {
    100.0
}

/// The rows of one workload and the notes on what could not be measured.
#[derive(Debug, Clone, Default)]
pub struct Measured {
    /// shifr first, then every peer that offers the algorithm.
    pub rows: Vec<Row>,
    /// "peer X: reason" for each requested peer without a row.
    pub notes: Vec<String>,
}

/// The per-run state: clock estimate, cycle counter, energy meter.
pub struct Runner {
    config: Config,
    clock: CoreClock,
    cycles: Result<CycleCounter, String>,
    energy: Result<EnergyMeter, String>,
}

impl Runner {
    /// Measures the core clock and opens the counters. Must measure on the thread that created it
    /// (the hardware cycle counter counts that thread).
    pub fn new(config: Config) -> Runner {
        Runner {
            config,
            clock: CoreClock::measure(),
            cycles: CycleCounter::open(),
            energy: EnergyMeter::open(),
        }
    }

    /// The configuration in use.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The measured core clock.
    pub fn clock(&self) -> CoreClock {
        self.clock
    }

    /// How cycles are obtained, with the reason when the hardware counter is not used.
    pub fn cycles_source(&self) -> String {
        match &self.cycles {
            Ok(_) => {
                "perf_event (hardware cycle counter; multi-threaded rows: core clock estimate)"
                    .into()
            }
            Err(why) => format!(
                "core clock estimate {:.2} GHz (dependent-add chain); {why}",
                self.clock.hz / 1e9
            ),
        }
    }

    /// Why energy is not measured, if it is not.
    pub fn energy_note(&self) -> Option<&str> {
        self.energy.as_ref().err().map(String::as_str)
    }

    /// Measures shifr and every configured peer on `w`.
    pub fn measure(&mut self, w: &Workload) -> Result<Measured, BenchError> {
        w.validate()?;
        let mut notes = Vec::new();
        let shifr = match shifr_engine_op(w)? {
            Some(op) => Contender::whole_message("shifr".into(), w, op),
            None => Contender::new("shifr", w, shifr_op)?,
        };
        let mut contenders = vec![shifr];
        for &peer in &self.config.peers.clone() {
            if !peer.applies(w.alg) {
                continue;
            }
            match Contender::new(peer.name(), w, |w| peer.op(w)) {
                Ok(c) => contenders.push(c),
                Err(e) => notes.push(format!("{}: {e}", peer.name())),
            }
        }
        let mut rows = self.measure_contenders(w, &mut contenders)?;
        if let Some(r) = rows.first_mut() {
            r.state_bytes = crate::workload::state_bytes(w.alg, w.backend)
                .or_else(|_| crate::workload::state_bytes(w.alg, None))
                .ok()
                .map(|(bytes, _)| bytes);
        }
        Ok(Measured { rows, notes })
    }

    /// Measures arbitrary implementations of `w` (the first is the reference for the ratios):
    /// each entry is a name and one op per thread.
    pub fn measure_ops(
        &mut self,
        w: &Workload,
        impls: Vec<(String, Vec<Box<dyn Op>>)>,
    ) -> Result<Vec<Row>, BenchError> {
        w.validate()?;
        let mut contenders = impls
            .into_iter()
            .map(|(name, ops)| Contender::from_ops(name, w, ops))
            .collect::<Result<Vec<_>, _>>()?;
        self.measure_contenders(w, &mut contenders)
    }

    fn measure_contenders(
        &mut self,
        w: &Workload,
        contenders: &mut [Contender],
    ) -> Result<Vec<Row>, BenchError> {
        let n = contenders.len().max(1);
        let per_sample = self.config.seconds / (self.config.samples.max(1) * n) as f64;
        let mut samples = self.config.samples.max(MIN_SAMPLES);
        for c in contenders.iter_mut() {
            let per_message = c.calibrate(per_sample)?;
            // A message slower than the budget: take fewer (but at least MIN_SAMPLES) samples.
            let affordable = (self.config.seconds / (per_message * n as f64)) as usize;
            samples = samples.min(affordable.max(MIN_SAMPLES));
        }
        let attempts = if self.config.resample { 2 } else { 1 };
        let mut rows: Vec<Row> = Vec::new();
        for attempt in 0..attempts {
            for c in contenders.iter_mut() {
                c.samples.clear();
            }
            for round in 0..samples {
                for i in 0..n {
                    let c = &mut contenders[(round + i) % n];
                    c.sample(self.cycles.as_ref().ok(), self.energy.as_ref().ok())?;
                }
            }
            rows = contenders
                .iter()
                .map(|c| self.row(w, c))
                .collect::<Result<_, _>>()?;
            if !rows.iter().any(|r| r.contended) || attempt + 1 == attempts {
                break;
            }
        }
        let reference = rows.first().map(|r| r.mb_s).unwrap_or(0.0);
        for r in rows.iter_mut().skip(1) {
            r.ratio_vs_shifr = (r.mb_s > 0.0).then(|| reference / r.mb_s);
        }
        Ok(rows)
    }

    fn row(&self, w: &Workload, c: &Contender) -> Result<Row, BenchError> {
        let speeds: Vec<f64> = c
            .samples
            .iter()
            .map(|s| s.bytes / s.seconds / 1e6)
            .collect();
        let summary = Summary::of(&speeds)
            .ok_or_else(|| BenchError::Invalid(format!("{}: no samples", c.name)))?;
        let counted: Vec<f64> = c
            .samples
            .iter()
            .filter_map(|s| s.cycles.map(|cy| cy / s.bytes))
            .collect();
        let (cycles_per_byte, cycles_source) = match Summary::of(&counted) {
            Some(s) if counted.len() == c.samples.len() => (Some(s.median), "perf_event"),
            _ if summary.median > 0.0 => (
                Some(self.clock.cycles(1.0, w.threads) / (summary.median * 1e6)),
                "core clock estimate",
            ),
            _ => (None, "unknown"),
        };
        let wall: f64 = c.samples.iter().map(|s| s.seconds).sum();
        let cpu: f64 = c.samples.iter().map(|s| s.cpu_seconds).sum();
        let busy: f64 = c.samples.iter().map(|s| s.busy_seconds).sum();
        let share = busy / (wall * c.cores() as f64).max(1e-12);
        // shifr's engine rows split a message over threads only from a size up, so their CPU
        // share says nothing about other work; their spread still does.
        let judged_share = if c.workers.len() == 1 && c.threads > 1 {
            1.0
        } else {
            share
        };
        let bytes: f64 = c.samples.iter().map(|s| s.bytes).sum();
        let joules: Option<f64> = c.samples.iter().map(|s| s.joules).sum();
        Ok(Row {
            implementation: c.name.clone(),
            algorithm: w.alg.name.to_string(),
            backend: c.backend.clone(),
            direction: w.direction.name().to_string(),
            bytes: w.bytes,
            threads: w.threads,
            streams: w.streams,
            mb_s: summary.median,
            mb_s_min: summary.min,
            mb_s_max: summary.max,
            samples: summary.count,
            cycles_per_byte,
            cycles_source: cycles_source.to_string(),
            cpu_percent: cpu_percent(cpu, wall),
            joules_per_gb: joules.map(|j| joules_per_gb(j, bytes)),
            energy_note: self.energy.as_ref().err().cloned(),
            ratio_vs_shifr: None,
            cpu_share: 100.0 * share,
            contended: contended(judged_share, summary.min, summary.median, summary.max),
            scenario: None,
            state_bytes: None,
            machine: None,
            cpu: None,
            cpu_backends: None,
        })
    }
}

/// One timed sample.
struct Sample {
    seconds: f64,
    bytes: f64,
    cpu_seconds: f64,
    /// CPU seconds of the threads that did the work.
    busy_seconds: f64,
    cycles: Option<f64>,
    joules: Option<f64>,
}

/// One thread's share of a contender: its op and its buffers.
struct Worker {
    op: Box<dyn Op>,
    pool: BufferPool,
}

impl Worker {
    /// Runs `messages` messages; returns the CPU seconds this thread spent on them.
    fn run(&mut self, messages: usize) -> Result<f64, BenchError> {
        let before = thread_cpu_seconds();
        for _ in 0..messages {
            self.op.run(self.pool.next_buffer())?;
        }
        Ok(thread_cpu_seconds() - before)
    }
}

/// One implementation of the workload, with its per-thread workers (or one worker whose op
/// spreads each message over the threads itself).
struct Contender {
    name: String,
    backend: String,
    workers: Vec<Worker>,
    /// Threads working during a sample (the hardware cycle counter covers only one).
    threads: usize,
    bytes: usize,
    messages: usize,
    samples: Vec<Sample>,
}

impl Contender {
    fn new(
        name: &str,
        w: &Workload,
        make: impl Fn(&Workload) -> Result<Box<dyn Op>, BenchError>,
    ) -> Result<Contender, BenchError> {
        let parts = w.thread_parts(w.alg.block_size.max(1));
        let ops = parts
            .iter()
            .map(|&len| make(&Workload { bytes: len, ..*w }))
            .collect::<Result<Vec<_>, _>>()?;
        Contender::from_ops(name.to_string(), w, ops)
    }

    fn from_ops(
        name: String,
        w: &Workload,
        ops: Vec<Box<dyn Op>>,
    ) -> Result<Contender, BenchError> {
        let parts = w.thread_parts(w.alg.block_size.max(1));
        if ops.len() != parts.len() {
            return Err(BenchError::Invalid(format!(
                "{name}: {} ops for {} threads",
                ops.len(),
                parts.len()
            )));
        }
        let backend = ops.first().map(|o| o.backend()).unwrap_or_default();
        let workers = ops
            .into_iter()
            .zip(&parts)
            .map(|(op, &len)| Worker {
                op,
                pool: BufferPool::new(len),
            })
            .collect();
        Ok(Contender {
            name,
            backend,
            workers,
            threads: parts.len(),
            bytes: w.bytes,
            messages: 1,
            samples: Vec::new(),
        })
    }

    /// One op that processes each whole message on `w.threads` threads of its own.
    fn whole_message(name: String, w: &Workload, op: Box<dyn Op>) -> Contender {
        Contender {
            name,
            backend: op.backend(),
            workers: vec![Worker {
                op,
                pool: BufferPool::new(w.bytes),
            }],
            threads: w.threads,
            bytes: w.bytes,
            messages: 1,
            samples: Vec::new(),
        }
    }

    /// The cores the working threads can occupy at once.
    fn cores(&self) -> usize {
        let hw = std::thread::available_parallelism().map_or(1, |n| n.get());
        self.threads.clamp(1, hw)
    }

    /// Runs `messages` messages on every worker (threads in parallel); returns the wall seconds and
    /// the CPU seconds of the working threads.
    fn timed(&mut self, messages: usize) -> Result<(f64, f64), BenchError> {
        let start = Instant::now();
        if let [only] = &mut self.workers[..] {
            let busy = if self.threads == 1 {
                only.run(messages)?
            } else {
                // One op that spreads each message over threads of its own: count the process.
                let before = process_cpu_seconds();
                only.run(messages)?;
                process_cpu_seconds() - before
            };
            Ok((start.elapsed().as_secs_f64(), busy))
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = self
                    .workers
                    .iter_mut()
                    .map(|w| s.spawn(move || w.run(messages)))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join().unwrap_or_else(|_| {
                            Err(BenchError::Invalid("a worker panicked".into()))
                        })
                    })
                    .collect::<Result<Vec<f64>, _>>()
            })
            .map(|busy| (start.elapsed().as_secs_f64(), busy.iter().sum()))
        }
    }

    /// Warm-up and calibration: doubles the message count until one batch takes a sample's time;
    /// sets the messages per sample and returns the seconds per message.
    fn calibrate(&mut self, per_sample: f64) -> Result<f64, BenchError> {
        let mut messages = 1usize;
        let mut spent = 0.0;
        loop {
            let (t, _) = self.timed(messages)?;
            spent += t;
            let per_message = t / messages as f64;
            if t >= per_sample / 2.0 || spent >= per_sample * 2.0 || messages >= 1 << 26 {
                self.messages = ((per_sample / per_message.max(1e-12)) as usize).max(1);
                return Ok(per_message.max(1e-12));
            }
            messages *= 2;
        }
    }

    fn sample(
        &mut self,
        counter: Option<&CycleCounter>,
        energy: Option<&EnergyMeter>,
    ) -> Result<(), BenchError> {
        let single = self.threads == 1;
        let cycles_before = counter.filter(|_| single).and_then(|c| c.read().ok());
        let energy_before = energy.map(|e| e.read());
        let cpu_before = process_cpu_seconds();
        let (seconds, busy_seconds) = self.timed(self.messages)?;
        let cpu_seconds = process_cpu_seconds() - cpu_before;
        let cycles = match (counter, cycles_before) {
            (Some(c), Some(b)) => c.read().ok().map(|a| a.saturating_sub(b) as f64),
            _ => None,
        };
        let joules = match (energy, energy_before) {
            (Some(e), Some(b)) => Some(e.joules_between(&b, &e.read())),
            _ => None,
        };
        self.samples.push(Sample {
            seconds: seconds.max(1e-9),
            bytes: (self.messages * self.bytes) as f64,
            cpu_seconds,
            busy_seconds,
            cycles,
            joules,
        });
        Ok(())
    }
}
