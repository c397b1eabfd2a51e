//! AEADs split into their two halves, so that the key stream may come from elsewhere (a GPU) while the
//! tag is computed here: AES-GCM (AES-CTR with inc32 from `inc32(J0)`), ChaCha20-Poly1305 (ChaCha20
//! from block counter 1), and MGM over Kuznyechik or Magma (`E_K(Y_i)`, `Y_1 = E_K(0 || ICN)`,
//! `incr_r` on the right half). XChaCha20-Poly1305 is not split: its key changes with every nonce
//! (HChaCha20), so a batch of messages has no one key for a key-stream source.
//!
//! A [`SplitAead`] says where a message's key stream starts ([`SplitAead::keystream_start`]) and
//! computes the tag over associated data and ciphertext ([`SplitAead::ciphertext_tag`]);
//! [`seal_with_keystream`] / [`open_with_keystream`] combine these with key stream supplied by the
//! caller and give exactly the output of [`Aead::seal`] / [`Aead::open`]. The key-stream layout is
//! fixed by [`KeystreamCipher`]: block `j` of a message is the cipher applied to
//! [`KeystreamCipher::counter_block`]`(start, j)`. [`CpuKeystream`] is the reference
//! [`KeystreamSource`]: the same key stream from the library's own block ciphers and ChaCha20.
//!
//! Key stream is as secret as the key: callers zeroize their buffers (the functions here hold none).

use super::{Aead, Tag};
use crate::block::aes::Aes;
use crate::block::kuznyechik::Kuznyechik;
use crate::block::magma::Magma;
use crate::block::BlockCipher;
use crate::stream::chacha20::ChaCha20;
use crate::util::{ct_eq, xor_in_place};
use crate::{Error, Result};
use zeroize::Zeroizing;

/// The cipher that makes a split AEAD's key stream, and with it the counter layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeystreamCipher {
    /// AES (GCM): 16-byte counter blocks; the last 4 bytes are a big-endian counter mod 2^32.
    Aes,
    /// ChaCha20 (RFC 8439): the start is state words 12..15 as little-endian bytes
    /// (`le32(block counter) || nonce`); the block counter advances by one per 64-byte block.
    ChaCha20,
    /// Kuznyechik (MGM): 16-byte counter blocks; the last 8 bytes count mod 2^64 (`incr_r`).
    Kuznyechik,
    /// Magma (MGM): 8-byte counter blocks (bytes 0..8 of the start); the last 4 count mod 2^32.
    Magma,
}

impl KeystreamCipher {
    /// Key-stream bytes per counter block.
    pub fn block_len(self) -> usize {
        match self {
            KeystreamCipher::ChaCha20 => 64,
            KeystreamCipher::Magma => 8,
            KeystreamCipher::Aes | KeystreamCipher::Kuznyechik => 16,
        }
    }

    /// Bytes of the start block in use (the rest of the 16 are zero).
    pub fn start_len(self) -> usize {
        match self {
            KeystreamCipher::Magma => 8,
            _ => 16,
        }
    }

    /// The input block of key-stream block `j` of a message starting at `start`.
    pub fn counter_block(self, start: &[u8; 16], j: u64) -> [u8; 16] {
        let mut block = *start;
        match self {
            KeystreamCipher::Aes => {
                let c = u32::from_be_bytes([start[12], start[13], start[14], start[15]]);
                block[12..].copy_from_slice(&c.wrapping_add(j as u32).to_be_bytes());
            }
            KeystreamCipher::ChaCha20 => {
                let c = u32::from_le_bytes([start[0], start[1], start[2], start[3]]);
                block[..4].copy_from_slice(&c.wrapping_add(j as u32).to_le_bytes());
            }
            KeystreamCipher::Kuznyechik => {
                let mut low = [0u8; 8];
                low.copy_from_slice(&start[8..]);
                let c = u64::from_be_bytes(low);
                block[8..].copy_from_slice(&c.wrapping_add(j).to_be_bytes());
            }
            KeystreamCipher::Magma => {
                let c = u32::from_be_bytes([start[4], start[5], start[6], start[7]]);
                block[4..8].copy_from_slice(&c.wrapping_add(j as u32).to_be_bytes());
            }
        }
        block
    }
}

