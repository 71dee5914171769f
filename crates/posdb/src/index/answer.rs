//! What a lookup answers: occurrences, continuations with their win counts, and the page
//! `kifu pos lookup` shows; and the sums continuations are counted in.

use super::format::NEXT_PASS;
use kifu_go::{Board, BoardSize, Move, Point, Symmetry};
use std::collections::HashMap;

/// One game where the position occurred.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Occurrence {
    /// The game number.
    pub game: u32,
    /// The move number of the position in the game.
    pub move_number: u16,
    /// The symmetry from the query's board to the game's board.
    pub symmetry: Symmetry,
    /// Whether the game had the position with colours swapped.
    pub swapped: bool,
    /// Whether the position is in a variation of the game, not its main line (only in indexes
    /// built with variations).
    pub in_variation: bool,
    /// The next move in the query's orientation (`None`: none), as played by the side to move
    /// in the query (after swapping colours back).
    pub next: Option<Move>,
}

/// A continuation with its statistics, from the query's point of view (colours swapped back).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Continuation {
    /// The move (a representative of its class when the position is symmetric: the moves that
    /// a symmetry of the position maps onto each other are counted together).
    pub mv: Move,
    /// Games that continued so.
    pub count: u64,
    /// Of those, won by Black.
    pub black_wins: u64,
    /// Of those, won by White.
    pub white_wins: u64,
}

/// The answer to a lookup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LookupResult {
    /// The canonical hash of the query (the PositionId hash).
    pub hash: u64,
    /// Every occurrence, by game and move number.
    pub occurrences: Vec<Occurrence>,
    /// Continuations, most played first (then by move).
    pub continuations: Vec<Continuation>,
}

/// What `kifu pos lookup` shows: the counts of a [`LookupResult`], its continuations, and its
/// first occurrences only. [`IndexReader::lookup_page`](super::IndexReader::lookup_page) reads precomputed summaries for the
/// common positions, so it takes about as long for the empty board as for a rare position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LookupPage {
    /// The canonical hash of the query (the PositionId hash).
    pub hash: u64,
    /// Occurrences (all of them, not only those listed).
    pub occurrences: u64,
    /// Distinct games among them.
    pub games: u64,
    /// Occurrences with colours swapped.
    pub swapped: u64,
    /// Continuations, most played first (then by move).
    pub continuations: Vec<Continuation>,
    /// The first occurrences, by game and move number (at most the limit asked for).
    pub first: Vec<Occurrence>,
}

impl LookupPage {
    /// The page of a full answer: what [`IndexReader::lookup_page`](super::IndexReader::lookup_page) gives with this `limit`.
    pub fn from_result(r: &LookupResult, limit: usize) -> LookupPage {
        let mut games: Vec<u32> = r.occurrences.iter().map(|o| o.game).collect();
        games.dedup();
        LookupPage {
            hash: r.hash,
            occurrences: r.occurrences.len() as u64,
            games: games.len() as u64,
            swapped: r.occurrences.iter().filter(|o| o.swapped).count() as u64,
            continuations: r.continuations.clone(),
            first: r.occurrences.iter().take(limit).cloned().collect(),
        }
    }
}

/// Continuation sums by the query's representative code (a point index in the query's
/// orientation, [`representative`] of its class, or [`NEXT_PASS`]): what a lookup's
/// continuations are counted in, from the entries or from a pattern search.
#[derive(Debug, Default)]
pub struct ContinuationSums(HashMap<u16, (u64, u64, u64)>);

impl ContinuationSums {
    /// Adds `count` continuations by `code` with their wins (colours swapped back for a
    /// swapped key).
    pub fn add(&mut self, code: u16, count: u64, black: u64, white: u64, swapped: bool) {
        let (black, white) = if swapped {
            (white, black)
        } else {
            (black, white)
        };
        // Counts may come from a summary in the file: a damaged one must not overflow.
        let s = self.0.entry(code).or_default();
        s.0 = s.0.saturating_add(count);
        s.1 = s.1.saturating_add(black);
        s.2 = s.2.saturating_add(white);
    }

    /// The continuations, most played first (then by code).
    pub fn into_continuations(self, size: BoardSize) -> Vec<Continuation> {
        let mut c: Vec<(u16, Continuation)> = self
            .0
            .into_iter()
            .map(|(c, (count, b, w))| {
                (
                    c,
                    Continuation {
                        mv: code_to_move(c, size),
                        count,
                        black_wins: b,
                        white_wins: w,
                    },
                )
            })
            .collect();
        c.sort_by(|a, b| b.1.count.cmp(&a.1.count).then(a.0.cmp(&b.0)));
        c.into_iter().map(|(_, c)| c).collect()
    }
}

/// The symmetries that leave `board` as it is: the moves they map onto each other are one
/// continuation of it.
pub fn stabilizer(board: &Board) -> Vec<Symmetry> {
    Symmetry::ALL
        .into_iter()
        .filter(|&s| board.transform(s) == *board)
        .collect()
}

/// The code of point `p`'s class of moves under `stabilizer` (the symmetries of the query's
/// board, [`stabilizer`]): the lowest point index among its images.
pub fn representative(p: Point, stabilizer: &[Symmetry], size: BoardSize) -> u16 {
    let i = stabilizer
        .iter()
        .map(|s| s.apply(p, size).index(size))
        .min()
        .unwrap_or(p.index(size));
    i as u16
}

/// A next-move code (a point index in the query's orientation, or a pass) as a move.
pub fn code_to_move(code: u16, size: BoardSize) -> Move {
    match Point::from_index(usize::from(code), size) {
        Some(p) if code != NEXT_PASS => Move::Play(p),
        _ => Move::Pass,
    }
}
