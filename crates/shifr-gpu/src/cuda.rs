//! The CUDA runtime through `cudarc`, with libcuda.so.1 and libnvrtc opened at run time: a machine
//! without CUDA builds and runs everything else, and gets a clear error here. The kernels are compiled
//! with NVRTC for the device's own real architecture (`sm_XY`) into machine code (CUBIN), cached on
//! disk (`$SHIFR_GPU_CACHE`, else `$XDG_CACHE_HOME/shifr`, else `~/.cache/shifr`), keyed by a hash of
//! the source and the architecture. CUBIN rather than PTX: the driver would JIT-compile PTX and refuses
//! PTX from an NVRTC newer than itself (CUDA_ERROR_UNSUPPORTED_PTX_VERSION), while a CUBIN from any
//! CUDA 12 NVRTC loads on every CUDA 12 driver (minor-version compatibility).
//!
//! Host-to-host copies are asynchronous (overlapping other streams' kernels and copies) when the host
//! memory is pinned: [`PinnedBuffer`] allocates such memory; the pipeline waits for every stream before
//! it returns, so the borrowed host memory outlives each copy.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_char, CString};
use std::path::PathBuf;
use std::sync::Arc;

use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::{self, Ptx};
use shifr::hazmat::block::magma::SBox;

use crate::device::{Arg, ChunkKernel, Device, TableCache, Tables};
use crate::error::{GpuError, Result};
use crate::source;
use crate::tables::TableId;

/// Streams the pipeline rotates over (seed 001, figure 4: copy-in, kernel and copy-out of three
/// consecutive chunks in flight at once).
const STREAMS: usize = 4;

pub(crate) struct CudaDevice {
    name: String,
    sms: usize,
    arch: String,
    ctx: Arc<CudaContext>,
    streams: Vec<Arc<CudaStream>>,
    modules: RefCell<HashMap<SBox, Arc<CudaModule>>>,
    functions: RefCell<HashMap<(SBox, String), CudaFunction>>,
    tables: TableCache<CudaSlice<u8>>,
}

fn api(what: &str, e: impl std::fmt::Debug) -> GpuError {
    GpuError::Api(format!("CUDA {what}: {e:?}"))
}

