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

/// The main-line nodes the columns look at, ascending. A place is ruled out at a level when a
/// cell it wants empty was settled by the level before its stones were all early, so the
/// levels bound how late a contradiction they see can come: early levels serve a side's lone
/// stones, most of whose candidates are stones played after the area had filled up. On
/// 100,000 games, instructions a search (callgrind, one thread) for the densest cut side and
/// the 9x5 side of `bench/search.sh`: 40 and 90: 1,213 M and 404 M; 20, 40 and 90: 1,168 M
/// and 351 M; 12, 25, 45 and 90: 1,127 M and 322 M; 8, 16, 30, 50 and 90: 1,096 M and 298 M;
/// 6, 12, 20, 32, 55 and 90: 1,081 M and 280 M (40, 90 and 150: 1,225 M and 416 M). A free
/// pattern reads only two of them ([`levels_read`]). Each level costs two bits a game and
/// point (9 MB at 100,000 games).
pub(crate) const LEVELS: [u32; 6] = [6, 12, 20, 40, 60, 90];

/// Plans of this many places or more (free patterns) read only the levels at 40 and 90: the
/// 5x5 anywhere of `bench/search.sh`, about 1,800 places, took 11% more instructions with five
/// levels than with those two, each level one more pass over every place.
pub(crate) const FEW_LEVELS_FROM: usize = 512;

/// Stones of a variant from which a plan reads only the levels at 40 and 90: the games left
/// by three stones' columns are few enough that the prune sorts them out faster than the
/// columns of every cell at four more levels are read (on the cut sides at 100,000 games, all
/// six levels read by every plan of fewer than 512 places made the sides under 10 ms 1.8
/// times as slow, median of the per-query ratios; the lone stones gain from them).
const FEW_LEVELS_STONES: usize = 3;

/// The levels at 40 and 90 (indices into [`LEVELS`]), which every plan reads.
const FEW_LEVELS: [usize; 2] = [3, 5];
const _: () = assert!(LEVELS[FEW_LEVELS[0]] == 40 && LEVELS[FEW_LEVELS[1]] == 90);

/// Every level (indices into [`LEVELS`]).
const ALL_LEVELS: [usize; LEVELS.len()] = [0, 1, 2, 3, 4, 5];

/// The levels (indices into [`LEVELS`], ascending) that a plan of `places` places whose
/// variants have at most `stones` stones reads.
pub(crate) fn levels_read(places: usize, stones: usize) -> &'static [usize] {
    if places >= FEW_LEVELS_FROM || stones >= FEW_LEVELS_STONES {
        &FEW_LEVELS
    } else {
        &ALL_LEVELS
    }
}

/// The words of one block's levels at board side `n`.
pub(crate) fn block_words(n: usize) -> usize {
    2 * LEVELS.len() * n * n * WORDS
}

/// The `early` and `settled` columns of the games `ids` (ascending, all of board side `n`),
/// block after block: for each node of [`LEVELS`], `n * n` columns `early` by point, then
/// `n * n` columns `settled`, of `WORDS` words each, in the layout of
/// [`super::columns::Columns`]. Only the first `blocks` blocks (the memory budget's share:
/// [`super::store::Budget`]); the others have none.
pub(crate) fn levels(index: &PatternIndex, n: usize, ids: &[u32], blocks: usize) -> Vec<u64> {
    let points = n * n;
    let block_words = block_words(n);
    let mut words = vec![0u64; ids.len().div_ceil(BLOCK).min(blocks) * block_words];
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
                // The levels from the first at or after time `t` on.
                let from = |t: u32| LEVELS.partition_point(|&node| node < t);
                for y in 0..n {
                    let stones = row_word(fin, y) | row_word(fin, n + y);
                    for x in 0..n {
                        let p = y * n + x;
                        let first = times.first(p);
                        if first != 255 {
                            for level in from(first << shift)..LEVELS.len() {
                                cols[(2 * level * points + p) * WORDS + word] |= bit;
                            }
                        }
                        if (stones >> x) & 1 != 0 {
                            for level in from(times.last(p) << shift)..LEVELS.len() {
                                cols[((2 * level + 1) * points + p) * WORDS + word] |= bit;
                            }
                        }
                    }
                }
            }
        });
    words
}
