//! Multi-stream GOST R 34.13 modes with Magma on the GPU: thousands of independent streams (seed 001:
//! 16,384 sectors of 512 bytes), each with its own key and IV, one thread per stream. Stream `i` is
//! `data[i * stream_len..(i + 1) * stream_len]`; `stream_len` must be a whole number of blocks.

use shifr::block::magma::SBox;
use shifr::{Error, Result as LibResult};
use zeroize::Zeroizing;

use crate::device::{Arg, Device};
use crate::error::Result;
use crate::tables;

/// Threads per work-group of the stream kernel: small groups spread few thousand streams over all
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
    /// MAC (OMAC / CMAC, GOST R 34.13 section 5.6): one full 8-byte tag per stream.
    Mac,
}

impl StreamMode {
    fn code(self) -> u32 {
        match self {
            StreamMode::CfbEncrypt => 0,
            StreamMode::CfbDecrypt => 1,
            StreamMode::CbcEncrypt => 2,
            StreamMode::Mac => 3,
        }
    }
}

/// Validated kernel inputs: key words, IV words, blocks per stream.
pub(crate) struct StreamInputs {
    keys: Zeroizing<Vec<u8>>,
    ivs: Vec<u8>,
    blocks: u32,
    streams: u32,
}

pub(crate) fn prepare(
    mode: StreamMode,
    keys: &[[u8; 32]],
    ivs: &[[u8; 8]],
    data_len: usize,
    stream_len: usize,
) -> LibResult<StreamInputs> {
    let streams = keys.len();
    if !stream_len.is_multiple_of(8) {
        return Err(Error::NotBlockAligned {
            block: 8,
            got: stream_len,
        });
    }
    if streams.checked_mul(stream_len) != Some(data_len) {
        return Err(Error::InvalidParameter(
            "gpu multistream: data must be exactly one stream_len piece per key",
        ));
    }
    if mode != StreamMode::Mac && ivs.len() != streams {
        return Err(Error::InvalidParameter(
            "gpu multistream: one IV per stream is required",
        ));
    }
    let blocks = u32::try_from(stream_len / 8)
        .map_err(|_| Error::LengthLimit("gpu multistream: stream longer than 2^32 blocks"))?;
    let streams = u32::try_from(streams)
        .map_err(|_| Error::LengthLimit("gpu multistream: more than 2^32 streams"))?;
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
        keys: key_bytes,
        ivs: iv_bytes,
        blocks,
        streams,
    })
}

/// Device buffers of one multi-stream run.
pub(crate) struct StreamBuffers<B> {
    tables: B,
    keys: B,
    ivs: B,
    tags: B,
}

pub(crate) fn upload<D: Device>(
    dev: &D,
    sbox: SBox,
    inputs: &StreamInputs,
) -> Result<StreamBuffers<D::Buf>> {
    let table_bytes: Vec<u8> = tables::magma_nibble_tables(sbox)
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    Ok(StreamBuffers {
        tables: dev.alloc_from(&table_bytes)?,
        keys: dev.alloc_from(&inputs.keys)?,
        ivs: dev.alloc_from(&inputs.ivs)?,
        tags: dev.alloc(inputs.streams as usize * 8)?,
    })
}

pub(crate) fn launch<D: Device>(
    dev: &D,
    sbox: SBox,
    mode: StreamMode,
    inputs: &StreamInputs,
    bufs: &StreamBuffers<D::Buf>,
    data: &D::Buf,
) -> Result<()> {
    let args = [
        Arg::Buf(data),
        Arg::Buf(&bufs.tables),
        Arg::Buf(&bufs.keys),
        Arg::Buf(&bufs.ivs),
        Arg::Buf(&bufs.tags),
        Arg::U32(inputs.blocks),
        Arg::U32(inputs.streams),
        Arg::U32(mode.code()),
    ];
    let groups = (inputs.streams as usize).div_ceil(STREAM_GROUP).max(1);
    dev.launch(0, sbox, "magma_streams_tab", &args, groups, STREAM_GROUP)
}

/// Runs `mode` over every stream in place; returns the tags for [`StreamMode::Mac`] (else empty).
pub(crate) fn run<D: Device>(
    dev: &D,
    sbox: SBox,
    mode: StreamMode,
    inputs: &StreamInputs,
    data: &mut [u8],
) -> Result<Vec<[u8; 8]>> {
    let bufs = upload(dev, sbox, inputs)?;
    // Zero-length streams (MAC of empty messages) still need a valid buffer argument.
    let device_data = if data.is_empty() {
        dev.alloc(8)?
    } else {
        dev.alloc_from(data)?
    };
    launch(dev, sbox, mode, inputs, &bufs, &device_data)?;
    dev.finish()?;
    if mode != StreamMode::Mac {
        if !data.is_empty() {
            dev.read(&device_data, data)?;
        }
        return Ok(Vec::new());
    }
    let mut words = vec![0u8; inputs.streams as usize * 8];
    dev.read(&bufs.tags, &mut words)?;
    Ok(words
        .chunks_exact(8)
        .map(|w| {
            let a1 = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            let a0 = u32::from_le_bytes([w[4], w[5], w[6], w[7]]);
            let mut tag = [0u8; 8];
            tag[..4].copy_from_slice(&a1.to_be_bytes());
            tag[4..].copy_from_slice(&a0.to_be_bytes());
            tag
        })
        .collect())
}
