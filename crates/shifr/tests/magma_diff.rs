//! Differential tests of `block::magma` against RustCrypto's `magma` crate and, when it is installed,
//! the OpenSSL gost engine (`openssl enc -engine gost`).

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use cipher::generic_array::GenericArray;
use cipher::{BlockDecrypt, BlockEncrypt, KeyInit as _};
use rand::{Rng, RngCore};
use shifr::hazmat::block::magma::{Gost28147, Magma, SBox};
use shifr::hazmat::block::{BlockCipher, KeyInit};
use shifr::Error;

mod support;

/// Data lengths in blocks: empty, single, around the 4-block interleave, and several KiB.
const BLOCK_COUNTS: &[usize] = &[0, 1, 2, 3, 4, 5, 7, 8, 9, 33, 512, 1025];

fn random_bytes(len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rand::thread_rng().fill_bytes(&mut v);
    v
}

fn reference_encrypt<C: BlockEncrypt>(c: &C, data: &mut [u8]) {
    for block in data.chunks_exact_mut(8) {
        c.encrypt_block(GenericArray::from_mut_slice(block));
    }
}

fn reference_decrypt<C: BlockDecrypt>(c: &C, data: &mut [u8]) {
    for block in data.chunks_exact_mut(8) {
        c.decrypt_block(GenericArray::from_mut_slice(block));
    }
}

/// Checks `ours` against the RustCrypto cipher `theirs` on random multi-block data, both directions.
fn compare<C, R>(ours: &C, theirs: &R)
where
    C: BlockCipher,
    R: BlockEncrypt + BlockDecrypt,
{
    for &blocks in BLOCK_COUNTS {
        let pt = random_bytes(8 * blocks);
        let mut a = pt.clone();
        let mut b = pt.clone();
        ours.encrypt_blocks(&mut a);
        reference_encrypt(theirs, &mut b);
        assert_eq!(a, b, "encrypt, {blocks} blocks");
        ours.decrypt_blocks(&mut a);
        assert_eq!(a, pt, "round trip, {blocks} blocks");

        let ct = random_bytes(8 * blocks);
        let mut a = ct.clone();
        let mut b = ct.clone();
        ours.decrypt_blocks(&mut a);
        reference_decrypt(theirs, &mut b);
        assert_eq!(a, b, "decrypt, {blocks} blocks");
    }
}

#[test]
fn magma_matches_rustcrypto() {
    for _ in 0..8 {
        let key = random_bytes(32);
        let ours = Magma::new(&key).unwrap();
        let theirs = magma::Magma::new_from_slice(&key).unwrap();
        compare(&ours, &theirs);
    }
}

#[test]
fn magma_with_cryptopro_a_matches_rustcrypto_gost89() {
    for _ in 0..8 {
        let key = random_bytes(32);
        let ours = Magma::with_sbox(&key, SBox::CryptoProA).unwrap();
        let theirs = magma::Gost89CryptoProA::new_from_slice(&key).unwrap();
        compare(&ours, &theirs);
    }
}

/// RustCrypto's `Gost89` uses the big-endian GOST R 34.12 conventions; the GOST 28147-89 (OpenSSL)
/// conventions are the same cipher with every key word byte-reversed and the block byte-reversed.
#[test]
fn gost28147_matches_rustcrypto_gost89_with_reversed_bytes() {
    for _ in 0..8 {
        let key = random_bytes(32);
        let mut be_key = key.clone();
        for w in be_key.chunks_exact_mut(4) {
            w.reverse();
        }
        let ours = Gost28147::new(&key, SBox::CryptoProA).unwrap();
        let theirs = magma::Gost89CryptoProA::new_from_slice(&be_key).unwrap();
        let pt = random_bytes(8 * 37);
        let mut a = pt.clone();
        ours.encrypt_blocks(&mut a);
        let mut b = pt.clone();
        for block in b.chunks_exact_mut(8) {
            block.reverse();
            theirs.encrypt_block(GenericArray::from_mut_slice(block));
            block.reverse();
        }
        assert_eq!(a, b);
        ours.decrypt_blocks(&mut a);
        assert_eq!(a, pt);
    }
}

