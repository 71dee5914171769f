//! Replaying SGF game trees into positions: every node of every variation, with the provenance the
//! 9x9 PositionDB files store (variation number and move number), either streaming from the text
//! (a [`kifu_sgf::Visitor`], no tree is built) or from an owned [`kifu_sgf::GameTree`].
//!
//! # What a replay yields
//! One [`Step`] per node, in file (depth-first pre-) order, after the node's properties are applied:
//! the game index in the file, the variation number, the move number, the node (byte offset of its
//! `;` in the decoded text, and its index in pre-order), the [`Position`], who is to play, the move
//! of the node and the rule diagnostics found at the node.
//!
//! **Variation numbers.** 0 is the main line (the root and each first child). Then each further leaf
//! of the tree, in depth-first (file) order, gets the next number: the leaves are numbered 0, 1, 2,
//! ... in the order the file lists them. A node belongs to the variation of the *first* leaf below
//! it, so a prefix shared by several variations belongs to the earliest of them and is yielded once.
//! With [`Scope::MainLineOnly`] every step has variation 0.
//!
//! **Move numbers** count the moves (`B`/`W`, passes included) played from the root to the node;
//! setup does not count. An unreadable or off-board move value is not played and not counted.
//!
//! # Semantics (the choices, where SGF or the tools differ)
//! - Each node applies, in this order: setup (`AB`, `AW`, `AE`, in file order, compressed point
//!   lists expanded), then `PL`, then its move(s) (`B`/`W` in file order; a node with both, which
//!   SGF forbids, plays both, as SGFC splits it in two; a repeated `B` or `W` plays its first
//!   value only, as SGFC merges repeated properties). Setup is honoured in **any** node, also after moves: sgfmill's
//!   `get_setup_and_moves` refuses setup after the root, kifu does not.
//! - Board size from the root's `SZ` (19 when absent): square boards 2x2 to 25x25. Another size, an
//!   unreadable `SZ`, or a `GM` other than 1 is a [`ReplayError`] for that game (reported to
//!   [`ReplaySink::game_error`]); the other games of the file are replayed. A root `SZ`, `RU`,
//!   `HA` or `GM` given twice counts its first copy, as [`kifu_sgf::GameTree::board_size`] and
//!   `kifu sgf check`'s repair (S028) take it.
//! - Empty variations `()` (the reader reports them) are ignored, as trees leave them out: the
//!   node before them is a leaf if no node follows, they do not end the main line and they get
//!   no variation number.
//! - Passes: `[]`, and `[tt]` on boards up to 19x19.
//! - Rules: [`ReplayOptions::rules`] if given, else the suicide rule of the root's `RU` through
//!   [`Rules::from_sgf_ruleset`] (e.g. New Zealand: suicide allowed), else [`Rules::SIMPLE_KO`].
//!   Positional superko is checked only when [`ReplayOptions::superko`] is set (its history
//!   restarts at each variation).
//! - Illegal moves of the record (onto a stone, a ko retake, suicide) are reported as diagnostics
//!   with the move's location and played with [`Position::play_forced`], as SGF's `KO[]` intends. A
//!   node with `KO[]` declares its move legal: no diagnostic for it.
//! - Who is to play: `PL` when given, else the opponent of the last move, else Black; one
//!   exception: a root with handicap stones (`AB` and `HA` of 2 or more) and no `PL` gives White.
//! - Diagnostics (kifu-sgf [`Code`]s, offsets in the decoded text, line and column not filled in):
//!   [`Code::MoveOnOccupied`], [`Code::Suicide`], [`Code::KoViolation`] (superko too),
//!   [`Code::SetupNoEffect`] (a stone already there, or `AE` on an empty point),
//!   [`Code::SetupOverwrites`] (a stone of the other colour replaced), [`Code::OffBoard`], and
//!   [`Code::ColorSurprise`] when a move's colour contradicts a `PL` in force (set in this node or
//!   earlier with no move since). Two moves of one colour in a row are *not* reported: problem
//!   files and handicap records do it all the time.
//!
//! # Speed
//! Nothing is allocated per node or per move (buffers are reused); at a variation the position is
//! saved compactly (one byte per point) and restored when the variation ends.

