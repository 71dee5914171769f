//! The lossless model of an Ishi Standard Format file.
//!
//! A [`Document`] is a list of [`Event`]s. An event holds its remarks, title,
//! [`Header`], board size, event-level [`Notes`] (commentary, marks and user
//! blocks that come before any setup or move) and its tree of setups, moves and
//! diagrams as a **flat** list of [`Item`]s in file order, with
//! [`Item::BeginVar`] / [`Item::EndVar`] around variations. Being flat, the
//! model costs no stack however deeply a file nests its `VAR`s: dropping,
//! comparing, writing and converting it never recurse.
//!
//! What the spec calls significant is kept; what it calls insignificant is
//! normalised: white space, the case of keywords, locations and special mark
//! characters, the order of comment/mark/user/prisoner lines among themselves
//! (but the order *within* each kind, above all of `MARK`/`UNMARK`, is kept),
//! and how `SETUP` and `MARK` items are spread over lines. Source line numbers
//! are kept in [`SourceLine`] fields, which equality ignores.

use kifu_go::Color;
use std::fmt;

/// A 1-based source line (0 when the item was not read from a file).
/// Equality ignores it, so a model read from a file equals one built by hand.
#[derive(Debug, Clone, Copy, Default, Eq)]
pub struct SourceLine(pub u32);

impl PartialEq for SourceLine {
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}

/// The column letters of Ishi locations: `A` to `Z` without `I`.
pub const COLUMN_LETTERS: &[u8; 25] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

/// A board location as the file writes it: a column letter (from the left,
/// `I` skipped) and a row number from the bottom. Whether it lies on the
/// event's board is checked by validation, not by the reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    col: u8,
    row: u8,
}

impl Loc {
    /// The location at column `col` (0 = `A`) and row `row` (1 = bottom row);
    /// `None` beyond 25 columns or rows.
    pub fn new(col: u8, row: u8) -> Option<Loc> {
        (col < 25 && (1..=25).contains(&row)).then_some(Loc { col, row })
    }

    /// Parses `Q3`, `r17` (case-insensitive; `I` is not a column letter).
    pub fn parse(text: &str) -> Option<Loc> {
        let b = text.as_bytes();
        let (&letter, digits) = b.split_first()?;
        let col = COLUMN_LETTERS
            .iter()
            .position(|&l| l == letter.to_ascii_uppercase())?;
        if digits.is_empty() || digits.len() > 2 || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let row = digits.iter().fold(0u8, |a, d| a * 10 + (d - b'0'));
        Loc::new(col as u8, row)
    }

    /// Column from the left, from 0.
    pub fn col(self) -> u8 {
        self.col
    }

    /// Row from the bottom, from 1.
    pub fn row(self) -> u8 {
        self.row
    }

    /// Whether the location lies on an `n`x`n` board.
    pub fn is_on(self, n: u8) -> bool {
        self.col < n && self.row <= n
    }

    /// The kifu-go point on a board of `size` (`None` when off that board).
    pub fn to_point(self, size: kifu_go::BoardSize) -> Option<kifu_go::Point> {
        let n = size.get();
        if !self.is_on(n) {
            return None;
        }
        kifu_go::Point::new(u32::from(self.col), u32::from(n - self.row), size).ok()
    }

    /// The location of a kifu-go point on a board of `size`.
    pub fn from_point(p: kifu_go::Point, size: kifu_go::BoardSize) -> Loc {
        Loc {
            col: p.col(),
            row: size.get() - p.row(),
        }
    }
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            COLUMN_LETTERS[usize::from(self.col)] as char,
            self.row
        )
    }
}

/// What a `MARK`, `UNMARK`, `HIDE` or `PRISONER` item points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// A board location (`Q8`).
    Point(Loc),
    /// The most recent move with this number (`#21`).
    Move(u32),
    /// Moves with numbers from the first to the second, inclusive (`#21-28`).
    Range(u32, u32),
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Point(l) => write!(f, "{l}"),
            Target::Move(n) => write!(f, "#{n}"),
            Target::Range(a, b) => write!(f, "#{a}-{b}"),
        }
    }
}

/// The special mark characters written `\d`, `\t`, `\c`, `\s` (case-insensitive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Symbol {
    /// `\d`: a diamond.
    Diamond,
    /// `\t`: a triangle.
    Triangle,
    /// `\c`: a check mark.
    Check,
    /// `\s`: a square.
    Square,
}

impl Symbol {
    /// The letter after the backslash.
    pub fn letter(self) -> char {
        match self {
            Symbol::Diamond => 'd',
            Symbol::Triangle => 't',
            Symbol::Check => 'c',
            Symbol::Square => 's',
        }
    }

    /// The symbol for a letter (case-insensitive).
    pub fn from_letter(c: char) -> Option<Symbol> {
        match c.to_ascii_lowercase() {
            'd' => Some(Symbol::Diamond),
            't' => Some(Symbol::Triangle),
            'c' => Some(Symbol::Check),
            's' => Some(Symbol::Square),
            _ => None,
        }
    }
}

