//! AES-128/192/256 (FIPS 197) behind the batch-first [`BlockCipher`] trait.
//!
//! Two backends, chosen once per key by [`crate::cpu`]:
//! - **Portable** (`soft`): constant-time. A bitsliced implementation processing four blocks per
//!   pass in eight 64-bit bit planes; SubBytes is the Boyar–Peralta Boolean circuit (XOR/AND/XNOR),
//!   ShiftRows and MixColumns are fixed shifts and masks, decryption runs the inverse cipher the same
//!   way. No secret-indexed table and no secret-dependent branch anywhere, key schedule included.
//! - **AES-NI** (`x86_aesni`, x86-64 only): the AES round instructions, eight blocks interleaved;
//!   also constant-time.
//! - **VAES** (`x86_vaes`): the same rounds on 256-bit registers ([`Backend::Vaes`], two blocks per
//!   register) or 512-bit registers ([`Backend::Avx512`], four blocks; offered when the CPU has
//!   VAES and AVX-512), eight registers in flight; constant-time.
//! - **ARMv8 crypto** (`aarch64_crypto`, AArch64 only, [`Backend::ArmCrypto`]): AESE/AESMC and
//!   AESD/AESIMC, eight blocks interleaved; constant-time. Cores without the extension
//!   (BCM2835-class, many Cortex-A53 SoCs without the licence) get the portable backend.
//!
//! Multi-stream calls ([`BlockCipher::encrypt_lanes`] / `decrypt_lanes`, used by multi-stream CBC,
//! CFB and OMAC) run eight independently keyed blocks interleaved on AES-NI, each lane's round keys
//! read from memory, whenever every lane uses an x86 backend with the same key size. Multi-stream
//! CBC encryption ([`BlockCipher::cbc_encrypt_streams`]) goes further on x86: the streams' round
//! keys are laid out side by side once per call and the chaining values stay in 128-, 256- or
//! 512-bit registers (one, two or four streams each, up to eight registers interleaved) for the
//! whole streams; see `x86_vaes::cbc_encrypt_streams`.
//!
//! `SHIFR_BACKEND=portable|aesni|vaes|avx512` forces a backend for [`Aes::new`]. Round keys are
//! zeroized on drop.

#[cfg(target_arch = "aarch64")]
mod aarch64_crypto;
mod algorithm;
mod key_schedule;
mod soft;
#[cfg(target_arch = "x86_64")]
mod x86_aesni;
#[cfg(target_arch = "x86_64")]
mod x86_chain;
#[cfg(target_arch = "x86_64")]
mod x86_vaes;

pub use algorithm::AesAlgorithm;
use core::fmt;

use crate::block::{BlockCipher, Chain, DecryptChain, KeyInit};
use crate::cpu::{self, Backend, Primitive, Reason};
use crate::{Error, Result};
use zeroize::Zeroizing;

use soft::SoftAes;

/// On VAES backends, block calls on at most this many bytes take the 128-bit AES-NI path: less
/// than one 512-bit register would first broadcast every round key to a wide register. The CPU's
/// plan can send longer short calls to AES-NI or 256-bit VAES too (`Aes::short_max`).
const BUILTIN_SHORT_MAX: usize = 63;

/// CTR calls on fewer bytes than one 512-bit register take the 128-bit AES-NI path on VAES
/// backends (the wide CTR kernel wins from one register up on every CPU measured).
#[cfg(target_arch = "x86_64")]
const SHORT_CTR_BYTES: usize = 64;

/// The backends AES offers on this CPU: 512-bit VAES only where the CPU has VAES as well as
/// AVX-512 (`Backend::Avx512` alone does not imply VAES).
#[cfg(target_arch = "x86_64")]
fn offered() -> &'static [Backend] {
    const ALL: &[Backend] = &[Backend::AesNi, Backend::Vaes, Backend::Avx512];
    let f = cpu::features();
    if f.vaes && f.vpclmulqdq {
        ALL
    } else {
        &ALL[..2]
    }
}
#[cfg(target_arch = "aarch64")]
fn offered() -> &'static [Backend] {
    &[Backend::ArmCrypto]
}
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn offered() -> &'static [Backend] {
    &[]
}

