//! GOST 28147-89 modes exactly as the OpenSSL GOST engine (`gost89`, `gost89-cnt`, `gost89-cnt-12`)
//! produces them: CFB and the counter ("gamming", CNT) mode of GOST 28147-89 / RFC 5830, both with the
//! optional CryptoPro key meshing of RFC 4357 section 2.3.2.
//!
//! The cipher must follow the GOST 28147-89 byte conventions (little-endian key words, block halves
//! `n1 = block[0..4]`, `n2 = block[4..8]` read little-endian), e.g. `block::magma::Gost28147`. Which
//! S-box the OpenSSL names use is decided by the caller when keying the cipher:
//!
//! | OpenSSL name     | mode here                         | S-box (engine default)            |
//! |------------------|-----------------------------------|-----------------------------------|
//! | `gost89`         | [`Gost89Cfb`], CryptoPro meshing  | TC26 Z (`CRYPT_PARAMS` may change it) |
//! | `gost89-cnt`     | [`Gost89Cnt`], CryptoPro meshing  | CryptoPro A, always               |
//! | `gost89-cnt-12`  | [`Gost89Cnt`], CryptoPro meshing  | TC26 Z, always                    |
//! | `gost89-cbc`     | plain CBC (`mode::cbc`), no meshing | TC26 Z (`CRYPT_PARAMS` may change it) |
//!
//! Key meshing: every [`MESHING_SECTION_BYTES`] bytes of gamma, before the next gamma block is made,
//! the key becomes the decryption of [`CRYPTOPRO_MESHING_KEY`] under the current key, and the feedback
//! register (CFB: the last ciphertext block; CNT: the counter state N3‖N4) is encrypted once under the
//! new key. The encryption of the IV that starts CNT does not count towards the section.
//!
//! Both modes stream: any split of the input over calls gives the same output. Secret-dependent table
//! lookups, if any, are those of the underlying block cipher.

use crate::block::{Chain, KeyInit};
use crate::wipe::wipe;
use crate::{Error, Result};
use zeroize::Zeroize;

/// Block size of GOST 28147-89 in bytes.
pub const BLOCK: usize = 8;

/// Bytes of gamma produced under one key before CryptoPro key meshing changes it (RFC 4357 2.3.2).
pub const MESHING_SECTION_BYTES: usize = 1024;

/// The CryptoPro key-meshing constant C of RFC 4357 section 2.3.2; the next key is D_K(C).
pub const CRYPTOPRO_MESHING_KEY: [u8; 32] = [
    0x69, 0x00, 0x72, 0x22, 0x64, 0xc9, 0x04, 0x23, 0x8d, 0x3a, 0xdb, 0x96, 0x46, 0xe9, 0x2a, 0xc4,
    0x18, 0xfe, 0xac, 0x94, 0x00, 0xed, 0x07, 0x12, 0xc0, 0x86, 0xdc, 0xc2, 0xef, 0x4c, 0xa9, 0x2b,
];

/// CNT constant C1, added to N4 modulo 2^32 - 1 (GOST 28147-89 section 3.1).
pub const CNT_C1: u32 = 0x0101_0104;

/// CNT constant C2, added to N3 modulo 2^32 (GOST 28147-89 section 3.1).
pub const CNT_C2: u32 = 0x0101_0101;

/// Gamma blocks generated per `encrypt_blocks` call where the mode allows batching.
const BATCH_BLOCKS: usize = 32;

/// Whether the key changes every [`MESHING_SECTION_BYTES`] bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeyMeshing {
    /// Plain GOST 28147-89 / RFC 5830: one key for the whole message.
    None,
    /// CryptoPro key meshing (RFC 4357 section 2.3.2), as every OpenSSL `gost89*` stream mode uses.
    #[default]
    CryptoPro,
}

