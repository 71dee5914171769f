//! More columns per point, over the main line, that let the columns rule out most of a free
//! pattern's candidates before any game is read: for each game (one bit, 64 games a word, in
//! the blocks of [`super::columns`]) and each node `T` of [`LEVELS`], whether a stone stood
//! on the point by node `T` (`early`), and whether the point's final stone was there for
//! good by then (`settled`: the final board holds a stone there and its last change comes
//! no later).
//!
//! A variant stands at a main-line node `t` only if each of its stones was placed by `t` and
//! each cell it wants empty is empty at `t`. With `T1 < T2` the levels: if `t <= T1`, every
//! stone's point is `early` at `T1`; if `T1 < t <= T2`, every stone is `early` at `T2` and no
//! empty cell's point is `settled` at `T1` (it would hold a stone from before `t` on); if `t >
//! T2`, no empty cell is `settled` at `T2`. The games where none of the three holds for a
//! place cannot hold it, and need not be walked, nor even pruned: at one word operation per
//! 64 games and cell, where the prune pays about 140 instructions a candidate. For a 5x5
//! anywhere on the corpus, one level (node 60) ruled out 56% of the (game, place) candidates
//! that the stones' columns leave. (With one level, the middle case is the last.)
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

/// The main-line nodes the columns look at, ascending: about moves 40 and 90, when most of a
/// free pattern's candidates still lack a stone, and an area of a 5x5 is already filled for
/// good in many games. Instructions a search (callgrind, one thread, the corpus) for the 9x5
/// side and the 5x5 anywhere of `bench/search.sh`: node 60 alone 48.8 M and 169.6 M; 40 and 80
/// 45.4 M and 164.0 M; 30 and 60 42.9 M and 166.7 M; 40 and 90 45.5 M and 162.5 M; 30, 60 and
/// 120 43.9 M and 167.2 M. Each level costs two bits a game and point (9 MB at 100,000 games).
pub(crate) const LEVELS: [u32; 2] = [40, 90];

/// The `early` and `settled` columns of the games `ids` (ascending, all of board side `n`),
/// block after block: for each node of [`LEVELS`], `n * n` columns `early` by point, then
/// `n * n` columns `settled`, of `WORDS` words each, in the layout of
/// [`super::columns::Columns`].
pub(crate) fn levels(index: &PatternIndex, n: usize, ids: &[u32]) -> Vec<u64> {
    let points = n * n;
    let block_words = 2 * LEVELS.len() * points * WORDS;
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
                    .filter(|t| t.fin.len() >= 8 * n);
                let Some(times) = tables else {
                    for (level, _) in LEVELS.iter().enumerate() {
                        for p in 0..points {
                            cols[(2 * level * points + p) * WORDS + word] |= bit;
                        }
                    }
                    continue;
                };
                let fin = times.fin;
                for y in 0..n {
                    let stones = row_word(fin, y) | row_word(fin, n + y);
                    for x in 0..n {
                        let p = y * n + x;
                        let first = times.first(p);
                        let born = (first != 255).then(|| first << shift);
                        let fixed = ((stones >> x) & 1 != 0).then(|| times.last(p) << shift);
                        for (level, &node) in LEVELS.iter().enumerate() {
                            let at = 2 * level * points + p;
                            if born.is_some_and(|b| b <= node) {
                                cols[at * WORDS + word] |= bit;
                            }
                            if fixed.is_some_and(|l| l <= node) {
                                cols[(at + points) * WORDS + word] |= bit;
                            }
                        }
                    }
                }
            }
        });
    words
}
