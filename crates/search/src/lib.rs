//! Go pattern search: the query model every kifu skin (the CLI, `kifu serve`, Python) shares.
//!
//! - [`pattern`]: rectangles of cells with wildcards, read from rows, turned by the 8
//!   symmetries and with colours swapped.
//!
//! ```
//! use kifu_search::pattern::Pattern;
//! let p = Pattern::parse("..O\n.#.")?;
//! assert_eq!((p.width(), p.height()), (3, 2));
//! assert_eq!(p.swapped().to_rows(), "..#\n.O.\n");
//! # Ok::<(), kifu_search::pattern::PatternError>(())
//! ```

pub mod pattern;