/// An AEAD whose encryption is a key stream XORed into the data, with the tag over the ciphertext.
pub trait SplitAead: Aead {
    /// The cipher making the key stream (keyed with the AEAD's own key).
    fn keystream_cipher(&self) -> KeystreamCipher;

    /// The start block of the key stream of the message with `nonce` (validated as `seal` does).
    fn keystream_start(&self, nonce: &[u8]) -> Result<[u8; 16]>;

    /// The tag over `aad` and the ciphertext `ct` for `nonce`, as `seal` would return it.
    fn ciphertext_tag(&self, nonce: &[u8], aad: &[u8], ct: &[u8]) -> Result<Tag>;
}

/// [`Aead::seal`] with the key stream given: XORs `keystream[..data.len()]` into `data` and returns the
/// tag. On any error `data` is left as it was.
pub fn seal_with_keystream(
    aead: &dyn SplitAead,
    nonce: &[u8],
    aad: &[u8],
    data: &mut [u8],
    keystream: &[u8],
) -> Result<Tag> {
    let keystream = keystream_for(keystream, data.len())?;
    aead.keystream_start(nonce)?;
    xor_in_place(data, keystream);
    aead.ciphertext_tag(nonce, aad, data).inspect_err(|_| {
        // Restore the plaintext: a refused message must not leave half-done work behind.
        xor_in_place(data, keystream);
    })
}

/// [`Aead::open`] with the key stream given: verifies `tag` over `aad` and the ciphertext in `data`
/// (in constant time), then XORs `keystream[..data.len()]` into it. On any error `data` is untouched.
pub fn open_with_keystream(
    aead: &dyn SplitAead,
    nonce: &[u8],
    aad: &[u8],
    data: &mut [u8],
    tag: &[u8],
    keystream: &[u8],
) -> Result<()> {
    let keystream = keystream_for(keystream, data.len())?;
    verify_tag(aead, nonce, aad, data, tag)?;
    xor_in_place(data, keystream);
    Ok(())
}

/// Checks `tag` over `aad` and the ciphertext `ct` in constant time; error
/// [`Error::AuthenticationFailed`] (or the AEAD's length errors).
pub fn verify_tag(
    aead: &dyn SplitAead,
    nonce: &[u8],
    aad: &[u8],
    ct: &[u8],
    tag: &[u8],
) -> Result<()> {
    if tag.len() != aead.tag_len() {
        return Err(Error::InvalidTagLength {
            expected: "the AEAD's tag length",
            got: tag.len(),
        });
    }
    let expected = aead.ciphertext_tag(nonce, aad, ct)?;
    if ct_eq(expected.as_ref(), tag) {
        Ok(())
    } else {
        Err(Error::AuthenticationFailed)
    }
}

fn keystream_for(keystream: &[u8], len: usize) -> Result<&[u8]> {
    keystream
        .get(..len)
        .ok_or(Error::InvalidParameter("key stream shorter than the data"))
}

/// Something that XORs key stream for many messages at once (a GPU; [`CpuKeystream`] as reference).
pub trait KeystreamSource: Send + Sync {
    /// XORs into `data` the key streams of consecutive messages: message `i` is
    /// `data[i * stride..]`, `segment_len` bytes (the last one possibly fewer; the `stride -
    /// segment_len` bytes between messages, e.g. their tags, are left alone), and its key stream
    /// starts at `starts[i]`. `segment_len` is a multiple of the cipher's block length (and of 8
    /// bytes), `stride` a multiple of 8 bytes, and `data` holds at most `starts.len()` segments.
    fn xor_keystream(
        &self,
        starts: &[[u8; 16]],
        segment_len: usize,
        stride: usize,
        data: &mut [u8],
    ) -> Result<()>;
}

