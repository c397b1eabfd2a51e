//! Kuznyechik (GOST R 34.12-2015, RFC 7801): 128-bit block, 256-bit key.
//!
//! Every byte string is in the order RFC 7801 prints it (byte 0 = a_15, the most significant byte).
//!
//! Backends, chosen once per key by the CPU's plan ([`crate::cpu::plan`]) (`SHIFR_BACKEND` forces one):
//! - **gfni** (`x86_avx512_gfni`, x86-64 with AVX-512 F/BW/VBMI and GFNI) — the default where present:
//!   constant-time. The S-box is a 256-byte table held in four registers (`VPERMI2B`), the linear map
//!   is sixteen `GF2P8MULB` products after a change of field basis (`aes_field`); four blocks per
//!   512-bit register. Single blocks (both directions) and the single-stream chains (CBC and CFB
//!   encryption, OFB, the OMAC chain, through [`BlockCipher::feedback_chain`]) take a one-block
//!   kernel with a shorter dependency chain (`x86_avx512_gfni_chain`: four products per round, the
//!   chaining value kept in a register). CTR from 64 blocks on has a fused path
//!   ([`BlockCipher::ctr_xor`]): counters made byte-sliced, their shared bytes' first round once per
//!   64 blocks, the key stream XORed on the store; a one-block message takes the one-block kernel,
//!   its key stream XORed from the register. No memory access depends on key or data.
//! - **avx2** (`x86_avx2_tables`, x86-64 with AVX2): NOT constant-time. The fused LS tables below with
//!   vector XORs, eight blocks interleaved. The default only where the gfni backend is missing.
//! - **portable** (`soft`): NOT constant-time, the oracle the others are tested against. Encryption
//!   uses fused tables (16 tables of 256 16-byte entries combining the S-box PI with the linear map L,
//!   built on first use from PI and L's coefficients) and decryption the corresponding inverse tables;
//!   their lookups are indexed by key- and data-dependent bytes, which cache-timing attacks can observe.
//!
//! Multi-stream calls ([`BlockCipher::encrypt_lanes`]) run one block per cipher through the same
//! kernels when every cipher has the same SIMD backend (each lane or interleaved block its own keys).
//! On gfni the multi-stream feedback modes (CBC encryption, CFB, the OMAC chain) go through
//! [`BlockCipher::feedback_lanes`] instead (`x86_avx512_gfni_streams`): whole runs of blocks per call,
//! round keys gathered once, chaining values held in registers; the table backends have no such kernel.
//!
//! On AArch64, `aarch64_neon` is a constant-time backend (byte-sliced, S-box and GF(2^8)
//! multiplications as TBL lookups in registers), chosen through `cpu::select` as
//! [`crate::cpu::Backend::Neon`]; `SHIFR_BACKEND=portable` forces the tables.
//!
//! The reference transformations (`transform_s`, `transform_r`, `transform_l`, [`round_constant`],
//! [`Kuznyechik::trace_block`]) follow the standard's definitions byte by byte and are independent of
//! the tables; the known-answer tests check both.

#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
mod aarch64_neon;
#[cfg(target_arch = "x86_64")]
mod aes_field;
mod algorithm;
mod soft;
mod tables;
#[cfg(target_arch = "x86_64")]
mod x86_avx2_tables;
#[cfg(target_arch = "x86_64")]
mod x86_avx512_gfni;
#[cfg(target_arch = "x86_64")]
mod x86_avx512_gfni_chain;
#[cfg(target_arch = "x86_64")]
mod x86_avx512_gfni_mgm;
#[cfg(target_arch = "x86_64")]
mod x86_avx512_gfni_streams;

pub use algorithm::KuznyechikAlgorithm;
pub use tables::PI;

use std::sync::OnceLock;

use tables::{gf_mul, L_COEFFS, PI_INV};
use zeroize::Zeroize;

use crate::block::{BlockCipher, Chain, CounterHalf, Feedback, KeyInit};
use crate::cpu::{self, Backend};
use crate::{Error, Result};

/// Block size in bytes.
pub const BLOCK_SIZE: usize = 16;
/// Key size in bytes.
pub const KEY_SIZE: usize = 32;

