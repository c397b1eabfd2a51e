//! shifr's side of a workload: the catalogue name mapped to a keyed primitive and the mode call that
//! `shifr cipher` would make, with the key schedule done once at construction.
//!
//! The catalogue's one-shot call (`AlgInfo::encrypt`) re-keys on every call; a benchmark of that
//! would count the key schedule in every message, which OpenSSL's and RustCrypto's numbers do not.
//! So this module keys the primitive itself. A unit test checks, for every catalogue entry, that the
//! first message this module produces equals `AlgInfo::encrypt` with the same key and IV, so the two
//! cannot drift apart; a name this module does not know falls back to the one-shot call (and its
//! rows then count the key schedule, which [`ShifrOp::backend`] reports as `"+keysetup"`).

use super::{bench_aad, bench_iv, bench_key, Direction, Op, Sequential, Workload};
use crate::BenchError;
use shifr::aead::chacha20poly1305::{ChaCha20Poly1305, XChaCha20Poly1305};
use shifr::aead::gcm::AesGcm;
use shifr::aead::mgm::Mgm;
use shifr::aead::Aead;
use shifr::aead::Tag;
use shifr::catalog::{AlgInfo, Kind, Params};
use shifr::cpu::Backend;
use shifr::engine::Engine;
use shifr::hazmat::block::aes::Aes;
use shifr::hazmat::block::kuznyechik::Kuznyechik;
use shifr::hazmat::block::magma::{Gost28147, Magma, SBox};
use shifr::hazmat::block::tdes::Tdes;
use shifr::hazmat::block::{BlockCipher, KeyInit};
use shifr::hazmat::mac::{omac, omac_acpkm};
use shifr::hazmat::mode::gost89::{self, KeyMeshing};
use shifr::hazmat::mode::{cbc, cfb, ctr, ctr_acpkm, ecb, multistream, ofb};
use shifr::hazmat::stream::chacha20::{ChaCha20, XChaCha20};
use shifr::hazmat::util::shift_in;

/// The block cipher behind a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Aes,
    Tdes,
    Magma,
    Kuznyechik,
    Gost28147(SBox),
}

/// The mode behind a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Ecb,
    Cbc,
    Cfb(usize),
    Ofb,
    Ctr,
    GostCtr,
    CtrAcpkm,
    Gost89Cfb,
    Gost89Cnt,
    Mgm,
    Cmac,
    OmacAcpkm,
}

/// What a catalogue name runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plan {
    Block(Family, Mode),
    Gcm,
    ChaCha20,
    XChaCha20,
    ChaCha20Poly1305,
    XChaCha20Poly1305,
}

/// Maps a catalogue name to its primitive and mode (`None`: unknown here, use the one-shot call).
fn plan(alg: &AlgInfo) -> Option<Plan> {
    let name = alg.name;
    let fixed = match name {
        "chacha20" => Some(Plan::ChaCha20),
        "xchacha20" => Some(Plan::XChaCha20),
        "chacha20-poly1305" => Some(Plan::ChaCha20Poly1305),
        "xchacha20-poly1305" => Some(Plan::XChaCha20Poly1305),
        "gost89" => Some(Plan::Block(Family::Gost28147(SBox::Tc26Z), Mode::Gost89Cfb)),
        "gost89-cnt" => Some(Plan::Block(
            Family::Gost28147(SBox::CryptoProA),
            Mode::Gost89Cnt,
        )),
        "gost89-cnt-12" => Some(Plan::Block(Family::Gost28147(SBox::Tc26Z), Mode::Gost89Cnt)),
        "gost89-cbc" => Some(Plan::Block(Family::Gost28147(SBox::Tc26Z), Mode::Cbc)),
        "des-ede3" | "des-ede" => Some(Plan::Block(Family::Tdes, Mode::Ecb)),
        _ => None,
    };
    if fixed.is_some() {
        return fixed;
    }
    let (family, mode) = if let Some(rest) = name.strip_prefix("aes-") {
        (Family::Aes, rest.split_once('-')?.1)
    } else if let Some(rest) = name.strip_prefix("des-ede3-") {
        (Family::Tdes, rest)
    } else if let Some(rest) = name.strip_prefix("des-ede-") {
        (Family::Tdes, rest)
    } else if let Some(rest) = name.strip_prefix("magma-") {
        (Family::Magma, rest)
    } else if let Some(rest) = name.strip_prefix("kuznyechik-") {
        (Family::Kuznyechik, rest)
    } else {
        return None;
    };
    let gost = matches!(family, Family::Magma | Family::Kuznyechik);
    let n = alg.block_size;
    let mode = match (mode, gost) {
        ("gcm", false) if family == Family::Aes => return Some(Plan::Gcm),
        ("ecb", _) => Mode::Ecb,
        ("cbc", _) => Mode::Cbc,
        ("cfb", _) => Mode::Cfb(n),
        ("cfb8", false) => Mode::Cfb(1),
        ("ofb", _) => Mode::Ofb,
        ("ctr", false) => Mode::Ctr,
        ("ctr", true) => Mode::GostCtr,
        ("ctr-acpkm", _) => Mode::CtrAcpkm,
        ("mgm", true) => Mode::Mgm,
        ("cmac", false) | ("mac", true) => Mode::Cmac,
        ("omac-acpkm", true) => Mode::OmacAcpkm,
        _ => return None,
    };
    Some(Plan::Block(family, mode))
}

