//! A position's book moves as people read them: SAN and UCI beside the raw Polyglot move, each
//! move's share of the position's weight, and the learn field. One serde type for
//! `kifu book dump --json`, `kifu serve` and the Python package.

use crate::book::Book;
use crate::key::key;
use crate::record::Entry;
use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode};

/// One book move of a position.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BookMove {
    /// The move in SAN, `None` if it is not legal in the position (a damaged book).
    pub san: Option<String>,
    /// The move in UCI (castling as the king's two-square move), `None` if not legal.
    pub uci: Option<String>,
    /// The move as Polyglot stores it (castling as king takes rook).
    pub raw: String,
    /// Its weight.
    pub weight: u16,
    /// Its share of the position's total weight, in percent rounded to 2 decimals.
    pub share: f64,
    /// The learn field.
    pub learn: u32,
}

/// A position and its book moves, in the book's order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BookPosition {
    /// The position as FEN (en passant square only when a capture is legal).
    pub fen: String,
    /// Its Polyglot key, 16 hex digits.
    pub key: String,
    /// Its moves.
    pub entries: Vec<BookMove>,
}

impl BookMove {
    /// Describes `e` in `pos`, whose moves weigh `total` together.
    pub fn describe(pos: &Chess, e: &Entry, total: u64) -> BookMove {
        let share = if total == 0 {
            0.0
        } else {
            100.0 * f64::from(e.weight) / total as f64
        };
        BookMove {
            san: e.raw_move.to_san(pos),
            uci: e.raw_move.to_uci(pos),
            raw: e.raw_move.to_raw_uci(),
            weight: e.weight,
            share: (share * 100.0).round() / 100.0,
            learn: e.learn,
        }
    }
}

/// The book moves of `pos` in `book`.
pub fn book_position<B: AsRef<[u8]>>(book: &Book<B>, pos: &Chess) -> BookPosition {
    let k = key(pos);
    let entries: Vec<Entry> = book.lookup(k).collect();
    let total: u64 = entries.iter().map(|e| u64::from(e.weight)).sum();
    BookPosition {
        fen: Fen::from_position(pos, EnPassantMode::Legal).to_string(),
        key: format!("{k:016x}"),
        entries: entries
            .iter()
            .map(|e| BookMove::describe(pos, e, total))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{position_from_moves, RawMove};
    use shakmaty::Square;

    #[test]
    fn shares_and_names() {
        let start = position_from_moves("").unwrap();
        let k = key(&start);
        let mut bytes = Vec::new();
        for (from, to, w) in [(Square::E2, Square::E4, 3u16), (Square::D2, Square::D4, 1)] {
            let e = Entry {
                key: k,
                raw_move: RawMove::new(from, to, None),
                weight: w,
                learn: 7,
            };
            bytes.extend_from_slice(&e.to_bytes());
        }
        let book = Book::from_bytes(bytes).unwrap();
        let p = book_position(&book, &start);
        assert_eq!(p.key, "463b96181691fc9c");
        assert_eq!(
            p.fen,
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        );
        let names: Vec<_> = p.entries.iter().map(|m| m.san.clone().unwrap()).collect();
        assert_eq!(names, ["e4", "d4"]);
        assert_eq!(p.entries[0].share, 75.0);
        assert_eq!(p.entries[1].uci.as_deref(), Some("d2d4"));
        assert_eq!(p.entries[1].learn, 7);
    }
}
