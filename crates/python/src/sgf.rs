//! `kifu.sgf`: parse, navigate, check, convert and write SGF (kifu-sgf underneath).
//!
//! Values are typed as sgfmill's `Node.get` types them (moves and points as `(row, col)` with
//! row 0 at the bottom, passes as `None`, `KM` a float, texts `str`), so code written for
//! sgfmill keeps working; the raw (escaped) bytes are there too.

use crate::errors::{io_error, raise, Place, SgfError};
use crate::Source;
use kifu_sgf::props::{Arity, ValueType};
use kifu_sgf::{convert, Collection, Diagnostic, Prop, SgfMove, SgfPoint, Value};
use pyo3::exceptions::{PyIndexError, PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PySet, PyTuple};
use std::sync::Arc;

/// Registers the classes and functions of `kifu.sgf`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCollection>()?;
    m.add_class::<PyGame>()?;
    m.add_class::<PyNode>()?;
    m.add_class::<PyDiagnostic>()?;
    m.add_function(wrap_pyfunction!(sgf_parse, m)?)?;
    m.add_function(wrap_pyfunction!(sgf_check, m)?)?;
    Ok(())
}

/// One problem found in an SGF file.
#[pyclass(module = "kifu.sgf", name = "Diagnostic", frozen, get_all)]
#[derive(Debug, Clone)]
pub struct PyDiagnostic {
    /// The stable code, e.g. `"S008"`.
    code: String,
    /// The code's number (`8` for `S008`).
    number: u16,
    /// SGFC's message number for the same problem, or `None`.
    sgfc: Option<u16>,
    /// `"warning"` or `"error"`.
    severity: String,
    /// Line, from 1 (0 when the problem concerns the whole file).
    line: u32,
    /// Column in characters, from 1 (0 when the problem concerns the whole file).
    column: u32,
    /// Byte offset in the decoded (UTF-8) text, or `None`.
    offset: Option<usize>,
    /// What was found and what kifu did.
    message: String,
    /// The file, or `None` for bytes.
    file: Option<String>,
}

impl PyDiagnostic {
    pub(crate) fn new(d: &Diagnostic, file: Option<&str>) -> PyDiagnostic {
        PyDiagnostic {
            code: d.code.to_string(),
            number: d.code.number(),
            sgfc: d.code.sgfc(),
            severity: d.severity.to_string(),
            line: d.line,
            column: d.column,
            offset: d.offset,
            message: d.message.clone(),
            file: file.map(str::to_owned),
        }
    }

    fn place(&self) -> Place {
        Place {
            file: self.file.clone(),
            line: Some(self.line),
            column: Some(self.column),
            code: Some(self.code.clone()),
            ..Place::default()
        }
    }
}

#[pymethods]
impl PyDiagnostic {
    /// Whether the severity is `"error"`.
    #[getter]
    fn is_error(&self) -> bool {
        self.severity == "error"
    }

    fn __str__(&self) -> String {
        format!(
            "{}:{}:{}: {} {}: {}",
            self.file.as_deref().unwrap_or("<bytes>"),
            self.line,
            self.column,
            self.severity,
            self.code,
            self.message
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "Diagnostic(code={:?}, severity={:?}, line={}, column={}, message={:?})",
            self.code, self.severity, self.line, self.column, self.message
        )
    }
}

fn diagnostics(ds: &[Diagnostic], file: Option<&str>) -> Vec<PyDiagnostic> {
    ds.iter().map(|d| PyDiagnostic::new(d, file)).collect()
}

/// A parsed SGF file: its game trees and what was found wrong while reading it.
#[pyclass(module = "kifu.sgf", name = "Collection", frozen, sequence)]
pub struct PyCollection {
    coll: Arc<Collection>,
    file: Option<String>,
    diags: Vec<PyDiagnostic>,
}

fn first_error(diags: &[PyDiagnostic]) -> Option<&PyDiagnostic> {
    diags.iter().find(|d| d.severity == "error")
}

