//! Single-stream feedback chains on AES-NI: CBC and CFB encryption, OFB and the CBC-MAC of OMAC,
//! the paths behind [`crate::block::BlockCipher::feedback_chain`].
//!
//! Each block needs the previous block's output, so these chains run at the latency of the AES
//! rounds, not their throughput. The kernels therefore keep everything off the chain that can be:
//! the round keys are loaded into registers once per call (a constant round count per kernel, so
//! the rounds are unrolled; a one-block call reads them in its rounds instead, see `one`), the chaining value never leaves its register between blocks, and the
//! XOR that joins the next block into the chain is folded into the last round's key: AESENCLAST
//! ends with `^ K`, so `AESENCLAST(t, K_last ^ X) = E(...) ^ X` for the `X = P_next ^ K_0` (CBC,
//! CBC-MAC), `X = P ^ K_0` (CFB) or `X = K_0` (OFB) that the next block's first round would add. That `X` does not
//! depend on the chain and is computed while the rounds run; the ciphertext is recovered from the
//! chain value with one more XOR, also off the chain. A block costs `Nr` round latencies.
//!
//! Constant-time: the AES round instructions have data-independent timing, and nothing here
//! branches on or indexes by data.

use core::arch::x86_64::{
    __m128i, _mm_aesenc_si128, _mm_aesenclast_si128, _mm_cvtsi128_si32, _mm_cvtsi32_si128,
    _mm_setzero_si128, _mm_slli_si128, _mm_srli_si128, _mm_xor_si128,
};

use super::key_schedule::MAX_ROUND_KEYS;
use super::x86_aesni::{load, store, AesNi, RoundKeys};

/// What a chain does with each block `B` and the chaining value `R` (a `u8` so that it can be a
/// const parameter of the kernel).
pub(super) type ChainKind = u8;
/// `R = E(R ^ B)`, `B` becomes `R`.
pub(super) const CBC_ENCRYPT: ChainKind = 0;
/// `B` becomes `B ^ E(R)`, which is the next `R`.
pub(super) const CFB_ENCRYPT: ChainKind = 1;
/// `R = E(R ^ B)`; `B` is only read.
pub(super) const CBC_MAC: ChainKind = 2;
/// `R = E(R)`, and `B` becomes `B ^ R` (OFB).
pub(super) const OFB: ChainKind = 3;

/// The blocks of a chain: written back (CBC, CFB) or only read (CBC-MAC).
pub(super) enum Blocks<'a> {
    Write(&'a mut [u8]),
    Read(&'a [u8]),
}

impl Blocks<'_> {
    fn len(&self) -> usize {
        match self {
            Blocks::Write(d) => d.len(),
            Blocks::Read(d) => d.len(),
        }
    }

    /// Block `i` (the caller keeps `i` below `len() / 16`).
    #[inline(always)]
    fn load(&self, i: usize) -> __m128i {
        match self {
            Blocks::Write(d) => load(&d[16 * i..]),
            Blocks::Read(d) => load(&d[16 * i..]),
        }
    }

    /// Writes block `i` (nothing for read-only blocks).
    #[inline(always)]
    fn store(&mut self, i: usize, v: __m128i) {
        if let Blocks::Write(d) = self {
            store(&mut d[16 * i..], v);
        }
    }
}

