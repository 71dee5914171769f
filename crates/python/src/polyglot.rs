//! `kifu.polyglot`: Polyglot chess opening books (kifu-polyglot underneath): lookups that
//! python-chess's users can drop in (`chess.Board` accepted, moves in standard UCI), making
//! books from PGN, merging.

use crate::errors::{io_error, raise, write_bytes, BookError, Place};
use crate::{in_pool, Source};
use kifu_polyglot::make::{self, Compat, MakeOptions};
use kifu_polyglot::shakmaty::uci::UciMove;
use kifu_polyglot::shakmaty::{CastlingMode, Chess, Move, Position};
use kifu_polyglot::{Bitboards, Book, Entry, MergeStrategy};
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyInt, PyString};
use rayon::prelude::*;
use std::path::PathBuf;

/// Registers the classes and functions of `kifu.polyglot`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyBook>()?;
    m.add_class::<PyEntry>()?;
    m.add_function(wrap_pyfunction!(polyglot_key, m)?)?;
    m.add_function(wrap_pyfunction!(polyglot_make_book, m)?)?;
    m.add_function(wrap_pyfunction!(polyglot_merge, m)?)?;
    Ok(())
}

fn book_error(file: Option<String>, e: impl std::fmt::Display) -> PyErr {
    raise::<BookError>(
        Place {
            file,
            ..Place::default()
        },
        e.to_string(),
    )
}

/// One book entry of a position.
#[pyclass(module = "kifu.polyglot", name = "Entry", frozen, get_all)]
#[derive(Debug, Clone)]
pub struct PyEntry {
    /// The position's Polyglot key.
    key: u64,
    /// The move in standard UCI (`e1g1` for castling: Polyglot's king-takes-rook `e1h1` is
    /// mapped), for `chess.Move.from_uci`. Looked up by key alone (no position), the raw form.
    r#move: String,
    /// The move as the book encodes it (castling as king takes rook), in UCI letters.
    raw_move: String,
    /// The weight.
    weight: u16,
    /// The learn field.
    learn: u32,
}

#[pymethods]
impl PyEntry {
    fn __repr__(&self) -> String {
        format!(
            "Entry(key=0x{:016x}, move={:?}, weight={}, learn={})",
            self.key, self.r#move, self.weight, self.learn
        )
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyEntry>().is_ok_and(|o| {
            let o = o.get();
            (o.key, &o.raw_move, o.weight, o.learn)
                == (self.key, &self.raw_move, self.weight, self.learn)
        })
    }
}

/// An entry as Python sees it; with the position's legal moves, `None` when the move is not
/// one of them.
/// The entry's move in standard UCI given its position's legal moves (`None` when it is not
/// one of them), or in the raw encoding for a key alone.
fn uci(e: &Entry, legal: Option<&[Move]>) -> Option<String> {
    Some(match legal {
        Some(l) => UciMove::from_move(e.raw_move.find_in(l)?, CastlingMode::Standard).to_string(),
        None => e.raw_move.to_raw_uci(),
    })
}

fn entry(e: &Entry, legal: Option<&[Move]>) -> Option<PyEntry> {
    Some(PyEntry {
        key: e.key,
        r#move: uci(e, legal)?,
        raw_move: e.raw_move.to_raw_uci(),
        weight: e.weight,
        learn: e.learn,
    })
}

/// What a lookup is given: a FEN, a python-chess board (its bitboards), anything else with
/// `.fen()`, or a key.
enum Query {
    Fen(String),
    Board(Bitboards),
    Key(u64),
}

fn query(obj: &Bound<'_, PyAny>) -> PyResult<Query> {
    if obj.is_instance_of::<PyString>() {
        return Ok(Query::Fen(obj.extract()?));
    }
    if obj.is_instance_of::<PyInt>() {
        return Ok(Query::Key(obj.extract()?));
    }
    if let Some(b) = board_bitboards(obj) {
        return Ok(Query::Board(b));
    }
    if obj.hasattr("fen")? {
        return Ok(Query::Fen(obj.call_method0("fen")?.extract()?));
    }
    Err(PyTypeError::new_err(
        "expected a FEN, a chess.Board (anything with .fen()) or a key (int)",
    ))
}

