//! GHASH, the universal hash of GCM (NIST SP 800-38D Section 6.4): `Y_i = (Y_{i-1} ^ X_i) * H` in
//! GF(2^128) modulo x^128 + x^7 + x^2 + x + 1, with GCM's reflected bit order (the first bit of a
//! block is the coefficient of x^0).
//!
//! Backends:
//! - **Portable**: constant-time. Blocks are bit-reversed into ordinary polynomial order and
//!   multiplied with a carry-less multiplication built from integer multiplications of masked
//!   operands: each operand is split into four parts holding every fourth bit, so the integer
//!   products cannot carry from one result bit into the next one of the same class (the "holes"
//!   technique of BearSSL's `ghash_ctmul`). Karatsuba on 64-bit halves, then a shift-and-XOR
//!   reduction. No table lookups and no branches on H or data.
//! - **PCLMULQDQ** (`ghash_x86`, used for [`Backend::AesNi`]): carry-less multiply instructions,
//!   eight blocks per reduction with the precomputed powers H^1..H^8.
//! - **VPCLMULQDQ** (`ghash_x86::WideKey`, used for [`Backend::Avx512`]): the same on 512-bit
//!   registers, sixteen blocks per reduction with H^1..H^16. ([`Backend::Vaes`], the 256-bit AES
//!   backend, uses the PCLMULQDQ path.)
//! - **PMULL** (`ghash_aarch64`, used for [`Backend::ArmCrypto`]): the same scheme with the ARMv8
//!   64-bit polynomial multiply.
//!
//! H and the running state are zeroized on drop.

#[cfg(target_arch = "aarch64")]
#[path = "ghash_aarch64.rs"]
mod ghash_aarch64;
#[cfg(target_arch = "x86_64")]
#[path = "ghash_x86.rs"]
mod ghash_x86;

use zeroize::Zeroize;

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use std::sync::Arc;

use crate::cpu::{self, Backend};
use crate::Result;

/// The backends GHASH offers on this target.
#[cfg(target_arch = "x86_64")]
const OFFERED: &[Backend] = &[Backend::AesNi, Backend::Vaes, Backend::Avx512];
#[cfg(target_arch = "aarch64")]
const OFFERED: &[Backend] = &[Backend::ArmCrypto];
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const OFFERED: &[Backend] = &[];

/// The hash key in the form each backend wants. The hardware keys (tables of powers of H) are
/// shared, not copied, between clones: AES-GCM clones its `GHash` for every message, and copying
/// and wiping a few hundred bytes of powers (with an allocation) cost a 16-byte message more than
/// hashing it. The last clone dropped wipes them (they zeroize on drop).
#[derive(Clone)]
enum HashKey {
    /// H in ordinary polynomial order (bit i = coefficient of x^i).
    Portable(u128),
    #[cfg(target_arch = "x86_64")]
    Clmul(Arc<ghash_x86::ClmulKey>, Backend),
    #[cfg(target_arch = "x86_64")]
    Wide(Arc<ghash_x86::WideKey>),
    #[cfg(target_arch = "aarch64")]
    Pmull(Arc<ghash_aarch64::PmullKey>),
}

/// Incremental GHASH under a hash subkey H.
///
/// [`GHash::update`] streams: any split of the input gives the same result. GCM pads the AAD and
/// the ciphertext separately; [`GHash::update_padded`] absorbs data and then zero-pads to the next
/// block boundary.
#[derive(Clone)]
pub struct GHash {
    key: HashKey,
    /// Y in wire order.
    state: [u8; 16],
    pending: [u8; 16],
    pending_len: usize,
}

impl GHash {
    /// GHASH under `h` with the best backend for this CPU (or the one forced by `SHIFR_BACKEND`).
    pub fn new(h: &[u8; 16]) -> GHash {
        // AVX-512 without VPCLMULQDQ falls back to PCLMULQDQ, then to portable.
        GHash::with_backend(h, cpu::select(OFFERED))
            .or_else(|_| GHash::with_backend(h, Backend::AesNi))
            .unwrap_or_else(|_| GHash::portable(h))
    }

