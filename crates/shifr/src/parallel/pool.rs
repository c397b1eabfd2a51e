//! The engine's persistent worker pool: threads created once, parked between jobs, and a scoped-job
//! call ([`Pool::run`]) that runs `task(0..parts)` on the calling thread and up to `helpers`
//! workers and returns only when every part has finished.
//!
//! A job is a borrowed closure called once per part index. Parts are handed out dynamically: every
//! thread (the caller included) takes the next unclaimed index from a shared counter until none is
//! left, so a thread that starts late (a worker waking up) or runs slower (a busy core) simply takes
//! fewer parts, and all threads finish within about one part of each other. The result of a job
//! depends only on what `task(i)` does for each `i`, never on which thread ran it.
//!
//! After a job a worker spins for [`SPIN`] before it parks, so that back-to-back jobs (a stream of
//! large messages) do not pay a wake-up each; a parked worker costs nothing.
//!
//! A panic in `task` (on a worker or on the calling thread) is caught, the remaining parts still
//! run, and [`Pool::run`] returns [`WorkerPanicked`]: never a hang, never a dead worker. One job
//! runs on a pool at a time; a second caller that finds the pool busy (another thread, or a task
//! that itself calls the engine) runs its whole job on its own thread instead of waiting, so there
//! is no deadlock. Dropping the pool stops and joins its workers.
//!
//! Soundness: the workers are `'static` threads, the task borrows the caller's data, so its
//! lifetime is erased while it is published to the workers ([`TaskPtr`], the only `unsafe` here).
//! This is sound because [`Pool::run`] does not return (nor unwind: every call of the task is
//! inside `catch_unwind`) until the count of workers still inside the job is zero, and a worker
//! decrements that count only after its last use of the task.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, TryLockError};
use std::thread::{JoinHandle, Thread};
use std::time::{Duration, Instant};

/// How long a worker keeps polling for the next job after finishing one, before it parks.
const SPIN: Duration = Duration::from_micros(50);

/// A job's task: called once for each part index.
pub(crate) type Task<'a> = dyn Fn(usize) + Sync + 'a;

/// A part of a job panicked; the job's other parts ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WorkerPanicked;

/// A fixed set of parked worker threads.
pub(crate) struct Pool {
    shared: Arc<Shared>,
    handles: Vec<JoinHandle<()>>,
    /// Held by the caller for the whole of a job: one job at a time.
    submit: Mutex<()>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("workers", &self.handles.len())
            .finish()
    }
}

/// What the caller and the workers share.
struct Shared {
    /// Bumped (under `job`'s lock) when a job is published.
    generation: AtomicU64,
    /// The job being run, if any.
    job: Mutex<Option<Job>>,
    /// The next part index to hand out.
    next: AtomicUsize,
    /// Workers taking part in the current job that have not finished it.
    running: AtomicUsize,
    /// Whether a part of the current job panicked.
    panicked: AtomicBool,
    shutdown: AtomicBool,
}

/// A published job.
#[derive(Clone)]
struct Job {
    generation: u64,
    task: TaskPtr,
    parts: usize,
    /// Workers `0..helpers` take part.
    helpers: usize,
    /// The caller, unparked by the last worker to finish.
    caller: Thread,
}

/// The task with its lifetime erased.
#[derive(Clone, Copy)]
struct TaskPtr(*const Task<'static>);

// SAFETY: the pointee is `Sync` (a `Task` is `Fn + Sync`), so calling it from several threads is
// sound; the pointer itself is only dereferenced while the job that published it is running (see
// the module doc and `Pool::run`).
unsafe impl Send for TaskPtr {}
// SAFETY: as for `Send`: sharing the pointer only shares access to a `Sync` closure.
unsafe impl Sync for TaskPtr {}

impl TaskPtr {
    fn erase(task: &Task<'_>) -> TaskPtr {
        let ptr: *const Task<'_> = task;
        // SAFETY: only the lifetime bound of the trait object changes (same layout, same vtable).
        // The erased pointer is dereferenced only in `run_parts` by a worker taking part in the
        // job, and `Pool::run` waits for all of them to finish before it returns, so no use
        // outlives the borrow.
        TaskPtr(unsafe { std::mem::transmute::<*const Task<'_>, *const Task<'static>>(ptr) })
    }

    /// # Safety
    /// The job that published this pointer must still be running (its caller blocked in
    /// [`Pool::run`]).
    unsafe fn get<'a>(self) -> &'a Task<'a> {
        // SAFETY: guaranteed by the caller, see above.
        unsafe { &*self.0 }
    }
}

