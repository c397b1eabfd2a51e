//! Poly1305 one-time authenticator (RFC 8439 section 2.5).
//!
//! Constant-time: the 130-bit accumulator is kept in five 26-bit limbs (the form the vector backends
//! and the parallel fold share); the scalar block loop runs on three 44/44/42-bit limbs with
//! 64x64->128-bit products (`poly1305_u64`, converting at the ends of each run of blocks; on
//! 32-bit targets on the 26-bit limbs with 32x32->64-bit products), the key is clamped with masks, and the final reduction modulo 2^130 - 5 selects
//! between `h` and `h - p` with a mask, so no branch or memory access depends on the key, the
//! message contents or the tag. (Branches depend only on message lengths, which are public.)
//!
//! Backends (chosen by [`crate::cpu::select`]): portable (above) and, on x86-64, `poly1305_x86`
//! with AVX2 (eight blocks per step in two 4-lane accumulators, key powers r^1..r^8) or AVX-512
//! (sixteen blocks per step in two 8-lane accumulators, r^1..r^16), both on 26-bit limbs and
//! `vpmuludq`, and `poly1305_ifma` with AVX-512 IFMA ([`Backend::Ifma`]: 44-bit limbs and 52-bit
//! multiply-adds, sixteen blocks per step), all constant-time.
//! `SHIFR_BACKEND=portable|avx2|avx512|avx512ifma` forces one.
//!
//! The vector key powers are built lazily, on the first [`Poly1305::update`] that brings at least
//! `VECTOR_MIN_BYTES` of whole blocks: for shorter messages (one-time keys of short AEAD
//! messages) building r^2..r^16 costs more than the scalar code saves, so they run on the scalar
//! code above whatever the backend.
//!
//! [`Poly1305::update`] may be called with any split of the message; the result equals one call
//! over the whole message. The key (`r`, `s`, the powers), the accumulator and buffered input are
//! zeroized on drop.
//! A Poly1305 key must authenticate only one message.

