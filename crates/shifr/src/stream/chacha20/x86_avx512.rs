//! ChaCha20 key stream with AVX-512: sixteen blocks at once, one 512-bit register per state word
//! (lane `l` of every register belongs to block `counter + l`), rotations with `vprold`, and an
//! in-register transpose to block order on output, XORed into the data with full 64-byte loads
//! and stores.
//!
//! One call runs over a whole run of 1 KiB batches, so the per-batch work is the rounds, the
//! transpose and the XOR: the state words are broadcast from memory. The first column round of
//! columns 1..3 and the first additions of column 0 and of diagonals 1 and 2 involve only the
//! constants, the key and the nonce, which are the same in every block: they are computed in
//! scalar code ([`Head`]; once per cipher by the stream, [`keystream_with`], else once per call)
//! and broadcast, saving 39 of the 960 vector operations of the rounds of a batch.
//!
//! Used only when the CPU reports AVX-512 F (checked by the caller through [`crate::cpu`]).
//! Additions, XORs and rotations only: constant-time.

use super::soft;
use core::arch::x86_64::{
    __m512i, _mm512_add_epi32, _mm512_loadu_si512, _mm512_rol_epi32, _mm512_set1_epi32,
    _mm512_set_epi32, _mm512_shuffle_i32x4, _mm512_storeu_si512, _mm512_unpackhi_epi32,
    _mm512_unpackhi_epi64, _mm512_unpacklo_epi32, _mm512_unpacklo_epi64, _mm512_xor_si512,
};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Blocks per batch.
pub(super) const BLOCKS: usize = 16;

/// Bytes per batch.
pub(crate) const BATCH: usize = 64 * BLOCKS;

/// The state words that are equal in every block after the first column round of columns 1..3,
/// plus the three first additions of the first double round that use only such words.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct Head {
    /// The setup state after the column round on columns 1, 2 and 3 (column 0 untouched).
    w: [u32; 16],
    /// `x0 + x4` (column 0's first addition; neither word depends on the counter).
    a0: u32,
    /// `x1 + x6` and `x2 + x7` after the column round (diagonals 1 and 2's first additions).
    a1: u32,
    a2: u32,
}

impl Head {
    pub(crate) fn new(state: &[u32; 16]) -> Head {
        let mut w = *state;
        soft::quarter_at(&mut w, 1, 5, 9, 13);
        soft::quarter_at(&mut w, 2, 6, 10, 14);
        soft::quarter_at(&mut w, 3, 7, 11, 15);
        Head {
            a0: state[0].wrapping_add(state[4]),
            a1: w[1].wrapping_add(w[6]),
            a2: w[2].wrapping_add(w[7]),
            w,
        }
    }
}

/// For each whole 1 KiB batch of `data`, in order, writes (or, if `XOR`, XORs into the batch) the
/// key stream of the next sixteen blocks, starting at block `counter` (block counters taken mod
/// 2^32). Bytes past the last whole batch are left alone. `state` is the setup state; its word 12
/// is ignored. Callers must have checked that the CPU supports AVX-512 F.
#[target_feature(enable = "avx512f")]
pub(super) fn keystream<const XOR: bool>(state: &[u32; 16], counter: u32, data: &mut [u8]) {
    keystream_with::<XOR>(&Head::new(state), state, counter, data);
}

/// [`keystream`] with the [`Head`] of `state` computed by the caller (once per key and nonce,
/// where a stream makes many calls).
#[target_feature(enable = "avx512f")]
pub(crate) fn keystream_with<const XOR: bool>(
    head: &Head,
    state: &[u32; 16],
    counter: u32,
    data: &mut [u8],
) {
    // A one-batch call (the common 1 KiB message) gets its own copy of the batch code, without
    // the loop: in the loop, the broadcasts of `head` and `state` are hoisted out of it and,
    // with the sixteen state registers and the transpose live, spilled to the stack as whole
    // 64-byte vectors up front, a cost a single batch does not win back; here they stay
    // embedded-broadcast operands of the instructions that use them.
    if let Ok(batch) = <&mut [u8; BATCH]>::try_from(&mut *data) {
        one_batch::<XOR>(head, state, counter, batch);
        return;
    }
    let mut ctr = counter;
    for batch in data.chunks_exact_mut(BATCH) {
        if let Ok(batch) = batch.try_into() {
            one_batch::<XOR>(head, state, ctr, batch);
        }
        ctr = ctr.wrapping_add(BLOCKS as u32);
    }
}

