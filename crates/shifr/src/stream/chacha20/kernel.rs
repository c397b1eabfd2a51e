//! Chooses and runs the ChaCha20 key stream implementation: AVX-512 (16 blocks per call) or AVX2
//! (8 blocks) when the CPU has them, otherwise SSE2 (x86-64 baseline, 4 blocks); NEON (4 blocks) on
//! AArch64; otherwise portable Rust. `SHIFR_BACKEND=portable|sse2|avx2|avx512|neon` forces one.
//! Every kernel fills the same [`BATCH_BYTES`]-byte batch, so the stream logic above it does not
//! depend on the choice.

#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
use super::aarch64_neon;
use super::soft;
#[cfg(target_arch = "x86_64")]
use super::{x86_avx2, x86_avx512, x86_avx512_narrow, x86_avx512_short, x86_sse2};
use crate::cpu::{self, Backend};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Blocks per batch (a multiple of every kernel's blocks per call).
pub(super) const BATCH_BLOCKS: usize = 16;

/// Key stream bytes per batch.
pub(super) const BATCH_BYTES: usize = 64 * BATCH_BLOCKS;

/// Most blocks of a short fill ([`Kernel::fill_short`]): every kernel writes at most this many
/// when asked for at most this many.
pub(super) const SHORT_BLOCKS: usize = 8;

/// Key stream bytes of a short fill.
pub(super) const SHORT_BYTES: usize = 64 * SHORT_BLOCKS;

/// The shortest call [`Kernel::xor_narrow`] takes: shorter ones share one kernel call through
/// the stream's buffer.
// Only x86-64 has a narrow kernel.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(super) const NARROW_MIN: usize = 256;

/// The longest call [`Kernel::xor_narrow`] takes.
// Only x86-64 has a narrow kernel.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(super) const NARROW_MAX: usize = BATCH_BYTES;

#[cfg(target_arch = "x86_64")]
const _: () = assert!(
    x86_avx512_narrow::MIN_BYTES == NARROW_MIN && x86_avx512_narrow::MAX_BYTES == NARROW_MAX
);

/// What the kernels precompute from a setup state once per key and nonce (the counter word is
/// not used), for a stream that makes many calls: on x86-64 the AVX-512 kernel's first-round
/// words ([`x86_avx512::Head`]); nothing elsewhere. Secret (derived from the key): wiped on drop.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(super) struct Prepared {
    #[cfg(target_arch = "x86_64")]
    avx512: x86_avx512::Head,
}

impl Prepared {
    /// The precomputation for the setup `state` (word 12 ignored).
    // `state` is unused on targets without such a kernel.
    #[allow(unused_variables)]
    pub(super) fn new(state: &[u32; 16]) -> Prepared {
        Prepared {
            #[cfg(target_arch = "x86_64")]
            avx512: x86_avx512::Head::new(state),
        }
    }
}

/// A ChaCha20 key stream implementation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kernel {
    /// Plain Rust (`soft.rs`), the reference the others are tested against.
    Portable,
    /// SSE2 intrinsics (`x86_sse2.rs`).
    #[cfg(target_arch = "x86_64")]
    Sse2,
    /// AVX2 intrinsics (`x86_avx2.rs`); only constructed after AVX2 was detected.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// AVX-512 F intrinsics (`x86_avx512.rs`); only constructed after AVX-512 was detected.
    #[cfg(target_arch = "x86_64")]
    Avx512,
    /// AArch64 NEON intrinsics (`aarch64_neon.rs`, 4 blocks).
    #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
    Neon,
}

// Engines hold no secrets; this lets the cipher derive `Zeroize` for all its fields.
impl Zeroize for Kernel {
    fn zeroize(&mut self) {}
}

impl Kernel {
    /// The kernel of the CPU's plan: the fastest this CPU supports, unless `SHIFR_BACKEND` forces
    /// another (`portable`, `sse2`, `avx2`, `avx512`).
    pub(super) fn select() -> Kernel {
        Kernel::for_backend(Kernel::plan().bulk)
    }

    /// The CPU's plan for the ChaCha20 key stream ([`cpu::plan`]).
    pub(super) fn plan() -> cpu::Plan {
        cpu::plan(
            cpu::Primitive::ChaCha20,
            &[Backend::Sse2, Backend::Avx2, Backend::Avx512, Backend::Neon],
        )
    }

