//! Portable Magma / GOST 28147-89 rounds built on combined 8-bit tables.
//!
//! The round function `g[k](a) = (t(a + k)) <<< 11` is evaluated with four 256-entry tables, one per
//! byte of `a + k`: table `j` maps a byte to its two substituted nibbles (S-box rows `2j` and `2j+1`)
//! placed at byte `j` and already rotated left by 11. The four lookups are indexed by secret data, so
//! this backend is not constant-time (cache-timing); see the module documentation of `block::magma`.

use std::sync::OnceLock;

use zeroize::Zeroize;

use super::kernel::Kernel;
#[cfg(target_arch = "x86_64")]
use super::kernel::MAX_LANES;
#[cfg(target_arch = "x86_64")]
use super::nibble::{nibble_tables, NibbleTables};
use super::sbox::SBox;
use crate::block::{Chain, Feedback};
use crate::cpu::Backend;

/// The four combined lookup tables of one S-box set.
pub(crate) struct RoundTables {
    byte: [[u32; 256]; 4],
}

impl RoundTables {
    fn build(rows: &[[u8; 16]; 8]) -> RoundTables {
        let mut byte = [[0u32; 256]; 4];
        for (j, table) in byte.iter_mut().enumerate() {
            for (x, entry) in table.iter_mut().enumerate() {
                let low = rows[2 * j][x & 15] as u32;
                let high = rows[2 * j + 1][x >> 4] as u32;
                *entry = ((high << 4 | low) << (8 * j)).rotate_left(11);
            }
        }
        RoundTables { byte }
    }

    /// `t(x) <<< 11`.
    #[inline(always)]
    pub(crate) fn g(&self, x: u32) -> u32 {
        self.byte[0][(x & 0xff) as usize]
            ^ self.byte[1][((x >> 8) & 0xff) as usize]
            ^ self.byte[2][((x >> 16) & 0xff) as usize]
            ^ self.byte[3][(x >> 24) as usize]
    }

    /// `a ^ g(x)`, the new half of one round, with a shorter dependency chain than the plain XOR of
    /// five terms. Each table fills its own 8 bits of the rotated word, so XOR, OR and addition of
    /// table entries agree. Written with one XOR, LLVM turns the sum into four dependent XORs with
    /// memory operands, the last of them waiting for the slowest load (byte 2 needs a shift and a
    /// mask before its address). Mixing the operators keeps two pairs that load in parallel: one
    /// XOR fewer on the round's critical path, which is all a feedback chain is.
    #[inline(always)]
    pub(crate) fn round(&self, a: u32, x: u32) -> u32 {
        let low = self.byte[0][(x & 0xff) as usize] | self.byte[1][((x >> 8) & 0xff) as usize];
        let high = self.byte[2][((x >> 16) & 0xff) as usize] + self.byte[3][(x >> 24) as usize];
        (a ^ low) ^ high
    }
}

/// The tables of `sbox`, built on first use and shared by every key.
pub(crate) fn tables(sbox: SBox) -> &'static RoundTables {
    static CELLS: [OnceLock<RoundTables>; 2] = [OnceLock::new(), OnceLock::new()];
    sbox.cached(&CELLS, |s| RoundTables::build(&s.rows()))
}

/// One table of [`ChainTables`]: 256 entries of eight bytes, read at a byte offset.
#[cfg(target_pointer_width = "64")]
#[repr(align(64))]
struct ChainTable([u8; 2048]);

