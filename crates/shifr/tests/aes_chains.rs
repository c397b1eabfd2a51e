//! Single-stream feedback chains (`BlockCipher::feedback_chain`: CBC, CFB and CFB8 encryption, OFB,
//! OMAC's CBC-MAC) on every AES backend this CPU has, against RustCrypto's cbc, cfb-mode, ofb and
//! cmac crates
//! and against the portable backend: all three key sizes, lengths around one block and several
//! KiB, misaligned buffers, messages fed to OMAC in pieces, and the hook called directly with a
//! register that must come back as the next chaining value. Also the chained mode calls
//! (`cbc::encrypt_chained`, `cfb::encrypt_chained`, `ofb::apply_chained`): against RustCrypto's
//! streaming contexts, in pieces equal to one call, and their refusals. And the fused CBC and
//! CFB-128 decryption hook (`BlockCipher::decrypt_chain`), called directly.

mod support;

use cipher::generic_array::GenericArray;
use cipher::{AsyncStreamCipher, BlockEncryptMut, KeyInit, KeyIvInit, StreamCipher};
use cmac::Mac;
use shifr::cpu::Backend;
use shifr::hazmat::block::aes::Aes;
use shifr::hazmat::block::{BlockCipher, Chain, DecryptChain};
use shifr::hazmat::mac::omac;
use shifr::hazmat::mode::{cbc, cfb, ofb};
use support::random_bytes;

/// Byte lengths: empty, around one and two blocks, past the 8-block batch, several KiB.
const LENGTHS: &[usize] = &[
    0,
    1,
    15,
    16,
    17,
    31,
    32,
    33,
    48,
    127,
    128,
    129,
    1024 + 16,
    4096 + 5,
    8192,
];

/// Every AES backend this CPU runs, portable first.
fn backends() -> Vec<Backend> {
    let all: Vec<Backend> = Backend::ALL
        .iter()
        .copied()
        .filter(|&b| Aes::with_backend(&[0; 16], b).is_ok())
        .collect();
    assert_eq!(all.first(), Some(&Backend::Portable));
    all
}

/// `data` copied to byte offset `offset` of a fresh buffer, to run the modes on misaligned input.
fn shifted(data: &[u8], offset: usize) -> Vec<u8> {
    let mut v = vec![0x5au8; offset];
    v.extend_from_slice(data);
    v
}

fn rc_cbc(key: &[u8], iv: &[u8], data: &mut [u8]) {
    macro_rules! run {
        ($c:ty) => {{
            let mut e = ::cbc::Encryptor::<$c>::new_from_slices(key, iv).unwrap();
            for b in data.chunks_exact_mut(16) {
                e.encrypt_block_mut(GenericArray::from_mut_slice(b));
            }
        }};
    }
    match key.len() {
        16 => run!(aes::Aes128),
        24 => run!(aes::Aes192),
        _ => run!(aes::Aes256),
    }
}

fn rc_cfb(key: &[u8], iv: &[u8], data: &mut [u8]) {
    macro_rules! run {
        ($c:ty) => {
            cfb_mode::Encryptor::<$c>::new_from_slices(key, iv)
                .unwrap()
                .encrypt(data)
        };
    }
    match key.len() {
        16 => run!(aes::Aes128),
        24 => run!(aes::Aes192),
        _ => run!(aes::Aes256),
    }
}

fn rc_ofb(key: &[u8], iv: &[u8], data: &mut [u8]) {
    macro_rules! run {
        ($c:ty) => {
            ::ofb::Ofb::<$c>::new_from_slices(key, iv)
                .unwrap()
                .apply_keystream(data)
        };
    }
    match key.len() {
        16 => run!(aes::Aes128),
        24 => run!(aes::Aes192),
        _ => run!(aes::Aes256),
    }
}

