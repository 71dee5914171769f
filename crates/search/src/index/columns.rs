//! The games' bitmaps turned inside out: per board side, colour and point, one bit per game
//! (that colour held that point at some node). A variant at a place can only stand in the
//! games whose columns hold all its stones, so a search ANDs a few columns, 64 games a word,
//! and walks only the games left: the per-game bitmap test of `walk`, asked of every game at
//! once without reading any of them. Derived from the games at the first search that needs
//! it (nothing on disk), so the answers cannot change: the games it leaves out are exactly
//! those `walk`'s own candidate test refuses, and, with the levels' columns
//! ([`super::levels`]), games where the place can stand at no node (which the prune would
//! find one by one).

use super::levels::{levels_read, FEW_LEVELS_FROM};
use super::plan::Plan;
use super::Games;
use rayon::prelude::*;

/// Games per block: each block's columns are contiguous (64 words a column), so a query reads
/// a block's few columns from cache and blocks are searched in parallel.
pub(crate) const BLOCK: usize = 4096;
pub(crate) const WORDS: usize = BLOCK / 64;

/// Places from which a plan's search makes the main line's `early` and `settled` columns
/// ([`super::levels`]) at once if they are not made yet: making them reads every game's
/// tables (about as long as the columns save a 5x5 anywhere at 100,000 games, much longer
/// than they save a side), so a free pattern pays for them in its first search, and a plan
/// of fewer places only in the second search of the main line that could read them: a
/// one-shot search of a side or a corner never makes them, a batch, a server or a session of
/// the Python package soon does. Once made, every plan of the main line reads them, a
/// corner's eight places too (left to the prune, the 100 cut corners at 100,000 games took
/// 16% longer summed, 577-583 ms against 496-500, and their median at a million games was
/// 38 ms, not 30).
const MAKE_LEVEL_PLACES: usize = 256;

/// More (variant, place) pairs than this and ANDing columns costs more than it saves (a free
/// pattern of few stones, which most games hold anyway): every game is a candidate then.
/// (A place is named by a `u16`.)
const MAX_PLACES: usize = 8192;

/// The most (place, game) pairs listed for a plan with a variant of no stone (32 MB of
/// places; [`Columns::candidates`]).
const STONELESS_LISTED: usize = 1 << 24;

// A candidate of a block is packed in a u32 (the game's bit above the place's number).
const _: () = assert!(BLOCK <= 1 << 16 && MAX_PLACES <= 1 << 16);

/// The numbers of the bits set in `words` (bit `i % 64` of word `i / 64`), ascending.
pub(crate) fn ones(words: &[u64]) -> Ones<'_> {
    Ones {
        words,
        at: 0,
        bits: words.first().copied().unwrap_or(0),
    }
}

/// The iterator of [`ones`]: a word index and what is left of that word (the walk takes it
/// for every node's hits, so it is the plain loop, not an adapter chain).
pub(crate) struct Ones<'a> {
    words: &'a [u64],
    at: usize,
    bits: u64,
}

impl Iterator for Ones<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.bits == 0 {
            self.at += 1;
            self.bits = *self.words.get(self.at)?;
        }
        let bit = self.bits.trailing_zeros() as usize;
        self.bits &= self.bits - 1;
        Some(self.at * 64 + bit)
    }
}

/// Bits a word of [`push_ones`] writes whatever it holds, when `dense`: most words of a free
/// pattern's columns hold none or one or two games.
const FLAT: usize = 4;

