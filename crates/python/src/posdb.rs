//! `kifu.posdb`: the 9x9-experiments files (position, queue and scored files) as NumPy
//! columns, and a `kifu pos index` database: full-board lookups and pattern searches, answered
//! by kifu-posdb and kifu-search with the data `kifu pos lookup|search --json` prints.

use crate::errors::{io_error, raise, write_atomically, write_bytes, Place, PosdbError};
use crate::{in_pool, Source};
use kifu_go::{Board, BoardSize, Color, Point};
use kifu_posdb::{
    ExtraInfo, PositionId, PositionReader, PositionRecord, PositionWriter, ReadError,
    ScoredPosition, ScoredReader, ScoredWriter,
};
use kifu_search::scan::Page;
use kifu_search::{Counting, Database, Filters, Pattern, Placement, Query, Side};
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray3, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::path::PathBuf;

/// Registers the classes and functions of `kifu.posdb`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyIndex>()?;
    m.add_function(wrap_pyfunction!(posdb_read_positions, m)?)?;
    m.add_function(wrap_pyfunction!(posdb_read_scored, m)?)?;
    m.add_function(wrap_pyfunction!(posdb_write_positions, m)?)?;
    m.add_function(wrap_pyfunction!(posdb_write_scored, m)?)?;
    m.add_function(wrap_pyfunction!(posdb_build_index, m)?)?;
    m.add_function(wrap_pyfunction!(posdb_extract, m)?)?;
    Ok(())
}

fn read_error(file: Option<String>, e: &ReadError) -> PyErr {
    raise::<PosdbError>(
        Place {
            file,
            record: Some(e.record),
            offset: Some(e.offset),
            ..Place::default()
        },
        e.to_string(),
    )
}

fn posdb_error(file: Option<String>, e: impl std::fmt::Display) -> PyErr {
    raise::<PosdbError>(
        Place {
            file,
            ..Place::default()
        },
        e.to_string(),
    )
}

fn color_code(c: Color) -> u8 {
    match c {
        Color::Black => 1,
        Color::White => 2,
    }
}

fn code_color(c: u8) -> PyResult<Color> {
    match c {
        1 | b'B' | b'b' => Ok(Color::Black),
        2 | b'W' | b'w' => Ok(Color::White),
        _ => Err(PyValueError::new_err(format!(
            "to_play value {c}: 1 (black) or 2 (white)"
        ))),
    }
}

fn board_values(b: &Board, out: &mut Vec<u8>) {
    out.extend(b.to_rows().iter().map(|&c| match c {
        b'#' => 1,
        b'O' => 2,
        _ => 0,
    }));
}

