//! GPU backend for shifr (issue 6): one set of kernel sources (`kernels/`), compiled at run time
//! either as CUDA C++ by NVRTC (through `cudarc`, with libcuda and libnvrtc opened at run time) or as
//! OpenCL C (through `opencl3`, with libOpenCL opened at run time), so that building needs neither
//! toolkit and every machine without a GPU still builds and passes the other tests.
//!
//! Kernels (details and constant-time status in docs/GPU.md and each kernel file):
//! - ChaCha20: add-rotate-xor only, constant-time.
//! - Magma CTR / ECB: nibble tables replicated per shared-memory bank (secret-indexed, NOT
//!   constant-time), or the S-boxes as Boolean functions (constant-time) — [`MagmaVariant`].
//! - Kuznyechik CTR / ECB: fused LS tables in global memory (secret-indexed, NOT constant-time).
//! - AES-128 / AES-256 CTR / ECB: T-tables in shared memory (secret-indexed, NOT constant-time).
//! - Multi-stream Magma CFB / CBC encryption / MAC with one key and IV per stream (tables).
//! - The container's key stream: many chunks (AEAD messages) per launch, each from its own start
//!   block, for AES-GCM, ChaCha20-Poly1305, Kuznyechik-MGM and Magma-MGM ([`GpuKeystream`], a
//!   [`shifr::aead::keystream::KeystreamSource`]); the tags stay on the CPU.
//!
//! [`GpuContext`] chooses CUDA, else OpenCL (`SHIFR_GPU=cuda|opencl` forces one); jobs
//! ([`GpuJob`]) run host-to-host through a pipeline of several queues overlapping upload, kernel and
//! download ([`GpuContext::apply`]), or device-resident for timing ([`GpuContext::time_resident`]).

mod context;
mod cuda;
mod device;
mod error;
mod job;
mod keystream;
mod opencl;
mod source;
mod streams;
mod tables;

pub use context::{Api, GpuContext, HostBuffer, DEFAULT_CHUNK, MIN_GPU_BYTES};
#[doc(hidden)]
pub use cuda::cuda_compile_check;
pub use cuda::PinnedBuffer;
pub use error::{GpuError, Result};
pub use job::{GpuJob, MagmaVariant};
pub use keystream::GpuKeystream;
pub use streams::StreamMode;