/// An AES key schedule for one of the backends.
#[derive(Clone)]
enum Kernel {
    Portable(Box<SoftAes>),
    #[cfg(target_arch = "x86_64")]
    AesNi(Box<x86_aesni::AesNi>),
    #[cfg(target_arch = "x86_64")]
    Vaes(Box<x86_vaes::Vaes>),
    #[cfg(target_arch = "aarch64")]
    ArmCrypto(Box<aarch64_crypto::ArmAes>),
}

/// AES with a 128-, 192- or 256-bit key. Blocks are 16 bytes in wire order.
#[derive(Clone)]
pub struct Aes {
    kernel: Kernel,
    key_len: usize,
    /// `E_K(0^128)`, computed at key setup (OMAC's `R`); wiped on drop like the round keys.
    zero_image: Zeroizing<[u8; 16]>,
    /// Block calls of at least 64 and at most this many bytes take `short` on a 512-bit VAES
    /// backend (the CPU's plan for short calls; 0 elsewhere). Shorter calls always take AES-NI.
    short_max: usize,
    /// AES-NI, or VAES on 256-bit registers.
    short: Backend,
    /// The one-block AES-NI kernels for this key size, used with the x86 kernels only (see
    /// `x86_aesni::AesNi::one_block_with`).
    #[cfg(target_arch = "x86_64")]
    one_block: x86_aesni::OneBlockKernels,
}

impl Aes {
    /// The backends new keys take on this CPU, and why ([`cpu::plan`]).
    pub fn plan() -> cpu::Plan {
        cpu::plan(Primitive::Aes, offered())
    }

    /// Creates AES with the backends of this CPU's plan (or the one forced by `SHIFR_BACKEND`).
    pub fn new(key: &[u8]) -> Result<Aes> {
        let plan = Aes::plan();
        let short = match plan.reason {
            Reason::Forced => (Backend::AesNi, BUILTIN_SHORT_MAX),
            _ if matches!(plan.short, Backend::AesNi | Backend::Vaes) => {
                (plan.short, plan.short_max.max(BUILTIN_SHORT_MAX))
            }
            _ => (Backend::AesNi, BUILTIN_SHORT_MAX),
        };
        Aes::build(key, plan.bulk, short)
    }

    /// Creates AES with the given backend; [`Error::BackendUnavailable`] if this CPU lacks it.
    pub fn with_backend(key: &[u8], backend: Backend) -> Result<Aes> {
        Aes::build(
            key,
            cpu::require(backend, offered())?,
            (Backend::AesNi, BUILTIN_SHORT_MAX),
        )
    }

    /// The backend this instance runs on.
    pub fn backend(&self) -> Backend {
        match &self.kernel {
            Kernel::Portable(_) => Backend::Portable,
            #[cfg(target_arch = "x86_64")]
            Kernel::AesNi(_) => Backend::AesNi,
            #[cfg(target_arch = "x86_64")]
            Kernel::Vaes(v) => match v.width() {
                x86_vaes::Width::Y256 => Backend::Vaes,
                x86_vaes::Width::Z512 => Backend::Avx512,
            },
            #[cfg(target_arch = "aarch64")]
            Kernel::ArmCrypto(_) => Backend::ArmCrypto,
        }
    }