/// Reads a position file (or a queue file: same format) of `size` x `size` boards.
///
/// Returns a dict of NumPy columns (n records): `hash` uint64, `tiebreak` uint8, `to_play` uint8
/// (1 black, 2 white), `boards` uint8[n, size, size] (0 empty, 1 black, 2 white; as played),
/// `has_extra` bool, `file_id` uint32, `variation` uint16, `move` uint16 (0 without extra info),
/// and `torn_offset` (int, or `None`). A bad record raises `kifu.PosdbError` (with `record` and
/// `offset`); a torn last record too, unless `allow_torn=True`, which keeps the whole records
/// before it and sets `torn_offset` (where to truncate).
#[pyfunction(name = "posdb_read_positions")]
#[pyo3(signature = (source, size = 9, *, allow_torn = false))]
fn posdb_read_positions<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    size: u32,
    allow_torn: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let bs =
        BoardSize::new(size).map_err(|e| PyValueError::new_err(format!("size={size}: {e}")))?;
    let src = Source::extract(source)?;
    let file = src.name();
    struct Cols {
        hash: Vec<u64>,
        tiebreak: Vec<u8>,
        to_play: Vec<u8>,
        boards: Vec<u8>,
        has_extra: Vec<bool>,
        file_id: Vec<u32>,
        variation: Vec<u16>,
        mv: Vec<u16>,
        torn: Option<u64>,
    }
    let read = py.detach(|| -> PyResult<Cols> {
        let bytes = src.read().map_err(|(p, e)| io_error(&p, &e))?;
        let mut c = Cols {
            hash: Vec::new(),
            tiebreak: Vec::new(),
            to_play: Vec::new(),
            boards: Vec::new(),
            has_extra: Vec::new(),
            file_id: Vec::new(),
            variation: Vec::new(),
            mv: Vec::new(),
            torn: None,
        };
        let mut reader = PositionReader::new(&bytes[..], bs);
        loop {
            match reader.read_record() {
                Ok(None) => break,
                Ok(Some(r)) => {
                    c.hash.push(r.id.hash);
                    c.tiebreak.push(r.id.tiebreak);
                    c.to_play.push(color_code(r.id.to_play));
                    board_values(&r.board, &mut c.boards);
                    let e = r.extra.unwrap_or(ExtraInfo {
                        file_id: 0,
                        variation: 0,
                        move_number: 0,
                    });
                    c.has_extra.push(r.extra.is_some());
                    c.file_id.push(e.file_id);
                    c.variation.push(e.variation);
                    c.mv.push(e.move_number);
                }
                Err(e) if e.is_torn() && allow_torn => {
                    c.torn = Some(e.offset);
                    break;
                }
                Err(e) => return Err(read_error(file.clone(), &e)),
            }
        }
        Ok(c)
    })?;
    let n = read.hash.len();
    let s = usize::from(bs.get());
    let d = PyDict::new(py);
    d.set_item("hash", PyArray1::from_vec(py, read.hash))?;
    d.set_item("tiebreak", PyArray1::from_vec(py, read.tiebreak))?;
    d.set_item("to_play", PyArray1::from_vec(py, read.to_play))?;
    d.set_item(
        "boards",
        PyArray1::from_vec(py, read.boards).reshape([n, s, s])?,
    )?;
    d.set_item("has_extra", PyArray1::from_vec(py, read.has_extra))?;
    d.set_item("file_id", PyArray1::from_vec(py, read.file_id))?;
    d.set_item("variation", PyArray1::from_vec(py, read.variation))?;
    d.set_item("move", PyArray1::from_vec(py, read.mv))?;
    d.set_item("torn_offset", read.torn)?;
    Ok(d)
}

/// Reads a scored file: a dict of NumPy columns `hash` uint64, `tiebreak` uint8, `to_play`
/// uint8 (1 black, 2 white), `score` uint8 (3..8), `confidence` uint8 (0..100), and
/// `torn_offset`; errors as `read_positions`.
#[pyfunction(name = "posdb_read_scored")]
#[pyo3(signature = (source, *, allow_torn = false))]
fn posdb_read_scored<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    allow_torn: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let src = Source::extract(source)?;
    let file = src.name();
    type Cols = (Vec<u64>, Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>, Option<u64>);
    let (hash, tiebreak, to_play, score, confidence, torn) = py.detach(|| -> PyResult<Cols> {
        let bytes = src.read().map_err(|(p, e)| io_error(&p, &e))?;
        let mut c: Cols = Default::default();
        let mut reader = ScoredReader::new(&bytes[..]);
        loop {
            match reader.read_record() {
                Ok(None) => break,
                Ok(Some(r)) => {
                    c.0.push(r.id.hash);
                    c.1.push(r.id.tiebreak);
                    c.2.push(color_code(r.id.to_play));
                    c.3.push(r.score);
                    c.4.push(r.confidence);
                }
                Err(e) if e.is_torn() && allow_torn => {
                    c.5 = Some(e.offset);
                    break;
                }
                Err(e) => return Err(read_error(file.clone(), &e)),
            }
        }
        Ok(c)
    })?;
    let d = PyDict::new(py);
    d.set_item("hash", PyArray1::from_vec(py, hash))?;
    d.set_item("tiebreak", PyArray1::from_vec(py, tiebreak))?;
    d.set_item("to_play", PyArray1::from_vec(py, to_play))?;
    d.set_item("score", PyArray1::from_vec(py, score))?;
    d.set_item("confidence", PyArray1::from_vec(py, confidence))?;
    d.set_item("torn_offset", torn)?;
    Ok(d)
}

fn check_len(name: &str, len: usize, n: usize) -> PyResult<()> {
    if len != n {
        return Err(PyValueError::new_err(format!(
            "{name}: {len} values for {n} records"
        )));
    }
    Ok(())
}

