//! Every Magma / GOST 28147-89 backend this CPU can run, checked against the portable backend (the
//! oracle) on random keys and data: both S-box sets, both byte conventions, odd block counts,
//! misaligned buffers, and multi-stream calls with 1..40 different keys.

use rand::RngCore;
use shifr::cpu::{self, Backend};
use shifr::hazmat::block::magma::{Gost28147, Magma, SBox};
use shifr::hazmat::block::{BlockCipher, Feedback};
use shifr::hazmat::mode::ctr;
use shifr::Error;

const BLOCK_COUNTS: &[usize] = &[0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 1000];

fn random_bytes(len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rand::thread_rng().fill_bytes(&mut v);
    v
}

type Make<C> = fn(&[u8], SBox, Backend) -> shifr::Result<C>;

/// The SIMD backends this CPU must offer for Magma, from its features (so that a backend missing
/// by mistake fails here instead of being skipped).
fn simd_backends() -> Vec<Backend> {
    let mut v = Vec::new();
    if cpu::has_feature("avx2") {
        v.push(Backend::Avx2);
    }
    if cpu::has_feature("avx512vbmi") && Backend::Avx512.is_supported() {
        v.push(Backend::Avx512);
    }
    // The NEON backend needs only the AArch64 baseline (little-endian lane layout).
    if cfg!(all(target_arch = "aarch64", target_endian = "little")) {
        v.push(Backend::Neon);
    }
    v
}

#[test]
fn expected_backends_are_available() {
    let key = [7u8; 32];
    for b in simd_backends() {
        let m = Magma::with_backend(&key, SBox::Tc26Z, b).unwrap();
        assert_eq!(m.backend(), b);
        let g = Gost28147::with_backend(&key, SBox::CryptoProA, b).unwrap();
        assert_eq!(g.backend(), b);
    }
    for b in [Backend::AesNi, Backend::Gfni, Backend::Neon] {
        if simd_backends().contains(&b) {
            continue;
        }
        assert_eq!(
            Magma::with_backend(&key, SBox::Tc26Z, b).unwrap_err(),
            Error::BackendUnavailable(b.name())
        );
    }
    eprintln!("SIMD backends tested here: {:?}", simd_backends());
}

#[test]
fn every_backend_matches_the_rfc8891_vector() {
    // RFC 8891 A.5 (also in /work/shared/vectors/gost.txt).
    let key =
        hex::decode("ffeeddccbbaa99887766554433221100f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff").unwrap();
    for b in simd_backends() {
        let c = Magma::with_backend(&key, SBox::Tc26Z, b).unwrap();
        // 17 copies: the wide path, the single-group path and the tail all see the vector.
        let mut data = hex::decode("fedcba9876543210").unwrap().repeat(17);
        c.encrypt_blocks(&mut data);
        for block in data.chunks_exact(8) {
            assert_eq!(hex::encode(block), "4ee901e5c2d8ca3d", "{b:?}");
        }
    }
}

fn check_blocks<C: BlockCipher>(make: Make<C>) {
    for b in simd_backends() {
        for &sbox in SBox::ALL {
            for &n in BLOCK_COUNTS {
                let key = random_bytes(32);
                let fast = make(&key, sbox, b).unwrap();
                let oracle = make(&key, sbox, Backend::Portable).unwrap();
                // A buffer at offset 1 of a larger Vec, with three trailing bytes that must stay.
                let mut buf = random_bytes(1 + 8 * n + 3);
                let original = buf.clone();
                let mut want = buf[1..].to_vec();
                oracle.encrypt_blocks(&mut want);
                fast.encrypt_blocks(&mut buf[1..]);
                assert_eq!(buf[0], original[0]);
                assert_eq!(buf[1..], want[..], "{b:?} {sbox:?} {n} blocks");
                assert_eq!(buf[1 + 8 * n..], original[1 + 8 * n..]);
                fast.decrypt_blocks(&mut buf[1..]);
                assert_eq!(buf, original, "{b:?} {sbox:?} {n} blocks decrypt");
                // Decryption of random data, against the oracle too.
                oracle.decrypt_blocks(&mut want);
                let mut got = buf[1..].to_vec();
                fast.encrypt_blocks(&mut got);
                fast.decrypt_blocks(&mut got);
                assert_eq!(got, buf[1..]);
            }
        }
    }
}

#[test]
fn magma_blocks_match_portable() {
    check_blocks(Magma::with_backend);
}

#[test]
fn gost28147_blocks_match_portable() {
    check_blocks(Gost28147::with_backend);
}