    /// The AES-NI round keys, for the x86 backends.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn aesni(&self) -> Option<&x86_aesni::AesNi> {
        match &self.kernel {
            Kernel::AesNi(a) => Some(a),
            Kernel::Vaes(v) => Some(v.aesni()),
            Kernel::Portable(_) => None,
        }
    }

    /// XORs the GCM counter-mode key stream (inc32 counters from `first`) into `data` in one pass
    /// when the backend has such a path (512-bit VAES); `false`, touching nothing, otherwise.
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    pub(crate) fn ctr32_xor(&self, first: &[u8; 16], data: &mut [u8]) -> bool {
        match &self.kernel {
            #[cfg(target_arch = "x86_64")]
            Kernel::Vaes(v) => v.ctr32_xor(first, data),
            _ => false,
        }
    }

    /// The encryption round keys and round count when this instance runs on 512-bit VAES, for
    /// kernels that fuse AES with other work (stitched AES-GCM).
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn vaes512_round_keys(&self) -> Option<(&[[u8; 16]], usize)> {
        match &self.kernel {
            Kernel::Vaes(v) if v.width() == x86_vaes::Width::Z512 => {
                Some((&v.aesni().enc_keys()[..], v.aesni().rounds()))
            }
            _ => None,
        }
    }

    /// Multi-stream on AES-NI when every lane has x86 round keys of one size; `false` otherwise.
    #[cfg(target_arch = "x86_64")]
    fn x86_lanes<const DEC: bool>(ciphers: &[&Aes], blocks: &mut [u8]) -> bool {
        const CHUNK: usize = 16;
        let Some(first) = ciphers.first().and_then(|c| c.aesni()) else {
            return false;
        };
        let rounds = Some(first.rounds());
        if ciphers
            .iter()
            .any(|c| c.aesni().map(|a| a.rounds()) != rounds)
        {
            return false;
        }
        for (lanes, data) in ciphers.chunks(CHUNK).zip(blocks.chunks_mut(16 * CHUNK)) {
            let mut keys = [first; CHUNK];
            for (k, c) in keys.iter_mut().zip(lanes) {
                *k = c.aesni().unwrap_or(first);
            }
            // Same round count everywhere (checked above), so this never declines.
            x86_aesni::crypt_lanes::<DEC>(&keys[..lanes.len()], data);
        }
        true
    }

    /// Multi-stream CBC encryption with the chaining values in registers, on the widest register
    /// that every stream's backend allows: 512-bit VAES when all run on [`Backend::Avx512`],
    /// 256-bit VAES when all run on at least [`Backend::Vaes`], 128-bit AES-NI otherwise (so a
    /// forced `SHIFR_BACKEND` picks the width). Needs x86 round keys of one size everywhere and
    /// streams of one length in whole blocks; `false`, touching nothing, otherwise.
    #[cfg(target_arch = "x86_64")]
    fn x86_cbc_streams(ciphers: &[&Aes], ivs: &[&[u8]], streams: &mut [&mut [u8]]) -> bool {
        use x86_vaes::StreamWidth;
        let Some(first) = ciphers.first().and_then(|c| c.aesni()) else {
            return false;
        };
        // The usual batches (up to 64 streams) keep their key list on the stack: a heap list cost
        // a short call about a tenth of its time outside the kernel.
        let mut on_stack = [first; 64];
        let mut on_heap = Vec::new();
        let keys: &mut [&x86_aesni::AesNi] = if ciphers.len() <= on_stack.len() {
            &mut on_stack[..ciphers.len()]
        } else {
            on_heap.resize(ciphers.len(), first);
            &mut on_heap
        };
        let mut width = StreamWidth::Z512;
        for (slot, c) in keys.iter_mut().zip(ciphers) {
            let (key, w) = match &c.kernel {
                Kernel::AesNi(a) => (&**a, StreamWidth::X128),
                Kernel::Vaes(v) => match v.width() {
                    x86_vaes::Width::Y256 => (v.aesni(), StreamWidth::Y256),
                    x86_vaes::Width::Z512 => (v.aesni(), StreamWidth::Z512),
                },
                Kernel::Portable(_) => return false,
            };
            width = match (width, w) {
                (StreamWidth::X128, _) | (_, StreamWidth::X128) => StreamWidth::X128,
                (StreamWidth::Y256, _) | (_, StreamWidth::Y256) => StreamWidth::Y256,
                _ => StreamWidth::Z512,
            };
            *slot = key;
        }
        x86_vaes::cbc_encrypt_streams(width, keys, ivs, streams)
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn x86_cbc_streams(_: &[&Aes], _: &[&[u8]], _: &mut [&mut [u8]]) -> bool {
        false
    }

    /// Key length in bytes (16, 24 or 32).
    pub fn key_len(&self) -> usize {
        self.key_len
    }

    /// `short`: the backend for short block calls and its bound (used on the VAES backends).
    fn build(key: &[u8], backend: Backend, short: (Backend, usize)) -> Result<Aes> {
        if !Self::KEY_SIZES.contains(&key.len()) {
            return Err(Error::InvalidKeyLength {
                expected: "16, 24 or 32",
                got: key.len(),
            });
        }
        let kernel = match backend {
            #[cfg(target_arch = "x86_64")]
            Backend::AesNi => Kernel::AesNi(Box::new(
                x86_aesni::AesNi::new(key).ok_or(Error::BackendUnavailable(backend.name()))?,
            )),
            #[cfg(target_arch = "x86_64")]
            Backend::Vaes | Backend::Avx512 => {
                let width = if backend == Backend::Vaes {
                    x86_vaes::Width::Y256
                } else {
                    x86_vaes::Width::Z512
                };
                Kernel::Vaes(Box::new(
                    x86_vaes::Vaes::new(key, width)
                        .ok_or(Error::BackendUnavailable(backend.name()))?,
                ))
            }
            #[cfg(target_arch = "aarch64")]
            Backend::ArmCrypto => Kernel::ArmCrypto(Box::new(
                aarch64_crypto::ArmAes::new(key)
                    .ok_or(Error::BackendUnavailable(backend.name()))?,
            )),
            _ => Kernel::Portable(Box::new(SoftAes::new(key))),
        };
        let (short, short_max) = match backend {
            Backend::Vaes | Backend::Avx512 => short,
            _ => (backend, 0),
        };
        let mut aes = Aes {
            kernel,
            key_len: key.len(),
            zero_image: Zeroizing::new([0u8; 16]),
            short_max,
            short,
            #[cfg(target_arch = "x86_64")]
            one_block: x86_aesni::one_block_kernels(key.len()),
        };
        let mut zero = Zeroizing::new([0u8; 16]);
        aes.encrypt_blocks(&mut zero[..]);
        aes.zero_image = zero;
        Ok(aes)
    }
}

