//! The bitsliced TDEA compiled for AVX-512: 512 blocks per batch (eight 64-bit words per slice,
//! vectorised by the compiler into 512-bit logic operations, three-input ones merged into vpternlogq). Constant-time like
//! `bitsliced.rs`.

use super::bitsliced::{self, Keys};
use crate::cpu::Backend;

#[target_feature(enable = "avx512f")]
fn crypt_avx512f(data: &mut [u8], keys: Keys<'_>, decrypt: bool) {
    bitsliced::crypt::<8>(data, keys, decrypt);
}

/// [`bitsliced::crypt`] at 512 blocks per batch; the portable width on a CPU without AVX-512.
pub(super) fn crypt(data: &mut [u8], keys: Keys<'_>, decrypt: bool) {
    if Backend::Avx512.is_supported() {
        // SAFETY: AVX-512 support was just checked at run time.
        unsafe { crypt_avx512f(data, keys, decrypt) }
    } else {
        bitsliced::crypt::<1>(data, keys, decrypt);
    }
}