/// Builds shifr's op for one thread of `w`: its streams, keys and IVs.
pub fn shifr_op(w: &Workload) -> Result<Box<dyn Op>, BenchError> {
    w.validate()?;
    let Some(plan) = plan(w.alg) else {
        return per_stream(w, |i| Ok(Box::new(OneShot::new(w, i)) as Box<dyn Op>));
    };
    if w.streams > 1 {
        if let Plan::Block(family, mode) = plan {
            let feedback =
                matches!(mode, Mode::Cbc | Mode::Cmac) || mode == Mode::Cfb(w.alg.block_size);
            if feedback {
                return multistream_op(w, family, mode);
            }
        }
    }
    per_stream(w, |i| single_op(w, plan, i))
}

/// shifr's op for the whole message of a multi-threaded, single-stream workload whose algorithm the
/// library engine splits itself (AES-GCM, MGM, CTR, ECB, ChaCha20, (X)ChaCha20-Poly1305): one call
/// of [`shifr::engine::Engine`]
/// with `w.threads` threads and its default threshold per message, as a user of the library gets.
/// `None` for every other workload (the runner then splits the message into per-thread parts).
pub fn shifr_engine_op(w: &Workload) -> Result<Option<Box<dyn Op>>, BenchError> {
    w.validate()?;
    if w.threads <= 1 || w.streams != 1 {
        return Ok(None);
    }
    let plan = match plan(w.alg) {
        Some(
            p @ (Plan::Gcm
            | Plan::ChaCha20
            | Plan::ChaCha20Poly1305
            | Plan::XChaCha20Poly1305
            | Plan::Block(_, Mode::Mgm | Mode::Ctr | Mode::GostCtr | Mode::Ecb)),
        ) => p,
        _ => return Ok(None),
    };
    single_op_on(w, plan, 0, Some(Engine::new(w.threads))).map(Some)
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

fn aes(w: &Workload, key: &[u8]) -> Result<Aes, BenchError> {
    Ok(match w.backend {
        Some(b) => Aes::with_backend(key, b).or_else(|_| Aes::new(key))?,
        None => Aes::new(key)?,
    })
}

fn single_op(w: &Workload, plan: Plan, stream: usize) -> Result<Box<dyn Op>, BenchError> {
    single_op_on(w, plan, stream, None)
}

/// [`single_op`], through `engine` when one is given (for the plans [`shifr_engine_op`] accepts).
fn single_op_on(
    w: &Workload,
    plan: Plan,
    stream: usize,
    engine: Option<Engine>,
) -> Result<Box<dyn Op>, BenchError> {
    let alg = w.alg;
    let key = bench_key(alg.key_len, stream);
    let iv = bench_iv(alg.iv.default_len(), stream);
    let dir = w.direction;
    Ok(match plan {
        Plan::Block(family, mode) => {
            // Every family's op differs only in its cipher and the backend name it reports.
            macro_rules! op {
                ($cipher:expr, $backend:expr) => {
                    block_op($cipher, $backend, alg, mode, iv, dir, engine)?
                };
            }
            match family {
                Family::Aes => {
                    let c = aes(w, &key)?;
                    let backend = c.backend().name().to_string();
                    op!(c, backend)
                }
                Family::Tdes => op!(Tdes::new(&key)?, catalogue_backend(alg)),
                Family::Magma => op!(Magma::new(&key)?, catalogue_backend(alg)),
                Family::Kuznyechik => op!(Kuznyechik::new(&key)?, catalogue_backend(alg)),
                Family::Gost28147(sbox) => {
                    op!(Gost28147::new(&key, sbox)?, catalogue_backend(alg))
                }
            }
        }
        Plan::Gcm => {
            let gcm = match w.backend {
                Some(b) => AesGcm::with_backend(&key, 16, b).or_else(|_| AesGcm::new(&key, 16))?,
                None => AesGcm::new(&key, 16)?,
            };
            let backend = gcm.backend().name().to_string();
            match engine {
                Some(engine) => {
                    Box::new(AeadOp::new(Split { aead: gcm, engine }, backend, iv, dir))
                }
                None => Box::new(AeadOp::new(gcm, backend, iv, dir)),
            }
        }
        Plan::ChaCha20 => {
            let cipher = openssl_chacha(&key, &iv)?;
            match engine {
                Some(engine) => Box::new(SplitChaCha::new(engine, cipher, key, iv)),
                None => Box::new(StreamOp::ChaCha(cipher, key, iv)),
            }
        }
        Plan::XChaCha20 => Box::new(StreamOp::XChaCha(XChaCha20::new(&key, &iv, 0)?, key, iv)),
        Plan::ChaCha20Poly1305 => {
            let backend = alg.implementation().to_string();
            let aead = ChaCha20Poly1305::new(&key)?;
            match engine {
                Some(engine) => Box::new(AeadOp::new(Split { aead, engine }, backend, iv, dir)),
                None => Box::new(AeadOp::new(aead, backend, iv, dir)),
            }
        }
        Plan::XChaCha20Poly1305 => {
            let backend = alg.implementation().to_string();
            let aead = XChaCha20Poly1305::new(&key)?;
            match engine {
                Some(engine) => Box::new(AeadOp::new(Split { aead, engine }, backend, iv, dir)),
                None => Box::new(AeadOp::new(aead, backend, iv, dir)),
            }
        }
    })
}

/// Bytes of key schedule and per-key tables one keyed instance of `alg` holds (the primitive's
/// `state_bytes`: round keys, GHASH / MGM multiplier keys, inline and on the heap; static tables
/// shared by all instances and the mode's own few blocks of chaining state are not counted), on
/// `backend` (`None`: the one this process selects), with the name of the backend that holds it.
/// An error when `alg` does not offer `backend` here (ChaCha20's engine is chosen per process).
pub fn state_bytes(
    alg: &'static AlgInfo,
    backend: Option<Backend>,
) -> Result<(usize, String), BenchError> {
    let key = bench_key(alg.key_len, 0);
    let plan = plan(alg)
        .ok_or_else(|| BenchError::Unsupported(format!("{}: no keyed mapping", alg.name)))?;
    let tag = alg.tag.map_or(16, |t| t.default);
    macro_rules! keyed {
        ($new:expr, $with:expr) => {
            match backend {
                Some(b) => $with(b)?,
                None => $new?,
            }
        };
    }
    macro_rules! block {
        ($c:expr, $mode:expr) => {{
            let c = $c;
            let name = c.backend().name().to_string();
            if $mode == Mode::Mgm {
                (Mgm::new(c, tag)?.state_bytes(), name)
            } else {
                (c.state_bytes(), name)
            }
        }};
    }
    let per_process = |bytes: usize, name: &str| -> Result<(usize, String), BenchError> {
        match backend {
            Some(b) if b.name() != name => Err(BenchError::Unsupported(format!(
                "{}: its engine is chosen per process ({name} here)",
                alg.name
            ))),
            _ => Ok((bytes, name.to_string())),
        }
    };
    Ok(match plan {
        Plan::Block(Family::Aes, mode) => {
            block!(keyed!(Aes::new(&key), |b| Aes::with_backend(&key, b)), mode)
        }
        Plan::Block(Family::Tdes, mode) => {
            block!(
                keyed!(Tdes::new(&key), |b| Tdes::with_backend(&key, b)),
                mode
            )
        }
        Plan::Block(Family::Magma, mode) => block!(
            keyed!(Magma::new(&key), |b| Magma::with_backend(
                &key,
                SBox::Tc26Z,
                b
            )),
            mode
        ),
        Plan::Block(Family::Kuznyechik, mode) => block!(
            keyed!(Kuznyechik::new(&key), |b| Kuznyechik::with_backend(&key, b)),
            mode
        ),
        Plan::Block(Family::Gost28147(sbox), mode) => block!(
            keyed!(Gost28147::new(&key, sbox), |b| Gost28147::with_backend(
                &key, sbox, b
            )),
            mode
        ),
        Plan::Gcm => {
            let gcm = keyed!(AesGcm::new(&key, 16), |b| AesGcm::with_backend(&key, 16, b));
            (gcm.state_bytes(), gcm.backend().name().to_string())
        }
        Plan::ChaCha20 | Plan::XChaCha20 => {
            let c = ChaCha20::new(&key, &[0u8; 12], 0)?;
            let bytes = if plan == Plan::ChaCha20 {
                core::mem::size_of::<ChaCha20>()
            } else {
                core::mem::size_of::<XChaCha20>()
            };
            per_process(bytes, c.implementation())?
        }
        Plan::ChaCha20Poly1305 => per_process(
            core::mem::size_of::<ChaCha20Poly1305>(),
            alg.implementation(),
        )?,
        Plan::XChaCha20Poly1305 => per_process(
            core::mem::size_of::<XChaCha20Poly1305>(),
            alg.implementation(),
        )?,
    })
}

/// OpenSSL's chacha20 IV: a 32-bit little-endian block counter, then the 96-bit nonce.
fn openssl_chacha(key: &[u8], iv: &[u8]) -> Result<ChaCha20, BenchError> {
    let counter = u32::from_le_bytes([iv[0], iv[1], iv[2], iv[3]]);
    Ok(ChaCha20::new(key, &iv[4..], counter)?)
}

/// The backend name of a non-AES block cipher, as the catalogue reports it.
fn catalogue_backend(alg: &AlgInfo) -> String {
    alg.implementation().to_string()
}

fn block_op<C: KeyInit + 'static>(
    c: C,
    backend: String,
    alg: &'static AlgInfo,
    mode: Mode,
    iv: Vec<u8>,
    dir: Direction,
    engine: Option<Engine>,
) -> Result<Box<dyn Op>, BenchError> {
    if mode == Mode::Mgm {
        let tag_len = c.block_size();
        let mgm = Mgm::new(c, tag_len)?;
        return Ok(match engine {
            Some(engine) => Box::new(AeadOp::new(Split { aead: mgm, engine }, backend, iv, dir)),
            None => Box::new(AeadOp::new(mgm, backend, iv, dir)),
        });
    }
    let enc = dir == Direction::Encrypt;
    // The mode call is chosen here, once: each arm below is its own closure type, so a message
    // costs one call of that mode with no dispatch on the mode, engine or direction (each peer's
    // op is likewise one type per mode).
    if let Some(e) = engine {
        match mode {
            Mode::Ecb if enc => {
                return Ok(BlockOp::boxed(c, backend, iv, move |c, _, buf| {
                    e.ecb_encrypt(c, buf)
                }))
            }
            Mode::Ecb => {
                return Ok(BlockOp::boxed(c, backend, iv, move |c, _, buf| {
                    e.ecb_decrypt(c, buf)
                }))
            }
            Mode::Ctr => {
                return Ok(BlockOp::boxed(c, backend, iv, move |c, iv, buf| {
                    e.ctr_apply(c, iv, buf)
                }))
            }
            Mode::GostCtr => {
                // The initial counter block `IV || 0`, made once.
                let counter = ctr::gost_counter_block(&iv, c.block_size())?;
                return Ok(BlockOp::boxed(
                    c,
                    backend,
                    counter,
                    move |c, counter, buf| e.ctr_apply(c, counter, buf),
                ));
            }
            _ => {}
        }
    }
    let section = alg.section.unwrap_or(alg.block_size);
    let key_len = alg.key_len;
    let meshing = KeyMeshing::CryptoPro;
    Ok(match mode {
        Mode::Ecb if enc => BlockOp::boxed(c, backend, iv, |c, _, buf| ecb::encrypt(c, buf)),
        Mode::Ecb => BlockOp::boxed(c, backend, iv, |c, _, buf| ecb::decrypt(c, buf)),
        // The feedback modes carry their register from message to message (see `Chained`);
        // encryption through the library's chained calls, which update the register themselves.
        Mode::Cbc if enc => Chained::boxed(c, backend, iv, Carry::InPlace, |c, iv, buf| {
            cbc::encrypt_chained(c, iv, buf)
        }),
        Mode::Cbc => Chained::boxed(c, backend, iv, Carry::Input, |c, iv, buf| {
            cbc::decrypt(c, iv, buf)
        }),
        Mode::Cfb(s) if enc => Chained::boxed(c, backend, iv, Carry::InPlace, move |c, iv, buf| {
            cfb::encrypt_chained(c, iv, s, buf)
        }),
        Mode::Cfb(s) => Chained::boxed(c, backend, iv, Carry::Input, move |c, iv, buf| {
            cfb::decrypt(c, iv, s, buf)
        }),
        Mode::Ofb => Chained::boxed(c, backend, iv, Carry::InPlace, |c, iv, buf| {
            ofb::apply_chained(c, iv, buf)
        }),
        Mode::Ctr => BlockOp::boxed(c, backend, iv, |c, iv, buf| ctr::apply(c, iv, buf)),
        Mode::GostCtr => BlockOp::boxed(c, backend, iv, |c, iv, buf| ctr::apply_gost(c, iv, buf)),
        Mode::CtrAcpkm => BlockOp::boxed(c, backend, iv, move |c, iv, buf| {
            ctr_acpkm::apply_with_key_len(c, key_len, iv, section, buf)
        }),
        Mode::Gost89Cfb if enc => {
            Chained::boxed(c, backend, iv, Carry::Output, move |c, iv, buf| {
                gost89::cfb_encrypt(c, iv, meshing, buf)
            })
        }
        Mode::Gost89Cfb => Chained::boxed(c, backend, iv, Carry::Input, move |c, iv, buf| {
            gost89::cfb_decrypt(c, iv, meshing, buf)
        }),
        Mode::Gost89Cnt => BlockOp::boxed(c, backend, iv, move |c, iv, buf| {
            gost89::cnt_apply(c, iv, meshing, buf)
        }),
        Mode::Cmac => BlockOp::boxed(c, backend, iv, |c, _, buf| {
            // The tag in a stack block, as the peers' MACs return theirs (no allocation).
            let mut tag = [0u8; 16];
            let tag = tag
                .get_mut(..c.block_size())
                .ok_or(shifr::Error::InvalidParameter(
                    "OMAC needs a 64- or 128-bit block cipher",
                ))?;
            omac::omac_into(c, buf, tag)?;
            std::hint::black_box(tag);
            Ok(())
        }),
        Mode::OmacAcpkm => BlockOp::boxed(c, backend, iv, move |c, _, buf| {
            let tag = omac_acpkm::omac_acpkm_with_key_len(
                c,
                key_len,
                section,
                section,
                c.block_size(),
                buf,
            )?;
            std::hint::black_box(tag);
            Ok(())
        }),
        // Built as an AeadOp above.
        Mode::Mgm => return Err(BenchError::Invalid("MGM runs as an AEAD".into())),
    })
}