#[test]
fn encrypt_lanes_equals_per_key_calls() {
    for sbox in SBox::ALL {
        let ciphers: Vec<Magma> = (0..13)
            .map(|_| Magma::with_sbox(&random_bytes(32), *sbox).unwrap())
            .collect();
        let refs: Vec<&Magma> = ciphers.iter().collect();
        // One spare block past the lanes must stay untouched.
        let pt = random_bytes(8 * (ciphers.len() + 1));
        let mut lanes = pt.clone();
        Magma::encrypt_lanes(&refs, &mut lanes);
        for (i, c) in ciphers.iter().enumerate() {
            let mut one = pt[8 * i..8 * i + 8].to_vec();
            c.encrypt_blocks(&mut one);
            assert_eq!(&lanes[8 * i..8 * i + 8], &one[..], "lane {i}");
        }
        assert_eq!(&lanes[8 * ciphers.len()..], &pt[8 * ciphers.len()..]);
        Magma::decrypt_lanes(&refs, &mut lanes);
        assert_eq!(lanes, pt);
    }
}

/// Single-stream CBC encryption, CFB, OFB and OMAC of `mode` / `mac` on every Magma backend (the
/// AVX-512 one runs them on one lane of its 256-bit rounds) against RustCrypto's
/// `cbc`, `cfb-mode`, `ofb` and `cmac` over `magma`, on chains from none to 1025 blocks (and one
/// byte more, for the partial last block of CFB and OFB).
#[test]
fn feedback_modes_match_rustcrypto_on_every_backend() {
    use cipher::{AsyncStreamCipher, BlockEncryptMut, KeyIvInit, StreamCipher};
    use cmac::Mac;
    use shifr::hazmat::mac::omac;
    use shifr::hazmat::mode::{cbc, cfb, ofb};
    let backends = support::magma_backends();
    for &blocks in BLOCK_COUNTS {
        let key = random_bytes(32);
        let iv = random_bytes(8);
        let pt = random_bytes(8 * blocks);
        let mut cbc_ref = pt.clone();
        let mut e = ::cbc::Encryptor::<magma::Magma>::new_from_slices(&key, &iv).unwrap();
        for b in cbc_ref.chunks_exact_mut(8) {
            e.encrypt_block_mut(GenericArray::from_mut_slice(b));
        }
        let mut cfb_ref = pt.clone();
        cfb_mode::Encryptor::<magma::Magma>::new_from_slices(&key, &iv)
            .unwrap()
            .encrypt(&mut cfb_ref);
        let mut m = <cmac::Cmac<magma::Magma> as Mac>::new_from_slice(&key).unwrap();
        m.update(&pt);
        let tag_ref = m.finalize().into_bytes().to_vec();
        let odd = random_bytes(8 * blocks + 1);
        let mut cfb_odd_ref = odd.clone();
        cfb_mode::Encryptor::<magma::Magma>::new_from_slices(&key, &iv)
            .unwrap()
            .encrypt(&mut cfb_odd_ref);
        let mut ofb_ref = odd.clone();
        ::ofb::Ofb::<magma::Magma>::new_from_slices(&key, &iv)
            .unwrap()
            .apply_keystream(&mut ofb_ref);
        for &backend in &backends {
            let c = Magma::with_backend(&key, SBox::Tc26Z, backend).unwrap();
            let what = format!("{backend:?}, {blocks} blocks");
            let mut ours = pt.clone();
            cbc::encrypt(&c, &iv, &mut ours).unwrap();
            assert_eq!(ours, cbc_ref, "cbc {what}");
            let mut ours = pt.clone();
            cfb::encrypt(&c, &iv, 8, &mut ours).unwrap();
            assert_eq!(ours, cfb_ref, "cfb {what}");
            assert_eq!(omac::omac(&c, 8, &pt).unwrap(), tag_ref, "omac {what}");
            let mut ours = odd.clone();
            cfb::encrypt(&c, &iv, 8, &mut ours).unwrap();
            assert_eq!(ours, cfb_odd_ref, "cfb, one byte more, {what}");
            let mut ours = odd.clone();
            ofb::apply(&c, &iv, &mut ours).unwrap();
            assert_eq!(ours, ofb_ref, "ofb {what}");
        }
    }
}

#[test]
fn rekey_keeps_the_sbox_set() {
    let c = Gost28147::new(&random_bytes(32), SBox::CryptoProA).unwrap();
    let key = random_bytes(32);
    let r = c.rekey(&key).unwrap();
    assert_eq!(r.sbox(), SBox::CryptoProA);
    assert_eq!(Gost28147::new_from_slice(&key).unwrap().sbox(), SBox::Tc26Z);
    let m = Magma::with_sbox(&key, SBox::CryptoProA).unwrap();
    assert_eq!(m.rekey(&key).unwrap().sbox(), SBox::CryptoProA);
    assert_eq!(Magma::new_from_slice(&key).unwrap().sbox(), SBox::Tc26Z);
}

