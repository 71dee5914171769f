//! The replay of one chunk of inputs into columns: the sink the replay calls at each position,
//! the boards written in place and the feature planes.

use super::*;

/// Rows column by column, each column the buffer of one array (moved, not copied, when one
/// worker made all the rows and nothing is left out).
#[derive(Debug, Default)]
pub(super) struct Cols {
    /// The board size of each row (rows of other sizes are left out when joining).
    pub(super) size: Vec<u8>,
    pub(super) to_play: Vec<u8>,
    /// Two per row.
    pub(super) moves: Vec<i16>,
    pub(super) move_number: Vec<i32>,
    /// Games numbered within the chunk until the join numbers them across all inputs.
    pub(super) game: Vec<i32>,
    pub(super) file: Vec<i32>,
    pub(super) variation: Vec<i32>,
    pub(super) hash: Vec<u64>,
    pub(super) symmetry: Vec<u8>,
    pub(super) transform: Vec<u8>,
    pub(super) result: Vec<i8>,
    /// The ko point (row-major index in this row's board), -1 for none.
    pub(super) ko: Vec<i16>,
    /// `size * size` cells per row.
    pub(super) boards: Vec<u8>,
    /// `k` entries per row with features: the last moves' points (-1: none or a pass).
    pub(super) last: Vec<i16>,
}

impl Cols {
    pub(super) fn len(&self) -> usize {
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
    pub(super) fn push_row(&mut self, from: &Cols, i: usize, game_base: i32, k: usize) {
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
pub(super) struct ChunkOut {
    pub(super) cols: Cols,
    /// Games of the chunk (every game replayed or failed, of every size).
    pub(super) games: usize,
    /// Replay failures, with the input's place.
    pub(super) failures: Vec<(u32, Failure)>,
    /// `(size, file, game in the file)` of games of another size than the arrays'.
    pub(super) other_sizes: Vec<(u8, u32, usize)>,
}

/// The sink that turns steps into rows.
/// Where a sink puts the boards.
pub(super) enum BoardOut<'b> {
    /// Appended to the chunk's own buffer.
    Grow,
    /// Not made: the first pass of a parallel run only counts the rows.
    Skip,
    /// Written into this run's part of the final array, from `at`.
    Fill { out: &'b mut [u8], at: usize },
}

struct Sink<'o, 'b> {
    pub(super) opts: &'o Options,
    pub(super) out: ChunkOut,
    /// The size asked for (the replay plays no game of another size; they are only noted).
    pub(super) want_size: Option<u8>,
    /// The current input and the games of the chunk before it.
    pub(super) file: u32,
    pub(super) game_base: usize,
    /// Per node of the current game: the first row made for it (rows of the transforms follow).
    node_row: Vec<u32>,
    /// Per node: the parent node and the point played (-1 pass, -2 none), for the last moves.
    node_parent: Vec<u32>,
    node_move: Vec<i32>,
    pub(super) game: usize,
    pub(super) result: i8,
    resign: bool,
    cells: Vec<u8>,
    /// Symmetry tables for the current size: `maps[t][i]` is where point `i` goes.
    maps: Vec<Vec<u16>>,
    map_size: u8,
    pub(super) errors: Vec<ReplayError>,
    prefault: Prefault,
    pub(super) boards: BoardOut<'b>,
}

/// Faults in the board buffer's pages ahead of the writes, 8 MiB at a time: one system call
/// instead of a page fault every 4 KiB. Page faults were a third of a `positions` call (board
/// arrays are hundreds of megabytes, each byte written once); this saves about a quarter of them.
#[derive(Debug, Default)]
struct Prefault {
    /// The buffer's address when last seen (a moved buffer starts over at its end).
    pub(super) base: usize,
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
pub(super) fn populate(from: usize, to: usize) {
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
    pub(super) fn new(opts: &'o Options, want_size: Option<u8>, boards: BoardOut<'b>) -> Self {
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
pub(super) fn plane_count(k: usize) -> usize {
    8 + k
}

/// Scratch buffers of the liberty count, one set per worker.
pub(super) type Scratch = kifu_go::liberties::Liberties;

/// Fills the feature planes of one board (values 0 empty, 1 black, 2 white) into `o`, which
/// is zeroed and `plane_count(k) * n * n` long.
pub(super) fn planes(
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
pub(super) fn replay_chunk(
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