/// The nonlinear bijection `S`: [`PI`] applied to every byte.
pub fn transform_s(a: &[u8; 16]) -> [u8; 16] {
    a.map(|b| PI[b as usize])
}

/// `S^-1`.
pub fn transform_s_inv(a: &[u8; 16]) -> [u8; 16] {
    a.map(|b| PI_INV[b as usize])
}

/// The linear function `l(a_15, ..., a_0)` over the block in wire order.
fn l_function(a: &[u8; 16]) -> u8 {
    a.iter()
        .zip(&L_COEFFS)
        .fold(0, |acc, (&x, &c)| acc ^ gf_mul(x, c))
}

/// `R(a_15 || ... || a_0) = l(a_15, ..., a_0) || a_15 || ... || a_1`.
pub fn transform_r(a: &[u8; 16]) -> [u8; 16] {
    let mut out = [0u8; 16];
    out[0] = l_function(a);
    out[1..].copy_from_slice(&a[..15]);
    out
}

/// `R^-1(a_15 || ... || a_0) = a_14 || ... || a_0 || l(a_14, ..., a_0, a_15)`.
pub fn transform_r_inv(a: &[u8; 16]) -> [u8; 16] {
    let mut rotated = [0u8; 16];
    rotated[..15].copy_from_slice(&a[1..]);
    rotated[15] = a[0];
    let mut out = rotated;
    out[15] = l_function(&rotated);
    out
}

/// `L = R^16`.
pub fn transform_l(a: &[u8; 16]) -> [u8; 16] {
    (0..16).fold(*a, |x, _| transform_r(&x))
}

/// `L^-1 = (R^-1)^16`.
pub fn transform_l_inv(a: &[u8; 16]) -> [u8; 16] {
    (0..16).fold(*a, |x, _| transform_r_inv(&x))
}

/// The key-schedule constant `C_i = L(Vec_128(i))` (used for i = 1..32).
pub fn round_constant(i: u8) -> [u8; 16] {
    let mut v = [0u8; 16];
    v[15] = i;
    transform_l(&v)
}

/// C_1..C_32 as big-endian `u128`, computed once: the key schedule runs often (ACPKM re-keys per section).
fn round_constants() -> &'static [u128; 32] {
    static CONSTANTS: OnceLock<[u128; 32]> = OnceLock::new();
    CONSTANTS
        .get_or_init(|| core::array::from_fn(|i| u128::from_be_bytes(round_constant(i as u8 + 1))))
}

fn xor(a: &[u8; 16], b: &[u8; 16]) -> [u8; 16] {
    core::array::from_fn(|i| a[i] ^ b[i])
}

/// The backends Kuznyechik offers on this CPU (`gfni` also needs AVX-512 VBMI, which
/// `Backend::Gfni` alone does not promise).
#[cfg(target_arch = "x86_64")]
fn offered() -> &'static [Backend] {
    if x86_avx512_gfni::supported() {
        &[Backend::Avx2, Backend::Gfni]
    } else {
        &[Backend::Avx2]
    }
}

#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
fn offered() -> &'static [Backend] {
    &[Backend::Neon]
}

#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "aarch64", target_endian = "little")
)))]
fn offered() -> &'static [Backend] {
    &[]
}

/// The round keys in the form a SIMD backend wants; holding one proves the CPU runs that backend.
/// Kept inline (the gfni keys are about 800 bytes): a cipher is keyed once and used for many calls,
/// and a short message should not pay a pointer chase to reach its keys.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
enum Kernel {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Avx2(x86_avx2_tables::TableKeys),
    #[cfg(target_arch = "x86_64")]
    Gfni(x86_avx512_gfni::GfniKeys),
    /// The NEON backend works on the portable round keys directly.
    #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
    Neon,
}

/// Kuznyechik on one of the backends of the module documentation (only `gfni` is constant-time).
#[derive(Clone)]
pub struct Kuznyechik {
    /// K_1..K_10 as big-endian `u128`.
    keys: [u128; 10],
    /// K_1, then `L^-1(K_2)..L^-1(K_10)`, for the table-driven decryption.
    inv_keys: [u128; 10],
    kernel: Kernel,
    /// `E_K(0^128)` (OMAC's `R`), made on first use: CTR-ACPKM sets up a key every section and
    /// never asks for it. Wiped on drop like the round keys.
    zero_image: OnceLock<[u8; 16]>,
}