/// The key that follows `cipher`'s key under CryptoPro key meshing: `D_K(C)` for the constant
/// [`CRYPTOPRO_MESHING_KEY`], keyed with the same parameters (S-box) as `cipher`.
pub fn cryptopro_next_key<C: KeyInit>(cipher: &C) -> Result<C> {
    check_block(cipher)?;
    let mut key = CRYPTOPRO_MESHING_KEY;
    cipher.decrypt_blocks(&mut key);
    let next = cipher.rekey(&key);
    key.zeroize();
    next
}

/// Encrypts `data` in place in GOST 28147-89 CFB mode (OpenSSL `gost89`).
pub fn cfb_encrypt<C: KeyInit>(
    cipher: &C,
    iv: &[u8],
    meshing: KeyMeshing,
    data: &mut [u8],
) -> Result<()> {
    Gost89Cfb::new(cipher, iv, meshing)?.encrypt(data)
}

/// Decrypts `data` in place in GOST 28147-89 CFB mode (OpenSSL `gost89 -d`).
pub fn cfb_decrypt<C: KeyInit>(
    cipher: &C,
    iv: &[u8],
    meshing: KeyMeshing,
    data: &mut [u8],
) -> Result<()> {
    Gost89Cfb::new(cipher, iv, meshing)?.decrypt(data)
}

/// Applies the GOST 28147-89 counter-mode gamma to `data` in place (OpenSSL `gost89-cnt`,
/// `gost89-cnt-12`); encryption and decryption are the same operation.
pub fn cnt_apply<C: KeyInit>(
    cipher: &C,
    iv: &[u8],
    meshing: KeyMeshing,
    data: &mut [u8],
) -> Result<()> {
    Gost89Cnt::new(cipher, iv, meshing)?.apply_keystream(data)
}

fn check_block<C: KeyInit>(cipher: &C) -> Result<()> {
    if cipher.block_size() == BLOCK {
        Ok(())
    } else {
        Err(Error::InvalidParameter(
            "GOST 28147-89 modes need a cipher with an 8-byte block",
        ))
    }
}

fn read_iv(iv: &[u8]) -> Result<[u8; BLOCK]> {
    iv.try_into().map_err(|_| Error::InvalidIvLength {
        expected: "8",
        got: iv.len(),
    })
}

/// The caller's cipher until the first key meshing, then the meshed one this stream owns.
enum CurrentKey<'a, C> {
    Caller(&'a C),
    Meshed(C),
}

/// The key in use and how much gamma it has produced in the current meshing section.
struct Sections<'a, C> {
    key: CurrentKey<'a, C>,
    meshing: KeyMeshing,
    /// Gamma bytes produced under `key`; only counted when meshing is on (then at most 1024).
    used: usize,
}

impl<'a, C: KeyInit> Sections<'a, C> {
    fn new(cipher: &'a C, meshing: KeyMeshing) -> Self {
        Self {
            key: CurrentKey::Caller(cipher),
            meshing,
            used: 0,
        }
    }

    fn cipher(&self) -> &C {
        match &self.key {
            CurrentKey::Caller(c) => c,
            CurrentKey::Meshed(c) => c,
        }
    }

    /// Called before each run of gamma blocks: at a section boundary, meshes the key and encrypts
    /// the feedback `register` under the new key (as the engine's `cryptopro_key_meshing` does).
    fn mesh_if_due(&mut self, register: &mut [u8; BLOCK]) -> Result<()> {
        if self.meshing == KeyMeshing::CryptoPro && self.used >= MESHING_SECTION_BYTES {
            let next = cryptopro_next_key(self.cipher())?;
            next.encrypt_blocks(register);
            self.key = CurrentKey::Meshed(next);
            self.used = 0;
        }
        Ok(())
    }

    /// How many gamma blocks the current key may still produce (call after `mesh_if_due`).
    fn blocks_left(&self) -> usize {
        match self.meshing {
            KeyMeshing::None => usize::MAX,
            KeyMeshing::CryptoPro => (MESHING_SECTION_BYTES - self.used) / BLOCK,
        }
    }

