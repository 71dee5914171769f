//! Position datasets as Apache Parquet: every position of a `kifu pos index` database, or every
//! record of a position file (the 9x9-experiments format), one row each, so that pandas,
//! Polars, DuckDB and Spark read kifu's output directly. `kifu pos export` is this crate's skin.
//!
//! # Guide
//! [`Input::open`] tells an index from a position file by the index's own reader (its magic
//! bytes: anything that is not an index, a pipe, or a file shorter than an index header is read
//! as position records); [`export`] writes the Parquet file to any [`Write`], in one stream
//! front to back (so standard output works), in row groups of at most
//! [`ExportOptions::row_group_rows`] rows. Memory is bounded whatever the input's size: the
//! games are replayed on one thread and encoded on another, a few batches of
//! [`ExportOptions::batch_rows`] rows in between, and only the row group being encoded is held.
//!
//! ```
//! use kifu_export::{export, ExportOptions, Input};
//! use arrow_array::{cast::AsArray, types::UInt8Type};
//! use kifu_go::{Board, BoardSize, Color};
//! use kifu_posdb::{PositionId, PositionRecord, PositionWriter};
//! use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
//!
//! // A position file of one record: Black at the top-left corner, White to play.
//! let rows = format!("#{}", ".".repeat(80));
//! let board = Board::from_rows(rows.as_bytes(), Some(BoardSize::NINE)).unwrap();
//! let id = PositionId { hash: 42, tiebreak: 0, to_play: Color::White };
//! let mut file = PositionWriter::new(Vec::new());
//! file.write(&PositionRecord { id, board, extra: None }).unwrap();
//! let bytes = file.into_inner();
//!
//! let input = Input::Positions(Box::new(std::io::Cursor::new(bytes)));
//! let mut out = Vec::new();
//! let summary = export(input, &ExportOptions::default(), &mut out, &|_| {}).unwrap();
//! assert_eq!(summary.rows, 1);
//!
//! // Read it back with the parquet crate's Arrow reader.
//! let batch = ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::from(out))
//!     .unwrap().build().unwrap().next().unwrap().unwrap();
//! assert_eq!(batch.num_rows(), 1);
//! let board = batch.column_by_name("board").unwrap().as_fixed_size_list().value(0);
//! assert_eq!(board.as_primitive::<UInt8Type>().values()[..3], [1, 0, 0]);
//! let to_play = batch.column_by_name("to_play").unwrap().as_primitive::<UInt8Type>();
//! assert_eq!(to_play.value(0), 2);
//! ```
//!
//! # The columns of an index export
//! One row per position of the index, entry kept or not (see [`index`](mod@index) for which
//! positions those are), games in the index's order (its game numbers), each game's rows in
//! move order.
//!
//! | column | type | what |
//! |---|---|---|
//! | `game` | uint32 | the game's number in the index (from 0; `kifu pos lookup` shows it) |
//! | `file` | string | the game's file, as the index names it |
//! | `game_in_file` | uint32 | the game within its file (from 0) |
//! | `variation` | uint32 | 0 the main line, then each further leaf in file order (as `kifu show --variation`) |
//! | `move_number` | uint32 | moves played before this position (0 at the root) |
//! | `to_play` | uint8 | who plays next: 1 Black, 2 White |
//! | `move_row`, `move_col` | int16 | the move played from this position, row and column from the top-left (as `board`); both [`PASS`] (-1) for a pass, [`RESIGN`] (-2) at the end of the main line of a game won by resignation, [`NO_MOVE`] (-3) at the end of a line |
//! | `board` | fixed_size_list\<uint8\>\[N*N\] | the board before the move, row by row from the top-left (row 0 is the top row, as `kifu show --format rows` prints it): 0 empty, 1 black, 2 white |
//! | `size` | uint8 | N |
//! | `hash` | uint64 | the canonical Zobrist hash (the lowest of the 8 symmetric ones) with the index's table: the PositionId hash of position files made with the same table |
//! | `symmetry` | uint8 | the symmetry (0..7) that takes this board to its canonical orientation |
//! | `result` | int8 | the game's winner from `RE`: 1 Black, 2 White, 0 anything else |
//! | `result_text`, `black`, `white`, `date` | string | `RE`, `PB`, `PW`, `DT` as the index stores them |
//! | `komi` | float64, nullable | `KM`, null when absent or unreadable |
//! | `handicap` | int32 | `HA` (0 when absent) |
//!
//! These are the Python package's names, types and codes (`kifu.go.positions`: `boards`,
//! `to_play`, `moves` as (row, column), `hash`, `symmetry`, `result`), so a row here and the
//! Python package's row of the same position agree.
//!
//! # The columns of a position file export
//! One row per record, in file order.
//!
//! | column | type | what |
//! |---|---|---|
//! | `record` | uint64 | the record's number in the file (from 0) |
//! | `hash`, `tiebreak` | uint64, uint8 | the PositionId (with `to_play`: the key of scored files) |
//! | `to_play` | uint8 | 1 Black, 2 White |
//! | `board` | fixed_size_list\<uint8\>\[N*N\] | as above |
//! | `size` | uint8 | N |
//! | `file_id`, `variation`, `move_number` | uint32, nullable | the PositionExtraInfo block (file id in the master list, variation, move), null in records without it |
//!
//! Both files carry the key-value metadata `kifu.kind` (`index` or `positions`) and
//! `kifu.size`, and the Arrow schema (so readers get the list's fixed size and the unsigned
//! types back).
//!
//! # Failures
//! Errors are [`ExportError`]s: an index that cannot be read (damaged, of an old format) is an
//! error before anything is written; a bad position record is an error naming its record number
//! and byte offset. A torn last record (an interrupted append) is not an error: the whole
//! records before it are exported and [`ExportSummary::torn`] says where it was. A game's file
//! that can no longer be read, or a game that is no longer what the index says (another board,
//! another number of moves on its main line: the file changed since indexing) is counted in the
//! summary with a message, and the other games are exported.
//!
//! # Modules
//! - [`schema`]: the schemas and the codes of their columns.
//! - `index`: an index's games replayed into rows.
//! - `positions`: a position file's records as rows.
//! - `writer`: the Parquet encoder behind a plain [`Write`], and the producer/encoder pipeline.