/// The round tables in the form of the single-stream chain ([`Core::portable_chain`]) on 64-bit
/// targets, where a chain waits for every round's latency. The chain keeps each half shifted left
/// by 3 in a `u64` (`h' = h << 3`; bits above 34 may hold carries, which nothing reads), and an
/// entry is the [`RoundTables`] entry shifted the same way. Then byte `j` of `h + k` times 8, the
/// byte offset of its entry, is `(h' + k') >> 8j & 0x7f8`: byte 0 costs one `AND` and no scaled
/// index, and a load at `base + index` has one cycle less latency than one at `base + 8 * index`
/// or `base + index + displacement` (AMD Zen 4: 4 against 5). That is also why each table is its
/// own allocation behind its own pointer: tables at known offsets from one base would be
/// addressed with a displacement. On Zen 4 a round takes about 10.2 cycles instead of 10.7.
#[cfg(target_pointer_width = "64")]
pub(crate) struct ChainTables {
    byte: [&'static ChainTable; 4],
}

#[cfg(target_pointer_width = "64")]
impl ChainTables {
    fn build(round: &RoundTables) -> ChainTables {
        ChainTables {
            byte: core::array::from_fn(|j| {
                let mut table = Box::new(ChainTable([0; 2048]));
                for (bytes, &entry) in table.0.chunks_exact_mut(8).zip(&round.byte[j]) {
                    bytes.copy_from_slice(&(u64::from(entry) << 3).to_ne_bytes());
                }
                // Built once per S-box set and process, like the statics that hold them.
                &*Box::leak(table)
            }),
        }
    }

    /// The entry at byte offset `offset & 0x7f8` of table `j`.
    #[inline(always)]
    fn entry(&self, j: usize, offset: u64) -> u64 {
        let at = (offset & 0x7f8) as usize;
        let bytes = &self.byte[j].0[at..at + 8];
        u64::from_ne_bytes(bytes.try_into().unwrap_or([0; 8]))
    }

    /// [`RoundTables::round`] on halves in the chain's form: `a' ^ g(x)'` for `x' = (a_0 + k)'`.
    /// The entry of byte 0 arrives a cycle before the other three, so it goes into `a'` first,
    /// and the last level XORs the sum of the two entries that load together; the order of the
    /// loads below is what makes LLVM build the XORs in that order.
    #[inline(always)]
    pub(crate) fn round(&self, a: u64, x: u64) -> u64 {
        let t0 = self.entry(0, x);
        let t3 = self.entry(3, x >> 24);
        let t1 = self.entry(1, x >> 8);
        let t2 = self.entry(2, x >> 16);
        ((a ^ t0) ^ t3) ^ (t1 + t2)
    }
}

/// The chain tables of `sbox`, built on first use and shared by every key.
#[cfg(target_pointer_width = "64")]
pub(crate) fn chain_tables(sbox: SBox) -> &'static ChainTables {
    static CELLS: [OnceLock<ChainTables>; 2] = [OnceLock::new(), OnceLock::new()];
    sbox.cached(&CELLS, |s| ChainTables::build(tables(s)))
}

/// How the 8 block bytes map to the halves `(a_1, a_0)`; `a_0` enters the first round function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// GOST R 34.12-2015: block = a_1 || a_0, each half big-endian.
    BigEndian,
    /// GOST 28147-89 as OpenSSL's gost engine reads it: N1 = a_0 = little-endian bytes 0..4,
    /// N2 = a_1 = little-endian bytes 4..8; the output is written the same way.
    Gost89,
}

impl Layout {
    #[inline(always)]
    fn load(self, b: &[u8]) -> (u32, u32) {
        let w0 = [b[0], b[1], b[2], b[3]];
        let w1 = [b[4], b[5], b[6], b[7]];
        match self {
            Layout::BigEndian => (u32::from_be_bytes(w0), u32::from_be_bytes(w1)),
            Layout::Gost89 => (u32::from_le_bytes(w1), u32::from_le_bytes(w0)),
        }
    }

    #[inline(always)]
    fn store(self, (a1, a0): (u32, u32), b: &mut [u8]) {
        match self {
            Layout::BigEndian => {
                b[..4].copy_from_slice(&a1.to_be_bytes());
                b[4..8].copy_from_slice(&a0.to_be_bytes());
            }
            Layout::Gost89 => {
                b[..4].copy_from_slice(&a0.to_le_bytes());
                b[4..8].copy_from_slice(&a1.to_le_bytes());
            }
        }
    }
}