    fn record(&mut self, blocks: usize) {
        if self.meshing == KeyMeshing::CryptoPro {
            self.used += blocks * BLOCK;
        }
    }
}

/// Streaming GOST 28147-89 CFB (64-bit feedback) with optional CryptoPro key meshing.
///
/// `encrypt` and `decrypt` may be called any number of times with any lengths; the ciphertext byte
/// is what feeds back in both directions.
pub struct Gost89Cfb<'a, C: KeyInit> {
    sections: Sections<'a, C>,
    /// The block the next gamma is made from: the IV, then the latest whole ciphertext block,
    /// filled in byte by byte while a gamma block is in use.
    register: [u8; BLOCK],
    gamma: [u8; BLOCK],
    /// Bytes of `gamma` already used; `BLOCK` when a new gamma block is needed.
    pos: usize,
    batch: [u8; BATCH_BLOCKS * BLOCK],
    /// Bytes of `batch` ever written (wiped on drop).
    batch_dirty: usize,
}

impl<'a, C: KeyInit> Gost89Cfb<'a, C> {
    /// Starts a CFB stream; `iv` must be 8 bytes and `cipher` an 8-byte block cipher.
    pub fn new(cipher: &'a C, iv: &[u8], meshing: KeyMeshing) -> Result<Self> {
        check_block(cipher)?;
        Ok(Self {
            sections: Sections::new(cipher, meshing),
            register: read_iv(iv)?,
            gamma: [0; BLOCK],
            pos: BLOCK,
            batch: [0; BATCH_BLOCKS * BLOCK],
            batch_dirty: 0,
        })
    }

    /// Encrypts the next `data.len()` bytes of the stream in place. Whole blocks from a block
    /// boundary go through the cipher's chain kernel
    /// ([`crate::block::BlockCipher::feedback_chain`], which keeps the register in a vector
    /// register), one meshing section at a time, where it has one.
    pub fn encrypt(&mut self, data: &mut [u8]) -> Result<()> {
        let mut rest = data;
        while self.pos < BLOCK && !rest.is_empty() {
            let (byte, tail) = rest.split_at_mut(1);
            self.encrypt_byte(&mut byte[0]);
            rest = tail;
        }
        while rest.len() >= BLOCK {
            self.sections.mesh_if_due(&mut self.register)?;
            let blocks = (rest.len() / BLOCK).min(self.sections.blocks_left());
            let len = blocks * BLOCK;
            let chain = Chain::CfbEncrypt(&mut rest[..len]);
            if !self
                .sections
                .cipher()
                .feedback_chain(&mut self.register, chain)
            {
                break;
            }
            self.sections.record(blocks);
            rest = &mut core::mem::take(&mut rest)[len..];
        }
        for byte in rest.iter_mut() {
            if self.pos == BLOCK {
                self.next_gamma()?;
            }
            self.encrypt_byte(byte);
        }
        Ok(())
    }

    fn encrypt_byte(&mut self, byte: &mut u8) {
        *byte ^= self.gamma[self.pos];
        self.register[self.pos] = *byte;
        self.pos += 1;
    }

