//! CPU time of the whole process (all threads, user + system) from `getrusage(RUSAGE_SELF)`, for the
//! CPU % column: CPU seconds over wall seconds, so a busy single thread reads 100 % and two busy
//! threads 200 %.

/// User + system CPU seconds consumed by this process so far.
pub fn process_cpu_seconds() -> f64 {
    // SAFETY: rusage is plain old data, so all-zero bytes are a valid value for it.
    let mut usage: libc::rusage = unsafe { core::mem::zeroed() };
    // SAFETY: getrusage writes one rusage struct into the live, writable `usage`.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    if rc != 0 {
        return 0.0;
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
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
