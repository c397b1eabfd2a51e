//! The command line, declared with clap's derive API.

pub use crate::container_args::{
    DecryptArgs, DumpArgs, EncryptArgs, InfoArgs, KeygenArgs, RestoreArgs,
};
use clap::error::ErrorKind;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// shifr: fast, verified symmetric encryption (AES, ChaCha20, 3DES, Magma, Kuznyechik).
#[derive(Debug, Parser)]
#[command(name = "shifr", version = crate::features::version())]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List every algorithm with its key, IV and tag sizes and the backend that would run it.
    List(ListArgs),
    /// Run known-answer tests from vector files (format: shared/vectors/README.md).
    Kat(KatArgs),
    /// Encrypt or decrypt stdin to stdout (raw bytes, no container).
    Cipher(CipherArgs),
    // The container commands (docs/FORMAT.md); their arguments are in container_args.rs.
    /// Encrypt a file or stdin into a shifr container (authenticated, chunked, parallel).
    Encrypt(EncryptArgs),
    /// Verify and decrypt a shifr container.
    Decrypt(DecryptArgs),
    /// Encrypt a block device or file into an image, reading sequentially in large aligned pieces.
    Dump(DumpArgs),
    /// Verify and write an encrypted image back to a file or block device.
    Restore(RestoreArgs),
    /// Show a shifr file's header (algorithm, KDF, chunk size, sizes) without a key.
    Info(InfoArgs),
    /// Create a random 32-byte key file (mode 0600) for --key-file.
    Keygen(KeygenArgs),
    /// Which AEAD to use on this machine, from throughput, cycles/byte, CPU % and energy of every
    /// algorithm measured beside OpenSSL, AWS-LC, ring and RustCrypto (the C peers with the `peers`
    /// feature; `--backend gpu` with the `gpu` feature).
    Bench(BenchArgs),
    /// Reproduce a seed study on this machine: report.md, CSV and PNG charts in --out (`tls` needs the
    /// `tls` feature).
    Study(StudyArgs),
    /// Combine results from several machines into one report.
    #[command(subcommand)]
    Report(ReportCommand),
    /// Measure which backend is fastest on this CPU for each primitive (a few seconds) and save
    /// the choice for later runs (`shifr list` shows it).
    Tune(TuneArgs),
}

/// `shifr tune --seconds`: 5 ms to 10 s per row.
fn tune_seconds(s: &str) -> Result<f64, String> {
    shifr_input::number_arg::decimal_in(s, 0.005, 10.0)
}

/// Arguments of `shifr tune`.
#[derive(Debug, Args)]
pub struct TuneArgs {
    /// Measured seconds per row (each primitive is measured at a few sizes on every backend).
    #[arg(long, value_name = "S", default_value_t = 0.03, value_parser = tune_seconds)]
    pub seconds: f64,
    /// Write the calibration here instead of the cache file ($SHIFR_TUNE_FILE,
    /// $XDG_CACHE_HOME/shifr/tune or ~/.cache/shifr/tune).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Measure and print the choice without writing it.
    #[arg(long)]
    pub dry_run: bool,
}

/// Arguments of `shifr list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Instead, per algorithm and backend the bytes of key schedule and per-key tables a keyed
    /// instance holds, and the peak resident memory of a short `shifr bench` run of each algorithm
    /// alone (one child process per algorithm).
    #[arg(long)]
    pub memory: bool,
    /// With --memory: only these algorithms, comma-separated.
    #[arg(long = "alg", value_name = "A,B,..", requires = "memory")]
    pub alg: Option<String>,
}

/// `shifr report ...`.
#[derive(Debug, Subcommand)]
pub enum ReportCommand {
    /// Merge `shifr bench --json` files from several machines into one report (Markdown, CSV,
    /// charts): one row per machine, CPU model and backends named.
    Merge(MergeArgs),
}

/// Arguments of `shifr report merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// `shifr bench --json` output files, one or more per machine.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Directory for report.md, merged.csv and the charts (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