    /// The kernel for a backend `cpu` has already checked; unknown ones fall back to portable.
    fn for_backend(b: Backend) -> Kernel {
        match b {
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => Kernel::Avx512,
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => Kernel::Avx2,
            #[cfg(target_arch = "x86_64")]
            Backend::Sse2 => Kernel::Sse2,
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Backend::Neon => Kernel::Neon,
            _ => Kernel::Portable,
        }
    }

    /// Every kernel usable on this CPU.
    #[cfg(test)]
    // Targets without a SIMD kernel push nothing more.
    #[allow(unused_mut)]
    pub(super) fn available() -> Vec<Kernel> {
        let mut all = vec![Kernel::Portable];
        #[cfg(target_arch = "x86_64")]
        {
            all.push(Kernel::Sse2);
            if cpu::features().avx2 {
                all.push(Kernel::Avx2);
            }
            if Backend::Avx512.is_supported() {
                all.push(Kernel::Avx512);
            }
        }
        #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
        all.push(Kernel::Neon);
        all
    }

    /// The kernel's name as shown to users.
    pub(super) fn name(self) -> &'static str {
        match self {
            Kernel::Portable => "portable",
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse2 => "sse2",
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => "avx512",
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Kernel::Neon => "neon",
        }
    }

    /// Writes the key stream of blocks `counter .. counter + BATCH_BLOCKS` (block counters taken
    /// mod 2^32) for the setup `state` (word 12 ignored).
    pub(super) fn fill(self, state: &[u32; 16], counter: u32, out: &mut [u8; BATCH_BYTES]) {
        match self {
            Kernel::Portable => {
                for (i, part) in out.chunks_exact_mut(soft::BATCH_BYTES).enumerate() {
                    let first = counter.wrapping_add((i * soft::LANES) as u32);
                    soft::keystream_batch(state, first, part);
                }
            }
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse2 => {
                for (i, part) in out.chunks_exact_mut(64 * x86_sse2::BLOCKS).enumerate() {
                    let first = counter.wrapping_add((i * x86_sse2::BLOCKS) as u32);
                    x86_sse2::keystream(state, first, part);
                }
            }
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => {
                for (i, part) in out.chunks_exact_mut(64 * x86_avx2::BLOCKS).enumerate() {
                    let first = counter.wrapping_add((i * x86_avx2::BLOCKS) as u32);
                    if let Ok(part) = part.try_into() {
                        // SAFETY: `Kernel::Avx2` is only chosen after `cpu::features()` reported AVX2.
                        unsafe { x86_avx2::keystream(state, first, part) }
                    }
                }
            }
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => {
                const _: () = assert!(x86_avx512::BLOCKS == BATCH_BLOCKS);
                // SAFETY: `Kernel::Avx512` is only chosen after `cpu` reported AVX-512 F/BW/VL.
                unsafe { x86_avx512::keystream::<false>(state, counter, out) }
            }
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Kernel::Neon => {
                for (i, part) in out.chunks_exact_mut(64 * aarch64_neon::BLOCKS).enumerate() {
                    let first = counter.wrapping_add((i * aarch64_neon::BLOCKS) as u32);
                    aarch64_neon::keystream(state, first, part);
                }
            }
        }
    }

    /// Writes the key stream of at least `blocks` (1 to [`BATCH_BLOCKS`]) blocks from `counter`
    /// (mod 2^32) into the start of `out` with as narrow a call as covers them, and returns how many
    /// blocks it wrote (at most [`BATCH_BLOCKS`]): for short messages, where a whole batch would
    /// compute and then wipe up to sixteen times the key stream needed. Portable writes exactly
    /// `blocks`, SSE2 and NEON a multiple of four, AVX-512 four or eight with its short kernel
    /// (`x86_avx512_short.rs`: one latency-bound chain instead of sixteen blocks' work), AVX2 eight
    /// (a 256-bit call costs about what a 512-bit one does and writes half), else a whole batch.
    pub(super) fn fill_blocks(
        self,
        state: &[u32; 16],
        counter: u32,
        out: &mut [u8; BATCH_BYTES],
        blocks: usize,
    ) -> usize {
        let blocks = blocks.clamp(1, BATCH_BLOCKS);
        if blocks <= SHORT_BLOCKS {
            if let Some(short) = out.first_chunk_mut::<SHORT_BYTES>() {
                return self.fill_short(state, counter, short, blocks);
            }
        }
        match self {
            Kernel::Portable => {
                let part = &mut out[..64 * blocks];
                for (i, part) in part.chunks_mut(soft::BATCH_BYTES).enumerate() {
                    let first = counter.wrapping_add((i * soft::LANES) as u32);
                    soft::keystream_batch(state, first, part);
                }
                blocks
            }
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse2 => {
                let calls = blocks.div_ceil(x86_sse2::BLOCKS);
                let part = &mut out[..64 * x86_sse2::BLOCKS * calls];
                for (i, part) in part.chunks_exact_mut(64 * x86_sse2::BLOCKS).enumerate() {
                    let first = counter.wrapping_add((i * x86_sse2::BLOCKS) as u32);
                    x86_sse2::keystream(state, first, part);
                }
                x86_sse2::BLOCKS * calls
            }
            // Every other kernel (AVX2, AVX-512, NEON; on 32-bit Arm there is none, hence the
            // allow).
            #[allow(unreachable_patterns)]
            _ => {
                self.fill(state, counter, out);
                BATCH_BLOCKS
            }
        }
    }

    /// [`Kernel::fill_blocks`] for at most [`SHORT_BLOCKS`] blocks into a buffer of that many:
    /// writes at least `blocks` (1 to [`SHORT_BLOCKS`]) blocks from `counter` (mod 2^32) and
    /// returns how many (at most [`SHORT_BLOCKS`]).
    pub(super) fn fill_short(
        self,
        state: &[u32; 16],
        counter: u32,
        out: &mut [u8; SHORT_BYTES],
        blocks: usize,
    ) -> usize {
        let blocks = blocks.clamp(1, SHORT_BLOCKS);
        #[cfg(target_arch = "x86_64")]
        const _: () = assert!(x86_sse2::BLOCKS == 4 && x86_avx2::BLOCKS == SHORT_BLOCKS);
        #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
        const _: () = assert!(aarch64_neon::BLOCKS == 4);
        // Four-block calls (SSE2, NEON): as many as cover `blocks`.
        #[allow(unused_variables, unused_mut)]
        let mut by_fours = |f: fn(&[u32; 16], u32, &mut [u8])| {
            let calls = blocks.div_ceil(4);
            for (i, part) in out[..256 * calls].chunks_exact_mut(256).enumerate() {
                f(state, counter.wrapping_add(4 * i as u32), part);
            }
            4 * calls
        };
        match self {
            Kernel::Portable => {
                let part = &mut out[..64 * blocks];
                for (i, part) in part.chunks_mut(soft::BATCH_BYTES).enumerate() {
                    let first = counter.wrapping_add((i * soft::LANES) as u32);
                    soft::keystream_batch(state, first, part);
                }
                blocks
            }
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse2 => by_fours(x86_sse2::keystream),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => {
                // SAFETY: `Kernel::Avx2` is only chosen after `cpu::features()` reported AVX2.
                unsafe { x86_avx2::keystream(state, counter, out) };
                x86_avx2::BLOCKS
            }
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => {
                // SAFETY: `Kernel::Avx512` is only chosen after `cpu` reported AVX-512 F/BW/VL.
                unsafe { x86_avx512_short::keystream(state, counter, out, blocks) }
            }
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Kernel::Neon => by_fours(aarch64_neon::keystream),
        }
    }

    /// For a call of [`NARROW_MIN`] to [`NARROW_MAX`] bytes on a kernel with a narrow XOR (AVX-512:
    /// `x86_avx512_narrow.rs`): XORs the key stream of blocks `counter ..` (mod 2^32) into the
    /// whole 64-byte blocks of `data`, writes the key stream of the blocks computed after them into
    /// `rest` from its start, and returns how many blocks it computed (at most
    /// [`BATCH_BLOCKS`], at least `data.len().div_ceil(64)`). `None`, with nothing done, for other
    /// lengths and kernels: the caller then goes through [`Kernel::fill_blocks`].
    pub(super) fn xor_narrow(
        self,
        state: &[u32; 16],
        counter: u32,
        data: &mut [u8],
        rest: &mut [u8; BATCH_BYTES],
    ) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        if self == Kernel::Avx512 && (NARROW_MIN..=NARROW_MAX).contains(&data.len()) {
            // SAFETY: `Kernel::Avx512` is only chosen after `cpu` reported AVX-512 F/BW/VL.
            let blocks = unsafe { x86_avx512_narrow::xor(state, counter, data, rest) };
            return (blocks > 0).then_some(blocks);
        }
        let _ = (state, counter, data, rest);
        None
    }

    /// XORs the key stream of blocks `counter ..` (block counters taken mod 2^32) into the whole
    /// [`BATCH_BYTES`]-byte batches of `data`, [`BATCH_BLOCKS`] blocks per batch; bytes after the
    /// last whole batch are left alone. AVX-512 does it in one pass and one call for the whole run;
    /// the others batch by batch through a zeroized key stream buffer. `prepared` is
    /// [`Prepared::new`] of `state`.
    pub(super) fn xor_batches(
        self,
        prepared: &Prepared,
        state: &[u32; 16],
        counter: u32,
        data: &mut [u8],
    ) {
        #[cfg(target_arch = "x86_64")]
        if self == Kernel::Avx512 {
            // SAFETY: `Kernel::Avx512` is only chosen after `cpu` reported AVX-512 F/BW/VL.
            unsafe { x86_avx512::keystream_with::<true>(&prepared.avx512, state, counter, data) };
            return;
        }
        // Only the AVX-512 kernel has a precomputation.
        let _ = prepared;
        let mut ks = [0u8; BATCH_BYTES];
        for (i, batch) in data.chunks_exact_mut(BATCH_BYTES).enumerate() {
            let first = counter.wrapping_add((i * BATCH_BLOCKS) as u32);
            self.fill(state, first, &mut ks);
            crate::util::xor_in_place(batch, &ks);
        }
        ks.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A setup state whose word `i` is `(i + offset) * mul ^ xor`: distinct words, no structure.
    fn test_state(offset: u32, mul: u32, xor: u32) -> [u32; 16] {
        core::array::from_fn(|i| (i as u32 + offset).wrapping_mul(mul) ^ xor)
    }

    /// Every SIMD kernel must produce exactly the portable key stream, including across the 2^32
    /// counter wrap inside a batch.
    #[test]
    fn engines_agree_with_portable() {
        let state = test_state(1, 0x85eb_ca6b, 0xc2b2_ae35);
        for counter in [
            0u32,
            1,
            5,
            1000,
            u32::MAX - 15,
            u32::MAX - 8,
            u32::MAX - 3,
            u32::MAX,
        ] {
            let mut expected = [0u8; BATCH_BYTES];
            Kernel::Portable.fill(&state, counter, &mut expected);
            for kernel in Kernel::available() {
                let mut out = [0u8; BATCH_BYTES];
                kernel.fill(&state, counter, &mut out);
                assert_eq!(out, expected, "{} at counter {counter}", kernel.name());
                // Three batches and a partial one: the batches get the key stream of consecutive
                // counters, the partial tail is left alone.
                let mut data = vec![0x5a_u8; 3 * BATCH_BYTES + 100];
                let prepared = Prepared::new(&state);
                kernel.xor_batches(&prepared, &state, counter, &mut data);
                for (i, batch) in data.chunks(BATCH_BYTES).enumerate() {
                    let mut ks = [0u8; BATCH_BYTES];
                    if i < 3 {
                        let first = counter.wrapping_add((i * BATCH_BLOCKS) as u32);
                        Kernel::Portable.fill(&state, first, &mut ks);
                    }
                    let xored: Vec<u8> = ks[..batch.len()].iter().map(|k| k ^ 0x5a).collect();
                    assert_eq!(
                        batch,
                        &xored[..],
                        "{} xor batch {i} at {counter}",
                        kernel.name()
                    );
                }
            }
        }
        assert!(Kernel::available().contains(&Kernel::select()));
    }

    /// `xor_batches` of exactly one batch (AVX-512's separate one-batch path), with the
    /// precomputation made from a state whose counter word differs (it must not be used).
    #[test]
    fn one_batch_xor_agrees_with_portable() {
        let state = test_state(5, 0x68e3_1da4, 0x1b87_3593);
        let mut other = state;
        other[12] ^= 0xdead_beef;
        let prepared = Prepared::new(&other);
        for counter in [0u32, 16, u32::MAX - 15, u32::MAX - 7, u32::MAX] {
            let mut expected = [0u8; BATCH_BYTES];
            Kernel::Portable.fill(&state, counter, &mut expected);
            for kernel in Kernel::available() {
                let mut data: Vec<u8> = (0..BATCH_BYTES).map(|i| (i * 13 + 7) as u8).collect();
                let xored: Vec<u8> = data.iter().zip(&expected).map(|(d, k)| d ^ k).collect();
                kernel.xor_batches(&prepared, &state, counter, &mut data);
                assert_eq!(data, xored, "{} at counter {counter}", kernel.name());
            }
        }
    }

    /// `xor_narrow` of every kernel at every length it takes (and none other) XORs the portable
    /// key stream into the whole blocks and writes the blocks after them, also across the 2^32
    /// counter wrap.
    #[test]
    fn narrow_xor_agrees_with_portable() {
        let state = test_state(3, 0x2545_f491, 0x9e37_79b9);
        for counter in [0u32, 1, 1000, u32::MAX - 7, u32::MAX - 4, u32::MAX] {
            let mut expected = [0u8; BATCH_BYTES];
            Kernel::Portable.fill(&state, counter, &mut expected);
            for kernel in Kernel::available() {
                for len in 0..=BATCH_BYTES {
                    let mut data: Vec<u8> = (0..len).map(|i| (i * 7 + 1) as u8).collect();
                    let original = data.clone();
                    let mut rest = [0xa5u8; BATCH_BYTES];
                    let Some(computed) = kernel.xor_narrow(&state, counter, &mut data, &mut rest)
                    else {
                        assert_eq!(data, original, "{} {len}: untouched", kernel.name());
                        assert_eq!(rest, [0xa5u8; BATCH_BYTES]);
                        continue;
                    };
                    let name = kernel.name();
                    assert!(
                        (NARROW_MIN..=NARROW_MAX).contains(&len),
                        "{name} took {len}"
                    );
                    assert!((len.div_ceil(64)..=BATCH_BLOCKS).contains(&computed));
                    let whole = 64 * (len / 64);
                    let xored: Vec<u8> = original[..whole]
                        .iter()
                        .zip(&expected)
                        .map(|(d, k)| d ^ k)
                        .collect();
                    assert_eq!(data[..whole], xored[..], "{name} {len} at {counter}");
                    assert_eq!(data[whole..], original[whole..], "{name} {len}: tail left");
                    let buffered = 64 * computed - whole;
                    assert_eq!(
                        rest[..buffered],
                        expected[whole..64 * computed],
                        "{name} {len} at {counter}: blocks after"
                    );
                    assert!(rest[buffered..].iter().all(|&b| b == 0xa5));
                }
            }
        }
        #[cfg(target_arch = "x86_64")]
        if Kernel::available().contains(&Kernel::Avx512) {
            let mut data = [0u8; NARROW_MIN];
            let mut rest = [0u8; BATCH_BYTES];
            assert!(Kernel::Avx512
                .xor_narrow(&state, 0, &mut data, &mut rest)
                .is_some());
        }
    }

    /// `fill_blocks` of every kernel and every block count (the 4- and 8-block AVX-512 short
    /// kernel, the 8-block AVX2 call, SSE2's multiples of four, whole batches) writes the portable
    /// key stream for at least the blocks asked for, also across the 2^32 counter wrap.
    #[test]
    fn narrow_fills_agree_with_portable() {
        let state = test_state(7, 0x9e37_79b9, 0x7f4a_7c15);
        for counter in [
            0u32,
            1,
            1000,
            u32::MAX - 8,
            u32::MAX - 4,
            u32::MAX - 1,
            u32::MAX,
        ] {
            let mut expected = [0u8; BATCH_BYTES];
            Kernel::Portable.fill(&state, counter, &mut expected);
            for kernel in Kernel::available() {
                for blocks in 1..=BATCH_BLOCKS {
                    let mut out = [0u8; BATCH_BYTES];
                    let written = kernel.fill_blocks(&state, counter, &mut out, blocks);
                    assert!(
                        (blocks..=BATCH_BLOCKS).contains(&written),
                        "{} wrote {written} for {blocks}",
                        kernel.name()
                    );
                    assert_eq!(
                        out[..64 * written],
                        expected[..64 * written],
                        "{} {blocks} blocks at counter {counter}",
                        kernel.name()
                    );
                }
            }
        }
    }
}
