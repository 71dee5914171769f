//! `kifu.go`: replay SGF games into NumPy arrays (kifu-go's streaming replay underneath).
//!
//! Files are replayed in parallel (rayon, `threads=`), without the GIL; each file's rows are
//! collected in order and the files are joined in input order, so the arrays do not depend on
//! the number of threads. Feature planes are computed in the same pass.

use crate::errors::{raise, Place, ReplayError as PyReplayError};
use crate::{in_pool, Source};
use kifu_go::replay::{
    replay_text, InfoProperty, ReplayError, ReplayOptions, ReplaySink, RootInfo, Scope, Step,
};
use kifu_go::{BoardSize, Color, Move, Symmetry};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString};
use rayon::prelude::*;
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

/// Rows column by column, each column the buffer of one array (moved, not copied, when one
/// worker made all the rows and nothing is left out).
#[derive(Debug, Default)]
struct Cols {
    /// The board size of each row (rows of other sizes are left out when joining).
    size: Vec<u8>,
    to_play: Vec<u8>,
    /// Two per row.
    moves: Vec<i16>,
    move_number: Vec<i32>,
    /// Games numbered within the chunk until the join numbers them across all inputs.
    game: Vec<i32>,
    file: Vec<i32>,
    variation: Vec<i32>,
    hash: Vec<u64>,
    symmetry: Vec<u8>,
    transform: Vec<u8>,
    result: Vec<i8>,
    /// The ko point (row-major index in this row's board), -1 for none.
    ko: Vec<i16>,
    /// `size * size` cells per row.
    boards: Vec<u8>,
    /// `k` entries per row with features: the last moves' points (-1: none or a pass).
    last: Vec<i16>,
}

impl Cols {
    fn len(&self) -> usize {
        self.to_play.len()
    }

    /// Room for `rows` more rows in the scalar columns (the boards grow on their own).
    fn reserve(&mut self, rows: usize, k: usize) {
        self.size.reserve(rows);
        self.to_play.reserve(rows);
        self.moves.reserve(2 * rows);
        self.move_number.reserve(rows);
        self.game.reserve(rows);
        self.file.reserve(rows);
        self.variation.reserve(rows);
        self.hash.reserve(rows);
        self.symmetry.reserve(rows);
        self.transform.reserve(rows);
        self.result.reserve(rows);
        self.ko.reserve(rows);
        self.last.reserve(k * rows);
    }

    /// Appends row `i` of `from` without its board, its game shifted by `game_base`.
    fn push_row(&mut self, from: &Cols, i: usize, game_base: i32, k: usize) {
        self.size.push(from.size[i]);
        self.to_play.push(from.to_play[i]);
        self.moves.extend_from_slice(&from.moves[2 * i..2 * i + 2]);
        self.move_number.push(from.move_number[i]);
        self.game.push(from.game[i] + game_base);
        self.file.push(from.file[i]);
        self.variation.push(from.variation[i]);
        self.hash.push(from.hash[i]);
        self.symmetry.push(from.symmetry[i]);
        self.transform.push(from.transform[i]);
        self.result.push(from.result[i]);
        self.ko.push(from.ko[i]);
        self.last.extend_from_slice(&from.last[i * k..(i + 1) * k]);
    }
}

/// The rows of a run of consecutive inputs, replayed by one worker.
#[derive(Debug, Default)]
struct ChunkOut {
    cols: Cols,
    /// Games of the chunk (every game replayed or failed, of every size).
    games: usize,
    /// Replay failures, with the input's place.
    failures: Vec<(u32, Failure)>,
    /// `(size, file, game in the file)` of games of another size than the arrays'.
    other_sizes: Vec<(u8, u32, usize)>,
}

/// The sink that turns steps into rows.
/// Where a sink puts the boards.
enum BoardOut<'b> {
    /// Appended to the chunk's own buffer.
    Grow,
    /// Not made: the first pass of a parallel run only counts the rows.
    Skip,
    /// Written into this run's part of the final array, from `at`.
    Fill { out: &'b mut [u8], at: usize },
}