/// Appends `j << 16 | k` to `pairs[*len..]` for each bit `j` set in `acc`, ascending, growing
/// `pairs` as needed (what lies past `*len` is scratch). When `dense` (a free pattern's many
/// places), without a branch for a word of at most [`FLAT`] bits: it writes `FLAT` entries and
/// moves on by the word's bits, so that its entries past them are written over by the next
/// word's. The loop that took one bit at a time ended on a branch that went either way at
/// random (a free pattern's 5.3 million candidates at 100,000 games: about 40% of the
/// columns' time); for a few places' sparse words it stays the cheaper one.
#[inline(always)]
fn push_ones(acc: &[u64; WORDS], k: u32, pairs: &mut Vec<u32>, len: &mut usize, dense: bool) {
    // Room for every bit of the block, and the scratch of the last word.
    let needed = *len + BLOCK + FLAT;
    if pairs.len() < needed {
        pairs.resize(needed.max(2 * pairs.len()), 0);
    }
    let mut at = *len;
    for (w, &word) in acc.iter().enumerate() {
        let base = (w as u32 * 64) << 16 | k;
        let mut m = word;
        if dense {
            let out: &mut [u32; FLAT] = (&mut pairs[at..at + FLAT])
                .try_into()
                .expect("room for FLAT entries");
            let mut bits = 0;
            for o in out.iter_mut() {
                // (Past the word's bits: 64, written over by the next word's.)
                *o = base + (m.trailing_zeros() << 16);
                bits += usize::from(m != 0);
                m &= m.wrapping_sub(1);
            }
            at += bits;
        }
        while m != 0 {
            pairs[at] = base + (m.trailing_zeros() << 16);
            m &= m - 1;
            at += 1;
        }
    }
    *len = at;
}

/// Games and, for each, the places where one of a plan's variants may stand: game `i` is
/// `games[i]`, its places `places[ends[i - 1]..ends[i]]` (from 0 for the first); or, when
/// its bit in `dense` is set, every game of a block left to the dense prune (no places).
#[derive(Debug, Default)]
pub(crate) struct Candidates {
    pub(crate) games: Vec<u32>,
    pub(crate) ends: Vec<u32>,
    pub(crate) places: Vec<u16>,
    pub(crate) dense: Vec<u64>,
}

impl Candidates {
    /// Whether game `i` (of `games`) is left to the dense prune.
    pub(crate) fn is_dense(&self, i: usize) -> bool {
        self.dense
            .get(i / 64)
            .is_some_and(|w| w >> (i % 64) & 1 != 0)
    }
}

/// Whether a block's candidates (`places` for `games` games) make the rest of the blocks
/// cheaper for the dense prune ([`Columns::candidates_or_dense`]).
pub(crate) type DenseIf<'a> = &'a (dyn Fn(usize, usize) -> bool + Sync);

/// The columns of the games of one board side.
#[derive(Debug)]
struct SideColumns {
    side: u8,
    /// The index's numbers of these games, ascending.
    games: Vec<u32>,
    /// Block after block: `2 * points` columns (Black's points, then White's) of `WORDS` words.
    words: Vec<u64>,
    /// Per block, the games whose bitmaps are there (a variant without stones may stand in
    /// any of them).
    valid: Vec<u64>,
    /// The main line's `early` and `settled` columns ([`super::levels`]), made when a search
    /// first needs them, and the searches so far that could have read them.
    levels: std::sync::OnceLock<Vec<u64>>,
    asked: std::sync::atomic::AtomicU32,
}

/// The columns of an index's games, over the main line or over every variation.
#[derive(Debug, Default)]
pub(crate) struct Columns {
    sides: Vec<SideColumns>,
}

impl Columns {
    /// The columns of `games` (`variations`: the bitmaps over every variation).
    pub(crate) fn new(games: &Games, variations: bool) -> Columns {
        let mut sides: Vec<u8> = games.iter().map(|g| g.side).filter(|&s| s > 0).collect();
        sides.sort_unstable();
        sides.dedup();
        let sides = sides
            .into_iter()
            .map(|side| {
                let ids: Vec<u32> = (0..games.len() as u32)
                    .filter(|&i| games.at(i as usize).side == side)
                    .collect();
                let n = usize::from(side);
                let points = n * n;
                let block_words = 2 * points * WORDS;
                let blocks = ids.len().div_ceil(BLOCK);
                let mut words = vec![0u64; blocks * block_words];
                let mut valid = vec![0u64; blocks * WORDS];
                words
                    .par_chunks_mut(block_words)
                    .zip(valid.par_chunks_mut(WORDS))
                    .zip(ids.par_chunks(BLOCK))
                    .for_each(|((cols, valid), ids)| {
                        for (j, &gi) in ids.iter().enumerate() {
                            let (black, white) = games.at(gi as usize).bitmaps(variations);
                            if black.len() != n || white.len() != n {
                                continue;
                            }
                            let (word, bit) = (j / 64, 1u64 << (j % 64));
                            valid[word] |= bit;
                            for (colour, rows) in [black, white].into_iter().enumerate() {
                                for (r, &row) in rows.iter().enumerate() {
                                    let mut m = row;
                                    while m != 0 {
                                        let c = m.trailing_zeros() as usize;
                                        m &= m - 1;
                                        if c < n {
                                            let col = colour * points + r * n + c;
                                            cols[col * WORDS + word] |= bit;
                                        }
                                    }
                                }
                            }
                        }
                    });
                SideColumns {
                    side,
                    games: ids,
                    words,
                    valid,
                    levels: std::sync::OnceLock::new(),
                    asked: std::sync::atomic::AtomicU32::new(0),
                }
            })
            .collect();
        Columns { sides }
    }

