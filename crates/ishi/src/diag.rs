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
//! | I044 | warning/error | more problems than kifu lists for one file (the rest are counted; an error if any of them is) |

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
    /// More problems than kifu lists for one file.
    TooManyProblems = 44, Warning;
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

/// Collects diagnostics up to a limit, so that hostile input (millions of bad
/// lines) cannot make the list, and the memory it takes, grow without bound.
/// What is past the limit is counted, errors apart, and reported as one I044
/// at the end: an error when any dropped diagnostic was one, so that a file
/// whose only errors were dropped still counts as having errors. As with
/// `kifu_sgf::DiagnosticSink`, a sink fed another sink's finished list takes
/// over its I044 counts instead of keeping the note.
#[derive(Debug, Clone)]
pub struct DiagnosticSink {
    list: Vec<Diagnostic>,
    limit: usize,
    dropped: usize,
    dropped_errors: usize,
}

impl Default for DiagnosticSink {
    fn default() -> Self {
        Self::with_limit(Self::DEFAULT_LIMIT)
    }
}

/// The (dropped, dropped errors) counts of an I044 note made by [`DiagnosticSink::finish`].
pub fn overflow_counts(d: &Diagnostic) -> Option<(usize, usize)> {
    if d.code != Code::TooManyProblems || d.line != 0 {
        return None;
    }
    let (n, rest) = d.message.split_once(" more problems not shown (")?;
    let e = rest.strip_suffix(" of them errors)")?;
    Some((n.parse().ok()?, e.parse().ok()?))
}

impl DiagnosticSink {
    /// How many diagnostics one file gets at most by default (as for SGF).
    pub const DEFAULT_LIMIT: usize = kifu_sgf::DiagnosticSink::DEFAULT_LIMIT;

    /// A sink with the default limit.
    pub fn new() -> Self {
        Self::default()
    }

    /// A sink that keeps at most `limit` diagnostics.
    pub fn with_limit(limit: usize) -> Self {
        DiagnosticSink {
            list: Vec::new(),
            limit,
            dropped: 0,
            dropped_errors: 0,
        }
    }

    /// Adds a diagnostic, or counts it when the limit is reached; an I044 note of
    /// another sink adds its counts.
    #[inline]
    pub fn push(&mut self, d: Diagnostic) {
        if let Some((n, e)) = overflow_counts(&d) {
            self.dropped += n;
            self.dropped_errors += e;
        } else if self.list.len() < self.limit {
            self.list.push(d);
        } else {
            self.dropped += 1;
            self.dropped_errors += usize::from(d.is_error());
        }
    }

    /// Adds all of `ds`.
    pub fn extend(&mut self, ds: impl IntoIterator<Item = Diagnostic>) {
        for d in ds {
            self.push(d);
        }
    }

    /// How many are kept so far.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// How many were dropped so far, and how many of those were errors.
    pub fn dropped(&self) -> (usize, usize) {
        (self.dropped, self.dropped_errors)
    }

    /// Sorts the kept diagnostics by line and column (stably).
    pub fn sort(&mut self) {
        self.list.sort_by_key(|d| (d.line, d.column));
    }

    /// The list, with one I044 at the end if any were dropped (an error if any
    /// dropped one was).
    pub fn finish(mut self) -> Vec<Diagnostic> {
        if self.dropped > 0 {
            let mut note = Diagnostic::new(
                Code::TooManyProblems,
                0,
                0,
                format!(
                    "{} more problems not shown ({} of them errors)",
                    self.dropped, self.dropped_errors
                ),
            );
            if self.dropped_errors > 0 {
                note.severity = Severity::Error;
            }
            self.list.push(note);
        }
        self.list
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

    #[test]
    fn the_sink_caps_counts_errors_and_merges_notes() {
        let mut a = DiagnosticSink::with_limit(1);
        a.push(Diagnostic::new(Code::ExtraData, 5, 1, "w"));
        a.push(Diagnostic::new(Code::ExtraData, 2, 1, "w"));
        a.push(Diagnostic::new(Code::BadMove, 3, 1, "e"));
        let a = a.finish();
        assert_eq!(a.len(), 2);
        assert_eq!(
            a[1].to_string(),
            "error I044: 2 more problems not shown (1 of them errors)"
        );
        let mut b = DiagnosticSink::with_limit(3);
        b.push(Diagnostic::new(Code::ExtraData, 1, 1, "w"));
        b.extend(a);
        b.sort();
        let b = b.finish();
        assert_eq!(b.len(), 3, "the note's counts are taken over, not the note");
        assert_eq!((b[0].line, b[1].line), (1, 5), "sorted by line");
        assert_eq!(overflow_counts(&b[2]), Some((2, 1)));
        assert!(b[2].is_error());
    }
}