use kifu_go::BoardSize;
use kifu_posdb::index::{IndexError, IndexReader};
use std::io::{Read, Write};
use std::path::Path;

pub mod index;
mod positions;
pub mod schema;
#[cfg(test)]
mod tests;
mod writer;

pub use schema::{NO_MOVE, PASS, RESIGN};

/// The progress callback: called with the number of units done since the last call (games of
/// an index, records of a position file), from the thread that reads the input.
pub type Progress<'a> = dyn Fn(u64) + Sync + 'a;

/// How the column chunks are compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compression {
    /// Zstandard at its default level (small files; every current reader has it).
    #[default]
    Zstd,
    /// Snappy (Spark's default: faster, larger).
    Snappy,
    /// None.
    None,
}

/// How to export.
#[derive(Debug, Clone)]
pub struct ExportOptions {
    /// Board size of a position file's records (an index knows its own).
    pub size: BoardSize,
    /// Compression.
    pub compression: Compression,
    /// Rows per row group at most (the encoder holds one row group in memory). At least 1.
    pub row_group_rows: usize,
    /// Rows per record batch handed from the reader to the encoder. At least 1.
    pub batch_rows: usize,
}

impl Default for ExportOptions {
    /// 9x9 position files, zstd, row groups of 131,072 rows, batches of 8,192.
    fn default() -> ExportOptions {
        ExportOptions {
            size: BoardSize::NINE,
            compression: Compression::Zstd,
            row_group_rows: 128 * 1024,
            batch_rows: 8 * 1024,
        }
    }
}

/// What an input is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// A `kifu pos index` database.
    Index,
    /// Position records (a position or queue file).
    Positions,
}

impl InputKind {
    /// `index` or `positions` (the `kifu.kind` metadata).
    pub fn name(self) -> &'static str {
        match self {
            InputKind::Index => "index",
            InputKind::Positions => "positions",
        }
    }
}

/// An opened input.
pub enum Input {
    /// An index, opened and its header checked.
    Index(Box<IndexReader>),
    /// A stream of position records.
    Positions(Box<dyn Read + Send>),
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Input::Index(r) => f.debug_tuple("Index").field(r).finish(),
            Input::Positions(_) => f.write_str("Positions(..)"),
        }
    }
}

