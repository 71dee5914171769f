//! `kifu.posdb.Index`: an opened database answering lookups and pattern searches, its queries
//! and answers passed as the library's JSON.

use super::*;

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

    /// Reads both files of the database whole and checks them against their checksums (the
    /// index's every 4 KiB block, the pattern index's body): a dict of format, index_checked
    /// (False for an index written by an older kifu, which has none), games and
    /// pattern_index_checked (False when it is missing or made for another game list). Raises
    /// `PosdbError` naming the file and the bytes that do not match.
    fn verify<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let path = PathBuf::from(&self.path);
        let v = py
            .detach(|| Database::verify(&path))
            .map_err(|e| posdb_error(Some(self.path.clone()), e))?;
        let text = serde_json::to_string(&v).map_err(|e| PyValueError::new_err(e.to_string()))?;
        json_to_py(py, &text)
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
        q.validate_on(self.db.size())
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
        // A pattern index changed in place since it was opened: the search left games out,
        // and a part of an answer is not the answer.
        if let Some(why) = self.db.patterns().unreadable() {
            return Err(posdb_error(Some(self.path.clone()), why));
        }
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
