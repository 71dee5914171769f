//! kifu's Python package (`import kifu`): the native module `kifu._kifu`, built by maturin.
//!
//! Every function here is a thin binding over kifu's library crates (kifu-sgf, kifu-go,
//! kifu-posdb, kifu-search, kifu-polyglot): parsing, replay, search and book lookups are theirs.
//! The Python package (`python/kifu/`) re-exports these names as `kifu.sgf`, `kifu.go`,
//! `kifu.posdb` and `kifu.polyglot` and carries the type stubs.
//!
//! Rules of the binding:
//! - every entry point that takes a path also takes `bytes` (see [`Source`]);
//! - long calls release the GIL (`Python::detach`) and take `threads=` (a rayon pool);
//! - no input from Python can panic: problems come back as exceptions ([`errors`]).

// A native module has no public Rust API: its documentation is its private items'
// (`cargo doc --document-private-items`), which the guide above links to. The functions' doc
// comments are also their Python docstrings, printed as written: `uint8[n]` there is not a
// link, and escaping it for rustdoc would print the backslashes in `help()`.
#![allow(rustdoc::private_intra_doc_links, rustdoc::broken_intra_doc_links)]

use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};
use std::borrow::Cow;
use std::path::PathBuf;

mod errors;
mod go;
mod polyglot;
mod posdb;
mod sgf;

/// Something to read: bytes given by the caller, or a file.
#[derive(Debug, Clone)]
pub(crate) enum Source {
    /// Bytes handed over from Python.
    Bytes(Vec<u8>),
    /// A path (a `str` or any `os.PathLike`).
    Path(PathBuf),
}

impl Source {
    /// Reads a Python argument: `bytes`, `bytearray` or `memoryview`-like objects are data;
    /// `str` and `os.PathLike` are paths.
    pub(crate) fn extract(obj: &Bound<'_, PyAny>) -> PyResult<Source> {
        if let Ok(b) = obj.cast::<PyBytes>() {
            return Ok(Source::Bytes(b.as_bytes().to_vec()));
        }
        if let Ok(b) = obj.cast::<PyByteArray>() {
            return Ok(Source::Bytes(b.to_vec()));
        }
        if obj.is_instance_of::<PyString>() || obj.hasattr("__fspath__")? {
            return Ok(Source::Path(obj.extract::<PathBuf>()?));
        }
        Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "expected bytes or a path (str or os.PathLike), got {}",
            obj.get_type().name()?
        )))
    }

    /// The file name for messages (`None` for bytes).
    pub(crate) fn name(&self) -> Option<String> {
        match self {
            Source::Bytes(_) => None,
            Source::Path(p) => Some(p.display().to_string()),
        }
    }

    /// The number of bytes, or the file's length (0 when unknown): for sizing buffers.
    pub(crate) fn len_hint(&self) -> u64 {
        match self {
            Source::Bytes(b) => b.len() as u64,
            Source::Path(p) => std::fs::metadata(p).map_or(0, |m| m.len()),
        }
    }

    /// The bytes, borrowed when the caller gave bytes (reading the file otherwise).
    pub(crate) fn bytes(&self) -> Result<Cow<'_, [u8]>, (PathBuf, std::io::Error)> {
        match self {
            Source::Bytes(b) => Ok(Cow::Borrowed(b)),
            Source::Path(p) => std::fs::read(p).map(Cow::Owned).map_err(|e| (p.clone(), e)),
        }
    }

    /// The bytes (reading the file). `Err` is the OS error, to raise with [`errors::io_error`].
    pub(crate) fn read(self) -> Result<Vec<u8>, (PathBuf, std::io::Error)> {
        match self {
            Source::Bytes(b) => Ok(b),
            Source::Path(p) => std::fs::read(&p).map_err(|e| (p, e)),
        }
    }
}

/// Runs `f` on a rayon pool of `threads` threads (`None` or 0: one per core).
pub(crate) fn in_pool<T: Send>(
    threads: Option<usize>,
    f: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    match threads {
        None | Some(0) => Ok(f()),
        Some(n) => {
            if n > 1024 {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "threads={n}: at most 1024"
                )));
            }
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
            Ok(pool.install(f))
        }
    }
}

/// The native module: classes and functions that `kifu.sgf`, `kifu.go`, `kifu.posdb` and
/// `kifu.polyglot` re-export.
#[pymodule]
fn _kifu(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    sgf::register(m)?;
    go::register(m)?;
    polyglot::register(m)?;
    posdb::register(m)?;
    Ok(())
}