/// An AEAD sealed and opened through the engine (one message split over its threads).
struct Split<A> {
    aead: A,
    engine: Engine,
}

/// The engine's split calls for one AEAD type.
trait EngineSplit: Aead {
    fn split_seal(
        &self,
        e: &Engine,
        nonce: &[u8],
        aad: &[u8],
        data: &mut [u8],
    ) -> shifr::Result<Tag>;
    fn split_open(
        &self,
        e: &Engine,
        nonce: &[u8],
        aad: &[u8],
        data: &mut [u8],
        tag: &[u8],
    ) -> shifr::Result<()>;
}

/// Implements [`EngineSplit`] for an AEAD type with the engine's `seal` and `open` methods for it.
macro_rules! engine_split {
    (<$g:ident: $bound:path> $aead:ty, $seal:ident, $open:ident) => {
        engine_split!(@impl [<$g: $bound>] $aead, $seal, $open);
    };
    ($aead:ty, $seal:ident, $open:ident) => {
        engine_split!(@impl [] $aead, $seal, $open);
    };
    (@impl [$($generics:tt)*] $aead:ty, $seal:ident, $open:ident) => {
        impl $($generics)* EngineSplit for $aead {
            fn split_seal(
                &self,
                e: &Engine,
                nonce: &[u8],
                aad: &[u8],
                data: &mut [u8],
            ) -> shifr::Result<Tag> {
                e.$seal(self, nonce, aad, data)
            }
            fn split_open(
                &self,
                e: &Engine,
                nonce: &[u8],
                aad: &[u8],
                data: &mut [u8],
                tag: &[u8],
            ) -> shifr::Result<()> {
                e.$open(self, nonce, aad, data, tag)
            }
        }
    };
}

