//! Diagnostics: every problem kifu finds in an SGF file, with a stable code.
//!
//! Each [`Code`] has a stable kifu name (`S008`, …) and, where SGFC 2.0 (the
//! reference checker) reports the same problem, SGFC's message number, so a
//! user who knows SGFC's output can map the two. Positions are byte offsets
//! into the decoded (UTF-8) text while parsing; [`LineIndex`] turns them into
//! 1-based line and column (columns count characters, not bytes).
//!
//! | kifu | SGFC | severity | meaning |
//! |------|------|----------|---------|
//! | S006 | 6  | warning | text before the first game tree (ignored) |
//! | S007 | 7  | error   | no SGF data found |
//! | S008 | 8  | error   | illegal characters (ignored) |
//! | S010 | 10 | error   | unexpected end of file (open values and trees closed) |
//! | S011 | 11 | error   | property identifier longer than 100 characters (property deleted) |
//! | S012 | 12 | error   | empty variation `()` (ignored) |
//! | S013 | 13 | error   | property takes one value but has several (extra values deleted on convert) |
//! | S014 | 14 | error   | illegal value (deleted on convert) |
//! | S015 | 15 | error   | illegal value that can be corrected (corrected on convert) |
//! | S016 | 16 | error   | lower-case letters in an FF\[4\] property identifier |
//! | S017 | 17 | error/warning | empty value where the type does not allow one (deleted on convert) |
//! | S018 | 18 | error   | illegal GM or SZ value in the root |
//! | S019 | 19 | warning | game is not Go: points and moves are not checked |
//! | S020 | 20 | error   | property without any value (ignored) |
//! | S021 | 21 | error   | `(` before any node of a variation (ignored) |
//! | S022 | 22 | warning | NUL byte in the file (replaced with a space) |
//! | S023 | 23 | error   | property expects a composed `a:b` value (value deleted on convert) |
//! | S025 | 25 | error   | illegal composed value that can be corrected (corrected on convert) |
//! | S028 | 28 | error   | property repeated in a node (merged on convert) |
//! | S030 | 30 | error   | setup and move properties in one node (split on convert) |
//! | S031 | 31 | warning | property identifier of more than two letters |
//! | S032 | 32 | error   | root property outside the root node (deleted on convert) |
//! | S033 | 33 | error   | game-info value with an illegal format (kept) |
//! | S035 | 35 | warning | unknown property (kept) |
//! | S036 | 36 | error   | missing `;` at the start of a game tree (assumed) |
//! | S037 | 37 | error   | black and white move in one node (split on convert) |
//! | S038 | 38 | error   | a point carries more than one markup (repeats deleted on convert) |
//! | S039 | 39 | warning | setup that has no effect on the board |
//! | S040 | 40 | warning | property not defined in FF\[4\] (converted or kept) |
//! | S041 | 41 | error   | annotation contradicts an earlier one in the node (deleted on convert) |
//! | S042 | 42 | error   | BM and TE in one node (converted to DO / IT) |
//! | S043 | 43 | error   | move annotation without a move in the node (deleted on convert) |
//! | S044 | 44 | error   | game-info property outside the game-info node (deleted on convert) |
//! | S045 | 45 | warning | different file formats in one collection |
//! | S046 | 46 | error   | unknown file format (FF above 4) |
//! | S047 | 47 | error   | square board written as `SZ[n:n]` (corrected on convert) |
//! | S050 | 50 | error   | board size out of range |
//! | S052 | 52 | error   | values after an empty `[]` in an "elist" property (deleted on convert) |
//! | S053 | 53 | warning | different game types in one collection |
//! | S054 | 54 | error   | values without a property identifier (deleted) |
//! | S058 | 58 | warning | move onto an occupied point |
//! | S059 | 59 | warning | obsolete `KI` (converted to `KM`) |
//! | S065 | 65 | error   | FF\[4\]-style pass `[]` in an older file (read as a pass) |
//! | S066 | 66 | error   | node outside any game tree or variation (missing `(` assumed) |
//! | S067 | 67 | error   | characters after `(` before the first `;` (missing `;` assumed) |
//! | S071 | 71 | warning | bytes that are illegal in the file's charset (replaced with U+FFFD) |
//! | S072 | 72 | warning | unknown charset name in `CA` (fallback used) |
//! | S101 | –  | warning | charset not declared and the text is not UTF-8: detected charset used |
//! | S102 | –  | warning | unescaped `]` inside a text value (kept as text) |
//! | S103 | –  | warning | `)` without a matching `(` (ignored) |
//! | S104 | –  | error   | file larger than kifu's 4 GiB limit for one SGF file |
//! | S105 | –  | error   | suicide (illegal under the game's rules) |
//! | S106 | –  | error   | ko violation (the move retakes a ko at once) |
//! | S107 | –  | warning | a move of the colour `PL` did not announce |
//! | S108 | –  | error   | a point outside the board |
//! | S109 | –  | warning/error | more problems than kifu lists for one file (the rest are counted; an error if any of them is) |
//! | S110 | –  | warning | setup that replaces a stone of the other colour |

