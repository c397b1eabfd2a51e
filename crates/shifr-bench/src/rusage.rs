//! CPU time of the whole process (all threads, user + system) from `getrusage(RUSAGE_SELF)`, and of
//! its waited-for children (`RUSAGE_CHILDREN`), for the CPU % column: CPU seconds over wall seconds,
//! so a busy single thread reads 100 % and two busy threads 200 %.

/// User + system CPU seconds consumed by this process so far.
pub fn process_cpu_seconds() -> f64 {
    rusage_cpu_seconds(libc::RUSAGE_SELF)
}

/// User + system CPU seconds of the waited-for children of this process.
pub fn children_cpu_seconds() -> f64 {
    rusage_cpu_seconds(libc::RUSAGE_CHILDREN)
}

fn rusage_cpu_seconds(who: libc::c_int) -> f64 {
    // SAFETY: rusage is plain old data, so all-zero bytes are a valid value for it.
    let mut usage: libc::rusage = unsafe { core::mem::zeroed() };
    // SAFETY: getrusage writes one rusage struct into the live, writable `usage`.
    let rc = unsafe { libc::getrusage(who, &mut usage) };
    if rc != 0 {
        return 0.0;
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// CPU seconds consumed by the calling thread so far (`CLOCK_THREAD_CPUTIME_ID`): unlike the wall
/// clock, it does not advance while the thread waits for a core on a busy machine.
pub fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into the live, writable `ts`.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0.0;
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// What a child process left behind: its exit code, output and peak resident memory.
#[derive(Debug, Clone)]
pub struct ChildRun {
    /// Exit code (`None` if a signal ended it).
    pub code: Option<i32>,
    /// Everything it wrote to stdout.
    pub stdout: Vec<u8>,
    /// Everything it wrote to stderr.
    pub stderr: Vec<u8>,
    /// Its peak resident set size, KiB (`ru_maxrss` from `wait4`).
    pub peak_rss_kib: u64,
}

/// Runs `cmd` to the end with piped stdin (closed at once), stdout and stderr, and reaps it with
/// `wait4` for its own resource usage (unlike `RUSAGE_CHILDREN`, which keeps the maximum over every
/// child so far).
// The child is reaped with wait4 (for its rusage), which clippy cannot see.
#[allow(clippy::zombie_processes)]
pub fn run_measuring_rss(cmd: &mut std::process::Command) -> std::io::Result<ChildRun> {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    drop(child.stdin.take());
    let mut stderr_pipe = child.stderr.take();
    // stderr drains on a thread so that neither pipe can fill up and stall the child.
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(pipe) = stderr_pipe.as_mut() {
            // A read error only truncates what is shown of the child's stderr.
            let _ = pipe.read_to_end(&mut buf);
        }
        buf
    });
    let mut stdout = Vec::new();
    if let Some(mut pipe) = child.stdout.take() {
        pipe.read_to_end(&mut stdout)?;
    }
    let stderr = err_reader.join().unwrap_or_default();
    let pid = libc::pid_t::try_from(child.id())
        .map_err(|_| std::io::Error::other("child pid out of range"))?;
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain old data, so all-zero bytes are a valid value for it.
    let mut usage: libc::rusage = unsafe { core::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet reaped (std only reaps in wait/try_wait, never called
    // here); wait4 writes one int and one rusage into the live, writable locals.
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    if rc != pid {
        return Err(std::io::Error::last_os_error());
    }
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    Ok(ChildRun {
        code,
        stdout,
        stderr,
        peak_rss_kib: u64::try_from(usage.ru_maxrss).unwrap_or(0),
    })
}

/// CPU seconds over wall seconds, in percent (0 when no wall time passed).
pub fn cpu_percent(cpu_seconds: f64, wall_seconds: f64) -> f64 {
    if wall_seconds > 0.0 {
        100.0 * cpu_seconds / wall_seconds
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_time_advances_with_work() {
        let before = process_cpu_seconds();
        let mut x = 0u64;
        while process_cpu_seconds() <= before {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        assert!(process_cpu_seconds() > before);
    }

    #[test]
    fn percent_of_wall_time() {
        assert_eq!(cpu_percent(1.0, 2.0), 50.0);
        assert_eq!(cpu_percent(1.0, 0.0), 0.0);
    }
}
