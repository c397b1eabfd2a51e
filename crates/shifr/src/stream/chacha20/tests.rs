//! Known-answer tests for ChaCha20, HChaCha20 and XChaCha20.
//!
//! `STD_RECORDS` is copied verbatim (by script, not retyped) from /work/shared/vectors/std.txt: every
//! chacha20-quarterround*, chacha20-block-*, chacha20-stream-* and chacha20-poly1305-keygen-*
//! record (RFC 8439 sections 2.1.1-2.6.2 and Appendices A.1, A.2, A.4). Each test consumes every
//! field of every record and fails if one is left unchecked.

use super::*;
use std::collections::BTreeMap;

/// One vector record: its name and its `field = value` lines (minus `cipher` and `mode`).
struct Record {
    name: String,
    mode: String,
    fields: BTreeMap<String, String>,
}

impl Record {
    /// Removes and returns a field, so that `finish` can tell which ones were never checked.
    fn take(&mut self, field: &str) -> Option<String> {
        self.fields.remove(field)
    }

    fn bytes(&mut self, field: &str) -> Vec<u8> {
        let v = self
            .take(field)
            .unwrap_or_else(|| panic!("{}: no {field}", self.name));
        hex::decode(v).unwrap()
    }

    fn finish(self) {
        assert!(
            self.fields.is_empty(),
            "{}: fields left unchecked: {:?}",
            self.name,
            self.fields.keys()
        );
    }
}

fn records(text: &str, cipher: &str) -> Vec<Record> {
    let mut out = Vec::new();
    for chunk in text.split("\n\n") {
        let mut name = String::new();
        let mut fields = BTreeMap::new();
        for line in chunk.lines() {
            if let Some(h) = line.strip_prefix('#') {
                // The header line names the record; later `#` lines are notes.
                if name.is_empty() {
                    name = h.trim().split(" / ").next().unwrap().to_string();
                }
            } else if let Some((k, v)) = line
                .split_once(" = ")
                .or_else(|| line.strip_suffix(" =").map(|k| (k, "")))
            {
                fields.insert(k.trim().to_string(), v.trim().to_string());
            }
        }
        if fields.get("cipher").map(String::as_str) == Some(cipher) {
            fields.remove("cipher");
            let mode = fields.remove("mode").unwrap();
            out.push(Record { name, mode, fields });
        }
    }
    assert!(!out.is_empty());
    out
}

/// Words printed most-significant digit first, 8 hex digits each (the RFC's matrix notation).
fn words(hex_words: &str) -> Vec<u32> {
    hex_words
        .as_bytes()
        .chunks(8)
        .map(|w| u32::from_str_radix(std::str::from_utf8(w).unwrap(), 16).unwrap())
        .collect()
}

fn state(hex_words: &str) -> [u32; 16] {
    words(hex_words).try_into().unwrap()
}

