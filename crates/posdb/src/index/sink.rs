//! The indexing sink: what one file's replay gives the index. [`FileIndexer`] receives kifu-go's
//! replay steps and game information and turns them into game records and entries numbered
//! within the file ([`IndexedFile`]); the build renumbers the games and writes them.

use super::format::{Entry, GameStrings, Key, NEXT_NONE, NEXT_PASS};
use super::hash::SecondHash;
use super::Winner;
use kifu_go::replay::{InfoProperty, ReplayError, ReplaySink, RootInfo, Step};
use kifu_go::{BoardSize, Color, Move};

/// A game of the file, before it has its number in the index.
pub(super) struct FileGame {
    /// The game within its file (from 0).
    pub game_in_file: u32,
    /// Moves of the main line.
    pub moves: u32,
    /// The winner, from `RE`.
    pub winner: Winner,
    /// `PB`, `PW`, `DT`, `RE` as stored ([`GameStrings::encode`]): made on the worker that
    /// replays the file, so that the thread appending files in order does not.
    pub strings: String,
}

/// What the replay of one file gave.
pub(super) struct IndexedFile {
    /// Its games of the index's size.
    pub games: Vec<FileGame>,
    /// Their entries, with game numbers counted from the file's first game.
    pub entries: Vec<Entry>,
    /// Their positions (the entries, and those not kept for having too many stones).
    pub positions: u64,
    /// Games of another size.
    pub games_other_size: u64,
    /// Games that could not be replayed.
    pub games_failed: u64,
    /// Their messages (the first 100).
    pub errors: Vec<String>,
}

/// A node on the path from the root to the last node yielded.
#[derive(Clone, Copy)]
struct PathNode {
    node: usize,
    /// The node's entry as on the main line (not marked, with the game's winner).
    entry: Entry,
    /// The node's variation is not the main line.
    in_variation: bool,
    has_child: bool,
    /// The position has few enough stones to keep its entries.
    kept: bool,
}

/// `e` as stored: an entry in a variation is marked, and carries no winner (the game's result
/// says nothing of a variation's moves).
fn entry_in(mut e: Entry, in_variation: bool) -> Entry {
    if in_variation {
        e.in_variation = true;
        e.winner = Winner::Unknown;
    }
    e
}

/// The colour of a row byte (`#` black, `O` white).
fn row_colour(b: u8) -> Option<Color> {
    match b {
        b'#' => Some(Color::Black),
        b'O' => Some(Color::White),
        _ => None,
    }
}

/// Collects one file's games and entries from its replay.
pub(super) struct FileIndexer<'a> {
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
    games: Vec<FileGame>,
    entries: Vec<Entry>,
    positions: u64,
    /// Entries are kept only for positions of at most this many stones.
    most_stones: u32,
    /// The nodes from the root to the last one yielded, each with its entry (next move not yet
    /// known) and whether a child of it has been seen.
    path: Vec<PathNode>,
    current_game: Option<usize>,
    other_size_game: Option<usize>,
    games_other_size: u64,
    games_failed: u64,
    errors: Vec<String>,
    /// The strings of the game whose root was read last (given before its first step).
    root: GameStrings,
}

impl<'a> FileIndexer<'a> {
    /// A sink for games of `size` that keeps entries for positions of at most `most_stones`
    /// stones (`None`: all).
    pub fn new(
        size: BoardSize,
        second: &'a SecondHash,
        most_stones: Option<u16>,
    ) -> FileIndexer<'a> {
        FileIndexer {
            size,
            second,
            rows: vec![b'.'; size.points()],
            next_rows: vec![b'.'; size.points()],
            rows_game: None,
            rows_node: 0,
            lanes: [0; 8],
            counts: [0; 2],
            games: Vec::new(),
            entries: Vec::new(),
            positions: 0,
            most_stones: most_stones.map_or(u32::MAX, u32::from),
            // A main line's length, so that the path is not grown node by node.
            path: Vec::with_capacity(256),
            current_game: None,
            other_size_game: None,
            games_other_size: 0,
            games_failed: 0,
            errors: Vec::new(),
            root: GameStrings::default(),
        }
    }

    /// The file's games and entries, once its replay is over (the last leaf gets its entry).
    pub fn finish(mut self) -> IndexedFile {
        self.leave_to(None);
        IndexedFile {
            games: self.games,
            entries: self.entries,
            positions: self.positions,
            games_other_size: self.games_other_size,
            games_failed: self.games_failed,
            errors: self.errors,
        }
    }
}