use crate::coord::{BoardSize, Color, CoordError};
use crate::position::{PlayedMove, Position};
use crate::rules::Rules;
use crate::zobrist::ZobristKeys;
use kifu_sgf::{Code, Diagnostic, GameTree};
use std::sync::Arc;

/// Which nodes a replay visits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scope {
    /// The main line and every variation.
    #[default]
    AllVariations,
    /// The main line only (variations are skipped unread when streaming).
    MainLineOnly,
}

/// How to replay.
#[derive(Debug, Clone, Default)]
pub struct ReplayOptions {
    /// Main line only, or everything.
    pub scope: Scope,
    /// Rules to use instead of those the game's `RU` names.
    pub rules: Option<Rules>,
    /// Check positional superko (reported as [`Code::KoViolation`]). Off by default: it costs a
    /// hash-set insert per move.
    pub superko: bool,
    /// Zobrist keys to hash with (e.g. a published `zobrist_board_81.dat`), for games of their
    /// size; other sizes use kifu's own tables.
    pub keys: Option<Arc<ZobristKeys>>,
    /// Replay only games on this board: a game of another size gets its
    /// [`ReplaySink::game_info`] and nothing more (its nodes are read, not played, and no
    /// error is reported for it).
    pub size: Option<BoardSize>,
}

/// Why a game could not be replayed. Messages number games from 1; the `game` fields from 0.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// `SZ` names a board kifu-go does not play on (not square, or not 2..=25).
    #[error("game {}: {source}", game + 1)]
    BoardSize {
        /// Game index in the file (0-based).
        game: usize,
        /// Byte offset of the game's root node.
        offset: usize,
        /// What is wrong with the size.
        source: CoordError,
    },
    /// `SZ` cannot be read as a size.
    #[error("game {}: SZ[{text}] is not a board size", game + 1)]
    UnreadableSize {
        /// Game index in the file (0-based).
        game: usize,
        /// Byte offset of the game's root node.
        offset: usize,
        /// The value.
        text: String,
    },
    /// `GM` says the game is not Go.
    #[error("game {}: GM[{gm}] is not Go", game + 1)]
    NotGo {
        /// Game index in the file (0-based).
        game: usize,
        /// Byte offset of the game's root node.
        offset: usize,
        /// The game type.
        gm: i64,
    },
}

impl ReplayError {
    /// The game index.
    pub fn game(&self) -> usize {
        match *self {
            ReplayError::BoardSize { game, .. }
            | ReplayError::UnreadableSize { game, .. }
            | ReplayError::NotGo { game, .. } => game,
        }
    }

    /// Byte offset of the game's root node in the decoded text.
    pub fn offset(&self) -> usize {
        match *self {
            ReplayError::BoardSize { offset, .. }
            | ReplayError::UnreadableSize { offset, .. }
            | ReplayError::NotGo { offset, .. } => offset,
        }
    }
}

/// One replayed node.
#[derive(Debug, Clone, Copy)]
pub struct Step<'a> {
    /// Game index in the file, 0-based.
    pub game: usize,
    /// Variation number (0 = main line; see the [module docs](self)).
    pub variation: u32,
    /// Moves (passes included) from the root to this node.
    pub move_number: u32,
    /// Byte offset of the node's `;` in the decoded text.
    pub node_offset: usize,
    /// The node's index among the game's visited nodes in pre-order (the root is 0). With all
    /// variations replayed it is the node's index in [`GameTree::nodes`].
    pub node_index: usize,
    /// The [`node_index`](Self::node_index) of the node's parent (`None` at the root), so a sink
    /// can follow the tree: in pre-order the parent is always a node already yielded on the path
    /// from the root.
    pub parent: Option<usize>,
    /// The position after the node.
    pub position: &'a Position,
    /// Who is to play after the node.
    pub to_play: Color,
    /// The move made in this node, if any (the last one if the node has both `B` and `W`).
    pub mv: Option<PlayedMove>,
    /// Whether the node is a leaf (ends a variation).
    pub is_leaf: bool,
    /// Whether the board differs from the parent's by at most [`mv`](Self::mv) and its
    /// captures: false when the node had setup (`AB`, `AW`, `AE`) or played two moves (`B` and
    /// `W`). A sink that keeps something up to date move by move (a hash, a copy of the board)
    /// can trust the move alone only when this is true.
    pub only_move: bool,
    /// Rule diagnostics found at this node (offsets set; line and column not).
    pub diagnostics: &'a [Diagnostic],
}

