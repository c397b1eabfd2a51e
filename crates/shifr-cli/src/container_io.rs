//! What the container commands share: opening the input (file, block device or stdin), thread count,
//! the CPU throttle and progress line around a pass, and naming the path in I/O errors.

use crate::container_args::RunArgs;
use crate::cpu_limit::CpuLimit;
use crate::progress::Progress;
use crate::secret_file::FileId;
use anyhow::{Context, Result};
use shifr::container::{Error, FileCipher};
#[cfg(feature = "gpu")]
use shifr_gpu::{GpuContext, GpuKeystream};
use std::fs::File;
use std::io::{Read, Write};
#[cfg(not(target_os = "linux"))]
use std::io::{Seek, SeekFrom};
use std::os::fd::AsFd;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

/// An opened input.
pub struct Input {
    /// The data.
    pub reader: Box<dyn Read>,
    /// The path as shown in messages ("stdin" for `-`).
    pub name: String,
    /// Its size, when it is a regular file or a block device.
    pub size: Option<u64>,
    /// Its identity, which a key or passphrase file must not share.
    pub id: Option<FileId>,
}

/// Whether `path` means stdin / stdout (absent or `-`).
pub fn is_std(path: Option<&Path>) -> bool {
    path.is_none_or(|p| p.as_os_str() == "-")
}

/// Opens `path` (stdin for none or `-`).
pub fn open_input(path: Option<&Path>) -> Result<Input> {
    match path {
        Some(p) if !is_std(Some(p)) => {
            let name = p.display().to_string();
            let mut file = File::open(p).with_context(|| format!("cannot open {name}"))?;
            let size = size_of(&mut file);
            let id = FileId::of(&file);
            Ok(Input {
                reader: Box::new(file),
                name,
                size,
                id,
            })
        }
        // A descriptor of its own rather than `Stdin::lock`: nothing else in the process holds stdin,
        // and a second open (restore's write pass) must not wait on a lock the first still holds.
        _ => {
            let file = stdin_file()?;
            let id = FileId::of(&file);
            Ok(Input {
                reader: Box::new(file),
                name: "stdin".to_string(),
                size: None,
                id,
            })
        }
    }
}

/// A new descriptor for stdin (sharing its file offset).
pub fn stdin_file() -> Result<File> {
    let fd = std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .context("cannot read stdin")?;
    Ok(File::from(fd))
}

/// The size of a regular file, or of a block device (whose metadata says 0: the `BLKGETSIZE64`
/// ioctl on Linux, seeking to its end elsewhere); `None` for anything else (a pipe, a terminal).
pub fn size_of(file: &mut File) -> Option<u64> {
    let meta = file.metadata().ok()?;
    if meta.is_file() {
        return Some(meta.len());
    }
    if !meta.file_type().is_block_device() {
        return None;
    }
    #[cfg(target_os = "linux")]
    {
        crate::block_device::size(file).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let end = file.seek(SeekFrom::End(0)).ok()?;
        file.seek(SeekFrom::Start(0)).ok()?;
        Some(end)
    }
}

/// Worker threads: `--threads` (at most [`shifr_input::number_arg::MAX_THREADS`], checked when
/// parsed), or every core.
pub fn threads(run: &RunArgs) -> usize {
    run.threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
}

/// Turns a container error into one naming the path of the side that failed.
pub fn name_paths(e: Error, input: &str, output: &str) -> anyhow::Error {
    match e {
        Error::Input(io) => anyhow::Error::new(io).context(format!("cannot read {input}")),
        Error::Output(io) => anyhow::Error::new(io).context(format!("cannot write {output}")),
        other => anyhow::Error::new(other).context(input.to_string()),
    }
}

