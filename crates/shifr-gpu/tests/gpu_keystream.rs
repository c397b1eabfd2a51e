//! The container's key stream on the GPU (`GpuKeystream`, kernels/segments.cl) against the CPU
//! reference source (`shifr::aead::keystream::CpuKeystream`, built from the library's block ciphers
//! and ChaCha20) for every splittable AEAD's cipher: random keys and start blocks, start blocks whose
//! counting part is about to wrap (inc32, incr_r, the ChaCha20 block counter), segment lengths of one
//! and several blocks, strides with gaps (the decrypt layout: the gaps must stay untouched) and data
//! ending mid-block, with 4 KiB pipeline pieces so that several pieces and queues take part. Then the
//! whole container: encryption with the GPU source is byte-identical to the CPU path for sizes 0, 1,
//! chunk - 1, chunk, chunk + 1 and several chunks, decrypts either way, and tampering is detected.
//! Without any OpenCL platform / CUDA device the tests print `skipped: <reason>` and pass.

mod support;

use rand::{Rng, RngCore, SeedableRng};
use shifr::aead::keystream::{CpuKeystream, KeystreamCipher, KeystreamKey, KeystreamSource};
use shifr::container::{read_header, Algorithm, EncryptParams, Error, FileCipher, Kdf, Secret};
use shifr_gpu::{GpuContext, GpuError, GpuKeystream};
use zeroize::Zeroizing;

static DEVICE: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn context(test: &str) -> Option<(std::sync::MutexGuard<'static, ()>, GpuContext)> {
    let guard = DEVICE.lock().unwrap_or_else(|e| e.into_inner());
    match GpuContext::new() {
        Ok(mut ctx) => {
            ctx.set_chunk(4096);
            support::ran_on(test, &ctx.describe());
            Some((guard, ctx))
        }
        Err(GpuError::NoDevice(why)) => {
            support::no_device(test, &why);
            None
        }
        Err(e) => panic!("GPU context: {e}"),
    }
}

const CIPHERS: [KeystreamCipher; 4] = [
    KeystreamCipher::Aes,
    KeystreamCipher::ChaCha20,
    KeystreamCipher::Kuznyechik,
    KeystreamCipher::Magma,
];

/// A random start block, or one whose counting part is `ahead` steps before wrapping.
fn start(rng: &mut impl Rng, cipher: KeystreamCipher, ahead: Option<u64>) -> [u8; 16] {
    let mut s: [u8; 16] = rng.gen();
    if cipher == KeystreamCipher::Magma {
        s[8..].fill(0);
    }
    if let Some(a) = ahead {
        match cipher {
            KeystreamCipher::Aes => s[12..].copy_from_slice(&(u32::MAX - a as u32).to_be_bytes()),
            KeystreamCipher::ChaCha20 => {
                s[..4].copy_from_slice(&(u32::MAX - a as u32).to_le_bytes())
            }
            KeystreamCipher::Kuznyechik => s[8..].copy_from_slice(&(u64::MAX - a).to_be_bytes()),
            KeystreamCipher::Magma => s[4..8].copy_from_slice(&(u32::MAX - a as u32).to_be_bytes()),
        }
    }
    s
}

