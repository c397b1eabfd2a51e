//! ChaCha20 key stream with AVX-512: sixteen blocks at once, one 512-bit register per state word
//! (lane `l` of every register belongs to block `counter + l`), rotations with `vprold`, and a
//! transpose to block order on output.
//!
//! Used only when the CPU reports AVX-512 F (checked by the caller through [`crate::cpu`]).
//! Additions, XORs and rotations only: constant-time.

use core::arch::x86_64::{
    __m512i, _mm512_add_epi32, _mm512_loadu_si512, _mm512_rol_epi32, _mm512_set1_epi32,
    _mm512_set_epi32, _mm512_shuffle_i32x4, _mm512_storeu_si512, _mm512_unpackhi_epi32,
    _mm512_unpackhi_epi64, _mm512_unpacklo_epi32, _mm512_unpacklo_epi64, _mm512_xor_si512,
};

/// Blocks per call.
pub(super) const BLOCKS: usize = 16;

/// Writes the key stream of blocks `counter .. counter + 16` (mod 2^32) into `out`, or XORs it
/// into `out` when `XOR` (one pass over the data, no key stream buffer).
/// Callers must have checked that the CPU supports AVX-512 F.
#[target_feature(enable = "avx512f")]
pub(super) fn keystream<const XOR: bool>(
    state: &[u32; 16],
    counter: u32,
    out: &mut [u8; 64 * BLOCKS],
) {
    let mut input = [_mm512_set1_epi32(0); 16];
    for (v, w) in input.iter_mut().zip(state) {
        *v = _mm512_set1_epi32(*w as i32);
    }
    input[12] = _mm512_add_epi32(
        _mm512_set1_epi32(counter as i32),
        _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
    );

    let mut x = input;
    for _ in 0..10 {
        quarter(&mut x, 0, 4, 8, 12);
        quarter(&mut x, 1, 5, 9, 13);
        quarter(&mut x, 2, 6, 10, 14);
        quarter(&mut x, 3, 7, 11, 15);
        quarter(&mut x, 0, 5, 10, 15);
        quarter(&mut x, 1, 6, 11, 12);
        quarter(&mut x, 2, 7, 8, 13);
        quarter(&mut x, 3, 4, 9, 14);
    }
    for (v, i) in x.iter_mut().zip(input) {
        *v = _mm512_add_epi32(*v, i);
    }

    // Step 1: a 4x4 transpose of 32-bit words inside every 128-bit lane. For word group g
    // (words 4g..4g+3), t[g][r] then holds, in its 128-bit lane q, words 4g..4g+3 of block 4q + r.
    let mut t = [[_mm512_set1_epi32(0); 4]; 4];
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

#[inline]
#[target_feature(enable = "avx512f")]
fn quarter(x: &mut [__m512i; 16], a: usize, b: usize, c: usize, d: usize) {
    x[a] = _mm512_add_epi32(x[a], x[b]);
    x[d] = _mm512_rol_epi32::<16>(_mm512_xor_si512(x[d], x[a]));
    x[c] = _mm512_add_epi32(x[c], x[d]);
    x[b] = _mm512_rol_epi32::<12>(_mm512_xor_si512(x[b], x[c]));
    x[a] = _mm512_add_epi32(x[a], x[b]);
    x[d] = _mm512_rol_epi32::<8>(_mm512_xor_si512(x[d], x[a]));
    x[c] = _mm512_add_epi32(x[c], x[d]);
    x[b] = _mm512_rol_epi32::<7>(_mm512_xor_si512(x[b], x[c]));
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
