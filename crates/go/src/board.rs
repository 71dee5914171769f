//! [`Board`]: stones on points, without rules; and the PositionDB `rows` text.

use crate::coord::{BoardSize, Color, CoordError, Point};
use crate::symmetry::Symmetry;
use std::fmt;

/// Why PositionDB rows text could not be read as a board.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RowsError {
    /// A byte other than `#`, `O`, `.` or ASCII white space.
    #[error("byte {byte:#04x} at offset {offset} is not '#', 'O' or '.'")]
    BadByte {
        /// The byte found.
        byte: u8,
        /// Its offset in the input.
        offset: usize,
    },
    /// The number of points is not `n * n` for a supported size (or not the size asked for).
    #[error("{points} points do not make a square board of a supported size{}",
        .expected.map(|s| format!(" ({} expected)", s.points())).unwrap_or_default())]
    BadCount {
        /// Points read.
        points: usize,
        /// The size that was asked for, if any.
        expected: Option<BoardSize>,
    },
}

/// The stones on a square board, with no rules attached: what diagrams draw, what PositionDB rows
/// store, what symmetries transform. A [`crate::Position`] adds the rules and the hashes.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Board {
    size: BoardSize,
    // Indexed by `Point::index` (row by row from the top-left).
    cells: Vec<Option<Color>>,
}

impl Board {
    /// An empty board.
    pub fn new(size: BoardSize) -> Board {
        Board {
            size,
            cells: vec![None; size.points()],
        }
    }

    /// The board size.
    pub fn size(&self) -> BoardSize {
        self.size
    }

    /// The stone on `p`; `None` if empty or if `p` is off this board.
    pub fn get(&self, p: Point) -> Option<Color> {
        if p.is_on(self.size) {
            self.cells[p.index(self.size)]
        } else {
            None
        }
    }

    /// Puts `stone` (or nothing) on `p`, returning what was there. No captures: this is a drawing.
    pub fn set(&mut self, p: Point, stone: Option<Color>) -> Result<Option<Color>, CoordError> {
        if !p.is_on(self.size) {
            return Err(CoordError::OffBoard {
                col: u32::from(p.col()),
                row: u32::from(p.row()),
                size: self.size.get(),
            });
        }
        Ok(std::mem::replace(
            &mut self.cells[p.index(self.size)],
            stone,
        ))
    }

    /// Every stone, in PositionDB order (row by row from the top-left).
    pub fn stones(&self) -> impl Iterator<Item = (Point, Color)> + '_ {
        self.size
            .all_points()
            .zip(self.cells.iter())
            .filter_map(|(p, c)| c.map(|c| (p, c)))
    }

    /// The number of stones of `color`.
    pub fn count(&self, color: Color) -> usize {
        self.cells.iter().filter(|&&c| c == Some(color)).count()
    }

    /// The number of stones of both colours.
    pub fn stone_count(&self) -> usize {
        self.cells.iter().filter(|c| c.is_some()).count()
    }

    /// The board seen through symmetry `s`: the stone on `p` goes to `s.apply(p)`.
    pub fn transform(&self, s: Symmetry) -> Board {
        let mut out = Board::new(self.size);
        let n = self.size.get();
        for (p, c) in self.stones() {
            let (x, y) = s.apply_xy(p.col(), p.row(), n);
            out.cells[usize::from(y) * usize::from(n) + usize::from(x)] = Some(c);
        }
        out
    }

    /// The PositionDB bytes: `n * n` of `#` (black), `O` (white), `.` (empty), row by row from the
    /// top-left, with no line breaks.
    pub fn to_rows(&self) -> Vec<u8> {
        self.cells.iter().map(|&c| rows_byte(c)).collect()
    }

    /// The same characters with a line break after each row (for reading; `from_rows` takes both).
    pub fn to_rows_lines(&self) -> String {
        let n = usize::from(self.size.get());
        let mut s = String::with_capacity(self.cells.len() + n);
        for row in self.cells.chunks(n) {
            s.extend(row.iter().map(|&c| rows_byte(c) as char));
            s.push('\n');
        }
        s
    }

    /// Reads PositionDB rows: `#`, `O` and `.`, row by row from the top-left; ASCII white space (line
    /// breaks) is skipped. The size is the square root of the number of points, which must be a
    /// supported size; give `expected` to insist on one.
    pub fn from_rows(text: &[u8], expected: Option<BoardSize>) -> Result<Board, RowsError> {
        let mut cells = Vec::with_capacity(text.len().min(BoardSize::MAX as usize * 25));
        for (offset, &byte) in text.iter().enumerate() {
            let cell = match byte {
                b'#' => Some(Color::Black),
                b'O' => Some(Color::White),
                b'.' => None,
                b if b.is_ascii_whitespace() => continue,
                _ => return Err(RowsError::BadByte { byte, offset }),
            };
            if cells.len() == BoardSize::MAX as usize * BoardSize::MAX as usize {
                return Err(RowsError::BadCount {
                    points: cells.len() + 1,
                    expected,
                });
            }
            cells.push(cell);
        }
        let points = cells.len();
        let n = (1..=BoardSize::MAX as usize).find(|n| n * n == points);
        let size = n.and_then(|n| BoardSize::new(n as u32).ok());
        match (size, expected) {
            (Some(size), None) => Ok(Board { size, cells }),
            (Some(size), Some(e)) if size == e => Ok(Board { size, cells }),
            _ => Err(RowsError::BadCount { points, expected }),
        }
    }
}