#[test]
fn ofb_matches_rustcrypto_and_portable() {
    for key_len in [16, 24, 32] {
        for &len in LENGTHS {
            let (key, iv, pt) = (random_bytes(key_len), random_bytes(16), random_bytes(len));
            let mut theirs = pt.clone();
            rc_ofb(&key, &iv, &mut theirs);
            for backend in backends() {
                let aes = Aes::with_backend(&key, backend).unwrap();
                for offset in [0, 5] {
                    let mut buf = shifted(&pt, offset);
                    ofb::apply(&aes, &iv, &mut buf[offset..]).unwrap();
                    assert!(
                        buf[offset..] == theirs[..],
                        "{backend:?} {key_len} {len} +{offset}"
                    );
                }
            }
        }
    }
}

fn rc_cmac(key: &[u8], msg: &[u8]) -> Vec<u8> {
    macro_rules! run {
        ($c:ty) => {{
            let mut m = <cmac::Cmac<$c> as KeyInit>::new_from_slice(key).unwrap();
            Mac::update(&mut m, msg);
            m.finalize().into_bytes().to_vec()
        }};
    }
    match key.len() {
        16 => run!(aes::Aes128),
        24 => run!(aes::Aes192),
        _ => run!(aes::Aes256),
    }
}

#[test]
fn cbc_encrypt_matches_rustcrypto_and_portable() {
    for key_len in [16, 24, 32] {
        for &len in LENGTHS.iter().filter(|&&l| l % 16 == 0) {
            let (key, iv, pt) = (random_bytes(key_len), random_bytes(16), random_bytes(len));
            let mut theirs = pt.clone();
            rc_cbc(&key, &iv, &mut theirs);
            for backend in backends() {
                let aes = Aes::with_backend(&key, backend).unwrap();
                for offset in [0, 1, 7] {
                    let mut buf = shifted(&pt, offset);
                    cbc::encrypt(&aes, &iv, &mut buf[offset..]).unwrap();
                    assert!(
                        buf[offset..] == theirs[..],
                        "{backend:?} {key_len} {len} +{offset}"
                    );
                    // Through a trait object, as the catalogue calls it.
                    let dynamic: &dyn BlockCipher = &aes;
                    let mut again = pt.clone();
                    cbc::encrypt(dynamic, &iv, &mut again).unwrap();
                    assert!(again == theirs, "{backend:?} dyn {key_len} {len}");
                    cbc::decrypt(&aes, &iv, &mut again).unwrap();
                    assert!(again == pt, "{backend:?} round trip {key_len} {len}");
                }
            }
        }
    }
}

#[test]
fn cfb_encrypt_matches_rustcrypto_and_portable() {
    for key_len in [16, 24, 32] {
        for &len in LENGTHS {
            let (key, iv, pt) = (random_bytes(key_len), random_bytes(16), random_bytes(len));
            let mut theirs = pt.clone();
            rc_cfb(&key, &iv, &mut theirs);
            for backend in backends() {
                let aes = Aes::with_backend(&key, backend).unwrap();
                for offset in [0, 3] {
                    let mut buf = shifted(&pt, offset);
                    cfb::encrypt(&aes, &iv, 16, &mut buf[offset..]).unwrap();
                    assert!(
                        buf[offset..] == theirs[..],
                        "{backend:?} {key_len} {len} +{offset}"
                    );
                    cfb::decrypt(&aes, &iv, 16, &mut buf[offset..]).unwrap();
                    assert!(
                        buf[offset..] == pt[..],
                        "{backend:?} round trip {key_len} {len}"
                    );
                }
            }
        }
    }
}

