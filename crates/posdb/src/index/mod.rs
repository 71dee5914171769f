//! A position index of a game collection for full-board search: which games reached a position
//! (in any of the 8 symmetries, optionally with colours swapped), and what was played next, with
//! counts and win rates, as Kombilo's full-board search gives.
//!
//! # Why a sorted key file and not SQLite
//! Every query is one exact-match range on the position key, and the data is written once and
//! read many times. A single file of fixed-size entries sorted by key answers a query with one
//! binary search (about 25 reads of 26 bytes at 30 million entries; microseconds once cached),
//! is built by one external sort in bounded memory (the same [`ExternalSorter`] as extraction),
//! and holds 26 bytes per position instead of a B-tree row plus a secondary index. SQLite would
//! add a C library to the build (rusqlite `bundled`), and a B-tree lookup plus row fetches for
//! nothing the queries need; ad-hoc SQL over games is not a goal here.
//!
//! # The file (format 2; all integers big-endian)
//! - Header, 96 bytes: magic `KIFUPIX2`, board size (1 byte), flags (1 byte; bit 0: variations
//!   were indexed), 6 bytes zero, then u64 each:
//!   entries, games, files, offset of the Zobrist table text, its length, offset of the entries,
//!   offset of the game table, offset of the file table, length of the strings, the summary
//!   threshold the file was built with (for information).
//! - The Zobrist table text (`zobrist_board_N.dat` format) the keys were made with.
//! - Entries, 26 bytes, sorted by their bytes: canonical hash `h1` (8; the PositionId hash with
//!   that table), a second canonical hash `h2` (8; the lowest of the 8 symmetric hashes with a
//!   second, fixed table, so two boards are confused only if both 64-bit hashes collide), side to
//!   play (`B`/`W`), game number (u32, from 0), move number (u16, saturating), 1 byte: the
//!   symmetry that maps the game's board to the canonical orientation (low 3 bits), the game's
//!   winner (bits 3-4: 0 unknown, 1 Black, 2 White, 3 draw; so continuations need no game
//!   record; always 0 in a variation) and [`VARIATION_BIT`] (bit 5: the position and its next
//!   move are in a variation, not the main line), the next move in the canonical orientation (u16: point index row by row from the
//!   top-left, `0xFFFE` a pass, `0xFFFF` none: the game ends, or the next node has no move).
//!   The first 17 bytes are the entry's key.
//! - Game table, 32 bytes a game: file number (u32), game in the file (u32, from 0), moves (u32),
//!   winner (1: `B`, `W`, `0` draw, `?` unknown), 3 zero bytes, strings offset (u64, relative to
//!   the strings), strings length (u32), 4 zero bytes. The strings are `PB`, `PW`, `DT`, `RE`
//!   separated by tabs (tabs and line breaks inside values become spaces).
//! - File table, 12 bytes a file: strings offset (u64), length (u32): the path as given.
//! - The strings.
//! - Summary data, then the summary directory: precomputed answers for the keys with at least
//!   [`SUMMARY_THRESHOLD`] entries (see [`summary`] for their layout).
//! - Trailer, 24 bytes: magic `KIFUPIXS`, summaries (u64), offset of the summary directory (u64).
//!   (The summaries are known only once the entries are written, so they are located from the
//!   end and the file can still be written in one stream.)
//!
//! Files of format 1 (`KIFUPIX1`: no summaries, no winners in the entries) are refused with an
//! error that says to rebuild them.
//!
//! # Lookups
//! [`IndexReader::lookup_page`] answers what `kifu pos lookup` shows (counts, continuations, the
//! first games) in well under a millisecond for any position: for a summarized key it reads the
//! summary and one page of entries; otherwise (fewer than [`SUMMARY_THRESHOLD`] entries) it scans
//! the entries. [`IndexReader::lookup`] scans every matching entry and gives every occurrence.
//!
//! # What is indexed
//! Main lines, or with [`IndexOptions::variations`] every variation too (Kombilo's "process
//! variations"). A node's position gets one entry for each child that plays a move (its next
//! move), and one with no next move when the node has no child; a child without a move stands
//! for its parent (setup changes the board; a comment node repeats it), so its own children
//! continue from it. On a main line this is one entry per move and one for the last node. A
//! position with several continuations in one game's variations has one entry per
//! continuation, so it counts once per continuation as an occurrence and once as a game.
//! Entries in variations are marked and carry no winner: they count as continuations but not
//! in win rates, since a game's result says nothing of the moves of its variations.

use crate::extract::{Source, SourceKind};
use crate::sort::ExternalSorter;
use kifu_go::replay::{ReplayError, ReplayOptions, ReplaySink, Replayer, Scope, Step};
use kifu_go::{BoardSize, Color, Move, Symmetry, ZobristKeys, ZobristTable};
use kifu_sgf::{Diagnostic, RawProperty, Skip, Value, Visitor};
use rayon::prelude::*;
use std::fs::File;
use std::io::{self, BufReader, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::sync::Arc;

const MAGIC: &[u8; 8] = b"KIFUPIX2";
const MAGIC_V1: &[u8; 8] = b"KIFUPIX1";
const TRAILER_MAGIC: &[u8; 8] = b"KIFUPIXS";
const HEADER: usize = 96;
/// Header byte 9, bit 0: variations were indexed.
const FLAG_VARIATIONS: u8 = 1;
const TRAILER: usize = 24;
/// Bytes of one entry.
pub const ENTRY_BYTES: usize = 26;
const KEY_BYTES: usize = 17;
const GAME_BYTES: usize = 32;
const FILE_BYTES: usize = 12;
/// The bit of an entry's symmetry byte that marks a position of a variation (not the main line).
pub const VARIATION_BIT: u8 = 0x20;
/// Next-move code of a pass.
pub const NEXT_PASS: u16 = 0xFFFE;
/// Next-move code of "no next move".
pub const NEXT_NONE: u16 = 0xFFFF;

/// The second table: splitmix64 from a fixed seed different from kifu-go's.
fn second_table(size: BoardSize) -> ZobristTable {
    let mut state = 0x6b69_6675_2d68_3200u64 | u64::from(size.get());
    let mut draw = || loop {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        if z != 0 {
            break z;
        }
    };
    let values = (0..size.points())
        .map(|_| [draw(), draw(), draw()])
        .collect();
    ZobristTable::from_values(values).expect("n*n values make a table")
}

/// The second hash's per-point values for all 8 symmetries.
#[derive(Debug, Clone)]
struct SecondHash {
    // [point * 2 + colour][symmetry]
    values: Vec<[u64; 8]>,
}

impl SecondHash {
    fn new(size: BoardSize) -> SecondHash {
        let t = second_table(size);
        let mut values = vec![[0u64; 8]; size.points() * 2];
        for p in size.all_points() {
            for c in Color::ALL {
                for s in Symmetry::ALL {
                    values[p.index(size) * 2 + c.index()][s.index()] = t.value(c, s.apply(p, size));
                }
            }
        }
        SecondHash { values }
    }

    fn of(&self, stones: impl Iterator<Item = (usize, Color)>) -> u64 {
        let mut h = [0u64; 8];
        for (i, c) in stones {
            let v = &self.values[i * 2 + c.index()];
            for s in 0..8 {
                h[s] ^= v[s];
            }
        }
        h.into_iter().min().unwrap_or(0)
    }
}

/// The colour of a row byte (`#` black, `O` white).
fn row_colour(b: u8) -> Option<Color> {
    match b {
        b'#' => Some(Color::Black),
        b'O' => Some(Color::White),
        _ => None,
    }
}

/// Who won a game, from `RE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Winner {
    /// `RE[B+...]`.
    Black,
    /// `RE[W+...]`.
    White,
    /// `RE[0]`, `RE[Draw]`, `RE[Jigo]`.
    Draw,
    /// No `RE` or anything else (`Void`, `?`).
    Unknown,
}