struct Sink<'o, 'b> {
    opts: &'o Options,
    out: ChunkOut,
    /// The size asked for (the replay plays no game of another size; they are only noted).
    want_size: Option<u8>,
    /// The current input and the games of the chunk before it.
    file: u32,
    game_base: usize,
    /// Per node of the current game: the first row made for it (rows of the transforms follow).
    node_row: Vec<u32>,
    /// Per node: the parent node and the point played (-1 pass, -2 none), for the last moves.
    node_parent: Vec<u32>,
    node_move: Vec<i32>,
    game: usize,
    result: i8,
    resign: bool,
    cells: Vec<u8>,
    /// Symmetry tables for the current size: `maps[t][i]` is where point `i` goes.
    maps: Vec<Vec<u16>>,
    map_size: u8,
    errors: Vec<ReplayError>,
    prefault: Prefault,
    boards: BoardOut<'b>,
}

/// Faults in the board buffer's pages ahead of the writes, 8 MiB at a time: one system call
/// instead of a page fault every 4 KiB. Page faults were a third of a `positions` call (board
/// arrays are hundreds of megabytes, each byte written once); this saves about a quarter of them.
#[derive(Debug, Default)]
struct Prefault {
    /// The buffer's address when last seen (a moved buffer starts over at its end).
    base: usize,
    /// Bytes of the buffer faulted in.
    done: usize,
}

impl Prefault {
    const STEP: usize = 8 << 20;
    /// The first reservation: above glibc's largest mmap threshold (32 MiB), so the buffer is
    /// its own mapping from the start and grows by `mremap`, never by copying. Only what is
    /// faulted in costs memory.
    const FIRST: usize = 64 << 20;

    /// Makes room for `add` more bytes in `buf`, faulted in.
    fn reserve(&mut self, buf: &mut Vec<u8>, add: usize) {
        if buf.capacity() - buf.len() < add {
            buf.reserve(add.max(buf.len()).max(Self::FIRST));
        }
        let base = buf.as_ptr() as usize;
        if base != self.base {
            self.base = base;
            self.done = buf.len();
        }
        let need = buf.len() + add;
        if need > self.done {
            // Ahead by what was written so far (1 MiB to 8 MiB): small inputs fault in little.
            let ahead = Self::STEP.min(buf.len().max(1 << 20));
            let to = (self.done + ahead).max(need).min(buf.capacity());
            populate(base + self.done, base + to);
            self.done = to;
        }
    }
}

/// Asks the kernel to fault in, writable, the whole pages within `from..to` (addresses inside
/// one live allocation). Errors (kernels before 5.14) are ignored: the writes fault as usual.
fn populate(from: usize, to: usize) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let (from, to) = (from.next_multiple_of(PAGE), to / PAGE * PAGE);
        if to > from {
            // SAFETY: MADV_POPULATE_WRITE reads and writes no memory and keeps every page's
            // contents; it only maps the pages as a write would. The callers pass a range inside
            // one live allocation they hold mutably (`Prefault::reserve`: a Vec's buffer within
            // its capacity; `replay_in_place` and `feature_planes`: a worker's part of a Vec), and only the
            // whole pages inside it are named (start rounded up, end rounded down), so no other
            // mapping is touched. Where pages are larger than 4 KiB an unaligned start makes the
            // call fail, which is harmless.
            #[allow(unsafe_code)]
            let _ = unsafe {
                libc::madvise(
                    from as *mut libc::c_void,
                    to - from,
                    libc::MADV_POPULATE_WRITE,
                )
            };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (from, to);
}

const NONE: u32 = u32::MAX;

impl<'o, 'b> Sink<'o, 'b> {
    fn new(opts: &'o Options, want_size: Option<u8>, boards: BoardOut<'b>) -> Self {
        Sink {
            opts,
            out: ChunkOut::default(),
            want_size,
            file: 0,
            game_base: 0,
            node_row: Vec::new(),
            node_parent: Vec::new(),
            node_move: Vec::new(),
            game: 0,
            result: 0,
            resign: false,
            cells: Vec::new(),
            maps: Vec::new(),
            map_size: 0,
            errors: Vec::new(),
            prefault: Prefault::default(),
            boards,
        }
    }

