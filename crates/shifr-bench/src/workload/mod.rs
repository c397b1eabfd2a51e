//! What one measured operation is.
//!
//! A [`Workload`] names an algorithm from shifr's catalogue, the message size, the number of threads
//! the message is split over, the number of independent streams and the direction. An [`Op`] is one
//! keyed instance of an implementation (shifr or a peer) that processes one message per call:
//!
//! - block modes (ECB, CBC, CFB, OFB, CTR, CTR-ACPKM, GOST 28147-89 modes) encrypt the whole buffer
//!   in place (the key schedule is done once, outside the timing); the feedback modes continue
//!   their chain from call to call, the others start from the same IV each call;
//! - stream ciphers (ChaCha20, XChaCha20) are streaming: one keyed instance continues its key stream
//!   from call to call;
//! - AEADs seal a whole message per call: nonce setup, [`AAD_LEN`] bytes of associated data, the
//!   encryption and the tag, like `openssl speed -aead`;
//! - MACs compute the tag over the buffer;
//! - decryption ([`Direction::Decrypt`]), for shifr and every peer: block modes decrypt in place
//!   (the feedback modes continuing their chain as in encryption), stream ciphers apply their key
//!   stream, AEADs copy a message sealed once (outside the timing, again when the size changes)
//!   into the buffer and open it with its tag each call (the copy is counted; a tag that does not
//!   verify is an error), MACs compute the tag as in encryption;
//! - with `streams = N > 1` the buffer is split into N equal streams, each with its own key and IV; the
//!   feedback modes (CBC, CFB with full-block segments, OMAC) then run through the catalogue
//!   entry's multi-stream object (`shifr::hazmat::mode::multistream`), all streams in one call, and other
//!   modes run stream after stream;
//! - with `threads = N > 1` and one stream, shifr's rows of the entries the library engine splits
//!   (`AlgInfo::splits`: AES-GCM, MGM, CTR, ECB, ChaCha20, (X)ChaCha20-Poly1305) process each whole
//!   message with one call of the library's `shifr::parallel::Engine` on N threads
//!   ([`shifr_engine_op`]), which splits it itself; every other row (and every peer) gets one op
//!   per thread on its own part of the message ([`Workload::thread_parts`]).

mod shifr_op;

pub use shifr_op::{shifr_engine_op, shifr_op, state_bytes};

use crate::BenchError;
use shifr::catalog::AlgInfo;
use shifr::cpu::Backend;

/// Bytes of associated data per AEAD message (the TLS record header size `openssl speed -aead` uses).
pub const AAD_LEN: usize = 13;

/// Encryption or decryption.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Encrypt (or compute the tag, for a MAC).
    Encrypt,
    /// Decrypt. AEAD decryption copies a sealed message into the buffer before each open (the copy is
    /// counted); MAC "decryption" computes the tag as encryption does.
    Decrypt,
}

impl Direction {
    /// `"encrypt"` or `"decrypt"`.
    pub fn name(self) -> &'static str {
        match self {
            Direction::Encrypt => "encrypt",
            Direction::Decrypt => "decrypt",
        }
    }
}

/// One benchmark configuration: a row of the results for every implementation that offers it.
#[derive(Debug, Clone, Copy)]
pub struct Workload {
    /// The algorithm (see `shifr::catalog`).
    pub alg: &'static AlgInfo,
    /// Message size in bytes (split over `threads`).
    pub bytes: usize,
    /// Threads the message is split over (1 = single-threaded): by the library engine for shifr
    /// where it splits the algorithm, else into one part per thread.
    pub threads: usize,
    /// Independent streams per thread, each with its own key and IV (1 = a single stream).
    pub streams: usize,
    /// Encrypt or decrypt.
    pub direction: Direction,
    /// The backend to ask shifr for (`None`: the best one, or `SHIFR_BACKEND`). An algorithm that does
    /// not offer it runs on its best backend, as `shifr::cpu::select` does; rows say which ran.
    pub backend: Option<Backend>,
}

impl Workload {
    /// A single-threaded, single-stream encryption workload on the best backend.
    pub fn new(alg: &'static AlgInfo, bytes: usize) -> Workload {
        Workload {
            alg,
            bytes,
            threads: 1,
            streams: 1,
            direction: Direction::Encrypt,
            backend: None,
        }
    }

    /// Sizes of the per-thread parts of the message: equal parts aligned to `align` bytes, the last
    /// one taking the remainder.
    pub fn thread_parts(&self, align: usize) -> Vec<usize> {
        split(self.bytes, self.threads, align)
    }

    /// Checks the shape of the workload (non-zero threads and streams, enough bytes for every
    /// stream, block alignment where the mode needs it).
    pub fn validate(&self) -> Result<(), BenchError> {
        if self.threads == 0 || self.streams == 0 {
            return Err(BenchError::Invalid(
                "threads and streams must be at least 1".into(),
            ));
        }
        let align = self.alg.block_size.max(1);
        for part in self.thread_parts(align) {
            if part < self.streams {
                return Err(BenchError::Invalid(format!(
                    "{} bytes over {} thread(s) and {} stream(s) leaves a stream empty",
                    self.bytes, self.threads, self.streams
                )));
            }
            if needs_whole_blocks(self.alg) {
                for s in split(part, self.streams, align) {
                    if !s.is_multiple_of(align) {
                        return Err(BenchError::Invalid(format!(
                            "{} needs whole {align}-byte blocks per stream; {} bytes over {} thread(s) and {} stream(s) does not split into them",
                            self.alg.name, self.bytes, self.threads, self.streams
                        )));
                    }
                }
            }
        }
        Ok(())
    }
}

