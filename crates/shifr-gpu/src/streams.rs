//! Multi-stream GOST R 34.13 modes on the GPU: thousands of independent streams (seed 001: 16,384
//! sectors of 512 bytes), each with its own key and IV, one thread per stream, with Magma
//! (`magma_streams_tab`, kernels/magma.cl) or Kuznyechik (`kuznyechik_streams`,
//! kernels/kuznyechik.cl). Stream `i` is `data[i * stream_len..(i + 1) * stream_len]`; `stream_len`
//! must be a whole number of blocks and is the same for every stream.
//!
//! Keys: Magma's eight key words are its round keys (the host lays them out); Kuznyechik's key
//! schedule runs in the kernel from the 32-byte key (see kernels/kuznyechik.cl for why). Both kernels
//! read secret-indexed tables: NOT constant-time.

use shifr::hazmat::block::magma::SBox;
use shifr::{Error, Result as LibResult};
use zeroize::Zeroizing;

use crate::device::{table, Arg, Device, Tables};
use crate::error::Result;
use crate::source::entry;
use crate::tables::{self, TableId};

/// Threads per work-group of the stream kernels: small groups spread a few thousand streams over all
/// multiprocessors.
const STREAM_GROUP: usize = 64;

/// Which multi-stream mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamMode {
    /// CFB with full-block segments (s = m = n), encryption.
    CfbEncrypt,
    /// CFB decryption.
    CfbDecrypt,
    /// CBC encryption (n-byte IV).
    CbcEncrypt,
    /// CBC decryption (n-byte IV).
    CbcDecrypt,
    /// MAC (OMAC / CMAC, GOST R 34.13 section 5.6): one full n-byte tag per stream.
    Mac,
}

impl StreamMode {
    /// Every mode, in the order reports list them.
    pub const ALL: [StreamMode; 5] = [
        StreamMode::CfbEncrypt,
        StreamMode::CfbDecrypt,
        StreamMode::CbcEncrypt,
        StreamMode::CbcDecrypt,
        StreamMode::Mac,
    ];

    fn code(self) -> u32 {
        match self {
            StreamMode::CfbEncrypt => 0,
            StreamMode::CfbDecrypt => 1,
            StreamMode::CbcEncrypt => 2,
            StreamMode::Mac => 3,
            StreamMode::CbcDecrypt => 4,
        }
    }

    /// `cfb-encrypt`, `cfb-decrypt`, `cbc-encrypt`, `cbc-decrypt` or `mac`, for reports.
    pub fn name(self) -> &'static str {
        match self {
            StreamMode::CfbEncrypt => "cfb-encrypt",
            StreamMode::CfbDecrypt => "cfb-decrypt",
            StreamMode::CbcEncrypt => "cbc-encrypt",
            StreamMode::CbcDecrypt => "cbc-decrypt",
            StreamMode::Mac => "mac",
        }
    }
}

/// The block cipher of a multi-stream run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StreamCipher {
    Magma(SBox),
    Kuznyechik,
}

impl StreamCipher {
    fn block(self) -> usize {
        match self {
            StreamCipher::Magma(_) => 8,
            StreamCipher::Kuznyechik => 16,
        }
    }

    fn kernel(self) -> &'static str {
        match self {
            StreamCipher::Magma(_) => entry::MAGMA_STREAMS_TAB,
            StreamCipher::Kuznyechik => entry::KUZNYECHIK_STREAMS,
        }
    }

    /// The program to launch from (only Magma's depends on the S-box set).
    fn sbox(self) -> SBox {
        match self {
            StreamCipher::Magma(sbox) => sbox,
            StreamCipher::Kuznyechik => SBox::Tc26Z,
        }
    }

    /// The tables the kernel takes after the data, in order.
    fn tables(self) -> Vec<TableId> {
        match self {
            StreamCipher::Magma(sbox) => vec![TableId::MagmaNibbles(sbox)],
            StreamCipher::Kuznyechik => vec![
                TableId::KuznyechikLs,
                TableId::KuznyechikConstants,
                TableId::KuznyechikInverse,
            ],
        }
    }
}