use std::fmt;

/// How serious a diagnostic is. `kifu sgf check` exits 1 when any error is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Something worth knowing; the data is read and written as it is or repaired losslessly.
    Warning,
    /// The file breaks the standard; kifu read what it could and says what it did.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

macro_rules! codes {
    ($($(#[$doc:meta])* $name:ident = $num:literal, $sgfc:expr, $sev:ident;)*) => {
        /// A stable diagnostic code; see the module docs for the table.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum Code {
            $($(#[$doc])* $name,)*
        }
        impl Code {
            /// The stable kifu number (`S008` has number 8).
            pub fn number(self) -> u16 {
                match self { $(Code::$name => $num,)* }
            }
            /// SGFC 2.0's message number for the same problem, where it has one.
            pub fn sgfc(self) -> Option<u16> {
                match self { $(Code::$name => $sgfc,)* }
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
    /// Text before the first game tree.
    JunkBeforeTree = 6, Some(6), Warning;
    /// No SGF game tree found at all.
    NoSgfData = 7, Some(7), Error;
    /// Illegal characters between properties or nodes.
    IllegalChars = 8, Some(8), Error;
    /// The file ends inside a value or a game tree.
    UnexpectedEof = 10, Some(10), Error;
    /// A property identifier over 100 characters.
    IdTooLong = 11, Some(11), Error;
    /// `()` with no node.
    EmptyVariation = 12, Some(12), Error;
    /// Several values for a single-valued property.
    TooManyValues = 13, Some(13), Error;
    /// A value that does not fit the property's type.
    IllegalValue = 14, Some(14), Error;
    /// A value that does not fit the type but can be corrected.
    CorrectableValue = 15, Some(15), Error;
    /// Lower-case letters in an FF\[4\] identifier.
    LowercaseId = 16, Some(16), Error;
    /// An empty value where the type needs one.
    EmptyValue = 17, Some(17), Error;
    /// Illegal GM or SZ in the root.
    IllegalRootValue = 18, Some(18), Error;
    /// A game that is not Go.
    NotGo = 19, Some(19), Warning;
    /// A property identifier with no value.
    NoValues = 20, Some(20), Error;
    /// A `(` before any node of a variation.
    NodeAfterVariation = 21, Some(21), Error;
    /// A NUL byte.
    NulByte = 22, Some(22), Warning;
    /// A composed value expected.
    ExpectsComposed = 23, Some(23), Error;
    /// A composed value that can be corrected.
    CorrectableComposed = 25, Some(25), Error;
    /// A property twice in one node.
    DuplicateProperty = 28, Some(28), Error;
    /// Setup and move properties mixed in one node.
    SetupAndMove = 30, Some(30), Error;
    /// An identifier of more than two letters.
    LongId = 31, Some(31), Warning;
    /// A root property outside the root node.
    RootOutsideRoot = 32, Some(32), Error;
    /// A game-info value with an illegal format.
    GameInfoFormat = 33, Some(33), Error;
    /// An unknown property.
    UnknownProperty = 35, Some(35), Warning;
    /// `(` not followed by `;`.
    MissingSemicolon = 36, Some(36), Error;
    /// B and W in one node.
    TwoMoves = 37, Some(37), Error;
    /// One point with several markups.
    MarkupNotUnique = 38, Some(38), Error;
    /// Setup that changes nothing.
    SetupNoEffect = 39, Some(39), Warning;
    /// A property not defined in FF\[4\].
    NotInFf4 = 40, Some(40), Warning;
    /// Contradicting annotations.
    AnnotationConflict = 41, Some(41), Error;
    /// BM together with TE.
    BmTeCombination = 42, Some(42), Error;
    /// A move annotation in a node without a move.
    MoveAnnotationWithoutMove = 43, Some(43), Error;
    /// Game info outside the game-info node.
    GameInfoOutside = 44, Some(44), Error;
    /// Different FF versions in one collection.
    MixedFileFormats = 45, Some(45), Warning;
    /// FF above 4.
    UnknownFileFormat = 46, Some(46), Error;
    /// `SZ[n:n]`.
    SquareAsRectangle = 47, Some(47), Error;
    /// A board size out of range.
    BoardSize = 50, Some(50), Error;
    /// Values after `[]` in an elist.
    ValuesAfterEmpty = 52, Some(52), Error;
    /// Different game types in one collection.
    MixedGameTypes = 53, Some(53), Warning;
    /// Values with no identifier.
    ValuesWithoutId = 54, Some(54), Error;
    /// A move onto an occupied point.
    MoveOnOccupied = 58, Some(58), Warning;
    /// The obsolete KI property.
    ObsoleteKi = 59, Some(59), Warning;
    /// `[]` as a pass in an FF\[1\]/FF\[3\] file.
    EmptyPassInOldFormat = 65, Some(65), Error;
    /// A node outside any game tree.
    NodeOutsideTree = 66, Some(66), Error;
    /// Characters between `(` and `;`.
    CharsAfterParen = 67, Some(67), Error;
    /// Bytes illegal in the charset.
    IllegalByteSequence = 71, Some(71), Warning;
    /// An unknown charset name.
    UnknownCharset = 72, Some(72), Warning;
    /// No charset declared, text not UTF-8: a detected charset was used.
    CharsetDetected = 101, None, Warning;
    /// An unescaped `]` inside a text value.
    UnescapedBracket = 102, None, Warning;
    /// A `)` with no matching `(`.
    UnmatchedParen = 103, None, Warning;
    /// A file too large for one SGF collection.
    TooLarge = 104, None, Error;
    /// Suicide.
    Suicide = 105, None, Error;
    /// Ko violation.
    KoViolation = 106, None, Error;
    /// Unexpected colour of a move.
    ColorSurprise = 107, None, Warning;
    /// A point off the board.
    OffBoard = 108, None, Error;
    /// Too many problems to list.
    TooManyProblems = 109, None, Warning;
    /// Setup (`AB`/`AW`) that replaces a stone of the other colour.
    SetupOverwrites = 110, None, Warning;
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "S{:03}", self.number())
    }
}

/// One problem found in a file: a code, a severity, where, and a one-line explanation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The stable code.
    pub code: Code,
    /// Error or warning (usually `code.severity()`).
    pub severity: Severity,
    /// Byte offset in the decoded text where the problem is, if it has a place.
    pub offset: Option<usize>,
    /// 1-based line, filled in by [`LineIndex::locate`].
    pub line: u32,
    /// 1-based column in characters, filled in by [`LineIndex::locate`].
    pub column: u32,
    /// A one-line explanation saying what kifu did about it.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic at a byte offset with the code's usual severity.
    pub fn new(code: Code, offset: usize, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: code.severity(),
            offset: Some(offset),
            line: 0,
            column: 0,
            message: message.into(),
        }
    }

    /// A diagnostic about the file as a whole.
    pub fn global(code: Code, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: code.severity(),
            offset: None,
            line: 0,
            column: 0,
            message: message.into(),
        }
    }

    /// The same diagnostic with another severity.
    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    /// `line:column: severity S008: message` (no place for global diagnostics).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{}: ", self.line, self.column)?;
        }
        write!(f, "{} {}: {}", self.severity, self.code, self.message)
    }
}