impl Kuznyechik {
    /// The backends new keys take on this CPU, and why ([`cpu::plan`]).
    pub fn plan() -> cpu::Plan {
        cpu::plan(cpu::Primitive::Kuznyechik, offered())
    }

    /// Expands a 32-byte key for the best backend of this CPU (or the one forced by `SHIFR_BACKEND`).
    pub fn new(key: &[u8]) -> Result<Kuznyechik> {
        Kuznyechik::build(key, Kuznyechik::plan().bulk)
    }

    /// Expands a 32-byte key for the given backend; [`Error::BackendUnavailable`] if this CPU lacks it.
    pub fn with_backend(key: &[u8], backend: Backend) -> Result<Kuznyechik> {
        Kuznyechik::build(key, cpu::require(backend, offered())?)
    }

    /// The backend this instance runs on.
    pub fn backend(&self) -> Backend {
        match self.kernel {
            Kernel::Portable => Backend::Portable,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2(_) => Backend::Avx2,
            #[cfg(target_arch = "x86_64")]
            Kernel::Gfni(_) => Backend::Gfni,
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Kernel::Neon => Backend::Neon,
        }
    }

    fn build(key: &[u8], backend: Backend) -> Result<Kuznyechik> {
        let mut cipher = match backend {
            #[cfg(target_arch = "x86_64")]
            Backend::Gfni if x86_avx512_gfni::supported() => Kuznyechik::scheduled_with_gfni(key)?,
            _ => Kuznyechik::portable(key)?,
        };
        #[cfg(target_arch = "x86_64")]
        let unavailable = Error::BackendUnavailable(backend.name());
        cipher.kernel = match backend {
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => Kernel::Avx2(
                x86_avx2_tables::TableKeys::new(&cipher.keys, &cipher.inv_keys)
                    .ok_or(unavailable)?,
            ),
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Backend::Neon => Kernel::Neon,
            #[cfg(target_arch = "x86_64")]
            Backend::Gfni => {
                let mut round_keys = cipher.round_keys();
                let kernel = x86_avx512_gfni::GfniKeys::new(&round_keys);
                round_keys.zeroize();
                Kernel::Gfni(kernel.ok_or(unavailable)?)
            }
            _ => Kernel::Portable,
        };
        Ok(cipher)
    }

    /// A cipher without round keys yet, or [`Error::InvalidKeyLength`]; its keys are then made in
    /// place, so that no stray copy of them outlives the call unzeroized.
    fn unkeyed(key: &[u8]) -> Result<Kuznyechik> {
        if key.len() != KEY_SIZE {
            return Err(Error::InvalidKeyLength {
                expected: "32",
                got: key.len(),
            });
        }
        Ok(Kuznyechik {
            keys: [0; 10],
            inv_keys: [0; 10],
            kernel: Kernel::Portable,
            zero_image: OnceLock::new(),
        })
    }

    /// The key schedule of [`Kuznyechik::portable`] run by the GFNI backend's one-block kernel
    /// (same keys, tested against it): its 32 steps wait on register permutes instead of a 64 KiB
    /// table, about half the time, which CTR-ACPKM pays every section. The caller has checked that
    /// the CPU runs the backend.
    #[cfg(target_arch = "x86_64")]
    fn scheduled_with_gfni(key: &[u8]) -> Result<Kuznyechik> {
        let mut cipher = Kuznyechik::unkeyed(key)?;
        let mut key_bytes = [0u8; 32];
        key_bytes.copy_from_slice(key);
        let constants = round_constants().map(u128::to_be_bytes);
        let mut keys = [[0u8; 16]; 10];
        let mut inv_keys = [[0u8; 16]; 10];
        // SAFETY: the caller found the CPU features of the GFNI backend (`supported`).
        unsafe {
            x86_avx512_gfni_chain::schedule(&key_bytes, &constants, &mut keys, &mut inv_keys)
        };
        cipher.keys = keys.map(u128::from_be_bytes);
        cipher.inv_keys = inv_keys.map(u128::from_be_bytes);
        crate::wipe::wipe(&mut key_bytes);
        crate::wipe::wipe(keys.as_flattened_mut());
        crate::wipe::wipe(inv_keys.as_flattened_mut());
        Ok(cipher)
    }