/// Writes a position file from columns (see `read_positions`); `extra` columns are written
/// where `has_extra` is true. Returns the bytes written (`path=None`: the file's bytes).
#[pyfunction(name = "posdb_write_positions")]
#[pyo3(signature = (path, hash, tiebreak, to_play, boards, has_extra = None, file_id = None,
    variation = None, r#move = None))]
#[allow(clippy::too_many_arguments)]
fn posdb_write_positions<'py>(
    py: Python<'py>,
    path: Option<PathBuf>,
    hash: PyReadonlyArray1<'py, u64>,
    tiebreak: PyReadonlyArray1<'py, u8>,
    to_play: PyReadonlyArray1<'py, u8>,
    boards: PyReadonlyArray3<'py, u8>,
    has_extra: Option<PyReadonlyArray1<'py, bool>>,
    file_id: Option<PyReadonlyArray1<'py, u32>>,
    variation: Option<PyReadonlyArray1<'py, u16>>,
    r#move: Option<PyReadonlyArray1<'py, u16>>,
) -> PyResult<Py<PyAny>> {
    let n = hash.len();
    check_len("tiebreak", tiebreak.len(), n)?;
    check_len("to_play", to_play.len(), n)?;
    let shape = boards.shape().to_vec();
    check_len("boards", shape[0], n)?;
    if shape[1] != shape[2] {
        return Err(PyValueError::new_err("boards must be square"));
    }
    let size = BoardSize::new(shape[1] as u32)
        .map_err(|e| PyValueError::new_err(format!("boards: {e}")))?;
    let pts = size.points();
    let hash = hash.as_slice()?;
    let tiebreak = tiebreak.as_slice()?;
    let to_play = to_play.as_slice()?;
    let cells = boards.as_slice()?;
    let extra_cols = match (&has_extra, &file_id, &variation, &r#move) {
        (Some(h), Some(f), Some(v), Some(m)) => {
            for (name, len) in [
                ("has_extra", h.len()),
                ("file_id", f.len()),
                ("variation", v.len()),
                ("move", m.len()),
            ] {
                check_len(name, len, n)?;
            }
            Some((h.as_slice()?, f.as_slice()?, v.as_slice()?, m.as_slice()?))
        }
        (None, None, None, None) => None,
        _ => {
            return Err(PyTypeError::new_err(
                "give all of has_extra, file_id, variation and move, or none",
            ))
        }
    };
    let mut w = PositionWriter::new(Vec::new());
    let mut rows = vec![0u8; pts];
    for i in 0..n {
        for (o, &c) in rows.iter_mut().zip(&cells[i * pts..(i + 1) * pts]) {
            *o = match c {
                0 => b'.',
                1 => b'#',
                2 => b'O',
                other => {
                    return Err(PyValueError::new_err(format!(
                        "boards[{i}]: value {other} (0 empty, 1 black, 2 white)"
                    )))
                }
            };
        }
        let board = Board::from_rows(&rows, Some(size))
            .map_err(|e| PyValueError::new_err(format!("boards[{i}]: {e}")))?;
        let extra = extra_cols.and_then(|(h, f, v, m)| {
            h[i].then_some(ExtraInfo {
                file_id: f[i],
                variation: v[i],
                move_number: m[i],
            })
        });
        let rec = PositionRecord {
            id: PositionId {
                hash: hash[i],
                tiebreak: tiebreak[i],
                to_play: code_color(to_play[i])?,
            },
            board,
            extra,
        };
        w.write(&rec).map_err(|e| posdb_error(None, e))?;
    }
    finish(py, path, w.into_inner())
}

fn finish(py: Python<'_>, path: Option<PathBuf>, bytes: Vec<u8>) -> PyResult<Py<PyAny>> {
    match path {
        Some(p) => {
            py.detach(|| write_bytes(&p, &bytes))?;
            Ok(bytes.len().into_pyobject(py)?.into_any().unbind())
        }
        None => Ok(pyo3::types::PyBytes::new(py, &bytes).into_any().unbind()),
    }
}

