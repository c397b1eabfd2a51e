//! [`GpuContext`]: picks the runtime (CUDA if a driver and device are present, else OpenCL, or as
//! `SHIFR_GPU=cuda|opencl` says) and runs jobs host-to-host (pipelined) or device-resident (timing).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use shifr::hazmat::block::magma::SBox;

use crate::cuda::{CudaDevice, PinnedBuffer};
use crate::device::{groups_for, Arg, Device, GROUP_SIZE};
use crate::error::{GpuError, Result};
use crate::job::{push_fixed, table_ids, Counter, GpuJob};
use crate::opencl::OpenClDevice;
use crate::streams::{self, StreamMode};
use crate::tables::TableId;

/// Default bytes per pipeline chunk (each of the queues holds one chunk in flight).
pub const DEFAULT_CHUNK: usize = 32 << 20;

/// Below this many bytes the copies and launch cost more than the CPU backends need for the whole
/// job: callers (the CLI) keep small inputs on the CPU.
pub const MIN_GPU_BYTES: usize = 4 << 20;

/// The runtime in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    Cuda,
    OpenCl,
}

enum Runtime {
    Cuda(CudaDevice),
    OpenCl(OpenClDevice),
}

macro_rules! on_device {
    ($self:expr, $d:ident => $body:expr) => {
        match &$self.runtime {
            Runtime::Cuda($d) => $body,
            Runtime::OpenCl($d) => $body,
        }
    };
}

/// Host memory for the pipeline: pinned (page-locked) with CUDA, so that copies overlap kernels;
/// ordinary memory with OpenCL.
pub enum HostBuffer {
    Pinned(PinnedBuffer),
    Plain(Vec<u8>),
}

impl std::ops::Deref for HostBuffer {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            HostBuffer::Pinned(p) => p.as_slice(),
            HostBuffer::Plain(v) => v,
        }
    }
}

impl std::ops::DerefMut for HostBuffer {
    fn deref_mut(&mut self) -> &mut [u8] {
        match self {
            HostBuffer::Pinned(p) => p.as_mut_slice(),
            HostBuffer::Plain(v) => v,
        }
    }
}

/// One GPU (or OpenCL device) with its compiled kernels.
pub struct GpuContext {
    runtime: Runtime,
    chunk: usize,
}

impl GpuContext {
    /// Opens the runtime chosen by `SHIFR_GPU` (`cuda`, `opencl`; unset or `auto`: CUDA, else
    /// OpenCL).
    pub fn new() -> Result<GpuContext> {
        match std::env::var("SHIFR_GPU").ok().as_deref().map(str::trim) {
            Some("cuda") => Self::with_api(Some(Api::Cuda)),
            Some("opencl") => Self::with_api(Some(Api::OpenCl)),
            None | Some("") | Some("auto") => Self::with_api(None),
            Some(other) => Err(GpuError::NoDevice(format!(
                "SHIFR_GPU={other}: expected cuda, opencl or auto"
            ))),
        }
    }

    /// Opens `api`, or (None) CUDA if it has a device and else OpenCL.
    pub fn with_api(api: Option<Api>) -> Result<GpuContext> {
        let runtime = match api {
            Some(Api::Cuda) => Runtime::Cuda(CudaDevice::open()?),
            Some(Api::OpenCl) => Runtime::OpenCl(OpenClDevice::open()?),
            None => match CudaDevice::open() {
                Ok(d) => Runtime::Cuda(d),
                Err(cuda) => match OpenClDevice::open() {
                    Ok(d) => Runtime::OpenCl(d),
                    Err(cl) => {
                        return Err(GpuError::NoDevice(format!(
                            "{} and {}",
                            strip(cuda),
                            strip(cl)
                        )))
                    }
                },
            },
        };
        Ok(GpuContext {
            runtime,
            chunk: DEFAULT_CHUNK,
        })
    }

    /// The runtime in use.
    pub fn api(&self) -> Api {
        match self.runtime {
            Runtime::Cuda(_) => Api::Cuda,
            Runtime::OpenCl(_) => Api::OpenCl,
        }
    }

    /// Runtime and device, e.g. `CUDA: NVIDIA H100 80GB HBM3 (132 SMs, sm_90)`.
    pub fn describe(&self) -> String {
        on_device!(self, d => d.describe())
    }

    /// Sets the pipeline chunk size in bytes (at least one block).
    pub fn set_chunk(&mut self, bytes: usize) {
        self.chunk = bytes.max(64);
    }