/// The bitboards of a python-chess `Board` of standard chess (not Chess960, not a variant),
/// read from the board's instance dictionary: several times cheaper than `board.fen()` and
/// parsing it, and cheaper than getting each attribute. `None` for anything else, which then
/// goes through `.fen()`.
fn board_bitboards<'py>(obj: &Bound<'py, PyAny>) -> Option<Bitboards> {
    let py = obj.py();
    let standard = obj
        .get_type()
        .getattr(intern!(py, "uci_variant"))
        .ok()?
        .eq(intern!(py, "chess"))
        .ok()?;
    if !standard {
        return None;
    }
    let vars = obj.getattr(intern!(py, "__dict__")).ok()?;
    let vars = vars.cast::<PyDict>().ok()?;
    let get = |name: &Bound<'py, PyString>| vars.get_item(name).ok().flatten();
    let bits = |name: &Bound<'py, PyString>| get(name)?.extract::<u64>().ok();
    if get(intern!(py, "chess960"))?.is_truthy().ok()? {
        return None;
    }
    let occupied = get(intern!(py, "occupied_co"))?;
    let ep = get(intern!(py, "ep_square"))?;
    Some(Bitboards {
        pawns: bits(intern!(py, "pawns"))?,
        knights: bits(intern!(py, "knights"))?,
        bishops: bits(intern!(py, "bishops"))?,
        rooks: bits(intern!(py, "rooks"))?,
        queens: bits(intern!(py, "queens"))?,
        kings: bits(intern!(py, "kings"))?,
        // `occupied_co[chess.WHITE]`, with `chess.WHITE == True == 1`.
        white: occupied.get_item(1).ok()?.extract().ok()?,
        black: occupied.get_item(0).ok()?.extract().ok()?,
        white_to_move: get(intern!(py, "turn"))?.extract().ok()?,
        castling_rooks: bits(intern!(py, "castling_rights"))?,
        ep_square: if ep.is_none() {
            None
        } else {
            Some(ep.extract().ok()?)
        },
        halfmoves: get(intern!(py, "halfmove_clock"))?.extract().ok()?,
        fullmoves: get(intern!(py, "fullmove_number"))?.extract().ok()?,
    })
}

/// The position and key of a FEN.
fn position(fen: &str) -> PyResult<(Chess, u64)> {
    let pos = kifu_polyglot::position_from_fen(fen)
        .map_err(|e| PyValueError::new_err(format!("{fen:?}: {e}")))?;
    let key = kifu_polyglot::key(&pos);
    Ok((pos, key))
}

/// The Polyglot key of a position: a FEN or a `chess.Board`; the same number as
/// `chess.polyglot.zobrist_hash`.
#[pyfunction(name = "polyglot_key")]
fn polyglot_key(board: &Bound<'_, PyAny>) -> PyResult<u64> {
    match query(board)? {
        Query::Key(k) => Ok(k),
        Query::Fen(f) => Ok(position(&f)?.1),
        Query::Board(b) => Ok(kifu_polyglot::key(&board_position(&b)?)),
    }
}