/// Validated kernel inputs: key material, IVs, blocks per stream.
pub(crate) struct StreamInputs {
    cipher: StreamCipher,
    mode: StreamMode,
    keys: Zeroizing<Vec<u8>>,
    ivs: Vec<u8>,
    blocks: u32,
    streams: u32,
}

impl StreamInputs {
    /// Bytes of data the run covers.
    pub(crate) fn data_len(&self) -> usize {
        self.streams as usize * self.blocks as usize * self.cipher.block()
    }
}

/// Checks the layout; returns (blocks per stream, streams).
fn check(
    block: usize,
    mode: StreamMode,
    streams: usize,
    ivs: usize,
    data_len: usize,
    stream_len: usize,
) -> LibResult<(u32, u32)> {
    if !stream_len.is_multiple_of(block) {
        return Err(Error::NotBlockAligned {
            block,
            got: stream_len,
        });
    }
    if streams.checked_mul(stream_len) != Some(data_len) {
        return Err(Error::InvalidParameter(
            "gpu multistream: data must be exactly one stream_len piece per key",
        ));
    }
    if mode != StreamMode::Mac && ivs != streams {
        return Err(Error::InvalidParameter(
            "gpu multistream: one IV per stream is required",
        ));
    }
    let blocks = u32::try_from(stream_len / block)
        .map_err(|_| Error::LengthLimit("gpu multistream: stream longer than 2^32 blocks"))?;
    let streams = u32::try_from(streams)
        .map_err(|_| Error::LengthLimit("gpu multistream: more than 2^32 streams"))?;
    Ok((blocks, streams))
}

/// Magma: the key words K1..K8 (numbers) and the IVs as the numbers a1, a0 per stream.
pub(crate) fn magma_inputs(
    sbox: SBox,
    mode: StreamMode,
    keys: &[[u8; 32]],
    ivs: &[[u8; 8]],
    data_len: usize,
    stream_len: usize,
) -> LibResult<StreamInputs> {
    let (blocks, streams) = check(8, mode, keys.len(), ivs.len(), data_len, stream_len)?;
    let mut key_bytes = Zeroizing::new(Vec::with_capacity(keys.len() * 32));
    for key in keys {
        for w in tables::magma_key_words(key)?.iter() {
            key_bytes.extend_from_slice(&w.to_le_bytes());
        }
    }
    let mut iv_bytes = Vec::with_capacity(keys.len() * 8);
    for iv in ivs.iter().take(keys.len()) {
        // The kernel takes the IV as the two numbers a1, a0 (big-endian halves).
        iv_bytes.extend_from_slice(&u32::from_be_bytes([iv[0], iv[1], iv[2], iv[3]]).to_le_bytes());
        iv_bytes.extend_from_slice(&u32::from_be_bytes([iv[4], iv[5], iv[6], iv[7]]).to_le_bytes());
    }
    iv_bytes.resize(keys.len() * 8, 0);
    Ok(StreamInputs {
        cipher: StreamCipher::Magma(sbox),
        mode,
        keys: key_bytes,
        ivs: iv_bytes,
        blocks,
        streams,
    })
}

/// Kuznyechik: the 32-byte keys and 16-byte IVs as they are (wire order; the kernel loads them as
/// little-endian words, like its tables and blocks, and expands the keys itself).
pub(crate) fn kuznyechik_inputs(
    mode: StreamMode,
    keys: &[[u8; 32]],
    ivs: &[[u8; 16]],
    data_len: usize,
    stream_len: usize,
) -> LibResult<StreamInputs> {
    let (blocks, streams) = check(16, mode, keys.len(), ivs.len(), data_len, stream_len)?;
    let key_bytes = Zeroizing::new(keys.concat());
    let mut iv_bytes: Vec<u8> = ivs.iter().take(keys.len()).flatten().copied().collect();
    iv_bytes.resize(keys.len() * 16, 0);
    Ok(StreamInputs {
        cipher: StreamCipher::Kuznyechik,
        mode,
        keys: key_bytes,
        ivs: iv_bytes,
        blocks,
        streams,
    })
}

