//! The native part of the `shifr` Python package (`shifr._shifr`); the public API is the Python
//! package around it (python/shifr), which documents every call.

mod aead;
mod atomic;
mod bench;
mod errors;
mod files;
mod secret;

use pyo3::prelude::*;

#[pymodule]
fn _shifr(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The backend calibration of `shifr tune` on this CPU, installed as the CLI installs it,
    // before any key is set up; what became of it is `shifr._shifr.tune_state`.
    let tune = shifr_files::tune_cache::install_from_cache();
    m.add("tune_state", tune.describe())?;
    m.add_class::<aead::NativeAead>()?;
    m.add_function(wrap_pyfunction!(aead::catalog_entries, m)?)?;
    m.add_function(wrap_pyfunction!(bench::bench_json, m)?)?;
    m.add_function(wrap_pyfunction!(files::encrypt_file, m)?)?;
    m.add_function(wrap_pyfunction!(files::decrypt_file, m)?)?;
    m.add_function(wrap_pyfunction!(files::new_header, m)?)?;
    m.add_function(wrap_pyfunction!(files::seal_range, m)?)?;
    m.add_function(wrap_pyfunction!(files::parse_header, m)?)?;
    m.add_class::<files::ChunkSealer>()?;
    m.add_class::<files::ChunkOpener>()?;
    m.add_class::<files::AtomicFile>()?;
    Ok(())
}