impl Winner {
    /// From the text of `RE`.
    pub fn from_result(re: &str) -> Winner {
        let t = re.trim();
        let u = t.to_ascii_uppercase();
        if u.starts_with("B+") {
            Winner::Black
        } else if u.starts_with("W+") {
            Winner::White
        } else if u == "0" || u == "DRAW" || u == "JIGO" {
            Winner::Draw
        } else {
            Winner::Unknown
        }
    }

    fn byte(self) -> u8 {
        match self {
            Winner::Black => b'B',
            Winner::White => b'W',
            Winner::Draw => b'0',
            Winner::Unknown => b'?',
        }
    }

    /// The 2-bit code kept in entries.
    fn code(self) -> u8 {
        match self {
            Winner::Unknown => 0,
            Winner::Black => 1,
            Winner::White => 2,
            Winner::Draw => 3,
        }
    }

    fn from_byte(b: u8) -> Winner {
        match b {
            b'B' => Winner::Black,
            b'W' => Winner::White,
            b'0' => Winner::Draw,
            _ => Winner::Unknown,
        }
    }

    /// The same result seen with colours swapped.
    pub fn swapped(self) -> Winner {
        match self {
            Winner::Black => Winner::White,
            Winner::White => Winner::Black,
            w => w,
        }
    }
}

/// A game of the index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameInfo {
    /// The game's number in the index (from 0).
    pub id: u32,
    /// The file's path as given when indexing.
    pub file: String,
    /// The game within its file (from 0).
    pub game_in_file: u32,
    /// Moves of the main line.
    pub moves: u32,
    /// `PB`.
    pub black: String,
    /// `PW`.
    pub white: String,
    /// `DT`.
    pub date: String,
    /// `RE`.
    pub result: String,
    /// The winner, from `RE`.
    pub winner: Winner,
}

/// Options of [`build_index`].
#[derive(Debug, Clone)]
pub struct IndexOptions {
    /// The board size indexed (other games are skipped and counted).
    pub size: BoardSize,
    /// The keys for `h1` (so it equals the PositionId hash of position files made with them).
    pub keys: Arc<ZobristKeys>,
    /// Bytes of entries buffered before spilling a sorted run.
    pub memory_limit: usize,
    /// Folder for spilled runs.
    pub temp_dir: Option<PathBuf>,
    /// Files per parallel batch.
    pub batch: usize,
    /// Index the positions of every variation too (else main lines only).
    pub variations: bool,
    /// Keys with at least this many entries get a summary (default [`SUMMARY_THRESHOLD`]; at
    /// least 1). Lookups give the same answers whatever it is; tests lower it to summarize many
    /// keys.
    pub summary_threshold: u64,
}

impl IndexOptions {
    /// Defaults for `size`: kifu's own keys, 256 MiB.
    pub fn new(size: BoardSize) -> IndexOptions {
        IndexOptions {
            size,
            keys: ZobristKeys::default_for(size),
            memory_limit: 256 << 20,
            temp_dir: None,
            batch: 256,
            variations: false,
            summary_threshold: SUMMARY_THRESHOLD,
        }
    }
}

/// Counts of an index build.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexSummary {
    /// Files read.
    pub files: u64,
    /// Files that could not be read.
    pub files_failed: u64,
    /// Games indexed.
    pub games: u64,
    /// Games of another size (skipped).
    pub games_other_size: u64,
    /// Games that could not be replayed.
    pub games_failed: u64,
    /// Entries (positions) written.
    pub entries: u64,
    /// Sorted runs spilled to disk.
    pub spilled_runs: u64,
    /// Keys given a precomputed summary (at least [`SUMMARY_THRESHOLD`] entries).
    pub summaries: u64,
    /// The first 100 error messages.
    pub errors: Vec<String>,
}

/// Why an index could not be built or read.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// Reading or writing failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// Not an index file, or a damaged one.
    #[error("not a kifu position index, or a damaged one: {0}")]
    Format(&'static str),
    /// The table is not for the board size.
    #[error("the Zobrist table is for {table} boards, not {size}")]
    KeysSize {
        /// The table's size.
        table: BoardSize,
        /// The size.
        size: BoardSize,
    },
    /// The query board is not the index's size.
    #[error("the board is {board}, the index is {index}")]
    BoardSize {
        /// The board's size.
        board: BoardSize,
        /// The index's size.
        index: BoardSize,
    },
    /// Too many games or files for the u32 numbers.
    #[error("more than 4,294,967,295 games or files")]
    TooMany,
    /// An index of an older format.
    #[error("an index of format {0} (from an older kifu): rebuild it with `kifu pos index`")]
    OldFormat(u32),
}

struct FileGame {
    game_in_file: u32,
    moves: u32,
    winner: Winner,
    strings: String,
}