/// The position of a board's bitboards (`ValueError` when they describe none).
fn board_position(b: &Bitboards) -> PyResult<Chess> {
    kifu_polyglot::position_from_bitboards(b).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A Polyglot opening book, read from a file or bytes (held in memory; lookups by binary
/// search). Books that are unsorted or not a whole number of 16-byte records are refused
/// (`kifu.BookError`).
#[pyclass(module = "kifu.polyglot", name = "Book", frozen, sequence)]
pub struct PyBook {
    book: Book<Vec<u8>>,
    file: Option<String>,
    report: Option<Vec<(&'static str, u64)>>,
}

impl PyBook {
    fn from_bytes(bytes: Vec<u8>, file: Option<String>) -> PyResult<PyBook> {
        let book = Book::from_bytes(bytes).map_err(|e| book_error(file.clone(), e))?;
        Ok(PyBook {
            book,
            file,
            report: None,
        })
    }

    fn lookup(&self, q: &Query, minimum_weight: u16) -> PyResult<Vec<PyEntry>> {
        self.lookup_with(q, minimum_weight, entry)
    }

    /// A position's entries through `make` (given the position's legal moves; `None` for a
    /// key), in book order; entries it refuses are left out.
    fn lookup_with<T>(
        &self,
        q: &Query,
        minimum_weight: u16,
        make: impl Fn(&Entry, Option<&[Move]>) -> Option<T>,
    ) -> PyResult<Vec<T>> {
        let (pos, key) = match q {
            Query::Key(k) => (None, *k),
            Query::Fen(f) => {
                let (p, k) = position(f)?;
                (Some(p), k)
            }
            Query::Board(b) => {
                let p = board_position(b)?;
                let k = kifu_polyglot::key(&p);
                (Some(p), k)
            }
        };
        let mut found = self
            .book
            .lookup(key)
            .filter(|e| e.weight >= minimum_weight)
            .peekable();
        if found.peek().is_none() {
            return Ok(Vec::new());
        }
        // One move generation for all of the position's entries.
        let legal = pos.as_ref().map(|p| p.legal_moves());
        Ok(found.filter_map(|e| make(&e, legal.as_deref())).collect())
    }
}

/// One row of [`PyBook::find_all_arrays`]: key, raw move, UCI (NUL-padded), weight, learn.
type ArrayRow = (u64, u16, [u8; 5], u16, u32);

fn array_row(e: &Entry, legal: Option<&[Move]>) -> Option<ArrayRow> {
    let mut text = [0u8; 5];
    for (t, b) in text.iter_mut().zip(uci(e, legal)?.bytes()) {
        *t = b;
    }
    Some((e.key, e.raw_move.0, text, e.weight, e.learn))
}

#[pymethods]
impl PyBook {
    /// Opens a book: a path (`str` or `os.PathLike`) or the book's bytes.
    #[new]
    fn new(py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<PyBook> {
        let src = Source::extract(source)?;
        let file = src.name();
        let bytes = py
            .detach(move || src.read())
            .map_err(|(p, e)| io_error(&p, &e))?;
        PyBook::from_bytes(bytes, file)
    }

    /// The entries of a position (a FEN, a `chess.Board`, or a key), in book order, as
    /// python-chess's `find_all` gives them: entries below `minimum_weight` are left out, and
    /// so are moves not legal in the position (given as a key, no legality test is possible,
    /// and moves are the raw encoding).
    #[pyo3(signature = (board, *, minimum_weight = 1))]
    fn find_all(&self, board: &Bound<'_, PyAny>, minimum_weight: u16) -> PyResult<Vec<PyEntry>> {
        self.lookup(&query(board)?, minimum_weight)
    }

    /// The main entry of a position: the first with the highest weight. Raises `IndexError` when
    /// there is none (as python-chess's `find`).
    #[pyo3(signature = (board, *, minimum_weight = 1))]
    fn find(&self, board: &Bound<'_, PyAny>, minimum_weight: u16) -> PyResult<PyEntry> {
        let found = self.lookup(&query(board)?, minimum_weight)?;
        let mut best: Option<PyEntry> = None;
        for e in found {
            if best.as_ref().is_none_or(|b| e.weight > b.weight) {
                best = Some(e);
            }
        }
        best.ok_or_else(|| PyIndexError::new_err("no entry for the position"))
    }

    /// `find`, or `default` when there is no entry.
    #[pyo3(signature = (board, default = None, *, minimum_weight = 1))]
    fn get(
        &self,
        py: Python<'_>,
        board: &Bound<'_, PyAny>,
        default: Option<Py<PyAny>>,
        minimum_weight: u16,
    ) -> PyResult<Py<PyAny>> {
        match self.find(board, minimum_weight) {
            Ok(e) => Ok(Py::new(py, e)?.into_any()),
            Err(e) if e.is_instance_of::<PyIndexError>(py) => Ok(default.unwrap_or(py.None())),
            Err(e) => Err(e),
        }
    }

    /// Many lookups at once (FENs, boards or keys), without the GIL and in parallel: a list of
    /// entry lists, in order.
    #[pyo3(signature = (boards, *, minimum_weight = 1, threads = None))]
    fn find_all_many(
        &self,
        py: Python<'_>,
        boards: &Bound<'_, PyAny>,
        minimum_weight: u16,
        threads: Option<usize>,
    ) -> PyResult<Vec<Vec<PyEntry>>> {
        let qs: Vec<Query> = boards
            .try_iter()?
            .map(|b| query(&b?))
            .collect::<PyResult<_>>()?;
        py.detach(|| {
            in_pool(threads, || {
                qs.par_iter()
                    .map(|q| self.lookup(q, minimum_weight))
                    .collect::<PyResult<Vec<_>>>()
            })
        })?
    }

    /// Many lookups at once as NumPy arrays, for datasets: no Python object per entry. The
    /// entries of query `i` are rows `offsets[i]:offsets[i + 1]` of `key` uint64, `move` S5
    /// (UCI bytes, as `find_all` gives them), `raw_move` uint16 (the book's encoding),
    /// `weight` uint16 and `learn` uint32. Queries as `find_all_many` takes them.
    #[pyo3(signature = (boards, *, minimum_weight = 1, threads = None))]
    fn find_all_arrays<'py>(
        &self,
        py: Python<'py>,
        boards: &Bound<'py, PyAny>,
        minimum_weight: u16,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let qs: Vec<Query> = boards
            .try_iter()?
            .map(|b| query(&b?))
            .collect::<PyResult<_>>()?;
        let rows: Vec<Vec<ArrayRow>> = py.detach(|| {
            in_pool(threads, || {
                qs.par_iter()
                    .map(|q| self.lookup_with(q, minimum_weight, array_row))
                    .collect::<PyResult<Vec<_>>>()
            })
        })??;
        let total: usize = rows.iter().map(Vec::len).sum();
        let mut offsets = Vec::with_capacity(rows.len() + 1);
        offsets.push(0i64);
        let (mut key, mut raw, mut uci, mut weight, mut learn) = (
            Vec::with_capacity(total),
            Vec::with_capacity(total),
            Vec::with_capacity(total),
            Vec::with_capacity(total),
            Vec::with_capacity(total),
        );
        for found in rows {
            for (k, r, u, w, l) in found {
                key.push(k);
                raw.push(r);
                uci.push(numpy::PyFixedString(u));
                weight.push(w);
                learn.push(l);
            }
            offsets.push(key.len() as i64);
        }
        let d = PyDict::new(py);
        d.set_item("offsets", numpy::PyArray1::from_vec(py, offsets))?;
        d.set_item("key", numpy::PyArray1::from_vec(py, key))?;
        d.set_item("move", numpy::PyArray1::from_vec(py, uci))?;
        d.set_item("raw_move", numpy::PyArray1::from_vec(py, raw))?;
        d.set_item("weight", numpy::PyArray1::from_vec(py, weight))?;
        d.set_item("learn", numpy::PyArray1::from_vec(py, learn))?;
        Ok(d)
    }

    /// Every entry in book order (keys only: moves in the raw encoding).
    fn entries(&self) -> Vec<PyEntry> {
        self.book
            .entries()
            .filter_map(|e| entry(&e, None))
            .collect()
    }

    /// The header's text (`@PG@` records), or `None` when the book has none.
    #[getter]
    fn header(&self) -> PyResult<Option<String>> {
        if self.book.header_records() == 0 {
            return Ok(None);
        }
        let h = self
            .book
            .header()
            .map_err(|e| book_error(self.file.clone(), e))?;
        let text = h.to_text().map_err(|e| book_error(self.file.clone(), e))?;
        Ok(Some(String::from_utf8_lossy(&text).into_owned()))
    }

    /// The book's bytes.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.book.as_bytes())
    }

    /// Writes the book's bytes to a file.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let bytes = self.book.as_bytes();
        py.detach(|| write_bytes(&path, bytes))
    }

    /// What `make_book` reported (games, skipped, plies, pairs, entries, ...), else `None`.
    #[getter]
    fn report<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(r) = &self.report else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        for (k, v) in r {
            d.set_item(k, v)?;
        }
        Ok(Some(d))
    }

    /// The file it was read from, or `None`.
    #[getter]
    fn file(&self) -> Option<String> {
        self.file.clone()
    }

    /// The number of entries (header records not counted).
    fn __len__(&self) -> usize {
        self.book.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "<kifu.polyglot.Book {} entries{}>",
            self.book.len(),
            self.file
                .as_deref()
                .map(|f| format!(", {f}"))
                .unwrap_or_default()
        )
    }
}

