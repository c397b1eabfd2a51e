//! Magma (GOST R 34.12-2015, RFC 8891) and GOST 28147-89 (RFC 5830), with a selectable S-box set.
//!
//! Both are the same 64-bit Feistel cipher with a 256-bit key; they differ only in byte conventions:
//! - [`Magma`] follows GOST R 34.12-2015: the key is eight big-endian words K_1..K_8 and the block is
//!   `a_1 || a_0` with big-endian halves, exactly as RFC 8891 and GOST R 34.13-2015 print them.
//! - [`Gost28147`] follows GOST 28147-89 as OpenSSL's gost engine (`gost89*` ciphers) implements it:
//!   the key is eight little-endian words, and the block's first four bytes are the little-endian
//!   word N1 (= a_0, the half that enters the first round function), the last four N2 (= a_1); the
//!   output is written back the same way. Equivalently, `Gost28147` with key `K` on block `B` equals
//!   `Magma` (same S-boxes) with every 4-byte key word byte-reversed on the byte-reversed block,
//!   reversed again. Differential tests against `openssl enc -engine gost -gost89-cbc` pin this down.
//!
//! `SBox::Tc26Z` is the default everywhere (it is Magma's only S-box set and gost-engine 3.x's default
//! for `gost89*`); `SBox::CryptoProA` is the RFC 4357 set of older GOST 28147-89 deployments.
//!
//! Backends (chosen at key setup through [`crate::cpu::select`]; `SHIFR_BACKEND` or `with_backend`
//! force one), all behind `encrypt_blocks` and the multi-stream `encrypt_lanes`:
//! - portable (`soft.rs`): four 256-entry tables (pairs of 4-bit S-boxes, the rotation by 11 folded
//!   in) indexed by key- and data-dependent bytes. These secret-indexed lookups are NOT
//!   constant-time: cache-timing attacks can observe them. It is the oracle the others are tested
//!   against.
//! - `avx2` (`x86_avx2.rs`): eight blocks per register pair, S-boxes as 4-bit `vpshufb` lookups.
//! - `avx512` (`x86_avx512.rs`, needs AVX512-VBMI): sixteen blocks per register, S-boxes as 64-entry
//!   `vpermb` lookups, rotation with `vprold`; CTR runs fused ([`BlockCipher::ctr_xor`]: counter
//!   blocks made in registers, the key stream XORed into the data as it leaves them).
//! - `neon` (`aarch64_neon.rs`, AArch64 only): eight blocks per pass, S-boxes as TBL lookups into
//!   registers; chosen through `cpu::select` as [`crate::cpu::Backend::Neon`].
//!
//! The SIMD backends keep the S-boxes in registers and use only instructions with data-independent
//! timing: they are constant-time. Multi-stream calls ([`BlockCipher::encrypt_lanes`]) run one
//! block per key in SIMD lanes when all keys share backend and S-box set. With AVX-512 the
//! multi-stream feedback modes (CBC encryption, CFB, the OMAC chain) go through
//! [`BlockCipher::feedback_lanes`] instead (`x86_avx512_streams.rs`): whole runs of blocks per
//! call, round keys and chaining values held in registers throughout. The single-stream chains of
//! those modes and of OFB ([`BlockCipher::feedback_chain`]) run on one lane of the same rounds
//! (`x86_avx512_chain.rs`), or on the portable rounds where the plan says so.

#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
mod aarch64_neon;
mod algorithm;
mod kernel;
#[cfg(target_arch = "x86_64")]
mod nibble;
mod sbox;
mod soft;
#[cfg(target_arch = "x86_64")]
mod x86_avx2;
#[cfg(target_arch = "x86_64")]
mod x86_avx512;
#[cfg(target_arch = "x86_64")]
mod x86_avx512_chain;
#[cfg(target_arch = "x86_64")]
mod x86_avx512_mgm;
#[cfg(target_arch = "x86_64")]
mod x86_avx512_streams;

pub use algorithm::{Gost28147Algorithm, MagmaAlgorithm};
pub use sbox::SBox;

use kernel::Kernel;
use soft::{Core, Layout};