#[derive(Clone, Copy)]
struct LocalEntry {
    h1: u64,
    h2: u64,
    to_play: Color,
    game: u32,
    move_number: u16,
    sym: u8,
    next: u16,
}

/// A node on the path from the root to the last node yielded.
#[derive(Clone, Copy)]
struct PathNode {
    node: usize,
    entry: LocalEntry,
    /// The node's variation is not the main line.
    in_variation: bool,
    has_child: bool,
}

/// `e` as stored: an entry in a variation is marked, and carries no winner (the game's result
/// says nothing of a variation's moves).
fn entry_in(mut e: LocalEntry, in_variation: bool) -> LocalEntry {
    if in_variation {
        e.sym = (e.sym & 7) | VARIATION_BIT;
    }
    e
}

/// Collects one file's games and entries; root properties come through the wrapping visitor.
struct FileIndexer<'a> {
    size: BoardSize,
    second: &'a SecondHash,
    /// The second hash kept up to date from one position to the next: the rows of the last
    /// position seen (`#`, `O`, `.`), the game they belong to, and its 8 symmetric hashes. Only
    /// the points that changed are hashed again (a full hash of every position was half the
    /// build time).
    rows: Vec<u8>,
    next_rows: Vec<u8>,
    rows_game: Option<usize>,
    /// The node (pre-order index in its game) the rows belong to.
    rows_node: usize,
    lanes: [u64; 8],
    /// Stones of each colour in the last position.
    counts: [u32; 2],
    /// A setup property or a second move was seen since the last position (set by
    /// [`RootProps`], which sees the properties).
    dirty: bool,
    games: Vec<FileGame>,
    entries: Vec<LocalEntry>,
    /// The nodes from the root to the last one yielded, each with its entry (next move not yet
    /// known) and whether a child of it has been seen.
    path: Vec<PathNode>,
    current_game: Option<usize>,
    other_size_game: Option<usize>,
    games_other_size: u64,
    games_failed: u64,
    errors: Vec<String>,
    root: [String; 4],
}

impl FileIndexer<'_> {
    /// The second canonical hash of `pos`, from the points that changed since the last call.
    ///
    /// Fast path (most positions): no setup property and at most one move since the last
    /// position, and the move is a play at `p` with the stone counts of a move that captured
    /// nothing and was no suicide (the mover has one more stone, the opponent as many, `p` was
    /// empty and holds the mover's stone): then `p` is the only change. Anything else (a new
    /// game, setup, captures, suicide, two moves in a node) compares the whole board with the
    /// last one instead.
    fn second_hash(&mut self, pos: &kifu_go::Position, step: &Step<'_>) -> u64 {
        let counts = [pos.stone_count(Color::Black), pos.stone_count(Color::White)];
        let dirty = std::mem::take(&mut self.dirty);
        // The rows are those of the parent only if the last node yielded is the parent (after a
        // variation ends, the next node branches from an earlier one).
        let fast = !dirty
            && self.rows_game == Some(step.game)
            && step.parent == Some(self.rows_node)
            && match step.mv.map(|m| (m.color, m.mv)) {
                Some((c, Move::Play(p))) => {
                    let i = p.index(self.size);
                    let (me, them) = (c.index(), c.opponent().index());
                    self.rows.get(i) == Some(&b'.')
                        && pos.stone_at(p) == Some(c)
                        && counts[me] == self.counts[me] + 1
                        && counts[them] == self.counts[them]
                        && {
                            self.rows[i] = if c == Color::Black { b'#' } else { b'O' };
                            let v = &self.second.values[i * 2 + c.index()];
                            for (l, v) in self.lanes.iter_mut().zip(v) {
                                *l ^= v;
                            }
                            true
                        }
                }
                _ => counts == self.counts,
            };
        self.counts = counts;
        if !fast {
            self.diff_rows(pos, step.game);
        }
        self.rows_node = step.node_index;
        #[cfg(test)]
        assert_eq!(
            self.lanes.into_iter().min().unwrap_or(0),
            self.second
                .of(pos.board().stones().map(|(p, c)| (p.index(self.size), c))),
            "the second hash kept up to date differs from a full one"
        );
        self.lanes.into_iter().min().unwrap_or(0)
    }

    /// Brings the rows and lanes to `pos` by comparing all rows.
    fn diff_rows(&mut self, pos: &kifu_go::Position, game: usize) {
        if self.rows_game != Some(game) {
            self.rows_game = Some(game);
            self.rows.fill(b'.');
            self.lanes = [0; 8];
        }
        pos.write_rows(&mut self.next_rows);
        let (old, new, lanes) = (&self.rows, &self.next_rows, &mut self.lanes);
        for (k, (a, b)) in old.chunks(8).zip(new.chunks(8)).enumerate() {
            // Whole words compared (a slice comparison would call memcmp for 8 bytes).
            if let (Ok(x), Ok(y)) = (<[u8; 8]>::try_from(a), <[u8; 8]>::try_from(b)) {
                if u64::from_ne_bytes(x) == u64::from_ne_bytes(y) {
                    continue;
                }
            }
            for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
                if x == y {
                    continue;
                }
                for colour in [x, y].into_iter().filter_map(row_colour) {
                    let v = &self.second.values[(k * 8 + i) * 2 + colour.index()];
                    for (l, v) in lanes.iter_mut().zip(v) {
                        *l ^= v;
                    }
                }
            }
        }
        std::mem::swap(&mut self.rows, &mut self.next_rows);
    }

    /// Leaves the path down to `parent` (all of it when `None`); a node left without a child
    /// is a leaf and gets its entry with no next move.
    fn leave_to(&mut self, parent: Option<usize>) {
        while let Some(top) = self.path.last() {
            if Some(top.node) == parent {
                break;
            }
            if !top.has_child {
                let e = entry_in(top.entry, top.in_variation);
                self.entries.push(e);
            }
            self.path.pop();
        }
    }
}

