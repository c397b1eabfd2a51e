//! The modes, MACs and MGM against the primary-source vectors in gost.txt (GOST R 34.13-2015 Annex A,
//! RFC 9058, R 1323565.1.017-2018, RFC 8645) and std.txt (NIST SP 800-38A Appendix F), over RustCrypto's
//! block ciphers (tests/support).

mod support;

use shifr::aead::mgm::Mgm;
use shifr::aead::Aead;
use shifr::hazmat::block::{BlockCipher, KeyInit};
use shifr::hazmat::mac::{omac, omac_acpkm};
use shifr::hazmat::mode::{cbc, cfb, ctr, ctr_acpkm, ecb, ofb};
use support::{select, Aes128, Aes192, Aes256, Kuznyechik, Magma, Record};

fn key<C: KeyInit>(r: &Record) -> C {
    C::new_from_slice(&r.hex("key")).unwrap()
}

#[test]
fn adapter_reproduces_single_block_vectors() {
    for r in select("gost.txt", "magma", "block") {
        let mut b = r.hex("pt");
        key::<Magma>(&r).encrypt_blocks(&mut b);
        assert_eq!(b, r.hex("ct"), "{}", r.name);
        key::<Magma>(&r).decrypt_blocks(&mut b);
        assert_eq!(b, r.hex("pt"), "{}", r.name);
    }
    for r in select("gost.txt", "kuznyechik", "block") {
        let mut b = r.hex("pt");
        key::<Kuznyechik>(&r).encrypt_blocks(&mut b);
        assert_eq!(b, r.hex("ct"), "{}", r.name);
    }
    for (cipher, check) in [
        ("aes128", block_check::<Aes128> as fn(&Record)),
        ("aes192", block_check::<Aes192>),
        ("aes256", block_check::<Aes256>),
    ] {
        for r in select("std.txt", cipher, "block") {
            check(&r);
        }
    }
}

fn block_check<C: KeyInit>(r: &Record) {
    let mut b = r.hex("pt");
    key::<C>(r).encrypt_blocks(&mut b);
    assert_eq!(b, r.hex("ct"), "{}", r.name);
}

/// Makes the record's cipher, keyed.
type MakeCipher<'a> = &'a dyn Fn(&Record) -> Box<dyn BlockCipher>;

/// Runs `f` on every record of `file` with `mode`, dispatching on its cipher.
fn for_each(file: &str, mode: &str, f: &dyn Fn(&Record, MakeCipher)) {
    let ciphers: &[&str] = if file == "gost.txt" {
        &["magma", "kuznyechik"]
    } else {
        &["aes128", "aes192", "aes256"]
    };
    for &name in ciphers {
        for r in select(file, name, mode) {
            let make: MakeCipher = match name {
                "magma" => &|r| Box::new(key::<Magma>(r)),
                "kuznyechik" => &|r| Box::new(key::<Kuznyechik>(r)),
                "aes128" => &|r| Box::new(key::<Aes128>(r)),
                "aes192" => &|r| Box::new(key::<Aes192>(r)),
                _ => &|r| Box::new(key::<Aes256>(r)),
            };
            f(&r, make);
        }
    }
}

#[test]
fn ecb_vectors() {
    for file in ["gost.txt", "std.txt"] {
        for_each(file, "ecb", &|r, make| {
            let c = make(r);
            let mut d = r.hex("pt");
            ecb::encrypt(&*c, &mut d).unwrap();
            assert_eq!(d, r.hex("ct"), "{}", r.name);
            ecb::decrypt(&*c, &mut d).unwrap();
            assert_eq!(d, r.hex("pt"), "{}", r.name);
        });
    }
}

