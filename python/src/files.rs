//! The container from Python: whole files (`encrypt_file`, `decrypt_file`), one chunk range of a file
//! (`seal_range`, for sealing one object on many machines), and the pieces of the streaming reader and
//! writer (`ChunkSealer`, `ChunkOpener`, `AtomicFile`). All bulk work runs with the GIL released.

use crate::atomic::AtomicOutput;
use crate::errors::{Failure, Result};
use crate::secret::OwnedSecret;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use shifr::container::header::{Header, DEFAULT_CHUNK_SIZE};
use shifr::container::{read_header, Algorithm, EncryptParams, FileCipher};
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Passes reads through and hashes what they return (the plaintext's SHA-256 for a manifest).
struct Hashing<R> {
    inner: R,
    hash: Option<sha2::Sha256>,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(h) = &mut self.hash {
            sha2::Digest::update(h, &buf[..n]);
        }
        Ok(n)
    }
}

/// The secret keyword arguments every call takes.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct SecretArgs {
    key_file: Option<PathBuf>,
    key: Option<Vec<u8>>,
    passphrase: Option<Vec<u8>>,
    /// Decryption: the most Argon2id memory (bytes) and passes a header may ask for (default:
    /// half of this machine's memory, the passes shifr writes), as the CLI's `--max-kdf-*`.
    max_kdf_memory: Option<u64>,
    max_kdf_passes: Option<u32>,
}

impl SecretArgs {
    /// Refuses a header whose Argon2id cost exceeds the limits, before any key derivation.
    fn check_kdf(&self, kdf: shifr::container::Kdf) -> Result<()> {
        shifr_files::kdf_limit::Limits::new(self.max_kdf_memory, self.max_kdf_passes)
            .check(kdf)
            .map_err(|e| {
                Failure::invalid(format!(
                    "{e}; if you trust this file, pass max_kdf_memory=BYTES and max_kdf_passes=N"
                ))
            })
    }

    fn owned(&self) -> Result<OwnedSecret> {
        OwnedSecret::from_args(
            self.key_file.as_deref(),
            self.key.as_deref(),
            self.passphrase.as_deref(),
        )
    }
}

/// What a new file's header holds besides the key check.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct NewFile {
    aead: Option<String>,
    chunk_size: Option<u32>,
    salt: [u8; 16],
    nonce_prefix: [u8; 16],
}

impl NewFile {
    fn cipher(&self, secret: &OwnedSecret) -> Result<FileCipher> {
        let algorithm = match &self.aead {
            Some(name) => Algorithm::from_name(name).ok_or_else(|| {
                let names: Vec<&str> = Algorithm::ALL.iter().map(|a| a.name()).collect();
                Failure::invalid(format!(
                    "unknown AEAD '{name}' for a container (choose {})",
                    names.join(", ")
                ))
            })?,
            None => Algorithm::default_for_this_cpu(),
        };
        let mut params = EncryptParams::new(
            algorithm,
            secret.kdf_for_new_file()?,
            self.salt,
            self.nonce_prefix,
        );
        params.chunk_size = self.chunk_size.unwrap_or(DEFAULT_CHUNK_SIZE);
        FileCipher::for_encryption(&params, secret.as_secret())
            .map_err(|e| Failure::container(e, "", ""))
    }
}