impl ReplaySink for FileIndexer<'_> {
    fn position(&mut self, step: &Step<'_>) {
        let pos = step.position;
        if pos.size() != self.size {
            if self.other_size_game != Some(step.game) {
                self.other_size_game = Some(step.game);
                self.games_other_size += 1;
            }
            return;
        }
        if self.current_game != Some(step.game) {
            self.leave_to(None);
            self.current_game = Some(step.game);
            let [pb, pw, dt, re] = std::mem::take(&mut self.root);
            let winner = Winner::from_result(&re);
            self.games.push(FileGame {
                game_in_file: step.game as u32,
                moves: 0,
                winner,
                strings: [pb, pw, dt, re].join("\t"),
            });
        }
        let local = (self.games.len() - 1) as u32;
        let mut winner = 0;
        let in_variation = step.variation != 0;
        if let Some(g) = self.games.last_mut() {
            if !in_variation {
                g.moves = step.move_number;
            }
            winner = g.winner.code();
        }
        self.leave_to(step.parent);
        let size = self.size;
        if let Some(parent) = self.path.last_mut() {
            parent.has_child = true;
            // The parent's position, continued by this node's move (a node without a move
            // stands for its parent: setup changes the board, a comment node repeats it).
            if let Some(m) = step.mv {
                let sym = Symmetry::ALL[usize::from(parent.entry.sym & 7)];
                let mut e = entry_in(parent.entry, in_variation);
                e.next = match m.mv {
                    Move::Pass => NEXT_PASS,
                    Move::Play(pt) => sym.apply(pt, size).index(size) as u16,
                };
                self.entries.push(e);
            }
        }
        let canon = pos.canonical();
        let h2 = self.second_hash(pos, step);
        self.path.push(PathNode {
            node: step.node_index,
            entry: LocalEntry {
                h1: canon.hash,
                h2,
                to_play: step.to_play,
                game: local,
                move_number: step.move_number.min(u32::from(u16::MAX)) as u16,
                sym: canon.symmetry.index() as u8 | winner << summary::WIN_SHIFT,
                next: NEXT_NONE,
            },
            in_variation,
            has_child: false,
        });
    }

    fn game_error(&mut self, error: ReplayError) {
        self.games_failed += 1;
        if self.errors.len() < 100 {
            self.errors.push(error.to_string());
        }
    }
}

/// Forwards everything to the replayer and keeps the root's `PB`, `PW`, `DT`, `RE`.
struct RootProps<'a> {
    inner: Replayer<FileIndexer<'a>>,
    node_in_game: usize,
    moves_in_node: u32,
}

fn clean(text: String) -> String {
    text.replace(['\t', '\n', '\r'], " ")
}

impl Visitor for RootProps<'_> {
    fn begin_game(&mut self, offset: usize) {
        self.node_in_game = 0;
        self.inner.sink_mut().root = Default::default();
        self.inner.begin_game(offset);
    }
    fn end_game(&mut self, offset: usize) {
        self.inner.end_game(offset);
    }
    fn begin_variation(&mut self, offset: usize) -> Skip {
        self.inner.begin_variation(offset)
    }
    fn end_variation(&mut self, offset: usize) {
        self.inner.end_variation(offset);
    }
    fn begin_node(&mut self, offset: usize) {
        self.node_in_game += 1;
        self.moves_in_node = 0;
        self.inner.begin_node(offset);
    }
    fn property(&mut self, prop: &RawProperty<'_>) {
        // What can change the board besides one move: setup, or a second move in the node
        // (the sink then compares whole boards; see FileIndexer::second_hash).
        match prop.id {
            b"AB" | b"AW" | b"AE" => self.inner.sink_mut().dirty = true,
            b"B" | b"W" => {
                self.moves_in_node += 1;
                if self.moves_in_node > 1 {
                    self.inner.sink_mut().dirty = true;
                }
            }
            _ => {}
        }
        if self.node_in_game == 1 && !prop.values.is_empty() {
            let slot = match prop.id {
                b"PB" => Some(0),
                b"PW" => Some(1),
                b"DT" => Some(2),
                b"RE" => Some(3),
                _ => None,
            };
            if let Some(i) = slot {
                self.inner.sink_mut().root[i] = clean(Value::from_raw(prop.value(0)).simple_text());
            }
        }
        self.inner.property(prop);
    }
    fn diagnostic(&mut self, diagnostic: Diagnostic) {
        self.inner.diagnostic(diagnostic);
    }
}

struct FileResult {
    games: Vec<FileGame>,
    entries: Vec<LocalEntry>,
    failed: Option<String>,
    games_other_size: u64,
    games_failed: u64,
    errors: Vec<String>,
}

fn index_file(source: &Source, opts: &IndexOptions, second: &SecondHash) -> FileResult {
    let path = &source.path;
    let failed = |msg: String| FileResult {
        games: Vec::new(),
        entries: Vec::new(),
        failed: Some(format!("{}: {msg}", path.display())),
        games_other_size: 0,
        games_failed: 0,
        errors: Vec::new(),
    };
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return failed(format!("cannot read: {e}")),
    };
    let bytes = match source.kind {
        SourceKind::Sgf => bytes,
        // Ishi files are read through their SGF conversion (small files: the round trip
        // through text costs little and keeps one indexing path).
        SourceKind::Ishi => {
            let doc = kifu_ishi::read(&bytes).document;
            kifu_sgf::write(&kifu_ishi::to_sgf(&doc).collection).into_bytes()
        }
        SourceKind::Ascii => {
            return failed("ASCII positions are not games: there is nothing to index".into())
        }
    };
    let sink = FileIndexer {
        size: opts.size,
        second,
        rows: vec![b'.'; opts.size.points()],
        next_rows: vec![b'.'; opts.size.points()],
        rows_game: None,
        rows_node: 0,
        lanes: [0; 8],
        counts: [0; 2],
        dirty: false,
        games: Vec::new(),
        entries: Vec::new(),
        path: Vec::new(),
        current_game: None,
        other_size_game: None,
        games_other_size: 0,
        games_failed: 0,
        errors: Vec::new(),
        root: Default::default(),
    };
    let replay = ReplayOptions {
        scope: if opts.variations {
            Scope::AllVariations
        } else {
            Scope::MainLineOnly
        },
        keys: Some(opts.keys.clone()),
        ..Default::default()
    };
    let mut v = RootProps {
        inner: Replayer::new(replay, sink),
        node_in_game: 0,
        moves_in_node: 0,
    };
    let decoded = kifu_sgf::charset::decode(&bytes);
    kifu_sgf::read(&decoded.text, &mut v);
    let mut s = v.inner.into_sink();
    s.leave_to(None);
    FileResult {
        games: s.games,
        entries: s.entries,
        failed: None,
        games_other_size: s.games_other_size,
        games_failed: s.games_failed,
        errors: s
            .errors
            .into_iter()
            .map(|e| format!("{}: {e}", path.display()))
            .collect(),
    }
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_be_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}
fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes(b[at..at + 2].try_into().expect("2 bytes"))
}