/// The single-stream chain `chain` (whole blocks, not CFB-8) from and back into the one-block
/// `register`, with the chaining value kept as an `S` for the whole chain: `enter` and `leave`
/// convert from and to the halves `(a_1, a_0)`, `xor` combines two values and `encrypt` runs the
/// 32 rounds. Declines (false, touching nothing) unless the register is one block and the data
/// whole blocks, and for CFB-8.
#[inline(always)]
pub(super) fn run_chain<S: Copy>(
    layout: Layout,
    register: &mut [u8],
    chain: Chain<'_>,
    enter: impl Fn((u32, u32)) -> S,
    leave: impl Fn(S) -> (u32, u32),
    xor: impl Fn(S, S) -> S,
    encrypt: impl Fn(S) -> S,
) -> bool {
    if register.len() != 8 || !chain.len().is_multiple_of(8) {
        return false;
    }
    let block = |b: &[u8]| enter(layout.load(b));
    let mut r = block(register);
    match chain {
        Chain::CbcEncrypt(data) => {
            for b in data.chunks_exact_mut(8) {
                r = encrypt(xor(r, block(b)));
                layout.store(leave(r), b);
            }
        }
        Chain::CfbEncrypt(data) => {
            for b in data.chunks_exact_mut(8) {
                r = xor(encrypt(r), block(b));
                layout.store(leave(r), b);
            }
        }
        Chain::CbcMac(data) => {
            for b in data.chunks_exact(8) {
                r = encrypt(xor(r, block(b)));
            }
        }
        Chain::Ofb(data) => {
            for b in data.chunks_exact_mut(8) {
                r = encrypt(r);
                layout.store(leave(xor(r, block(b))), b);
            }
        }
        Chain::Cfb8Encrypt(_) => return false,
    }
    layout.store(leave(r), register);
    true
}

/// Blocks processed together so that their independent table lookups overlap.
const INTERLEAVE: usize = 4;

/// A keyed Magma / GOST 28147-89 instance: the 32 round keys in encryption and decryption order
/// for the portable rounds, the eight key words K_1..K_8 the SIMD backends expand themselves, and
/// the backend.
#[derive(Clone)]
pub(crate) struct Core {
    encrypt_keys: [u32; 32],
    decrypt_keys: [u32; 32],
    #[cfg(target_arch = "x86_64")]
    words: [u32; 8],
    tables: &'static RoundTables,
    #[cfg(target_arch = "x86_64")]
    nibbles: &'static NibbleTables,
    layout: Layout,
    sbox: SBox,
    kernel: Kernel,
    /// Single-stream chains run on the portable rounds ([`Core::portable_chain`]), not on the
    /// kernel's one-lane chain (the CPU's plan).
    chain_portable: bool,
    /// Block calls of at most this many bytes run on the portable rounds, not the kernel (the
    /// CPU's plan for short calls; 0: none).
    short_portable_max: usize,
}

impl Core {
    pub(crate) fn new(round_keys: [u32; 32], sbox: SBox, layout: Layout, kernel: Kernel) -> Core {
        let mut decrypt_keys = round_keys;
        decrypt_keys.reverse();
        Core {
            encrypt_keys: round_keys,
            decrypt_keys,
            #[cfg(target_arch = "x86_64")]
            words: core::array::from_fn(|i| round_keys[i]),
            tables: tables(sbox),
            #[cfg(target_arch = "x86_64")]
            nibbles: nibble_tables(sbox),
            layout,
            sbox,
            kernel,
            chain_portable: kernel == Kernel::Portable,
            short_portable_max: 0,
        }
    }

    /// Sends block calls of at most `max` bytes to the portable rounds.
    pub(crate) fn with_portable_short(mut self, max: usize) -> Core {
        self.short_portable_max = max;
        self
    }

    /// Sets whether single-stream chains run on the portable rounds.
    pub(crate) fn with_portable_chain(mut self, portable: bool) -> Core {
        self.chain_portable = portable || self.kernel == Kernel::Portable;
        self
    }

    /// Whether single-stream chains run on the portable rounds.
    pub(crate) fn chain_portable(&self) -> bool {
        self.chain_portable
    }

