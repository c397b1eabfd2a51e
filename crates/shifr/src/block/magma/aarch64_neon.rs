//! Magma / GOST 28147-89 with AArch64 NEON: eight blocks per pass, constant-time.
//!
//! The half-blocks of four blocks share one 128-bit register (one 32-bit lane each; two registers
//! per half give eight blocks). The substitution `t` never touches memory with a secret index: byte
//! `j` of a lane holds nibbles `2j` (low) and `2j + 1` (high), so adding `16 j` to each nibble turns
//! the eight 16-entry S-box rows into two 64-byte tables — rows 0, 2, 4, 6 for the low nibbles and
//! rows 1, 3, 5, 7 (pre-shifted by four bits) for the high ones — that sit in eight registers and
//! are read with two four-register TBL lookups. The rotation by 11 is a shift plus shift-insert.
//!
//! Compiled only for little-endian AArch64: the lane layout above (byte `j` of a lane = bits
//! `8j..8j+8`) and the word loads assume it. NEON is part of the AArch64 baseline; `cpu::select`
//! still offers the backend as `Backend::Neon` so that `SHIFR_BACKEND=portable` turns it off.

use core::arch::aarch64::{
    uint32x4_t, uint8x16_t, uint8x16x4_t, vaddq_u32, vandq_u8, vdupq_n_u32, vdupq_n_u8, veorq_u32,
    vld1q_u8, vorrq_u8, vqtbl4q_u8, vreinterpretq_u32_u8, vreinterpretq_u8_u32, vrev32q_u8,
    vshlq_n_u32, vshrq_n_u8, vsriq_n_u32, vst1q_u8, vuzp1q_u32, vuzp2q_u32, vzip1q_u32, vzip2q_u32,
};

use zeroize::Zeroize;

use super::sbox::SBox;
use super::soft::{Core, Layout};

/// Blocks per pass: two registers of four 32-bit lanes for each half.
const BLOCKS: usize = 8;
/// Registers per half.
const REGS: usize = BLOCKS / 4;

/// Encrypts the whole 8-byte blocks of `data` in place with the keys of `core`.
pub(super) fn encrypt_blocks(core: &Core, layout: Layout, data: &mut [u8]) {
    process(core.encrypt_keys(), core.sbox(), layout, data);
}

/// Decrypts the whole 8-byte blocks of `data` in place: the rounds with the keys reversed.
pub(super) fn decrypt_blocks(core: &Core, layout: Layout, data: &mut [u8]) {
    let mut keys = *core.encrypt_keys();
    keys.reverse();
    process(&keys, core.sbox(), layout, data);
    keys.zeroize();
}

fn process(keys: &[u32; 32], sbox: SBox, layout: Layout, data: &mut [u8]) {
    // SAFETY: NEON is enabled on every AArch64 Linux target (part of the baseline instruction set),
    // and this module is compiled only for AArch64.
    unsafe { process_neon(keys, sbox, layout, data) }
}

/// The two 64-byte lookup tables of an S-box set, as bytes (see the module documentation).
fn table_bytes(sbox: SBox) -> ([u8; 64], [u8; 64]) {
    let rows = sbox.rows();
    let mut low = [0u8; 64];
    let mut high = [0u8; 64];
    for j in 0..4 {
        for n in 0..16 {
            low[16 * j + n] = rows[2 * j][n];
            high[16 * j + n] = rows[2 * j + 1][n] << 4;
        }
    }
    (low, high)
}

/// The S-box tables in registers, with the per-byte row offsets.
struct Tables {
    low: uint8x16x4_t,
    high: uint8x16x4_t,
    /// 0, 16, 32, 48 repeated: byte `j` of each lane selects rows `2j` / `2j + 1`.
    offsets: uint8x16_t,
    nibble: uint8x16_t,
}

#[inline]
#[target_feature(enable = "neon")]
fn load16(b: &[u8]) -> uint8x16_t {
    let b = &b[..16];
    // SAFETY: `b` is exactly 16 readable bytes and `vld1q_u8` has no alignment requirement.
    unsafe { vld1q_u8(b.as_ptr()) }
}

#[inline]
#[target_feature(enable = "neon")]
fn store16(b: &mut [u8], v: uint8x16_t) {
    let b = &mut b[..16];
    // SAFETY: `b` is exactly 16 writable bytes and `vst1q_u8` has no alignment requirement.
    unsafe { vst1q_u8(b.as_mut_ptr(), v) }
}

impl Tables {
    #[inline]
    #[target_feature(enable = "neon")]
    fn new(sbox: SBox) -> Tables {
        let (low, high) = table_bytes(sbox);
        let four = |t: &[u8; 64]| {
            uint8x16x4_t(
                load16(&t[..16]),
                load16(&t[16..32]),
                load16(&t[32..48]),
                load16(&t[48..]),
            )
        };
        let offsets: [u8; 16] = core::array::from_fn(|i| 16 * (i % 4) as u8);
        Tables {
            low: four(&low),
            high: four(&high),
            offsets: load16(&offsets),
            nibble: vdupq_n_u8(0x0f),
        }
    }

    /// `g(x) = t(x) <<< 11` on four lanes, with TBL lookups only.
    #[inline]
    #[target_feature(enable = "neon")]
    fn g(&self, x: uint32x4_t) -> uint32x4_t {
        let bytes = vreinterpretq_u8_u32(x);
        let low_idx = vorrq_u8(vandq_u8(bytes, self.nibble), self.offsets);
        let high_idx = vorrq_u8(vshrq_n_u8::<4>(bytes), self.offsets);
        let t = vreinterpretq_u32_u8(vorrq_u8(
            vqtbl4q_u8(self.low, low_idx),
            vqtbl4q_u8(self.high, high_idx),
        ));
        vsriq_n_u32::<21>(vshlq_n_u32::<11>(t), t)
    }
}