    /// The pipeline chunk size in bytes.
    pub fn chunk(&self) -> usize {
        self.chunk
    }

    /// Host memory suited to [`GpuContext::apply`] (pinned with CUDA), zeroed.
    pub fn host_buffer(&self, len: usize) -> Result<HostBuffer> {
        match &self.runtime {
            Runtime::Cuda(d) => Ok(HostBuffer::Pinned(d.pinned(len)?)),
            Runtime::OpenCl(_) => Ok(HostBuffer::Plain(vec![0u8; len])),
        }
    }

    /// Runs `job` over `data` in place, host memory to host memory, pipelined in chunks.
    pub fn apply(&self, job: &GpuJob, data: &mut [u8]) -> Result<()> {
        job.check_len(data.len())?;
        if data.is_empty() {
            return Ok(());
        }
        on_device!(self, d => run_pipelined(d, job, data, self.chunk))
    }

    /// Seconds per pass of `job` over `bytes` of data already on the device (median of
    /// `iterations` timed passes after one warm-up pass).
    pub fn time_resident(&self, job: &GpuJob, bytes: usize, iterations: usize) -> Result<Duration> {
        job.check_len(bytes)?;
        on_device!(self, d => time_resident(d, job, bytes, iterations))
    }

    /// The container's segmented key stream ([`crate::GpuKeystream`]), pipelined like [`Self::apply`].
    pub(crate) fn segments(
        &self,
        job: &crate::keystream::SegmentJob,
        starts: &[[u8; 16]],
        segment_len: usize,
        stride: usize,
        data: &mut [u8],
    ) -> Result<()> {
        on_device!(self, d => crate::keystream::run(d, job, starts, segment_len, stride, data, self.chunk))
    }

    /// Multi-stream Magma (GOST R 34.13 CFB / CBC / MAC): stream `i` is
    /// `data[i * stream_len..][..stream_len]` with `keys[i]` and `ivs[i]` (ignored for MAC). Returns
    /// the full 8-byte tags for [`StreamMode::Mac`], else an empty vector.
    pub fn magma_streams(
        &self,
        mode: StreamMode,
        sbox: SBox,
        keys: &[[u8; 32]],
        ivs: &[[u8; 8]],
        data: &mut [u8],
        stream_len: usize,
    ) -> Result<Vec<[u8; 8]>> {
        let inputs = streams::magma_inputs(sbox, mode, keys, ivs, data.len(), stream_len)?;
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let tags = on_device!(self, d => streams::run(d, &inputs, data))?;
        Ok(streams::magma_tags(&tags))
    }

    /// Multi-stream Kuznyechik (GOST R 34.13 CFB / CBC / MAC), laid out as
    /// [`Self::magma_streams`]: 32-byte keys (expanded on the device), 16-byte IVs (ignored for
    /// MAC), whole 16-byte blocks per stream. Returns the full 16-byte tags for
    /// [`StreamMode::Mac`], else an empty vector.
    pub fn kuznyechik_streams(
        &self,
        mode: StreamMode,
        keys: &[[u8; 32]],
        ivs: &[[u8; 16]],
        data: &mut [u8],
        stream_len: usize,
    ) -> Result<Vec<[u8; 16]>> {
        let inputs = streams::kuznyechik_inputs(mode, keys, ivs, data.len(), stream_len)?;
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let tags = on_device!(self, d => streams::run(d, &inputs, data))?;
        Ok(streams::kuznyechik_tags(&tags))
    }

    /// Seconds per multi-stream Magma pass (param-Z S-boxes) with the data already on the device
    /// (median of `iterations`).
    pub fn time_magma_streams(
        &self,
        mode: StreamMode,
        keys: &[[u8; 32]],
        ivs: &[[u8; 8]],
        stream_len: usize,
        iterations: usize,
    ) -> Result<Duration> {
        let len = keys.len() * stream_len;
        let inputs = streams::magma_inputs(SBox::Tc26Z, mode, keys, ivs, len, stream_len)?;
        self.time_streams(&inputs, iterations)
    }

    /// Seconds per multi-stream Kuznyechik pass with the data already on the device (median of
    /// `iterations`); the in-kernel key schedule is part of every pass.
    pub fn time_kuznyechik_streams(
        &self,
        mode: StreamMode,
        keys: &[[u8; 32]],
        ivs: &[[u8; 16]],
        stream_len: usize,
        iterations: usize,
    ) -> Result<Duration> {
        let len = keys.len() * stream_len;
        let inputs = streams::kuznyechik_inputs(mode, keys, ivs, len, stream_len)?;
        self.time_streams(&inputs, iterations)
    }

