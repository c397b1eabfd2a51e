//! Triple DES / TDEA (NIST SP 800-67): `C = E_K3(D_K2(E_K1(P)))`, decryption the inverse, with DES
//! as specified in FIPS 46-3 (implemented in `soft.rs`).
//!
//! Keys: 24 bytes `K1 || K2 || K3` (keying option 1; option 2 when K3 = K1) or 16 bytes `K1 || K2`
//! (keying option 2, K3 = K1). Parity bits are ignored, as in FIPS 46-3. Weak or equal subkeys are
//! not rejected (K1 = K2 = K3 is single DES), matching common implementations.
//!
//! Two implementations, chosen per call by the number of blocks:
//!
//! - Calls with at least [`BITSLICE_MIN_BLOCKS`] blocks (ECB batches, CTR key stream — made in
//!   batches of the backend's full width by [`BlockCipher::ctr_xor`] — CBC
//!   decryption) and multi-stream calls with at least that many lanes run the **bitsliced** DES of
//!   `bitsliced.rs`: 64 blocks per `u64` word, S-boxes as Boolean circuits, **constant-time** (no
//!   secret-indexed memory, no secret-dependent branches). The word width is the backend's:
//!   portable `u64` (64 blocks per batch), AVX2 (256) or AVX-512 (512), chosen through
//!   [`cpu::select`] (`SHIFR_BACKEND=portable|avx2|avx512` forces one).
//! - Calls with fewer blocks, and the single-stream feedback chains (CBC encryption, CFB, OFB, the
//!   CBC-MAC of OMAC: each block needs the previous one's output, so there is no batch to slice),
//!   run the table DES of `soft.rs`, whose S-box lookups are indexed by key and data (secret-indexed
//!   tables, 2 KiB): that path is **not constant-time** against cache-timing attacks. The chains go
//!   through [`BlockCipher::feedback_chain`], which keeps the chaining value in a register.
//!
//! Round keys and key bits are zeroized on drop.

mod algorithm;
mod bitsliced;
mod soft;
#[cfg(target_arch = "x86_64")]
mod x86_avx2;
#[cfg(target_arch = "x86_64")]
mod x86_avx512;

use crate::block::{BlockCipher, Chain, KeyInit};
use crate::cpu::{self, Backend, Primitive};
use crate::mode::ctr::fill_keystream;
use crate::{util, Error, Result};
pub use algorithm::TdesAlgorithm;
use bitsliced::Keys;
use soft::Schedule;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

/// Calls (or multi-stream calls) with at least this many blocks use the constant-time bitsliced
/// path; below it one bitsliced batch costs more than the table DES for the few blocks. A batch
/// costs about the same on every width (64 lanes portable, 256 AVX2, 512 AVX-512: 8-10 us on an
/// AMD Zen 4, `shifr bench --alg des-ede3-ecb --backend B` at 128 B-2 KiB), the table DES about
/// 0.13 us a block, so they break even near 60 blocks; 48 keeps a margin for CPUs whose tables are
/// slower.
pub const BITSLICE_MIN_BLOCKS: usize = 48;

/// The backends 3DES offers besides the portable one.
const OFFERED: &[Backend] = &[Backend::Avx2, Backend::Avx512];

/// A TDEA key: the round keys of the three DES operations, for each direction.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct Tdes {
    /// Packed round keys of the table path for E_K1, D_K2, E_K3: K1 forward, K2 reversed, K3
    /// forward.
    enc: [Schedule; 3],
    /// D_K3, E_K2, D_K1.
    dec: [Schedule; 3],
    /// K1, K2, K3 as big-endian integers, for the bitsliced path (which derives its round keys
    /// by renaming key bits).
    keys: [u64; 3],
    /// 1 or 2 (SP 800-67 keying option).
    option: u8,
    /// Word width of the bitsliced path.
    #[zeroize(skip)]
    backend: Backend,
    /// The width for calls of at most `short_max` bytes (the CPU's plan; a narrower batch wins on
    /// CPUs that split 512-bit instructions, such as AMD Zen 4).
    #[zeroize(skip)]
    short: Backend,
    #[zeroize(skip)]
    short_max: usize,
}