/// The key stream of blocks `$counter .. $counter + 16` (mod 2^32) from `$head: &Head` and
/// `$state: &[u32; 16]` as sixteen word registers (lane `l` of register `i` is word `i` of block
/// `$counter + l`), with the closure `$between` called with `i` after double round `i` (1 to 9;
/// the first double round, partly precomputed in the head, has no call). A macro, not a
/// function, so that the rounds are always expanded into their caller: as an `#[inline]`
/// function LLVM made it a call that returns the sixteen registers through memory, 2-3 % of the
/// bulk key stream.
macro_rules! batch_words {
    ($head:expr, $state:expr, $counter:expr, $between:expr) => {{
        #[allow(unused_mut)]
        let mut between = $between;
        let ctr = _mm512_add_epi32(
            splat($counter),
            _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
        );
        let mut x: [__m512i; 16] = [
            splat($head.a0),
            splat($head.w[1]),
            splat($head.w[2]),
            splat($head.w[3]),
            splat($head.w[4]),
            splat($head.w[5]),
            splat($head.w[6]),
            splat($head.w[7]),
            splat($head.w[8]),
            splat($head.w[9]),
            splat($head.w[10]),
            splat($head.w[11]),
            ctr,
            splat($head.w[13]),
            splat($head.w[14]),
            splat($head.w[15]),
        ];
        // First double round: column 0 (its `x0 + x4` already in x[0]); columns 1..3 are in
        // `head`; diagonals 1 and 2 start from their precomputed first sums.
        quarter_tail(&mut x, 0, 4, 8, 12);
        quarter(&mut x, 0, 5, 10, 15);
        x[1] = splat($head.a1);
        quarter_tail(&mut x, 1, 6, 11, 12);
        x[2] = splat($head.a2);
        quarter_tail(&mut x, 2, 7, 8, 13);
        quarter(&mut x, 3, 4, 9, 14);
        for round in 1..10 {
            quarter(&mut x, 0, 4, 8, 12);
            quarter(&mut x, 1, 5, 9, 13);
            quarter(&mut x, 2, 6, 10, 14);
            quarter(&mut x, 3, 7, 11, 15);
            quarter(&mut x, 0, 5, 10, 15);
            quarter(&mut x, 1, 6, 11, 12);
            quarter(&mut x, 2, 7, 8, 13);
            quarter(&mut x, 3, 4, 9, 14);
            between(round);
        }
        for (i, (v, w)) in x.iter_mut().zip($state).enumerate() {
            let input = if i == 12 { ctr } else { splat(*w) };
            *v = _mm512_add_epi32(*v, input);
        }
        x
    }};
}

/// One batch of [`keystream`]: the key stream of blocks `counter .. counter + 16` (mod 2^32)
/// written into (or, if `XOR`, XORed into) `out`.
#[inline]
#[target_feature(enable = "avx512f")]
fn one_batch<const XOR: bool>(head: &Head, state: &[u32; 16], counter: u32, out: &mut [u8; BATCH]) {
    let x = batch_words!(head, state, counter, |_| {});
    transpose_store::<XOR>(&x, out);
}

/// XORs the key stream of blocks `counter .. counter + 16` (mod 2^32) into `out`, with
/// `between(i, out)` run after double round `i` (1 to 9), before `out` is changed: work placed
/// there overlaps the rounds' vector chains in the core (the stitched ChaCha20-Poly1305 absorbs
/// ciphertext there on the general-purpose registers, `out`'s own on open). Callers must have
/// checked that the CPU supports AVX-512 F.
#[target_feature(enable = "avx512f")]
pub(crate) fn xor_batch_between(
    head: &Head,
    state: &[u32; 16],
    counter: u32,
    out: &mut [u8; BATCH],
    mut between: impl FnMut(usize, &[u8; BATCH]),
) {
    let x = batch_words!(head, state, counter, |round| between(round, out));
    transpose_store::<true>(&x, out);
}

#[inline]
#[target_feature(enable = "avx512f")]
fn splat(w: u32) -> __m512i {
    _mm512_set1_epi32(w as i32)
}

/// The quarter round on state words `a, b, c, d` after its first step (`x[a] += x[b]`).
#[inline]
#[target_feature(enable = "avx512f")]
fn quarter_tail(x: &mut [__m512i; 16], a: usize, b: usize, c: usize, d: usize) {
    x[d] = _mm512_rol_epi32::<16>(_mm512_xor_si512(x[d], x[a]));
    x[c] = _mm512_add_epi32(x[c], x[d]);
    x[b] = _mm512_rol_epi32::<12>(_mm512_xor_si512(x[b], x[c]));
    x[a] = _mm512_add_epi32(x[a], x[b]);
    x[d] = _mm512_rol_epi32::<8>(_mm512_xor_si512(x[d], x[a]));
    x[c] = _mm512_add_epi32(x[c], x[d]);
    x[b] = _mm512_rol_epi32::<7>(_mm512_xor_si512(x[b], x[c]));
}

