//! kifu-posdb: the files of the 9x9 experiments (`../shared/specs/9x9-position-database-formats.txt`):
//! position files (and queue files, which have the same format), scored files, and the keys that
//! link them.
//!
//! - **Exact formats.** A [`PositionId`] is 10 bytes: the canonical Zobrist hash big-endian, a
//!   tiebreaker byte, `B` or `W` to play. A [`PositionRecord`] is the id, the `n * n` board bytes
//!   (`#` black, `O` white, `.` empty, row by row from the top-left; the board as played, not
//!   rotated), a flag byte (1 if an [`ExtraInfo`] follows, else 0) and the optional 8-byte
//!   [`ExtraInfo`] (source file id u32, variation u16, move u16, big-endian): 92 or 100 bytes on
//!   9x9, `n * n + 11` (+ 8) on other sizes, which the reader must be told. A [`ScoredPosition`] is
//!   the id, a score byte (3..=8, see [`ScoredPosition`] for the exact mapping from a margin) and a
//!   confidence byte (0..=100): 12 bytes. No file has a header.
//! - **Streaming, bounded, never panicking.** [`PositionReader`] and [`ScoredReader`] read one
//!   record at a time from any `Read`; records with and without extra info may be mixed. Every
//!   error is a [`ReadError`] with the record number and byte offset; a torn last record (the
//!   file ends inside it) is [`ReadErrorKind::Torn`], and the offset is where to truncate.
//!   Memory-mapping is not offered: it needs `unsafe`, and a buffered reader is as fast for a
//!   one-pass scan.
//! - **Keys.** [`Keyer`] computes ids from boards with kifu-go's [`ZobristKeys`](kifu_go::ZobristKeys):
//!   the hash is the lowest of the 8 symmetric hashes (only the black and white columns of the
//!   table enter it), and two different boards (under all 8 symmetries) with the same hash get
//!   different tiebreakers, in order of first appearance.
//!
//! - **Extraction** ([`extract`]): game collections (SGF, ASCII positions; Ishi is the marked
//!   extension point) to a position file: every distinct position (by key and board, under the 8
//!   symmetries), first occurrence kept in input order, collisions given tiebreakers, replayed in
//!   parallel but the same bytes for any thread count, in bounded memory through an external
//!   sort ([`sort`]) that spills to temporary files. [`masterlist`] keeps
//!   `master_game_file_list.dat` append-only and repairs a torn last line.
//! - **Inspection** ([`inspect`]): statistics, the histogram by stones (with an SVG chart),
//!   scored files named `program_ruleset.dat` shown side by side.
//! - **Search** ([`index`]): a sorted key file of every main-line position of a collection (key,
//!   game, move, symmetry, next move) plus a game table; lookups by binary search give the games
//!   that reached a position in any symmetry (optionally colours swapped) and the continuations
//!   with counts and win rates. Keys with many entries (the common openings) carry precomputed
//!   summaries, so a lookup stays under a millisecond for any position. Why not SQLite is argued
//!   in the module docs.
//!
//! # Example
//!
//! ```
//! use kifu_go::{Board, BoardSize, Color, ZobristKeys};
//! use kifu_posdb::{Keyer, PositionReader, PositionRecord, PositionWriter, ScoredPosition,
//!                  ScoredReader, ScoredWriter};
//!
//! let size = BoardSize::NINE;
//! let mut keyer = Keyer::new(ZobristKeys::default_for(size));
//! let mut rows = [b'.'; 81];
//! rows[40] = b'#'; // tengen
//! let board = Board::from_rows(&rows, Some(size))?;
//! let id = keyer.key(&board, Color::White)?;
//!
//! // A position file with one record.
//! let mut w = PositionWriter::new(Vec::new());
//! w.write(&PositionRecord { id, board: board.clone(), extra: None })?;
//! let file = w.into_inner();
//! assert_eq!(file.len(), 92);
//! let back: Vec<PositionRecord> = PositionReader::new(&file[..], size).collect::<Result<_, _>>()?;
//! assert_eq!(back[0].board, board);
//!
//! // A scored file: three playouts said B+9, B+7 and B+12 on the board.
//! let scored = ScoredPosition::from_margins(id, &[9.0, 7.0, 12.0]).unwrap();
//! assert_eq!((scored.score, scored.confidence), (8, 66));
//! let mut w = ScoredWriter::new(Vec::new());
//! w.write(&scored)?;
//! let file = w.into_inner();
//! // A torn file (the last record cut short) is reported with where it starts.
//! let err = ScoredReader::new(&file[..7]).next().unwrap().unwrap_err();
//! assert!(err.is_torn() && err.offset == 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Extracting a position file from SGF files:
//!
//! ```
//! use kifu_go::BoardSize;
//! use kifu_posdb::extract::{extract, ExtractOptions, Source, SourceKind};
//!
//! let dir = tempfile::tempdir()?;
//! let game = dir.path().join("g.sgf");
//! std::fs::write(&game, "(;GM[1]SZ[9];B[ee];W[cc];B[gg])")?;
//! let turned = dir.path().join("h.sgf"); // the same game turned a quarter
//! std::fs::write(&turned, "(;GM[1]SZ[9];B[ee];W[gc];B[cg])")?;
//! let sources: Vec<Source> = [game, turned]
//!     .into_iter()
//!     .map(|path| Source { path, kind: SourceKind::Sgf })
//!     .collect();
//! let mut out = Vec::new();
//! let summary = extract(&sources, &ExtractOptions::new(BoardSize::NINE), &mut out, &|| {})?;
//! assert_eq!((summary.occurrences, summary.distinct), (8, 4));
//! assert_eq!(out.len(), 4 * 92);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Modules
//! - [`id`]: [`PositionId`], [`Keyer`], [`canonical_hash`], [`canonical_rows`].
//! - [`extract`], [`ascii`], [`masterlist`], [`sort`]: building position files.
//! - [`inspect`]: stats, histogram, score tables; [`index`]: full-board search.
//! - [`record`]: [`PositionRecord`], [`ExtraInfo`], [`ScoredPosition`], [`score_byte`].
//! - [`io`]: the readers and writers, [`ReadError`].
//! - [`provenance`]: the sidecar of a scored file (engine, settings, shard, completeness).

pub mod ascii;
pub mod extract;
pub mod id;
pub mod index;
pub mod inspect;
pub mod io;
pub mod masterlist;
pub mod parts;
pub mod provenance;
pub mod record;
pub mod scored;
pub mod sort;

pub use id::{canonical_hash, canonical_rows, IdError, KeyError, Keyer, PositionId, ID_BYTES};
pub use io::{
    read_positions, read_scored, PositionReader, PositionWriter, ReadError, ReadErrorKind,
    ScoredReader, ScoredWriter,
};
pub use record::{
    position_bytes, score_byte, ExtraInfo, PositionRecord, ScoredPosition, EXTRA_BYTES,
    SCORED_BYTES, SCORE_MAX, SCORE_MIN,
};