/// `--backend gpu`: attaches a GPU key-stream source to `cipher` when the input of `size` bytes
/// (`None`: a pipe, size unknown: the GPU is used, as asked) is at least the GPU threshold and a GPU
/// works; otherwise leaves the CPU path and prints one line on stderr saying why. Nothing for
/// `--backend cpu` or none. Error: an unknown backend name. A build without the `gpu` feature
/// says so in that line and stays on the CPU, as a machine without a GPU does.
pub fn choose_backend(cipher: &mut FileCipher, run: &RunArgs, size: Option<u64>) -> Result<()> {
    match run.backend.as_deref().map(str::trim) {
        None | Some("cpu") => return Ok(()),
        Some("gpu") => {}
        Some(other) => anyhow::bail!(
            "unknown --backend '{other}' (cpu or gpu; CPU instruction sets are chosen with SHIFR_BACKEND)"
        ),
    }
    if cipher.has_keystream_source() {
        return Ok(());
    }
    attach_gpu(cipher, size)
}

/// The GPU part of [`choose_backend`].
#[cfg(feature = "gpu")]
fn attach_gpu(cipher: &mut FileCipher, size: Option<u64>) -> Result<()> {
    match gpu_source(cipher, size) {
        Ok(source) => {
            eprintln!(
                "note: GPU path: key stream on {}, tags on the CPU",
                source.describe()
            );
            cipher.set_keystream_source(Box::new(source))?;
        }
        Err(why) => eprintln!("note: {why}: CPU path"),
    }
    Ok(())
}

/// The GPU part of [`choose_backend`] in a build without one.
#[cfg(not(feature = "gpu"))]
fn attach_gpu(_cipher: &mut FileCipher, _size: Option<u64>) -> Result<()> {
    eprintln!("note: --backend gpu: this shifr was built without the `gpu` feature: CPU path");
    Ok(())
}

/// Bytes below which `--backend gpu` stays on the CPU: `SHIFR_GPU_MIN_BYTES`, else
/// [`shifr_gpu::MIN_GPU_BYTES`].
#[cfg(feature = "gpu")]
fn gpu_min_bytes() -> u64 {
    std::env::var("SHIFR_GPU_MIN_BYTES")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(shifr_gpu::MIN_GPU_BYTES as u64)
}

/// The GPU key-stream source for `cipher`, compiled and tried once; or why not.
#[cfg(feature = "gpu")]
fn gpu_source(cipher: &FileCipher, size: Option<u64>) -> std::result::Result<GpuKeystream, String> {
    let min = gpu_min_bytes();
    if let Some(size) = size.filter(|&s| s < min) {
        let limit = if min.is_multiple_of(1 << 20) {
            format!("{} MiB", min >> 20)
        } else {
            format!("{min} bytes")
        };
        return Err(format!("input below {limit} ({size} bytes)"));
    }
    let algorithm = cipher.header().algorithm;
    let key = cipher.keystream_key().ok_or_else(|| {
        format!(
            "{} has no GPU key stream (its key changes with every chunk)",
            algorithm.name()
        )
    })?;
    let source = GpuContext::new()
        .and_then(|ctx| GpuKeystream::new(ctx, &key))
        .map_err(|e| e.to_string())?;
    source
        .warm_up()
        .map_err(|e| format!("GPU unusable ({e})"))?;
    Ok(source)
}

/// Which way a pass goes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Plaintext in, container out (the header is written too).
    Encrypt,
    /// Chunks after the header in, verified plaintext out.
    Decrypt,
}

/// One pass of `cipher` over `input` into `output`, with the progress line and CPU throttle after
/// every batch. Returns the plaintext bytes.
#[allow(clippy::too_many_arguments)]
pub fn run_pass(
    cipher: &mut FileCipher,
    direction: Direction,
    input: &mut dyn Read,
    output: &mut dyn Write,
    run: &RunArgs,
    limit: &mut Option<CpuLimit>,
    progress: &mut Progress,
) -> std::result::Result<u64, Error> {
    let threads = threads(run);
    if limit.is_some() {
        // One chunk per thread per batch: the throttle then acts every few milliseconds.
        cipher.set_batch_bytes(0);
    }
    let mut on_batch = |n: u64| {
        progress.add(n);
        if let Some(l) = limit.as_mut() {
            l.throttle();
        }
    };
    let result = match direction {
        Direction::Encrypt => cipher.encrypt(input, output, threads, &mut on_batch),
        Direction::Decrypt => cipher.decrypt(input, output, threads, &mut on_batch),
    };
    progress.finish();
    result
}