impl Tdes {
    /// Creates the cipher from `K1 || K2` (16 bytes) or `K1 || K2 || K3` (24 bytes).
    ///
    /// Error: [`Error::InvalidKeyLength`] for any other length.
    pub fn new(key: &[u8]) -> Result<Tdes> {
        let plan = Tdes::plan();
        let mut tdes = Tdes::with_backend(key, plan.bulk)?;
        (tdes.short, tdes.short_max) = (plan.short, plan.short_max);
        Ok(tdes)
    }

    /// The backends new keys take on this CPU, and why ([`cpu::plan`]).
    pub fn plan() -> cpu::Plan {
        cpu::plan(Primitive::Tdes, OFFERED)
    }

    /// Like [`Tdes::new`] with an explicit backend (portable, avx2 or avx512) for the bitsliced path.
    ///
    /// Errors: [`Error::InvalidKeyLength`]; [`Error::BackendUnavailable`] when 3DES has no such
    /// backend or this CPU cannot run it.
    pub fn with_backend(key: &[u8], backend: Backend) -> Result<Tdes> {
        let backend = cpu::require(backend, OFFERED)?;
        let (k1, k2, k3) = match key.len() {
            16 => (&key[..8], &key[8..16], &key[..8]),
            24 => (&key[..8], &key[8..16], &key[16..24]),
            got => {
                return Err(Error::InvalidKeyLength {
                    expected: "16 or 24",
                    got,
                })
            }
        };
        let schedule = |k: &[u8]| {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(k);
            let ks = soft::schedule(&bytes);
            bytes.zeroize();
            ks
        };
        let word = |k: &[u8]| {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(k);
            let w = u64::from_be_bytes(bytes);
            bytes.zeroize();
            w
        };
        let (mut ks1, mut ks2, mut ks3) = (schedule(k1), schedule(k2), schedule(k3));
        let tdes = Tdes {
            enc: [ks1, soft::reversed(&ks2), ks3],
            dec: [soft::reversed(&ks3), ks2, soft::reversed(&ks1)],
            keys: [word(k1), word(k2), word(k3)],
            option: if util::ct_eq(k1, k3) { 2 } else { 1 },
            backend,
            short: backend,
            short_max: 0,
        };
        ks1.zeroize();
        ks2.zeroize();
        ks3.zeroize();
        Ok(tdes)
    }

    /// The SP 800-67 keying option: 1 (three distinct keys) or 2 (K3 = K1).
    pub fn keying_option(&self) -> u8 {
        self.option
    }

    /// The backend of the bitsliced path.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The keys in the order a direction applies them (decryption: K3, K2, K1).
    fn ordered_keys(&self, decrypt: bool) -> [u64; 3] {
        let [k1, k2, k3] = self.keys;
        if decrypt {
            [k3, k2, k1]
        } else {
            [k1, k2, k3]
        }
    }

    fn crypt(&self, data: &mut [u8], decrypt: bool) {
        let blocks = data.len() / 8;
        let data = &mut data[..blocks * 8];
        if blocks < BITSLICE_MIN_BLOCKS {
            let schedules = if decrypt { &self.dec } else { &self.enc };
            soft::crypt_blocks(data, schedules);
            return;
        }
        let backend = if data.len() <= self.short_max {
            self.short
        } else {
            self.backend
        };
        let mut keys = self.ordered_keys(decrypt);
        bitsliced_ecb(backend, data, &keys, decrypt);
        keys.zeroize();
    }

    fn crypt_lanes(ciphers: &[&Tdes], blocks: &mut [u8], decrypt: bool) {
        let lanes = ciphers.len().min(blocks.len() / 8);
        let Some(first) = ciphers.first() else {
            return;
        };
        if lanes < BITSLICE_MIN_BLOCKS {
            for (c, block) in ciphers.iter().zip(blocks.chunks_exact_mut(8)) {
                c.crypt(block, decrypt);
            }
            return;
        }
        let keys: Zeroizing<Vec<[u64; 3]>> = Zeroizing::new(
            ciphers[..lanes]
                .iter()
                .map(|c| c.ordered_keys(decrypt))
                .collect(),
        );
        bitsliced_lanes(first.backend, &mut blocks[..lanes * 8], &keys, decrypt);
    }
}

