//! MGM (RFC 9058) over shifr's own Magma and Kuznyechik, on every backend this CPU runs, against
//! RustCrypto's `mgm` crate (with its own magma / kuznyechik): every AAD and text length up to three
//! blocks, lengths around the step size (`BATCH_BLOCKS`), several KiB, counters that wrap their
//! half (`incr_r` / `incr_l` mod 2^(n/2)) inside a message, and tampering. The last test reruns the
//! short-length test in child processes with `SHIFR_BACKEND` forced to each backend name, so that
//! the multiplier chosen through `cpu::select` is covered too.

use mgm::aead::generic_array::GenericArray;
use mgm::aead::{AeadInPlace, NewAead};
use rand::RngCore;
use shifr::aead::mgm::{Mgm, BATCH_BLOCKS};
use shifr::aead::Aead;
use shifr::cpu::Backend;
use shifr::hazmat::block::kuznyechik::Kuznyechik;
use shifr::hazmat::block::magma::{Magma, SBox};
use shifr::hazmat::block::BlockCipher;
use shifr::Error;

fn random_bytes(len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rand::thread_rng().fill_bytes(&mut v);
    v
}

/// Backends a cipher may have; those this CPU (or build) lacks are skipped.
const CANDIDATES: &[Backend] = &[
    Backend::Portable,
    Backend::Avx2,
    Backend::Avx512,
    Backend::Gfni,
    Backend::Neon,
];

/// One cipher under test: shifr's instance on a backend (`None`: the default selection) and the
/// matching RustCrypto MGM.
trait Cipher: BlockCipher + Sized {
    const N: usize;
    fn make(key: &[u8], backend: Option<Backend>) -> Option<Self>;
    /// RustCrypto's `(ciphertext, full tag)`.
    fn theirs(key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8]) -> (Vec<u8>, Vec<u8>);
}

impl Cipher for Magma {
    const N: usize = 8;
    fn make(key: &[u8], backend: Option<Backend>) -> Option<Self> {
        match backend {
            Some(b) => Magma::with_backend(key, SBox::Tc26Z, b).ok(),
            None => Magma::new(key).ok(),
        }
    }
    fn theirs(key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8]) -> (Vec<u8>, Vec<u8>) {
        let aead = <mgm::Mgm<magma_mgm::Magma>>::new(GenericArray::from_slice(key));
        let mut ct = pt.to_vec();
        let tag = aead
            .encrypt_in_place_detached(GenericArray::from_slice(nonce), aad, &mut ct)
            .unwrap();
        (ct, tag.to_vec())
    }
}

impl Cipher for Kuznyechik {
    const N: usize = 16;
    fn make(key: &[u8], backend: Option<Backend>) -> Option<Self> {
        match backend {
            Some(b) => Kuznyechik::with_backend(key, b).ok(),
            None => Kuznyechik::new(key).ok(),
        }
    }
    fn theirs(key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8]) -> (Vec<u8>, Vec<u8>) {
        let aead = <mgm::Mgm<kuznyechik_mgm::Kuznyechik>>::new(GenericArray::from_slice(key));
        let mut ct = pt.to_vec();
        let tag = aead
            .encrypt_in_place_detached(GenericArray::from_slice(nonce), aad, &mut ct)
            .unwrap();
        (ct, tag.to_vec())
    }
}

/// The instances to test for `key`: every backend this CPU runs, and the default selection.
fn instances<C: Cipher>(key: &[u8]) -> Vec<(String, Mgm<C>)> {
    let mut out: Vec<(String, Mgm<C>)> = CANDIDATES
        .iter()
        .filter_map(|&b| C::make(key, Some(b)).map(|c| (b.name().to_string(), c)))
        .map(|(name, c)| (name, Mgm::new(c, C::N).unwrap()))
        .collect();
    let default = C::make(key, None).unwrap();
    out.push(("default".into(), Mgm::new(default, C::N).unwrap()));
    out
}

/// Random nonce with the most significant bit clear.
fn nonce(n: usize) -> Vec<u8> {
    let mut v = random_bytes(n);
    v[0] &= 0x7f;
    v
}

/// Seals `pt` on every instance and compares with RustCrypto; then opens, and checks that a
/// flipped ciphertext, AAD or tag bit is rejected with the buffer left as the ciphertext.
fn check<C: Cipher>(key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8]) {
    let (their_ct, their_tag) = C::theirs(key, nonce, aad, pt);
    for (name, mgm) in instances::<C>(key) {
        let what = format!("{name} n={} aad {} pt {}", C::N, aad.len(), pt.len());
        let mut data = pt.to_vec();
        let tag = mgm.seal(nonce, aad, &mut data).unwrap();
        assert_eq!(data, their_ct, "ciphertext, {what}");
        assert_eq!(tag.as_ref(), &their_tag[..], "tag, {what}");

        let mut bad_tag = their_tag.clone();
        bad_tag[C::N - 1] ^= 0x01;
        assert_eq!(
            mgm.open(nonce, aad, &mut data, &bad_tag),
            Err(Error::AuthenticationFailed),
            "{what}"
        );
        assert_eq!(data, their_ct, "buffer after a rejected tag, {what}");
        if !data.is_empty() {
            let at = pt.len() / 2;
            data[at] ^= 0x04;
            assert_eq!(
                mgm.open(nonce, aad, &mut data, &their_tag),
                Err(Error::AuthenticationFailed),
                "{what}"
            );
            data[at] ^= 0x04;
            assert_eq!(data, their_ct, "buffer after a rejected text, {what}");
        }
        if !aad.is_empty() {
            let mut bad_aad = aad.to_vec();
            bad_aad[aad.len() - 1] ^= 0x80;
            assert_eq!(
                mgm.open(nonce, &bad_aad, &mut data, &their_tag),
                Err(Error::AuthenticationFailed),
                "{what}"
            );
            assert_eq!(data, their_ct, "buffer after a rejected AAD, {what}");
        }
        mgm.open(nonce, aad, &mut data, &their_tag)
            .unwrap_or_else(|e| panic!("open failed: {e:?}, {what}"));
        assert_eq!(data, pt, "plaintext, {what}");
    }
}

