//! Arguments of the container commands (encrypt, decrypt, dump, restore, info, keygen).

use clap::Args;
use shifr_input::number_arg;
use std::path::PathBuf;

/// `--max-kdf-memory`: 1 MiB .. 4 GiB, the format's own limit.
fn kdf_memory(s: &str) -> Result<u64, String> {
    number_arg::bytes_in(s, 1 << 20, 4 << 30)
}

/// `--max-kdf-passes`: 1 ..= 64, the format's own limit.
fn kdf_passes(s: &str) -> Result<u32, String> {
    number_arg::whole_in(s, 1, 64).map(|n| n as u32)
}

/// `--chunk-size`: the format's range.
fn chunk_size(s: &str) -> Result<u32, String> {
    number_arg::whole_in(s, 1024, 16 << 20).map(|n| n as u32)
}

/// Where the secret comes from. Without either option the passphrase is read from `SHIFR_PASSPHRASE`,
/// or else from the terminal with no echo.
#[derive(Debug, Args)]
pub struct SecretArgs {
    /// Key file made by `shifr keygen` (32 bytes, raw or hex).
    #[arg(long, value_name = "FILE", conflicts_with = "passphrase_file")]
    pub key_file: Option<PathBuf>,
    /// File whose first line is the passphrase.
    #[arg(long, value_name = "FILE")]
    pub passphrase_file: Option<PathBuf>,
}

/// How the work runs and what it shows.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Worker threads sealing or opening chunks, 1 to 1024 (default: all cores). The output does not
    /// depend on it.
    #[arg(long, value_name = "N", value_parser = number_arg::threads)]
    pub threads: Option<usize>,
    /// Keep the process's CPU time within PCT percent of the whole machine (0.1 <= PCT <= 100), measured
    /// over any 5-second window.
    #[arg(long, value_name = "PCT", value_parser = number_arg::cpu_percent)]
    pub cpu_limit: Option<f64>,
    /// Replace an existing regular output file (a FIFO or device is written into, never replaced).
    #[arg(long)]
    pub force: bool,
    /// No progress bar, even on a terminal.
    #[arg(short, long, conflicts_with = "progress")]
    pub quiet: bool,
    /// Show the progress bar on stderr even when it is not a terminal.
    #[arg(long)]
    pub progress: bool,
    /// cpu (default) or gpu: a GPU (CUDA, else OpenCL; SHIFR_GPU=cuda|opencl picks) makes the chunks'
    /// key stream and the CPU threads the tags, for aes-256-gcm, chacha20-poly1305, kuznyechik-mgm and
    /// magma-mgm; the file is the same bytes either way. Inputs below 4 MiB (SHIFR_GPU_MIN_BYTES
    /// overrides), xchacha20-poly1305, or no usable GPU: the CPU path, with a note saying why. The GPU's
    /// AES and Kuznyechik kernels use lookup tables: not constant-time (docs/GPU.md).
    #[arg(long, value_name = "BACKEND")]
    pub backend: Option<String>,
}

/// How much work a passphrase file's header may ask of decryption (Argon2id).
#[derive(Debug, Args)]
pub struct KdfLimitArgs {
    /// Most Argon2id memory a file may ask for, e.g. 4G (default: half of this machine's memory).
    #[arg(long, value_name = "SIZE", value_parser = kdf_memory)]
    pub max_kdf_memory: Option<u64>,
    /// Most Argon2id passes a file may ask for, 1 to 64 (default: 3, what shifr writes).
    #[arg(long, value_name = "N", value_parser = kdf_passes)]
    pub max_kdf_passes: Option<u32>,
}

/// How a new container is made.
#[derive(Debug, Args)]
pub struct SealArgs {
    /// AEAD: aes-256-gcm (default with AES instructions), chacha20-poly1305 (default otherwise),
    /// xchacha20-poly1305, kuznyechik-mgm, magma-mgm.
    #[arg(short = 'a', long = "algorithm", value_name = "AEAD")]
    pub algorithm: Option<String>,
    /// Plaintext bytes per chunk (1024 ..= 16777216; default 65536).
    #[arg(long, value_name = "BYTES", value_parser = chunk_size)]
    pub chunk_size: Option<u32>,
}

/// `shifr encrypt`.
#[derive(Debug, Args)]
#[command(after_help = "\
The passphrase is read from --passphrase-file, else SHIFR_PASSPHRASE, else the terminal (asked twice); \
it is stretched with Argon2id (m = 64 MiB, t = 3, p = 1). A key file (`shifr keygen`) skips Argon2id. \
Output goes to a temporary file next to OUT, renamed over OUT only after success. Format: docs/FORMAT.md.")]
pub struct EncryptArgs {
    /// Input file, or - for stdin (default).
    #[arg(value_name = "IN")]
    pub input: Option<PathBuf>,
    /// Output file, or - for stdout (default).
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub seal: SealArgs,
    #[command(flatten)]
    pub secret: SecretArgs,
    #[command(flatten)]
    pub run: RunArgs,
}

/// `shifr decrypt`.
#[derive(Debug, Args)]
#[command(after_help = "\
To a file: nothing appears under OUT until every chunk verified. To stdout: each batch of chunks is \
written only after its tags verified, and the command stops with a non-zero exit at the first failure. \
Exit codes: 3 not a shifr file or malformed header, 4 unsupported version, 5 wrong key or passphrase, \
6 truncated, 7 chunk failed authentication, 8 I/O error.")]
pub struct DecryptArgs {
    /// Input file, or - for stdin (default).
    #[arg(value_name = "IN")]
    pub input: Option<PathBuf>,
    /// Output file, or - for stdout (default).
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub secret: SecretArgs,
    #[command(flatten)]
    pub kdf: KdfLimitArgs,
    #[command(flatten)]
    pub run: RunArgs,
}

/// `shifr dump`.
#[derive(Debug, Args)]
pub struct DumpArgs {
    /// Block device or file to read.
    #[arg(value_name = "SRC")]
    pub source: PathBuf,
    /// Encrypted image to write.
    #[arg(value_name = "OUT.shifr")]
    pub output: PathBuf,
    #[command(flatten)]
    pub seal: SealArgs,
    #[command(flatten)]
    pub secret: SecretArgs,
    #[command(flatten)]
    pub run: RunArgs,
}

/// `shifr restore`.
#[derive(Debug, Args)]
#[command(after_help = "\
To a file: written to a temporary file and renamed over DST after every chunk verified. To a block \
device (which cannot be renamed): the whole image is verified first in a dry pass, then written in place \
and fsynced; --force is required.")]
pub struct RestoreArgs {
    /// Encrypted image.
    #[arg(value_name = "IN.shifr")]
    pub input: PathBuf,
    /// File or block device to write.
    #[arg(value_name = "DST")]
    pub destination: PathBuf,
    #[command(flatten)]
    pub secret: SecretArgs,
    #[command(flatten)]
    pub kdf: KdfLimitArgs,
    #[command(flatten)]
    pub run: RunArgs,
}

/// `shifr info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// A shifr file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// `shifr keygen`.
#[derive(Debug, Args)]
pub struct KeygenArgs {
    /// Key file to create (mode 0600; an existing file is never replaced), or - for stdout (not a
    /// terminal).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
}
