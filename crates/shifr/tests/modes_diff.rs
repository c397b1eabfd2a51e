//! Differential tests: shifr's modes and OMAC against RustCrypto's mode crates (cbc, ecb, cfb-mode,
//! cfb8, ofb, ctr, cmac) on random keys, IVs and lengths, for AES-128/256, Magma and Kuznyechik. The GOST
//! registers longer than a block are checked against interleaved RustCrypto chains.

mod support;

use cipher::generic_array::GenericArray;
use cipher::{
    AsyncStreamCipher, BlockDecryptMut, BlockEncryptMut, KeyInit, KeyIvInit, StreamCipher,
};
use cmac::Mac;
use shifr::hazmat::block::KeyInit as _;
use shifr::hazmat::mac::omac;
use shifr::hazmat::mode::{cbc, cfb, ctr, ecb, ofb};
use support::{lengths, random_bytes};

/// Whole-block lengths for ECB / CBC.
fn block_lengths(n: usize) -> Vec<usize> {
    vec![0, n, 2 * n, 3 * n, 17 * n, 512 * n]
}

/// Splits `data` into `z` streams: stream `j` holds blocks `j, j + z, j + 2z, ...`.
fn deinterleave(data: &[u8], n: usize, z: usize) -> Vec<Vec<u8>> {
    let mut streams = vec![Vec::new(); z];
    for (i, block) in data.chunks(n).enumerate() {
        streams[i % z].extend_from_slice(block);
    }
    streams
}

fn interleave(streams: &[Vec<u8>], n: usize, total: usize) -> Vec<u8> {
    let z = streams.len();
    let mut out = Vec::with_capacity(total);
    let mut i = 0;
    while out.len() < total {
        let s = &streams[i % z];
        let start = (i / z) * n;
        out.extend_from_slice(&s[start..s.len().min(start + n)]);
        i += 1;
    }
    out
}