#[inline]
#[target_feature(enable = "avx512f")]
fn quarter(x: &mut [__m512i; 16], a: usize, b: usize, c: usize, d: usize) {
    x[a] = _mm512_add_epi32(x[a], x[b]);
    quarter_tail(x, a, b, c, d);
}

/// Transposes the sixteen word registers `x` to sixteen 64-byte blocks and stores them into (or,
/// if `XOR`, XORs them into) `out[..1024]` (nothing if `out` is shorter).
#[inline]
#[target_feature(enable = "avx512f")]
fn transpose_store<const XOR: bool>(x: &[__m512i; 16], out: &mut [u8]) {
    let Some(out) = out.get_mut(..BATCH) else {
        return;
    };
    // Step 1: a 4x4 transpose of 32-bit words inside every 128-bit lane. For word group g
    // (words 4g..4g+3), t[g][r] then holds, in its 128-bit lane q, words 4g..4g+3 of block 4q + r.
    let mut t = [[splat(0); 4]; 4];
    for (g, tg) in t.iter_mut().enumerate() {
        let (a, b, c, d) = (x[4 * g], x[4 * g + 1], x[4 * g + 2], x[4 * g + 3]);
        let ab_lo = _mm512_unpacklo_epi32(a, b);
        let cd_lo = _mm512_unpacklo_epi32(c, d);
        let ab_hi = _mm512_unpackhi_epi32(a, b);
        let cd_hi = _mm512_unpackhi_epi32(c, d);
        *tg = [
            _mm512_unpacklo_epi64(ab_lo, cd_lo),
            _mm512_unpackhi_epi64(ab_lo, cd_lo),
            _mm512_unpacklo_epi64(ab_hi, cd_hi),
            _mm512_unpackhi_epi64(ab_hi, cd_hi),
        ];
    }
    // Step 2: a 4x4 transpose of 128-bit lanes across the four word groups, so that one register
    // holds a whole 64-byte block (block 4q + r gathers lane q of t[0][r], ..., t[3][r]).
    let [t0, t1, t2, t3] = t;
    let rows = t0.into_iter().zip(t1).zip(t2.into_iter().zip(t3));
    for (r, ((g0, g1), (g2, g3))) in rows.enumerate() {
        // [g0.q0, g0.q1, g1.q0, g1.q1] and [g0.q2, g0.q3, g1.q2, g1.q3], likewise for g2/g3.
        let lo01 = _mm512_shuffle_i32x4::<0x44>(g0, g1);
        let hi01 = _mm512_shuffle_i32x4::<0xee>(g0, g1);
        let lo23 = _mm512_shuffle_i32x4::<0x44>(g2, g3);
        let hi23 = _mm512_shuffle_i32x4::<0xee>(g2, g3);
        let blocks = [
            _mm512_shuffle_i32x4::<0x88>(lo01, lo23), // q = 0
            _mm512_shuffle_i32x4::<0xdd>(lo01, lo23), // q = 1
            _mm512_shuffle_i32x4::<0x88>(hi01, hi23), // q = 2
            _mm512_shuffle_i32x4::<0xdd>(hi01, hi23), // q = 3
        ];
        for (q, v) in blocks.into_iter().enumerate() {
            store::<XOR>(out, (4 * q + r) * 64, v);
        }
    }
}

/// Stores `v` into (or, if `XOR`, XORs it into) the 64 bytes `out[at..at + 64]` (nothing if they
/// are out of bounds).
#[inline]
#[target_feature(enable = "avx512f")]
fn store<const XOR: bool>(out: &mut [u8], at: usize, v: __m512i) {
    if let Some(dst) = out.get_mut(at..at + 64) {
        let p = dst.as_mut_ptr();
        // SAFETY: `dst` is exactly 64 readable and writable bytes; `loadu`/`storeu` have no
        // alignment requirement.
        unsafe {
            let v = if XOR {
                _mm512_xor_si512(_mm512_loadu_si512(p.cast()), v)
            } else {
                v
            };
            _mm512_storeu_si512(p.cast(), v)
        }
    }
}
