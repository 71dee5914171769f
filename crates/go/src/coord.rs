//! Colours, board sizes, points and moves: the small `Copy` vocabulary of the crate.
//!
//! Coordinates follow SGF and the PositionDB files: `col` counts from the left edge and `row` from the
//! **top** edge, both from 0. Human coordinates (GTP, diagrams) use the letters `A`-`Z` without `I` for
//! columns and number rows from the **bottom**, so SGF `dd` on 19x19 is `D16`.

use std::fmt;

/// The colour of a stone or of a player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// Black (plays first in an even game; `B` in SGF, `#` in PositionDB rows).
    Black,
    /// White (`W` in SGF, `O` in PositionDB rows).
    White,
}

/// A colour is the letter `"B"` or `"W"` in JSON and other serde formats.
#[cfg(feature = "serde")]
impl serde::Serialize for Color {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_char(self.letter())
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Color {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Color, D::Error> {
        let t = String::deserialize(d)?;
        match t.as_str() {
            "B" | "b" => Ok(Color::Black),
            "W" | "w" => Ok(Color::White),
            _ => Err(serde::de::Error::custom(format!("colour {t:?}: B or W"))),
        }
    }
}

impl Color {
    /// Both colours, Black first.
    pub const ALL: [Color; 2] = [Color::Black, Color::White];

    /// The other colour.
    #[inline]
    pub const fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// 0 for Black, 1 for White: the column of the colour in a Zobrist table.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The SGF letter: `B` or `W` (also the to-play byte of a PositionId).
    pub const fn letter(self) -> char {
        match self {
            Color::Black => 'B',
            Color::White => 'W',
        }
    }

    /// Parses `B`/`W` (either case) as used by SGF `PL` and PositionId; `None` for anything else.
    pub fn from_letter(letter: u8) -> Option<Color> {
        match letter {
            b'B' | b'b' => Some(Color::Black),
            b'W' | b'w' => Some(Color::White),
            _ => None,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::Black => "Black",
            Color::White => "White",
        })
    }
}

/// Why a board size, point or coordinate was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CoordError {
    /// The board is not square (SGF `SZ[19:13]`): kifu-go plays on square boards only.
    #[error("board {cols}x{rows} is not square; only square boards 2x2 to 25x25 are supported")]
    NotSquare {
        /// Number of columns asked for.
        cols: u32,
        /// Number of rows asked for.
        rows: u32,
    },
    /// The size is outside 2..=25.
    #[error("board size {0} is not supported; sizes 2 to 25 are")]
    UnsupportedSize(u32),
    /// A column or row is outside the board.
    #[error("point (col {col}, row {row}) is off a {size}x{size} board")]
    OffBoard {
        /// Column from the left, from 0.
        col: u32,
        /// Row from the top, from 0.
        row: u32,
        /// Board size.
        size: u8,
    },
    /// Two things that must share a board size do not (a board and a Zobrist table).
    #[error("board size {found} does not match the expected {expected}")]
    SizeMismatch {
        /// The size expected (e.g. the Zobrist table's).
        expected: u8,
        /// The size found (e.g. the board's).
        found: u8,
    },
    /// SGF point text that is not two letters `a`-`z`.
    #[error("SGF point {text:?} is not two lower-case letters")]
    BadSgf {
        /// The offending text (lossy UTF-8).
        text: String,
    },
    /// Text that is not a GTP/diagram coordinate like `D4`.
    #[error("coordinate {text:?} is not a column letter (A-Z without I) followed by a row number")]
    BadHuman {
        /// The offending text.
        text: String,
    },
}

/// The size of a square board, from 2x2 to 25x25 (25 is the most that column letters without `I` name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BoardSize(u8);

impl BoardSize {
    /// Smallest supported size.
    pub const MIN: u8 = 2;
    /// Largest supported size.
    pub const MAX: u8 = 25;
    /// 9x9.
    pub const NINE: BoardSize = BoardSize(9);
    /// 13x13.
    pub const THIRTEEN: BoardSize = BoardSize(13);
    /// 19x19.
    pub const NINETEEN: BoardSize = BoardSize(19);

