//! GHASH with the ARMv8 PMULL instruction (64 x 64 -> 128-bit carry-less multiply).
//!
//! Values are kept in GCM's own (reflected) order: a block read as a big-endian 128-bit integer, so
//! the coefficient of x^i sits at bit 127 - i. The carry-less product of two such values is the
//! reflected 255-bit product, one bit short of 256; after a one-bit left shift the low 128 bits hold
//! the coefficients of x^128..x^255, which fold back with x^128 = x^7 + x^2 + x + 1 (in reflected
//! order, multiplying by x^s is a right shift by s). Eight blocks are multiplied by H^8..H^1 and
//! summed before one reduction. PMULL runs in data-independent time; the rest is shifts and XORs.

use core::arch::aarch64::vmull_p64;

use zeroize::{Zeroize, ZeroizeOnDrop};

/// Blocks folded per reduction.
const AGGREGATE: usize = 8;

/// Powers of the hash subkey, `powers[k] = H^(k+1)` in reflected order. Holding one proves that the
/// CPU has PMULL: [`PmullKey::new`] is the only constructor and checks it.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(super) struct PmullKey {
    powers: [u128; AGGREGATE],
}

impl PmullKey {
    /// Precomputes H^1..H^8, or returns `None` when this CPU lacks PMULL.
    pub(super) fn new(h: &[u8; 16]) -> Option<PmullKey> {
        if !crate::cpu::features().arm_pmull {
            return None;
        }
        let mut powers = [0u128; AGGREGATE];
        // SAFETY: PMULL support was checked above.
        crate::util::powers(u128::from_be_bytes(*h), &mut powers, |a, b| unsafe {
            mul(a, b)
        });
        Some(PmullKey { powers })
    }

    /// H in reflected order.
    pub(super) fn h(&self) -> u128 {
        self.powers[0]
    }

    /// `a b` in GF(2^128), operands and result in reflected order.
    pub(super) fn mul(&self, a: u128, b: u128) -> u128 {
        // SAFETY: a `PmullKey` exists only if the CPU supports PMULL (see `new`).
        unsafe { mul(a, b) }
    }

    /// `state = GHASH` continued over the whole 16-byte blocks of `blocks` (state in wire order).
    pub(super) fn absorb(&self, state: &mut [u8; 16], blocks: &[u8]) {
        // SAFETY: a `PmullKey` exists only if the CPU supports PMULL (see `new`).
        unsafe { absorb(&self.powers, state, blocks) }
    }
}

/// The first 16 bytes of `b` as a big-endian 128-bit value.
#[inline(always)]
fn load_be(b: &[u8]) -> u128 {
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&b[..16]);
    u128::from_be_bytes(bytes)
}

/// An unreduced 256-bit product as its low, middle (weight 2^64) and high 128-bit parts.
#[derive(Clone, Copy, Default)]
struct Wide {
    lo: u128,
    mid: u128,
    hi: u128,
}

impl Wide {
    /// `self += a * b` (carry-less, schoolbook on 64-bit halves: four PMULLs).
    #[inline]
    #[target_feature(enable = "aes")]
    fn add_product(&mut self, a: u128, b: u128) {
        let (a0, a1) = (a as u64, (a >> 64) as u64);
        let (b0, b1) = (b as u64, (b >> 64) as u64);
        self.lo ^= vmull_p64(a0, b0);
        self.hi ^= vmull_p64(a1, b1);
        self.mid ^= vmull_p64(a0, b1) ^ vmull_p64(a1, b0);
    }

    /// Shift left by one and reduce (see the module doc); returns the reflected field element.
    #[inline(always)]
    fn reduce(self) -> u128 {
        let p_lo = self.lo ^ (self.mid << 64);
        let p_hi = self.hi ^ (self.mid >> 64);
        // Reflected 256-bit product: top half = x^0..x^127, bottom half = x^128..x^255.
        let top = (p_hi << 1) | (p_lo >> 127);
        let v = p_lo << 1;
        // v * (1 + x + x^2 + x^7): the part that stays below x^128 ...
        let folded = v ^ (v >> 1) ^ (v >> 2) ^ (v >> 7);
        // ... and the part that spills past x^127 (degree <= 6 after removing x^128), folded again.
        let spill = (v << 127) ^ (v << 126) ^ (v << 121);
        top ^ folded ^ spill ^ (spill >> 1) ^ (spill >> 2) ^ (spill >> 7)
    }
}

#[target_feature(enable = "aes")]
fn mul(a: u128, b: u128) -> u128 {
    let mut w = Wide::default();
    w.add_product(a, b);
    w.reduce()
}

#[target_feature(enable = "aes")]
fn absorb(h: &[u128; AGGREGATE], state: &mut [u8; 16], blocks: &[u8]) {
    let mut y = u128::from_be_bytes(*state);
    let mut groups = blocks.chunks_exact(16 * AGGREGATE);
    for group in &mut groups {
        // Y' = (Y ^ X_1) H^8 ^ X_2 H^7 ^ ... ^ X_8 H.
        let mut w = Wide::default();
        for (k, chunk) in group.chunks_exact(16).enumerate() {
            let x = load_be(chunk) ^ if k == 0 { y } else { 0 };
            w.add_product(x, h[AGGREGATE - 1 - k]);
        }
        y = w.reduce();
    }
    for chunk in groups.remainder().chunks_exact(16) {
        let mut w = Wide::default();
        w.add_product(load_be(chunk) ^ y, h[0]);
        y = w.reduce();
    }
    *state = y.to_be_bytes();
}
