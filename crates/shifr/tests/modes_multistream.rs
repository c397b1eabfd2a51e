//! Multi-stream CBC / CFB / OMAC equal N separate single-stream runs, on random keys, IVs, data and
//! lengths (streams of different lengths drop out of the lanes), and the lane walk really is one
//! `encrypt_lanes` call per block index.

mod support;

use shifr::hazmat::block::{BlockCipher, KeyInit};
use shifr::hazmat::mac::omac;
use shifr::hazmat::mode::{cbc, cfb, multistream};
use shifr::Error;
use std::sync::atomic::{AtomicUsize, Ordering};
use support::{random_bytes, Aes128, Kuznyechik, Magma};

/// Random stream lengths (in bytes) that include empty, short and long streams.
fn stream_lengths(n: usize, whole_blocks: bool) -> Vec<usize> {
    let raw = [
        0,
        1,
        n - 1,
        n,
        n + 1,
        3 * n,
        7 * n + 3,
        4096 + 5,
        2 * n - 1,
        100,
    ];
    raw.iter()
        .map(|&l| if whole_blocks { l / n * n } else { l })
        .collect()
}

fn check_all<C: KeyInit>(n: usize) {
    let keys: Vec<C> = (0..10)
        .map(|_| C::new_from_slice(&random_bytes(C::KEY_SIZES[0])).unwrap())
        .collect();
    let ciphers: Vec<&C> = keys.iter().collect();
    let ivs: Vec<Vec<u8>> = (0..10).map(|_| random_bytes(n)).collect();
    let iv_refs: Vec<&[u8]> = ivs.iter().map(Vec::as_slice).collect();

    // CBC.
    let pts: Vec<Vec<u8>> = stream_lengths(n, true)
        .into_iter()
        .map(random_bytes)
        .collect();
    let mut data = pts.clone();
    let mut refs: Vec<&mut [u8]> = data.iter_mut().map(Vec::as_mut_slice).collect();
    multistream::cbc_encrypt(&ciphers, &iv_refs, &mut refs).unwrap();
    for i in 0..10 {
        let mut single = pts[i].clone();
        cbc::encrypt(ciphers[i], &ivs[i], &mut single).unwrap();
        assert_eq!(data[i], single, "cbc stream {i}");
    }
    let mut refs: Vec<&mut [u8]> = data.iter_mut().map(Vec::as_mut_slice).collect();
    multistream::cbc_decrypt(&ciphers, &iv_refs, &mut refs).unwrap();
    assert_eq!(data, pts, "cbc decrypt");

    // CFB (full-block segments, partial last segment).
    let pts: Vec<Vec<u8>> = stream_lengths(n, false)
        .into_iter()
        .map(random_bytes)
        .collect();
    let mut data = pts.clone();
    let mut refs: Vec<&mut [u8]> = data.iter_mut().map(Vec::as_mut_slice).collect();
    multistream::cfb_encrypt(&ciphers, &iv_refs, &mut refs).unwrap();
    for i in 0..10 {
        let mut single = pts[i].clone();
        cfb::encrypt(ciphers[i], &ivs[i], n, &mut single).unwrap();
        assert_eq!(data[i], single, "cfb stream {i}");
    }
    let mut refs: Vec<&mut [u8]> = data.iter_mut().map(Vec::as_mut_slice).collect();
    multistream::cfb_decrypt(&ciphers, &iv_refs, &mut refs).unwrap();
    assert_eq!(data, pts, "cfb decrypt");

    // OMAC.
    let msg_refs: Vec<&[u8]> = pts.iter().map(Vec::as_slice).collect();
    for tag_len in [1, n / 2, n] {
        let tags = multistream::omac(&ciphers, &msg_refs, tag_len).unwrap();
        for i in 0..10 {
            let single = omac::omac(ciphers[i], tag_len, &pts[i]).unwrap();
            assert_eq!(tags[i], single, "omac stream {i}");
        }
    }
}

#[test]
fn aes_streams_equal_single_runs() {
    check_all::<Aes128>(16);
}

#[test]
fn magma_streams_equal_single_runs() {
    check_all::<Magma>(8);
}

#[test]
fn kuznyechik_streams_equal_single_runs() {
    check_all::<Kuznyechik>(16);
}