fn rows_byte(c: Option<Color>) -> u8 {
    match c {
        Some(Color::Black) => b'#',
        Some(Color::White) => b'O',
        None => b'.',
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Board {}", self.size)?;
        f.write_str(&self.to_rows_lines())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_and_orientation() {
        let size = BoardSize::new(3).unwrap();
        let mut b = Board::new(size);
        // A3 is the top-left corner, C1 the bottom-right.
        b.set(Point::from_human("A3", size).unwrap(), Some(Color::Black))
            .unwrap();
        b.set(Point::from_human("C1", size).unwrap(), Some(Color::White))
            .unwrap();
        b.set(Point::from_human("B2", size).unwrap(), Some(Color::Black))
            .unwrap();
        assert_eq!(b.to_rows(), b"#...#...O");
        assert_eq!(b.to_rows_lines(), "#..\n.#.\n..O\n");
        assert_eq!(Board::from_rows(b"#...#...O", None), Ok(b.clone()));
        assert_eq!(
            Board::from_rows(b"#..\r\n.#.\r\n..O\r\n", Some(size)),
            Ok(b.clone())
        );
        assert_eq!(b.count(Color::Black), 2);
        assert_eq!(b.stone_count(), 3);
        assert_eq!(
            Board::from_rows(b"#..x", None),
            Err(RowsError::BadByte {
                byte: b'x',
                offset: 3
            })
        );
        assert_eq!(
            Board::from_rows(b"#....", None),
            Err(RowsError::BadCount {
                points: 5,
                expected: None
            })
        );
        assert_eq!(
            Board::from_rows(b"....", Some(size)),
            Err(RowsError::BadCount {
                points: 4,
                expected: Some(size)
            })
        );
        // 1x1 is not a supported size, and huge inputs stop early.
        assert!(Board::from_rows(b".", None).is_err());
        assert!(Board::from_rows(&[b'.'; 10_000], None).is_err());
    }

    #[test]
    fn transform_moves_stones() {
        let size = BoardSize::new(3).unwrap();
        let b = Board::from_rows(b"##.......", None).unwrap();
        assert_eq!(b.transform(Symmetry::Rotate90).to_rows(), b"..#..#...");
        assert_eq!(b.transform(Symmetry::Transpose).to_rows(), b"#..#.....");
        for s in Symmetry::ALL {
            assert_eq!(b.transform(s).transform(s.inverse()), b);
        }
        assert_eq!(b.size(), size);
    }
}
