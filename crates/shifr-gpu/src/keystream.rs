//! [`GpuKeystream`]: the GPU as a [`KeystreamSource`] for the shifr container (`shifr encrypt
//! --backend gpu`): one call XORs the key stream of many chunks (each its own AEAD message, with its own
//! start block) into a job of several MiB, through the same pipelined upload / kernel / download as
//! [`GpuContext::apply`]; the CPU threads compute the tags. The kernels are in `kernels/segments.cl`.
//!
//! The host never holds a key-stream buffer: the GPU XORs into the data (plaintext in, ciphertext out),
//! so the only secrets are the round keys / ChaCha20 state, kept in zeroized buffers.

use std::sync::Mutex;

use shifr::aead::keystream::{check_segments, KeystreamCipher, KeystreamKey, KeystreamSource};
use shifr::hazmat::block::magma::SBox;
use zeroize::Zeroizing;

use crate::context::GpuContext;
use crate::device::{groups_for, Arg, Device, GROUP_SIZE};
use crate::error::{GpuError, Result};
use crate::job::{push_fixed, table_ids, Fixed};
use crate::source::entry;
use crate::tables::{self, TableId};

/// The keyed segment kernel of one file.
pub(crate) struct SegmentJob {
    pub(crate) cipher: KeystreamCipher,
    pub(crate) kernel: &'static str,
    /// Round keys / state: uploaded per call (the tables are the device's, uploaded once).
    pub(crate) buffers: Vec<Zeroizing<Vec<u8>>>,
    /// The arguments after the data, in kernel order (tables, `buffers`, AES's round count).
    pub(crate) fixed: Vec<Fixed>,
    /// Bytes of one kernel word (the unit of `stride`): 8 for Kuznyechik, else 4.
    pub(crate) word: usize,
}

fn bytes_u32(words: &[u32]) -> Zeroizing<Vec<u8>> {
    Zeroizing::new(words.iter().flat_map(|w| w.to_le_bytes()).collect())
}

fn bytes_u64(words: &[u64]) -> Zeroizing<Vec<u8>> {
    Zeroizing::new(words.iter().flat_map(|w| w.to_le_bytes()).collect())
}

impl SegmentJob {
    fn new(key: &KeystreamKey) -> Result<SegmentJob> {
        let (kernel, buffers, fixed, word) = match key.cipher {
            KeystreamCipher::Aes => {
                let (keys, rounds) = tables::aes_round_keys(&key.key)?;
                (
                    entry::AES_CTR_SEGMENTS,
                    vec![bytes_u32(&keys)],
                    vec![
                        Fixed::Table(TableId::Aes),
                        Fixed::Buffer(0),
                        Fixed::U32(rounds),
                    ],
                    4,
                )
            }
            KeystreamCipher::Kuznyechik => (
                entry::KUZNYECHIK_CTR_SEGMENTS,
                vec![bytes_u64(&tables::kuznyechik_round_keys(&key.key)?)],
                vec![Fixed::Table(TableId::KuznyechikLs), Fixed::Buffer(0)],
                8,
            ),
            KeystreamCipher::Magma => (
                entry::MAGMA_CTR_SEGMENTS,
                vec![bytes_u32(&tables::magma_key_words(&key.key)?)],
                vec![Fixed::Buffer(0)],
                4,
            ),
            KeystreamCipher::ChaCha20 => {
                let k: &[u8; 32] =
                    key.key
                        .as_slice()
                        .try_into()
                        .map_err(|_| shifr::Error::InvalidKeyLength {
                            expected: "32",
                            got: key.key.len(),
                        })?;
                // Words 0..12 (constants and key) are all the kernel reads; 12..16 come per segment.
                let state =
                    Zeroizing::new(shifr::hazmat::stream::chacha20::setup_state(k, 0, &[0; 12]));
                (
                    entry::CHACHA20_SEGMENTS,
                    vec![bytes_u32(&state[..])],
                    vec![Fixed::Buffer(0)],
                    4,
                )
            }
        };
        Ok(SegmentJob {
            cipher: key.cipher,
            kernel,
            buffers,
            fixed,
            word,
        })
    }
}