engine_split!(AesGcm, gcm_seal, gcm_open);
engine_split!(<C: BlockCipher> Mgm<C>, mgm_seal, mgm_open);
engine_split!(
    ChaCha20Poly1305,
    chacha20poly1305_seal,
    chacha20poly1305_open
);
engine_split!(
    XChaCha20Poly1305,
    xchacha20poly1305_seal,
    xchacha20poly1305_open
);

impl<A: EngineSplit> Aead for Split<A> {
    fn tag_len(&self) -> usize {
        self.aead.tag_len()
    }

    fn nonce_len_desc(&self) -> &'static str {
        self.aead.nonce_len_desc()
    }

    fn seal(&self, nonce: &[u8], aad: &[u8], data: &mut [u8]) -> shifr::Result<Tag> {
        self.aead.split_seal(&self.engine, nonce, aad, data)
    }

    fn open(&self, nonce: &[u8], aad: &[u8], data: &mut [u8], tag: &[u8]) -> shifr::Result<()> {
        self.aead.split_open(&self.engine, nonce, aad, data, tag)
    }
}

/// ChaCha20 through the engine: each message is split over its threads. The key stream continues
/// from message to message at whole blocks (a message of `len` bytes uses `ceil(len / 64)`
/// blocks), so the first message equals the streaming op's; at the end of the 32-bit counter it
/// starts over from the IV's counter, as [`StreamOp`] does.
struct SplitChaCha {
    engine: Engine,
    backend: String,
    key: Vec<u8>,
    iv: Vec<u8>,
    /// The block counter the next message starts at.
    counter: u64,
}