use crate::block::{BlockCipher, Chain, CounterHalf, Feedback, KeyInit};
use crate::cpu::Backend;
use crate::{Error, Result};

/// Block size in bytes.
pub const BLOCK_SIZE: usize = 8;
/// Key size in bytes.
pub const KEY_SIZE: usize = 32;

/// The transformation `t`: substitutes nibble `i` of `a` (from the least significant) with row `i`.
pub fn transform_t(a: u32, sbox: &SBox) -> u32 {
    let rows = sbox.rows();
    let mut out = 0u32;
    for (i, row) in rows.iter().enumerate() {
        let nibble = (a >> (4 * i)) & 15;
        out |= (row[nibble as usize] as u32) << (4 * i);
    }
    out
}

/// The transformation `g[k](a) = t(a + k mod 2^32) <<< 11`.
pub fn transform_g(k: u32, a: u32, sbox: &SBox) -> u32 {
    transform_t(a.wrapping_add(k), sbox).rotate_left(11)
}

/// The 32 round keys K_1..K_32 of GOST R 34.12-2015: K_1..K_8 are the key's big-endian words,
/// K_9..K_24 repeat them, K_25..K_32 are K_8..K_1.
pub fn round_keys(key: &[u8; 32]) -> [u32; 32] {
    let mut words = [0u32; 8];
    for (w, c) in words.iter_mut().zip(key.chunks_exact(4)) {
        *w = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
    }
    let keys = schedule(&words);
    zeroize::Zeroize::zeroize(&mut words);
    keys
}

/// Expands the eight key words into the encryption order of the 32 rounds.
fn schedule(words: &[u32; 8]) -> [u32; 32] {
    let mut keys = [0u32; 32];
    for (i, k) in keys.iter_mut().enumerate() {
        *k = if i < 24 { words[i % 8] } else { words[31 - i] };
    }
    keys
}

fn key_array(key: &[u8]) -> Result<&[u8; 32]> {
    key.try_into().map_err(|_| Error::InvalidKeyLength {
        expected: "32",
        got: key.len(),
    })
}

/// Magma, GOST R 34.12-2015 (RFC 8891): 64-bit block, 256-bit key, big-endian conventions.
#[derive(Clone)]
pub struct Magma {
    core: Core,
}

impl Magma {
    /// The backends new keys (of Magma and GOST 28147-89) take on this CPU, and why
    /// ([`crate::cpu::plan`]).
    pub fn plan() -> crate::cpu::Plan {
        Kernel::plan()
    }

    /// Magma with its standard S-boxes (id-tc26-gost-28147-param-Z). The key must be 32 bytes.
    pub fn new(key: &[u8]) -> Result<Magma> {
        Magma::with_sbox(key, SBox::Tc26Z)
    }

    /// The Magma conventions with another S-box set.
    pub fn with_sbox(key: &[u8], sbox: SBox) -> Result<Magma> {
        let (kernel, chain_portable, short_portable_max) = Kernel::planned();
        Magma::build(key, sbox, kernel, chain_portable, short_portable_max)
    }

    /// Forces a backend (`Portable`, `Avx2`, `Avx512`, `Neon`); [`Error::BackendUnavailable`] if Magma or this
    /// CPU lacks it.
    pub fn with_backend(key: &[u8], sbox: SBox, backend: Backend) -> Result<Magma> {
        Magma::build(key, sbox, Kernel::with_backend(backend)?, false, 0)
    }

    fn build(
        key: &[u8],
        sbox: SBox,
        kernel: Kernel,
        chain_portable: bool,
        short_portable_max: usize,
    ) -> Result<Magma> {
        let key = key_array(key)?;
        let mut keys = round_keys(key);
        let core = Core::new(keys, sbox, Layout::BigEndian, kernel)
            .with_portable_chain(chain_portable)
            .with_portable_short(short_portable_max);
        zeroize::Zeroize::zeroize(&mut keys);
        Ok(Magma { core })
    }

    /// The S-box set in use.
    pub fn sbox(&self) -> SBox {
        self.core.sbox()
    }

    /// The backend in use.
    pub fn backend(&self) -> Backend {
        self.core.backend()
    }

