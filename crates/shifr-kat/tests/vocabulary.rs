//! Records of the vector vocabulary that the shared files do not contain: AES-CMAC, XChaCha20,
//! XChaCha20-Poly1305, CBC with PKCS#7 padding, and `result = invalid` records of every rejecting
//! kind (bad tag, bad padding, bad IV / nonce length, 0-bit GCM IV, MGM nonce with its MSB set).
//!
//! Expected values come from the primary sources named in each header (RFC 4493 section 4;
//! draft-irtf-cfrg-xchacha-03 Appendix A.3, as in github.com/bikeshedders/xchacha-rfc), from
//! NIST SP 800-38A F.2.1 (via /work/shared/vectors/std.txt), or from RustCrypto's `cbc` + `aes`
//! (independent implementation) for the PKCS#7 records.

use aes::cipher::{block_padding::Pkcs7, BlockEncryptMut, KeyIvInit};
use rand::{Rng, RngCore};
use shifr_kat::{check, parse, run_text, Outcome, Summary};

fn outcome(text: &str) -> Outcome {
    let recs = parse(text).expect("test record parses");
    assert_eq!(recs.len(), 1, "one record expected");
    check(&recs[0])
}

fn assert_pass(text: &str) {
    assert_eq!(outcome(text), Outcome::Pass, "\n{text}");
}

fn assert_fail(text: &str, needle: &str) {
    match outcome(text) {
        Outcome::Fail(why) => assert!(why.contains(needle), "`{why}` lacks `{needle}`"),
        other => panic!("expected FAIL mentioning `{needle}`, got {other:?}\n{text}"),
    }
}

fn invalid(text: &str) -> String {
    format!("{text}result = invalid\n")
}

fn replace(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "`{from}` not in record");
    text.replacen(from, to, 1)
}

/// `hex` with its last digit changed.
fn flip_last_digit(hex: &str) -> String {
    let (head, last) = hex.split_at(hex.len() - 1);
    format!("{head}{}", if last == "0" { "1" } else { "0" })
}

const CMAC_KEY: &str = "2b7e151628aed2a6abf7158809cf4f3c";
const CMAC_MSG: &str = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";

fn cmac_record(len: usize, tag: &str) -> String {
    format!(
        "# aes128-cmac-rfc4493-{len} / RFC 4493 section 4 Example\ncipher = aes128\nmode = cmac\nkey = {CMAC_KEY}\npt = {}\ntag = {tag}\n",
        &CMAC_MSG[..2 * len]
    )
}

#[test]
fn aes_cmac_rfc4493() {
    let examples = [
        (0, "bb1d6929e95937287fa37d129b756746"),
        (16, "070a16b46b4d4144f79bdd9dd04a287c"),
        (40, "dfa66747de9ae63030ca32611497c827"),
        (64, "51f0bebf7e3b9d92fc49741779363cfe"),
    ];
    for (len, tag) in examples {
        let rec = cmac_record(len, tag);
        let broken = cmac_record(len, &flip_last_digit(tag));
        assert_pass(&rec);
        assert_fail(&broken, "tag");
        // invalid: the genuine tag is accepted (FAIL); a broken one is rejected (pass)
        assert_fail(&invalid(&rec), "accepted");
        assert_pass(&invalid(&broken));
    }
    // Subkeys of RFC 4493 section 4 (L = AES-128(K, 0^128) is the record's `r`).
    let with_subkeys = format!(
        "{}r = 7df76b0c1ab899b33e42f047b91b546f\nk1 = fbeed618357133667c85e08f7236a8de\nk2 = f7ddac306ae266ccf90bc11ee46d513b\n",
        cmac_record(40, "dfa66747de9ae63030ca32611497c827")
    );
    assert_pass(&with_subkeys);
    assert_fail(&replace(&with_subkeys, "k2 = f7dd", "k2 = f7de"), "k2");
    // A truncated (64-bit) tag with `s`.
    let truncated = replace(
        &cmac_record(64, "51f0bebf7e3b9d92"),
        "tag =",
        "s = 64\ntag =",
    );
    assert_pass(&truncated);
    assert_fail(&replace(&truncated, "s = 64", "s = 96"), "s");
}