macro_rules! differential {
    ($module:ident, $shifr:ty, $rc:ty, $n:expr, $key:expr, $ctr:ty) => {
        mod $module {
            use super::*;
            const N: usize = $n;

            fn shifr_cipher(key: &[u8]) -> $shifr {
                <$shifr>::new_from_slice(key).unwrap()
            }

            fn rc_cbc_encrypt(key: &[u8], iv: &[u8], data: &mut [u8]) {
                let mut e = ::cbc::Encryptor::<$rc>::new_from_slices(key, iv).unwrap();
                for b in data.chunks_exact_mut(N) {
                    e.encrypt_block_mut(GenericArray::from_mut_slice(b));
                }
            }

            fn rc_cfb_encrypt(key: &[u8], iv: &[u8], data: &mut [u8]) {
                cfb_mode::Encryptor::<$rc>::new_from_slices(key, iv)
                    .unwrap()
                    .encrypt(data);
            }

            fn rc_ofb(key: &[u8], iv: &[u8], data: &mut [u8]) {
                ::ofb::Ofb::<$rc>::new_from_slices(key, iv)
                    .unwrap()
                    .apply_keystream(data);
            }

            #[test]
            fn ecb_matches() {
                for len in block_lengths(N) {
                    let key = random_bytes($key);
                    let pt = random_bytes(len);
                    let mut ours = pt.clone();
                    ecb::encrypt(&shifr_cipher(&key), &mut ours).unwrap();
                    let mut theirs = pt.clone();
                    let mut e = ::ecb::Encryptor::<$rc>::new_from_slice(&key).unwrap();
                    for b in theirs.chunks_exact_mut(N) {
                        e.encrypt_block_mut(GenericArray::from_mut_slice(b));
                    }
                    assert_eq!(ours, theirs, "len {len}");
                    ecb::decrypt(&shifr_cipher(&key), &mut ours).unwrap();
                    assert_eq!(ours, pt);
                }
            }

            #[test]
            fn cbc_matches() {
                for len in block_lengths(N) {
                    let (key, iv, pt) = (random_bytes($key), random_bytes(N), random_bytes(len));
                    let mut ours = pt.clone();
                    cbc::encrypt(&shifr_cipher(&key), &iv, &mut ours).unwrap();
                    let mut theirs = pt.clone();
                    rc_cbc_encrypt(&key, &iv, &mut theirs);
                    assert_eq!(ours, theirs, "len {len}");
                    let mut d = ::cbc::Decryptor::<$rc>::new_from_slices(&key, &iv).unwrap();
                    for b in theirs.chunks_exact_mut(N) {
                        d.decrypt_block_mut(GenericArray::from_mut_slice(b));
                    }
                    assert_eq!(theirs, pt);
                    cbc::decrypt(&shifr_cipher(&key), &iv, &mut ours).unwrap();
                    assert_eq!(ours, pt, "len {len}");
                }
            }

            #[test]
            fn cbc_long_register_is_interleaved_chains() {
                for z in [2usize, 3, 5] {
                    for len in block_lengths(N) {
                        let (key, iv, pt) =
                            (random_bytes($key), random_bytes(z * N), random_bytes(len));
                        let mut ours = pt.clone();
                        cbc::encrypt(&shifr_cipher(&key), &iv, &mut ours).unwrap();
                        let mut chains = deinterleave(&pt, N, z);
                        for (j, chain) in chains.iter_mut().enumerate() {
                            rc_cbc_encrypt(&key, &iv[j * N..(j + 1) * N], chain);
                        }
                        assert_eq!(ours, interleave(&chains, N, len), "z {z} len {len}");
                        cbc::decrypt(&shifr_cipher(&key), &iv, &mut ours).unwrap();
                        assert_eq!(ours, pt, "z {z} len {len}");
                    }
                }
            }

            #[test]
            fn cfb_full_block_matches() {
                for len in lengths(N) {
                    let (key, iv, pt) = (random_bytes($key), random_bytes(N), random_bytes(len));
                    let mut ours = pt.clone();
                    cfb::encrypt(&shifr_cipher(&key), &iv, N, &mut ours).unwrap();
                    let mut theirs = pt.clone();
                    rc_cfb_encrypt(&key, &iv, &mut theirs);
                    assert_eq!(ours, theirs, "len {len}");
                    cfb::decrypt(&shifr_cipher(&key), &iv, N, &mut ours).unwrap();
                    assert_eq!(ours, pt, "len {len}");
                }
            }

            #[test]
            fn cfb_long_register_is_interleaved_chains() {
                for z in [2usize, 3] {
                    for len in lengths(N) {
                        let (key, iv, pt) =
                            (random_bytes($key), random_bytes(z * N), random_bytes(len));
                        let mut ours = pt.clone();
                        cfb::encrypt(&shifr_cipher(&key), &iv, N, &mut ours).unwrap();
                        let mut chains = deinterleave(&pt, N, z);
                        for (j, chain) in chains.iter_mut().enumerate() {
                            rc_cfb_encrypt(&key, &iv[j * N..(j + 1) * N], chain);
                        }
                        assert_eq!(ours, interleave(&chains, N, len), "z {z} len {len}");
                        cfb::decrypt(&shifr_cipher(&key), &iv, N, &mut ours).unwrap();
                        assert_eq!(ours, pt, "z {z} len {len}");
                    }
                }
            }

            #[test]
            fn cfb8_matches() {
                for len in lengths(N) {
                    let (key, iv, pt) = (random_bytes($key), random_bytes(N), random_bytes(len));
                    let mut ours = pt.clone();
                    cfb::encrypt(&shifr_cipher(&key), &iv, 1, &mut ours).unwrap();
                    let mut theirs = pt.clone();
                    cfb8::Encryptor::<$rc>::new_from_slices(&key, &iv)
                        .unwrap()
                        .encrypt(&mut theirs);
                    assert_eq!(ours, theirs, "len {len}");
                    cfb::decrypt(&shifr_cipher(&key), &iv, 1, &mut ours).unwrap();
                    assert_eq!(ours, pt, "len {len}");
                }
            }

            /// CFB written straight from GOST R 34.13-2015 section 4.5 over the RustCrypto cipher, one
            /// segment at a time: `C_i = P_i ^ MSB_s(E(MSB_n(R)))`, `R = LSB_(m-s)(R) || C_i`.
            fn naive_cfb(key: &[u8], iv: &[u8], s: usize, pt: &[u8]) -> Vec<u8> {
                use cipher::BlockEncrypt;
                let rc = <$rc>::new_from_slice(key).unwrap();
                let mut reg = iv.to_vec();
                let mut out = Vec::new();
                for segment in pt.chunks(s) {
                    let mut block = GenericArray::clone_from_slice(&reg[..N]);
                    rc.encrypt_block(&mut block);
                    let ct: Vec<u8> = segment
                        .iter()
                        .zip(block.iter())
                        .map(|(p, k)| p ^ k)
                        .collect();
                    reg.drain(..s);
                    reg.extend_from_slice(&ct);
                    out.extend_from_slice(&ct);
                }
                out
            }

            #[test]
            fn cfb_any_segment_and_register_matches_definition() {
                for s in 1..=N {
                    // Lengths: one batch, and (full-segment decryption) several batches of the
                    // key-stream buffer with a partial last segment.
                    for (m, len) in [N, N + 1, N + s, 2 * N, 3 * N + 1, 70 * N + 3]
                        .into_iter()
                        .flat_map(|m| [(m, 7 * N + 3), (m, 150 * N + 5)])
                    {
                        let (key, iv, pt) =
                            (random_bytes($key), random_bytes(m), random_bytes(len));
                        let c = shifr_cipher(&key);
                        let mut d = pt.clone();
                        cfb::encrypt(&c, &iv, s, &mut d).unwrap();
                        assert_eq!(d, naive_cfb(&key, &iv, s, &pt), "s {s} m {m}");
                        // Encrypting a prefix gives the prefix of the ciphertext.
                        let mut prefix = pt[..len / 2].to_vec();
                        cfb::encrypt(&c, &iv, s, &mut prefix).unwrap();
                        assert_eq!(prefix, d[..len / 2], "s {s} m {m}");
                        cfb::decrypt(&c, &iv, s, &mut d).unwrap();
                        assert_eq!(d, pt, "s {s} m {m}");
                    }
                }
            }

            /// Chained decryption (the register carried from call to call, as a streaming
            /// decryptor keeps it) over pieces of a message gives the plaintext of one call on the
            /// whole, and leaves the register at the last `m` bytes of `IV || C`: CBC with one- and
            /// two-block registers, CFB with every kind of segment and register, pieces from one
            /// segment to past a batch.
            #[test]
            fn chained_decryption_continues_across_pieces() {
                let pieces = [1usize, 3, 16, 17, 64, 65, 130];
                for (s, m) in [
                    (N, N),
                    (N, 2 * N),
                    (1, N),
                    (1, 2 * N),
                    (3, N),
                    (N - 1, N + 1),
                ] {
                    let unit = if s == N { N } else { s };
                    let len: usize = pieces.iter().map(|p| p * unit).sum();
                    let (key, iv, pt) = (random_bytes($key), random_bytes(m), random_bytes(len));
                    let c = shifr_cipher(&key);
                    for cbc_mode in [true, false] {
                        if cbc_mode && s != N {
                            continue;
                        }
                        let mut ct = pt.clone();
                        if cbc_mode {
                            cbc::encrypt(&c, &iv, &mut ct).unwrap();
                        } else {
                            cfb::encrypt(&c, &iv, s, &mut ct).unwrap();
                        }
                        let mut register = iv.clone();
                        let mut data = ct.clone();
                        let mut rest = &mut data[..];
                        for p in pieces {
                            let (piece, tail) = rest.split_at_mut(p * unit);
                            if cbc_mode {
                                cbc::decrypt_chained(&c, &mut register, piece).unwrap();
                            } else {
                                cfb::decrypt_chained(&c, &mut register, s, piece).unwrap();
                            }
                            rest = tail;
                        }
                        let what = format!("cbc {cbc_mode} s {s} m {m}");
                        assert_eq!(data, pt, "{what}");
                        assert_eq!(register[..], ct[len - m..], "{what}: register");
                    }
                }
            }

            #[test]
            fn ofb_matches() {
                for len in lengths(N) {
                    let (key, iv, pt) = (random_bytes($key), random_bytes(N), random_bytes(len));
                    let mut ours = pt.clone();
                    ofb::apply(&shifr_cipher(&key), &iv, &mut ours).unwrap();
                    let mut theirs = pt.clone();
                    rc_ofb(&key, &iv, &mut theirs);
                    assert_eq!(ours, theirs, "len {len}");
                }
            }

            #[test]
            fn ofb_long_register_is_interleaved_chains() {
                for z in [2usize, 3] {
                    for len in lengths(N) {
                        let (key, iv, pt) =
                            (random_bytes($key), random_bytes(z * N), random_bytes(len));
                        let mut ours = pt.clone();
                        ofb::apply(&shifr_cipher(&key), &iv, &mut ours).unwrap();
                        let mut chains = deinterleave(&pt, N, z);
                        for (j, chain) in chains.iter_mut().enumerate() {
                            rc_ofb(&key, &iv[j * N..(j + 1) * N], chain);
                        }
                        assert_eq!(ours, interleave(&chains, N, len), "z {z} len {len}");
                    }
                }
            }

            #[test]
            fn ctr_matches_and_any_split_is_identical() {
                for len in lengths(N) {
                    let (key, mut iv, pt) =
                        (random_bytes($key), random_bytes(N), random_bytes(len));
                    // Start near the top so that the full-width carry and the wrap mod 2^n happen.
                    for b in &mut iv[1..] {
                        *b = 0xff;
                    }
                    iv[N - 1] = 0xfd;
                    let mut ours = pt.clone();
                    ctr::apply(&shifr_cipher(&key), &iv, &mut ours).unwrap();
                    let mut theirs = pt.clone();
                    <$ctr>::new_from_slices(&key, &iv)
                        .unwrap()
                        .apply_keystream(&mut theirs);
                    assert_eq!(ours, theirs, "len {len}");
                    iv[0] = 0xff;
                    let mut ours = pt.clone();
                    ctr::apply(&shifr_cipher(&key), &iv, &mut ours).unwrap();
                    let mut theirs = pt.clone();
                    <$ctr>::new_from_slices(&key, &iv)
                        .unwrap()
                        .apply_keystream(&mut theirs);
                    assert_eq!(ours, theirs, "wrapping, len {len}");
                    // Stateful form with random splits.
                    let mut split = pt.clone();
                    let mut s = ctr::Ctr::new(shifr_cipher(&key), &iv).unwrap();
                    let mut rest = &mut split[..];
                    let mut step = 0usize;
                    while !rest.is_empty() {
                        let take = (step * 7 + 1) % (3 * N * ctr::BATCH_BLOCKS / 2 + 1);
                        let (head, tail) = rest.split_at_mut(take.min(rest.len()));
                        s.apply_keystream(head);
                        rest = tail;
                        step += 1;
                    }
                    assert_eq!(split, theirs, "split, len {len}");
                }
            }

            #[test]
            fn omac_matches_cmac() {
                for len in lengths(N) {
                    let (key, msg) = (random_bytes($key), random_bytes(len));
                    let mut mac = <cmac::Cmac<$rc> as Mac>::new_from_slice(&key).unwrap();
                    mac.update(&msg);
                    let theirs = mac.finalize().into_bytes().to_vec();
                    for tag_len in [1, N / 2, N] {
                        let ours = omac::omac(&shifr_cipher(&key), tag_len, &msg).unwrap();
                        assert_eq!(ours, theirs[..tag_len], "len {len}");
                    }
                    // Incremental, with uneven pieces (including empty ones).
                    let mut inc = omac::Omac::new(shifr_cipher(&key), N).unwrap();
                    for (i, piece) in msg.chunks(N - 1 + len % 3).enumerate() {
                        if i % 2 == 0 {
                            inc.update(&[]);
                        }
                        inc.update(piece);
                    }
                    assert_eq!(inc.finalize(), theirs, "incremental len {len}");
                    let mut check = omac::Omac::new(shifr_cipher(&key), N).unwrap();
                    check.update(&msg);
                    assert!(check.verify(&theirs).is_ok());
                    let mut bad = theirs.clone();
                    bad[0] ^= 1;
                    let mut check = omac::Omac::new(shifr_cipher(&key), N).unwrap();
                    check.update(&msg);
                    assert_eq!(check.verify(&bad), Err(shifr::Error::AuthenticationFailed));
                }
            }
        }
    };
}

