//! What the two runtimes (CUDA, OpenCL) offer the jobs: buffers, kernel launches on several queues,
//! and the pipelined host-to-host loop. The unsafe parts (asynchronous copies whose host memory must
//! outlive them) stay inside each runtime's file.

use std::cell::{Ref, RefCell};
use std::collections::HashMap;

use crate::error::{GpuError, Result};
use crate::tables::TableId;
use shifr::hazmat::block::magma::SBox;

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

    /// The device copies of the constant tables `ids`, each uploaded on its first use in this context
    /// and kept (tables are key-independent; keys and data are uploaded per call). Look them up with
    /// [`table`]; hold the returned map only for the call.
    fn tables(&self, ids: &[TableId]) -> Result<Tables<'_, Self::Buf>>;

    /// Tables uploaded so far in this context (each exactly once).
    fn table_uploads(&self) -> usize;

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

/// The device's constant tables, as [`Device::tables`] returns them.
pub(crate) type Tables<'a, B> = Ref<'a, HashMap<TableId, B>>;

/// One device buffer per [`TableId`], uploaded on first use.
pub(crate) struct TableCache<B> {
    bufs: RefCell<HashMap<TableId, B>>,
}

fn busy() -> GpuError {
    GpuError::Api("constant-table cache in use by an enclosing call".into())
}

impl<B> TableCache<B> {
    pub(crate) fn new() -> Self {
        TableCache {
            bufs: RefCell::new(HashMap::new()),
        }
    }

    /// Uploads (with `upload`) whichever of `ids` is not on the device yet, then lends the map.
    pub(crate) fn get(
        &self,
        ids: &[TableId],
        upload: impl Fn(&[u8]) -> Result<B>,
    ) -> Result<Tables<'_, B>> {
        for &id in ids {
            if !self
                .bufs
                .try_borrow()
                .map_err(|_| busy())?
                .contains_key(&id)
            {
                let buf = upload(&id.bytes())?;
                self.bufs
                    .try_borrow_mut()
                    .map_err(|_| busy())?
                    .insert(id, buf);
            }
        }
        self.bufs.try_borrow().map_err(|_| busy())
    }

    pub(crate) fn len(&self) -> usize {
        self.bufs.try_borrow().map_or(0, |b| b.len())
    }
}

/// The device buffer of table `id` in `tables` (which [`Device::tables`] filled with it).
pub(crate) fn table<B>(tables: &HashMap<TableId, B>, id: TableId) -> Result<&B> {
    tables
        .get(&id)
        .ok_or_else(|| GpuError::Api(format!("table {id:?} was not uploaded")))
}