const XCHACHA_AEAD: &str = "# xchacha20-poly1305-a.3.1 / draft-irtf-cfrg-xchacha-03 Appendix A.3.1
cipher = xchacha20-poly1305
mode = aead
key = 808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f
nonce = 404142434445464748494a4b4c4d4e4f5051525354555657
aad = 50515253c0c1c2c3c4c5c6c7
pt = 4c616469657320616e642047656e746c656d656e206f662074686520636c617373206f66202739393a204966204920636f756c64206f6666657220796f75206f6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73637265656e20776f756c642062652069742e
ct = bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b4522f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff921f9664c97637da9768812f615c68b13b52e
tag = c0875924c1c7987947deafd8780acf49
otk = 7b191f80f361f099094f6f4b8fb97df847cc6873a8f2b190dd73807183f907d5
";

#[test]
fn xchacha20_poly1305_draft_a31() {
    assert_pass(XCHACHA_AEAD);
    assert_fail(&replace(XCHACHA_AEAD, "ct = bd6d", "ct = bd6e"), "ct");
    assert_fail(&replace(XCHACHA_AEAD, "otk = 7b19", "otk = 7b18"), "otk");
    assert_fail(&replace(XCHACHA_AEAD, "aad = 5051", "aad = 5050"), "tag");
    let broken_tag = replace(XCHACHA_AEAD, "cf49", "cf48");
    assert_fail(&broken_tag, "tag");
    assert_pass(&invalid(&broken_tag));
    assert_fail(&invalid(XCHACHA_AEAD), "accepted");
    // A 96-bit nonce is not an XChaCha nonce: such a record must be rejected.
    let short_nonce = replace(XCHACHA_AEAD, "4c4d4e4f5051525354555657\n", "4c4d4e4f\n");
    assert_pass(&invalid(&short_nonce));
    assert_fail(&short_nonce, "nonce");
}

const XCHACHA_STREAM: &str = "# xchacha20-a.3.2 / draft-irtf-cfrg-xchacha-03 Appendix A.3.2
cipher = xchacha20
mode = stream
key = 808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f
nonce = 404142434445464748494a4b4c4d4e4f5051525354555658
counter = 0
pt = 5468652064686f6c65202870726f6e6f756e6365642022646f6c65222920697320616c736f206b6e6f776e2061732074686520417369617469632077696c6420646f672c2072656420646f672c20616e642077686973746c696e6720646f672e2049742069732061626f7574207468652073697a65206f662061204765726d616e20736865706865726420627574206c6f6f6b73206d6f7265206c696b652061206c6f6e672d6c656767656420666f782e205468697320686967686c7920656c757369766520616e6420736b696c6c6564206a756d70657220697320636c6173736966696564207769746820776f6c7665732c20636f796f7465732c206a61636b616c732c20616e6420666f78657320696e20746865207461786f6e6f6d69632066616d696c792043616e696461652e
ct = 4559abba4e48c16102e8bb2c05e6947f50a786de162f9b0b7e592a9b53d0d4e98d8d6410d540a1a6375b26d80dace4fab52384c731acbf16a5923c0c48d3575d4d0d2c673b666faa731061277701093a6bf7a158a8864292a41c48e3a9b4c0daece0f8d98d0d7e05b37a307bbb66333164ec9e1b24ea0d6c3ffddcec4f68e7443056193a03c810e11344ca06d8ed8a2bfb1e8d48cfa6bc0eb4e2464b748142407c9f431aee769960e15ba8b96890466ef2457599852385c661f752ce20f9da0c09ab6b19df74e76a95967446f8d0fd415e7bee2a12a114c20eb5292ae7a349ae577820d5520a1f3fb62a17ce6a7e68fa7c79111d8860920bc048ef43fe84486ccb87c25f0ae045f0cce1e7989a9aa220a28bdd4827e751a24a6d5c62d790a66393b93111c1a55dd7421a10184974c7c5
";

