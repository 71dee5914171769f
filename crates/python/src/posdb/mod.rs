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
    d.set_item("files_without_games", summary.files_without_games)?;
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

mod index;
use index::PyIndex;