/// PGN inputs as paths: bytes are written to temporary files (kept until the book is made).
fn pgn_inputs(
    sources: &Bound<'_, PyAny>,
) -> PyResult<(Vec<PathBuf>, Vec<tempfile::NamedTempFile>)> {
    let items: Vec<Bound<'_, PyAny>> =
        if sources.is_instance_of::<PyBytes>() || sources.is_instance_of::<PyString>() {
            vec![sources.clone()]
        } else {
            sources.try_iter()?.collect::<PyResult<_>>()?
        };
    let mut paths = Vec::new();
    let mut temps = Vec::new();
    for item in items {
        match Source::extract(&item)? {
            Source::Path(p) => paths.push(p),
            Source::Bytes(b) => {
                let mut t = tempfile::NamedTempFile::new()
                    .map_err(|e| io_error(std::path::Path::new("<temporary file>"), &e))?;
                std::io::Write::write_all(&mut t, &b).map_err(|e| io_error(t.path(), &e))?;
                paths.push(t.path().to_path_buf());
                temps.push(t);
            }
        }
    }
    Ok((paths, temps))
}

/// Makes a book from PGN files (paths or bytes), as `kifu book make` and Polyglot's
/// `make-book` do, with Polyglot's options and defaults. `compat="polyglot"` gives Debian
/// polyglot 2.0.4's bytes exactly (no header); `"kifu"` skips bad games, honours `FEN` tags and
/// writes a header unless `header=False`. Returns the `Book` (its `report` says what was read);
/// with `output`, the book is written there too.
#[pyfunction(name = "polyglot_make_book")]
#[pyo3(signature = (pgn, output = None, *, max_ply = 1024, min_game = 3, min_score = 0.0,
    only_white = false, only_black = false, uniform = false, compat = "kifu", header = true,
    comment = None, threads = None))]