/// The fused CBC and CFB-128 decryption hook (`BlockCipher::decrypt_chain`) on every backend that
/// takes it, called directly: every whole-block length from 1 to 40 blocks and a few longer ones
/// (each side of the register widths' thresholds and passes), misaligned, in two calls that must
/// continue like one, against RustCrypto's CBC and CFB; the register comes back as the last
/// ciphertext block. Calls it cannot run change nothing.
#[test]
fn decrypt_chain_hook_matches_rustcrypto_and_continues() {
    let blocks: Vec<usize> = (1..=40).chain([63, 64, 65, 129, 257]).collect();
    for key_len in [16, 24, 32] {
        let key = random_bytes(key_len);
        for backend in backends() {
            let aes = Aes::with_backend(&key, backend).unwrap();
            for &n in &blocks {
                for cbc_mode in [true, false] {
                    let (iv, pt) = (random_bytes(16), random_bytes(16 * n));
                    let mut ct = pt.clone();
                    if cbc_mode {
                        rc_cbc(&key, &iv, &mut ct);
                    } else {
                        rc_cfb(&key, &iv, &mut ct);
                    }
                    let what = format!("{backend:?} {key_len} {n} blocks cbc {cbc_mode}");
                    let run = |reg: &mut [u8], d: &mut [u8]| {
                        let chain = if cbc_mode {
                            DecryptChain::Cbc(d)
                        } else {
                            DecryptChain::Cfb(d)
                        };
                        aes.decrypt_chain(reg, chain)
                    };
                    for split in [0, n / 2, n] {
                        let mut buf = shifted(&ct, 7);
                        let mut reg = iv.clone();
                        let (a, b) = buf[7..].split_at_mut(16 * split);
                        if !run(&mut reg, a) {
                            // Only a backend without a kernel declines whole blocks.
                            assert_eq!(backend, Backend::Portable, "{what} declined");
                            assert!(reg == iv && buf[7..] == ct[..], "{what} touched");
                            break;
                        }
                        assert!(run(&mut reg, b), "{what} second call");
                        assert!(buf[7..] == pt[..], "{what} split {split}");
                        assert_eq!(reg, ct[16 * (n - 1)..], "{what} register");
                    }
                }
            }
            // Refused: a partial block, a register that is not one block.
            let (iv, ct) = (random_bytes(16), random_bytes(40));
            let (mut reg, mut data) = (iv.clone(), ct.clone());
            assert!(!aes.decrypt_chain(&mut reg, DecryptChain::Cbc(&mut data)));
            assert!(!aes.decrypt_chain(&mut reg, DecryptChain::Cfb(&mut data)));
            assert!(reg == iv && data == ct);
            let mut short = iv[..8].to_vec();
            assert!(!aes.decrypt_chain(&mut short, DecryptChain::Cbc(&mut data[..32])));
            assert!(short == iv[..8] && data == ct);
        }
    }
}

#[test]
fn cmac_matches_rustcrypto_whole_and_in_pieces() {
    for key_len in [16, 24, 32] {
        for &len in LENGTHS {
            let (key, msg) = (random_bytes(key_len), random_bytes(len + 3));
            let theirs = rc_cmac(&key, &msg[3..]);
            for backend in backends() {
                let aes = Aes::with_backend(&key, backend).unwrap();
                // Misaligned message.
                assert_eq!(omac::omac(&aes, 16, &msg[3..]).unwrap(), theirs);
                // Pieces that leave partial blocks held back between updates.
                for cut in [1usize, 16, 17, 100] {
                    let mut mac = omac::Omac::new(&aes, 16).unwrap();
                    for piece in msg[3..].chunks(cut) {
                        mac.update(piece);
                    }
                    let tag = mac.finalize();
                    assert_eq!(tag, theirs, "{backend:?} {key_len} {len} pieces of {cut}");
                }
            }
        }
    }
}

