//! Multi-stream Kuznyechik on the GPU (`GpuContext::kuznyechik_streams`) against the CPU library:
//! the multi-stream API (`shifr::hazmat::mode::multistream`) for every stream and the single-stream modes
//! (`mode::cfb`, `mode::cbc`, `mac::omac`) for the first and last stream, on random keys, IVs and
//! data, 1 / 3 / 64 / 1000 streams of 0 / 16 / 512 bytes; rejected layouts; and the constant tables
//! uploaded once per context. Runs on whatever device is present (PoCL's CPU device in CI); with
//! none, each test prints the reason and passes.

mod support;

use rand::{Rng, RngCore, SeedableRng};
use shifr::cpu::Backend;
use shifr::hazmat::block::kuznyechik::Kuznyechik;
use shifr::hazmat::mac::omac;
use shifr::hazmat::mode::{cbc, cfb, multistream};
use shifr_gpu::{GpuContext, GpuError, GpuJob, StreamMode};

/// The tests share one device and run one at a time (PoCL's start-up is not safe to race).
static DEVICE: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn context(test: &str) -> Option<(std::sync::MutexGuard<'static, ()>, GpuContext)> {
    let guard = DEVICE.lock().unwrap_or_else(|e| e.into_inner());
    match GpuContext::new() {
        Ok(ctx) => {
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

/// What the CPU library gives for one layout: (CFB, CBC ciphertexts, OMAC tags).
struct Expected {
    cfb: Vec<u8>,
    cbc: Vec<u8>,
    tags: Vec<Vec<u8>>,
}

fn cpu_multistream(
    ciphers: &[Kuznyechik],
    ivs: &[[u8; 16]],
    data: &[u8],
    stream_len: usize,
) -> Expected {
    let refs: Vec<&Kuznyechik> = ciphers.iter().collect();
    let iv_refs: Vec<&[u8]> = ivs.iter().map(|iv| &iv[..]).collect();
    let run = |f: &dyn Fn(&mut [&mut [u8]])| {
        let mut out = data.to_vec();
        let mut pieces: Vec<&mut [u8]> = if stream_len == 0 {
            ciphers.iter().map(|_| &mut [][..]).collect()
        } else {
            out.chunks_mut(stream_len).collect()
        };
        f(&mut pieces);
        out
    };
    let msgs: Vec<&[u8]> = if stream_len == 0 {
        vec![&[][..]; ciphers.len()]
    } else {
        data.chunks(stream_len).collect()
    };
    Expected {
        cfb: run(&|p| multistream::cfb_encrypt(&refs, &iv_refs, p).unwrap()),
        cbc: run(&|p| multistream::cbc_encrypt(&refs, &iv_refs, p).unwrap()),
        tags: multistream::omac(&refs, &msgs, 16).unwrap(),
    }
}

/// Stream `i` through the single-stream CPU modes agrees with `want` (independent of the
/// multi-stream walk).
fn check_single(cipher: &Kuznyechik, iv: &[u8; 16], pt: &[u8], want: &Expected, at: usize) {
    let len = pt.len();
    let mut c = pt.to_vec();
    cfb::encrypt(cipher, iv, 16, &mut c).unwrap();
    assert_eq!(c, want.cfb[at..at + len], "single-stream cfb");
    let mut c = pt.to_vec();
    cbc::encrypt(cipher, iv, &mut c).unwrap();
    assert_eq!(c, want.cbc[at..at + len], "single-stream cbc");
}

#[test]
fn kuznyechik_streams_match_the_cpu() {
    let Some((_guard, ctx)) = context("kuznyechik_streams_match_the_cpu") else {
        return;
    };
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x6b75_7a6e);
    let start = std::time::Instant::now();
    for streams in [1usize, 3, 64, 1000] {
        for stream_len in [0usize, 16, 512] {
            let what = format!("{streams} x {stream_len} B");
            let keys: Vec<[u8; 32]> = (0..streams).map(|_| rng.gen()).collect();
            let ivs: Vec<[u8; 16]> = (0..streams).map(|_| rng.gen()).collect();
            let mut data = vec![0u8; streams * stream_len];
            rng.fill_bytes(&mut data);
            let ciphers: Vec<Kuznyechik> = keys
                .iter()
                .map(|k| Kuznyechik::with_backend(k, Backend::Portable).unwrap())
                .collect();
            let want = cpu_multistream(&ciphers, &ivs, &data, stream_len);
            for i in [0, streams - 1] {
                let at = i * stream_len;
                let pt = &data[at..at + stream_len];
                check_single(&ciphers[i], &ivs[i], pt, &want, at);
                assert_eq!(
                    omac::omac(&ciphers[i], 16, pt).unwrap(),
                    want.tags[i],
                    "single-stream omac {what}"
                );
            }

            let gpu = |mode: StreamMode, input: &[u8]| {
                let mut out = input.to_vec();
                let tags = ctx
                    .kuznyechik_streams(mode, &keys, &ivs, &mut out, stream_len)
                    .unwrap();
                (out, tags)
            };
            let (cfb, none) = gpu(StreamMode::CfbEncrypt, &data);
            assert_eq!(cfb, want.cfb, "cfb-encrypt {what}");
            assert!(none.is_empty());
            assert_eq!(
                gpu(StreamMode::CfbDecrypt, &want.cfb).0,
                data,
                "cfb-decrypt {what}"
            );
            assert_eq!(
                gpu(StreamMode::CbcEncrypt, &data).0,
                want.cbc,
                "cbc-encrypt {what}"
            );
            assert_eq!(
                gpu(StreamMode::CbcDecrypt, &want.cbc).0,
                data,
                "cbc-decrypt {what}"
            );
            let (untouched, tags) = gpu(StreamMode::Mac, &data);
            assert_eq!(untouched, data, "mac leaves the data alone {what}");
            let tags: Vec<Vec<u8>> = tags.iter().map(|t| t.to_vec()).collect();
            assert_eq!(tags, want.tags, "mac {what}");
        }
    }
    eprintln!("kuznyechik streams: {:?}", start.elapsed());
}

#[test]
fn kuznyechik_streams_reject_bad_layouts() {
    let Some((_guard, ctx)) = context("kuznyechik_streams_reject_bad_layouts") else {
        return;
    };
    let keys = [[1u8; 32], [2u8; 32]];
    let ivs = [[3u8; 16], [4u8; 16]];
    let invalid = |r: Result<Vec<[u8; 16]>, GpuError>| matches!(r, Err(GpuError::Invalid(_)));
    // Not whole blocks, data not one piece per key, one IV short.
    let mut odd = vec![0u8; 2 * 24];
    assert!(invalid(ctx.kuznyechik_streams(
        StreamMode::CfbEncrypt,
        &keys,
        &ivs,
        &mut odd,
        24
    )));
    let mut short = vec![0u8; 16 + 32];
    assert!(invalid(ctx.kuznyechik_streams(
        StreamMode::CbcEncrypt,
        &keys,
        &ivs,
        &mut short,
        32
    )));
    let mut data = vec![0u8; 64];
    assert!(invalid(ctx.kuznyechik_streams(
        StreamMode::CbcDecrypt,
        &keys,
        &ivs[..1],
        &mut data,
        32
    )));
    // MAC needs no IVs; no streams is no work.
    assert_eq!(
        ctx.kuznyechik_streams(StreamMode::Mac, &keys, &[], &mut data, 32)
            .unwrap()
            .len(),
        2
    );
    assert!(ctx
        .kuznyechik_streams(StreamMode::CfbEncrypt, &[], &[], &mut [], 512)
        .unwrap()
        .is_empty());
}

#[test]
fn constant_tables_are_uploaded_once_per_context() {
    let Some((_guard, ctx)) = context("constant_tables_are_uploaded_once_per_context") else {
        return;
    };
    assert_eq!(ctx.table_uploads(), 0);
    let keys = vec![[7u8; 32]; 3];
    let ivs = vec![[8u8; 16]; 3];
    let mut data = vec![0u8; 3 * 64];
    ctx.kuznyechik_streams(StreamMode::CfbEncrypt, &keys, &ivs, &mut data, 64)
        .unwrap();
    // LS tables, key-schedule constants, inverse tables.
    assert_eq!(ctx.table_uploads(), 3);
    let job = GpuJob::kuznyechik_ctr(&[9u8; 32], &[1u8; 8]).unwrap();
    for _ in 0..3 {
        ctx.apply(&job, &mut data).unwrap();
        ctx.kuznyechik_streams(StreamMode::Mac, &keys, &ivs, &mut data, 64)
            .unwrap();
        ctx.time_kuznyechik_streams(StreamMode::CbcEncrypt, &keys, &ivs, 64, 1)
            .unwrap();
    }
    // The CTR job reuses the LS tables: nothing new, whatever the number of calls.
    assert_eq!(ctx.table_uploads(), 3);
    let aes = GpuJob::aes_ctr(&[5u8; 16], &[0u8; 16]).unwrap();
    ctx.apply(&aes, &mut data).unwrap();
    ctx.apply(&aes, &mut data).unwrap();
    assert_eq!(ctx.table_uploads(), 4);
}
