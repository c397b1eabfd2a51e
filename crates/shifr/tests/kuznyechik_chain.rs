//! Kuznyechik's single-stream feedback paths (CBC and CFB encryption, OFB, OMAC, one-block calls)
//! on every backend this CPU runs, against RustCrypto's `kuznyechik` with its `cbc`, `cfb-mode`,
//! `ofb` and `cmac` crates: random keys and IVs, lengths 0, 16, 32, 48 and several KiB plus odd
//! tails where the mode allows them, and misaligned buffers. On gfni these go through the chained
//! one-block kernel (`BlockCipher::feedback_chain`); the table backends take the
//! generic loops, so both sides of every hook are compared with an independent implementation.

use cipher::{AsyncStreamCipher, BlockEncryptMut, KeyInit as _, KeyIvInit, StreamCipher};
use cmac::Mac;
use rand::{Rng, RngCore};
use shifr::cpu::Backend;
use shifr::hazmat::block::kuznyechik::Kuznyechik;
use shifr::hazmat::block::{BlockCipher, Chain};
use shifr::hazmat::mac::omac;
use shifr::hazmat::mode::{cbc, cfb, ofb};

type Theirs = kuznyechik::Kuznyechik;

/// Whole-block lengths (bytes) around the one-block path, and several KiB.
const LENGTHS: &[usize] = &[0, 16, 32, 48, 64, 80, 4096, 16 * 321];

fn random_bytes(len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rand::thread_rng().fill_bytes(&mut v);
    v
}

/// Every backend this CPU runs Kuznyechik on, portable first (each reported, so a run shows what it
/// covered).
fn backends() -> Vec<Backend> {
    let key = [0u8; 32];
    let available: Vec<Backend> = Backend::ALL
        .iter()
        .copied()
        .filter(|&b| Kuznyechik::with_backend(&key, b).is_ok())
        .collect();
    eprintln!("kuznyechik backends on this CPU: {available:?}");
    available
}

/// `data` copied to a buffer at a random offset of 1..16 bytes, so SIMD loads are misaligned.
fn misaligned(data: &[u8]) -> (Vec<u8>, usize) {
    let offset = rand::thread_rng().gen_range(1..16);
    let mut buf = vec![0xa5u8; offset + data.len()];
    buf[offset..].copy_from_slice(data);
    (buf, offset)
}

/// Runs `check` for every backend, a few random keys and IVs, and every length of `lengths`.
fn for_each_case(lengths: &[usize], check: impl Fn(&Kuznyechik, &[u8], &[u8], &[u8])) {
    for b in backends() {
        for _ in 0..3 {
            let key = random_bytes(32);
            let ours = Kuznyechik::with_backend(&key, b).unwrap();
            assert_eq!(ours.backend(), b);
            let iv = random_bytes(16);
            for &len in lengths {
                check(&ours, &key, &iv, &random_bytes(len));
            }
        }
    }
}

#[test]
fn cbc_encryption_matches_rustcrypto() {
    for_each_case(LENGTHS, |ours, key, iv, pt| {
        let (mut buf, at) = misaligned(pt);
        cbc::encrypt(ours, iv, &mut buf[at..]).unwrap();
        let mut want = pt.to_vec();
        let mut enc = ::cbc::Encryptor::<Theirs>::new_from_slices(key, iv).unwrap();
        for block in want.chunks_exact_mut(16) {
            enc.encrypt_block_mut(block.into());
        }
        assert_eq!(&buf[at..], want, "{:?} len {}", ours.backend(), pt.len());
        assert!(buf[..at].iter().all(|&b| b == 0xa5));
        cbc::decrypt(ours, iv, &mut buf[at..]).unwrap();
        assert_eq!(&buf[at..], pt);
    });
}

