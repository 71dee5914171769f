//! Zobrist hashing: the table (generated or read from `zobrist_board_81.dat`), the 8 symmetric hashes
//! of a board, and the canonical hash that is the same for all 8 symmetric versions of a board.
//!
//! # Definitions
//! - A [`ZobristTable`] holds, for every point of one board size, a black, a white and a ko value
//!   (the ko column is kept only so the file round-trips; it never enters a key).
//! - The hash of a board is the XOR of the black value of every black stone's point and the white
//!   value of every white stone's point. The empty board hashes to 0.
//! - The symmetric hash `i` of a board is the hash of the board transformed by [`Symmetry`] `i`
//!   ([`crate::Board::transform`]), i.e. the XOR of `value[colour][s.apply(point)]`.
//! - The canonical hash is the lowest of the 8 as an unsigned 64-bit number, with the symmetry that
//!   gives it (the lowest index when several do, as on the empty board). This is the PositionDB key:
//!   the stored board is the position as played; the key is the canonical hash.
//!
//! # Point order in the file
//! `zobrist_board_81.dat` has one line per point and the spec does not say in which order. kifu reads
//! and writes the points in the PositionDB order, row by row from the top-left (line 4 is `A9` on 9x9,
//! line 12 is `J9`, line 84 is `J1`): the same order as the 81 characters that the spec's sample code
//! hashes. [`crate::Point::index`] gives a point's line (counting from 0 after the header).

use crate::board::Board;
use crate::coord::{BoardSize, Color, Point};
use crate::symmetry::Symmetry;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// The fixed base seed of [`ZobristTable::generate`]: the ASCII bytes `kifu-go` then the board size.
pub const SEED_BASE: u64 = 0x6b69_6675_2d67_6f00;

/// One step of splitmix64 (Steele, Lea and Flood 2014; Vigna's public-domain reference code).
#[inline]
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Zobrist values for every point of one board size: black, white and ko columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZobristTable {
    size: BoardSize,
    // One entry per point, indexed by `Point::index`: [black, white, ko].
    values: Vec<[u64; 3]>,
}

/// What was wrong with a Zobrist table file.
#[derive(Debug, thiserror::Error)]
pub enum ZobristFileErrorKind {
    /// The file could not be read.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// A header line is not a decimal number.
    #[error("header line is not a number: {0:?}")]
    BadHeader(String),
    /// The hash width is not 8 bytes.
    #[error("hashes of {0} bytes are not supported (8 bytes, 64 bits, are)")]
    UnsupportedWidth(u64),
    /// The column count is not 2 (black, white) or 3 (black, white, ko).
    #[error("{0} columns per point; 2 (black, white) or 3 (black, white, ko) expected")]
    BadColumns(u64),
    /// The number of points is not `n * n` for a supported size.
    #[error("{0} points is not a square board of size 2 to 25")]
    BadPoints(u64),
    /// A point line has the wrong number of fields.
    #[error("{found} fields where {expected} were announced")]
    FieldCount {
        /// Fields found.
        found: usize,
        /// Fields expected (the header's column count).
        expected: usize,
    },
    /// A field is not 1 to 16 hexadecimal digits.
    #[error("field {field} is not a 64-bit hexadecimal number: {text:?}")]
    BadHex {
        /// 1-based field number on the line.
        field: usize,
        /// The text of the field.
        text: String,
    },
    /// The file ends before all points were given.
    #[error("the file ends after {found} of {expected} points")]
    Truncated {
        /// Point lines read.
        found: usize,
        /// Point lines announced.
        expected: usize,
    },
    /// Text follows the last point.
    #[error("unexpected text after the last point")]
    TrailingText,
}

/// An error reading a Zobrist table file, with where it happened (`path:line: what`).
#[derive(Debug, thiserror::Error)]
#[error("{}{}{kind}", .path.as_ref().map(|p| format!("{}:", p.display())).unwrap_or_default(),
    if *.line > 0 { format!("{}: ", .line) } else { String::new() })]
