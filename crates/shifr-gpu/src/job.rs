//! A keyed kernel invocation over a byte buffer (CTR / ECB / ChaCha20): which kernel, what constant
//! buffers (tables, round keys) and scalars it takes, and how its counter advances per chunk.

use shifr::hazmat::block::magma::SBox;
use shifr::{Error, Result};
use zeroize::Zeroizing;

use std::collections::HashMap;

use crate::device::{table, Arg};
use crate::source::entry;
use crate::tables::{self, TableId};

/// Which S-box layer the Magma kernels use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MagmaVariant {
    /// Nibble tables in shared / local memory, replicated per bank (secret-indexed).
    Tables,
    /// The S-boxes as Boolean functions (algebraic normal form), constant-time.
    Boolean,
}

impl MagmaVariant {
    /// `tab` or `anf`, as in the kernel names and reports.
    pub fn name(self) -> &'static str {
        match self {
            MagmaVariant::Tables => "tab",
            MagmaVariant::Boolean => "anf",
        }
    }
}

/// A constant argument: one of the job's (secret, per-call) buffers, a key-independent table kept
/// on the device, or a 32-bit scalar.
#[derive(Clone, Copy)]
pub(crate) enum Fixed {
    Buffer(usize),
    Table(TableId),
    U32(u32),
}

/// The tables among `fixed`.
pub(crate) fn table_ids(fixed: &[Fixed]) -> Vec<TableId> {
    fixed
        .iter()
        .filter_map(|f| match f {
            Fixed::Table(id) => Some(*id),
            _ => None,
        })
        .collect()
}

/// Appends the kernel arguments of `fixed`: `buffers` are the call's uploaded buffers, `tables` the
/// device's cached tables.
pub(crate) fn push_fixed<'a, B>(
    args: &mut Vec<Arg<'a, B>>,
    fixed: &[Fixed],
    buffers: &'a [B],
    tables: &'a HashMap<TableId, B>,
) -> crate::error::Result<()> {
    for f in fixed {
        args.push(match *f {
            Fixed::Buffer(i) => Arg::Buf(&buffers[i]),
            Fixed::Table(id) => Arg::Buf(table(tables, id)?),
            Fixed::U32(v) => Arg::U32(v),
        });
    }
    Ok(())
}

/// The counter scalar(s) passed after the fixed arguments, advanced by the chunk's first block.
#[derive(Clone, Copy)]
pub(crate) enum Counter {
    None,
    /// ChaCha20's 32-bit block counter.
    U32(u32),
    /// Magma's 64-bit counter block as a number.
    U64(u64),
    /// A 128-bit counter block as a number, passed as high and low halves.
    U128(u128),
}

/// One GPU job: the kernel, its key buffers, tables and scalars, and the counter.
pub struct GpuJob {
    pub(crate) label: String,
    pub(crate) kernel: &'static str,
    pub(crate) block: usize,
    pub(crate) whole_blocks: bool,
    pub(crate) max_blocks: Option<u64>,
    pub(crate) sbox: SBox,
    /// Round keys / state: uploaded per call.
    pub(crate) buffers: Vec<Zeroizing<Vec<u8>>>,
    pub(crate) fixed: Vec<Fixed>,
    pub(crate) counter: Counter,
}

fn bytes_u32(words: &[u32]) -> Zeroizing<Vec<u8>> {
    Zeroizing::new(words.iter().flat_map(|w| w.to_le_bytes()).collect())
}

fn bytes_u64(words: &[u64]) -> Zeroizing<Vec<u8>> {
    Zeroizing::new(words.iter().flat_map(|w| w.to_le_bytes()).collect())
}

impl GpuJob {
    /// ChaCha20 (RFC 8439) key stream from block `counter`: 32-byte key, 12-byte nonce.
    pub fn chacha20(key: &[u8], nonce: &[u8], counter: u32) -> Result<GpuJob> {
        let key: &[u8; 32] = key.try_into().map_err(|_| Error::InvalidKeyLength {
            expected: "32",
            got: key.len(),
        })?;
        let nonce: &[u8; 12] = nonce.try_into().map_err(|_| Error::InvalidNonceLength {
            expected: "12",
            got: nonce.len(),
        })?;
        let state = Zeroizing::new(shifr::hazmat::stream::chacha20::setup_state(
            key, counter, nonce,
        ));
        Ok(GpuJob {
            label: "chacha20".into(),
            kernel: entry::CHACHA20_XOR,
            block: 64,
            whole_blocks: false,
            max_blocks: Some((1u64 << 32) - u64::from(counter)),
            sbox: SBox::Tc26Z,
            buffers: vec![bytes_u32(&state[..])],
            fixed: vec![Fixed::Buffer(0)],
            counter: Counter::U32(counter),
        })
    }

    /// Magma CTR (GOST R 34.13): 32-byte key, 4-byte IV (the counter starts at `iv || 0^32`).
    pub fn magma_ctr(key: &[u8], iv: &[u8], sbox: SBox, variant: MagmaVariant) -> Result<GpuJob> {
        let block = shifr::hazmat::mode::ctr::gost_counter_block(iv, 8)?;
        let counter = u64::from_be_bytes(block[..8].try_into().expect("8-byte block"));
        Self::magma(key, sbox, variant, Counter::U64(counter), "ctr")
    }