    /// A square board `n`x`n`; `n` must be in 2..=25.
    pub fn new(n: u32) -> Result<BoardSize, CoordError> {
        if (u32::from(Self::MIN)..=u32::from(Self::MAX)).contains(&n) {
            Ok(BoardSize(n as u8))
        } else {
            Err(CoordError::UnsupportedSize(n))
        }
    }

    /// A board of `cols` x `rows` (as SGF `SZ[c:r]` gives it): rejected unless square and supported.
    pub fn from_dims(cols: u32, rows: u32) -> Result<BoardSize, CoordError> {
        if cols != rows {
            return Err(CoordError::NotSquare { cols, rows });
        }
        BoardSize::new(cols)
    }

    /// The side length `n`.
    #[inline]
    pub const fn get(self) -> u8 {
        self.0
    }

    /// The number of points, `n * n`.
    #[inline]
    pub const fn points(self) -> usize {
        self.0 as usize * self.0 as usize
    }

    /// All points in PositionDB/Zobrist-file order: row by row from the top-left.
    pub fn all_points(self) -> impl Iterator<Item = Point> + Clone {
        let n = self.0;
        (0..n).flat_map(move |row| (0..n).map(move |col| Point { col, row }))
    }

    /// The star points (hoshi) drawn on diagrams, as most Go software draws them: none below 7x7
    /// (except the centre of odd boards from 5x5), corners on the 3-3 point below 13x13 and on the 4-4
    /// point from 13x13, sides and centre on odd boards from 13x13 (centre from 5x5).
    pub fn star_points(self) -> Vec<Point> {
        let n = self.0;
        let mut out = Vec::new();
        if n >= 7 {
            let e = if n >= 13 { 3 } else { 2 };
            let far = n - 1 - e;
            let mid = n / 2;
            let lines: Vec<u8> = if n % 2 == 1 && n >= 13 {
                vec![e, mid, far]
            } else {
                vec![e, far]
            };
            for &row in &lines {
                for &col in &lines {
                    out.push(Point { col, row });
                }
            }
        }
        if n % 2 == 1 && (5..13).contains(&n) {
            out.push(Point {
                col: n / 2,
                row: n / 2,
            });
        }
        out.sort();
        out.dedup();
        out
    }
}

impl fmt::Display for BoardSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{0}x{0}", self.0)
    }
}

impl TryFrom<u32> for BoardSize {
    type Error = CoordError;
    fn try_from(n: u32) -> Result<Self, Self::Error> {
        BoardSize::new(n)
    }
}

/// The column letters of diagrams and GTP: `A` to `Z` without `I` (25 letters, enough for 25x25).
pub const COLUMN_LETTERS: &[u8; 25] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

/// An intersection of the board: column from the left and row from the top, both from 0.
///
/// A `Point` is built checked against a [`BoardSize`]; functions that take a board check again that the
/// point lies on it, so a point from a larger board is reported, never misread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point {
    // Row first so that the derived order is the PositionDB order (row by row from the top-left).
    row: u8,
    col: u8,
}

impl Point {
    /// The point at `col` (from the left) and `row` (from the top), both from 0, checked against `size`.
    pub fn new(col: u32, row: u32, size: BoardSize) -> Result<Point, CoordError> {
        let n = u32::from(size.get());
        if col < n && row < n {
            Ok(Point {
                col: col as u8,
                row: row as u8,
            })
        } else {
            Err(CoordError::OffBoard {
                col,
                row,
                size: size.get(),
            })
        }
    }

    /// A point from raw numbers the caller knows to be on the board (crate-internal).
    #[inline]
    pub(crate) const fn from_raw(col: u8, row: u8) -> Point {
        Point { col, row }
    }

    /// Column from the left edge, from 0.
    #[inline]
    pub const fn col(self) -> u8 {
        self.col
    }

    /// Row from the top edge, from 0 (SGF's second letter).
    #[inline]
    pub const fn row(self) -> u8 {
        self.row
    }

    /// Whether the point lies on a board of `size`.
    #[inline]
    pub const fn is_on(self, size: BoardSize) -> bool {
        self.col < size.0 && self.row < size.0
    }

