//! Liberties of every string of a board given as cells, for feature planes and for boards that
//! must be checked before they are set up (a string without liberties cannot arise in play).
//!
//! [`Position`](crate::Position) keeps its strings' liberties incrementally as moves are played;
//! this is the one flood fill kifu has for boards that come without a history (position files,
//! arrays), so the Python package's planes and the GTP scorer's setup check count alike.

use crate::{Board, Point};

/// Counts the liberties of every string, reusing its buffers from board to board.
#[derive(Debug, Default, Clone)]
pub struct Liberties {
    libs: Vec<u16>,
    seen: Vec<u32>,
    stamp: Vec<u32>,
    stack: Vec<usize>,
    string: Vec<usize>,
    round: u32,
}

impl Liberties {
    /// No board counted yet.
    pub fn new() -> Liberties {
        Liberties::default()
    }

    fn next_round(&mut self) -> u32 {
        self.round = self.round.wrapping_add(1);
        if self.round == 0 {
            self.seen.fill(0);
            self.stamp.fill(0);
            self.round = 1;
        }
        self.round
    }

    /// The liberties of the string of every stone of `cells` (`n * n` cells row by row, 0 for
    /// an empty point, any other value a colour), 0 for empty points.
    ///
    /// ```
    /// let cells = [1, 2, 0, 0]; // a 2x2 board: black, white / empty, empty
    /// assert_eq!(kifu_go::liberties::Liberties::new().count(&cells, 2), &[1, 1, 0, 0]);
    /// ```
    pub fn count(&mut self, cells: &[u8], n: usize) -> &[u16] {
        let pts = n * n;
        debug_assert_eq!(cells.len(), pts);
        self.libs.clear();
        self.libs.resize(pts, 0);
        if self.seen.len() != pts {
            self.seen = vec![0; pts];
            self.stamp = vec![0; pts];
            self.round = 0;
        }
        // Rounds mark "seen" and "counted" without clearing: a new round number per board and
        // per string (wrapping resets the marks).
        let board_round = self.next_round();
        for start in 0..pts.min(cells.len()) {
            if cells[start] == 0 || self.seen[start] == board_round {
                continue;
            }
            let string_round = self.next_round();
            let colour = cells[start];
            self.string.clear();
            self.stack.push(start);
            self.seen[start] = board_round;
            let mut count = 0u16;
            while let Some(p) = self.stack.pop() {
                self.string.push(p);
                let (r, c) = (p / n, p % n);
                let near = [
                    (r > 0).then(|| p - n),
                    (r + 1 < n).then(|| p + n),
                    (c > 0).then(|| p - 1),
                    (c + 1 < n).then(|| p + 1),
                ];
                for q in near.into_iter().flatten() {
                    if cells[q] == 0 {
                        if self.stamp[q] != string_round {
                            self.stamp[q] = string_round;
                            count += 1;
                        }
                    } else if cells[q] == colour && self.seen[q] != board_round {
                        self.seen[q] = board_round;
                        self.stack.push(q);
                    }
                }
            }
            for &p in &self.string {
                self.libs[p] = count;
            }
        }
        &self.libs
    }
}

impl Board {
    /// The first stone (in board order) of a string without liberties, if any: such a board
    /// cannot arise in play, nor be set up by moves.
    pub fn string_without_liberties(&self) -> Option<Point> {
        let n = usize::from(self.size().get());
        let cells: Vec<u8> = self
            .to_rows()
            .iter()
            .map(|&b| match b {
                b'#' => 1,
                b'O' => 2,
                _ => 0,
            })
            .collect();
        let mut libs = Liberties::new();
        let counted = libs.count(&cells, n);
        let i = (0..n * n).find(|&i| cells[i] != 0 && counted[i] == 0)?;
        Point::new((i % n) as u32, (i / n) as u32, self.size()).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_and_their_liberties() {
        // . # O
        // # # O
        // . O .
        let cells = [0, 1, 2, 1, 1, 2, 0, 2, 0];
        let mut l = Liberties::new();
        assert_eq!(l.count(&cells, 3), &[0, 2, 1, 2, 2, 1, 0, 2, 0]);
        // The buffers are reused: a second board counts afresh.
        assert_eq!(l.count(&[1, 2, 2, 0], 2), &[0, 1, 1, 0]);
        let b = Board::from_rows(b"#O.......", None).unwrap();
        assert_eq!(b.string_without_liberties(), None);
        let full = Board::from_rows(&[b'#'; 81], None).unwrap();
        assert_eq!(
            full.string_without_liberties()
                .map(|p| p.to_human(full.size())),
            Some("A9".to_string())
        );
    }
}
