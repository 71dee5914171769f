//! `kifu.go`: replay SGF games into NumPy arrays (kifu-go's streaming replay underneath).
//!
//! Files are replayed in parallel (rayon, `threads=`), without the GIL; each file's rows are
//! collected in order and the files are joined in input order, so the arrays do not depend on
//! the number of threads. Feature planes are computed in the same pass.

use crate::errors::{raise, Place, ReplayError as PyReplayError};
use crate::{in_pool, Source};
use joined::{feature_planes, join, replay_in_place};
use kifu_go::replay::{
    replay_text, InfoProperty, ReplayError, ReplayOptions, ReplaySink, RootInfo, Scope, Step,
};
use kifu_go::{BoardSize, Color, Move, Symmetry};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString};
use rayon::prelude::*;
use sink::{plane_count, planes, populate, replay_chunk, BoardOut, ChunkOut, Cols, Scratch};
use std::collections::HashSet;

/// `moves` value of a pass.
pub const PASS: i16 = -1;
/// `moves` value of a resignation (the last position of a main line whose `RE` says `+R`).
pub const RESIGN: i16 = -2;
/// `moves` value where no move follows (the end of a line).
pub const NO_MOVE: i16 = -3;

/// Registers the functions and constants of `kifu.go`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(go_positions, m)?)?;
    m.add("GO_PASS", PASS)?;
    m.add("GO_RESIGN", RESIGN)?;
    m.add("GO_NO_MOVE", NO_MOVE)?;
    Ok(())
}

/// An input: its name for messages and where its bytes come from.
struct Input {
    name: String,
    source: Source,
}

/// Reads `sources`: one bytes/path, or an iterable of them; folders are walked for `.sgf` files.
fn inputs(sources: &Bound<'_, PyAny>) -> PyResult<(Vec<Input>, Vec<Failure>)> {
    let single = sources.is_instance_of::<PyBytes>()
        || sources.is_instance_of::<PyByteArray>()
        || sources.is_instance_of::<PyString>()
        || sources.hasattr("__fspath__")?;
    let items: Vec<Bound<'_, PyAny>> = if single {
        vec![sources.clone()]
    } else {
        sources
            .try_iter()
            .map_err(|_| {
                PyTypeError::new_err("sources: bytes, a path, or an iterable of bytes and paths")
            })?
            .collect::<PyResult<_>>()?
    };
    let mut out = Vec::new();
    let mut failures = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match Source::extract(item)? {
            Source::Bytes(b) => out.push(Input {
                name: format!("<bytes {i}>"),
                source: Source::Bytes(b),
            }),
            Source::Path(p) if p.is_dir() => {
                let found = kifu_fs::walk::walk(&p, &["sgf"])
                    .map_err(|e| PyValueError::new_err(e.to_string()))?;
                for s in found.skipped {
                    failures.push(Failure {
                        file: s.path.display().to_string(),
                        game: None,
                        line: None,
                        column: None,
                        message: format!("skipped: {}", s.why),
                    });
                }
                out.extend(found.files.into_iter().map(|f| Input {
                    name: f.display().to_string(),
                    source: Source::Path(f),
                }));
            }
            Source::Path(p) => out.push(Input {
                name: p.display().to_string(),
                source: Source::Path(p),
            }),
        }
    }
    Ok((out, failures))
}

/// A game or file that gave no positions, for the `errors` list.
#[derive(Debug, Clone)]
struct Failure {
    file: String,
    game: Option<usize>,
    line: Option<u32>,
    column: Option<u32>,
    message: String,
}

/// What the caller asked for.
#[derive(Debug, Clone)]
struct Options {
    scope: Scope,
    window: Option<(u32, u32)>,
    /// Symmetries to apply, each giving one row per position.
    transforms: Vec<Symmetry>,
    /// Feature planes: `Some(k)` with the last `k` moves.
    features: Option<usize>,
}

fn parse_symmetry(v: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<Symmetry>> {
    let Some(v) = v else {
        return Ok(vec![Symmetry::Identity]);
    };
    if v.is_none() {
        return Ok(vec![Symmetry::Identity]);
    }
    if let Ok(s) = v.extract::<String>() {
        if s == "all" {
            return Ok(Symmetry::ALL.to_vec());
        }
        return Err(PyValueError::new_err(format!(
            "symmetry={s:?}: an int 0..7 or \"all\""
        )));
    }
    let i: i64 = v.extract()?;
    usize::try_from(i)
        .ok()
        .and_then(Symmetry::from_index)
        .map(|s| vec![s])
        .ok_or_else(|| PyValueError::new_err(format!("symmetry={i}: an int 0..7 or \"all\"")))
}

fn array<'py, T: numpy::Element>(py: Python<'py>, v: Vec<T>) -> Bound<'py, PyAny> {
    PyArray1::from_vec(py, v).into_any()
}

