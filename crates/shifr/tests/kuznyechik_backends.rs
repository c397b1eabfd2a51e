//! Every Kuznyechik backend this CPU runs against the portable backend (the oracle): random keys, odd
//! block counts, misaligned buffers, both directions, and multi-stream calls with many keys.

use rand::{Rng, RngCore};
use shifr::cpu::Backend;
use shifr::hazmat::block::kuznyechik::Kuznyechik;
use shifr::hazmat::block::{BlockCipher, KeyInit};
use shifr::hazmat::mode::{ctr, ctr_acpkm};
use shifr::Error;

/// Around every interleave width (4 blocks per register, 8 or 16 per pass, 64 byte-sliced) and several KiB.
const BLOCK_COUNTS: &[usize] = &[
    0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 129, 1000,
];

fn random_bytes(len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rand::thread_rng().fill_bytes(&mut v);
    v
}

/// The SIMD backends this CPU runs (each one reported, so a run shows what it covered).
fn simd_backends() -> Vec<Backend> {
    let key = [0u8; 32];
    let available: Vec<Backend> = Backend::ALL
        .iter()
        .copied()
        .filter(|&b| b != Backend::Portable && Kuznyechik::with_backend(&key, b).is_ok())
        .collect();
    eprintln!("kuznyechik SIMD backends on this CPU: {available:?}");
    available
}

#[test]
fn backends_report_themselves_and_unavailable_ones_are_refused() {
    let key = random_bytes(32);
    for &b in Backend::ALL {
        match Kuznyechik::with_backend(&key, b) {
            Ok(c) => assert_eq!(c.backend(), b),
            Err(e) => assert_eq!(e, Error::BackendUnavailable(b.name())),
        }
    }
    let portable = Kuznyechik::with_backend(&key, Backend::Portable).unwrap();
    assert_eq!(portable.backend(), Backend::Portable);
    for b in simd_backends() {
        let c = Kuznyechik::with_backend(&key, b).unwrap();
        assert_eq!(c.rekey(&random_bytes(32)).unwrap().backend(), b);
        assert_eq!(c.round_keys(), portable.round_keys());
    }
}

#[test]
fn every_backend_matches_portable_on_random_keys_and_lengths() {
    for b in simd_backends() {
        for _ in 0..4 {
            let key = random_bytes(32);
            let fast = Kuznyechik::with_backend(&key, b).unwrap();
            let oracle = Kuznyechik::with_backend(&key, Backend::Portable).unwrap();
            for &blocks in BLOCK_COUNTS {
                // A few trailing bytes that must stay untouched, and a start offset of 0..15 bytes.
                let offset = rand::thread_rng().gen_range(0..16);
                let extra = rand::thread_rng().gen_range(0..16);
                let buf = random_bytes(offset + 16 * blocks + extra);
                let range = offset..buf.len();

                let mut a = buf.clone();
                fast.encrypt_blocks(&mut a[range.clone()]);
                let mut want = buf.clone();
                oracle.encrypt_blocks(&mut want[range.clone()]);
                assert_eq!(a, want, "{b:?} encrypt, {blocks} blocks, offset {offset}");

                fast.decrypt_blocks(&mut a[range.clone()]);
                assert_eq!(a, buf, "{b:?} round trip, {blocks} blocks");

                let mut a = buf.clone();
                fast.decrypt_blocks(&mut a[range.clone()]);
                let mut want = buf.clone();
                oracle.decrypt_blocks(&mut want[range.clone()]);
                assert_eq!(a, want, "{b:?} decrypt, {blocks} blocks, offset {offset}");
            }
        }
    }
}

#[test]
fn every_backend_matches_rfc7801_example() {
    // RFC 7801 §5.5 (record kuznyechik-rfc7801-5.5 of /work/shared/vectors/gost.txt).
    let key =
        hex::decode("8899aabbccddeeff0011223344556677fedcba98765432100123456789abcdef").unwrap();
    let pt = hex::decode("1122334455667700ffeeddccbbaa9988").unwrap();
    for b in simd_backends() {
        let c = Kuznyechik::with_backend(&key, b).unwrap();
        let mut data = pt.clone();
        c.encrypt_blocks(&mut data);
        assert_eq!(
            hex::encode(&data),
            "7f679d90bebc24305a468d42b9d4edcd",
            "{b:?}"
        );
        c.decrypt_blocks(&mut data);
        assert_eq!(data, pt, "{b:?}");
    }
}