    /// GHASH under `h` on the given backend ([`Backend::AesNi`] = PCLMULQDQ);
    /// [`crate::Error::BackendUnavailable`] if this CPU lacks it.
    pub fn with_backend(h: &[u8; 16], backend: Backend) -> Result<GHash> {
        match cpu::require(backend, OFFERED)? {
            #[cfg(target_arch = "x86_64")]
            b @ (Backend::AesNi | Backend::Vaes) => {
                let key = ghash_x86::ClmulKey::new(h)
                    .ok_or(crate::Error::BackendUnavailable(backend.name()))?;
                Ok(GHash::with_key(HashKey::Clmul(Arc::new(key), b)))
            }
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => {
                let key = ghash_x86::WideKey::new(h)
                    .ok_or(crate::Error::BackendUnavailable(backend.name()))?;
                Ok(GHash::with_key(HashKey::Wide(Arc::new(key))))
            }
            #[cfg(target_arch = "aarch64")]
            Backend::ArmCrypto => {
                let key = ghash_aarch64::PmullKey::new(h)
                    .ok_or(crate::Error::BackendUnavailable(backend.name()))?;
                Ok(GHash::with_key(HashKey::Pmull(Arc::new(key))))
            }
            _ => Ok(GHash::portable(h)),
        }
    }

    fn portable(h: &[u8; 16]) -> GHash {
        GHash::with_key(HashKey::Portable(to_poly(h)))
    }

    fn with_key(key: HashKey) -> GHash {
        GHash {
            key,
            state: [0; 16],
            pending: [0; 16],
            pending_len: 0,
        }
    }

    /// The backend this instance runs on.
    pub fn backend(&self) -> Backend {
        match self.key {
            HashKey::Portable(_) => Backend::Portable,
            #[cfg(target_arch = "x86_64")]
            HashKey::Clmul(_, b) => b,
            #[cfg(target_arch = "x86_64")]
            HashKey::Wide(_) => Backend::Avx512,
            #[cfg(target_arch = "aarch64")]
            HashKey::Pmull(_) => Backend::ArmCrypto,
        }
    }

    /// Absorbs `data`; a trailing partial block is kept until more data (or padding) completes it.
    pub fn update(&mut self, mut data: &[u8]) {
        if self.pending_len > 0 {
            let take = data.len().min(16 - self.pending_len);
            self.pending[self.pending_len..self.pending_len + take].copy_from_slice(&data[..take]);
            self.pending_len += take;
            data = &data[take..];
            if self.pending_len < 16 {
                return;
            }
            let block = self.pending;
            self.absorb_blocks(&block);
            self.pending_len = 0;
        }
        let whole = data.len() - data.len() % 16;
        self.absorb_blocks(&data[..whole]);
        let rest = &data[whole..];
        self.pending[..rest.len()].copy_from_slice(rest);
        self.pending_len = rest.len();
    }

    /// Absorbs `data`, then zero-pads to a block boundary (as GCM does for the AAD and the
    /// ciphertext).
    pub fn update_padded(&mut self, data: &[u8]) {
        self.update(data);
        self.pad();
    }

    /// Zero-pads a pending partial block, if any, and absorbs it.
    fn pad(&mut self) {
        if self.pending_len > 0 {
            self.pending[self.pending_len..].fill(0);
            let block = self.pending;
            self.absorb_blocks(&block);
            self.pending_len = 0;
        }
    }

    /// The running state Y (wire order) when no partial block is pending, for callers that fold
    /// whole blocks into it themselves (the stitched AES-GCM loop, x86-64 only); `None` otherwise.
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn block_state_mut(&mut self) -> Option<&mut [u8; 16]> {
        (self.pending_len == 0).then_some(&mut self.state)
    }

    /// A copy of this instance's key with the running state `y` (wire order) and nothing pending:
    /// resumes a hash whose state was computed elsewhere (the parts of a split GCM message,
    /// combined by [`GHash::combine_parts`]).
    pub(crate) fn resume(&self, y: &[u8; 16]) -> GHash {
        let mut g = GHash::with_key(self.key.clone());
        g.state = *y;
        g
    }

    /// Returns GHASH of everything absorbed, a final partial block zero-padded.
    pub fn finalize(mut self) -> [u8; 16] {
        self.pad();
        self.state
    }

    fn absorb_blocks(&mut self, blocks: &[u8]) {
        if blocks.is_empty() {
            return;
        }
        match &self.key {
            HashKey::Portable(h) => absorb_portable(*h, &mut self.state, blocks),
            #[cfg(target_arch = "x86_64")]
            HashKey::Clmul(key, _) => key.absorb(&mut self.state, blocks),
            #[cfg(target_arch = "x86_64")]
            HashKey::Wide(key) => key.absorb(&mut self.state, blocks),
            #[cfg(target_arch = "aarch64")]
            HashKey::Pmull(key) => key.absorb(&mut self.state, blocks),
        }
    }
}