/// Writes a scored file from columns (see `read_scored`). Returns the bytes written
/// (`path=None`: the file's bytes).
#[pyfunction(name = "posdb_write_scored")]
#[pyo3(signature = (path, hash, tiebreak, to_play, score, confidence))]
fn posdb_write_scored<'py>(
    py: Python<'py>,
    path: Option<PathBuf>,
    hash: PyReadonlyArray1<'py, u64>,
    tiebreak: PyReadonlyArray1<'py, u8>,
    to_play: PyReadonlyArray1<'py, u8>,
    score: PyReadonlyArray1<'py, u8>,
    confidence: PyReadonlyArray1<'py, u8>,
) -> PyResult<Py<PyAny>> {
    let n = hash.len();
    for (name, len) in [
        ("tiebreak", tiebreak.len()),
        ("to_play", to_play.len()),
        ("score", score.len()),
        ("confidence", confidence.len()),
    ] {
        check_len(name, len, n)?;
    }
    let (h, t, p, s, c) = (
        hash.as_slice()?,
        tiebreak.as_slice()?,
        to_play.as_slice()?,
        score.as_slice()?,
        confidence.as_slice()?,
    );
    let mut w = ScoredWriter::new(Vec::new());
    for i in 0..n {
        if !(3..=8).contains(&s[i]) || c[i] > 100 {
            return Err(PyValueError::new_err(format!(
                "record {i}: score {} (3..8) or confidence {} (0..100) out of range",
                s[i], c[i]
            )));
        }
        let rec = ScoredPosition {
            id: PositionId {
                hash: h[i],
                tiebreak: t[i],
                to_play: code_color(p[i])?,
            },
            score: s[i],
            confidence: c[i],
        };
        w.write(&rec).map_err(|e| posdb_error(None, e))?;
    }
    finish(py, path, w.into_inner())
}

/// Paths of game files: files as given, folders walked for `.sgf` and `.go` files.
fn game_sources(paths: Vec<PathBuf>) -> PyResult<Vec<kifu_posdb::extract::Source>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let found = kifu_fs::walk::walk(&p, &["sgf", "go"])
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            out.extend(
                found
                    .files
                    .into_iter()
                    .map(kifu_posdb::extract::Source::new),
            );
        } else {
            out.push(kifu_posdb::extract::Source::new(p));
        }
    }
    Ok(out)
}

fn paths_arg(obj: &Bound<'_, PyAny>) -> PyResult<Vec<PathBuf>> {
    if obj.is_instance_of::<PyString>() || obj.hasattr("__fspath__")? {
        return Ok(vec![obj.extract()?]);
    }
    obj.try_iter()?.map(|p| p?.extract()).collect()
}

/// Builds a `kifu pos index` database (what `kifu pos index GAMES -o DB` does) from game files
/// and folders of `size` x `size` games (others are skipped and counted); every variation with
/// `variations=True`. Full-board entries are kept for positions of at most `entry_stones`
/// stones (default 12, as `kifu pos index --entry-stones`; `"all"`: every position, as an index
/// of every variation always does); `Index.lookup` answers the others from the pattern index.
/// Returns the counts (files, games, positions, entries, errors, ...).
#[pyfunction(name = "posdb_build_index")]
#[pyo3(signature = (sources, output, *, size = 19, variations = false, entry_stones = None,
                    threads = None))]
fn posdb_build_index<'py>(
    py: Python<'py>,
    sources: &Bound<'py, PyAny>,
    output: PathBuf,
    size: u32,
    variations: bool,
    entry_stones: Option<&Bound<'py, PyAny>>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let bs =
        BoardSize::new(size).map_err(|e| PyValueError::new_err(format!("size={size}: {e}")))?;
    let sources = game_sources(paths_arg(sources)?)?;
    let mut opts = kifu_posdb::index::IndexOptions::new(bs);
    opts.variations = variations;
    let asked = match entry_stones {
        None => None,
        Some(e) if e.extract::<String>().is_ok_and(|s| s == "all") => Some(None),
        Some(e) => Some(Some(e.extract::<u16>().map_err(|_| {
            PyValueError::new_err(format!("entry_stones={e}: a number of stones or \"all\""))
        })?)),
    };
    opts.most_stones = kifu_posdb::index::most_stones_for(variations, asked)
        .map_err(|e| PyValueError::new_err(format!("entry_stones with variations=True: {e}")))?;
    opts.temp_dir = output
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map(PathBuf::from);
    let name = output.display().to_string();
    let summary = py.detach(|| -> PyResult<kifu_posdb::index::IndexSummary> {
        // Streamed into the output as the CLI writes it (not held whole in memory); a failed
        // build is not committed, so the output is left as it was.
        write_atomically(&output, |w| {
            in_pool(threads, || {
                kifu_posdb::index::build_index(&sources, &opts, w, &|| {})
            })?
            .map_err(|e| posdb_error(Some(name.clone()), e))
        })
    })?;
    let d = PyDict::new(py);
    d.set_item("files", summary.files)?;
    d.set_item("files_failed", summary.files_failed)?;
    d.set_item("games", summary.games)?;
    d.set_item("games_other_size", summary.games_other_size)?;
    d.set_item("games_failed", summary.games_failed)?;
    d.set_item("positions", summary.positions)?;
    d.set_item("entries", summary.entries)?;
    d.set_item("summaries", summary.summaries)?;
    d.set_item("errors", summary.errors)?;
    Ok(d)
}

