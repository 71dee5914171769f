//! The board a page plays on: setup stones and moves replayed by kifu-go's rules (captures,
//! ko, suicide), so the page never carries Go rules of its own.

use crate::error::ApiError;
use kifu_go::{Board, BoardSize, Color, Move, Point, Position, Rules};
use serde::{Deserialize, Serialize};

/// The most moves a request may replay.
pub const MAX_MOVES: usize = 2_000;

/// A position given as setup stones, the side to move and moves from there.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardRequest {
    /// The starting stones as rows (`#` black, `O` white, `.` empty; `/` or line breaks between
    /// rows), empty board if absent.
    #[serde(default)]
    pub setup: Option<String>,
    /// Who moves first (`B` or `W`; default Black).
    #[serde(default)]
    pub to_play: Option<Color>,
    /// Moves played alternately from there: `D4`, `pass`.
    #[serde(default)]
    pub moves: Vec<String>,
}

/// Stones captured so far, by the colour that captured them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Captures {
    /// Stones Black took.
    pub black: u32,
    /// Stones White took.
    pub white: u32,
}

/// A position as the page draws it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BoardView {
    /// The board size.
    pub size: u32,
    /// The rows from the top (`#` black, `O` white, `.` empty).
    pub rows: Vec<String>,
    /// Who is to play.
    pub to_play: Color,
    /// Moves played (passes included).
    pub moves: u32,
    /// Prisoners.
    pub captures: Captures,
    /// The point the side to move may not retake (simple ko), if any.
    pub ko: Option<String>,
    /// The last move (`D4`, `pass`), if any.
    pub last: Option<String>,
}

/// Rows as one string per row.
pub fn rows_of(board: &Board) -> Vec<String> {
    let n = board.size().get() as usize;
    board
        .to_rows()
        .chunks(n)
        .map(|r| String::from_utf8_lossy(r).into_owned())
        .collect()
}

/// Replays `req` on a board of `size`; an illegal or unreadable move is an error naming it.
pub fn replay(size: BoardSize, req: &BoardRequest) -> Result<Position, ApiError> {
    if req.moves.len() > MAX_MOVES {
        return Err(ApiError::bad(
            "moves",
            format!("at most {MAX_MOVES} moves, not {}", req.moves.len()),
        ));
    }
    let to_play = req.to_play.unwrap_or(Color::Black);
    let mut pos = match &req.setup {
        None => {
            let mut p = Position::with_rules(size, Rules::default());
            p.set_to_play(to_play);
            p
        }
        Some(rows) => {
            let text: Vec<u8> = rows.bytes().filter(|&b| b != b'/').collect();
            let board =
                Board::from_rows(&text, Some(size)).map_err(|e| ApiError::bad("setup", e))?;
            Position::from_board(&board, to_play, Rules::default())
        }
    };
    for (i, text) in req.moves.iter().enumerate() {
        let field = || format!("moves[{i}]");
        let mv = if text.eq_ignore_ascii_case("pass") {
            Move::Pass
        } else {
            Move::Play(Point::from_human(text, size).map_err(|e| ApiError::bad(field(), e))?)
        };
        let color = pos.to_play();
        pos.play(color, mv)
            .map_err(|e| ApiError::bad(field(), e.naming(text)))?;
    }
    Ok(pos)
}

/// What the page draws for `pos`.
pub fn view(pos: &Position) -> BoardView {
    let size = pos.size();
    BoardView {
        size: u32::from(size.get()),
        rows: rows_of(&pos.board()),
        to_play: pos.to_play(),
        moves: pos.move_number(),
        captures: Captures {
            black: pos.prisoners(Color::Black),
            white: pos.prisoners(Color::White),
        },
        ko: pos.ko_point().map(|p| p.to_human(size)),
        last: pos.last_move().map(|m| m.mv.to_human(size)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(setup: Option<&str>, moves: &[&str]) -> BoardRequest {
        BoardRequest {
            setup: setup.map(str::to_string),
            to_play: None,
            moves: moves.iter().map(|m| m.to_string()).collect(),
        }
    }

    #[test]
    fn captures_and_ko() {
        let size = BoardSize::new(5).unwrap();
        // Black takes the white stone at B4 by playing C4; a ko follows at B4.
        let setup = ".#O../#O.O./.#O../...../.....";
        let pos = replay(size, &req(Some(setup), &["C4"])).unwrap();
        let v = view(&pos);
        assert_eq!(v.rows[1], "#.#O.");
        assert_eq!(v.captures.black, 1);
        assert_eq!(v.to_play, Color::White);
        assert_eq!(v.last.as_deref(), Some("C4"));
        assert_eq!(v.ko.as_deref(), Some("B4"));
        let e = replay(size, &req(Some(setup), &["C4", "B4"])).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("moves[1]"));
    }

    #[test]
    fn bad_moves_are_named() {
        let size = BoardSize::new(9).unwrap();
        let e = replay(size, &req(None, &["E5", "Z9"])).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("moves[1]"));
        let e = replay(size, &req(None, &["E5", "E5"])).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("moves[1]"));
        // Named as the request names it, not in SGF's letters.
        assert!(
            e.error.ends_with("E5 is occupied by a black stone"),
            "{}",
            e.error
        );
        let e = replay(size, &req(Some("#."), &[])).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("setup"));
        let pos = replay(size, &req(None, &["pass", "E5"])).unwrap();
        assert_eq!(view(&pos).moves, 2);
        assert_eq!(view(&pos).rows[4], "....O....");
    }
}
