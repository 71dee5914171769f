//! The replay engine: a [`kifu_sgf::Visitor`] that applies each node's properties to a
//! [`Position`] and reports [`Step`]s (the semantics are in the [parent module](super)).

use super::{ReplayError, ReplayOptions, ReplaySink, RootInfo, Scope, Step};
use crate::coord::{BoardSize, Color, Move, Point};
use crate::position::{PlayedMove, Position, Snapshot};
use crate::rules::{IllegalMove, Rules};
use crate::zobrist::ZobristKeys;
use kifu_sgf::{Code, Diagnostic, GameTree, RawProperty, Skip, Value, Visitor, WalkEvent};
use std::sync::Arc;

mod play;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SetupKind {
    Black,
    White,
    Empty,
}

#[derive(Debug, Clone, Copy)]
struct SetupItem {
    kind: SetupKind,
    /// The rectangle `c0,r0` to `c1,r1` (one point when they are equal).
    c0: u8,
    r0: u8,
    c1: u8,
    r1: u8,
    /// Index of the setup property within the node (to group diagnostics by property).
    prop: u16,
    offset: u32,
}

#[derive(Debug, Clone, Copy)]
struct MoveItem {
    color: Color,
    /// 0: empty value (pass); 2: two bytes in `text`; anything else: unreadable.
    len: u8,
    text: [u8; 2],
    offset: u32,
}

/// A branch point: the position to go back to when a variation ends.
#[derive(Debug, Default)]
struct Frame {
    snap: Snapshot,
    pl_pending: bool,
    skipped: bool,
    /// The node the variation branches from.
    cursor: usize,
    /// Nodes started before the variation (none since: it was empty).
    nodes_before: usize,
}

/// The streaming replayer: a [`kifu_sgf::Visitor`] that replays each game as the reader reports it
/// and hands every position to a [`ReplaySink`]. Feed it with [`kifu_sgf::read`] on decoded text
/// ([`kifu_sgf::charset::decode`]), or use [`replay_bytes`](super::replay_bytes).
pub struct Replayer<S> {
    sink: S,
    opts: ReplayOptions,
    /// Rectangular boards are replayed (rule checks only).
    rectangles: bool,
    game: usize,
    games_started: usize,
    /// The current game has been given its number (at its first node: game trees
    /// without a node are not games, as in kifu-sgf's Collection).
    numbered: bool,
    /// The game errored (or is not Go): its events are ignored.
    dead: bool,
    // Boxed: a position is 26 KB, and it moves between `pos` and `spare` every game.
    pos: Option<Box<Position>>,
    /// The last game's position, for reuse by the next game.
    spare: Option<Box<Position>>,
    /// The spare is a rectangular board (never reused).
    spare_rect: bool,
    cols: u8,
    rows: u8,
    frames: Vec<Frame>,
    depth: usize,
    main_line_done: bool,
    // The node being read.
    pending: bool,
    is_root: bool,
    node_offset: usize,
    node_index: usize,
    /// The parent of the node being read, and the last node started on the current path.
    parent: Option<usize>,
    cursor: usize,
    /// Nodes started in the game.
    nodes_seen: usize,
    /// The node applied last is not yielded yet (it is followed by '('), with its move and the
    /// variation depth it was read at.
    unyielded: bool,
    node_move: Option<PlayedMove>,
    /// The node held back changed the board only by its move (see [`Step::only_move`]).
    node_only_move: bool,
    unyielded_depth: usize,
    props_in_node: u16,
    setup: Vec<SetupItem>,
    moves: Vec<MoveItem>,
    pl: Option<Color>,
    ko_decree: bool,
    // Root properties: a repeated one counts once, its first copy (as `GameTree::board_size`
    // and the game information read it, and as `kifu sgf check` repairs it), so that the
    // board replayed is the size the game is filed under. Bits of `SZ`, `RU`, `HA`, `GM` seen.
    root_seen: u8,
    sz: Option<Vec<u8>>,
    ru: Vec<u8>,
    ha: i64,
    gm: i64,
    /// The game-information properties (only the root's are read).
    info: RootInfo,
    // Path state.
    pl_pending: bool,
    leaves: u32,
    diags: Vec<Diagnostic>,
}

thread_local! {
    /// The board of the last replayer this thread finished ([`Replayer::into_sink`]), which
    /// the next one takes as its spare: a position is 26 KB (arrays for the largest board),
    /// and building one for each file, zeroed and moved into its box, was 3.5% of the
    /// instructions of `kifu pos index` (one replayer a file). It is cleared before it is
    /// used, as a game's board is for the next game of a file.
    static SPARE: std::cell::Cell<Option<Box<Position>>> = const { std::cell::Cell::new(None) };
}

