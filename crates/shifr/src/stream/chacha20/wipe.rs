//! Zeroization of key stream buffers with wide volatile stores.
//!
//! `zeroize` wipes a `[u8]` one volatile byte store at a time: 1024 stores for a 1 KiB key stream
//! batch, which cost more than computing the key stream of a short message. Here each 16-byte
//! piece is one volatile store of a `[u8; 16]`, so the compiler may neither drop nor merge them
//! away, and the buffers are wiped only as far as they were written.

use core::sync::atomic::{compiler_fence, Ordering};
use zeroize::Zeroize;

/// Overwrites `buf` with zeros in a way the compiler does not remove.
pub(crate) fn wipe(buf: &mut [u8]) {
    let mut pieces = buf.chunks_exact_mut(16);
    for piece in &mut pieces {
        if let Ok(piece) = <&mut [u8; 16]>::try_from(piece) {
            // SAFETY: `piece` is an exclusive reference to 16 initialised bytes, valid for a write
            // of `[u8; 16]` (alignment 1).
            unsafe { core::ptr::write_volatile(piece, [0u8; 16]) };
        }
    }
    pieces.into_remainder().zeroize();
    compiler_fence(Ordering::SeqCst);
}

#[cfg(test)]
mod tests {
    #[test]
    fn wipes_every_byte_of_any_length() {
        for len in [0usize, 1, 15, 16, 17, 64, 1000, 1024] {
            let mut buf = vec![0xa5u8; len + 3];
            super::wipe(&mut buf[..len]);
            assert!(buf[..len].iter().all(|&b| b == 0), "{len}");
            assert_eq!(&buf[len..], &[0xa5; 3], "{len}");
        }
    }
}