/// The hook itself: the register comes back as the chaining value that continues the chain (so
/// two calls equal one), a partial block or a register that is not one block is refused untouched.
#[test]
fn feedback_chain_continues_and_refuses_what_it_cannot_run() {
    for key_len in [16, 24, 32] {
        let key = random_bytes(key_len);
        let portable = Aes::with_backend(&key, Backend::Portable).unwrap();
        for backend in backends() {
            let aes = Aes::with_backend(&key, backend).unwrap();
            let (iv, pt) = (random_bytes(16), random_bytes(160));
            let mut whole = pt.clone();
            cbc::encrypt(&portable, &iv, &mut whole).unwrap();
            let mut cfb_whole = pt.clone();
            cfb::encrypt(&portable, &iv, 16, &mut cfb_whole).unwrap();
            let mac_whole = omac::omac(&portable, 16, &pt).unwrap();
            // The chain kernels are x86's (`block/aes/x86_chain.rs`); the portable and ARMv8
            // crypto backends decline every chain, touching nothing.
            if backend == Backend::Portable || cfg!(not(target_arch = "x86_64")) {
                let mut reg = iv.clone();
                let mut data = pt.clone();
                assert!(!aes.feedback_chain(&mut reg, Chain::CbcEncrypt(&mut data)));
                assert!(!aes.feedback_chain(&mut reg, Chain::Cfb8Encrypt(&mut data)));
                assert!(reg == iv && data == pt);
                continue;
            }
            for split in [0usize, 16, 48, 160] {
                // CBC in two calls.
                let mut reg = iv.clone();
                let mut data = pt.clone();
                let (a, b) = data.split_at_mut(split);
                assert!(aes.feedback_chain(&mut reg, Chain::CbcEncrypt(a)));
                assert!(aes.feedback_chain(&mut reg, Chain::CbcEncrypt(b)));
                assert!(data == whole, "{backend:?} cbc split {split}");
                assert_eq!(reg, whole[144..]);
                // CFB in two calls.
                let mut reg = iv.clone();
                let mut data = pt.clone();
                let (a, b) = data.split_at_mut(split);
                assert!(aes.feedback_chain(&mut reg, Chain::CfbEncrypt(a)));
                assert!(aes.feedback_chain(&mut reg, Chain::CfbEncrypt(b)));
                assert!(data == cfb_whole, "{backend:?} cfb split {split}");
                assert_eq!(reg, cfb_whole[144..]);
                // OFB in two calls: the register is the last key stream block.
                let mut reg = iv.clone();
                let mut data = pt.clone();
                let (a, b) = data.split_at_mut(split);
                assert!(aes.feedback_chain(&mut reg, Chain::Ofb(a)));
                assert!(aes.feedback_chain(&mut reg, Chain::Ofb(b)));
                let mut ks = vec![0u8; 160];
                ofb::apply(&portable, &iv, &mut ks).unwrap();
                let expect: Vec<u8> = pt.iter().zip(&ks).map(|(p, k)| p ^ k).collect();
                assert!(data == expect, "{backend:?} ofb split {split}");
                assert_eq!(reg, ks[144..]);
            }
            // CFB8 in two calls split at any byte: the register is the last 16 bytes of IV || C.
            let mut cfb8_whole = pt.clone();
            cfb::encrypt(&portable, &iv, 1, &mut cfb8_whole).unwrap();
            for split in [0usize, 1, 5, 16, 77, 159, 160] {
                let mut reg = iv.clone();
                let mut data = pt.clone();
                let (a, b) = data.split_at_mut(split);
                assert!(aes.feedback_chain(&mut reg, Chain::Cfb8Encrypt(a)));
                assert!(aes.feedback_chain(&mut reg, Chain::Cfb8Encrypt(b)));
                assert!(data == cfb8_whole, "{backend:?} cfb8 split {split}");
                assert_eq!(reg, cfb8_whole[144..], "{backend:?} cfb8 register");
            }
            // The CBC-MAC of the first 144 bytes, then the last block by hand with K1, is OMAC.
            let mut reg = vec![0u8; 16];
            assert!(aes.feedback_chain(&mut reg, Chain::CbcMac(&pt[..144])));
            let (_, k1, _) = omac::subkeys(&aes).unwrap();
            for i in 0..16 {
                reg[i] ^= pt[144 + i] ^ k1[i];
            }
            aes.encrypt_blocks(&mut reg);
            assert_eq!(reg, mac_whole, "{backend:?} cbc-mac");
            // Refused: a partial block, a register of the wrong size.
            let mut reg = iv.clone();
            let mut data = pt[..17].to_vec();
            assert!(!aes.feedback_chain(&mut reg, Chain::CbcEncrypt(&mut data)));
            assert!(reg == iv && data == pt[..17]);
            let mut short = iv[..8].to_vec();
            assert!(!aes.feedback_chain(&mut short, Chain::CfbEncrypt(&mut data[..16])));
            assert!(short == iv[..8] && data == pt[..17]);
        }
    }
}

fn rc_cfb8(key: &[u8], iv: &[u8], data: &mut [u8]) {
    macro_rules! run {
        ($c:ty) => {{
            let mut e = ::cfb8::Encryptor::<$c>::new_from_slices(key, iv).unwrap();
            for b in data.chunks_exact_mut(1) {
                e.encrypt_block_mut(GenericArray::from_mut_slice(b));
            }
        }};
    }
    match key.len() {
        16 => run!(aes::Aes128),
        24 => run!(aes::Aes192),
        _ => run!(aes::Aes256),
    }
}