/// Whether the algorithm's unpadded form needs whole blocks (ECB and CBC).
pub fn needs_whole_blocks(alg: &AlgInfo) -> bool {
    alg.padding == shifr::catalog::Padding::Pkcs7
}

/// Splits `total` into `parts` pieces: equal pieces rounded down to `align`, the last taking the rest.
pub fn split(total: usize, parts: usize, align: usize) -> Vec<usize> {
    let parts = parts.max(1);
    let align = align.max(1);
    let base = total / parts / align * align;
    let mut out = vec![base; parts];
    out[parts - 1] = total - base * (parts - 1);
    out
}

/// One keyed instance of an implementation, processing one message per call.
pub trait Op: Send {
    /// Processes `buf` (one whole message) in place.
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError>;

    /// The backend or implementation that actually runs (`"aesni"`, `"portable"`, `"libcrypto"`...).
    fn backend(&self) -> String;

    /// For an AEAD decryption op: the sealed message and tag it opens each call, once it has run
    /// (tests replace it with shifr's ciphertext or corrupt its tag).
    #[cfg(test)]
    fn sealed_mut(&mut self) -> Option<&mut (Vec<u8>, Vec<u8>)> {
        None
    }
}

/// Runs `streams` independent ops over equal parts of the buffer, one after the other: the
/// multi-stream shape for implementations (and modes) that have no multi-stream call.
pub struct Sequential {
    ops: Vec<Box<dyn Op>>,
    align: usize,
}

impl Sequential {
    /// Wraps one op per stream; `align` is the block size the parts are aligned to.
    pub fn new(ops: Vec<Box<dyn Op>>, align: usize) -> Sequential {
        Sequential { ops, align }
    }
}

impl Op for Sequential {
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        let parts = split(buf.len(), self.ops.len(), self.align);
        let mut rest = buf;
        for (op, len) in self.ops.iter_mut().zip(parts) {
            let (part, tail) = rest.split_at_mut(len);
            op.run(part)?;
            rest = tail;
        }
        Ok(())
    }

    fn backend(&self) -> String {
        self.ops.first().map(|o| o.backend()).unwrap_or_default()
    }
}

/// A deterministic key of `len` bytes for stream `index` (distinct per stream; not secret).
pub fn bench_key(len: usize, index: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(index as u8 ^ 0x5a))
        .collect()
}

/// A deterministic IV / nonce of `len` bytes for stream `index`; the first byte has its top bit clear
/// (MGM nonces must).
pub fn bench_iv(len: usize, index: usize) -> Vec<u8> {
    let mut iv: Vec<u8> = (0..len)
        .map(|i| {
            (i as u8)
                .wrapping_mul(17)
                .wrapping_add(index as u8)
                .wrapping_add(3)
        })
        .collect();
    if let Some(b) = iv.first_mut() {
        *b &= 0x7f;
    }
    iv
}

/// The associated data every AEAD message carries.
pub fn bench_aad() -> [u8; AAD_LEN] {
    core::array::from_fn(|i| i as u8)
}

/// The library's one-shot encryption of `input` with stream 0's key, IV and associated data, no
/// padding: the reference every op test compares with.
#[cfg(test)]
pub(crate) fn one_shot(alg: &AlgInfo, input: &[u8]) -> shifr::catalog::Output {
    let key = bench_key(alg.key_len, 0);
    let iv = bench_iv(alg.iv.default_len(), 0);
    let aad = bench_aad();
    let params = shifr::catalog::Params {
        iv: &iv,
        aad: if alg.kind == shifr::catalog::Kind::Aead {
            &aad
        } else {
            &[]
        },
        nopad: true,
        ..shifr::catalog::Params::default()
    };
    alg.encrypt(&key, &params, input.to_vec())
        .expect("the one-shot call takes the bench's key, IV and data")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_covers_the_total_with_aligned_parts() {
        assert_eq!(split(1000, 3, 16), vec![320, 320, 360]);
        assert_eq!(split(64, 1, 16), vec![64]);
        assert_eq!(split(10, 4, 1), vec![2, 2, 2, 4]);
        for parts in 1..9 {
            assert_eq!(split(12345, parts, 8).iter().sum::<usize>(), 12345);
        }
    }

    #[test]
    fn validate_rejects_empty_streams_and_unaligned_ecb() {
        let ecb = shifr::catalog::lookup("aes-128-ecb").unwrap();
        let mut w = Workload::new(ecb, 16);
        assert!(w.validate().is_ok());
        w.streams = 32;
        assert!(w.validate().is_err());
        let w = Workload::new(ecb, 17);
        assert!(w.validate().is_err());
        let ctr = shifr::catalog::lookup("aes-128-ctr").unwrap();
        assert!(Workload::new(ctr, 17).validate().is_ok());
    }

    #[test]
    fn stream_keys_and_ivs_differ() {
        assert_ne!(bench_key(32, 0), bench_key(32, 1));
        assert_ne!(bench_iv(16, 0), bench_iv(16, 1));
        assert!(bench_iv(16, 200)[0] < 0x80);
    }
}