/// One item of a `MARK` or `UNMARK` line. Their order is significant and kept.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Marking {
    /// `MARK ALL`: move numbers on all visible numbered stones.
    NumbersAll,
    /// `MARK loc`, `MARK #n`, `MARK #n-n`: move numbers on those stones.
    Number(Target),
    /// `MARK \t@Q5`: a special character.
    Symbol(Symbol, Target),
    /// `MARK a@R3`: one or two characters (ASCII 33-126, case kept).
    Text(String, Target),
    /// `UNMARK ALL`.
    UnmarkAll,
    /// `UNMARK loc`, `UNMARK #n`, `UNMARK #n-n`.
    Unmark(Target),
}

impl Marking {
    /// Whether the item belongs on an `UNMARK` line.
    pub fn is_unmark(&self) -> bool {
        matches!(self, Marking::UnmarkAll | Marking::Unmark(_))
    }
}

impl fmt::Display for Marking {
    /// The item as written after `MARK` or `UNMARK`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Marking::NumbersAll | Marking::UnmarkAll => f.write_str("ALL"),
            Marking::Number(t) | Marking::Unmark(t) => write!(f, "{t}"),
            Marking::Symbol(s, t) => write!(f, "\\{}@{t}", s.letter()),
            Marking::Text(s, t) => write!(f, "{s}@{t}"),
        }
    }
}

/// A `COM` ... `ENDCOM` block: the title data on the `COM` line and the lines
/// in between, exactly (without line ends; characters below 32 other than
/// tab removed).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Comment {
    /// Title data after `COM` (trimmed; may be empty).
    pub title: String,
    /// The commentary lines. None of them starts with the word `ENDCOM`.
    pub lines: Vec<String>,
    /// Where the `COM` line was.
    pub line: SourceLine,
}

/// A `USER` ... `ENDUSER` block, kept opaque: its lines are never read as keywords.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UserBlock {
    /// Data after `USER` on its line (trimmed).
    pub data: String,
    /// The lines up to `ENDUSER`. None of them starts with the word `ENDUSER`.
    pub lines: Vec<String>,
    /// Where the `USER` line was.
    pub line: SourceLine,
}

/// Commentary, marks, user data, prisoners and hidden stones attached to an
/// event, setup, move or diagram.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Notes {
    /// `COM` blocks, in order.
    pub comments: Vec<Comment>,
    /// `MARK` and `UNMARK` items, in order.
    pub marks: Vec<Marking>,
    /// `USER` blocks, in order.
    pub users: Vec<UserBlock>,
    /// `PRISONER` items (locations and `#n`), in order.
    pub prisoners: Vec<Target>,
    /// `HIDE` items, in order (diagrams).
    pub hides: Vec<Target>,
}

impl Notes {
    /// Whether there is nothing.
    pub fn is_empty(&self) -> bool {
        self.comments.is_empty()
            && self.marks.is_empty()
            && self.users.is_empty()
            && self.prisoners.is_empty()
            && self.hides.is_empty()
    }
}

/// The header of an event. Text keywords that may repeat keep one entry per
/// line (their data is "the sum from all the repeated lines"); once-only
/// keywords keep the last line read.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Header {
    /// `BLACK`: name, rank, etc. (once-only).
    pub black: Option<String>,
    /// `WHITE` (once-only).
    pub white: Option<String>,
    /// `RESULT` (once-only).
    pub result: Option<String>,
    /// `RULES` (once-only).
    pub rules: Option<String>,
    /// `KOMI` (once-only), from `5`, `4.5`, `3 1/2`, `-2`.
    pub komi: Option<f64>,
    /// `HANDICAP` (once-only, informational).
    pub handicap: Option<u32>,
    /// `ANALYSIS` lines.
    pub analysis: Vec<String>,
    /// `DATE` lines.
    pub date: Vec<String>,
    /// `PLACE` lines.
    pub place: Vec<String>,
    /// `RECORDER` lines.
    pub recorder: Vec<String>,
    /// `SOURCE` lines.
    pub source: Vec<String>,
    /// `TIMELIMIT` lines.
    pub timelimit: Vec<String>,
}

impl Header {
    /// Whether no header line was given.
    pub fn is_empty(&self) -> bool {
        *self == Header::default()
    }
}

/// A group of `SETUP` lines (one generalised "move"): black and white stones,
/// each colour in file order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Setup {
    /// `REMARK`s before the first `SETUP` line.
    pub remarks: Vec<String>,
    /// Black stones.
    pub black: Vec<Loc>,
    /// White stones.
    pub white: Vec<Loc>,
    /// Data after the last `SETUP` line.
    pub notes: Notes,
    /// Where the first `SETUP` line was.
    pub line: SourceLine,
}

/// A `B` or `W` move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Move {
    /// `REMARK`s before the move.
    pub remarks: Vec<String>,
    /// Who plays.
    pub color: Color,
    /// The move number (greater than 0).
    pub number: u32,
    /// Where, or `None` for `PASS`.
    pub point: Option<Loc>,
    /// Prisoners, marks, commentary, user data.
    pub notes: Notes,
    /// Where the move line was.
    pub line: SourceLine,
}