fn threads(threads: Option<usize>) -> Result<usize> {
    match threads {
        Some(0) => Err(Failure::invalid("threads must be at least 1")),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

fn open_input(path: &Path) -> Result<File> {
    let file = File::open(path).map_err(|e| Failure::io("cannot open", path, &e))?;
    match file.metadata() {
        Ok(m) if m.is_dir() => Err(Failure::new(
            "ShifrIOError",
            format!("{} is a directory", path.display()),
        )),
        _ => Ok(file),
    }
}

/// Encrypts the file `src` into the container `dst` (written atomically); returns the plaintext bytes
/// and, with `sha256`, the plaintext's SHA-256.
#[pyfunction]
#[pyo3(signature = (src, dst, secret, new_file, threads=None, force=false, sha256=false))]
#[allow(clippy::too_many_arguments)]
pub fn encrypt_file(
    py: Python<'_>,
    src: PathBuf,
    dst: PathBuf,
    secret: SecretArgs,
    new_file: NewFile,
    threads: Option<usize>,
    force: bool,
    sha256: bool,
) -> PyResult<(u64, Option<String>)> {
    let threads = self::threads(threads)?;
    let out = py.detach(|| -> Result<(u64, Option<String>)> {
        let input = open_input(&src)?;
        let owned = secret.owned()?;
        let cipher = new_file.cipher(&owned)?;
        drop(owned);
        let mut out = AtomicOutput::create(&dst, force)?;
        let mut reader = Hashing {
            inner: BufReader::new(input),
            hash: sha256.then(<sha2::Sha256 as sha2::Digest>::new),
        };
        let n = cipher
            .encrypt(&mut reader, out.file(), threads, &mut |_| {})
            .map_err(|e| {
                Failure::container(e, &src.display().to_string(), &dst.display().to_string())
            })?;
        out.commit()?;
        let digest = reader.hash.map(|h| hex::encode(sha2::Digest::finalize(h)));
        Ok((n, digest))
    })?;
    Ok(out)
}

/// Decrypts the container `src` into `dst`, which appears only once every chunk verified; returns the
/// plaintext bytes.
#[pyfunction]
#[pyo3(signature = (src, dst, secret, threads=None, force=false))]
pub fn decrypt_file(
    py: Python<'_>,
    src: PathBuf,
    dst: PathBuf,
    secret: SecretArgs,
    threads: Option<usize>,
    force: bool,
) -> PyResult<u64> {
    let threads = self::threads(threads)?;
    let n = py.detach(|| -> Result<u64> {
        let (src_name, dst_name) = (src.display().to_string(), dst.display().to_string());
        let mut input = BufReader::new(open_input(&src)?);
        let header =
            read_header(&mut input).map_err(|e| Failure::container(e, &src_name, &dst_name))?;
        secret.check_kdf(header.kdf)?;
        let owned = secret.owned()?;
        let cipher = FileCipher::for_decryption(&header, owned.as_secret())
            .map_err(|e| Failure::container(e, &src_name, &dst_name))?;
        drop(owned);
        let mut out = AtomicOutput::create(&dst, force)?;
        let n = cipher
            .decrypt(input, out.file(), threads, &mut |_| {})
            .map_err(|e| Failure::container(e, &src_name, &dst_name))?;
        out.commit()?;
        Ok(n)
    })?;
    Ok(n)
}

/// The 80-byte header of a new file (the key check included).
#[pyfunction]
pub fn new_header<'py>(
    py: Python<'py>,
    secret: SecretArgs,
    new_file: NewFile,
) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = py.detach(|| -> Result<_> {
        let owned = secret.owned()?;
        Ok(new_file.cipher(&owned)?.header().to_bytes())
    })?;
    Ok(PyBytes::new(py, &bytes))
}

