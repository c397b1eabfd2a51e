//! Every bad parameter is a typed error, never a panic: IV / register lengths, CFB segment sizes,
//! unaligned ECB / CBC data, ACPKM section and key sizes, OMAC tag lengths and block sizes.

mod support;

use shifr::hazmat::block::{BlockCipher, KeyInit};
use shifr::hazmat::mac::{omac, omac_acpkm};
use shifr::hazmat::mode::{cbc, cfb, ctr, ctr_acpkm, ecb, ofb};
use shifr::Error;
use support::{Aes128, Kuznyechik, Magma};

fn magma() -> Magma {
    Magma::new_from_slice(&[0x42; 32]).unwrap()
}

fn kuz() -> Kuznyechik {
    Kuznyechik::new_from_slice(&[0x42; 32]).unwrap()
}

#[test]
fn unaligned_ecb_and_cbc_data() {
    let c = kuz();
    for len in [1usize, 15, 17, 31, 33] {
        let mut d = vec![0u8; len];
        let expected = Err(Error::NotBlockAligned {
            block: 16,
            got: len,
        });
        assert_eq!(ecb::encrypt(&c, &mut d), expected);
        assert_eq!(ecb::decrypt(&c, &mut d), expected);
        assert_eq!(cbc::encrypt(&c, &[0; 16], &mut d), expected);
        assert_eq!(cbc::decrypt(&c, &[0; 32], &mut d), expected);
        assert!(d.iter().all(|&b| b == 0), "data must be untouched");
    }
    let mut empty: [u8; 0] = [];
    assert_eq!(ecb::encrypt(&c, &mut empty), Ok(()));
    assert_eq!(cbc::encrypt(&c, &[0; 16], &mut empty), Ok(()));
}

#[test]
fn register_lengths() {
    let c = magma();
    let mut d = vec![0u8; 24];
    for iv_len in [0usize, 1, 7, 9, 15, 17] {
        let iv = vec![0u8; iv_len];
        assert!(
            matches!(cbc::encrypt(&c, &iv, &mut d), Err(Error::InvalidIvLength { got, .. }) if got == iv_len)
        );
        assert!(matches!(
            cbc::decrypt(&c, &iv, &mut d),
            Err(Error::InvalidIvLength { .. })
        ));
        assert!(matches!(
            ofb::apply(&c, &iv, &mut d),
            Err(Error::InvalidIvLength { .. })
        ));
        assert!(matches!(
            ctr::apply(&c, &iv, &mut d),
            Err(Error::InvalidIvLength { .. })
        ));
    }
    // CFB accepts any register of at least one block.
    for iv_len in [0usize, 1, 7] {
        let iv = vec![0u8; iv_len];
        assert!(matches!(
            cfb::encrypt(&c, &iv, 8, &mut d),
            Err(Error::InvalidIvLength { .. })
        ));
        assert!(matches!(
            cfb::decrypt(&c, &iv, 8, &mut d),
            Err(Error::InvalidIvLength { .. })
        ));
    }
    for iv_len in [8usize, 9, 13, 16, 24] {
        assert_eq!(cfb::encrypt(&c, &vec![0u8; iv_len], 8, &mut d), Ok(()));
    }
    // GOST CTR: the IV is half a block.
    for iv_len in [0usize, 3, 5, 8] {
        let iv = vec![0u8; iv_len];
        assert!(matches!(
            ctr::apply_gost(&c, &iv, &mut d),
            Err(Error::InvalidIvLength { .. })
        ));
        assert!(ctr::Ctr::new_gost(&c, &iv).is_err());
        assert!(matches!(
            ctr_acpkm::apply(&c, &iv, 16, &mut d),
            Err(Error::InvalidIvLength { .. })
        ));
    }
    assert!(ctr::Ctr::new(&c, &[0u8; 16]).is_err());
}

#[test]
fn cfb_segment_sizes() {
    let c = kuz();
    let mut d = vec![0u8; 40];
    for s in [0usize, 17, 32, usize::MAX] {
        assert!(matches!(
            cfb::encrypt(&c, &[0; 16], s, &mut d),
            Err(Error::InvalidParameter(_))
        ));
        assert!(matches!(
            cfb::decrypt(&c, &[0; 32], s, &mut d),
            Err(Error::InvalidParameter(_))
        ));
    }
    assert!(d.iter().all(|&b| b == 0));
    for s in 1..=16 {
        assert_eq!(cfb::encrypt(&c, &[0; 16], s, &mut d), Ok(()));
    }
}

