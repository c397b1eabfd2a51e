//! Unit tests of the catalogue's contract (known answers and OpenSSL comparisons are in the CLI's
//! integration tests, which run every name through the binary).

use super::*;

fn params(iv: &[u8]) -> Params<'_> {
    Params {
        iv,
        ..Params::default()
    }
}

/// An IV the entry accepts (MGM nonces need their top bit clear, chacha20's counter must not wrap).
fn iv_for(alg: &AlgInfo) -> Vec<u8> {
    vec![0x11; alg.iv.default_len()]
}

#[test]
fn names_are_unique_lowercase_and_found_case_insensitively() {
    let mut names: Vec<&str> = all().iter().map(|a| a.name).collect();
    for n in &names {
        assert_eq!(*n, n.to_ascii_lowercase());
        assert_eq!(lookup(&n.to_ascii_uppercase()).unwrap().name, *n);
    }
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), all().len(), "duplicate names");
}

#[test]
fn unknown_names_are_rejected() {
    assert_eq!(
        lookup("aes-128-xts").unwrap_err(),
        Error::UnknownAlgorithm("aes-128-xts".into())
    );
}

#[test]
fn wrong_key_and_iv_lengths_are_errors() {
    let cbc = lookup("aes-128-cbc").unwrap();
    assert!(matches!(
        cbc.encrypt(&[0; 15], &params(&[0; 16]), vec![]),
        Err(Error::InvalidKeyLength { got: 15, .. })
    ));
    assert!(matches!(
        cbc.encrypt(&[0; 16], &params(&[0; 3]), vec![]),
        Err(Error::InvalidIvLength { got: 3, .. })
    ));
    let gcm = lookup("aes-128-gcm").unwrap();
    assert!(matches!(
        gcm.encrypt(&[0; 16], &params(&[]), vec![]),
        Err(Error::InvalidNonceLength { got: 0, .. })
    ));
}

#[test]
fn bad_pkcs7_padding_is_bad_padding() {
    let cbc = lookup("aes-128-cbc").unwrap();
    let key = [7u8; 16];
    let nopad = Params {
        iv: &[1; 16],
        nopad: true,
        ..Params::default()
    };
    // A zero block decrypts to a last byte of 0, which PKCS#7 never produces.
    let ct = cbc.encrypt(&key, &nopad, vec![0; 16]).unwrap().data;
    assert_eq!(
        cbc.decrypt(&key, &params(&[1; 16]), ct, None),
        Err(Error::BadPadding)
    );
}

#[test]
fn every_tag_is_checked() {
    for alg in all().iter().filter(|a| a.tag.is_some()) {
        let key = vec![3u8; alg.key_len];
        let iv = iv_for(alg);
        let msg = b"sixteen byte msg and more".to_vec();
        let out = alg.encrypt(&key, &params(&iv), msg.clone()).unwrap();
        let mut tag = out.tag.clone();
        let body = if alg.kind == Kind::Mac {
            msg.clone()
        } else {
            out.data.clone()
        };
        assert_eq!(
            alg.decrypt(&key, &params(&iv), body.clone(), Some(&tag))
                .unwrap(),
            msg,
            "{}",
            alg.name
        );
        tag[0] ^= 1;
        assert_eq!(
            alg.decrypt(&key, &params(&iv), body, Some(&tag)),
            Err(Error::AuthenticationFailed),
            "{}",
            alg.name
        );
    }
}

#[test]
fn every_entry_round_trips() {
    for alg in all() {
        let key = vec![5u8; alg.key_len];
        let iv = iv_for(alg);
        let msg: Vec<u8> = (0..=40).collect();
        let out = alg.encrypt(&key, &params(&iv), msg.clone()).unwrap();
        let input = if alg.kind == Kind::Mac {
            msg.clone()
        } else {
            out.data
        };
        let back = alg
            .decrypt(
                &key,
                &params(&iv),
                input,
                Some(&out.tag).filter(|t| !t.is_empty()).map(|t| &t[..]),
            )
            .unwrap();
        assert_eq!(back, msg, "{}", alg.name);
    }
}

/// A keyed object serves many messages with the bytes of the one-shot call for each, whatever the
/// thread count of its engine.
#[test]
fn keyed_objects_equal_the_one_shot_calls() {
    let engines = [
        None,
        Some(crate::parallel::Engine::new(3).with_min_parallel(1)),
    ];
    for alg in all() {
        let key: Vec<u8> = (0..alg.key_len).map(|i| i as u8 ^ 0x5a).collect();
        let iv = iv_for(alg);
        for engine in &engines {
            let options = Options {
                engine: engine.clone(),
                ..Options::default()
            };
            for len in [0usize, 64, 1000] {
                let data: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
                let one_shot = Params {
                    iv: &iv,
                    nopad: true,
                    ..Params::default()
                };
                let Ok(expect) = alg.encrypt(&key, &one_shot, data.clone()) else {
                    // Lengths the entry refuses (unaligned ECB / CBC, MGM's empty message).
                    continue;
                };
                let mut buf = data.clone();
                let tag = match alg.kind {
                    Kind::BlockMode => {
                        alg.cipher(&key, &options)
                            .unwrap()
                            .encrypt(&iv, &mut buf)
                            .unwrap();
                        Vec::new()
                    }
                    Kind::Stream => {
                        let mut s = alg.stream(&key, &iv, &options).unwrap();
                        s.apply(&mut buf).unwrap();
                        Vec::new()
                    }
                    Kind::Aead => {
                        let a = alg.keyed_aead(&key, &options).unwrap();
                        a.seal(&iv, &[], &mut buf).unwrap().as_ref().to_vec()
                    }
                    Kind::Mac => {
                        let m = alg.mac(&key, &options).unwrap();
                        let mut tag = vec![0u8; m.tag_len()];
                        m.tag(&buf, &mut tag).unwrap();
                        buf.clear();
                        tag
                    }
                };
                assert_eq!(
                    (buf, tag),
                    (expect.data, expect.tag),
                    "{} at {len}",
                    alg.name
                );
            }
        }
    }
}
