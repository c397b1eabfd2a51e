//! Short messages (issue 4, 16-byte rows): every length 0..=48 through the short-message paths of the
//! modes and OMAC (stack key-stream buffers, OMAC's subkey batched with the first block or kept from
//! key setup, AES's 128-bit path for calls shorter than a 512-bit register, the masked CTR tail),
//! on every backend this CPU runs, against RustCrypto's mode crates and against the portable backend.

mod support;

use cipher::generic_array::GenericArray;
use cipher::{AsyncStreamCipher, BlockEncryptMut, KeyInit, KeyIvInit, StreamCipher};
use cmac::Mac;
use shifr::cpu::Backend;
use shifr::hazmat::block::aes::Aes;
use shifr::hazmat::block::kuznyechik::Kuznyechik;
use shifr::hazmat::block::magma::{Magma, SBox};
use shifr::hazmat::block::BlockCipher;
use shifr::hazmat::mac::omac;
use shifr::hazmat::mode::{cbc, cfb, ctr, ecb, ofb};
use support::random_bytes;

const MAX_LEN: usize = 48;

/// Every backend that `make` accepts on this CPU, portable first, each with its name.
fn instances<C>(make: impl Fn(Backend) -> shifr::Result<C>) -> Vec<(Backend, C)> {
    let all: Vec<(Backend, C)> = Backend::ALL
        .iter()
        .filter_map(|&b| make(b).ok().map(|c| (b, c)))
        .collect();
    assert_eq!(all.first().map(|(b, _)| *b), Some(Backend::Portable));
    all
}