/// Arguments of `shifr bench` (method: docs/BENCHMARKS.md).
#[derive(Debug, Args)]
#[command(after_help = "\
By default shifr bench prints a short answer: for TLS records, bulk files, 64-byte messages, \
GOST-compliant AEAD and a CPU without AES instructions, the fastest AEAD on this machine with \
shifr's and the best peer's MB/s. --full adds the table of every row; --json and --csv always \
carry every row.")]
pub struct BenchArgs {
    /// A short run (< 30 s): fewer sizes, shorter samples.
    #[arg(long)]
    pub quick: bool,
    /// Print the full table of every measured row after the summary.
    #[arg(long)]
    pub full: bool,
    /// A name for this machine in the JSON and CSV rows (for `shifr report merge`; default: the
    /// host name).
    #[arg(long, value_name = "NAME")]
    pub machine: Option<String>,
    /// Algorithms to measure, comma-separated (default: every algorithm in `shifr list`).
    #[arg(long = "alg", value_name = "A,B,..")]
    pub alg: Option<String>,
    /// Message sizes, comma-separated, with optional K/M suffix (default: 64,1K,16K,1M).
    #[arg(long, value_name = "N,..")]
    pub size: Option<String>,
    /// Thread counts, comma-separated: each message is split over that many threads.
    #[arg(long, value_name = "N,..", default_value = "1")]
    pub threads: String,
    /// Independent streams per message, each with its own key and IV (multi-stream feedback modes).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub streams: usize,
    /// Backend to run shifr on (portable, sse2, aesni, avx2, ...); algorithms without it use their best.
    #[arg(long, value_name = "NAME")]
    pub backend: Option<String>,
    /// Measured seconds per row, all implementations together (default 0.06; --quick 0.03).
    #[arg(long, value_name = "S")]
    pub seconds: Option<f64>,
    /// Which side to measure: encrypt, decrypt (AEADs open a sealed message each call, the copy of
    /// it into the buffer counted; feedback modes decrypt their chain), or both (one row per
    /// direction).
    #[arg(long, value_enum, value_name = "DIR", default_value_t = BenchDirection::Encrypt)]
    pub direction: BenchDirection,
    /// Peers, comma-separated: openssl, openssl-gost, aws-lc, ring, rustcrypto (those this build
    /// has: the C libraries need the `peers` feature), all, or none.
    #[arg(long, value_name = "LIST", default_value = "all")]
    pub peers: String,
    /// Print the rows as a JSON array instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Also write the rows as CSV to FILE.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Also draw charts (PNG and SVG) into DIR.
    #[arg(long, value_name = "DIR")]
    pub plot: Option<PathBuf>,
}

/// `shifr bench --direction`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BenchDirection {
    /// Encryption (and MAC computation) only.
    Encrypt,
    /// Decryption only.
    Decrypt,
    /// Both, an encryption and a decryption row for each workload.
    Both,
}