fn cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("SHIFR_GPU_CACHE") {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME") {
        return Some(PathBuf::from(dir).join("shifr"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("shifr"))
}

const NVRTC_MISSING: &str =
    "NVRTC (libnvrtc.so) not found; add the CUDA toolkit's lib64 (or a directory with a libnvrtc.so link) to LD_LIBRARY_PATH";

/// Whether libnvrtc can be opened (no GPU or driver needed).
fn nvrtc_present() -> bool {
    // SAFETY: is_culib_present only tries to dlopen the library names and drops the handle.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

/// An NVRTC program handle, destroyed on drop.
struct NvrtcProgram(nvrtc::sys::nvrtcProgram);

impl Drop for NvrtcProgram {
    fn drop(&mut self) {
        // SAFETY: the handle came from create_program and is destroyed exactly once, here.
        let _ = unsafe { nvrtc::result::destroy_program(self.0) };
    }
}

/// A NUL-terminated C string from NVRTC as text.
fn c_text(chars: &[c_char]) -> String {
    let bytes: Vec<u8> = chars
        .iter()
        .map(|&c| c as u8)
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// What NVRTC made of the program for one architecture.
struct Compiled {
    /// The intermediate PTX (its entry points are the kernels).
    ptx: String,
    /// Machine code for the real architecture, loaded by the driver as it is.
    cubin: Vec<u8>,
    /// Warnings; empty when the compile was clean.
    log: String,
}

/// The CUBIN of a compiled program.
///
/// # Safety
/// `prog` must be a live program, compiled successfully for a real architecture (`sm_XY`).
unsafe fn get_cubin(
    prog: nvrtc::sys::nvrtcProgram,
) -> std::result::Result<Vec<u8>, nvrtc::result::NvrtcError> {
    let mut size = 0usize;
    // SAFETY: guaranteed by the caller; `size` is a valid out-pointer.
    unsafe { nvrtc::sys::nvrtcGetCUBINSize(prog, &mut size) }.result()?;
    let mut cubin = vec![0u8; size];
    // SAFETY: `cubin` has the `size` bytes NVRTC just reported for this program.
    unsafe { nvrtc::sys::nvrtcGetCUBIN(prog, cubin.as_mut_ptr().cast::<c_char>()) }.result()?;
    Ok(cubin)
}

/// NVRTC's output for `src` and the real architecture `arch` (e.g. `sm_90`): the one place the
/// compile options are set, used by every device and by [`cuda_compile_check`].
fn compile(src: &str, arch: &str) -> Result<Compiled> {
    let fail = |what: &str, e: nvrtc::result::NvrtcError| {
        GpuError::Compile(format!("NVRTC {what} ({arch}): {e:?}"))
    };
    let src = CString::new(src)
        .map_err(|_| GpuError::Compile("kernel source contains a NUL byte".into()))?;
    // Declared after `src`, so dropped (destroyed) before the source text it refers to.
    let prog =
        NvrtcProgram(nvrtc::result::create_program(&src, None).map_err(|e| fail("create", e))?);
    let options = [
        format!("--gpu-architecture={arch}"),
        "-default-device".to_string(),
    ];
    // SAFETY: `prog` holds a live program created above (destroyed only when it drops).
    let compiled = unsafe { nvrtc::result::compile_program(prog.0, &options) };
    // SAFETY: as above.
    let log = unsafe { nvrtc::result::get_program_log(prog.0) }
        .map(|l| c_text(&l))
        .unwrap_or_default();
    if let Err(e) = compiled {
        let hint = if e.0 == nvrtc::sys::nvrtcResult::NVRTC_ERROR_BUILTIN_OPERATION_FAILURE {
            " (libnvrtc-builtins not found: put libnvrtc's own directory on LD_LIBRARY_PATH)"
        } else {
            ""
        };
        return Err(GpuError::Compile(format!(
            "NVRTC ({arch}, {options:?}): {e:?}{hint}\n{log}"
        )));
    }
    // SAFETY: as above; the program compiled.
    let ptx = unsafe { nvrtc::result::get_ptx(prog.0) }.map_err(|e| fail("get PTX", e))?;
    // SAFETY: as above, for the real architecture in `options`.
    let cubin = unsafe { get_cubin(prog.0) }.map_err(|e| fail("get CUBIN", e))?;
    Ok(Compiled {
        ptx: c_text(&ptx),
        cubin,
        log: log.trim().to_string(),
    })
}

/// Whether `ptx` defines the kernel `name` (unmangled, as `extern "C"` makes it).
fn has_entry(ptx: &str, name: &str) -> bool {
    ptx.lines().any(|line| {
        line.trim_start()
            .strip_prefix(".visible .entry ")
            .and_then(|rest| rest.strip_prefix(name))
            .is_some_and(|rest| rest.starts_with('('))
    })
}

/// Compiles the CUDA program of every Magma S-box set for `arch` (e.g. `sm_90`) exactly as a device
/// does, and checks that NVRTC printed no warning, produced a CUBIN, and that each kernel the host
/// launches ([`source::ENTRY_POINTS`]) is an entry point of the PTX. Needs libnvrtc only, no GPU or
/// driver; without it the error is [`GpuError::NoDevice`]. Returns each set's PTX (for `ptxas -v`).
/// For tests/nvrtc_compile.rs and scripts/nvrtc-check.sh.
#[doc(hidden)]
pub fn cuda_compile_check(arch: &str) -> Result<Vec<(SBox, String)>> {
    if !nvrtc_present() {
        return Err(GpuError::NoDevice(NVRTC_MISSING.into()));
    }
    SBox::ALL
        .iter()
        .map(|&sbox| {
            let Compiled { ptx, cubin, log } = compile(&source::program(sbox), arch)?;
            if !log.is_empty() {
                return Err(GpuError::Compile(format!(
                    "{arch}, S-box set {sbox:?}: NVRTC warnings:\n{log}"
                )));
            }
            if cubin.is_empty() {
                return Err(GpuError::Compile(format!(
                    "{arch}, S-box set {sbox:?}: NVRTC returned no CUBIN"
                )));
            }
            if let Some(missing) = source::ENTRY_POINTS
                .iter()
                .find(|name| !has_entry(&ptx, name))
            {
                return Err(GpuError::Compile(format!(
                    "{arch}, S-box set {sbox:?}: kernel {missing} is not an entry point of the PTX"
                )));
            }
            Ok((sbox, ptx))
        })
        .collect()
}

impl CudaDevice {
    /// Device 0, if the driver library, NVRTC and a device are present.
    pub(crate) fn open() -> Result<Self> {
        // SAFETY: is_culib_present only tries to dlopen the library names and drops the handle.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(GpuError::NoDevice(
                "no CUDA driver (libcuda.so.1 not found)".into(),
            ));
        }
        if !nvrtc_present() {
            return Err(GpuError::NoDevice(format!(
                "CUDA driver present but {NVRTC_MISSING}"
            )));
        }
        let ctx = CudaContext::new(0).map_err(|e| {
            GpuError::NoDevice(format!("CUDA driver present but no usable device: {e:?}"))
        })?;
        let name = ctx.name().map_err(|e| api("device name", e))?;
        let sms = ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(|e| api("attribute", e))? as usize;
        let (major, minor) = ctx
            .compute_capability()
            .map_err(|e| api("compute capability", e))?;
        let streams = (0..STREAMS)
            .map(|_| ctx.new_stream())
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| api("stream", e))?;
        Ok(CudaDevice {
            name,
            sms,
            arch: format!("sm_{major}{minor}"),
            ctx,
            streams,
            modules: RefCell::new(HashMap::new()),
            functions: RefCell::new(HashMap::new()),
            tables: TableCache::new(),
        })
    }

    /// The program's CUBIN for this device, from the disk cache or NVRTC.
    fn cubin(&self, src: &str) -> Result<Vec<u8>> {
        let key = source::cache_key(src, &self.arch);
        let path = cache_dir().map(|d| d.join(format!("shifr-{key:016x}-{}.cubin", self.arch)));
        if let Some(bin) = path.as_ref().and_then(|p| std::fs::read(p).ok()) {
            if !bin.is_empty() {
                return Ok(bin);
            }
        }
        // Warnings do not stop a device; the compile check (tests/nvrtc_compile.rs) rejects them.
        let cubin = compile(src, &self.arch)?.cubin;
        if let Some(p) = path {
            // The cache is an optimisation: a read-only home directory only costs a recompile.
            // Written aside and renamed, so that a concurrent or interrupted run never leaves a
            // truncated CUBIN under the final name.
            let tmp = p.with_extension(format!("{}.tmp", std::process::id()));
            let _ = std::fs::create_dir_all(p.parent().unwrap_or(&p))
                .and_then(|_| std::fs::write(&tmp, &cubin))
                .and_then(|_| std::fs::rename(&tmp, &p));
        }
        Ok(cubin)
    }

    fn function(&self, sbox: SBox, name: &str) -> Result<CudaFunction> {
        let key = (sbox, name.to_string());
        if let Some(f) = self.functions.borrow().get(&key) {
            return Ok(f.clone());
        }
        let mut modules = self.modules.borrow_mut();
        if let std::collections::hash_map::Entry::Vacant(slot) = modules.entry(sbox) {
            let cubin = self.cubin(&source::program(sbox))?;
            slot.insert(
                self.ctx
                    .load_module(Ptx::from_binary(cubin))
                    .map_err(|e| api("load module", e))?,
            );
        }
        let f = modules[&sbox]
            .load_function(name)
            .map_err(|e| api(name, e))?;
        self.functions.borrow_mut().insert(key, f.clone());
        Ok(f)
    }

    /// Page-locked host memory of `len` bytes (zeroed).
    pub(crate) fn pinned(&self, len: usize) -> Result<PinnedBuffer> {
        PinnedBuffer::new(&self.ctx, len)
    }
}