#[test]
fn cbc_vectors() {
    for file in ["gost.txt", "std.txt"] {
        for_each(file, "cbc", &|r, make| {
            let c = make(r);
            let iv = r.hex("iv");
            if let Some(m) = r.fields.get("m") {
                assert_eq!(iv.len() * 8, m.parse::<usize>().unwrap(), "{}", r.name);
            }
            let mut d = r.hex("pt");
            cbc::encrypt(&*c, &iv, &mut d).unwrap();
            assert_eq!(d, r.hex("ct"), "{}", r.name);
            cbc::decrypt(&*c, &iv, &mut d).unwrap();
            assert_eq!(d, r.hex("pt"), "{}", r.name);
        });
    }
}

#[test]
fn cfb_vectors() {
    for file in ["gost.txt", "std.txt"] {
        for_each(file, "cfb", &|r, make| {
            let c = make(r);
            let iv = r.hex("iv");
            let s = r.num("s") / 8;
            let mut d = r.hex("pt");
            cfb::encrypt(&*c, &iv, s, &mut d).unwrap();
            assert_eq!(d, r.hex("ct"), "{}", r.name);
            cfb::decrypt(&*c, &iv, s, &mut d).unwrap();
            assert_eq!(d, r.hex("pt"), "{}", r.name);
        });
    }
}

#[test]
fn ofb_vectors() {
    for file in ["gost.txt", "std.txt"] {
        for_each(file, "ofb", &|r, make| {
            let c = make(r);
            let mut d = r.hex("pt");
            ofb::apply(&*c, &r.hex("iv"), &mut d).unwrap();
            assert_eq!(d, r.hex("ct"), "{}", r.name);
            ofb::apply(&*c, &r.hex("iv"), &mut d).unwrap();
            assert_eq!(d, r.hex("pt"), "{}", r.name);
        });
    }
}

#[test]
fn ctr_vectors() {
    // GOST: the IV is n/2 bytes and CTR_1 = IV || 0^(n/2).
    for_each("gost.txt", "ctr", &|r, make| {
        let c = make(r);
        let mut d = r.hex("pt");
        ctr::apply_gost(&*c, &r.hex("iv"), &mut d).unwrap();
        assert_eq!(d, r.hex("ct"), "{}", r.name);
        // Same through the stateful form, fed one odd piece at a time.
        let block = ctr::gost_counter_block(&r.hex("iv"), c.block_size()).unwrap();
        let mut s = ctr::Ctr::new(&*c, &block).unwrap();
        for piece in d.chunks_mut(7) {
            s.apply_keystream(piece);
        }
        assert_eq!(d, r.hex("pt"), "{}", r.name);
    });
    // SP 800-38A: the IV is the whole initial counter block.
    for_each("std.txt", "ctr", &|r, make| {
        let c = make(r);
        let mut d = r.hex("pt");
        ctr::apply(&*c, &r.hex("iv"), &mut d).unwrap();
        assert_eq!(d, r.hex("ct"), "{}", r.name);
    });
}

#[test]
fn gost_mac_vectors() {
    for_each("gost.txt", "mac", &|r, make| {
        let c = make(r);
        let (rr, k1, k2) = omac::subkeys(&*c).unwrap();
        assert_eq!(*rr, r.hex("r"), "{}", r.name);
        assert_eq!(*k1, r.hex("k1"), "{}", r.name);
        assert_eq!(*k2, r.hex("k2"), "{}", r.name);
        let tag_len = r.num("s") / 8;
        let tag = omac::omac(&*c, tag_len, &r.hex("pt")).unwrap();
        assert_eq!(tag, r.hex("tag"), "{}", r.name);
        // Incremental, in uneven pieces.
        let mut mac = omac::Omac::new(&*c, tag_len).unwrap();
        for piece in r.hex("pt").chunks(5) {
            mac.update(piece);
        }
        assert_eq!(mac.finalize(), r.hex("tag"), "{}", r.name);
    });
}