impl SplitChaCha {
    fn new(engine: Engine, cipher: ChaCha20, key: Vec<u8>, iv: Vec<u8>) -> SplitChaCha {
        SplitChaCha {
            engine,
            backend: cipher.implementation().to_string(),
            counter: u64::from(Self::first_counter(&iv)),
            key,
            iv,
        }
    }

    /// OpenSSL's IV layout: the 32-bit little-endian block counter first.
    fn first_counter(iv: &[u8]) -> u32 {
        u32::from_le_bytes([iv[0], iv[1], iv[2], iv[3]])
    }
}

impl Op for SplitChaCha {
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        let blocks = buf.len().div_ceil(64) as u64;
        if self.counter + blocks > 1 << 32 {
            self.counter = u64::from(Self::first_counter(&self.iv));
        }
        // Below 2^32: a message the counter space cannot hold fails in the call below.
        let counter = u32::try_from(self.counter).unwrap_or(u32::MAX);
        self.engine
            .chacha20_apply(&self.key, &self.iv[4..], counter, buf)?;
        self.counter += blocks;
        Ok(())
    }

    fn backend(&self) -> String {
        self.backend.clone()
    }
}

/// A block cipher in a mode, keyed once: `step` is the mode call (cipher, IV, message), fixed at
/// construction by [`block_op`].
struct BlockOp<C, F> {
    cipher: C,
    backend: String,
    iv: Vec<u8>,
    step: F,
}

