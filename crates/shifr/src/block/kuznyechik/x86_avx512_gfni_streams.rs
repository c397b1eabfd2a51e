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
    _mm512_inserti32x4, _mm512_xor_si512, _mm_loadu_si128, _mm_setzero_si128, _mm_storeu_si128,
};

use super::aes_field::gfni_constants;
use super::x86_avx512_gfni::{
    cipher_keys, gather_keys, linear_xor, load_registers, substitute, GfniKeys, Registers,
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

/// Block `at..at + 16` of four streams, one per 128-bit lane; zero where a stream is missing.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn load4(streams: [Option<&[u8]>; 4], at: usize) -> __m512i {
    let lane = |l: usize| match streams[l].and_then(|s| s.get(at..at + 16)) {
        // SAFETY: `block` is 16 readable bytes; `loadu` has no alignment requirement.
        Some(block) => unsafe { _mm_loadu_si128(block.as_ptr().cast()) },
        None => _mm_setzero_si128(),
    };
    let v = _mm512_castsi128_si512(lane(0));
    let v = _mm512_inserti32x4::<1>(v, lane(1));
    let v = _mm512_inserti32x4::<2>(v, lane(2));
    _mm512_inserti32x4::<3>(v, lane(3))
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
        if let Some(block) = streams
            .stream_mut(first + l)
            .and_then(|s| s.get_mut(at..at + 16))
        {
            // SAFETY: `block` is 16 writable bytes; `storeu` has no alignment requirement.
            unsafe { _mm_storeu_si128(block.as_mut_ptr().cast(), x) };
        }
    }
}

/// Streams `first..first + 4` of `streams`, to read.
fn four<'s>(streams: &'s Feedback, first: usize) -> [Option<&'s [u8]>; 4] {
    core::array::from_fn(|l| streams.stream(first + l))
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
    let to_basis = |x: __m512i| _mm512_gf2p8affine_epi64_epi8::<0>(x, r.to_aes);
    let from_basis = |x: __m512i| _mm512_gf2p8affine_epi64_epi8::<0>(x, r.from_aes);
    let register = |lane: usize| registers.get(16 * lane..16 * lane + 16);
    let mut chain: [__m512i; V] = core::array::from_fn(|v| {
        to_basis(load4(
            core::array::from_fn(|l| register(PER_VECTOR * v + l)),
            0,
        ))
    });
    let blocks = (0..keys.len())
        .find_map(|l| streams.stream_len(l))
        .unwrap_or(0)
        / 16;
    for b in 0..blocks {
        let at = 16 * b;
        let input: [__m512i; V] =
            core::array::from_fn(|v| to_basis(load4(four(streams, PER_VECTOR * v), at)));
        let mut x: [__m512i; V] = core::array::from_fn(|v| match MODE {
            CBC | MAC => _mm512_xor_si512(chain[v], input[v]),
            _ => chain[v],
        });
        // X[K_1], then LSX[K_i] for i = 2..10, the registers side by side.
        for (x, k) in x.iter_mut().zip(&round_keys) {
            *x = _mm512_xor_si512(*x, k[0]);
        }
        for i in 1..10 {
            for (x, k) in x.iter_mut().zip(&round_keys) {
                *x = linear_xor(substitute(*x, &r.sbox), r, k[i]);
            }
        }
        for v in 0..V {
            let out = match MODE {
                CBC | MAC => x[v],
                _ => _mm512_xor_si512(input[v], x[v]),
            };
            chain[v] = if MODE == CFB_DECRYPT { input[v] } else { out };
            if MODE != MAC {
                store4(streams, PER_VECTOR * v, at, from_basis(out));
            }
        }
    }
    let mut lanes: Vec<&mut [u8]> = registers.chunks_exact_mut(16).collect();
    let mut lanes = Feedback::CbcEncrypt(&mut lanes);
    for (v, value) in chain.into_iter().enumerate() {
        store4(&mut lanes, PER_VECTOR * v, 0, from_basis(value));
    }
}
