//! Differential tests: shifr's GOST 28147-89 modes against `openssl enc -engine gost` (the system
//! OpenSSL with the GOST engine) on random keys, IVs and lengths.
//!
//! The block cipher under the modes is RustCrypto's `magma` crate, adapted to the GOST 28147-89 byte
//! conventions the engine uses (little-endian key words and block halves), so both the mode and the
//! reference cipher are independent of the code that produced OpenSSL's output. Every test is skipped,
//! with the reason printed, when `openssl` or its GOST engine is missing.

use std::io::Write;
use std::process::{Command, Stdio};

use cipher::{BlockDecrypt, BlockEncrypt};
use rand::{Rng, RngCore};
use shifr::hazmat::block::magma::{Gost28147, SBox};
use shifr::hazmat::block::{BlockCipher, KeyInit};
use shifr::hazmat::mode::gost89::{self, Gost89Cfb, Gost89Cnt, KeyMeshing};
use shifr::hazmat::mode::{cbc, padding};

/// Lengths the brief asks for: around the block and around the 1024-byte key-meshing section.
const LENGTHS: &[usize] = &[0, 1, 7, 8, 9, 1023, 1024, 1025, 2048, 2049, 5000];

/// GOST 28147-89 with the engine's byte order, built on the big-endian `magma` crate: reversing the
/// 8-byte block and each 4-byte key word maps one convention onto the other.
struct RefGost<T>(T);

/// What `RefGost` needs from a RustCrypto cipher: one of `magma`'s 64-bit, 256-bit-key types.
trait Magma64:
    BlockEncrypt
    + BlockDecrypt
    + cipher::KeyInit
    + cipher::BlockSizeUser<BlockSize = cipher::consts::U8>
    + Send
    + Sync
{
}
impl Magma64 for magma::Magma {}
impl Magma64 for magma::Gost89CryptoProA {}

impl<T: Magma64> RefGost<T> {
    fn apply(&self, data: &mut [u8], encrypt: bool) {
        for block in data.chunks_exact_mut(8) {
            block.reverse();
            let b = cipher::generic_array::GenericArray::from_mut_slice(block);
            if encrypt {
                self.0.encrypt_block(b);
            } else {
                self.0.decrypt_block(b);
            }
            block.reverse();
        }
    }
}

impl<T: Magma64> BlockCipher for RefGost<T> {
    fn block_size(&self) -> usize {
        8
    }
    fn encrypt_blocks(&self, data: &mut [u8]) {
        self.apply(data, true)
    }
    fn decrypt_blocks(&self, data: &mut [u8]) {
        self.apply(data, false)
    }
}

impl<T: Magma64> KeyInit for RefGost<T> {
    const KEY_SIZES: &'static [usize] = &[32];
    fn new_from_slice(key: &[u8]) -> shifr::Result<Self> {
        if key.len() != 32 {
            return Err(shifr::Error::InvalidKeyLength {
                expected: "32",
                got: key.len(),
            });
        }
        let mut be = [0u8; 32];
        for (dst, src) in be.chunks_exact_mut(4).zip(key.chunks_exact(4)) {
            dst.copy_from_slice(src);
            dst.reverse();
        }
        T::new_from_slice(&be)
            .map(Self)
            .map_err(|_| shifr::Error::InvalidKeyLength {
                expected: "32",
                got: key.len(),
            })
    }
}

/// GOST 28147-89 with the TC26 Z S-box (`id-tc26-gost-28147-param-Z`, the Magma S-box).
type RefTc26Z = RefGost<magma::Magma>;
/// GOST 28147-89 with `id-Gost28147-89-CryptoPro-A-ParamSet`.
type RefCryptoProA = RefGost<magma::Gost89CryptoProA>;