    /// A single-stream chain on the portable rounds: the chaining value stays in two words for the
    /// whole chain, where the mode's generic loop converts it to bytes and makes a call per block.
    /// Declines as [`run_chain`] does.
    pub(crate) fn portable_chain(&self, register: &mut [u8], chain: Chain<'_>) -> bool {
        #[cfg(target_pointer_width = "64")]
        {
            let (keys, tables) = (&self.encrypt_keys, chain_tables(self.sbox));
            let enter = |(a1, a0): (u32, u32)| (u64::from(a1) << 3, u64::from(a0) << 3);
            // Bits above 34 may hold carries of the key additions; `as u32` drops them.
            let leave = |(a1, a0): (u64, u64)| ((a1 >> 3) as u32, (a0 >> 3) as u32);
            let xor = |a: (u64, u64), b: (u64, u64)| (a.0 ^ b.0, a.1 ^ b.1);
            let encrypt = |(a1, a0): (u64, u64)| {
                let (mut b, mut a) = (a1, a0);
                for &k in keys {
                    // The key's shift does not wait for the chain.
                    (b, a) = (a, tables.round(b, a.wrapping_add(u64::from(k) << 3)));
                }
                (a, b)
            };
            run_chain(self.layout, register, chain, enter, leave, xor, encrypt)
        }
        #[cfg(not(target_pointer_width = "64"))]
        {
            let keys = &self.encrypt_keys;
            let encrypt = |r: (u32, u32)| {
                let mut h = [r];
                self.rounds(keys, &mut h);
                h[0]
            };
            let xor = |a: (u32, u32), b: (u32, u32)| (a.0 ^ b.0, a.1 ^ b.1);
            run_chain(self.layout, register, chain, |h| h, |h| h, xor, encrypt)
        }
    }

    /// A single-stream chain on the kernel's one-lane chain where it has one (AVX-512, see
    /// `x86_avx512_chain`); declines (false, touching nothing) otherwise, and for the shapes
    /// [`Core::portable_chain`] declines.
    pub(crate) fn simd_chain(&self, register: &mut [u8], chain: Chain<'_>) -> bool {
        match self.kernel {
            #[cfg(target_arch = "x86_64")]
            Kernel::Simd(super::kernel::Simd::Avx512(b)) => {
                b.chain(&self.words, self.nibbles, self.layout, register, chain)
            }
            _ => {
                let _ = (register, chain);
                false
            }
        }
    }

    pub(crate) fn backend(&self) -> Backend {
        self.kernel.backend()
    }

    pub(crate) fn sbox(&self) -> SBox {
        self.sbox
    }

    pub(crate) fn encrypt_keys(&self) -> &[u32; 32] {
        &self.encrypt_keys
    }

