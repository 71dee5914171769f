//! A position index of a game collection for full-board search: which games reached a position
//! (in any of the 8 symmetries, optionally with colours swapped), and what was played next, with
//! counts and win rates, as Kombilo's full-board search gives.
//!
//! # Why a sorted key file and not SQLite
//! Every query is one exact-match range on the position key, and the data is written once and
//! read many times. A single file of fixed-size entries sorted by key answers a query with one
//! binary search (about 25 reads of 26 bytes at 30 million entries; microseconds once cached),
//! is built by one external sort in bounded memory (the same [`ExternalSorter`](crate::sort::ExternalSorter) as extraction),
//! and holds 26 bytes per position instead of a B-tree row plus a secondary index. SQLite would
//! add a C library to the build (rusqlite `bundled`), and a B-tree lookup plus row fetches for
//! nothing the queries need; ad-hoc SQL over games is not a goal here.
//!
//! # The file
//! One file in one stream (format 4): header, the Zobrist table text, 26-byte entries sorted by
//! key (two canonical hashes and the side to play, then game and move number; each with the
//! symmetry to the canonical orientation, the next move in it, the game's winner and a
//! variation bit), 32-byte game records, the file table, strings, the summaries of the keys with
//! at least [`SUMMARY_THRESHOLD`] entries (see [`summary`]), a checksum of every 4 KiB block of
//! all that, and a trailer that locates the summaries and checks the checksums. The bytes are
//! defined in one place, `format` (its docs give every layout); the writer, the reader and the
//! summaries use its typed records only.
//!
//! Every read checks the blocks it reads (`file`: the reader and the merge open files there),
//! so a damaged file is refused with the bytes named ([`IndexError::Damaged`]) by the first
//! read that meets the damage, and [`IndexReader::verify`] checks a whole file. Files of
//! formats 2 and 3 (written before the checksums) are still read, unchecked, and a merge or
//! `--add` makes them format 4.
//!
//! Files of format 1 (`KIFUPIX1`: no summaries, no winners in the entries) are refused with an
//! error that says to rebuild them.
//!
//! # Modules
//! - `format`: the on-disk layouts (header, key, entry and trailer in `format/mod.rs`, game
//!   and file records in `format/tables.rs`, summary records and game sets in
//!   `format/summary.rs`, the checksums and the writer that makes them in
//!   `format/blocks.rs`), their encoding and decoding, and where each section starts.
//! - `file`: an index file opened (header, trailer, checksums) and its checked reads.
//! - `build`: [`build_index`], as steps: replay the files in parallel batches and append their
//!   results in input order, sort the entries, then write header, entries (summaries built as
//!   they stream past), games, files, strings, summaries and trailer.
//! - `sink`: the [`ReplaySink`](kifu_go::replay::ReplaySink) that turns one file's replay into
//!   game records and entries; the game information (`PB`, `PW`, `DT`, `RE`) comes from the
//!   replay itself ([`ReplaySink::game_info`](kifu_go::replay::ReplaySink::game_info)).
//! - `hash`: the second hash of the keys.
//! - [`summary`]: the precomputed answers of the common keys.
//! - `reader`: [`IndexReader`] and the lookups; `answer`: what they give ([`LookupResult`],
//!   [`LookupPage`]).
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

use kifu_go::{BoardSize, ZobristKeys};
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

mod answer;
mod build;
mod file;
mod format;
mod hash;
mod merge;
mod reader;
mod sink;
pub mod summary;
#[cfg(test)]
mod tests;

pub use answer::{
    code_to_move, representative, stabilizer, Continuation, ContinuationSums, LookupPage,
    LookupResult, Occurrence,
};
pub use build::{build_index, build_index_with, AppendFile, FileReplay, FileWork, VisitFile};
pub use format::{ENTRY_BYTES, NEXT_NONE, NEXT_PASS, VARIATION_BIT};
pub use merge::{merge_index_parts, Layout};
pub use reader::IndexReader;
pub use summary::SUMMARY_THRESHOLD;

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
        // Compared in place, any ASCII case (a search reads the result of every game it
        // counts: no copy of it).
        let t = re.trim().as_bytes();
        let starts = |p: &[u8]| t.get(..p.len()).is_some_and(|h| h.eq_ignore_ascii_case(p));
        if starts(b"B+") {
            Winner::Black
        } else if starts(b"W+") {
            Winner::White
        } else if t == b"0" || t.eq_ignore_ascii_case(b"DRAW") || t.eq_ignore_ascii_case(b"JIGO") {
            Winner::Draw
        } else {
            Winner::Unknown
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
    /// Memory for the entries waiting to be sorted (32 bytes an entry as held, with what the
    /// buffers have allocated ahead) before a sorted run is spilled to a temporary file.
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
    /// Keep entries only for positions of at most this many stones (`None`: every position).
    /// Whether a position is held depends on the position alone, so any key's entries are all
    /// there or all absent, and parts cut alike merge exactly. The pattern index answers the
    /// other lookups (`kifu_search::Database::lookup`); `kifu pos index` cuts at
    /// [`DEFAULT_MOST_STONES`] unless told otherwise. Refused with `variations`, whose entries
    /// the pattern search does not reproduce.
    pub most_stones: Option<u16>,
}