    /// The states `(a_1 || a_0)` after each of the first 31 rounds, as RFC 8891 A.4 prints them.
    pub fn trace_block(&self, block: &[u8; 8]) -> [[u8; 8]; 31] {
        let tables = self.core.round_tables();
        let keys = self.core.encrypt_keys();
        let mut a1 = u32::from_be_bytes([block[0], block[1], block[2], block[3]]);
        let mut a0 = u32::from_be_bytes([block[4], block[5], block[6], block[7]]);
        let mut trace = [[0u8; 8]; 31];
        for (state, &k) in trace.iter_mut().zip(keys) {
            (a1, a0) = (a0, a1 ^ tables.g(a0.wrapping_add(k)));
            state[..4].copy_from_slice(&a1.to_be_bytes());
            state[4..].copy_from_slice(&a0.to_be_bytes());
        }
        trace
    }
}

impl core::fmt::Debug for Magma {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Magma")
            .field("sbox", &self.sbox())
            .field("backend", &self.backend())
            .finish_non_exhaustive()
    }
}

impl BlockCipher for Magma {
    fn block_size(&self) -> usize {
        BLOCK_SIZE
    }
    fn encrypt_blocks(&self, data: &mut [u8]) {
        self.core.encrypt_blocks(data);
    }
    fn decrypt_blocks(&self, data: &mut [u8]) {
        self.core.decrypt_blocks(data);
    }
    fn encrypt_lanes(ciphers: &[&Self], blocks: &mut [u8]) {
        Core::lanes(ciphers, |c| &c.core, false, blocks);
    }
    fn decrypt_lanes(ciphers: &[&Self], blocks: &mut [u8]) {
        Core::lanes(ciphers, |c| &c.core, true, blocks);
    }
    fn ctr_xor(&self, counter: &mut [u8], data: &mut [u8]) -> bool {
        self.core.ctr_xor(counter, data)
    }
    /// With AVX-512, the counters made in registers (`x86_avx512_mgm`).
    fn half_ctr_xor(&self, counter: &[u8], half: CounterHalf, data: &mut [u8]) -> bool {
        self.core
            .half_ctr_xor(counter, half == CounterHalf::Left, data)
    }
    fn feedback_lanes(ciphers: &[&Self], registers: &mut [u8], run: Feedback<'_, '_>) -> bool {
        Core::feedback(ciphers, |c| &c.core, registers, run)
    }
    fn feedback_chain(&self, register: &mut [u8], chain: Chain<'_>) -> bool {
        if self.core.chain_portable() {
            return self.core.portable_chain(register, chain);
        }
        self.core.simd_chain(register, chain)
    }
}

impl KeyInit for Magma {
    const KEY_SIZES: &'static [usize] = &[KEY_SIZE];

    fn new_from_slice(key: &[u8]) -> Result<Magma> {
        Magma::new(key)
    }

    /// Keeps the S-box set.
    fn rekey(&self, key: &[u8]) -> Result<Magma> {
        Magma::with_sbox(key, self.sbox())
    }
}

/// GOST 28147-89 in simple-substitution (ECB) form with the byte conventions of OpenSSL's gost engine
/// (little-endian key words and block halves; see the module documentation).
#[derive(Clone)]
pub struct Gost28147 {
    core: Core,
}

impl Gost28147 {
    /// The cipher with the given S-box set. The key must be 32 bytes.
    pub fn new(key: &[u8], sbox: SBox) -> Result<Gost28147> {
        let (kernel, chain_portable, short_portable_max) = Kernel::planned();
        Gost28147::build(key, sbox, kernel, chain_portable, short_portable_max)
    }

    /// Forces a backend (`Portable`, `Avx2`, `Avx512`); [`Error::BackendUnavailable`] if this CPU
    /// lacks it.
    pub fn with_backend(key: &[u8], sbox: SBox, backend: Backend) -> Result<Gost28147> {
        Gost28147::build(key, sbox, Kernel::with_backend(backend)?, false, 0)
    }