impl<C, F> BlockOp<C, F>
where
    C: Send + 'static,
    F: Fn(&C, &[u8], &mut [u8]) -> shifr::Result<()> + Send + 'static,
{
    fn boxed(cipher: C, backend: String, iv: Vec<u8>, step: F) -> Box<dyn Op> {
        Box::new(BlockOp {
            cipher,
            backend,
            iv,
            step,
        })
    }
}

impl<C, F> Op for BlockOp<C, F>
where
    C: Send,
    F: Fn(&C, &[u8], &mut [u8]) -> shifr::Result<()> + Send,
{
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        Ok((self.step)(&self.cipher, &self.iv, buf)?)
    }

    fn backend(&self) -> String {
        self.backend.clone()
    }
}

/// Where a feedback mode's register for the next message comes from.
#[derive(Clone, Copy)]
enum Carry {
    /// CBC / CFB encryption: the register shifts in the ciphertext, which is the output.
    Output,
    /// CBC / CFB decryption: the ciphertext is the input.
    Input,
    /// CBC / CFB encryption, OFB: the mode call updates the register itself (the library's
    /// `encrypt_chained` / `apply_chained`).
    InPlace,
}

/// A feedback mode (CBC, CFB, OFB) keyed once whose chain continues from message to message, as the
/// peers' contexts (OpenSSL's `EVP_CIPHER_CTX`, RustCrypto's mode structs) continue theirs: after a
/// message the register holds the last `m` bytes of `register || ciphertext` (CBC, CFB) or of the
/// key stream (OFB, one block per block of the message), so consecutive messages form one chain and the CPU cannot overlap them, exactly
/// as for the peers. (Starting every message from the same IV would make messages independent and
/// flatter short-message figures.) Same work per message otherwise: one mode call.
struct Chained<C, F> {
    cipher: C,
    backend: String,
    register: Vec<u8>,
    carry: Carry,
    /// The next register, made before the call where it depends on the input.
    next: Vec<u8>,
    step: F,
}

impl<C, F> Chained<C, F>
where
    C: BlockCipher + Send + 'static,
    F: Fn(&C, &mut [u8], &mut [u8]) -> shifr::Result<()> + Send + 'static,
{
    fn boxed(cipher: C, backend: String, register: Vec<u8>, carry: Carry, step: F) -> Box<dyn Op> {
        let next = register.clone();
        Box::new(Chained {
            cipher,
            backend,
            register,
            carry,
            next,
            step,
        })
    }
}

