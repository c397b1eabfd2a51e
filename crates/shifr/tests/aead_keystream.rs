//! The split AEADs (`aead::keystream`): sealing with a key stream from outside plus the tag computed
//! here gives exactly `Aead::seal`'s ciphertext and tag, and opening that way verifies and decrypts, for
//! every AEAD that can be split, on random keys, nonces, AAD and lengths around the block and key-stream
//! batch sizes. The key stream comes from `CpuKeystream`, the reference source, built from the block
//! ciphers alone (not from the AEAD code), so a wrong counter layout in either shows up here. Also:
//! MGM's `incr_r` wrap inside a message (a Magma-MGM nonce searched for a `Y_1` near 2^32 - 1 in its
//! right half), the stride layout with gaps left alone, and the container with `CpuKeystream`.

use rand::{Rng, RngCore};
use shifr::aead::keystream::{
    open_with_keystream, seal_with_keystream, CpuKeystream, KeystreamKey, KeystreamSource,
    SplitAead,
};
use shifr::aead::mgm::Mgm;
use shifr::aead::Aead;
use shifr::container::{read_header, Algorithm, EncryptParams, Error, FileCipher, Kdf, Secret};
use shifr::hazmat::block::magma::Magma;
use zeroize::Zeroizing;

const SPLIT: [Algorithm; 4] = [
    Algorithm::Aes256Gcm,
    Algorithm::ChaCha20Poly1305,
    Algorithm::KuznyechikMgm,
    Algorithm::MagmaMgm,
];

fn random_bytes(len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rand::thread_rng().fill_bytes(&mut v);
    v
}

fn random_nonce(alg: Algorithm) -> Vec<u8> {
    let mut n = random_bytes(alg.nonce_len());
    if alg.nonce_msb_zero() {
        n[0] &= 0x7f;
    }
    n
}

/// The key stream of one message from `source`, `len` bytes.
fn keystream(source: &dyn KeystreamSource, start: [u8; 16], len: usize) -> Zeroizing<Vec<u8>> {
    let mut ks = Zeroizing::new(vec![0u8; len]);
    let seg = len.div_ceil(64).max(1) * 64;
    source.xor_keystream(&[start], seg, seg, &mut ks).unwrap();
    ks
}

fn split_pair(alg: Algorithm, key: &[u8; 32]) -> (Box<dyn Aead>, Box<dyn SplitAead>, CpuKeystream) {
    let plain = alg.keyed(key).unwrap();
    let split = alg.keyed_split(key).unwrap().expect("splittable");
    let source = CpuKeystream::new(&KeystreamKey {
        cipher: split.keystream_cipher(),
        key: Zeroizing::new(key.to_vec()),
    })
    .unwrap();
    (plain, split, source)
}

#[test]
fn split_seal_and_open_match_the_plain_aead() {
    let mut rng = rand::thread_rng();
    for alg in SPLIT {
        for len in [0usize, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4096 + 5] {
            let key: [u8; 32] = rng.gen();
            let (plain_aead, split, source) = split_pair(alg, &key);
            let nonce = random_nonce(alg);
            let aad = random_bytes(rng.gen_range(1..40));
            let msg = random_bytes(len);

            let mut expected = msg.clone();
            let tag = plain_aead.seal(&nonce, &aad, &mut expected).unwrap();

            let start = split.keystream_start(&nonce).unwrap();
            let ks = keystream(&source, start, len);
            let mut got = msg.clone();
            let got_tag = seal_with_keystream(&*split, &nonce, &aad, &mut got, &ks).unwrap();
            assert_eq!(got, expected, "{} len {len}: ciphertext", alg.name());
            assert_eq!(
                got_tag.as_ref(),
                tag.as_ref(),
                "{} len {len}: tag",
                alg.name()
            );

            let mut opened = got.clone();
            open_with_keystream(&*split, &nonce, &aad, &mut opened, tag.as_ref(), &ks).unwrap();
            assert_eq!(opened, msg, "{} len {len}: open", alg.name());

            // A flipped ciphertext bit, tag bit or AAD bit is refused and leaves the data alone.
            let mut bad = got.clone();
            if len > 0 {
                bad[rng.gen_range(0..len)] ^= 1;
                assert!(
                    open_with_keystream(&*split, &nonce, &aad, &mut bad, tag.as_ref(), &ks)
                        .is_err()
                );
            }
            let mut bad_tag = tag.as_ref().to_vec();
            bad_tag[0] ^= 0x80;
            let mut same = got.clone();
            assert!(open_with_keystream(&*split, &nonce, &aad, &mut same, &bad_tag, &ks).is_err());
            assert_eq!(same, got, "a refused open must not touch the data");
            let mut bad_aad = aad.clone();
            bad_aad[0] ^= 1;
            assert!(
                open_with_keystream(&*split, &nonce, &bad_aad, &mut same, tag.as_ref(), &ks)
                    .is_err()
            );
        }
    }
}

