//! shifr's side of a workload: the catalogue entry keyed once through its registry object
//! ([`shifr::catalog::AlgInfo::cipher`], `keyed_aead`, `mac`, `stream`, `multistream`), then one
//! call of the keyed object per message, as a user of the library keys once and sends many
//! messages. (The catalogue's one-shot `AlgInfo::encrypt` re-keys on every call; a benchmark of that
//! would count the key schedule in every message, which OpenSSL's and RustCrypto's numbers do not.)
//! A unit test checks, for every catalogue entry, that the first message here equals
//! `AlgInfo::encrypt` with the same key and IV.

use super::{bench_aad, bench_iv, bench_key, Direction, Op, Sequential, Workload};
use crate::BenchError;
use shifr::catalog::object::{Cipher, KeyStream, KeyedAead, Mac, MultiStream};
use shifr::catalog::{AlgInfo, Kind, Options};
use shifr::cpu::Backend;
use shifr::parallel::Engine;

/// Builds shifr's op for one thread of `w`: its streams, keys and IVs.
pub fn shifr_op(w: &Workload) -> Result<Box<dyn Op>, BenchError> {
    w.validate()?;
    if w.streams > 1 {
        if let Some(op) = multistream_op(w)? {
            return Ok(op);
        }
    }
    per_stream(w, |i| single_op(w, i, None))
}

/// shifr's op for the whole message of a multi-threaded, single-stream workload whose algorithm the
/// library engine splits itself ([`AlgInfo::splits`]: AES-GCM, MGM, CTR, ECB, ChaCha20,
/// (X)ChaCha20-Poly1305): the entry keyed with an [`Engine`] of `w.threads` threads and its default
/// threshold per message, as a user of the library gets. `None` for every other workload (the
/// runner then splits the message into per-thread parts).
pub fn shifr_engine_op(w: &Workload) -> Result<Option<Box<dyn Op>>, BenchError> {
    w.validate()?;
    if w.threads <= 1 || w.streams != 1 || !w.alg.splits() {
        return Ok(None);
    }
    single_op(w, 0, Some(Engine::new(w.threads))).map(Some)
}

/// One op per stream, run one after the other (a single op when `streams == 1`).
fn per_stream(
    w: &Workload,
    make: impl Fn(usize) -> Result<Box<dyn Op>, BenchError>,
) -> Result<Box<dyn Op>, BenchError> {
    if w.streams == 1 {
        return make(0);
    }
    let ops = (0..w.streams).map(make).collect::<Result<Vec<_>, _>>()?;
    Ok(Box::new(Sequential::new(ops, w.alg.block_size.max(1))))
}

/// The keying options of `w`.
fn options(w: &Workload, engine: Option<Engine>) -> Options {
    Options {
        backend: w.backend,
        engine,
        ..Options::default()
    }
}

/// The op of stream `stream` of `w`, keyed once (through `engine` when one is given).
fn single_op(
    w: &Workload,
    stream: usize,
    engine: Option<Engine>,
) -> Result<Box<dyn Op>, BenchError> {
    let alg = w.alg;
    let key = bench_key(alg.key_len, stream);
    let iv = bench_iv(alg.iv.default_len(), stream);
    let options = options(w, engine);
    Ok(match alg.kind {
        Kind::BlockMode => Box::new(ModeOp {
            cipher: alg.cipher(&key, &options)?,
            register: iv,
            dir: w.direction,
        }),
        Kind::Stream => Box::new(StreamOp {
            stream: alg.stream(&key, &iv, &options)?,
            alg,
            key,
            iv,
            options,
        }),
        Kind::Aead => Box::new(AeadOp::new(
            alg.keyed_aead(&key, &options)?,
            iv,
            w.direction,
        )),
        Kind::Mac => {
            let mac = alg.mac(&key, &options)?;
            Box::new(MacOp {
                tag: vec![0u8; mac.tag_len()],
                mac,
            })
        }
    })
}

