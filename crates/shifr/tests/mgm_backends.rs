//! MGM (RFC 9058) over shifr's own Magma and Kuznyechik, on every backend this CPU runs, against
//! RustCrypto's `mgm` crate (with its own magma / kuznyechik): every AAD and text length up to three
//! blocks, lengths around the step size (`BATCH_BLOCKS`) and its multiples (the fused counter
//! modes' longer steps too) with AAD of up to four steps, several KiB, counters that wrap their half
//! (`incr_r` / `incr_l` mod 2^(n/2)) inside a message, every tag length, and tampering; and the
//! fused counter modes themselves (`BlockCipher::half_ctr_xor`) against the portable cipher. The
//! last test reruns the short-length and step tests in child processes with `SHIFR_BACKEND` forced
//! to each backend name, so that the multiplier chosen through `cpu::select` is covered too.

use mgm::aead::generic_array::GenericArray;
use mgm::aead::{AeadInPlace, NewAead};
use rand::RngCore;
use shifr::aead::mgm::{Mgm, BATCH_BLOCKS};
use shifr::aead::Aead;
use shifr::cpu::Backend;
use shifr::hazmat::block::kuznyechik::Kuznyechik;
use shifr::hazmat::block::magma::{Magma, SBox};
use shifr::hazmat::block::{BlockCipher, CounterHalf};
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