#[test]
fn encrypt_lanes_with_many_keys_matches_portable() {
    for b in simd_backends() {
        for streams in [1usize, 2, 3, 4, 5, 15, 16, 17, 33, 100] {
            let keys: Vec<Vec<u8>> = (0..streams).map(|_| random_bytes(32)).collect();
            let fast: Vec<Kuznyechik> = keys
                .iter()
                .map(|k| Kuznyechik::with_backend(k, b).unwrap())
                .collect();
            let oracle: Vec<Kuznyechik> = keys
                .iter()
                .map(|k| Kuznyechik::with_backend(k, Backend::Portable).unwrap())
                .collect();
            let fast_refs: Vec<&Kuznyechik> = fast.iter().collect();
            let oracle_refs: Vec<&Kuznyechik> = oracle.iter().collect();
            // Misaligned by one byte, with one spare block past the lanes that must stay untouched.
            let buf = random_bytes(1 + 16 * (streams + 1));
            let lanes = 1..buf.len();

            let mut a = buf.clone();
            Kuznyechik::encrypt_lanes(&fast_refs, &mut a[lanes.clone()]);
            let mut want = buf.clone();
            Kuznyechik::encrypt_lanes(&oracle_refs, &mut want[lanes.clone()]);
            for (i, c) in oracle.iter().enumerate() {
                let mut one = buf[1 + 16 * i..1 + 16 * i + 16].to_vec();
                c.encrypt_blocks(&mut one);
                assert_eq!(
                    &want[1 + 16 * i..1 + 16 * i + 16],
                    &one[..],
                    "oracle lane {i}"
                );
            }
            assert_eq!(a, want, "{b:?} encrypt_lanes, {streams} streams");

            Kuznyechik::decrypt_lanes(&fast_refs, &mut a[lanes.clone()]);
            assert_eq!(a, buf, "{b:?} decrypt_lanes round trip, {streams} streams");
            let mut want = buf.clone();
            Kuznyechik::decrypt_lanes(&oracle_refs, &mut want[lanes.clone()]);
            let mut a = buf.clone();
            Kuznyechik::decrypt_lanes(&fast_refs, &mut a[lanes]);
            assert_eq!(a, want, "{b:?} decrypt_lanes, {streams} streams");
        }
    }
}

#[test]
fn lanes_with_mixed_backends_and_short_buffers() {
    let backends: Vec<Backend> = std::iter::once(Backend::Portable)
        .chain(simd_backends())
        .collect();
    let ciphers: Vec<Kuznyechik> = (0..20)
        .map(|i| Kuznyechik::with_backend(&random_bytes(32), backends[i % backends.len()]).unwrap())
        .collect();
    let refs: Vec<&Kuznyechik> = ciphers.iter().collect();
    // Fewer blocks than ciphers: only the whole blocks present are processed.
    for blocks in [0usize, 1, 7, 19] {
        let buf = random_bytes(16 * blocks + 5);
        let mut a = buf.clone();
        Kuznyechik::encrypt_lanes(&refs, &mut a);
        for (i, c) in ciphers.iter().take(blocks).enumerate() {
            let mut one = buf[16 * i..16 * i + 16].to_vec();
            c.encrypt_blocks(&mut one);
            assert_eq!(&a[16 * i..16 * i + 16], &one[..], "lane {i}");
        }
        assert_eq!(&a[16 * blocks..], &buf[16 * blocks..]);
        Kuznyechik::decrypt_lanes(&refs, &mut a);
        assert_eq!(a, buf);
    }
}

/// Counter blocks for the CTR tests: random ones, and ones whose low bytes carry inside a 64-block
/// pass (into byte 14, into byte 13 and above) or wrap the whole 128-bit counter.
fn ctr_starts() -> Vec<[u8; 16]> {
    let high = u128::from_be_bytes(random_bytes(16).try_into().unwrap()) & !0xff_ffff;
    let mut starts: Vec<u128> = [
        0, 0x40, 0xc0, 0xc1, 0xff, 0x1ff, 0xff80, 0xffc0, 0xffc1, 0xfff0, 0xffff, 0xff_ffc5,
    ]
    .iter()
    .map(|low| high | low)
    .collect();
    starts.extend([u128::MAX - 100, u128::MAX - 63, u128::MAX, 0]);
    starts.push(u128::from_be_bytes(random_bytes(16).try_into().unwrap()));
    starts.into_iter().map(u128::to_be_bytes).collect()
}