pub struct ZobristFileError {
    /// The file, when read through [`ZobristTable::load`].
    pub path: Option<PathBuf>,
    /// 1-based line number; 0 when the error has no line (I/O).
    pub line: usize,
    /// What went wrong.
    pub kind: ZobristFileErrorKind,
}

impl ZobristTable {
    /// The table kifu uses when no file is given, the same in every version of kifu.
    ///
    /// Generator: splitmix64 with the state seeded to `SEED_BASE | n` for an `n`x`n` board; for each
    /// point in file order (row by row from the top-left) three values are drawn, black, white, ko.
    /// A zero draw (which would make a stone invisible) is skipped and drawn again.
    pub fn generate(size: BoardSize) -> ZobristTable {
        let mut state = SEED_BASE | u64::from(size.get());
        let mut draw = || loop {
            let v = splitmix64(&mut state);
            if v != 0 {
                break v;
            }
        };
        let values = (0..size.points())
            .map(|_| [draw(), draw(), draw()])
            .collect();
        ZobristTable { size, values }
    }

    /// A table from explicit values, one `[black, white, ko]` per point in file order.
    /// `None` unless there are exactly `n * n` entries for a supported `n`.
    pub fn from_values(values: Vec<[u64; 3]>) -> Option<ZobristTable> {
        let n = (2..=BoardSize::MAX as usize).find(|n| n * n == values.len())?;
        let size = BoardSize::new(n as u32).ok()?;
        Some(ZobristTable { size, values })
    }

    /// The board size of the table.
    pub fn size(&self) -> BoardSize {
        self.size
    }

    /// The value of a stone of `color` on `p` (0 if `p` is off the table's board).
    #[inline]
    pub fn value(&self, color: Color, p: Point) -> u64 {
        if p.is_on(self.size) {
            self.values[p.index(self.size)][color.index()]
        } else {
            0
        }
    }

    /// The ko column's value for `p` (unused by keys; kept for the file format).
    pub fn ko_value(&self, p: Point) -> u64 {
        if p.is_on(self.size) {
            self.values[p.index(self.size)][2]
        } else {
            0
        }
    }

    /// The plain hash of `board` (symmetry 0), computed from scratch. Stones off the table's board
    /// (a board of another size) count as 0.
    pub fn hash(&self, board: &Board) -> u64 {
        board.stones().fold(0, |h, (p, c)| h ^ self.value(c, p))
    }

    /// All 8 symmetric hashes of `board`, computed from scratch (see the module docs).
    pub fn symmetric_hashes(&self, board: &Board) -> SymmetricHashes {
        let mut h = [0u64; 8];
        for (p, c) in board.stones() {
            for s in Symmetry::ALL {
                h[s.index()] ^= self.value(c, s.apply(p, self.size));
            }
        }
        SymmetricHashes(h)
    }