/// Seals chunks `first_chunk .. first_chunk + chunk_count` of the file `src` (with `last`: from
/// `first_chunk` to the end of the file, the final chunk included) into `part`, without a header, so
/// that the header and every range's part concatenated in order are the file `encrypt_file` writes
/// with the same parameters. `part` is written atomically and replaced if it exists. Returns the
/// plaintext bytes sealed.
#[pyfunction]
#[pyo3(signature = (src, part, secret, new_file, first_chunk, chunk_count, last, threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn seal_range(
    py: Python<'_>,
    src: PathBuf,
    part: PathBuf,
    secret: SecretArgs,
    new_file: NewFile,
    first_chunk: u64,
    chunk_count: u64,
    last: bool,
    threads: Option<usize>,
) -> PyResult<u64> {
    let threads = self::threads(threads)?;
    let n = py.detach(|| -> Result<u64> {
        let (src_name, part_name) = (src.display().to_string(), part.display().to_string());
        let owned = secret.owned()?;
        let cipher = new_file.cipher(&owned)?;
        drop(owned);
        let cs = u64::from(cipher.header().chunk_size);
        let mut input = open_input(&src)?;
        let start = first_chunk
            .checked_mul(cs)
            .ok_or_else(|| Failure::invalid("chunk range out of range"))?;
        input
            .seek(SeekFrom::Start(start))
            .map_err(|e| Failure::io("cannot seek in", &src, &e))?;
        let want = chunk_count
            .checked_mul(cs)
            .ok_or_else(|| Failure::invalid("chunk range out of range"))?;
        let reader: Box<dyn Read + Send> = if last {
            Box::new(BufReader::new(input))
        } else {
            Box::new(BufReader::new(input.take(want)))
        };
        let mut out = AtomicOutput::create(&part, true)?;
        let n = cipher
            .encrypt_range(first_chunk, last, reader, out.file(), threads, &mut |_| {})
            .map_err(|e| Failure::container(e, &src_name, &part_name))?;
        if !last && n != want {
            return Err(Failure::new(
                "ShifrIOError",
                format!("{src_name} is shorter than the chunk range (did it change?)"),
            ));
        }
        out.commit()?;
        Ok(n)
    })?;
    Ok(n)
}

/// Seals a streaming writer's batches: chunks in order, the last batch with the final chunk.
#[pyclass(module = "shifr._shifr", frozen)]
pub struct ChunkSealer {
    cipher: FileCipher,
}

#[pymethods]
impl ChunkSealer {
    #[new]
    fn new(py: Python<'_>, secret: SecretArgs, new_file: NewFile) -> PyResult<ChunkSealer> {
        let cipher = py.detach(|| -> Result<_> {
            let owned = secret.owned()?;
            new_file.cipher(&owned)
        })?;
        Ok(ChunkSealer { cipher })
    }

    /// The file's 80-byte header.
    fn header<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.cipher.header().to_bytes())
    }

    /// Plaintext bytes per chunk.
    #[getter]
    fn chunk_size(&self) -> u32 {
        self.cipher.header().chunk_size
    }

    /// Seals `data` as chunks `first_chunk..` (whole chunks unless `last`); returns the sealed bytes.
    fn seal<'py>(
        &self,
        py: Python<'py>,
        first_chunk: u64,
        data: &[u8],
        last: bool,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let sealed = py.detach(|| -> Result<Vec<u8>> {
            let mut out = Vec::with_capacity(data.len() + data.len() / 64 + 64);
            self.cipher
                .encrypt_range(first_chunk, last, data, &mut out, 1, &mut |_| {})
                .map_err(|e| Failure::container(e, "", ""))?;
            Ok(out)
        })?;
        Ok(PyBytes::new(py, &sealed))
    }
}

/// Opens a streaming reader's batches of sealed chunks.
#[pyclass(module = "shifr._shifr", frozen)]
pub struct ChunkOpener {
    cipher: FileCipher,
}

#[pymethods]
impl ChunkOpener {
    /// Keys the reader from the file's header; errors as `decrypt_file`.
    #[new]
    fn new(py: Python<'_>, header: &[u8], secret: SecretArgs, name: &str) -> PyResult<ChunkOpener> {
        let cipher = py.detach(|| -> Result<_> {
            let header = Header::parse(header).map_err(|e| Failure::container(e, name, ""))?;
            secret.check_kdf(header.kdf)?;
            let owned = secret.owned()?;
            FileCipher::for_decryption(&header, owned.as_secret())
                .map_err(|e| Failure::container(e, name, ""))
        })?;
        Ok(ChunkOpener { cipher })
    }