    /// The portable key schedule, which every backend but `gfni` starts from.
    fn portable(key: &[u8]) -> Result<Kuznyechik> {
        let mut cipher = Kuznyechik::unkeyed(key)?;
        let mut half = [0u8; 16];
        half.copy_from_slice(&key[..16]);
        let mut a1 = u128::from_be_bytes(half);
        half.copy_from_slice(&key[16..]);
        let mut a0 = u128::from_be_bytes(half);
        half.zeroize();
        cipher.keys[0] = a1;
        cipher.keys[1] = a0;
        // Four times eight Feistel steps F[C](a1, a0) = (LSX[C](a1) ^ a0, a1) yield K_3..K_10.
        for (pair, constants) in round_constants().chunks_exact(8).enumerate() {
            for &c in constants {
                (a1, a0) = (soft::lsx(c, a1) ^ a0, a1);
            }
            cipher.keys[2 * pair + 2] = a1;
            cipher.keys[2 * pair + 3] = a0;
        }
        a1.zeroize();
        a0.zeroize();
        cipher.inv_keys[0] = cipher.keys[0];
        for (inv, k) in cipher.inv_keys[1..].iter_mut().zip(&cipher.keys[1..]) {
            *inv = soft::l_inv(*k);
        }
        Ok(cipher)
    }

    /// The round keys K_1..K_10 in wire order.
    pub fn round_keys(&self) -> [[u8; 16]; 10] {
        self.keys.map(u128::to_be_bytes)
    }

    /// `LSX[K_i]...LSX[K_1](block)` for i = 1..9 (the RFC's lsx1..lsx9), computed with the reference
    /// transformations rather than the fused tables.
    pub fn trace_block(&self, block: &[u8; 16]) -> [[u8; 16]; 9] {
        let mut x = *block;
        let mut trace = [[0u8; 16]; 9];
        for (state, k) in trace.iter_mut().zip(self.round_keys()) {
            x = transform_l(&transform_s(&xor(&x, &k)));
            *state = x;
        }
        trace
    }
}

impl Drop for Kuznyechik {
    fn drop(&mut self) {
        self.keys.zeroize();
        self.inv_keys.zeroize();
        if let Some(image) = self.zero_image.get_mut() {
            image.zeroize();
        }
    }
}

impl core::fmt::Debug for Kuznyechik {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Kuznyechik")
            .field("backend", &self.backend())
            .finish_non_exhaustive()
    }
}

