//! A block cipher in a mode of operation as one catalogue object ([`BlockMode`]): keyed once, then
//! one mode call per message, chosen by a `match` per message (never per block).

use super::gost89::{self, KeyMeshing};
use super::{cbc, cfb, ctr, ctr_acpkm, ecb, multistream, ofb};
use crate::block::{BlockAlgorithm, BlockCipher, KeyInit};
use crate::catalog::object::{BlockModeAlgorithm, Cipher, MultiStream, Setup};
use crate::parallel::Engine;
use crate::util::{carry_input, shift_in};
use crate::{Error, Result};

/// The mode of a [`BlockMode`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// ECB.
    Ecb,
    /// CBC (register = the IV, one block or a GOST R 34.13 multiple).
    Cbc,
    /// CFB with `segment` bytes per step (register = the IV).
    Cfb {
        /// Bytes per step.
        segment: usize,
    },
    /// OFB.
    Ofb,
    /// SP 800-38A counter: the IV is the whole initial counter block.
    Ctr,
    /// GOST R 34.13 counter: the IV is half a block.
    GostCtr,
    /// CTR-ACPKM (R 1323565.1.017-2018, RFC 8645): GOST counter re-keyed every section.
    CtrAcpkm,
    /// GOST 28147-89 CFB with CryptoPro key meshing (OpenSSL `gost89`).
    Gost89Cfb,
    /// GOST 28147-89 counter mode with CryptoPro key meshing (OpenSSL `gost89-cnt`).
    Gost89Cnt,
}

impl Mode {
    /// Whether [`Engine`] splits one message of this mode over threads.
    fn splits(self) -> bool {
        matches!(self, Mode::Ecb | Mode::Ctr | Mode::GostCtr)
    }
}

/// A block cipher in a mode, as a catalogue entry's object.
#[derive(Debug)]
pub struct BlockMode<A> {
    /// The block cipher.
    pub cipher: A,
    /// The mode.
    pub mode: Mode,
}

impl<A: BlockAlgorithm> BlockModeAlgorithm for BlockMode<A> {
    fn key(&self, key: &[u8], setup: &Setup) -> Result<Box<dyn Cipher>> {
        let cipher = self.cipher.key(key, setup.backend)?;
        let engine = setup.engine.clone().filter(|_| self.mode.splits());
        let backend = A::backend(&cipher).name();
        let fast = match self.mode {
            _ if engine.is_some() => Fast::None,
            Mode::Ecb => return Ok(Box::new(KeyedEcb { cipher, backend })),
            Mode::Ctr => Fast::Ctr,
            Mode::GostCtr => Fast::GostCtr,
            _ => Fast::None,
        };
        Ok(Box::new(Keyed {
            fast,
            backend,
            cipher,
            mode: self.mode,
            key_len: key.len(),
            section: setup.section,
            engine,
        }))
    }

    fn key_streams(&self, keys: &[&[u8]], setup: &Setup) -> Result<Option<Box<dyn MultiStream>>> {
        let feedback = match self.mode {
            Mode::Cbc => Feedback::Cbc,
            Mode::Cfb { segment } if segment == A::BLOCK_SIZE => Feedback::Cfb,
            _ => return Ok(None),
        };
        let ciphers = keys
            .iter()
            .map(|k| self.cipher.key(k, setup.backend))
            .collect::<Result<Vec<_>>>()?;
        let backend = ciphers.first().map_or("portable", |c| A::backend(c).name());
        Ok(Some(Box::new(Streams {
            ciphers,
            feedback,
            backend,
        })))
    }

    fn splits(&self) -> bool {
        self.mode.splits()
    }
}

/// The straight path of a keyed [`BlockMode`], decided at key setup: CTR (either counter block
/// form) without an engine, whose short messages cost little more than the call itself. (ECB
/// without an engine has an object of its own, [`KeyedEcb`].)
#[derive(Clone, Copy)]
enum Fast {
    Ctr,
    GostCtr,
    None,
}