/// Indexes the main lines (with [`IndexOptions::variations`], every variation too) of the games
/// of `sources` (SGF, or Ishi through its SGF conversion; ASCII positions are failed files) into
/// `out` (see the [module docs](self)), calling `progress` after each file.
pub fn build_index(
    sources: &[Source],
    opts: &IndexOptions,
    out: &mut dyn Write,
    progress: &(dyn Fn() + Sync),
) -> Result<IndexSummary, IndexError> {
    if opts.keys.size() != opts.size {
        return Err(IndexError::KeysSize {
            table: opts.keys.size(),
            size: opts.size,
        });
    }
    let second = SecondHash::new(opts.size);
    let mut sorter = ExternalSorter::new(ENTRY_BYTES, opts.memory_limit, opts.temp_dir.clone());
    let tmp = |d: &Option<PathBuf>| match d {
        Some(d) => tempfile::tempfile_in(d),
        None => tempfile::tempfile(),
    };
    let mut games_file = io::BufWriter::new(tmp(&opts.temp_dir)?);
    let mut strings_file = io::BufWriter::new(tmp(&opts.temp_dir)?);
    let mut strings_len = 0u64;
    let mut summary = IndexSummary::default();
    let mut file_table: Vec<(u64, u32)> = Vec::new();
    let batch = opts.batch.max(1);
    let mut rec = [0u8; ENTRY_BYTES];
    // Batches are replayed in parallel while the results of the one before are appended (a
    // serial step) at the same time.
    let compute = |chunk: &[Source]| -> Vec<FileResult> {
        chunk
            .par_iter()
            .map(|p| {
                let r = index_file(p, opts, &second);
                progress();
                r
            })
            .collect()
    };
    let mut chunks = sources.chunks(batch);
    let mut pending = chunks.next().map(|c| (c, compute(c)));
    while let Some((chunk, results)) = pending.take() {
        let next = chunks.next();
        let (done, computed) = rayon::join(
            || -> Result<(), IndexError> {
                for (r, source) in results.into_iter().zip(chunk) {
                    let file_no = u32::try_from(summary.files).map_err(|_| IndexError::TooMany)?;
                    summary.files += 1;
                    let name = source.path.display().to_string();
                    file_table.push((strings_len, name.len() as u32));
                    strings_file.write_all(name.as_bytes())?;
                    strings_len += name.len() as u64;
                    if let Some(e) = r.failed {
                        summary.files_failed += 1;
                        if summary.errors.len() < 100 {
                            summary.errors.push(e);
                        }
                        continue;
                    }
                    summary.games_other_size += r.games_other_size;
                    summary.games_failed += r.games_failed;
                    for e in r.errors {
                        if summary.errors.len() < 100 {
                            summary.errors.push(e);
                        }
                    }
                    let base = u32::try_from(summary.games).map_err(|_| IndexError::TooMany)?;
                    for g in &r.games {
                        let mut b = [0u8; GAME_BYTES];
                        b[0..4].copy_from_slice(&file_no.to_be_bytes());
                        b[4..8].copy_from_slice(&g.game_in_file.to_be_bytes());
                        b[8..12].copy_from_slice(&g.moves.to_be_bytes());
                        b[12] = g.winner.byte();
                        b[16..24].copy_from_slice(&strings_len.to_be_bytes());
                        b[24..28].copy_from_slice(&(g.strings.len() as u32).to_be_bytes());
                        games_file.write_all(&b)?;
                        strings_file.write_all(g.strings.as_bytes())?;
                        strings_len += g.strings.len() as u64;
                    }
                    summary.games += r.games.len() as u64;
                    for e in &r.entries {
                        rec[0..8].copy_from_slice(&e.h1.to_be_bytes());
                        rec[8..16].copy_from_slice(&e.h2.to_be_bytes());
                        rec[16] = e.to_play.letter() as u8;
                        rec[17..21].copy_from_slice(&(base + e.game).to_be_bytes());
                        rec[21..23].copy_from_slice(&e.move_number.to_be_bytes());
                        rec[23] = e.sym;
                        rec[24..26].copy_from_slice(&e.next.to_be_bytes());
                        sorter.push(&rec)?;
                    }
                    summary.entries += r.entries.len() as u64;
                }
                Ok(())
            },
            || next.map(|c| (c, compute(c))),
        );
        done?;
        pending = computed;
    }
    let mut runs = sorter.finish()?;
    summary.spilled_runs = runs.spilled_runs() as u64;
    let zobrist = opts.keys.table().to_text();
    let z_off = HEADER as u64;
    let e_off = z_off + zobrist.len() as u64;
    let g_off = e_off + summary.entries * ENTRY_BYTES as u64;
    let f_off = g_off + summary.games * GAME_BYTES as u64;
    let s_off = f_off + summary.files * FILE_BYTES as u64;
    let threshold = opts.summary_threshold.max(1);
    let mut h = [0u8; HEADER];
    h[..8].copy_from_slice(MAGIC);
    h[8] = opts.size.get();
    if opts.variations {
        h[9] = FLAG_VARIATIONS;
    }
    for (i, v) in [
        summary.entries,
        summary.games,
        summary.files,
        z_off,
        zobrist.len() as u64,
        e_off,
        g_off,
        f_off,
        strings_len,
        threshold,
    ]
    .into_iter()
    .enumerate()
    {
        h[16 + i * 8..24 + i * 8].copy_from_slice(&v.to_be_bytes());
    }
    out.write_all(&h)?;
    out.write_all(zobrist.as_bytes())?;
    let mut sums = SummaryBuilder::new(
        threshold,
        summary.games,
        io::BufWriter::new(tmp(&opts.temp_dir)?),
        io::BufWriter::new(tmp(&opts.temp_dir)?),
    );
    if let Some(sorted) = runs.in_memory() {
        out.write_all(sorted)?;
        for (i, e) in sorted.chunks_exact(ENTRY_BYTES).enumerate() {
            sums.push(i as u64, e)?;
        }
    } else {
        let mut m = runs.merge()?;
        let mut e = Vec::new();
        let mut i = 0u64;
        while m.next_into(&mut e)? {
            out.write_all(&e)?;
            sums.push(i, &e)?;
            i += 1;
        }
    }
    let (data, dir, data_len, summaries) = sums.finish()?;
    let copy = |w: io::BufWriter<File>, out: &mut dyn Write| -> io::Result<()> {
        let mut f = w.into_inner().map_err(|e| e.into_error())?;
        f.seek(SeekFrom::Start(0))?;
        io::copy(&mut BufReader::new(f), out)?;
        Ok(())
    };
    copy(games_file, out)?;
    for (off, len) in &file_table {
        let mut b = [0u8; FILE_BYTES];
        b[..8].copy_from_slice(&off.to_be_bytes());
        b[8..].copy_from_slice(&len.to_be_bytes());
        out.write_all(&b)?;
    }
    copy(strings_file, out)?;
    copy(data, out)?;
    copy(dir, out)?;
    let mut t = [0u8; TRAILER];
    t[..8].copy_from_slice(TRAILER_MAGIC);
    t[8..16].copy_from_slice(&summaries.to_be_bytes());
    t[16..24].copy_from_slice(&(s_off + strings_len + data_len).to_be_bytes());
    out.write_all(&t)?;
    summary.summaries = summaries;
    Ok(summary)
}

