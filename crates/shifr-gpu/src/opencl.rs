//! The OpenCL runtime (any vendor; PoCL's CPU device in CI) through `opencl3`, whose `cl3` layer opens
//! libOpenCL.so.1 at run time. Programs are built once per S-box set and context (PoCL also keeps
//! its own on-disk kernel cache), kernels are created once and reused.
//!
//! The copies of the pipeline are non-blocking: every `unsafe` block below states why the host
//! memory outlives the copy.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ptr;

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::{Device as ClDeviceInfo, CL_DEVICE_TYPE_ALL};
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};
use opencl3::platform::get_platforms;
use opencl3::program::Program;
use opencl3::types::{CL_BLOCKING, CL_NON_BLOCKING};
use shifr::hazmat::block::magma::SBox;

use crate::device::{Arg, ChunkKernel, Device, TableCache, Tables};
use crate::error::{GpuError, Result};
use crate::source;
use crate::tables::TableId;

/// Queues the pipeline rotates over.
const QUEUES: usize = 3;

pub(crate) struct OpenClDevice {
    name: String,
    compute_units: usize,
    context: Context,
    queues: Vec<CommandQueue>,
    programs: RefCell<HashMap<SBox, Program>>,
    kernels: RefCell<HashMap<(SBox, String), Kernel>>,
    tables: TableCache<Buffer<u8>>,
}

fn api(what: &str, e: impl std::fmt::Display) -> GpuError {
    GpuError::Api(format!("OpenCL {what}: {e}"))
}

impl OpenClDevice {
    /// The first device of the first platform that has one.
    pub(crate) fn open() -> Result<Self> {
        let platforms = get_platforms().map_err(|e| {
            GpuError::NoDevice(format!(
                "no OpenCL platform (libOpenCL.so.1 missing or no ICD installed: {e})"
            ))
        })?;
        let id = platforms
            .iter()
            .find_map(|p| p.get_devices(CL_DEVICE_TYPE_ALL).ok()?.first().copied())
            .ok_or_else(|| GpuError::NoDevice("no OpenCL platform has a device".into()))?;
        let device = ClDeviceInfo::new(id);
        let name = device.name().map_err(|e| api("device name", e))?;
        let compute_units = device
            .max_compute_units()
            .map_err(|e| api("compute units", e))? as usize;
        let context = Context::from_device(&device).map_err(|e| api("context", e))?;
        let queues = (0..QUEUES)
            .map(|_| CommandQueue::create_default_with_properties(&context, 0, 0))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| api("command queue", e))?;
        Ok(OpenClDevice {
            name,
            compute_units,
            context,
            queues,
            programs: RefCell::new(HashMap::new()),
            kernels: RefCell::new(HashMap::new()),
            tables: TableCache::new(),
        })
    }

    fn kernel(&self, sbox: SBox, name: &str) -> Result<std::cell::RefMut<'_, Kernel>> {
        let key = (sbox, name.to_string());
        if !self.kernels.borrow().contains_key(&key) {
            let mut programs = self.programs.borrow_mut();
            if let std::collections::hash_map::Entry::Vacant(slot) = programs.entry(sbox) {
                let program = Program::create_and_build_from_source(
                    &self.context,
                    &source::program(sbox),
                    "-cl-std=CL1.2",
                )
                .map_err(GpuError::Compile)?;
                slot.insert(program);
            }
            let kernel = Kernel::create(&programs[&sbox], name).map_err(|e| api(name, e))?;
            self.kernels.borrow_mut().insert(key.clone(), kernel);
        }
        Ok(std::cell::RefMut::map(self.kernels.borrow_mut(), |k| {
            k.get_mut(&key).expect("inserted above")
        }))
    }
}

impl Device for OpenClDevice {
    type Buf = Buffer<u8>;

    fn describe(&self) -> String {
        format!(
            "OpenCL: {} ({} compute units)",
            self.name, self.compute_units
        )
    }

    fn busy_groups(&self) -> usize {
        self.compute_units * 4
    }