/// Parses SGF from bytes or a file (`str` or `os.PathLike`), in any charset kifu detects.
///
/// Never fails on bad SGF unless `strict`: what cannot be read is skipped and reported in
/// `Collection.diagnostics`. With `strict=True`, the first error raises `kifu.SgfError` naming
/// the file, line and column. An unreadable file raises `OSError`.
#[pyfunction(name = "sgf_parse")]
#[pyo3(signature = (source, *, strict = false))]
fn sgf_parse(py: Python<'_>, source: &Bound<'_, PyAny>, strict: bool) -> PyResult<PyCollection> {
    let src = Source::extract(source)?;
    let file = src.name();
    let parsed = py
        .detach(move || src.read().map(Collection::parse_vec))
        .map_err(|(p, e)| io_error(&p, &e))?;
    let diags = diagnostics(&parsed.diagnostics, file.as_deref());
    if strict {
        if let Some(d) = first_error(&diags) {
            return Err(raise::<SgfError>(d.place(), d.message.clone()));
        }
    }
    Ok(PyCollection {
        coll: Arc::new(parsed.collection),
        file,
        diags,
    })
}

/// Everything `kifu sgf check` finds in SGF bytes or a file: syntax and values, then the rules
/// of Go replayed through every variation (moves onto stones, suicide, ko, ...).
#[pyfunction(name = "sgf_check")]
fn sgf_check(py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<Vec<PyDiagnostic>> {
    let src = Source::extract(source)?;
    let file = src.name();
    let found = py
        .detach(move || {
            src.read().map(|bytes| {
                let parsed = Collection::parse_vec(bytes);
                let checked = convert::check(&parsed.collection);
                let rules = kifu_go::replay::rule_diagnostics(&parsed.collection);
                kifu_sgf::merge_capped(
                    vec![parsed.diagnostics, checked, rules],
                    kifu_sgf::DiagnosticSink::DEFAULT_LIMIT,
                )
            })
        })
        .map_err(|(p, e)| io_error(&p, &e))?;
    Ok(diagnostics(&found, file.as_deref()))
}

impl PyCollection {
    fn game_at(&self, i: isize) -> PyResult<PyGame> {
        let n = self.coll.len() as isize;
        let j = if i < 0 { i + n } else { i };
        if j < 0 || j >= n {
            return Err(PyIndexError::new_err("game index out of range"));
        }
        Ok(PyGame::new(self.coll.clone(), j as usize))
    }
}

#[pymethods]
impl PyCollection {
    /// The game trees, in file order.
    #[getter]
    fn games(&self) -> Vec<PyGame> {
        (0..self.coll.len())
            .map(|i| PyGame::new(self.coll.clone(), i))
            .collect()
    }

    /// What was found wrong while reading (a list of `Diagnostic`, in file order).
    #[getter]
    fn diagnostics(&self) -> Vec<PyDiagnostic> {
        self.diags.clone()
    }

    /// Whether any diagnostic is an error.
    #[getter]
    fn has_errors(&self) -> bool {
        first_error(&self.diags).is_some()
    }

    /// The charset the file was read in (e.g. `"UTF-8"`, `"GB18030"`).
    #[getter]
    fn charset(&self) -> &'static str {
        self.coll.charset()
    }

    /// The file it was read from, or `None` for bytes.
    #[getter]
    fn file(&self) -> Option<String> {
        self.file.clone()
    }

    /// The number of nodes of all games.
    #[getter]
    fn node_count(&self) -> usize {
        self.coll.node_count()
    }

    /// The decoded text (UTF-8 bytes) the values live in.
    fn text<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.coll.text())
    }

    /// The collection as FF\[4\] SGF text (values byte for byte; `CA` written as UTF-8). For
    /// files older than FF\[4\], `convert()` first.
    fn write(&self) -> String {
        kifu_sgf::write(&self.coll)
    }

    /// `write()` encoded as UTF-8 bytes.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, kifu_sgf::write(&self.coll).as_bytes())
    }

    /// Repairs the collection and converts it to FF\[4\] (what `kifu sgf convert` does): a new
    /// `Collection` whose `diagnostics` list what was repaired.
    fn convert(&self, py: Python<'_>) -> PyCollection {
        let coll = self.coll.clone();
        let converted = py.detach(move || convert::to_ff4(&coll));
        PyCollection {
            coll: Arc::new(converted.collection),
            file: self.file.clone(),
            diags: diagnostics(&converted.diagnostics, self.file.as_deref()),
        }
    }

    /// What `convert()` would repair, and what it would keep (a list of `Diagnostic`).
    fn check(&self) -> Vec<PyDiagnostic> {
        diagnostics(&convert::check(&self.coll), self.file.as_deref())
    }

    fn __len__(&self) -> usize {
        self.coll.len()
    }

    fn __getitem__(&self, i: isize) -> PyResult<PyGame> {
        self.game_at(i)
    }

    fn __repr__(&self) -> String {
        format!(
            "<kifu.sgf.Collection {} games, {} nodes, {} diagnostics{}>",
            self.coll.len(),
            self.coll.node_count(),
            self.diags.len(),
            self.file
                .as_deref()
                .map(|f| format!(", {f}"))
                .unwrap_or_default()
        )
    }
}

