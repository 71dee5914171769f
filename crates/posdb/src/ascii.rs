//! ASCII positions, the input of the old `parse_position_file` job.
//!
//! The spec names the job but not its input, so kifu reads the PositionDB text itself: each
//! position is its `n * n` point characters (`#` black, `O` white, `.` empty; row by row from the
//! top-left) followed by the side to move, `B` or `W`. White space (spaces, tabs, line breaks)
//! anywhere is ignored, so a position may be one line of 81 characters then ` B`, or 9 lines of 9
//! then a line `W`. Lines whose first non-blank character is `;` are comments. Anything else is an
//! error with its line and column.

use kifu_go::{Board, BoardSize, Color};

/// What was wrong in an ASCII position file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AsciiErrorKind {
    /// A character that is neither a point, a side to move, white space nor a comment.
    #[error("unexpected character {0:?} (expected '#', 'O', '.', or 'B'/'W' after {1} points)")]
    Unexpected(char, usize),
    /// A side to move before the board is complete.
    #[error("side to move after only {0} points")]
    ShortBoard(usize),
    /// The input ends inside a position.
    #[error("the input ends inside a position ({0} points read, side to move missing)")]
    Incomplete(usize),
}

/// An error in an ASCII position file, with its 1-based line and column.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {kind}")]
pub struct AsciiError {
    /// Line, from 1.
    pub line: usize,
    /// Column in bytes, from 1.
    pub column: usize,
    /// What was wrong.
    pub kind: AsciiErrorKind,
}

/// Every position of an ASCII file for boards of `size`, with the side to move.
pub fn parse_ascii_positions(
    text: &[u8],
    size: BoardSize,
) -> Result<Vec<(Board, Color)>, AsciiError> {
    let need = size.points();
    let mut out = Vec::new();
    let mut points: Vec<u8> = Vec::with_capacity(need);
    let (mut line, mut col) = (1usize, 0usize);
    let mut line_start = true;
    let mut in_comment = false;
    for &b in text {
        col += 1;
        if b == b'\n' {
            line += 1;
            col = 0;
            line_start = true;
            in_comment = false;
            continue;
        }
        if in_comment || b.is_ascii_whitespace() {
            continue;
        }
        if line_start && b == b';' {
            in_comment = true;
            continue;
        }
        line_start = false;
        let err = |kind| AsciiError {
            line,
            column: col,
            kind,
        };
        match b {
            b'#' | b'O' | b'.' if points.len() < need => points.push(b),
            b'B' | b'W' if points.len() == need => {
                let board = Board::from_rows(&points, Some(size))
                    .expect("n*n validated point bytes make a board");
                let c = if b == b'B' {
                    Color::Black
                } else {
                    Color::White
                };
                out.push((board, c));
                points.clear();
            }
            b'B' | b'W' => return Err(err(AsciiErrorKind::ShortBoard(points.len()))),
            _ => return Err(err(AsciiErrorKind::Unexpected(char::from(b), points.len()))),
        }
    }
    if !points.is_empty() {
        return Err(AsciiError {
            line,
            column: col + 1,
            kind: AsciiErrorKind::Incomplete(points.len()),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_errors() {
        let size = BoardSize::new(3).unwrap();
        let text = b"; two positions\n#O.......B\n...\n.#.\n...\nW\n";
        let got = parse_ascii_positions(text, size).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0.to_rows(), b"#O.......");
        assert_eq!(got[0].1, Color::Black);
        assert_eq!(got[1].0.to_rows(), b"....#....");
        assert_eq!(got[1].1, Color::White);
        let e = parse_ascii_positions(b"#O..x", size).unwrap_err();
        assert_eq!(
            e.to_string(),
            "1:5: unexpected character 'x' (expected '#', 'O', '.', or 'B'/'W' after 4 points)"
        );
        let e = parse_ascii_positions(b"\n#O.B", size).unwrap_err();
        assert_eq!(
            (e.line, e.column, e.kind),
            (2, 4, AsciiErrorKind::ShortBoard(3))
        );
        let e = parse_ascii_positions(b".........", size).unwrap_err();
        assert_eq!(e.kind, AsciiErrorKind::Incomplete(9));
        // A tenth point is not a side to move.
        let e = parse_ascii_positions(b"..........", size).unwrap_err();
        assert_eq!(e.kind, AsciiErrorKind::Unexpected('.', 9));
    }
}