mod reader;
pub mod summary;
pub use reader::{Continuation, IndexReader, LookupPage, LookupResult, Occurrence};
use summary::SummaryBuilder;
pub use summary::SUMMARY_THRESHOLD;

#[cfg(test)]
mod tests {
    use super::*;

    fn srcs(paths: &[PathBuf]) -> Vec<Source> {
        paths.iter().map(Source::new).collect()
    }
    use kifu_go::Board;

    #[test]
    fn results_name_winners() {
        let cases = [
            ("B+R", Winner::Black),
            ("w+3.5", Winner::White),
            ("0", Winner::Draw),
            ("Jigo", Winner::Draw),
            ("Void", Winner::Unknown),
            ("", Winner::Unknown),
        ];
        for (re, w) in cases {
            assert_eq!(Winner::from_result(re), w, "{re}");
            assert_eq!(Winner::from_byte(w.byte()), w);
        }
        assert_eq!(Winner::Black.swapped(), Winner::White);
    }

    /// The second hash kept up to date (fast path and board comparison) equals a full hash at
    /// every position (the sink asserts it in unit tests): the corpus's 19x19 and 9x9 games, and
    /// games with setup in move nodes, two moves in a node, captures, a move onto a stone,
    /// passes and comment nodes. The index is the same for the two paths by construction.
    #[test]
    fn second_hash_kept_up_to_date_equals_a_full_hash() {
        let dir = tempfile::tempdir().unwrap();
        let tricky = [
            "(;GM[1]SZ[5];B[aa]AB[bb];W[cc]AE[bb];C[x];B[dd]W[ee];W[];AW[ab]AB[ac];B[ad])",
            "(;GM[1]SZ[5];B[ba];W[aa];B[ab];W[bb];B[aa])(;GM[1]SZ[5]AB[aa][bb];W[aa];B[ab]PL[B])",
            "(;GM[1]SZ[5];B[cc];W[cc];B[];W[];B[dc];AE[dc];W[dc])",
            "(;GM[1]SZ[5];B[ab];W[ba];B[bb];W[ca];B[ac];W[aa];B[da];W[ea];B[cb])",
            // Siblings that each add one stone to the same parent, and a capture in one branch.
            "(;GM[1]SZ[5];B[aa](;W[bb];B[cc])(;W[cc];B[bb])(;W[ab];B[ba];W[dd](;B[ee])(;B[ed])))",
        ];
        let mut paths = Vec::new();
        for (i, t) in tricky.iter().enumerate() {
            let p = dir.path().join(format!("{i}.sgf"));
            std::fs::write(&p, t).unwrap();
            paths.push(p);
        }
        for variations in [false, true] {
            let mut opts = IndexOptions::new(BoardSize::new(5).unwrap());
            opts.variations = variations;
            let s = build_index(&srcs(&paths), &opts, &mut io::sink(), &|| {}).unwrap();
            assert_eq!((s.games, s.games_failed), (6, 0));
        }
        let files = kifu_testdata::sgf_files(&kifu_testdata::corpus().join("sgf/games"));
        assert!(files.len() > 9000);
        for (size, variations) in [(19, false), (9, false), (19, true), (9, true)] {
            let mut opts = IndexOptions::new(BoardSize::new(size).unwrap());
            opts.variations = variations;
            let s = build_index(&srcs(&files), &opts, &mut io::sink(), &|| {}).unwrap();
            assert!(s.entries > 20_000, "{size}: {}", s.entries);
        }
    }

