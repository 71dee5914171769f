//! [`Position`]: a board under the rules, with captures, ko, prisoners and the 8 symmetric hashes kept
//! up to date on every stone added or removed.
//!
//! # How it is fast
//! The board is a flat array with a one-point border (stride `n + 2`), so neighbours are `±1` and
//! `±stride` and edges need no tests. Stones of a string are chained in a ring (`next`), each knows
//! its string's head, and the head keeps the stone count and the *pseudo-liberty* count (empty points
//! counted once per adjacent stone). A string is captured exactly when its pseudo-liberties reach 0,
//! which is all that capture, suicide and ko need. Merging relabels the smaller string. Nothing is
//! allocated per move (the superko history, when enabled, is a hash set that grows). All arrays have
//! the fixed 25x25 capacity, so cloning a position (at a variation) is one copy with no allocation.
//!
//! # Forced moves (replaying records)
//! A record may contain an illegal move; SGF says (`KO[]`) that it is executed anyway.
//! [`Position::play_forced`] does this, with these semantics:
//! - onto an occupied point: the stone there is removed first (not counted as a prisoner), then the
//!   move is played as usual; this is "the new stone replaces the old one". Such a move never sets
//!   a ko (retaking cannot bring back the board from before the replacement);
//! - a ko retake or a superko repetition: played as usual;
//! - suicide: played, and the string left without liberties is removed and counted as prisoners of
//!   the opponent, as under rules that allow suicide.
//!
//! The violation is returned in [`PlayOutcome::violation`] so the caller can report it.

use crate::board::Board;
use crate::coord::{BoardSize, Color, CoordError, Move, Point};
use crate::rules::{IllegalMove, Rules};
use crate::zobrist::{CanonicalHash, SymmetricHashes, ZobristKeys};
use std::collections::HashSet;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

const MAX_STRIDE: usize = BoardSize::MAX as usize + 2;
const CAP: usize = MAX_STRIDE * MAX_STRIDE;

const EMPTY: u8 = 0;
const BLACK: u8 = 1;
const WHITE: u8 = 2;
const BORDER: u8 = 3;

#[inline(always)]
fn cell_of(c: Color) -> u8 {
    c as u8 + 1
}

#[inline(always)]
fn is_stone(cell: u8) -> bool {
    cell == BLACK || cell == WHITE
}

#[inline(always)]
fn color_of(cell: u8) -> Color {
    if cell == BLACK {
        Color::Black
    } else {
        Color::White
    }
}

/// A move with the colour that played it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PlayedMove {
    /// Who played.
    pub color: Color,
    /// What was played.
    pub mv: Move,
}

/// What a move did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PlayOutcome {
    /// Opponent stones captured.
    pub captured: u32,
    /// Own stones removed by suicide (allowed by the rules, or forced).
    pub suicided: u32,
    /// The stone removed because a forced move was played onto it.
    pub replaced: Option<Color>,
    /// The rule the move broke, for a forced move that was illegal (`None` for legal moves).
    pub violation: Option<IllegalMove>,
}

/// A compact copy of a position's state (crate-internal: variations in replay).
#[derive(Debug, Clone)]
pub(crate) struct Snapshot {
    cells: Vec<u8>,
    to_play: Color,
    ko: usize,
    ko_color: Color,
    prisoners: [u32; 2],
    last_move: Option<PlayedMove>,
    move_number: u32,
    passes: u32,
}

impl Default for Snapshot {
    fn default() -> Self {
        Snapshot {
            cells: Vec::new(),
            to_play: Color::Black,
            ko: 0,
            ko_color: Color::Black,
            prisoners: [0; 2],
            last_move: None,
            move_number: 0,
            passes: 0,
        }
    }
}

/// A hasher for keys that are already Zobrist hashes.
#[derive(Default, Clone)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

type History = HashSet<u64, BuildHasherDefault<PassThrough>>;

