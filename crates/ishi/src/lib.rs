//! kifu-ishi: the Ishi Standard Format (`.go` files of Many Faces of Go and
//! Ishi Press tools, spec of 17 March 1990): a tolerant reader, a lossless
//! model and writer, validation, and conversion to and from SGF FF\[4\].
//!
//! - **Lossless.** [`read`] keeps everything the spec calls significant
//!   (comments with their titles, marks and unmarks in order, user blocks as
//!   opaque lines, remarks with the event, setup, move or diagram they
//!   precede, nested variations, diagrams); [`write()`] puts it back, and
//!   reading the output gives an equal [`Document`].
//! - **Tolerant, with line numbers.** Reading never fails; every problem is a
//!   [`Diagnostic`] with a stable [`Code`] (`I001`...), a severity, a line and
//!   column. [`validate()`] replays each event with kifu-go's rules: move numbers,
//!   `PRISONER` lines against the captures, locations off the board.
//! - **Flat.** Variations are `BeginVar`/`EndVar` items in a flat list, so no
//!   input can make any function here recurse deeply.
//! - **SGF both ways.** [`to_sgf()`] turns each event into an SGF game tree and
//!   keeps what SGF cannot say in private `IS?` properties (table in
//!   [`mod@to_sgf`]), so Ishi -> SGF -> Ishi gives back an equal document;
//!   [`from_sgf()`] converts any SGF collection, warning for what Ishi cannot hold.
//!
//! # Choices where the spec is loose or garbled
//! - The flattened spec gives no file grammar beyond keyword lines; kifu reads one keyword
//!   line at a time, blocks (`COM`, `USER`) up to a line whose first word ends them.
//! - Text headers that repeat (`ANALYSIS`, `DATE`, `PLACE`, `RECORDER`, `SOURCE`,
//!   `TIMELIMIT`) keep every line; `BLACK`, `WHITE`, `RESULT`, `RULES`, `KOMI`, `HANDICAP`,
//!   `BOARDSIZE` keep the last, with a warning (the spec allows either).
//! - `UNMARK ALL` removes every mark; `UNMARK loc|#n` removes any mark on those stones.
//!   `\d` (diamond) is shown in SGF as `CR`, `\c` (check mark) as `MA`.
//! - Missing move numbers, out-of-sequence and duplicate ones are errors (the spec says they
//!   "usually" or "in general" are); illegal moves are warnings and are played anyway.
//! - A capture without `PRISONER` is only reported (as a warning) in events that list
//!   prisoners somewhere: many files never write them.
//! - Reading and writing normalise what the spec calls insignificant (case of keywords,
//!   white space, line grouping of `SETUP`/`MARK` items, the order of different kinds of
//!   lines after a move); see [`model`] and [`reader`].
//!
//! # Example
//!
//! ```
//! use kifu_ishi::{read, write, to_sgf, from_sgf, Item};
//!
//! let text = "EVENT Joseki\r\nBOARDSIZE 9\r\nB 1 C3\r\nCOM Title\r\nA comment.\r\nENDCOM\r\n\
//!             VAR a\r\nB 1 D4\r\nENDVAR\r\nW 2 G7\r\nMARK ALL \\t@C3\r\n";
//! let parsed = read(text.as_bytes());
//! assert!(parsed.diagnostics.is_empty());
//! let doc = parsed.document;
//! let event = &doc.events[0];
//! assert_eq!(event.title.as_deref(), Some("Joseki"));
//! assert_eq!(event.main_line().count(), 2);
//! assert!(matches!(event.items[1], Item::BeginVar(Some(ref m)) if m == "a"));
//! // Writing gives the same text back here (and an equal model always).
//! assert_eq!(write(&doc), text);
//! assert!(kifu_ishi::validate(&doc).is_empty());
//!
//! // To SGF and back.
//! let sgf = to_sgf(&doc);
//! assert_eq!(kifu_sgf::write(&sgf.collection),
//!     "(;FF[4]CA[UTF-8]GM[1]SZ[9]GN[Joseki]\n(;B[cg]C[Title\nA comment.]ISC[Title\nA comment.];W[gc]\
//! LB[gc:2]TR[cg]ISM[MARK ALL \\\\t@C3])\n(;ISV[a]B[df]))\n");
//! let back = from_sgf(&sgf.collection);
//! assert_eq!(back.document, doc);
//! ```

pub mod diag;
pub mod from_sgf;
pub mod model;
pub mod reader;
mod sgfmap;
pub mod to_sgf;
pub mod validate;
pub mod writer;

pub use diag::{Code, Diagnostic, DiagnosticSink, Severity};
pub use from_sgf::{from_sgf, FromSgf};
pub use model::*;
pub use reader::{read, Parsed};
pub use to_sgf::{to_sgf, Converted};
pub use validate::validate;
pub use writer::write;

/// Errors of the file-level helpers (reading itself never fails).
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

/// Reads a file.
pub fn read_file(path: impl AsRef<std::path::Path>) -> Result<Parsed, Error> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })?;
    Ok(read(&bytes))
}

/// Reads and validates: the diagnostics of [`read()`] and [`validate()`], in line order.
pub fn check(bytes: &[u8]) -> Parsed {
    let mut p = read(bytes);
    p.diagnostics.extend(validate(&p.document));
    p.diagnostics.sort_by_key(|d| (d.line, d.column));
    // One capped list for the file, the first by line: the two notes' counts add up.
    let mut sink = DiagnosticSink::new();
    sink.extend(std::mem::take(&mut p.diagnostics));
    p.diagnostics = sink.finish();
    p
}