macro_rules! short_messages {
    ($module:ident, $rc:ty, $ctr:ty, $n:expr, $key_len:expr, $make:expr) => {
        mod $module {
            use super::*;
            const N: usize = $n;

            fn ciphers(key: &[u8]) -> Vec<(Backend, impl BlockCipher)> {
                let make = $make;
                instances(|b| make(key, b))
            }

            /// `f(cipher, data)` on every backend equals `expected(data)` and the portable result.
            fn check(
                what: &str,
                lens: impl Iterator<Item = usize>,
                f: impl Fn(&dyn BlockCipher, &[u8], &mut [u8]),
                expected: impl Fn(&[u8], &[u8], &mut [u8]),
            ) {
                for len in lens {
                    let key = random_bytes($key_len);
                    let iv = random_bytes(N);
                    let pt = random_bytes(len);
                    let mut theirs = pt.clone();
                    expected(&key, &iv, &mut theirs);
                    let mut portable = None;
                    for (backend, c) in ciphers(&key) {
                        let mut ours = pt.clone();
                        f(&c, &iv, &mut ours);
                        assert_eq!(ours, theirs, "{what} {backend:?} len {len}");
                        let p = portable.get_or_insert_with(|| ours.clone());
                        assert_eq!(&ours, p, "{what} {backend:?} vs portable, len {len}");
                    }
                }
            }

            fn whole_blocks() -> impl Iterator<Item = usize> {
                (0..=MAX_LEN).step_by(N)
            }

            #[test]
            fn ecb_every_short_length() {
                check(
                    "ecb",
                    whole_blocks(),
                    |c, _, d| ecb::encrypt(c, d).unwrap(),
                    |k, _, d| {
                        let mut e = ::ecb::Encryptor::<$rc>::new_from_slice(k).unwrap();
                        for b in d.chunks_exact_mut(N) {
                            e.encrypt_block_mut(GenericArray::from_mut_slice(b));
                        }
                    },
                );
                // Decryption inverts, on every backend.
                for len in whole_blocks() {
                    let key = random_bytes($key_len);
                    let pt = random_bytes(len);
                    for (backend, c) in ciphers(&key) {
                        let mut d = pt.clone();
                        ecb::encrypt(&c, &mut d).unwrap();
                        ecb::decrypt(&c, &mut d).unwrap();
                        assert_eq!(d, pt, "{backend:?} len {len}");
                    }
                }
            }

            #[test]
            fn cbc_every_short_length() {
                check(
                    "cbc",
                    whole_blocks(),
                    |c, iv, d| cbc::encrypt(c, iv, d).unwrap(),
                    |k, iv, d| {
                        let mut e = ::cbc::Encryptor::<$rc>::new_from_slices(k, iv).unwrap();
                        for b in d.chunks_exact_mut(N) {
                            e.encrypt_block_mut(GenericArray::from_mut_slice(b));
                        }
                    },
                );
            }

            #[test]
            fn cfb_every_short_length() {
                check(
                    "cfb",
                    0..=MAX_LEN,
                    |c, iv, d| cfb::encrypt(c, iv, N, d).unwrap(),
                    |k, iv, d| {
                        cfb_mode::Encryptor::<$rc>::new_from_slices(k, iv)
                            .unwrap()
                            .encrypt(d)
                    },
                );
                check(
                    "cfb decrypt",
                    0..=MAX_LEN,
                    |c, iv, d| cfb::decrypt(c, iv, N, d).unwrap(),
                    |k, iv, d| {
                        cfb_mode::Decryptor::<$rc>::new_from_slices(k, iv)
                            .unwrap()
                            .decrypt(d)
                    },
                );
            }

            #[test]
            fn ofb_every_short_length() {
                check(
                    "ofb",
                    0..=MAX_LEN,
                    |c, iv, d| ofb::apply(c, iv, d).unwrap(),
                    |k, iv, d| {
                        ::ofb::Ofb::<$rc>::new_from_slices(k, iv)
                            .unwrap()
                            .apply_keystream(d)
                    },
                );
            }

            #[test]
            fn ctr_every_short_length() {
                check(
                    "ctr",
                    0..=MAX_LEN,
                    |c, iv, d| ctr::apply(c, iv, d).unwrap(),
                    |k, iv, d| <$ctr>::new_from_slices(k, iv).unwrap().apply_keystream(d),
                );
                // A counter whose low 64 bits wrap inside the message.
                check(
                    "ctr wrap",
                    0..=MAX_LEN,
                    |c, iv, d| {
                        let mut iv = iv.to_vec();
                        iv[N / 2..].fill(0xff);
                        ctr::apply(c, &iv, d).unwrap()
                    },
                    |k, iv, d| {
                        let mut iv = iv.to_vec();
                        iv[N / 2..].fill(0xff);
                        <$ctr>::new_from_slices(k, &iv).unwrap().apply_keystream(d)
                    },
                );
            }

            #[test]
            fn omac_every_short_length() {
                for len in 0..=MAX_LEN {
                    let key = random_bytes($key_len);
                    let msg = random_bytes(len);
                    let mut m = <cmac::Cmac<$rc> as KeyInit>::new_from_slice(&key).unwrap();
                    Mac::update(&mut m, &msg);
                    let theirs = m.finalize().into_bytes().to_vec();
                    for (backend, c) in ciphers(&key) {
                        let tag = omac::omac(&c, N, &msg).unwrap();
                        assert_eq!(tag, theirs, "{backend:?} len {len}");
                        // Incremental, split at every point, gives the same tag.
                        for cut in 0..=len {
                            let mut mac = omac::Omac::new(&c, N).unwrap();
                            mac.update(&msg[..cut]);
                            mac.update(&msg[cut..]);
                            assert_eq!(mac.finalize(), tag, "{backend:?} len {len} cut {cut}");
                        }
                        // Truncated tags are prefixes.
                        assert_eq!(omac::omac(&c, 4, &msg).unwrap(), &tag[..4]);
                    }
                }
            }

            /// The subkeys kept at key setup (or not) give what enciphering the zero block gives.
            #[test]
            fn zero_block_image_is_e_of_zero() {
                let key = random_bytes($key_len);
                for (backend, c) in ciphers(&key) {
                    let mut zero = vec![0u8; N];
                    c.encrypt_blocks(&mut zero);
                    if let Some(image) = c.zero_block_image() {
                        assert_eq!(image, &zero[..], "{backend:?}");
                    }
                    let (r, _, _) = omac::subkeys(&c).unwrap();
                    assert_eq!(&r[..], &zero[..], "{backend:?}");
                }
            }
        }
    };
}