/// Replays games into NumPy arrays: one row per position (the board after each node).
///
/// `sources`: bytes, a path, a folder (walked for `.sgf` files), or an iterable of them.
/// Returns a dict of arrays (n rows): `boards` uint8[n, size, size] (row 0 = top row;
/// 0 empty, 1 black, 2 white), `to_play` uint8[n] (1 black, 2 white), `moves` int16[n, 2]
/// (the move played from the position, `(row, col)` from the top-left as in `boards`; `PASS`
/// -1, `RESIGN` -2, `NO_MOVE` -3 in both columns), `move_number` int32[n], `game` int32[n]
/// (games numbered across all inputs, in order), `file` int32[n] (index into `files`),
/// `variation` int32[n], `hash` uint64[n] (the canonical Zobrist hash, the lowest of the 8
/// symmetric hashes, as kifu-posdb keys positions), `symmetry` uint8[n] (the symmetry giving
/// it, of the board as played), `transform` uint8[n] (the symmetry applied to this row),
/// `result` int8[n] (the game's winner: 1 black, 2 white, 0 unknown), and with `features`,
/// `features` uint8[n, 8 + last_moves, size, size]. Also `files` (list of names), `size`,
/// `planes` (plane names) and `errors` (list of dicts: file, game, line, column, message).
#[pyfunction(name = "go_positions")]
#[pyo3(signature = (sources, *, variations = false, move_window = None, dedup = false,
    threads = None, size = None, features = false, last_moves = 8, symmetry = None,
    strict = false))]
#[allow(clippy::too_many_arguments)]
fn go_positions<'py>(
    py: Python<'py>,
    sources: &Bound<'py, PyAny>,
    variations: bool,
    move_window: Option<(u32, u32)>,
    dedup: bool,
    threads: Option<usize>,
    size: Option<u32>,
    features: bool,
    last_moves: usize,
    symmetry: Option<&Bound<'py, PyAny>>,
    strict: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let (inputs, walk_failures) = inputs(sources)?;
    let want_size = match size {
        None => None,
        Some(s) => Some(
            BoardSize::new(s)
                .map_err(|e| PyValueError::new_err(format!("size={s}: {e}")))?
                .get(),
        ),
    };
    if let Some((a, b)) = move_window {
        if a > b {
            return Err(PyValueError::new_err(format!(
                "move_window=({a}, {b}): the first must not exceed the second"
            )));
        }
    }
    if last_moves > 64 {
        return Err(PyValueError::new_err("last_moves: at most 64"));
    }
    let opts = Options {
        scope: if variations {
            Scope::AllVariations
        } else {
            Scope::MainLineOnly
        },
        window: move_window,
        transforms: parse_symmetry(symmetry)?,
        features: features.then_some(last_moves),
    };
    let planes_per_row = plane_count(last_moves);
    let last_moves = if features { last_moves } else { 0 };
    let joined = py.detach(|| {
        in_pool(threads, || {
            // Runs of consecutive files, a few per worker for balance; one worker: one run, so
            // the rows are made where the arrays will be.
            let workers = rayon::current_num_threads();
            let per = if workers <= 1 {
                inputs.len().max(1)
            } else {
                inputs.len().div_ceil(workers * 8).max(1)
            };
            let runs: Vec<(usize, &[Input])> = inputs
                .chunks(per)
                .enumerate()
                .map(|(i, c)| (i * per, c))
                .collect();
            let mut joined = if workers <= 1 || dedup {
                let chunks: Vec<ChunkOut> = runs
                    .par_iter()
                    .map(|&(first, c)| replay_chunk(c, first, &opts, want_size, BoardOut::Grow))
                    .collect();
                join(&inputs, chunks, walk_failures, want_size, dedup, last_moves)
            } else {
                replay_in_place(&inputs, &runs, &opts, want_size, walk_failures, last_moves)
            };
            if features {
                joined.planes = feature_planes(&joined, last_moves);
            }
            joined
        })
    })?;
    if strict {
        if let Some(f) = joined.failures.first() {
            let place = Place {
                file: Some(f.file.clone()),
                line: f.line,
                column: f.column,
                game: f.game,
                ..Place::default()
            };
            return Err(raise::<PyReplayError>(place, f.message.clone()));
        }
    }
    let n = joined.size;
    let count = joined.cols.len();
    let d = PyDict::new(py);
    let c = joined.cols;
    d.set_item(
        "boards",
        PyArray1::from_vec(py, c.boards).reshape([count, n, n])?,
    )?;
    d.set_item("to_play", array(py, c.to_play))?;
    d.set_item(
        "moves",
        PyArray1::from_vec(py, c.moves).reshape([count, 2])?,
    )?;
    d.set_item("move_number", array(py, c.move_number))?;
    d.set_item("game", array(py, c.game))?;
    d.set_item("file", array(py, c.file))?;
    d.set_item("variation", array(py, c.variation))?;
    d.set_item("hash", array(py, c.hash))?;
    d.set_item("symmetry", array(py, c.symmetry))?;
    d.set_item("transform", array(py, c.transform))?;
    d.set_item("result", array(py, c.result))?;
    if features {
        d.set_item(
            "features",
            PyArray1::from_vec(py, joined.planes).reshape([count, planes_per_row, n, n])?,
        )?;
        let mut names = vec![
            "own".to_owned(),
            "opponent".to_owned(),
            "empty".to_owned(),
            "liberties_1".to_owned(),
            "liberties_2".to_owned(),
            "liberties_3_plus".to_owned(),
            "ko".to_owned(),
        ];
        names.extend((1..=last_moves).map(|i| format!("last_move_{i}")));
        names.push("black_to_play".to_owned());
        d.set_item("planes", names)?;
    }
    d.set_item("files", joined.files)?;
    d.set_item("size", n)?;
    let errors = PyList::empty(py);
    for f in &joined.failures {
        let e = PyDict::new(py);
        e.set_item("file", &f.file)?;
        e.set_item("game", f.game)?;
        e.set_item("line", f.line)?;
        e.set_item("column", f.column)?;
        e.set_item("message", &f.message)?;
        errors.append(e)?;
    }
    d.set_item("errors", errors)?;
    Ok(d)
}

mod joined;
mod sink;