    /// The games of board side `side` where some variant of `plan` may stand (all its stones
    /// held at one of its places), each with those places (numbers in [`Plan::places`]'
    /// order, ascending), in the index's order. `None` when the plan has too many places for
    /// columns to pay, or a variant of no stone whose list would be long: every game of that
    /// side is then to be walked, its places found by `walk`. With `main_line` (the columns
    /// of the main line, searched for a query of the main line only), a plan of many places
    /// also reads the `early` and `settled` columns of [`super::levels`], made from
    /// `main_line`'s tables ([`MAKE_LEVEL_PLACES`]).
    pub(crate) fn candidates(
        &self,
        plan: &Plan,
        side: u8,
        main_line: Option<&super::PatternIndex>,
        passing: Option<&[u64]>,
    ) -> Option<Candidates> {
        self.candidates_or_dense(plan, side, main_line, passing, None)
    }

    /// [`Columns::candidates`], but once a block's candidates (the first block done) make
    /// `dense_if` true, the blocks not yet begun are left to the dense prune whole (their
    /// games marked in [`Candidates::dense`]): the columns of the blocks begun by then are
    /// not wasted, and no block waits for the decision.
    pub(crate) fn candidates_or_dense(
        &self,
        plan: &Plan,
        side: u8,
        main_line: Option<&super::PatternIndex>,
        passing: Option<&[u64]>,
        dense_if: Option<DenseIf<'_>>,
    ) -> Option<Candidates> {
        use std::sync::atomic::{AtomicU8, Ordering};
        const UNDECIDED: u8 = 0;
        const DENSE: u8 = 1;
        let decided = AtomicU8::new(UNDECIDED);
        let Some(cols) = self.sides.iter().find(|c| c.side == side) else {
            return Some(Candidates::default());
        };
        if plan.places().nth(MAX_PLACES).is_some() {
            return None;
        }
        // A variant of no stone (wildcards and empty cells) may stand at nearly every place
        // of every game: its list would be two bytes a place and game for the whole
        // collection (460 MB at 100,000 games for a 3x3 with a wildcard anywhere), where the
        // walk finds each game's places as it goes. So a free pattern's, or one whose list
        // could pass STONELESS_LISTED (a side's at a million games), is not listed.
        let places = plan.placed.len();
        let stoneless = plan.variants.iter().any(|v| v.stone_at.is_empty());
        let listed = places.saturating_mul(cols.games.len());
        if stoneless && (places >= FEW_LEVELS_FROM || listed > STONELESS_LISTED) {
            return None;
        }
        let n = usize::from(side);
        let points = n * n;
        let block_words = 2 * points * WORDS;
        let levels = match main_line {
            Some(index) => {
                let asked = cols
                    .asked
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if places >= MAKE_LEVEL_PLACES || asked >= 1 {
                    let made = || {
                        let unit = super::levels::block_words(n) * 8;
                        let want = cols.games.len().div_ceil(BLOCK) * unit;
                        let blocks = index.budget.take_levels(want, unit) / unit;
                        let made = super::levels::levels(index, n, &cols.games, blocks);
                        index.fit_cache();
                        made
                    };
                    Some(cols.levels.get_or_init(made).as_slice())
                } else {
                    cols.levels.get().map(Vec::as_slice)
                }
            }
            _ => None,
        };
        let make_runs = levels.is_some() && runs_pay(plan, n);
        let stones = plan.variants.iter().map(|v| v.stone_at.len()).max();
        let used = levels_read(places, stones.unwrap_or(0));
        let by_words = places < FEW_LEVELS_FROM;
        let dense = !by_words;
        let found: Vec<Candidates> = cols
            .words
            .par_chunks(block_words)
            .zip(cols.valid.par_chunks(WORDS))
            .enumerate()
            .map(|(b, (block, valid))| {
                let games = &cols.games[(b * BLOCK).min(cols.games.len())..];
                let games = &games[..games.len().min(BLOCK)];
                if decided.load(Ordering::Relaxed) == DENSE {
                    return Candidates {
                        games: games.to_vec(),
                        ends: vec![0; games.len()],
                        places: Vec::new(),
                        dense: vec![u64::MAX; games.len().div_ceil(64)],
                    };
                }
                // Columns as arrays of a size known when compiling: their loops are unrolled
                // and vectorized.
                let column = |colour: usize, x: usize, y: usize| -> &[u64; WORDS] {
                    let at = (colour * points + y * n + x) * WORDS;
                    block[at..at + WORDS]
                        .try_into()
                        .expect("a column of WORDS words")
                };
                // The block's levels, if the budget let them be made for it.
                let lw = super::levels::block_words(n);
                let levels = levels.and_then(|l| l.get(b * lw..(b + 1) * lw));
                let level = |column: usize, x: usize, y: usize| -> Option<&[u64; WORDS]> {
                    let at = (column * points + y * n + x) * WORDS;
                    levels
                        .and_then(|l| l.get(at..at + WORDS))
                        .and_then(|c| c.try_into().ok())
                };
                let runs = levels
                    .filter(|_| make_runs)
                    .map(|_| settled_runs(plan, n, used, &level));
                let run = |i: usize, len: u8, x: usize, y: usize| -> Option<&[u64; WORDS]> {
                    let runs = runs.as_ref()?;
                    let j = runs.lengths.iter().position(|&l| l == len)?;
                    let at = ((i * runs.lengths.len() + j) * points + y * n + x) * WORDS;
                    runs.words.get(at..at + WORDS)?.try_into().ok()
                };
                // Each game of the block that may hold a place, with the place (`pairs`:
                // the game's bit in the block above the place's number, `len` of them), places
                // in order, as each place's games are found (`acc`, still in cache: a counting
                // sort that read every place's words again twice afterwards took 15% of a free
                // pattern's time); then the places of each game counted (`count`) from them.
                let mut pairs: Vec<u32> = Vec::new();
                let mut len = 0;
                let mut count = vec![0u32; BLOCK + 1];
                let mut acc = [0u64; WORDS];
                // The block's games that pass the query's filters: the others are left out
                // before their levels are read.
                let pass = passing.map(|p| block_bits(p, games));
                for (k, (blacks, whites, col, row)) in plan.places().enumerate() {
                    let mut stones = blacks
                        .iter()
                        .map(|&(x, y)| (0, x, y))
                        .chain(whites.iter().map(|&(x, y)| (1, x, y)));
                    let at = |x: u8, y: u8| (col + usize::from(x), row + usize::from(y));
                    // The first two stones' columns ANDed as they are copied in.
                    let mut or = 0;
                    match (stones.next(), stones.next()) {
                        // No stone to hold: it may stand in any game.
                        (None, _) => {
                            acc.copy_from_slice(valid);
                            or = 1;
                        }
                        (Some((colour, x, y)), None) => {
                            let (x, y) = at(x, y);
                            acc = *column(colour, x, y);
                            or = acc.iter().fold(0, |o, &w| o | w);
                        }
                        (Some((c0, x0, y0)), Some((c1, x1, y1))) => {
                            let ((x0, y0), (x1, y1)) = (at(x0, y0), at(x1, y1));
                            let both = column(c0, x0, y0).iter().zip(column(c1, x1, y1));
                            for (w, (&a, &b)) in acc.iter_mut().zip(both) {
                                *w = a & b;
                                or |= a & b;
                            }
                        }
                    }
                    let mut any = or != 0;
                    for (colour, x, y) in stones {
                        if !any {
                            break;
                        }
                        let (x, y) = at(x, y);
                        let mut or = 0;
                        for (a, &c) in acc.iter_mut().zip(column(colour, x, y)) {
                            *a &= c;
                            or |= *a;
                        }
                        any = or != 0;
                    }
                    if let (Some(pass), true) = (&pass, any) {
                        let mut or = 0;
                        for (a, &p) in acc.iter_mut().zip(pass) {
                            *a &= p;
                            or |= *a;
                        }
                        any = or != 0;
                    }
                    if any && levels.is_some() {
                        let read = (&level, &run, runs.is_some());
                        let how = (used, by_words);
                        any = rule_out_late(&mut acc, plan, k, (col, row), how, read);
                    }
                    if any {
                        push_ones(&acc, k as u32, &mut pairs, &mut len, dense);
                    }
                }
                pairs.truncate(len);
                for &p in &pairs {
                    count[(p >> 16) as usize + 1] += 1;
                }
                for j in 0..BLOCK {
                    count[j + 1] += count[j];
                }
                let mut out = Candidates {
                    games: Vec::new(),
                    ends: Vec::new(),
                    places: vec![0; count[BLOCK] as usize],
                    dense: Vec::new(),
                };
                let mut next = count.clone();
                for &p in &pairs {
                    let j = (p >> 16) as usize;
                    out.places[next[j] as usize] = p as u16;
                    next[j] += 1;
                }
                for j in 0..BLOCK {
                    if count[j + 1] > count[j] {
                        out.games.push(cols.games[b * BLOCK + j]);
                        out.ends.push(count[j + 1]);
                    }
                }
                if let Some(dense_if) = dense_if {
                    if dense_if(out.places.len(), games.len()) {
                        decided.store(DENSE, Ordering::Relaxed);
                    }
                }
                out
            })
            .collect();
        // Sized once: at a free pattern's millions of places, growing it copied them again.
        let mut all = Candidates {
            games: Vec::with_capacity(found.iter().map(|p| p.games.len()).sum()),
            ends: Vec::with_capacity(found.iter().map(|p| p.ends.len()).sum()),
            places: Vec::with_capacity(found.iter().map(|p| p.places.len()).sum()),
            dense: Vec::new(),
        };
        for part in found {
            let (base, at) = (all.places.len() as u32, all.games.len());
            if !part.dense.is_empty() {
                all.dense.resize((at + part.games.len()).div_ceil(64), 0);
                for i in at..at + part.games.len() {
                    all.dense[i / 64] |= 1 << (i % 64);
                }
            }
            all.games.extend(part.games);
            all.ends.extend(part.ends.iter().map(|e| base + e));
            all.places.extend(part.places);
        }
        Some(all)
    }
}