short_messages!(
    aes128,
    aes::Aes128,
    ::ctr::Ctr128BE<aes::Aes128>,
    16,
    16,
    |k: &[u8], b| Aes::with_backend(k, b)
);
short_messages!(
    aes192,
    aes::Aes192,
    ::ctr::Ctr128BE<aes::Aes192>,
    16,
    24,
    |k: &[u8], b| Aes::with_backend(k, b)
);
short_messages!(
    aes256,
    aes::Aes256,
    ::ctr::Ctr128BE<aes::Aes256>,
    16,
    32,
    |k: &[u8], b| Aes::with_backend(k, b)
);
short_messages!(
    kuznyechik,
    ::kuznyechik::Kuznyechik,
    ::ctr::Ctr128BE<::kuznyechik::Kuznyechik>,
    16,
    32,
    |k: &[u8], b| Kuznyechik::with_backend(k, b)
);
short_messages!(
    magma,
    ::magma::Magma,
    ::ctr::Ctr64BE<::magma::Magma>,
    8,
    32,
    |k: &[u8], b| Magma::with_backend(k, SBox::Tc26Z, b)
);

/// CFB8 (AES only in RustCrypto) at every short length, all backends.
#[test]
fn aes_cfb8_every_short_length() {
    for key_len in [16, 24, 32] {
        for len in 0..=MAX_LEN {
            let key = random_bytes(key_len);
            let iv = random_bytes(16);
            let pt = random_bytes(len);
            let mut theirs = pt.clone();
            match key_len {
                16 => cfb8::Encryptor::<aes::Aes128>::new_from_slices(&key, &iv)
                    .unwrap()
                    .encrypt(&mut theirs),
                24 => cfb8::Encryptor::<aes::Aes192>::new_from_slices(&key, &iv)
                    .unwrap()
                    .encrypt(&mut theirs),
                _ => cfb8::Encryptor::<aes::Aes256>::new_from_slices(&key, &iv)
                    .unwrap()
                    .encrypt(&mut theirs),
            }
            for (backend, c) in instances(|b| Aes::with_backend(&key, b)) {
                let mut ours = pt.clone();
                cfb::encrypt(&c, &iv, 1, &mut ours).unwrap();
                assert_eq!(ours, theirs, "{backend:?} key {key_len} len {len}");
                cfb::decrypt(&c, &iv, 1, &mut ours).unwrap();
                assert_eq!(ours, pt, "{backend:?} key {key_len} len {len}");
            }
        }
    }
}

/// GOST registers longer than a block (stack below 64 bytes, heap above) agree with the portable
/// backend at every short length: OFB, CFB and segmented OFB.
#[test]
fn gost_registers_every_short_length() {
    for z in [2usize, 3, 4, 5] {
        for len in 0..=MAX_LEN {
            let key = random_bytes(32);
            let iv = random_bytes(16 * z);
            let pt = random_bytes(len);
            let mut reference: Option<[Vec<u8>; 3]> = None;
            for (backend, c) in instances(|b| Kuznyechik::with_backend(&key, b)) {
                let mut o = pt.clone();
                ofb::apply(&c, &iv, &mut o).unwrap();
                let mut f = pt.clone();
                cfb::encrypt(&c, &iv, 16, &mut f).unwrap();
                let mut s = pt.clone();
                ofb::apply_segmented(&c, &iv, 5, &mut s).unwrap();
                let mut back = f.clone();
                cfb::decrypt(&c, &iv, 16, &mut back).unwrap();
                assert_eq!(back, pt, "{backend:?} z {z} len {len}");
                let r = reference.get_or_insert_with(|| [o.clone(), f.clone(), s.clone()]);
                assert_eq!([o, f, s], *r, "{backend:?} z {z} len {len}");
            }
        }
    }
}
