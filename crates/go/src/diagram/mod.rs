//! Pictures of a board: ASCII text, SVG, and (with the `png` feature) PNG rendered from the SVG. The PositionDB `rows` text is on [`crate::Board`]
//! ([`crate::Board::to_rows`], [`crate::Board::from_rows`]).

mod ascii;
#[cfg(feature = "png")]
mod png;
mod svg;

pub use ascii::{ascii_board, ascii_diagram};
#[cfg(feature = "png")]
pub use png::{render_png, Png, PngError, MAX_SIDE};
pub use svg::{svg_diagram, Label, Markup, MoveNumber, SvgOptions};
