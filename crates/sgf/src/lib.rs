//! kifu-sgf: a fast, lossless and tolerant reader and writer for SGF, the Smart
//! Game Format, in its versions FF\[1\], FF\[3\] and FF\[4\].
//!
//! - **Lossless.** Values stay as the raw (escaped) bytes of the file until a
//!   typed accessor decodes them; writing puts them back byte for byte.
//!   Unknown and private properties are kept.
//! - **Tolerant.** Real archives are full of slightly broken files. The reader
//!   reads what can be read and reports each problem once as a [`Diagnostic`]
//!   with a stable [`Code`] (the table in [`diag`] gives SGFC's number beside
//!   each), a severity and a line and column.
//! - **Streaming and flat.** The [`reader`] reports game trees, variations,
//!   nodes and properties to a [`Visitor`] without recursion (10,000 nested
//!   variations cost nothing on the stack) and can skip variations; the owned
//!   [`Collection`] is one such visitor, kept in flat arrays (16 bytes a node,
//!   12 a property, plus the text).
//! - **Charsets.** `CA[]`, byte-order marks and UTF-16 are honoured, and text
//!   that declares nothing and is not UTF-8 is detected ([`charset`]).
//! - **FF\[4\] out.** [`convert::to_ff4`] repairs what SGFC repairs and turns
//!   FF\[1\]/FF\[3\] into FF\[4\]; [`write()`] writes UTF-8 with `CA[UTF-8]`.
//!
//! kifu-sgf knows nothing of Go rules: kifu-go replays game trees.
//!
//! # Example
//!
//! ```
//! use kifu_sgf::Collection;
//!
//! let parsed = Collection::parse(b"(;FF[4]GM[1]SZ[9]PB[Honinbo Shusaku]C[Ear\\]reddening]
//!     ;B[ee];W[cc](;B[gc])(;B[cg]))");
//! assert!(parsed.diagnostics.is_empty());
//! let game = parsed.collection.game(0).unwrap();
//! let root = game.root();
//! assert_eq!(root.simple_text("PB").as_deref(), Some("Honinbo Shusaku"));
//! assert_eq!(root.text("C").as_deref(), Some("Ear]reddening"));
//! assert_eq!(game.board_size(), Some((9, 9)));
//! // The main line follows first children; variations are siblings.
//! let moves: Vec<String> = game
//!     .main_line()
//!     .filter_map(|n| n.get("B").or(n.get("W")))
//!     .map(|p| String::from_utf8_lossy(p.value().unwrap().raw()).into_owned())
//!     .collect();
//! assert_eq!(moves, ["ee", "cc", "gc"]);
//! // Writing gives the same values back.
//! let text = kifu_sgf::write(&parsed.collection);
//! assert!(text.starts_with("(;FF[4]GM[1]SZ[9]PB[Honinbo Shusaku]C[Ear\\]reddening]"));
//! ```
//!
//! Checking and converting an old file:
//!
//! ```
//! use kifu_sgf::{convert, Collection};
//!
//! let parsed = Collection::parse(b"(;FF[3]GaMe[1]SZ[19]KI[11];B[pd];W[tt])");
//! let converted = convert::to_ff4(&parsed.collection);
//! assert_eq!(kifu_sgf::write(&converted.collection),
//!            "(;FF[4]CA[UTF-8]GM[1]SZ[19]KM[5.5];B[pd];W[])\n");
//! ```

pub mod charset;
pub mod convert;
pub mod diag;
pub mod props;
pub mod reader;
mod tree;
mod value;
mod writer;

pub use diag::{
    merge_capped, overflow_counts, Code, Diagnostic, DiagnosticSink, LineIndex, Severity,
};
pub use reader::{read, RawProperty, Skip, Span, Visitor};
pub use tree::{
    escape, escape_part, Builder, Collection, GameTree, Node, Parsed, Prop, PropId, WalkEvent,
};
pub use value::{SgfMove, SgfPoint, Value, Values};
pub use writer::{write, write_game, write_to};

/// Errors of the file-level helpers (parsing itself never fails: problems are
/// [`Diagnostic`]s).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
}

/// Reads and parses a file.
pub fn parse_file(path: impl AsRef<std::path::Path>) -> Result<Parsed, Error> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })?;
    Ok(Collection::parse_vec(bytes))
}