#[test]
fn cfb_encryption_matches_rustcrypto() {
    let lengths: Vec<usize> = LENGTHS.iter().flat_map(|&l| [l, l + 1, l + 15]).collect();
    for_each_case(&lengths, |ours, key, iv, pt| {
        let (mut buf, at) = misaligned(pt);
        cfb::encrypt(ours, iv, 16, &mut buf[at..]).unwrap();
        let mut want = pt.to_vec();
        cfb_mode::Encryptor::<Theirs>::new_from_slices(key, iv)
            .unwrap()
            .encrypt(&mut want);
        assert_eq!(&buf[at..], want, "{:?} len {}", ours.backend(), pt.len());
        cfb::decrypt(ours, iv, 16, &mut buf[at..]).unwrap();
        assert_eq!(&buf[at..], pt);
    });
}

#[test]
fn ofb_matches_rustcrypto() {
    let lengths: Vec<usize> = LENGTHS.iter().flat_map(|&l| [l, l + 1, l + 15]).collect();
    for_each_case(&lengths, |ours, key, iv, pt| {
        let (mut buf, at) = misaligned(pt);
        ofb::apply(ours, iv, &mut buf[at..]).unwrap();
        let mut want = pt.to_vec();
        ::ofb::Ofb::<Theirs>::new_from_slices(key, iv)
            .unwrap()
            .apply_keystream(&mut want);
        assert_eq!(&buf[at..], want, "{:?} len {}", ours.backend(), pt.len());
    });
}

#[test]
fn omac_matches_rustcrypto_cmac() {
    let lengths: Vec<usize> = LENGTHS.iter().flat_map(|&l| [l, l + 1, l + 15]).collect();
    for_each_case(&lengths, |ours, key, _iv, msg| {
        let (buf, at) = misaligned(msg);
        let tag = omac::omac(ours, 16, &buf[at..]).unwrap();
        let mut theirs = <cmac::Cmac<Theirs> as cmac::Mac>::new_from_slice(key).unwrap();
        theirs.update(msg);
        let want = theirs.finalize().into_bytes();
        assert_eq!(
            tag,
            want.as_slice(),
            "{:?} len {}",
            ours.backend(),
            msg.len()
        );
        // The same message in uneven pieces through the incremental interface.
        let mut mac = omac::Omac::new(ours, 16).unwrap();
        for piece in buf[at..].chunks(37) {
            mac.update(piece);
        }
        assert_eq!(mac.finalize(), want.as_slice());
    });
}

#[test]
fn one_block_calls_match_rustcrypto() {
    for_each_case(&[16, 17, 31], |ours, key, _iv, data| {
        let (mut buf, at) = misaligned(data);
        ours.encrypt_blocks(&mut buf[at..]);
        let mut want = data.to_vec();
        Theirs::new_from_slice(key)
            .unwrap()
            .encrypt_block_mut((&mut want[..16]).into());
        assert_eq!(&buf[at..], want, "{:?} len {}", ours.backend(), data.len());
        ours.decrypt_blocks(&mut buf[at..]);
        assert_eq!(&buf[at..], data);
    });
}

#[test]
fn chained_hooks_leave_the_last_block_in_the_register() {
    // Called directly: on gfni they take the chained kernel and must report the chaining value; on
    // any backend that declines, nothing may be touched.
    for b in backends() {
        let key = random_bytes(32);
        let ours = Kuznyechik::with_backend(&key, b).unwrap();
        let iv = random_bytes(16);
        let pt = random_bytes(16 * 9);
        let mut reference = pt.clone();
        cbc::encrypt(
            &Kuznyechik::with_backend(&key, Backend::Portable).unwrap(),
            &iv,
            &mut reference,
        )
        .unwrap();
        let mut register = iv.clone();
        let mut data = pt.clone();
        if ours.feedback_chain(&mut register, Chain::CbcEncrypt(&mut data)) {
            assert_eq!(data, reference);
            assert_eq!(register, reference[16 * 8..]);
        } else {
            assert_eq!((&register, &data), (&iv, &pt));
        }
        // Shapes no kernel takes: a short register, a partial block.
        let mut short = iv[..8].to_vec();
        let mut data = pt.clone();
        assert!(!ours.feedback_chain(&mut short, Chain::CbcEncrypt(&mut data)));
        assert!(!ours.feedback_chain(&mut register.clone(), Chain::CfbEncrypt(&mut data[..17])));
        assert_eq!(data, pt);
    }
}
