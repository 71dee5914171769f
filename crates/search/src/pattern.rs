//! Patterns: rectangles of cells (stones, empty points, wildcards), read from rows as
//! `kifu show --format rows` prints boards, turned by the 8 symmetries and with colours swapped.
//!
//! | letter | cell |
//! |---|---|
//! | `#` or `X` | a black stone |
//! | `O` | a white stone |
//! | `.` | an empty point |
//! | `*` or `?` | anything (a wildcard) |
//! | `x` | empty or black |
//! | `o` | empty or white |
//!
//! Rows are separated by line breaks or `/`; spaces and tabs are ignored, so a pattern can be
//! written `"X O . / . * x"`.

use kifu_go::{Board, BoardSize, Color, Point, Symmetry};
use serde::{Deserialize, Serialize};

/// What a pattern asks of one point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cell {
    /// A black stone.
    Black,
    /// A white stone.
    White,
    /// No stone.
    Empty,
    /// Anything.
    Any,
    /// No stone or a black one.
    EmptyOrBlack,
    /// No stone or a white one.
    EmptyOrWhite,
}

impl Cell {
    /// The cell of a pattern letter (see the module docs).
    pub fn from_letter(c: char) -> Option<Cell> {
        Some(match c {
            '#' | 'X' => Cell::Black,
            'O' => Cell::White,
            '.' => Cell::Empty,
            '*' | '?' => Cell::Any,
            'x' => Cell::EmptyOrBlack,
            'o' => Cell::EmptyOrWhite,
            _ => return None,
        })
    }

    /// The letter written for the cell (`#` for black, as board rows have it).
    pub fn letter(self) -> char {
        match self {
            Cell::Black => '#',
            Cell::White => 'O',
            Cell::Empty => '.',
            Cell::Any => '*',
            Cell::EmptyOrBlack => 'x',
            Cell::EmptyOrWhite => 'o',
        }
    }

    /// Whether a point holding `stone` satisfies the cell.
    #[inline]
    pub fn matches(self, stone: Option<Color>) -> bool {
        matches!(
            (self, stone),
            (Cell::Any, _)
                | (Cell::Black, Some(Color::Black))
                | (Cell::White, Some(Color::White))
                | (Cell::Empty | Cell::EmptyOrBlack | Cell::EmptyOrWhite, None)
                | (Cell::EmptyOrBlack, Some(Color::Black))
                | (Cell::EmptyOrWhite, Some(Color::White))
        )
    }

    /// The cell with Black and White exchanged.
    pub fn swapped(self) -> Cell {
        match self {
            Cell::Black => Cell::White,
            Cell::White => Cell::Black,
            Cell::EmptyOrBlack => Cell::EmptyOrWhite,
            Cell::EmptyOrWhite => Cell::EmptyOrBlack,
            c => c,
        }
    }

    /// Whether the cell asks for something (every cell but [`Cell::Any`]).
    pub fn constrains(self) -> bool {
        self != Cell::Any
    }

    /// Whether the cell allows more than one state (`*`, `x`, `o`).
    pub fn is_wildcard(self) -> bool {
        matches!(self, Cell::Any | Cell::EmptyOrBlack | Cell::EmptyOrWhite)
    }
}

/// Why a pattern could not be read. Rows and columns count from 1, columns in characters.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    /// A character that is no pattern letter.
    #[error("row {row}, column {column}: {found:?} is not a pattern letter (# X O . * ? x o)")]
    Letter {
        /// Row, from 1.
        row: usize,
        /// Column, from 1.
        column: usize,
        /// The character.
        found: char,
    },
    /// A row of another width than the first.
    #[error(
        "row {row}: {width} cells, but row {first} has {expected} (rows must be equally long)"
    )]
    Ragged {
        /// Row, from 1.
        row: usize,
        /// Its width.
        width: usize,
        /// The first row's line, from 1 (blank lines before it count).
        first: usize,
        /// The first row's width.
        expected: usize,
    },
    /// A row wider than any board.
    #[error("row {row} has {width} cells, more than the largest board's {max}")]
    RowTooLong {
        /// Row, from 1.
        row: usize,
        /// Its width.
        width: usize,
        /// The largest board side.
        max: u8,
    },
    /// No cell at all.
    #[error("the pattern is empty")]
    Empty,
    /// A blank row between rows.
    #[error("row {row} is blank, between rows of the pattern")]
    BlankRow {
        /// Row, from 1.
        row: usize,
    },
    /// Larger than any board.
    #[error("the pattern is {width}x{height}, larger than the largest board ({max}x{max})")]
    TooLarge {
        /// Columns.
        width: usize,
        /// Rows.
        height: usize,
        /// The largest board side.
        max: u8,
    },
    /// Only wildcards: it would match everywhere.
    #[error("the pattern has only wildcards (*): give at least one stone or empty point")]
    OnlyWildcards,
}