differential!(
    aes128,
    support::Aes128,
    aes::Aes128,
    16,
    16,
    ::ctr::Ctr128BE<aes::Aes128>
);
differential!(
    aes256,
    support::Aes256,
    aes::Aes256,
    16,
    32,
    ::ctr::Ctr128BE<aes::Aes256>
);
differential!(
    magma,
    support::Magma,
    ::magma::Magma,
    8,
    32,
    ::ctr::Ctr64BE<::magma::Magma>
);
differential!(
    kuznyechik,
    support::Kuznyechik,
    ::kuznyechik::Kuznyechik,
    16,
    32,
    ::ctr::Ctr128BE<::kuznyechik::Kuznyechik>
);

/// OMAC-ACPKM over shifr's ciphers, whose chain kernels take each section's whole blocks in one
/// call, against the same mode over RustCrypto's ciphers (the adapters have no chain kernel, so
/// the mode enciphers them block by block), on random keys, lengths and section sizes.
fn omac_acpkm_matches_block_by_block<S, R>(n: usize, key_len: usize)
where
    S: shifr::hazmat::block::KeyInit,
    R: shifr::hazmat::block::KeyInit,
{
    use shifr::hazmat::mac::omac_acpkm::omac_acpkm_with_key_len;
    for len in lengths(n).into_iter().chain([7 * n, 64 * n + 1, 300 * n]) {
        for (section, tstar) in [(n, 3 * n), (2 * n, 4 * n), (5 * n, 2 * n), (1024, 4096)] {
            let key = random_bytes(key_len);
            let msg = random_bytes(len);
            let fast = S::new_from_slice(&key).unwrap();
            let reference = R::new_from_slice(&key).unwrap();
            let got = omac_acpkm_with_key_len(&fast, key_len, section, tstar, n, &msg).unwrap();
            let want =
                omac_acpkm_with_key_len(&reference, key_len, section, tstar, n, &msg).unwrap();
            assert_eq!(got, want, "len {len}, section {section}, T* {tstar}");
        }
    }
}

#[test]
fn omac_acpkm_chains_match_block_by_block() {
    use shifr::hazmat::block::{aes::Aes, kuznyechik::Kuznyechik, magma::Magma};
    omac_acpkm_matches_block_by_block::<Kuznyechik, support::Kuznyechik>(16, 32);
    omac_acpkm_matches_block_by_block::<Magma, support::Magma>(8, 32);
    omac_acpkm_matches_block_by_block::<Aes, support::Aes256>(16, 32);
}