    /// Plaintext bytes per chunk.
    #[getter]
    fn chunk_size(&self) -> u32 {
        self.cipher.header().chunk_size
    }

    /// Bytes of a full sealed chunk.
    #[getter]
    fn sealed_chunk_size(&self) -> usize {
        self.cipher.chunk_cipher().sealed_chunk_len()
    }

    /// Verifies and decrypts `sealed`, the chunks `first_chunk..` (full sealed chunks; with `last`,
    /// the remainder is the final chunk); returns the plaintext. Error: `AuthenticationError` naming
    /// the first chunk that failed.
    fn open<'py>(
        &self,
        py: Python<'py>,
        first_chunk: u64,
        sealed: &[u8],
        last: bool,
        name: &str,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let plain = py.detach(|| -> Result<Vec<u8>> {
            let chunks = self.cipher.chunk_cipher();
            let mut buf = sealed.to_vec();
            chunks
                .open_job(first_chunk, &mut buf, last)
                .map_err(|e| Failure::container(e, name, ""))?;
            let (slot, tag) = (chunks.sealed_chunk_len(), chunks.tag_len());
            let mut plain = Vec::with_capacity(buf.len());
            for piece in buf.chunks(slot) {
                plain.extend_from_slice(&piece[..piece.len() - tag]);
            }
            Ok(plain)
        })?;
        Ok(PyBytes::new(py, &plain))
    }
}

/// A file written under a temporary (or no) name and given its final name by `commit`.
#[pyclass(module = "shifr._shifr")]
pub struct AtomicFile {
    out: Option<AtomicOutput>,
}

#[pymethods]
impl AtomicFile {
    #[new]
    #[pyo3(signature = (path, force=false))]
    fn new(path: PathBuf, force: bool) -> PyResult<AtomicFile> {
        Ok(AtomicFile {
            out: Some(AtomicOutput::create(&path, force)?),
        })
    }

    /// Appends `data`.
    fn write(&mut self, py: Python<'_>, data: &[u8]) -> PyResult<()> {
        let out = self
            .out
            .as_mut()
            .ok_or_else(|| Failure::invalid("the file is already closed"))?;
        py.detach(|| -> Result<()> {
            use std::io::Write;
            let target = out.target().to_path_buf();
            out.file()
                .write_all(data)
                .map_err(|e| Failure::io("cannot write", &target, &e))
        })?;
        Ok(())
    }

    /// Syncs the data and links it under its final name.
    fn commit(&mut self, py: Python<'_>) -> PyResult<()> {
        let out = self
            .out
            .take()
            .ok_or_else(|| Failure::invalid("the file is already closed"))?;
        py.detach(|| out.commit())?;
        Ok(())
    }

    /// Drops the data: nothing appears under the final name.
    fn abort(&mut self) {
        self.out = None;
    }
}

/// The fields of a container header (validated; no key needed), as `shifr info` shows them.
#[pyfunction]
pub fn parse_header<'py>(
    py: Python<'py>,
    header: &[u8],
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    use pyo3::types::PyDictMethods;
    let h = Header::parse(header).map_err(|e| Failure::container(e, "", ""))?;
    let d = pyo3::types::PyDict::new(py);
    d.set_item("aead", h.algorithm.name())?;
    match h.kdf {
        shifr::container::Kdf::KeyFile => d.set_item("kdf", "key-file")?,
        shifr::container::Kdf::Argon2id { m_kib, t, p } => {
            d.set_item("kdf", "argon2id")?;
            d.set_item("argon2", (m_kib, t, p))?;
        }
    }
    d.set_item("chunk_size", h.chunk_size)?;
    d.set_item("tag_len", h.algorithm.tag_len())?;
    d.set_item("salt", PyBytes::new(py, &h.salt))?;
    d.set_item("nonce_prefix", PyBytes::new(py, &h.nonce_prefix))?;
    Ok(d)
}
