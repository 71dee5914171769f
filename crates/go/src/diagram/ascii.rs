//! Text diagrams: an ASCII board with coordinates, and the same with the game state.

use crate::board::Board;
use crate::coord::{Color, Point, COLUMN_LETTERS};
use crate::position::Position;

/// An ASCII diagram of `board`: `X` black, `O` white, `.` empty, `+` star point; columns lettered
/// `A`-`Z` without `I`, rows numbered from the bottom, on all four sides. The stone on `last_move`
/// is bracketed, `(X)`.
///
/// ```text
///    A B C D E
///  5 . . . . . 5
///  4 . X O . . 4
///  3 . .(X). . 3
///  2 . . . . . 2
///  1 . . . . . 1
///    A B C D E
/// ```
pub fn ascii_board(board: &Board, last_move: Option<Point>) -> String {
    let size = board.size();
    let n = usize::from(size.get());
    let stars = size.star_points();
    let letters: String = COLUMN_LETTERS[..n]
        .iter()
        .flat_map(|&l| [' ', l as char])
        .collect();
    let mut out = String::with_capacity((2 * n + 8) * (n + 2));
    out.push_str("  ");
    out.push_str(&letters);
    out.push('\n');
    for row in 0..n {
        let number = n - row;
        let mut line: Vec<u8> = format!("{number:>2}").into_bytes();
        for col in 0..n {
            let p = Point::from_raw(col as u8, row as u8);
            let sep = if last_move == Some(p) {
                b'('
            } else if col > 0 && last_move == Some(Point::from_raw(col as u8 - 1, row as u8)) {
                b')'
            } else {
                b' '
            };
            line.push(sep);
            line.push(match board.get(p) {
                Some(Color::Black) => b'X',
                Some(Color::White) => b'O',
                None if stars.contains(&p) => b'+',
                None => b'.',
            });
        }
        let last_col_marked = last_move == Some(Point::from_raw(n as u8 - 1, row as u8));
        line.push(if last_col_marked { b')' } else { b' ' });
        out.push_str(&String::from_utf8_lossy(&line));
        out.push_str(&number.to_string());
        out.push('\n');
    }
    out.push_str("  ");
    out.push_str(&letters);
    out.push('\n');
    out
}

/// An ASCII diagram of a position: the board (last move bracketed), then the prisoners each side
/// holds, the last move and who is to play.
pub fn ascii_diagram(position: &Position) -> String {
    let last = position.last_move();
    let mut out = ascii_board(&position.board(), last.and_then(|m| m.mv.point()));
    out.push_str(&format!(
        "Captured by Black (X): {}  by White (O): {}\n",
        position.prisoners(Color::Black),
        position.prisoners(Color::White)
    ));
    if let Some(m) = last {
        out.push_str(&format!(
            "Move {}: {} {}\n",
            position.move_number(),
            m.color,
            m.mv.to_human(position.size())
        ));
    }
    out.push_str(&format!("{} to play\n", position.to_play()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coord::{BoardSize, Move};

    #[test]
    fn small_board_with_last_move() {
        let size = BoardSize::new(5).unwrap();
        let board = Board::from_rows(b".....#.O....#............", None).unwrap();
        let last = Point::from_human("C3", size).ok();
        let expected = [
            "   A B C D E",
            " 5 . . . . . 5",
            " 4 X . O . . 4",
            " 3 . .(X). . 3",
            " 2 . . . . . 2",
            " 1 . . . . . 1",
            "   A B C D E",
            "",
        ];
        assert_eq!(ascii_board(&board, last), expected.join("\n"));
        let edge = Point::from_human("E5", size).ok();
        let mut b2 = Board::new(size);
        b2.set(edge.unwrap(), Some(Color::White)).unwrap();
        assert_eq!(
            ascii_board(&b2, edge).lines().nth(1),
            Some(" 5 . . . .(O)5")
        );
    }

    #[test]
    fn position_diagram_shows_captures() {
        let size = BoardSize::NINE;
        let mut pos = Position::new(size);
        for (c, s) in [
            (Color::Black, "E5"),
            (Color::White, "E6"),
            (Color::Black, "D6"),
            (Color::White, "A1"),
            (Color::Black, "F6"),
            (Color::White, "A2"),
            (Color::Black, "E7"),
        ] {
            pos.play(c, Move::Play(Point::from_human(s, size).unwrap()))
                .unwrap();
        }
        let text = ascii_diagram(&pos);
        let expected = [
            "   A B C D E F G H J",
            " 9 . . . . . . . . . 9",
            " 8 . . . . . . . . . 8",
            " 7 . . + .(X). + . . 7",
            " 6 . . . X . X . . . 6",
            " 5 . . . . X . . . . 5",
            " 4 . . . . . . . . . 4",
            " 3 . . + . . . + . . 3",
            " 2 O . . . . . . . . 2",
            " 1 O . . . . . . . . 1",
            "   A B C D E F G H J",
            "Captured by Black (X): 1  by White (O): 0",
            "Move 7: Black E7",
            "White to play",
            "",
        ];
        assert_eq!(text, expected.join("\n"));
    }
}