/// A rectangle of cells, row 0 at the top. In JSON it is its rows as text (`"..O\n.#.\n"`), read
/// by [`Pattern::parse`], so a JSON query can hold no malformed pattern.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Pattern {
    width: u8,
    height: u8,
    cells: Vec<Cell>,
}

impl Pattern {
    /// A pattern of `width` x `height` cells, row by row from the top-left.
    pub fn new(width: usize, height: usize, cells: Vec<Cell>) -> Result<Pattern, PatternError> {
        if width == 0 || height == 0 || cells.is_empty() {
            return Err(PatternError::Empty);
        }
        let max = BoardSize::MAX;
        if width > usize::from(max) || height > usize::from(max) {
            return Err(PatternError::TooLarge { width, height, max });
        }
        assert_eq!(cells.len(), width * height, "cells must fill the rectangle");
        if !cells.iter().any(|c| c.constrains()) {
            return Err(PatternError::OnlyWildcards);
        }
        Ok(Pattern {
            width: width as u8,
            height: height as u8,
            cells,
        })
    }

    /// Reads rows (see the module docs).
    pub fn parse(text: &str) -> Result<Pattern, PatternError> {
        let mut cells = Vec::new();
        let mut width = None;
        let mut height = 0;
        let mut blank = None;
        let max = usize::from(BoardSize::MAX);
        for (r, line) in text.split(['\n', '/']).enumerate() {
            let line = line.trim_end_matches('\r');
            let mut w = 0;
            for (c, ch) in line.chars().enumerate() {
                if ch == ' ' || ch == '\t' {
                    continue;
                }
                let cell = Cell::from_letter(ch).ok_or(PatternError::Letter {
                    row: r + 1,
                    column: c + 1,
                    found: ch,
                })?;
                w += 1;
                if w > max {
                    // The row's whole width, not where the reading stopped.
                    let rest = line.chars().skip(c + 1).filter(|ch| !ch.is_whitespace());
                    return Err(PatternError::RowTooLong {
                        row: r + 1,
                        width: w + rest.count(),
                        max: BoardSize::MAX,
                    });
                }
                cells.push(cell);
            }
            if w == 0 {
                // Blank lines around the rows; one between them (found at the next row)
                // would join two patterns.
                if height > 0 && blank.is_none() {
                    blank = Some(r + 1);
                }
                continue;
            }
            if let Some(row) = blank {
                return Err(PatternError::BlankRow { row });
            }
            height += 1;
            if height > max {
                return Err(PatternError::TooLarge {
                    width: w,
                    height,
                    max: BoardSize::MAX,
                });
            }
            match width {
                None => width = Some((w, r + 1)),
                Some((expected, first)) if expected != w => {
                    return Err(PatternError::Ragged {
                        row: r + 1,
                        width: w,
                        first,
                        expected,
                    })
                }
                Some(_) => {}
            }
        }
        Pattern::new(width.map_or(0, |(w, _)| w), height, cells)
    }

    /// The stones and empty points of the rectangle `cols` x `rows` of `board` whose top-left is
    /// (`col`, `row`): the pattern of a region of a real position. `None` if it leaves the board.
    pub fn from_board(
        board: &Board,
        col: u32,
        row: u32,
        width: u32,
        height: u32,
    ) -> Option<Pattern> {
        let n = u32::from(board.size().get());
        if width == 0 || height == 0 || col + width > n || row + height > n {
            return None;
        }
        let mut cells = Vec::with_capacity((width * height) as usize);
        for y in row..row + height {
            for x in col..col + width {
                let p = Point::new(x, y, board.size()).ok()?;
                cells.push(match board.get(p) {
                    Some(Color::Black) => Cell::Black,
                    Some(Color::White) => Cell::White,
                    None => Cell::Empty,
                });
            }
        }
        Pattern::new(width as usize, height as usize, cells).ok()
    }

    /// Columns.
    pub fn width(&self) -> u32 {
        u32::from(self.width)
    }

    /// Rows.
    pub fn height(&self) -> u32 {
        u32::from(self.height)
    }

