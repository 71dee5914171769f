//! Diagnostics: every problem kifu finds in an Ishi file or meets while
//! converting, with a stable code, a severity, a line and column, and a
//! one-line message. The shape is that of `kifu_sgf::Diagnostic`; codes are
//! written `I001` (SGF codes are `S...`).
//!
//! | code | severity | meaning |
//! |------|----------|---------|
//! | I001 | error   | unknown keyword (line ignored) |
//! | I002 | error   | bad `B`/`W` line: number, location or extra data (`B 22 Q3 R7`) |
//! | I003 | error   | bad item in a list (`SETUP`, `MARK`, `UNMARK`, `HIDE`, `PRISONER`; item ignored) |
//! | I004 | warning | extra data after a keyword's fields (ignored, as the spec allows) |
//! | I005 | warning | characters outside ASCII 32-126 (control characters removed, others kept) |
//! | I006 | warning | the file is not UTF-8: read as Windows-1252 |
//! | I007 | error   | `COM` without `ENDCOM` (the comment runs to the end of the file) |
//! | I008 | error   | `USER` without `ENDUSER` (the block runs to the end of the file) |
//! | I009 | error   | `ENDCOM` or `ENDUSER` without a block to end (ignored) |
//! | I010 | error   | unbalanced `VAR`/`ENDVAR` (extra `ENDVAR` ignored, open `VAR`s closed) |
//! | I011 | warning | once-only header keyword repeated (the last is kept) |
//! | I012 | error   | bad `KOMI`, `HANDICAP` or `BOARDSIZE` value (ignored) |
//! | I013 | warning | header keyword after the tree of moves began (kept in the header) |
//! | I014 | warning | data out of place (after a move's variations, inside a `VAR` before its move; attached to the current move) |
//! | I015 | warning | empty variation (dropped) |
//! | I016 | error   | bad `VAR` marker or `DIAGRAM` region (ignored) |
//! | I017 | warning | `REMARK` before a `SETUP` line that continues a series (kept with the series) |
//! | I020 | error   | duplicate move number in a sequence |
//! | I021 | error   | out-of-sequence move number |
//! | I022 | error   | missing move number(s) |
//! | I023 | error   | `PRISONER` does not match the captures the rules compute |
//! | I024 | error   | `VAR` without a current `B`/`W` move |
//! | I025 | error   | location off the board |
//! | I026 | warning | illegal move (occupied point, suicide, ko): played anyway |
//! | I027 | error   | `PRISONER` without a move, or `HIDE` outside a diagram |
//! | I028 | warning | a move captures stones but has no `PRISONER` line, in an event that uses `PRISONER` |
//! | I040 | warning | SGF data the Ishi format cannot hold (dropped) |
//! | I041 | error   | SGF game that cannot be converted (not Go, board not square or over 19x19) |
//! | I042 | warning | text changed to fit the Ishi format |
//! | I043 | warning | Ishi data that cannot go into SGF (dropped) |

use std::fmt;

pub use kifu_sgf::Severity;

macro_rules! codes {
    ($($(#[$doc:meta])* $name:ident = $num:literal, $sev:ident;)*) => {
        /// A stable diagnostic code; see the module docs for the table.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum Code {
            $($(#[$doc])* $name,)*
        }
        impl Code {
            /// The stable number (`I001` has number 1).
            pub fn number(self) -> u16 {
                match self { $(Code::$name => $num,)* }
            }
            /// The usual severity of the code.
            pub fn severity(self) -> Severity {
                match self { $(Code::$name => Severity::$sev,)* }
            }
            /// All codes, in number order.
            pub const ALL: &'static [Code] = &[$(Code::$name,)*];
        }
    };
}

codes! {
    /// Unknown keyword.
    UnknownKeyword = 1, Error;
    /// Bad move line.
    BadMove = 2, Error;
    /// Bad list item.
    BadItem = 3, Error;
    /// Extra data ignored.
    ExtraData = 4, Warning;
    /// Characters outside 32-126.
    OddCharacters = 5, Warning;
    /// Not UTF-8.
    NotUtf8 = 6, Warning;
    /// COM without ENDCOM.
    UnclosedComment = 7, Error;
    /// USER without ENDUSER.
    UnclosedUser = 8, Error;
    /// ENDCOM/ENDUSER alone.
    StrayEnd = 9, Error;
    /// Unbalanced VAR/ENDVAR.
    UnbalancedVar = 10, Error;
    /// Once-only header repeated.
    RepeatedHeader = 11, Warning;
    /// Bad header value.
    BadValue = 12, Error;
    /// Header after the tree began.
    LateHeader = 13, Warning;
    /// Data out of place.
    OutOfPlace = 14, Warning;
    /// Empty variation.
    EmptyVariation = 15, Warning;
    /// Bad VAR marker or DIAGRAM region.
    BadField = 16, Error;
    /// REMARK inside a SETUP series.
    RemarkInSetup = 17, Warning;
    /// Duplicate move number.
    DuplicateNumber = 20, Error;
    /// Out-of-sequence move number.
    OutOfSequence = 21, Error;
    /// Missing move numbers.
    MissingNumber = 22, Error;
    /// PRISONER mismatch.
    PrisonerMismatch = 23, Error;
    /// VAR without a current move.
    VarWithoutMove = 24, Error;
    /// Location off the board.
    OffBoard = 25, Error;
    /// Illegal move.
    IllegalMove = 26, Warning;
    /// PRISONER or HIDE in the wrong place.
    Misplaced = 27, Error;
    /// Captures without PRISONER.
    UnlistedCaptures = 28, Warning;
    /// SGF data Ishi cannot hold.
    SgfDropped = 40, Warning;
    /// SGF game not convertible.
    SgfUnconvertible = 41, Error;
    /// Text changed to fit Ishi.
    TextChanged = 42, Warning;
    /// Ishi data SGF cannot take.
    IshiDropped = 43, Warning;
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "I{:03}", self.number())
    }
}

/// One problem: a code, a severity, where (1-based line and column; 0 when it
/// has no place) and a one-line message saying what kifu did about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The stable code.
    pub code: Code,
    /// Error or warning.
    pub severity: Severity,
    /// 1-based line (0: the file as a whole).
    pub line: u32,
    /// 1-based column in characters (0: the line as a whole).
    pub column: u32,
    /// One line saying what is wrong and what was done.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic with the code's usual severity.
    pub fn new(code: Code, line: u32, column: u32, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: code.severity(),
            line,
            column,
            message: message.into(),
        }
    }

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    /// `line:column: severity I001: message` (the place left out when unknown).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{}: ", self.line, self.column.max(1))?;
        }
        write!(f, "{} {}: {}", self.severity, self.code, self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_shown_with_three_digits() {
        let mut n: Vec<u16> = Code::ALL.iter().map(|c| c.number()).collect();
        let len = n.len();
        n.dedup();
        assert_eq!(n.len(), len);
        assert_eq!(Code::BadMove.to_string(), "I002");
        let d = Diagnostic::new(Code::BadMove, 3, 7, "x");
        assert_eq!(d.to_string(), "3:7: error I002: x");
    }
}
