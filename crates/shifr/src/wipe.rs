//! Zeroization of key stream buffers and key schedules with wide volatile stores.
//!
//! `zeroize` wipes a `[u8]` one volatile store per element: 1024 stores for a 1 KiB key stream
//! batch, which cost more than computing the key stream of a short message, and about 1,400 for
//! the expanded forms of one Kuznyechik key, which CTR-ACPKM drops every section. Here each 16-byte
//! piece is one volatile store of a `[u8; 16]` (or `[u32; 4]`), so the compiler may neither drop
//! nor merge them away, and buffers are wiped only as far as they were written.

use core::sync::atomic::{compiler_fence, Ordering};
use zeroize::{DefaultIsZeroes, Zeroize};

/// Overwrites `buf` with zeros in a way the compiler does not remove.
pub(crate) fn wipe(buf: &mut [u8]) {
    wipe_in_pieces::<u8, 16>(buf);
}

/// Overwrites `words` with zeros in a way the compiler does not remove, four words per store.
pub(crate) fn wipe_words(words: &mut [u32]) {
    wipe_in_pieces::<u32, 4>(words);
}

/// One volatile store of a zero `[T; N]` per whole piece of `items` (16 bytes for the callers),
/// `zeroize` for the rest.
fn wipe_in_pieces<T: DefaultIsZeroes, const N: usize>(items: &mut [T]) {
    let mut pieces = items.chunks_exact_mut(N);
    for piece in &mut pieces {
        if let Ok(piece) = <&mut [T; N]>::try_from(piece) {
            // SAFETY: `piece` is an exclusive reference to `N` initialised elements, valid for a
            // write of `[T; N]` (its own type and alignment).
            unsafe { core::ptr::write_volatile(piece, [T::default(); N]) };
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

    #[test]
    fn wipes_every_word_of_any_length() {
        for len in [0usize, 1, 3, 4, 5, 16, 17, 144] {
            let mut words = vec![0xa5a5_a5a5u32; len + 3];
            super::wipe_words(&mut words[..len]);
            assert!(words[..len].iter().all(|&w| w == 0), "{len}");
            assert_eq!(&words[len..], &[0xa5a5_a5a5; 3], "{len}");
        }
    }
}