    /// The cell at column `x`, row `y` of the rectangle.
    #[inline]
    pub fn cell(&self, x: u32, y: u32) -> Cell {
        self.cells[(y * self.width() + x) as usize]
    }

    /// The cells, row by row from the top-left.
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// Whether a cell allows more than one state ([`Cell::is_wildcard`]).
    pub fn has_wildcards(&self) -> bool {
        self.cells.iter().any(|c| c.is_wildcard())
    }

    /// How many cells want a stone (of either colour; wildcards are not counted).
    pub fn stones(&self) -> usize {
        self.cells
            .iter()
            .filter(|c| matches!(c, Cell::Black | Cell::White))
            .count()
    }

    /// The rows as text, one line per row.
    pub fn to_rows(&self) -> String {
        let mut s = String::with_capacity(self.cells.len() + usize::from(self.height));
        for row in self.cells.chunks(usize::from(self.width)) {
            s.extend(row.iter().map(|c| c.letter()));
            s.push('\n');
        }
        s
    }

    /// The pattern with Black and White exchanged.
    pub fn swapped(&self) -> Pattern {
        Pattern {
            width: self.width,
            height: self.height,
            cells: self.cells.iter().map(|c| c.swapped()).collect(),
        }
    }

    /// The pattern as it looks after `sym` is applied to a board holding it: its rectangle turned
    /// or mirrored (a 3x2 pattern becomes 2x3 under a quarter turn). Cell (x, y) goes where
    /// `sym` sends (x, y) on a square of the pattern's larger side, shifted back into the box.
    pub fn transformed(&self, sym: Symmetry) -> Pattern {
        let (w, h) = (self.width(), self.height());
        let (tw, th) = if swaps_axes(sym) { (h, w) } else { (w, h) };
        let mut cells = vec![Cell::Any; (tw * th) as usize];
        for y in 0..h {
            for x in 0..w {
                let (tx, ty) = map_in_box(sym, x, y, w, h);
                cells[(ty * tw + tx) as usize] = self.cell(x, y);
            }
        }
        Pattern {
            width: tw as u8,
            height: th as u8,
            cells,
        }
    }

    /// Whether the pattern matches `board` with its top-left cell on (`col`, `row`); points off
    /// the board never match.
    pub fn matches_at(&self, board: &Board, col: u32, row: u32) -> bool {
        let n = u32::from(board.size().get());
        if col + self.width() > n || row + self.height() > n {
            return false;
        }
        (0..self.height()).all(|y| {
            (0..self.width()).all(|x| {
                let c = self.cell(x, y);
                !c.constrains()
                    || Point::new(col + x, row + y, board.size())
                        .is_ok_and(|p| c.matches(board.get(p)))
            })
        })
    }
}

impl TryFrom<String> for Pattern {
    type Error = PatternError;
    fn try_from(rows: String) -> Result<Pattern, PatternError> {
        Pattern::parse(&rows)
    }
}

impl From<Pattern> for String {
    fn from(p: Pattern) -> String {
        p.to_rows()
    }
}

/// Whether `sym` exchanges columns and rows (quarter turns and diagonal mirrors).
pub fn swaps_axes(sym: Symmetry) -> bool {
    matches!(
        sym,
        Symmetry::Rotate90 | Symmetry::Rotate270 | Symmetry::Transpose | Symmetry::AntiTranspose
    )
}

