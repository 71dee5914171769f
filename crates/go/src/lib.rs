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
//! # Replaying a game tree (for the SGF layer)
//! For each node, in order: setup (`AB`, `AW`, `AE`) with [`Position::setup`] (its return value
//! tells when setup overwrites a stone); `PL` with [`Position::set_to_play`]; a move with
//! [`Position::play_forced`], reporting [`PlayOutcome::violation`] with the node's location when it is
//! `Some` (so replay goes on as `KO[]` intends), and comparing the colour with
//! [`Position::to_play`] to spot colour surprises. At a variation, clone the position (no
//! allocation). [`Position::move_number`] counts moves (passes included) from the root.
//!
//! # Modules
//! - [`coord`]: [`Color`], [`BoardSize`] (2..=25, square), [`Point`], [`Move`].
//! - [`position`]: [`Position`], [`PlayOutcome`], [`PlayedMove`]; [`rules`]: [`Rules`], [`IllegalMove`].
//! - [`symmetry`]: [`Symmetry`] (the order of the 8 is documented there).
//! - [`zobrist`]: [`ZobristTable`], [`ZobristKeys`], [`SymmetricHashes`], [`CanonicalHash`].
//! - [`board`]: [`Board`] (stones without rules; PositionDB rows).
//! - [`diagram`]: ASCII and SVG.
//!
//! Speed is measured by `cargo bench -p kifu-go` (see `bench/RESULTS.md`, section "kifu-go").

pub mod board;
pub mod coord;
pub mod diagram;
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
