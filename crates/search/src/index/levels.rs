//! Two more columns per point, over the main line, that let the columns rule out most of a
//! free pattern's candidates before any game is read: for each game (one bit, 64 games a
//! word, in the blocks of [`super::columns`]), whether a stone stood on the point by node
//! [`EARLY`] (`early`), and whether the point's final stone was there for good by then
//! (`settled`: the final board holds a stone there and its last change comes no later).
//!
//! A variant stands at a main-line node `t` only if each of its stones was placed by `t` and
//! each cell it wants empty is empty at `t`. If `t <= EARLY`, every stone's point is `early`;
//! if `t > EARLY`, no empty cell's point is `settled` (it holds a stone from before `t` on).
//! So a place can only hold a variant in the games where its stones are all `early` or none
//! of its empty cells is `settled`, and the others need not be walked, nor even pruned: for
//! a 5x5 anywhere on the corpus, 56% of the (game, place) candidates that the stones'
//! columns leave go this way, at one word operation per 64 games and cell, where the prune
//! pays about 140 instructions a candidate.
//!
//! The tables are read from the games' cold parts, so these columns are made at the first
//! search that wants them (a pattern of many places over the main line) and kept; a game
//! whose tables cannot be read counts as `early` everywhere, which rules nothing out. Times in
//! the tables are rounded (first stones down, last changes up), which only keeps more games.

use super::columns::{BLOCK, WORDS};
use super::entry::row_word;
use super::store::ColdReader;
use super::PatternIndex;
use rayon::prelude::*;

/// The main-line node the two columns look at (about move 60: most of a free pattern's
/// candidates have their stones placed later, when its area has long been filled).
pub(crate) const EARLY: u32 = 60;

/// The `early` and `settled` columns of the games `ids` (ascending, all of board side `n`),
/// block after block: `2 * n * n` columns (`early` by point, then `settled`) of `WORDS`
/// words, in the layout of [`super::columns::Columns`].
pub(crate) fn levels(index: &PatternIndex, n: usize, ids: &[u32]) -> Vec<u64> {
    let points = n * n;
    let block_words = 2 * points * WORDS;
    let mut words = vec![0u64; ids.len().div_ceil(BLOCK) * block_words];
    words
        .par_chunks_mut(block_words)
        .zip(ids.par_chunks(BLOCK))
        .for_each(|(cols, ids)| {
            let mut reader = ColdReader::new(index, false);
            for (j, &gi) in ids.iter().enumerate() {
                let (word, bit) = (j / 64, 1u64 << (j % 64));
                let shift = index.games.get(gi as usize).map_or(0, |g| g.shift);
                let view = reader.view(gi as usize);
                let tables = view
                    .as_ref()
                    .ok()
                    .and_then(|v| v.times)
                    .filter(|(fin, t)| fin.len() >= 8 * n && t.len() >= 2 * points);
                let Some((fin, times)) = tables else {
                    for p in 0..points {
                        cols[p * WORDS + word] |= bit;
                    }
                    continue;
                };
                let (first, last) = times.split_at(points);
                for y in 0..n {
                    let stones = row_word(fin, y) | row_word(fin, n + y);
                    for x in 0..n {
                        let p = y * n + x;
                        if first[p] != 255 && u32::from(first[p]) << shift <= EARLY {
                            cols[p * WORDS + word] |= bit;
                        }
                        if (stones >> x) & 1 != 0 && u32::from(last[p]) << shift <= EARLY {
                            cols[(points + p) * WORDS + word] |= bit;
                        }
                    }
                }
            }
        });
    words
}