/// One game tree of a collection.
#[pyclass(module = "kifu.sgf", name = "Game", frozen)]
pub struct PyGame {
    coll: Arc<Collection>,
    index: usize,
    size: (u32, u32),
}

impl PyGame {
    fn new(coll: Arc<Collection>, index: usize) -> PyGame {
        let size = coll
            .game(index)
            .and_then(|g| g.board_size())
            .unwrap_or((19, 19));
        PyGame { coll, index, size }
    }

    fn tree(&self) -> kifu_sgf::GameTree<'_> {
        self.coll
            .game(self.index)
            .expect("a game of its collection")
    }

    fn node(&self, index: usize) -> PyNode {
        PyNode {
            coll: self.coll.clone(),
            index,
            size: self.size,
        }
    }
}

#[pymethods]
impl PyGame {
    /// The game's place in its collection (from 0).
    #[getter]
    fn index(&self) -> usize {
        self.index
    }

    /// The root node.
    #[getter(root)]
    fn root_node(&self) -> PyNode {
        self.node(self.tree().root().index())
    }

    /// The root node (sgfmill's name).
    #[pyo3(name = "get_root")]
    fn sgfmill_root(&self) -> PyNode {
        self.root_node()
    }

    /// The nodes of the main line, root first (following first children).
    fn main_sequence(&self) -> Vec<PyNode> {
        self.tree()
            .main_line()
            .map(|n| self.node(n.index()))
            .collect()
    }

    /// The main line (sgfmill's name).
    fn get_main_sequence(&self) -> Vec<PyNode> {
        self.main_sequence()
    }

    /// Every node of the tree in file (pre-)order.
    fn nodes(&self) -> Vec<PyNode> {
        self.tree().nodes().map(|n| self.node(n.index())).collect()
    }

    /// The number of nodes.
    #[getter]
    fn node_count(&self) -> usize {
        self.tree().node_count()
    }

    /// The board size from `SZ` (19 when absent): an int for a square board, else
    /// `(columns, rows)`. Raises `ValueError` for an unreadable `SZ`.
    #[getter(size)]
    fn board_size(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self.tree().board_size() {
            Some((c, r)) if c == r => Ok(c.into_pyobject(py)?.into_any().unbind()),
            Some((c, r)) => Ok((c, r).into_pyobject(py)?.into_any().unbind()),
            None => Err(PyValueError::new_err("SZ is not a board size")),
        }
    }

    /// The board size (sgfmill's name; see `size`).
    #[pyo3(name = "get_size")]
    fn sgfmill_size(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.board_size(py)
    }

    /// Komi (`KM`) as a float, 0.0 when absent (as sgfmill's `get_komi`).
    fn get_komi(&self) -> PyResult<f64> {
        match self.tree().root().get("KM") {
            None => Ok(0.0),
            Some(p) => p
                .value()
                .and_then(|v| v.real())
                .ok_or_else(|| PyValueError::new_err("KM is not a number")),
        }
    }

    /// Handicap (`HA`) as an int, `None` when absent.
    fn get_handicap(&self) -> PyResult<Option<i64>> {
        match self.tree().root().get("HA") {
            None => Ok(None),
            Some(p) => p
                .value()
                .and_then(|v| v.number())
                .map(Some)
                .ok_or_else(|| PyValueError::new_err("HA is not a number")),
        }
    }

    /// A player's name (`PB` for `'b'`, `PW` for `'w'`), `None` when absent.
    fn get_player_name(&self, colour: &str) -> PyResult<Option<String>> {
        let id = match colour {
            "b" | "B" => "PB",
            "w" | "W" => "PW",
            _ => return Err(PyValueError::new_err("colour: 'b' or 'w'")),
        };
        Ok(self.tree().root().simple_text(id))
    }