    /// Magma ECB encryption of whole blocks.
    pub fn magma_ecb(key: &[u8], sbox: SBox, variant: MagmaVariant) -> Result<GpuJob> {
        Self::magma(key, sbox, variant, Counter::None, "ecb")
    }

    fn magma(
        key: &[u8],
        sbox: SBox,
        variant: MagmaVariant,
        counter: Counter,
        mode: &str,
    ) -> Result<GpuJob> {
        let key = bytes_u32(&tables::magma_key_words(key)?);
        let (kernel, buffers, fixed) = match (variant, mode) {
            (MagmaVariant::Tables, m) => (
                if m == "ctr" {
                    entry::MAGMA_CTR_TAB
                } else {
                    entry::MAGMA_ECB_TAB
                },
                vec![key],
                vec![Fixed::Table(TableId::MagmaNibbles(sbox)), Fixed::Buffer(0)],
            ),
            (MagmaVariant::Boolean, m) => (
                if m == "ctr" {
                    entry::MAGMA_CTR_ANF
                } else {
                    entry::MAGMA_ECB_ANF
                },
                vec![key],
                vec![Fixed::Buffer(0)],
            ),
        };
        Ok(GpuJob {
            label: format!("magma-{mode} ({})", variant.name()),
            kernel,
            block: 8,
            whole_blocks: mode == "ecb",
            max_blocks: None,
            sbox,
            buffers,
            fixed,
            counter,
        })
    }

    /// Kuznyechik CTR (GOST R 34.13): 32-byte key, 8-byte IV (counter `iv || 0^64`).
    pub fn kuznyechik_ctr(key: &[u8], iv: &[u8]) -> Result<GpuJob> {
        let block = shifr::hazmat::mode::ctr::gost_counter_block(iv, 16)?;
        let counter = u128::from_be_bytes(block[..16].try_into().expect("16-byte block"));
        Self::kuznyechik(key, Counter::U128(counter), "ctr")
    }

    /// Kuznyechik ECB encryption of whole blocks.
    pub fn kuznyechik_ecb(key: &[u8]) -> Result<GpuJob> {
        Self::kuznyechik(key, Counter::None, "ecb")
    }

    fn kuznyechik(key: &[u8], counter: Counter, mode: &str) -> Result<GpuJob> {
        let keys = bytes_u64(&tables::kuznyechik_round_keys(key)?);
        Ok(GpuJob {
            label: format!("kuznyechik-{mode}"),
            kernel: if mode == "ctr" {
                entry::KUZNYECHIK_CTR
            } else {
                entry::KUZNYECHIK_ECB
            },
            block: 16,
            whole_blocks: mode == "ecb",
            max_blocks: None,
            sbox: SBox::Tc26Z,
            buffers: vec![keys],
            fixed: vec![Fixed::Table(TableId::KuznyechikLs), Fixed::Buffer(0)],
            counter,
        })
    }

    /// AES-128 / AES-256 CTR (NIST SP 800-38A): the 16-byte initial counter block, incremented as a
    /// 128-bit big-endian number (as OpenSSL does).
    pub fn aes_ctr(key: &[u8], counter_block: &[u8]) -> Result<GpuJob> {
        let block: [u8; 16] = counter_block
            .try_into()
            .map_err(|_| Error::InvalidIvLength {
                expected: "16",
                got: counter_block.len(),
            })?;
        Self::aes(key, Counter::U128(u128::from_be_bytes(block)), "ctr")
    }

    /// AES ECB encryption of whole blocks.
    pub fn aes_ecb(key: &[u8]) -> Result<GpuJob> {
        Self::aes(key, Counter::None, "ecb")
    }

    fn aes(key: &[u8], counter: Counter, mode: &str) -> Result<GpuJob> {
        let (keys, rounds) = tables::aes_round_keys(key)?;
        Ok(GpuJob {
            label: format!("aes-{}-{mode}", key.len() * 8),
            kernel: if mode == "ctr" {
                entry::AES_CTR
            } else {
                entry::AES_ECB
            },
            block: 16,
            whole_blocks: mode == "ecb",
            max_blocks: None,
            sbox: SBox::Tc26Z,
            buffers: vec![bytes_u32(&keys)],
            fixed: vec![
                Fixed::Table(TableId::Aes),
                Fixed::Buffer(0),
                Fixed::U32(rounds),
            ],
            counter,
        })
    }

    /// A name for reports, e.g. `magma-ctr (tab)`.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The cipher's block (ChaCha20: 64-byte key stream block).
    pub fn block_size(&self) -> usize {
        self.block
    }

    /// Checks that `len` bytes can be processed (whole blocks for ECB, counter range for ChaCha20).
    pub(crate) fn check_len(&self, len: usize) -> Result<()> {
        if self.whole_blocks && !len.is_multiple_of(self.block) {
            return Err(Error::NotBlockAligned {
                block: self.block,
                got: len,
            });
        }
        if let Some(max) = self.max_blocks {
            if len.div_ceil(self.block) as u64 > max {
                return Err(Error::LengthLimit(
                    "ChaCha20 32-bit block counter would wrap (at most 256 GiB per nonce)",
                ));
            }
        }
        Ok(())
    }
}
