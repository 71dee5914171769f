//! The exceptions of the package, and helpers that fill in where a problem is.

use pyo3::prelude::*;
use pyo3::BoundObject;
use std::path::Path;

pyo3::create_exception!(
    kifu,
    KifuError,
    pyo3::exceptions::PyValueError,
    "Base class of kifu's errors (a ValueError). Attributes `file`, `line`, `column` tell where, when known."
);
pyo3::create_exception!(
    kifu,
    SgfError,
    KifuError,
    "An SGF file that cannot be used: attributes `file`, `line`, `column` (1-based), `code` (e.g. 'S008'), `message`."
);
pyo3::create_exception!(
    kifu,
    ReplayError,
    KifuError,
    "A game that cannot be replayed (`strict=True`): attributes `file`, `game`, `line`, `column`, `message`."
);
pyo3::create_exception!(
    kifu,
    BookError,
    KifuError,
    "A Polyglot book or PGN problem: attributes `file`, `message`."
);
pyo3::create_exception!(
    kifu,
    PosdbError,
    KifuError,
    "A position, scored or index file problem: attributes `file`, `record`, `offset`, `message`."
);

/// Registers the exception classes.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("KifuError", py.get_type::<KifuError>())?;
    m.add("SgfError", py.get_type::<SgfError>())?;
    m.add("ReplayError", py.get_type::<ReplayError>())?;
    m.add("BookError", py.get_type::<BookError>())?;
    m.add("PosdbError", py.get_type::<PosdbError>())?;
    Ok(())
}

/// Where and what, for an exception.
#[derive(Debug, Default, Clone)]
pub(crate) struct Place {
    pub file: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
    pub code: Option<String>,
    pub game: Option<usize>,
    pub record: Option<u64>,
    pub offset: Option<u64>,
}

impl Place {
    /// `file:line:column: ` as a prefix of messages.
    fn prefix(&self) -> String {
        let mut s = String::new();
        if let Some(f) = &self.file {
            s.push_str(f);
            s.push(':');
        } else if self.line.is_some() {
            s.push_str("<bytes>:");
        }
        if let Some(l) = self.line {
            s.push_str(&format!("{l}:"));
            if let Some(c) = self.column {
                s.push_str(&format!("{c}:"));
            }
        }
        if !s.is_empty() {
            s.push(' ');
        }
        s
    }
}

/// An exception of type `T` with the place in its message and as attributes.
pub(crate) fn raise<T: pyo3::PyTypeInfo>(place: Place, message: impl Into<String>) -> PyErr {
    let message = message.into();
    let text = format!("{}{}", place.prefix(), message);
    Python::attach(|py| {
        let err = PyErr::from_type(py.get_type::<T>(), (text,));
        let value = err.value(py);
        let set = |name: &str, v: Bound<'_, PyAny>| {
            let _ = value.setattr(name, v);
        };
        set(
            "file",
            place
                .file
                .into_pyobject(py)
                .map_or_else(|_| py.None().into_bound(py), |v| v.into_any()),
        );
        set("line", opt(py, place.line));
        set("column", opt(py, place.column));
        set(
            "message",
            message
                .into_pyobject(py)
                .map(|v| v.into_any())
                .unwrap_or_else(|_| py.None().into_bound(py)),
        );
        if let Some(c) = place.code {
            set(
                "code",
                c.into_pyobject(py)
                    .map(|v| v.into_any())
                    .unwrap_or_else(|_| py.None().into_bound(py)),
            );
        }
        if let Some(g) = place.game {
            set("game", opt(py, Some(g as u64)));
        }
        if place.record.is_some() || place.offset.is_some() {
            set("record", opt(py, place.record));
            set("offset", opt(py, place.offset));
        }
        err
    })
}

fn opt<'py, T: IntoPyObject<'py>>(py: Python<'py>, v: Option<T>) -> Bound<'py, PyAny> {
    match v {
        Some(v) => match v.into_pyobject(py) {
            Ok(o) => o.into_any().into_bound(),
            Err(_) => py.None().into_bound(py),
        },
        None => py.None().into_bound(py),
    }
}

/// An output written as the CLI writes its outputs (`kifu_fs::atomic::AtomicFile`): `write`
/// fills a temporary file in the target's folder, which is synced and renamed over the target
/// (a device or FIFO is written directly), so a failure or a kill never leaves half a file; a
/// failed `write` leaves the target as it was. Errors of the file are [`io_error`]s of `path`
/// (an OS error keeps its errno).
pub(crate) fn write_atomically<T>(
    path: &Path,
    write: impl FnOnce(&mut (dyn std::io::Write + Send)) -> PyResult<T>,
) -> PyResult<T> {
    let os = |e: kifu_fs::FsError| match e {
        kifu_fs::FsError::Io { error, .. } => io_error(path, &error),
        other => io_error(path, &std::io::Error::other(other)),
    };
    let mut f = kifu_fs::atomic::AtomicFile::create(path).map_err(os)?;
    let out = write(&mut f)?;
    f.commit().map_err(os)?;
    Ok(out)
}

/// [`write_atomically`] of `bytes`.
pub(crate) fn write_bytes(path: &Path, bytes: &[u8]) -> PyResult<()> {
    write_atomically(path, |w| w.write_all(bytes).map_err(|e| io_error(path, &e)))
}

/// The OS error of reading `path`, as Python's `OSError` subclass for its errno (e.g.
/// `FileNotFoundError`), with `filename` set.
pub(crate) fn io_error(path: &Path, e: &std::io::Error) -> PyErr {
    let name = path.display().to_string();
    match e.raw_os_error() {
        Some(code) => {
            let text = std::io::Error::from_raw_os_error(code).to_string();
            let text = match text.rfind(" (os error ") {
                Some(i) => text[..i].to_owned(),
                None => text,
            };
            pyo3::exceptions::PyOSError::new_err((code, text, name))
        }
        None => pyo3::exceptions::PyOSError::new_err(format!("{name}: {e}")),
    }
}
