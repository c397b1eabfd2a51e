//! Multi-stream feedback modes for the constant-time Kuznyechik backend (AVX-512 VBMI and GFNI):
//! CBC encryption, CFB (both directions) and the CBC-MAC chain of OMAC over many streams, each with
//! its own key, in one call ([`crate::block::BlockCipher::feedback_lanes`]).
//!
//! Four streams share a 512-bit register, one per 128-bit lane, and up to four registers (sixteen
//! streams) run their rounds side by side through the lane-per-block cipher of `x86_avx512_gfni`.
//! Per call, not per block: the round keys of every lane are gathered once into lane-wise
//! registers, and the chaining values stay in registers, in the AES-field basis the rounds work in
//! (the basis change is linear, so the feedback XOR commutes with it and only the data crossing
//! in and out is mapped). Still constant-time: register lookups only, and the addresses touched
//! depend only on the (public) stream lengths.

use core::arch::x86_64::{
    __m512i, _mm512_castsi128_si512, _mm512_extracti32x4_epi32, _mm512_gf2p8affine_epi64_epi8,
    _mm512_inserti32x4, _mm512_setzero_si512, _mm512_xor_si512, _mm_loadu_si128, _mm_setzero_si128,
    _mm_storeu_si128,
};

use super::aes_field::gfni_constants;
use super::x86_avx512_gfni::{
    cipher_keys, gather_keys, load_registers, rounds, GfniKeys, Registers,
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
    if run.streams() != keys.len() || run.common_len(16, registers.len()).is_none() {
        return false;
    }
    // SAFETY: a `GfniKeys` exists only if the CPU has AVX-512 F/BW/VBMI and GFNI (`GfniKeys::new`),
    // and the shapes were checked above.
    unsafe { feedback_all(keys, registers, run) };
    true
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn feedback_all(keys: &[&GfniKeys], registers: &mut [u8], mut run: Feedback<'_, '_>) {
    let r = load_registers(gfni_constants(), true);
    let mode = match run {
        Feedback::CbcEncrypt(_) => CBC,
        Feedback::CfbEncrypt(_) => CFB_ENCRYPT,
        Feedback::CfbDecrypt(_) => CFB_DECRYPT,
        Feedback::CbcMac(_) => MAC,
    };
    for (first, (keys, registers)) in keys
        .chunks(CHUNK)
        .zip(registers.chunks_mut(16 * CHUNK))
        .enumerate()
    {
        let first = first * CHUNK;
        let mut part = run.part(first..first + keys.len());
        let (part, r) = (&mut part, &r);
        match (keys.len().div_ceil(PER_VECTOR), mode) {
            (1, CBC) => chunk::<1, CBC>(r, keys, registers, part),
            (1, CFB_ENCRYPT) => chunk::<1, CFB_ENCRYPT>(r, keys, registers, part),
            (1, CFB_DECRYPT) => chunk::<1, CFB_DECRYPT>(r, keys, registers, part),
            (1, _) => chunk::<1, MAC>(r, keys, registers, part),
            (2, CBC) => chunk::<2, CBC>(r, keys, registers, part),
            (2, CFB_ENCRYPT) => chunk::<2, CFB_ENCRYPT>(r, keys, registers, part),
            (2, CFB_DECRYPT) => chunk::<2, CFB_DECRYPT>(r, keys, registers, part),
            (2, _) => chunk::<2, MAC>(r, keys, registers, part),
            (3, CBC) => chunk::<3, CBC>(r, keys, registers, part),
            (3, CFB_ENCRYPT) => chunk::<3, CFB_ENCRYPT>(r, keys, registers, part),
            (3, CFB_DECRYPT) => chunk::<3, CFB_DECRYPT>(r, keys, registers, part),
            (3, _) => chunk::<3, MAC>(r, keys, registers, part),
            (_, CBC) => chunk::<4, CBC>(r, keys, registers, part),
            (_, CFB_ENCRYPT) => chunk::<4, CFB_ENCRYPT>(r, keys, registers, part),
            (_, CFB_DECRYPT) => chunk::<4, CFB_DECRYPT>(r, keys, registers, part),
            (_, _) => chunk::<4, MAC>(r, keys, registers, part),
        }
    }
}

/// Block `at..at + 16` of stream `i`, if there is one. (The per-block helpers here avoid closures:
/// a closure handed to a generic function such as `Option::and_then` or `array::from_fn` keeps this
/// module's target features and then cannot be inlined into it, which put calls and `vzeroupper`s
/// into every step.)
#[inline(always)]
fn block<'s>(streams: &'s Feedback, i: usize, at: usize) -> Option<&'s [u8]> {
    match streams.stream(i) {
        Some(s) => s.get(at..at + 16),
        None => None,
    }
}