    fn alloc(&self, bytes: usize) -> Result<Buffer<u8>> {
        // SAFETY: no host pointer is passed (null), so OpenCL allocates and owns the memory.
        unsafe {
            Buffer::<u8>::create(
                &self.context,
                CL_MEM_READ_WRITE,
                bytes.max(1),
                ptr::null_mut(),
            )
        }
        .map_err(|e| api("buffer", e))
    }

    fn alloc_from(&self, data: &[u8]) -> Result<Buffer<u8>> {
        let mut buf = self.alloc(data.len())?;
        // SAFETY: a blocking write; `data` is borrowed for the whole call and fits the buffer.
        unsafe { self.queues[0].enqueue_write_buffer(&mut buf, CL_BLOCKING, 0, data, &[]) }
            .map_err(|e| api("write", e))?;
        Ok(buf)
    }

    fn tables(&self, ids: &[TableId]) -> Result<Tables<'_, Buffer<u8>>> {
        self.tables.get(ids, |bytes| self.alloc_from(bytes))
    }

    fn table_uploads(&self) -> usize {
        self.tables.len()
    }

    fn read(&self, buf: &Buffer<u8>, out: &mut [u8]) -> Result<()> {
        self.finish()?;
        // SAFETY: a blocking read of `out.len()` bytes, which callers keep within the buffer.
        unsafe { self.queues[0].enqueue_read_buffer(buf, CL_BLOCKING, 0, out, &[]) }
            .map_err(|e| api("read", e))?;
        Ok(())
    }

    fn launch(
        &self,
        queue: usize,
        sbox: SBox,
        kernel: &str,
        args: &[Arg<'_, Buffer<u8>>],
        groups: usize,
        group_size: usize,
    ) -> Result<()> {
        let kernel_ref = self.kernel(sbox, kernel)?;
        let mut exec = ExecuteKernel::new(&kernel_ref);
        for arg in args {
            // SAFETY: each argument matches the kernel's parameter at its position (a buffer for a
            // pointer, u32 for uint, u64 for ulong), as the job builders in this crate lay them out.
            unsafe {
                match arg {
                    Arg::Buf(b) => exec.set_arg(*b),
                    Arg::U32(v) => exec.set_arg(v),
                    Arg::U64(v) => exec.set_arg(v),
                };
            }
        }
        exec.set_global_work_size(groups * group_size)
            .set_local_work_size(group_size);
        // SAFETY: every argument is set above, and the kernels bound their loops by the element
        // counts passed in, which the callers keep within the buffers.
        unsafe { exec.enqueue_nd_range(&self.queues[queue % QUEUES]) }
            .map_err(|e| api(kernel, e))?;
        Ok(())
    }

    fn finish(&self) -> Result<()> {
        for q in &self.queues {
            q.finish().map_err(|e| api("finish", e))?;
        }
        Ok(())
    }

    fn pipeline(
        &self,
        data: &mut [u8],
        chunk: usize,
        kernel_for: &mut ChunkKernel<'_, Buffer<u8>>,
    ) -> Result<()> {
        let chunk = chunk.max(1);
        let queues = QUEUES.min(data.len().div_ceil(chunk)).max(1);
        let mut bufs = (0..queues)
            .map(|_| self.alloc(chunk))
            .collect::<Result<Vec<_>>>()?;
        let enqueued = (|| {
            for (i, piece) in data.chunks_mut(chunk).enumerate() {
                let q = i % queues;
                let queue = &self.queues[q];
                // SAFETY: non-blocking copies from and into `piece`, a part of `data`, which stays
                // mutably borrowed by this function until `finish` below has waited for every queue
                // (also when an enqueue fails). Within a queue, commands run in order, so the buffer
                // of queue `q` is not overwritten before its previous download has completed.
                unsafe {
                    queue
                        .enqueue_write_buffer(&mut bufs[q], CL_NON_BLOCKING, 0, piece, &[])
                        .map_err(|e| api("write", e))?;
                }
                kernel_for(q, &bufs[q], i * chunk, piece.len())?;
                // SAFETY: as above.
                unsafe {
                    queue
                        .enqueue_read_buffer(&bufs[q], CL_NON_BLOCKING, 0, piece, &[])
                        .map_err(|e| api("read", e))?;
                }
            }
            Ok(())
        })();
        let finished = self.finish();
        enqueued.and(finished)
    }
}