/// Extracts the distinct positions of game files (what `kifu pos extract` does): a position
/// file's bytes of `size` x `size` positions after moves `move_from..=move_to`, first
/// occurrences in input order; with `extra=True` each record carries its source (file ids
/// 1, 2, ... in input order), variation and move. Written to `output` if given (returns the
/// bytes written), else returned as bytes.
#[pyfunction(name = "posdb_extract")]
#[pyo3(signature = (sources, output = None, *, size = 9, variations = false, move_from = 0,
    move_to = u32::MAX, extra = false, threads = None))]
#[allow(clippy::too_many_arguments)]
fn posdb_extract(
    py: Python<'_>,
    sources: &Bound<'_, PyAny>,
    output: Option<PathBuf>,
    size: u32,
    variations: bool,
    move_from: u32,
    move_to: u32,
    extra: bool,
    threads: Option<usize>,
) -> PyResult<Py<PyAny>> {
    let bs =
        BoardSize::new(size).map_err(|e| PyValueError::new_err(format!("size={size}: {e}")))?;
    let sources = game_sources(paths_arg(sources)?)?;
    let mut opts = kifu_posdb::extract::ExtractOptions::new(bs);
    opts.scope = if variations {
        kifu_go::replay::Scope::AllVariations
    } else {
        kifu_go::replay::Scope::MainLineOnly
    };
    opts.from = move_from;
    opts.to = move_to;
    if extra {
        opts.file_ids = Some((1..=sources.len() as u32).collect());
    }
    let bytes = py.detach(|| -> PyResult<Vec<u8>> {
        let mut out = std::io::Cursor::new(Vec::new());
        in_pool(threads, || {
            kifu_posdb::extract::extract(&sources, &opts, &mut out, &|| {})
        })?
        .map_err(|e| posdb_error(None, e))?;
        Ok(out.into_inner())
    })?;
    match output {
        None => Ok(pyo3::types::PyBytes::new(py, &bytes).into_any().unbind()),
        Some(p) => {
            py.detach(|| write_bytes(&p, &bytes))?;
            Ok(bytes.len().into_pyobject(py)?.into_any().unbind())
        }
    }
}

/// A `kifu pos index` database, opened once for many lookups and searches.
#[pyclass(module = "kifu.posdb", name = "Index", frozen)]
pub struct PyIndex {
    db: Database,
    path: String,
}

/// A kifu-search type given from Python as a dict (through `json.dumps`) or as JSON text;
/// `what` names the argument in the error.
fn json_arg<T: serde::de::DeserializeOwned>(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<T> {
    let text: String = if obj.is_instance_of::<PyString>() {
        obj.extract()?
    } else {
        obj.py()
            .import("json")?
            .call_method1("dumps", (obj,))?
            .extract()?
    };
    serde_json::from_str(&text).map_err(|e| PyValueError::new_err(format!("{what}: {e}")))
}

fn json_to_py<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}

