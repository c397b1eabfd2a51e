//! Multi-stream feedback modes for the constant-time Kuznyechik backend (AVX-512 VBMI and GFNI):
//! CBC encryption, CFB (both directions) and the CBC-MAC chain of OMAC over many streams, each with
//! its own key, in one call ([`crate::block::BlockCipher::feedback_lanes`]).
//!
//! Four streams share a 512-bit register, one per 128-bit lane, and up to four registers (sixteen
//! streams) run their rounds side by side through the lane-per-block cipher of `x86_avx512_gfni`.
//! Per call, not per block: the round keys of every lane are gathered once into lane-wise
//! registers, each stream's address is looked up once, and the chaining values stay in registers,
//! in the AES-field basis the rounds work in (the basis change is linear, so the feedback XOR
//! commutes with it and only the data crossing in and out is mapped). CBC and the MAC add the
//! first round key together with the block and the chaining value (one three-input XOR). Still
//! constant-time: register lookups only, and the addresses touched depend only on the (public)
//! stream lengths.

use core::arch::x86_64::{
    __m128i, __m512i, _mm512_castsi128_si512, _mm512_extracti32x4_epi32,
    _mm512_gf2p8affine_epi64_epi8, _mm512_inserti32x4, _mm512_mask_broadcast_i32x4,
    _mm512_setzero_si512, _mm512_xor_si512, _mm_loadu_si128, _mm_storeu_si128,
};

use super::aes_field::gfni_constants;
use super::x86_avx512_gfni::{
    cipher_keys, gather_keys, load_registers, lsx_rounds, xor3, GfniKeys, Registers,
};
use crate::block::Feedback;

/// Streams per register.
const PER_VECTOR: usize = 4;
/// Registers whose rounds interleave; also the most streams one chunk takes is `4 * VECTORS`.
const VECTORS: usize = 4;
const CHUNK: usize = PER_VECTOR * VECTORS;

/// The four modes, as a const parameter of the kernel.
const CBC: u8 = 0;
const CFB_ENCRYPT: u8 = 1;
const CFB_DECRYPT: u8 = 2;
const MAC: u8 = 3;