    fn ensure_maps(&mut self, size: BoardSize) {
        let n = size.get();
        if self.map_size == n && !self.maps.is_empty() {
            return;
        }
        self.map_size = n;
        self.maps = self
            .opts
            .transforms
            .iter()
            .map(|&s| {
                size.all_points()
                    .map(|p| s.apply(p, size).index(size) as u16)
                    .collect()
            })
            .collect();
    }

    fn count_game(&mut self, game: usize) {
        self.out.games = self.out.games.max(self.game_base + game + 1);
    }

    fn start_game(&mut self, game: usize) {
        self.game = game;
        self.node_row.clear();
        self.node_parent.clear();
        self.node_move.clear();
        self.count_game(game);
    }
}

/// A node's move for the last-moves planes: `(row << 8) | col` of a play, -1 a pass, -2 none
/// (the size is applied when the planes are made, by [`unpack`]).
fn point_code(m: Option<Move>) -> i32 {
    match m {
        Some(Move::Play(p)) => (i32::from(p.row()) << 8) | i32::from(p.col()),
        Some(Move::Pass) => -1,
        None => -2,
    }
}

/// The row-major index of a [`point_code`] on an `n` x `n` board.
fn unpack(code: i32, n: usize) -> Option<usize> {
    (code >= 0).then(|| {
        let c = code as usize;
        (c >> 8) * n + (c & 0xff)
    })
}

fn color_code(c: Color) -> u8 {
    match c {
        Color::Black => 1,
        Color::White => 2,
    }
}

impl ReplaySink for Sink<'_, '_> {
    const GAME_INFO: bool = true;

    fn game_info(&mut self, game: usize, info: &RootInfo) {
        self.start_game(game);
        // Replayed games are square (the replay reports the others as errors).
        let size = info.size().0.min(u32::from(u8::MAX)) as u8;
        if self.want_size != Some(size) {
            self.out.other_sizes.push((size, self.file, game));
        }
        let re = info.text(InfoProperty::Result);
        let re = re.trim().to_ascii_uppercase();
        self.result = match re.as_bytes().first() {
            Some(b'B') => 1,
            Some(b'W') => 2,
            _ => 0,
        };
        self.resign = re
            .split_once('+')
            .is_some_and(|(_, how)| how.starts_with('R'));
    }

    fn game_error(&mut self, error: ReplayError) {
        self.count_game(error.game());
        self.errors.push(error);
    }