#[test]
fn short_key_stream_and_bad_nonce_are_refused_untouched() {
    let key = [7u8; 32];
    for alg in SPLIT {
        let (_, split, _) = split_pair(alg, &key);
        let nonce = random_nonce(alg);
        let mut data = vec![3u8; 40];
        assert!(seal_with_keystream(&*split, &nonce, b"a", &mut data, &[0u8; 39]).is_err());
        // GCM takes any non-empty nonce; the others exactly their length.
        let bad_nonce: &[u8] = if alg == Algorithm::Aes256Gcm {
            &[]
        } else {
            &nonce[1..]
        };
        assert!(seal_with_keystream(&*split, bad_nonce, b"a", &mut data, &[1u8; 40]).is_err());
        assert_eq!(data, vec![3u8; 40], "{}", alg.name());
    }
}

#[test]
fn mgm_right_half_wraps_inside_a_message() {
    // A nonce whose Y_1 has its right half within 4096 of 2^32 (about 2^20 tries): a message of
    // 4096 blocks then wraps `incr_r` mod 2^32 in the middle.
    let key = [0x5au8; 32];
    let mgm = Mgm::new(Magma::new(&key).unwrap(), 8).unwrap();
    let blocks = 4096u64;
    let mut rng = rand::thread_rng();
    let nonce = (0..20_000_000)
        .find_map(|_| {
            let mut n: [u8; 8] = rng.gen();
            n[0] &= 0x7f;
            let (y1, _) = mgm.y1_z1(&n).unwrap();
            let right = u32::from_be_bytes([y1[4], y1[5], y1[6], y1[7]]);
            (u64::from(right) + blocks > 1 << 32).then_some(n)
        })
        .expect("a nonce near the wrap");
    let (plain_aead, split, source) = split_pair(Algorithm::MagmaMgm, &key);
    let msg = random_bytes(blocks as usize * 8);
    let mut expected = msg.clone();
    let tag = plain_aead.seal(&nonce, b"hdr", &mut expected).unwrap();
    let ks = keystream(&source, split.keystream_start(&nonce).unwrap(), msg.len());
    let mut got = msg;
    assert_eq!(
        seal_with_keystream(&*split, &nonce, b"hdr", &mut got, &ks)
            .unwrap()
            .as_ref(),
        tag.as_ref()
    );
    assert_eq!(got, expected);
}

#[test]
fn strided_segments_leave_the_gaps_alone() {
    let key = [9u8; 32];
    let (_, split, source) = split_pair(Algorithm::KuznyechikMgm, &key);
    let (seg, stride) = (64usize, 80usize);
    let starts: Vec<[u8; 16]> = (0..3u8)
        .map(|i| split.keystream_start(&[i; 16]).unwrap())
        .collect();
    let mut data = vec![0u8; 2 * stride + 20];
    source
        .xor_keystream(&starts, seg, stride, &mut data)
        .unwrap();
    for (i, start) in starts.iter().enumerate() {
        let at = i * stride;
        let len = seg.min(data.len() - at);
        assert_eq!(&data[at..at + len], &keystream(&source, *start, len)[..]);
        if i < 2 {
            assert!(
                data[at + seg..at + stride].iter().all(|&b| b == 0),
                "gap {i}"
            );
        }
    }
    assert!(source
        .xor_keystream(&starts[..2], seg, stride, &mut data)
        .is_err());
    assert!(source
        .xor_keystream(&starts, 63, stride, &mut data)
        .is_err());
}