#[allow(clippy::too_many_arguments)]
fn polyglot_make_book(
    py: Python<'_>,
    pgn: &Bound<'_, PyAny>,
    output: Option<PathBuf>,
    max_ply: u32,
    min_game: u32,
    min_score: f64,
    only_white: bool,
    only_black: bool,
    uniform: bool,
    compat: &str,
    header: bool,
    comment: Option<String>,
    threads: Option<usize>,
) -> PyResult<PyBook> {
    let compat = match compat {
        "kifu" => Compat::Kifu,
        "polyglot" => Compat::Polyglot,
        other => {
            return Err(PyValueError::new_err(format!(
                "compat={other:?}: \"kifu\" or \"polyglot\""
            )))
        }
    };
    if !min_score.is_finite() {
        return Err(PyValueError::new_err("min_score must be a number"));
    }
    let (paths, _temps) = pgn_inputs(pgn)?;
    let opts = MakeOptions {
        max_ply,
        min_game,
        min_score,
        only_white,
        only_black,
        uniform,
        compat,
        ..MakeOptions::default()
    };
    let head = if !header || compat == Compat::Polyglot {
        None
    } else {
        let text =
            comment.unwrap_or_else(|| format!("made by kifu from {}", make::file_names(&paths)));
        Some(kifu_polyglot::Header::new(vec!["normal".into()], text))
    };
    let made = py.detach(|| {
        crate::in_pool(
            threads,
            || -> Result<(Vec<u8>, make::MakeReport), kifu_polyglot::Error> {
                let mut bytes = Vec::new();
                if let Some(h) = &head {
                    bytes.extend(
                        h.to_records()
                            .map_err(|e| kifu_polyglot::Error::Stream(std::io::Error::other(e)))?,
                    );
                }
                let report = make::make_book_to(&paths, &opts, &|_| {}, &mut |e: &Entry| {
                    bytes.extend_from_slice(&e.to_bytes());
                    Ok(())
                })?;
                Ok((bytes, report))
            },
        )
    })?;
    let (bytes, report) = made.map_err(|e| book_error(None, e))?;
    if let Some(out) = &output {
        // Written safely, as the CLI writes: a temporary file in the same folder, renamed.
        py.detach(|| write_bytes(out, &bytes))?;
    }
    let mut book = PyBook::from_bytes(bytes, output.map(|p| p.display().to_string()))?;
    book.report = Some(vec![
        ("games", report.games),
        ("skipped", report.skipped.len() as u64),
        ("plies", report.plies),
        ("pairs", report.pairs),
        ("entries", report.written),
        ("runs_spilled", report.runs_spilled as u64),
        ("halved_positions", report.halved_keys as u64),
    ]);
    Ok(book)
}