/// A board from rows (`"#O./..."`, line breaks or `/` between rows) or a 2-D array of 0/1/2.
fn board_of(obj: &Bound<'_, PyAny>) -> PyResult<Board> {
    let rows: Vec<u8> = if obj.is_instance_of::<PyString>() {
        obj.extract::<String>()?
            .bytes()
            .filter(|&b| b != b'/')
            .collect()
    } else {
        let np = obj.py().import("numpy")?;
        let arr = np.call_method1("asarray", (obj, "uint8"))?;
        let shape: Vec<usize> = arr.getattr("shape")?.extract()?;
        if shape.len() != 2 || shape[0] != shape[1] {
            return Err(PyValueError::new_err("board: a square 2-D array"));
        }
        let flat: Vec<u8> = arr
            .call_method0("ravel")?
            .call_method0("tolist")?
            .extract()?;
        flat.iter()
            .enumerate()
            .flat_map(|(i, &v)| {
                let c = match v {
                    1 => b'#',
                    2 => b'O',
                    _ => b'.',
                };
                if i > 0 && i % shape[0] == 0 {
                    vec![b'\n', c]
                } else {
                    vec![c]
                }
            })
            .collect()
    };
    Board::from_rows(&rows, None).map_err(|e| PyValueError::new_err(format!("board: {e}")))
}

fn color_arg(s: &str) -> PyResult<Color> {
    match s {
        "B" | "b" => Ok(Color::Black),
        "W" | "w" => Ok(Color::White),
        other => Err(PyValueError::new_err(format!("{other:?}: \"B\" or \"W\""))),
    }
}

#[pymethods]
impl PyIndex {
    /// Opens the database at `path` (a `kifu pos index` output). `cache_mb`: the memory for
    /// searching beyond each game's information and bitmaps, in MiB (1 to 1,048,576; 512 by
    /// default): the games' moves read from the pattern index (the rest stays on disk) and
    /// tables that rule games out faster (up to three quarters of it).
    #[new]
    #[pyo3(signature = (path, *, cache_mb = None))]
    fn new(py: Python<'_>, path: PathBuf, cache_mb: Option<u64>) -> PyResult<PyIndex> {
        let cache = match cache_mb {
            None => None,
            Some(mb @ 1..=1_048_576) => Some(usize::try_from(mb << 20).unwrap_or(usize::MAX)),
            Some(mb) => {
                return Err(PyValueError::new_err(format!(
                    "cache_mb={mb}: from 1 to 1048576"
                )))
            }
        };
        let name = path.display().to_string();
        let db = py
            .detach(|| Database::open(&path))
            .map_err(|e| posdb_error(Some(name.clone()), e))?;
        if let Some(bytes) = cache {
            db.patterns().set_cache_limit(bytes);
        }
        Ok(PyIndex { db, path: name })
    }

    /// The path it was opened from.
    #[getter]
    fn path(&self) -> &str {
        &self.path
    }

    /// The board size of the database.
    #[getter]
    fn size(&self) -> u8 {
        self.db.size().get()
    }

    /// The number of games.
    #[getter]
    fn games(&self) -> u64 {
        self.db.games()
    }

    /// The number of positions indexed.
    #[getter]
    fn positions(&self) -> u64 {
        self.db.reader().positions()
    }

    /// The number of full-board entries kept: the positions of at most `entry_stones` stones
    /// (every position when that is None); the pattern index answers lookups of the others.
    #[getter]
    fn entries(&self) -> u64 {
        self.db.reader().entries()
    }

    /// The most stones of a position whose full-board entries are kept (None: every position).
    #[getter]
    fn entry_stones(&self) -> Option<u16> {
        self.db.reader().most_stones()
    }

    /// Whether the index holds every variation (not only main lines).
    #[getter]
    fn variations(&self) -> bool {
        self.db.reader().variations()
    }