/// The chained calls of each mode, as `(name, segment, call)`; the segment is the unit that every
/// piece but the last must be a whole number of.
type ChainedCall = fn(&Aes, &mut [u8], &mut [u8]) -> shifr::Result<()>;
const CHAINED: [(&str, usize, ChainedCall); 4] = [
    ("cbc", 16, |c, iv, d| cbc::encrypt_chained(c, iv, d)),
    ("cfb", 16, |c, iv, d| cfb::encrypt_chained(c, iv, 16, d)),
    ("cfb8", 1, |c, iv, d| cfb::encrypt_chained(c, iv, 1, d)),
    ("ofb", 16, |c, iv, d| ofb::apply_chained(c, iv, d)),
];

/// RustCrypto's streaming context for `name` over the whole of `data`.
fn rc_chained(name: &str, key: &[u8], iv: &[u8], data: &mut [u8]) {
    match name {
        "cbc" => rc_cbc(key, iv, data),
        "cfb" => rc_cfb(key, iv, data),
        "cfb8" => rc_cfb8(key, iv, data),
        _ => rc_ofb(key, iv, data),
    }
}

/// Splits `len` into pieces that are whole segments except the last: random lengths of 0 to 3
/// blocks (one-block pieces often, the latency path), then the rest.
fn pieces(len: usize, segment: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut left = len;
    let mut seed = random_bytes(64).into_iter().cycle();
    while left > 0 && out.len() < 40 {
        let r = usize::from(seed.next().unwrap_or(0));
        let take = match r % 4 {
            0 => 16,
            1 => 0,
            _ => r % 48 / segment * segment,
        }
        .min(left / segment * segment);
        out.push(take);
        left -= take;
    }
    out.push(left);
    out
}

#[test]
fn chained_calls_match_rustcrypto_streams_and_one_call() {
    for key_len in [16, 24, 32] {
        for &len in LENGTHS {
            let (key, iv, pt) = (random_bytes(key_len), random_bytes(16), random_bytes(len));
            for (name, segment, call) in CHAINED {
                if name == "cbc" && len % 16 != 0 {
                    continue;
                }
                let mut theirs = pt.clone();
                rc_chained(name, &key, &iv, &mut theirs);
                for backend in backends() {
                    let aes = Aes::with_backend(&key, backend).unwrap();
                    let what = format!("{name} {backend:?} {key_len} {len}");
                    // One call, misaligned: RustCrypto's output, and the register it leaves
                    // continues the stream (checked by a second call on one more block).
                    let mut buf = shifted(&pt, 3);
                    let mut reg = iv.clone();
                    call(&aes, &mut reg, &mut buf[3..]).unwrap();
                    assert!(buf[3..] == theirs[..], "{what}");
                    if len % segment == 0 {
                        let more = random_bytes(16);
                        let mut whole = [pt.clone(), more.clone()].concat();
                        rc_chained(name, &key, &iv, &mut whole);
                        let mut next = more.clone();
                        call(&aes, &mut reg, &mut next).unwrap();
                        assert!(next[..] == whole[len..], "{what} continued");
                    }
                    // In pieces: the same as one call.
                    let mut parts = pt.clone();
                    let mut reg = iv.clone();
                    let mut rest = &mut parts[..];
                    for take in pieces(len, segment) {
                        let (part, tail) = rest.split_at_mut(take);
                        call(&aes, &mut reg, part).unwrap();
                        rest = tail;
                    }
                    assert!(parts == theirs, "{what} in pieces");
                }
            }
        }
    }
}

