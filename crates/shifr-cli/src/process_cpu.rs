//! The process's CPU time (user + system, all threads) from getrusage(2), which std does not expose.

use std::time::Duration;

/// CPU time this process has used so far; `None` if the kernel refused (it never does for
/// `RUSAGE_SELF`).
pub fn used() -> Option<Duration> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `usage` points to writable memory the size of `rusage`, and RUSAGE_SELF is a valid `who`.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) };
    if rc != 0 {
        return None;
    }
    // SAFETY: the buffer was zero-initialised (a valid `rusage`: plain integers) and then filled in.
    let usage = unsafe { usage.assume_init() };
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    Some(tv(usage.ru_utime) + tv(usage.ru_stime))
}
