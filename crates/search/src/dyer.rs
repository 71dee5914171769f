//! Duplicate games: the same game stored twice, in any of the 8 orientations, found by a
//! signature in the manner of Dyer's (which Kombilo uses): the points of moves 20, 31, 40, 51,
//! 60 and 71 of the main line, in the orientation that makes them smallest. Games shorter than 71
//! moves add their length, so two short games must also end together; games shorter than 20
//! moves are signed by all their moves (six points they do not have would say nothing).

use kifu_go::{BoardSize, Point, Symmetry};
use kifu_sgf::{GameTree, SgfMove};

/// The move numbers Dyer's signature reads (1-based).
pub const DYER_MOVES: [usize; 6] = [20, 31, 40, 51, 60, 71];

/// A game's signature: equal for copies of one game, whatever their orientation.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Signature(String);

impl Signature {
    /// The signature as text (SGF points, `--` for a move the game does not have, `tt` for a
    /// pass, then the length where it counts).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The first moves of a square game's main line that a signature can read (`None` for a
/// pass), all of them in a shorter game; `None` for other boards.
fn main_line_moves(game: &GameTree<'_>) -> Option<(BoardSize, Vec<Option<Point>>)> {
    let (c, r) = game.board_size()?;
    if c != r {
        return None;
    }
    let size = BoardSize::new(c).ok()?;
    let keep = *DYER_MOVES.last().expect("six moves");
    // The ids looked up once, and no node read past the last move a signature reads (a
    // longer game's length does not count): a signature is made for every game an index
    // takes.
    let coll = game.root().collection();
    let ids = [coll.prop_id("B"), coll.prop_id("W")];
    let mut moves = Vec::with_capacity(keep);
    for node in game.main_line() {
        if moves.len() == keep {
            break;
        }
        for &id in ids.iter().flatten() {
            if let Some(v) = node.get_id(id).and_then(|p| p.value()) {
                match v.move_for(c, r) {
                    Some(SgfMove::Play(p)) => {
                        moves.push(Point::new(u32::from(p.col), u32::from(p.row), size).ok());
                    }
                    Some(SgfMove::Pass) | None => moves.push(None),
                }
            }
        }
    }
    Some((size, moves))
}

/// The signature of `game`'s main line; `None` for a game without moves or on a board that is
/// not square.
pub fn signature(game: &GameTree<'_>) -> Option<Signature> {
    let (size, moves) = main_line_moves(game)?;
    signature_of_moves(size, &moves)
}

/// The signature of a main line whose first moves are `moves` (`None` for a pass or a move
/// that is no point of the board), as [`signature`] reads them from the tree: all of them up
/// to move 71, fewer only when the line has fewer.
pub(crate) fn signature_of_moves(size: BoardSize, moves: &[Option<Point>]) -> Option<Signature> {
    let count = moves.len();
    if count == 0 {
        return None;
    }
    // The moves read: all of a game shorter than move 20 (at most 19), else the six (`None`:
    // a move the game does not have). Fixed arrays: a signature is made for every game an
    // index takes.
    const MOST: usize = DYER_MOVES[0] - 1;
    let mut picked = [None; MOST];
    let picked: &[Option<Option<Point>>] = if count < DYER_MOVES[0] {
        for (p, &m) in picked.iter_mut().zip(moves) {
            *p = Some(m);
        }
        &picked[..count]
    } else {
        for (p, &n) in picked.iter_mut().zip(&DYER_MOVES) {
            *p = moves.get(n - 1).copied();
        }
        &picked[..DYER_MOVES.len()]
    };
    // Each orientation's text as bytes, the smallest kept (byte order is the text's order).
    let mut best = [0u8; 2 * MOST];
    let mut text = [0u8; 2 * MOST];
    let len = 2 * picked.len();
    for (i, &sym) in Symmetry::ALL.iter().enumerate() {
        for (t, m) in text.chunks_exact_mut(2).zip(picked) {
            t.copy_from_slice(&match m {
                None => *b"--",
                Some(None) => *b"tt",
                Some(Some(p)) => {
                    let q = sym.apply(*p, size).to_sgf();
                    // Points past `z` on boards over 26 lines are not text.
                    if q.is_ascii() {
                        q
                    } else {
                        *b"??"
                    }
                }
            });
        }
        if i == 0 || text[..len] < best[..len] {
            best = text;
        }
    }
    let best = std::str::from_utf8(&best[..len]).ok()?;
    let tail = if count < *DYER_MOVES.last().expect("six moves") {
        format!("/{count}")
    } else {
        String::new()
    };
    Some(Signature(format!("{}:{best}{tail}", size.get())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kifu_sgf::Collection;

    fn sig(text: &str) -> Option<Signature> {
        let c = Collection::parse(text.as_bytes()).collection;
        let g = c.games().next().unwrap();
        signature(&g)
    }

    #[test]
    fn copies_in_any_orientation_sign_alike() {
        // 24 moves; the mirror copy swaps the two letters of each point.
        let moves: Vec<&str> = vec![
            "cc", "gg", "cg", "gc", "dd", "ee", "de", "ed", "ce", "ec", "bb", "hh", "bh", "hb",
            "aa", "ii", "ai", "ia", "fb", "bf", "fh", "hf", "ab", "ba",
        ];
        let game = |mv: &dyn Fn(&str) -> String| {
            let body: String = moves
                .iter()
                .enumerate()
                .map(|(i, m)| format!(";{}[{}]", if i % 2 == 0 { "B" } else { "W" }, mv(m)))
                .collect();
            format!("(;SZ[9]{body})")
        };
        let a = sig(&game(&|m: &str| m.to_string())).unwrap();
        let b = sig(&game(&|m: &str| m.chars().rev().collect())).unwrap();
        assert_eq!(a, b);
        // Move 20 differs: another game.
        let c = sig(&game(&|m: &str| {
            if m == "bf" {
                "cf".into()
            } else {
                m.to_string()
            }
        }))
        .unwrap();
        assert_ne!(a, c);
        // 24 moves: moves 31.. are missing, and the length counts.
        assert!(a.as_str().ends_with("/24"), "{a:?}");
        assert!(sig("(;SZ[9])").is_none());
        assert!(sig("(;SZ[9:7];B[aa])").is_none());
        // Short games are signed by all their moves.
        assert_ne!(sig("(;SZ[9];B[aa];W[bb])"), sig("(;SZ[9];B[aa];W[cc])"));
        assert_eq!(sig("(;SZ[9];B[aa];W[bb])"), sig("(;SZ[9];B[ii];W[hh])"));
    }
}
