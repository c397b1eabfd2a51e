//! The libcrypto calls the `openssl` crate does not offer in the shape a benchmark needs:
//! in-place `EVP_CipherUpdate` (the safe API wants distinct input and output buffers, which would
//! add a copy that shifr does not make), the GOST engine lookup and the engine's encryption and
//! decryption contexts (`EVP_CipherInit_ex` with the engine).

use foreign_types::ForeignTypeRef;
use openssl::cipher::CipherRef;
use openssl::cipher_ctx::CipherCtxRef;
use openssl::error::ErrorStack;
use std::ffi::{c_char, c_int, c_void, CString};

extern "C" {
    fn ENGINE_by_id(id: *const c_char) -> *mut c_void;
    fn ENGINE_init(e: *mut c_void) -> c_int;
    fn ENGINE_get_cipher(e: *mut c_void, nid: c_int) -> *const openssl_sys::EVP_CIPHER;
}

/// Encrypts (or decrypts, as the context was initialised) `buf` in place.
pub fn update_in_place(ctx: &mut CipherCtxRef, buf: &mut [u8]) -> Result<(), ErrorStack> {
    let len = c_int::try_from(buf.len()).map_err(|_| ErrorStack::get())?;
    let mut out_len: c_int = 0;
    let ptr = buf.as_mut_ptr();
    // SAFETY: `ctx` is an initialised cipher context; EVP_CipherUpdate documents in == out as
    // in-place operation; `buf` is valid for `len` bytes of reads and writes. Every caller uses a
    // stream-like mode or whole blocks with padding off, so at most `len` bytes are written.
    let ok = unsafe { openssl_sys::EVP_CipherUpdate(ctx.as_ptr(), ptr, &mut out_len, ptr, len) };
    if ok == 1 {
        Ok(())
    } else {
        Err(ErrorStack::get())
    }
}

/// The GOST engine, loaded and initialised once (a pointer owned by libcrypto for the process).
#[derive(Clone, Copy)]
pub struct Engine(*mut c_void);

// SAFETY: an initialised ENGINE is reference-counted and thread-safe in libcrypto; the pointer is
// only passed back to libcrypto.
unsafe impl Send for Engine {}
// SAFETY: as above.
unsafe impl Sync for Engine {}

impl Engine {
    /// Loads the engine with this id (`"gost"`), or gives libcrypto's reason.
    pub fn load(id: &str) -> Result<Engine, String> {
        let id_c = CString::new(id).map_err(|e| e.to_string())?;
        // SAFETY: passes a NUL-terminated string that outlives the call.
        let e = unsafe { ENGINE_by_id(id_c.as_ptr()) };
        if e.is_null() {
            return Err(format!(
                "OpenSSL engine '{id}' not found (install libengine-gost-openssl): {}",
                ErrorStack::get()
            ));
        }
        // SAFETY: `e` is the structural reference ENGINE_by_id just returned.
        if unsafe { ENGINE_init(e) } != 1 {
            return Err(format!("OpenSSL engine '{id}' failed to initialise"));
        }
        Ok(Engine(e))
    }

    /// Initialises `ctx` for encryption (`encrypt`) or decryption with the engine's `cipher`
    /// (libcrypto 3 would otherwise look for a provider implementation of the name, which the engine
    /// is not).
    pub fn cipher_init(
        self,
        ctx: &mut CipherCtxRef,
        cipher: &CipherRef,
        key: &[u8],
        iv: &[u8],
        encrypt: bool,
    ) -> Result<(), String> {
        if key.len() != cipher.key_length() || iv.len() < cipher.iv_length() {
            return Err(format!(
                "key/IV sizes {}/{} do not fit the engine's {}/{}",
                key.len(),
                iv.len(),
                cipher.key_length(),
                cipher.iv_length()
            ));
        }
        let iv_ptr = if iv.is_empty() {
            core::ptr::null()
        } else {
            iv.as_ptr()
        };
        // SAFETY: `ctx` is a live context, `cipher` a live EVP_CIPHER of the initialised engine
        // `self.0`; the key and IV buffers hold at least the lengths the cipher reads (checked above).
        let ok = unsafe {
            openssl_sys::EVP_CipherInit_ex(
                ctx.as_ptr(),
                cipher.as_ptr(),
                self.0.cast(),
                key.as_ptr(),
                iv_ptr,
                c_int::from(encrypt),
            )
        };
        if ok == 1 {
            Ok(())
        } else {
            Err(format!("EVP_CipherInit_ex failed: {}", ErrorStack::get()))
        }
    }

    /// The engine's cipher with this short name (`"kuznyechik-ctr"`), if it offers it.
    pub fn cipher(self, name: &str) -> Option<&'static CipherRef> {
        let name_c = CString::new(name).ok()?;
        // SAFETY: OBJ_sn2nid reads a NUL-terminated string that outlives the call.
        let nid = unsafe { openssl_sys::OBJ_sn2nid(name_c.as_ptr()) };
        if nid == 0 {
            return None;
        }
        // SAFETY: `self.0` is an initialised engine; the returned EVP_CIPHER is static in the engine,
        // which stays loaded for the life of the process.
        let cipher = unsafe { ENGINE_get_cipher(self.0, nid) };
        if cipher.is_null() {
            None
        } else {
            // SAFETY: a non-null EVP_CIPHER from the engine, valid for the life of the process.
            Some(unsafe { CipherRef::from_ptr(cipher as *mut _) })
        }
    }
}
