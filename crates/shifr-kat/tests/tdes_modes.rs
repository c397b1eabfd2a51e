//! TDEA records in the modes the shared files lack (CFB8, CFB64, CTR), with expected values from
//! RustCrypto's `des`, `cfb8`, `cfb-mode` and `ctr` (an independent implementation), on random keys,
//! IVs and lengths. Each record must pass, and must fail with one ciphertext bit flipped.

use aes::cipher::{AsyncStreamCipher, KeyIvInit, StreamCipher};
use rand::{Rng, RngCore};
use shifr_kat::{check, parse, Outcome};

fn run(mode: &str, s: Option<u32>, key: &[u8], iv: &[u8], pt: &[u8], ct: &[u8]) -> Outcome {
    let s_line = s.map(|s| format!("s = {s}\n")).unwrap_or_default();
    let text = format!(
        "# tdes-{mode} / RustCrypto\ncipher = tdes\nmode = {mode}\n{s_line}key = {}\niv = {}\npt = {}\nct = {}\n",
        hex::encode(key),
        hex::encode(iv),
        hex::encode(pt),
        hex::encode(ct)
    );
    check(&parse(&text).expect("record parses")[0])
}

fn assert_both(mode: &str, s: Option<u32>, key: &[u8], iv: &[u8], pt: &[u8], ct: &[u8]) {
    assert_eq!(
        run(mode, s, key, iv, pt, ct),
        Outcome::Pass,
        "{mode} {s:?} len {}",
        pt.len()
    );
    if let Some(last) = ct.len().checked_sub(1) {
        let mut bad = ct.to_vec();
        bad[last] ^= 1;
        assert!(
            run(mode, s, key, iv, pt, &bad).is_fail(),
            "{mode}: flipped ct passed"
        );
    }
}

#[test]
fn tdes_cfb_and_ctr_match_rustcrypto() {
    let mut rng = rand::thread_rng();
    for len in [0usize, 1, 7, 8, 9, 100] {
        let mut key = [0u8; 24];
        let mut iv = [0u8; 8];
        rng.fill_bytes(&mut key);
        rng.fill_bytes(&mut iv);
        let pt: Vec<u8> = (0..len).map(|_| rng.gen()).collect();

        let mut ct = pt.clone();
        cfb8::Encryptor::<des::TdesEde3>::new(&key.into(), &iv.into()).encrypt(&mut ct);
        assert_both("cfb", Some(8), &key, &iv, &pt, &ct);

        let mut ct = pt.clone();
        cfb_mode::Encryptor::<des::TdesEde3>::new(&key.into(), &iv.into()).encrypt(&mut ct);
        assert_both("cfb", Some(64), &key, &iv, &pt, &ct);
        assert_both("cfb", None, &key, &iv, &pt, &ct);

        let mut ct = pt.clone();
        ctr::Ctr64BE::<des::TdesEde3>::new(&key.into(), &iv.into()).apply_keystream(&mut ct);
        assert_both("ctr", None, &key, &iv, &pt, &ct);
    }
}
