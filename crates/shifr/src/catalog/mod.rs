//! The algorithm catalogue: every name shifr offers, OpenSSL-style (`aes-128-cbc`, `magma-ctr`, ...),
//! with its sizes, its object ([`object::Algorithm`]: keyed once, then one call per message) and one
//! uniform one-shot call over that object. It is the one door from the tools into the library:
//! `shifr list`, `cipher` and `bench`, the TLS provider and the Python package look names up here.
//!
//! Where OpenSSL 3 (with the gost engine) offers a name through `openssl enc`, the same name here
//! takes the same key and IV bytes and produces byte-identical output (`openssl enc -nopad`), with
//! PKCS#7 padding by default for ECB and CBC as `openssl enc` does. The observed OpenSSL behaviour
//! that fixed each choice (IV sizes, ACPKM section sizes, S-boxes, refused names) is written down
//! next to the entries, in `catalog/table.rs`.
//!
//! Names that OpenSSL does not offer (AEADs, which `openssl enc` refuses; Magma ECB/OFB/CFB; MGM;
//! ACPKM with AES; OMAC-ACPKM) follow the standard that defines them.

mod exec;
pub mod object;
mod table;

use crate::cpu::Backend;
use crate::parallel::Engine;
use crate::{Error, Result};
use object::{Algorithm, Cipher, KeyStream, KeyedAead, Mac, MultiStream, Setup};

/// What an algorithm does with its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A block cipher in a mode of operation (ECB, CBC, CFB, OFB, CTR, CTR-ACPKM).
    BlockMode,
    /// A stream cipher (ChaCha20, XChaCha20).
    Stream,
    /// Authenticated encryption with associated data.
    Aead,
    /// A message authentication code: "encryption" produces the tag only.
    Mac,
}

impl Kind {
    /// Short lowercase name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Kind::BlockMode => "block mode",
            Kind::Stream => "stream",
            Kind::Aead => "aead",
            Kind::Mac => "mac",
        }
    }
}

/// Which IV (nonce, initial counter block, shift register) lengths an algorithm accepts, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IvSpec {
    /// No IV (ECB, MACs).
    None,
    /// Exactly this many bytes.
    Exact(usize),
    /// A GOST R 34.13 shift register of `m = z*n` bytes, `z >= 1`; the value is `n`, which is what
    /// OpenSSL's gost engine uses (`z = 1`).
    MultipleOf(usize),
    /// Any length of at least this many bytes (GCM: 12 is the default and the fast path).
    AtLeast(usize),
}

impl IvSpec {
    /// Whether an IV of `len` bytes is acceptable.
    pub fn accepts(self, len: usize) -> bool {
        match self {
            IvSpec::None => len == 0,
            IvSpec::Exact(n) => len == n,
            IvSpec::MultipleOf(n) => len >= n && len.is_multiple_of(n),
            IvSpec::AtLeast(n) => len >= n,
        }
    }

    /// The usual IV length (0 when there is none).
    pub fn default_len(self) -> usize {
        match self {
            IvSpec::None => 0,
            IvSpec::Exact(n) | IvSpec::MultipleOf(n) => n,
            IvSpec::AtLeast(_) => 12,
        }
    }

    /// The accepted lengths as text, for errors and `shifr list`.
    pub fn describe(self) -> &'static str {
        match self {
            IvSpec::None => "0 (no IV)",
            IvSpec::Exact(n) => table::num(n),
            IvSpec::MultipleOf(8) => "8 or a multiple of 8",
            IvSpec::MultipleOf(16) => "16 or a multiple of 16",
            IvSpec::MultipleOf(_) => "a multiple of the block size",
            IvSpec::AtLeast(_) => "at least 1 (12 recommended)",
        }
    }
}

/// Tag lengths an AEAD or MAC accepts, in bytes: any length in `min..=max`, `default` when not chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TagSpec {
    /// The tag length used when none is requested.
    pub default: usize,
    /// Shortest accepted tag.
    pub min: usize,
    /// Longest accepted tag.
    pub max: usize,
}

impl TagSpec {
    /// Whether a tag of `len` bytes is acceptable.
    pub fn accepts(self, len: usize) -> bool {
        (self.min..=self.max).contains(&len)
    }