/// Checks the layout [`KeystreamSource::xor_keystream`] takes.
pub fn check_segments(
    cipher: KeystreamCipher,
    segments: usize,
    segment_len: usize,
    stride: usize,
    data_len: usize,
) -> Result<()> {
    let block = cipher.block_len().max(8);
    if segment_len == 0 || !segment_len.is_multiple_of(block) {
        return Err(Error::InvalidParameter(
            "key-stream segments must be whole blocks",
        ));
    }
    if stride < segment_len || !stride.is_multiple_of(8) {
        return Err(Error::InvalidParameter(
            "key-stream stride must be at least a segment and a multiple of 8 bytes",
        ));
    }
    if data_len.div_ceil(stride) > segments {
        return Err(Error::InvalidParameter(
            "more key-stream segments than start blocks",
        ));
    }
    Ok(())
}

/// The key-stream cipher with its key: what a [`KeystreamSource`] is built from. Zeroized on drop.
pub struct KeystreamKey {
    /// The cipher.
    pub cipher: KeystreamCipher,
    /// Its key (AES: 16 or 32 bytes; the others 32).
    pub key: Zeroizing<Vec<u8>>,
}

/// The reference [`KeystreamSource`] on this CPU, from the library's block ciphers and ChaCha20.
pub struct CpuKeystream {
    cipher: KeystreamCipher,
    keyed: KeyedCipher,
}

/// The keyed library cipher behind a [`CpuKeystream`].
enum KeyedCipher {
    Aes(Aes),
    ChaCha20(Zeroizing<[u8; 32]>),
    Kuznyechik(Box<Kuznyechik>),
    Magma(Box<Magma>),
}

impl CpuKeystream {
    /// Keys the source.
    pub fn new(key: &KeystreamKey) -> Result<CpuKeystream> {
        let keyed = match key.cipher {
            KeystreamCipher::Aes => KeyedCipher::Aes(Aes::new(&key.key)?),
            KeystreamCipher::ChaCha20 => {
                let k: [u8; 32] =
                    key.key
                        .as_slice()
                        .try_into()
                        .map_err(|_| Error::InvalidKeyLength {
                            expected: "32",
                            got: key.key.len(),
                        })?;
                KeyedCipher::ChaCha20(Zeroizing::new(k))
            }
            KeystreamCipher::Kuznyechik => {
                KeyedCipher::Kuznyechik(Box::new(Kuznyechik::new(&key.key)?))
            }
            KeystreamCipher::Magma => KeyedCipher::Magma(Box::new(Magma::new(&key.key)?)),
        };
        Ok(CpuKeystream {
            cipher: key.cipher,
            keyed,
        })
    }

    fn xor_segment(&self, start: &[u8; 16], data: &mut [u8]) -> Result<()> {
        match &self.keyed {
            KeyedCipher::ChaCha20(key) => {
                let counter = u32::from_le_bytes([start[0], start[1], start[2], start[3]]);
                return ChaCha20::new(&key[..], &start[4..], counter)?.apply_keystream(data);
            }
            KeyedCipher::Aes(c) => xor_counter_blocks(c, self.cipher, start, data),
            KeyedCipher::Kuznyechik(c) => xor_counter_blocks(&**c, self.cipher, start, data),
            KeyedCipher::Magma(c) => xor_counter_blocks(&**c, self.cipher, start, data),
        }
        Ok(())
    }
}

/// XORs `E(counter_block(start, j))` into block `j` of `data`, one block at a time (the reference).
fn xor_counter_blocks<C: BlockCipher>(
    cipher: &C,
    layout: KeystreamCipher,
    start: &[u8; 16],
    data: &mut [u8],
) {
    let n = layout.block_len();
    let mut ks = Zeroizing::new([0u8; 16]);
    for (j, piece) in data.chunks_mut(n).enumerate() {
        let block = layout.counter_block(start, j as u64);
        ks[..n].copy_from_slice(&block[..n]);
        cipher.encrypt_blocks(&mut ks[..n]);
        xor_in_place(piece, &ks[..n]);
    }
}

impl KeystreamSource for CpuKeystream {
    fn xor_keystream(
        &self,
        starts: &[[u8; 16]],
        segment_len: usize,
        stride: usize,
        data: &mut [u8],
    ) -> Result<()> {
        check_segments(self.cipher, starts.len(), segment_len, stride, data.len())?;
        for (start, slot) in starts.iter().zip(data.chunks_mut(stride)) {
            let len = slot.len().min(segment_len);
            self.xor_segment(start, &mut slot[..len])?;
        }
        Ok(())
    }
}