use super::poly1305_field::Fe;
#[cfg(not(target_pointer_width = "64"))]
use super::poly1305_field::LIMB_MASK;
#[cfg(target_pointer_width = "64")]
use super::poly1305_u64::H44;
use super::poly1305_u64::R44;
use crate::cpu::{self, Backend};
use crate::{Error, Result};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Whole-block bytes one `update` must bring before a vector backend builds its key powers (and
/// runs); below it the scalar code (64-bit limbs) is faster than building r^2..r^16 for a message
/// this short. One-shot on Zen 4, the scalar code and IFMA with its key set-up break even between
/// 512 and 640 bytes, AVX-512 F at about 768; 768 keeps every vector backend at least even
/// where it starts.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) const VECTOR_MIN_BYTES: usize = 768;

/// Incremental Poly1305 over a 32-byte one-time key `r || s`.
#[derive(Clone)]
pub struct Poly1305 {
    /// Clamped `r` in 26-bit limbs.
    r: [u32; 5],
    /// Clamped `r` for the scalar block loop (`poly1305_u64`).
    #[cfg_attr(not(target_pointer_width = "64"), allow(dead_code))]
    r44: R44,
    /// `s` as four little-endian words.
    s: [u32; 4],
    /// Accumulator in 26-bit limbs (partially reduced).
    h: [u32; 5],
    /// Bytes of an incomplete 16-byte block.
    pending: [u8; 16],
    pending_len: usize,
    /// The backend chosen at construction (portable or a vector one).
    backend: Backend,
    /// Key powers for the vector backend, once an `update` long enough for them arrived.
    #[cfg(target_arch = "x86_64")]
    simd: Option<VectorKey>,
}

impl Zeroize for Poly1305 {
    /// Wipes the key, the accumulator, the buffered input and the key powers in place (word by
    /// word; the derive on the `Option` would also wipe its whole size byte by byte).
    fn zeroize(&mut self) {
        self.r.zeroize();
        self.r44.zeroize();
        self.s.zeroize();
        self.h.zeroize();
        self.pending.zeroize();
        self.pending_len.zeroize();
        #[cfg(target_arch = "x86_64")]
        if let Some(key) = &mut self.simd {
            match key {
                VectorKey::Lanes(k) => k.zeroize(),
                VectorKey::Ifma(k) => k.zeroize(),
            }
            self.simd = None;
        }
    }
}

impl Drop for Poly1305 {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl ZeroizeOnDrop for Poly1305 {}

/// The key powers of an x86-64 vector backend.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
enum VectorKey {
    /// 26-bit limbs, `vpmuludq` (AVX2 or AVX-512 F).
    Lanes(super::poly1305_x86::LaneKey),
    /// 44-bit limbs, `vpmadd52luq`/`vpmadd52huq` (AVX-512 IFMA).
    Ifma(super::poly1305_ifma::IfmaKey),
}

/// The backends Poly1305 offers on this target.
#[cfg(target_arch = "x86_64")]
const OFFERED: &[Backend] = &[Backend::Avx2, Backend::Avx512, Backend::Ifma];
#[cfg(not(target_arch = "x86_64"))]
const OFFERED: &[Backend] = &[];

fn le32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

impl Poly1305 {
    /// Creates the authenticator. Error: [`Error::InvalidKeyLength`] unless `key` is 32 bytes.
    pub fn new(key: &[u8]) -> Result<Poly1305> {
        let key: &[u8; 32] = key.try_into().map_err(|_| Error::InvalidKeyLength {
            expected: "32",
            got: key.len(),
        })?;
        Ok(Poly1305::from_key(key))
    }

    /// Creates the authenticator on the given backend ([`Backend::Avx2`], [`Backend::Avx512`],
    /// [`Backend::Ifma`] or portable);
    /// [`Error::BackendUnavailable`] if this CPU lacks it.
    pub fn with_backend(key: &[u8], backend: Backend) -> Result<Poly1305> {
        let backend = cpu::require(backend, OFFERED)?;
        let key: &[u8; 32] = key.try_into().map_err(|_| Error::InvalidKeyLength {
            expected: "32",
            got: key.len(),
        })?;
        Ok(Poly1305::build(key, backend))
    }

    /// The backend this instance runs on.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Creates the authenticator from a key already known to be 32 bytes (best backend).
    pub fn from_key(key: &[u8; 32]) -> Poly1305 {
        Poly1305::build(key, cpu::select(OFFERED))
    }

    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    fn build(key: &[u8; 32], backend: Backend) -> Poly1305 {
        // r &= 0x0ffffffc0ffffffc0ffffffc0fffffff, expressed on each 26-bit limb.
        let r = [
            le32(&key[0..4]) & 0x03ff_ffff,
            (le32(&key[3..7]) >> 2) & 0x03ff_ff03,
            (le32(&key[6..10]) >> 4) & 0x03ff_c0ff,
            (le32(&key[9..13]) >> 6) & 0x03f0_3fff,
            (le32(&key[12..16]) >> 8) & 0x000f_ffff,
        ];
        let r44 = R44::new(key.first_chunk::<16>().unwrap_or(&[0; 16]));
        let s = [
            le32(&key[16..20]),
            le32(&key[20..24]),
            le32(&key[24..28]),
            le32(&key[28..32]),
        ];
        #[cfg(target_arch = "x86_64")]
        let backend = match backend {
            Backend::Avx2 | Backend::Avx512 | Backend::Ifma => backend,
            _ => Backend::Portable,
        };
        #[cfg(not(target_arch = "x86_64"))]
        let backend = Backend::Portable;
        Poly1305 {
            r,
            r44,
            s,
            h: [0; 5],
            pending: [0; 16],
            pending_len: 0,
            backend,
            #[cfg(target_arch = "x86_64")]
            simd: None,
        }
    }

    /// Builds the key powers of the vector backend if they are not built yet (none for portable).
    #[cfg(target_arch = "x86_64")]
    fn build_vector_key(&mut self) {
        if self.simd.is_none() {
            use super::poly1305_x86::{LaneKey, Width};
            self.simd = match self.backend {
                Backend::Avx2 => LaneKey::new(&self.r, Width::Avx2).map(VectorKey::Lanes),
                Backend::Avx512 => LaneKey::new(&self.r, Width::Avx512).map(VectorKey::Lanes),
                Backend::Ifma => super::poly1305_ifma::IfmaKey::new(&self.r).map(VectorKey::Ifma),
                _ => None,
            };
        }
    }

    /// Absorbs message bytes.
    pub fn update(&mut self, data: &[u8]) {
        let mut data = data;
        if self.pending_len > 0 {
            let n = data.len().min(16 - self.pending_len);
            self.pending[self.pending_len..self.pending_len + n].copy_from_slice(&data[..n]);
            self.pending_len += n;
            data = &data[n..];
            if self.pending_len < 16 {
                return;
            }
            let block = self.pending;
            self.blocks(&block, 1);
            self.pending_len = 0;
        }
        let whole = &data[..data.len() - data.len() % 16];
        #[cfg(target_arch = "x86_64")]
        let whole = if whole.len() >= VECTOR_MIN_BYTES || self.simd.is_some() {
            self.build_vector_key();
            match &self.simd {
                Some(VectorKey::Lanes(key)) => &whole[key.absorb(&mut self.h, whole)..],
                Some(VectorKey::Ifma(key)) => &whole[key.absorb(&mut self.h, whole)..],
                None => whole,
            }
        } else {
            whole
        };
        self.blocks(whole, 1);
        let data = &data[data.len() - data.len() % 16..];
        let tail = data;
        self.pending[..tail.len()].copy_from_slice(tail);
        self.pending_len = tail.len();
    }

    /// Absorbs `data`, then zero bytes up to the next multiple of 16 bytes of this call's input
    /// (the padding ChaCha20-Poly1305 puts after the AAD and after the ciphertext). Intended for
    /// use when the absorbed length so far is a multiple of 16.
    pub fn update_padded(&mut self, data: &[u8]) {
        self.update(data);
        let rem = data.len() % 16;
        if rem != 0 {
            self.update(&[0u8; 16][rem..]);
        }
    }

    /// Returns the 16-byte tag.
    pub fn finalize(mut self) -> [u8; 16] {
        self.absorb_last();
        self.tag()
    }

    /// The polynomial's value `h mod (2^130 - 5)` before `s` is added, as its low 128 bits and its
    /// top two bits: what a message split over threads (`crate::parallel`) combines part by part.
    pub(crate) fn finalize_sum(mut self) -> (u128, u64) {
        self.absorb_last();
        let h = Fe(self.h);
        (h.low128(), u64::from(h.reduced()[4] >> 24))
    }

    /// Absorbs the last partial block, if any: it gets a 1 byte appended and no 2^128 bit.
    fn absorb_last(&mut self) {
        if self.pending_len > 0 {
            let mut last = [0u8; 16];
            last[..self.pending_len].copy_from_slice(&self.pending[..self.pending_len]);
            last[self.pending_len] = 1;
            self.blocks(&last, 0);
            last.zeroize();
            self.pending_len = 0;
        }
    }

    /// `h = (h + m + hibit * 2^128) * r mod 2^130 - 5` for each 16-byte block of `data`, on the
    /// 64-bit limbs of `poly1305_u64` (`h` stays in the 26-bit limbs the vector backends share).
    fn blocks(&mut self, data: &[u8], hibit: u64) {
        if data.len() < 16 {
            return;
        }
        #[cfg(target_pointer_width = "64")]
        {
            let mut h = H44::from26(&self.h);
            h.blocks(&self.r44, data, hibit);
            self.h = h.to26();
            h.zeroize();
        }
        // Without 64-bit multiplications, on the 26-bit limbs (25 32x32->64-bit products).
        #[cfg(not(target_pointer_width = "64"))]
        {
            let r = &self.r;
            let mut r5 = [r[1] * 5, r[2] * 5, r[3] * 5, r[4] * 5];
            let hibit = (hibit as u32) << 24;
            let [mut h0, mut h1, mut h2, mut h3, mut h4] = self.h;
            for m in data.chunks_exact(16) {
                h0 += le32(&m[0..4]) & LIMB_MASK;
                h1 += (le32(&m[3..7]) >> 2) & LIMB_MASK;
                h2 += (le32(&m[6..10]) >> 4) & LIMB_MASK;
                h3 += (le32(&m[9..13]) >> 6) & LIMB_MASK;
                h4 += (le32(&m[12..16]) >> 8) | hibit;
                [h0, h1, h2, h3, h4] = Fe([h0, h1, h2, h3, h4]).mul_by(r, &r5).0;
            }
            self.h = [h0, h1, h2, h3, h4];
            r5.zeroize();
        }
    }

    /// Fully reduces `h` modulo 2^130 - 5 without branches and adds `s` modulo 2^128.
    fn tag(&self) -> [u8; 16] {
        let w = Fe(self.h).low_words();
        let mut out = [0u8; 16];
        let mut carry = 0u64;
        for ((o, w), s) in out.chunks_exact_mut(4).zip(w).zip(self.s) {
            let sum = u64::from(w) + u64::from(s) + carry;
            o.copy_from_slice(&(sum as u32).to_le_bytes());
            carry = sum >> 32;
        }
        out
    }
}

/// One-shot Poly1305 of `msg` under the 32-byte one-time key `r || s`.
pub fn poly1305(key: &[u8], msg: &[u8]) -> Result<[u8; 16]> {
    let mut p = Poly1305::new(key)?;
    p.update(msg);
    Ok(p.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// name, key, message, tag
    type MacRecord = (String, Vec<u8>, Vec<u8>, Vec<u8>);

    /// Every poly1305-mac-* record of /work/shared/vectors/std.txt (RFC 8439 section 2.5.2 and
    /// Appendix A.3), copied verbatim by script below; each record's key, pt and tag are checked.
    fn records() -> Vec<MacRecord> {
        let mut out = Vec::new();
        for chunk in STD_RECORDS.split("\n\n").filter(|c| c.contains(" = ")) {
            let name = chunk.trim().lines().next().unwrap().to_string();
            let mut fields = std::collections::BTreeMap::new();
            for line in chunk
                .lines()
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
            {
                let (k, v) = line.split_once('=').unwrap();
                fields.insert(k.trim(), v.trim());
            }
            assert_eq!(fields.remove("cipher"), Some("poly1305"), "{name}");
            assert_eq!(fields.remove("mode"), Some("mac"), "{name}");
            let mut get = |f: &str| hex::decode(fields.remove(f).unwrap()).unwrap();
            let rec = (name.clone(), get("key"), get("pt"), get("tag"));
            assert!(fields.is_empty(), "{name}: unchecked fields {fields:?}");
            out.push(rec);
        }
        assert_eq!(out.len(), 12);
        out
    }

    #[test]
    fn rfc8439_records_one_shot_and_every_split() {
        for (name, key, msg, tag) in records() {
            assert_eq!(poly1305(&key, &msg).unwrap().to_vec(), tag, "{name}");
            for split in 0..=msg.len() {
                let mut p = Poly1305::new(&key).unwrap();
                p.update(&msg[..split]);
                p.update(&msg[split..]);
                assert_eq!(p.finalize().to_vec(), tag, "{name} split {split}");
            }
            let mut p = Poly1305::new(&key).unwrap();
            for b in &msg {
                p.update(std::slice::from_ref(b));
            }
            assert_eq!(p.finalize().to_vec(), tag, "{name} byte by byte");
        }
    }

    #[test]
    fn wrong_key_length_is_an_error() {
        assert!(matches!(
            Poly1305::new(&[0u8; 16]),
            Err(Error::InvalidKeyLength { got: 16, .. })
        ));
        assert!(poly1305(&[0u8; 33], b"x").is_err());
    }

    #[test]
    fn update_padded_equals_explicit_zero_padding() {
        let key: Vec<u8> = (100u8..132).collect();
        let msg: Vec<u8> = (0u8..37).collect();
        let mut a = Poly1305::new(&key).unwrap();
        a.update_padded(&msg);
        let mut padded = msg.clone();
        padded.resize(48, 0);
        assert_eq!(a.finalize(), poly1305(&key, &padded).unwrap());
    }

    const STD_RECORDS: &str = r#"
# poly1305-mac-2.5.2 / RFC 8439 section 2.5.2
#   key = r || s (32 octets, r before clamping); pt = the message "Cryptographic Forum Research Group"
cipher = poly1305
mode = mac
key = 85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b
pt = 43727970746f6772617068696320466f72756d2052657365617263682047726f7570
tag = a8061dc1305136c6c22b8baf0c0127a9

# poly1305-mac-a3-1 / RFC 8439 Appendix A.3 Test Vector #1
#   key = r || s (32 octets, r before clamping)
cipher = poly1305
mode = mac
key = 0000000000000000000000000000000000000000000000000000000000000000
pt = 00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000
tag = 00000000000000000000000000000000

# poly1305-mac-a3-2 / RFC 8439 Appendix A.3 Test Vector #2
#   key = r || s (32 octets, r before clamping)
cipher = poly1305
mode = mac
key = 0000000000000000000000000000000036e5f6b5c5e06070f0efca96227a863e
pt = 416e79207375626d697373696f6e20746f20746865204945544620696e74656e6465642062792074686520436f6e7472696275746f7220666f72207075626c69636174696f6e20617320616c6c206f722070617274206f6620616e204945544620496e7465726e65742d4472616674206f722052464320616e6420616e792073746174656d656e74206d6164652077697468696e2074686520636f6e74657874206f6620616e204945544620616374697669747920697320636f6e7369646572656420616e20224945544620436f6e747269627574696f6e222e20537563682073746174656d656e747320696e636c756465206f72616c2073746174656d656e747320696e20494554462073657373696f6e732c2061732077656c6c206173207772697474656e20616e6420656c656374726f6e696320636f6d6d756e69636174696f6e73206d61646520617420616e792074696d65206f7220706c6163652c207768696368206172652061646472657373656420746f
tag = 36e5f6b5c5e06070f0efca96227a863e

# poly1305-mac-a3-3 / RFC 8439 Appendix A.3 Test Vector #3
#   key = r || s (32 octets, r before clamping)
cipher = poly1305
mode = mac
key = 36e5f6b5c5e06070f0efca96227a863e00000000000000000000000000000000
pt = 416e79207375626d697373696f6e20746f20746865204945544620696e74656e6465642062792074686520436f6e7472696275746f7220666f72207075626c69636174696f6e20617320616c6c206f722070617274206f6620616e204945544620496e7465726e65742d4472616674206f722052464320616e6420616e792073746174656d656e74206d6164652077697468696e2074686520636f6e74657874206f6620616e204945544620616374697669747920697320636f6e7369646572656420616e20224945544620436f6e747269627574696f6e222e20537563682073746174656d656e747320696e636c756465206f72616c2073746174656d656e747320696e20494554462073657373696f6e732c2061732077656c6c206173207772697474656e20616e6420656c656374726f6e696320636f6d6d756e69636174696f6e73206d61646520617420616e792074696d65206f7220706c6163652c207768696368206172652061646472657373656420746f
tag = f3477e7cd95417af89a6b8794c310cf0

# poly1305-mac-a3-4 / RFC 8439 Appendix A.3 Test Vector #4
#   key = r || s (32 octets, r before clamping)
cipher = poly1305
mode = mac
key = 1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0
pt = 2754776173206272696c6c69672c20616e642074686520736c6974687920746f7665730a446964206779726520616e642067696d626c6520696e2074686520776162653a0a416c6c206d696d737920776572652074686520626f726f676f7665732c0a416e6420746865206d6f6d65207261746873206f757467726162652e
tag = 4541669a7eaaee61e708dc7cbcc5eb62

# poly1305-mac-a3-5 / RFC 8439 Appendix A.3 Test Vector #5
#   key = R || S as printed (R is already clamp-invariant)
#   RFC comment: If one uses 130-bit partial reduction, does the code handle the case where partially reduced final result is not fully reduced?
cipher = poly1305
mode = mac
key = 0200000000000000000000000000000000000000000000000000000000000000
pt = ffffffffffffffffffffffffffffffff
tag = 03000000000000000000000000000000

# poly1305-mac-a3-6 / RFC 8439 Appendix A.3 Test Vector #6
#   key = R || S as printed (R is already clamp-invariant)
#   RFC comment: What happens if addition of s overflows modulo 2^128?
cipher = poly1305
mode = mac
key = 02000000000000000000000000000000ffffffffffffffffffffffffffffffff
pt = 02000000000000000000000000000000
tag = 03000000000000000000000000000000

# poly1305-mac-a3-7 / RFC 8439 Appendix A.3 Test Vector #7
#   key = R || S as printed (R is already clamp-invariant)
#   RFC comment: What happens if data limb is all ones and there is carry from lower limb?
cipher = poly1305
mode = mac
key = 0100000000000000000000000000000000000000000000000000000000000000
pt = fffffffffffffffffffffffffffffffff0ffffffffffffffffffffffffffffff11000000000000000000000000000000
tag = 05000000000000000000000000000000

# poly1305-mac-a3-8 / RFC 8439 Appendix A.3 Test Vector #8
#   key = R || S as printed (R is already clamp-invariant)
#   RFC comment: What happens if final result from polynomial part is exactly 2^130-5?
cipher = poly1305
mode = mac
key = 0100000000000000000000000000000000000000000000000000000000000000
pt = fffffffffffffffffffffffffffffffffbfefefefefefefefefefefefefefefe01010101010101010101010101010101
tag = 00000000000000000000000000000000

# poly1305-mac-a3-9 / RFC 8439 Appendix A.3 Test Vector #9
#   key = R || S as printed (R is already clamp-invariant)
#   RFC comment: What happens if final result from polynomial part is exactly 2^130-6?
cipher = poly1305
mode = mac
key = 0200000000000000000000000000000000000000000000000000000000000000
pt = fdffffffffffffffffffffffffffffff
tag = faffffffffffffffffffffffffffffff

# poly1305-mac-a3-10 / RFC 8439 Appendix A.3 Test Vector #10
#   key = R || S as printed (R is already clamp-invariant)
#   RFC comment: What happens if 5*H+L-type reduction produces 131-bit intermediate result?
cipher = poly1305
mode = mac
key = 0100000000000000040000000000000000000000000000000000000000000000
pt = e33594d7505e43b900000000000000003394d7505e4379cd01000000000000000000000000000000000000000000000001000000000000000000000000000000
tag = 14000000000000005500000000000000

# poly1305-mac-a3-11 / RFC 8439 Appendix A.3 Test Vector #11
#   key = R || S as printed (R is already clamp-invariant)
#   RFC comment: What happens if 5*H+L-type reduction produces 131-bit final result?
cipher = poly1305
mode = mac
key = 0100000000000000040000000000000000000000000000000000000000000000
pt = e33594d7505e43b900000000000000003394d7505e4379cd010000000000000000000000000000000000000000000000
tag = 13000000000000000000000000000000
"#;
}