#[test]
fn wrong_key_lengths_return_invalid_key_length() {
    for len in [0usize, 1, 8, 16, 24, 31, 33, 48, 64] {
        let key = random_bytes(len);
        for result in [
            Magma::new_from_slice(&key).err(),
            Magma::with_sbox(&key, SBox::CryptoProA).err(),
            Gost28147::new_from_slice(&key).err(),
            Gost28147::new(&key, SBox::Tc26Z).err(),
        ] {
            assert!(
                matches!(result, Some(Error::InvalidKeyLength { got, .. }) if got == len),
                "key length {len}: {result:?}"
            );
        }
    }
}

// ---- OpenSSL gost engine ----------------------------------------------------------------------

/// One `openssl enc -engine gost` invocation.
struct OpenSsl<'a> {
    cipher: &'a str,
    /// An OpenSSL config file to load (used to set the engine's CRYPT_PARAMS), or the default config.
    config: Option<&'a PathBuf>,
}

impl OpenSsl<'_> {
    /// Runs `openssl enc -engine gost <cipher> -nopad -K key -iv iv [-d]` on `input`; `None` on failure.
    fn run(&self, key: &[u8], iv: &[u8], decrypt: bool, input: &[u8]) -> Option<Vec<u8>> {
        let out = temp_path("out");
        let mut cmd = Command::new("openssl");
        cmd.args(["enc", "-engine", "gost", self.cipher, "-nopad", "-K"])
            .arg(hex::encode(key))
            .arg("-iv")
            .arg(hex::encode(iv))
            .arg("-out")
            .arg(&out);
        if decrypt {
            cmd.arg("-d");
        }
        if let Some(config) = self.config {
            cmd.env("OPENSSL_CONF", config);
        }
        // The engine prints `Engine "gost" set.` on stdout, so the result goes through a file.
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        child.stdin.take()?.write_all(input).ok()?;
        let ok = child.wait().ok()?.success();
        let result = std::fs::read(&out).ok();
        let _ = std::fs::remove_file(&out);
        if ok {
            result
        } else {
            None
        }
    }

    /// Whether this invocation works here; prints why the test is skipped if not.
    fn available(&self, iv_len: usize) -> bool {
        let ok = self
            .run(&[0u8; 32], &vec![0u8; iv_len], false, &[0u8; 8])
            .is_some_and(|ct| ct.len() == 8);
        if !ok {
            eprintln!(
                "skipped: `openssl enc -engine gost {}` is not available (no openssl or no gost engine)",
                self.cipher
            );
        }
        ok
    }
}

fn temp_path(what: &str) -> PathBuf {
    let n: u64 = rand::thread_rng().gen();
    std::env::temp_dir().join(format!(
        "shifr-magma-diff-{}-{n:016x}.{what}",
        std::process::id()
    ))
}

/// An OpenSSL config that loads the gost engine with `CRYPT_PARAMS` set to `paramset`.
fn engine_config(paramset: &str) -> PathBuf {
    let path = temp_path("cnf");
    let text = format!(
        "openssl_conf = openssl_init\n[openssl_init]\nengines = engine_section\n\
         [engine_section]\ngost = gost_section\n[gost_section]\nengine_id = gost\n\
         CRYPT_PARAMS = {paramset}\n"
    );
    std::fs::write(&path, text).expect("write temporary OpenSSL config");
    path
}

fn cbc_encrypt<C: BlockCipher>(c: &C, iv: &[u8], data: &mut [u8]) {
    let mut chain = iv.to_vec();
    for block in data.chunks_exact_mut(8) {
        shifr::hazmat::util::xor_in_place(block, &chain);
        c.encrypt_blocks(block);
        chain.copy_from_slice(block);
    }
}

fn cbc_decrypt<C: BlockCipher>(c: &C, iv: &[u8], data: &mut [u8]) {
    let mut chain = iv.to_vec();
    for block in data.chunks_exact_mut(8) {
        let next = block.to_vec();
        c.decrypt_blocks(block);
        shifr::hazmat::util::xor_in_place(block, &chain);
        chain = next;
    }
}

/// Lengths that cross the 1 KiB boundary where CryptoPro key meshing would apply.
const OPENSSL_BLOCK_COUNTS: &[usize] = &[1, 2, 5, 127, 128, 129, 300];