impl<C, F> Op for Chained<C, F>
where
    C: BlockCipher + Send,
    F: Fn(&C, &mut [u8], &mut [u8]) -> shifr::Result<()> + Send,
{
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        if let Carry::Input = self.carry {
            shift_in(&mut self.next, &self.register);
            shift_in(&mut self.next, buf);
        }
        (self.step)(&self.cipher, &mut self.register, buf)?;
        match self.carry {
            Carry::Output => shift_in(&mut self.register, buf),
            Carry::Input => shift_in(&mut self.register, &self.next),
            Carry::InPlace => {}
        }
        Ok(())
    }

    fn backend(&self) -> String {
        self.backend.clone()
    }
}

/// A keyed AEAD sealing (or opening) one whole message per call.
struct AeadOp<A> {
    aead: A,
    backend: String,
    nonce: Vec<u8>,
    aad: [u8; super::AAD_LEN],
    dir: Direction,
    /// For decryption: a sealed message of the last buffer length and its tag.
    sealed: Option<(Vec<u8>, Vec<u8>)>,
}

impl<A: Aead> AeadOp<A> {
    fn new(aead: A, backend: String, nonce: Vec<u8>, dir: Direction) -> Self {
        AeadOp {
            aead,
            backend,
            nonce,
            aad: bench_aad(),
            dir,
            sealed: None,
        }
    }
}

impl<A: Aead> Op for AeadOp<A> {
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
        self.backend.clone()
    }
}

/// A streaming stream cipher: the key stream continues from call to call. When the 32-bit block
/// counter would wrap (after 256 GiB), the instance is re-keyed from the start, outside no timing
/// guarantee (it happens at most once per 256 GiB).
enum StreamOp {
    ChaCha(ChaCha20, Vec<u8>, Vec<u8>),
    XChaCha(XChaCha20, Vec<u8>, Vec<u8>),
}

impl Op for StreamOp {
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        match self {
            StreamOp::ChaCha(c, key, iv) => {
                if c.remaining_bytes() < buf.len() as u64 {
                    *c = openssl_chacha(key, iv)?;
                }
                c.apply_keystream(buf)?;
            }
            StreamOp::XChaCha(c, key, iv) => {
                if c.remaining_bytes() < buf.len() as u64 {
                    *c = XChaCha20::new(key, iv, 0)?;
                }
                c.apply_keystream(buf)?;
            }
        }
        Ok(())
    }

    fn backend(&self) -> String {
        match self {
            StreamOp::ChaCha(c, ..) => c.implementation().to_string(),
            StreamOp::XChaCha(c, ..) => c.implementation().to_string(),
        }
    }
}

/// Multi-stream feedback mode: one keyed cipher and IV per stream, all streams in one call.
fn multistream_op(w: &Workload, family: Family, mode: Mode) -> Result<Box<dyn Op>, BenchError> {
    let keys: Vec<Vec<u8>> = (0..w.streams)
        .map(|i| bench_key(w.alg.key_len, i))
        .collect();
    let ivs: Vec<Vec<u8>> = (0..w.streams)
        .map(|i| bench_iv(w.alg.block_size, i))
        .collect();
    fn make<C: BlockCipher + 'static>(
        ciphers: Vec<C>,
        backend: String,
        ivs: Vec<Vec<u8>>,
        mode: Mode,
        dir: Direction,
    ) -> Box<dyn Op> {
        Box::new(MultiOp {
            ciphers,
            backend,
            ivs,
            mode,
            dir,
        })
    }
    let b = catalogue_backend(w.alg);
    let (m, d) = (mode, w.direction);
    Ok(match family {
        Family::Aes => {
            let ciphers = keys
                .iter()
                .map(|k| aes(w, k))
                .collect::<Result<Vec<_>, _>>()?;
            let backend = ciphers[0].backend().name().to_string();
            make(ciphers, backend, ivs, m, d)
        }
        Family::Tdes => make(collect(&keys, Tdes::new)?, b, ivs, m, d),
        Family::Magma => make(collect(&keys, Magma::new)?, b, ivs, m, d),
        Family::Kuznyechik => make(collect(&keys, Kuznyechik::new)?, b, ivs, m, d),
        Family::Gost28147(s) => make(collect(&keys, |k| Gost28147::new(k, s))?, b, ivs, m, d),
    })
}