/// Counts `encrypt_lanes` calls and the lanes in each.
static LANE_CALLS: AtomicUsize = AtomicUsize::new(0);
static LANES: AtomicUsize = AtomicUsize::new(0);

struct Counting(Magma);

impl BlockCipher for Counting {
    fn block_size(&self) -> usize {
        8
    }
    fn encrypt_blocks(&self, data: &mut [u8]) {
        self.0.encrypt_blocks(data)
    }
    fn decrypt_blocks(&self, data: &mut [u8]) {
        self.0.decrypt_blocks(data)
    }
    fn encrypt_lanes(ciphers: &[&Self], blocks: &mut [u8]) {
        LANE_CALLS.fetch_add(1, Ordering::SeqCst);
        LANES.fetch_add(ciphers.len(), Ordering::SeqCst);
        for (c, block) in ciphers.iter().zip(blocks.chunks_exact_mut(8)) {
            c.encrypt_blocks(block);
        }
    }
}

#[test]
fn one_lane_call_per_block_index() {
    let keys: Vec<Counting> = (0..3)
        .map(|_| Counting(Magma::new_from_slice(&random_bytes(32)).unwrap()))
        .collect();
    let ciphers: Vec<&Counting> = keys.iter().collect();
    let ivs = [[1u8; 8], [2u8; 8], [3u8; 8]];
    let iv_refs: Vec<&[u8]> = ivs.iter().map(|v| &v[..]).collect();
    // 5, 2 and 0 blocks: 5 calls with 2, 2, 1, 1, 1 lanes.
    let mut a = vec![0u8; 40];
    let mut b = vec![0u8; 16];
    let mut c: Vec<u8> = Vec::new();
    let mut refs: Vec<&mut [u8]> = vec![&mut a, &mut b, &mut c];
    LANE_CALLS.store(0, Ordering::SeqCst);
    LANES.store(0, Ordering::SeqCst);
    multistream::cbc_encrypt(&ciphers, &iv_refs, &mut refs).unwrap();
    assert_eq!(LANE_CALLS.load(Ordering::SeqCst), 5);
    assert_eq!(LANES.load(Ordering::SeqCst), 7);
}

#[test]
fn bad_inputs_are_errors() {
    let keys: Vec<Magma> = (0..2)
        .map(|_| Magma::new_from_slice(&random_bytes(32)).unwrap())
        .collect();
    let ciphers: Vec<&Magma> = keys.iter().collect();
    let good_iv = [0u8; 8];
    let short_iv = [0u8; 7];
    let mut a = vec![0u8; 16];
    let mut b = vec![0u8; 12];
    // Counts that do not match.
    let mut refs: Vec<&mut [u8]> = vec![&mut a];
    assert!(matches!(
        multistream::cbc_encrypt(&ciphers, &[&good_iv, &good_iv], &mut refs),
        Err(Error::InvalidParameter(_))
    ));
    let mut refs: Vec<&mut [u8]> = vec![&mut a, &mut b];
    assert!(matches!(
        multistream::cfb_encrypt(&ciphers, &[&good_iv], &mut refs),
        Err(Error::InvalidParameter(_))
    ));
    // IV length.
    assert!(matches!(
        multistream::cfb_decrypt(&ciphers, &[&good_iv, &short_iv], &mut refs),
        Err(Error::InvalidIvLength { got: 7, .. })
    ));
    // CBC needs whole blocks.
    assert!(matches!(
        multistream::cbc_encrypt(&ciphers, &[&good_iv, &good_iv], &mut refs),
        Err(Error::NotBlockAligned { got: 12, .. })
    ));
    assert!(matches!(
        multistream::cbc_decrypt(&ciphers, &[&good_iv, &good_iv], &mut refs),
        Err(Error::NotBlockAligned { got: 12, .. })
    ));
    // OMAC tag length and message count.
    assert!(matches!(
        multistream::omac(&ciphers, &[b"x", b"y"], 9),
        Err(Error::InvalidTagLength { got: 9, .. })
    ));
    assert!(matches!(
        multistream::omac(&ciphers, &[b"x"], 8),
        Err(Error::InvalidParameter(_))
    ));
    // No streams at all is fine.
    let none: Vec<&Magma> = Vec::new();
    assert_eq!(
        multistream::omac(&none, &[], 8).unwrap(),
        Vec::<Vec<u8>>::new()
    );
}
