//! Time and cycles: the monotonic clock every sample is timed with, the core clock estimate, and the
//! hardware cycle counter where the kernel offers one.

pub mod clock;
mod perf_event;

pub use clock::{estimate_core_hz, CoreClock};
pub use perf_event::CycleCounter;