/// Words per slice (64 blocks each) of the bitsliced widths a backend uses, widest first.
/// The vector backends use only their own width: a 64-lane `u64` batch spills the 16 general
/// registers, so it costs more than one 256-lane AVX2 batch (16 vector registers, no spill of the
/// state) or one 512-lane AVX-512 batch (32 registers, three-input logic). On Intel cores a
/// 512-lane batch costs no more than a 256-lane one; on AMD Zen 4, which splits 512-bit
/// instructions, it costs about 1.4 of them, so there the CPU's plan sends calls of up to one
/// AVX2 batch (2 KiB) to AVX2 (des-ede3-ecb 2 KiB: AVX2 252 MB/s, AVX-512 210).
fn widths(backend: Backend) -> &'static [usize] {
    match backend {
        Backend::Avx512 => &[8],
        Backend::Avx2 => &[4],
        _ => &[1],
    }
}

/// Runs `run(width, part, first_block)` over `data` in batches: full batches of the widest width
/// while more than one remains, then one batch of the narrowest width that holds all the rest.
/// A batch costs about the same at every width (the circuit is the same number of word
/// operations), so the remainder takes one batch, never several narrow ones: 300 blocks on
/// AVX-512 are one 512-lane batch, not four 64-lane ones plus a 44-lane one.
fn by_width(backend: Backend, data: &mut [u8], mut run: impl FnMut(usize, &mut [u8], usize)) {
    let all = widths(backend);
    let mut done = 0;
    while done < data.len() {
        let left = (data.len() - done) / 8;
        let n = all
            .iter()
            .rev()
            .copied()
            .find(|&n| 64 * n >= left)
            .unwrap_or(all[0]);
        let take = (64 * n).min(left) * 8;
        run(n, &mut data[done..done + take], done / 8);
        done += take;
    }
}

fn bitsliced_ecb(backend: Backend, data: &mut [u8], keys: &[u64; 3], decrypt: bool) {
    by_width(backend, data, |n, part, _| {
        bitsliced_width(n, part, Keys::Single(keys), decrypt)
    });
}

fn bitsliced_lanes(backend: Backend, data: &mut [u8], keys: &[[u64; 3]], decrypt: bool) {
    by_width(backend, data, |n, part, first| {
        let keys = &keys[first..first + part.len() / 8];
        bitsliced_width(n, part, Keys::PerBlock(keys), decrypt)
    });
}

/// The bitsliced code compiled for `n` words per slice.
fn bitsliced_width(n: usize, data: &mut [u8], keys: Keys<'_>, decrypt: bool) {
    match n {
        #[cfg(target_arch = "x86_64")]
        8 => x86_avx512::crypt(data, keys, decrypt),
        #[cfg(target_arch = "x86_64")]
        4 => x86_avx2::crypt(data, keys, decrypt),
        _ => bitsliced::crypt::<1>(data, keys, decrypt),
    }
}

impl BlockCipher for Tdes {
    fn block_size(&self) -> usize {
        8
    }

    fn encrypt_blocks(&self, data: &mut [u8]) {
        self.crypt(data, false);
    }

    fn decrypt_blocks(&self, data: &mut [u8]) {
        self.crypt(data, true);
    }

    fn encrypt_lanes(ciphers: &[&Self], blocks: &mut [u8]) {
        Tdes::crypt_lanes(ciphers, blocks, false);
    }

    fn decrypt_lanes(ciphers: &[&Self], blocks: &mut [u8]) {
        Tdes::crypt_lanes(ciphers, blocks, true);
    }