    pub(crate) fn round_tables(&self) -> &'static RoundTables {
        self.tables
    }

    pub(crate) fn encrypt_blocks(&self, data: &mut [u8]) {
        self.run(false, data);
    }

    /// The Feistel network run with the round keys reversed is its own inverse.
    pub(crate) fn decrypt_blocks(&self, data: &mut [u8]) {
        self.run(true, data);
    }

    /// Whether a block call is longer than the plan's short calls, so its kernel runs it.
    #[cfg_attr(
        not(any(
            target_arch = "x86_64",
            all(target_arch = "aarch64", target_endian = "little")
        )),
        allow(dead_code)
    )]
    fn wide(&self, data: &[u8]) -> bool {
        data.len() > self.short_portable_max
    }

    fn run(&self, decrypt: bool, data: &mut [u8]) {
        // Short calls (the plan's bound) and the portable kernel take the portable rounds.
        match self.kernel {
            #[cfg(target_arch = "x86_64")]
            Kernel::Simd(s) if self.wide(data) => {
                s.blocks(&self.words, self.nibbles, self.layout, decrypt, data)
            }
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Kernel::Neon if self.wide(data) && decrypt => {
                super::aarch64_neon::decrypt_blocks(self, self.layout, data)
            }
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Kernel::Neon if self.wide(data) => {
                super::aarch64_neon::encrypt_blocks(self, self.layout, data)
            }
            _ if decrypt => self.process(&self.decrypt_keys, data),
            _ => self.process(&self.encrypt_keys, data),
        }
    }

    /// CTR in one pass where the kernel has it ([`crate::block::BlockCipher::ctr_xor`]); false,
    /// touching nothing, otherwise (and for a counter that is not one block).
    pub(crate) fn ctr_xor(&self, counter: &mut [u8], data: &mut [u8]) -> bool {
        match (self.kernel, <&mut [u8; 8]>::try_from(counter)) {
            #[cfg(target_arch = "x86_64")]
            (Kernel::Simd(simd), Ok(counter)) => {
                simd.ctr_xor(&self.words, self.nibbles, self.layout, counter, data)
            }
            _ => {
                let _ = data;
                false
            }
        }
    }

    /// MGM's counter modes in one pass where the kernel has them
    /// ([`crate::block::BlockCipher::half_ctr_xor`]: AVX-512 with the Magma byte order); `left`
    /// picks `incr_l`. False, touching nothing, otherwise (and for a counter that is not one block).
    pub(crate) fn half_ctr_xor(&self, counter: &[u8], left: bool, data: &mut [u8]) -> bool {
        match (self.kernel, <&[u8; 8]>::try_from(counter)) {
            #[cfg(target_arch = "x86_64")]
            (Kernel::Simd(super::kernel::Simd::Avx512(b)), Ok(counter))
                if self.layout == Layout::BigEndian =>
            {
                let counter = u64::from_be_bytes(*counter);
                let (words, tables) = (&self.words, self.nibbles);
                if left {
                    super::x86_avx512_mgm::half_ctr_xor::<true>(b, words, tables, counter, data);
                } else {
                    super::x86_avx512_mgm::half_ctr_xor::<false>(b, words, tables, counter, data);
                }
                true
            }
            _ => {
                let _ = (left, data);
                false
            }
        }
    }

    /// Multi-stream: block `i` of `blocks` under `core(ciphers[i])`. When every cipher has the same
    /// SIMD backend, S-box set and layout, the blocks run side by side in SIMD lanes; otherwise one
    /// block at a time.
    pub(crate) fn lanes<C>(
        ciphers: &[&C],
        core: impl Fn(&C) -> &Core,
        decrypt: bool,
        blocks: &mut [u8],
    ) {
        #[cfg(target_arch = "x86_64")]
        if let Some(first) = ciphers.first().map(|c| core(c)) {
            let Kernel::Simd(simd) = first.kernel else {
                return Core::one_by_one(ciphers, core, decrypt, blocks);
            };
            let uniform = ciphers.iter().map(|c| core(c)).all(|c| {
                c.kernel == first.kernel && c.sbox == first.sbox && c.layout == first.layout
            });
            if uniform {
                let step = simd.max_lanes();
                for (group, data) in ciphers.chunks(step).zip(blocks.chunks_mut(8 * step)) {
                    let mut keys = [&first.words; MAX_LANES];
                    for (k, c) in keys.iter_mut().zip(group) {
                        *k = &core(c).words;
                    }
                    let keys = &keys[..group.len()];
                    simd.lanes(keys, first.nibbles, first.layout, decrypt, data);
                }
                return;
            }
        }
        Core::one_by_one(ciphers, core, decrypt, blocks);
    }

    /// Multi-stream feedback modes in one call ([`crate::block::BlockCipher::feedback_lanes`]):
    /// only when every cipher has the same SIMD backend with such a kernel, S-box set and layout.
    pub(crate) fn feedback<C>(
        ciphers: &[&C],
        core: impl Fn(&C) -> &Core,
        registers: &mut [u8],
        run: Feedback<'_, '_>,
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        if let Some(first) = ciphers.first().map(|c| core(c)) {
            let Kernel::Simd(simd) = first.kernel else {
                return false;
            };
            let uniform = ciphers.iter().map(|c| core(c)).all(|c| {
                c.kernel == first.kernel && c.sbox == first.sbox && c.layout == first.layout
            });
            if !uniform {
                return false;
            }
            let keys: Vec<&[u32; 8]> = ciphers.iter().map(|c| &core(c).words).collect();
            return simd.feedback(&keys, first.nibbles, first.layout, registers, run);
        }
        let _ = (ciphers, core, registers, run);
        false
    }

    /// Multi-stream without a lane kernel: each block with its own cipher's backend.
    fn one_by_one<C>(ciphers: &[&C], core: impl Fn(&C) -> &Core, decrypt: bool, blocks: &mut [u8]) {
        for (c, block) in ciphers.iter().zip(blocks.chunks_exact_mut(8)) {
            core(c).run(decrypt, block);
        }
    }

    fn process(&self, keys: &[u32; 32], data: &mut [u8]) {
        let mut groups = data.chunks_exact_mut(8 * INTERLEAVE);
        for group in &mut groups {
            self.group::<INTERLEAVE>(keys, group);
        }
        // The last one to three blocks also run side by side: a 16-byte call costs one chain of
        // 32 rounds, not two.
        let rest = groups.into_remainder();
        match rest.len() / 8 {
            3 => self.group::<3>(keys, rest),
            2 => self.group::<2>(keys, rest),
            1 => self.group::<1>(keys, rest),
            _ => {}
        }
    }

    /// The first `N` blocks of `blocks` (at least `8 * N` bytes) through the rounds together.
    #[inline(always)]
    fn group<const N: usize>(&self, keys: &[u32; 32], blocks: &mut [u8]) {
        let mut halves = [(0u32, 0u32); N];
        for (h, b) in halves.iter_mut().zip(blocks.chunks_exact(8)) {
            *h = self.layout.load(b);
        }
        self.rounds(keys, &mut halves);
        for (h, b) in halves.iter().zip(blocks.chunks_exact_mut(8)) {
            self.layout.store(*h, b);
        }
    }

    /// 32 rounds `(a_1, a_0) -> (a_0, a_1 ^ g[k](a_0))`, the last without the swap.
    #[inline(always)]
    fn rounds<const N: usize>(&self, keys: &[u32; 32], halves: &mut [(u32, u32); N]) {
        for &k in keys {
            for h in halves.iter_mut() {
                *h = (h.1, self.tables.round(h.0, h.1.wrapping_add(k)));
            }
        }
        for h in halves.iter_mut() {
            *h = (h.1, h.0);
        }
    }
}