    /// Every variation indexed: one entry per continuation of a node, one for each leaf, moves
    /// of variations marked and left out of win rates; the second hash stays right when a
    /// variation branches from an earlier node.
    #[test]
    fn variations_are_indexed_once_per_continuation() {
        let dir = tempfile::tempdir().unwrap();
        let g = dir.path().join("v.sgf");
        // Nodes: 0 root, 1 B[aa], 2 W[bb], 3 B[cc] (main line); 4 W[dd], 5 B[ee] (variation
        // 1); 6 a comment node after W[dd], 7 B[ac] (variation 2).
        std::fs::write(
            &g,
            "(;GM[1]SZ[5]RE[B+R];B[aa](;W[bb];B[cc])(;W[dd](;B[ee])(;C[x];B[ac])))",
        )
        .unwrap();
        let size = BoardSize::new(5).unwrap();
        let build = |variations: bool| {
            let mut opts = IndexOptions::new(size);
            opts.variations = variations;
            let mut bytes = Vec::new();
            let s = build_index(&[Source::new(&g)], &opts, &mut bytes, &|| {}).unwrap();
            let p = dir.path().join(format!("db{variations}"));
            std::fs::write(&p, &bytes).unwrap();
            (s, IndexReader::open(&p).unwrap())
        };
        let (main, main_db) = build(false);
        let (all, db) = build(true);
        assert_eq!(
            (main.games, main.entries, main_db.variations()),
            (1, 4, false)
        );
        // root; B[aa] twice (W[bb], W[dd]); W[bb]; B[cc]; W[dd] twice (B[ee], and B[ac] after the
        // comment node); B[ee]; B[ac].
        assert_eq!((all.games, all.entries, db.variations()), (1, 9, true));
        assert_eq!(db.game(0).unwrap().moves, 3, "moves of the main line");
        let pt = |s: &str| Move::Play(kifu_go::Point::from_sgf(s.as_bytes(), size).unwrap());
        let after_aa = Board::from_rows(b"#........................", Some(size)).unwrap();
        let r = db.lookup(&after_aa, Color::White, false).unwrap();
        let seen: Vec<_> = r
            .occurrences
            .iter()
            .map(|o| (o.game, o.move_number, o.next, o.in_variation))
            .collect();
        assert_eq!(seen.len(), 2);
        assert!(seen.contains(&(0, 1, Some(pt("bb")), false)));
        assert!(seen.contains(&(0, 1, Some(pt("dd")), true)));
        let mut conts: Vec<_> = r
            .continuations
            .iter()
            .map(|c| (c.mv, c.count, c.black_wins, c.white_wins))
            .collect();
        conts.sort_by_key(|c| c.0 == pt("dd"));
        // Only the main line's move counts the game's win.
        assert_eq!(conts, [(pt("bb"), 1, 1, 0), (pt("dd"), 1, 0, 0)]);
        let main_r = main_db.lookup(&after_aa, Color::White, false).unwrap();
        assert_eq!(main_r.occurrences.len(), 1);
        // After W[dd]: only in variations, continued by B[ee] and (after the comment) B[ac].
        let after_dd = Board::from_rows(b"#.................O......", Some(size)).unwrap();
        let r = db.lookup(&after_dd, Color::Black, false).unwrap();
        let mut nexts: Vec<_> = r
            .occurrences
            .iter()
            .map(|o| (o.move_number, o.next, o.in_variation))
            .collect();
        // The position is symmetric about the diagonal: A3 (ac) is named by the representative
        // of its class {ac, ca}, the lower point index, C5 (ca).
        nexts.sort_by_key(|n| n.1 == Some(pt("ca")));
        assert_eq!(
            nexts,
            [(2, Some(pt("ee")), true), (2, Some(pt("ca")), true)]
        );
        let page = db.lookup_page(&after_dd, Color::Black, false, 20).unwrap();
        assert_eq!((page.occurrences, page.games), (2, 1));
        assert!(main_db
            .lookup(&after_dd, Color::Black, false)
            .unwrap()
            .occurrences
            .is_empty());
        // The leaves: B[ac] ends variation 2 with no next move.
        let after_ac = Board::from_rows(b"#.........#.......O......", Some(size)).unwrap();
        let r = db.lookup(&after_ac, Color::White, false).unwrap();
        assert_eq!(r.occurrences.len(), 1);
        assert_eq!(
            (r.occurrences[0].next, r.occurrences[0].in_variation),
            (None, true)
        );
    }

    #[test]
    fn summary_counts_from_a_damaged_file_do_not_overflow() {
        // Found by fuzzing posdb_index: a summary whose continuation counts sum past u64::MAX.
        let bytes =
            include_bytes!("../../../../fuzz/seeds/posdb_index/regression-summary-overflow.idx");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("damaged.idx");
        std::fs::write(&path, bytes).unwrap();
        let db = IndexReader::open(&path).unwrap();
        let board = Board::new(db.size());
        // Errors are fine; a panic is not. Sums of stored counts saturate instead of wrapping.
        assert!(db.lookup(&board, Color::Black, true).is_ok());
        assert!(db.lookup_page(&board, Color::Black, true, 20).is_err());
        let page = db.lookup_page(&board, Color::White, false, 20).unwrap();
        assert_eq!((page.occurrences, page.games), (2, 2));
        let counts: Vec<_> = page
            .continuations
            .iter()
            .map(|c| (c.count, c.black_wins, c.white_wins))
            .collect();
        assert_eq!(counts, [(u64::MAX, 0, 0)]);
    }

    #[test]
    fn build_open_lookup_and_damaged_files() {
        let dir = tempfile::tempdir().unwrap();
        let g = dir.path().join("g.sgf");
        std::fs::write(&g, "(;GM[1]SZ[5]PB[x\ty]RE[B+1];B[cc];W[bb];B[])").unwrap();
        let mut bytes = Vec::new();
        let size = BoardSize::new(5).unwrap();
        let s = build_index(
            &[Source::new(&g)],
            &IndexOptions::new(size),
            &mut bytes,
            &|| {},
        )
        .unwrap();
        assert_eq!((s.games, s.entries, s.files), (1, 4, 1));
        assert_eq!(
            bytes.len() as u64,
            96 + ZobristTable::generate(size).to_text().len() as u64
                + 4 * 26
                + 32
                + 12
                + g.display().to_string().len() as u64
                + "x y\t\t\tB+1".len() as u64
                + 24
        );
        let p = dir.path().join("db");
        std::fs::write(&p, &bytes).unwrap();
        let db = IndexReader::open(&p).unwrap();
        let game = db.game(0).unwrap();
        assert_eq!(
            (
                game.black.as_str(),
                game.result.as_str(),
                game.moves,
                game.winner
            ),
            ("x y", "B+1", 3, Winner::Black)
        );
        // After B[cc] W[bb]: Black to play, and Black passed.
        let board = Board::from_rows(b"......O.....#............", Some(size)).unwrap();
        let r = db.lookup(&board, Color::Black, false).unwrap();
        assert_eq!(r.occurrences.len(), 1);
        assert_eq!(r.occurrences[0].next, Some(Move::Pass));
        assert_eq!(r.continuations[0].mv, Move::Pass);
        assert!(db
            .lookup(&Board::new(BoardSize::NINE), Color::Black, false)
            .is_err());
        // Damaged files are errors, never panics.
        for cut in [0usize, 10, 79, 100, bytes.len() - 50] {
            std::fs::write(&p, &bytes[..cut]).unwrap();
            assert!(IndexReader::open(&p).is_err(), "cut {cut}");
        }
        // A torn file (the trailer cut) is refused; so is format 1.
        for cut in [1, 24, 30] {
            std::fs::write(&p, &bytes[..bytes.len() - cut]).unwrap();
            assert!(matches!(IndexReader::open(&p), Err(IndexError::Format(_))));
        }
        let mut bad = bytes.clone();
        bad[0] = b'X';
        std::fs::write(&p, &bad).unwrap();
        assert!(matches!(
            IndexReader::open(&p),
            Err(IndexError::Format("bad magic"))
        ));
        bad[..8].copy_from_slice(b"KIFUPIX1");
        std::fs::write(&p, &bad).unwrap();
        let e = IndexReader::open(&p).unwrap_err();
        assert!(matches!(e, IndexError::OldFormat(1)));
        assert_eq!(
            e.to_string(),
            "an index of format 1 (from an older kifu): rebuild it with `kifu pos index`"
        );
    }

