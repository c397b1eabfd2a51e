//! The bitsliced TDEA compiled for AVX2: 256 blocks per batch (four 64-bit words per slice,
//! vectorised by the compiler into 256-bit logic operations). Constant-time like
//! `bitsliced.rs`.

use super::bitsliced::{self, Keys};
use crate::cpu::Backend;

#[target_feature(enable = "avx2")]
fn crypt_avx2(data: &mut [u8], keys: Keys<'_>, decrypt: bool) {
    bitsliced::crypt::<4>(data, keys, decrypt);
}

/// [`bitsliced::crypt`] at 256 blocks per batch; the portable width on a CPU without AVX2.
pub(super) fn crypt(data: &mut [u8], keys: Keys<'_>, decrypt: bool) {
    if Backend::Avx2.is_supported() {
        // SAFETY: AVX2 support was just checked at run time.
        unsafe { crypt_avx2(data, keys, decrypt) }
    } else {
        bitsliced::crypt::<1>(data, keys, decrypt);
    }
}
