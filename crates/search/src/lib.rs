//! Go pattern search: the query model every kifu skin (the CLI, `kifu serve`, Python) shares.
//!
//! - [`pattern`]: rectangles of cells with wildcards, read from rows, turned by the 8
//!   symmetries and with colours swapped.
//! - [`query`]: the pattern, its placement (a fixed place: corner, side, anchor; or anywhere),
//!   symmetries, colour swap, side to move, move window, variations, and [`filter`]s on games.
//! - [`scan`]: the plain search that replays games and tests every position: exact by
//!   construction, the oracle of the tests.
//! - [`dyer`]: duplicate games (the same game in any orientation) by a Dyer-style signature.
//! - [`collection`]: a search over many files in parallel (a `kifu pos index` database's files),
//!   the same answer for any number of threads.
//! - [`index`]: the pattern index (packed games, bitmaps of the points each colour held) that
//!   makes searches fast, with the plain scan's answers.
//! - [`database`]: a `kifu pos index` database opened once for many queries, the entry point of
//!   every skin.
//! - [`lookup`]: the answer of a full-board lookup, as one serde type.
//! - [`answer`]: the one answer type (serde) every skin prints; [`svg`]: the pattern as a
//!   diagram with its continuations lettered.
//!
//! ```
//! use kifu_search::pattern::Pattern;
//! let p = Pattern::parse("..O\n.#.")?;
//! assert_eq!((p.width(), p.height()), (3, 2));
//! assert_eq!(p.swapped().to_rows(), "..#\n.O.\n");
//! # Ok::<(), kifu_search::pattern::PatternError>(())
//! ```

pub mod answer;
pub mod collection;
pub mod database;
pub mod dyer;
pub mod filter;
pub mod index;
pub mod lookup;
pub mod pattern;
pub mod query;
pub mod scan;
pub mod svg;

pub use answer::SearchAnswer;
pub use database::{Database, Verified};
pub use filter::{Filters, GameInfo};
pub use lookup::LookupAnswer;
pub use pattern::{Cell, Pattern, PatternError};
pub use query::{Counting, Placement, Query, Side};
