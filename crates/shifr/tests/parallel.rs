//! The multi-core engine gives byte-identical results for every thread count (1..8) and split
//! threshold, equal to the single-thread modes (themselves tested against RustCrypto), on odd
//! sizes; CTR across a counter wrap is also checked against RustCrypto's ctr + des directly.

use cipher::{KeyIvInit, StreamCipher};
use rand::rngs::StdRng;
use rand::{Rng, RngCore, SeedableRng};
use shifr::hazmat::block::aes::Aes;
use shifr::hazmat::block::tdes::Tdes;
use shifr::hazmat::block::BlockCipher;
use shifr::hazmat::mode::{cbc, ctr, ecb, multistream};
use shifr::parallel::{Engine, DEFAULT_MIN_PARALLEL};
use shifr::Error;

fn random_bytes(rng: &mut StdRng, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    rng.fill_bytes(&mut v);
    v
}

/// Every engine to compare: 1..8 threads, splitting from 1 byte (so small inputs are split too)
/// and from a middle size.
fn engines() -> Vec<Engine> {
    (1..=8)
        .flat_map(|t| {
            [
                Engine::new(t).with_min_parallel(1),
                Engine::new(t).with_min_parallel(3000),
            ]
        })
        .collect()
}

/// Block counts around the part boundaries for up to 8 threads.
const BLOCKS: &[usize] = &[0, 1, 2, 7, 8, 9, 63, 64, 65, 1000, 4099];

fn check_block_modes<C: BlockCipher>(c: &C, rng: &mut StdRng) {
    let n = c.block_size();
    for &blocks in BLOCKS {
        let pt = random_bytes(rng, blocks * n);
        let mut ecb_expect = pt.clone();
        ecb::encrypt(c, &mut ecb_expect).unwrap();
        let mut ecb_dec_expect = pt.clone();
        ecb::decrypt(c, &mut ecb_dec_expect).unwrap();
        let iv = random_bytes(rng, n);
        let mut cbc_expect = pt.clone();
        cbc::decrypt(c, &iv, &mut cbc_expect).unwrap();
        // A GOST-style register of three blocks.
        let iv3 = random_bytes(rng, 3 * n);
        let mut cbc3_expect = pt.clone();
        cbc::decrypt(c, &iv3, &mut cbc3_expect).unwrap();
        for e in engines() {
            let tag = format!(
                "{} threads, min {}, {blocks} blocks",
                e.threads(),
                e.min_parallel()
            );
            let mut data = pt.clone();
            e.ecb_encrypt(c, &mut data).unwrap();
            assert_eq!(data, ecb_expect, "ecb encrypt, {tag}");
            let mut data = pt.clone();
            e.ecb_decrypt(c, &mut data).unwrap();
            assert_eq!(data, ecb_dec_expect, "ecb decrypt, {tag}");
            let mut data = pt.clone();
            e.cbc_decrypt(c, &iv, &mut data).unwrap();
            assert_eq!(data, cbc_expect, "cbc decrypt, {tag}");
            let mut data = pt.clone();
            e.cbc_decrypt(c, &iv3, &mut data).unwrap();
            assert_eq!(data, cbc3_expect, "cbc decrypt z = 3, {tag}");
        }
    }
    for len in [0, 1, n - 1, n, n + 1, 1000 * n + 3, 4099 * n - 5] {
        let pt = random_bytes(rng, len);
        let mut counter = random_bytes(rng, n);
        // Low bytes near the wrap so that parts carry into higher bytes.
        counter[n - 2..].copy_from_slice(&[0xff, 0xf0]);
        let mut expect = pt.clone();
        ctr::apply(c, &counter, &mut expect).unwrap();
        for e in engines() {
            let mut data = pt.clone();
            e.ctr_apply(c, &counter, &mut data).unwrap();
            assert_eq!(data, expect, "ctr, {} threads, {len} bytes", e.threads());
        }
    }
}

#[test]
fn tdes_block_modes_identical_for_any_thread_count() {
    let mut rng = StdRng::seed_from_u64(0xe1_0001);
    let key = random_bytes(&mut rng, 24);
    check_block_modes(&Tdes::new(&key).unwrap(), &mut rng);
}

#[test]
fn aes_block_modes_identical_for_any_thread_count() {
    let mut rng = StdRng::seed_from_u64(0xe1_0002);
    let key = random_bytes(&mut rng, 16);
    check_block_modes(&Aes::new(&key).unwrap(), &mut rng);
}