/// Runs `run` (one stream per key, all of one length, whole blocks) chaining from and back into
/// `registers` (sixteen bytes per key). Returns false, touching nothing, if the shapes disagree.
pub(super) fn feedback(keys: &[&GfniKeys], registers: &mut [u8], run: Feedback<'_, '_>) -> bool {
    let Some(len) = run.common_len(16, registers.len()) else {
        return false;
    };
    let mode = match run {
        Feedback::CbcEncrypt(_) => CBC,
        Feedback::CfbEncrypt(_) => CFB_ENCRYPT,
        Feedback::CfbDecrypt(_) => CFB_DECRYPT,
        Feedback::CbcMac(_) => MAC,
        // The single-stream OFB chain has its own kernel (`x86_avx512_gfni_chain`).
        Feedback::Ofb(_) => return false,
    };
    if run.streams() != keys.len() {
        return false;
    }
    // SAFETY: a `GfniKeys` exists only if the CPU has AVX-512 F/BW/VBMI and GFNI (`GfniKeys::new`),
    // and the shapes were checked above.
    unsafe { feedback_all(keys, registers, run, mode, len) };
    true
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn feedback_all(
    keys: &[&GfniKeys],
    registers: &mut [u8],
    mut run: Feedback<'_, '_>,
    mode: u8,
    len: usize,
) {
    let r = load_registers(gfni_constants(), true);
    for (first, (keys, registers)) in keys
        .chunks(CHUNK)
        .zip(registers.chunks_mut(16 * CHUNK))
        .enumerate()
    {
        let first = first * CHUNK;
        let mut part = run.part(first..first + keys.len());
        let (part, r) = (&mut part, &r);
        match (keys.len().div_ceil(PER_VECTOR), mode) {
            (1, CBC) => chunk::<1, CBC>(r, keys, registers, part, len),
            (1, CFB_ENCRYPT) => chunk::<1, CFB_ENCRYPT>(r, keys, registers, part, len),
            (1, CFB_DECRYPT) => chunk::<1, CFB_DECRYPT>(r, keys, registers, part, len),
            (1, _) => chunk::<1, MAC>(r, keys, registers, part, len),
            (2, CBC) => chunk::<2, CBC>(r, keys, registers, part, len),
            (2, CFB_ENCRYPT) => chunk::<2, CFB_ENCRYPT>(r, keys, registers, part, len),
            (2, CFB_DECRYPT) => chunk::<2, CFB_DECRYPT>(r, keys, registers, part, len),
            (2, _) => chunk::<2, MAC>(r, keys, registers, part, len),
            (3, CBC) => chunk::<3, CBC>(r, keys, registers, part, len),
            (3, CFB_ENCRYPT) => chunk::<3, CFB_ENCRYPT>(r, keys, registers, part, len),
            (3, CFB_DECRYPT) => chunk::<3, CFB_DECRYPT>(r, keys, registers, part, len),
            (3, _) => chunk::<3, MAC>(r, keys, registers, part, len),
            (_, CBC) => chunk::<4, CBC>(r, keys, registers, part, len),
            (_, CFB_ENCRYPT) => chunk::<4, CFB_ENCRYPT>(r, keys, registers, part, len),
            (_, CFB_DECRYPT) => chunk::<4, CFB_DECRYPT>(r, keys, registers, part, len),
            (_, _) => chunk::<4, MAC>(r, keys, registers, part, len),
        }
    }
}

/// Where every lane's blocks are read and written: the start of its stream, looked up once per
/// chunk instead of through the [`Feedback`] at every block. Lanes past the last stream read stream
/// 0 (their results are never stored) and are not written.
struct Lanes {
    read: [*const u8; CHUNK],
    write: [*mut u8; CHUNK],
    streams: usize,
}

impl Lanes {
    /// The lanes of `streams` (at most [`CHUNK`]; each a whole number of blocks, all of one length).
    fn new(streams: &mut Feedback) -> Lanes {
        let mut read = [core::ptr::null(); CHUNK];
        let mut write = [core::ptr::null_mut(); CHUNK];
        let count = streams.streams().min(CHUNK);
        match streams {
            Feedback::CbcEncrypt(s)
            | Feedback::CfbEncrypt(s)
            | Feedback::CfbDecrypt(s)
            | Feedback::Ofb(s) => {
                for (w, s) in write.iter_mut().zip(s.iter_mut()) {
                    *w = s.as_mut_ptr();
                }
                for (r, w) in read.iter_mut().zip(write) {
                    *r = w.cast_const();
                }
            }
            Feedback::CbcMac(s) => {
                for (r, s) in read.iter_mut().zip(s.iter()) {
                    *r = s.as_ptr();
                }
            }
        }
        let first = read[0];
        for r in &mut read[count..] {
            *r = first;
        }
        Lanes {
            read,
            write,
            streams: count,
        }
    }
}

/// Block `at..at + 16` of the streams of lanes `first..first + 4`, one per 128-bit lane.
///
/// # Safety
/// Every stream of `lanes` has at least `at + 16` bytes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
unsafe fn load4(lanes: &Lanes, first: usize, at: usize) -> __m512i {
    let p = &lanes.read[first..first + PER_VECTOR];
    // SAFETY: each `p[l]` is the start of a stream (or of stream 0) of at least `at + 16` bytes, by
    // the caller's contract; `loadu` has no alignment requirement.
    unsafe {
        let v = _mm512_castsi128_si512(_mm_loadu_si128(p[0].add(at).cast()));
        let v = _mm512_inserti32x4::<1>(v, _mm_loadu_si128(p[1].add(at).cast()));
        let v = _mm512_inserti32x4::<2>(v, _mm_loadu_si128(p[2].add(at).cast()));
        _mm512_inserti32x4::<3>(v, _mm_loadu_si128(p[3].add(at).cast()))
    }
}

/// The four 128-bit lanes of `v`, lane 0 first.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn split4(v: __m512i) -> [__m128i; 4] {
    [
        _mm512_extracti32x4_epi32::<0>(v),
        _mm512_extracti32x4_epi32::<1>(v),
        _mm512_extracti32x4_epi32::<2>(v),
        _mm512_extracti32x4_epi32::<3>(v),
    ]
}

/// Writes lane `l` of `v` to block `at..at + 16` of the stream of lane `first + l`, for the lanes
/// that have a stream.
///
/// # Safety
/// Every stream of `lanes` has at least `at + 16` bytes and was handed over writable.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
unsafe fn store4(lanes: &Lanes, first: usize, at: usize, v: __m512i) {
    let x = split4(v);
    for (l, x) in x.into_iter().enumerate() {
        if first + l < lanes.streams {
            // SAFETY: the lane has a stream of at least `at + 16` writable bytes (caller's
            // contract); `storeu` has no alignment requirement.
            unsafe { _mm_storeu_si128(lanes.write[first + l].add(at).cast(), x) };
        }
    }
}