impl Aes {
    /// The AES-NI round keys when `len` is one block (16 to 31 bytes: the whole blocks of a call
    /// are enciphered) and the backend is an x86 one.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn one_block_keys(&self, len: usize) -> Option<&x86_aesni::AesNi> {
        if !(16..32).contains(&len) {
            return None;
        }
        self.aesni()
    }

    /// [`BlockCipher::encrypt_blocks`] on this instance's backend.
    #[inline]
    fn encrypt_blocks_any(&self, data: &mut [u8]) {
        match &self.kernel {
            Kernel::Portable(e) => e.encrypt_blocks(data),
            #[cfg(target_arch = "x86_64")]
            Kernel::AesNi(e) => e.encrypt_blocks(data),
            // Less than one wide register: the 128-bit instructions, without broadcasting every
            // round key to a wide register first (which costs a one-block call more than AES).
            #[cfg(target_arch = "x86_64")]
            Kernel::Vaes(e) if data.len() <= BUILTIN_SHORT_MAX => e.aesni().encrypt_blocks(data),
            #[cfg(target_arch = "x86_64")]
            Kernel::Vaes(e) if data.len() <= self.short_max => match self.short {
                Backend::Vaes => e.encrypt_blocks_y256(data),
                _ => e.aesni().encrypt_blocks(data),
            },
            #[cfg(target_arch = "x86_64")]
            Kernel::Vaes(e) => e.encrypt_blocks(data),
            #[cfg(target_arch = "aarch64")]
            Kernel::ArmCrypto(e) => e.encrypt_blocks(data),
        }
    }

    /// [`BlockCipher::decrypt_blocks`] on this instance's backend.
    #[inline]
    fn decrypt_blocks_any(&self, data: &mut [u8]) {
        match &self.kernel {
            Kernel::Portable(e) => e.decrypt_blocks(data),
            #[cfg(target_arch = "x86_64")]
            Kernel::AesNi(e) => e.decrypt_blocks(data),
            #[cfg(target_arch = "x86_64")]
            Kernel::Vaes(e) if data.len() <= BUILTIN_SHORT_MAX => e.aesni().decrypt_blocks(data),
            #[cfg(target_arch = "x86_64")]
            Kernel::Vaes(e) if data.len() <= self.short_max => match self.short {
                Backend::Vaes => e.decrypt_blocks_y256(data),
                _ => e.aesni().decrypt_blocks(data),
            },
            #[cfg(target_arch = "x86_64")]
            Kernel::Vaes(e) => e.decrypt_blocks(data),
            #[cfg(target_arch = "aarch64")]
            Kernel::ArmCrypto(e) => e.decrypt_blocks(data),
        }
    }
}