    fn position(&mut self, step: &Step<'_>) {
        if step.game != self.game {
            // Game information comes first for every replayed game; this is a safety net.
            self.start_game(step.game);
        }
        let pos = step.position;
        let size = pos.size();
        let n = usize::from(size.get());
        // The tree: parent and move of this node.
        let idx = step.node_index;
        if self.node_row.len() <= idx {
            self.node_row.resize(idx + 1, NONE);
            self.node_parent.resize(idx + 1, NONE);
            self.node_move.resize(idx + 1, -2);
        }
        let played = step.mv.map(|m| m.mv);
        self.node_parent[idx] = step.parent.map_or(NONE, |p| p as u32);
        self.node_move[idx] = point_code(played);
        // The parent's next move is this node's, if it is the parent's first child with a move.
        if let (Some(parent), Some(m)) = (step.parent, played) {
            if let Some(&row) = self.node_row.get(parent) {
                if row != NONE {
                    let count = self.opts.transforms.len();
                    for (t, r) in (row as usize..row as usize + count).enumerate() {
                        let mv = &mut self.out.cols.moves[2 * r..2 * r + 2];
                        if mv[0] == NO_MOVE {
                            mv.copy_from_slice(&move_pair(m, size, self.maps.get(t)));
                        }
                    }
                }
            }
        }
        if let Some((from, to)) = self.opts.window {
            if step.move_number < from || step.move_number > to {
                return;
            }
        }
        self.ensure_maps(size);
        self.node_row[idx] = self.out.cols.len() as u32;
        let canon = pos.canonical();
        let end_mark = if step.is_leaf && step.variation == 0 && self.resign {
            RESIGN
        } else {
            NO_MOVE
        };
        let pts = n * n;
        let skip = matches!(self.boards, BoardOut::Skip);
        if !skip
            && self
                .opts
                .transforms
                .iter()
                .any(|&t| t != Symmetry::Identity)
        {
            self.cells.resize(pts, 0);
            pos.write_cells(&mut self.cells);
        }
        let game = (self.game_base + step.game) as i32;
        for (t, &sym) in self.opts.transforms.iter().enumerate() {
            let map = &self.maps[t];
            let cols = &mut self.out.cols;
            let board = match &mut self.boards {
                BoardOut::Skip => None,
                BoardOut::Grow => {
                    self.prefault.reserve(&mut cols.boards, pts);
                    let start = cols.boards.len();
                    if sym == Symmetry::Identity {
                        pos.push_cells(&mut cols.boards);
                        None
                    } else {
                        cols.boards.resize(start + pts, 0);
                        Some(&mut cols.boards[start..])
                    }
                }
                BoardOut::Fill { out, at } => {
                    let start = *at;
                    *at += pts;
                    // The first pass counted these rows: the part is never too short.
                    let part = out.get_mut(start..start + pts);
                    match part {
                        Some(b) if sym == Symmetry::Identity => {
                            pos.write_cells(b);
                            None
                        }
                        other => other,
                    }
                }
            };
            if let Some(board) = board {
                for (&to, &c) in map.iter().zip(&self.cells) {
                    board[usize::from(to)] = c;
                }
            }
            let mut ko = -1;
            if let Some(k) = self.opts.features {
                let mut node = idx as u32;
                for _ in 0..k {
                    let point = if node == NONE {
                        None
                    } else {
                        let code = self.node_move[node as usize];
                        node = self.node_parent[node as usize];
                        unpack(code, n)
                    };
                    cols.last.push(point.map_or(-1, |i| map[i] as i16));
                }
                ko = pos.ko_point().map_or(-1, |p| map[p.index(size)] as i16);
            }
            cols.size.push(size.get());
            cols.to_play.push(color_code(step.to_play));
            cols.moves.extend_from_slice(&[end_mark, end_mark]);
            cols.move_number.push(step.move_number as i32);
            cols.game.push(game);
            cols.file.push(self.file as i32);
            cols.variation.push(step.variation as i32);
            cols.hash.push(canon.hash);
            cols.symmetry.push(canon.symmetry.index() as u8);
            cols.transform.push(sym.index() as u8);
            cols.result.push(self.result);
            cols.ko.push(ko);
        }
    }
}

fn move_pair(m: Move, size: BoardSize, map: Option<&Vec<u16>>) -> [i16; 2] {
    match m {
        Move::Pass => [PASS, PASS],
        Move::Play(p) => {
            let n = usize::from(size.get());
            let i = p.index(size);
            let j = map.map_or(i, |m| m[i] as usize);
            [(j / n) as i16, (j % n) as i16]
        }
    }
}

/// The number of feature planes for `k` last moves.
fn plane_count(k: usize) -> usize {
    8 + k
}

/// Scratch buffers of the liberty count, one set per worker.
type Scratch = kifu_go::liberties::Liberties;

/// Fills the feature planes of one board (values 0 empty, 1 black, 2 white) into `o`, which
/// is zeroed and `plane_count(k) * n * n` long.
fn planes(
    o: &mut [u8],
    board: &[u8],
    n: usize,
    (to_play, ko): (u8, i16),
    last: &[i16],
    s: &mut Scratch,
) {
    let pts = n * n;
    let k = last.len();
    let libs = s.count(board, n);
    for i in 0..pts {
        let b = board[i];
        if b == to_play {
            o[i] = 1;
        } else if b != 0 {
            o[pts + i] = 1;
        } else {
            o[2 * pts + i] = 1;
        }
        if b != 0 {
            let plane = match libs[i] {
                0 | 1 => 3,
                2 => 4,
                _ => 5,
            };
            o[plane * pts + i] = 1;
        }
    }
    if let Ok(p) = usize::try_from(ko) {
        o[6 * pts + p] = 1;
    }
    for (j, &p) in last.iter().enumerate() {
        if let Ok(p) = usize::try_from(p) {
            o[(7 + j) * pts + p] = 1;
        }
    }
    if to_play == 1 {
        o[(7 + k) * pts..(8 + k) * pts].fill(1);
    }
}

