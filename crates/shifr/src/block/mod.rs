//! Block ciphers behind one batch-first trait.
//!
//! A [`BlockCipher`] always receives many blocks at once (`encrypt_blocks`), and a multi-stream call
//! receives one block for each of many independently keyed instances (`encrypt_lanes`). Portable
//! loops implement both today; SIMD and GPU backends plug in behind exactly these calls.

pub mod aes;
pub mod kuznyechik;
pub mod magma;
pub mod tdes;

use crate::Result;

/// A keyed block cipher. All byte strings are in wire order (the order the standards print them).
pub trait BlockCipher: Send + Sync {
    /// Block size in bytes (8 or 16).
    fn block_size(&self) -> usize;

    /// Encrypts `data.len() / block_size()` whole blocks in place; trailing bytes are left untouched.
    fn encrypt_blocks(&self, data: &mut [u8]);

    /// Decrypts `data.len() / block_size()` whole blocks in place; trailing bytes are left untouched.
    fn decrypt_blocks(&self, data: &mut [u8]);

    /// `E_K(0^n)` when the instance keeps it (OMAC's subkey `R`: computed at key setup, or on the
    /// first call and kept), so that a MAC of a one-block message needs one cipher call instead of
    /// two; `None` (the default) otherwise, and OMAC enciphers the zero block itself.
    fn zero_block_image(&self) -> Option<&[u8]> {
        None
    }

    /// Bytes this keyed instance holds: its round keys and any per-key tables, inline and on the
    /// heap. Tables shared by every instance (static S-box or lookup tables) are not counted. The
    /// default is the instance's own size, right for a cipher that keeps everything inline.
    fn state_bytes(&self) -> usize {
        core::mem::size_of_val(self)
    }

    /// Counter mode in one fused pass where the backend has one: XORs the key stream
    /// `E(counter) || E(counter + 1) || ...` (the whole block a big-endian counter, SP 800-38A)
    /// into all of `data`, advances `counter` by `ceil(data.len() / block_size())` and returns
    /// `true`. The default, and any backend without such a path, touches nothing and returns
    /// `false`, and the mode makes the key stream through [`BlockCipher::encrypt_blocks`].
    fn ctr_xor(&self, counter: &mut [u8], data: &mut [u8]) -> bool {
        let _ = (counter, data);
        false
    }

    /// MGM's counter mode (RFC 9058) in one fused pass where the backend has one: XORs the key
    /// stream `E(c) || E(inc(c)) || E(inc(inc(c))) || ...` into all of `data` (the last block may be
    /// partial), `c` being `counter` (one block, not advanced) and `inc` the `incr_r` or `incr_l`
    /// of `half`, and returns `true`. MGM's `H_i = E(Z_i)` are this key stream over zeros. The
    /// default, and any backend without such a path, touches nothing and returns `false`, and MGM
    /// writes its counter blocks for [`BlockCipher::encrypt_blocks`].
    fn half_ctr_xor(&self, counter: &[u8], half: CounterHalf, data: &mut [u8]) -> bool {
        let _ = (counter, half, data);
        false
    }

    /// One feedback chain (CBC, CFB or CFB8 encryption, OFB, a CBC-MAC) in one call where the backend
    /// has a fast path that keeps the round keys and the chaining value in registers from block to
    /// block: runs `chain` (whole blocks only, except CFB8's bytes) from the chaining value
    /// `register` (one block) and leaves in `register` the value that chains on to the next block,
    /// then returns `true`. The default, and any backend or input without such a path (a partial
    /// block, a register that is not one block), touches nothing and returns `false`; the mode
    /// then makes one
    /// [`BlockCipher::encrypt_blocks`] call per block. These chains are latency-bound (each block
    /// needs the previous one's output), so the per-call overhead of the generic loop is most of
    /// their cost.
    fn feedback_chain(&self, register: &mut [u8], chain: Chain<'_>) -> bool {
        let _ = (register, chain);
        false
    }

    /// CBC or CFB decryption (full-block segments) with a one-block register in one fused pass
    /// where the backend has one: runs `chain` (whole blocks) from `register`, which is left
    /// holding the last ciphertext block, and returns `true`. Unlike the encryption chains of
    /// [`BlockCipher::feedback_chain`], every block's inputs are ciphertext known in advance, so
    /// a backend can run many blocks at once, read each block before a block straight from the
    /// ciphertext, and keep the cipher's output in registers. The default, and any backend or
    /// input without such a path (data that is not whole blocks, a register that is not one
    /// block), touches nothing and returns `false`; the mode then copies the inputs it needs
    /// and calls [`BlockCipher::encrypt_blocks`] or [`BlockCipher::decrypt_blocks`].
    fn decrypt_chain(&self, register: &mut [u8], chain: DecryptChain<'_>) -> bool {
        let _ = (register, chain);
        false
    }

