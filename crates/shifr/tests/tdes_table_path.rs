//! Differential tests of the table DES (`block/tdes/soft.rs`): calls of 1 to 15 blocks (under
//! `BITSLICE_MIN_BLOCKS`) and the single-stream feedback chains of `Tdes::feedback_chain`, against
//! RustCrypto's des 0.8 (TdesEde3, TdesEde2, and Des for K1 = K2 = K3) on random keys and data.

use des::cipher::generic_array::GenericArray;
use des::cipher::{BlockDecrypt, BlockEncrypt, KeyInit as _};
use rand::rngs::StdRng;
use rand::{Rng, RngCore, SeedableRng};
use shifr::hazmat::block::tdes::{Tdes, BITSLICE_MIN_BLOCKS};
use shifr::hazmat::block::{BlockCipher, Chain};

fn random_bytes(rng: &mut StdRng, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    rng.fill_bytes(&mut v);
    v
}

/// One block through the reference cipher.
type RefBlock = Box<dyn Fn(&[u8]) -> [u8; 8]>;

/// The reference encryption and decryption of one block for `key` (16 or 24 bytes).
fn reference(key: &[u8]) -> (RefBlock, RefBlock) {
    fn wrap<C: BlockEncrypt + BlockDecrypt + Clone + 'static>(c: C) -> (RefBlock, RefBlock) {
        let d = c.clone();
        (
            Box::new(move |x| {
                let mut out = [0u8; 8];
                out.copy_from_slice(x);
                c.encrypt_block(GenericArray::from_mut_slice(&mut out));
                out
            }),
            Box::new(move |x| {
                let mut out = [0u8; 8];
                out.copy_from_slice(x);
                d.decrypt_block(GenericArray::from_mut_slice(&mut out));
                out
            }),
        )
    }
    if key.len() == 16 {
        wrap(des::TdesEde2::new_from_slice(key).unwrap())
    } else if key[..8] == key[8..16] && key[..8] == key[16..] {
        wrap(des::Des::new_from_slice(&key[..8]).unwrap())
    } else {
        wrap(des::TdesEde3::new_from_slice(key).unwrap())
    }
}

/// Random keys: three-key, two-key (16 bytes), and single DES as K1 = K2 = K3 (24 bytes).
fn keys(rng: &mut StdRng) -> Vec<Vec<u8>> {
    let single = random_bytes(rng, 8);
    vec![
        random_bytes(rng, 24),
        random_bytes(rng, 16),
        [single.clone(), single.clone(), single].concat(),
    ]
}

#[test]
fn short_calls_match_des() {
    let mut rng = StdRng::seed_from_u64(0x7ab1_e001);
    for _ in 0..20 {
        for key in keys(&mut rng) {
            let ours = Tdes::new(&key).unwrap();
            let (enc, dec) = reference(&key);
            for blocks in 1..BITSLICE_MIN_BLOCKS {
                let pt = random_bytes(&mut rng, blocks * 8);
                let expect: Vec<u8> = pt.chunks(8).flat_map(&enc).collect();
                let mut data = pt.clone();
                ours.encrypt_blocks(&mut data);
                assert_eq!(
                    data,
                    expect,
                    "encrypt, key {} B, {blocks} blocks",
                    key.len()
                );
                ours.decrypt_blocks(&mut data);
                assert_eq!(data, pt, "round trip, {blocks} blocks");

                let ct = random_bytes(&mut rng, blocks * 8);
                let expect: Vec<u8> = ct.chunks(8).flat_map(&dec).collect();
                let mut data = ct.clone();
                ours.decrypt_blocks(&mut data);
                assert_eq!(
                    data,
                    expect,
                    "decrypt, key {} B, {blocks} blocks",
                    key.len()
                );
            }
        }
    }
}

fn xor8(a: &[u8], b: &[u8]) -> [u8; 8] {
    std::array::from_fn(|i| a[i] ^ b[i])
}

#[test]
fn feedback_chains_match_des() {
    let mut rng = StdRng::seed_from_u64(0x7ab1_e002);
    for _ in 0..10 {
        for key in keys(&mut rng) {
            let ours = Tdes::new(&key).unwrap();
            let (enc, _) = reference(&key);
            for blocks in (0..=20).chain([rng.gen_range(21..200)]) {
                let iv = random_bytes(&mut rng, 8);
                let pt = random_bytes(&mut rng, blocks * 8);

                // The reference chains, block by block.
                let (mut cbc, mut cfb, mut ofb) = (Vec::new(), Vec::new(), Vec::new());
                let (mut r_cbc, mut r_cfb, mut r_ofb) = ([0u8; 8], [0u8; 8], [0u8; 8]);
                r_cbc.copy_from_slice(&iv);
                r_cfb.copy_from_slice(&iv);
                r_ofb.copy_from_slice(&iv);
                for b in pt.chunks(8) {
                    r_cbc = enc(&xor8(&r_cbc, b));
                    cbc.extend_from_slice(&r_cbc);
                    r_cfb = xor8(&enc(&r_cfb), b);
                    cfb.extend_from_slice(&r_cfb);
                    r_ofb = enc(&r_ofb);
                    ofb.extend_from_slice(&xor8(&r_ofb, b));
                }

                let run = |make: &dyn Fn(&mut [u8]) -> Chain<'_>| {
                    let mut register = iv.clone();
                    let mut data = pt.clone();
                    assert!(ours.feedback_chain(&mut register, make(&mut data)));
                    (register, data)
                };
                let (reg, data) = run(&|d| Chain::CbcEncrypt(d));
                assert_eq!(
                    (reg.as_slice(), data),
                    (&r_cbc[..], cbc),
                    "CBC, {blocks} blocks"
                );
                let (reg, data) = run(&|d| Chain::CfbEncrypt(d));
                assert_eq!(
                    (reg.as_slice(), data),
                    (&r_cfb[..], cfb),
                    "CFB, {blocks} blocks"
                );
                let (reg, data) = run(&|d| Chain::Ofb(d));
                assert_eq!(
                    (reg.as_slice(), data),
                    (&r_ofb[..], ofb),
                    "OFB, {blocks} blocks"
                );
                let mut register = iv.clone();
                assert!(ours.feedback_chain(&mut register, Chain::CbcMac(&pt)));
                assert_eq!(register, r_cbc, "CBC-MAC, {blocks} blocks");
            }
        }
    }
}

#[test]
fn feedback_chain_declines_partial_blocks_and_odd_registers() {
    let ours = Tdes::new(&[0x5a; 24]).unwrap();
    let mut data = [1u8; 12];
    let mut register = [2u8; 8];
    assert!(!ours.feedback_chain(&mut register, Chain::CbcEncrypt(&mut data)));
    assert_eq!((data, register), ([1u8; 12], [2u8; 8]));
    let mut data = [1u8; 16];
    let mut long_register = [2u8; 16];
    assert!(!ours.feedback_chain(&mut long_register, Chain::Ofb(&mut data)));
    assert_eq!((data, long_register), ([1u8; 16], [2u8; 16]));
}