    /// Reads the `zobrist_board_81.dat` text format (any board size): three header lines (bytes per
    /// hash, which must be 8; columns, 2 or 3; points, `n * n`), then one line per point in file
    /// order with comma-separated hexadecimal values (1 to 16 digits, either case, optional `0x`).
    /// Blank lines, spaces around fields and CR-LF line ends are accepted.
    pub fn parse(text: &[u8]) -> Result<ZobristTable, ZobristFileError> {
        let err = |line: usize, kind| ZobristFileError {
            path: None,
            line,
            kind,
        };
        let mut lines = text
            .split(|&b| b == b'\n')
            .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
            .enumerate()
            .map(|(i, l)| (i + 1, l));
        let mut header = |what: &str| -> Result<u64, ZobristFileError> {
            let (no, line) = lines.next().unwrap_or((0, b""));
            let t = String::from_utf8_lossy(line);
            let t = t.trim();
            t.parse::<u64>().map_err(|_| {
                err(
                    no.max(1),
                    ZobristFileErrorKind::BadHeader(if t.is_empty() {
                        format!("(missing {what})")
                    } else {
                        t.chars().take(40).collect()
                    }),
                )
            })
        };
        let width = header("bytes per hash")?;
        let columns = header("column count")?;
        let points = header("point count")?;
        if width != 8 {
            return Err(err(1, ZobristFileErrorKind::UnsupportedWidth(width)));
        }
        if columns != 2 && columns != 3 {
            return Err(err(2, ZobristFileErrorKind::BadColumns(columns)));
        }
        let size = (2..=u64::from(BoardSize::MAX))
            .find(|n| n * n == points)
            .and_then(|n| BoardSize::new(n as u32).ok())
            .ok_or_else(|| err(3, ZobristFileErrorKind::BadPoints(points)))?;
        let expected = size.points();
        let columns = columns as usize;
        let mut values = Vec::with_capacity(expected);
        let mut last_line = 3;
        for (no, line) in lines.by_ref() {
            last_line = no;
            // Blank lines (the final line break, stray empty lines) carry nothing.
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            if values.len() == expected {
                return Err(err(no, ZobristFileErrorKind::TrailingText));
            }
            let mut entry = [0u64; 3];
            let mut found = 0;
            for (i, field) in line.split(|&b| b == b',').enumerate() {
                found += 1;
                if i < columns {
                    entry[i] = parse_hex(field).ok_or_else(|| {
                        err(
                            no,
                            ZobristFileErrorKind::BadHex {
                                field: i + 1,
                                text: String::from_utf8_lossy(field).chars().take(40).collect(),
                            },
                        )
                    })?;
                }
            }
            if found != columns {
                return Err(err(
                    no,
                    ZobristFileErrorKind::FieldCount {
                        found,
                        expected: columns,
                    },
                ));
            }
            values.push(entry);
        }
        if values.len() < expected {
            let found = values.len();
            let line = last_line.max(3);
            return Err(err(
                line,
                ZobristFileErrorKind::Truncated { found, expected },
            ));
        }
        Ok(ZobristTable { size, values })
    }

    /// Reads a table file, with its path in any error.
    pub fn load(path: &Path) -> Result<ZobristTable, ZobristFileError> {
        let with_path = |mut e: ZobristFileError| {
            e.path = Some(path.to_owned());
            e
        };
        let bytes = std::fs::read(path).map_err(|e| {
            with_path(ZobristFileError {
                path: None,
                line: 0,
                kind: e.into(),
            })
        })?;
        ZobristTable::parse(&bytes).map_err(with_path)
    }

    /// The file text: `8`, `3`, `n*n` on three lines, then `black,white,ko` per point as 16 lower-case
    /// hexadecimal digits each, `\n` line ends.
    pub fn to_text(&self) -> String {
        let mut s = String::with_capacity(16 + self.values.len() * 51);
        let _ = write!(s, "8\n3\n{}\n", self.values.len());
        for [b, w, k] in &self.values {
            let _ = writeln!(s, "{b:016x},{w:016x},{k:016x}");
        }
        s
    }

    /// Writes [`ZobristTable::to_text`] to `out` (callers write to a temporary file and rename).
    pub fn write_to(&self, mut out: impl std::io::Write) -> std::io::Result<()> {
        out.write_all(self.to_text().as_bytes())
    }
}

fn parse_hex(field: &[u8]) -> Option<u64> {
    let t = field.trim_ascii();
    let t = t
        .strip_prefix(b"0x")
        .or_else(|| t.strip_prefix(b"0X"))
        .unwrap_or(t);
    if t.is_empty() || t.len() > 16 {
        return None;
    }
    t.iter().try_fold(0u64, |acc, &b| {
        let d = (b as char).to_digit(16)?;
        Some(acc << 4 | u64::from(d))
    })
}

/// The 8 symmetric hashes of a board, indexed by [`Symmetry::index`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SymmetricHashes(pub [u64; 8]);

/// The lowest of the 8 symmetric hashes and the symmetry that gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CanonicalHash {
    /// The key: the lowest hash as an unsigned 64-bit number (write it big-endian in files).
    pub hash: u64,
    /// The symmetry whose transformed board has this hash (`board.transform(symmetry)` hashes to
    /// `hash` with symmetry 0); the lowest index among ties.
    pub symmetry: Symmetry,
}

impl SymmetricHashes {
    /// The hash of the board transformed by `s`.
    #[inline]
    pub fn get(&self, s: Symmetry) -> u64 {
        self.0[s.index()]
    }

