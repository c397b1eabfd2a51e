//! Portable ChaCha20 core: the RFC 8439 block function for one state, and a batch generator that
//! computes [`LANES`] consecutive blocks per call. ChaCha20 uses only additions, XORs and fixed
//! rotations, so every path here is constant-time.

/// Blocks computed per batch call.
pub(super) const LANES: usize = 4;

/// Key stream bytes produced per batch call.
pub(super) const BATCH_BYTES: usize = 64 * LANES;

/// "expand 32-byte k" as four little-endian words (RFC 8439 section 2.3).
pub(super) const CONSTANTS: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];

/// The ChaCha quarter round on four words (RFC 8439 section 2.1).
#[inline(always)]
pub(super) fn quarter(mut a: u32, mut b: u32, mut c: u32, mut d: u32) -> (u32, u32, u32, u32) {
    a = a.wrapping_add(b);
    d = (d ^ a).rotate_left(16);
    c = c.wrapping_add(d);
    b = (b ^ c).rotate_left(12);
    a = a.wrapping_add(b);
    d = (d ^ a).rotate_left(8);
    c = c.wrapping_add(d);
    b = (b ^ c).rotate_left(7);
    (a, b, c, d)
}

/// The quarter round applied in place to state words `a, b, c, d` (all indices below 16).
#[inline(always)]
pub(super) fn quarter_at(s: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
    let (x, y, z, w) = quarter(s[a], s[b], s[c], s[d]);
    s[a] = x;
    s[b] = y;
    s[c] = z;
    s[d] = w;
}

/// The 20 ChaCha rounds (10 column rounds interleaved with 10 diagonal rounds), without the final
/// addition of the input state.
pub(super) fn rounds20(state: &[u32; 16]) -> [u32; 16] {
    let mut x = *state;
    for _ in 0..10 {
        quarter_at(&mut x, 0, 4, 8, 12);
        quarter_at(&mut x, 1, 5, 9, 13);
        quarter_at(&mut x, 2, 6, 10, 14);
        quarter_at(&mut x, 3, 7, 11, 15);
        quarter_at(&mut x, 0, 5, 10, 15);
        quarter_at(&mut x, 1, 6, 11, 12);
        quarter_at(&mut x, 2, 7, 8, 13);
        quarter_at(&mut x, 3, 4, 9, 14);
    }
    x
}

/// Writes the key stream of the [`LANES`] blocks with counters `counter, counter + 1, ...`
/// (mod 2^32; callers discard blocks past the end of the counter space) for the setup `state`
/// (whose word 12 is ignored), serialized little-endian, block after block, into the first
/// [`BATCH_BYTES`] bytes of `out` (whole blocks only if `out` is shorter).
///
/// Each block is computed on its own sixteen words, which fit in general-purpose registers. (Keeping
/// the blocks side by side in lane arrays was not auto-vectorised for baseline x86-64 and then
/// spilled to memory; the SIMD engines in `x86_sse2.rs`/`x86_avx2.rs` do the side-by-side form.)
pub(super) fn keystream_batch(state: &[u32; 16], counter: u32, out: &mut [u8]) {
    let mut s = *state;
    for (l, block) in out.chunks_exact_mut(64).take(LANES).enumerate() {
        s[12] = counter.wrapping_add(l as u32);
        let x = rounds20(&s);
        for ((bytes, w), i) in block.chunks_exact_mut(4).zip(x).zip(s) {
            bytes.copy_from_slice(&w.wrapping_add(i).to_le_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The batch must equal `LANES` single-block computations (the single-block path is checked
    /// against RFC 8439 in the parent module), including across the 2^32 counter wrap.
    #[test]
    fn batch_equals_single_blocks() {
        let mut state = [0u32; 16];
        for (i, w) in state.iter_mut().enumerate() {
            *w = (i as u32).wrapping_mul(0x9e37_79b9) ^ 0x0123_4567;
        }
        for start in [0u32, 1, 7, u32::MAX - 1] {
            let mut out = [0u8; BATCH_BYTES];
            keystream_batch(&state, start, &mut out);
            for l in 0..LANES {
                let mut s = state;
                s[12] = start.wrapping_add(l as u32);
                let r = rounds20(&s);
                for i in 0..16 {
                    let w = r[i].wrapping_add(s[i]).to_le_bytes();
                    assert_eq!(&out[l * 64 + 4 * i..l * 64 + 4 * i + 4], &w);
                }
            }
        }
    }
}