/// A keyed [`BlockMode`].
struct Keyed<C> {
    fast: Fast,
    cipher: C,
    backend: &'static str,
    mode: Mode,
    /// The key length, for CTR-ACPKM's re-keying.
    key_len: usize,
    section: usize,
    /// Set for the modes that split only.
    engine: Option<Engine>,
}

impl<C: KeyInit> Keyed<C> {
    /// The mode call for one message: CTR without an engine ([`Fast`], decided at key setup)
    /// straight to its mode function, everything else through the out-of-line
    /// [`Keyed::apply_general`], whose larger frame and mode dispatch a short CTR message then
    /// does not pay. Every arm ends in a call returning the same `Result`, so all arms are tail
    /// calls and the entry points need no frame of their own.
    #[inline(always)]
    fn apply(&self, encrypt: bool, iv: &[u8], data: &mut [u8]) -> Result<()> {
        match self.fast {
            Fast::Ctr => self.apply_ctr(iv, data),
            Fast::GostCtr => self.apply_gost_ctr(iv, data),
            Fast::None => self.apply_general(encrypt, iv, data),
        }
    }

    /// CTR out of line: its counter block on the stack would otherwise give every entry point a
    /// frame.
    #[inline(never)]
    fn apply_ctr(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        ctr::apply(&self.cipher, iv, data)
    }

    /// GOST CTR out of line, as [`Keyed::apply_ctr`].
    #[inline(never)]
    fn apply_gost_ctr(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        ctr::apply_gost(&self.cipher, iv, data)
    }

    #[inline(never)]
    fn apply_general(&self, encrypt: bool, iv: &[u8], data: &mut [u8]) -> Result<()> {
        let c = &self.cipher;
        if let Some(e) = &self.engine {
            return match self.mode {
                Mode::Ecb if encrypt => e.ecb_encrypt(c, data),
                Mode::Ecb => e.ecb_decrypt(c, data),
                Mode::GostCtr => {
                    e.ctr_apply(c, &ctr::gost_counter_block(iv, c.block_size())?, data)
                }
                // Mode::Ctr: an engine is kept only for the modes that split.
                _ => e.ctr_apply(c, iv, data),
            };
        }
        let meshing = KeyMeshing::CryptoPro;
        match self.mode {
            Mode::Ecb if encrypt => ecb::encrypt(c, data),
            Mode::Ecb => ecb::decrypt(c, data),
            Mode::Cbc if encrypt => cbc::encrypt(c, iv, data),
            Mode::Cbc => cbc::decrypt(c, iv, data),
            Mode::Cfb { segment } if encrypt => cfb::encrypt(c, iv, segment, data),
            Mode::Cfb { segment } => cfb::decrypt(c, iv, segment, data),
            Mode::Ofb => ofb::apply(c, iv, data),
            Mode::Ctr => ctr::apply(c, iv, data),
            Mode::GostCtr => ctr::apply_gost(c, iv, data),
            Mode::CtrAcpkm => {
                ctr_acpkm::apply_with_key_len(c, self.key_len, iv, self.section, data)
            }
            Mode::Gost89Cfb if encrypt => gost89::cfb_encrypt(c, iv, meshing, data),
            Mode::Gost89Cfb => gost89::cfb_decrypt(c, iv, meshing, data),
            Mode::Gost89Cnt => gost89::cnt_apply(c, iv, meshing, data),
        }
    }

    #[inline(never)]
    fn encrypt_chained_general(&self, register: &mut [u8], data: &mut [u8]) -> Result<()> {
        let c = &self.cipher;
        match self.mode {
            // The library's chained calls update the register themselves.
            Mode::Cbc => cbc::encrypt_chained(c, register, data),
            Mode::Cfb { segment } => cfb::encrypt_chained(c, register, segment, data),
            Mode::Ofb => ofb::apply_chained(c, register, data),
            Mode::Gost89Cfb => {
                gost89::cfb_encrypt(c, register, KeyMeshing::CryptoPro, data)?;
                shift_in(register, data);
                Ok(())
            }
            _ => self.apply_general(true, register, data),
        }
    }