/// The bits of `passing` (a bit a game, in the index's numbers) of a block's games `games`
/// (the index's numbers of them), in the block's order.
fn block_bits(passing: &[u64], games: &[u32]) -> [u64; WORDS] {
    let mut words = [0u64; WORDS];
    for (j, &g) in games.iter().enumerate() {
        let bit = passing
            .get(g as usize / 64)
            .map_or(0, |w| w >> (g % 64) & 1);
        words[j / 64] |= bit << (j % 64);
    }
    words
}

/// A block's `settled` columns ([`super::levels`]) ORed along the runs of empty cells of a
/// plan's variants ([`super::plan::VariantPlan::empty_runs`]): one column a run, where a
/// variant's empty cells took one each (22 for the 5x5 of `bench/search.sh`, 7 runs).
struct SettledRuns {
    /// The runs' lengths, ascending.
    lengths: Vec<u8>,
    /// Per level read ([`levels_read`]), per length (in `lengths`' order), per point
    /// `(x, y)`: the games where a point of `(x..x + length, y)` is settled (points whose run
    /// would leave the board: the part on it).
    words: Vec<u64>,
}

/// Whether making a block's [`SettledRuns`] costs less than the ORs it saves (a free
/// pattern's many places; not a side's few wide ones): in columns read, about one per point
/// and length up to the longest run, against the empty cells less the runs of every place.
fn runs_pay(plan: &Plan, n: usize) -> bool {
    let saved: usize = plan
        .placed
        .iter()
        .map(|&(vi, _)| {
            let v = &plan.variants[vi as usize];
            v.empties.len() - v.empty_runs.len()
        })
        .sum();
    let longest = plan
        .variants
        .iter()
        .flat_map(|v| v.empty_runs.iter().map(|r| usize::from(r.2)))
        .max()
        .unwrap_or(0);
    saved > 2 * longest * n * n
}