#[test]
fn segments_match_the_cpu_reference() {
    let Some((_guard, _probe)) = context("segments_match_the_cpu_reference") else {
        return;
    };
    drop(_probe);
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x6b73_7472);
    for cipher in CIPHERS {
        let block = cipher.block_len();
        let key = KeystreamKey {
            cipher,
            key: Zeroizing::new(rng.gen::<[u8; 32]>().to_vec()),
        };
        let cpu = CpuKeystream::new(&key).unwrap();
        let mut ctx = GpuContext::new().unwrap();
        ctx.set_chunk(4096);
        let gpu = GpuKeystream::new(ctx, &key).unwrap();
        gpu.warm_up().unwrap();
        // (segment length, stride, data length)
        let seg = 1024usize;
        let layouts = [
            (block.max(8), block.max(8), 1),
            (seg, seg, 0),
            (seg, seg, 1),
            (seg, seg, seg - 1),
            (seg, seg, seg),
            (seg, seg, seg + 1),
            (seg, seg, 9 * seg + 37),
            (seg, seg + 16, 6 * (seg + 16) + 100),
            (seg, seg + 8, 5 * (seg + 8) - 8),
            (4096, 4096 + 16, 3 * 4112 + 4096),
        ];
        for (segment_len, stride, len) in layouts {
            let count = len.div_ceil(stride).max(1);
            let starts: Vec<[u8; 16]> = (0..count)
                .map(|i| {
                    // Every third segment wraps its counter a few blocks in (ChaCha20 must not
                    // wrap, RFC 8439: it ends just below 2^32, up to 64 blocks per segment here).
                    let near = if cipher == KeystreamCipher::ChaCha20 {
                        64
                    } else {
                        3
                    };
                    let ahead = (i % 3 == 1).then_some(near);
                    start(&mut rng, cipher, ahead)
                })
                .collect();
            let mut data = vec![0u8; len];
            rng.fill_bytes(&mut data);
            let mut expected = data.clone();
            cpu.xor_keystream(&starts, segment_len, stride, &mut expected)
                .unwrap();
            let mut got = data.clone();
            gpu.xor_keystream(&starts, segment_len, stride, &mut got)
                .unwrap();
            assert!(
                got == expected,
                "{cipher:?}: segment {segment_len}, stride {stride}, {len} bytes"
            );
        }
        // Layout errors are refused, not run.
        let mut data = vec![0u8; 100];
        assert!(gpu.xor_keystream(&[[0; 16]], 100, 100, &mut data).is_err());
        assert!(gpu.xor_keystream(&[[0; 16]], 64, 64, &mut data).is_err());
    }
}

const KEY: [u8; 32] = [0x42; 32];
const CHUNK: usize = 1024;

fn encrypt(alg: Algorithm, plain: &[u8], gpu: bool) -> Vec<u8> {
    let mut p = EncryptParams::new(alg, Kdf::KeyFile, [8; 16], [9; 16]);
    p.chunk_size = CHUNK as u32;
    let mut c = FileCipher::for_encryption(&p, Secret::KeyFile(&KEY)).unwrap();
    if gpu {
        attach(&mut c);
    }
    let mut out = Vec::new();
    c.encrypt(plain, &mut out, 2, &mut |_| {}).unwrap();
    out
}

fn attach(c: &mut FileCipher) {
    let key = c.keystream_key().unwrap();
    let mut ctx = GpuContext::new().unwrap();
    ctx.set_chunk(4096);
    c.set_keystream_source(Box::new(GpuKeystream::new(ctx, &key).unwrap()))
        .unwrap();
    // Several jobs per file even for the small sizes.
    c.set_batch_bytes(3 * CHUNK);
}

fn decrypt(file: &[u8], gpu: bool) -> Result<Vec<u8>, Error> {
    let mut input = file;
    let header = read_header(&mut input)?;
    let mut c = FileCipher::for_decryption(&header, Secret::KeyFile(&KEY))?;
    if gpu {
        attach(&mut c);
    }
    let mut out = Vec::new();
    c.decrypt(input, &mut out, 2, &mut |_| {})?;
    Ok(out)
}

#[test]
fn container_on_the_gpu_is_byte_identical() {
    let Some((_guard, _ctx)) = context("container_on_the_gpu_is_byte_identical") else {
        return;
    };
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x636f_6e74);
    for alg in [
        Algorithm::Aes256Gcm,
        Algorithm::ChaCha20Poly1305,
        Algorithm::KuznyechikMgm,
        Algorithm::MagmaMgm,
    ] {
        for len in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 11 * CHUNK + 7] {
            let mut plain = vec![0u8; len];
            rng.fill_bytes(&mut plain);
            let cpu = encrypt(alg, &plain, false);
            let gpu = encrypt(alg, &plain, true);
            assert!(gpu == cpu, "{} {len} bytes", alg.name());
            assert_eq!(decrypt(&gpu, true).unwrap(), plain);
            assert_eq!(decrypt(&gpu, false).unwrap(), plain);
            if len > CHUNK {
                let mut bad = gpu.clone();
                let at = 80 + CHUNK + alg.tag_len() + 5; // inside chunk 1
                bad[at] ^= 0x10;
                assert!(
                    matches!(decrypt(&bad, true), Err(Error::ChunkAuthentication(1))),
                    "{}: tampering",
                    alg.name()
                );
            }
        }
    }
}