#[derive(Debug, Args)]
pub struct KatArgs {
    /// Vector files to run.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

/// Arguments of `shifr cipher`. Byte-string options are hex; they are decoded by the command so that
/// bad values get shifr's one-line error.
#[derive(Debug, Args)]
#[command(after_help = "\
The key is never given on the command line: it comes from --key-file (raw bytes, or hex text) or \
from the environment variable SHIFR_KEY (hex).

AEADs append the tag to the ciphertext; on decryption the tag is --tag, or else the last tag-length \
bytes of the input, and it is verified before any plaintext is written. MACs output the tag on \
encryption; with -d they verify the tag (from --tag, or the last tag-length bytes of the input) and \
output the message.

Names, sizes and modes follow `openssl enc` where OpenSSL offers them (see `shifr list`).")]
pub struct CipherArgs {
    /// Algorithm name (see `shifr list`).
    #[arg(short = 'a', long = "algorithm", value_name = "ALG")]
    pub algorithm: String,
    /// Decrypt (or verify, for a MAC) instead of encrypting.
    #[arg(short = 'd', long)]
    pub decrypt: bool,
    /// Encrypt (the default).
    #[arg(short = 'e', long, conflicts_with = "decrypt")]
    pub encrypt: bool,
    /// File holding the key: raw bytes, or hex text (surrounding whitespace ignored).
    #[arg(long, value_name = "FILE")]
    pub key_file: Option<PathBuf>,
    /// IV / nonce / initial counter block, hex.
    #[arg(long, value_name = "HEX")]
    pub iv: Option<String>,
    /// Associated data for AEADs, hex.
    #[arg(long, value_name = "HEX")]
    pub aad: Option<String>,
    /// Tag to verify on decryption (AEADs, MACs), hex.
    #[arg(long, value_name = "HEX")]
    pub tag: Option<String>,
    /// Tag length in bytes (AEADs, MACs).
    #[arg(long, value_name = "N")]
    pub tag_len: Option<usize>,
    /// No PKCS#7 padding for ECB/CBC: the input must be a whole number of blocks.
    #[arg(long)]
    pub nopad: bool,
    /// ACPKM section size in bytes (CTR-ACPKM key period; OMAC-ACPKM message section N).
    #[arg(long, value_name = "BYTES")]
    pub section: Option<usize>,
    /// OMAC-ACPKM: section T* of the key-derivation run, in bytes (default: --section).
    #[arg(long, value_name = "BYTES")]
    pub master_section: Option<usize>,
}

/// Arguments of `shifr study`.
#[derive(Debug, Args)]
#[command(after_help = "\
Studies: tls (seed 000 for real: TLS 1.2/1.3 x ChaCha20/AES-GCM/AES-CBC x HTTP/1.1/HTTP/2 over loopback, \
OpenSSL, rustls-ring and rustls with shifr's AEADs, with and without AES instructions), \
tls-table (seed 000: ChaCha20 vs AES, with and without AES-NI), files (seed 002: AES, 3DES, \
ChaCha20 over 150 files), gost-streams (seed 001: multi-stream GOST 28147-89 / Magma, 1..N threads), \
kuznyechik-platforms (seed 003: Kuznyechik per thread and per watt, cost per application), dump (seed \
004: encrypted disk dumps with every container AEAD at --cpu-limit 15).")]
pub struct StudyArgs {
    /// The study: tls, tls-table, files, gost-streams, kuznyechik-platforms or dump.
    #[arg(value_name = "NAME")]
    pub name: String,
    /// Directory for report.md, the CSV files and the PNG charts (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Fewer and shorter runs (tens of seconds per study).
    #[arg(long)]
    pub quick: bool,
    /// The smallest configuration (for tests; the numbers mean nothing).
    #[arg(long, conflicts_with = "quick")]
    pub tiny: bool,
    /// files: use the files in DIR instead of the generated 150-file corpus.
    #[arg(long, value_name = "DIR")]
    pub corpus: Option<PathBuf>,
    /// files: every algorithm of `shifr list`, not only the seed's five.
    #[arg(long)]
    pub all: bool,
    /// Most threads for the scaling studies, 1 to 1024 (default: every hardware thread).
    #[arg(long, value_name = "N", value_parser = shifr_input::number_arg::threads)]
    pub threads: Option<usize>,
    /// Extra backends, each measured in a child process under SHIFR_BACKEND (default: portable).
    #[arg(long, value_name = "NAME,..", value_delimiter = ',')]
    pub backend: Vec<String>,
    /// Internal: measure only, writing the rows to DIR/part.json (used for child runs).
    #[arg(long, hide = true)]
    pub part: bool,
    /// tls: body bytes of each bulk response, with optional K/M suffix (default 64M; --quick 16M).
    #[arg(long, value_name = "N")]
    pub bulk_size: Option<String>,
    /// tls: timed bulk responses per combination, 1 to 1000 (default 5; --quick 3).
    #[arg(long, value_name = "N", value_parser = reps)]
    pub reps: Option<usize>,
    /// tls: only these combinations, comma-separated; each term is /-separated parts of a label
    /// like rustls-shifr/no-aes/1.3/ChaCha20/h2 (e.g. "1.3/h2,openssl/AES-128-CBC").
    #[arg(long, value_name = "TERM,..")]
    pub combos: Option<String>,
    /// tls: skip the external clients (openssl s_client, curl, h2load).
    #[arg(long)]
    pub no_external: bool,
    /// Internal (tls): serve ENGINE with the certificate in --out until stdin closes.
    #[arg(long, hide = true, value_name = "ENGINE")]
    pub serve: Option<String>,
}

/// `--reps`: 1 ..= 1000.
fn reps(s: &str) -> Result<usize, String> {
    shifr_input::number_arg::whole_in(s, 1, 1000).map(|n| n as usize)
}

/// Parses the process arguments. Help and version requests are printed here; a usage error is
/// reported as one line. Either way the caller only has to return the exit code.
pub fn parse() -> Result<Cli, ExitCode> {
    Cli::try_parse().map_err(|e| match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            // Printing help can only fail if stdout is gone; there is nothing left to tell then.
            let _ = e.print();
            ExitCode::SUCCESS
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            ExitCode::from(2)
        }
        _ => {
            crate::report::usage_error(&e.render().to_string());
            ExitCode::from(2)
        }
    })
}
