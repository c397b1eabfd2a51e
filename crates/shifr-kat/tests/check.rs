//! Record checks: real records pass, tampered copies fail, what cannot be interpreted is skipped,
//! and `result = invalid` records pass only when rejected.
//!
//! The records are copies of records in /work/shared/vectors (primary-source values).

use shifr_kat::{check, parse, Outcome};

/// Checks the single record in `text`.
fn outcome(text: &str) -> Outcome {
    let recs = parse(text).expect("test record parses");
    assert_eq!(recs.len(), 1);
    check(&recs[0])
}

/// `text` with the first occurrence of `from` replaced (which must exist).
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "{from} not in record");
    text.replacen(from, to, 1)
}

/// Flips the last hex digit of field `field`'s value.
fn flip(text: &str, field: &str) -> String {
    let prefix = format!("\n{field} = ");
    let start = text.find(&prefix).expect("field present") + prefix.len();
    let end = text[start..].find('\n').map_or(text.len(), |e| start + e);
    let last = &text[end - 1..end];
    let flipped = if last == "0" { "1" } else { "0" };
    format!("{}{}{}", &text[..end - 1], flipped, &text[end..])
}

fn assert_pass(text: &str) {
    assert_eq!(outcome(text), Outcome::Pass, "{text}");
}

fn assert_fail(text: &str, needle: &str) {
    match outcome(text) {
        Outcome::Fail(why) => assert!(why.contains(needle), "`{why}` lacks `{needle}`"),
        other => panic!("expected FAIL mentioning `{needle}`, got {other:?}\n{text}"),
    }
}

fn assert_skip(text: &str, needle: &str) {
    match outcome(text) {
        Outcome::Skip(why) => assert!(why.contains(needle), "`{why}` lacks `{needle}`"),
        other => panic!("expected skip mentioning `{needle}`, got {other:?}\n{text}"),
    }
}

const MAGMA_BLOCK: &str = "# magma-block / RFC 8891 Appendix A.4-A.5
cipher = magma
mode = block
key = ffeeddccbbaa99887766554433221100f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff
pt = fedcba9876543210
ct = 4ee901e5c2d8ca3d
g01 = 7654321028da3b14
g05 = ea89c02c11fe726d
g31 = 239a4577c2d8ca3d
";

const MAGMA_G: &str = "# magma-g-1 / RFC 8891 Appendix A.2
cipher = magma
mode = transform-g
k = 87654321
in = fedcba98
out = fdcbc20c
";

const MAGMA_KEYS: &str = "# magma-keyschedule / RFC 8891 Appendix A.3
cipher = magma
mode = keyschedule
key = ffeeddccbbaa99887766554433221100f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff
k01 = ffeeddcc
k08 = fcfdfeff
k25 = fcfdfeff
k32 = ffeeddcc
";

const GOST_TABLE: &str = "# gost28147-sbox-cryptopro-a / RFC 4357 section 11.1
cipher = gost28147
mode = table
k1 = 96328b17a4efc0d5
k8 = baf50ce8623917d4
packed = 93eeb31b67475ada3e6a1d2f292c9c9588bd8170ba31d2ac1fd3f06e70890b08a5c0e78642f245c2e65b2943fca43459cb0fc8f104787f37dd15aebd519666e4
";

const KUZNYECHIK_BLOCK: &str = "# kuznyechik-block / RFC 7801 sections 5.5-5.6
cipher = kuznyechik
mode = block
key = 8899aabbccddeeff0011223344556677fedcba98765432100123456789abcdef
pt = 1122334455667700ffeeddccbbaa9988
ct = 7f679d90bebc24305a468d42b9d4edcd
lsx1 = e297b686e355b0a1cf4a2f9249140830
lsx3 = 0187a3a429b567841ad50d29207cc34e
lsx9 = 0d8e40e4a800d06b2f1b37ea379ead8e
";

const CHACHA_BLOCK: &str = "# chacha20-block-2.3.2 / RFC 8439 section 2.3.2
cipher = chacha20
mode = block
key = 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
nonce = 000000090000004a00000000
counter = 1
state0 = 617078653320646e79622d326b20657403020100070605040b0a09080f0e0d0c13121110171615141b1a19181f1e1d1c00000001090000004a00000000000000
state20 = 837778abe238d763a67ae21e5950bb2fc4f2d0c7fc62bb2f8fa018fc3f5ec7b7335271c2f29489f3eabda8fc82e46ebdd19c12b4b04e16de9e83d0cb4e3c50a2
state_out = e4e7f11015593bd11fdd0f50c47120a3c7f4d1c70368c0339aaa22044e6cd4c3466482d209aa9f0705d7c214a2028bd9d19c12b5b94e16dee883d0cb4e3c50a2
keystream = 10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4ed2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e
";

const QUARTERROUND: &str = "# chacha20-quarterround-state-2.2.1 / RFC 8439 section 2.2.1
cipher = chacha20
mode = quarterround
index = 2,7,8,13
in = 879531e0c5ecf37d516461b1c9a62f8a44c20ef33390af7fd9fc690b2a5f714c53372767b00a5631974c541a359e99635c9710613d6316892098d9d691dbd320
out = 879531e0c5ecf37dbdb886dcc9a62f8a44c20ef33390af7fd9fc690bcfacafd2e46bea80b00a5631974c541a359e99635c971061ccc07c792098d9d691dbd320
";