    #[inline(never)]
    fn decrypt_chained_general(&self, register: &mut [u8], data: &mut [u8]) -> Result<()> {
        match self.mode {
            Mode::Cbc => cbc::decrypt_chained(&self.cipher, register, data),
            Mode::Cfb { segment } => cfb::decrypt_chained(&self.cipher, register, segment, data),
            Mode::Gost89Cfb => carry_input(register, data, |r, d| self.apply(false, r, d)),
            Mode::Ofb => ofb::apply_chained(&self.cipher, register, data),
            _ => self.apply_general(false, register, data),
        }
    }
}

impl<C: KeyInit> Cipher for Keyed<C> {
    fn encrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        self.apply(true, iv, data)
    }

    fn decrypt(&self, iv: &[u8], data: &mut [u8]) -> Result<()> {
        self.apply(false, iv, data)
    }

    fn encrypt_chained(&self, register: &mut [u8], data: &mut [u8]) -> Result<()> {
        match self.fast {
            Fast::None => self.encrypt_chained_general(register, data),
            _ => self.apply(true, register, data),
        }
    }

    fn decrypt_chained(&self, register: &mut [u8], data: &mut [u8]) -> Result<()> {
        match self.fast {
            Fast::None => self.decrypt_chained_general(register, data),
            _ => self.apply(false, register, data),
        }
    }

    fn backend(&self) -> &'static str {
        self.backend
    }

    fn state_bytes(&self) -> usize {
        self.cipher.state_bytes()
    }
}

/// A keyed [`BlockMode`] in ECB without an engine. Its own object, so that the virtual call lands
/// straight in the mode function: a one-block message is a few dozen instructions in all, and a
/// dispatch on the mode in front of it (a load and two or three branches) was a tenth of them.
/// ECB has no register: every call leaves `register` (the IV argument) alone.
struct KeyedEcb<C> {
    cipher: C,
    backend: &'static str,
}

impl<C: KeyInit> Cipher for KeyedEcb<C> {
    fn encrypt(&self, _iv: &[u8], data: &mut [u8]) -> Result<()> {
        ecb::encrypt(&self.cipher, data)
    }

    fn decrypt(&self, _iv: &[u8], data: &mut [u8]) -> Result<()> {
        ecb::decrypt(&self.cipher, data)
    }

    fn encrypt_chained(&self, _register: &mut [u8], data: &mut [u8]) -> Result<()> {
        ecb::encrypt(&self.cipher, data)
    }

    fn decrypt_chained(&self, _register: &mut [u8], data: &mut [u8]) -> Result<()> {
        ecb::decrypt(&self.cipher, data)
    }

    fn backend(&self) -> &'static str {
        self.backend
    }

    fn state_bytes(&self) -> usize {
        self.cipher.state_bytes()
    }
}

/// The feedback modes that run many streams side by side.
#[derive(Clone, Copy)]
enum Feedback {
    Cbc,
    /// Full-block segments.
    Cfb,
}

/// Many keyed instances of one cipher in a feedback mode ([`multistream`]).
struct Streams<C> {
    ciphers: Vec<C>,
    feedback: Feedback,
    backend: &'static str,
}

impl<C: BlockCipher> MultiStream for Streams<C> {
    fn encrypt(&self, ivs: &[&[u8]], data: &mut [&mut [u8]]) -> Result<()> {
        let refs: Vec<&C> = self.ciphers.iter().collect();
        match self.feedback {
            Feedback::Cbc => multistream::cbc_encrypt(&refs, ivs, data),
            Feedback::Cfb => multistream::cfb_encrypt(&refs, ivs, data),
        }
    }

    fn decrypt(&self, ivs: &[&[u8]], data: &mut [&mut [u8]]) -> Result<()> {
        let refs: Vec<&C> = self.ciphers.iter().collect();
        match self.feedback {
            Feedback::Cbc => multistream::cbc_decrypt(&refs, ivs, data),
            Feedback::Cfb => multistream::cfb_decrypt(&refs, ivs, data),
        }
    }

    fn tag(&self, _msgs: &[&[u8]]) -> Result<Vec<Vec<u8>>> {
        Err(Error::InvalidParameter("a block mode has no tag"))
    }

    fn backend(&self) -> &'static str {
        self.backend
    }
}