/// Runs `job` over `data` (segments of `segment_len` bytes every `stride` bytes, key streams from
/// `starts`), pipelined in pieces of whole strides of about `chunk` bytes.
pub(crate) fn run<D: Device>(
    dev: &D,
    job: &SegmentJob,
    starts: &[[u8; 16]],
    segment_len: usize,
    stride: usize,
    data: &mut [u8],
    chunk: usize,
) -> Result<()> {
    if data.is_empty() {
        return Ok(());
    }
    let consts = job
        .buffers
        .iter()
        .map(|b| dev.alloc_from(b))
        .collect::<Result<Vec<_>>>()?;
    let tables = dev.tables(&table_ids(&job.fixed))?;
    let start_bytes = Zeroizing::new(starts.concat());
    let starts_buf = dev.alloc_from(&start_bytes)?;
    let block = job.cipher.block_len();
    let seg_blocks = (segment_len / block) as u64;
    let piece = (chunk / stride).max(1) * stride;
    let busy = dev.busy_groups();
    dev.pipeline(data, piece, &mut |queue, buf, offset, len| {
        let segments = len.div_ceil(stride);
        let last_len = (len - (segments - 1) * stride).min(segment_len);
        let nblocks = (segments as u64 - 1) * seg_blocks + last_len.div_ceil(block) as u64;
        let mut args = vec![Arg::Buf(buf)];
        push_fixed(&mut args, &job.fixed, &consts, &tables)?;
        args.push(Arg::Buf(&starts_buf));
        args.push(Arg::U64((offset / stride) as u64));
        args.push(Arg::U64(seg_blocks));
        args.push(Arg::U64((stride / job.word) as u64));
        args.push(Arg::U64(nblocks));
        dev.launch(
            queue,
            SBox::Tc26Z,
            job.kernel,
            &args,
            groups_for(nblocks, busy),
            GROUP_SIZE,
        )
    })
}

/// The GPU as the container's key-stream source, keyed for one file. The context sits behind a
/// mutex: the container's worker threads take turns, one job (several MiB) per call, and compute
/// their tags while another job is on the GPU.
pub struct GpuKeystream {
    ctx: Mutex<GpuContext>,
    job: SegmentJob,
}

impl GpuKeystream {
    /// Keys the source on `ctx` (kernels are compiled on first use; [`GpuKeystream::warm_up`]).
    pub fn new(ctx: GpuContext, key: &KeystreamKey) -> Result<GpuKeystream> {
        Ok(GpuKeystream {
            job: SegmentJob::new(key)?,
            ctx: Mutex::new(ctx),
        })
    }

    /// Compiles and runs the kernel once on a few blocks, so that a missing or broken device shows
    /// before any output is written (callers then fall back to the CPU).
    pub fn warm_up(&self) -> Result<()> {
        let mut data = Zeroizing::new(vec![0u8; 256]);
        self.xor(&[[0u8; 16]], 256, 256, &mut data)
    }

    /// Runtime and device, as [`GpuContext::describe`].
    pub fn describe(&self) -> String {
        self.ctx
            .lock()
            .map(|c| c.describe())
            .unwrap_or_else(|_| "GPU".into())
    }

    fn xor(
        &self,
        starts: &[[u8; 16]],
        segment_len: usize,
        stride: usize,
        data: &mut [u8],
    ) -> Result<()> {
        check_segments(
            self.job.cipher,
            starts.len(),
            segment_len,
            stride,
            data.len(),
        )?;
        if !stride.is_multiple_of(self.job.word) {
            return Err(GpuError::Invalid(shifr::Error::InvalidParameter(
                "key-stream stride must be whole kernel words",
            )));
        }
        let ctx = self
            .ctx
            .lock()
            .map_err(|_| GpuError::Api("a GPU call panicked earlier".into()))?;
        ctx.segments(&self.job, starts, segment_len, stride, data)
    }
}

impl KeystreamSource for GpuKeystream {
    fn xor_keystream(
        &self,
        starts: &[[u8; 16]],
        segment_len: usize,
        stride: usize,
        data: &mut [u8],
    ) -> shifr::Result<()> {
        self.xor(starts, segment_len, stride, data)
            .map_err(|e| match e {
                GpuError::Invalid(e) => e,
                _ => shifr::Error::BackendUnavailable("the GPU key-stream source failed"),
            })
    }
}
