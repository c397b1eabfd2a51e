//! `AlgInfo::aead`: the keyed AEAD of every catalogue AEAD seals and opens in place to the same bytes
//! as the one-shot `encrypt` / `decrypt`, and refuses what the entry refuses.

use shifr::catalog::{self, Kind, Params};

#[test]
fn keyed_aead_matches_the_one_shot_calls() {
    let aeads: Vec<_> = catalog::all()
        .iter()
        .filter(|a| a.kind == Kind::Aead)
        .collect();
    assert!(aeads.len() >= 7, "{}", aeads.len());
    for alg in aeads {
        let key: Vec<u8> = (0..alg.key_len as u8).collect();
        let nonce = match alg.name {
            // MGM nonces have their most significant bit clear.
            n if n.ends_with("-mgm") => vec![0x11; alg.iv.default_len()],
            _ => vec![0xa5; alg.iv.default_len()],
        };
        let aad = b"header";
        let plain: Vec<u8> = (0..1000u32).map(|i| (i % 253) as u8).collect();
        let params = Params {
            iv: &nonce,
            aad,
            ..Params::default()
        };
        let one_shot = alg.encrypt(&key, &params, plain.clone()).unwrap();
        let aead = alg.aead(&key, None).unwrap();
        let mut buf = plain.clone();
        let tag = aead.seal(&nonce, aad, &mut buf).unwrap();
        assert_eq!(buf, one_shot.data, "{}", alg.name);
        assert_eq!(tag.as_ref(), &one_shot.tag[..], "{}", alg.name);
        aead.open(&nonce, aad, &mut buf, tag.as_ref()).unwrap();
        assert_eq!(buf, plain, "{}", alg.name);
        // A flipped bit fails and leaves the data as it was.
        let mut sealed = one_shot.data.clone();
        sealed[3] ^= 1;
        let before = sealed.clone();
        assert!(aead.open(&nonce, aad, &mut sealed, tag.as_ref()).is_err());
        assert_eq!(sealed, before, "{}", alg.name);
    }
}

#[test]
fn keyed_aead_refuses_what_the_entry_refuses() {
    let gcm = catalog::lookup("aes-128-gcm").unwrap();
    assert!(gcm.aead(&[0; 15], None).is_err());
    assert!(gcm.aead(&[0; 16], Some(20)).is_err());
    assert_eq!(gcm.aead(&[0; 16], Some(12)).unwrap().tag_len(), 12);
    assert!(catalog::lookup("aes-128-ctr")
        .unwrap()
        .aead(&[0; 16], None)
        .is_err());
}