impl Drop for GHash {
    // On targets with no hardware GHASH the portable key is the only variant.
    #[allow(irrefutable_let_patterns)]
    fn drop(&mut self) {
        if let HashKey::Portable(h) = &mut self.key {
            h.zeroize();
        }
        self.state.zeroize();
        self.pending.zeroize();
    }
}

impl GHash {
    /// The GHASH state after `parts` hashed one after another, from the partial sums of each part
    /// hashed alone from a zero state: `parts` holds `(S_k, c_k)`, `S_k` the state (wire order)
    /// after part `k`'s `c_k` blocks from zero. Since `Y_(i) = (Y_(i-1) ^ X_i) H` is linear,
    /// continuing from `Y` instead of zero adds `Y H^(c_k)`; so `Y = Y H^(c_k) ^ S_k` part by part.
    /// The products use this instance's backend (PCLMULQDQ / PMULL where it has them: the combine
    /// runs on the calling thread after the parts, so its time is not shared by the workers).
    /// Constant-time in the data and in H; the exponents are block counts, which are public.
    pub(crate) fn combine_parts(&self, parts: &[([u8; 16], u64)]) -> [u8; 16] {
        let mut y = 0u128;
        let mut cached: Option<(u64, u128)> = None;
        for (sum, blocks) in parts {
            // Equal parts (the usual split) share one power.
            let power = match cached {
                Some((e, p)) if e == *blocks => p,
                _ => self.key.pow(*blocks),
            };
            cached = Some((*blocks, power));
            y = self.key.mul(y, power) ^ u128::from_be_bytes(*sum);
        }
        if let Some((_, mut p)) = cached {
            p.zeroize();
        }
        y.to_be_bytes()
    }
}

/// The field's one in GCM's reflected order (a block read as a big-endian integer): the
/// coefficient of x^0 is bit 127.
const REFLECTED_ONE: u128 = 1 << 127;

impl HashKey {
    /// `a b` in GF(2^128), both operands and the result in GCM's reflected order.
    fn mul(&self, a: u128, b: u128) -> u128 {
        match self {
            HashKey::Portable(_) => gf128_mul(a.reverse_bits(), b.reverse_bits()).reverse_bits(),
            #[cfg(target_arch = "x86_64")]
            HashKey::Clmul(key, _) => key.mul(a, b),
            #[cfg(target_arch = "x86_64")]
            HashKey::Wide(key) => key.mul(a, b),
            #[cfg(target_arch = "aarch64")]
            HashKey::Pmull(key) => key.mul(a, b),
        }
    }

    /// H in reflected order.
    fn h(&self) -> u128 {
        match self {
            HashKey::Portable(h) => h.reverse_bits(),
            #[cfg(target_arch = "x86_64")]
            HashKey::Clmul(key, _) => key.h(),
            #[cfg(target_arch = "x86_64")]
            HashKey::Wide(key) => key.h(),
            #[cfg(target_arch = "aarch64")]
            HashKey::Pmull(key) => key.h(),
        }
    }

    /// `H^e` (reflected order) by square-and-multiply over the bits of the public exponent `e`.
    fn pow(&self, e: u64) -> u128 {
        let mut result = REFLECTED_ONE;
        let mut base = self.h();
        let mut e = e;
        while e > 0 {
            if e & 1 == 1 {
                result = self.mul(result, base);
            }
            e >>= 1;
            if e > 0 {
                base = self.mul(base, base);
            }
        }
        base.zeroize();
        result
    }
}

/// A block in wire order -> the polynomial with bit i = coefficient of x^i.
#[inline(always)]
fn to_poly(block: &[u8; 16]) -> u128 {
    u128::from_be_bytes(*block).reverse_bits()
}

fn absorb_portable(h: u128, state: &mut [u8; 16], blocks: &[u8]) {
    let mut y = to_poly(state);
    for chunk in blocks.chunks_exact(16) {
        let mut block = [0u8; 16];
        block.copy_from_slice(chunk);
        y = gf128_mul(y ^ to_poly(&block), h);
    }
    *state = y.reverse_bits().to_be_bytes();
}

/// Masks selecting every fourth bit, starting at bit 0, 1, 2 and 3.
const HOLES: [u64; 4] = [
    0x1111_1111_1111_1111,
    0x2222_2222_2222_2222,
    0x4444_4444_4444_4444,
    0x8888_8888_8888_8888,
];