/// Bytes of key schedule and per-key tables one keyed instance of `alg` holds (the primitive's
/// `state_bytes`: round keys, GHASH / MGM multiplier keys, inline and on the heap; static tables
/// shared by all instances and the mode's own few blocks of chaining state are not counted), on
/// `backend` (`None`: the one this process selects), with the name of the backend that holds it.
/// An error when `alg` does not offer `backend` here (ChaCha20's implementation is chosen per
/// process).
pub fn state_bytes(
    alg: &'static AlgInfo,
    backend: Option<Backend>,
) -> Result<(usize, String), BenchError> {
    let key = bench_key(alg.key_len, 0);
    let iv = bench_iv(alg.iv.default_len(), 0);
    let options = Options {
        backend,
        ..Options::default()
    };
    let (bytes, name) = match alg.kind {
        Kind::BlockMode => {
            let c = alg.cipher(&key, &options)?;
            (c.state_bytes(), c.backend())
        }
        Kind::Stream => {
            let s = alg.stream(&key, &iv, &options)?;
            (s.state_bytes(), s.backend())
        }
        Kind::Aead => {
            let a = alg.keyed_aead(&key, &options)?;
            (a.state_bytes(), a.backend())
        }
        Kind::Mac => {
            let m = alg.mac(&key, &options)?;
            (m.state_bytes(), m.backend())
        }
    };
    match backend {
        Some(b) if b.name() != name => Err(BenchError::Unsupported(format!(
            "{}: backend {} is not offered here ({name} runs)",
            alg.name,
            b.name()
        ))),
        _ => Ok((bytes, name.to_string())),
    }
}

/// A keyed block mode whose chain continues from message to message, as the peers' contexts
/// (OpenSSL's `EVP_CIPHER_CTX`, RustCrypto's mode structs) continue theirs: after a message the
/// register holds what [`Cipher::encrypt_chained`] leaves (CBC, CFB: the last ciphertext; OFB: the
/// last key stream block; modes without feedback: the IV), so consecutive feedback messages form
/// one chain and the CPU cannot overlap them, exactly as for the peers. (Starting every message
/// from the same IV would make messages independent and flatter short-message figures.)
struct ModeOp {
    cipher: Box<dyn Cipher>,
    register: Vec<u8>,
    dir: Direction,
}

impl Op for ModeOp {
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        match self.dir {
            Direction::Encrypt => self.cipher.encrypt_chained(&mut self.register, buf)?,
            Direction::Decrypt => self.cipher.decrypt_chained(&mut self.register, buf)?,
        }
        Ok(())
    }

    fn backend(&self) -> String {
        self.cipher.backend().to_string()
    }
}

/// A keyed MAC: one tag per message.
struct MacOp {
    mac: Box<dyn Mac>,
    tag: Vec<u8>,
}

impl Op for MacOp {
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        self.mac.tag(buf, &mut self.tag)?;
        std::hint::black_box(&self.tag);
        Ok(())
    }

    fn backend(&self) -> String {
        self.mac.backend().to_string()
    }
}

/// A keyed AEAD sealing (or opening) one whole message per call.
struct AeadOp {
    aead: Box<dyn KeyedAead>,
    nonce: Vec<u8>,
    aad: [u8; super::AAD_LEN],
    dir: Direction,
    /// For decryption: a sealed message of the last buffer length and its tag.
    sealed: Option<(Vec<u8>, Vec<u8>)>,
}

impl AeadOp {
    fn new(aead: Box<dyn KeyedAead>, nonce: Vec<u8>, dir: Direction) -> Self {
        AeadOp {
            aead,
            nonce,
            aad: bench_aad(),
            dir,
            sealed: None,
        }
    }
}

impl Op for AeadOp {
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        if self.dir == Direction::Encrypt {
            let tag = self.aead.seal(&self.nonce, &self.aad, buf)?;
            std::hint::black_box(tag);
            return Ok(());
        }
        if self
            .sealed
            .as_ref()
            .is_none_or(|(m, _)| m.len() != buf.len())
        {
            let mut msg = buf.to_vec();
            let tag = self.aead.seal(&self.nonce, &self.aad, &mut msg)?;
            self.sealed = Some((msg, tag.as_ref().to_vec()));
        }
        if let Some((msg, tag)) = &self.sealed {
            buf.copy_from_slice(msg);
            self.aead.open(&self.nonce, &self.aad, buf, tag)?;
        }
        Ok(())
    }

    fn backend(&self) -> String {
        self.aead.backend().to_string()
    }
}

/// A stream cipher whose key stream continues from call to call. When the 32-bit block counter
/// would wrap (after 256 GiB), the stream is started again from the IV, outside no timing
/// guarantee (it happens at most once per 256 GiB).
struct StreamOp {
    stream: Box<dyn KeyStream>,
    alg: &'static AlgInfo,
    key: Vec<u8>,
    iv: Vec<u8>,
    options: Options,
}