    /// The index `row * n + col`: the position of the point in PositionDB rows and in the
    /// `zobrist_board_81.dat` point lines.
    #[inline]
    pub const fn index(self, size: BoardSize) -> usize {
        self.row as usize * size.0 as usize + self.col as usize
    }

    /// The point at `index` (see [`Point::index`]); `None` if `index >= n * n`.
    pub fn from_index(index: usize, size: BoardSize) -> Option<Point> {
        if index < size.points() {
            let n = size.0 as usize;
            Some(Point {
                col: (index % n) as u8,
                row: (index / n) as u8,
            })
        } else {
            None
        }
    }

    /// Parses SGF point text, two letters `a`-`y` (column then row from the top-left), on a board of
    /// `size`. `tt` and the empty value are passes in SGF: use [`Move::from_sgf`] for move values.
    pub fn from_sgf(text: &[u8], size: BoardSize) -> Result<Point, CoordError> {
        let bad = || CoordError::BadSgf {
            text: String::from_utf8_lossy(text).into_owned(),
        };
        match *text {
            [c, r] if c.is_ascii_lowercase() && r.is_ascii_lowercase() => {
                Point::new(u32::from(c - b'a'), u32::from(r - b'a'), size)
            }
            _ => Err(bad()),
        }
    }

    /// The SGF text of the point, two lower-case letters.
    pub fn to_sgf(self) -> [u8; 2] {
        [b'a' + self.col, b'a' + self.row]
    }

    /// The GTP/diagram coordinate, e.g. `D16` for SGF `dd` on 19x19 (rows numbered from the bottom).
    pub fn to_human(self, size: BoardSize) -> String {
        let letter = COLUMN_LETTERS[usize::from(self.col)] as char;
        format!("{}{}", letter, u32::from(size.0) - u32::from(self.row))
    }

    /// Parses a GTP/diagram coordinate (`D4`, `q16`; letters without `I`, rows from the bottom).
    pub fn from_human(text: &str, size: BoardSize) -> Result<Point, CoordError> {
        let bad = || CoordError::BadHuman {
            text: text.to_owned(),
        };
        let bytes = text.trim().as_bytes();
        let (&letter, digits) = bytes.split_first().ok_or_else(bad)?;
        let letter = letter.to_ascii_uppercase();
        let col = COLUMN_LETTERS
            .iter()
            .position(|&l| l == letter)
            .ok_or_else(bad)?;
        if digits.is_empty() || digits.len() > 2 || !digits.iter().all(u8::is_ascii_digit) {
            return Err(bad());
        }
        let number: u32 = digits
            .iter()
            .fold(0, |acc, d| acc * 10 + u32::from(d - b'0'));
        let n = u32::from(size.0);
        if number == 0 || number > n {
            return Err(CoordError::OffBoard {
                col: col as u32,
                row: n.wrapping_sub(number),
                size: size.0,
            });
        }
        Point::new(col as u32, n - number, size)
    }
}

impl fmt::Display for Point {
    /// Writes the SGF letters (`dd`), which need no board size.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [c, r] = self.to_sgf();
        write!(f, "{}{}", c as char, r as char)
    }
}

/// A move: a stone on a point, or a pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Move {
    /// A stone played on a point.
    Play(Point),
    /// A pass (SGF `B[]`, or `B[tt]` on boards up to 19x19).
    Pass,
}

impl Move {
    /// Parses an SGF move value: empty is a pass, `tt` is a pass on boards up to 19x19 (`FF[3]` habit),
    /// anything else must be a point on the board.
    pub fn from_sgf(text: &[u8], size: BoardSize) -> Result<Move, CoordError> {
        if text.is_empty() || (text == b"tt" && size.get() <= 19) {
            Ok(Move::Pass)
        } else {
            Point::from_sgf(text, size).map(Move::Play)
        }
    }

    /// The SGF value: the point's letters, or empty for a pass (`FF[4]`).
    pub fn to_sgf(self) -> Vec<u8> {
        match self {
            Move::Play(p) => p.to_sgf().to_vec(),
            Move::Pass => Vec::new(),
        }
    }