#[test]
fn real_records_pass() {
    assert_pass(KUZNYECHIK_BLOCK);
    assert_pass(CHACHA_BLOCK);
    assert_pass(QUARTERROUND);
    assert_pass(MAGMA_BLOCK);
    assert_pass(MAGMA_G);
    assert_pass(MAGMA_KEYS);
    assert_pass(GOST_TABLE);
}

#[test]
fn uppercase_hex_is_accepted() {
    assert_pass(&edit(MAGMA_BLOCK, "4ee901e5c2d8ca3d", "4EE901E5C2D8CA3D"));
}

#[test]
fn tampered_output_fails() {
    assert_fail(&flip(MAGMA_BLOCK, "ct"), "ct");
    assert_fail(&flip(MAGMA_BLOCK, "pt"), "ct");
    assert_fail(&flip(MAGMA_G, "out"), "out");
    assert_fail(&flip(GOST_TABLE, "packed"), "packed");
    assert_fail(&flip(GOST_TABLE, "k8"), "k8");
}

#[test]
fn tampered_intermediate_value_fails() {
    assert_fail(&flip(MAGMA_BLOCK, "g05"), "g05");
    assert_fail(&flip(MAGMA_KEYS, "k25"), "k25");
    assert_fail(&flip(KUZNYECHIK_BLOCK, "lsx3"), "lsx3");
    assert_fail(&flip(CHACHA_BLOCK, "state20"), "state20");
    assert_fail(&flip(CHACHA_BLOCK, "state0"), "state0");
    assert_fail(&flip(CHACHA_BLOCK, "keystream"), "keystream");
    assert_fail(&flip(QUARTERROUND, "out"), "out");
}

#[test]
fn malformed_quarterround_index_fails() {
    assert_fail(
        &edit(QUARTERROUND, "index = 2,7,8,13", "index = 2,7,8,16"),
        "index",
    );
    assert_fail(
        &edit(QUARTERROUND, "index = 2,7,8,13", "index = 2,7,8"),
        "index",
    );
    assert_fail(
        &edit(QUARTERROUND, "index = 2,7,8,13", "index = 2,2,8,13"),
        "index",
    );
    assert_fail(&edit(QUARTERROUND, "index = 2,7,8,13\n", ""), "index");
}

#[test]
fn counter_out_of_range_fails() {
    assert_fail(
        &edit(CHACHA_BLOCK, "counter = 1", "counter = 4294967296"),
        "counter",
    );
    assert_fail(
        &edit(CHACHA_BLOCK, "counter = 1", "counter = -1"),
        "counter",
    );
}

#[test]
fn bad_hex_fails_naming_the_field() {
    assert_fail(&edit(MAGMA_BLOCK, "ct = 4ee9", "ct = 4xe9"), "`ct`");
    assert_fail(&edit(MAGMA_BLOCK, "ct = 4ee9", "ct = 4ee"), "`ct`");
    assert_fail(&edit(MAGMA_BLOCK, "key = ffee", "key = ffée"), "`key`");
    assert_fail(&edit(MAGMA_G, "in = fedcba98", "in = fedcba"), "`in`");
}

#[test]
fn missing_required_field_fails() {
    assert_fail(&edit(MAGMA_BLOCK, "pt = fedcba9876543210\n", ""), "`pt`");
}

#[test]
fn unknown_field_is_skipped_and_named() {
    assert_skip(&format!("{MAGMA_BLOCK}flavour = 00\n"), "flavour");
    // An index outside the schedule is a field this runner cannot interpret.
    assert_skip(&format!("{MAGMA_KEYS}k33 = 00000000\n"), "k33");
}

#[test]
fn unknown_mode_and_cipher_are_skipped() {
    assert_skip(&edit(MAGMA_BLOCK, "mode = block", "mode = xts"), "xts");
    assert_skip(
        &edit(MAGMA_BLOCK, "cipher = magma", "cipher = serpent"),
        "serpent",
    );
    assert_skip(
        &edit(MAGMA_G, "cipher = magma", "cipher = aes128"),
        "transform-g",
    );
}

#[test]
fn unknown_result_value_is_skipped() {
    assert_skip(&format!("{MAGMA_BLOCK}result = maybe\n"), "result");
}

#[test]
fn record_without_expected_values_is_skipped() {
    let text = "# keys-only / s\ncipher = magma\nmode = keyschedule\nkey = ffeeddccbbaa99887766554433221100f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff\n";
    assert_skip(text, "no expected value");
}

#[test]
fn invalid_result_on_a_table_is_skipped() {
    assert_skip(&format!("{GOST_TABLE}result = invalid\n"), "invalid");
}

#[test]
fn invalid_block_record_passes_only_when_rejected() {
    // A 31-byte key must be rejected.
    let short_key = edit(MAGMA_BLOCK, "fcfdfeff\n", "fcfdfe\n");
    assert_pass(&format!("{short_key}result = invalid\n"));
    assert_fail(&short_key, "key");
    // The genuine record marked invalid is accepted by the cipher: that is a failure.
    assert_fail(&format!("{MAGMA_BLOCK}result = invalid\n"), "accepted");
}

#[test]
fn original_chacha20_nonce_is_skipped() {
    let text = edit(
        CHACHA_BLOCK,
        "nonce = 000000090000004a00000000",
        "nonce = 0000004a00000000",
    );
    assert_skip(&text, "64-bit");
    assert_pass(&format!("{text}result = invalid\n"));
}