/// Runs the chain `kind` under `key` over the whole blocks of `blocks` (a partial block at the end
/// is left alone) from `register`, leaving the next chaining value there.
// Always inlined: with the kind a constant at the call site the dispatch folds to the round count.
#[inline(always)]
pub(super) fn run(key: &AesNi, kind: ChainKind, register: &mut [u8; 16], blocks: Blocks<'_>) {
    let keys = key.enc_round_keys();
    // SAFETY (all twelve): an `AesNi` exists only if the CPU has AES-NI (`AesNi::new` checks it),
    // the one feature `chain` enables.
    unsafe {
        match (key.rounds(), kind) {
            (10, CBC_ENCRYPT) => chain::<10, CBC_ENCRYPT>(keys, register, blocks),
            (10, CFB_ENCRYPT) => chain::<10, CFB_ENCRYPT>(keys, register, blocks),
            (10, OFB) => chain::<10, OFB>(keys, register, blocks),
            (10, _) => chain::<10, CBC_MAC>(keys, register, blocks),
            (12, CBC_ENCRYPT) => chain::<12, CBC_ENCRYPT>(keys, register, blocks),
            (12, CFB_ENCRYPT) => chain::<12, CFB_ENCRYPT>(keys, register, blocks),
            (12, OFB) => chain::<12, OFB>(keys, register, blocks),
            (12, _) => chain::<12, CBC_MAC>(keys, register, blocks),
            (_, CBC_ENCRYPT) => chain::<14, CBC_ENCRYPT>(keys, register, blocks),
            (_, CFB_ENCRYPT) => chain::<14, CFB_ENCRYPT>(keys, register, blocks),
            (_, OFB) => chain::<14, OFB>(keys, register, blocks),
            _ => chain::<14, CBC_MAC>(keys, register, blocks),
        }
    }
}

/// [`run`] with the round count `NR` and the chain `KIND` constants, so that the round keys stay
/// in registers and the rounds are unrolled.
#[target_feature(enable = "aes")]
fn chain<const NR: usize, const KIND: ChainKind>(
    keys: &RoundKeys,
    register: &mut [u8; 16],
    mut blocks: Blocks<'_>,
) {
    let count = blocks.len() / 16;
    if count == 0 {
        return;
    }
    if count == 1 {
        one::<NR, KIND>(keys, register, blocks);
        return;
    }
    let mut k = [_mm_setzero_si128(); MAX_ROUND_KEYS];
    for (r, key) in k.iter_mut().enumerate().take(NR + 1) {
        *key = keys.get(r);
    }
    let (first, last) = (k[0], k[NR]);
    // `w` is the whitened input of the next encipherment: its `R ^ B ^ K_0` (CBC, MAC) or
    // `R ^ K_0` (CFB). `B ^ K_0` first, off the chain: see `one`.
    let x0 = if KIND == CFB_ENCRYPT || KIND == OFB {
        first
    } else {
        _mm_xor_si128(blocks.load(0), first)
    };
    let r0 = load(register);
    let mut w = _mm_xor_si128(r0, x0);
    let mut out = r0;
    for i in 0..count {
        let mut t = w;
        for key in &k[1..NR] {
            t = _mm_aesenc_si128(t, *key);
        }
        if KIND == OFB {
            // The key stream block `Y = E(R)` is the next `R`: its next input `Y ^ K_0` comes out
            // of the last round directly.
            w = _mm_aesenclast_si128(t, _mm_xor_si128(last, first));
            out = _mm_xor_si128(w, first);
            blocks.store(i, _mm_xor_si128(blocks.load(i), out));
            continue;
        }
        if KIND == CFB_ENCRYPT {
            // `C = E(R) ^ B`, and the next input is `C ^ K_0`.
            let x = _mm_xor_si128(blocks.load(i), first);
            w = _mm_aesenclast_si128(t, _mm_xor_si128(last, x));
            out = _mm_xor_si128(w, first);
        } else if i + 1 < count {
            // The next input `E(..) ^ B_(i+1) ^ K_0` in one instruction; `E(..)` is that `^ X`.
            let x = _mm_xor_si128(blocks.load(i + 1), first);
            w = _mm_aesenclast_si128(t, _mm_xor_si128(last, x));
            out = _mm_xor_si128(w, x);
        } else {
            out = _mm_aesenclast_si128(t, last);
        }
        if KIND != CBC_MAC {
            blocks.store(i, out);
        }
    }
    // For OFB `out` is key stream: the caller wipes the register.
    store(register, out);
}