    /// Decrypts the next `data.len()` bytes of the stream in place. Whole blocks are batched: their
    /// gamma depends only on ciphertext that is already known.
    pub fn decrypt(&mut self, data: &mut [u8]) -> Result<()> {
        let mut rest = data;
        while self.pos < BLOCK && !rest.is_empty() {
            let (byte, tail) = rest.split_at_mut(1);
            self.decrypt_byte(&mut byte[0]);
            rest = tail;
        }
        while rest.len() >= BLOCK {
            self.sections.mesh_if_due(&mut self.register)?;
            let blocks = (rest.len() / BLOCK)
                .min(BATCH_BLOCKS)
                .min(self.sections.blocks_left());
            let len = blocks * BLOCK;
            let (chunk, tail) = rest.split_at_mut(len);
            self.batch_dirty = self.batch_dirty.max(len);
            self.batch[..BLOCK].copy_from_slice(&self.register);
            self.batch[BLOCK..len].copy_from_slice(&chunk[..len - BLOCK]);
            self.register.copy_from_slice(&chunk[len - BLOCK..]);
            self.sections
                .cipher()
                .encrypt_blocks(&mut self.batch[..len]);
            self.sections.record(blocks);
            for (d, g) in chunk.iter_mut().zip(&self.batch[..len]) {
                *d ^= g;
            }
            rest = tail;
        }
        for byte in rest.iter_mut() {
            if self.pos == BLOCK {
                self.next_gamma()?;
            }
            self.decrypt_byte(byte);
        }
        Ok(())
    }

    fn decrypt_byte(&mut self, byte: &mut u8) {
        self.register[self.pos] = *byte;
        *byte ^= self.gamma[self.pos];
        self.pos += 1;
    }

    fn next_gamma(&mut self) -> Result<()> {
        self.sections.mesh_if_due(&mut self.register)?;
        self.gamma = self.register;
        self.sections.cipher().encrypt_blocks(&mut self.gamma);
        self.sections.record(1);
        self.pos = 0;
        Ok(())
    }
}

impl<C: KeyInit> Drop for Gost89Cfb<'_, C> {
    fn drop(&mut self) {
        // Wide stores, and only as far as written: a short message's stream must not pay for
        // wiping a whole batch one volatile byte at a time.
        wipe(&mut self.register);
        wipe(&mut self.gamma);
        wipe(&mut self.batch[..self.batch_dirty]);
    }
}

/// Streaming GOST 28147-89 counter mode ("gamming", GOST 28147-89 section 3.1) with optional
/// CryptoPro key meshing.
///
/// The counter state N3‖N4 starts as E_K(IV); for each gamma block N3 += C2 (mod 2^32),
/// N4 += C1 (mod 2^32 - 1, as an end-around carry: the engine keeps 0xFFFFFFFF as it is), and the
/// gamma is E_K(N3‖N4), both words little-endian. Gamma is generated in batches.
pub struct Gost89Cnt<'a, C: KeyInit> {
    sections: Sections<'a, C>,
    /// The IV until the stream starts, then the counter state N3‖N4 of the latest gamma block.
    state: [u8; BLOCK],
    started: bool,
    keystream: [u8; BATCH_BLOCKS * BLOCK],
    /// Bytes of `keystream` ever written (wiped on drop).
    dirty: usize,
    /// Valid bytes in `keystream` and how many of them are used.
    filled: usize,
    pos: usize,
}

impl<'a, C: KeyInit> Gost89Cnt<'a, C> {
    /// Starts a counter-mode stream; `iv` must be 8 bytes and `cipher` an 8-byte block cipher.
    pub fn new(cipher: &'a C, iv: &[u8], meshing: KeyMeshing) -> Result<Self> {
        check_block(cipher)?;
        Ok(Self {
            sections: Sections::new(cipher, meshing),
            state: read_iv(iv)?,
            started: false,
            keystream: [0; BATCH_BLOCKS * BLOCK],
            dirty: 0,
            filled: 0,
            pos: 0,
        })
    }

    /// XORs the next `data.len()` bytes of gamma into `data`.
    pub fn apply_keystream(&mut self, data: &mut [u8]) -> Result<()> {
        let mut rest = data;
        while !rest.is_empty() {
            if self.pos == self.filled {
                let wanted = rest.len().div_ceil(BLOCK);
                self.refill(wanted)?;
            }
            let take = (self.filled - self.pos).min(rest.len());
            let (chunk, tail) = rest.split_at_mut(take);
            for (d, g) in chunk
                .iter_mut()
                .zip(&self.keystream[self.pos..self.pos + take])
            {
                *d ^= g;
            }
            self.pos += take;
            rest = tail;
        }
        Ok(())
    }