fn serialize(s: &[u32; 16]) -> Vec<u8> {
    s.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn key_nonce_counter(r: &mut Record) -> ([u8; 32], [u8; 12], u32) {
    let key = r.bytes("key").try_into().unwrap();
    let nonce = r.bytes("nonce").try_into().unwrap();
    let counter = r.take("counter").unwrap().parse().unwrap();
    (key, nonce, counter)
}

/// Applies the key stream in pieces of the given sizes (cycled) to check streaming.
fn apply_in_pieces(c: &mut ChaCha20, data: &mut [u8], pieces: &[usize]) {
    let mut rest = data;
    let mut i = 0;
    while !rest.is_empty() {
        let n = pieces[i % pieces.len()].min(rest.len());
        let (now, later) = rest.split_at_mut(n);
        c.apply_keystream(now).unwrap();
        rest = later;
        i += 1;
    }
}

#[test]
fn rfc8439_records() {
    let mut checked = 0;
    for mut r in records(STD_RECORDS, "chacha20") {
        match r.mode.as_str() {
            "quarterround" => match r.take("index") {
                None => {
                    let i = words(&r.take("in").unwrap());
                    let o = words(&r.take("out").unwrap());
                    assert_eq!(
                        qr(i[0], i[1], i[2], i[3]),
                        (o[0], o[1], o[2], o[3]),
                        "{}",
                        r.name
                    );
                }
                Some(idx) => {
                    let idx: Vec<usize> = idx.split(',').map(|x| x.parse().unwrap()).collect();
                    let mut s = state(&r.take("in").unwrap());
                    quarter_round(&mut s, idx[0], idx[1], idx[2], idx[3]);
                    assert_eq!(s, state(&r.take("out").unwrap()), "{}", r.name);
                }
            },
            "block" | "poly1305-keygen" => {
                let (key, nonce, counter) = key_nonce_counter(&mut r);
                let s0 = setup_state(&key, counter, &nonce);
                if let Some(v) = r.take("state0") {
                    assert_eq!(s0, state(&v), "{}", r.name);
                }
                if let Some(v) = r.take("state20") {
                    assert_eq!(rounds(&s0), state(&v), "{}", r.name);
                }
                let out = block(&s0);
                if let Some(v) = r.take("state_out") {
                    assert_eq!(out, state(&v), "{}", r.name);
                }
                let serialized = serialize(&out);
                if let Some(ks) = r.take("keystream") {
                    let ks = hex::decode(ks).unwrap();
                    assert_eq!(serialized, ks, "{}", r.name);
                    let mut zeros = vec![0u8; 64];
                    ChaCha20::new(&key, &nonce, counter)
                        .unwrap()
                        .apply_keystream(&mut zeros)
                        .unwrap();
                    assert_eq!(zeros, ks, "{}", r.name);
                }
                if r.mode == "poly1305-keygen" {
                    let otk = r.bytes("otk");
                    assert_eq!(&serialized[..32], &otk[..], "{}", r.name);
                    assert_eq!(counter, 0, "{}", r.name);
                    assert_eq!(
                        crate::aead::chacha20poly1305::poly1305_key_gen(&key, &nonce).to_vec(),
                        otk,
                        "{}",
                        r.name
                    );
                }
            }
            "stream" => {
                let (key, nonce, counter) = key_nonce_counter(&mut r);
                let pt = r.bytes("pt");
                let ct = r.bytes("ct");
                if let Some(v) = r.take("state0") {
                    assert_eq!(setup_state(&key, counter, &nonce), state(&v), "{}", r.name);
                }
                if let Some(ks) = r.take("keystream") {
                    let ks = hex::decode(ks).unwrap();
                    let mut zeros = vec![0u8; ks.len()];
                    ChaCha20::new(&key, &nonce, counter)
                        .unwrap()
                        .apply_keystream(&mut zeros)
                        .unwrap();
                    assert_eq!(zeros, ks, "{}", r.name);
                }
                let pieces: [&[usize]; 7] = [
                    &[usize::MAX],
                    &[1],
                    &[63],
                    &[64],
                    &[65],
                    &[3, 100, 17],
                    &[0, 5],
                ];
                for kernel in Kernel::available() {
                    let new = || {
                        let mut c = ChaCha20::new(&key, &nonce, counter).unwrap();
                        c.kernel = kernel;
                        c
                    };
                    for p in pieces {
                        let mut data = pt.clone();
                        apply_in_pieces(&mut new(), &mut data, p);
                        assert_eq!(data, ct, "{} {} pieces {p:?}", r.name, kernel.name());
                        // Decryption is the same operation.
                        apply_in_pieces(&mut new(), &mut data, p);
                        assert_eq!(data, pt, "{} {} pieces {p:?}", r.name, kernel.name());
                    }
                }
            }
            other => panic!("{}: unexpected mode {other}", r.name),
        }
        r.finish();
        checked += 1;
    }
    assert_eq!(checked, 16);
}

/// Every split point of a two-piece call gives the one-call output.
#[test]
fn every_two_piece_split_matches_one_call() {
    let key: Vec<u8> = (0u8..32).collect();
    let nonce = [7u8; 12];
    let mut whole = vec![0u8; 3 * BATCH_BYTES + 5];
    ChaCha20::new(&key, &nonce, 3)
        .unwrap()
        .apply_keystream(&mut whole)
        .unwrap();
    for split in 0..=whole.len() {
        let mut data = vec![0u8; whole.len()];
        let mut c = ChaCha20::new(&key, &nonce, 3).unwrap();
        let (a, b) = data.split_at_mut(split);
        c.apply_keystream(a).unwrap();
        c.apply_keystream(b).unwrap();
        assert_eq!(data, whole, "split at {split}");
    }
}

/// Every kernel gives the portable key stream for every length up to 2100 bytes, in one call and
/// in pieces around the narrow XOR's bounds (256 and 512 bytes) and the batch (1 KiB), also when
/// the stream ends at the last block counter (blocks computed past it are never used).
#[test]
fn lengths_and_pieces_match_portable() {
    let key: Vec<u8> = (100u8..132).collect();
    let nonce = [9u8; 12];
    let pieces: [&[usize]; 6] = [
        &[usize::MAX],
        &[256],
        &[300, 64],
        &[512, 1],
        &[17, 257, 511],
        &[255, 513, 1024],
    ];
    for (start, max_len) in [
        (0u32, 2100usize),
        (7, 2100),
        (u32::MAX - 40, 2100),
        (u32::MAX - 5, 384),
    ] {
        let mut expected = vec![0u8; max_len];
        let mut reference = ChaCha20::new(&key, &nonce, start).unwrap();
        reference.kernel = Kernel::Portable;
        reference.apply_keystream(&mut expected).unwrap();
        for kernel in Kernel::available() {
            for len in 0..=max_len {
                for p in pieces {
                    let mut c = ChaCha20::new(&key, &nonce, start).unwrap();
                    c.kernel = kernel;
                    let mut data = vec![0u8; len];
                    apply_in_pieces(&mut c, &mut data, p);
                    assert_eq!(
                        data,
                        expected[..len],
                        "{} from {start}, {len} bytes in pieces {p:?}",
                        kernel.name()
                    );
                    let left = (u64::from(u32::MAX - start) + 1) * 64 - len as u64;
                    assert_eq!(c.remaining_bytes(), left);
                }
            }
        }
    }
}

#[test]
fn counter_limit_is_an_error_not_a_wrap() {
    let key = [1u8; 32];
    let nonce = [2u8; 12];
    // Starting at the last counter value: exactly one block is available.
    let mut c = ChaCha20::new(&key, &nonce, u32::MAX).unwrap();
    assert_eq!(c.remaining_bytes(), 64);
    let mut too_long = [0u8; 65];
    assert!(matches!(
        c.apply_keystream(&mut too_long),
        Err(Error::LengthLimit(_))
    ));
    assert_eq!(too_long, [0u8; 65], "data untouched on error");
    let mut first = [0u8; 10];
    c.apply_keystream(&mut first).unwrap();
    let mut rest = [0u8; 54];
    c.apply_keystream(&mut rest).unwrap();
    let mut one_more = [0u8; 1];
    assert!(matches!(
        c.apply_keystream(&mut one_more),
        Err(Error::LengthLimit(_))
    ));
    c.apply_keystream(&mut []).unwrap();
    // The block that was produced is block u32::MAX, not block 0.
    let expected = serialize(&block(&setup_state(&key, u32::MAX, &nonce)));
    assert_eq!([&first[..], &rest[..]].concat(), expected);
    // Two blocks before the end: 128 bytes fit, 129 do not.
    let mut c = ChaCha20::new(&key, &nonce, u32::MAX - 1).unwrap();
    assert!(c.apply_keystream(&mut [0u8; 129]).is_err());
    assert!(c.apply_keystream(&mut [0u8; 128]).is_ok());
}

#[test]
fn bad_lengths_are_rejected() {
    assert!(matches!(
        ChaCha20::new(&[0u8; 31], &[0u8; 12], 0),
        Err(Error::InvalidKeyLength { got: 31, .. })
    ));
    assert!(matches!(
        ChaCha20::new(&[0u8; 32], &[0u8; 8], 0),
        Err(Error::InvalidNonceLength { got: 8, .. })
    ));
    assert!(matches!(
        XChaCha20::new(&[0u8; 32], &[0u8; 12], 0),
        Err(Error::InvalidNonceLength { got: 12, .. })
    ));
    assert!(matches!(
        XChaCha20::new(&[0u8; 33], &[0u8; 24], 0),
        Err(Error::InvalidKeyLength { got: 33, .. })
    ));
    // Out-of-range quarter-round indices leave the state alone instead of panicking.
    let mut s = [5u32; 16];
    quarter_round(&mut s, 0, 4, 8, 16);
    assert_eq!(s, [5u32; 16]);
}

// draft-irtf-cfrg-xchacha-03 (S. Arciszewski, January 2020), section 2.2.1 "Test Vector for the
// HChaCha20 Block Function" and Appendix A.3.2 "XChaCha20" (developer-friendly hex), read from
// github.com/bikeshedders/xchacha-rfc draft-irtf-cfrg-xchacha-rfc-03.txt (commit 9c1dfb87).
const HCHACHA_KEY: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const HCHACHA_NONCE: &str = "000000090000004a0000000031415927";
const HCHACHA_STATE0: &str = "61707865 3320646e 79622d32 6b206574 03020100 07060504 0b0a0908 \
    0f0e0d0c 13121110 17161514 1b1a1918 1f1e1d1c 09000000 4a000000 00000000 27594131";
const HCHACHA_STATE20: &str = "423b4182 fe7bb227 50420ed3 737d878a 0aa76448 7954cdf3 846acd37 \
    7b3c58ad 77e35583 83e77c12 e0076a2d bc6cd0e5 d5e4f9a0 53a8748a 13c42ec1 dcecd326";
const HCHACHA_SUBKEY: &str = "82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc";

const XCHACHA_KEY: &str = "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f";
const XCHACHA_IV: &str = "404142434445464748494a4b4c4d4e4f5051525354555658";
const XCHACHA_PT: &str = "\
    5468652064686f6c65202870726f6e6f756e6365642022646f6c652229206973\
    20616c736f206b6e6f776e2061732074686520417369617469632077696c6420\
    646f672c2072656420646f672c20616e642077686973746c696e6720646f672e\
    2049742069732061626f7574207468652073697a65206f662061204765726d61\
    6e20736865706865726420627574206c6f6f6b73206d6f7265206c696b652061\
    206c6f6e672d6c656767656420666f782e205468697320686967686c7920656c\
    757369766520616e6420736b696c6c6564206a756d70657220697320636c6173\
    736966696564207769746820776f6c7665732c20636f796f7465732c206a6163\
    6b616c732c20616e6420666f78657320696e20746865207461786f6e6f6d6963\
    2066616d696c792043616e696461652e";
/// A.3.2.1, block counter 0.
const XCHACHA_KS0: &str = "\
    1131ce9a2a20ae0d67c8935c7789fa1025c9e5bb720fb96f11354fb97af0bd9a\
    adec0863ba60cac8582c48f86cdfc48edd46a48642c5de62ccf11c7b21bf337d\
    29624b4b1b140ace53740e405b2168540fd7d630c1f536fecd722fc3cddba7f4\
    cca98cf9e47e5e64d115450f9b125b54449ff76141ca620a1f9cfcab2a1a8a25\
    5e766a5266b878846120ea64ad99aa479471e63befcbd37cd1c22a221fe46221\
    5cf32c74895bf505863ccddd48f62916dc6521f1ec50a5ae08903aa259d9bf60\
    7cd8026fba548604f1b6072d91bc91243a5b845f7fd171b02edc5a0a84cf28dd\
    241146bc376e3f48df5e7fee1d11048c190a3d3deb0feb64b42d9c6fdeee290f\
    a0e6ae2c26c0249ea8c181f7e2ffd100cbe5fd3c4f8271d62b15330cb8fdcf00\
    b3df507ca8c924f7017b7e712d15a2eb";
const XCHACHA_CT0: &str = "\
    4559abba4e48c16102e8bb2c05e6947f50a786de162f9b0b7e592a9b53d0d4e9\
    8d8d6410d540a1a6375b26d80dace4fab52384c731acbf16a5923c0c48d3575d\
    4d0d2c673b666faa731061277701093a6bf7a158a8864292a41c48e3a9b4c0da\
    ece0f8d98d0d7e05b37a307bbb66333164ec9e1b24ea0d6c3ffddcec4f68e744\
    3056193a03c810e11344ca06d8ed8a2bfb1e8d48cfa6bc0eb4e2464b74814240\
    7c9f431aee769960e15ba8b96890466ef2457599852385c661f752ce20f9da0c\
    09ab6b19df74e76a95967446f8d0fd415e7bee2a12a114c20eb5292ae7a349ae\
    577820d5520a1f3fb62a17ce6a7e68fa7c79111d8860920bc048ef43fe84486c\
    cb87c25f0ae045f0cce1e7989a9aa220a28bdd4827e751a24a6d5c62d790a663\
    93b93111c1a55dd7421a10184974c7c5";
/// A.3.2.2, block counter 1.
const XCHACHA_KS1: &str = "\
    29624b4b1b140ace53740e405b2168540fd7d630c1f536fecd722fc3cddba7f4\
    cca98cf9e47e5e64d115450f9b125b54449ff76141ca620a1f9cfcab2a1a8a25\
    5e766a5266b878846120ea64ad99aa479471e63befcbd37cd1c22a221fe46221\
    5cf32c74895bf505863ccddd48f62916dc6521f1ec50a5ae08903aa259d9bf60\
    7cd8026fba548604f1b6072d91bc91243a5b845f7fd171b02edc5a0a84cf28dd\
    241146bc376e3f48df5e7fee1d11048c190a3d3deb0feb64b42d9c6fdeee290f\
    a0e6ae2c26c0249ea8c181f7e2ffd100cbe5fd3c4f8271d62b15330cb8fdcf00\
    b3df507ca8c924f7017b7e712d15a2eb5c50484451e54e1b4b995bd8fdd94597\
    bb94d7af0b2c04df10ba0890899ed9293a0f55b8bafa999264035f1d4fbe7fe0\
    aafa109a62372027e50e10cdfecca127";
const XCHACHA_CT1: &str = "\
    7d0a2e6b7f7c65a236542630294e063b7ab9b555a5d5149aa21e4ae1e4fbce87\
    ecc8e08a8b5e350abe622b2ffa617b202cfad72032a3037e76ffdcdc4376ee05\
    3a190d7e46ca1de04144850381b9cb29f051915386b8a710b8ac4d027b8b050f\
    7cba5854e028d564e453b8a968824173fc16488b8970cac828f11ae53cabd201\
    12f87107df24ee6183d2274fe4c8b1485534ef2c5fbc1ec24bfc3663efaa08bc\
    047d29d25043532db8391a8a3d776bf4372a6955827ccb0cdd4af403a7ce4c63\
    d595c75a43e045f0cce1f29c8b93bd65afc5974922f214a40b7c402cdb91ae73\
    c0b63615cdad0480680f16515a7ace9d39236464328a37743ffc28f4ddb324f4\
    d0f5bbdc270c65b1749a6efff1fbaa09536175ccd29fb9e6057b307320d31683\
    8a9c71f70b5b5907a66f7ea49aadc409";

#[test]
fn hchacha20_matches_draft_section_2_2_1() {
    let key: [u8; 32] = hex::decode(HCHACHA_KEY).unwrap().try_into().unwrap();
    let nonce: [u8; 16] = hex::decode(HCHACHA_NONCE).unwrap().try_into().unwrap();
    let parse = |s: &str| -> [u32; 16] {
        let v: Vec<u32> = s
            .split_whitespace()
            .map(|w| u32::from_str_radix(w, 16).unwrap())
            .collect();
        v.try_into().unwrap()
    };
    // The HChaCha20 state is the ChaCha20 setup with counter || nonce replaced by the 16-byte nonce.
    let mut s0 = [0u32; 16];
    s0[..4].copy_from_slice(&soft::CONSTANTS);
    for (w, b) in s0[4..].iter_mut().zip(
        key.iter()
            .chain(&nonce)
            .copied()
            .collect::<Vec<u8>>()
            .chunks(4),
    ) {
        *w = le_word(b);
    }
    assert_eq!(s0, parse(HCHACHA_STATE0));
    assert_eq!(rounds(&s0), parse(HCHACHA_STATE20));
    assert_eq!(
        hchacha20(&key, &nonce).to_vec(),
        hex::decode(HCHACHA_SUBKEY).unwrap()
    );
}

#[test]
fn xchacha20_matches_draft_appendix_a_3_2() {
    let key = hex::decode(XCHACHA_KEY).unwrap();
    let iv = hex::decode(XCHACHA_IV).unwrap();
    let pt = hex::decode(XCHACHA_PT).unwrap();
    for (counter, ks, ct) in [(0, XCHACHA_KS0, XCHACHA_CT0), (1, XCHACHA_KS1, XCHACHA_CT1)] {
        let ks = hex::decode(ks).unwrap();
        let ct = hex::decode(ct).unwrap();
        let mut zeros = vec![0u8; ks.len()];
        XChaCha20::new(&key, &iv, counter)
            .unwrap()
            .apply_keystream(&mut zeros)
            .unwrap();
        assert_eq!(zeros, ks, "keystream, counter {counter}");
        for piece in [usize::MAX, 1, 64, 100] {
            let mut data = pt.clone();
            let mut c = XChaCha20::new(&key, &iv, counter).unwrap();
            for chunk in data.chunks_mut(piece.min(pt.len())) {
                c.apply_keystream(chunk).unwrap();
            }
            assert_eq!(data, ct, "ciphertext, counter {counter}, pieces of {piece}");
        }
    }
}

/// Verbatim copy of the std.txt records named in the module doc.
const STD_RECORDS: &str = r#"
# chacha20-quarterround-2.1.1 / RFC 8439 section 2.1.1
#   in/out = a||b||c||d, each a 32-bit word printed most-significant digit first (as in the RFC)
cipher = chacha20
mode = quarterround
in = 11111111010203049b8d6f4301234567
out = ea2a92f4cb1cf8ce4581472e5881c4bb

# chacha20-quarterround-state-2.2.1 / RFC 8439 section 2.2.1
#   QUARTERROUND(2, 7, 8, 13) applied to a 16-word state (a diagonal-round quarter round)
#   in/out = the 16 state words x0..x15 in row order, each printed most-significant digit first; index = the 4 word indices (decimal)
cipher = chacha20
mode = quarterround
index = 2,7,8,13
in = 879531e0c5ecf37d516461b1c9a62f8a44c20ef33390af7fd9fc690b2a5f714c53372767b00a5631974c541a359e99635c9710613d6316892098d9d691dbd320
out = 879531e0c5ecf37dbdb886dcc9a62f8a44c20ef33390af7fd9fc690bcfacafd2e46bea80b00a5631974c541a359e99635c971061ccc07c792098d9d691dbd320

# chacha20-block-2.3.2 / RFC 8439 section 2.3.2
#   state0 = state after setup, state20 = after the 20 rounds, state_out = state0 + state20 (word-wise mod 2^32);
#   states are 16 words in row order, each printed most-significant digit first; keystream = serialized block (little-endian words)
cipher = chacha20
mode = block
key = 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
nonce = 000000090000004a00000000
counter = 1
state0 = 617078653320646e79622d326b20657403020100070605040b0a09080f0e0d0c13121110171615141b1a19181f1e1d1c00000001090000004a00000000000000
state20 = 837778abe238d763a67ae21e5950bb2fc4f2d0c7fc62bb2f8fa018fc3f5ec7b7335271c2f29489f3eabda8fc82e46ebdd19c12b4b04e16de9e83d0cb4e3c50a2
state_out = e4e7f11015593bd11fdd0f50c47120a3c7f4d1c70368c0339aaa22044e6cd4c3466482d209aa9f0705d7c214a2028bd9d19c12b5b94e16dee883d0cb4e3c50a2
keystream = 10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4ed2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e

# chacha20-stream-2.4.2 / RFC 8439 section 2.4.2
#   pt = "Ladies and Gentlemen of the class of '99: ..." (114 bytes); counter = initial block counter (decimal)
#   state0 = first block setup (16 words, row order, each printed most-significant digit first); keystream = the 114 keystream bytes as printed
cipher = chacha20
mode = stream
key = 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
nonce = 000000000000004a00000000
counter = 1
pt = 4c616469657320616e642047656e746c656d656e206f662074686520636c617373206f66202739393a204966204920636f756c64206f6666657220796f75206f6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73637265656e20776f756c642062652069742e
ct = 6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0bf91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d807ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab77937365af90bbf74a35be6b40b8eedf2785e42874d
state0 = 617078653320646e79622d326b20657403020100070605040b0a09080f0e0d0c13121110171615141b1a19181f1e1d1c00000001000000004a00000000000000
keystream = 224f51f3401bd9e12fde276fb8631ded8c131f823d2c06e27e4fcaec9ef3cf788a3b0aa372600a92b57974cded2b9334794cba40c63e34cdea212c4cf07d41b769a6749f3f630f4122cafe28ec4dc47e26d4346d70b98c73f3e9c53ac40c5945398b6eda1a832c89c167eacd901d7e2bf363

# chacha20-poly1305-keygen-2.6.2 / RFC 8439 section 2.6.2
#   otk = first 32 bytes of chacha20_block(key, counter = 0, nonce) = the Poly1305 one-time key (r || s, r unclamped)
#   state0 = setup state; state_out = the matrix the RFC labels "The ChaCha state after 20 rounds": it is in fact the
#   final state AFTER adding state0 (its first 8 words serialize to otk); the raw 20-round state is not printed
cipher = chacha20
mode = poly1305-keygen
key = 808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f
nonce = 000000000001020304050607
counter = 0
state0 = 617078653320646e79622d326b20657483828180878685848b8a89888f8e8d8c93929190979695949b9a99989f9e9d9c00000000000000000302010007060504
state_out = 8ba0d58acc815f90274050817194b24a37b633a8a50dfde3e2b8db0846a6d1fd7da037829183a233148ad271b46773d13cc1875a8607def1ca5c30867085eb87
otk = 8ad5a08b905f81cc815040274ab29471a833b637e3fd0da508dbb8e2fdd1a646

# chacha20-block-a1-1 / RFC 8439 Appendix A.1 Test Vector #1
#   state_out = "ChaCha state at the end" (after adding the input state); keystream = serialized block
cipher = chacha20
mode = block
key = 0000000000000000000000000000000000000000000000000000000000000000
nonce = 000000000000000000000000
counter = 0
state_out = ade0b876903df1a0e56a5d4028bd8653b819d2bd1aed8da0ccef36a8c70d778b7c5941da8d4857513fe02477374ad8b8f4b8436a1ca1181569b687c38665eeb2
keystream = 76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586

# chacha20-block-a1-2 / RFC 8439 Appendix A.1 Test Vector #2
#   state_out = "ChaCha state at the end" (after adding the input state); keystream = serialized block
cipher = chacha20
mode = block
key = 0000000000000000000000000000000000000000000000000000000000000000
nonce = 000000000000000000000000
counter = 1
state_out = bee7079f7a3851557c97ba980d082d73a0290fcb6965e3483e53c612ed7aee327621b729434ee69cb03371d5d539d874281fed3145fb0a511f0ae1ac6f4d794b
keystream = 9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f

# chacha20-block-a1-3 / RFC 8439 Appendix A.1 Test Vector #3
#   state_out = "ChaCha state at the end" (after adding the input state); keystream = serialized block
cipher = chacha20
mode = block
key = 0000000000000000000000000000000000000000000000000000000000000001
nonce = 000000000000000000000000
counter = 1
state_out = 2452eb3a9249f8ec8d829d9bddd4ceb1e825208360818b01f38422b85aaa49c9bb00ca8eda3ba7b4c4b592d1fdf2732f4436274e2561b3c8ebdd4aa6a0136c00
keystream = 3aeb5224ecf849929b9d828db1ced4dd832025e8018b8160b82284f3c949aa5a8eca00bbb4a73bdad192b5c42f73f2fd4e273644c8b36125a64addeb006c13a0

# chacha20-block-a1-4 / RFC 8439 Appendix A.1 Test Vector #4
#   state_out = "ChaCha state at the end" (after adding the input state); keystream = serialized block
cipher = chacha20
mode = block
key = 00ff000000000000000000000000000000000000000000000000000000000000
nonce = 000000000000000000000000
counter = 2
state_out = fb4dd5724bc42ef1df922636327f1394a78dea8f5e269039a1bebbc1caf09aaea25ab21348a6b46c1b9d9bcb092c5be6546ca6241bec45d587f4747396f0992e
keystream = 72d54dfbf12ec44b362692df94137f328fea8da73990265ec1bbbea1ae9af0ca13b25aa26cb4a648cb9b9d1be65b2c0924a66c54d545ec1b7374f4872e99f096

# chacha20-block-a1-5 / RFC 8439 Appendix A.1 Test Vector #5
#   state_out = "ChaCha state at the end" (after adding the input state); keystream = serialized block
cipher = chacha20
mode = block
key = 0000000000000000000000000000000000000000000000000000000000000000
nonce = 000000000000000000000002
counter = 0
state_out = 374dc6c23736d58cb904e24acd3f93ef88228b1a96a4dfb35b76ab72c727ee540e0e978af3145c951b748ea8f786c29799c28f5f628314e8398a19fa6ded1b53
keystream = c2c64d378cd536374ae204b9ef933fcd1a8b2288b3dfa49672ab765b54ee27c78a970e0e955c14f3a88e741b97c286f75f8fc299e8148362fa198a39531bed6d

# chacha20-stream-a2-1 / RFC 8439 Appendix A.2 Test Vector #1
#   64-byte message; counter = initial block counter (decimal)
cipher = chacha20
mode = stream
key = 0000000000000000000000000000000000000000000000000000000000000000
nonce = 000000000000000000000000
counter = 0
pt = 00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000
ct = 76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586

# chacha20-stream-a2-2 / RFC 8439 Appendix A.2 Test Vector #2
#   375-byte message; counter = initial block counter (decimal)
cipher = chacha20
mode = stream
key = 0000000000000000000000000000000000000000000000000000000000000001
nonce = 000000000000000000000002
counter = 1
pt = 416e79207375626d697373696f6e20746f20746865204945544620696e74656e6465642062792074686520436f6e7472696275746f7220666f72207075626c69636174696f6e20617320616c6c206f722070617274206f6620616e204945544620496e7465726e65742d4472616674206f722052464320616e6420616e792073746174656d656e74206d6164652077697468696e2074686520636f6e74657874206f6620616e204945544620616374697669747920697320636f6e7369646572656420616e20224945544620436f6e747269627574696f6e222e20537563682073746174656d656e747320696e636c756465206f72616c2073746174656d656e747320696e20494554462073657373696f6e732c2061732077656c6c206173207772697474656e20616e6420656c656374726f6e696320636f6d6d756e69636174696f6e73206d61646520617420616e792074696d65206f7220706c6163652c207768696368206172652061646472657373656420746f
ct = a3fbf07df3fa2fde4f376ca23e82737041605d9f4f4f57bd8cff2c1d4b7955ec2a97948bd3722915c8f3d337f7d370050e9e96d647b7c39f56e031ca5eb6250d4042e02785ececfa4b4bb5e8ead0440e20b6e8db09d881a7c6132f420e52795042bdfa7773d8a9051447b3291ce1411c680465552aa6c405b7764d5e87bea85ad00f8449ed8f72d0d662ab052691ca66424bc86d2df80ea41f43abf937d3259dc4b2d0dfb48a6c9139ddd7f76966e928e635553ba76c5c879d7b35d49eb2e62b0871cdac638939e25e8a1e0ef9d5280fa8ca328b351c3c765989cbcf3daa8b6ccc3aaf9f3979c92b3720fc88dc95ed84a1be059c6499b9fda236e7e818b04b0bc39c1e876b193bfe5569753f88128cc08aaa9b63d1a16f80ef2554d7189c411f5869ca52c5b83fa36ff216b9c1d30062bebcfd2dc5bce0911934fda79a86f6e698ced759c3ff9b6477338f3da4f9cd8514ea9982ccafb341b2384dd902f3d1ab7ac61dd29c6f21ba5b862f3730e37cfdc4fd806c22f221

# chacha20-stream-a2-3 / RFC 8439 Appendix A.2 Test Vector #3
#   127-byte message; counter = initial block counter (decimal)
cipher = chacha20
mode = stream
key = 1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0
nonce = 000000000000000000000002
counter = 42
pt = 2754776173206272696c6c69672c20616e642074686520736c6974687920746f7665730a446964206779726520616e642067696d626c6520696e2074686520776162653a0a416c6c206d696d737920776572652074686520626f726f676f7665732c0a416e6420746865206d6f6d65207261746873206f757467726162652e
ct = 62e6347f95ed87a45ffae7426f27a1df5fb69110044c0d73118effa95b01e5cf166d3df2d721caf9b21e5fb14c616871fd84c54f9d65b283196c7fe4f60553ebf39c6402c42234e32a356b3e764312a61a5532055716ead6962568f87d3f3f7704c6a8d1bcd1bf4d50d6154b6da731b187b58dfd728afa36757a797ac188d1

# chacha20-poly1305-keygen-a4-1 / RFC 8439 Appendix A.4 Test Vector #1
#   otk = chacha20_block(key, counter = 0, nonce)[0..31]
cipher = chacha20
mode = poly1305-keygen
key = 0000000000000000000000000000000000000000000000000000000000000000
nonce = 000000000000000000000000
counter = 0
otk = 76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7

# chacha20-poly1305-keygen-a4-2 / RFC 8439 Appendix A.4 Test Vector #2
#   otk = chacha20_block(key, counter = 0, nonce)[0..31]
cipher = chacha20
mode = poly1305-keygen
key = 0000000000000000000000000000000000000000000000000000000000000001
nonce = 000000000000000000000002
counter = 0
otk = ecfa254f845f647473d3cb140da9e87606cb33066c447b87bc2666dde3fbb739

# chacha20-poly1305-keygen-a4-3 / RFC 8439 Appendix A.4 Test Vector #3
#   otk = chacha20_block(key, counter = 0, nonce)[0..31]
cipher = chacha20
mode = poly1305-keygen
key = 1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0
nonce = 000000000000000000000002
counter = 0
otk = 965e3bc6f9ec7ed9560808f4d229f94b137ff275ca9b3fcbdd59deaad23310ae
"#;