    fn build(
        key: &[u8],
        sbox: SBox,
        kernel: Kernel,
        chain_portable: bool,
        short_portable_max: usize,
    ) -> Result<Gost28147> {
        let key = key_array(key)?;
        let mut words = [0u32; 8];
        for (w, c) in words.iter_mut().zip(key.chunks_exact(4)) {
            *w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        let mut keys = schedule(&words);
        let core = Core::new(keys, sbox, Layout::Gost89, kernel)
            .with_portable_chain(chain_portable)
            .with_portable_short(short_portable_max);
        zeroize::Zeroize::zeroize(&mut words);
        zeroize::Zeroize::zeroize(&mut keys);
        Ok(Gost28147 { core })
    }

    /// The S-box set in use.
    pub fn sbox(&self) -> SBox {
        self.core.sbox()
    }

    /// The backend in use.
    pub fn backend(&self) -> Backend {
        self.core.backend()
    }
}

impl core::fmt::Debug for Gost28147 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Gost28147")
            .field("sbox", &self.sbox())
            .field("backend", &self.backend())
            .finish_non_exhaustive()
    }
}

impl BlockCipher for Gost28147 {
    fn block_size(&self) -> usize {
        BLOCK_SIZE
    }
    fn encrypt_blocks(&self, data: &mut [u8]) {
        self.core.encrypt_blocks(data);
    }
    fn decrypt_blocks(&self, data: &mut [u8]) {
        self.core.decrypt_blocks(data);
    }
    fn encrypt_lanes(ciphers: &[&Self], blocks: &mut [u8]) {
        Core::lanes(ciphers, |c| &c.core, false, blocks);
    }
    fn decrypt_lanes(ciphers: &[&Self], blocks: &mut [u8]) {
        Core::lanes(ciphers, |c| &c.core, true, blocks);
    }
    fn ctr_xor(&self, counter: &mut [u8], data: &mut [u8]) -> bool {
        self.core.ctr_xor(counter, data)
    }
    fn feedback_lanes(ciphers: &[&Self], registers: &mut [u8], run: Feedback<'_, '_>) -> bool {
        Core::feedback(ciphers, |c| &c.core, registers, run)
    }
    fn feedback_chain(&self, register: &mut [u8], chain: Chain<'_>) -> bool {
        if self.core.chain_portable() {
            return self.core.portable_chain(register, chain);
        }
        self.core.simd_chain(register, chain)
    }
}

impl KeyInit for Gost28147 {
    const KEY_SIZES: &'static [usize] = &[KEY_SIZE];

    /// Uses [`SBox::default`] (id-tc26-gost-28147-param-Z), which is also what OpenSSL gost-engine 3.x
    /// uses for `gost89*` when no `CRYPT_PARAMS` is configured.
    fn new_from_slice(key: &[u8]) -> Result<Gost28147> {
        Gost28147::new(key, SBox::default())
    }