/// A Go position: stones, side to play, ko, prisoners, move number, last move, and the 8 symmetric
/// Zobrist hashes, under a set of [`Rules`].
#[derive(Clone)]
pub struct Position {
    size: BoardSize,
    stride: usize,
    rules: Rules,
    cell: [u8; CAP],
    next: [u16; CAP],
    head: [u16; CAP],
    libs: [u16; CAP],
    count: [u16; CAP],
    hashes: [u64; 8],
    keys: Arc<ZobristKeys>,
    to_play: Color,
    // Padded index of the point the player `ko_color` may not play on at once; 0 for none (index 0
    // is a border point).
    ko: usize,
    ko_color: Color,
    prisoners: [u32; 2],
    stones: [u32; 2],
    last_move: Option<PlayedMove>,
    move_number: u32,
    passes: u32,
    history: Option<Box<History>>,
    /// A rectangle inside the square (see `rectangular`): some points inside the square are border.
    rect: bool,
}

impl Position {
    /// An empty board of `size` with the default rules and kifu's own Zobrist table; Black to play.
    pub fn new(size: BoardSize) -> Position {
        Position::with_keys(ZobristKeys::default_for(size), Rules::default())
    }

    /// An empty board with the given rules and kifu's own Zobrist table.
    pub fn with_rules(size: BoardSize, rules: Rules) -> Position {
        Position::with_keys(ZobristKeys::default_for(size), rules)
    }

    /// An empty board of the keys' size, hashed with `keys` (e.g. from a published
    /// `zobrist_board_81.dat`); Black to play.
    pub fn with_keys(keys: Arc<ZobristKeys>, rules: Rules) -> Position {
        let size = keys.size();
        let n = usize::from(size.get());
        let stride = n + 2;
        let mut cell = [BORDER; CAP];
        for row in 0..n {
            let start = (row + 1) * stride + 1;
            cell[start..start + n].fill(EMPTY);
        }
        Position {
            size,
            stride,
            rules,
            cell,
            next: [0; CAP],
            head: [0; CAP],
            libs: [0; CAP],
            count: [0; CAP],
            hashes: [0; 8],
            keys,
            to_play: Color::Black,
            ko: 0,
            ko_color: Color::Black,
            prisoners: [0; 2],
            stones: [0; 2],
            last_move: None,
            move_number: 0,
            passes: 0,
            history: rules.positional_superko.then(Default::default),
            rect: false,
        }
    }

    /// A position with the stones of `board` (placed as setup: nothing is captured), `to_play` to
    /// move, and kifu's own Zobrist table.
    pub fn from_board(board: &Board, to_play: Color, rules: Rules) -> Position {
        let mut pos = Position::with_rules(board.size(), rules);
        for (p, c) in board.stones() {
            let pad = pos.pad(p);
            pos.place_stone(c, pad);
        }
        pos.to_play = to_play;
        pos
    }

    /// Like [`Position::from_board`], hashed with `keys` (e.g. from a published table file).
    /// The board and the keys must be of the same size.
    pub fn from_board_with_keys(
        board: &Board,
        to_play: Color,
        rules: Rules,
        keys: Arc<ZobristKeys>,
    ) -> Result<Position, CoordError> {
        if keys.size() != board.size() {
            return Err(CoordError::SizeMismatch {
                expected: keys.size().get(),
                found: board.size().get(),
            });
        }
        let mut pos = Position::with_keys(keys, rules);
        for (p, c) in board.stones() {
            let pad = pos.pad(p);
            pos.place_stone(c, pad);
        }
        pos.to_play = to_play;
        Ok(pos)
    }

    /// The board size.
    #[inline]
    pub fn size(&self) -> BoardSize {
        self.size
    }

    /// The rules in force.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The Zobrist keys the hashes use.
    pub fn zobrist(&self) -> &Arc<ZobristKeys> {
        &self.keys
    }

    /// Who plays next: the opponent of the last mover, or as set by [`Position::set_to_play`].
    #[inline]
    pub fn to_play(&self) -> Color {
        self.to_play
    }

    /// Sets who plays next (SGF `PL`). Does not change the board or the ko.
    pub fn set_to_play(&mut self, color: Color) {
        self.to_play = color;
    }

    /// The stone on `p` (`None` if empty or off this board).
    #[inline]
    pub fn stone_at(&self, p: Point) -> Option<Color> {
        if !p.is_on(self.size) {
            return None;
        }
        match self.cell[self.pad(p)] {
            BLACK => Some(Color::Black),
            WHITE => Some(Color::White),
            _ => None,
        }
    }

