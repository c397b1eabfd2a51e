//! ChaCha20 key stream with AArch64 NEON: four blocks at once, one 128-bit register per state word
//! (lane `l` of every register belongs to block `counter + l`), transposed to block order on output.
//!
//! NEON (Advanced SIMD) is part of the AArch64 baseline, so this path needs no run-time check to be
//! sound; `cpu::select` still offers it as `Backend::Neon` so that `SHIFR_BACKEND=portable` can turn
//! it off. Additions, XORs and shift-insert rotations only: constant-time.
//!
//! Compiled only for little-endian AArch64: the stores below write lane 0 first with each 32-bit
//! lane in memory order, which is ChaCha20's little-endian serialization only on little-endian cores.

use core::arch::aarch64::{
    uint32x4_t, vaddq_u32, vdupq_n_u32, veorq_u32, vld1q_u32, vreinterpretq_u16_u32,
    vreinterpretq_u32_u16, vreinterpretq_u32_u64, vreinterpretq_u64_u32, vreinterpretq_u8_u32,
    vrev32q_u16, vshlq_n_u32, vsriq_n_u32, vst1q_u8, vtrn1q_u32, vtrn1q_u64, vtrn2q_u32,
    vtrn2q_u64,
};

/// Blocks per call.
pub(super) const BLOCKS: usize = 4;

/// Writes the key stream of blocks `counter .. counter + 4` (mod 2^32) into the first 256 bytes
/// of `out` (whole 16-byte pieces only if `out` is shorter).
pub(super) fn keystream(state: &[u32; 16], counter: u32, out: &mut [u8]) {
    // SAFETY: NEON is enabled on every AArch64 Linux target (part of the baseline instruction set),
    // and this module is compiled only for AArch64.
    unsafe { keystream_neon(state, counter, out) }
}

/// `x <<< 16`: swap the 16-bit halves of every 32-bit lane.
#[inline]
#[target_feature(enable = "neon")]
fn rotl16(x: uint32x4_t) -> uint32x4_t {
    vreinterpretq_u32_u16(vrev32q_u16(vreinterpretq_u16_u32(x)))
}

/// `x <<< L` for `L + R = 32`: shift left, then insert the bits shifted right.
#[inline]
#[target_feature(enable = "neon")]
fn rotl<const L: i32, const R: i32>(x: uint32x4_t) -> uint32x4_t {
    vsriq_n_u32::<R>(vshlq_n_u32::<L>(x), x)
}

#[inline]
#[target_feature(enable = "neon")]
fn quarter(a: &mut uint32x4_t, b: &mut uint32x4_t, c: &mut uint32x4_t, d: &mut uint32x4_t) {
    *a = vaddq_u32(*a, *b);
    *d = rotl16(veorq_u32(*d, *a));
    *c = vaddq_u32(*c, *d);
    *b = rotl::<12, 20>(veorq_u32(*b, *c));
    *a = vaddq_u32(*a, *b);
    *d = rotl::<8, 24>(veorq_u32(*d, *a));
    *c = vaddq_u32(*c, *d);
    *b = rotl::<7, 25>(veorq_u32(*b, *c));
}

/// Stores `v` into the 16 bytes `out[at..at + 16]` (nothing if they are out of bounds).
#[inline]
#[target_feature(enable = "neon")]
fn store(out: &mut [u8], at: usize, v: uint32x4_t) {
    if let Some(dst) = out.get_mut(at..at + 16) {
        // SAFETY: `dst` is exactly 16 writable bytes and `vst1q_u8` has no alignment requirement.
        unsafe { vst1q_u8(dst.as_mut_ptr(), vreinterpretq_u8_u32(v)) }
    }
}

#[target_feature(enable = "neon")]
fn keystream_neon(state: &[u32; 16], counter: u32, out: &mut [u8]) {
    let mut input = [vdupq_n_u32(0); 16];
    for (v, w) in input.iter_mut().zip(state) {
        *v = vdupq_n_u32(*w);
    }
    let offsets = [0u32, 1, 2, 3];
    // SAFETY: `offsets` is four readable u32.
    let offsets = unsafe { vld1q_u32(offsets.as_ptr()) };
    input[12] = vaddq_u32(vdupq_n_u32(counter), offsets);

    let [mut x0, mut x1, mut x2, mut x3, mut x4, mut x5, mut x6, mut x7, mut x8, mut x9, mut x10, mut x11, mut x12, mut x13, mut x14, mut x15] =
        input;
    for _ in 0..10 {
        quarter(&mut x0, &mut x4, &mut x8, &mut x12);
        quarter(&mut x1, &mut x5, &mut x9, &mut x13);
        quarter(&mut x2, &mut x6, &mut x10, &mut x14);
        quarter(&mut x3, &mut x7, &mut x11, &mut x15);
        quarter(&mut x0, &mut x5, &mut x10, &mut x15);
        quarter(&mut x1, &mut x6, &mut x11, &mut x12);
        quarter(&mut x2, &mut x7, &mut x8, &mut x13);
        quarter(&mut x3, &mut x4, &mut x9, &mut x14);
    }
    let x = [
        x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15,
    ];

    // Words 4g..4g+3 of the four blocks form a 4x4 matrix (rows = words, lanes = blocks);
    // transposing it gives 16 consecutive key stream bytes of each block.
    for g in 0..4 {
        let w = |i: usize| vaddq_u32(x[4 * g + i], input[4 * g + i]);
        let (a, b, c, d) = (w(0), w(1), w(2), w(3));
        let ab_even = vreinterpretq_u64_u32(vtrn1q_u32(a, b)); // a0 b0 a2 b2
        let ab_odd = vreinterpretq_u64_u32(vtrn2q_u32(a, b)); // a1 b1 a3 b3
        let cd_even = vreinterpretq_u64_u32(vtrn1q_u32(c, d)); // c0 d0 c2 d2
        let cd_odd = vreinterpretq_u64_u32(vtrn2q_u32(c, d)); // c1 d1 c3 d3
        let block = |v| vreinterpretq_u32_u64(v);
        store(out, 16 * g, block(vtrn1q_u64(ab_even, cd_even)));
        store(out, 64 + 16 * g, block(vtrn1q_u64(ab_odd, cd_odd)));
        store(out, 128 + 16 * g, block(vtrn2q_u64(ab_even, cd_even)));
        store(out, 192 + 16 * g, block(vtrn2q_u64(ab_odd, cd_odd)));
    }
}