/// The chaining values of lanes `first..first + 4` from `registers` (sixteen bytes per stream);
/// zero past the last stream.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn load_registers4(registers: &[u8], first: usize) -> __m512i {
    let mut v = _mm512_setzero_si512();
    for l in 0..PER_VECTOR {
        let at = 16 * (first + l);
        if let Some(block) = registers.get(at..at + 16) {
            // SAFETY: `block` is 16 readable bytes; `loadu` has no alignment requirement.
            let x = unsafe { _mm_loadu_si128(block.as_ptr().cast()) };
            v = _mm512_mask_broadcast_i32x4(v, 0xf << (4 * l), x);
        }
    }
    v
}

/// Writes lanes `first..first + 4` of `v` back to `registers`, for the streams there are.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn store_registers4(registers: &mut [u8], first: usize, v: __m512i) {
    let x = split4(v);
    for (l, x) in x.into_iter().enumerate() {
        let at = 16 * (first + l);
        if let Some(block) = registers.get_mut(at..at + 16) {
            // SAFETY: `block` is 16 writable bytes; `storeu` has no alignment requirement.
            unsafe { _mm_storeu_si128(block.as_mut_ptr().cast(), x) };
        }
    }
}

/// The round keys of register `v`: lane `l` under `keys[4v + l]`, lanes past the last stream under
/// its keys (their blocks are never stored). A plain loop, not `array::from_fn` closures: a closure
/// handed to a generic function lacks this module's target features, so the intrinsics in it were
/// called instead of inlined, each call with a `vzeroupper`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn register_keys(keys: &[&GfniKeys], v: usize) -> [__m512i; 10] {
    let last = keys.len().saturating_sub(1);
    let lane = |l: usize| match keys.get((PER_VECTOR * v + l).min(last)) {
        Some(k) => &k.keys,
        None => &[[0u8; 16]; 10],
    };
    let lanes = [lane(0), lane(1), lane(2), lane(3)];
    let mut out = [_mm512_setzero_si512(); 10];
    for (i, out) in out.iter_mut().enumerate() {
        *out = gather_keys([&lanes[0][i], &lanes[1][i], &lanes[2][i], &lanes[3][i]]);
    }
    cipher_keys::<true>(out)
}

/// Every block (`len` bytes per stream) of up to `4 * V` streams: `V` registers of four lanes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn chunk<const V: usize, const MODE: u8>(
    r: &Registers,
    keys: &[&GfniKeys],
    registers: &mut [u8],
    streams: &mut Feedback,
    len: usize,
) {
    let zero = _mm512_setzero_si512();
    let mut round_keys = [[zero; 10]; V];
    for (v, k) in round_keys.iter_mut().enumerate() {
        *k = register_keys(keys, v);
    }
    let lanes = Lanes::new(streams);
    let mut chain = [zero; V];
    for (v, chain) in chain.iter_mut().enumerate() {
        *chain = _mm512_gf2p8affine_epi64_epi8::<0>(
            load_registers4(registers, PER_VECTOR * v),
            r.to_aes,
        );
    }
    for b in 0..len / 16 {
        let at = 16 * b;
        let mut input = [zero; V];
        let mut x = chain;
        for v in 0..V {
            // SAFETY: every stream has `len >= at + 16` bytes (`feedback` checked the lengths).
            let data = unsafe { load4(&lanes, PER_VECTOR * v, at) };
            input[v] = _mm512_gf2p8affine_epi64_epi8::<0>(data, r.to_aes);
            x[v] = match MODE {
                // The first round key goes in with the block, one three-input XOR.
                CBC | MAC => xor3(x[v], input[v], round_keys[v][0]),
                _ => _mm512_xor_si512(x[v], round_keys[v][0]),
            };
        }
        lsx_rounds::<V>(&mut x, r, &round_keys);
        for v in 0..V {
            let out = match MODE {
                CBC | MAC => x[v],
                _ => _mm512_xor_si512(input[v], x[v]),
            };
            chain[v] = if MODE == CFB_DECRYPT { input[v] } else { out };
            if MODE != MAC {
                let out = _mm512_gf2p8affine_epi64_epi8::<0>(out, r.from_aes);
                // SAFETY: as for the load; the streams of the modes that store are writable.
                unsafe { store4(&lanes, PER_VECTOR * v, at, out) };
            }
        }
    }
    for (v, value) in chain.into_iter().enumerate() {
        let value = _mm512_gf2p8affine_epi64_epi8::<0>(value, r.from_aes);
        store_registers4(registers, PER_VECTOR * v, value);
    }
}