impl Aes {
    /// [`BlockCipher::decrypt_chain`] for CBC (`CBC`) or CFB.
    #[inline]
    // Targets with only the portable kernel decline every chain: nothing below the match runs.
    #[cfg_attr(
        not(any(target_arch = "x86_64", target_arch = "aarch64")),
        allow(unused_variables, unreachable_code)
    )]
    fn decrypt_chain_with<const CBC: bool>(&self, register: &mut [u8], data: &mut [u8]) -> bool {
        let Ok(register) = <&mut [u8; 16]>::try_from(register) else {
            return false;
        };
        if !data.len().is_multiple_of(16) {
            return false;
        }
        match &self.kernel {
            Kernel::Portable(_) => return false,
            #[cfg(target_arch = "x86_64")]
            Kernel::AesNi(a) => a.decrypt_chain::<CBC>(register, data),
            #[cfg(target_arch = "x86_64")]
            Kernel::Vaes(v) => {
                if !v.decrypt_chain::<CBC>(register, data) {
                    v.aesni().decrypt_chain::<CBC>(register, data);
                }
            }
            #[cfg(target_arch = "aarch64")]
            Kernel::ArmCrypto(a) => a.decrypt_chain::<CBC>(register, data),
        }
        true
    }
}

impl BlockCipher for Aes {
    #[inline]
    fn block_size(&self) -> usize {
        16
    }

    /// The instance plus its boxed backend key schedule.
    fn state_bytes(&self) -> usize {
        let kernel = match &self.kernel {
            Kernel::Portable(e) => core::mem::size_of_val(&**e),
            #[cfg(target_arch = "x86_64")]
            Kernel::AesNi(e) => core::mem::size_of_val(&**e),
            #[cfg(target_arch = "x86_64")]
            Kernel::Vaes(e) => core::mem::size_of_val(&**e),
            #[cfg(target_arch = "aarch64")]
            Kernel::ArmCrypto(e) => core::mem::size_of_val(&**e),
        };
        core::mem::size_of::<Aes>() + kernel
    }

    #[inline]
    fn zero_block_image(&self) -> Option<&[u8]> {
        Some(&self.zero_image[..])
    }

    /// One block on an x86 backend goes straight to the AES-NI rounds from here (inlined into the
    /// caller); everything else through the backend dispatch.
    #[inline(always)]
    fn encrypt_blocks(&self, data: &mut [u8]) {
        #[cfg(target_arch = "x86_64")]
        if let (Some(a), Some(block)) = (self.one_block_keys(data.len()), data.first_chunk_mut()) {
            a.one_block_with::<false>(&self.one_block, block);
            return;
        }
        self.encrypt_blocks_any(data);
    }

    #[inline]
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    fn ctr_xor(&self, counter: &mut [u8], data: &mut [u8]) -> bool {
        match (&self.kernel, <&mut [u8; 16]>::try_from(counter)) {
            #[cfg(target_arch = "x86_64")]
            (Kernel::AesNi(a), Ok(counter)) => {
                a.ctr_xor(counter, data);
                true
            }
            // Less than one wide register: the 128-bit path, as in `encrypt_blocks`.
            #[cfg(target_arch = "x86_64")]
            (Kernel::Vaes(v), Ok(counter)) if data.len() < SHORT_CTR_BYTES => {
                v.aesni().ctr_xor(counter, data);
                true
            }
            #[cfg(target_arch = "x86_64")]
            (Kernel::Vaes(v), Ok(counter)) => v.ctr128_xor(counter, data),
            _ => false,
        }
    }

    /// As [`Aes::encrypt_blocks`]: one block on x86 straight to the AES-NI rounds.
    #[inline(always)]
    fn decrypt_blocks(&self, data: &mut [u8]) {
        #[cfg(target_arch = "x86_64")]
        if let (Some(a), Some(block)) = (self.one_block_keys(data.len()), data.first_chunk_mut()) {
            a.one_block_with::<true>(&self.one_block, block);
            return;
        }
        self.decrypt_blocks_any(data);
    }

