//! The read -> seal -> write pipeline that keeps every worker busy.
//!
//! The calling thread does all the I/O: it reads the input into *jobs* (buffers of whole chunks, reused
//! from a free list, so nothing is allocated per chunk or per job once the pipeline is full), hands them
//! to `threads` persistent workers through a queue, and writes the finished jobs strictly in input order
//! through a bounded reorder buffer. At most `depth` jobs exist at once, so the memory and the read-ahead
//! are bounded, while the workers always find queued work as long as the I/O keeps up. With one thread
//! there are no workers: each job is read, processed and written in turn on the calling thread.
//!
//! Errors are reported in input order: a job that failed is reported before any later job's failure,
//! and a read error only after every job read before it was processed and written.

use super::error::{Error, Result};
use std::any::Any;
use std::collections::BTreeMap;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Mutex;

/// One buffer of whole chunks on its way through the pipeline.
pub(crate) struct Job {
    /// Position in the input, counting from 0.
    pub index: u64,
    /// The data, processed in place; `data[..len]` is valid.
    pub data: Vec<u8>,
    /// Valid bytes of `data`.
    pub len: usize,
    /// Whether this job holds the end of the input.
    pub last: bool,
    /// Side storage of the sealed chunks' tags (encryption).
    pub tags: Vec<u8>,
    /// What the worker made of it.
    result: Result<()>,
    /// A worker's panic (a bug), re-raised on the calling thread.
    panic: Option<Box<dyn Any + Send>>,
}

impl Job {
    /// A job with `data_len` bytes of data and `tags_len` bytes of tag storage.
    pub fn new(data_len: usize, tags_len: usize) -> Job {
        Job {
            index: 0,
            data: vec![0; data_len],
            len: 0,
            last: false,
            tags: vec![0; tags_len],
            result: Ok(()),
            panic: None,
        }
    }
}

/// Jobs in flight (being read, queued, processed, waiting to be written) for `threads` workers: two
/// per worker, so each has a job queued while it works on one, and one for the I/O thread.
pub(crate) fn depth_for(threads: usize) -> usize {
    2 * threads + 1
}

/// Runs the pipeline until a job with `last` set has been written or an error occurs.
/// `fill` reads the next part of the input into a job (setting `len` and `last`), `work` processes a
/// job in place (on a worker), `drain` writes a processed job.
pub(crate) fn run<New, Fill, Work, Drain>(
    threads: usize,
    new_job: New,
    mut fill: Fill,
    work: &Work,
    mut drain: Drain,
) -> Result<()>
where
    New: Fn() -> Job,
    Fill: FnMut(&mut Job) -> Result<()>,
    Work: Fn(&mut Job) -> Result<()> + Sync,
    Drain: FnMut(&Job) -> Result<()>,
{
    if threads <= 1 {
        let mut job = new_job();
        loop {
            fill(&mut job)?;
            work(&mut job)?;
            drain(&job)?;
            if job.last {
                return Ok(());
            }
            job.index += 1;
        }
    }
    let cancel = AtomicBool::new(false);
    let (queue_tx, queue_rx) = mpsc::channel::<Job>();
    let queue_rx = Mutex::new(queue_rx);
    let (done_tx, done_rx) = mpsc::channel::<Job>();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let done_tx = done_tx.clone();
            let (queue_rx, cancel) = (&queue_rx, &cancel);
            scope.spawn(move || loop {
                // The lock is held only while waiting for the next job; it cannot be poisoned, as
                // nothing panics while holding it.
                let next = match queue_rx.lock() {
                    Ok(rx) => rx.recv(),
                    Err(_) => return,
                };
                let Ok(mut job) = next else {
                    return; // the queue is closed: the pipeline is over
                };
                if !cancel.load(Ordering::Relaxed) {
                    // A panic would be a bug (the AEADs return errors); it is carried back to the
                    // calling thread, so that no job goes missing while the others wait for it.
                    match panic::catch_unwind(AssertUnwindSafe(|| work(&mut job))) {
                        Ok(result) => job.result = result,
                        Err(payload) => job.panic = Some(payload),
                    }
                }
                if done_tx.send(job).is_err() {
                    return;
                }
            });
        }
        drop(done_tx);
        // `queue_tx` moves into `drive` and is dropped when it returns, which lets the workers exit.
        let result = drive(
            depth_for(threads),
            &new_job,
            &mut fill,
            &mut drain,
            queue_tx,
            &done_rx,
        );
        cancel.store(true, Ordering::Relaxed);
        result
    })
}

/// The I/O thread's side of [`run`]: read ahead into free jobs, write finished jobs in order.
fn drive<New, Fill, Drain>(
    depth: usize,
    new_job: &New,
    fill: &mut Fill,
    drain: &mut Drain,
    queue: mpsc::Sender<Job>,
    done: &mpsc::Receiver<Job>,
) -> Result<()>
where
    New: Fn() -> Job,
    Fill: FnMut(&mut Job) -> Result<()>,
    Drain: FnMut(&Job) -> Result<()>,
{
    let mut free: Vec<Job> = Vec::with_capacity(depth);
    let mut created = 0;
    let mut reorder: BTreeMap<u64, Job> = BTreeMap::new();
    let (mut next_read, mut next_write) = (0u64, 0u64);
    let mut input_done = false;
    let mut read_error = None;
    loop {
        while !input_done {
            let mut job = match free.pop() {
                Some(job) => job,
                None if created < depth => {
                    created += 1;
                    new_job()
                }
                None => break,
            };
            job.index = next_read;
            job.result = Ok(());
            if let Err(e) = fill(&mut job) {
                // Reported once every job read before it has been processed and written.
                read_error = Some(e);
                input_done = true;
                break;
            }
            input_done = job.last;
            next_read += 1;
            // The workers outlive this function, so the queue cannot be closed here.
            let _ = queue.send(job);
        }
        if next_write == next_read {
            return read_error.map_or(Ok(()), Err);
        }
        let mut job = loop {
            if let Some(job) = reorder.remove(&next_write) {
                break job;
            }
            match done.recv() {
                Ok(job) => {
                    reorder.insert(job.index, job);
                }
                // Unreachable: the workers outlive this function and return every job they take.
                // Were it reached, the output is incomplete, so it must not end in success.
                Err(_) => {
                    return Err(Error::Output(std::io::Error::other(
                        "the worker threads stopped",
                    )))
                }
            }
        };
        if let Some(payload) = job.panic.take() {
            panic::resume_unwind(payload);
        }
        std::mem::replace(&mut job.result, Ok(()))?;
        drain(&job)?;
        next_write += 1;
        free.push(job);
    }
}