    /// The single-stream chains on the table DES with the chaining value in a register (see the
    /// module documentation: not constant-time). Declines a register that is not one block or a
    /// chain that is not whole blocks.
    fn feedback_chain(&self, register: &mut [u8], chain: Chain<'_>) -> bool {
        let Ok(register) = <&mut [u8; 8]>::try_from(register) else {
            return false;
        };
        if !chain.len().is_multiple_of(8) || matches!(chain, Chain::Cfb8Encrypt(_)) {
            return false;
        }
        let ks = &self.enc;
        let mut r = u64::from_be_bytes(*register);
        match chain {
            Chain::CbcEncrypt(data) => {
                for block in data.as_chunks_mut::<8>().0 {
                    r = soft::crypt_word(r ^ u64::from_be_bytes(*block), ks);
                    *block = r.to_be_bytes();
                }
            }
            Chain::CfbEncrypt(data) => {
                for block in data.as_chunks_mut::<8>().0 {
                    r = soft::crypt_word(r, ks) ^ u64::from_be_bytes(*block);
                    *block = r.to_be_bytes();
                }
            }
            Chain::CbcMac(data) => {
                for block in data.as_chunks::<8>().0 {
                    r = soft::crypt_word(r ^ u64::from_be_bytes(*block), ks);
                }
            }
            Chain::Ofb(data) => {
                for block in data.as_chunks_mut::<8>().0 {
                    r = soft::crypt_word(r, ks);
                    *block = (u64::from_be_bytes(*block) ^ r).to_be_bytes();
                }
            }
            Chain::Cfb8Encrypt(_) => {}
        }
        *register = r.to_be_bytes();
        true
    }

    /// CTR with key-stream batches as wide as the bitsliced backend (512 blocks on AVX-512), not
    /// the generic mode's 64-block batches, which would leave most of a wide batch empty. Messages
    /// shorter than [`BITSLICE_MIN_BLOCKS`] blocks take the generic path (the table DES), as before;
    /// a longer message's last batch is padded to that many counter blocks so that it, too, runs
    /// bitsliced (constant-time) rather than through the tables.
    fn ctr_xor(&self, counter: &mut [u8], data: &mut [u8]) -> bool {
        let Ok(start) = <[u8; 8]>::try_from(&*counter) else {
            return false;
        };
        if data.len().div_ceil(8) < BITSLICE_MIN_BLOCKS {
            return false;
        }
        let batch_blocks = 64 * widths(self.backend)[0];
        let mut value = u64::from_be_bytes(start);
        let mut keystream = [0u8; CTR_BATCH_BLOCKS * 8];
        let mut used = 0;
        for chunk in data.chunks_mut(batch_blocks * 8) {
            let blocks = chunk.len().div_ceil(8);
            let ks = &mut keystream[..blocks.max(BITSLICE_MIN_BLOCKS) * 8];
            // The counter advances by the blocks used, not by the padding enciphered beyond them.
            fill_keystream(self, &mut value.to_be_bytes(), ks);
            util::xor_in_place(chunk, ks);
            used = used.max(ks.len());
            value = value.wrapping_add(blocks as u64);
        }
        keystream[..used].zeroize();
        counter.copy_from_slice(&value.to_be_bytes());
        true
    }
}

/// Key-stream blocks per [`Tdes::ctr_xor`] batch at the widest backend (AVX-512: 8 words of 64).
const CTR_BATCH_BLOCKS: usize = 64 * 8;

impl KeyInit for Tdes {
    const KEY_SIZES: &'static [usize] = &[16, 24];

    fn new_from_slice(key: &[u8]) -> Result<Tdes> {
        Tdes::new(key)
    }