/// Collects diagnostics up to a limit, so that hostile input (a million bad
/// values) cannot make the list, and the memory it takes, grow without bound.
/// What is past the limit is counted, errors apart, and reported as one S109
/// at the end: an error when any dropped diagnostic was one, so that a file
/// whose only errors were dropped still counts as having errors.
///
/// A sink fed the finished list of another sink (through [`push`](Self::push)
/// or [`extend`](Self::extend)) takes over that list's S109 counts instead of
/// keeping the S109 itself: lists from several checkers merge into one list
/// with one note and exact counts.
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

/// The S109 note's message; [`overflow_counts`] reads the counts back.
fn overflow_message(dropped: usize, errors: usize) -> String {
    format!("{dropped} more problems not shown ({errors} of them errors)")
}

/// The (dropped, dropped errors) counts of an S109 note made by [`DiagnosticSink::finish`].
pub fn overflow_counts(d: &Diagnostic) -> Option<(usize, usize)> {
    if d.code != Code::TooManyProblems || d.offset.is_some() {
        return None;
    }
    let (n, rest) = d.message.split_once(" more problems not shown (")?;
    let e = rest.strip_suffix(" of them errors)")?;
    Some((n.parse().ok()?, e.parse().ok()?))
}

impl DiagnosticSink {
    /// How many diagnostics one file gets at most by default.
    pub const DEFAULT_LIMIT: usize = 10_000;

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