const KEY: [u8; 32] = [0x33; 32];

fn file_cipher(alg: Algorithm, chunk: u32, external: bool) -> FileCipher {
    let mut p = EncryptParams::new(alg, Kdf::KeyFile, [4; 16], [5; 16]);
    p.chunk_size = chunk;
    let mut c = FileCipher::for_encryption(&p, Secret::KeyFile(&KEY)).unwrap();
    if external {
        attach_cpu_source(&mut c);
    }
    c
}

fn attach_cpu_source(c: &mut FileCipher) {
    let key = c.keystream_key().expect("splittable");
    c.set_keystream_source(Box::new(CpuKeystream::new(&key).unwrap()))
        .unwrap();
    c.set_batch_bytes(3 * 1024);
}

fn decrypt(file: &[u8], external: bool, threads: usize) -> Result<Vec<u8>, Error> {
    let mut input = file;
    let header = read_header(&mut input)?;
    let mut c = FileCipher::for_decryption(&header, Secret::KeyFile(&KEY))?;
    if external {
        attach_cpu_source(&mut c);
    }
    let mut out = Vec::new();
    c.decrypt(input, &mut out, threads, &mut |_| {})?;
    Ok(out)
}

#[test]
fn container_with_external_key_stream_is_byte_identical() {
    let chunk = 1024usize;
    for alg in SPLIT {
        for len in [0, 1, chunk - 1, chunk, chunk + 1, 7 * chunk + 13, 9 * chunk] {
            let plain = random_bytes(len);
            let mut reference = Vec::new();
            file_cipher(alg, chunk as u32, false)
                .encrypt(&plain[..], &mut reference, 1, &mut |_| {})
                .unwrap();
            for threads in [1, 2] {
                let mut out = Vec::new();
                file_cipher(alg, chunk as u32, true)
                    .encrypt(&plain[..], &mut out, threads, &mut |_| {})
                    .unwrap();
                assert!(
                    out == reference,
                    "{} len {len} threads {threads}",
                    alg.name()
                );
                assert_eq!(decrypt(&out, true, threads).unwrap(), plain);
            }
            assert_eq!(decrypt(&reference, false, 1).unwrap(), plain);
            if len > 0 {
                // Flip a body byte: the external path reports the same failing chunk.
                let mut bad = reference.clone();
                let at = 80 + len / 2 + (len / 2 / chunk) * alg.tag_len();
                bad[at] ^= 4;
                let cpu = decrypt(&bad, false, 1).unwrap_err();
                let ext = decrypt(&bad, true, 2).unwrap_err();
                assert!(
                    matches!((&cpu, &ext), (Error::ChunkAuthentication(a), Error::ChunkAuthentication(b)) if a == b),
                    "{} len {len}: {cpu} / {ext}",
                    alg.name()
                );
            }
            // Truncation (dropping the final chunk) is still detected.
            if len >= chunk {
                let full = len / chunk;
                let keep = 80 + full * (chunk + alg.tag_len());
                if keep < reference.len() {
                    assert!(matches!(
                        decrypt(&reference[..keep], true, 2),
                        Err(Error::Truncated { .. })
                    ));
                }
            }
        }
    }
}

#[test]
fn xchacha_has_no_external_key_stream() {
    let c = file_cipher(Algorithm::XChaCha20Poly1305, 1024, false);
    assert!(c.keystream_key().is_none());
}