fn collect<C>(
    keys: &[Vec<u8>],
    f: impl Fn(&[u8]) -> shifr::Result<C>,
) -> Result<Vec<C>, BenchError> {
    Ok(keys
        .iter()
        .map(|k| f(k))
        .collect::<shifr::Result<Vec<C>>>()?)
}

struct MultiOp<C> {
    ciphers: Vec<C>,
    backend: String,
    ivs: Vec<Vec<u8>>,
    mode: Mode,
    dir: Direction,
}

impl<C: BlockCipher> Op for MultiOp<C> {
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        let n = self.ciphers.len();
        let align = self.ciphers[0].block_size();
        let refs: Vec<&C> = self.ciphers.iter().collect();
        let ivs: Vec<&[u8]> = self.ivs.iter().map(Vec::as_slice).collect();
        let mut parts: Vec<&mut [u8]> = Vec::with_capacity(n);
        let mut rest = buf;
        for len in super::split(rest.len(), n, align) {
            let (part, tail) = rest.split_at_mut(len);
            parts.push(part);
            rest = tail;
        }
        let enc = self.dir == Direction::Encrypt;
        match self.mode {
            Mode::Cbc if enc => multistream::cbc_encrypt(&refs, &ivs, &mut parts)?,
            Mode::Cbc => multistream::cbc_decrypt(&refs, &ivs, &mut parts)?,
            Mode::Cfb(_) if enc => multistream::cfb_encrypt(&refs, &ivs, &mut parts)?,
            Mode::Cfb(_) => multistream::cfb_decrypt(&refs, &ivs, &mut parts)?,
            _ => {
                let msgs: Vec<&[u8]> = parts.iter().map(|p| &**p).collect();
                std::hint::black_box(multistream::omac(&refs, &msgs, align)?);
            }
        }
        Ok(())
    }

    fn backend(&self) -> String {
        self.backend.clone()
    }
}

/// The catalogue's one-shot call, for names this module does not map (counts the key schedule).
struct OneShot {
    alg: &'static AlgInfo,
    key: Vec<u8>,
    iv: Vec<u8>,
    dir: Direction,
    scratch: Vec<u8>,
}

impl OneShot {
    fn new(w: &Workload, stream: usize) -> OneShot {
        OneShot {
            alg: w.alg,
            key: bench_key(w.alg.key_len, stream),
            iv: bench_iv(w.alg.iv.default_len(), stream),
            dir: w.direction,
            scratch: Vec::new(),
        }
    }
}

impl Op for OneShot {
    fn run(&mut self, buf: &mut [u8]) -> Result<(), BenchError> {
        let aad = bench_aad();
        let params = Params {
            iv: &self.iv,
            aad: if self.alg.kind == Kind::Aead {
                &aad
            } else {
                &[]
            },
            nopad: true,
            ..Params::default()
        };
        let mut data = std::mem::take(&mut self.scratch);
        data.clear();
        data.extend_from_slice(buf);
        if self.dir == Direction::Decrypt && self.alg.tag.is_none() {
            data = self.alg.decrypt(&self.key, &params, data, None)?;
        } else {
            let out = self.alg.encrypt(&self.key, &params, data)?;
            std::hint::black_box(&out.tag);
            data = out.data;
        }
        let n = data.len().min(buf.len());
        buf[..n].copy_from_slice(&data[..n]);
        self.scratch = data;
        Ok(())
    }

    fn backend(&self) -> String {
        format!("{}+keysetup", self.alg.implementation())
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
            assert!(plan(alg).is_some(), "{} has no keyed mapping", alg.name);
            for len in [64usize, 1040] {
                let input: Vec<u8> = (0..len).map(|i| (i * 7 + 1) as u8).collect();
                let mut ours = input.clone();
                let mut op = shifr_op(&Workload::new(alg, len)).unwrap();
                op.run(&mut ours).unwrap();
                let key = bench_key(alg.key_len, 0);
                let iv = bench_iv(alg.iv.default_len(), 0);
                let aad = bench_aad();
                let params = Params {
                    iv: &iv,
                    aad: if alg.kind == Kind::Aead { &aad } else { &[] },
                    nopad: true,
                    ..Params::default()
                };
                let theirs = alg.encrypt(&key, &params, input.clone()).unwrap();
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
                .map(|i| single_op(&Workload::new(alg, 64), plan(alg).unwrap(), i).unwrap())
                .collect();
            Sequential::new(ops, alg.block_size)
                .run(&mut single)
                .unwrap();
            assert_eq!(multi, single, "{name}");
            assert_ne!(multi, input);
        }
    }
}
