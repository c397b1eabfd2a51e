//! Every GPU kernel against the CPU library's portable backend, on random keys, IVs and lengths
//! (0, 1, block-1, block, block+1, several KiB, and a length spanning several pipeline chunks), and
//! the multi-stream modes over many streams with their own keys. Runs on whatever device is present
//! (PoCL's CPU device in CI); with none, each test prints the reason and passes.

mod support;

use rand::{Rng, RngCore, SeedableRng};
use shifr::cpu::Backend;
use shifr::hazmat::block::aes::Aes;
use shifr::hazmat::block::kuznyechik::Kuznyechik;
use shifr::hazmat::block::magma::{Magma, SBox};
use shifr::hazmat::block::BlockCipher;
use shifr::hazmat::mode::{ctr, multistream};
use shifr::hazmat::stream::chacha20::ChaCha20;
use shifr_gpu::{GpuContext, GpuError, GpuJob, MagmaVariant, StreamMode};

/// The tests share one device and run one at a time: PoCL's and the ICD loader's start-up is not
/// safe to race from several threads (seen as a crash here).
static DEVICE: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn context(test: &str) -> Option<(std::sync::MutexGuard<'static, ()>, GpuContext)> {
    let guard = DEVICE.lock().unwrap_or_else(|e| e.into_inner());
    match GpuContext::new() {
        Ok(mut ctx) => {
            // Small chunks: several pipeline chunks and queues even for the test sizes.
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

fn rng() -> rand::rngs::StdRng {
    rand::rngs::StdRng::seed_from_u64(0x5e1f_6a0c)
}

fn lengths(block: usize) -> Vec<usize> {
    vec![
        0,
        1,
        block - 1,
        block,
        block + 1,
        3 * 1024 + 5,
        4096,
        20_000 + block / 2,
    ]
}

fn random(rng: &mut impl RngCore, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rng.fill_bytes(&mut v);
    v
}

#[test]
fn ctr_and_stream_kernels_match_the_cpu() {
    let Some((_guard, ctx)) = context("ctr_and_stream_kernels_match_the_cpu") else {
        return;
    };
    let mut rng = rng();
    for round in 0..2 {
        let key = random(&mut rng, 32);
        // ChaCha20, with a counter that makes the 32-bit counter carry across a chunk.
        let nonce = random(&mut rng, 12);
        let counter = if round == 0 { 0 } else { 7 };
        for len in lengths(64) {
            let pt = random(&mut rng, len);
            let mut want = pt.clone();
            ChaCha20::new(&key, &nonce, counter)
                .unwrap()
                .apply_keystream(&mut want)
                .unwrap();
            let mut got = pt.clone();
            ctx.apply(&GpuJob::chacha20(&key, &nonce, counter).unwrap(), &mut got)
                .unwrap();
            assert_eq!(got, want, "chacha20 len {len}");
        }
        // Magma CTR, both S-box variants and both S-box sets; the IV's last byte near 0xff
        // exercises the counter carry.
        for sbox in SBox::ALL {
            let cpu = Magma::with_backend(&key, *sbox, Backend::Portable).unwrap();
            let mut iv = random(&mut rng, 4);
            iv[3] = 0xff;
            for variant in [MagmaVariant::Tables, MagmaVariant::Boolean] {
                let job = GpuJob::magma_ctr(&key, &iv, *sbox, variant).unwrap();
                for len in lengths(8) {
                    let pt = random(&mut rng, len);
                    let mut want = pt.clone();
                    ctr::apply_gost(&cpu, &iv, &mut want).unwrap();
                    let mut got = pt.clone();
                    ctx.apply(&job, &mut got).unwrap();
                    assert_eq!(got, want, "{} {} len {len}", job.label(), sbox.name());
                }
            }
        }
        // Kuznyechik CTR.
        let cpu = Kuznyechik::with_backend(&key, Backend::Portable).unwrap();
        let iv = random(&mut rng, 8);
        let job = GpuJob::kuznyechik_ctr(&key, &iv).unwrap();
        for len in lengths(16) {
            let pt = random(&mut rng, len);
            let mut want = pt.clone();
            ctr::apply_gost(&cpu, &iv, &mut want).unwrap();
            let mut got = pt.clone();
            ctx.apply(&job, &mut got).unwrap();
            assert_eq!(got, want, "kuznyechik-ctr len {len}");
        }
        // AES-128 / AES-256 CTR with a counter block whose low 64 bits are about to wrap.
        for key_len in [16, 32] {
            let cpu = Aes::with_backend(&key[..key_len], Backend::Portable).unwrap();
            let mut block = random(&mut rng, 16);
            block[8..].fill(0xff);
            block[15] = 0xf0;
            let job = GpuJob::aes_ctr(&key[..key_len], &block).unwrap();
            for len in lengths(16) {
                let pt = random(&mut rng, len);
                let mut want = pt.clone();
                ctr::apply(&cpu, &block, &mut want).unwrap();
                let mut got = pt.clone();
                ctx.apply(&job, &mut got).unwrap();
                assert_eq!(got, want, "{} len {len}", job.label());
            }
        }
    }
}

#[test]
fn ecb_kernels_match_the_cpu() {
    let Some((_guard, ctx)) = context("ecb_kernels_match_the_cpu") else {
        return;
    };
    let mut rng = rng();
    let key = random(&mut rng, 32);
    let check = |job: GpuJob, cpu: &dyn BlockCipher, rng: &mut rand::rngs::StdRng| {
        let n = cpu.block_size();
        for blocks in [0, 1, 2, 513, 2600] {
            let pt = random(rng, blocks * n);
            let mut want = pt.clone();
            cpu.encrypt_blocks(&mut want);
            let mut got = pt.clone();
            ctx.apply(&job, &mut got).unwrap();
            assert_eq!(got, want, "{} blocks {blocks}", job.label());
        }
        let mut odd = vec![0u8; n + 1];
        assert!(matches!(
            ctx.apply(&job, &mut odd),
            Err(GpuError::Invalid(_))
        ));
    };
    for variant in [MagmaVariant::Tables, MagmaVariant::Boolean] {
        let cpu = Magma::with_backend(&key, SBox::Tc26Z, Backend::Portable).unwrap();
        check(
            GpuJob::magma_ecb(&key, SBox::Tc26Z, variant).unwrap(),
            &cpu,
            &mut rng,
        );
    }
    let cpu = Kuznyechik::with_backend(&key, Backend::Portable).unwrap();
    check(GpuJob::kuznyechik_ecb(&key).unwrap(), &cpu, &mut rng);
    for key_len in [16, 32] {
        let cpu = Aes::with_backend(&key[..key_len], Backend::Portable).unwrap();
        check(GpuJob::aes_ecb(&key[..key_len]).unwrap(), &cpu, &mut rng);
    }
}

#[test]
fn multistream_magma_matches_the_cpu() {
    let Some((_guard, ctx)) = context("multistream_magma_matches_the_cpu") else {
        return;
    };
    let mut rng = rng();
    for (streams, stream_len) in [(1usize, 8usize), (300, 72), (1000, 512), (5, 0)] {
        let keys: Vec<[u8; 32]> = (0..streams).map(|_| rng.gen()).collect();
        let ivs: Vec<[u8; 8]> = (0..streams).map(|_| rng.gen()).collect();
        let data = random(&mut rng, streams * stream_len);
        let ciphers: Vec<Magma> = keys
            .iter()
            .map(|k| Magma::with_backend(k, SBox::Tc26Z, Backend::Portable).unwrap())
            .collect();
        let refs: Vec<&Magma> = ciphers.iter().collect();
        let iv_refs: Vec<&[u8]> = ivs.iter().map(|iv| &iv[..]).collect();
        let cpu = |f: &dyn Fn(&mut [&mut [u8]])| {
            let mut out = data.clone();
            if stream_len > 0 {
                let mut pieces: Vec<&mut [u8]> = out.chunks_mut(stream_len).collect();
                f(&mut pieces);
            }
            out
        };
        let gpu = |mode: StreamMode, input: &[u8]| {
            let mut out = input.to_vec();
            let tags = ctx
                .magma_streams(mode, SBox::Tc26Z, &keys, &ivs, &mut out, stream_len)
                .unwrap();
            (out, tags)
        };
        let cfb = cpu(&|p| multistream::cfb_encrypt(&refs, &iv_refs, p).unwrap());
        assert_eq!(
            gpu(StreamMode::CfbEncrypt, &data).0,
            cfb,
            "cfb {streams}x{stream_len}"
        );
        assert_eq!(
            gpu(StreamMode::CfbDecrypt, &cfb).0,
            data,
            "cfb-dec {streams}x{stream_len}"
        );
        let cbc = cpu(&|p| multistream::cbc_encrypt(&refs, &iv_refs, p).unwrap());
        assert_eq!(
            gpu(StreamMode::CbcEncrypt, &data).0,
            cbc,
            "cbc {streams}x{stream_len}"
        );
        assert_eq!(
            gpu(StreamMode::CbcDecrypt, &cbc).0,
            data,
            "cbc-dec {streams}x{stream_len}"
        );
        let msgs: Vec<&[u8]> = if stream_len == 0 {
            vec![&[][..]; streams]
        } else {
            data.chunks(stream_len).collect()
        };
        let want = multistream::omac(&refs, &msgs, 8).unwrap();
        let (untouched, tags) = gpu(StreamMode::Mac, &data);
        assert_eq!(untouched, data);
        let tags: Vec<Vec<u8>> = tags.iter().map(|t| t.to_vec()).collect();
        assert_eq!(tags, want, "mac {streams}x{stream_len}");
    }
    let mut bad = vec![0u8; 12];
    let keys = [[0u8; 32]];
    let ivs = [[0u8; 8]];
    assert!(ctx
        .magma_streams(
            StreamMode::CbcEncrypt,
            SBox::Tc26Z,
            &keys,
            &ivs,
            &mut bad,
            12
        )
        .is_err());
}

#[test]
fn device_resident_timing_runs() {
    let Some((_guard, ctx)) = context("device_resident_timing_runs") else {
        return;
    };
    let job = GpuJob::chacha20(&[1u8; 32], &[2u8; 12], 0).unwrap();
    let t = ctx.time_resident(&job, 1 << 16, 2).unwrap();
    assert!(t.as_nanos() > 0);
    let keys = vec![[3u8; 32]; 64];
    let ivs = vec![[4u8; 8]; 64];
    let t = ctx
        .time_magma_streams(StreamMode::CfbEncrypt, &keys, &ivs, 512, 2)
        .unwrap();
    assert!(t.as_nanos() > 0);
}
