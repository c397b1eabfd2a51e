//! What the two runtimes (CUDA, OpenCL) offer the jobs: buffers, kernel launches on several queues,
//! and the pipelined host-to-host loop. The unsafe parts (asynchronous copies whose host memory must
//! outlive them) stay inside each runtime's file.

use crate::error::Result;
use shifr::block::magma::SBox;

/// One kernel argument.
pub(crate) enum Arg<'a, B> {
    Buf(&'a B),
    U32(u32),
    U64(u64),
}

/// Enqueues the kernel of one pipeline chunk: (queue, device buffer, byte offset, length).
pub(crate) type ChunkKernel<'a, B> = dyn FnMut(usize, &B, usize, usize) -> Result<()> + 'a;

/// Threads per work-group (CUDA block) for every kernel.
pub(crate) const GROUP_SIZE: usize = 256;

/// A runtime with one device.
pub(crate) trait Device {
    /// A device memory buffer.
    type Buf;

    /// "CUDA" or "OpenCL", with the device's name.
    fn describe(&self) -> String;

    /// How many work-groups keep the device busy in a grid-stride kernel.
    fn busy_groups(&self) -> usize;

    /// A buffer of `bytes` (at least 1) device bytes, contents unspecified.
    fn alloc(&self, bytes: usize) -> Result<Self::Buf>;

    /// A device buffer holding a copy of `data` (blocking).
    fn alloc_from(&self, data: &[u8]) -> Result<Self::Buf>;

    /// Copies `out.len()` bytes from the start of `buf` (blocking).
    fn read(&self, buf: &Self::Buf, out: &mut [u8]) -> Result<()>;

    /// Enqueues `kernel` of the program for `sbox` on queue `queue`: `groups` work-groups of
    /// `group_size` threads.
    fn launch(
        &self,
        queue: usize,
        sbox: SBox,
        kernel: &str,
        args: &[Arg<'_, Self::Buf>],
        groups: usize,
        group_size: usize,
    ) -> Result<()>;

    /// Waits for every queue.
    fn finish(&self) -> Result<()>;

    /// Host to host: splits `data` into `chunk`-byte pieces; piece `i` is uploaded to a device buffer
    /// of queue `i % queues`, `kernel_for(queue, buffer, byte offset, length)` enqueues its kernel,
    /// and the piece is downloaded back in place. Copies and kernels of different queues overlap.
    fn pipeline(
        &self,
        data: &mut [u8],
        chunk: usize,
        kernel_for: &mut ChunkKernel<'_, Self::Buf>,
    ) -> Result<()>;
}

/// Work-groups for `items` work items: enough to cover them, at most `busy`.
pub(crate) fn groups_for(items: u64, busy: usize) -> usize {
    let needed = items.div_ceil(GROUP_SIZE as u64).max(1);
    needed.min(busy.max(1) as u64) as usize
}