#[test]
fn ctr_matches_portable_on_every_length_around_the_sliced_pass() {
    let starts = ctr_starts();
    for b in simd_backends() {
        let key = random_bytes(32);
        let fast = Kuznyechik::with_backend(&key, b).unwrap();
        let oracle = Kuznyechik::with_backend(&key, Backend::Portable).unwrap();
        let buf = random_bytes(2110);
        for len in 0..=2100 {
            // Three counters per length (one that carries inside the first pass), all of them for
            // the lengths next to a pass boundary.
            let near = len % 1024 < 20 || len % 1024 > 1004;
            let picks: Vec<&[u8; 16]> = if near {
                starts.iter().collect()
            } else {
                vec![&starts[len % starts.len()], &starts[8], &starts[13]]
            };
            for start in picks {
                let offset = len % 7;
                let mut a = buf.clone();
                ctr::apply(&fast, start, &mut a[offset..offset + len]).unwrap();
                let mut want = buf.clone();
                ctr::apply(&oracle, start, &mut want[offset..offset + len]).unwrap();
                assert_eq!(
                    a,
                    want,
                    "{b:?} ctr, {len} bytes from {}",
                    hex::encode(start)
                );
            }
        }
    }
}

#[test]
fn ctr_matches_portable_on_long_messages_and_counter_carries() {
    for b in simd_backends() {
        let key = random_bytes(32);
        let fast = Kuznyechik::with_backend(&key, b).unwrap();
        let oracle = Kuznyechik::with_backend(&key, Backend::Portable).unwrap();
        // 70000 blocks from ...ff_0000 carry into byte 13 within the message, past a 64-block pass.
        let mut starts = ctr_starts();
        starts.push((u128::MAX - 0xffff).to_be_bytes());
        starts.push(0x1234_5678_9abc_def0_0000_0000_00ff_0000u128.to_be_bytes());
        for (i, start) in starts.iter().enumerate() {
            let len = [65_536 + 37, 1_120_000, 16_384][i % 3];
            let buf = random_bytes(len + 3);
            let mut a = buf.clone();
            ctr::apply(&fast, start, &mut a[3..]).unwrap();
            let mut want = buf.clone();
            ctr::apply(&oracle, start, &mut want[3..]).unwrap();
            assert!(
                a == want,
                "{b:?} ctr, {len} bytes from {}",
                hex::encode(start)
            );
        }
    }
}

#[test]
fn ctr_acpkm_sections_continue_the_counter_like_portable() {
    for b in simd_backends() {
        let key = random_bytes(32);
        let fast = Kuznyechik::with_backend(&key, b).unwrap();
        let oracle = Kuznyechik::with_backend(&key, Backend::Portable).unwrap();
        let iv = random_bytes(8);
        for (section, len) in [(1040, 10_000), (4096, 20_000), (2048, 2048 * 3 + 5)] {
            let buf = random_bytes(len);
            let mut a = buf.clone();
            ctr_acpkm::apply(&fast, &iv, section, &mut a).unwrap();
            let mut want = buf.clone();
            ctr_acpkm::apply(&oracle, &iv, section, &mut want).unwrap();
            assert_eq!(
                a, want,
                "{b:?} ctr-acpkm, sections of {section}, {len} bytes"
            );
        }
    }
}

#[test]
fn ctr_xor_of_at_most_one_block_advances_the_counter_like_portable() {
    // Messages of 1..=16 bytes take the one-block kernel on gfni; the counter must move by one
    // block (wrapping at 2^128) so that calls continue the key stream.
    let starts = ctr_starts();
    for b in simd_backends() {
        let key = random_bytes(32);
        let fast = Kuznyechik::with_backend(&key, b).unwrap();
        let oracle = Kuznyechik::with_backend(&key, Backend::Portable).unwrap();
        for start in &starts {
            for len in 0..=16 {
                let buf = random_bytes(3 * len + 1);
                let mut a = buf.clone();
                let mut counter = *start;
                for part in a.chunks_mut(len.max(1)) {
                    if !fast.ctr_xor(&mut counter, part) {
                        ctr::apply(&fast, &counter, part).unwrap();
                        let blocks = part.len().div_ceil(16) as u128;
                        counter = u128::from_be_bytes(counter)
                            .wrapping_add(blocks)
                            .to_be_bytes();
                    }
                }
                let mut want = buf.clone();
                let mut value = u128::from_be_bytes(*start);
                for part in want.chunks_mut(len.max(1)) {
                    ctr::apply(&oracle, &value.to_be_bytes(), part).unwrap();
                    value = value.wrapping_add(part.len().div_ceil(16) as u128);
                }
                assert_eq!(
                    a,
                    want,
                    "{b:?} ctr, parts of {len} bytes from {}",
                    hex::encode(start)
                );
                assert_eq!(
                    u128::from_be_bytes(counter),
                    value,
                    "{b:?} counter after {len}"
                );
            }
        }
    }
}