fn check_decrypt<C: BlockCipher>(make: Make<C>) {
    for b in simd_backends() {
        for &sbox in SBox::ALL {
            for &n in &[1, 9, 33, 100] {
                let key = random_bytes(32);
                let fast = make(&key, sbox, b).unwrap();
                let oracle = make(&key, sbox, Backend::Portable).unwrap();
                let data = random_bytes(8 * n);
                let (mut x, mut y) = (data.clone(), data);
                fast.decrypt_blocks(&mut x);
                oracle.decrypt_blocks(&mut y);
                assert_eq!(x, y, "{b:?} {sbox:?} {n} blocks");
            }
        }
    }
}

#[test]
fn decryption_of_random_data_matches_portable() {
    check_decrypt(Magma::with_backend);
    check_decrypt(Gost28147::with_backend);
}

fn check_lanes<C: BlockCipher>(make: Make<C>) {
    for b in simd_backends() {
        for &sbox in SBox::ALL {
            for n in 1..=40 {
                let keys: Vec<Vec<u8>> = (0..n).map(|_| random_bytes(32)).collect();
                let fast: Vec<C> = keys.iter().map(|k| make(k, sbox, b).unwrap()).collect();
                let oracle: Vec<C> = keys
                    .iter()
                    .map(|k| make(k, sbox, Backend::Portable).unwrap())
                    .collect();
                let refs: Vec<&C> = fast.iter().collect();
                // Offset 1 and one extra block that no cipher owns.
                let mut buf = random_bytes(1 + 8 * n + 8);
                let original = buf.clone();
                let mut want = buf[1..1 + 8 * n].to_vec();
                for (c, block) in oracle.iter().zip(want.chunks_exact_mut(8)) {
                    c.encrypt_blocks(block);
                }
                C::encrypt_lanes(&refs, &mut buf[1..]);
                assert_eq!(buf[1..1 + 8 * n], want[..], "{b:?} {sbox:?} {n} lanes");
                assert_eq!(buf[0], original[0]);
                assert_eq!(buf[1 + 8 * n..], original[1 + 8 * n..]);
                C::decrypt_lanes(&refs, &mut buf[1..]);
                assert_eq!(buf, original, "{b:?} {sbox:?} {n} lanes decrypt");
            }
        }
    }
}

#[test]
fn magma_lanes_match_portable() {
    check_lanes(Magma::with_backend);
}

#[test]
fn gost28147_lanes_match_portable() {
    check_lanes(Gost28147::with_backend);
}

#[test]
fn lanes_with_mixed_backends_or_sboxes_stay_correct() {
    let mut backends = simd_backends();
    backends.push(Backend::Portable);
    let n = 20;
    let keys: Vec<Vec<u8>> = (0..n).map(|_| random_bytes(32)).collect();
    let sbox = |i: usize| SBox::ALL[(i / 3) % SBox::ALL.len()];
    let mixed: Vec<Magma> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| Magma::with_backend(k, sbox(i), backends[i % backends.len()]).unwrap())
        .collect();
    let refs: Vec<&Magma> = mixed.iter().collect();
    let mut data = random_bytes(8 * n);
    let mut want = data.clone();
    for (i, (k, block)) in keys.iter().zip(want.chunks_exact_mut(8)).enumerate() {
        Magma::with_backend(k, sbox(i), Backend::Portable)
            .unwrap()
            .encrypt_blocks(block);
    }
    Magma::encrypt_lanes(&refs, &mut data);
    assert_eq!(data, want);
}

#[test]
fn lanes_with_short_buffers_touch_only_whole_blocks() {
    for b in simd_backends() {
        let keys: Vec<Vec<u8>> = (0..5).map(|_| random_bytes(32)).collect();
        let ciphers: Vec<Magma> = keys
            .iter()
            .map(|k| Magma::with_backend(k, SBox::Tc26Z, b).unwrap())
            .collect();
        let refs: Vec<&Magma> = ciphers.iter().collect();
        // Five ciphers but only three whole blocks and a partial one.
        let mut data = random_bytes(8 * 3 + 5);
        let original = data.clone();
        Magma::encrypt_lanes(&refs, &mut data);
        let mut want = original.clone();
        for (c, block) in ciphers.iter().zip(want.chunks_exact_mut(8)) {
            c.encrypt_blocks(block);
        }
        assert_eq!(data, want, "{b:?}");
        assert_eq!(data[24..], original[24..]);
    }
}

/// The key stream `E(c) || E(c + 1) || ...` (big-endian 64-bit counter blocks, mod 2^64) of the
/// portable backend, XORed into `data`.
fn oracle_ctr<C: BlockCipher>(oracle: &C, start: u64, data: &mut [u8]) {
    let mut ks: Vec<u8> = (0..data.len().div_ceil(8) as u64)
        .flat_map(|i| start.wrapping_add(i).to_be_bytes())
        .collect();
    oracle.encrypt_blocks(&mut ks);
    for (d, k) in data.iter_mut().zip(&ks) {
        *d ^= k;
    }
}