    /// Multi-stream: `blocks` holds `ciphers.len()` blocks; block `i` is encrypted with `ciphers[i]`.
    /// Extra blocks beyond `ciphers.len()` are left untouched.
    fn encrypt_lanes(ciphers: &[&Self], blocks: &mut [u8])
    where
        Self: Sized,
    {
        if let Some(first) = ciphers.first() {
            let n = first.block_size();
            for (c, block) in ciphers.iter().zip(blocks.chunks_exact_mut(n)) {
                c.encrypt_blocks(block);
            }
        }
    }

    /// Multi-stream CBC encryption in one call where the backend has such a path: every stream
    /// `streams[i]` (all of one length, a whole number of blocks) is CBC-encrypted in place under
    /// `ciphers[i]` from the IV `ivs[i]`, keeping the chaining values in registers from block to
    /// block. The default, and any backend or set of streams without such a path, touches nothing
    /// and returns `false`; `mode::multistream` then walks the lanes with
    /// [`BlockCipher::encrypt_lanes`].
    fn cbc_encrypt_streams(ciphers: &[&Self], ivs: &[&[u8]], streams: &mut [&mut [u8]]) -> bool
    where
        Self: Sized,
    {
        let _ = (ciphers, ivs, streams);
        false
    }

    /// Multi-stream feedback modes in one call where the backend has such a kernel: every stream of
    /// `run` (one per cipher, all of one length, a whole number of blocks) is processed in place
    /// (read only, for [`Feedback::CbcMac`]) under `ciphers[i]`, chaining from and back into block
    /// `i` of `registers` (one block per cipher), so that a wide backend keeps the round keys and
    /// the chaining values of all lanes in registers from block to block. The default, and any
    /// backend or set of ciphers without such a kernel, touches nothing and returns `false`;
    /// `mode::multistream` then walks the lanes with [`BlockCipher::encrypt_lanes`].
    fn feedback_lanes(ciphers: &[&Self], registers: &mut [u8], run: Feedback<'_, '_>) -> bool
    where
        Self: Sized,
    {
        let _ = (ciphers, registers, run);
        false
    }

    /// Multi-stream decryption, the inverse of [`BlockCipher::encrypt_lanes`].
    fn decrypt_lanes(ciphers: &[&Self], blocks: &mut [u8])
    where
        Self: Sized,
    {
        if let Some(first) = ciphers.first() {
            let n = first.block_size();
            for (c, block) in ciphers.iter().zip(blocks.chunks_exact_mut(n)) {
                c.decrypt_blocks(block);
            }
        }
    }
}

/// Which half of an `n`-bit counter block MGM (RFC 9058) counts in, mod `2^(n/2)`, the other half
/// staying fixed: `incr_r` (the encryption counters `Y_i`) or `incr_l` (the authentication counters
/// `Z_i`), the block read big-endian.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CounterHalf {
    /// `incr_r`: the right (least significant) half counts.
    Right,
    /// `incr_l`: the left (most significant) half counts.
    Left,
}

