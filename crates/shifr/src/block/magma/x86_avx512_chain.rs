//! Single-stream feedback chains of Magma / GOST 28147-89 on AVX-512 VBMI (CBC encryption, CFB
//! encryption, OFB, the CBC-MAC chain of OMAC: [`crate::block::BlockCipher::feedback_chain`]), on
//! one lane of the eight-lane 256-bit rounds of [`rounds_256`].
//!
//! A chain waits for every round, so one lane goes as fast as eight. What a call pays besides the
//! rounds is what this module keeps small: the eight key words broadcast once, the four 32-byte
//! S-box tables loaded once, and per block the two words of the block moved between memory and
//! the lane with scalar loads, stores and broadcasts, which the chain does not wait for (the
//! chaining value stays in the lane). Run as one live lane of the multi-stream kernel
//! (`x86_avx512_streams`), a call also paid for the transposition of eight lanes' key words, its
//! 512-bit constants and its row transposes: about 170 cycles per call on AMD Zen 4, half a block's
//! rounds, which made 16-byte chains slower than the portable rounds.
//!
//! Constant-time like the rest of the AVX-512 backend: register lookups only.

use core::arch::x86_64::{__m256i, _mm256_cvtsi256_si32, _mm256_set1_epi32, _mm256_xor_si256};

use super::nibble::NibbleTables;
use super::soft::{run_chain, Layout};
use super::x86_avx512::{rounds_256, Avx512Vbmi, HalfConsts};
use crate::block::Chain;

impl Avx512Vbmi {
    /// Runs `chain` from and back into the one-block `register` under the key words `words`.
    /// Declines (false, touching nothing) as [`run_chain`] does.
    pub(super) fn chain(
        self,
        words: &[u32; 8],
        tables: &NibbleTables,
        layout: Layout,
        register: &mut [u8],
        chain: Chain<'_>,
    ) -> bool {
        // SAFETY: an `Avx512Vbmi` exists only when `new` found AVX-512 F, BW, VL and VBMI.
        unsafe { one_lane(words, tables, layout, register, chain) }
    }
}

/// The chaining value as the rounds take it, `[a_0, a_1]`, each word in every lane.
type Halves = [__m256i; 2];

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vl")]
fn one_lane(
    words: &[u32; 8],
    tables: &NibbleTables,
    layout: Layout,
    register: &mut [u8],
    chain: Chain<'_>,
) -> bool {
    let half = HalfConsts::new(tables);
    let keys = [words.map(|w| _mm256_set1_epi32(w as i32))];
    let enter = |(a1, a0): (u32, u32)| -> Halves {
        [_mm256_set1_epi32(a0 as i32), _mm256_set1_epi32(a1 as i32)]
    };
    let leave = |[a0, a1]: Halves| {
        (
            _mm256_cvtsi256_si32(a1) as u32,
            _mm256_cvtsi256_si32(a0) as u32,
        )
    };
    let xor = |a: Halves, b: Halves| -> Halves {
        [_mm256_xor_si256(a[0], b[0]), _mm256_xor_si256(a[1], b[1])]
    };
    let encrypt = |h: Halves| -> Halves {
        let mut state = [h];
        rounds_256::<1, false>(&mut state, &keys, &half);
        // The rounds end without the last swap: the a_0 word is in state[1].
        [state[0][1], state[0][0]]
    };
    run_chain(layout, register, chain, enter, leave, xor, encrypt)
}