    /// Adds a diagnostic, or counts it when the limit is reached; an S109 note of
    /// another sink adds its counts.
    #[inline]
    pub fn push(&mut self, d: Diagnostic) {
        if d.code == Code::TooManyProblems {
            if let Some((n, e)) = overflow_counts(&d) {
                self.dropped += n;
                self.dropped_errors += e;
                return;
            }
        }
        if self.list.len() < self.limit {
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

    /// The diagnostics kept so far.
    pub fn as_mut_slice(&mut self) -> &mut [Diagnostic] {
        &mut self.list
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

    /// The list, with one S109 at the end if any were dropped (an error if any
    /// dropped one was).
    pub fn finish(mut self) -> Vec<Diagnostic> {
        if self.dropped > 0 {
            let note = Diagnostic::global(
                Code::TooManyProblems,
                overflow_message(self.dropped, self.dropped_errors),
            );
            self.list.push(if self.dropped_errors > 0 {
                note.with_severity(Severity::Error)
            } else {
                note
            });
        }
        self.list
    }
}

/// Merges diagnostic lists (each perhaps capped, with its S109 note) into one
/// list of at most `limit`, ordered by place (whole-file ones first, then line
/// and column), and one S109 note at the end counting all that is not kept.
pub fn merge_capped(lists: Vec<Vec<Diagnostic>>, limit: usize) -> Vec<Diagnostic> {
    let mut all: Vec<Diagnostic> = lists.into_iter().flatten().collect();
    // Notes sort anywhere: the sink takes their counts, not their place.
    all.sort_by_key(|d| (d.offset.is_some(), d.line, d.column));
    let mut sink = DiagnosticSink::with_limit(limit);
    sink.extend(all);
    sink.finish()
}

/// Maps byte offsets of a text to 1-based line and column numbers.
///
/// Each lookup costs O(log n): a binary search over the line starts, and for
/// the column a count of characters (bytes that are not UTF-8 continuation
/// bytes) from the nearest checkpoint, taken every [`Self::CHECKPOINT`] bytes,
/// instead of from the line start: one very long line (a whole collection on
/// one line is common) would otherwise make every lookup on it cost the line's
/// length.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
    /// Characters before byte `i * CHECKPOINT`, for every `i` up to the text's end.
    checkpoints: Vec<usize>,
}

/// Characters in `bytes`: bytes that do not continue a UTF-8 sequence. Additive
/// over any split of the bytes, so a checkpoint may fall inside a character.
fn chars_in(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count()
}

impl LineIndex {
    /// Bytes between two column checkpoints: a lookup counts at most twice this many.
    pub const CHECKPOINT: usize = 4096;

    /// Indexes the line starts of `text` (LF, CR-LF and lone CR all end a line).
    /// Lookups must be given the same `text`.
    pub fn new(text: &[u8]) -> Self {
        let mut starts = vec![0];
        for i in memchr::memchr2_iter(b'\n', b'\r', text) {
            if text[i] == b'\r' && text.get(i + 1) == Some(&b'\n') {
                continue;
            }
            starts.push(i + 1);
        }
        let mut checkpoints = Vec::with_capacity(text.len() / Self::CHECKPOINT + 1);
        let mut total = 0;
        checkpoints.push(0);
        for chunk in text.chunks(Self::CHECKPOINT) {
            total += chars_in(chunk);
            checkpoints.push(total);
        }
        LineIndex {
            starts,
            checkpoints,
        }
    }

    /// Characters in `text[..offset]`, from the checkpoint at or before `offset`.
    fn chars_before(&self, text: &[u8], offset: usize) -> usize {
        let k = offset / Self::CHECKPOINT;
        self.checkpoints[k] + chars_in(&text[k * Self::CHECKPOINT..offset])
    }

    /// 1-based line and column (in characters) of byte `offset` in `text`.
    pub fn line_col(&self, text: &[u8], offset: usize) -> (u32, u32) {
        let offset = offset.min(text.len());
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let start = self.starts[line - 1];
        let column = if offset - start <= Self::CHECKPOINT {
            chars_in(&text[start..offset])
        } else {
            self.chars_before(text, offset) - self.chars_before(text, start)
        };
        (line as u32, column as u32 + 1)
    }

    /// Fills in line and column of every diagnostic that has an offset.
    pub fn locate(&self, text: &[u8], diagnostics: &mut [Diagnostic]) {
        for d in diagnostics {
            if let Some(off) = d.offset {
                (d.line, d.column) = self.line_col(text, off);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters_and_all_newline_kinds() {
        let text = "ab\r\ncé\rx\ny".as_bytes();
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_col(text, 0), (1, 1));
        assert_eq!(idx.line_col(text, 4), (2, 1));
        // 'é' is two bytes; the CR after it is column 3.
        assert_eq!(idx.line_col(text, 7), (2, 3));
        assert_eq!(idx.line_col(text, 8), (3, 1));
        assert_eq!(idx.line_col(text, 10), (4, 1));
    }

    /// The definition: count from the line start.
    fn naive_line_col(text: &[u8], offset: usize) -> (u32, u32) {
        let offset = offset.min(text.len());
        let mut line = 1;
        let mut start = 0;
        for i in 0..offset {
            let b = text[i];
            if b == b'\n' || (b == b'\r' && text.get(i + 1) != Some(&b'\n')) {
                line += 1;
                start = i + 1;
            }
        }
        (line, chars_in(&text[start..offset]) as u32 + 1)
    }

    #[test]
    fn line_col_matches_counting_from_the_line_start() {
        // Long lines of multi-byte characters across many checkpoints, short lines,
        // every newline kind, and offsets inside characters and past the end.
        let mut text = String::new();
        for i in 0..3 * LineIndex::CHECKPOINT {
            text.push(match i % 7 {
                0 => 'é',
                1 => '碁',
                2 => '🀄',
                _ => 'a',
            });
        }
        text.push_str("\r\nx\ry\n\n");
        for _ in 0..LineIndex::CHECKPOINT {
            text.push_str("ab\r");
        }
        text.push_str(&"z".repeat(2 * LineIndex::CHECKPOINT + 17));
        let bytes = text.as_bytes();
        let idx = LineIndex::new(bytes);
        let mut offsets: Vec<usize> = (0..bytes.len() + 3).step_by(13).collect();
        offsets.extend((0..bytes.len()).filter(|o| o % LineIndex::CHECKPOINT < 3));
        offsets.extend([0, 1, bytes.len(), bytes.len() + 1]);
        offsets.sort_unstable();
        for o in offsets {
            assert_eq!(
                idx.line_col(bytes, o),
                naive_line_col(bytes, o),
                "offset {o}"
            );
        }
        let mut ds = vec![
            Diagnostic::new(Code::IllegalChars, bytes.len() - 5, "x"),
            Diagnostic::global(Code::NoSgfData, "y"),
            Diagnostic::new(Code::IllegalChars, 7, "z"),
        ];
        idx.locate(bytes, &mut ds);
        assert_eq!(
            (ds[0].line, ds[0].column),
            naive_line_col(bytes, bytes.len() - 5)
        );
        assert_eq!((ds[1].line, ds[1].column), (0, 0));
        assert_eq!((ds[2].line, ds[2].column), naive_line_col(bytes, 7));
    }

    #[test]
    fn a_lookup_counts_at_most_two_checkpoints_of_bytes() {
        // 8 MB on one line: every lookup counting from the line start would take
        // seconds for these 20,000 lookups in a debug build; here each reads at most
        // 2 * CHECKPOINT bytes. The result is checked against the column by construction.
        let text = "ab".repeat(4 << 20);
        let bytes = text.as_bytes();
        let idx = LineIndex::new(bytes);
        for i in 0..20_000usize {
            let o = bytes.len() - 1 - i * 7;
            assert_eq!(idx.line_col(bytes, o), (1, o as u32 + 1));
        }
    }

    #[test]
    fn the_sink_caps_counts_errors_and_merges_notes() {
        let mut a = DiagnosticSink::with_limit(2);
        a.push(Diagnostic::new(Code::NulByte, 1, "w"));
        a.push(Diagnostic::new(Code::NulByte, 2, "w"));
        a.push(Diagnostic::new(Code::NulByte, 3, "w"));
        a.push(Diagnostic::new(Code::IllegalChars, 4, "e"));
        assert_eq!(a.dropped(), (2, 1));
        let a = a.finish();
        assert_eq!(a.len(), 3);
        let note = &a[2];
        assert_eq!(note.code, Code::TooManyProblems);
        assert!(note.is_error(), "a dropped error keeps the file failing");
        assert_eq!(note.message, "2 more problems not shown (1 of them errors)");
        assert_eq!(overflow_counts(note), Some((2, 1)));
        let mut b = DiagnosticSink::with_limit(5);
        b.push(Diagnostic::new(Code::NulByte, 9, "w"));
        b.push(Diagnostic::new(Code::NulByte, 9, "w"));
        let b = b.finish();
        assert_eq!(b.len(), 2, "nothing dropped, no note");
        let merged = merge_capped(vec![a, b], 3);
        assert_eq!(merged.len(), 4);
        assert_eq!(
            merged[3].message,
            "3 more problems not shown (1 of them errors)"
        );
        let mut w = DiagnosticSink::with_limit(0);
        w.push(Diagnostic::new(Code::NulByte, 1, "w"));
        assert!(
            !w.finish()[0].is_error(),
            "only warnings dropped: a warning"
        );
    }

    #[test]
    fn codes_are_unique_and_displayed_with_three_digits() {
        let mut nums: Vec<u16> = Code::ALL.iter().map(|c| c.number()).collect();
        let n = nums.len();
        nums.dedup();
        assert_eq!(nums.len(), n);
        assert_eq!(Code::IllegalChars.to_string(), "S008");
        assert_eq!(Code::IllegalChars.sgfc(), Some(8));
    }
}