/// One single-stream run of [`BlockCipher::feedback_chain`]: the blocks and what is done to each
/// block `B` with the chaining register `R` (`E` is the cipher).
#[derive(Debug)]
pub enum Chain<'a> {
    /// CBC encryption: `R = E(R ^ B)`, and `B` becomes `R`.
    CbcEncrypt(&'a mut [u8]),
    /// CFB encryption with full-block segments and a one-block register: `B` becomes `B ^ E(R)`,
    /// which is the next `R`.
    CfbEncrypt(&'a mut [u8]),
    /// The CBC-MAC chain of OMAC: `R = E(R ^ B)`; the blocks are only read.
    CbcMac(&'a [u8]),
    /// OFB with a one-block register: `R = E(R)`, and `B` becomes `B ^ R`. `R` is key stream:
    /// the caller wipes it.
    Ofb(&'a mut [u8]),
    /// CFB8 encryption (one-byte segments, a one-block register), over every byte, not whole
    /// blocks: each byte `B` becomes `B ^ MSB_8(E(R))`, and `R` the last `n - 1` bytes of `R`
    /// followed by that ciphertext byte.
    Cfb8Encrypt(&'a mut [u8]),
}

/// One run of [`BlockCipher::decrypt_chain`]: what each whole block `C` of the data becomes, with
/// `R` the block before it (the register for the first block).
#[derive(Debug)]
pub enum DecryptChain<'a> {
    /// CBC decryption: `C` becomes `D(C) ^ R`.
    Cbc(&'a mut [u8]),
    /// CFB decryption with full-block segments: `C` becomes `C ^ E(R)`.
    Cfb(&'a mut [u8]),
}

impl Chain<'_> {
    /// The length of the chain's data in bytes.
    pub fn len(&self) -> usize {
        match self {
            Chain::CbcEncrypt(d) | Chain::CfbEncrypt(d) | Chain::Ofb(d) | Chain::Cfb8Encrypt(d) => {
                d.len()
            }
            Chain::CbcMac(d) => d.len(),
        }
    }

    /// Whether the chain has no data.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One run of [`BlockCipher::feedback_lanes`]: the streams and what is done to each block `B` of
/// them with the chaining register `R` of its lane (`E` is the lane's cipher).
#[derive(Debug)]
pub enum Feedback<'a, 'b> {
    /// CBC encryption: `R = E(R ^ B)`, and `B` becomes `R`.
    CbcEncrypt(&'a mut [&'b mut [u8]]),
    /// CFB encryption with full-block segments: `B` becomes `B ^ E(R)`, which is the next `R`.
    CfbEncrypt(&'a mut [&'b mut [u8]]),
    /// CFB decryption with full-block segments: `B` becomes `B ^ E(R)`, and the old `B` is the next `R`.
    CfbDecrypt(&'a mut [&'b mut [u8]]),
    /// The CBC-MAC chain of OMAC: `R = E(R ^ B)`; the streams are only read.
    CbcMac(&'a [&'b [u8]]),
    /// OFB with a one-block register: `R = E(R)`, and `B` becomes `B ^ R`. `R` is key stream: the
    /// caller wipes it. (Single-stream chains use it; `mode::multistream` has no OFB.)
    Ofb(&'a mut [&'b mut [u8]]),
}

impl<'b> Feedback<'_, 'b> {
    /// The number of streams.
    pub fn streams(&self) -> usize {
        match self {
            Feedback::CbcEncrypt(s)
            | Feedback::CfbEncrypt(s)
            | Feedback::CfbDecrypt(s)
            | Feedback::Ofb(s) => s.len(),
            Feedback::CbcMac(s) => s.len(),
        }
    }

    /// The length of stream `i` in bytes (`None` past the last stream).
    pub fn stream_len(&self, i: usize) -> Option<usize> {
        self.stream(i).map(<[u8]>::len)
    }

    /// Stream `i`, to read (`None` past the last stream).
    pub fn stream(&self, i: usize) -> Option<&[u8]> {
        match self {
            Feedback::CbcEncrypt(s)
            | Feedback::CfbEncrypt(s)
            | Feedback::CfbDecrypt(s)
            | Feedback::Ofb(s) => s.get(i).map(|d| &**d),
            Feedback::CbcMac(s) => s.get(i).copied(),
        }
    }

    /// Stream `i`, to write (`None` past the last stream, and for [`Feedback::CbcMac`]).
    pub fn stream_mut(&mut self, i: usize) -> Option<&mut [u8]> {
        match self {
            Feedback::CbcEncrypt(s)
            | Feedback::CfbEncrypt(s)
            | Feedback::CfbDecrypt(s)
            | Feedback::Ofb(s) => s.get_mut(i).map(|d| &mut **d),
            Feedback::CbcMac(_) => None,
        }
    }

    /// The same mode over the streams `range` only (empty where `range` is out of bounds).
    pub fn part(&mut self, range: core::ops::Range<usize>) -> Feedback<'_, 'b> {
        match self {
            Feedback::CbcEncrypt(s) => Feedback::CbcEncrypt(s.get_mut(range).unwrap_or_default()),
            Feedback::CfbEncrypt(s) => Feedback::CfbEncrypt(s.get_mut(range).unwrap_or_default()),
            Feedback::CfbDecrypt(s) => Feedback::CfbDecrypt(s.get_mut(range).unwrap_or_default()),
            Feedback::CbcMac(s) => Feedback::CbcMac(s.get(range).unwrap_or_default()),
            Feedback::Ofb(s) => Feedback::Ofb(s.get_mut(range).unwrap_or_default()),
        }
    }

    /// The common length of all streams if it is a whole number of `n`-byte blocks and there is one
    /// stream per register block (`registers` bytes in all); `None` otherwise.
    pub fn common_len(&self, n: usize, registers: usize) -> Option<usize> {
        let count = self.streams();
        let len = self.stream_len(0)?;
        let uniform = (1..count).all(|i| self.stream_len(i) == Some(len));
        (n > 0 && uniform && len % n == 0 && registers == count * n).then_some(len)
    }
}