    /// Keeps the S-box set.
    fn rekey(&self, key: &[u8]) -> Result<Gost28147> {
        Gost28147::new(key, self.sbox())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h32(s: &str) -> u32 {
        u32::from_str_radix(s, 16).unwrap()
    }

    fn bytes<const N: usize>(s: &str) -> [u8; N] {
        hex::decode(s).unwrap().try_into().unwrap()
    }

    // Records from /work/shared/vectors/gost.txt (RFC 8891 Appendix A; GOST R 34.13-2015 A.2.1).
    const KEY: &str = "ffeeddccbbaa99887766554433221100f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

    /// A plan that sends short block calls to the portable rounds, under every SIMD kernel this
    /// CPU has, gives the portable backend's bytes on both sides of the bound, both ways, for
    /// Magma and GOST 28147-89.
    #[test]
    fn short_calls_on_the_portable_rounds_match_portable() {
        let key: Vec<u8> = (0u8..32).map(|i| i.wrapping_mul(53) ^ 0xa7).collect();
        let simd: Vec<Kernel> = [Backend::Avx2, Backend::Avx512, Backend::Neon]
            .into_iter()
            .filter_map(|b| Kernel::with_backend(b).ok())
            .collect();
        let magma_ref = Magma::with_backend(&key, SBox::Tc26Z, Backend::Portable).unwrap();
        let gost_ref = Gost28147::with_backend(&key, SBox::CryptoProA, Backend::Portable).unwrap();
        for kernel in simd {
            for bound in [8, 32, 64] {
                let magma = Magma::build(&key, SBox::Tc26Z, kernel, false, bound).unwrap();
                let gost = Gost28147::build(&key, SBox::CryptoProA, kernel, false, bound).unwrap();
                for blocks in 0..=12 {
                    let data: Vec<u8> = (0..blocks * 8).map(|i| (i * 13 + bound) as u8).collect();
                    let pairs: [(&dyn BlockCipher, &dyn BlockCipher); 2] =
                        [(&magma, &magma_ref), (&gost, &gost_ref)];
                    for (ours, reference) in pairs {
                        let mut expected = data.clone();
                        reference.encrypt_blocks(&mut expected);
                        let mut got = data.clone();
                        ours.encrypt_blocks(&mut got);
                        assert_eq!(got, expected, "{kernel:?} bound {bound} {blocks} blocks");
                        ours.decrypt_blocks(&mut got);
                        assert_eq!(got, data, "{kernel:?} bound {bound} {blocks} blocks back");
                    }
                }
            }
        }
    }

    #[test]
    fn transform_t_matches_rfc8891_a1() {
        let chain = ["fdb97531", "2a196f34", "ebd9f03a", "b039bb3d", "68695433"];
        for w in chain.windows(2) {
            assert_eq!(transform_t(h32(w[0]), &SBox::Tc26Z), h32(w[1]));
        }
    }

    #[test]
    fn transform_g_matches_rfc8891_a2() {
        let cases = [
            ("87654321", "fedcba98", "fdcbc20c"),
            ("fdcbc20c", "87654321", "7e791a4b"),
            ("7e791a4b", "fdcbc20c", "c76549ec"),
            ("c76549ec", "7e791a4b", "9791c849"),
        ];
        for (k, a, out) in cases {
            assert_eq!(transform_g(h32(k), h32(a), &SBox::Tc26Z), h32(out));
        }
    }

    #[test]
    fn combined_tables_agree_with_transform_g() {
        for sbox in SBox::ALL {
            let tables = soft::tables(*sbox);
            let mut x = 0x0123_4567u32;
            for _ in 0..10_000 {
                x = x.wrapping_mul(0x9e37_79b9).wrapping_add(0x7f4a_7c15);
                assert_eq!(tables.g(x), transform_g(0, x, sbox));
                let a = x.rotate_left(7) ^ 0xa5a5_5a5a;
                assert_eq!(tables.round(a, x), a ^ transform_g(0, x, sbox));
            }
        }
    }

    #[test]
    fn round_keys_match_rfc8891_a3() {
        let words = [
            "ffeeddcc", "bbaa9988", "77665544", "33221100", "f0f1f2f3", "f4f5f6f7", "f8f9fafb",
            "fcfdfeff",
        ];
        let keys = round_keys(&bytes(KEY));
        for (i, k) in keys.iter().enumerate() {
            let expected = if i < 24 { words[i % 8] } else { words[31 - i] };
            assert_eq!(*k, h32(expected), "K_{}", i + 1);
        }
        // The reversed tail as the record prints it: k25 = fcfdfeff ... k32 = ffeeddcc.
        assert_eq!(keys[24], h32("fcfdfeff"));
        assert_eq!(keys[31], h32("ffeeddcc"));
    }

    #[test]
    fn trace_and_block_match_rfc8891_a4_a5() {
        let g = [
            "7654321028da3b14",
            "28da3b14b14337a5",
            "b14337a5633a7c68",
            "633a7c68ea89c02c",
            "ea89c02c11fe726d",
            "11fe726dad0310a4",
            "ad0310a437d97f25",
            "37d97f2546324615",
            "46324615ce995f2a",
            "ce995f2a93c1f449",
            "93c1f4494811c7ad",
            "4811c7adc4b3edca",
            "c4b3edca44ca5ce1",
            "44ca5ce1fef51b68",
            "fef51b682098cd86",
            "2098cd864f15b0bb",
            "4f15b0bbe32805bc",
            "e32805bce7116722",
            "e711672289cadf21",
            "89cadf21bac8444d",
            "bac8444d11263a21",
            "11263a21625434c3",
            "625434c38025c0a5",
            "8025c0a5b0d66514",
            "b0d6651447b1d5f4",
            "47b1d5f4c78e6d50",
            "c78e6d5080251e99",
            "80251e992b96eca6",
            "2b96eca605ef4401",
            "05ef4401239a4577",
            "239a4577c2d8ca3d",
        ];
        let c = Magma::new(&bytes::<32>(KEY)).unwrap();
        let pt: [u8; 8] = bytes("fedcba9876543210");
        let trace = c.trace_block(&pt);
        for (i, (got, want)) in trace.iter().zip(g).enumerate() {
            assert_eq!(hex::encode(got), want, "g{:02}", i + 1);
        }
        let mut block = pt;
        c.encrypt_blocks(&mut block);
        assert_eq!(hex::encode(block), "4ee901e5c2d8ca3d");
        c.decrypt_blocks(&mut block);
        assert_eq!(block, pt);
    }

    #[test]
    fn ecb_matches_gost_r_34_13_a21() {
        let c = Magma::new(&bytes::<32>(KEY)).unwrap();
        let pt = hex::decode("92def06b3c130a59db54c704f8189d204a98fb2e67a8024c8912409b17b57e41")
            .unwrap();
        let ct = "2b073f0494f372a0de70e715d3556e4811d8d9e9eacfbc1e7c68260996c67efb";
        // Every length from 0 to 4 blocks plus a trailing partial block, to cover the interleaved
        // path, the remainder path and the untouched tail.
        for blocks in 0..=4 {
            let mut data = pt[..8 * blocks].to_vec();
            data.extend_from_slice(&[0xaa; 3]);
            c.encrypt_blocks(&mut data);
            assert_eq!(hex::encode(&data[..8 * blocks]), ct[..16 * blocks]);
            assert_eq!(&data[8 * blocks..], &[0xaa; 3]);
            c.decrypt_blocks(&mut data);
            assert_eq!(&data[..8 * blocks], &pt[..8 * blocks]);
        }
    }

    #[test]
    fn gost28147_is_magma_with_reversed_words() {
        // Consistency of the two layouts (the OpenSSL differential test checks the absolute order).
        let key: [u8; 32] = bytes(KEY);
        let mut swapped = key;
        for w in swapped.chunks_exact_mut(4) {
            w.reverse();
        }
        for sbox in SBox::ALL {
            let g = Gost28147::new(&key, *sbox).unwrap();
            let m = Magma::with_sbox(&swapped, *sbox).unwrap();
            let mut a: [u8; 8] = bytes("0011223344556677");
            let mut b = a;
            b.reverse();
            g.encrypt_blocks(&mut a);
            m.encrypt_blocks(&mut b);
            b.reverse();
            assert_eq!(a, b);
        }
    }

    #[test]
    fn wrong_key_lengths_are_rejected() {
        for len in [0, 16, 31, 33, 64] {
            let key = vec![0u8; len];
            let err = Error::InvalidKeyLength {
                expected: "32",
                got: len,
            };
            assert_eq!(Magma::new(&key).unwrap_err(), err);
            assert_eq!(Gost28147::new(&key, SBox::CryptoProA).unwrap_err(), err);
        }
    }

    /// Chain `kind` over `data` from `iv` one `encrypt_blocks` call per block: what the modes do
    /// when `feedback_chain` declines.
    fn reference_chain<C: BlockCipher>(
        c: &C,
        kind: usize,
        iv: [u8; 8],
        data: &mut [u8],
    ) -> [u8; 8] {
        let mut r = iv;
        for b in data.chunks_exact_mut(8) {
            match kind {
                // CBC encryption and the CBC-MAC chain.
                0 | 2 => {
                    for (x, y) in r.iter_mut().zip(b.iter()) {
                        *x ^= y;
                    }
                    c.encrypt_blocks(&mut r);
                    if kind == 0 {
                        b.copy_from_slice(&r);
                    }
                }
                // CFB encryption.
                1 => {
                    c.encrypt_blocks(&mut r);
                    for (x, y) in r.iter_mut().zip(b.iter()) {
                        *x ^= y;
                    }
                    b.copy_from_slice(&r);
                }
                // OFB.
                _ => {
                    c.encrypt_blocks(&mut r);
                    for (x, y) in b.iter_mut().zip(r.iter()) {
                        *x ^= y;
                    }
                }
            }
        }
        r
    }

    #[test]
    fn portable_chains_match_block_by_block_chains() {
        let key: Vec<u8> = (0u8..32)
            .map(|i| i.wrapping_mul(29).wrapping_add(7))
            .collect();
        let iv = [0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0];
        let magma = Magma::with_backend(&key, SBox::Tc26Z, Backend::Portable).unwrap();
        let gost = Gost28147::with_backend(&key, SBox::CryptoProA, Backend::Portable).unwrap();
        for blocks in [0usize, 1, 2, 5, 64] {
            let data: Vec<u8> = (0..blocks * 8).map(|i| (i * 31 + 3) as u8).collect();
            for kind in 0..4 {
                let check = |core: &Core, reference: &dyn Fn(&mut [u8]) -> [u8; 8]| {
                    let mut expected = data.clone();
                    let expected_register = reference(&mut expected);
                    let mut got = data.clone();
                    let mut register = iv;
                    let chain = match kind {
                        0 => Chain::CbcEncrypt(&mut got),
                        1 => Chain::CfbEncrypt(&mut got),
                        2 => Chain::CbcMac(&data),
                        _ => Chain::Ofb(&mut got),
                    };
                    assert!(core.portable_chain(&mut register, chain));
                    assert_eq!(register, expected_register, "kind {kind}, {blocks} blocks");
                    if kind != 2 {
                        assert_eq!(got, expected, "kind {kind}, {blocks} blocks");
                    }
                };
                check(&magma.core, &|d: &mut [u8]| {
                    reference_chain(&magma, kind, iv, d)
                });
                check(&gost.core, &|d: &mut [u8]| {
                    reference_chain(&gost, kind, iv, d)
                });
            }
        }
        // Partial blocks or a register of another size: declined, nothing touched.
        let mut register = iv;
        let mut odd = [1u8; 12];
        assert!(!magma
            .core
            .portable_chain(&mut register, Chain::Ofb(&mut odd)));
        assert_eq!((register, odd), (iv, [1u8; 12]));
        let mut long_register = [0u8; 16];
        let mut block = [2u8; 8];
        assert!(!magma
            .core
            .portable_chain(&mut long_register, Chain::Ofb(&mut block)));
        assert_eq!(block, [2u8; 8]);
    }

    #[test]
    fn every_kernel_and_chain_choice_gives_the_same_chains() {
        let key = [0x5au8; 32];
        let iv = [7u8; 8];
        let data: Vec<u8> = (0..40 * 8).map(|i| (i * 13 + 1) as u8).collect();
        let reference = Magma::with_backend(&key, SBox::Tc26Z, Backend::Portable).unwrap();
        for &backend in Backend::ALL {
            let Ok(kernel) = Kernel::with_backend(backend) else {
                continue;
            };
            for chain_portable in [false, true] {
                let m = Magma::build(&key, SBox::Tc26Z, kernel, chain_portable, 0).unwrap();
                for kind in [0usize, 1, 3] {
                    let mut expected = data.clone();
                    reference_chain(&reference, kind, iv, &mut expected);
                    let mut got = data.clone();
                    let mut register = iv;
                    let chain = match kind {
                        0 => Chain::CbcEncrypt(&mut got),
                        1 => Chain::CfbEncrypt(&mut got),
                        _ => Chain::Ofb(&mut got),
                    };
                    if !m.feedback_chain(&mut register, chain) {
                        // Declined: the mode's loop would run, as the reference does.
                        got.copy_from_slice(&expected);
                    }
                    assert_eq!(
                        got, expected,
                        "{backend:?}, portable chain {chain_portable}, kind {kind}"
                    );
                }
            }
        }
    }
}