/// Block `at..at + 16` of streams `first..first + 4`, one per 128-bit lane; zero where a stream is
/// missing.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn load4(streams: &Feedback, first: usize, at: usize) -> __m512i {
    let mut lanes = [_mm_setzero_si128(); 4];
    for (l, lane) in lanes.iter_mut().enumerate() {
        if let Some(block) = block(streams, first + l, at) {
            // SAFETY: `block` is 16 readable bytes; `loadu` has no alignment requirement.
            *lane = unsafe { _mm_loadu_si128(block.as_ptr().cast()) };
        }
    }
    let v = _mm512_castsi128_si512(lanes[0]);
    let v = _mm512_inserti32x4::<1>(v, lanes[1]);
    let v = _mm512_inserti32x4::<2>(v, lanes[2]);
    _mm512_inserti32x4::<3>(v, lanes[3])
}

/// Writes lane `l` of `v` to block `at..at + 16` of stream `first + l` of `streams`, for the
/// streams there are.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn store4(streams: &mut Feedback, first: usize, at: usize, v: __m512i) {
    let lanes = [
        _mm512_extracti32x4_epi32::<0>(v),
        _mm512_extracti32x4_epi32::<1>(v),
        _mm512_extracti32x4_epi32::<2>(v),
        _mm512_extracti32x4_epi32::<3>(v),
    ];
    for (l, x) in lanes.into_iter().enumerate() {
        let block = match streams.stream_mut(first + l) {
            Some(s) => s.get_mut(at..at + 16),
            None => None,
        };
        if let Some(block) = block {
            // SAFETY: `block` is 16 writable bytes; `storeu` has no alignment requirement.
            unsafe { _mm_storeu_si128(block.as_mut_ptr().cast(), x) };
        }
    }
}

/// Every block of up to `4 * V` streams: `V` registers of four lanes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn chunk<const V: usize, const MODE: u8>(
    r: &Registers,
    keys: &[&GfniKeys],
    registers: &mut [u8],
    streams: &mut Feedback,
) {
    // Lanes past the last stream repeat its keys; their blocks are zero and never stored.
    let pick = |lane: usize| {
        keys.get(lane)
            .or(keys.last())
            .map_or(&[[0u8; 16]; 10], |k| &k.keys)
    };
    let round_keys: [[__m512i; 10]; V] = core::array::from_fn(|v| {
        cipher_keys::<true>(core::array::from_fn(|i| {
            let lane = |l: usize| &pick(PER_VECTOR * v + l)[i];
            gather_keys([lane(0), lane(1), lane(2), lane(3)])
        }))
    });
    // The chaining values, sixteen bytes per stream, as streams of one block.
    let mut lanes: Vec<&mut [u8]> = registers.chunks_exact_mut(16).collect();
    let mut lanes = Feedback::CbcEncrypt(&mut lanes);
    let zero = _mm512_setzero_si512();
    let mut chain = [zero; V];
    for (v, chain) in chain.iter_mut().enumerate() {
        *chain = _mm512_gf2p8affine_epi64_epi8::<0>(load4(&lanes, PER_VECTOR * v, 0), r.to_aes);
    }
    let blocks = (0..keys.len())
        .find_map(|l| streams.stream_len(l))
        .unwrap_or(0)
        / 16;
    for b in 0..blocks {
        let at = 16 * b;
        let mut input = [zero; V];
        let mut x = chain;
        for v in 0..V {
            let data = load4(streams, PER_VECTOR * v, at);
            input[v] = _mm512_gf2p8affine_epi64_epi8::<0>(data, r.to_aes);
            if MODE == CBC || MODE == MAC {
                x[v] = _mm512_xor_si512(x[v], input[v]);
            }
        }
        rounds::<true, V>(&mut x, r, &round_keys);
        for v in 0..V {
            let out = match MODE {
                CBC | MAC => x[v],
                _ => _mm512_xor_si512(input[v], x[v]),
            };
            chain[v] = if MODE == CFB_DECRYPT { input[v] } else { out };
            if MODE != MAC {
                let out = _mm512_gf2p8affine_epi64_epi8::<0>(out, r.from_aes);
                store4(streams, PER_VECTOR * v, at, out);
            }
        }
    }
    for (v, value) in chain.into_iter().enumerate() {
        let value = _mm512_gf2p8affine_epi64_epi8::<0>(value, r.from_aes);
        store4(&mut lanes, PER_VECTOR * v, 0, value);
    }
}