impl Pool {
    /// A pool of `workers` threads (fewer if the system refuses to create more).
    pub(crate) fn new(workers: usize) -> Pool {
        let shared = Arc::new(Shared {
            generation: AtomicU64::new(0),
            job: Mutex::new(None),
            next: AtomicUsize::new(0),
            running: AtomicUsize::new(0),
            panicked: AtomicBool::new(false),
            shutdown: AtomicBool::new(false),
        });
        let mut handles = Vec::with_capacity(workers);
        for id in 0..workers {
            let s = Arc::clone(&shared);
            let spawned = std::thread::Builder::new()
                .name(format!("shifr-engine-{id}"))
                .spawn(move || worker(&s, id));
            match spawned {
                Ok(h) => handles.push(h),
                Err(_) => break,
            }
        }
        Pool {
            shared,
            handles,
            submit: Mutex::new(()),
        }
    }

    /// The number of worker threads.
    pub(crate) fn workers(&self) -> usize {
        self.handles.len()
    }

    /// Runs `task(i)` for every `i` in `0..parts`, on the calling thread and up to `helpers`
    /// workers, and returns when all have finished. `Err` if any call panicked (the others ran).
    pub(crate) fn run(
        &self,
        helpers: usize,
        parts: usize,
        task: &Task<'_>,
    ) -> Result<(), WorkerPanicked> {
        let helpers = helpers.min(self.workers()).min(parts.saturating_sub(1));
        let guard = match self.submit.try_lock() {
            _ if helpers == 0 => None,
            Ok(g) => Some(g),
            Err(TryLockError::Poisoned(p)) => Some(p.into_inner()),
            Err(TryLockError::WouldBlock) => None,
        };
        let Some(_guard) = guard else {
            return run_alone(parts, task);
        };
        let s = &*self.shared;
        s.next.store(0, Ordering::Relaxed);
        s.panicked.store(false, Ordering::Relaxed);
        s.running.store(helpers, Ordering::Relaxed);
        {
            let mut job = s.job.lock().unwrap_or_else(PoisonError::into_inner);
            let generation = s.generation.load(Ordering::Relaxed) + 1;
            *job = Some(Job {
                generation,
                task: TaskPtr::erase(task),
                parts,
                helpers,
                caller: std::thread::current(),
            });
            s.generation.store(generation, Ordering::Release);
        }
        for h in &self.handles[..helpers] {
            h.thread().unpark();
        }
        // The caller's share; no panic escapes it, so the wait below always happens.
        run_parts(s, task, parts);
        let start = Instant::now();
        while s.running.load(Ordering::Acquire) != 0 {
            if start.elapsed() < SPIN {
                std::hint::spin_loop();
            } else {
                std::thread::park();
            }
        }
        *s.job.lock().unwrap_or_else(PoisonError::into_inner) = None;
        if s.panicked.load(Ordering::Relaxed) {
            Err(WorkerPanicked)
        } else {
            Ok(())
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.shutdown.store(true, Ordering::Release);
        for h in &self.handles {
            h.thread().unpark();
        }
        for h in self.handles.drain(..) {
            // Workers catch every panic of a task, so a join error cannot happen; nothing to do.
            let _ = h.join();
        }
    }
}

/// A whole job on the calling thread (the pool is busy, or there is nobody to help).
pub(crate) fn run_alone(parts: usize, task: &Task<'_>) -> Result<(), WorkerPanicked> {
    let mut ok = true;
    for i in 0..parts {
        ok &= catch_unwind(AssertUnwindSafe(|| task(i))).is_ok();
    }
    if ok {
        Ok(())
    } else {
        Err(WorkerPanicked)
    }
}

/// Takes part indices until none is left, calling `task` on each.
fn run_parts(s: &Shared, task: &Task<'_>, parts: usize) {
    loop {
        let i = s.next.fetch_add(1, Ordering::Relaxed);
        if i >= parts {
            break;
        }
        if catch_unwind(AssertUnwindSafe(|| task(i))).is_err() {
            s.panicked.store(true, Ordering::Relaxed);
        }
    }
}

/// A worker: waits for a job it takes part in, runs parts, reports, and waits again.
fn worker(s: &Shared, id: usize) {
    let mut seen = 0u64;
    let mut spin_until: Option<Instant> = None;
    loop {
        // Wait for a new generation (spinning for a while after a job, then parked).
        while s.generation.load(Ordering::Acquire) == seen && !s.shutdown.load(Ordering::Acquire) {
            match spin_until {
                Some(t) if Instant::now() < t => std::hint::spin_loop(),
                _ => {
                    spin_until = None;
                    std::thread::park();
                }
            }
        }
        if s.shutdown.load(Ordering::Acquire) {
            return;
        }
        let job = s.job.lock().unwrap_or_else(PoisonError::into_inner).clone();
        let Some(job) = job else {
            // The job was over before this (non-participating) worker looked.
            seen = s.generation.load(Ordering::Acquire);
            continue;
        };
        seen = job.generation;
        if id >= job.helpers {
            continue;
        }
        // SAFETY: this worker is counted in `running` for this job, so its caller is blocked in
        // `Pool::run` until the decrement below, which comes after the last use of the task.
        let task = unsafe { job.task.get() };
        run_parts(s, task, job.parts);
        if s.running.fetch_sub(1, Ordering::AcqRel) == 1 {
            job.caller.unpark();
        }
        spin_until = Some(Instant::now() + SPIN);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    /// Each index of each job is run exactly once, for many jobs in a row.
    #[test]
    fn many_jobs_run_every_part_once() {
        let pool = Pool::new(3);
        for round in 0..500usize {
            let parts = 1 + round % 37;
            let hits: Vec<AtomicU32> = (0..parts).map(|_| AtomicU32::new(0)).collect();
            pool.run(1 + round % 4, parts, &|i| {
                hits[i].fetch_add(1, Ordering::Relaxed);
            })
            .unwrap();
            assert!(
                hits.iter().all(|h| h.load(Ordering::Relaxed) == 1),
                "round {round}"
            );
        }
    }

    /// Parts of very different costs all finish before `run` returns.
    #[test]
    fn uneven_parts_complete_before_return() {
        let pool = Pool::new(2);
        let mut out = vec![0u64; 9];
        let cells: Vec<Mutex<&mut u64>> = out.iter_mut().map(Mutex::new).collect();
        pool.run(2, cells.len(), &|i| {
            if i % 4 == 0 {
                std::thread::sleep(Duration::from_millis(5));
            }
            **cells[i].lock().unwrap() = i as u64 * 7 + 1;
        })
        .unwrap();
        drop(cells);
        assert_eq!(out, (0..9).map(|i| i * 7 + 1).collect::<Vec<u64>>());
    }

    /// A panicking part is reported as an error; the other parts ran and the pool stays usable.
    #[test]
    fn a_panic_becomes_an_error_not_a_hang() {
        let pool = Pool::new(2);
        for bad in [0usize, 3, 7] {
            let done = AtomicUsize::new(0);
            let r = pool.run(2, 8, &|i| {
                assert!(i != bad, "part {i} fails on purpose");
                done.fetch_add(1, Ordering::Relaxed);
            });
            assert_eq!(r, Err(WorkerPanicked));
            assert_eq!(done.load(Ordering::Relaxed), 7);
        }
        let done = AtomicUsize::new(0);
        pool.run(2, 8, &|_| {
            done.fetch_add(1, Ordering::Relaxed);
        })
        .unwrap();
        assert_eq!(done.load(Ordering::Relaxed), 8);
    }

    /// Work really is shared: with one helper, a part that waits for another part to start can
    /// only finish if two threads run at once.
    #[test]
    fn a_helper_runs_parts_concurrently() {
        let pool = Pool::new(1);
        let started = AtomicUsize::new(0);
        pool.run(1, 2, &|_| {
            started.fetch_add(1, Ordering::SeqCst);
            let t = Instant::now();
            while started.load(Ordering::SeqCst) < 2 {
                assert!(t.elapsed() < Duration::from_secs(20), "no second thread");
                std::thread::yield_now();
            }
        })
        .unwrap();
    }

    /// A job started from inside a job (the pool is busy) runs on its own thread, no deadlock.
    #[test]
    fn nested_jobs_run_alone() {
        let pool = Pool::new(2);
        let total = AtomicUsize::new(0);
        pool.run(2, 4, &|_| {
            pool.run(2, 5, &|_| {
                total.fetch_add(1, Ordering::Relaxed);
            })
            .unwrap();
        })
        .unwrap();
        assert_eq!(total.load(Ordering::Relaxed), 20);
    }

    /// Jobs from several threads at once on one pool all complete.
    #[test]
    fn concurrent_callers_share_a_pool() {
        let pool = Arc::new(Pool::new(2));
        let total = Arc::new(AtomicUsize::new(0));
        let callers: Vec<_> = (0..4)
            .map(|_| {
                let (pool, total) = (Arc::clone(&pool), Arc::clone(&total));
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        pool.run(2, 6, &|_| {
                            total.fetch_add(1, Ordering::Relaxed);
                        })
                        .unwrap();
                    }
                })
            })
            .collect();
        for c in callers {
            c.join().unwrap();
        }
        assert_eq!(total.load(Ordering::Relaxed), 4 * 50 * 6);
    }

    /// Dropping a pool (idle, or right after jobs) stops and joins its workers.
    #[test]
    fn drop_joins_workers() {
        for workers in [0usize, 1, 4] {
            let pool = Pool::new(workers);
            assert_eq!(pool.workers(), workers);
            let weak = Arc::downgrade(&pool.shared);
            pool.run(workers, 10, &|_| {}).unwrap();
            drop(pool);
            // Every worker held a reference to the shared state until it exited.
            assert_eq!(weak.strong_count(), 0);
        }
        drop(Pool::new(3));
    }
}
