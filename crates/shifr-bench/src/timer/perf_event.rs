//! Hardware cycle counter through Linux `perf_event_open` (user-space cycles of the calling thread).
//!
//! Many virtual machines expose no PMU, and `perf_event_paranoid` may forbid counting; then
//! [`CycleCounter::open`] returns the reason and callers fall back to the measured core clock.

/// The start of `struct perf_event_attr` up to `PERF_ATTR_SIZE_VER0` (64 bytes), which every kernel
/// since 2.6.31 accepts.
#[repr(C)]
#[derive(Default)]
struct PerfEventAttr {
    kind: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    /// Bit field: disabled (0), inherit (1), pinned (2), exclusive (3), exclude_user (4),
    /// exclude_kernel (5), exclude_hv (6), ...
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
}

const PERF_TYPE_HARDWARE: u32 = 0;
const PERF_COUNT_HW_CPU_CYCLES: u64 = 0;
const EXCLUDE_KERNEL: u64 = 1 << 5;
const EXCLUDE_HV: u64 = 1 << 6;

/// An open cycle counter for the calling thread, counting user-space cycles only.
#[derive(Debug)]
pub struct CycleCounter {
    fd: libc::c_int,
}

impl CycleCounter {
    /// Opens the counter, or says why there is none.
    #[cfg(target_os = "linux")]
    pub fn open() -> Result<CycleCounter, String> {
        let attr = PerfEventAttr {
            kind: PERF_TYPE_HARDWARE,
            size: core::mem::size_of::<PerfEventAttr>() as u32,
            config: PERF_COUNT_HW_CPU_CYCLES,
            flags: EXCLUDE_KERNEL | EXCLUDE_HV,
            ..PerfEventAttr::default()
        };
        // SAFETY: perf_event_open reads `size` bytes from a valid, initialised attribute struct that
        // lives for the duration of the call; pid 0 / cpu -1 = this thread on any CPU; no group fd.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_perf_event_open,
                &attr as *const PerfEventAttr,
                0 as libc::pid_t,
                -1 as libc::c_int,
                -1 as libc::c_int,
                0 as libc::c_ulong,
            )
        };
        if fd < 0 {
            let err = std::io::Error::last_os_error();
            return Err(format!(
                "no hardware cycle counter (perf_event_open: {err}; a VM without a virtual PMU, or perf_event_paranoid)"
            ));
        }
        let counter = CycleCounter {
            fd: fd as libc::c_int,
        };
        // A counter that opens but never counts (some hypervisors) is no counter.
        let before = counter.read()?;
        std::hint::black_box((0..100_000u64).fold(0u64, |a, b| a.wrapping_add(b * b)));
        if counter.read()? <= before {
            return Err("the hardware cycle counter does not advance (virtualised PMU)".into());
        }
        Ok(counter)
    }

    /// Opens the counter, or says why there is none.
    #[cfg(not(target_os = "linux"))]
    pub fn open() -> Result<CycleCounter, String> {
        Err("hardware cycle counters are read through Linux perf_event only".into())
    }

    /// The current count of user-space cycles of the thread that opened the counter.
    pub fn read(&self) -> Result<u64, String> {
        let mut value = 0u64;
        // SAFETY: reads at most 8 bytes into a live, writable u64 from the file descriptor we own.
        let n = unsafe {
            libc::read(
                self.fd,
                (&mut value as *mut u64).cast::<libc::c_void>(),
                core::mem::size_of::<u64>(),
            )
        };
        if n == core::mem::size_of::<u64>() as isize {
            Ok(value)
        } else {
            Err(format!(
                "reading the cycle counter failed: {}",
                std::io::Error::last_os_error()
            ))
        }
    }
}

impl Drop for CycleCounter {
    fn drop(&mut self) {
        // SAFETY: closes the descriptor this struct owns exactly once.
        unsafe {
            libc::close(self.fd);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribute_struct_is_the_version_0_size() {
        assert_eq!(core::mem::size_of::<PerfEventAttr>(), 64);
    }

    /// Either a counter that advances, or a reason; never a panic.
    #[test]
    fn counter_opens_or_explains() {
        match CycleCounter::open() {
            Ok(c) => {
                let a = c.read().unwrap();
                std::hint::black_box((0..10_000u64).sum::<u64>());
                assert!(c.read().unwrap() >= a);
            }
            Err(reason) => assert!(!reason.is_empty()),
        }
    }
}