impl<S: ReplaySink> Replayer<S> {
    /// A replayer that reports to `sink`.
    pub fn new(options: ReplayOptions, sink: S) -> Self {
        Replayer {
            sink,
            opts: options,
            rectangles: false,
            game: 0,
            games_started: 0,
            numbered: false,
            dead: false,
            pos: None,
            spare: SPARE.with(std::cell::Cell::take),
            spare_rect: false,
            cols: 0,
            rows: 0,
            frames: Vec::new(),
            depth: 0,
            main_line_done: false,
            pending: false,
            is_root: false,
            node_offset: 0,
            node_index: 0,
            parent: None,
            cursor: 0,
            nodes_seen: 0,
            unyielded: false,
            node_move: None,
            node_only_move: true,
            unyielded_depth: 0,
            props_in_node: 0,
            setup: Vec::with_capacity(64),
            moves: Vec::with_capacity(2),
            pl: None,
            ko_decree: false,
            root_seen: 0,
            sz: None,
            ru: Vec::new(),
            ha: 0,
            gm: 1,
            info: RootInfo::default(),
            pl_pending: false,
            leaves: 0,
            diags: Vec::new(),
        }
    }

    /// Also replays rectangular boards (both sides 2..=25) inside a square with border points: for
    /// rule checks only (the positions yielded show the square).
    pub(crate) fn with_rectangles(mut self) -> Self {
        self.rectangles = true;
        self
    }

    /// Replays every game of one file's decoded text, numbering its games from 0. One replayer can
    /// read many files this way, reusing its buffers (and its board when sizes match).
    pub fn read_text(&mut self, text: &[u8]) {
        self.games_started = 0;
        kifu_sgf::read(text, self);
    }

    /// The sink, once the replay is over.
    pub fn into_sink(mut self) -> S {
        // The last board left for the thread's next replayer (see `SPARE`).
        let last = self.pos.take().or(self.spare.take());
        if let (Some(p), false) = (last, self.spare_rect) {
            SPARE.with(|s| s.set(Some(p)));
        }
        self.sink
    }

    /// The sink.
    pub fn sink_mut(&mut self) -> &mut S {
        &mut self.sink
    }

    fn start_game(&mut self) {
        self.numbered = false;
        self.dead = false;
        self.pos = None;
        self.depth = 0;
        self.main_line_done = false;
        self.pending = false;
        self.node_index = 0;
        self.parent = None;
        self.cursor = 0;
        self.nodes_seen = 0;
        self.unyielded = false;
        self.root_seen = 0;
        self.sz = None;
        self.ru.clear();
        self.ha = 0;
        self.gm = 1;
        if S::GAME_INFO {
            self.info.clear();
        }
        self.pl_pending = false;
        self.leaves = 0;
    }

    /// Whether root property `id` (`SZ`, `RU`, `HA` or `GM`) is met for the first time in
    /// this game; it is marked as met.
    fn first_in_root(&mut self, id: &[u8]) -> bool {
        let bit = match id {
            b"SZ" => 1,
            b"RU" => 2,
            b"HA" => 4,
            _ => 8,
        };
        let first = self.root_seen & bit == 0;
        self.root_seen |= bit;
        first
    }

    fn start_node(&mut self, offset: usize) {
        // The node before has a child: it is not a leaf.
        if self.pending {
            self.finish_node::<false>(false);
        } else if self.unyielded {
            self.yield_held(false);
        }
        if self.dead {
            return;
        }
        self.nodes_seen += 1;
        if !self.numbered {
            self.game = self.games_started;
            self.games_started += 1;
            self.numbered = true;
        }
        self.is_root = self.pos.is_none();
        if self.is_root {
            self.parent = None;
        } else {
            self.node_index += 1;
            self.parent = Some(self.cursor);
        }
        self.cursor = self.node_index;
        self.pending = true;
        self.node_offset = offset;
        self.props_in_node = 0;
        self.setup.clear();
        self.moves.clear();
        self.pl = None;
        self.ko_decree = false;
    }

