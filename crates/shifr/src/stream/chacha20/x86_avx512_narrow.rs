//! ChaCha20 with AVX-512 for a stream call of [`MIN_BYTES`] to [`MAX_BYTES`] bytes: the horizontal
//! form of `x86_avx512_short.rs` (each 512-bit register holds one row of the 4x4 state for four
//! blocks, 128-bit lane `l` belonging to block `counter + l`; the diagonal rounds rotate the rows
//! within each lane with `vpshufd`) in one to four independent groups of four blocks, with the key
//! stream XORed straight into the whole blocks of the data. Only the blocks after them (the key
//! stream of a partial last block and of the blocks computed beyond it) go to the stream's
//! buffer, so a call of whole blocks neither writes nor reads the buffer.
//!
//! One or two groups cost about the latency of one chain of 20 rounds; three or four fill the
//! vector pipes. Below a whole batch this beats the sixteen-block kernel (`x86_avx512.rs`), which
//! would compute up to four times the key stream needed and, for a partial batch, send it through
//! the buffer; for a whole batch that kernel is faster (fewer operations per block: no diagonal
//! shuffles, and its first round partly precomputed).
//!
//! Used only when the CPU reports AVX-512 F (checked by the caller through [`crate::cpu`]).
//! Additions, XORs, rotations, fixed shuffles and blends only: constant-time.

use core::arch::x86_64::{_mm512_loadu_si512, _mm512_storeu_si512, _mm512_xor_si512};

use super::x86_avx512_short as short;

/// Blocks of one group (one register per row).
const GROUP_BLOCKS: usize = short::GROUP_BLOCKS;

/// The shortest call this kernel takes: below it, one computation of four blocks is shared by
/// several calls through the buffer.
pub(super) const MIN_BYTES: usize = 64 * GROUP_BLOCKS;

/// The longest call this kernel takes (four groups).
pub(super) const MAX_BYTES: usize = 4 * MIN_BYTES;

/// XORs the key stream of blocks `counter ..` (block counters taken mod 2^32) into the whole
/// 64-byte blocks of `data` and writes the key stream of the blocks after them into `rest` from
/// its start: four blocks per started [`MIN_BYTES`] of `data` (up to sixteen). Returns the number
/// of blocks computed; 0 (nothing done) if `data` is shorter than [`MIN_BYTES`] or longer than
/// [`MAX_BYTES`]. `state` is the setup state; its word 12 is ignored. Callers must have checked
/// that the CPU supports AVX-512 F.
#[target_feature(enable = "avx512f")]
pub(super) fn xor(
    state: &[u32; 16],
    counter: u32,
    data: &mut [u8],
    rest: &mut [u8; MAX_BYTES],
) -> usize {
    if !(MIN_BYTES..=MAX_BYTES).contains(&data.len()) {
        return 0;
    }
    match data.len().div_ceil(MIN_BYTES) {
        1 => groups::<1>(state, counter, data, rest),
        2 => groups::<2>(state, counter, data, rest),
        3 => groups::<3>(state, counter, data, rest),
        _ => groups::<4>(state, counter, data, rest),
    }
    GROUP_BLOCKS * data.len().div_ceil(MIN_BYTES)
}

/// `G` groups of four blocks from `counter`: block `j` is XORed into `data[64 j..64 j + 64]` if
/// that is a whole block of `data`, else stored into `rest` after the blocks before it that were
/// not whole blocks of `data`.
#[inline]
#[target_feature(enable = "avx512f")]
fn groups<const G: usize>(state: &[u32; 16], counter: u32, data: &mut [u8], rest: &mut [u8]) {
    let start = short::start::<G>(state, counter);
    let mut x = start;
    for _ in 0..10 {
        short::double_round(&mut x);
    }
    let whole = data.len() / 64;
    for (g, blocks) in short::finish(&x, &start).into_iter().enumerate() {
        for (l, v) in blocks.into_iter().enumerate() {
            let j = GROUP_BLOCKS * g + l;
            if j < whole {
                if let Some(dst) = data.get_mut(64 * j..64 * j + 64) {
                    let p = dst.as_mut_ptr();
                    // SAFETY: `dst` is exactly 64 readable and writable bytes; `loadu`/`storeu`
                    // have no alignment requirement.
                    unsafe {
                        let v = _mm512_xor_si512(_mm512_loadu_si512(p.cast()), v);
                        _mm512_storeu_si512(p.cast(), v);
                    }
                }
            } else if let Some(dst) = rest.get_mut(64 * (j - whole)..64 * (j - whole) + 64) {
                // SAFETY: `dst` is exactly 64 writable bytes; `storeu` has no alignment
                // requirement.
                unsafe { _mm512_storeu_si512(dst.as_mut_ptr().cast(), v) };
            }
        }
    }
}
