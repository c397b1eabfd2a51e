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
