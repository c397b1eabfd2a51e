//! `shifr.Aead`: a keyed catalogue AEAD that seals and opens any writable buffer in place.
//!
//! The Python side (`shifr/_buffers.py`) exports the caller's buffer through the buffer protocol
//! (`ctypes` `from_buffer`, which holds the export, so the buffer can be neither resized nor freed)
//! and passes its address and length here; the stable ABI of Python 3.9 has no buffer API of its own.

use crate::errors::{Failure, Result};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use shifr::catalog;

/// A keyed AEAD.
#[pyclass(module = "shifr._shifr", frozen)]
pub struct NativeAead {
    aead: Box<dyn shifr::aead::Aead>,
    name: &'static str,
    key_len: usize,
    nonce_len: usize,
}

fn auth_or_invalid(e: shifr::Error) -> Failure {
    match e {
        shifr::Error::AuthenticationFailed => {
            Failure::new("AuthenticationError", "authentication failed")
        }
        other => Failure::crypto(other),
    }
}

/// The caller's buffer as a slice.
///
/// # Safety
/// `addr` must point to `len` writable bytes that stay valid, and are not resized or freed, for `'a`.
unsafe fn buffer<'a>(addr: usize, len: usize) -> &'a mut [u8] {
    if len == 0 {
        return &mut [];
    }
    // SAFETY: the caller guarantees `addr..addr + len` is a live writable allocation for `'a`.
    unsafe { std::slice::from_raw_parts_mut(addr as *mut u8, len) }
}

#[pymethods]
impl NativeAead {
    #[new]
    #[pyo3(signature = (name, key, tag_len=None))]
    fn new(name: &str, key: &[u8], tag_len: Option<usize>) -> PyResult<NativeAead> {
        let info = catalog::lookup(name).map_err(Failure::crypto)?;
        let aead = info.aead(key, tag_len).map_err(Failure::crypto)?;
        Ok(NativeAead {
            aead,
            name: info.name,
            key_len: info.key_len,
            nonce_len: info.iv.default_len(),
        })
    }

    #[getter]
    fn name(&self) -> &'static str {
        self.name
    }

    #[getter]
    fn key_len(&self) -> usize {
        self.key_len
    }

    #[getter]
    fn tag_len(&self) -> usize {
        self.aead.tag_len()
    }

    #[getter]
    fn nonce_len(&self) -> usize {
        self.nonce_len
    }

    /// Encrypts the `len` bytes at `addr` in place; returns the tag.
    fn seal_at<'py>(
        &self,
        py: Python<'py>,
        nonce: &[u8],
        addr: usize,
        len: usize,
        aad: &[u8],
    ) -> PyResult<Bound<'py, PyBytes>> {
        let tag = py.detach(|| {
            // SAFETY: shifr/_buffers.py passes the address and length of a writable buffer export
            // that it holds until this call returns.
            let data = unsafe { buffer(addr, len) };
            self.aead.seal(nonce, aad, data).map_err(Failure::crypto)
        })?;
        Ok(PyBytes::new(py, tag.as_ref()))
    }

    /// Verifies `tag` and decrypts the `len` bytes at `addr` in place; on failure they are unchanged.
    fn open_at(
        &self,
        py: Python<'_>,
        nonce: &[u8],
        addr: usize,
        len: usize,
        tag: &[u8],
        aad: &[u8],
    ) -> PyResult<()> {
        py.detach(|| {
            // SAFETY: as in `seal_at`.
            let data = unsafe { buffer(addr, len) };
            self.aead
                .open(nonce, aad, data, tag)
                .map_err(auth_or_invalid)
        })?;
        Ok(())
    }

    /// Ciphertext and tag of `data` as new bytes.
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &[u8],
        data: &[u8],
        aad: &[u8],
    ) -> PyResult<Bound<'py, PyBytes>> {
        let out = py.detach(|| -> Result<Vec<u8>> {
            let mut out = Vec::with_capacity(data.len() + 16);
            out.extend_from_slice(data);
            let tag = self
                .aead
                .seal(nonce, aad, &mut out)
                .map_err(Failure::crypto)?;
            out.extend_from_slice(tag.as_ref());
            Ok(out)
        })?;
        Ok(PyBytes::new(py, &out))
    }

    /// Plaintext of `data` (ciphertext followed by the tag) as new bytes.
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &[u8],
        data: &[u8],
        aad: &[u8],
    ) -> PyResult<Bound<'py, PyBytes>> {
        let tag_len = self.aead.tag_len();
        let out = py.detach(|| -> Result<Vec<u8>> {
            let split = data.len().checked_sub(tag_len).ok_or_else(|| {
                Failure::new("AuthenticationError", "input is shorter than the tag")
            })?;
            let (ct, tag) = data.split_at(split);
            let mut out = ct.to_vec();
            self.aead
                .open(nonce, aad, &mut out, tag)
                .map_err(auth_or_invalid)?;
            Ok(out)
        })?;
        Ok(PyBytes::new(py, &out))
    }
}

/// Every catalogue entry as a dict of its properties.
#[pyfunction]
pub fn catalog_entries(py: Python<'_>) -> PyResult<Vec<Bound<'_, pyo3::types::PyDict>>> {
    use pyo3::types::PyDictMethods;
    let container: Vec<&str> = shifr::container::Algorithm::ALL
        .iter()
        .map(|a| a.name())
        .collect();
    catalog::all()
        .iter()
        .map(|a| {
            let d = pyo3::types::PyDict::new(py);
            d.set_item("name", a.name)?;
            d.set_item("kind", a.kind.name())?;
            d.set_item("key_len", a.key_len)?;
            d.set_item("iv_len", a.iv.default_len())?;
            d.set_item("iv_lengths", a.iv.describe())?;
            d.set_item("tag_len", a.tag.map(|t| t.default))?;
            d.set_item("block_size", a.block_size)?;
            d.set_item("container", container.contains(&a.name))?;
            d.set_item("implementation", a.implementation())?;
            d.set_item("description", a.description)?;
            Ok(d)
        })
        .collect()
}