#[test]
fn xchacha20_stream_draft_a32() {
    assert_pass(XCHACHA_STREAM);
    assert_fail(&replace(XCHACHA_STREAM, "ct = 4559", "ct = 4558"), "ct");
    assert_fail(&replace(XCHACHA_STREAM, "counter = 0", "counter = 1"), "ct");
    // A 12-byte nonce for XChaCha20 is rejected: pass only as an invalid record.
    let short = replace(XCHACHA_STREAM, "4c4d4e4f5051525354555658\n", "4c4d4e4f\n");
    assert_pass(&invalid(&short));
    // The XChaCha20 block for counter 0 is the first 64 key-stream bytes (pt xor ct).
    let pt = hex::decode(&XCHACHA_STREAM.split("pt = ").nth(1).unwrap()[..128]).unwrap();
    let ct = hex::decode(&XCHACHA_STREAM.split("ct = ").nth(1).unwrap()[..128]).unwrap();
    let ks: Vec<u8> = pt.iter().zip(&ct).map(|(a, b)| a ^ b).collect();
    let block = format!(
        "# xchacha20-block / draft A.3.2 first block\ncipher = xchacha20\nmode = block\nkey = 808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f\nnonce = 404142434445464748494a4b4c4d4e4f5051525354555658\ncounter = 0\nkeystream = {}\n",
        hex::encode(&ks)
    );
    assert_pass(&block);
    assert_fail(&replace(&block, "counter = 0", "counter = 1"), "keystream");
}

/// NIST SP 800-38A F.2.1: the 4-block CBC-AES128 example. Its last plaintext byte is 0x10 but the
/// block is not sixteen 0x10 bytes, so as a `cbc-pkcs7` record the padding is bad.
const CBC_F21: &str = "# aes128-cbc-pkcs7-bad-padding / NIST SP 800-38A F.2.1 read as PKCS#7
cipher = aes128
mode = cbc-pkcs7
key = 2b7e151628aed2a6abf7158809cf4f3c
iv = 000102030405060708090a0b0c0d0e0f
pt = 6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710
ct = 7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b273bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7
";

#[test]
fn cbc_pkcs7_bad_padding_is_rejected() {
    assert_pass(&invalid(CBC_F21));
    // As a valid record it fails: PKCS#7 encryption of pt adds a whole padding block.
    assert_fail(CBC_F21, "ct");
}

#[test]
fn cbc_pkcs7_matches_rustcrypto() {
    type Enc = cbc::Encryptor<aes::Aes128>;
    let mut rng = rand::thread_rng();
    for len in [0usize, 1, 15, 16, 17, 40, 1000] {
        let mut key = [0u8; 16];
        let mut iv = [0u8; 16];
        rng.fill_bytes(&mut key);
        rng.fill_bytes(&mut iv);
        let pt: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        let ct = Enc::new(&key.into(), &iv.into()).encrypt_padded_vec_mut::<Pkcs7>(&pt);
        let rec = format!(
            "# cbc-pkcs7-{len} / RustCrypto cbc\ncipher = aes128\nmode = cbc-pkcs7\nkey = {}\niv = {}\npt = {}\nct = {}\n",
            hex::encode(key),
            hex::encode(iv),
            hex::encode(&pt),
            hex::encode(&ct)
        );
        assert_pass(&rec);
        assert_fail(&invalid(&rec), "accepted");
        // The padding covers a whole block when len is a multiple of 16: drop it and the record breaks.
        let short_ct = hex::encode(&ct[..ct.len() - 16]);
        let truncated = replace(&rec, &hex::encode(&ct), &short_ct);
        assert!(
            outcome(&truncated).is_fail(),
            "{len}: a truncated ct must fail"
        );
    }
}