/// CBC by hand over `c` against `openssl`, both directions, for several lengths and random keys/IVs.
fn check_cbc<C: BlockCipher>(openssl: &OpenSsl<'_>, make: impl Fn(&[u8]) -> C) {
    for &blocks in OPENSSL_BLOCK_COUNTS {
        let key = random_bytes(32);
        let iv = random_bytes(8);
        let c = make(&key);

        let pt = random_bytes(8 * blocks);
        let mut ours = pt.clone();
        cbc_encrypt(&c, &iv, &mut ours);
        let theirs = openssl.run(&key, &iv, false, &pt).expect("openssl encrypt");
        assert_eq!(
            hex::encode(&ours),
            hex::encode(&theirs),
            "encrypt, {blocks} blocks"
        );

        let ct = random_bytes(8 * blocks);
        let mut ours = ct.clone();
        cbc_decrypt(&c, &iv, &mut ours);
        let theirs = openssl.run(&key, &iv, true, &ct).expect("openssl decrypt");
        assert_eq!(
            hex::encode(&ours),
            hex::encode(&theirs),
            "decrypt, {blocks} blocks"
        );
    }
}

/// The engine's default parameter set (no CRYPT_PARAMS configured) is id-tc26-gost-28147-param-Z.
#[test]
fn gost28147_cbc_matches_openssl_gost89_cbc_default_paramset() {
    let openssl = OpenSsl {
        cipher: "-gost89-cbc",
        config: None,
    };
    if !openssl.available(8) {
        return;
    }
    check_cbc(&openssl, |key| Gost28147::new(key, SBox::Tc26Z).unwrap());
}

/// CRYPT_PARAMS = id-Gost28147-89-CryptoPro-A-ParamSet selects the RFC 4357 CryptoPro-A S-boxes.
#[test]
fn gost28147_cbc_matches_openssl_gost89_cbc_cryptopro_a() {
    let config = engine_config(SBox::CryptoProA.name());
    let openssl = OpenSsl {
        cipher: "-gost89-cbc",
        config: Some(&config),
    };
    let default = OpenSsl {
        cipher: "-gost89-cbc",
        config: None,
    };
    if openssl.available(8) {
        // If the config is not honoured the engine silently stays on its default set.
        let probe = |o: &OpenSsl<'_>| o.run(&[7u8; 32], &[0u8; 8], false, &[0u8; 8]);
        if probe(&openssl) == probe(&default) {
            eprintln!("skipped: this OpenSSL ignores CRYPT_PARAMS from OPENSSL_CONF");
        } else {
            check_cbc(&openssl, |key| {
                Gost28147::new(key, SBox::CryptoProA).unwrap()
            });
        }
    }
    let _ = std::fs::remove_file(&config);
}

/// OpenSSL's magma-cbc: GOST R 34.12-2015 byte order (as `Magma`), 8-byte IV, plain CBC (m = n).
#[test]
fn magma_cbc_matches_openssl_magma_cbc() {
    let openssl = OpenSsl {
        cipher: "-magma-cbc",
        config: None,
    };
    if !openssl.available(8) {
        return;
    }
    check_cbc(&openssl, |key| Magma::new(key).unwrap());
}

/// OpenSSL's magma-ctr takes the 4-byte GOST R 34.13 IV; counter block = iv || 0^32, big-endian +1.
#[test]
fn magma_ctr_matches_openssl_magma_ctr() {
    let openssl = OpenSsl {
        cipher: "-magma-ctr",
        config: None,
    };
    if !openssl.available(4) {
        return;
    }
    for &blocks in OPENSSL_BLOCK_COUNTS {
        let key = random_bytes(32);
        let iv = random_bytes(4);
        let c = Magma::new(&key).unwrap();
        let tail = rand::thread_rng().gen_range(0..8);
        let pt = random_bytes(8 * blocks + tail);

        let mut keystream = vec![0u8; 8 * (blocks + 1)];
        let start = u64::from(u32::from_be_bytes([iv[0], iv[1], iv[2], iv[3]])) << 32;
        for (i, block) in keystream.chunks_exact_mut(8).enumerate() {
            block.copy_from_slice(&start.wrapping_add(i as u64).to_be_bytes());
        }
        c.encrypt_blocks(&mut keystream);
        let mut ours = pt.clone();
        shifr::hazmat::util::xor_in_place(&mut ours, &keystream);

        let theirs = openssl
            .run(&key, &iv, false, &pt)
            .expect("openssl magma-ctr");
        assert_eq!(
            hex::encode(&ours),
            hex::encode(&theirs),
            "{blocks} blocks + {tail}"
        );
    }
}