    /// The accepted lengths as text, for errors.
    pub fn describe(self) -> &'static str {
        match (self.min, self.max) {
            (16, 16) => "16",
            (12, 16) => "12 to 16",
            (1, 16) => "1 to 16",
            (1, 8) => "1 to 8",
            (4, 16) => "4 to 16",
            (4, 8) => "4 to 8",
            _ => "see `shifr list`",
        }
    }
}

/// Padding applied on encryption and removed on decryption unless `nopad` is requested.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Padding {
    /// No padding: the mode handles any length (stream-like modes, AEADs, MACs).
    None,
    /// PKCS#7 to a whole block, as `openssl enc` does by default for ECB and CBC.
    Pkcs7,
}

/// One catalogue entry.
#[derive(Debug, Clone, Copy)]
pub struct AlgInfo {
    /// The OpenSSL-style name.
    pub name: &'static str,
    /// What the algorithm does.
    pub kind: Kind,
    /// Key length in bytes.
    pub key_len: usize,
    /// Accepted IV / nonce lengths.
    pub iv: IvSpec,
    /// Tag lengths for AEADs and MACs.
    pub tag: Option<TagSpec>,
    /// The underlying block size in bytes (1 for stream ciphers); with [`Padding::Pkcs7`] and
    /// `nopad`, input must be a multiple of it.
    pub block_size: usize,
    /// Default padding.
    pub padding: Padding,
    /// CTR-ACPKM / OMAC-ACPKM section size in bytes (the default; [`Params::section`] overrides it).
    pub section: Option<usize>,
    /// One line for `shifr list`.
    pub description: &'static str,
    /// The object that keys it.
    pub algorithm: Algorithm,
}

/// What a keyed instance is built with besides the key; `None` / empty fields take the entry's
/// defaults.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Force a backend (one the primitive lacks falls back to its default; the keyed object
    /// reports which one runs).
    pub backend: Option<Backend>,
    /// Spread each large message over this engine's threads, where the entry
    /// [`AlgInfo::splits`].
    pub engine: Option<Engine>,
    /// Tag length (AEADs and MACs); `None` = the entry's default.
    pub tag_len: Option<usize>,
    /// ACPKM section size, as [`Params::section`].
    pub section: Option<usize>,
    /// OMAC-ACPKM master section size, as [`Params::master_section`].
    pub master_section: Option<usize>,
}

/// The per-call inputs besides the key and the data.
#[derive(Debug, Clone, Copy, Default)]
pub struct Params<'a> {
    /// IV / nonce / initial counter block / shift register; empty when the algorithm takes none.
    pub iv: &'a [u8],
    /// Associated data (AEADs only).
    pub aad: &'a [u8],
    /// Tag length (AEADs and MACs); `None` = the algorithm's default, or the given tag's length.
    pub tag_len: Option<usize>,
    /// Disable the default padding (ECB/CBC): the input must then be block aligned.
    pub nopad: bool,
    /// Section size in bytes for the ACPKM algorithms (CTR-ACPKM: key change period; OMAC-ACPKM: the
    /// message section `N`); `None` = [`AlgInfo::section`].
    pub section: Option<usize>,
    /// OMAC-ACPKM only: the section `T*` of the CTR-ACPKM run that derives the section keys
    /// (ACPKM-Master); `None` = the message section size.
    pub master_section: Option<usize>,
}

/// The result of [`AlgInfo::encrypt`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// The ciphertext (empty for a MAC).
    pub data: Vec<u8>,
    /// The tag (AEADs and MACs; empty otherwise).
    pub tag: Vec<u8>,
}

/// Every algorithm shifr offers, in `shifr list` order.
pub fn all() -> &'static [AlgInfo] {
    &table::ALGORITHMS
}

/// Finds an algorithm by name (case-insensitive).
pub fn lookup(name: &str) -> Result<&'static AlgInfo> {
    all()
        .iter()
        .find(|a| a.name.eq_ignore_ascii_case(name.trim()))
        .ok_or_else(|| Error::UnknownAlgorithm(name.to_string()))
}