const GCM_TC03: &str = "# aes128-gcm-tc03 / McGrew & Viega GCM spec Appendix B Test Case 3
cipher = aes128
mode = gcm
key = feffe9928665731c6d6a8f9467308308
iv = cafebabefacedbaddecaf888
aad =
pt = d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255
ct = 42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985
tag = 4d5c2af327cd64a62cf35abd2ba6fab4
h = b83b533708bf535d0aa6e52980d53b78
y0 = cafebabefacedbaddecaf88800000001
";

#[test]
fn gcm_invalid_records() {
    assert_pass(GCM_TC03);
    assert_fail(&invalid(GCM_TC03), "accepted");
    assert_pass(&invalid(&replace(GCM_TC03, "fab4", "fab5")));
    assert_pass(&invalid(&replace(GCM_TC03, "ct = 4283", "ct = 4383")));
    // A 0-bit IV is invalid (SP 800-38D); y0 cannot exist for it.
    let no_iv = replace(
        &replace(GCM_TC03, "iv = cafebabefacedbaddecaf888", "iv ="),
        "y0 = cafebabefacedbaddecaf88800000001\n",
        "",
    );
    assert_pass(&invalid(&no_iv));
    assert!(outcome(&no_iv).is_fail());
    // Tampered intermediate values fail.
    assert_fail(&replace(GCM_TC03, "h = b83b", "h = b83c"), "h");
    assert_fail(&replace(GCM_TC03, "y0 = cafe", "y0 = cafd"), "y0");
    // SP 800-38D tags are MSB_t of the full tag: 12 bytes are offered, 8 bytes are not (skip).
    assert_pass(&replace(
        GCM_TC03,
        "tag = 4d5c2af327cd64a62cf35abd2ba6fab4",
        "tag = 4d5c2af327cd64a62cf35abd",
    ));
    match outcome(&replace(
        GCM_TC03,
        "tag = 4d5c2af327cd64a62cf35abd2ba6fab4",
        "tag = 4d5c2af327cd64a6",
    )) {
        Outcome::Skip(why) => assert!(why.contains("`tag`"), "{why}"),
        other => panic!("8-byte GCM tag: {other:?}"),
    }
    // A key that does not match the cipher name.
    assert!(outcome(&replace(GCM_TC03, "cipher = aes128", "cipher = aes256")).is_fail());
}

const MAGMA_MGM: &str = "# magma-mgm-2 / RFC 9058 Appendix A.2.2
cipher = magma
mode = mgm
tag_bits = 64
key = 99aabbccddeeff0011223344556677fedcba98765432100123456789abcdef88
nonce = 0077665544332211
aad =
pt = 22334455667700ff
ct = 6a95e1426b259d4e
tag = 334ee270450bec9e
y1 = 5b2a7e604f9fbb95
z1 = 597354787e52e6eb
";

#[test]
fn mgm_invalid_records() {
    assert_pass(MAGMA_MGM);
    assert_fail(&invalid(MAGMA_MGM), "accepted");
    assert_pass(&invalid(&replace(MAGMA_MGM, "ec9e", "ec9f")));
    // The nonce's most significant bit must be 0.
    let msb = replace(
        &replace(MAGMA_MGM, "nonce = 00", "nonce = 80"),
        "y1 = 5b2a7e604f9fbb95\nz1 = 597354787e52e6eb\n",
        "",
    );
    assert_pass(&invalid(&msb));
    assert!(outcome(&msb).is_fail());
    assert_fail(&replace(MAGMA_MGM, "z1 = 5973", "z1 = 5974"), "z1");
    assert_fail(
        &replace(MAGMA_MGM, "tag_bits = 64", "tag_bits = 32"),
        "tag_bits",
    );
}

