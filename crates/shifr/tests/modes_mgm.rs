//! MGM (RFC 9058) against RustCrypto's `mgm` crate on random keys, nonces and lengths, plus the
//! rejection paths: tampered ciphertext / AAD / tag, bad nonces, tag lengths.

mod support;

use mgm::aead::generic_array::GenericArray;
use mgm::aead::{AeadInPlace, NewAead};
use shifr::aead::mgm::Mgm;
use shifr::aead::Aead;
use shifr::hazmat::block::KeyInit;
use shifr::Error;
use support::{random_bytes, Kuznyechik, Magma};

/// Random nonce with the most significant bit clear.
fn nonce(n: usize) -> Vec<u8> {
    let mut v = random_bytes(n);
    v[0] &= 0x7f;
    v
}

fn pairs(n: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for a in [0, 1, n - 1, n, n + 1, 3 * n + 2] {
        for p in [0, 1, n - 1, n, n + 1, 5000] {
            if a + p > 0 {
                out.push((a, p));
            }
        }
    }
    out.push((4097, 0));
    out
}

macro_rules! against_rustcrypto {
    ($test:ident, $ours:ty, $theirs:ty, $n:expr) => {
        #[test]
        fn $test() {
            for (aad_len, pt_len) in pairs($n) {
                let key = random_bytes(32);
                let nonce = nonce($n);
                let aad = random_bytes(aad_len);
                let pt = random_bytes(pt_len);
                let theirs_aead = <mgm::Mgm<$theirs>>::new(GenericArray::from_slice(&key));
                let mut theirs = pt.clone();
                let their_tag = theirs_aead
                    .encrypt_in_place_detached(GenericArray::from_slice(&nonce), &aad, &mut theirs)
                    .unwrap();
                let ours_aead = Mgm::new(<$ours>::new_from_slice(&key).unwrap(), $n).unwrap();
                let mut ours = pt.clone();
                let tag = ours_aead.seal(&nonce, &aad, &mut ours).unwrap();
                assert_eq!(ours, theirs, "ct, aad {aad_len} pt {pt_len}");
                assert_eq!(
                    tag.as_ref(),
                    their_tag.as_slice(),
                    "tag, aad {aad_len} pt {pt_len}"
                );
                // Truncated tags are prefixes of the full tag.
                let short = Mgm::new(<$ours>::new_from_slice(&key).unwrap(), 4).unwrap();
                let mut d = pt.clone();
                let t4 = short.seal(&nonce, &aad, &mut d).unwrap();
                assert_eq!(t4.as_ref(), &their_tag[..4]);
                short.open(&nonce, &aad, &mut d, t4.as_ref()).unwrap();
                assert_eq!(d, pt);
                // Round trip and every kind of tampering.
                ours_aead
                    .open(&nonce, &aad, &mut ours, tag.as_ref())
                    .unwrap();
                assert_eq!(ours, pt);
                ours_aead.seal(&nonce, &aad, &mut ours).unwrap();
                let ct = ours.clone();
                let mut bad_tag = tag.as_ref().to_vec();
                bad_tag[$n - 1] ^= 0x01;
                assert_eq!(
                    ours_aead.open(&nonce, &aad, &mut ours, &bad_tag),
                    Err(Error::AuthenticationFailed)
                );
                assert_eq!(ours, ct, "data must be untouched on failure");
                if !ours.is_empty() {
                    ours[pt_len / 2] ^= 0x80;
                    assert_eq!(
                        ours_aead.open(&nonce, &aad, &mut ours, tag.as_ref()),
                        Err(Error::AuthenticationFailed)
                    );
                    ours[pt_len / 2] ^= 0x80;
                    assert_eq!(ours, ct);
                }
                if !aad.is_empty() {
                    let mut bad_aad = aad.clone();
                    bad_aad[aad_len - 1] ^= 0x01;
                    assert_eq!(
                        ours_aead.open(&nonce, &bad_aad, &mut ours, tag.as_ref()),
                        Err(Error::AuthenticationFailed)
                    );
                    assert_eq!(ours, ct);
                }
                let mut other_nonce = nonce.clone();
                other_nonce[$n - 1] ^= 0x01;
                assert_eq!(
                    ours_aead.open(&other_nonce, &aad, &mut ours, tag.as_ref()),
                    Err(Error::AuthenticationFailed)
                );
                assert_eq!(ours, ct);
            }
        }
    };
}

against_rustcrypto!(
    kuznyechik_mgm_matches,
    Kuznyechik,
    kuznyechik_mgm::Kuznyechik,
    16
);
against_rustcrypto!(magma_mgm_matches, Magma, magma_mgm::Magma, 8);

#[test]
fn parameters_are_checked() {
    let k = || Kuznyechik::new_from_slice(&[7u8; 32]).unwrap();
    let m = || Magma::new_from_slice(&[7u8; 32]).unwrap();
    assert!(matches!(
        Mgm::new(k(), 3),
        Err(Error::InvalidTagLength { got: 3, .. })
    ));
    assert!(matches!(
        Mgm::new(k(), 17),
        Err(Error::InvalidTagLength { got: 17, .. })
    ));
    assert!(matches!(
        Mgm::new(m(), 9),
        Err(Error::InvalidTagLength { got: 9, .. })
    ));
    assert!(Mgm::new(m(), 8).is_ok() && Mgm::new(k(), 16).is_ok());

    let mgm = Mgm::new(k(), 16).unwrap();
    let mut data = vec![1u8; 20];
    // Nonce: n bytes, most significant bit clear.
    for len in [0usize, 8, 15, 17] {
        assert!(matches!(
            mgm.seal(&vec![0u8; len], b"", &mut data),
            Err(Error::InvalidNonceLength { .. })
        ));
    }
    let mut high = vec![0u8; 16];
    high[0] = 0x80;
    assert!(matches!(
        mgm.seal(&high, b"", &mut data),
        Err(Error::InvalidParameter(_))
    ));
    assert!(matches!(
        mgm.open(&high, b"", &mut data, &[0; 16]),
        Err(Error::InvalidParameter(_))
    ));
    assert!(matches!(mgm.y1_z1(&high), Err(Error::InvalidParameter(_))));
    // RFC 9058 needs |A| + |P| > 0.
    assert!(matches!(
        mgm.seal(&[0u8; 16], b"", &mut []),
        Err(Error::InvalidParameter(_))
    ));
    // Wrong tag length on open.
    let tag = mgm.seal(&[0u8; 16], b"a", &mut data).unwrap();
    let before = data.clone();
    assert!(matches!(
        mgm.open(&[0u8; 16], b"a", &mut data, &tag.as_ref()[..15]),
        Err(Error::InvalidTagLength { got: 15, .. })
    ));
    assert_eq!(data, before);
    assert_eq!(mgm.tag_len(), 16);
    assert!(mgm.nonce_len_desc().contains("16"));
}