    /// The winner from `RE`: `'b'`, `'w'`, or `None` (no result, a draw, or unknown).
    fn get_winner(&self) -> Option<&'static str> {
        let re = self.tree().root().simple_text("RE")?;
        match re.trim().as_bytes().first().map(u8::to_ascii_uppercase) {
            Some(b'B') => Some("b"),
            Some(b'W') => Some("w"),
            _ => None,
        }
    }

    /// This game alone as SGF text.
    fn write(&self) -> String {
        kifu_sgf::write_game(self.tree())
    }

    fn __repr__(&self) -> String {
        format!(
            "<kifu.sgf.Game {} of its collection, {} nodes>",
            self.index,
            self.tree().node_count()
        )
    }
}

/// One node: its properties, typed as sgfmill types them or raw, and its place in the tree.
#[pyclass(module = "kifu.sgf", name = "Node", frozen, sequence)]
pub struct PyNode {
    coll: Arc<Collection>,
    index: usize,
    size: (u32, u32),
}

impl PyNode {
    fn node(&self) -> kifu_sgf::Node<'_> {
        self.coll
            .node(self.index)
            .expect("a node of its collection")
    }

    fn wrap(&self, n: kifu_sgf::Node<'_>) -> PyNode {
        PyNode {
            coll: self.coll.clone(),
            index: n.index(),
            size: self.size,
        }
    }

    fn prop(&self, id: &str) -> PyResult<Prop<'_>> {
        self.node()
            .get(id)
            .ok_or_else(|| PyKeyError::new_err(id.to_owned()))
    }
}

/// `(row, col)` as sgfmill counts them: row 0 is the bottom row.
fn point_tuple(p: SgfPoint, size: (u32, u32)) -> PyResult<(u32, u32)> {
    let (cols, rows) = size;
    let (c, r) = (u32::from(p.col), u32::from(p.row));
    if c >= cols || r >= rows {
        let letters = p.to_letters();
        return Err(PyValueError::new_err(format!(
            "point {}{} is off the {cols}x{rows} board",
            letters[0] as char, letters[1] as char
        )));
    }
    Ok((rows - 1 - r, c))
}

fn bad(id: &str, v: &Value<'_>) -> PyErr {
    PyValueError::new_err(format!(
        "{id}[{}]: not a valid value",
        String::from_utf8_lossy(v.raw())
    ))
}

fn point_of(id: &str, v: &Value<'_>, size: (u32, u32)) -> PyResult<(u32, u32)> {
    point_tuple(v.point().ok_or_else(|| bad(id, v))?, size)
}

/// Every occurrence of a property in a node (a repeated identifier's values are merged, as
/// sgfmill merges them).
fn occurrences<'c>(node: kifu_sgf::Node<'c>, id: &str) -> Vec<Prop<'c>> {
    node.properties().filter(|p| p.id() == id).collect()
}