/// Merges books (`Book` objects, paths or bytes) into one: `strategy` `"sum"` (Polyglot's
/// `merge-book`), `"first"`, `"max"`, or a list of one weight factor per book. Headers are
/// merged unless `header=False`. Returns the `Book`; with `output`, it is written there too.
#[pyfunction(name = "polyglot_merge")]
#[pyo3(signature = (books, output = None, *, strategy = None, header = true))]
fn polyglot_merge(
    py: Python<'_>,
    books: &Bound<'_, PyAny>,
    output: Option<PathBuf>,
    strategy: Option<&Bound<'_, PyAny>>,
    header: bool,
) -> PyResult<PyBook> {
    let strategy = match strategy {
        None => MergeStrategy::Sum,
        Some(s) if s.is_instance_of::<PyString>() => match s.extract::<String>()?.as_str() {
            "sum" => MergeStrategy::Sum,
            "first" => MergeStrategy::First,
            "max" => MergeStrategy::Max,
            other => {
                return Err(PyValueError::new_err(format!(
                    "strategy={other:?}: \"sum\", \"first\", \"max\" or a list of weights"
                )))
            }
        },
        Some(s) => {
            let w: Vec<f64> = s.extract()?;
            if w.iter().any(|x| !x.is_finite()) {
                return Err(PyValueError::new_err("weights must be numbers"));
            }
            MergeStrategy::Weighted(w)
        }
    };
    let mut opened: Vec<Book<Vec<u8>>> = Vec::new();
    for b in books.try_iter()? {
        let b = b?;
        if let Ok(book) = b.cast::<PyBook>() {
            let bytes = book.get().book.as_bytes().to_vec();
            opened.push(Book::from_bytes(bytes).map_err(|e| book_error(None, e))?);
        } else {
            let src = Source::extract(&b)?;
            let name = src.name();
            let bytes = src.read().map_err(|(p, e)| io_error(&p, &e))?;
            opened.push(Book::from_bytes(bytes).map_err(|e| book_error(name, e))?);
        }
    }
    if let MergeStrategy::Weighted(w) = &strategy {
        if w.len() != opened.len() {
            return Err(PyValueError::new_err(format!(
                "{} weights for {} books",
                w.len(),
                opened.len()
            )));
        }
    }
    let bytes = py.detach(|| -> Result<Vec<u8>, kifu_polyglot::Error> {
        let (head, entries) = kifu_polyglot::merge(&opened, &strategy);
        let head = if header { head } else { None };
        let mut out = Vec::new();
        kifu_polyglot::writer::write_book(&mut out, head.as_ref(), entries.iter().copied())?;
        Ok(out)
    });
    let bytes = bytes.map_err(|e| book_error(None, e))?;
    if let Some(out) = &output {
        py.detach(|| write_bytes(out, &bytes))?;
    }
    PyBook::from_bytes(bytes, output.map(|p| p.display().to_string()))
}
