//! Pictures of a board: ASCII text, and SVG. The PositionDB `rows` text is on [`crate::Board`]
//! ([`crate::Board::to_rows`], [`crate::Board::from_rows`]).

mod ascii;
mod svg;

pub use ascii::{ascii_board, ascii_diagram};
pub use svg::{svg_diagram, Label, Markup, MoveNumber, SvgOptions};