impl Drop for Core {
    fn drop(&mut self) {
        self.encrypt_keys.zeroize();
        self.decrypt_keys.zeroize();
        #[cfg(target_arch = "x86_64")]
        self.words.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chain's round on shifted halves, with carries above bit 34 as the key additions leave
    /// them, is the round of [`RoundTables`] shifted.
    #[cfg(target_pointer_width = "64")]
    #[test]
    fn chain_round_is_the_round_shifted_by_three() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for sbox in SBox::ALL {
            let (words, chain) = (tables(*sbox), chain_tables(*sbox));
            for _ in 0..20_000 {
                let (a, x, carries) = (next() as u32, next() as u32, next() << 35);
                let shifted = chain.round(u64::from(a) << 3 | carries, u64::from(x) << 3 | carries);
                assert_eq!(shifted & 0x7_ffff_ffff, u64::from(words.round(a, x)) << 3);
            }
        }
    }

    /// [`RoundTables::round`] may add and OR table entries only because each table fills bits no
    /// other table touches.
    #[test]
    fn the_four_tables_fill_disjoint_bits() {
        for sbox in SBox::ALL {
            let masks = tables(*sbox)
                .byte
                .map(|t| t.iter().fold(0u32, |m, &e| m | e));
            for (i, a) in masks.iter().enumerate() {
                assert_eq!(a.count_ones(), 8, "{sbox:?} table {i}");
                for b in &masks[i + 1..] {
                    assert_eq!(a & b, 0, "{sbox:?} table {i}");
                }
            }
        }
    }
}