    fn rekey(&self, key: &[u8]) -> Result<Tdes> {
        let mut tdes = Tdes::with_backend(key, self.backend)?;
        (tdes.short, tdes.short_max) = (self.short, self.short_max);
        Ok(tdes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A plan that sends short calls to the AVX2 width under an AVX-512 key gives the portable
    /// bytes on either side of its bound (skipped where the CPU lacks AVX-512).
    #[test]
    fn short_calls_on_the_narrower_width_match_portable() {
        if !(Backend::Avx512.is_supported() && Backend::Avx2.is_supported()) {
            return;
        }
        let key: Vec<u8> = (0u8..24).map(|i| i.wrapping_mul(53) ^ 0xa5).collect();
        let portable = Tdes::with_backend(&key, Backend::Portable).unwrap();
        let mut planned = Tdes::with_backend(&key, Backend::Avx512).unwrap();
        (planned.short, planned.short_max) = (Backend::Avx2, 2048);
        for blocks in [16usize, 17, 64, 200, 255, 256, 257, 300, 512, 600] {
            let data: Vec<u8> = (0..blocks * 8).map(|i| (i * 11 + 5) as u8).collect();
            let mut expected = data.clone();
            portable.crypt(&mut expected, false);
            let mut got = data.clone();
            planned.crypt(&mut got, false);
            assert_eq!(got, expected, "{blocks} blocks");
            planned.crypt(&mut got, true);
            assert_eq!(got, data, "{blocks} blocks, decrypt");
        }
    }

    /// The tdes* records of /work/shared/vectors/std.txt (SP 800-67 B.1 ECB; CAVP TCBCMMT3 CBC and
    /// TOFBMMT2 OFB, encrypt direction), copied verbatim below; returns (name, mode, fields).
    fn records() -> Vec<(String, String, BTreeMap<String, Vec<u8>>)> {
        let mut out = Vec::new();
        for chunk in STD_RECORDS.split("\n\n").filter(|c| c.contains(" = ")) {
            let name = chunk.trim().lines().next().unwrap().to_string();
            let mut mode = String::new();
            let mut fields = BTreeMap::new();
            for line in chunk
                .lines()
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
            {
                let (k, v) = line.split_once('=').unwrap();
                match k.trim() {
                    "cipher" => assert_eq!(v.trim(), "tdes"),
                    "mode" => mode = v.trim().to_string(),
                    k => {
                        fields.insert(k.to_string(), hex::decode(v.trim()).unwrap());
                    }
                }
            }
            out.push((name, mode, fields));
        }
        assert_eq!(out.len(), 9);
        out
    }

    /// CBC over whole blocks, written out here so the record can be checked without the modes.
    fn cbc(c: &Tdes, iv: &[u8], data: &mut [u8], encrypt: bool) {
        let mut chain = iv.to_vec();
        for block in data.chunks_exact_mut(8) {
            if encrypt {
                util::xor_in_place(block, &chain);
                c.encrypt_blocks(block);
                chain.copy_from_slice(block);
            } else {
                let next = block.to_vec();
                c.decrypt_blocks(block);
                util::xor_in_place(block, &chain);
                chain = next;
            }
        }
    }

    /// OFB: the register is encrypted repeatedly and XORed into the data.
    fn ofb(c: &Tdes, iv: &[u8], data: &mut [u8]) {
        let mut register = iv.to_vec();
        for block in data.chunks_mut(8) {
            c.encrypt_blocks(&mut register);
            util::xor_in_place(block, &register);
        }
    }

    #[test]
    fn sp800_67_and_cavp_records() {
        for (name, mode, mut f) in records() {
            let key = f.remove("key").unwrap();
            let pt = f.remove("pt").unwrap();
            let ct = f.remove("ct").unwrap();
            let iv = f.remove("iv");
            assert!(f.is_empty(), "{name}: unchecked fields {:?}", f.keys());

            let mut ciphers = vec![Tdes::new(&key).unwrap()];
            if key[..8] == key[16..] {
                // A 2-key record: the 16-byte form of the same key must agree.
                ciphers.push(Tdes::new(&key[..16]).unwrap());
                assert!(ciphers.iter().all(|c| c.keying_option() == 2), "{name}");
            } else {
                assert_eq!(ciphers[0].keying_option(), 1, "{name}");
            }
            for c in &ciphers {
                let mut data = pt.clone();
                match mode.as_str() {
                    "ecb" => {
                        assert!(iv.is_none());
                        c.encrypt_blocks(&mut data);
                        assert_eq!(data, ct, "{name} encrypt");
                        c.decrypt_blocks(&mut data);
                    }
                    "cbc" => {
                        let iv = iv.as_ref().unwrap();
                        cbc(c, iv, &mut data, true);
                        assert_eq!(data, ct, "{name} encrypt");
                        cbc(c, iv, &mut data, false);
                    }
                    "ofb" => {
                        let iv = iv.as_ref().unwrap();
                        ofb(c, iv, &mut data);
                        assert_eq!(data, ct, "{name} encrypt");
                        ofb(c, iv, &mut data);
                    }
                    other => panic!("{name}: unexpected mode {other}"),
                }
                assert_eq!(data, pt, "{name} decrypt");
            }
        }
    }

    #[test]
    fn key_lengths() {
        for n in [0, 8, 15, 17, 23, 25, 32] {
            assert!(matches!(
                Tdes::new(&vec![0u8; n]),
                Err(Error::InvalidKeyLength { got, .. }) if got == n
            ));
        }
        assert_eq!(<Tdes as KeyInit>::KEY_SIZES, &[16, 24]);
        let c = Tdes::new_from_slice(&[1u8; 24]).unwrap();
        assert_eq!(c.block_size(), 8);
        // Trailing bytes that do not fill a block are left alone.
        let mut data = [7u8; 11];
        c.encrypt_blocks(&mut data);
        assert_eq!(&data[8..], &[7u8; 3]);
        assert_ne!(&data[..8], &[7u8; 8]);
    }

    const STD_RECORDS: &str = r#"
# tdes3-ecb-sp800-67-b1 / NIST SP 800-67 (Rev. 1) Appendix B, TDEA ECB example
#   3-key TDEA (keying option 1): key = K1 || K2 || K3 = 0123456789abcdef || 23456789abcdef01 || 456789abcdef0123; C = E_K3(D_K2(E_K1(P)))
#   pt = "The qufck brown fox jump" (the standard's spelling), 3 blocks, ECB
#   SP 800-67 text itself not available here; values read from Legrandin/pycryptodome SelfTest/Cipher/test_DES3.py ('NIST SP800-67 B.1')
cipher = tdes
mode = ecb
key = 0123456789abcdef23456789abcdef01456789abcdef0123
pt = 54686520717566636b2062726f776e20666f78206a756d70
ct = a826fd8ce53b855fcce21c8112256fe668d5c05dd9b6b900

# tdes3-cbc-cavp-tcbcmmt3-enc0 / NIST CAVP TDES Multi-block Message Test TCBCMMT3.rsp (CAVS 11.1), [ENCRYPT] COUNT = 0
#   3-key TDEA (keying option 1, K1, K2, K3 distinct); key = KEY1 || KEY2 || KEY3
#   1-block message; values read from pyca/cryptography vectors/cryptography_vectors/ciphers/3DES/CBC/TCBCMMT3.rsp (commit 3af7061a66c8a6ed73c6073dc112c3a139c1ad84)
cipher = tdes
mode = cbc
key = b5cb1504802326c73df186e3e352a20de643b0d63ee30e37
iv = 43f791134c5647ba
pt = dcc153cef81d6f24
ct = 92538bd8af18d3ba

# tdes3-cbc-cavp-tcbcmmt3-enc1 / NIST CAVP TDES Multi-block Message Test TCBCMMT3.rsp (CAVS 11.1), [ENCRYPT] COUNT = 1
#   3-key TDEA (keying option 1, K1, K2, K3 distinct); key = KEY1 || KEY2 || KEY3
#   2-block message; values read from pyca/cryptography vectors/cryptography_vectors/ciphers/3DES/CBC/TCBCMMT3.rsp (commit 3af7061a66c8a6ed73c6073dc112c3a139c1ad84)
cipher = tdes
mode = cbc
key = a49d7564199e97cb529d2c9d97bf2f98d35edf57ba1f7358
iv = c2e999cb6249023c
pt = c689aee38a301bb316da75db36f110b5
ct = e9afaba5ec75ea1bbe65506655bb4ecb

# tdes3-cbc-cavp-tcbcmmt3-enc2 / NIST CAVP TDES Multi-block Message Test TCBCMMT3.rsp (CAVS 11.1), [ENCRYPT] COUNT = 2
#   3-key TDEA (keying option 1, K1, K2, K3 distinct); key = KEY1 || KEY2 || KEY3
#   3-block message; values read from pyca/cryptography vectors/cryptography_vectors/ciphers/3DES/CBC/TCBCMMT3.rsp (commit 3af7061a66c8a6ed73c6073dc112c3a139c1ad84)
cipher = tdes
mode = cbc
key = 1a5d4c0825072a15a8ad9dfdaeda8c048adffb85bc4fced0
iv = 7fcfa736f7548b6f
pt = 983c3edacd939406010e1bc6ff9e12320ac5008117fa8f84
ct = d84fa24f38cf451ca2c9adc960120bd8ff9871584fe31cee

# tdes3-cbc-cavp-tcbcmmt3-enc3 / NIST CAVP TDES Multi-block Message Test TCBCMMT3.rsp (CAVS 11.1), [ENCRYPT] COUNT = 3
#   3-key TDEA (keying option 1, K1, K2, K3 distinct); key = KEY1 || KEY2 || KEY3
#   4-block message; values read from pyca/cryptography vectors/cryptography_vectors/ciphers/3DES/CBC/TCBCMMT3.rsp (commit 3af7061a66c8a6ed73c6073dc112c3a139c1ad84)
cipher = tdes
mode = cbc
key = d98aadc76d4a3716158c32866efbb9ce834af2297379a49d
iv = 3c5220327c502b44
pt = 6174079dda53ca723ebf00a66837f8d5ce648c08acaa5ee45ffe62210ef79d3e
ct = f5bd4d600bed77bec78409e3530ebda1d815506ed53103015b87e371ae000958

# tdes2-ofb-cavp-tofbmmt2-enc0 / NIST CAVP TDES Multi-block Message Test TOFBMMT2.rsp (CAVS 11.1), [ENCRYPT] COUNT = 0
#   2-key TDEA (keying option 2, K3 = K1); key = KEY1 || KEY2 || KEY3 (24 bytes, last 8 repeat the first 8)
#   1-block message; values read from pyca/cryptography vectors/cryptography_vectors/ciphers/3DES/OFB/TOFBMMT2.rsp (commit 8573916ba3ea3b403f51ec4de4051db09fa91cda)
cipher = tdes
mode = ofb
key = f2b546fbd6d3dfa4ba2c26ba255e7a3ef2b546fbd6d3dfa4
iv = d88bb3a7f539d7f1
pt = 824cec4211ddc264
ct = c5f4ff499dfa5de8

# tdes2-ofb-cavp-tofbmmt2-enc1 / NIST CAVP TDES Multi-block Message Test TOFBMMT2.rsp (CAVS 11.1), [ENCRYPT] COUNT = 1
#   2-key TDEA (keying option 2, K3 = K1); key = KEY1 || KEY2 || KEY3 (24 bytes, last 8 repeat the first 8)
#   2-block message; values read from pyca/cryptography vectors/cryptography_vectors/ciphers/3DES/OFB/TOFBMMT2.rsp (commit 8573916ba3ea3b403f51ec4de4051db09fa91cda)
cipher = tdes
mode = ofb
key = 378c89d3b09170802af18013c2ef6210378c89d3b0917080
iv = 007817d4bbdc69a1
pt = 168260d5faed24b9f73aae088a477528
ct = cfd4e0fadf100f3aa5eec0b30084df47

# tdes2-ofb-cavp-tofbmmt2-enc2 / NIST CAVP TDES Multi-block Message Test TOFBMMT2.rsp (CAVS 11.1), [ENCRYPT] COUNT = 2
#   2-key TDEA (keying option 2, K3 = K1); key = KEY1 || KEY2 || KEY3 (24 bytes, last 8 repeat the first 8)
#   3-block message; values read from pyca/cryptography vectors/cryptography_vectors/ciphers/3DES/OFB/TOFBMMT2.rsp (commit 8573916ba3ea3b403f51ec4de4051db09fa91cda)
cipher = tdes
mode = ofb
key = 61866e1c86d57a541301734c5dc86dae61866e1c86d57a54
iv = d0ddad02a219226d
pt = d5db2469ae56ecac5164195ed161eccc1720368f2726c060
ct = 4821c0ca2de3bb2b982c7bd9cbe6a44a714d5c0a85b44e0f

# tdes2-ofb-cavp-tofbmmt2-enc3 / NIST CAVP TDES Multi-block Message Test TOFBMMT2.rsp (CAVS 11.1), [ENCRYPT] COUNT = 3
#   2-key TDEA (keying option 2, K3 = K1); key = KEY1 || KEY2 || KEY3 (24 bytes, last 8 repeat the first 8)
#   4-block message; values read from pyca/cryptography vectors/cryptography_vectors/ciphers/3DES/OFB/TOFBMMT2.rsp (commit 8573916ba3ea3b403f51ec4de4051db09fa91cda)
cipher = tdes
mode = ofb
key = 7c85a4805ee5a75115e052a80e4f2fda7c85a4805ee5a751
iv = e76486c2d6309193
pt = 1c5f01506fdc6d9d12959279db600005fbf7966f769e9bb8d7060abb21702c6b
ct = a06a876b4343c15f282e6cbd4acdceab0b822a4bef9950565d4ddea10d89f3bb
"#;
}