/// The most stones of a position `kifu pos index` keeps entries for by default: the first
/// dozen moves of a game, which the pattern search would answer slowest (many games to
/// count), are about 8% of a 19x19 game's positions.
pub const DEFAULT_MOST_STONES: u16 = 12;

/// The cut by stones of an index: `asked` as the user gave it (`None`: not given; `Some(None)`:
/// every entry; `Some(Some(n))`: up to `n` stones), given whether it holds every variation. Not
/// given, main lines are cut at [`DEFAULT_MOST_STONES`] and variations are not; a cut asked for
/// with variations is refused ([`IndexOptions::most_stones`]).
pub fn most_stones_for(
    variations: bool,
    asked: Option<Option<u16>>,
) -> Result<Option<u16>, IndexError> {
    match asked {
        None if variations => Ok(None),
        None => Ok(Some(DEFAULT_MOST_STONES)),
        Some(Some(_)) if variations => Err(IndexError::Options(NO_CUT_WITH_VARIATIONS)),
        Some(cut) => Ok(cut),
    }
}

/// Why an index of every variation is not cut.
pub(crate) const NO_CUT_WITH_VARIATIONS: &str =
    "an index of every variation keeps every position's entries: no cut by stones";

impl IndexOptions {
    /// Defaults for `size`: kifu's own keys, 1 GiB for sorting (about 30 million positions
    /// without a spill).
    pub fn new(size: BoardSize) -> IndexOptions {
        IndexOptions {
            size,
            keys: ZobristKeys::default_for(size),
            memory_limit: 1 << 30,
            temp_dir: None,
            batch: 256,
            variations: false,
            summary_threshold: SUMMARY_THRESHOLD,
            most_stones: None,
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
    /// Files read that hold no game (empty, or neither SGF nor Ishi; named in `errors`).
    pub files_without_games: u64,
    /// Games indexed.
    pub games: u64,
    /// Games of another size (skipped).
    pub games_other_size: u64,
    /// Games that could not be replayed.
    pub games_failed: u64,
    /// Positions indexed (what the entries would be if every position kept them).
    pub positions: u64,
    /// Entries written (the positions of at most `IndexOptions::most_stones` stones).
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
    /// Bytes of the file that do not match their checksum (format 4): the file changed after
    /// it was written.
    #[error(
        "damaged: bytes {from} to {to} of {} (byte offsets) do not match their checksum; \
         rebuild it with `kifu pos index`",
        path.display()
    )]
    Damaged {
        /// The file.
        path: PathBuf,
        /// The first byte of the block that does not match.
        from: u64,
        /// The byte after it.
        to: u64,
    },
    /// A part of a sharded build that does not fit the others (see `merge_index_parts`).
    #[error("{}: {reason}", path.display())]
    Part {
        /// The part.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// Too many games or files for the u32 numbers.
    #[error("more than 4,294,967,295 games or files")]
    TooMany,
    /// A file that goes with the index (the pattern index beside it) is damaged or unreadable.
    #[error("{0}")]
    Companion(String),
    /// An index of an older format.
    #[error("an index of format {0} (from an older kifu): rebuild it with `kifu pos index`")]
    OldFormat(u32),
    /// A board with more stones than the positions this index keeps entries for: its games
    /// are found by the pattern index beside it (`kifu_search::Database::lookup`).
    #[error(
        "the board has {stones} stones: this index keeps entries only for positions of at most \
         {most}; look it up through the pattern index (kifu_search::Database::lookup)"
    )]
    NotHeld {
        /// Stones on the board.
        stones: u32,
        /// The most stones of a position with entries.
        most: u16,
    },
    /// Options that do not go together.
    #[error("{0}")]
    Options(&'static str),
}