/// Construction from a key, for modes that re-key (CTR-ACPKM, OMAC-ACPKM) and for generic tests.
pub trait KeyInit: BlockCipher + Sized {
    /// Key sizes in bytes this cipher accepts.
    const KEY_SIZES: &'static [usize];

    /// Creates the cipher with the default backend and (for GOST 28147-89) default parameters.
    fn new_from_slice(key: &[u8]) -> Result<Self>;

    /// Creates another instance of the same cipher (same backend and parameters) with a new key.
    /// The default calls [`KeyInit::new_from_slice`].
    fn rekey(&self, key: &[u8]) -> Result<Self> {
        Self::new_from_slice(key)
    }
}

/// A block cipher as the catalogue keys it: the unit value of each cipher's module (with its
/// parameters, such as GOST 28147-89's S-box set), implemented beside the cipher.
pub trait BlockAlgorithm: core::fmt::Debug + Send + Sync + 'static {
    /// The keyed cipher.
    type Cipher: KeyInit + 'static;

    /// Block size in bytes.
    const BLOCK_SIZE: usize;

    /// Keys the cipher on `backend`, or on its default backend when `backend` is `None` or not
    /// offered here (as [`crate::cpu::select`] falls back).
    fn key(&self, key: &[u8], backend: Option<crate::cpu::Backend>) -> Result<Self::Cipher>;

    /// The backend a keyed instance runs on.
    fn backend(cipher: &Self::Cipher) -> crate::cpu::Backend;
}

impl<T: BlockCipher + ?Sized> BlockCipher for &T {
    fn block_size(&self) -> usize {
        (**self).block_size()
    }
    fn encrypt_blocks(&self, data: &mut [u8]) {
        (**self).encrypt_blocks(data)
    }
    fn decrypt_blocks(&self, data: &mut [u8]) {
        (**self).decrypt_blocks(data)
    }
    fn ctr_xor(&self, counter: &mut [u8], data: &mut [u8]) -> bool {
        (**self).ctr_xor(counter, data)
    }
    fn half_ctr_xor(&self, counter: &[u8], half: CounterHalf, data: &mut [u8]) -> bool {
        (**self).half_ctr_xor(counter, half, data)
    }
    fn feedback_chain(&self, register: &mut [u8], chain: Chain<'_>) -> bool {
        (**self).feedback_chain(register, chain)
    }
    fn decrypt_chain(&self, register: &mut [u8], chain: DecryptChain<'_>) -> bool {
        (**self).decrypt_chain(register, chain)
    }
    fn zero_block_image(&self) -> Option<&[u8]> {
        (**self).zero_block_image()
    }
}

impl<T: BlockCipher + ?Sized> BlockCipher for Box<T> {
    fn block_size(&self) -> usize {
        (**self).block_size()
    }
    fn encrypt_blocks(&self, data: &mut [u8]) {
        (**self).encrypt_blocks(data)
    }
    fn decrypt_blocks(&self, data: &mut [u8]) {
        (**self).decrypt_blocks(data)
    }
    fn ctr_xor(&self, counter: &mut [u8], data: &mut [u8]) -> bool {
        (**self).ctr_xor(counter, data)
    }
    fn half_ctr_xor(&self, counter: &[u8], half: CounterHalf, data: &mut [u8]) -> bool {
        (**self).half_ctr_xor(counter, half, data)
    }
    fn feedback_chain(&self, register: &mut [u8], chain: Chain<'_>) -> bool {
        (**self).feedback_chain(register, chain)
    }
    fn decrypt_chain(&self, register: &mut [u8], chain: DecryptChain<'_>) -> bool {
        (**self).decrypt_chain(register, chain)
    }
    fn zero_block_image(&self) -> Option<&[u8]> {
        (**self).zero_block_image()
    }
}