impl Input {
    /// Opens `path`: an index when the index reader recognises it (its magic bytes), else a
    /// position file. A damaged index or one of an old format is an error; a pipe or device is
    /// read as position records without being looked at first.
    pub fn open(path: &Path) -> Result<Input, ExportError> {
        let open_error = |error| ExportError::Open {
            path: path.display().to_string(),
            error,
        };
        let meta = std::fs::metadata(path).map_err(open_error)?;
        if meta.is_file() {
            match IndexReader::open(path) {
                Ok(r) => return Ok(Input::Index(Box::new(r))),
                // Not an index (the reader checks the magic first): position records.
                Err(IndexError::Format("bad magic")) => {}
                // Too short for an index's header: an index cut short if it has the magic.
                Err(e @ IndexError::Format("shorter than the header")) => {
                    let head = std::fs::read(path).map_err(open_error)?;
                    if head.starts_with(b"KIFUPIX") {
                        return Err(ExportError::Index(e));
                    }
                }
                Err(IndexError::Io(e)) => return Err(open_error(e)),
                Err(e) => return Err(ExportError::Index(e)),
            }
        }
        let f = std::fs::File::open(path).map_err(open_error)?;
        Ok(Input::Positions(Box::new(
            std::io::BufReader::with_capacity(1 << 16, f),
        )))
    }

    /// The kind of input.
    pub fn kind(&self) -> InputKind {
        match self {
            Input::Index(_) => InputKind::Index,
            Input::Positions(_) => InputKind::Positions,
        }
    }
}

/// What an export did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportSummary {
    /// The input's kind.
    pub kind: InputKind,
    /// The board size.
    pub size: BoardSize,
    /// Rows written.
    pub rows: u64,
    /// Games exported (an index; 0 for position files).
    pub games: u64,
    /// Games of the index not exported, or exported but no longer as the index says (see
    /// [`ExportSummary::failures`]).
    pub games_failed: u64,
    /// Files of the index's games that could not be read.
    pub files_failed: u64,
    /// Row groups written.
    pub row_groups: u64,
    /// Bytes written.
    pub bytes: u64,
    /// The first 100 messages about games that failed.
    pub failures: Vec<String>,
    /// A torn last record of a position file: where it was (the records before it are
    /// exported).
    pub torn: Option<String>,
}

impl ExportSummary {
    /// Whether something was not as it should be (failed games or files, a torn record).
    pub fn has_problems(&self) -> bool {
        self.games_failed > 0 || self.files_failed > 0 || self.torn.is_some()
    }
}

/// Why an export failed. Each message is whole (it names the cause); the causes are not
/// chained as sources, so a caller that prints the chain prints each once.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The input could not be opened.
    #[error("{path}: cannot open: {error}")]
    Open {
        /// The path.
        path: String,
        /// Why.
        error: std::io::Error,
    },
    /// The index could not be read (damaged, or of an older format).
    #[error("{0}")]
    Index(IndexError),
    /// A game record of the index could not be read.
    #[error("game {game} of the index: {error}")]
    Game {
        /// The game's number.
        game: u64,
        /// Why.
        error: IndexError,
    },
    /// A position record is bad (its number and byte offset are in the message).
    #[error("not a position file (or a damaged one): {0}")]
    Positions(kifu_posdb::ReadError),
    /// The Parquet encoder failed.
    #[error("parquet: {0}")]
    Parquet(parquet::errors::ParquetError),
    /// A batch did not fit its schema (a bug: the columns are made here).
    #[error("arrow: {0}")]
    Arrow(arrow_schema::ArrowError),
    /// Writing the output failed.
    #[error("{0}")]
    Io(std::io::Error),
    /// The reader stopped because the encoder failed (the encoder's error is reported instead).
    #[error("stopped")]
    Stopped,
}

impl From<IndexError> for ExportError {
    fn from(e: IndexError) -> ExportError {
        ExportError::Index(e)
    }
}

impl From<parquet::errors::ParquetError> for ExportError {
    fn from(e: parquet::errors::ParquetError) -> ExportError {
        ExportError::Parquet(e)
    }
}

impl From<arrow_schema::ArrowError> for ExportError {
    fn from(e: arrow_schema::ArrowError) -> ExportError {
        ExportError::Arrow(e)
    }
}

impl From<std::io::Error> for ExportError {
    fn from(e: std::io::Error) -> ExportError {
        ExportError::Io(e)
    }
}

/// Exports `input` as Parquet to `out` (see the [crate docs](crate) for the columns); `progress`
/// is called as games or records are read.
pub fn export(
    input: Input,
    opts: &ExportOptions,
    out: &mut dyn Write,
    progress: &Progress<'_>,
) -> Result<ExportSummary, ExportError> {
    match input {
        Input::Index(reader) => index::export_index(&reader, opts, out, progress),
        Input::Positions(mut r) => positions::export_positions(&mut *r, opts, out, progress),
    }
}