/// Carry-less product of a 32-bit `x` and a 64-bit `y`, in constant time.
///
/// `x` and `y` are split into four parts with bits only at positions of one class mod 4. An integer
/// product of two parts puts, at each result position of its class, the number of bit pairs that
/// meet there: at most 8 (x has 8 bits per class), so it fits in the 4-bit gap before the next
/// position of the same class. Bit p of that product is the parity we want; XOR collects the four
/// part-products that land in each class.
#[inline(always)]
fn clmul_32x64(x: u32, y: u64) -> u128 {
    let x = u64::from(x);
    let xs = HOLES.map(|m| u128::from(x & m));
    let ys = HOLES.map(|m| u128::from(y & m));
    let mut z = 0u128;
    for class in 0..4 {
        let mut acc = 0u128;
        for (i, xi) in xs.iter().enumerate() {
            acc ^= xi * ys[(class + 4 - i) % 4];
        }
        let mask = u128::from(HOLES[class]) | (u128::from(HOLES[class]) << 64);
        z |= acc & mask;
    }
    z
}

/// Carry-less product of two 64-bit values (127-bit result).
#[inline(always)]
fn clmul_64(x: u64, y: u64) -> u128 {
    clmul_32x64(x as u32, y) ^ (clmul_32x64((x >> 32) as u32, y) << 32)
}

/// Multiplication in GF(2^128) = GF(2)[x] / (x^128 + x^7 + x^2 + x + 1), ordinary bit order.
fn gf128_mul(a: u128, b: u128) -> u128 {
    let (a0, a1) = (a as u64, (a >> 64) as u64);
    let (b0, b1) = (b as u64, (b >> 64) as u64);
    // Karatsuba: the middle term from one product of the half sums.
    let lo = clmul_64(a0, b0);
    let hi = clmul_64(a1, b1);
    let mid = clmul_64(a0 ^ a1, b0 ^ b1) ^ lo ^ hi;
    reduce(hi ^ (mid >> 64), lo ^ (mid << 64))
}