impl AlgInfo {
    /// The key length as text, for errors.
    pub fn key_len_desc(&self) -> &'static str {
        table::num(self.key_len)
    }

    /// The implementation that would run this algorithm on this machine (honouring `SHIFR_BACKEND`):
    /// `"avx512"`, `"vaes"`, `"aesni"` or `"portable"` for AES-based names, `"avx512"`, `"avx2"`,
    /// `"sse2"` or `"portable"` for the ChaCha20 family, `"portable"` otherwise. Asked of the primitive itself, keyed with zeros.
    pub fn implementation(&self) -> &'static str {
        exec::implementation(self)
    }

    /// Encrypts (or, for a MAC, authenticates) `data`.
    ///
    /// Block modes and stream ciphers return the ciphertext (padded with PKCS#7 for ECB/CBC unless
    /// `params.nopad`); AEADs return the ciphertext and the tag; MACs return only the tag.
    pub fn encrypt(&self, key: &[u8], params: &Params<'_>, data: Vec<u8>) -> Result<Output> {
        self.check_common(key, params)?;
        if self.tag.is_some() {
            self.tag_len(params, None)?;
        }
        exec::encrypt(self, key, params, data)
    }

    /// The keyed AEAD of an AEAD entry, to seal and open many messages in place under one key
    /// without the one-shot calls' copies: the same bytes as [`Self::encrypt`] and [`Self::decrypt`]
    /// with the same nonce, associated data and tag length. `tag_len` is `None` for the entry's
    /// default. Errors: not an AEAD, a key or tag length the entry does not accept.
    pub fn aead(&self, key: &[u8], tag_len: Option<usize>) -> Result<Box<dyn KeyedAead>> {
        self.keyed_aead(
            key,
            &Options {
                tag_len,
                ..Options::default()
            },
        )
    }

    /// [`Self::aead`] with every keying option.
    pub fn keyed_aead(&self, key: &[u8], options: &Options) -> Result<Box<dyn KeyedAead>> {
        let Algorithm::Aead(a) = self.algorithm else {
            return Err(Error::InvalidParameter("this algorithm is not an AEAD"));
        };
        a.key(self.check_key(key)?, &self.setup(options)?)
    }

    /// The keyed block mode of a block-mode entry, serving many messages ([`Cipher::encrypt`]
    /// without padding: `nopad` bytes). Errors: not a block mode, a key length the entry does not
    /// accept.
    pub fn cipher(&self, key: &[u8], options: &Options) -> Result<Box<dyn Cipher>> {
        let Algorithm::BlockMode(m) = self.algorithm else {
            return Err(Error::InvalidParameter(
                "this algorithm is not a block mode",
            ));
        };
        m.key(self.check_key(key)?, &self.setup(options)?)
    }

    /// The key stream of a stream-cipher entry for `key` and `iv`.
    pub fn stream(&self, key: &[u8], iv: &[u8], options: &Options) -> Result<Box<dyn KeyStream>> {
        let Algorithm::Stream(s) = self.algorithm else {
            return Err(Error::InvalidParameter(
                "this algorithm is not a stream cipher",
            ));
        };
        if !self.iv.accepts(iv.len()) {
            return Err(Error::InvalidIvLength {
                expected: self.iv.describe(),
                got: iv.len(),
            });
        }
        s.start(self.check_key(key)?, iv, &self.setup(options)?)
    }

    /// The keyed MAC of a MAC entry.
    pub fn mac(&self, key: &[u8], options: &Options) -> Result<Box<dyn Mac>> {
        let Algorithm::Mac(m) = self.algorithm else {
            return Err(Error::InvalidParameter("this algorithm is not a MAC"));
        };
        m.key(self.check_key(key)?, &self.setup(options)?)
    }

    /// One keyed instance per key, run side by side (CBC, full-block CFB and OMAC; `None` for the
    /// entries without a multi-stream form).
    pub fn multistream(
        &self,
        keys: &[&[u8]],
        options: &Options,
    ) -> Result<Option<Box<dyn MultiStream>>> {
        for k in keys {
            self.check_key(k)?;
        }
        let setup = self.setup(options)?;
        match self.algorithm {
            Algorithm::BlockMode(m) => m.key_streams(keys, &setup),
            Algorithm::Mac(m) => m.key_streams(keys, &setup),
            Algorithm::Stream(_) | Algorithm::Aead(_) => Ok(None),
        }
    }

    /// Whether [`Options::engine`] splits one message of this entry over threads.
    pub fn splits(&self) -> bool {
        self.algorithm.splits()
    }

    fn check_key<'k>(&self, key: &'k [u8]) -> Result<&'k [u8]> {
        if key.len() != self.key_len {
            return Err(Error::InvalidKeyLength {
                expected: self.key_len_desc(),
                got: key.len(),
            });
        }
        Ok(key)
    }

    /// The keying options with the entry's defaults filled in and checked.
    fn setup(&self, options: &Options) -> Result<Setup> {
        let tag_len = match self.tag {
            Some(_) => self.tag_len(
                &Params {
                    tag_len: options.tag_len,
                    ..Params::default()
                },
                None,
            )?,
            None if options.tag_len.is_some() => {
                return Err(Error::InvalidParameter(
                    "a tag length is only accepted by AEAD and MAC algorithms",
                ))
            }
            None => 0,
        };
        let section = options.section.or(self.section).unwrap_or(self.block_size);
        Ok(Setup {
            backend: options.backend,
            tag_len,
            section,
            master_section: options.master_section.unwrap_or(section),
            engine: options.engine.clone().filter(|_| self.splits()),
        })
    }

    /// Decrypts (or, for a MAC, verifies) `data`.
    ///
    /// For AEADs and MACs the tag is `tag`, or else the last tag-length bytes of `data`; it is
    /// verified before any plaintext is returned. A MAC returns the verified message.
    pub fn decrypt(
        &self,
        key: &[u8],
        params: &Params<'_>,
        data: Vec<u8>,
        tag: Option<&[u8]>,
    ) -> Result<Vec<u8>> {
        self.check_common(key, params)?;
        exec::decrypt(self, key, params, data, tag)
    }

    /// The tag length a call uses: the requested one, else the given tag's, else the default.
    fn tag_len(&self, params: &Params<'_>, given: Option<&[u8]>) -> Result<usize> {
        let spec = self
            .tag
            .ok_or(Error::InvalidParameter("this algorithm has no tag"))?;
        let len = match (params.tag_len, given) {
            (Some(want), Some(t)) if want != t.len() => {
                return Err(Error::InvalidTagLength {
                    expected: "the requested tag length",
                    got: t.len(),
                })
            }
            (Some(want), _) => want,
            (None, Some(t)) => t.len(),
            (None, None) => spec.default,
        };
        if !spec.accepts(len) {
            return Err(Error::InvalidTagLength {
                expected: spec.describe(),
                got: len,
            });
        }
        Ok(len)
    }

    /// Checks everything that does not depend on the mode's own code: key, IV, AAD, tag length,
    /// section size applicability.
    fn check_common(&self, key: &[u8], params: &Params<'_>) -> Result<()> {
        if key.len() != self.key_len {
            return Err(Error::InvalidKeyLength {
                expected: self.key_len_desc(),
                got: key.len(),
            });
        }
        if !self.iv.accepts(params.iv.len()) {
            let got = params.iv.len();
            return Err(if self.kind == Kind::Aead {
                Error::InvalidNonceLength {
                    expected: self.iv.describe(),
                    got,
                }
            } else {
                Error::InvalidIvLength {
                    expected: self.iv.describe(),
                    got,
                }
            });
        }
        if !params.aad.is_empty() && self.kind != Kind::Aead {
            return Err(Error::InvalidParameter(
                "associated data is only accepted by AEAD algorithms",
            ));
        }
        if params.tag_len.is_some() && self.tag.is_none() {
            return Err(Error::InvalidParameter(
                "a tag length is only accepted by AEAD and MAC algorithms",
            ));
        }
        if params.section.is_some() && self.section.is_none() {
            return Err(Error::InvalidParameter(
                "a section size is only accepted by the ACPKM algorithms",
            ));
        }
        // OMAC-ACPKM is the one MAC with a section.
        if params.master_section.is_some() && !(self.kind == Kind::Mac && self.section.is_some()) {
            return Err(Error::InvalidParameter(
                "a master section size is only accepted by OMAC-ACPKM",
            ));
        }
        for s in [params.section, params.master_section]
            .into_iter()
            .flatten()
        {
            if s == 0 || !s.is_multiple_of(self.block_size) {
                return Err(Error::InvalidParameter(
                    "the ACPKM section size must be a non-zero multiple of the block size",
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