/// The values of `props` (one identifier, in order) typed as sgfmill types them.
fn typed(py: Python<'_>, props: &[Prop<'_>], size: (u32, u32)) -> PyResult<Py<PyAny>> {
    let Some(prop) = props.first() else {
        return Ok(py.None());
    };
    let id = prop.id();
    let (ty, arity) = prop
        .info()
        .map_or((ValueType::Unknown, Arity::One), |i| (i.value, i.arity));
    let first = prop.value().unwrap_or(Value::from_raw(b""));
    let values = || props.iter().flat_map(|p| p.values());
    let any = |b: Bound<'_, PyAny>| -> PyResult<Py<PyAny>> { Ok(b.unbind()) };
    match ty {
        ValueType::Move => match first.move_for(size.0, size.1) {
            Some(SgfMove::Pass) => Ok(py.None()),
            Some(SgfMove::Play(p)) => any(point_tuple(p, size)?.into_pyobject(py)?.into_any()),
            None => Err(bad(id, &first)),
        },
        ValueType::Point if arity != Arity::One => {
            let set = PySet::empty(py)?;
            for v in values() {
                if v.is_empty() {
                    continue;
                }
                for p in v.points().ok_or_else(|| bad(id, &v))? {
                    set.add(point_tuple(p, size)?)?;
                }
            }
            any(set.into_any())
        }
        ValueType::Point => any(point_of(id, &first, size)?.into_pyobject(py)?.into_any()),
        ValueType::Number => any(first
            .number()
            .ok_or_else(|| bad(id, &first))?
            .into_pyobject(py)?
            .into_any()),
        ValueType::Real => any(first
            .real()
            .filter(|x| x.is_finite())
            .ok_or_else(|| bad(id, &first))?
            .into_pyobject(py)?
            .into_any()),
        ValueType::Double | ValueType::Triple => {
            let n: u8 = if first.raw().trim_ascii() == b"2" {
                2
            } else {
                1
            };
            any(n.into_pyobject(py)?.into_any())
        }
        ValueType::Color => match first.color_is_black() {
            Some(true) => any("b".into_pyobject(py)?.into_any()),
            Some(false) => any("w".into_pyobject(py)?.into_any()),
            None => Err(bad(id, &first)),
        },
        ValueType::None => any(true.into_pyobject(py)?.to_owned().into_any()),
        ValueType::SimpleText => any(first.simple_text().into_pyobject(py)?.into_any()),
        ValueType::Text | ValueType::Unknown => any(first.text().into_pyobject(py)?.into_any()),
        ValueType::PointPair => {
            let list = PyList::empty(py);
            for v in values() {
                let (a, b) = v.compose().ok_or_else(|| bad(id, &v))?;
                list.append((point_of(id, &a, size)?, point_of(id, &b, size)?))?;
            }
            any(list.into_any())
        }
        ValueType::PointText => {
            let list = PyList::empty(py);
            for v in values() {
                let (a, b) = v.compose().ok_or_else(|| bad(id, &v))?;
                list.append((point_of(id, &a, size)?, b.simple_text()))?;
            }
            any(list.into_any())
        }
        ValueType::TextPair => {
            let (a, b) = match first.compose() {
                Some((a, b)) => (a.simple_text(), b.simple_text()),
                None => (first.simple_text(), String::new()),
            };
            any(PyTuple::new(py, [a, b])?.into_any())
        }
        ValueType::Size => match first.size() {
            Some((c, r)) if c == r => any(c.into_pyobject(py)?.into_any()),
            Some((c, r)) => any((c, r).into_pyobject(py)?.into_any()),
            None => Err(bad(id, &first)),
        },
        ValueType::Figure => {
            if first.is_empty() {
                return Ok(py.None());
            }
            let (a, b) = first.compose().ok_or_else(|| bad(id, &first))?;
            let flags = a.number().ok_or_else(|| bad(id, &first))?;
            any((flags, b.simple_text()).into_pyobject(py)?.into_any())
        }
    }
}

#[pymethods]
impl PyNode {
    /// The value of a property, typed as sgfmill's `Node.get` types it: moves `(row, col)` (row 0
    /// at the bottom) or `None` for a pass; point lists a `set` of `(row, col)`; numbers `int`;
    /// reals (`KM`) `float`; colours `'b'`/`'w'`; texts `str`; `LB` a list of `(point, str)`;
    /// `AR`/`LN` a list of `(point, point)`; `AP` `(name, version)`; `FG` `None` or
    /// `(flags, name)`; unknown properties their first value as text.
    ///
    /// Raises `KeyError` when the node lacks the property, unless `default` is given;
    /// `ValueError` when the value cannot be read as its type.
    #[pyo3(signature = (identifier, *default), text_signature = "(identifier, default=...)")]
    fn get(
        &self,
        py: Python<'_>,
        identifier: &str,
        default: &Bound<'_, PyTuple>,
    ) -> PyResult<Py<PyAny>> {
        match self.node().get(identifier) {
            Some(_) => typed(py, &occurrences(self.node(), identifier), self.size),
            None if default.len() == 1 => Ok(default.get_item(0)?.unbind()),
            None if default.is_empty() => Err(PyKeyError::new_err(identifier.to_owned())),
            None => Err(pyo3::exceptions::PyTypeError::new_err(
                "get() takes an identifier and at most one default",
            )),
        }
    }