#[test]
fn aead_nonce_of_the_wrong_size_is_invalid() {
    let rec =
        "# chacha20-poly1305-aead-2.8.2-short-nonce / RFC 8439 section 2.8.2 with a 64-bit nonce
cipher = chacha20-poly1305
mode = aead
key = 808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f
nonce = 4041424344454647
aad = 50515253c0c1c2c3c4c5c6c7
pt = 4c616469
ct = d31a8d34
tag = 1ae10b594f09e26a7e902ecbd0600691
";
    assert_pass(&invalid(rec));
    assert!(outcome(rec).is_fail());
}

#[test]
fn poly1305_invalid_records() {
    let rec = "# poly1305-mac-2.5.2 / RFC 8439 section 2.5.2
cipher = poly1305
mode = mac
key = 85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b
pt = 43727970746f6772617068696320466f72756d2052657365617263682047726f7570
tag = a8061dc1305136c6c22b8baf0c0127a9
";
    assert_pass(rec);
    assert_fail(&invalid(rec), "accepted");
    assert_pass(&invalid(&replace(rec, "27a9", "27a8")));
}

#[test]
fn gost_ctr_with_truncated_gamma_uses_msb_s_of_each_block() {
    // Derived from GOST R 34.13 A.2.2 (magma-ctr, s = 64): with s = 32 the segments use
    // MSB_32(E(CTR_1)) and MSB_32(E(CTR_2)), i.e. gamma bytes 0..4 and 8..12 of the s = 64 example.
    let text = "# magma-ctr-s32 / derived from GOST R 34.13-2015 A.2.2
cipher = magma
mode = ctr
s = 32
key = ffeeddccbbaa99887766554433221100f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff
iv = 12345678
pt = 92def06bdb54c704
ct = 4e98110c3e250d93
";
    assert_eq!(outcome(text), Outcome::Pass);
    let broken = text.replace("3e250d93", "3e250d94");
    assert!(matches!(outcome(&broken), Outcome::Fail(_)));
    // GOST R 34.13 A.1.3 (kuznyechik-ofb, s = 128, m = 256) read with s = 64: the register moves the
    // same way, each segment takes MSB_64 of Y_i, so pt/ct are the first halves of the example's blocks.
    let ofb = "# kuznyechik-ofb-s64 / derived from GOST R 34.13-2015 A.1.3
cipher = kuznyechik
mode = ofb
s = 64
m = 256
key = 8899aabbccddeeff0011223344556677fedcba98765432100123456789abcdef
iv = 1234567890abcef0a1b2c3d4e5f0011223344556677889901213141516171819
pt = 1122334455667700001122334455667711223344556677882233445566778899
ct = 81800a59b1842b24ed5b47a7048cfab466a257ac3ca0b8b1203ebbc066138660
";
    assert_eq!(outcome(ofb), Outcome::Pass);
    let acpkm = "# magma-ctr-acpkm-s32 / hypothetical s < n record
cipher = magma
mode = ctr-acpkm
s = 32
section_bits = 128
key = 8899aabbccddeeff0011223344556677fedcba98765432100123456789abcdef
iv = 12345678
pt = 11223344
ct = 2ab81dee
";
    match outcome(acpkm) {
        Outcome::Skip(why) => assert!(why.contains("s = 32"), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_whole_file_of_mixed_records_summarises() {
    let text = format!(
        "# preamble\n#   of a test file\n\n{}\n{}\n{CBC_F21}\n{}",
        cmac_record(16, "070a16b46b4d4144f79bdd9dd04a287c"),
        XCHACHA_AEAD,
        "# unknown / x\ncipher = aes128\nmode = siv\nkey = 00\n"
    );
    let results = run_text(&text);
    assert_eq!(
        Summary::of(&results).to_string(),
        "2 passed, 1 failed, 1 skipped"
    );
}