/// The game-information properties of a game's root, as the replay read them (see
/// [`ReplaySink::game_info`]; only for sinks with [`ReplaySink::GAME_INFO`]). Values are the first value of the last occurrence of each
/// property, raw (SGF escapes kept); an absent property is empty.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RootInfo {
    values: [Vec<u8>; InfoProperty::ALL.len()],
    handicap: i64,
    cols: u32,
    rows: u32,
}

/// A text property of [`RootInfo`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InfoProperty {
    /// `PB`: Black's name.
    Black,
    /// `PW`: White's name.
    White,
    /// `DT`: the date.
    Date,
    /// `RE`: the result.
    Result,
    /// `EV`: the event.
    Event,
    /// `KM`: the komi, as written.
    Komi,
}

impl InfoProperty {
    /// Every one, in the order of [`RootInfo`]'s values.
    pub const ALL: [InfoProperty; 6] = [
        InfoProperty::Black,
        InfoProperty::White,
        InfoProperty::Date,
        InfoProperty::Result,
        InfoProperty::Event,
        InfoProperty::Komi,
    ];

    /// The SGF identifier.
    pub fn id(self) -> &'static [u8] {
        match self {
            InfoProperty::Black => b"PB",
            InfoProperty::White => b"PW",
            InfoProperty::Date => b"DT",
            InfoProperty::Result => b"RE",
            InfoProperty::Event => b"EV",
            InfoProperty::Komi => b"KM",
        }
    }

    fn from_id(id: &[u8]) -> Option<InfoProperty> {
        Some(match id {
            b"PB" => InfoProperty::Black,
            b"PW" => InfoProperty::White,
            b"DT" => InfoProperty::Date,
            b"RE" => InfoProperty::Result,
            b"EV" => InfoProperty::Event,
            b"KM" => InfoProperty::Komi,
            _ => return None,
        })
    }
}

impl RootInfo {
    /// The raw value of `p` (SGF escapes kept; empty when absent).
    pub fn raw(&self, p: InfoProperty) -> &[u8] {
        &self.values[p as usize]
    }

    /// The value of `p` as SGF SimpleText (escapes removed, line breaks as spaces).
    pub fn text(&self, p: InfoProperty) -> String {
        kifu_sgf::Value::from_raw(self.raw(p)).simple_text()
    }

    /// `HA`, the handicap (0 when absent or unreadable).
    pub fn handicap(&self) -> i64 {
        self.handicap
    }

    /// `KM` as a number, if it reads as one.
    pub fn komi(&self) -> Option<f64> {
        kifu_sgf::Value::from_raw(self.raw(InfoProperty::Komi)).real()
    }

    /// The board's columns and rows (from `SZ`, 19 by default).
    pub fn size(&self) -> (u32, u32) {
        (self.cols, self.rows)
    }

    fn clear(&mut self) {
        for v in &mut self.values {
            v.clear();
        }
        self.handicap = 0;
    }

    /// Keeps a root property if it is one of [`InfoProperty`]; a later occurrence replaces an
    /// earlier one, and one without a value is ignored.
    fn read<'v>(&mut self, id: &[u8], mut values: impl Iterator<Item = &'v [u8]>) {
        if let (Some(p), Some(v)) = (InfoProperty::from_id(id), values.next()) {
            let slot = &mut self.values[p as usize];
            slot.clear();
            slot.extend_from_slice(v);
        }
    }
}