#[test]
fn ctr_across_the_counter_wrap_matches_rustcrypto() {
    let mut rng = StdRng::seed_from_u64(0xe1_0003);
    let key = random_bytes(&mut rng, 24);
    let ours = Tdes::new(&key).unwrap();
    // The 64-bit counter wraps to zero inside the message, in some part but not the first.
    let counter = 0xffff_ffff_ffff_ff00u64.to_be_bytes();
    let pt = random_bytes(&mut rng, 5000 * 8 + 5);
    let mut expect = pt.clone();
    ::ctr::Ctr64BE::<des::TdesEde3>::new_from_slices(&key, &counter)
        .unwrap()
        .apply_keystream(&mut expect);
    for t in 1..=8 {
        let mut data = pt.clone();
        Engine::new(t)
            .with_min_parallel(1)
            .ctr_apply(&ours, &counter, &mut data)
            .unwrap();
        assert_eq!(data, expect, "{t} threads");
    }
}

#[test]
fn multistream_identical_for_any_thread_count() {
    let mut rng = StdRng::seed_from_u64(0xe1_0004);
    for streams in [1, 3, 17, 40] {
        let keys: Vec<Vec<u8>> = (0..streams).map(|_| random_bytes(&mut rng, 24)).collect();
        let ciphers: Vec<Tdes> = keys.iter().map(|k| Tdes::new(k).unwrap()).collect();
        let refs: Vec<&Tdes> = ciphers.iter().collect();
        let ivs: Vec<Vec<u8>> = (0..streams).map(|_| random_bytes(&mut rng, 8)).collect();
        let iv_refs: Vec<&[u8]> = ivs.iter().map(|v| v.as_slice()).collect();
        let blocks: Vec<usize> = (0..streams).map(|_| rng.gen_range(0..70)).collect();
        let pts: Vec<Vec<u8>> = blocks
            .iter()
            .map(|&b| random_bytes(&mut rng, b * 8))
            .collect();
        // Full-block CFB accepts any length.
        let odd: Vec<Vec<u8>> = (0..streams)
            .map(|_| {
                let len = rng.gen_range(0..500);
                random_bytes(&mut rng, len)
            })
            .collect();

        type Run = fn(&Engine, &[&Tdes], &[&[u8]], &mut [&mut [u8]]) -> shifr::Result<()>;
        type Single = fn(&[&Tdes], &[&[u8]], &mut [&mut [u8]]) -> shifr::Result<()>;
        let cases: [(&str, Run, Single, &Vec<Vec<u8>>); 4] = [
            (
                "cbc encrypt",
                Engine::multistream_cbc_encrypt,
                multistream::cbc_encrypt,
                &pts,
            ),
            (
                "cbc decrypt",
                Engine::multistream_cbc_decrypt,
                multistream::cbc_decrypt,
                &pts,
            ),
            (
                "cfb encrypt",
                Engine::multistream_cfb_encrypt,
                multistream::cfb_encrypt,
                &odd,
            ),
            (
                "cfb decrypt",
                Engine::multistream_cfb_decrypt,
                multistream::cfb_decrypt,
                &odd,
            ),
        ];
        for (name, run, single, inputs) in cases {
            let mut expect = inputs.clone();
            let mut views: Vec<&mut [u8]> = expect.iter_mut().map(|v| v.as_mut_slice()).collect();
            single(&refs, &iv_refs, &mut views).unwrap();
            for e in engines() {
                let mut got = inputs.clone();
                let mut views: Vec<&mut [u8]> = got.iter_mut().map(|v| v.as_mut_slice()).collect();
                run(&e, &refs, &iv_refs, &mut views).unwrap();
                assert_eq!(
                    got,
                    expect,
                    "{name}, {streams} streams, {} threads",
                    e.threads()
                );
            }
        }
    }
}