/// [`chain`] on exactly one block: the round keys are read by the rounds themselves instead of
/// being loaded into registers first, which for a single step is a dozen loads (and a spill) of
/// work for nothing. This is the whole of a one-block call made again and again with the register
/// carried between calls (a stream of short messages), where the chaining value goes from
/// `register` through the rounds and back to `register` with nothing else on its path.
#[inline]
#[target_feature(enable = "aes")]
fn one<const NR: usize, const KIND: ChainKind>(
    keys: &RoundKeys,
    register: &mut [u8; 16],
    mut blocks: Blocks<'_>,
) {
    let b = blocks.load(0);
    // The block joins before the first round (CBC, MAC) or through the last round key (CFB: the
    // last round ends with `^ K`, so `AESENCLAST(t, K_last ^ B) = E(R) ^ B`), never as an extra
    // step after the rounds. `B ^ K_0` is formed before the register is loaded: the compiler
    // reassociates a chain of XORs to combine the values defined last, last, so this keeps one
    // XOR between the register's load and the rounds (`R ^ B` first would put two there).
    let x = if KIND == CBC_ENCRYPT || KIND == CBC_MAC {
        _mm_xor_si128(b, keys.get(0))
    } else {
        keys.get(0)
    };
    let r = load(register);
    let mut t = _mm_xor_si128(r, x);
    for i in 1..NR {
        t = _mm_aesenc_si128(t, keys.get(i));
    }
    let last = if KIND == CFB_ENCRYPT {
        _mm_xor_si128(keys.get(NR), b)
    } else {
        keys.get(NR)
    };
    let out = _mm_aesenclast_si128(t, last);
    match KIND {
        // `out` is key stream: the caller wipes the register.
        OFB => blocks.store(0, _mm_xor_si128(b, out)),
        CBC_MAC => {}
        _ => blocks.store(0, out),
    }
    store(register, out);
}

/// CFB8 encryption of every byte of `data` from `register`, which becomes the last sixteen bytes
/// of `register || ciphertext` (see [`crate::block::Chain::Cfb8Encrypt`]).
#[inline]
pub(super) fn cfb8_encrypt(key: &AesNi, register: &mut [u8; 16], data: &mut [u8]) {
    let keys = key.enc_round_keys();
    // SAFETY (all three): an `AesNi` exists only if the CPU has AES-NI, the one feature `cfb8`
    // enables.
    unsafe {
        match key.rounds() {
            10 => cfb8::<10>(keys, register, data),
            12 => cfb8::<12>(keys, register, data),
            _ => cfb8::<14>(keys, register, data),
        }
    }
}

/// [`cfb8_encrypt`] with `NR` rounds. Per byte the chain is the rounds plus two single-cycle
/// steps: the plaintext byte joins through the last round key (`AESENCLAST(t, K_last ^ P) =
/// E(R) ^ P`, whose byte 0 is the ciphertext byte), and the next whitened input is
/// `(R >> 8 bytes-wise) ^ K_0`, made off the chain while the rounds run, XORed with that byte
/// shifted to the top (`R` shifted right one byte has a zero top byte, so XOR is the append).
/// Only the ciphertext byte leaves the last round's value; its other bytes are key stream and
/// stay in registers.
#[target_feature(enable = "aes")]
fn cfb8<const NR: usize>(keys: &RoundKeys, register: &mut [u8; 16], data: &mut [u8]) {
    let mut k = [_mm_setzero_si128(); MAX_ROUND_KEYS];
    for (r, key) in k.iter_mut().enumerate().take(NR + 1) {
        *key = keys.get(r);
    }
    let (first, last) = (k[0], k[NR]);
    let mut r = load(&register[..]);
    let mut w = _mm_xor_si128(r, first);
    for b in data.iter_mut() {
        let x = _mm_xor_si128(last, _mm_cvtsi32_si128(i32::from(*b)));
        let shifted = _mm_srli_si128::<1>(r);
        let mut t = w;
        for key in &k[1..NR] {
            t = _mm_aesenc_si128(t, *key);
        }
        let e = _mm_aesenclast_si128(t, x);
        // The ciphertext byte alone, at the top of the register.
        let c = _mm_slli_si128::<15>(e);
        r = _mm_xor_si128(shifted, c);
        w = _mm_xor_si128(_mm_xor_si128(shifted, first), c);
        *b = _mm_cvtsi128_si32(e) as u8;
    }
    store(&mut register[..], r);
}