/// [`check`] on every pair of an AAD length from `aads` and a text length from `texts` (but the
/// empty message with empty AAD, which MGM rejects), with random data, nonces and one random key.
fn check_lengths<C: Cipher>(aads: &[usize], texts: &[usize]) {
    let n = C::N;
    let key = random_bytes(32);
    for &aad_len in aads {
        for &pt_len in texts {
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

fn all_short_lengths<C: Cipher>() {
    let lengths: Vec<usize> = (0..=3 * C::N).collect();
    check_lengths::<C>(&lengths, &lengths);
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
    check_lengths::<C>(&[0, 13, step - 1, step, step + 1, 3000], &texts);
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

/// The short-length test, and the test of lengths around the steps (the fused counter modes with
/// every multiplier), again in a child process per `SHIFR_BACKEND` value (a name the cipher lacks
/// falls back to its best backend, as `cpu::select` documents).
#[test]
fn every_forced_backend_matches_rustcrypto() {
    if std::env::var_os("SHIFR_BACKEND").is_some() {
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let tests = [
        "short_lengths_match_rustcrypto",
        "step_multiples_and_aad_of_up_to_four_steps_match_rustcrypto",
    ];
    for name in ["portable", "aesni", "avx2", "avx512", "gfni"] {
        for test in tests {
            let out = std::process::Command::new(&exe)
                .args([test, "--exact", "--quiet"])
                .env("SHIFR_BACKEND", name)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "SHIFR_BACKEND={name} {test}: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            // The child must really have run the test (a filter matching nothing also succeeds).
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                stdout.contains("1 passed"),
                "SHIFR_BACKEND={name} {test}: {stdout}"
            );
        }
    }
}

/// Text lengths around every multiple of the step size up to three steps and around the longer
/// steps of the fused counter modes, with AAD of 0..=4 steps
/// (an AAD of at most one step shares the first step; a longer one is hashed on its own), so that
/// the fused counter paths meet every way a step can start and end.
fn step_multiples<C: Cipher>() {
    let n = C::N;
    let step = BATCH_BLOCKS * n;
    let mut texts = vec![0, 1];
    for k in 1..=3 {
        texts.extend([
            k * step - n - 1,
            k * step - 1,
            k * step,
            k * step + 1,
            k * step + n,
        ]);
    }
    // The steps of a long text where the cipher has the fused counter modes: four batches.
    texts.extend([
        4 * step - 1,
        4 * step,
        4 * step + n + 1,
        8 * step + 3 * n,
        9 * step - 2,
    ]);
    let aads = [
        0,
        1,
        step - n,
        step - 1,
        step,
        step + n,
        2 * step,
        3 * step - 1,
        3 * step + 5,
        4 * step + 1,
    ];
    check_lengths::<C>(&aads, &texts);
}

#[test]
fn step_multiples_and_aad_of_up_to_four_steps_match_rustcrypto() {
    step_multiples::<Magma>();
    step_multiples::<Kuznyechik>();
}

/// Every tag length from 4 bytes to the block: the tag is the full tag's prefix, opens, and a
/// flipped bit in its last byte is rejected with the buffer left as the ciphertext.
fn tag_lengths<C: Cipher>() {
    let n = C::N;
    let key = random_bytes(32);
    for pt_len in [5, BATCH_BLOCKS * n + 3] {
        let (nonce, aad, pt) = (nonce(n), random_bytes(20), random_bytes(pt_len));
        let (their_ct, their_tag) = C::theirs(&key, &nonce, &aad, &pt);
        for tag_len in 4..=n {
            let backends = CANDIDATES.iter().map(|&b| Some(b)).chain([None]);
            for (backend, cipher) in backends.filter_map(|b| C::make(&key, b).map(|c| (b, c))) {
                let name = backend.map_or("default", |b| b.name());
                let mgm = Mgm::new(cipher, tag_len).unwrap();
                let what = format!("{name} n={n} tag {tag_len} pt {pt_len}");
                let mut data = pt.clone();
                let tag = mgm.seal(&nonce, &aad, &mut data).unwrap();
                assert_eq!(data, their_ct, "{what}");
                assert_eq!(tag.as_ref(), &their_tag[..tag_len], "{what}");
                let mut bad = tag.as_ref().to_vec();
                bad[tag_len - 1] ^= 0x10;
                assert_eq!(
                    mgm.open(&nonce, &aad, &mut data, &bad),
                    Err(Error::AuthenticationFailed),
                    "{what}"
                );
                assert_eq!(data, their_ct, "{what}");
                mgm.open(&nonce, &aad, &mut data, tag.as_ref()).unwrap();
                assert_eq!(data, pt, "{what}");
            }
        }
    }
}

#[test]
fn every_tag_length_is_the_full_tags_prefix() {
    tag_lengths::<Magma>();
    tag_lengths::<Kuznyechik>();
}

/// `E(c), E(inc(c)), ...` with `inc` adding one to `half` of the block mod `2^(n/2)`, from the
/// counter blocks written out and enciphered one call each: the reference for
/// [`BlockCipher::half_ctr_xor`].
fn reference_stream<C: Cipher>(
    cipher: &C,
    counter: &[u8],
    half: CounterHalf,
    len: usize,
) -> Vec<u8> {
    let n = C::N;
    let h = n / 2;
    let read = |b: &[u8]| b.iter().fold(0u64, |acc, &x| (acc << 8) | u64::from(x));
    let (left, right) = (read(&counter[..h]), read(&counter[h..]));
    let mask = if n == 16 {
        u64::MAX
    } else {
        u64::from(u32::MAX)
    };
    let mut out = Vec::with_capacity(len + n);
    for i in 0..len.div_ceil(n) as u64 {
        let (l, r) = match half {
            CounterHalf::Left => (left.wrapping_add(i) & mask, right),
            CounterHalf::Right => (left, right.wrapping_add(i) & mask),
        };
        let mut block = [
            l.to_be_bytes()[8 - h..].to_vec(),
            r.to_be_bytes()[8 - h..].to_vec(),
        ]
        .concat();
        cipher.encrypt_blocks(&mut block);
        out.extend_from_slice(&block);
    }
    out.truncate(len);
    out
}

/// The fused MGM counter modes on every backend that has them, against [`reference_stream`] on
/// the portable backend: lengths around the kernels' passes (64 blocks) and their multiples,
/// tails of up to sixteen blocks after a pass and longer ones, partial last blocks, and counters
/// whose two low bytes of the counting half carry inside a pass or whose counting half wraps. The AVX-512 Magma and the gfni Kuznyechik backends must have the
/// path; the others may decline, touching nothing.
fn fused_counter_modes<C: Cipher>(must: Backend) {
    let n = C::N;
    let key = random_bytes(32);
    let reference = C::make(&key, Some(Backend::Portable)).unwrap();
    let mut lengths = vec![0, 1, n - 1, n, n + 1, 3 * n + 2, 63 * n, 64 * n - 1, 64 * n];
    lengths.extend([
        64 * n + 1,
        65 * n,
        66 * n + 5,
        128 * n,
        129 * n + 1,
        200 * n + 3,
    ]);
    // Tails after the last pass of up to sixteen blocks and just over.
    lengths.extend([68 * n - 1, 77 * n + 1, 80 * n, 81 * n, 144 * n, 145 * n - 3]);
    // Distances below the point where the counting half's low 16 bits, or all of it, wrap.
    let befores: [u64; 8] = [1, 2, 30, 63, 64, 65, 100, 0x1_0000];
    for half in [CounterHalf::Left, CounterHalf::Right] {
        for &backend in CANDIDATES {
            let Some(cipher) = C::make(&key, Some(backend)) else {
                continue;
            };
            let mut counters: Vec<Vec<u8>> = (0..4).map(|_| random_bytes(n)).collect();
            for &before in &befores {
                for whole_half in [false, true] {
                    let mut c = random_bytes(n);
                    let at = if half == CounterHalf::Left { 0 } else { n / 2 };
                    let value = if whole_half {
                        0u64.wrapping_sub(before)
                    } else {
                        0x1_0000u64.wrapping_sub(before) | (u64::from(c[at]) << 40)
                    };
                    c[at..at + n / 2].copy_from_slice(&value.to_be_bytes()[8 - n / 2..]);
                    counters.push(c);
                }
            }
            for counter in &counters {
                for &len in &lengths {
                    let text = random_bytes(len);
                    let mut data = text.clone();
                    let what =
                        format!("{backend:?} n={n} {half:?} len {len} counter {counter:02x?}");
                    if !cipher.half_ctr_xor(counter, half, &mut data) {
                        assert_ne!(backend, must, "{what}");
                        assert_eq!(data, text, "declined but touched, {what}");
                        continue;
                    }
                    let ks = reference_stream(&reference, counter, half, len);
                    let want: Vec<u8> = text.iter().zip(&ks).map(|(a, b)| a ^ b).collect();
                    assert_eq!(data, want, "{what}");
                }
            }
        }
    }
}

#[test]
fn fused_counter_modes_match_the_portable_cipher() {
    fused_counter_modes::<Magma>(Backend::Avx512);
    fused_counter_modes::<Kuznyechik>(Backend::Gfni);
}