impl Op for StreamOp {
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        if self.stream.remaining_bytes() < buf.len() as u64 {
            self.stream = self.alg.stream(&self.key, &self.iv, &self.options)?;
        }
        self.stream.apply(buf)?;
        Ok(())
    }

    fn backend(&self) -> String {
        self.stream.backend().to_string()
    }
}

/// The multi-stream op of `w` (one keyed instance and IV per stream, all streams in one call), for
/// the entries with a multi-stream form (CBC, full-block CFB, OMAC); `None` for the others.
fn multistream_op(w: &Workload) -> Result<Option<Box<dyn Op>>, BenchError> {
    let keys: Vec<Vec<u8>> = (0..w.streams)
        .map(|i| bench_key(w.alg.key_len, i))
        .collect();
    let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let Some(streams) = w.alg.multistream(&refs, &options(w, None))? else {
        return Ok(None);
    };
    let ivs = (0..w.streams)
        .map(|i| bench_iv(w.alg.block_size, i))
        .collect();
    Ok(Some(Box::new(MultiOp {
        streams,
        ivs,
        align: w.alg.block_size,
        mac: w.alg.kind == Kind::Mac,
        dir: w.direction,
    })))
}

struct MultiOp {
    streams: Box<dyn MultiStream>,
    ivs: Vec<Vec<u8>>,
    align: usize,
    mac: bool,
    dir: Direction,
}