    /// Every key summarized (threshold 1) or none: the same pages as a full scan, with colours
    /// swapped too (games found under both keys counted once, through lists and bitmaps).
    #[test]
    fn summaries_of_every_key_give_the_scan_answers() {
        let dir = tempfile::tempdir().unwrap();
        let size = BoardSize::new(5).unwrap();
        let games = [
            "(;GM[1]SZ[5]RE[B+1];B[cc];W[bb];B[dd];W[])",
            "(;GM[1]SZ[5]RE[W+1];W[cc];B[bb];W[dd])",
            "(;GM[1]SZ[5]RE[W+R];B[aa];W[];B[];W[ee])",
            "(;GM[1]SZ[5]RE[0];B[ee];W[aa];B[cc])",
            "(;GM[1]SZ[5];B[cc];W[dd];B[bb])",
            "(;GM[1]SZ[5]RE[W+1];B[];W[cc];B[dd])",
            // Variations that transpose into each other and into game 0.
            "(;GM[1]SZ[5]RE[B+2];B[cc](;W[bb];B[dd])(;W[dd];B[bb];W[])(;W[bb];C[x];B[ee]))",
        ];
        let paths: Vec<PathBuf> = games
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let p = dir.path().join(format!("{i}.sgf"));
                std::fs::write(&p, g).unwrap();
                p
            })
            .collect();
        let mut all_dbs = Vec::new();
        for variations in [false, true] {
            let mut dbs = Vec::new();
            for threshold in [1, 2, 1000] {
                let mut opts = IndexOptions::new(size);
                opts.summary_threshold = threshold;
                opts.variations = variations;
                let mut bytes = Vec::new();
                let s = build_index(&srcs(&paths), &opts, &mut bytes, &|| {}).unwrap();
                assert_eq!(s.summaries > 0, threshold < 1000);
                let p = dir.path().join(format!("{threshold}-{variations}.idx"));
                std::fs::write(&p, &bytes).unwrap();
                dbs.push(IndexReader::open(&p).unwrap());
            }
            all_dbs.push(dbs);
        }
        // Every position of every game and variation, and the empty board.
        let mut queries = vec![
            (Board::new(size), Color::Black),
            (Board::new(size), Color::White),
        ];
        let opts = ReplayOptions::default();
        for p in &paths {
            let bytes = std::fs::read(p).unwrap();
            let _ = kifu_go::replay::replay_bytes(&bytes, &opts, |s: &Step<'_>| {
                queries.push((s.position.board(), s.to_play));
            });
        }
        for (board, to_play) in &queries {
            for (swap, dbs) in [false, true]
                .into_iter()
                .flat_map(|s| all_dbs.iter().map(move |d| (s, d)))
            {
                let full = dbs[2].lookup(board, *to_play, swap).unwrap();
                for db in dbs {
                    assert_eq!(db.lookup(board, *to_play, swap).unwrap(), full);
                    for limit in [0, 1, 2, 10] {
                        assert_eq!(
                            db.lookup_page(board, *to_play, swap, limit).unwrap(),
                            LookupPage::from_result(&full, limit)
                        );
                    }
                }
            }
        }
        // Damaged summaries, directory or trailer: errors or answers, never a panic.
        let mut opts = IndexOptions::new(size);
        opts.summary_threshold = 1;
        let mut bytes = Vec::new();
        build_index(&srcs(&paths), &opts, &mut bytes, &|| {}).unwrap();
        let db1 = IndexReader::open(&dir.path().join("1-false.idx")).unwrap();
        let from = (db1.sum_off_for_tests() as usize).min(bytes.len());
        let p = dir.path().join("bad.idx");
        for at in from..bytes.len() {
            for v in [0u8, 0xFF, bytes[at] ^ 1] {
                let mut bad = bytes.clone();
                bad[at] = v;
                std::fs::write(&p, &bad).unwrap();
                if let Ok(db) = IndexReader::open(&p) {
                    for (board, to_play) in &queries[..4] {
                        let _ = db.lookup_page(board, *to_play, true, 3);
                        let _ = db.lookup_page(board, *to_play, false, 3);
                    }
                }
            }
        }
        // The empty board, Black to play: every game at its root (game 1's root too: the side to
        // play at a root is Black); White to play (colours swapped): game 5, after Black's pass.
        // Game 5 counts once.
        for db in all_dbs.iter().flatten() {
            let p = db
                .lookup_page(&Board::new(size), Color::Black, true, 10)
                .unwrap();
            assert_eq!((p.occurrences, p.games, p.swapped), (8, 7, 1));
        }
        // After B[cc] W[bb] B[dd] (White to play): game 0 (Black won) on its main line; game 4
        // (rotated by 180 degrees, its last move); game 6 on its main line (a leaf) and through
        // the transposition W[dd] B[bb] of its second variation, continued by a pass there.
        let board = Board::from_rows(b"......O.....#.....#......", Some(size)).unwrap();
        let main = all_dbs[0][0].lookup(&board, Color::White, false).unwrap();
        let all = all_dbs[1][0].lookup(&board, Color::White, false).unwrap();
        let seen = |r: &LookupResult| {
            let mut v: Vec<_> = r
                .occurrences
                .iter()
                .map(|o| (o.game, o.move_number, o.next, o.in_variation))
                .collect();
            v.sort_by_key(|o| (o.0, o.3));
            v
        };
        assert_eq!(
            seen(&main),
            [
                (0, 3, Some(Move::Pass), false),
                (4, 3, None, false),
                (6, 3, None, false)
            ]
        );
        assert_eq!(
            seen(&all),
            [
                (0, 3, Some(Move::Pass), false),
                (4, 3, None, false),
                (6, 3, None, false),
                (6, 3, Some(Move::Pass), true)
            ]
        );
        // The pass: game 0's counts Black's win, the variation's counts nothing.
        assert_eq!(
            all.continuations
                .iter()
                .map(|c| (c.mv, c.count, c.black_wins, c.white_wins))
                .collect::<Vec<_>>(),
            [(Move::Pass, 2, 1, 0)]
        );
    }
}
