//! kifu-go: the rules of Go, the 8 symmetries of the board, Zobrist hashing that is the same for all
//! 8 symmetric versions of a board, and diagrams (ASCII, PositionDB rows, SVG).
//!
//! - **Exact and fast rules.** [`Position`] plays moves with captures of any number of strings,
//!   suicide (illegal unless the [`Rules`] allow it), simple ko and optional positional superko;
//!   setup stones (`AB`/`AW`/`AE`), side to play, passes and prisoners. It allocates nothing per move
//!   and clones without allocating, for variations.
//! - **Records are replayed, not rejected.** An illegal move comes back as a typed [`IllegalMove`]
//!   and nothing changes; [`Position::play_forced`] then plays it anyway with documented semantics
//!   (the stone on an occupied point is replaced; a suicided string is removed), as SGF's `KO[]` asks.
//! - **All 8 hashes at once.** Every stone added or removed updates the 8 symmetric hashes with
//!   8 XORs, so [`Position::canonical`] (the lowest of the 8, as an unsigned number, and the
//!   [`Symmetry`] that gives it: the PositionDB key) costs nothing per move. The empty board hashes
//!   to 0. Tables come from a fixed seed ([`ZobristTable::generate`]) or from a
//!   `zobrist_board_81.dat` file ([`ZobristTable::parse`]).
//! - **Coordinates.** [`Point`]s are columns from the left and rows from the top, as in SGF
//!   (`dd`) and PositionDB rows; diagrams and GTP letter columns `A`-`Z` without `I` and number rows
//!   from the bottom (`D16`).
//!
//! # Replaying a record
//!
//! ```
//! use kifu_go::{BoardSize, Color, IllegalMove, Move, Point, Position, Symmetry};
//!
//! let size = BoardSize::new(9)?;
//! let mut pos = Position::new(size);
//! // Setup (AB) and moves as SGF gives them.
//! pos.setup(Point::from_sgf(b"cc", size)?, Some(Color::Black))?;
//! pos.play(Color::White, Move::from_sgf(b"gg", size)?)?;
//! pos.play(Color::Black, Move::from_sgf(b"", size)?)?; // a pass
//!
//! // An illegal move is reported and changes nothing...
//! let onto_stone = Move::from_sgf(b"cc", size)?;
//! let err = pos.play(Color::White, onto_stone).unwrap_err();
//! assert!(matches!(err, IllegalMove::Occupied { by: Color::Black, .. }));
//! assert_eq!(err.to_string(), "cc is occupied by a black stone");
//! // ...and a replay that must go on forces it: the white stone replaces the black one.
//! let outcome = pos.play_forced(Color::White, onto_stone)?;
//! assert_eq!(outcome.replaced, Some(Color::Black));
//! assert_eq!(pos.stone_at(Point::from_human("C7", size)?), Some(Color::White));
//!
//! // The PositionDB key: the lowest of the 8 symmetric hashes.
//! let key = pos.canonical();
//! let turned = pos.board().transform(Symmetry::Rotate90);
//! let same = Position::from_board(&turned, Color::Black, Default::default());
//! assert_eq!(same.canonical().hash, key.hash);
//!
//! // Pictures.
//! assert_eq!(pos.board().to_rows().len(), 81);
//! assert!(kifu_go::diagram::ascii_diagram(&pos).contains("(O)"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Replaying SGF game trees
//!
//! [`replay`] turns SGF into positions: every node of the main line and of every variation, with
//! the provenance a position database stores (game, variation number, move number, node) and the
//! rule findings (moves onto stones, suicide, ko, setup without effect, `PL` contradicted). It
//! streams from the text as a [`kifu_sgf::Visitor`] (a 100,000-game collection is replayed without
//! building trees) or walks an owned [`kifu_sgf::GameTree`]; both give the same steps.
//! Variation 0 is the main line; each further leaf in file order starts the next number, and a
//! node belongs to the variation of the first leaf below it (so shared prefixes come once).
//!
//! ```
//! use kifu_go::replay::{replay_bytes, ReplayOptions, Step};
//!
//! let sgf = b"(;GM[1]SZ[9];B[ee];W[cc](;B[gc];W[dd])(;B[cg]))";
//! let mut seen = Vec::new();
//! let _ = replay_bytes(sgf, &ReplayOptions::default(), |s: &Step<'_>| {
//!     seen.push((s.variation, s.move_number, s.to_play.letter(), s.position.canonical().hash));
//! });
//! let provenance: Vec<(u32, u32, char)> = seen.iter().map(|&(v, m, c, _)| (v, m, c)).collect();
//! assert_eq!(provenance, [(0, 0, 'B'), (0, 1, 'W'), (0, 2, 'B'), (0, 3, 'W'), (0, 4, 'B'), (1, 3, 'W')]);
//! assert_eq!(seen[0].3, 0); // the empty board hashes to 0
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`replay::rule_diagnostics`] gives the rule findings of a whole collection as kifu-sgf
//! diagnostics (what `kifu sgf check` adds); [`navigate`] finds the position at a variation and
//! move or at a path, and a node's markup for diagrams; [`transform`] applies a [`Symmetry`] to
//! whole SGF trees.
//!
//! # Modules
//! - [`coord`]: [`Color`], [`BoardSize`] (2..=25, square), [`Point`], [`Move`].
//! - [`position`]: [`Position`], [`PlayOutcome`], [`PlayedMove`]; [`rules`]: [`Rules`], [`IllegalMove`].
//! - [`symmetry`]: [`Symmetry`] (the order of the 8 is documented there).
//! - [`zobrist`]: [`ZobristTable`], [`ZobristKeys`], [`SymmetricHashes`], [`CanonicalHash`].
//! - [`board`]: [`Board`] (stones without rules; PositionDB rows).
//! - [`diagram`]: ASCII and SVG.
//! - [`replay`]: SGF game trees to positions (streaming or from trees), rule diagnostics.
//! - [`navigate`]: the node and position at a variation/move or path; node markup.
//! - [`transform`]: SGF trees under a symmetry.
//!
//! Speed is measured by `cargo bench -p kifu-go` and `bench/replay.sh` (see `bench/RESULTS.md`,
//! sections "kifu-go" and "SGF replay").

pub mod board;
pub mod coord;
pub mod diagram;
pub mod liberties;
pub mod navigate;
pub mod position;
pub mod replay;
pub mod rules;
pub mod symmetry;
pub mod transform;
pub mod zobrist;

pub use board::{Board, RowsError};
pub use coord::{BoardSize, Color, CoordError, Move, Point};
pub use position::{PlayOutcome, PlayedMove, Position};
pub use rules::{IllegalMove, Rules};
pub use symmetry::Symmetry;
pub use zobrist::{CanonicalHash, SymmetricHashes, ZobristFileError, ZobristKeys, ZobristTable};