    /// The plain hash (symmetry 0).
    #[inline]
    pub fn plain(&self) -> u64 {
        self.0[0]
    }

    /// The lowest hash and its symmetry.
    #[inline]
    pub fn canonical(&self) -> CanonicalHash {
        // Kept free of unpredictable branches (the compiler emits conditional moves): the hashes
        // are random, so a branch per comparison would mispredict half the time.
        let mut hash = self.0[0];
        let mut best = 0;
        for (i, &h) in self.0.iter().enumerate().skip(1) {
            let lower = h < hash;
            hash = if lower { h } else { hash };
            best = if lower { i } else { best };
        }
        CanonicalHash {
            hash,
            symmetry: Symmetry::ALL[best],
        }
    }
}

/// A [`ZobristTable`] prepared for incremental hashing: for each point and colour, the 8 values
/// `value[colour][s.apply(point)]`, so that adding or removing a stone updates all 8 symmetric hashes
/// with 8 XORs. Build it once per table and share it (`Arc`) between positions.
#[derive(Debug)]
pub struct ZobristKeys {
    table: ZobristTable,
    // Indexed by `padded_index * 2 + colour` in the layout of `crate::position` (a border of one
    // point around the board, stride n + 2); border entries are zero.
    keys: Vec<Keys8>,
}

/// The 8 values of one point and colour, on one cache line (not two, as an 8-byte-aligned array
/// would often straddle).
#[derive(Debug, Clone, Copy, Default)]
#[repr(align(64))]
struct Keys8([u64; 8]);

impl ZobristKeys {
    /// Prepares `table`.
    pub fn new(table: ZobristTable) -> ZobristKeys {
        let size = table.size;
        let n = usize::from(size.get());
        let stride = n + 2;
        let mut keys = vec![Keys8::default(); stride * stride * 2];
        for p in size.all_points() {
            let pad = (usize::from(p.row()) + 1) * stride + usize::from(p.col()) + 1;
            for c in Color::ALL {
                let mut k = [0u64; 8];
                for s in Symmetry::ALL {
                    k[s.index()] = table.value(c, s.apply(p, size));
                }
                keys[pad * 2 + c.index()] = Keys8(k);
            }
        }
        ZobristKeys { table, keys }
    }

    /// The shared keys of kifu's own table ([`ZobristTable::generate`]) for `size`, built on first use.
    pub fn default_for(size: BoardSize) -> Arc<ZobristKeys> {
        static CACHE: [OnceLock<Arc<ZobristKeys>>; BoardSize::MAX as usize + 1] =
            [const { OnceLock::new() }; BoardSize::MAX as usize + 1];
        CACHE[usize::from(size.get())]
            .get_or_init(|| Arc::new(ZobristKeys::new(ZobristTable::generate(size))))
            .clone()
    }

    /// The table these keys come from.
    pub fn table(&self) -> &ZobristTable {
        &self.table
    }

    /// The board size.
    pub fn size(&self) -> BoardSize {
        self.table.size
    }

    /// The 8 values to XOR when a stone of `color` is added or removed at padded index `pad`.
    #[inline(always)]
    pub(crate) fn at(&self, pad: usize, color: Color) -> &[u64; 8] {
        &self.keys[pad * 2 + color.index()].0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generator_is_pinned() {
        // splitmix64 from state 0x6b696675_2d676f09 (SEED_BASE | 9), worked out independently:
        // these values must never change between versions.
        let t = ZobristTable::generate(BoardSize::NINE);
        let first = t.values[0];
        assert_eq!(first, GENERATED_9X9_FIRST);
        let last = t.values[80];
        assert_eq!(last, GENERATED_9X9_LAST);
        assert_ne!(ZobristTable::generate(BoardSize::NINETEEN).values[0], first);
    }

    const GENERATED_9X9_FIRST: [u64; 3] = [
        0x91a4_b10e_5d73_feea,
        0x4c5d_9b96_5c00_d3a3,
        0xa31f_7d4c_e2da_1bcc,
    ];
    const GENERATED_9X9_LAST: [u64; 3] = [
        0x204b_7dd1_0e53_b89a,
        0x93c9_9878_7ba5_6cdd,
        0xe4ab_3b0f_8db8_b8b1,
    ];

    #[test]
    fn text_round_trip() {
        for n in [2, 9, 19, 25] {
            let t = ZobristTable::generate(BoardSize::new(n).unwrap());
            let text = t.to_text();
            assert_eq!(ZobristTable::parse(text.as_bytes()).unwrap(), t);
            let crlf = text.replace('\n', "\r\n").to_uppercase() + "\r\n\r\n";
            assert_eq!(ZobristTable::parse(crlf.as_bytes()).unwrap(), t);
        }
        let t = ZobristTable::generate(BoardSize::NINE);
        let text = t.to_text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 84);
        assert_eq!(&lines[..3], ["8", "3", "81"]);
        assert_eq!(lines[3].len(), 50);
        let mut buf = Vec::new();
        t.write_to(&mut buf).unwrap();
        assert_eq!(buf, text.as_bytes());
    }

