//! CFB8's register step on x86-64 in one vector register (see [`crate::util::shift_byte_in`]):
//! the new register is written with one 16-byte store, so that the next step's 16-byte read of it
//! is served by store forwarding.

use core::arch::x86_64::{
    _mm_extract_epi16, _mm_insert_epi16, _mm_loadu_si128, _mm_srli_si128, _mm_storeu_si128,
};

/// `r` shifted one byte towards the front with `byte` appended.
#[inline(always)]
pub(crate) fn shift_byte_in(r: &mut [u8; 16], byte: u8) {
    // SAFETY: SSE2 is part of x86-64 (every instruction here is SSE2); `r` is 16 readable and
    // writable bytes, and `loadu` / `storeu` have no alignment requirement.
    unsafe {
        let v = _mm_srli_si128::<1>(_mm_loadu_si128(r.as_ptr().cast()));
        // Bytes 14 and 15 now hold the old last byte and zero: put `byte` in 15.
        let top = _mm_extract_epi16::<7>(v) | (i32::from(byte) << 8);
        _mm_storeu_si128(r.as_mut_ptr().cast(), _mm_insert_epi16::<7>(v, top));
    }
}