/// Replays a run of consecutive inputs (`first` is the first one's place in the whole list)
/// into one chunk, so that one worker's rows land in one set of buffers.
fn replay_chunk(
    inputs: &[Input],
    first: usize,
    opts: &Options,
    want: Option<u8>,
    boards: BoardOut<'_>,
) -> ChunkOut {
    let options = ReplayOptions {
        scope: opts.scope,
        // Games of another size are read, not played.
        size: want.and_then(|w| BoardSize::new(u32::from(w)).ok()),
        ..ReplayOptions::default()
    };
    let mut sink = Sink::new(opts, want, boards);
    // A move takes 6 bytes of SGF or more (`;B[pd]`): room for that many rows up front saves
    // the columns' copies as they grow (unused room is address space, not memory).
    let bytes: u64 = inputs.iter().map(|i| i.source.len_hint()).sum();
    let rows = usize::try_from(bytes / 6)
        .unwrap_or(usize::MAX)
        .min(1 << 24);
    sink.out
        .cols
        .reserve(rows * opts.transforms.len(), opts.features.unwrap_or(0));
    for (i, input) in inputs.iter().enumerate() {
        sink.file = (first + i) as u32;
        sink.game_base = sink.out.games;
        sink.game = usize::MAX;
        let bytes = match input.source.bytes() {
            Ok(b) => b,
            Err((p, e)) => {
                sink.out.failures.push((
                    sink.file,
                    Failure {
                        file: p.display().to_string(),
                        game: None,
                        line: None,
                        column: None,
                        message: e.to_string(),
                    },
                ));
                continue;
            }
        };
        let decoded = kifu_sgf::charset::decode(&bytes);
        let text: &[u8] = &decoded.text;
        sink = replay_text(text, &options, sink);
        if !sink.errors.is_empty() {
            let index = kifu_sgf::LineIndex::new(text);
            for e in std::mem::take(&mut sink.errors) {
                let (line, column) = index.line_col(text, e.offset());
                sink.out.failures.push((
                    sink.file,
                    Failure {
                        file: input.name.clone(),
                        game: Some(e.game()),
                        line: Some(line),
                        column: Some(column),
                        message: e.to_string(),
                    },
                ));
            }
        }
    }
    let boards = &mut sink.out.cols.boards;
    if boards.capacity() > 2 * boards.len() {
        boards.shrink_to_fit();
    }
    sink.out
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

/// Everything joined, before it becomes arrays.
struct Joined {
    size: usize,
    /// The rows, games numbered across all inputs.
    cols: Cols,
    /// The feature planes, filled after joining.
    planes: Vec<u8>,
    failures: Vec<Failure>,
    files: Vec<String>,
}

/// Joins the chunks in input order: rows of another size than the arrays' are left out (and
/// reported), and with `dedup` every row whose position was seen before. One chunk with nothing
/// to leave out is moved, not copied; otherwise the boards are copied in parallel into one
/// buffer, each chunk to its place.
fn join(
    inputs: &[Input],
    mut chunks: Vec<ChunkOut>,
    mut failures: Vec<Failure>,
    want_size: Option<u8>,
    dedup: bool,
    k: usize,
) -> Joined {
    let size = want_size.or_else(|| chunks.iter().find_map(|c| c.cols.size.first().copied()));
    let n = size.unwrap_or(19);
    let pts = usize::from(n) * usize::from(n);
    // Problems in input order: per file, its replay failures, then its games of other sizes.
    for c in &mut chunks {
        let mut notes: Vec<(u32, u8, Failure)> = std::mem::take(&mut c.failures)
            .into_iter()
            .map(|(f, x)| (f, 0, x))
            .collect();
        for &(s, f, g) in &c.other_sizes {
            if s != n {
                notes.push((
                    f,
                    1,
                    Failure {
                        file: inputs[f as usize].name.clone(),
                        game: Some(g),
                        line: None,
                        column: None,
                        message: format!(
                            "game {}: a {s}x{s} board, the arrays are {n}x{n} (pass size= to choose)",
                            g + 1
                        ),
                    },
                ));
            }
        }
        notes.sort_by_key(|&(f, kind, _)| (f, kind));
        failures.extend(notes.into_iter().map(|(_, _, x)| x));
    }
    let files = inputs.iter().map(|i| i.name.clone()).collect();
    let mixed = |c: &ChunkOut| c.cols.size.iter().any(|&s| s != n);
    if chunks.len() == 1 && !dedup && !mixed(&chunks[0]) {
        let c = chunks.pop().expect("one chunk");
        return Joined {
            size: usize::from(n),
            cols: c.cols,
            planes: Vec::new(),
            failures,
            files,
        };
    }
    if !dedup && !chunks.iter().any(mixed) {
        return Joined {
            size: usize::from(n),
            cols: concat(&chunks, k),
            planes: Vec::new(),
            failures,
            files,
        };
    }
    // The rows kept, chunk by chunk (dedup looks at every earlier row, so this is in order).
    let mut seen: HashSet<(u64, u8, u8)> = HashSet::new();
    let kept: Vec<Vec<u32>> = chunks
        .iter()
        .map(|c| {
            let r = &c.cols;
            (0..r.len())
                .filter(|&i| {
                    r.size[i] == n
                        && (!dedup || seen.insert((r.hash[i], r.to_play[i], r.transform[i])))
                })
                .map(|i| i as u32)
                .collect()
        })
        .collect();
    let total: usize = kept.iter().map(Vec::len).sum();
    let mut cols = Cols::default();
    let mut game_base = 0i32;
    for (c, keep) in chunks.iter().zip(&kept) {
        for &i in keep {
            cols.push_row(&c.cols, i as usize, game_base, k);
        }
        game_base += c.games as i32;
    }
    // Zeroed pages come from the system untouched, so each worker faults in its own part.
    let mut boards = vec![0u8; total * pts];
    split(&mut boards, kept.iter().map(|keep| keep.len() * pts))
        .into_par_iter()
        .zip(chunks.par_iter().zip(&kept))
        .for_each(|(part, (c, keep))| {
            // Where each row's board starts, when the chunk holds boards of other sizes.
            let offsets: Option<Vec<usize>> = mixed(c).then(|| {
                c.cols
                    .size
                    .iter()
                    .scan(0, |o, &s| {
                        let at = *o;
                        *o += usize::from(s) * usize::from(s);
                        Some(at)
                    })
                    .collect()
            });
            for (dst, &i) in part.chunks_exact_mut(pts).zip(keep) {
                let i = i as usize;
                let at = offsets.as_ref().map_or(i * pts, |o| o[i]);
                dst.copy_from_slice(&c.cols.boards[at..at + pts]);
            }
        });
    Joined {
        size: usize::from(n),
        cols: Cols { boards, ..cols },
        planes: Vec::new(),
        failures,
        files,
    }
}

/// Replays the runs on every worker twice: first counting each run's rows (no boards), then
/// writing each run's boards straight into its part of the final array. Replaying is cheap
/// next to faulting in and copying hundreds of megabytes of boards, which a join of the runs'
/// own buffers would do twice.
fn replay_in_place(
    inputs: &[Input],
    runs: &[(usize, &[Input])],
    opts: &Options,
    want_size: Option<u8>,
    walk_failures: Vec<Failure>,
    k: usize,
) -> Joined {
    let counted: Vec<ChunkOut> = runs
        .par_iter()
        .map(|&(first, c)| replay_chunk(c, first, opts, want_size, BoardOut::Skip))
        .collect();
    let n = want_size
        .or_else(|| counted.iter().find_map(|c| c.cols.size.first().copied()))
        .unwrap_or(19);
    let pts = usize::from(n) * usize::from(n);
    let rows: Vec<usize> = counted
        .iter()
        .map(|c| c.cols.size.iter().filter(|&&s| s == n).count())
        .collect();
    drop(counted);
    let mut boards = vec![0u8; rows.iter().sum::<usize>() * pts];
    let parts = split(&mut boards, rows.iter().map(|r| r * pts));
    let chunks: Vec<ChunkOut> = runs
        .par_iter()
        .zip(parts)
        .map(|(&(first, c), part)| {
            populate(part.as_ptr() as usize, part.as_ptr() as usize + part.len());
            replay_chunk(c, first, opts, Some(n), BoardOut::Fill { out: part, at: 0 })
        })
        .collect();
    let mut joined = join(inputs, chunks, walk_failures, Some(n), false, k);
    joined.cols.boards = boards;
    joined
}

/// `buf` cut into consecutive parts of the given lengths (for the workers to fill in
/// parallel, each its own part).
fn split(buf: &mut [u8], lens: impl Iterator<Item = usize>) -> Vec<&mut [u8]> {
    let mut parts = Vec::new();
    let mut rest = buf;
    for len in lens {
        let (part, tail) = std::mem::take(&mut rest).split_at_mut(len);
        parts.push(part);
        rest = tail;
    }
    parts
}

/// The chunks' columns one after the other (games numbered across chunks). Runs written in
/// place come here with no boards of their own (`replay_in_place`), so nothing large is copied.
fn concat(chunks: &[ChunkOut], k: usize) -> Cols {
    fn cat<T: Copy>(chunks: &[ChunkOut], col: impl Fn(&Cols) -> &Vec<T>) -> Vec<T> {
        let mut out = Vec::with_capacity(chunks.iter().map(|c| col(&c.cols).len()).sum());
        for c in chunks {
            out.extend_from_slice(col(&c.cols));
        }
        out
    }
    let mut game = Vec::with_capacity(chunks.iter().map(|c| c.cols.len()).sum());
    let mut base = 0i32;
    for c in chunks {
        game.extend(c.cols.game.iter().map(|g| g + base));
        base += c.games as i32;
    }
    debug_assert!(k == 0 || chunks.iter().all(|c| c.cols.last.len() == c.cols.len() * k));
    Cols {
        size: cat(chunks, |c| &c.size),
        to_play: cat(chunks, |c| &c.to_play),
        moves: cat(chunks, |c| &c.moves),
        move_number: cat(chunks, |c| &c.move_number),
        game,
        file: cat(chunks, |c| &c.file),
        variation: cat(chunks, |c| &c.variation),
        hash: cat(chunks, |c| &c.hash),
        symmetry: cat(chunks, |c| &c.symmetry),
        transform: cat(chunks, |c| &c.transform),
        result: cat(chunks, |c| &c.result),
        ko: cat(chunks, |c| &c.ko),
        boards: cat(chunks, |c| &c.boards),
        last: cat(chunks, |c| &c.last),
    }
}

/// The feature planes of every joined row, computed in parallel straight into the array's
/// buffer (zeroed pages are only touched where a plane has a 1).
fn feature_planes(j: &Joined, k: usize) -> Vec<u8> {
    let pts = j.size * j.size;
    let per_row = plane_count(k) * pts;
    let c = &j.cols;
    let mut out = vec![0u8; c.len() * per_row];
    // Blocks of rows, each faulted in with one call before it is written (the planes are
    // many times the boards' size).
    const BLOCK: usize = 256;
    out.par_chunks_mut((per_row * BLOCK).max(1))
        .enumerate()
        .for_each_init(Scratch::default, |scratch, (b, block)| {
            populate(
                block.as_ptr() as usize,
                block.as_ptr() as usize + block.len(),
            );
            for (r, o) in block.chunks_mut(per_row.max(1)).enumerate() {
                let i = b * BLOCK + r;
                planes(
                    o,
                    &c.boards[i * pts..(i + 1) * pts],
                    j.size,
                    (c.to_play[i], c.ko[i]),
                    &c.last[i * k..(i + 1) * k],
                    scratch,
                );
            }
        });
    out
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