/// True when `openssl enc -engine gost` works; otherwise prints why the caller skips.
fn openssl_has_gost(test: &str) -> bool {
    let probe = Command::new("openssl")
        .args(["enc", "-engine", "gost", "-gost89", "-nopad", "-K"])
        .arg("00".repeat(32))
        .args(["-iv", "0000000000000000"])
        .stdin(Stdio::null())
        .output();
    match probe {
        Err(e) => {
            eprintln!("SKIP {test}: cannot run openssl: {e}");
            false
        }
        Ok(out) if !out.status.success() => {
            eprintln!(
                "SKIP {test}: openssl has no usable GOST engine: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            false
        }
        Ok(_) => true,
    }
}

/// `openssl enc -engine gost -<name> [-d] -nopad -K key -iv iv` over `data`, with extra
/// environment variables (the engine reads `CRYPT_PARAMS`).
fn openssl(
    name: &str,
    key: &[u8],
    iv: &[u8],
    data: &[u8],
    decrypt: bool,
    env: &[(&str, &str)],
) -> Vec<u8> {
    openssl_padded(name, key, iv, data, decrypt, env, false)
}

/// As [`openssl`], but with OpenSSL's default PKCS#7 padding when `pad` is set.
fn openssl_padded(
    name: &str,
    key: &[u8],
    iv: &[u8],
    data: &[u8],
    decrypt: bool,
    env: &[(&str, &str)],
    pad: bool,
) -> Vec<u8> {
    let mut cmd = Command::new("openssl");
    cmd.args(["enc", "-engine", "gost", &format!("-{name}")]);
    if !pad {
        cmd.arg("-nopad");
    }
    cmd.arg("-K")
        .arg(hex::encode(key))
        .arg("-iv")
        .arg(hex::encode(iv))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if decrypt {
        cmd.arg("-d");
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn openssl");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = data.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().expect("openssl output");
    writer
        .join()
        .expect("writer thread")
        .expect("write to openssl");
    assert!(
        out.status.success(),
        "openssl -{name} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn random_bytes(rng: &mut impl RngCore, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rng.fill_bytes(&mut v);
    v
}

/// Cuts `len` into random pieces (including empty ones) to drive the streaming interfaces.
fn random_splits(rng: &mut impl Rng, len: usize) -> Vec<usize> {
    let mut cuts = Vec::new();
    let mut left = len;
    while left > 0 {
        let piece = rng.gen_range(0..=left.min(300));
        cuts.push(piece);
        left -= piece;
    }
    cuts
}

fn first_difference(a: &[u8], b: &[u8]) -> String {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => format!(
            "first differing byte at offset {i}: {:02x} != {:02x}",
            a[i], b[i]
        ),
        None => format!("lengths differ: {} != {}", a.len(), b.len()),
    }
}

fn assert_same(what: &str, ours: &[u8], theirs: &[u8]) {
    assert!(ours == theirs, "{what}: {}", first_difference(ours, theirs));
}

/// Which engine cipher and how to run the same thing in shifr.
#[derive(Clone, Copy)]
enum Mode {
    Cfb,
    Cnt,
}

/// Checks one OpenSSL name against shifr on every length: one-shot, random streaming splits, and
/// decryption of OpenSSL's ciphertext.
fn check_against_openssl<C: KeyInit>(
    name: &str,
    mode: Mode,
    env: &[(&str, &str)],
    make: impl Fn(&[u8]) -> C,
) {
    let mut rng = rand::thread_rng();
    for &len in LENGTHS {
        let key = random_bytes(&mut rng, 32);
        let iv = random_bytes(&mut rng, 8);
        let pt = random_bytes(&mut rng, len);
        let cipher = make(&key);
        let theirs = openssl(name, &key, &iv, &pt, false, env);
        let what = format!(
            "{name} len {len} key {} iv {}",
            hex::encode(&key),
            hex::encode(&iv)
        );

        let mut ours = pt.clone();
        match mode {
            Mode::Cfb => gost89::cfb_encrypt(&cipher, &iv, KeyMeshing::CryptoPro, &mut ours),
            Mode::Cnt => gost89::cnt_apply(&cipher, &iv, KeyMeshing::CryptoPro, &mut ours),
        }
        .unwrap();
        assert_same(&format!("{what} encrypt"), &ours, &theirs);

        let mut streamed = pt.clone();
        let mut back = theirs.clone();
        let splits = random_splits(&mut rng, len);
        match mode {
            Mode::Cfb => {
                let mut enc = Gost89Cfb::new(&cipher, &iv, KeyMeshing::CryptoPro).unwrap();
                let mut dec = Gost89Cfb::new(&cipher, &iv, KeyMeshing::CryptoPro).unwrap();
                let mut at = 0;
                for &n in &splits {
                    enc.encrypt(&mut streamed[at..at + n]).unwrap();
                    dec.decrypt(&mut back[at..at + n]).unwrap();
                    at += n;
                }
            }
            Mode::Cnt => {
                let mut enc = Gost89Cnt::new(&cipher, &iv, KeyMeshing::CryptoPro).unwrap();
                let mut dec = Gost89Cnt::new(&cipher, &iv, KeyMeshing::CryptoPro).unwrap();
                let mut at = 0;
                for &n in &splits {
                    enc.apply_keystream(&mut streamed[at..at + n]).unwrap();
                    dec.apply_keystream(&mut back[at..at + n]).unwrap();
                    at += n;
                }
            }
        }
        assert_same(&format!("{what} streamed {splits:?}"), &streamed, &theirs);
        assert_same(&format!("{what} decrypt (streamed)"), &back, &pt);

        // OpenSSL's decryption of a random "ciphertext" against ours, one-shot.
        let ct = random_bytes(&mut rng, len);
        let theirs_pt = openssl(name, &key, &iv, &ct, true, env);
        let mut ours_pt = ct.clone();
        match mode {
            Mode::Cfb => gost89::cfb_decrypt(&cipher, &iv, KeyMeshing::CryptoPro, &mut ours_pt),
            Mode::Cnt => gost89::cnt_apply(&cipher, &iv, KeyMeshing::CryptoPro, &mut ours_pt),
        }
        .unwrap();
        assert_same(&format!("{what} decrypt"), &ours_pt, &theirs_pt);
    }
}

fn ref_tc26_z(key: &[u8]) -> RefTc26Z {
    RefTc26Z::new_from_slice(key).unwrap()
}

fn ref_cryptopro_a(key: &[u8]) -> RefCryptoProA {
    RefCryptoProA::new_from_slice(key).unwrap()
}

/// shifr's own GOST 28147-89 (branch `gost`), run through the same comparisons as the reference.
fn shifr_gost(key: &[u8], sbox: SBox) -> Gost28147 {
    Gost28147::new(key, sbox).unwrap()
}

#[test]
fn gost89_cfb_is_tc26_z_with_cryptopro_meshing() {
    if openssl_has_gost("gost89") {
        check_against_openssl("gost89", Mode::Cfb, &[], ref_tc26_z);
        check_against_openssl("gost89", Mode::Cfb, &[], |k| shifr_gost(k, SBox::Tc26Z));
    }
}

#[test]
fn gost89_cfb_follows_crypt_params() {
    if openssl_has_gost("gost89 with CRYPT_PARAMS") {
        let env = [("CRYPT_PARAMS", "id-Gost28147-89-CryptoPro-A-ParamSet")];
        check_against_openssl("gost89", Mode::Cfb, &env, ref_cryptopro_a);
        check_against_openssl("gost89", Mode::Cfb, &env, |k| {
            shifr_gost(k, SBox::CryptoProA)
        });
    }
}

#[test]
fn gost89_cnt_is_cryptopro_a_with_meshing() {
    if openssl_has_gost("gost89-cnt") {
        check_against_openssl("gost89-cnt", Mode::Cnt, &[], ref_cryptopro_a);
        check_against_openssl("gost89-cnt", Mode::Cnt, &[], |k| {
            shifr_gost(k, SBox::CryptoProA)
        });
        // CRYPT_PARAMS does not reach gost89-cnt: it always uses CryptoPro A.
        let env = [("CRYPT_PARAMS", "id-tc26-gost-28147-param-Z")];
        check_against_openssl("gost89-cnt", Mode::Cnt, &env, ref_cryptopro_a);
    }
}

#[test]
fn gost89_cnt_12_is_tc26_z_with_meshing() {
    if openssl_has_gost("gost89-cnt-12") {
        check_against_openssl("gost89-cnt-12", Mode::Cnt, &[], ref_tc26_z);
        check_against_openssl("gost89-cnt-12", Mode::Cnt, &[], |k| {
            shifr_gost(k, SBox::Tc26Z)
        });
    }
}

#[test]
fn reference_cipher_matches_rfc_8891_vector() {
    // RFC 8891 A.1 (big-endian Magma conventions): the byte-reversal adapter must turn it into the
    // engine's convention, i.e. reversed key words, reversed block.
    let key =
        hex::decode("ffeeddccbbaa99887766554433221100f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff").unwrap();
    let mut le_key = key.clone();
    le_key.chunks_exact_mut(4).for_each(<[u8]>::reverse);
    let mut block = hex::decode("fedcba9876543210").unwrap();
    block.reverse();
    RefTc26Z::new_from_slice(&le_key)
        .unwrap()
        .encrypt_blocks(&mut block);
    block.reverse();
    assert_eq!(hex::encode(block), "4ee901e5c2d8ca3d");
}

/// `gost89-cbc` is plain CBC (no key meshing) over GOST 28147-89 with the TC26 Z S-box by default,
/// CryptoPro A under `CRYPT_PARAMS`; OpenSSL pads with PKCS#7 unless `-nopad`.
fn check_gost89_cbc<C: KeyInit>(env: &[(&str, &str)], make: impl Fn(&[u8]) -> C) {
    let mut rng = rand::thread_rng();
    for &len in LENGTHS {
        let key = random_bytes(&mut rng, 32);
        let iv = random_bytes(&mut rng, 8);
        let pt = random_bytes(&mut rng, len);
        let cipher = make(&key);
        let what = format!(
            "gost89-cbc len {len} key {} iv {}",
            hex::encode(&key),
            hex::encode(&iv)
        );

        let theirs = openssl_padded("gost89-cbc", &key, &iv, &pt, false, env, true);
        let mut ours = pt.clone();
        padding::pkcs7_pad(&mut ours, 8).unwrap();
        cbc::encrypt(&cipher, &iv, &mut ours).unwrap();
        assert_same(&format!("{what} pkcs7 encrypt"), &ours, &theirs);
        let mut back = theirs.clone();
        cbc::decrypt(&cipher, &iv, &mut back).unwrap();
        let unpadded = padding::pkcs7_unpad(&back, 8).unwrap();
        assert_same(&format!("{what} pkcs7 decrypt"), &back[..unpadded], &pt);

        if len.is_multiple_of(8) {
            let theirs = openssl("gost89-cbc", &key, &iv, &pt, false, env);
            let mut ours = pt.clone();
            cbc::encrypt(&cipher, &iv, &mut ours).unwrap();
            assert_same(&format!("{what} -nopad encrypt"), &ours, &theirs);
            let theirs_pt = openssl("gost89-cbc", &key, &iv, &ours, true, env);
            assert_same(&format!("{what} -nopad decrypt"), &theirs_pt, &pt);
        }
    }
}

#[test]
fn gost89_cbc_is_plain_cbc_tc26_z() {
    if openssl_has_gost("gost89-cbc") {
        check_gost89_cbc(&[], ref_tc26_z);
        check_gost89_cbc(&[], |k| shifr_gost(k, SBox::Tc26Z));
        let env = [("CRYPT_PARAMS", "id-Gost28147-89-CryptoPro-A-ParamSet")];
        check_gost89_cbc(&env, |k| shifr_gost(k, SBox::CryptoProA));
    }
}