#[test]
fn acpkm_sections_and_key_lengths() {
    let c = kuz();
    let mut d = vec![0u8; 100];
    for section in [0usize, 1, 15, 17, 40] {
        assert!(matches!(
            ctr_acpkm::apply(&c, &[0; 8], section, &mut d),
            Err(Error::InvalidParameter(_))
        ));
        assert!(matches!(
            omac_acpkm::omac_acpkm(&c, section, 32, 16, b"msg"),
            Err(Error::InvalidParameter(_))
        ));
        assert!(matches!(
            omac_acpkm::omac_acpkm(&c, 32, section, 16, b"msg"),
            Err(Error::InvalidParameter(_))
        ));
    }
    assert!(d.iter().all(|&b| b == 0));
    // Key length must be a key size of the cipher and a whole number of blocks.
    assert!(matches!(
        ctr_acpkm::apply_with_key_len(&c, 16, &[0; 8], 32, &mut d),
        Err(Error::InvalidParameter(_))
    ));
    assert!(matches!(
        ctr_acpkm::acpkm_next_key(&c, 24),
        Err(Error::InvalidParameter(_))
    ));
    assert!(matches!(
        ctr_acpkm::acpkm_next_key(&c, 48),
        Err(Error::InvalidParameter(_))
    ));
    assert!(matches!(
        ctr_acpkm::acpkm_next_key(&c, 0),
        Err(Error::InvalidParameter(_))
    ));
    // AES-128 has a 16-byte key: ACPKM uses D_1 only.
    let aes = Aes128::new_from_slice(&[1; 16]).unwrap();
    assert_eq!(ctr_acpkm::acpkm_next_key(&aes, 16).unwrap().len(), 16);
    assert_eq!(ctr_acpkm::apply(&aes, &[0; 8], 32, &mut d), Ok(()));
    // A cipher with several key sizes needs the explicit variant.
    let multi = MultiKey(kuz());
    assert!(matches!(
        ctr_acpkm::apply(&multi, &[0; 8], 32, &mut d),
        Err(Error::InvalidParameter(_))
    ));
    assert!(matches!(
        omac_acpkm::omac_acpkm(&multi, 32, 48, 16, b""),
        Err(Error::InvalidParameter(_))
    ));
    assert_eq!(
        ctr_acpkm::apply_with_key_len(&multi, 32, &[0; 8], 32, &mut d),
        Ok(())
    );
    assert!(omac_acpkm::omac_acpkm_with_key_len(&multi, 32, 32, 48, 16, b"").is_ok());
}

#[test]
fn omac_tag_lengths_and_block_sizes() {
    let c = magma();
    for tag_len in [0usize, 9, 16] {
        assert!(matches!(
            omac::omac(&c, tag_len, b"m"),
            Err(Error::InvalidTagLength { .. })
        ));
        assert!(omac::Omac::new(&c, tag_len).is_err());
        assert!(matches!(
            omac_acpkm::omac_acpkm(&c, 16, 80, tag_len, b"m"),
            Err(Error::InvalidTagLength { .. })
        ));
    }
    let odd = FourByteBlock;
    assert!(matches!(
        omac::omac(&odd, 4, b"m"),
        Err(Error::InvalidParameter(_))
    ));
    assert!(matches!(
        omac::subkeys(&odd),
        Err(Error::InvalidParameter(_))
    ));
    assert!(matches!(
        shifr::aead::mgm::Mgm::new(&odd, 4),
        Err(Error::InvalidParameter(_))
    ));
}

#[test]
fn no_panics_on_any_length() {
    let c = kuz();
    for len in 0..50 {
        let mut d = vec![0x5a; len];
        let _ = ecb::encrypt(&c, &mut d);
        let _ = cbc::decrypt(&c, &[1; 32], &mut d);
        for s in [1, 5, 16] {
            cfb::encrypt(&c, &[2; 21], s, &mut d).unwrap();
        }
        ofb::apply(&c, &[3; 48], &mut d).unwrap();
        ctr::apply(&c, &[0xff; 16], &mut d).unwrap();
        ctr_acpkm::apply(&c, &[4; 8], 16, &mut d).unwrap();
        omac_acpkm::omac_acpkm(&c, 16, 48, 16, &d).unwrap();
    }
}

/// Kuznyechik claiming two key sizes (like AES does three).
struct MultiKey(Kuznyechik);

impl BlockCipher for MultiKey {
    fn block_size(&self) -> usize {
        16
    }
    fn encrypt_blocks(&self, data: &mut [u8]) {
        self.0.encrypt_blocks(data)
    }
    fn decrypt_blocks(&self, data: &mut [u8]) {
        self.0.decrypt_blocks(data)
    }
}

impl KeyInit for MultiKey {
    const KEY_SIZES: &'static [usize] = &[16, 32];
    fn new_from_slice(key: &[u8]) -> shifr::Result<Self> {
        Kuznyechik::new_from_slice(key).map(MultiKey)
    }
}

/// A (non-)cipher with a block size OMAC and MGM do not support.
struct FourByteBlock;

impl BlockCipher for FourByteBlock {
    fn block_size(&self) -> usize {
        4
    }
    fn encrypt_blocks(&self, _: &mut [u8]) {}
    fn decrypt_blocks(&self, _: &mut [u8]) {}
}