impl BlockCipher for Kuznyechik {
    fn block_size(&self) -> usize {
        BLOCK_SIZE
    }
    fn zero_block_image(&self) -> Option<&[u8]> {
        let image = self.zero_image.get_or_init(|| {
            let mut zero = [0u8; 16];
            self.encrypt_blocks(&mut zero);
            zero
        });
        Some(image)
    }
    fn encrypt_blocks(&self, data: &mut [u8]) {
        match &self.kernel {
            Kernel::Portable => soft::encrypt_blocks(&self.keys, data),
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Kernel::Neon => aarch64_neon::encrypt_blocks(&self.keys, data),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2(k) => k.encrypt_blocks(data),
            #[cfg(target_arch = "x86_64")]
            Kernel::Gfni(k) => k.encrypt_blocks(data),
        }
    }
    fn decrypt_blocks(&self, data: &mut [u8]) {
        match &self.kernel {
            Kernel::Portable => soft::decrypt_blocks(&self.keys, &self.inv_keys, data),
            #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
            Kernel::Neon => aarch64_neon::decrypt_blocks(&self.keys, data),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2(k) => k.decrypt_blocks(data),
            #[cfg(target_arch = "x86_64")]
            Kernel::Gfni(k) => k.decrypt_blocks(data, &self.inv_keys),
        }
    }
    /// On gfni, messages of 64 blocks and more: counters made directly in the byte-sliced layout,
    /// the first round of their shared bytes run once per 64 blocks, the key stream XORed on the
    /// store. A message of at most one block goes through the one-block kernel, its key stream
    /// kept in a register; the lengths between take the mode's batches (the lane kernel).
    fn ctr_xor(&self, counter: &mut [u8], data: &mut [u8]) -> bool {
        #[cfg(target_arch = "x86_64")]
        if let (Kernel::Gfni(k), Ok(counter)) = (&self.kernel, <&mut [u8; 16]>::try_from(counter)) {
            if data.len() >= CTR_SLICED_BYTES {
                k.ctr_xor(counter, data);
                return true;
            }
            // One block: straight through the one-block kernel, the key stream in a register.
            if !data.is_empty() && data.len() <= BLOCK_SIZE {
                k.ctr_xor_block(counter, data);
                return true;
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (counter, data);
        false
    }
    /// On gfni, the byte-sliced kernel with the counters made in registers
    /// (`x86_avx512_gfni_mgm`).
    fn half_ctr_xor(&self, counter: &[u8], half: CounterHalf, data: &mut [u8]) -> bool {
        #[cfg(target_arch = "x86_64")]
        if let (Kernel::Gfni(k), Ok(counter)) = (&self.kernel, <&[u8; 16]>::try_from(counter)) {
            match half {
                CounterHalf::Left => x86_avx512_gfni_mgm::half_ctr_xor::<true>(k, counter, data),
                CounterHalf::Right => x86_avx512_gfni_mgm::half_ctr_xor::<false>(k, counter, data),
            }
            return true;
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (counter, half, data);
        false
    }
    fn encrypt_lanes(ciphers: &[&Self], blocks: &mut [u8]) {
        lanes(ciphers, blocks, true);
    }
    fn decrypt_lanes(ciphers: &[&Self], blocks: &mut [u8]) {
        lanes(ciphers, blocks, false);
    }
    fn feedback_lanes(ciphers: &[&Self], registers: &mut [u8], run: Feedback<'_, '_>) -> bool {
        feedback(ciphers, registers, run)
    }
    fn feedback_chain(&self, register: &mut [u8], chain: Chain<'_>) -> bool {
        match chain {
            Chain::CbcEncrypt(data) => self.chain(ChainMode::Cbc, register, data),
            Chain::CfbEncrypt(data) => self.chain(ChainMode::Cfb, register, data),
            Chain::Ofb(data) => self.chain(ChainMode::Ofb, register, data),
            Chain::CbcMac(data) => self.cbc_mac_chain(register, data),
            Chain::Cfb8Encrypt(_) => false,
        }
    }
}

/// The single-stream feedback modes of the gfni backend's one-block kernel.
#[cfg(target_arch = "x86_64")]
use x86_avx512_gfni_chain::Chain as ChainMode;

/// Stand-in so that the hook reads the same on every architecture (no kernel: never taken).
#[cfg(not(target_arch = "x86_64"))]
enum ChainMode {
    Cbc,
    Cfb,
    Ofb,
}

impl Kuznyechik {
    /// A single-stream feedback run through the gfni backend's chained kernel: `iv` one block,
    /// `data` whole blocks (OFB: any length). False, touching nothing, on other backends or shapes.
    #[cfg(target_arch = "x86_64")]
    fn chain(&self, mode: ChainMode, iv: &mut [u8], data: &mut [u8]) -> bool {
        let whole = mode == ChainMode::Ofb || data.len().is_multiple_of(16);
        match &self.kernel {
            Kernel::Gfni(k) if iv.len() == 16 && whole => {
                k.chain(mode, iv, data);
                true
            }
            _ => false,
        }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn chain(&self, _mode: ChainMode, _iv: &mut [u8], _data: &mut [u8]) -> bool {
        false
    }

    /// The OMAC chain `R = E(R ^ B)` over whole blocks through the gfni backend's chained kernel;
    /// false, touching nothing, on other backends or shapes.
    #[cfg(target_arch = "x86_64")]
    fn cbc_mac_chain(&self, state: &mut [u8], data: &[u8]) -> bool {
        match &self.kernel {
            Kernel::Gfni(k) if state.len() == 16 && data.len().is_multiple_of(16) => {
                k.cbc_mac(state, data);
                true
            }
            _ => false,
        }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn cbc_mac_chain(&self, _state: &mut [u8], _data: &[u8]) -> bool {
        false
    }
}

/// Multi-stream feedback modes in one call: the gfni backend's kernel when every cipher runs it.
#[cfg(target_arch = "x86_64")]
fn feedback(ciphers: &[&Kuznyechik], registers: &mut [u8], run: Feedback<'_, '_>) -> bool {
    let keys: Option<Vec<&x86_avx512_gfni::GfniKeys>> = ciphers
        .iter()
        .map(|c| match &c.kernel {
            Kernel::Gfni(k) => Some(k),
            _ => None,
        })
        .collect();
    match keys {
        Some(keys) if !keys.is_empty() => x86_avx512_gfni_streams::feedback(&keys, registers, run),
        _ => false,
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn feedback(_ciphers: &[&Kuznyechik], _registers: &mut [u8], _run: Feedback<'_, '_>) -> bool {
    false
}

/// Shortest message for the gfni backend's fused CTR path: one pass of its byte-sliced kernel.
#[cfg(target_arch = "x86_64")]
const CTR_SLICED_BYTES: usize = 64 * BLOCK_SIZE;

/// Ciphers per multi-stream group handed to a SIMD kernel.
const LANE_GROUP: usize = 16;

/// Multi-stream: groups whose ciphers share a SIMD backend go through its lane kernel, others block by
/// block.
fn lanes(ciphers: &[&Kuznyechik], blocks: &mut [u8], encrypt: bool) {
    for (group, chunk) in ciphers
        .chunks(LANE_GROUP)
        .zip(blocks.chunks_mut(16 * LANE_GROUP))
    {
        if simd_lanes(group, chunk, encrypt) {
            continue;
        }
        for (c, block) in group.iter().zip(chunk.chunks_exact_mut(16)) {
            if encrypt {
                c.encrypt_blocks(block);
            } else {
                c.decrypt_blocks(block);
            }
        }
    }
}

/// Runs a group through a SIMD lane kernel if all its ciphers use the same one; false otherwise.
#[cfg(target_arch = "x86_64")]
fn simd_lanes(group: &[&Kuznyechik], chunk: &mut [u8], encrypt: bool) -> bool {
    if let Some(keys) = same_engine(group, |e| match e {
        Kernel::Gfni(k) => Some(k),
        _ => None,
    }) {
        x86_avx512_gfni::lanes(&keys[..group.len()], chunk, encrypt);
        return true;
    }
    if let Some(keys) = same_engine(group, |e| match e {
        Kernel::Avx2(k) => Some(k),
        _ => None,
    }) {
        x86_avx2_tables::lanes(&keys[..group.len()], chunk, encrypt);
        return true;
    }
    false
}

#[cfg(not(target_arch = "x86_64"))]
fn simd_lanes(_group: &[&Kuznyechik], _chunk: &mut [u8], _encrypt: bool) -> bool {
    false
}

/// The backend keys of every cipher of `group` (at most [`LANE_GROUP`]), if `get` finds them in all.
#[cfg(target_arch = "x86_64")]
fn same_engine<'a, T>(
    group: &[&'a Kuznyechik],
    get: impl Fn(&'a Kernel) -> Option<&'a T>,
) -> Option<[&'a T; LANE_GROUP]> {
    let first = get(&group.first()?.kernel)?;
    let mut keys = [first; LANE_GROUP];
    for (k, c) in keys.iter_mut().zip(group) {
        *k = get(&c.kernel)?;
    }
    Some(keys)
}

impl KeyInit for Kuznyechik {
    const KEY_SIZES: &'static [usize] = &[KEY_SIZE];

    fn new_from_slice(key: &[u8]) -> Result<Kuznyechik> {
        Kuznyechik::new(key)
    }

    /// Keeps this instance's backend.
    fn rekey(&self, key: &[u8]) -> Result<Kuznyechik> {
        Kuznyechik::with_backend(key, self.backend())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(s: &str) -> [u8; 16] {
        hex::decode(s).unwrap().try_into().unwrap()
    }

    // Records from /work/shared/vectors/gost.txt (RFC 7801 §5; GOST R 34.13-2015 A.1.1).
    const KEY: &str = "8899aabbccddeeff0011223344556677fedcba98765432100123456789abcdef";

    fn check_chain(f: fn(&[u8; 16]) -> [u8; 16], inv: fn(&[u8; 16]) -> [u8; 16], chain: &[&str]) {
        for w in chain.windows(2) {
            assert_eq!(hex::encode(f(&block(w[0]))), w[1]);
            assert_eq!(hex::encode(inv(&block(w[1]))), w[0]);
        }
    }

    #[test]
    fn transform_s_matches_rfc7801_5_1() {
        let chain = [
            "ffeeddccbbaa99881122334455667700",
            "b66cd8887d38e8d77765aeea0c9a7efc",
            "559d8dd7bd06cbfe7e7b262523280d39",
            "0c3322fed531e4630d80ef5c5a81c50b",
            "23ae65633f842d29c5df529c13f5acda",
        ];
        check_chain(transform_s, transform_s_inv, &chain);
    }

    #[test]
    fn transform_r_matches_rfc7801_5_2() {
        let chain = [
            "00000000000000000000000000000100",
            "94000000000000000000000000000001",
            "a5940000000000000000000000000000",
            "64a59400000000000000000000000000",
            "0d64a594000000000000000000000000",
        ];
        check_chain(transform_r, transform_r_inv, &chain);
    }

    #[test]
    fn transform_l_matches_rfc7801_5_3() {
        let chain = [
            "64a59400000000000000000000000000",
            "d456584dd0e3e84cc3166e4b7fa2890d",
            "79d26221b87b584cd42fbc4ffea5de9a",
            "0e93691a0cfc60408b7b68f66b513c13",
            "e6a8094fee0aa204fd97bcb0b44b8580",
        ];
        check_chain(transform_l, transform_l_inv, &chain);
    }

    #[test]
    fn key_schedule_matches_rfc7801_5_4() {
        let c = [
            "6ea276726c487ab85d27bd10dd849401",
            "dc87ece4d890f4b3ba4eb92079cbeb02",
            "b2259a96b4d88e0be7690430a44f7f03",
            "7bcd1b0b73e32ba5b79cb140f2551504",
            "156f6d791fab511deabb0c502fd18105",
            "a74af7efab73df160dd208608b9efe06",
            "c9e8819dc73ba5ae50f5b570561a6a07",
            "f6593616e6055689adfba18027aa2a08",
        ];
        for (i, want) in c.iter().enumerate() {
            assert_eq!(
                hex::encode(round_constant(i as u8 + 1)),
                *want,
                "C_{}",
                i + 1
            );
        }
        let k = [
            "8899aabbccddeeff0011223344556677",
            "fedcba98765432100123456789abcdef",
            "db31485315694343228d6aef8cc78c44",
            "3d4553d8e9cfec6815ebadc40a9ffd04",
            "57646468c44a5e28d3e59246f429f1ac",
            "bd079435165c6432b532e82834da581b",
            "51e640757e8745de705727265a0098b1",
            "5a7925017b9fdd3ed72a91a22286f984",
            "bb44e25378c73123a5f32f73cdb6e517",
            "72e9dd7416bcf45b755dbaa88e4a4043",
        ];
        let cipher = Kuznyechik::new(&hex::decode(KEY).unwrap()).unwrap();
        for (i, (got, want)) in cipher.round_keys().iter().zip(k).enumerate() {
            assert_eq!(hex::encode(got), want, "K_{}", i + 1);
        }
    }

    /// `count` keys from an xorshift generator seeded with `seed`: reproducible test keys.
    #[cfg(target_arch = "x86_64")]
    pub(super) fn pseudo_random_keys<const N: usize>(seed: u64, count: usize) -> Vec<[u8; N]> {
        let mut x = seed;
        (0..count)
            .map(|_| {
                core::array::from_fn(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
            })
            .collect()
    }

    /// The GFNI backend's key schedule makes the portable schedule's round keys and decryption
    /// keys, for random keys and the RFC's.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn gfni_key_schedule_matches_the_portable_one() {
        if !x86_avx512_gfni::supported() {
            eprintln!("skipped: this CPU lacks the gfni backend (AVX-512 VBMI and GFNI)");
            return;
        }
        let mut keys: Vec<[u8; 32]> = pseudo_random_keys(0x2545_f491_4f6c_dd1d, 300);
        keys.push(hex::decode(KEY).unwrap().try_into().unwrap());
        keys.push([0; 32]);
        keys.push([0xff; 32]);
        for key in keys {
            let want = Kuznyechik::portable(&key).unwrap();
            let got = Kuznyechik::scheduled_with_gfni(&key).unwrap();
            assert_eq!(got.keys, want.keys, "{key:02x?}");
            assert_eq!(got.inv_keys, want.inv_keys, "{key:02x?}");
        }
        assert!(Kuznyechik::scheduled_with_gfni(&[0; 31]).is_err());
    }

    #[test]
    fn trace_and_block_match_rfc7801_5_5() {
        let lsx = [
            "e297b686e355b0a1cf4a2f9249140830",
            "285e497a0862d596b36f4258a1c69072",
            "0187a3a429b567841ad50d29207cc34e",
            "ec9bdba057d4f4d77c5d70619dcad206",
            "1357fd11de9257290c2a1473eb6bcde1",
            "28ae31e7d4c2354261027ef0b32897df",
            "07e223d56002c013d3f5e6f714b86d2d",
            "cd8ef6cd97e0e092a8e4cca61b38bf65",
            "0d8e40e4a800d06b2f1b37ea379ead8e",
        ];
        let cipher = Kuznyechik::new(&hex::decode(KEY).unwrap()).unwrap();
        let pt = block("1122334455667700ffeeddccbbaa9988");
        for (i, (got, want)) in cipher.trace_block(&pt).iter().zip(lsx).enumerate() {
            assert_eq!(hex::encode(got), want, "lsx{}", i + 1);
        }
        let mut b = pt;
        cipher.encrypt_blocks(&mut b);
        assert_eq!(hex::encode(b), "7f679d90bebc24305a468d42b9d4edcd");
        cipher.decrypt_blocks(&mut b);
        assert_eq!(b, pt);
    }

    #[test]
    fn ecb_matches_gost_r_34_13_a11() {
        let cipher = Kuznyechik::new(&hex::decode(KEY).unwrap()).unwrap();
        let pt = hex::decode(
            "1122334455667700ffeeddccbbaa998800112233445566778899aabbcceeff0a\
             112233445566778899aabbcceeff0a002233445566778899aabbcceeff0a0011",
        )
        .unwrap();
        let ct = "7f679d90bebc24305a468d42b9d4edcdb429912c6e0032f9285452d76718d08b\
                  f0ca33549d247ceef3f5a5313bd4b157d0b09ccde830b9eb3a02c4c5aa8ada98";
        // 0..4 blocks plus a trailing partial block: interleaved pairs, the single remainder, the tail.
        for blocks in 0..=4 {
            let mut data = pt[..16 * blocks].to_vec();
            data.extend_from_slice(&[0x55; 5]);
            cipher.encrypt_blocks(&mut data);
            assert_eq!(hex::encode(&data[..16 * blocks]), ct[..32 * blocks]);
            assert_eq!(&data[16 * blocks..], &[0x55; 5]);
            cipher.decrypt_blocks(&mut data);
            assert_eq!(&data[..16 * blocks], &pt[..16 * blocks]);
        }
    }

    #[test]
    fn fused_tables_agree_with_reference_transforms() {
        let t = tables::fused();
        for i in 0..16 {
            for x in [0u8, 1, 0x5a, 0xa5, 0xff] {
                let mut v = [0u8; 16];
                v[i] = x;
                let want = transform_l(&transform_s(&v));
                // All 16 tables are summed, so the zero bytes contribute L(PI[0] at byte j) as S(v) has.
                let mut got = 0u128;
                for (j, table) in t.encrypt.iter().enumerate() {
                    got ^= table[v[j] as usize];
                }
                assert_eq!(got.to_be_bytes(), want);
                let mut got = 0u128;
                for (j, table) in t.decrypt.iter().enumerate() {
                    got ^= table[v[j] as usize];
                }
                assert_eq!(got.to_be_bytes(), transform_l_inv(&transform_s_inv(&v)));
            }
        }
    }

    #[test]
    fn wrong_key_lengths_are_rejected() {
        for len in [0, 16, 31, 33, 64] {
            assert_eq!(
                Kuznyechik::new(&vec![0u8; len]).unwrap_err(),
                Error::InvalidKeyLength {
                    expected: "32",
                    got: len
                }
            );
        }
    }
}
