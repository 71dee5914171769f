//! kifu-polyglot: Polyglot chess opening books, read, looked up, checked, repaired,
//! merged and made from PGN, with headers handled like `pgheader`.
//!
//! A Polyglot book is a sequence of 16-byte records (key, move, weight, learn; all
//! big-endian) sorted by key, where the key is the Zobrist hash of a chess position and
//! the move is encoded in 16 bits. Optional leading records with a null key hold a text
//! header (`@PG@`, version, variants, comment).
//!
//! - [`Book`] reads a book zero-copy from any bytes and finds a position's entries by
//!   binary search; it refuses books that are not sorted or whose size is not a multiple
//!   of 16, so a lookup never silently misreads.
//! - [`key()`], [`position_from_fen`] and [`position_from_moves`] give Polyglot keys (chess
//!   rules and hashing are shakmaty's); [`RawMove`] encodes and decodes moves, mapping
//!   Polyglot's king-takes-rook castling.
//! - [`Header`] parses and writes headers; [`pgheader`] is pgheader 1.0.5 command for
//!   command.
//! - [`check()`] and [`repair()`] find and fix unsorted books and duplicates;
//!   [`merge()`] combines books; [`make`] builds a book from PGN like Polyglot's
//!   `make-book`, byte for byte in its compatibility mode.
//! - [`book_position`] lists a position's moves with SAN, UCI and shares (the JSON of
//!   `kifu book dump --json` and `kifu serve`).
//!
//! ```
//! use kifu_polyglot::{Book, Entry, RawMove, key, position_from_moves};
//! use shakmaty::Square;
//!
//! // A one-entry book: 1. e4 from the start position.
//! let start = position_from_moves("").unwrap();
//! let e4 = Entry { key: key(&start), raw_move: RawMove::new(Square::E2, Square::E4, None), weight: 2, learn: 0 };
//! let book = Book::from_bytes(e4.to_bytes().to_vec()).unwrap();
//!
//! let found: Vec<Entry> = book.lookup(0x463b96181691fc9c).collect();
//! assert_eq!(found, [e4]);
//! assert_eq!(found[0].raw_move.to_san(&start).as_deref(), Some("e4"));
//! ```

mod book;
pub mod check;
mod error;
pub mod explore;
pub mod header;
mod key;
pub mod make;
pub mod merge;
mod moves;
pub mod pgheader;
mod record;
pub mod writer;

pub use book::{count_header_records, header_data, read_records, Book};
pub use check::{check, repair, DuplicatePolicy, Finding, Report};
pub use error::{Error, Result};
pub use explore::{book_position, BookMove, BookPosition};
pub use header::{Header, HeaderError};
pub use key::{
    key, key_after, key_from_fen, parse_move, position_after, position_from_bitboards,
    position_from_fen, position_from_moves, Bitboards,
};
pub use merge::{merge, MergeStrategy};
pub use moves::RawMove;
pub use record::{Entry, RECORD_SIZE};

/// The shakmaty version kifu-polyglot uses, re-exported so callers build the same types.
pub use shakmaty;