/// The [`SettledRuns`] of `plan` over one block, from its `level` columns (as
/// [`rule_out_late`] reads them).
fn settled_runs<'a>(
    plan: &Plan,
    n: usize,
    used: &[usize],
    level: &impl Fn(usize, usize, usize) -> Option<&'a [u64; WORDS]>,
) -> SettledRuns {
    let mut lengths: Vec<u8> = plan
        .variants
        .iter()
        .flat_map(|v| v.empty_runs.iter().map(|r| r.2))
        .collect();
    lengths.sort_unstable();
    lengths.dedup();
    let points = n * n;
    // Filled in order below, so not zeroed first: at a free pattern's five lengths a block's
    // tables are about 2 MB, and zeroing them was 4% of the search's instructions.
    let mut words = Vec::with_capacity(used.len() * lengths.len() * points * WORDS);
    let mut cur = vec![0u64; points * WORDS];
    for &i in used {
        let settled = |x: usize, y: usize| level(2 * i + 1, x, y);
        for y in 0..n {
            for x in 0..n {
                if let Some(c) = settled(x, y) {
                    cur[(y * n + x) * WORDS..][..WORDS].copy_from_slice(c);
                }
            }
        }
        let mut len = 1;
        for &target in &lengths {
            while len < usize::from(target) {
                for y in 0..n {
                    for x in 0..n.saturating_sub(len) {
                        if let Some(c) = settled(x + len, y) {
                            let at = (y * n + x) * WORDS;
                            for (w, &s) in cur[at..at + WORDS].iter_mut().zip(c) {
                                *w |= s;
                            }
                        }
                    }
                }
                len += 1;
            }
            // At `(i * lengths.len() + j) * points * WORDS`, as `run` reads it.
            words.extend_from_slice(&cur);
        }
    }
    SettledRuns { lengths, words }
}