/// Splits 4 blocks (32 bytes) into their first and second 32-bit words, one block per lane.
#[inline]
#[target_feature(enable = "neon")]
fn load4(b: &[u8]) -> (uint32x4_t, uint32x4_t) {
    let v0 = vreinterpretq_u32_u8(load16(&b[..16]));
    let v1 = vreinterpretq_u32_u8(load16(&b[16..32]));
    (vuzp1q_u32(v0, v1), vuzp2q_u32(v0, v1))
}

/// The inverse of [`load4`].
#[inline]
#[target_feature(enable = "neon")]
fn store4(b: &mut [u8], first: uint32x4_t, second: uint32x4_t) {
    store16(
        &mut b[..16],
        vreinterpretq_u8_u32(vzip1q_u32(first, second)),
    );
    store16(
        &mut b[16..32],
        vreinterpretq_u8_u32(vzip2q_u32(first, second)),
    );
}

#[inline]
#[target_feature(enable = "neon")]
fn byte_swap(v: uint32x4_t) -> uint32x4_t {
    vreinterpretq_u32_u8(vrev32q_u8(vreinterpretq_u8_u32(v)))
}

/// Encrypts (or, with reversed keys, decrypts) the eight blocks of `group` (64 bytes).
#[inline]
#[target_feature(enable = "neon")]
fn eight_blocks(keys: &[u32; 32], tables: &Tables, layout: Layout, group: &mut [u8]) {
    let mut a1 = [vdupq_n_u32(0); REGS];
    let mut a0 = [vdupq_n_u32(0); REGS];
    for r in 0..REGS {
        let (first, second) = load4(&group[32 * r..]);
        (a1[r], a0[r]) = match layout {
            Layout::BigEndian => (byte_swap(first), byte_swap(second)),
            Layout::Gost89 => (second, first),
        };
    }
    // Two rounds per step, without swapping the halves: after an even number of rounds each half
    // is back in its own variable.
    for pair in keys.chunks_exact(2) {
        let (k0, k1) = (vdupq_n_u32(pair[0]), vdupq_n_u32(pair[1]));
        for r in 0..REGS {
            a1[r] = veorq_u32(a1[r], tables.g(vaddq_u32(a0[r], k0)));
        }
        for r in 0..REGS {
            a0[r] = veorq_u32(a0[r], tables.g(vaddq_u32(a1[r], k1)));
        }
    }
    // The last round has no swap: the output is (a_1, a_0) = (a0, a1).
    for r in 0..REGS {
        let (out1, out0) = (a0[r], a1[r]);
        let (first, second) = match layout {
            Layout::BigEndian => (byte_swap(out1), byte_swap(out0)),
            Layout::Gost89 => (out0, out1),
        };
        store4(&mut group[32 * r..], first, second);
    }
}

#[target_feature(enable = "neon")]
fn process_neon(keys: &[u32; 32], sbox: SBox, layout: Layout, data: &mut [u8]) {
    let tables = Tables::new(sbox);
    let whole = data.len() - data.len() % 8;
    let mut groups = data[..whole].chunks_exact_mut(8 * BLOCKS);
    for group in &mut groups {
        eight_blocks(keys, &tables, layout, group);
    }
    let rest = groups.into_remainder();
    if !rest.is_empty() {
        // Fewer than eight blocks left: run them through a padded buffer.
        let mut buf = [0u8; 8 * BLOCKS];
        buf[..rest.len()].copy_from_slice(rest);
        eight_blocks(keys, &tables, layout, &mut buf);
        rest.copy_from_slice(&buf[..rest.len()]);
        buf.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift64*), enough to vary keys, data and lengths.
    fn fill(seed: &mut u64, out: &mut [u8]) {
        for b in out {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            *b = (seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8;
        }
    }

    /// NEON against the portable rounds, both layouts and S-box sets, every length from 0 to
    /// 17 blocks plus odd tails, and a few KiB.
    #[test]
    fn agrees_with_portable() {
        let mut seed = 0x0123_4567_89ab_cdef;
        for &sbox in SBox::ALL {
            for layout in [Layout::BigEndian, Layout::Gost89] {
                let mut key = [0u32; 32];
                for k in key.iter_mut() {
                    let mut b = [0u8; 4];
                    fill(&mut seed, &mut b);
                    *k = u32::from_le_bytes(b);
                }
                let core = Core::new(key, sbox, layout, super::super::kernel::Kernel::Portable);
                let lengths = (0..=17 * 8).chain([8 * 8 + 3, 5, 4096, 4096 + 7, 5000]);
                for len in lengths {
                    let mut data = vec![0u8; len];
                    fill(&mut seed, &mut data);
                    let mut expected = data.clone();
                    core.encrypt_blocks(&mut expected);
                    let mut got = data.clone();
                    encrypt_blocks(&core, layout, &mut got);
                    assert_eq!(got, expected, "{sbox:?} {layout:?} encrypt len {len}");
                    decrypt_blocks(&core, layout, &mut got);
                    assert_eq!(got, data, "{sbox:?} {layout:?} decrypt len {len}");
                }
            }
        }
    }
}