    /// On the x86 backends: the AES-NI chain kernels of `x86_chain` (the round keys in registers
    /// for the whole call, the chaining value never leaving its register), for every width, since
    /// a chain runs one block at a time. Elsewhere the modes' block-by-block loop. Always inlined,
    /// so that a mode's call with its fixed [`Chain`] variant keeps no dispatch on the variant (a
    /// chained one-block message is a few dozen instructions in all, and this was a fifth of them).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    fn feedback_chain(&self, register: &mut [u8], chain: Chain<'_>) -> bool {
        #[cfg(target_arch = "x86_64")]
        if let (Some(key), Ok(register)) = (self.aesni(), <&mut [u8; 16]>::try_from(register)) {
            if let Chain::Cfb8Encrypt(d) = chain {
                x86_chain::cfb8_encrypt(key, register, d);
                return true;
            }
            if !chain.len().is_multiple_of(16) {
                return false;
            }
            let (kind, blocks) = match chain {
                Chain::CbcEncrypt(d) => (x86_chain::CBC_ENCRYPT, x86_chain::Blocks::Write(d)),
                Chain::CfbEncrypt(d) => (x86_chain::CFB_ENCRYPT, x86_chain::Blocks::Write(d)),
                Chain::CbcMac(d) => (x86_chain::CBC_MAC, x86_chain::Blocks::Read(d)),
                Chain::Ofb(d) => (x86_chain::OFB, x86_chain::Blocks::Write(d)),
                Chain::Cfb8Encrypt(_) => return false,
            };
            x86_chain::run(key, kind, register, blocks);
            return true;
        }
        false
    }

    /// Fused kernels that read each block before a block straight from the ciphertext and keep
    /// the cipher's output in registers: on the VAES backends at their register width
    /// (`x86_vaes`, the blocks before shifted into place one block across; the AES-NI kernel
    /// where the width declines), on AES-NI and ARMv8 crypto eight blocks at a time. The
    /// portable backend declines, and the mode copies and calls `encrypt_blocks` /
    /// `decrypt_blocks`.
    #[inline]
    fn decrypt_chain(&self, register: &mut [u8], chain: DecryptChain<'_>) -> bool {
        match chain {
            DecryptChain::Cbc(data) => self.decrypt_chain_with::<true>(register, data),
            DecryptChain::Cfb(data) => self.decrypt_chain_with::<false>(register, data),
        }
    }

    fn encrypt_lanes(ciphers: &[&Aes], blocks: &mut [u8]) {
        #[cfg(target_arch = "x86_64")]
        if Aes::x86_lanes::<false>(ciphers, blocks) {
            return;
        }
        for (c, block) in ciphers.iter().zip(blocks.chunks_exact_mut(16)) {
            c.encrypt_blocks(block);
        }
    }

    fn cbc_encrypt_streams(ciphers: &[&Aes], ivs: &[&[u8]], streams: &mut [&mut [u8]]) -> bool {
        Aes::x86_cbc_streams(ciphers, ivs, streams)
    }

    fn decrypt_lanes(ciphers: &[&Aes], blocks: &mut [u8]) {
        #[cfg(target_arch = "x86_64")]
        if Aes::x86_lanes::<true>(ciphers, blocks) {
            return;
        }
        for (c, block) in ciphers.iter().zip(blocks.chunks_exact_mut(16)) {
            c.decrypt_blocks(block);
        }
    }
}

impl KeyInit for Aes {
    const KEY_SIZES: &'static [usize] = &[16, 24, 32];

    fn new_from_slice(key: &[u8]) -> Result<Aes> {
        Aes::new(key)
    }

    /// Keeps this instance's backends.
    fn rekey(&self, key: &[u8]) -> Result<Aes> {
        Aes::build(key, self.backend(), (self.short, self.short_max))
    }
}