impl Device for CudaDevice {
    type Buf = CudaSlice<u8>;

    fn describe(&self) -> String {
        format!("CUDA: {} ({} SMs, {})", self.name, self.sms, self.arch)
    }

    fn busy_groups(&self) -> usize {
        self.sms * 8
    }

    fn alloc(&self, bytes: usize) -> Result<CudaSlice<u8>> {
        // SAFETY: the contents are unspecified until written; every caller writes (upload) before
        // it reads, or (timing runs) only encrypts whatever the memory holds.
        unsafe { self.streams[0].alloc::<u8>(bytes.max(1)) }.map_err(|e| api("alloc", e))
    }

    fn alloc_from(&self, data: &[u8]) -> Result<CudaSlice<u8>> {
        let buf = self.streams[0]
            .clone_htod(data)
            .map_err(|e| api("upload", e))?;
        self.streams[0]
            .synchronize()
            .map_err(|e| api("synchronize", e))?;
        Ok(buf)
    }

    fn tables(&self, ids: &[TableId]) -> Result<Tables<'_, CudaSlice<u8>>> {
        self.tables.get(ids, |bytes| self.alloc_from(bytes))
    }

    fn table_uploads(&self) -> usize {
        self.tables.len()
    }

    fn read(&self, buf: &CudaSlice<u8>, out: &mut [u8]) -> Result<()> {
        self.finish()?;
        let view = buf.slice(0..out.len());
        self.streams[0]
            .memcpy_dtoh(&view, out)
            .map_err(|e| api("download", e))?;
        self.streams[0]
            .synchronize()
            .map_err(|e| api("synchronize", e))
    }

    fn launch(
        &self,
        queue: usize,
        sbox: SBox,
        kernel: &str,
        args: &[Arg<'_, CudaSlice<u8>>],
        groups: usize,
        group_size: usize,
    ) -> Result<()> {
        let f = self.function(sbox, kernel)?;
        let stream = &self.streams[queue % STREAMS];
        let mut builder = stream.launch_builder(&f);
        for arg in args {
            match arg {
                Arg::Buf(b) => builder.arg(*b),
                Arg::U32(v) => builder.arg(v),
                Arg::U64(v) => builder.arg(v),
            };
        }
        let cfg = LaunchConfig {
            grid_dim: (groups as u32, 1, 1),
            block_dim: (group_size as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: the arguments match the kernel's parameters in order and type (device pointers,
        // unsigned int, unsigned long long), and the kernels bound their loops by the counts passed.
        unsafe { builder.launch(cfg) }.map_err(|e| api(kernel, e))?;
        Ok(())
    }

    fn finish(&self) -> Result<()> {
        for s in &self.streams {
            s.synchronize().map_err(|e| api("synchronize", e))?;
        }
        Ok(())
    }

    fn pipeline(
        &self,
        data: &mut [u8],
        chunk: usize,
        kernel_for: &mut ChunkKernel<'_, CudaSlice<u8>>,
    ) -> Result<()> {
        let chunk = chunk.max(1);
        let streams = STREAMS.min(data.len().div_ceil(chunk)).max(1);
        let mut bufs = (0..streams)
            .map(|_| self.alloc(chunk))
            .collect::<Result<Vec<_>>>()?;
        // The copies are asynchronous for pinned host memory; `data` stays borrowed until `finish`
        // below has waited for every stream, also when an enqueue fails.
        let enqueued = (|| {
            for (i, piece) in data.chunks_mut(chunk).enumerate() {
                let q = i % streams;
                let stream = &self.streams[q];
                let len = piece.len();
                stream
                    .memcpy_htod(&*piece, &mut bufs[q].slice_mut(0..len))
                    .map_err(|e| api("upload", e))?;
                kernel_for(q, &bufs[q], i * chunk, len)?;
                stream
                    .memcpy_dtoh(&bufs[q].slice(0..len), piece)
                    .map_err(|e| api("download", e))?;
            }
            Ok(())
        })();
        let finished = self.finish();
        enqueued.and(finished)
    }
}

/// Page-locked (pinned) host memory: the DMA engines copy it without a staging copy, so uploads and
/// downloads overlap kernels.
pub struct PinnedBuffer {
    ptr: *mut u8,
    len: usize,
    ctx: Arc<CudaContext>,
}

impl PinnedBuffer {
    fn new(ctx: &Arc<CudaContext>, len: usize) -> Result<Self> {
        ctx.bind_to_thread().map_err(|e| api("bind", e))?;
        // SAFETY: cuMemHostAlloc with no flags returns `len` bytes of page-locked memory owned by
        // us until cuMemFreeHost in Drop; it is zeroed before any slice is handed out.
        let ptr = unsafe { cudarc::driver::result::malloc_host(len.max(1), 0) }
            .map_err(|e| api("pinned alloc", e))? as *mut u8;
        // SAFETY: `ptr` points to at least `len` writable bytes just allocated.
        unsafe { std::ptr::write_bytes(ptr, 0, len) };
        Ok(PinnedBuffer {
            ptr,
            len,
            ctx: ctx.clone(),
        })
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `ptr` is valid for `len` initialised bytes for the lifetime of `self`.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and `&mut self` makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for PinnedBuffer {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        // SAFETY: `ptr` came from malloc_host and is freed exactly once; no copy can still use it,
        // since every pipeline waits for its streams before returning.
        let _ = unsafe { cudarc::driver::result::free_host(self.ptr as *mut std::ffi::c_void) };
    }
}