/// Device buffers of one multi-stream run (the tables are the device's own, uploaded once).
pub(crate) struct StreamBuffers<B> {
    keys: B,
    ivs: B,
    tags: B,
}

/// Uploads the call's keys and IVs and makes room for the tags.
pub(crate) fn upload<D: Device>(dev: &D, inputs: &StreamInputs) -> Result<StreamBuffers<D::Buf>> {
    Ok(StreamBuffers {
        keys: dev.alloc_from(&inputs.keys)?,
        ivs: dev.alloc_from(&inputs.ivs)?,
        tags: dev.alloc(inputs.streams as usize * inputs.cipher.block())?,
    })
}

/// The device tables `inputs`' kernel reads (uploaded on first use).
pub(crate) fn tables_for<'d, D: Device>(
    dev: &'d D,
    inputs: &StreamInputs,
) -> Result<Tables<'d, D::Buf>> {
    dev.tables(&inputs.cipher.tables())
}

/// Enqueues the kernel over `data` (on the device).
pub(crate) fn launch<D: Device>(
    dev: &D,
    inputs: &StreamInputs,
    tables: &Tables<'_, D::Buf>,
    bufs: &StreamBuffers<D::Buf>,
    data: &D::Buf,
) -> Result<()> {
    let mut args = vec![Arg::Buf(data)];
    for id in inputs.cipher.tables() {
        args.push(Arg::Buf(table(tables, id)?));
    }
    args.extend([
        Arg::Buf(&bufs.keys),
        Arg::Buf(&bufs.ivs),
        Arg::Buf(&bufs.tags),
        Arg::U32(inputs.blocks),
        Arg::U32(inputs.streams),
        Arg::U32(inputs.mode.code()),
    ]);
    let groups = (inputs.streams as usize).div_ceil(STREAM_GROUP).max(1);
    let cipher = inputs.cipher;
    dev.launch(
        0,
        cipher.sbox(),
        cipher.kernel(),
        &args,
        groups,
        STREAM_GROUP,
    )
}

/// Runs the mode over every stream in place; returns the tags' bytes (block-sized words as the
/// kernel wrote them) for [`StreamMode::Mac`], else nothing.
pub(crate) fn run<D: Device>(dev: &D, inputs: &StreamInputs, data: &mut [u8]) -> Result<Vec<u8>> {
    let tables = tables_for(dev, inputs)?;
    let bufs = upload(dev, inputs)?;
    // Zero-length streams (MAC of empty messages) still need a valid buffer argument.
    let device_data = if data.is_empty() {
        dev.alloc(16)?
    } else {
        dev.alloc_from(data)?
    };
    launch(dev, inputs, &tables, &bufs, &device_data)?;
    dev.finish()?;
    if inputs.mode != StreamMode::Mac {
        if !data.is_empty() {
            dev.read(&device_data, data)?;
        }
        return Ok(Vec::new());
    }
    let mut tags = vec![0u8; inputs.streams as usize * inputs.cipher.block()];
    dev.read(&bufs.tags, &mut tags)?;
    Ok(tags)
}

/// Magma's tags from the kernel's words (the numbers a1, a0) to bytes.
pub(crate) fn magma_tags(words: &[u8]) -> Vec<[u8; 8]> {
    words
        .chunks_exact(8)
        .map(|w| {
            let a1 = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            let a0 = u32::from_le_bytes([w[4], w[5], w[6], w[7]]);
            let mut tag = [0u8; 8];
            tag[..4].copy_from_slice(&a1.to_be_bytes());
            tag[4..].copy_from_slice(&a0.to_be_bytes());
            tag
        })
        .collect()
}

/// Kuznyechik's tags are already in wire order.
pub(crate) fn kuznyechik_tags(bytes: &[u8]) -> Vec<[u8; 16]> {
    bytes
        .chunks_exact(16)
        .map(|t| {
            let mut tag = [0u8; 16];
            tag.copy_from_slice(t);
            tag
        })
        .collect()
}