/// Registers the chain kernels do not take (GOST's `m = z n`, CFB with a longer register) and the
/// portable backend go through the general code: pieces still equal one call of the unchained
/// mode, and the register after a call is the documented one.
#[test]
fn chained_calls_with_long_registers_continue_like_one_call() {
    let aes = Aes::new(&random_bytes(16)).unwrap();
    let iv = random_bytes(48);
    let pt = random_bytes(16 * 11 + 5);
    let blocks = pt.len() / 16 * 16;
    for z in [2usize, 3] {
        let iv = &iv[..16 * z];
        let mut one = pt[..blocks].to_vec();
        cbc::encrypt(&aes, iv, &mut one).unwrap();
        let (mut parts, mut reg) = (pt[..blocks].to_vec(), iv.to_vec());
        for part in parts.chunks_mut(16 * (z + 1)) {
            cbc::encrypt_chained(&aes, &mut reg, part).unwrap();
        }
        assert_eq!(parts, one, "cbc z={z}");
        assert_eq!(reg[..], one[blocks - 16 * z..], "cbc z={z} register");

        let mut one = pt.clone();
        ofb::apply(&aes, iv, &mut one).unwrap();
        let (mut parts, mut reg) = (pt.clone(), iv.to_vec());
        for part in parts.chunks_mut(16 * (z + 1)) {
            ofb::apply_chained(&aes, &mut reg, part).unwrap();
        }
        assert_eq!(parts, one, "ofb z={z}");

        for segment in [16, 5, 1] {
            let mut one = pt.clone();
            cfb::encrypt(&aes, iv, segment, &mut one).unwrap();
            let (mut parts, mut reg) = (pt.clone(), iv.to_vec());
            for part in parts.chunks_mut(segment * 7) {
                cfb::encrypt_chained(&aes, &mut reg, segment, part).unwrap();
            }
            assert_eq!(parts, one, "cfb z={z} s={segment}");
            let ct = [iv, &one[..]].concat();
            assert_eq!(
                reg[..],
                ct[ct.len() - 16 * z..],
                "cfb z={z} s={segment} register"
            );
        }
    }
}

#[test]
fn chained_calls_refuse_bad_shapes_and_change_nothing() {
    let aes = Aes::new(&[7u8; 16]).unwrap();
    for iv_len in [0usize, 8, 17, 31] {
        let mut iv = vec![1u8; iv_len];
        let mut data = vec![2u8; 32];
        assert!(cbc::encrypt_chained(&aes, &mut iv, &mut data).is_err());
        assert!(ofb::apply_chained(&aes, &mut iv, &mut data).is_err());
        if iv_len < 16 {
            assert!(cfb::encrypt_chained(&aes, &mut iv, 16, &mut data).is_err());
        }
        assert_eq!((iv, data), (vec![1u8; iv_len], vec![2u8; 32]));
    }
    let mut iv = vec![1u8; 16];
    let mut data = vec![2u8; 17];
    assert!(cbc::encrypt_chained(&aes, &mut iv, &mut data).is_err());
    for segment in [0, 17] {
        assert!(cfb::encrypt_chained(&aes, &mut iv, segment, &mut data).is_err());
    }
    assert_eq!((iv, data), (vec![1u8; 16], vec![2u8; 17]));
}

/// The 8-byte-register CFB8 path (3DES) against RustCrypto's cfb8 over des, in pieces.
#[test]
fn chained_cfb8_on_a_64_bit_block_matches_rustcrypto() {
    use shifr::hazmat::block::tdes::Tdes;
    for len in [0usize, 1, 7, 8, 9, 100] {
        let (key, iv, pt) = (random_bytes(24), random_bytes(8), random_bytes(len));
        let mut theirs = pt.clone();
        let mut e = ::cfb8::Encryptor::<des::TdesEde3>::new_from_slices(&key, &iv).unwrap();
        for b in theirs.chunks_exact_mut(1) {
            e.encrypt_block_mut(GenericArray::from_mut_slice(b));
        }
        let tdes = Tdes::new(&key).unwrap();
        let (mut parts, mut reg) = (pt.clone(), iv.clone());
        for part in parts.chunks_mut(3) {
            cfb::encrypt_chained(&tdes, &mut reg, 1, part).unwrap();
        }
        assert_eq!(parts, theirs, "{len}");
        let ct = [&iv[..], &theirs[..]].concat();
        assert_eq!(reg[..], ct[ct.len() - 8..], "{len} register");
    }
}