#[test]
fn errors_do_not_depend_on_the_thread_count() {
    let c = Tdes::new(&[7u8; 24]).unwrap();
    for e in engines() {
        let mut data = vec![0u8; 8 * 1000 + 3];
        assert!(matches!(
            e.ecb_encrypt(&c, &mut data),
            Err(Error::NotBlockAligned { block: 8, .. })
        ));
        assert!(matches!(
            e.ecb_decrypt(&c, &mut data),
            Err(Error::NotBlockAligned { block: 8, .. })
        ));
        assert!(matches!(
            e.cbc_decrypt(&c, &[0u8; 8], &mut data),
            Err(Error::NotBlockAligned { block: 8, .. })
        ));
        let mut aligned = vec![0u8; 8 * 1000];
        assert!(matches!(
            e.cbc_decrypt(&c, &[0u8; 7], &mut aligned),
            Err(Error::InvalidIvLength { got: 7, .. })
        ));
        assert!(matches!(
            e.ctr_apply(&c, &[0u8; 16], &mut data),
            Err(Error::InvalidIvLength { got: 16, .. })
        ));
        // Multi-stream: a misaligned stream and a wrong IV are found before any split.
        let refs = vec![&c; 20];
        let ivs = vec![&[0u8; 8][..]; 20];
        let mut bufs: Vec<Vec<u8>> = (0..20)
            .map(|i| vec![0u8; 800 + usize::from(i == 19)])
            .collect();
        let mut views: Vec<&mut [u8]> = bufs.iter_mut().map(|v| v.as_mut_slice()).collect();
        assert!(matches!(
            e.multistream_cbc_encrypt(&refs, &ivs, &mut views),
            Err(Error::NotBlockAligned { block: 8, got: 801 })
        ));
        let mut bad_ivs = ivs.clone();
        bad_ivs[5] = &[0u8; 9];
        assert!(matches!(
            e.multistream_cfb_encrypt(&refs, &bad_ivs, &mut views),
            Err(Error::InvalidIvLength { got: 9, .. })
        ));
        assert!(matches!(
            e.multistream_cbc_decrypt(&refs[..19], &ivs, &mut views),
            Err(Error::InvalidParameter(_))
        ));
    }
}

#[test]
fn thread_count_zero_means_every_core_and_defaults() {
    let e = Engine::new(0);
    assert!(e.threads() >= 1);
    assert_eq!(e.min_parallel(), DEFAULT_MIN_PARALLEL);
    assert_eq!(Engine::new(3).threads(), 3);
}

/// A job large enough to be cut into many parts per thread (handed out dynamically by the pool)
/// still gives the single-thread result, for ECB, CBC decryption and CTR, and an engine reused for
/// many jobs in a row (its workers parked in between) keeps doing so.
#[test]
fn many_parts_per_thread_identical_to_one_thread() {
    let mut rng = StdRng::seed_from_u64(11);
    let c = Aes::new(&random_bytes(&mut rng, 16)).unwrap();
    let pt = random_bytes(&mut rng, (3 << 20) + 48);
    let iv = random_bytes(&mut rng, 16);
    let mut ecb_expect = pt.clone();
    ecb::encrypt(&c, &mut ecb_expect).unwrap();
    let mut cbc_expect = pt.clone();
    cbc::decrypt(&c, &iv, &mut cbc_expect).unwrap();
    let mut ctr_expect = pt[5..].to_vec();
    ctr::apply(&c, &iv, &mut ctr_expect).unwrap();
    for threads in [2, 3, 5] {
        let e = Engine::new(threads);
        for round in 0..3 {
            let tag = format!("{threads} threads, round {round}");
            let mut data = pt.clone();
            e.ecb_encrypt(&c, &mut data).unwrap();
            assert!(data == ecb_expect, "ecb, {tag}");
            let mut data = pt.clone();
            e.cbc_decrypt(&c, &iv, &mut data).unwrap();
            assert!(data == cbc_expect, "cbc, {tag}");
            let mut data = pt[5..].to_vec();
            e.ctr_apply(&c, &iv, &mut data).unwrap();
            assert!(data == ctr_expect, "ctr, {tag}");
        }
    }
}

/// A cipher whose every call panics: the engine reports an internal error ([`Error::Internal`],
/// not a parameter error: the caller's input was fine) instead of hanging or unwinding, and stays
/// usable.
struct Panicking;

impl BlockCipher for Panicking {
    fn block_size(&self) -> usize {
        16
    }

    fn encrypt_blocks(&self, data: &mut [u8]) {
        assert!(data.is_empty(), "this cipher always fails");
    }

    fn decrypt_blocks(&self, data: &mut [u8]) {
        assert!(data.is_empty(), "this cipher always fails");
    }
}

#[test]
fn a_panic_inside_a_part_becomes_an_error() {
    let mut data = vec![0u8; 64 * 1024];
    for threads in [2, 4] {
        let e = Engine::new(threads).with_min_parallel(1);
        let err = e.ecb_encrypt(&Panicking, &mut data).unwrap_err();
        assert!(matches!(err, Error::Internal(_)), "{err:?}");
        assert!(err.to_string().starts_with("internal error: "), "{err}");
        assert!(matches!(
            e.ecb_decrypt(&Panicking, &mut data),
            Err(Error::Internal(_))
        ));
        let c = Aes::new(&[1u8; 16]).unwrap();
        let mut expect = data.clone();
        ecb::encrypt(&c, &mut expect).unwrap();
        e.ecb_encrypt(&c, &mut data).unwrap();
        assert!(data == expect, "{threads} threads after a panic");
    }
}