    fn parse_err(text: &str) -> (usize, String) {
        let e = ZobristTable::parse(text.as_bytes()).unwrap_err();
        (e.line, e.to_string())
    }

    #[test]
    fn parse_errors_have_lines() {
        let good = "8\n3\n4\n1,2,3\n4,5,6\n7,8,9\na,b,c\n";
        let t = ZobristTable::parse(good.as_bytes()).unwrap();
        assert_eq!(t.size().get(), 2);
        let s = t.size();
        assert_eq!(t.value(Color::White, Point::new(1, 1, s).unwrap()), 0xb);
        assert_eq!(t.ko_value(Point::new(1, 0, s).unwrap()), 6);
        assert_eq!(
            parse_err("8\n3\n4\n1,2,3\n4,5\n7,8,9\na,b,c\n"),
            (5, "5: 2 fields where 3 were announced".to_owned())
        );
        assert_eq!(
            parse_err("8\n3\n4\n1,2,3\n4,5,6\n7,8,9\na,b,g\n").0,
            7,
            "bad hex digit"
        );
        assert_eq!(
            parse_err("8\n3\n4\n1,2,3\n4,5,6\n7,8,9\na,b,12345678901234567\n").0,
            7,
            "more than 64 bits"
        );
        assert_eq!(
            parse_err("8\n3\n4\n1,2,3\n4,5,6\n"),
            (6, "6: the file ends after 2 of 4 points".to_owned())
        );
        assert_eq!(
            parse_err("8\n3\n4\n1,2,3\n4,5,6\n7,8,9\na,b,c\nd,e,f\n"),
            (8, "8: unexpected text after the last point".to_owned())
        );
        assert_eq!(parse_err("4\n3\n4\n").0, 1);
        assert_eq!(parse_err("8\n5\n4\n").0, 2);
        assert_eq!(parse_err("8\n3\n5\n").0, 3);
        assert_eq!(parse_err("8\n3\n").0, 3);
        assert_eq!(parse_err("").0, 1);
        assert_eq!(
            parse_err("eight\n").1,
            "1: header line is not a number: \"eight\""
        );
        // Two columns: the ko column is absent and reads as 0.
        let t2 = ZobristTable::parse(b"8\n2\n4\n1,2\n3,4\n5,6\n0x7, 0X8 \n").unwrap();
        assert_eq!(t2.value(Color::White, Point::new(1, 1, s).unwrap()), 8);
        assert_eq!(t2.ko_value(Point::new(1, 1, s).unwrap()), 0);
        let missing =
            ZobristTable::load(Path::new("/nonexistent/zobrist_board_81.dat")).unwrap_err();
        assert!(missing
            .to_string()
            .starts_with("/nonexistent/zobrist_board_81.dat:"));
    }

    #[test]
    fn canonical_ties_take_lowest_index() {
        let h = SymmetricHashes([5, 3, 9, 3, 7, 8, 3, 4]);
        assert_eq!(
            h.canonical(),
            CanonicalHash {
                hash: 3,
                symmetry: Symmetry::Rotate90
            }
        );
        assert_eq!(
            SymmetricHashes::default().canonical().symmetry,
            Symmetry::Identity
        );
    }
}