/// Live words up to which [`rule_out_late`] reads its columns word by word, not whole.
const SPARSE_WORDS: u32 = 16;

/// Leaves out of `acc` (the games where place `k` of `plan`, at `(col, row)`, holds all its
/// stones at some node) the games where it cannot stand at any node by the levels'
/// columns ([`super::levels`]), at the levels `used` (indices into
/// [`super::levels::LEVELS`], ascending).
/// `level(column, x, y)`: the column of point (x, y), `2 * i` `early` and `2 * i + 1`
/// `settled` at the `i`th level; `run(j, length, x, y)`: the [`SettledRuns`] of the `j`th
/// level used, when `runs_made`. `by_words`: the columns may be read word by word (only the
/// words with a game not yet ruled in, when they are few). Returns whether a game is left.
fn rule_out_late<'a>(
    acc: &mut [u64; WORDS],
    plan: &Plan,
    k: usize,
    (col, row): (usize, usize),
    (used, by_words): (&[usize], bool),
    (level, run, runs_made): (
        &impl Fn(usize, usize, usize) -> Option<&'a [u64; WORDS]>,
        &impl Fn(usize, u8, usize, usize) -> Option<&'a [u64; WORDS]>,
        bool,
    ),
) -> bool {
    let Some(&(vi, _)) = plan.placed.get(k) else {
        return true;
    };
    let v = &plan.variants[vi as usize];
    if v.empties.is_empty() {
        return true;
    }
    let at = |&(x, y): &(u8, u8)| (col + usize::from(x), row + usize::from(y));
    // The games where the variant may stand at some node up to the level's, and among those
    // past the level before (`settled`: an empty cell was filled for good by then).
    let mut keep = [0u64; WORDS];
    let mut settled = [0u64; WORDS];
    // The words with a game not kept yet: when they are few, only they are read (a place
    // whose stones few games held; read whole, the cut sides under 10 ms took 1.4 times as
    // long, median of the per-query ratios).
    // (Not for a plan of many places, a free pattern: finding the words costs it more than
    // it saves, 7% more instructions for the 5x5 anywhere.)
    let live_words = |acc: &[u64; WORDS], keep: &[u64; WORDS]| {
        acc.iter()
            .zip(keep)
            .enumerate()
            .fold(0u64, |m, (w, (&a, &k))| m | u64::from(a & !k != 0) << w)
    };
    let mut live = if by_words {
        live_words(acc, &keep)
    } else {
        u64::MAX
    };
    for (j, &i) in used.iter().enumerate() {
        let sparse = live.count_ones() <= SPARSE_WORDS;
        let mut early = [u64::MAX; WORDS];
        for (x, y) in v.blacks.iter().chain(&v.whites).map(at) {
            let Some(column) = level(2 * i, x, y) else {
                return true;
            };
            if sparse {
                for w in ones(&[live]) {
                    early[w] &= column[w];
                }
            } else {
                for (e, &c) in early.iter_mut().zip(column) {
                    *e &= c;
                }
            }
        }
        let mut open = 0;
        if sparse {
            for w in ones(&[live]) {
                keep[w] |= acc[w] & early[w] & !settled[w];
                open |= u64::from(acc[w] & !keep[w] != 0) << w;
            }
        } else {
            for ((k, &e), (&a, &s)) in keep.iter_mut().zip(&early).zip(acc.iter().zip(&settled)) {
                *k |= a & e & !s;
                open |= a & !*k;
            }
            if open != 0 && by_words {
                open = live_words(acc, &keep);
            }
        }
        if open == 0 {
            return true;
        }
        live = if by_words { open } else { u64::MAX };
        let sparse = live.count_ones() <= SPARSE_WORDS;
        if sparse {
            // (Words no longer live keep what they had: their games are all kept.)
            for w in ones(&[live]) {
                settled[w] = 0;
            }
        } else {
            settled = [0u64; WORDS];
        }
        let mut or = |column: Option<&[u64; WORDS]>| {
            let column = column?;
            if sparse {
                for w in ones(&[live]) {
                    settled[w] |= column[w];
                }
            } else {
                for (s, &c) in settled.iter_mut().zip(column) {
                    *s |= c;
                }
            }
            Some(())
        };
        let read = if runs_made {
            v.empty_runs.iter().try_for_each(|&(x, y, len)| {
                let (x, y) = at(&(x, y));
                or(run(j, len, x, y))
            })
        } else {
            v.empties
                .iter()
                .map(at)
                .try_for_each(|(x, y)| or(level(2 * i + 1, x, y)))
        };
        if read.is_none() {
            return true;
        }
    }
    // Past the last level: the games where no empty cell was settled by then.
    let mut or = 0;
    for ((a, &k), &s) in acc.iter_mut().zip(&keep).zip(&settled) {
        *a &= k | !s;
        or |= *a;
    }
    or != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `push_ones` against the plain loop over the bits, dense and not: words of every
    /// density (none, one, the four written at once, more, all 64), appended after what a
    /// place before left, and the scratch past the end never read.
    #[test]
    fn push_ones_lists_every_bit_in_order() {
        let mut next = super::super::xorshift();
        let mut pairs = Vec::new();
        let mut len = 0;
        let mut want = Vec::new();
        for k in 0..200u32 {
            let mut acc = [0u64; WORDS];
            for w in acc.iter_mut() {
                *w = match next() % 6 {
                    0 => 0,
                    1 => 1 << (next() % 64),
                    2 => next() & next() & next(),
                    3 => next() & next() & next() & next() & next(),
                    4 => next(),
                    _ => u64::MAX,
                };
            }
            if k % 7 == 0 {
                acc = [0; WORDS];
            }
            push_ones(&acc, k, &mut pairs, &mut len, k % 2 == 0);
            for (w, &word) in acc.iter().enumerate() {
                for bit in 0..64 {
                    if word >> bit & 1 != 0 {
                        want.push(((w * 64 + bit) as u32) << 16 | k);
                    }
                }
            }
            assert_eq!(&pairs[..len], &want[..], "after place {k}");
        }
    }
}