    /// Makes up to `wanted` (at most one batch, never across a meshing boundary) gamma blocks.
    fn refill(&mut self, wanted: usize) -> Result<()> {
        if !self.started {
            self.sections.cipher().encrypt_blocks(&mut self.state);
            self.started = true;
        }
        self.sections.mesh_if_due(&mut self.state)?;
        let blocks = wanted
            .clamp(1, BATCH_BLOCKS)
            .min(self.sections.blocks_left());
        let (mut n3, mut n4) = split_words(&self.state);
        for block in self.keystream[..blocks * BLOCK].chunks_exact_mut(BLOCK) {
            n3 = n3.wrapping_add(CNT_C2);
            n4 = add_mod_2_32_minus_1(n4, CNT_C1);
            block[..4].copy_from_slice(&n3.to_le_bytes());
            block[4..].copy_from_slice(&n4.to_le_bytes());
        }
        self.state
            .copy_from_slice(&self.keystream[(blocks - 1) * BLOCK..blocks * BLOCK]);
        self.sections
            .cipher()
            .encrypt_blocks(&mut self.keystream[..blocks * BLOCK]);
        self.sections.record(blocks);
        self.filled = blocks * BLOCK;
        self.dirty = self.dirty.max(self.filled);
        self.pos = 0;
        Ok(())
    }
}

impl<C: KeyInit> Drop for Gost89Cnt<'_, C> {
    fn drop(&mut self) {
        // As in `Gost89Cfb`: wide stores, only as far as written.
        wipe(&mut self.state);
        wipe(&mut self.keystream[..self.dirty]);
    }
}

fn split_words(block: &[u8; BLOCK]) -> (u32, u32) {
    let [a, b, c, d, e, f, g, h] = *block;
    (
        u32::from_le_bytes([a, b, c, d]),
        u32::from_le_bytes([e, f, g, h]),
    )
}