    /// The first value of a property as stored (escaped) bytes, without the brackets. Raises
    /// `KeyError` when absent. (Values are held as UTF-8: a file in another charset is decoded.)
    fn get_raw<'py>(&self, py: Python<'py>, identifier: &str) -> PyResult<Bound<'py, PyBytes>> {
        let p = self.prop(identifier)?;
        let raw = p.value().map_or(&b""[..], |v| v.raw());
        Ok(PyBytes::new(py, raw))
    }

    /// Every value of a property as stored (escaped) bytes. Raises `KeyError` when absent.
    fn get_raw_list<'py>(
        &self,
        py: Python<'py>,
        identifier: &str,
    ) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        self.prop(identifier)?;
        Ok(occurrences(self.node(), identifier)
            .iter()
            .flat_map(|p| p.values())
            .map(|v| PyBytes::new(py, v.raw()))
            .collect())
    }

    /// Whether the node has the property.
    fn has_property(&self, identifier: &str) -> bool {
        self.node().has(identifier)
    }

    fn __contains__(&self, identifier: &str) -> bool {
        self.node().has(identifier)
    }

    /// The identifiers of the node's properties, in file order.
    fn properties(&self) -> Vec<String> {
        self.node()
            .properties()
            .map(|p| p.id().to_owned())
            .collect()
    }

    /// The move: `(colour, move)` with colour `'b'` or `'w'` and move `(row, col)` or `None` for
    /// a pass; `(None, None)` when the node has no `B` or `W`.
    fn get_move(&self, py: Python<'_>) -> PyResult<(Option<&'static str>, Py<PyAny>)> {
        let n = self.node();
        for (id, colour) in [("B", "b"), ("W", "w")] {
            if n.has(id) {
                return Ok((Some(colour), typed(py, &occurrences(n, id), self.size)?));
            }
        }
        Ok((None, py.None()))
    }

    /// The setup stones: `(black, white, empty)`, each a set of `(row, col)`.
    fn get_setup_stones(&self, py: Python<'_>) -> PyResult<(Py<PyAny>, Py<PyAny>, Py<PyAny>)> {
        let n = self.node();
        let one = |id: &str| -> PyResult<Py<PyAny>> {
            if n.has(id) {
                typed(py, &occurrences(n, id), self.size)
            } else {
                Ok(PySet::empty(py)?.into_any().unbind())
            }
        };
        Ok((one("AB")?, one("AW")?, one("AE")?))
    }

    /// Whether the node has `AB`, `AW` or `AE`.
    fn has_setup_stones(&self) -> bool {
        let n = self.node();
        n.has("AB") || n.has("AW") || n.has("AE")
    }

    /// The parent node, `None` for the root.
    #[getter]
    fn parent(&self) -> Option<PyNode> {
        self.node().parent().map(|p| self.wrap(p))
    }

    /// The children: the first continues the line, the others start variations.
    #[getter]
    fn children(&self) -> Vec<PyNode> {
        self.node().children().map(|c| self.wrap(c)).collect()
    }

    /// The node's number in its collection (file order, from 0).
    #[getter]
    fn index(&self) -> usize {
        self.index
    }

    /// Byte offset of the node's `;` in the decoded text.
    #[getter]
    fn offset(&self) -> usize {
        self.node().offset()
    }

    /// The path from the root: the child index taken at each step.
    fn path(&self) -> Vec<usize> {
        self.node().path()
    }

    fn __len__(&self) -> usize {
        self.node().child_count()
    }

    fn __getitem__(&self, i: isize) -> PyResult<PyNode> {
        let n = self.node().child_count() as isize;
        let j = if i < 0 { i + n } else { i };
        if j < 0 || j >= n {
            return Err(PyIndexError::new_err("child index out of range"));
        }
        let child = self
            .node()
            .children()
            .nth(j as usize)
            .ok_or_else(|| PyIndexError::new_err("child index out of range"))?;
        Ok(self.wrap(child))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyNode>().is_ok_and(|o| {
            let o = o.get();
            Arc::ptr_eq(&o.coll, &self.coll) && o.index == self.index
        })
    }

    fn __hash__(&self) -> u64 {
        (Arc::as_ptr(&self.coll) as usize as u64).wrapping_mul(31) ^ self.index as u64
    }

    fn __repr__(&self) -> String {
        let props: Vec<String> = self
            .node()
            .properties()
            .take(6)
            .map(|p| {
                let raw = String::from_utf8_lossy(p.raw());
                let raw: String = raw.chars().take(24).collect();
                format!("{}{}", p.id(), raw)
            })
            .collect();
        format!("<kifu.sgf.Node {}>", props.join(""))
    }
}