impl Op for MultiOp {
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        let n = self.ivs.len();
        let ivs: Vec<&[u8]> = self.ivs.iter().map(Vec::as_slice).collect();
        let mut parts: Vec<&mut [u8]> = Vec::with_capacity(n);
        let mut rest = buf;
        for len in super::split(rest.len(), n, self.align) {
            let (part, tail) = rest.split_at_mut(len);
            parts.push(part);
            rest = tail;
        }
        if self.mac {
            let msgs: Vec<&[u8]> = parts.iter().map(|p| &**p).collect();
            std::hint::black_box(self.streams.tag(&msgs)?);
        } else if self.dir == Direction::Encrypt {
            self.streams.encrypt(&ivs, &mut parts)?;
        } else {
            self.streams.decrypt(&ivs, &mut parts)?;
        }
        Ok(())
    }

    fn backend(&self) -> String {
        self.streams.backend().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shifr::catalog;

    /// The keyed ops give what `shifr cipher` (the catalogue's one-shot call) gives.
    #[test]
    fn every_catalogue_entry_is_mapped_and_matches_the_one_shot_call() {
        for alg in catalog::all() {
            for len in [64usize, 1040] {
                let input: Vec<u8> = (0..len).map(|i| (i * 7 + 1) as u8).collect();
                let mut ours = input.clone();
                let mut op = shifr_op(&Workload::new(alg, len)).unwrap();
                op.run(&mut ours).unwrap();
                let theirs = crate::workload::one_shot(alg, &input);
                if alg.kind == Kind::Mac {
                    assert_eq!(ours, input, "{}: a MAC leaves the data alone", alg.name);
                } else {
                    assert_eq!(ours, theirs.data, "{} at {len} bytes", alg.name);
                }
            }
        }
    }

    /// The feedback modes chain across messages as the peers' contexts do: three messages through
    /// one op equal one message of their total length (whole blocks; CBC, CFB, CFB8, OFB and
    /// GOST 28147-89 CFB, both directions).
    #[test]
    fn feedback_ops_chain_from_message_to_message() {
        let names = [
            "aes-128-cbc",
            "aes-128-cfb",
            "aes-128-cfb8",
            "aes-128-ofb",
            "magma-cbc",
            "kuznyechik-ofb",
            "des-ede3-cfb",
            "gost89",
        ];
        for name in names {
            let alg = catalog::lookup(name).unwrap();
            for direction in [Direction::Encrypt, Direction::Decrypt] {
                let sizes = [16usize, 48, 32];
                let total: usize = sizes.iter().sum();
                let input: Vec<u8> = (0..total).map(|i| (i * 13 + 5) as u8).collect();
                let mut w = Workload::new(alg, total);
                w.direction = direction;
                let mut whole = input.clone();
                shifr_op(&w).unwrap().run(&mut whole).unwrap();
                let mut parts = input.clone();
                let mut op = shifr_op(&w).unwrap();
                let mut rest = &mut parts[..];
                for len in sizes {
                    let (part, tail) = rest.split_at_mut(len);
                    op.run(part).unwrap();
                    rest = tail;
                }
                assert_eq!(parts, whole, "{name} {direction:?}");
            }
        }
    }

    #[test]
    fn decryption_inverts_encryption() {
        for alg in catalog::all().iter().filter(|a| a.kind != Kind::Mac) {
            let len = 256;
            let input: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let mut buf = input.clone();
            let mut w = Workload::new(alg, len);
            shifr_op(&w).unwrap().run(&mut buf).unwrap();
            w.direction = Direction::Decrypt;
            let mut dec = shifr_op(&w).unwrap();
            if alg.kind == Kind::Aead {
                // Opens its own sealed copy of the buffer: the plaintext comes back.
                let mut b = input.clone();
                dec.run(&mut b).unwrap();
                assert_eq!(b, input, "{}", alg.name);
            } else {
                dec.run(&mut buf).unwrap();
                assert_eq!(buf, input, "{}", alg.name);
            }
        }
    }

    /// The multi-threaded rows that go through the library engine give the single-thread op's
    /// output (itself checked against the catalogue above), in both directions, on messages large
    /// enough for the engine to split them.
    #[test]
    fn engine_ops_equal_the_single_thread_op() {
        let len = (1 << 20) + 48;
        let input: Vec<u8> = (0..len).map(|i| (i * 5 + 2) as u8).collect();
        for name in [
            "aes-128-gcm",
            "aes-256-gcm",
            "magma-mgm",
            "kuznyechik-mgm",
            "aes-128-ctr",
            "magma-ctr",
            "kuznyechik-ecb",
            "chacha20",
            "chacha20-poly1305",
            "xchacha20-poly1305",
        ] {
            let alg = catalog::lookup(name).unwrap();
            for dir in [Direction::Encrypt, Direction::Decrypt] {
                let mut w = Workload::new(alg, len);
                w.direction = dir;
                let mut expect = input.clone();
                shifr_op(&w).unwrap().run(&mut expect).unwrap();
                assert!(shifr_engine_op(&w).unwrap().is_none(), "{name}: 1 thread");
                for threads in [2, 3] {
                    w.threads = threads;
                    let mut op = shifr_engine_op(&w).unwrap().expect("an engine op");
                    let mut ours = input.clone();
                    op.run(&mut ours).unwrap();
                    assert!(ours == expect, "{name} {dir:?}, {threads} threads");
                }
            }
        }
        let mut w = Workload::new(catalog::lookup("aes-128-cbc").unwrap(), len);
        w.threads = 2;
        assert!(shifr_engine_op(&w).unwrap().is_none());
    }

    #[test]
    fn every_algorithm_reports_its_key_state() {
        for alg in catalog::all() {
            let (bytes, backend) = state_bytes(alg, None).unwrap();
            assert!(bytes >= alg.key_len.min(16), "{}: {bytes} bytes", alg.name);
            assert!(!backend.is_empty());
        }
        let gcm = catalog::lookup("aes-128-gcm").unwrap();
        let ecb = catalog::lookup("aes-128-ecb").unwrap();
        let (g, _) = state_bytes(gcm, Some(Backend::Portable)).unwrap();
        let (e, name) = state_bytes(ecb, Some(Backend::Portable)).unwrap();
        assert_eq!(name, "portable");
        assert!(
            g > e,
            "GCM holds the AES schedule and the GHASH key: {g} vs {e}"
        );
        let mgm = catalog::lookup("kuznyechik-mgm").unwrap();
        let kuz = catalog::lookup("kuznyechik-ecb").unwrap();
        assert!(state_bytes(mgm, None).unwrap().0 > state_bytes(kuz, None).unwrap().0);
    }

    #[test]
    fn multistream_equals_one_call_per_stream() {
        for name in ["aes-128-cbc", "magma-cfb", "kuznyechik-cbc", "des-ede3-cbc"] {
            let alg = catalog::lookup(name).unwrap();
            let len = 4 * 64;
            let input: Vec<u8> = (0..len).map(|i| (i * 3) as u8).collect();
            let mut w = Workload::new(alg, len);
            w.streams = 4;
            let mut multi = input.clone();
            shifr_op(&w).unwrap().run(&mut multi).unwrap();
            let mut single = input.clone();
            let ops: Vec<Box<dyn Op>> = (0..4)
                .map(|i| single_op(&Workload::new(alg, 64), i, None).unwrap())
                .collect();
            Sequential::new(ops, alg.block_size)
                .run(&mut single)
                .unwrap();
            assert_eq!(multi, single, "{name}");
            assert_ne!(multi, input);
        }
    }
}
