//! The AArch64 ARMv8-crypto backends (AES with AESE/AESMC, GHASH with PMULL, AES-GCM on both)
//! against the portable backend on random keys, IVs and lengths, and AES against RustCrypto's `aes`.
//! Runs under qemu-aarch64 (scripts/cross-test.sh), whose default CPU model has the extensions; on
//! a core without them every test says so and checks nothing else. The NEON Magma, Kuznyechik and
//! ChaCha20 backends are compared with the portable code in their own modules' unit tests.
#![cfg(target_arch = "aarch64")]

use cipher::{BlockEncrypt, KeyInit as _};
use rand::{Rng, RngCore};
use shifr::aead::gcm::AesGcm;
use shifr::aead::Aead;
use shifr::cpu::Backend;
use shifr::hazmat::block::aes::Aes;
use shifr::hazmat::block::{BlockCipher, DecryptChain};
use shifr::hazmat::mac::ghash::GHash;

/// Lengths around the block and the eight-block interleave, and a few KiB.
const LENGTHS: &[usize] = &[0, 1, 15, 16, 17, 127, 128, 129, 255, 256, 257, 4096, 5003];

fn arm_crypto() -> bool {
    let ok = Backend::ArmCrypto.is_supported();
    if !ok {
        println!("this CPU has no ARMv8 crypto extensions: nothing to compare");
    }
    ok
}

fn random(len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rand::thread_rng().fill_bytes(&mut v);
    v
}

#[test]
fn aes_arm_crypto_matches_portable_and_rustcrypto() {
    if !arm_crypto() {
        return;
    }
    for key_len in [16, 24, 32] {
        for &len in LENGTHS {
            let key = random(key_len);
            let data = random(len);
            let arm = Aes::with_backend(&key, Backend::ArmCrypto).unwrap();
            assert_eq!(arm.backend(), Backend::ArmCrypto);
            let portable = Aes::with_backend(&key, Backend::Portable).unwrap();
            let mut got = data.clone();
            arm.encrypt_blocks(&mut got);
            let mut expected = data.clone();
            portable.encrypt_blocks(&mut expected);
            assert_eq!(got, expected, "AES-{} len {len}", key_len * 8);
            // The independent implementation, block by block.
            let mut reference = data.clone();
            for block in reference.chunks_exact_mut(16) {
                let b = cipher::generic_array::GenericArray::from_mut_slice(block);
                match key_len {
                    16 => aes::Aes128::new_from_slice(&key).unwrap().encrypt_block(b),
                    24 => aes::Aes192::new_from_slice(&key).unwrap().encrypt_block(b),
                    _ => aes::Aes256::new_from_slice(&key).unwrap().encrypt_block(b),
                }
            }
            assert_eq!(got, reference, "AES-{} len {len} vs aes crate", key_len * 8);
            arm.decrypt_blocks(&mut got);
            assert_eq!(got, data);
        }
    }
}

/// The fused CBC and CFB-128 decryption hook (`BlockCipher::decrypt_chain`) against the portable
/// backend's encryption: every whole-block length of `LENGTHS`, in two calls that continue like
/// one, the register left at the last ciphertext block.
#[test]
fn aes_arm_crypto_decrypt_chain_hook_matches_portable() {
    if !arm_crypto() {
        return;
    }
    for key_len in [16, 24, 32] {
        let key = random(key_len);
        let arm = Aes::with_backend(&key, Backend::ArmCrypto).unwrap();
        let portable = Aes::with_backend(&key, Backend::Portable).unwrap();
        for &len in LENGTHS {
            for cbc_mode in [true, false] {
                let whole = len / 16 * 16;
                let (iv, pt) = (random(16), random(whole));
                let mut ct = pt.clone();
                if cbc_mode {
                    shifr::hazmat::mode::cbc::encrypt(&portable, &iv, &mut ct).unwrap();
                } else {
                    shifr::hazmat::mode::cfb::encrypt(&portable, &iv, 16, &mut ct).unwrap();
                }
                let mut got = ct.clone();
                let mut reg = iv.clone();
                let (a, b) = got.split_at_mut(whole / 32 * 16);
                for part in [a, b] {
                    let chain = if cbc_mode {
                        DecryptChain::Cbc(part)
                    } else {
                        DecryptChain::Cfb(part)
                    };
                    assert!(arm.decrypt_chain(&mut reg, chain));
                }
                let what = format!("AES-{} len {whole} cbc {cbc_mode}", key_len * 8);
                assert_eq!(got, pt, "{what}");
                let expect = if whole == 0 {
                    &iv[..]
                } else {
                    &ct[whole - 16..]
                };
                assert_eq!(reg, expect, "{what} register");
            }
        }
    }
}

#[test]
fn ghash_pmull_matches_portable_on_any_split() {
    if !arm_crypto() {
        return;
    }
    let mut rng = rand::thread_rng();
    for &len in LENGTHS {
        let h: [u8; 16] = random(16).try_into().unwrap();
        let data = random(len);
        let split = rng.gen_range(0..=len);
        let mut portable = GHash::with_backend(&h, Backend::Portable).unwrap();
        portable.update(&data);
        let mut pmull = GHash::with_backend(&h, Backend::ArmCrypto).unwrap();
        assert_eq!(pmull.backend(), Backend::ArmCrypto);
        pmull.update(&data[..split]);
        pmull.update(&data[split..]);
        assert_eq!(
            pmull.finalize(),
            portable.finalize(),
            "len {len} split {split}"
        );
    }
}

#[test]
fn gcm_arm_crypto_matches_portable() {
    if !arm_crypto() {
        return;
    }
    let mut rng = rand::thread_rng();
    for &len in LENGTHS {
        let key = random([16, 24, 32][rng.gen_range(0..3)]);
        let nonce = random(rng.gen_range(1..=20));
        let aad = random(rng.gen_range(0..=40));
        let data = random(len);
        let arm = AesGcm::with_backend(&key, 16, Backend::ArmCrypto).unwrap();
        let portable = AesGcm::with_backend(&key, 16, Backend::Portable).unwrap();
        let mut got = data.clone();
        let tag = arm.seal(&nonce, &aad, &mut got).unwrap();
        let mut expected = data.clone();
        let expected_tag = portable.seal(&nonce, &aad, &mut expected).unwrap();
        assert_eq!(got, expected, "len {len}");
        assert_eq!(tag.as_ref(), expected_tag.as_ref(), "len {len}");
        arm.open(&nonce, &aad, &mut got, tag.as_ref()).unwrap();
        assert_eq!(got, data);
    }
}