/// Reduces `hi * x^128 + lo` using x^128 = x^7 + x^2 + x + 1. The first fold can overflow by
/// seven bits (`hi` times x^7); those fold once more and fit.
#[inline(always)]
fn reduce(hi: u128, lo: u128) -> u128 {
    let over = (hi >> 127) ^ (hi >> 126) ^ (hi >> 121);
    lo ^ hi ^ (hi << 1) ^ (hi << 2) ^ (hi << 7) ^ over ^ (over << 1) ^ (over << 2) ^ (over << 7)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(s: &str) -> [u8; 16] {
        let v = hex::decode(s).expect("hex");
        let mut b = [0u8; 16];
        b.copy_from_slice(&v);
        b
    }

    fn backends() -> Vec<Backend> {
        let mut v = vec![Backend::Portable];
        for b in OFFERED {
            if GHash::with_backend(&[1; 16], *b).is_ok() {
                v.push(*b);
            } else {
                println!(
                    "{} not available on this CPU: skipping that backend",
                    b.name()
                );
            }
        }
        if Backend::ArmCrypto.is_supported() {
            v.push(Backend::ArmCrypto);
        }
        v
    }

    /// GCM spec Test Case 2 (std.txt aes128-gcm-tc02): H = 66e94bd4..., C = 0388dace...,
    /// len(A)||len(C) = 0^64 || 128. Test Cases 1 and 2 share the key and IV and TC1 has no data,
    /// so GHASH(H, A, C) = tag(TC2) ^ tag(TC1) = ab6e47d4... ^ 58e2fcce... = f38cbb1a... (the
    /// value the GCM spec prints for TC2).
    #[test]
    fn gcm_spec_test_case_2_ghash() {
        for backend in backends() {
            let h = block("66e94bd4ef8a2c3b884cfa59ca342b2e");
            let mut g = GHash::with_backend(&h, backend).unwrap();
            assert_eq!(g.backend(), backend);
            g.update_padded(&block("0388dace60b6a392f328c2b971b2fe78"));
            let mut lens = [0u8; 16];
            lens[8..].copy_from_slice(&128u64.to_be_bytes());
            g.update(&lens);
            assert_eq!(
                hex::encode(g.finalize()),
                "f38cbb1ad69223dcc3457ae5b6b0f885"
            );
        }
    }

    #[test]
    fn multiplication_identities() {
        // In GCM's bit order the block 80 00 .. 00 is the field's one.
        let one = to_poly(&block("80000000000000000000000000000000"));
        assert_eq!(one, 1);
        let h = to_poly(&block("b83b533708bf535d0aa6e52980d53b78"));
        assert_eq!(gf128_mul(h, one), h);
        assert_eq!(gf128_mul(one, h), h);
        assert_eq!(gf128_mul(h, 0), 0);
        // x^127 * x = x^128 = x^7 + x^2 + x + 1.
        assert_eq!(gf128_mul(1 << 127, 2), 0x87);
        // x^64 * x^64 = x^128.
        assert_eq!(gf128_mul(1 << 64, 1 << 64), 0x87);
    }

    #[test]
    fn clmul_matches_shift_and_xor() {
        let mut x = 0x0123_4567_89ab_cdefu64;
        let mut y = 0xfedc_ba98_7654_3210u64;
        for _ in 0..200 {
            let mut expect = 0u128;
            for i in 0..64 {
                if (x >> i) & 1 == 1 {
                    expect ^= u128::from(y) << i;
                }
            }
            assert_eq!(clmul_64(x, y), expect);
            x = x.rotate_left(7).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0xffff_ffff_0000_0000;
            y = y.rotate_left(13).wrapping_add(x);
        }
        assert_eq!(clmul_64(u64::MAX, u64::MAX), {
            let mut e = 0u128;
            for i in 0..64 {
                e ^= u128::from(u64::MAX) << i;
            }
            e
        });
    }

    /// Hashing parts from zero and combining them with powers of H gives the hash of the whole,
    /// for every backend and several cuts (block-aligned, the last part may be partial).
    #[test]
    fn combined_parts_equal_the_whole() {
        let h = block("66e94bd4ef8a2c3b884cfa59ca342b2e");
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 13 + 5) as u8).collect();
        for backend in backends() {
            let g = GHash::with_backend(&h, backend).unwrap();
            let mut whole = g.clone();
            whole.update(&data);
            let expect = whole.finalize();
            for cuts in [
                vec![],
                vec![0],
                vec![16],
                vec![16, 32],
                vec![480, 496, 992],
                vec![512],
            ] {
                let mut bounds = vec![0];
                bounds.extend(cuts);
                bounds.push(data.len());
                let parts: Vec<([u8; 16], u64)> = bounds
                    .windows(2)
                    .map(|w| {
                        let mut p = g.clone();
                        p.update(&data[w[0]..w[1]]);
                        (p.finalize(), (w[1] - w[0]).div_ceil(16) as u64)
                    })
                    .collect();
                assert_eq!(g.combine_parts(&parts), expect, "{backend:?} {bounds:?}");
                let resumed = g.resume(&g.combine_parts(&parts[..1]));
                assert_eq!(resumed.finalize(), parts[0].0);
            }
        }
    }

    #[test]
    fn powers_of_h_agree_on_every_backend() {
        let wire = block("b83b533708bf535d0aa6e52980d53b78");
        let h = to_poly(&wire);
        for backend in backends() {
            let key = GHash::with_backend(&wire, backend).unwrap().key.clone();
            assert_eq!(key.h(), h.reverse_bits(), "{backend:?}");
            let mut p = 1u128;
            for e in (0..70u64).chain([1000, 16_384, 65_535, 1 << 20, u64::MAX]) {
                if e < 70 {
                    assert_eq!(key.pow(e), p.reverse_bits(), "{backend:?} e = {e}");
                    p = gf128_mul(p, h);
                } else {
                    let portable = GHash::portable(&wire).key.clone().pow(e);
                    assert_eq!(key.pow(e), portable, "{backend:?} e = {e}");
                }
            }
            let (a, b) = (0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128, u128::MAX);
            assert_eq!(
                key.mul(a, b),
                gf128_mul(a.reverse_bits(), b.reverse_bits()).reverse_bits(),
                "{backend:?}"
            );
        }
    }

    #[test]
    fn any_split_gives_the_same_hash_and_backends_agree() {
        let h = block("acbef20579b4b8ebce889bac8732dad7");
        let data: Vec<u8> = (0..300u32).map(|i| (i * 7 + 3) as u8).collect();
        let mut reference = GHash::with_backend(&h, Backend::Portable).unwrap();
        reference.update(&data);
        let expect = reference.finalize();
        for backend in backends() {
            for split in [0usize, 1, 15, 16, 17, 100, 128, 129, 299, 300] {
                let mut g = GHash::with_backend(&h, backend).unwrap();
                g.update(&data[..split]);
                g.update(&data[split..]);
                assert_eq!(g.finalize(), expect, "{backend:?} split {split}");
            }
        }
    }
}
