//! Typed errors of kifu-polyglot. Every error says where: a path, a record number and byte
//! offset for books, a game number and ply for PGN.

use std::path::PathBuf;

/// An error from reading, writing or building a Polyglot book.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An I/O error on a file.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// An I/O error on a stream that has no path (stdin, stdout, a buffer).
    #[error("{0}")]
    Stream(#[from] std::io::Error),
    /// The book's size is not a multiple of 16 bytes.
    #[error("book size {len} is not a multiple of 16: {trailing} trailing bytes at byte offset {offset}")]
    BadSize {
        /// Size of the data in bytes.
        len: u64,
        /// Bytes left over after the last whole record.
        trailing: u64,
        /// Byte offset of the partial record.
        offset: u64,
    },
    /// The records are not sorted by key, so binary search would misread the book.
    #[error("record {record} (byte offset {offset}): key {key:016x} is lower than the previous key {previous:016x}; the book is not sorted (try `kifu book repair`)")]
    Unsorted {
        /// Record number, counted from 0 at the start of the file.
        record: u64,
        /// Byte offset of that record.
        offset: u64,
        /// Its key.
        key: u64,
        /// The key of the record before it.
        previous: u64,
    },
    /// A FEN that does not parse or does not describe a legal position.
    #[error("invalid FEN {fen:?}: {reason}")]
    Fen {
        /// The FEN as given.
        fen: String,
        /// Why it was rejected.
        reason: String,
    },
    /// Bitboards that do not describe a legal position.
    #[error("invalid position: {reason}")]
    Position {
        /// Why it was rejected.
        reason: String,
    },
    /// A move in a move list that is not legal (or not readable) in its position.
    #[error("move {number} {token:?}: {reason}")]
    Move {
        /// 1-based position of the move in the list.
        number: usize,
        /// The move as given.
        token: String,
        /// Why it was rejected.
        reason: String,
    },
    /// A header that cannot be written or parsed.
    #[error("header: {0}")]
    Header(#[from] crate::header::HeaderError),
    /// A book counts file (or a set of them) that cannot be merged: not a counts file, cut
    /// short, from another job, a shard missing or twice.
    #[error("{}: {reason}", path.display())]
    Counts {
        /// The counts file (or input file) concerned.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The parts of a sharded job do not make one whole job (kifu-fs's shard check).
    #[error(transparent)]
    Parts(#[from] kifu_fs::shard::ShardError),
    /// A bad game in a PGN file (only fatal in `--compat polyglot` mode).
    #[error("{}: game {game}: {reason}", path.display())]
    Game {
        /// The PGN file.
        path: PathBuf,
        /// 1-based game number in that file.
        game: u64,
        /// What went wrong, with the ply and move.
        reason: String,
    },
}

impl Error {
    /// Wraps an I/O error with the path it happened on.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