/// Receives the steps of a replay. Closures `FnMut(&Step)` are sinks that ignore game errors.
pub trait ReplaySink {
    /// Whether the sink wants [`ReplaySink::game_info`]. Off by default, and then the replay
    /// neither copies the root's properties nor looks at them: a constant, so the replayer
    /// compiled for such a sink is the one without game information (copying them into a
    /// replayer made per file cost about 1.5% of a corpus replay).
    const GAME_INFO: bool = false;
    /// A node has been replayed.
    fn position(&mut self, step: &Step<'_>);
    /// A game's root has been read and its board set up: called, when [`Self::GAME_INFO`] is
    /// set, once per game that is replayed, just before the root's step (so game information
    /// comes from the same pass as the positions, not from a second reader of the SGF).
    fn game_info(&mut self, game: usize, info: &RootInfo) {
        let _ = (game, info);
    }
    /// A game could not be replayed (nothing is yielded for it).
    fn game_error(&mut self, error: ReplayError) {
        let _ = error;
    }
}

impl<F: FnMut(&Step<'_>)> ReplaySink for F {
    fn position(&mut self, step: &Step<'_>) {
        self(step)
    }
}

mod engine;
pub use engine::Replayer;

/// Replays every game of decoded SGF text (see [`kifu_sgf::charset::decode`]) without building
/// trees.
pub fn replay_text<S: ReplaySink>(text: &[u8], options: &ReplayOptions, sink: S) -> S {
    let mut r = Replayer::new(options.clone(), sink);
    kifu_sgf::read(text, &mut r);
    r.into_sink()
}

/// Replays every game of an SGF file's bytes (decoded first as kifu-sgf decodes them) without
/// building trees. Offsets in the steps refer to the decoded text.
pub fn replay_bytes<S: ReplaySink>(bytes: &[u8], options: &ReplayOptions, sink: S) -> S {
    let decoded = kifu_sgf::charset::decode(bytes);
    replay_text(&decoded.text, options, sink)
}

/// Replays one owned game tree; the steps are those [`replay_text`] gives for the same game.
pub fn replay_game<S: ReplaySink>(game: GameTree<'_>, options: &ReplayOptions, sink: S) -> S {
    let mut r = Replayer::new(options.clone(), sink);
    r.replay_tree(game);
    r.into_sink()
}

/// Replays every game of a collection.
pub fn replay_collection<S: ReplaySink>(
    collection: &kifu_sgf::Collection,
    options: &ReplayOptions,
    sink: S,
) -> S {
    let mut r = Replayer::new(options.clone(), sink);
    for g in collection.games() {
        r.replay_tree(g);
    }
    r.into_sink()
}

/// The rule diagnostics of every game of a collection, for `kifu sgf check`: moves onto stones,
/// suicide, ko violations, setup without effect or overwriting stones, and `PL` contradicted, with
/// line and column filled in, at most [`kifu_sgf::DiagnosticSink::DEFAULT_LIMIT`] and an S109
/// counting the rest. Points off the board and unusable board sizes are not reported here
/// (kifu-sgf's [`kifu_sgf::convert::check`] reports them); rectangular boards are checked.
pub fn rule_diagnostics(collection: &kifu_sgf::Collection) -> Vec<Diagnostic> {
    // Capped: a file of a million moves onto stones would otherwise keep a million messages.
    struct Collect(kifu_sgf::DiagnosticSink);
    impl ReplaySink for Collect {
        fn position(&mut self, step: &Step<'_>) {
            self.0.extend(
                step.diagnostics
                    .iter()
                    .filter(|d| d.code != Code::OffBoard)
                    .cloned(),
            );
        }
    }
    let mut r = Replayer::new(
        ReplayOptions::default(),
        Collect(kifu_sgf::DiagnosticSink::new()),
    )
    .with_rectangles();
    for g in collection.games() {
        r.replay_tree(g);
    }
    let mut diags = r.into_sink().0.finish();
    if !diags.is_empty() {
        let text = collection.text();
        kifu_sgf::LineIndex::new(text).locate(text, &mut diags);
    }
    diags
}

#[cfg(test)]
mod tests;
