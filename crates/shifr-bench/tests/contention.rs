//! The busy-machine detector fires when other threads take the CPU: threads spinning on every core
//! (two per hardware thread) while a row is measured. Asserts on the flag and the CPU share, never
//! on speed.

use shifr_bench::run::{Config, Runner};
use shifr_bench::Workload;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Two busy threads per hardware thread, spinning until the flag is set.
fn spin_on_every_core() -> (Arc<AtomicBool>, Vec<std::thread::JoinHandle<()>>) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let stop = Arc::new(AtomicBool::new(false));
    let spinners = (0..2 * cores)
        .map(|_| {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                let mut x = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    x = std::hint::black_box(x.wrapping_add(1));
                }
            })
        })
        .collect();
    (stop, spinners)
}

#[test]
fn spinning_threads_on_every_core_mark_the_row_contended() {
    let (stop, spinners) = spin_on_every_core();
    // Let the spinners reach the run queues before measuring.
    std::thread::sleep(std::time::Duration::from_millis(50));
    let mut runner = Runner::new(Config {
        seconds: 0.4,
        samples: 5,
        peers: Vec::new(),
        resample: true,
    });
    let alg = shifr::catalog::lookup("aes-128-ctr").unwrap();
    let measured = runner.measure(&Workload::new(alg, 16 * 1024));
    stop.store(true, Ordering::Relaxed);
    for s in spinners {
        s.join().unwrap();
    }
    let rows = measured.unwrap().rows;
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert!(row.contended, "not flagged: {row:?}");
    assert!(row.cpu_share < 90.0, "CPU share {} %", row.cpu_share);
}

#[test]
fn the_contention_rule() {
    use shifr_bench::run::contended;
    assert!(!contended(0.99, 95.0, 100.0, 105.0));
    assert!(contended(0.5, 95.0, 100.0, 105.0), "low CPU share");
    assert!(contended(1.0, 20.0, 100.0, 105.0), "wide spread");
    assert!(contended(1.0, 0.0, 0.0, 0.0), "no speed at all");
}

#[test]
fn spinning_threads_make_a_study_case_count_as_busy() {
    use shifr_bench::measure;
    let (stop, spinners) = spin_on_every_core();
    std::thread::sleep(std::time::Duration::from_millis(50));
    measure::reset_busy();
    let plan = measure::Plan {
        runs: 3,
        min_run: std::time::Duration::from_millis(40),
    };
    let mut buf = vec![0u8; 4096];
    let sample = measure::measure(&plan, buf.len(), || {
        for b in buf.iter_mut() {
            *b = std::hint::black_box(b.wrapping_add(1));
        }
    });
    stop.store(true, Ordering::Relaxed);
    for s in spinners {
        s.join().unwrap();
    }
    assert!(sample.cpu_share < 0.9, "CPU share {}", sample.cpu_share);
    let busy = measure::busy().expect("the case counts as busy");
    assert_eq!((busy.cases, busy.contended), (1, 1));
    measure::reset_busy();
    assert!(measure::busy().is_none());
}