impl FileIndexer<'_> {
    /// The second canonical hash of `pos`, from the points that changed since the last call.
    ///
    /// Fast path (most positions): the node had no setup and at most one move
    /// ([`Step::only_move`]), its parent is the last position, and the move is a play at `p` with the stone counts of a move that captured
    /// nothing and was no suicide (the mover has one more stone, the opponent as many, `p` was
    /// empty and holds the mover's stone): then `p` is the only change. Anything else (a new
    /// game, setup, captures, suicide, two moves in a node) compares the whole board with the
    /// last one instead.
    fn second_hash(&mut self, pos: &kifu_go::Position, step: &Step<'_>) -> u64 {
        let counts = [pos.stone_count(Color::Black), pos.stone_count(Color::White)];
        // The rows are those of the parent only if the last node yielded is the parent (after a
        // variation ends, the next node branches from an earlier one).
        let fast = step.only_move
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
                            let v = self.second.point(i, c);
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
                    let v = self.second.point(k * 8 + i, colour);
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
                self.positions += 1;
                if top.kept {
                    self.entries.push(entry_in(top.entry, top.in_variation));
                }
            }
            self.path.pop();
        }
    }
}

impl ReplaySink for FileIndexer<'_> {
    const GAME_INFO: bool = true;

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
            let strings = std::mem::take(&mut self.root);
            self.games.push(FileGame {
                game_in_file: step.game as u32,
                moves: 0,
                winner: Winner::from_result(&strings.result),
                strings: strings.encode(),
            });
        }
        let local = (self.games.len() - 1) as u32;
        let mut winner = Winner::Unknown;
        let in_variation = step.variation != 0;
        if let Some(g) = self.games.last_mut() {
            if !in_variation {
                g.moves = step.move_number;
            }
            winner = g.winner;
        }
        self.leave_to(step.parent);
        let size = self.size;
        if let Some(parent) = self.path.last_mut() {
            parent.has_child = true;
            // The parent's position, continued by this node's move (a node without a move
            // stands for its parent: setup changes the board, a comment node repeats it).
            if step.mv.is_some() {
                self.positions += 1;
            }
            if let (Some(m), true) = (step.mv, parent.kept) {
                let sym = parent.entry.symmetry;
                let mut e = entry_in(parent.entry, in_variation);
                e.next = match m.mv {
                    Move::Pass => NEXT_PASS,
                    Move::Play(pt) => sym.apply(pt, size).index(size) as u16,
                };
                self.entries.push(e);
            }
        }
        let kept =
            pos.stone_count(Color::Black) + pos.stone_count(Color::White) <= self.most_stones;
        // A position whose entries are not kept needs no key; the second hash's rows are then
        // left behind, and the next key compares the whole board (rarely: boards seldom come
        // back under the cut).
        let (key, symmetry) = if kept {
            let canon = pos.canonical();
            let h2 = self.second_hash(pos, step);
            (Key::new(canon.hash, h2, step.to_play), canon.symmetry)
        } else {
            self.rows_node = usize::MAX;
            (Key::new(0, 0, step.to_play), kifu_go::Symmetry::ALL[0])
        };
        self.path.push(PathNode {
            node: step.node_index,
            entry: Entry {
                key,
                game: local,
                move_number: step.move_number.min(u32::from(u16::MAX)) as u16,
                symmetry,
                winner,
                in_variation: false,
                next: NEXT_NONE,
            },
            in_variation,
            has_child: false,
            kept,
        });
    }

    fn game_info(&mut self, _game: usize, info: &RootInfo) {
        self.root = GameStrings {
            black: info.text(InfoProperty::Black),
            white: info.text(InfoProperty::White),
            date: info.text(InfoProperty::Date),
            result: info.text(InfoProperty::Result),
        };
    }

    fn game_error(&mut self, error: ReplayError) {
        self.games_failed += 1;
        if self.errors.len() < 100 {
            self.errors.push(error.to_string());
        }
    }
}