    /// The stones as a [`Board`] (for diagrams, rows, symmetries).
    pub fn board(&self) -> Board {
        let mut b = Board::new(self.size);
        for p in self.size.all_points() {
            if let Some(c) = self.stone_at(p) {
                let _ = b.set(p, Some(c));
            }
        }
        b
    }

    /// Writes the PositionDB rows (`#` black, `O` white, `.` empty, row by row from the top-left;
    /// what [`Board::to_rows`] gives for [`Position::board`]) into `out` without allocating: the
    /// first `n * n` bytes, or as many whole rows as `out` holds.
    pub fn write_rows(&self, out: &mut [u8]) {
        let n = usize::from(self.size.get());
        for (row, line) in out.chunks_exact_mut(n).take(n).enumerate() {
            let base = (row + 1) * self.stride + 1;
            for (o, &c) in line.iter_mut().zip(&self.cell[base..base + n]) {
                *o = match c {
                    BLACK => b'#',
                    WHITE => b'O',
                    _ => b'.',
                };
            }
        }
    }

    /// Writes the stones as cell codes (0 empty, 1 black, 2 white, row by row from the
    /// top-left, as [`Position::write_rows`] orders them) into `out`: the first `n * n` bytes, or
    /// as many whole rows as `out` holds. The codes are the board's own, so each row is one copy:
    /// this is how the Python package fills its board arrays.
    pub fn write_cells(&self, out: &mut [u8]) {
        match self.size.get() {
            19 => self.write_cells_of::<19>(out),
            13 => self.write_cells_of::<13>(out),
            9 => self.write_cells_of::<9>(out),
            n => {
                let n = usize::from(n);
                for (row, line) in out.chunks_exact_mut(n).take(n).enumerate() {
                    let base = (row + 1) * self.stride + 1;
                    line.copy_from_slice(&self.cell[base..base + n]);
                }
            }
        }
    }

    /// [`Position::write_cells`] with rows of a known length: copies without a call a row.
    fn write_cells_of<const N: usize>(&self, out: &mut [u8]) {
        const _: () = assert!(EMPTY == 0 && BLACK == 1 && WHITE == 2);
        for (row, line) in out.chunks_exact_mut(N).take(N).enumerate() {
            let base = (row + 1) * self.stride + 1;
            let from: &[u8; N] = self.cell[base..base + N]
                .try_into()
                .expect("a row of N cells");
            let to: &mut [u8; N] = line.try_into().expect("a row of N cells");
            *to = *from;
        }
    }

    /// Appends the stones as cell codes to `out`, as [`Position::write_cells`] writes them
    /// (`n * n` bytes). The common sizes copy rows of a known length, without a call a row.
    pub fn push_cells(&self, out: &mut Vec<u8>) {
        match self.size.get() {
            19 => self.push_cells_of::<19>(out),
            13 => self.push_cells_of::<13>(out),
            9 => self.push_cells_of::<9>(out),
            n => {
                let n = usize::from(n);
                out.reserve(n * n);
                for row in 0..n {
                    let base = (row + 1) * self.stride + 1;
                    out.extend_from_slice(&self.cell[base..base + n]);
                }
            }
        }
    }

    fn push_cells_of<const N: usize>(&self, out: &mut Vec<u8>) {
        const _: () = assert!(EMPTY == 0 && BLACK == 1 && WHITE == 2);
        out.reserve(N * N);
        for row in 0..N {
            let base = (row + 1) * self.stride + 1;
            let line: &[u8; N] = self.cell[base..base + N]
                .try_into()
                .expect("a row of N cells");
            out.extend_from_slice(line);
        }
    }

    /// The prisoners `color` holds: opponent stones it captured, plus opponent stones removed by the
    /// opponent's own suicide.
    #[inline]
    pub fn prisoners(&self, color: Color) -> u32 {
        self.prisoners[color.index()]
    }

    /// The number of stones of `color` on the board.
    #[inline]
    pub fn stone_count(&self, color: Color) -> u32 {
        self.stones[color.index()]
    }

    /// Moves (plays and passes) made so far; setup does not count.
    #[inline]
    pub fn move_number(&self) -> u32 {
        self.move_number
    }

    /// Passes in a row at the end of the moves so far.
    pub fn consecutive_passes(&self) -> u32 {
        self.passes
    }