/// Where `sym` sends cell (x, y) of a `w` x `h` box, in the transformed box (see
/// [`Pattern::transformed`]): the same mapping as on a board, relative to the box.
pub fn map_in_box(sym: Symmetry, x: u32, y: u32, w: u32, h: u32) -> (u32, u32) {
    let (mx, my) = (w - 1, h - 1);
    match sym {
        Symmetry::Identity => (x, y),
        Symmetry::Rotate90 => (my - y, x),
        Symmetry::Rotate180 => (mx - x, my - y),
        Symmetry::Rotate270 => (y, mx - x),
        Symmetry::FlipHorizontal => (mx - x, y),
        Symmetry::FlipVertical => (x, my - y),
        Symmetry::Transpose => (y, x),
        Symmetry::AntiTranspose => (my - y, mx - x),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_letters_rows_and_errors() {
        let p = Pattern::parse("X O .\n* x o\n").unwrap();
        assert_eq!((p.width(), p.height()), (3, 2));
        assert_eq!(p.to_rows(), "#O.\n*xo\n");
        assert_eq!(Pattern::parse("#O./*xo").unwrap(), p);
        assert_eq!(
            Pattern::parse("#O.\n#Q.").unwrap_err(),
            PatternError::Letter {
                row: 2,
                column: 2,
                found: 'Q'
            }
        );
        assert_eq!(
            Pattern::parse("#O.\n#O").unwrap_err(),
            PatternError::Ragged {
                row: 2,
                width: 2,
                first: 1,
                expected: 3
            }
        );
        assert_eq!(Pattern::parse(" \n\n").unwrap_err(), PatternError::Empty);
        assert_eq!(
            Pattern::parse("**\n**").unwrap_err(),
            PatternError::OnlyWildcards
        );
        let wide = "#".repeat(26);
        assert!(matches!(
            Pattern::parse(&wide).unwrap_err(),
            PatternError::RowTooLong {
                row: 1,
                width: 26,
                ..
            }
        ));
        assert!(Pattern::parse(&".\n".repeat(26)).is_err());
        // The whole row's width, however far past the largest board.
        assert!(matches!(
            Pattern::parse(&format!("..O/{}/.#.", ".".repeat(1000))).unwrap_err(),
            PatternError::RowTooLong {
                row: 2,
                width: 1000,
                ..
            }
        ));
        // Rows are named by their line, blank lines before them counted.
        assert_eq!(
            Pattern::parse("//..O/.#").unwrap_err(),
            PatternError::Ragged {
                row: 4,
                width: 2,
                first: 3,
                expected: 3
            }
        );
        // Blank lines around the rows are nothing; one between rows is an error.
        assert_eq!(
            Pattern::parse("\n\n#.\n.O\n\n\n").unwrap(),
            Pattern::parse("#./.O").unwrap()
        );
        assert_eq!(
            Pattern::parse("#.\n\n.O").unwrap_err(),
            PatternError::BlankRow { row: 2 }
        );
        assert_eq!(
            Pattern::parse("#.//.O").unwrap_err(),
            PatternError::BlankRow { row: 2 }
        );
    }

    #[test]
    fn cells_match_what_they_say() {
        use Color::*;
        let stones = [None, Some(Black), Some(White)];
        let want = |c: Cell| stones.map(|s| c.matches(s));
        assert_eq!(want(Cell::Black), [false, true, false]);
        assert_eq!(want(Cell::White), [false, false, true]);
        assert_eq!(want(Cell::Empty), [true, false, false]);
        assert_eq!(want(Cell::Any), [true, true, true]);
        assert_eq!(want(Cell::EmptyOrBlack), [true, true, false]);
        assert_eq!(want(Cell::EmptyOrWhite), [true, false, true]);
    }

    #[test]
    fn transforms_agree_with_the_board() {
        // A pattern placed on a board, the board transformed, must be found where the
        // transformed rectangle lies, as the transformed pattern.
        let size = BoardSize::new(9).unwrap();
        let p = Pattern::parse("#O.\n.#O").unwrap();
        let mut board = Board::new(size);
        for y in 0..2 {
            for x in 0..3 {
                let stone = match p.cell(x, y) {
                    Cell::Black => Some(Color::Black),
                    Cell::White => Some(Color::White),
                    _ => None,
                };
                board
                    .set(Point::new(1 + x, 2 + y, size).unwrap(), stone)
                    .unwrap();
            }
        }
        for sym in Symmetry::ALL {
            let t = p.transformed(sym);
            let b = board.transform(sym);
            let found: Vec<(u32, u32)> = (0..9)
                .flat_map(|r| (0..9).map(move |c| (c, r)))
                .filter(|&(c, r)| t.matches_at(&b, c, r))
                .collect();
            // The rectangle's corners map to the new rectangle's corners.
            let corners = [(1, 2), (3, 3)].map(|(x, y)| {
                let q = sym.apply(Point::new(x, y, size).unwrap(), size);
                (q.col() as u32, q.row() as u32)
            });
            let anchor = (
                corners[0].0.min(corners[1].0),
                corners[0].1.min(corners[1].1),
            );
            assert_eq!(found, vec![anchor], "{sym:?}");
        }
    }

    #[test]
    fn regions_of_a_board() {
        let size = BoardSize::new(9).unwrap();
        let mut board = Board::new(size);
        board
            .set(Point::new(2, 2, size).unwrap(), Some(Color::Black))
            .unwrap();
        let p = Pattern::from_board(&board, 0, 0, 4, 3).unwrap();
        assert_eq!(p.to_rows(), "....\n....\n..#.\n");
        assert!(Pattern::from_board(&board, 6, 0, 4, 3).is_none());
    }
}