    /// A whole-board lookup: the games that reached `board` (rows or a 2-D array of 0/1/2)
    /// with `to_play` ("B" or "W") to move, in any symmetry (and with colours swapped if
    /// asked), and the continuations with win rates: the data `kifu pos lookup --json` prints
    /// (without `scores`).
    #[pyo3(signature = (board, to_play = "B", *, swap_colors = false, limit = 20))]
    fn lookup<'py>(
        &self,
        py: Python<'py>,
        board: &Bound<'py, PyAny>,
        to_play: &str,
        swap_colors: bool,
        limit: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let board = board_of(board)?;
        let to_play = color_arg(to_play)?;
        let db = &self.db;
        let name = self.path.clone();
        let v = py.detach(|| -> PyResult<serde_json::Value> {
            // The CLI's answer (`kifu pos lookup --json`), without the scores it may add.
            let answer = db
                .lookup(&board, to_play, swap_colors, limit)
                .map_err(|e| posdb_error(Some(name.clone()), e))?;
            let mut v = serde_json::to_value(&answer)
                .map_err(|e| PyValueError::new_err(format!("{name}: {e}")))?;
            if let Some(o) = v.as_object_mut() {
                o.remove("scores");
            }
            Ok(v)
        })?;
        json_to_py(py, &v.to_string())
    }

    /// Game `id`'s information: file, game_in_file (from 1), moves, black, white, date, result.
    fn game<'py>(&self, py: Python<'py>, id: u32) -> PyResult<Bound<'py, PyDict>> {
        let g = self
            .db
            .reader()
            .game(id)
            .map_err(|e| posdb_error(Some(self.path.clone()), e))?;
        let d = PyDict::new(py);
        d.set_item("id", g.id)?;
        d.set_item("file", g.file)?;
        d.set_item("game_in_file", g.game_in_file + 1)?;
        d.set_item("moves", g.moves)?;
        d.set_item("black", g.black)?;
        d.set_item("white", g.white)?;
        d.set_item("date", g.date)?;
        d.set_item("result", g.result)?;
        Ok(d)
    }

    /// Game `id` alone as SGF text, read again from its file.
    fn game_sgf(&self, py: Python<'_>, id: u64) -> PyResult<String> {
        py.detach(|| self.db.game_sgf(id))
            .map(|(_, text)| text)
            .map_err(|e| posdb_error(Some(self.path.clone()), e))
    }

    /// Groups of duplicate games (the same game in any orientation), each a list of game ids;
    /// the first of each group is the one searches with `no_duplicates=True` keep.
    fn duplicates(&self, py: Python<'_>) -> Vec<Vec<u64>> {
        py.detach(|| self.db.duplicates().groups.clone())
    }

    /// A pattern search: the same answer as `kifu pos search --json`, as Python objects (a
    /// dict with the games, hits, continuations with win rates, tenuki, passes, hits by year),
    /// plus `failures` (files that could not be read).
    ///
    /// `pattern`: rows (`#`/`X` black, `O` white, `.` empty, `*`/`?` anything, `x` empty or
    /// black, `o` empty or white; rows end with a line break or `/`). Placement: `at` a point
    /// such as `"D16"` (the pattern's top-left cell), `corner=True` (top-left corner), `edge`
    /// (`"top"`, `"bottom"`, `"left"`, `"right"`), else anywhere. `filters`: a dict of
    /// kifu-search's `Filters` (`player`, `black`, `white`, `date_from`, `date_to`, `event`,
    /// `winner`, `result`, `handicap_min`, `handicap_max`, `komi_min`, `komi_max`, `text`).
    #[pyo3(signature = (pattern, *, at = None, corner = false, edge = None, symmetries = true,
        swap_colors = false, to_play = None, moves = None, variations = false,
        counting = "positions", filters = None, limit = 20, offset = 0, no_duplicates = false,
        threads = None))]
    #[allow(clippy::too_many_arguments)]
    fn search<'py>(
        &self,
        py: Python<'py>,
        pattern: &str,
        at: Option<&str>,
        corner: bool,
        edge: Option<&str>,
        symmetries: bool,
        swap_colors: bool,
        to_play: Option<&str>,
        moves: Option<(u32, u32)>,
        variations: bool,
        counting: &str,
        filters: Option<&Bound<'py, PyAny>>,
        limit: u64,
        offset: u64,
        no_duplicates: bool,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let size = self.db.size();
        let pattern =
            Pattern::parse(pattern).map_err(|e| PyValueError::new_err(format!("pattern: {e}")))?;
        let placement = if let Some(at) = at {
            let p = Point::from_human(at, size).map_err(|_| {
                PyValueError::new_err(format!("at={at:?}: not a point of a {size} board"))
            })?;
            Placement::At {
                col: u32::from(p.col()),
                row: u32::from(p.row()),
            }
        } else if corner {
            Placement::At { col: 0, row: 0 }
        } else if let Some(e) = edge {
            Placement::Edge {
                side: match e.to_ascii_lowercase().as_str() {
                    "top" => Side::Top,
                    "bottom" => Side::Bottom,
                    "left" => Side::Left,
                    "right" => Side::Right,
                    _ => {
                        return Err(PyValueError::new_err(format!(
                            "edge={e:?}: top, bottom, left or right"
                        )))
                    }
                },
            }
        } else {
            Placement::Anywhere
        };
        let mut q = Query::new(pattern, placement);
        q.symmetries = symmetries;
        q.swap_colors = swap_colors;
        q.to_play = to_play.map(color_arg).transpose()?;
        q.moves = moves;
        q.variations = variations;
        q.counting = match counting {
            "positions" => Counting::Positions,
            "placements" => Counting::Placements,
            other => {
                return Err(PyValueError::new_err(format!(
                    "counting={other:?}: \"positions\" or \"placements\""
                )))
            }
        };
        if let Some(f) = filters {
            q.filters = json_arg(f, "filters")?;
        }
        self.run(py, q, limit, offset, no_duplicates, threads)
    }

    /// The games whose information passes `filters` (a dict of kifu-search's `Filters`:
    /// `player`, `black`, `white`, `date_from`, `date_to`, `event`, `winner`, `result`,
    /// `handicap_min`/`max`, `komi_min`/`max`, `text`): what `kifu pos search DB --player ...`
    /// with no pattern prints with `--json` (`games`, `results`, `by_year`, a page of
    /// `matches`).
    #[pyo3(signature = (filters, *, limit = 20, offset = 0, no_duplicates = false, threads = None))]
    fn find_games<'py>(
        &self,
        py: Python<'py>,
        filters: &Bound<'py, PyAny>,
        limit: u64,
        offset: u64,
        no_duplicates: bool,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let filters: Filters = json_arg(filters, "filters")?;
        let page = Page { offset, limit };
        let answer = py.detach(|| {
            in_pool(threads, || {
                self.db.filter_games(&filters, page, no_duplicates)
            })
        })?;
        let text =
            serde_json::to_string(&answer).map_err(|e| PyValueError::new_err(e.to_string()))?;
        json_to_py(py, &text)
    }

    /// A search given as kifu-search's `Query` (a dict, or its JSON text: the lines of
    /// `kifu pos search --batch`), e.g. `{"pattern": "..O/.#.", "placement": {"kind": "at",
    /// "col": 0, "row": 0}, "swap_colors": true}`.
    #[pyo3(signature = (query, *, limit = 20, offset = 0, no_duplicates = false, threads = None))]
    fn search_query<'py>(
        &self,
        py: Python<'py>,
        query: &Bound<'py, PyAny>,
        limit: u64,
        offset: u64,
        no_duplicates: bool,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let q: Query = json_arg(query, "query")?;
        self.run(py, q, limit, offset, no_duplicates, threads)
    }

    fn __repr__(&self) -> String {
        format!(
            "<kifu.posdb.Index {}, {} games of {}>",
            self.path,
            self.db.games(),
            self.db.size()
        )
    }
}