fn check_ctr<C: BlockCipher>(make: Make<C>) {
    // Around every pass width (16 blocks per group, 64 per pass), partial blocks included.
    let lengths = [
        0usize, 1, 7, 8, 9, 127, 128, 129, 255, 256, 257, 383, 384, 385, 511, 512, 513, 1000, 1024,
        1029, 4099,
    ];
    // Random, across a 32-bit carry, and across the 64-bit wrap.
    let starts = [
        rand::random::<u64>(),
        0x0000_0000_ffff_fff5,
        0x1234_5678_ffff_ffc0,
        0xffff_ffff_ffff_ffd0,
    ];
    for b in simd_backends() {
        for &sbox in SBox::ALL {
            for &start in &starts {
                for &len in &lengths {
                    let key = random_bytes(32);
                    let fast = make(&key, sbox, b).unwrap();
                    let oracle = make(&key, sbox, Backend::Portable).unwrap();
                    let data = random_bytes(len);
                    let mut want = data.clone();
                    oracle_ctr(&oracle, start, &mut want);
                    let mut got = data.clone();
                    let mut counter = start.to_be_bytes();
                    if !fast.ctr_xor(&mut counter, &mut got) {
                        // No fused path on this backend: the mode's batches run instead.
                        assert!(!oracle.ctr_xor(&mut counter, &mut got));
                        continue;
                    }
                    assert_eq!(got, want, "{b:?} {sbox:?} start {start:#x}, {len} bytes");
                    let next = start.wrapping_add(len.div_ceil(8) as u64);
                    assert_eq!(u64::from_be_bytes(counter), next, "{b:?} {len} bytes");
                    // Through the mode as well (GOST R 34.13 CTR from a random IV half).
                    let iv = random_bytes(4);
                    let (mut x, mut y) = (data.clone(), data);
                    ctr::apply_gost(&fast, &iv, &mut x).unwrap();
                    ctr::apply_gost(&oracle, &iv, &mut y).unwrap();
                    assert_eq!(x, y, "{b:?} {sbox:?} apply_gost, {len} bytes");
                }
            }
        }
    }
}

#[test]
fn magma_ctr_matches_portable() {
    check_ctr(Magma::with_backend);
}

#[test]
fn gost28147_ctr_matches_portable() {
    check_ctr(Gost28147::with_backend);
}

/// One stream of `Feedback` mode `mode` (0 CBC encryption, 1 CFB encryption, 2 CFB decryption,
/// 3 the CBC-MAC chain, 4 OFB) block by block through `c.encrypt_blocks`; returns the register
/// the chain leaves.
fn reference_feedback<C: BlockCipher>(c: &C, mode: usize, iv: &[u8], data: &mut [u8]) -> Vec<u8> {
    let mut r = iv.to_vec();
    for b in data.chunks_exact_mut(8) {
        match mode {
            0 | 3 => {
                r.iter_mut().zip(b.iter()).for_each(|(x, y)| *x ^= y);
                c.encrypt_blocks(&mut r);
                if mode == 0 {
                    b.copy_from_slice(&r);
                }
            }
            1 | 2 => {
                let old = b.to_vec();
                c.encrypt_blocks(&mut r);
                b.iter_mut().zip(&r).for_each(|(x, y)| *x ^= y);
                r = if mode == 1 { b.to_vec() } else { old };
            }
            _ => {
                c.encrypt_blocks(&mut r);
                b.iter_mut().zip(&r).for_each(|(x, y)| *x ^= y);
            }
        }
    }
    r
}

/// `feedback_lanes` (the multi-stream feedback kernel) against the portable backend block by
/// block: 1..=40 streams (one to four groups of eight lanes, partial groups, and more streams than
/// one call of the kernel takes), every mode, short runs.
fn check_feedback<C: BlockCipher>(make: Make<C>) {
    check_feedback_shapes(make, &(1..=40).collect::<Vec<_>>(), &[0, 1, 2, 3, 9]);
}

