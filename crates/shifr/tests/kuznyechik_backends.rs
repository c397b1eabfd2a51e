//! Every Kuznyechik backend this CPU runs against the portable backend (the oracle): random keys, odd
//! block counts, misaligned buffers, both directions, and multi-stream calls with many keys.

use rand::{Rng, RngCore};
use shifr::cpu::Backend;
use shifr::hazmat::block::kuznyechik::Kuznyechik;
use shifr::hazmat::block::{BlockCipher, KeyInit};
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