impl PyIndex {
    fn run<'py>(
        &self,
        py: Python<'py>,
        q: Query,
        limit: u64,
        offset: u64,
        no_duplicates: bool,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        q.validate()
            .map_err(|e| PyValueError::new_err(format!("query: {e}")))?;
        let n = u32::from(self.db.size().get());
        if q.pattern.width() > n || q.pattern.height() > n {
            return Err(PyValueError::new_err(format!(
                "the pattern is {}x{}, larger than the database's board",
                q.pattern.width(),
                q.pattern.height()
            )));
        }
        if let Placement::At { col, row } = q.placement {
            if col + q.pattern.width() > n || row + q.pattern.height() > n {
                return Err(PyValueError::new_err(
                    "the pattern placed there leaves the board",
                ));
            }
        }
        let page = Page { offset, limit };
        let found = py.detach(|| in_pool(threads, || self.db.search(&q, page, no_duplicates)))?;
        let text = serde_json::to_string(&found.answer)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let answer = json_to_py(py, &text)?;
        let failures: Vec<(String, String)> = found
            .failures
            .iter()
            .map(|f| (f.path.display().to_string(), f.message.clone()))
            .collect();
        if let Ok(d) = answer.cast::<PyDict>() {
            let list = pyo3::types::PyList::empty(py);
            for (file, message) in failures {
                let e = PyDict::new(py);
                e.set_item("file", file)?;
                e.set_item("message", message)?;
                list.append(e)?;
            }
            d.set_item("failures", list)?;
        }
        Ok(answer)
    }
}