/// Shows the key size and backend, never key material.
impl fmt::Debug for Aes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Aes")
            .field("key_bits", &(self.key_len * 8))
            .field("backend", &self.backend())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The state counts the boxed key schedule of whichever backend runs, and no less for a
    /// 256-bit key than for a 128-bit one.
    #[test]
    fn state_bytes_count_the_boxed_schedule() {
        let a128 = Aes::with_backend(&[1u8; 16], Backend::Portable).unwrap();
        let a256 = Aes::with_backend(&[1u8; 32], Backend::Portable).unwrap();
        assert!(a128.state_bytes() > core::mem::size_of::<Aes>());
        assert!(a256.state_bytes() >= a128.state_bytes());
        for b in Backend::ALL {
            if let Ok(a) = Aes::with_backend(&[1u8; 16], *b) {
                assert!(a.state_bytes() > core::mem::size_of::<Aes>(), "{b:?}");
            }
        }
    }

    /// FIPS 197 Appendix C.1-C.3 (records aes*-block-fips197-c.* of /work/shared/vectors/std.txt).
    const FIPS197_C: [(&str, &str); 3] = [
        (
            "000102030405060708090a0b0c0d0e0f",
            "69c4e0d86a7b0430d8cdb78070b4c55a",
        ),
        (
            "000102030405060708090a0b0c0d0e0f1011121314151617",
            "dda97ca4864cdfe06eaf70a0ec0d7191",
        ),
        (
            "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
            "8ea2b7ca516745bfeafc49904b496089",
        ),
    ];
    const FIPS197_PT: &str = "00112233445566778899aabbccddeeff";

    /// SP 800-38A F.1.1/F.1.3/F.1.5 ECB-AES*.Encrypt (records aes*-ecb-sp800-38a-f.1.*).
    const SP800_38A_ECB: [(&str, &str); 3] = [
        (
            "2b7e151628aed2a6abf7158809cf4f3c",
            "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf43b1cd7f598ece23881b00e3ed0306887b0c785e27e8ad3f8223207104725dd4",
        ),
        (
            "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
            "bd334f1d6e45f25ff712a214571fa5cc974104846d0ad3ad7734ecb3ecee4eefef7afd2270e2e60adce0ba2face6444e9a4b41ba738d6c72fb16691603c18e0e",
        ),
        (
            "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
            "f3eed1bdb5d2a03c064b5a7e3db181f8591ccb10d410ed26dc5ba74a31362870b6ed21b99ca6f4f9f153e7b1beafed1d23304b7a39f9f3ff067d8d8f9e24ecc7",
        ),
    ];
    const SP800_38A_PT: &str = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";

    fn unhex(s: &str) -> Vec<u8> {
        hex::decode(s).expect("test vector hex")
    }

    /// The backends to test here: always portable, AES-NI when the CPU has it.
    fn backends() -> Vec<Backend> {
        let mut v = vec![Backend::Portable];
        for b in offered() {
            if b.is_supported() {
                v.push(*b);
            } else {
                println!("{} not available on this CPU: skipping it", b.name());
            }
        }
        if Backend::ArmCrypto.is_supported() {
            v.push(Backend::ArmCrypto);
        }
        v
    }

    /// The short-call paths (one block straight to AES-NI, two to seventeen blocks through the
    /// 256-bit passes, five or fewer with the rounds unrolled) equal the portable backend, both
    /// directions, every key size, 0..=20 blocks with and without a partial tail (left untouched).
    #[test]
    fn short_calls_match_portable() {
        for key_len in [16, 24, 32] {
            let key: Vec<u8> = (0..key_len).map(|i| (i * 29 + 3) as u8).collect();
            let portable = Aes::with_backend(&key, Backend::Portable).unwrap();
            for backend in backends() {
                let aes = Aes::with_backend(&key, backend).unwrap();
                for len in (0..=20 * 16)
                    .flat_map(|n| [n, n + 7])
                    .filter(|n| n % 16 == 0 || n % 16 == 7)
                {
                    let data: Vec<u8> = (0..len).map(|i| (i * 7 + key_len) as u8).collect();
                    let mut expect = data.clone();
                    portable.encrypt_blocks(&mut expect);
                    let mut ours = data.clone();
                    aes.encrypt_blocks(&mut ours);
                    assert_eq!(ours, expect, "{backend:?} key {key_len} len {len}");
                    aes.decrypt_blocks(&mut ours);
                    assert_eq!(ours, data, "{backend:?} key {key_len} len {len} decrypt");
                    #[cfg(target_arch = "x86_64")]
                    if let Kernel::Vaes(v) = &aes.kernel {
                        let mut y = data.clone();
                        v.encrypt_blocks_y256(&mut y);
                        assert_eq!(y, expect, "{backend:?} y256 key {key_len} len {len}");
                        v.decrypt_blocks_y256(&mut y);
                        assert_eq!(y, data, "{backend:?} y256 key {key_len} len {len} decrypt");
                    }
                }
            }
        }
    }

    #[test]
    fn fips197_appendix_c_both_directions() {
        for backend in backends() {
            for (key, ct) in FIPS197_C {
                let aes = Aes::with_backend(&unhex(key), backend).unwrap();
                assert_eq!(aes.backend(), backend);
                let mut block = unhex(FIPS197_PT);
                aes.encrypt_blocks(&mut block);
                assert_eq!(hex::encode(&block), ct, "{backend:?} key {key}");
                aes.decrypt_blocks(&mut block);
                assert_eq!(hex::encode(&block), FIPS197_PT, "{backend:?} key {key}");
            }
        }
    }

    #[test]
    fn sp800_38a_ecb_multi_block_and_tail_untouched() {
        for backend in backends() {
            for (key, ct) in SP800_38A_ECB {
                let aes = Aes::with_backend(&unhex(key), backend).unwrap();
                // Four blocks, then three extra bytes that are not a whole block.
                let mut data = unhex(SP800_38A_PT);
                data.extend_from_slice(&[1, 2, 3]);
                aes.encrypt_blocks(&mut data);
                assert_eq!(hex::encode(&data[..64]), ct, "{backend:?}");
                assert_eq!(data[64..], [1, 2, 3]);
                aes.decrypt_blocks(&mut data);
                assert_eq!(hex::encode(&data[..64]), SP800_38A_PT);
                // Block by block gives the same as the batch.
                let mut single = unhex(SP800_38A_PT);
                for block in single.chunks_exact_mut(16) {
                    aes.encrypt_blocks(block);
                }
                assert_eq!(hex::encode(&single), ct);
            }
        }
    }

    #[test]
    fn rejects_bad_key_lengths() {
        for len in [0usize, 1, 15, 17, 20, 31, 33, 64] {
            assert_eq!(
                Aes::new(&vec![0u8; len]).unwrap_err(),
                Error::InvalidKeyLength {
                    expected: "16, 24 or 32",
                    got: len
                }
            );
        }
    }

    #[test]
    fn backend_selection_and_rekey_keep_backend() {
        let aes = Aes::with_backend(&[0u8; 16], Backend::Portable).unwrap();
        assert_eq!(aes.backend(), Backend::Portable);
        let re = aes.rekey(&[1u8; 32]).unwrap();
        assert_eq!((re.backend(), re.key_len()), (Backend::Portable, 32));
        match Aes::with_backend(&[0u8; 16], Backend::AesNi) {
            Ok(a) => assert_eq!(a.backend(), Backend::AesNi),
            Err(e) => assert_eq!(e, Error::BackendUnavailable("aesni")),
        }
        let dbg = format!("{aes:?}");
        assert!(dbg.contains("key_bits: 128") && dbg.contains("Portable"));
    }

    /// Every short-call path a plan can choose (AES-NI or 256-bit VAES under a 512-bit or 256-bit
    /// bulk backend, at any bound) gives the portable backend's bytes, on every length around the
    /// bounds. Combinations this CPU cannot build are skipped (their bulk backend is missing).
    #[test]
    fn short_call_paths_match_portable() {
        let key: Vec<u8> = (0u8..32).map(|i| i.wrapping_mul(37) ^ 0x5c).collect();
        let plans = [
            (Backend::Avx512, (Backend::Vaes, 384)),
            (Backend::Avx512, (Backend::AesNi, 512)),
            (Backend::Vaes, (Backend::Vaes, 384)),
            (Backend::Avx512, (Backend::AesNi, BUILTIN_SHORT_MAX)),
        ];
        for key_len in [16, 24, 32] {
            let portable = Aes::with_backend(&key[..key_len], Backend::Portable).unwrap();
            for (bulk, short) in plans {
                if !bulk.is_supported() {
                    continue;
                }
                let Ok(aes) = Aes::build(&key[..key_len], bulk, short) else {
                    continue;
                };
                for blocks in 1..=40 {
                    let data: Vec<u8> = (0..blocks * 16).map(|i| (i * 7 + key_len) as u8).collect();
                    let mut expected = data.clone();
                    portable.encrypt_blocks(&mut expected);
                    let mut got = data.clone();
                    aes.encrypt_blocks(&mut got);
                    assert_eq!(got, expected, "{bulk:?} {short:?} encrypt {blocks} blocks");
                    aes.decrypt_blocks(&mut got);
                    assert_eq!(got, data, "{bulk:?} {short:?} decrypt {blocks} blocks");
                }
            }
        }
    }
}
