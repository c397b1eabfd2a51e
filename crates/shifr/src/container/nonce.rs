//! Chunk nonces of the STREAM construction: each nonce encodes the chunk counter and a last-chunk flag,
//! so a chunk opens only at its own position, and only the true final chunk opens as final.
//!
//! For a nonce of `L >= 12` bytes: `prefix[0..L-9] || counter (u64, big-endian) || flag (1 byte: 1 for
//! the final chunk, else 0)`; for MGM (L = 16) the most significant bit of byte 0 is then cleared,
//! because an MGM nonce is an n-bit block whose first bit is 0. Magma-MGM's 8-byte nonce has no room for
//! a prefix: it is the big-endian u64 `flag << 62 | counter` (bit 63 stays 0). Nonces never repeat under
//! one payload key because the payload key itself is unique per file (HKDF over a random salt and the
//! random prefix), and within a file the counters differ.

use super::algorithm::Algorithm;
use super::error::{Error, Result};

/// Chunks a file may hold: the counter must leave bits 62 and 63 of Magma's nonce free.
pub const MAX_CHUNKS: u64 = 1 << 62;

/// A chunk nonce of up to 24 bytes.
#[derive(Clone, Copy)]
pub struct ChunkNonce {
    bytes: [u8; 24],
    len: usize,
}

impl AsRef<[u8]> for ChunkNonce {
    fn as_ref(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// The nonce of chunk `counter` of a file with `prefix`.
pub fn chunk_nonce(
    algorithm: Algorithm,
    prefix: &[u8; 16],
    counter: u64,
    last: bool,
) -> Result<ChunkNonce> {
    if counter >= MAX_CHUNKS {
        return Err(Error::InvalidParameter("too many chunks for one file"));
    }
    let len = algorithm.nonce_len();
    let mut bytes = [0u8; 24];
    if len == 8 {
        bytes[..8].copy_from_slice(&((u64::from(last) << 62) | counter).to_be_bytes());
    } else {
        let keep = len - 9;
        bytes[..keep].copy_from_slice(&prefix[..keep]);
        bytes[keep..keep + 8].copy_from_slice(&counter.to_be_bytes());
        bytes[len - 1] = u8::from(last);
        if algorithm.nonce_msb_zero() {
            bytes[0] &= 0x7f;
        }
    }
    Ok(ChunkNonce { bytes, len })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts() {
        let prefix: [u8; 16] = core::array::from_fn(|i| 0xf0 | i as u8);
        let n = chunk_nonce(Algorithm::ChaCha20Poly1305, &prefix, 0x0102, true).unwrap();
        assert_eq!(n.as_ref(), &[0xf0, 0xf1, 0xf2, 0, 0, 0, 0, 0, 0, 1, 2, 1]);
        let n = chunk_nonce(Algorithm::KuznyechikMgm, &prefix, 7, false).unwrap();
        assert_eq!(n.as_ref()[0], 0x70, "MGM nonce MSB must be 0");
        assert_eq!(&n.as_ref()[1..7], &prefix[1..7]);
        assert_eq!(&n.as_ref()[7..], &[0, 0, 0, 0, 0, 0, 0, 7, 0]);
        let n = chunk_nonce(Algorithm::XChaCha20Poly1305, &prefix, 1, false).unwrap();
        assert_eq!(&n.as_ref()[..15], &prefix[..15]);
        let n = chunk_nonce(Algorithm::MagmaMgm, &prefix, 5, true).unwrap();
        assert_eq!(n.as_ref(), &[0x40, 0, 0, 0, 0, 0, 0, 5]);
        assert!(chunk_nonce(Algorithm::MagmaMgm, &prefix, MAX_CHUNKS, false).is_err());
    }
}