    fn property<'v>(
        &mut self,
        id: &[u8],
        offset: usize,
        mut values: impl Iterator<Item = &'v [u8]>,
    ) {
        if self.dead || !self.pending {
            return;
        }
        let prop = self.props_in_node;
        self.props_in_node = self.props_in_node.saturating_add(1);
        let offset = offset.min(u32::MAX as usize) as u32;
        match id {
            b"B" | b"W" => {
                let color = if id == b"B" {
                    Color::Black
                } else {
                    Color::White
                };
                // A repeated property is one property with several values (S028), and a move
                // has one value: the first counts, as SGFC merges them.
                if self.moves.iter().any(|m| m.color == color) {
                    return;
                }
                let v = values.next().unwrap_or(b"");
                let mut text = [0u8; 2];
                let len = if v.len() == 2 {
                    text.copy_from_slice(v);
                    2
                } else if v.iter().all(u8::is_ascii_whitespace) {
                    0
                } else {
                    1
                };
                self.moves.push(MoveItem {
                    color,
                    len,
                    text,
                    offset,
                });
            }
            b"AB" | b"AW" | b"AE" => {
                let kind = match id[1] {
                    b'B' => SetupKind::Black,
                    b'W' => SetupKind::White,
                    _ => SetupKind::Empty,
                };
                for v in values {
                    self.push_setup(kind, v, prop, offset);
                }
            }
            b"PL" => {
                self.pl = values
                    .next()
                    .and_then(|v| Value::from_raw(v).color_is_black())
                    .map(|b| if b { Color::Black } else { Color::White });
            }
            b"KO" => self.ko_decree = true,
            b"SZ" | b"RU" | b"HA" | b"GM" if self.is_root && !self.first_in_root(id) => {}
            b"SZ" if self.is_root => {
                if let Some(v) = values.next() {
                    self.sz = Some(v.to_vec());
                }
            }
            b"RU" if self.is_root => {
                if let Some(v) = values.next() {
                    self.ru.clear();
                    self.ru.extend_from_slice(v);
                }
            }
            b"HA" if self.is_root => {
                self.ha = values
                    .next()
                    .and_then(|v| Value::from_raw(v).number())
                    .unwrap_or(0);
            }
            b"GM" if self.is_root => {
                self.gm = values
                    .next()
                    .and_then(|v| Value::from_raw(v).number())
                    .unwrap_or(1);
            }
            _ if S::GAME_INFO && self.is_root => self.info.read(id, values),
            _ => {}
        }
    }

    fn push_setup(&mut self, kind: SetupKind, raw: &[u8], prop: u16, offset: u32) {
        let v = Value::from_raw(raw);
        let (a, b) = match v.compose() {
            None => match v.point() {
                Some(p) => (p, p),
                None => return,
            },
            Some((a, b)) => match (a.point(), b.point()) {
                (Some(a), Some(b)) => (a, b),
                _ => return,
            },
        };
        // Rectangles stay compressed until applied: memory stays proportional to the text.
        self.setup.push(SetupItem {
            kind,
            c0: a.col.min(b.col),
            r0: a.row.min(b.row),
            c1: a.col.max(b.col),
            r1: a.row.max(b.row),
            prop,
            offset,
        });
    }

    /// Sets up the board once the root's properties are known; false if the game cannot be replayed.
    // Once per game, and it builds a whole position on the stack: kept out of `finish_node`, whose
    // frame would otherwise be tens of kilobytes on every node.
    #[cold]
    #[inline(never)]
    fn begin_board(&mut self) -> bool {
        let offset = self.node_offset;
        let game = self.game;
        if self.gm != 1 {
            self.sink.game_error(ReplayError::NotGo {
                game,
                offset,
                gm: self.gm,
            });
            return false;
        }
        let (cols, rows) = match &self.sz {
            None => (19, 19),
            Some(raw) => match Value::from_raw(raw).size() {
                Some(s) => s,
                None => {
                    self.sink.game_error(ReplayError::UnreadableSize {
                        game,
                        offset,
                        text: String::from_utf8_lossy(raw).into_owned(),
                    });
                    return false;
                }
            },
        };
        let mut rules = self.opts.rules.unwrap_or_else(|| {
            std::str::from_utf8(&self.ru)
                .ok()
                .and_then(Rules::from_sgf_ruleset)
                .unwrap_or_default()
        });
        rules.positional_superko = self.opts.superko;
        let pos = match BoardSize::from_dims(cols, rows) {
            Ok(size) => {
                let keys = match &self.opts.keys {
                    Some(k) if k.size() == size => k.clone(),
                    _ => ZobristKeys::default_for(size),
                };
                // Most games share size and rules: reuse the last game's board (of this file,
                // or of the thread's last replayer) rather than build and move a new one.
                if let Some(mut old) = self.spare.take() {
                    if old.size() == size
                        && old.rules() == rules
                        && Arc::ptr_eq(old.zobrist(), &keys)
                        && !self.spare_rect
                    {
                        old.clear();
                        self.cols = cols as u8;
                        self.rows = rows as u8;
                        self.pos = Some(old);
                        return true;
                    }
                }
                Box::new(Position::with_keys(keys, rules))
            }
            Err(source) => {
                let rect = if self.rectangles && cols != rows {
                    u8::try_from(cols)
                        .ok()
                        .zip(u8::try_from(rows).ok())
                        .filter(|&(c, r)| c >= BoardSize::MIN && r >= BoardSize::MIN)
                        .and_then(|(c, r)| Position::rectangular(c, r, rules))
                        .map(Box::new)
                } else {
                    None
                };
                match rect {
                    Some(p) => p,
                    None => {
                        self.sink.game_error(ReplayError::BoardSize {
                            game,
                            offset,
                            source,
                        });
                        return false;
                    }
                }
            }
        };
        self.spare_rect = cols != rows;
        self.cols = cols as u8;
        self.rows = rows as u8;
        self.pos = Some(pos);
        true
    }

    fn point(&self, col: u8, row: u8) -> Option<Point> {
        if col < self.cols && row < self.rows {
            let size = self.pos.as_ref()?.size();
            Point::new(u32::from(col), u32::from(row), size).ok()
        } else {
            None
        }
    }

    /// Applies the node read (its setup, `PL` and moves) and yields it; with `HOLD`, it is held
    /// back instead, to be yielded by [`Self::yield_held`] once it is known whether it is a leaf
    /// (see [`Self::begin_var`]). One function for both, so the common path stays one call.
    fn finish_node<const HOLD: bool>(&mut self, is_leaf: bool) {
        self.pending = false;
        if self.dead {
            return;
        }
        if self.is_root {
            if !self.begin_board() {
                self.dead = true;
                return;
            }
            if S::GAME_INFO {
                self.root_info();
            }
            if let Some(want) = self.opts.size {
                if self.pos.as_ref().is_some_and(|p| p.size() != want) {
                    self.dead = true;
                    return;
                }
            }
        }
        if !self.setup.is_empty() {
            self.apply_setup();
        }
        let mut handicap_white = false;
        if let Some(c) = self.pl {
            self.pl_pending = true;
            self.pos_mut().set_to_play(c);
        } else if self.is_root
            && self.ha >= 2
            && self.setup.iter().any(|s| s.kind == SetupKind::Black)
        {
            handicap_white = true;
        }
        if handicap_white {
            self.pos_mut().set_to_play(Color::White);
        }
        let only_move = self.setup.is_empty() && self.moves.len() <= 1;
        let mut node_move = None;
        for i in 0..self.moves.len() {
            let m = self.moves[i];
            if let Some(played) = self.apply_move(m) {
                node_move = Some(played);
            }
        }
        if HOLD {
            if self.pos.is_some() {
                self.node_move = node_move;
                self.node_only_move = only_move;
                self.unyielded = true;
                self.unyielded_depth = self.depth;
            }
        } else {
            self.emit(node_move, only_move, is_leaf);
        }
    }

    /// Hands the root's game information to the sink.
    #[cold]
    #[inline(never)]
    fn root_info(&mut self) {
        self.info.handicap = self.ha;
        self.info.cols = u32::from(self.cols);
        self.info.rows = u32::from(self.rows);
        self.sink.game_info(self.game, &self.info);
    }

    /// Yields the node applied but held back at a '(' (see [`Self::begin_var`]), if any.
    // Rare (once per '('), and kept out of `start_node`, which is inlined into the reader.
    #[cold]
    #[inline(never)]
    fn yield_held(&mut self, is_leaf: bool) {
        self.unyielded = false;
        self.emit(self.node_move, self.node_only_move, is_leaf);
    }

    /// Hands the node applied last to the sink.
    #[inline(always)]
    fn emit(&mut self, node_move: Option<PlayedMove>, only_move: bool, is_leaf: bool) {
        let Some(pos) = self.pos.as_ref() else {
            return;
        };
        let step = Step {
            game: self.game,
            variation: self.leaves,
            move_number: pos.move_number(),
            node_offset: self.node_offset,
            node_index: self.node_index,
            parent: self.parent,
            position: pos,
            to_play: pos.to_play(),
            mv: node_move,
            is_leaf,
            only_move,
            diagnostics: &self.diags,
        };
        self.sink.position(&step);
        self.diags.clear();
        if is_leaf && self.opts.scope == Scope::AllVariations {
            self.leaves += 1;
        }
    }

    fn begin_var(&mut self) -> Skip {
        // The node before a '(' is applied (the variation starts from its position), but yielded
        // only once a node comes: if every variation after it is empty (`()`, which the reader
        // reports and trees leave out), it is a leaf.
        if self.pending {
            self.finish_node::<true>(false);
        }
        if self.dead || self.pos.is_none() {
            return Skip::No;
        }
        let skip = self.opts.scope == Scope::MainLineOnly && self.main_line_done;
        if self.frames.len() <= self.depth {
            self.frames.push(Frame::default());
        }
        let frame = &mut self.frames[self.depth];
        self.depth += 1;
        frame.skipped = skip;
        frame.cursor = self.cursor;
        frame.nodes_before = self.nodes_seen;
        if skip {
            return Skip::Yes;
        }
        frame.pl_pending = self.pl_pending;
        if self.opts.scope == Scope::AllVariations {
            if let Some(pos) = &self.pos {
                pos.save(&mut frame.snap);
            }
        }
        Skip::No
    }

    fn end_var(&mut self) {
        if self.pending {
            self.finish_node::<false>(true);
        } else if self.unyielded && self.depth == self.unyielded_depth {
            // The variation of a node followed only by empty variations ends.
            self.yield_held(true);
        }
        if self.dead || self.depth == 0 {
            return;
        }
        self.depth -= 1;
        let frame = &self.frames[self.depth];
        self.cursor = frame.cursor;
        if frame.skipped {
            return;
        }
        let empty = frame.nodes_before == self.nodes_seen;
        match self.opts.scope {
            // An empty variation does not end the main line.
            Scope::MainLineOnly => self.main_line_done |= !empty,
            Scope::AllVariations => {
                self.pl_pending = frame.pl_pending;
                if let Some(pos) = self.pos.as_mut() {
                    pos.restore(&frame.snap);
                }
            }
        }
    }

    fn end_game_now(&mut self) {
        if self.pending {
            self.finish_node::<false>(true);
        } else if self.unyielded {
            self.yield_held(true);
        }
        if let Some(p) = self.pos.take() {
            self.spare = Some(p);
        }
        self.dead = true;
    }

    /// Replays the nodes of one line of a game (root first), as if they were the whole game.
    pub(crate) fn replay_line(&mut self, game: usize, line: &[kifu_sgf::Node<'_>]) {
        self.start_game();
        self.game = game;
        self.numbered = true;
        for node in line {
            self.feed(*node);
        }
        self.end_game_now();
    }

    fn feed(&mut self, node: kifu_sgf::Node<'_>) {
        let coll = node.collection();
        self.start_node(node.offset());
        for p in node.properties() {
            let off = coll.prop_offset(&p, &node);
            self.property(p.id().as_bytes(), off, p.values().map(|v| v.raw()));
        }
    }

    /// Replays one owned game tree (what [`replay_game`](super::replay_game) does).
    pub fn replay_tree(&mut self, game: GameTree<'_>) {
        self.start_game();
        self.game = game.index();
        self.numbered = true;
        match self.opts.scope {
            Scope::MainLineOnly => {
                for node in game.main_line() {
                    self.feed(node);
                }
            }
            Scope::AllVariations => {
                let _ = game.walk(|e| -> Result<(), ()> {
                    match e {
                        WalkEvent::BeginVariation => {
                            self.begin_var();
                        }
                        WalkEvent::Node(n) => self.feed(n),
                        WalkEvent::EndVariation => self.end_var(),
                    }
                    Ok(())
                });
            }
        }
        self.end_game_now();
    }
}

/// Points as SGF letters: the first (at most 10) of `count` points.
fn list((count, points): &(usize, Vec<Point>)) -> String {
    let mut s: Vec<String> = points.iter().map(|p| p.to_string()).collect();
    if *count > points.len() {
        s.push(format!("and {} more", count - points.len()));
    }
    s.join(", ")
}

impl<S: ReplaySink> Visitor for Replayer<S> {
    fn begin_game(&mut self, _offset: usize) {
        self.start_game();
    }
    fn end_game(&mut self, _offset: usize) {
        self.end_game_now();
    }
    fn begin_variation(&mut self, _offset: usize) -> Skip {
        self.begin_var()
    }
    fn end_variation(&mut self, _offset: usize) {
        self.end_var();
    }
    fn begin_node(&mut self, offset: usize) {
        self.start_node(offset);
    }
    fn property(&mut self, prop: &RawProperty<'_>) {
        let src = prop.src;
        Replayer::property(
            self,
            prop.id,
            prop.offset,
            prop.values.iter().map(|s| &src[s.range()]),
        );
    }
}