/// The board region of a `DIAGRAM`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Region {
    /// No region given: the event's board.
    Board,
    /// `nXn`: a full board of that size.
    Size(u8),
    /// Two opposite corners, as written.
    Corners(Loc, Loc),
}

impl fmt::Display for Region {
    /// The region as written after `DIAGRAM` (empty for [`Region::Board`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Region::Board => Ok(()),
            Region::Size(n) => write!(f, "{n}x{n}"),
            Region::Corners(a, b) => write!(f, "{a} {b}"),
        }
    }
}

/// A `DIAGRAM`: a region to show, with its own setup stones, hidden stones,
/// marks, commentary and user data. `REMARK`s written between its lines are
/// kept with the diagram's own remarks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagram {
    /// `REMARK`s before the diagram.
    pub remarks: Vec<String>,
    /// The region.
    pub region: Region,
    /// Black setup stones of the diagram.
    pub black: Vec<Loc>,
    /// White setup stones of the diagram.
    pub white: Vec<Loc>,
    /// Hidden stones (in `notes.hides`), marks, commentary, user data.
    pub notes: Notes,
    /// Where the `DIAGRAM` line was.
    pub line: SourceLine,
}

/// One entry of an event's tree, in file order.
///
/// Setups, moves and diagrams are boxed: unboxed, every item would take the
/// size of the largest (over 200 bytes), and a file of `VAR`/`ENDVAR` lines of
/// 4 to 7 bytes would take some 50 times its size in memory.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// A group of setup lines.
    Setup(Box<Setup>),
    /// A move.
    Move(Box<Move>),
    /// A diagram.
    Diagram(Box<Diagram>),
    /// `VAR [cc]`: a variation on the current move starts (an alternative to
    /// it, or a diagram); the optional one- or two-character marker.
    BeginVar(Option<String>),
    /// `ENDVAR`.
    EndVar,
}

/// An event: a game, a problem, a joseki, a diagram...
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Event {
    /// `REMARK`s before the `EVENT` line.
    pub remarks: Vec<String>,
    /// The `EVENT` line's title (`Some("")` for a bare `EVENT`), or `None`
    /// for the implicit first event of a file whose data starts without one.
    /// Only the first event of a document may be implicit.
    pub title: Option<String>,
    /// Header keywords.
    pub header: Header,
    /// `BOARDSIZE` (19 when absent).
    pub board_size: Option<u8>,
    /// Commentary, marks and user data on the event itself.
    pub notes: Notes,
    /// Setups, moves, diagrams and variations, flat, in file order
    /// (`BeginVar`/`EndVar` balanced).
    pub items: Vec<Item>,
    /// Where the event started.
    pub line: SourceLine,
}

impl Event {
    /// The board size (19 unless `BOARDSIZE` says otherwise).
    pub fn size(&self) -> u8 {
        self.board_size.unwrap_or(19)
    }

    /// All moves of the event, in file order (variations included).
    pub fn moves(&self) -> impl Iterator<Item = &Move> + '_ {
        self.items.iter().filter_map(|i| match i {
            Item::Move(m) => Some(&**m),
            _ => None,
        })
    }

    /// The moves of the main sequence (outside every variation), in order.
    pub fn main_line(&self) -> impl Iterator<Item = &Move> + '_ {
        let mut depth = 0usize;
        self.items.iter().filter_map(move |i| match i {
            Item::BeginVar(_) => {
                depth += 1;
                None
            }
            Item::EndVar => {
                depth = depth.saturating_sub(1);
                None
            }
            Item::Move(m) if depth == 0 => Some(&**m),
            _ => None,
        })
    }
}

/// A whole file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Document {
    /// The events, in order.
    pub events: Vec<Event>,
    /// `REMARK`s at the end of the file that precede nothing.
    pub trailing_remarks: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_skip_i_and_count_rows_from_the_bottom() {
        let l = Loc::parse("j9").unwrap();
        assert_eq!((l.col(), l.row()), (8, 9));
        assert_eq!(l.to_string(), "J9");
        assert!(Loc::parse("I5").is_none());
        assert!(Loc::parse("A0").is_none());
        assert!(Loc::parse("A").is_none());
        assert!(Loc::parse("A123").is_none());
        let size = kifu_go::BoardSize::new(19).unwrap();
        let p = Loc::parse("D4").unwrap().to_point(size).unwrap();
        assert_eq!(p, kifu_go::Point::from_human("D4", size).unwrap());
        assert_eq!(Loc::from_point(p, size), Loc::parse("d4").unwrap());
        assert!(Loc::parse("T20").unwrap().to_point(size).is_none());
        assert!(!Loc::parse("K1").unwrap().is_on(9));
    }

    #[test]
    fn source_lines_do_not_count_for_equality() {
        let a = Comment {
            line: SourceLine(3),
            ..Comment::default()
        };
        assert_eq!(a, Comment::default());
    }
}