    /// The point played, if any.
    pub const fn point(self) -> Option<Point> {
        match self {
            Move::Play(p) => Some(p),
            Move::Pass => None,
        }
    }

    /// The GTP form: a coordinate like `D4`, or `pass`.
    pub fn to_human(self, size: BoardSize) -> String {
        match self {
            Move::Play(p) => p.to_human(size),
            Move::Pass => "pass".to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(BoardSize::new(1), Err(CoordError::UnsupportedSize(1)));
        assert_eq!(BoardSize::new(26), Err(CoordError::UnsupportedSize(26)));
        assert_eq!(BoardSize::new(2).unwrap().points(), 4);
        assert_eq!(
            BoardSize::from_dims(19, 13),
            Err(CoordError::NotSquare { cols: 19, rows: 13 })
        );
        assert_eq!(BoardSize::from_dims(13, 13), Ok(BoardSize::THIRTEEN));
    }

    #[test]
    fn sgf_and_human_coordinates() {
        let s = BoardSize::NINETEEN;
        let p = Point::from_sgf(b"dd", s).unwrap();
        assert_eq!((p.col(), p.row()), (3, 3));
        assert_eq!(p.to_human(s), "D16");
        assert_eq!(&p.to_sgf(), b"dd");
        assert_eq!(Point::from_human("D16", s), Ok(p));
        assert_eq!(Point::from_human("d16", s), Ok(p));
        let q = Point::from_sgf(b"sa", s).unwrap();
        assert_eq!(q.to_human(s), "T19");
        assert_eq!(Point::from_sgf(b"as", s).unwrap().to_human(s), "A1");
        assert_eq!(
            Point::from_sgf(b"ja", s).unwrap().to_human(s),
            "K19",
            "I is skipped"
        );
        assert!(Point::from_human("I5", s).is_err());
        assert!(Point::from_human("A0", s).is_err());
        assert!(Point::from_human("A20", s).is_err());
        assert!(Point::from_human("", s).is_err());
        assert!(Point::from_sgf(b"tt", s).is_err());
        assert!(Point::from_sgf(b"dD", s).is_err());
        assert!(Point::from_sgf(b"d", s).is_err());
        assert_eq!(Move::from_sgf(b"tt", s), Ok(Move::Pass));
        assert_eq!(Move::from_sgf(b"", s), Ok(Move::Pass));
        let big = BoardSize::new(21).unwrap();
        assert_eq!(
            Move::from_sgf(b"tt", big).unwrap().to_human(big),
            "U2",
            "tt is a point on 21x21"
        );
        assert_eq!(p.to_string(), "dd");
    }

    #[test]
    fn index_order_is_rows_from_top_left() {
        let s = BoardSize::NINE;
        let pts: Vec<Point> = s.all_points().collect();
        assert_eq!(pts.len(), 81);
        assert_eq!(pts[0].to_human(s), "A9");
        assert_eq!(pts[8].to_human(s), "J9");
        assert_eq!(pts[72].to_human(s), "A1");
        assert_eq!(pts[80].to_human(s), "J1");
        for (i, p) in pts.iter().enumerate() {
            assert_eq!(p.index(s), i);
            assert_eq!(Point::from_index(i, s), Some(*p));
        }
        let mut sorted = pts.clone();
        sorted.sort();
        assert_eq!(sorted, pts);
        assert_eq!(Point::from_index(81, s), None);
    }

    #[test]
    fn star_points() {
        let names = |s: BoardSize| -> Vec<String> {
            s.star_points().iter().map(|p| p.to_human(s)).collect()
        };
        assert_eq!(
            names(BoardSize::NINETEEN),
            ["D16", "K16", "Q16", "D10", "K10", "Q10", "D4", "K4", "Q4"]
        );
        assert_eq!(names(BoardSize::NINE), ["C7", "G7", "E5", "C3", "G3"]);
        assert_eq!(names(BoardSize::THIRTEEN).len(), 9);
        assert_eq!(names(BoardSize::new(5).unwrap()), ["C3"]);
        assert!(names(BoardSize::new(4).unwrap()).is_empty());
    }
}