/// [`check_feedback`] for `streams` counts of streams of each length in `blocks` (in blocks).
fn check_feedback_shapes<C: BlockCipher>(make: Make<C>, streams: &[usize], blocks: &[usize]) {
    for b in simd_backends() {
        for &n in streams {
            let sbox = SBox::ALL[n % SBox::ALL.len()];
            let keys: Vec<Vec<u8>> = (0..n).map(|_| random_bytes(32)).collect();
            let fast: Vec<C> = keys.iter().map(|k| make(k, sbox, b).unwrap()).collect();
            let oracle: Vec<C> = keys
                .iter()
                .map(|k| make(k, sbox, Backend::Portable).unwrap())
                .collect();
            let refs: Vec<&C> = fast.iter().collect();
            for &blocks in blocks {
                for mode in 0..5 {
                    let ivs = random_bytes(8 * n);
                    let input: Vec<Vec<u8>> = (0..n).map(|_| random_bytes(8 * blocks)).collect();
                    let mut data = input.clone();
                    let mut registers = ivs.clone();
                    let done = {
                        let mut streams: Vec<&mut [u8]> =
                            data.iter_mut().map(Vec::as_mut_slice).collect();
                        let read: Vec<&[u8]> = input.iter().map(Vec::as_slice).collect();
                        let run = match mode {
                            0 => Feedback::CbcEncrypt(&mut streams),
                            1 => Feedback::CfbEncrypt(&mut streams),
                            2 => Feedback::CfbDecrypt(&mut streams),
                            3 => Feedback::CbcMac(&read),
                            _ => Feedback::Ofb(&mut streams),
                        };
                        C::feedback_lanes(&refs, &mut registers, run)
                    };
                    if !done {
                        // No kernel on this backend: nothing may have been touched.
                        assert_eq!((&data, &registers), (&input, &ivs), "{b:?}");
                        continue;
                    }
                    for i in 0..n {
                        let mut want = input[i].clone();
                        let iv = &ivs[8 * i..8 * i + 8];
                        let register = reference_feedback(&oracle[i], mode, iv, &mut want);
                        let what = format!("{b:?} mode {mode}, {n} streams, {blocks} blocks, #{i}");
                        assert_eq!(data[i], want, "{what}");
                        assert_eq!(registers[8 * i..8 * i + 8], register[..], "{what}");
                    }
                }
            }
        }
    }
}

#[test]
fn magma_feedback_lanes_match_portable() {
    check_feedback(Magma::with_backend);
}

#[test]
fn gost28147_feedback_lanes_match_portable() {
    check_feedback(Gost28147::with_backend);
}

/// Stream counts around the groups of eight lanes and the 32 streams of one kernel call, and
/// lengths around the kernel's batches of four blocks per stream, up to 600 bytes.
const FEEDBACK_STREAMS: &[usize] = &[1, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32, 33];
const FEEDBACK_BLOCKS: &[usize] = &[4, 5, 6, 7, 8, 11, 12, 13, 64, 75];

#[test]
fn magma_feedback_lanes_match_portable_in_batches() {
    check_feedback_shapes(Magma::with_backend, FEEDBACK_STREAMS, FEEDBACK_BLOCKS);
}

#[test]
fn gost28147_feedback_lanes_match_portable_in_batches() {
    check_feedback_shapes(Gost28147::with_backend, FEEDBACK_STREAMS, FEEDBACK_BLOCKS);
}

/// Stream counts around the one- and two-group kernels that encipher several blocks of a stream
/// per pass in CFB decryption (and the groups past them), and lengths of one to nine blocks and
/// around 512 bytes: a last block alone in a pass, and every fill of the last batch of four.
const PASS_STREAMS: &[usize] = &[1, 7, 8, 9, 15, 16, 17, 31, 32, 33];
const PASS_BLOCKS: &[usize] = &[1, 2, 3, 4, 5, 6, 7, 8, 9, 63, 64, 65];

#[test]
fn magma_feedback_lanes_match_portable_in_passes() {
    check_feedback_shapes(Magma::with_backend, PASS_STREAMS, PASS_BLOCKS);
}

#[test]
fn gost28147_feedback_lanes_match_portable_in_passes() {
    check_feedback_shapes(Gost28147::with_backend, PASS_STREAMS, PASS_BLOCKS);
}

/// Streams of different lengths (or lengths that are not whole blocks) are not the kernel's
/// shape: declined, nothing touched.
#[test]
fn feedback_lanes_decline_other_shapes() {
    for b in simd_backends() {
        let c = Magma::with_backend(&random_bytes(32), SBox::default(), b).unwrap();
        for lens in [[64usize, 56], [64, 72], [60, 60], [4, 4]] {
            let input: Vec<Vec<u8>> = lens.iter().map(|&l| random_bytes(l)).collect();
            let ivs = random_bytes(16);
            let (mut data, mut registers) = (input.clone(), ivs.clone());
            let mut streams: Vec<&mut [u8]> = data.iter_mut().map(Vec::as_mut_slice).collect();
            assert!(!Magma::feedback_lanes(
                &[&c, &c],
                &mut registers,
                Feedback::CfbEncrypt(&mut streams)
            ));
            assert_eq!((&data, &registers), (&input, &ivs), "{b:?} {lens:?}");
        }
    }
}