    fn time_streams(&self, inputs: &streams::StreamInputs, iterations: usize) -> Result<Duration> {
        on_device!(self, d => {
            let tables = streams::tables_for(d, inputs)?;
            let bufs = streams::upload(d, inputs)?;
            let data = d.alloc(inputs.data_len())?;
            median_time(d, iterations, || streams::launch(d, inputs, &tables, &bufs, &data))
        })
    }

    /// How many constant tables (S-box, LS, AES tables; never keys) this context has uploaded:
    /// each once, on first use, whatever the number of calls.
    pub fn table_uploads(&self) -> usize {
        on_device!(self, d => d.table_uploads())
    }
}

/// "no GPU: X" -> "X", so that the combined message reads as one sentence.
fn strip(e: GpuError) -> String {
    match e {
        GpuError::NoDevice(why) => why,
        other => other.to_string(),
    }
}

fn job_args<'a, B>(
    job: &GpuJob,
    data: &'a B,
    consts: &'a [B],
    tables: &'a HashMap<TableId, B>,
    first_block: u64,
    nblocks: u64,
) -> Result<Vec<Arg<'a, B>>> {
    let mut args = vec![Arg::Buf(data)];
    push_fixed(&mut args, &job.fixed, consts, tables)?;
    match job.counter {
        Counter::None => {}
        // ChaCha20's counter cannot wrap here: check_len bounds the blocks.
        Counter::U32(c) => args.push(Arg::U32(c.wrapping_add(first_block as u32))),
        Counter::U64(c) => args.push(Arg::U64(c.wrapping_add(first_block))),
        Counter::U128(c) => {
            let v = c.wrapping_add(u128::from(first_block));
            args.push(Arg::U64((v >> 64) as u64));
            args.push(Arg::U64(v as u64));
        }
    }
    args.push(Arg::U64(nblocks));
    Ok(args)
}

/// The job's per-call buffers (round keys, state) on the device.
fn upload_consts<D: Device>(dev: &D, job: &GpuJob) -> Result<Vec<D::Buf>> {
    job.buffers.iter().map(|b| dev.alloc_from(b)).collect()
}

fn run_pipelined<D: Device>(dev: &D, job: &GpuJob, data: &mut [u8], chunk: usize) -> Result<()> {
    let consts = upload_consts(dev, job)?;
    let tables = dev.tables(&table_ids(&job.fixed))?;
    let chunk = (chunk / job.block).max(1) * job.block;
    let busy = dev.busy_groups();
    dev.pipeline(data, chunk, &mut |queue, buf, offset, len| {
        let nblocks = len.div_ceil(job.block) as u64;
        let first = (offset / job.block) as u64;
        let args = job_args(job, buf, &consts, &tables, first, nblocks)?;
        dev.launch(
            queue,
            job.sbox,
            job.kernel,
            &args,
            groups_for(nblocks, busy),
            GROUP_SIZE,
        )
    })
}

fn time_resident<D: Device>(
    dev: &D,
    job: &GpuJob,
    bytes: usize,
    iterations: usize,
) -> Result<Duration> {
    let consts = upload_consts(dev, job)?;
    let tables = dev.tables(&table_ids(&job.fixed))?;
    let data = dev.alloc(bytes)?;
    let nblocks = (bytes / job.block) as u64;
    let args = job_args(job, &data, &consts, &tables, 0, nblocks)?;
    let groups = groups_for(nblocks, dev.busy_groups());
    median_time(dev, iterations, || {
        dev.launch(0, job.sbox, job.kernel, &args, groups, GROUP_SIZE)
    })
}

/// One warm-up pass, then the median of `iterations` timed passes (each waited for).
fn median_time<D: Device>(
    dev: &D,
    iterations: usize,
    mut pass: impl FnMut() -> Result<()>,
) -> Result<Duration> {
    pass()?;
    dev.finish()?;
    let mut times = Vec::with_capacity(iterations.max(1));
    for _ in 0..iterations.max(1) {
        let start = Instant::now();
        pass()?;
        dev.finish()?;
        times.push(start.elapsed());
    }
    times.sort();
    Ok(times[times.len() / 2])
}