/// `a + b` with the carry out of bit 31 added back in: addition modulo 2^32 - 1 as GOST 28147-89
/// and the engine compute it (a result of 0xFFFFFFFF is not reduced to 0).
fn add_mod_2_32_minus_1(a: u32, b: u32) -> u32 {
    let (sum, carry) = a.overflowing_add(b);
    sum.wrapping_add(u32::from(carry))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::BlockCipher;

    /// A toy 8-byte "cipher" (XOR with the first key block, byte-rotated) that is enough to check
    /// the mode plumbing: streaming splits, batching and the meshing bookkeeping.
    struct Toy([u8; 32]);

    impl BlockCipher for Toy {
        fn block_size(&self) -> usize {
            8
        }
        fn encrypt_blocks(&self, data: &mut [u8]) {
            for b in data.chunks_exact_mut(8) {
                for (x, k) in b.iter_mut().zip(&self.0) {
                    *x = x.wrapping_add(*k) ^ 0x5a;
                }
                b.rotate_left(1);
            }
        }
        fn decrypt_blocks(&self, data: &mut [u8]) {
            for b in data.chunks_exact_mut(8) {
                b.rotate_right(1);
                for (x, k) in b.iter_mut().zip(&self.0) {
                    *x = (*x ^ 0x5a).wrapping_sub(*k);
                }
            }
        }
    }

    impl KeyInit for Toy {
        const KEY_SIZES: &'static [usize] = &[32];
        fn new_from_slice(key: &[u8]) -> Result<Self> {
            key.try_into()
                .map(Toy)
                .map_err(|_| Error::InvalidKeyLength {
                    expected: "32",
                    got: key.len(),
                })
        }
    }

    fn sample(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 7 + 3) as u8).collect()
    }

    #[test]
    fn modular_addition_keeps_all_ones() {
        assert_eq!(add_mod_2_32_minus_1(0xffff_fffe, 1), 0xffff_ffff);
        assert_eq!(add_mod_2_32_minus_1(0xffff_ffff, 1), 1);
        assert_eq!(add_mod_2_32_minus_1(0xffff_ffff, 0x0101_0104), 0x0101_0104);
        assert_eq!(add_mod_2_32_minus_1(5, 6), 11);
    }

    #[test]
    fn rejects_bad_iv_length() {
        let toy = Toy([1; 32]);
        let mut d = [0u8; 8];
        assert!(matches!(
            cfb_encrypt(&toy, &[0; 7], KeyMeshing::CryptoPro, &mut d),
            Err(Error::InvalidIvLength { got: 7, .. })
        ));
        assert!(matches!(
            cnt_apply(&toy, &[0; 16], KeyMeshing::None, &mut d),
            Err(Error::InvalidIvLength { got: 16, .. })
        ));
    }

    #[test]
    fn splits_do_not_change_output() {
        let toy = Toy(core::array::from_fn(|i| i as u8 * 3));
        let iv = [9u8, 8, 7, 6, 5, 4, 3, 2];
        for meshing in [KeyMeshing::None, KeyMeshing::CryptoPro] {
            let pt = sample(3001);
            let mut whole_cfb = pt.clone();
            cfb_encrypt(&toy, &iv, meshing, &mut whole_cfb).unwrap();
            let mut whole_cnt = pt.clone();
            cnt_apply(&toy, &iv, meshing, &mut whole_cnt).unwrap();
            for step in [1usize, 3, 8, 13, 1024, 1500] {
                let mut enc = Gost89Cfb::new(&toy, &iv, meshing).unwrap();
                let mut dec = Gost89Cfb::new(&toy, &iv, meshing).unwrap();
                let mut cnt = Gost89Cnt::new(&toy, &iv, meshing).unwrap();
                let (mut c, mut p, mut g) = (pt.clone(), whole_cfb.clone(), pt.clone());
                for ((a, b), e) in c
                    .chunks_mut(step)
                    .zip(p.chunks_mut(step))
                    .zip(g.chunks_mut(step))
                {
                    enc.encrypt(a).unwrap();
                    dec.decrypt(b).unwrap();
                    cnt.apply_keystream(e).unwrap();
                }
                assert_eq!(c, whole_cfb, "cfb encrypt, step {step}");
                assert_eq!(p, pt, "cfb decrypt, step {step}");
                assert_eq!(g, whole_cnt, "cnt, step {step}");
            }
        }
    }

    #[test]
    fn meshing_changes_only_bytes_after_the_first_section() {
        let toy = Toy(core::array::from_fn(|i| 100 + i as u8));
        let iv = [1u8; 8];
        let pt = sample(2100);
        let (mut a, mut b) = (pt.clone(), pt.clone());
        cfb_encrypt(&toy, &iv, KeyMeshing::None, &mut a).unwrap();
        cfb_encrypt(&toy, &iv, KeyMeshing::CryptoPro, &mut b).unwrap();
        assert_eq!(a[..1024], b[..1024]);
        assert_ne!(a[1024..1032], b[1024..1032]);
        let (mut a, mut b) = (pt.clone(), pt);
        cnt_apply(&toy, &iv, KeyMeshing::None, &mut a).unwrap();
        cnt_apply(&toy, &iv, KeyMeshing::CryptoPro, &mut b).unwrap();
        assert_eq!(a[..1024], b[..1024]);
        assert_ne!(a[1024..1032], b[1024..1032]);
    }

    #[test]
    fn next_key_is_the_decrypted_constant() {
        let toy = Toy([7; 32]);
        let next = cryptopro_next_key(&toy).unwrap();
        let mut expected = CRYPTOPRO_MESHING_KEY;
        toy.decrypt_blocks(&mut expected);
        assert_eq!(next.0, expected);
    }
}