fn mgm_check<C: KeyInit>(r: &Record) {
    let tag_len = r.num("tag_bits") / 8;
    let mgm = Mgm::new(key::<C>(r), tag_len).unwrap();
    let nonce = r.hex("nonce");
    let (y1, z1) = mgm.y1_z1(&nonce).unwrap();
    if let Some(expected) = r.hex_opt("y1") {
        assert_eq!(y1, expected, "{} y1", r.name);
    }
    assert_eq!(z1, r.hex("z1"), "{} z1", r.name);
    let aad = r.hex("aad");
    let mut d = r.hex("pt");
    let tag = mgm.seal(&nonce, &aad, &mut d).unwrap();
    assert_eq!(d, r.hex("ct"), "{} ct", r.name);
    assert_eq!(tag.as_ref(), &r.hex("tag")[..], "{} tag", r.name);
    mgm.open(&nonce, &aad, &mut d, tag.as_ref()).unwrap();
    assert_eq!(d, r.hex("pt"), "{}", r.name);
}

#[test]
fn mgm_vectors() {
    for r in select("gost.txt", "magma", "mgm") {
        mgm_check::<Magma>(&r);
    }
    for r in select("gost.txt", "kuznyechik", "mgm") {
        mgm_check::<Kuznyechik>(&r);
    }
}

fn ctr_acpkm_check<C: KeyInit>(r: &Record, key_len: usize) {
    let c = key::<C>(r);
    let section = r.num("section_bits") / 8;
    let mut d = r.hex("pt");
    ctr_acpkm::apply_with_key_len(&c, key_len, &r.hex("iv"), section, &mut d).unwrap();
    assert_eq!(d, r.hex("ct"), "{}", r.name);
    // The section keys K^2, K^3, K^4.
    let mut current = c;
    for field in ["sectionkey2", "sectionkey3", "sectionkey4"] {
        let next = ctr_acpkm::acpkm_next_key(&current, key_len).unwrap();
        assert_eq!(*next, r.hex(field), "{} {field}", r.name);
        current = C::new_from_slice(&next).unwrap();
    }
}

#[test]
fn ctr_acpkm_vectors() {
    for r in select("gost.txt", "magma", "ctr-acpkm") {
        ctr_acpkm_check::<Magma>(&r, 32);
        // The single-key-size entry point gives the same.
        let mut d = r.hex("pt");
        ctr_acpkm::apply(
            &key::<Magma>(&r),
            &r.hex("iv"),
            r.num("section_bits") / 8,
            &mut d,
        )
        .unwrap();
        assert_eq!(d, r.hex("ct"), "{}", r.name);
    }
    for r in select("gost.txt", "kuznyechik", "ctr-acpkm") {
        ctr_acpkm_check::<Kuznyechik>(&r, 32);
    }
    for r in select("gost.txt", "aes256", "ctr-acpkm") {
        ctr_acpkm_check::<Aes256>(&r, 32);
    }
}

fn omac_acpkm_check<C: KeyInit>(r: &Record) {
    let c = key::<C>(r);
    let n = c.block_size();
    let section = r.num("section_bits") / 8;
    let tstar = r.num("tstar_bits") / 8;
    let material = r.hex("keymaterial");
    let stride = 32 + n;
    assert_eq!(material.len() % stride, 0, "{}", r.name);
    let got = omac_acpkm::acpkm_master(&c, tstar, material.len() / stride).unwrap();
    assert_eq!(*got, material, "{} keymaterial", r.name);
    let tag = omac_acpkm::omac_acpkm(&c, section, tstar, r.num("s") / 8, &r.hex("pt")).unwrap();
    assert_eq!(tag, r.hex("tag"), "{} tag", r.name);
}

#[test]
fn omac_acpkm_vectors() {
    for r in select("gost.txt", "magma", "omac-acpkm") {
        omac_acpkm_check::<Magma>(&r);
    }
    for r in select("gost.txt", "kuznyechik", "omac-acpkm") {
        omac_acpkm_check::<Kuznyechik>(&r);
    }
}