    /// The last move made, if any.
    pub fn last_move(&self) -> Option<PlayedMove> {
        self.last_move
    }

    /// The point where the opponent of the last mover may not play at once (simple ko), if any.
    pub fn ko_point(&self) -> Option<Point> {
        (self.ko != 0).then(|| self.point_of(self.ko))
    }

    /// The 8 symmetric hashes of the board.
    #[inline]
    pub fn hashes(&self) -> SymmetricHashes {
        SymmetricHashes(self.hashes)
    }

    /// The plain hash of the board (symmetry 0).
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hashes[0]
    }

    /// The canonical hash: the lowest of the 8 and its symmetry (the PositionDB key).
    #[inline]
    pub fn canonical(&self) -> CanonicalHash {
        SymmetricHashes(self.hashes).canonical()
    }

    /// Whether `color` may play `mv` now; the error says why not. Passes are always legal.
    pub fn check(&self, color: Color, mv: Move) -> Result<(), IllegalMove> {
        match mv {
            Move::Pass => Ok(()),
            Move::Play(p) => {
                let pad = self.checked_pad(p)?;
                self.check_pad(color, pad).map(|_| ())
            }
        }
    }

    /// Plays `mv` for `color` if it is legal, with its captures; the side to play becomes the
    /// opponent. An illegal move changes nothing and says why.
    pub fn play(&mut self, color: Color, mv: Move) -> Result<PlayOutcome, IllegalMove> {
        match mv {
            Move::Pass => {
                self.pass(color);
                Ok(PlayOutcome::default())
            }
            Move::Play(p) => {
                let pad = self.checked_pad(p)?;
                self.check_pad(color, pad)?;
                self.remember();
                let (captured, suicided) = self.resolve(color, pad);
                self.after_play(color, mv);
                Ok(PlayOutcome {
                    captured,
                    suicided,
                    replaced: None,
                    violation: None,
                })
            }
        }
    }

    /// Plays `mv` for `color` whatever the rules say (SGF `KO[]`, or replaying a record), with the
    /// semantics in the [module docs](self); the broken rule, if any, is in
    /// [`PlayOutcome::violation`]. Fails only for a point off this board.
    pub fn play_forced(&mut self, color: Color, mv: Move) -> Result<PlayOutcome, IllegalMove> {
        let p = match mv {
            Move::Pass => {
                self.pass(color);
                return Ok(PlayOutcome::default());
            }
            Move::Play(p) => p,
        };
        let pad = self.checked_pad(p)?;
        if self.history.is_none() && self.cell[pad] == EMPTY {
            // The common case, without the separate legality pass: a move onto an empty point is a
            // suicide exactly when `resolve` ends up removing the mover's own string (no liberty
            // and no capture), and the ko test is one comparison. Replaying records is mostly this.
            let ko = pad == self.ko && color == self.ko_color;
            let (captured, suicided) = self.resolve(color, pad);
            let violation = if ko {
                Some(IllegalMove::Ko { point: p })
            } else if suicided > 0 && !self.rules.suicide_allowed {
                Some(IllegalMove::Suicide { point: p })
            } else {
                None
            };
            self.after_play(color, mv);
            return Ok(PlayOutcome {
                captured,
                suicided,
                replaced: None,
                violation,
            });
        }
        let violation = self.check_pad(color, pad).err();
        self.remember();
        let replaced = if self.cell[pad] != EMPTY {
            let c = color_of(self.cell[pad]);
            self.remove_one(pad);
            Some(c)
        } else {
            None
        };
        let (captured, suicided) = self.resolve(color, pad);
        if replaced.is_some() {
            // Retaking cannot bring back the board from before the replacement: no ko.
            self.ko = 0;
        }
        self.after_play(color, mv);
        Ok(PlayOutcome {
            captured,
            suicided,
            replaced,
            violation,
        })
    }

    /// Setup (SGF `AB`, `AW`, `AE`): puts `stone` (or nothing) on `p` without captures, returning what
    /// was there. Strings left without liberties stay on the board, as SGF setup intends. Clears the ko.
    pub fn setup(&mut self, p: Point, stone: Option<Color>) -> Result<Option<Color>, IllegalMove> {
        let pad = self.checked_pad(p)?;
        let old = match self.cell[pad] {
            EMPTY => None,
            c => Some(color_of(c)),
        };
        if old != stone {
            if old.is_some() {
                self.remove_one(pad);
            }
            if let Some(c) = stone {
                self.place_stone(c, pad);
            }
        }
        self.ko = 0;
        Ok(old)
    }

    /// A board of `cols` x `rows` inside the square of the larger side: the points outside the
    /// rectangle are border, so strings along its short edges have the right liberties. Only the
    /// rule checks of non-square SGF boards use it; points outside the rectangle must not be played.
    pub(crate) fn rectangular(cols: u8, rows: u8, rules: Rules) -> Option<Position> {
        let size = BoardSize::new(u32::from(cols.max(rows))).ok()?;
        let mut pos = Position::with_rules(size, rules);
        pos.rect = true;
        for row in 0..usize::from(size.get()) {
            for col in 0..usize::from(size.get()) {
                if col >= usize::from(cols) || row >= usize::from(rows) {
                    pos.cell[(row + 1) * pos.stride + col + 1] = BORDER;
                }
            }
        }
        Some(pos)
    }

    /// Empties every point (borders stay) and zeroes the hashes and stone counts.
    fn empty_board(&mut self) {
        let n = usize::from(self.size.get());
        for row in 0..n {
            let start = (row + 1) * self.stride + 1;
            let line = &mut self.cell[start..start + n];
            if self.rect {
                line.iter_mut()
                    .filter(|c| **c != BORDER)
                    .for_each(|c| *c = EMPTY);
            } else {
                line.fill(EMPTY);
            }
        }
        self.hashes = [0; 8];
        self.stones = [0; 2];
    }

    /// Empties the board and resets the game state (Black to play, no moves, no prisoners), keeping
    /// the size, rules and keys: a new game without building a new position.
    pub(crate) fn clear(&mut self) {
        self.empty_board();
        self.to_play = Color::Black;
        self.ko = 0;
        self.prisoners = [0; 2];
        self.last_move = None;
        self.move_number = 0;
        self.passes = 0;
        if let Some(h) = self.history.as_mut() {
            h.clear();
        }
    }

    /// Saves what [`Position::restore`] needs into `snap` (reusing its buffer): one byte per point
    /// instead of the whole position, so that deeply nested variations cost little memory.
    pub(crate) fn save(&self, snap: &mut Snapshot) {
        snap.cells.clear();
        let n = usize::from(self.size.get());
        for row in 0..n {
            let start = (row + 1) * self.stride + 1;
            snap.cells.extend_from_slice(&self.cell[start..start + n]);
        }
        snap.to_play = self.to_play;
        snap.ko = self.ko;
        snap.ko_color = self.ko_color;
        snap.prisoners = self.prisoners;
        snap.last_move = self.last_move;
        snap.move_number = self.move_number;
        snap.passes = self.passes;
    }

    /// Puts back a position saved by [`Position::save`] from a position of the same size, keys and
    /// rules. The superko history, if any, restarts empty.
    pub(crate) fn restore(&mut self, snap: &Snapshot) {
        let n = usize::from(self.size.get());
        self.empty_board();
        for row in 0..n {
            for col in 0..n {
                let c = snap.cells[row * n + col];
                if c == BLACK || c == WHITE {
                    self.place_stone(color_of(c), (row + 1) * self.stride + col + 1);
                }
            }
        }
        self.to_play = snap.to_play;
        self.ko = snap.ko;
        self.ko_color = snap.ko_color;
        self.prisoners = snap.prisoners;
        self.last_move = snap.last_move;
        self.move_number = snap.move_number;
        self.passes = snap.passes;
        if let Some(h) = self.history.as_mut() {
            h.clear();
        }
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Position {} to play {} move {} prisoners B{} W{}",
            self.size, self.to_play, self.move_number, self.prisoners[0], self.prisoners[1]
        )?;
        f.write_str(&self.board().to_rows_lines())
    }
}

impl PartialEq for Position {
    /// Positions are equal when their boards, side to play, ko and prisoners are.
    fn eq(&self, other: &Self) -> bool {
        self.size == other.size
            && self.cell == other.cell
            && self.to_play == other.to_play
            && self.ko_point() == other.ko_point()
            && self.prisoners == other.prisoners
    }
}

mod strings;
#[cfg(test)]
mod tests;