fn all_short_lengths<C: Cipher>() {
    let n = C::N;
    let key = random_bytes(32);
    for aad_len in 0..=3 * n {
        for pt_len in 0..=3 * n {
            if aad_len + pt_len == 0 {
                continue;
            }
            check::<C>(
                &key,
                &nonce(n),
                &random_bytes(aad_len),
                &random_bytes(pt_len),
            );
        }
    }
}

#[test]
fn short_lengths_match_rustcrypto() {
    all_short_lengths::<Magma>();
    all_short_lengths::<Kuznyechik>();
}

fn long_lengths<C: Cipher>() {
    let n = C::N;
    let step = BATCH_BLOCKS * n;
    let texts = [
        n - 1,
        n + 1,
        step - 1,
        step,
        step + 1,
        2 * step + 3,
        5000,
        3 * 4096 + 7,
    ];
    // AAD of at most BATCH_BLOCKS blocks shares the first step; a longer one is hashed alone.
    let aads = [0, 13, step - 1, step, step + 1, 3000];
    for &aad_len in &aads {
        for &pt_len in &texts {
            let key = random_bytes(32);
            check::<C>(
                &key,
                &nonce(n),
                &random_bytes(aad_len),
                &random_bytes(pt_len),
            );
        }
    }
}

#[test]
fn long_and_step_boundary_lengths_match_rustcrypto() {
    long_lengths::<Magma>();
    long_lengths::<Kuznyechik>();
}

/// A nonce whose `Y_1` (`left = false`, `Y_1 = E_K(0 || ICN)`) has its right half, or whose `Z_1`
/// (`left = true`, `Z_1 = E_K(1 || ICN)`) has its left half, equal to `2^(n/2) - before`: found
/// by deciphering such a block until the result has the most significant bit the counter needs.
fn nonce_near_wrap<C: Cipher>(cipher: &C, left: bool, before: u64) -> Vec<u8> {
    let n = C::N;
    let half = n / 2;
    let near = (0u64.wrapping_sub(before)).to_be_bytes();
    loop {
        let mut block = random_bytes(n);
        let (l, r) = block.split_at_mut(half);
        let counter = if left { l } else { r };
        counter.copy_from_slice(&near[8 - half..]);
        cipher.decrypt_blocks(&mut block);
        if (block[0] & 0x80 != 0) == left {
            block[0] &= 0x7f;
            return block;
        }
    }
}

fn counter_wraps<C: Cipher>() {
    let n = C::N;
    for before in [1u64, 3, 40] {
        let key = random_bytes(32);
        let cipher = C::make(&key, Some(Backend::Portable)).unwrap();
        let y_nonce = nonce_near_wrap(&cipher, false, before);
        let z_nonce = nonce_near_wrap(&cipher, true, before);
        let mgm = Mgm::new(C::make(&key, Some(Backend::Portable)).unwrap(), n).unwrap();
        let (y1, _) = mgm.y1_z1(&y_nonce).unwrap();
        assert_eq!(
            &y1[n / 2..],
            &0u64.wrapping_sub(before).to_be_bytes()[8 - n / 2..]
        );
        let (_, z1) = mgm.y1_z1(&z_nonce).unwrap();
        assert_eq!(
            &z1[..n / 2],
            &0u64.wrapping_sub(before).to_be_bytes()[8 - n / 2..]
        );
        for (aad_len, pt_len) in [(0, 5 * n + 3), (2 * n, 70 * n), (n + 1, 3 * n), (90 * n, n)] {
            let (aad, pt) = (random_bytes(aad_len), random_bytes(pt_len));
            check::<C>(&key, &y_nonce, &aad, &pt);
            check::<C>(&key, &z_nonce, &aad, &pt);
        }
    }
}

#[test]
fn counters_wrapping_their_half_match_rustcrypto() {
    counter_wraps::<Magma>();
    counter_wraps::<Kuznyechik>();
}

/// The short-length test again in a child process per `SHIFR_BACKEND` value (a name the cipher
/// lacks falls back to its best backend, as `cpu::select` documents).
#[test]
fn every_forced_backend_matches_rustcrypto() {
    if std::env::var_os("SHIFR_BACKEND").is_some() {
        return;
    }
    let exe = std::env::current_exe().unwrap();
    for name in ["portable", "aesni", "avx2", "avx512", "gfni"] {
        let out = std::process::Command::new(&exe)
            .args(["short_lengths_match_rustcrypto", "--exact", "--quiet"])
            .env("SHIFR_BACKEND", name)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "SHIFR_BACKEND={name}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        // The child must really have run the test (a filter matching nothing also succeeds).
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("1 passed"),
            "SHIFR_BACKEND={name}: {stdout}"
        );
    }
}
