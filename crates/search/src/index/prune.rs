//! The prune of a game's candidates by its time tables, before any node is read: a candidate
//! can only stand between the node its last stone arrives (`first`) and the first node after
//! which the final board contradicts one of its cells for good (`last` of such a cell), so a
//! candidate whose last stone comes no earlier than that is left out, and the walk stops after
//! the latest node a survivor may stand at.
//!
//! Most candidates are rejected on their first row (99% of a 5x5 anywhere's 707,000), so what
//! a test costs beyond its few loads is most of the prune: the candidates are filtered in place
//! by a plain loop (`Vec::retain` called a closure per candidate). The last changes are read
//! as stored, a byte per point; the first stones of a game with many candidates are unpacked
//! into a byte per point first ([`super::times::Unpacked`]: read through the tables' directory,
//! a free pattern's three stones a candidate cost it 8%), those of a game with few are read
//! through it. Tried and dropped (format 7, a byte per point for both): copying a game's
//! tables into arrays that every index fits first (no bounds checks: 6% fewer instructions for
//! the 5x5 anywhere, no faster, and slower for a corner's two or three candidates a game); one
//! table per kind of cell (last change where the final board contradicts that kind, else 255),
//! four cells a branch (fewer instructions still, but slower: its fill per game). What
//! [`Minima`] fills instead, for games of many candidates only, is the last changes copied
//! with a few points mended, then byte minima over the whole board a level at a time, so
//! that a candidate reads its cells wanted empty two spans a run.
//!
//! A game that [`super::intervals::Clean`] counts from its tables is counted during the prune:
//! each survivor is handed over with what the prune read of it (its stones' arrival, its first
//! contradiction for good and, in units of nodes, the cell that contradicts), and only those
//! the tables cannot tell stay for the walk (and set its bounds). The cell is named only for
//! such games (`NAMED`, a constant: a test that named it everywhere cost the crowded corner 1%
//! more instructions).

use super::bytemin::{masked_min, Earliest};
use super::columns::ones;
use super::entry::{row_word, ColdView};
use super::plan::{Plan, VariantPlan};
use super::times::{FirstStones, TimeRead, TimeTables, Unpacked};
use super::Game;

/// What the prune found of a candidate that may stand, in the tables' units.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Survivor {
    /// The first unit after which the final board contradicts one of its cells for good
    /// (`u32::MAX`: none does).
    pub dead: u32,
    /// The unit by which its stones are all there, by their first stones (0: it has none).
    pub arrive: u32,
    /// The column and row of the cell whose last change is `dead`, when the test named it
    /// (asked for by `NAMED`; `None` when no cell contradicts). Not its point, whose column
    /// and row the settling would find by a division per survivor (tens of cycles each).
    pub at: Option<[u8; 2]>,
}

/// Puts in `cands` the candidates of `places` (numbers in [`Plan::placed`]) but those that
/// cannot stand at any node of `g`'s main line, and those that `settle` takes (it is given
/// each of the others with what the prune found, and says whether to keep it:
/// [`super::intervals::Clean`] counts a candidate from the tables there, while the tables are
/// at hand); returns the last node at which one of those kept may stand
/// (`u32::MAX`: no bound known) and the first (0: none known): before it, none has all its
/// stones. `NAMED` asks for the column and row of each survivor's contradicting cell.
#[allow(clippy::too_many_arguments)]
pub(crate) fn prune<const NAMED: bool>(
    cands: &mut Vec<(u32, (u32, u32))>,
    places: &[u16],
    plan: &Plan,
    g: Game<'_>,
    cold: ColdView<'_>,
    from: u32,
    scratch: &mut Scratch,
    settle: &mut impl Settle,
) -> (u32, u32) {
    let n = usize::from(g.side);
    // A node's move number is at most its index plus one (a root may hold a move), so a
    // candidate that cannot stand at node `from - 1` or later is before the window.
    let from = from.saturating_sub(1) >> g.shift;
    let Some(times) = cold.times else {
        plan.list(places, cands);
        return (u32::MAX, 0);
    };
    let Scratch { first, minima, .. } = scratch;
    let count = places.len();
    let runs = plan.run_levels > 0 && count >= MINIMA_FROM;
    if runs {
        minima.fill(&times, n, plan.run_levels);
    }
    let levels = runs.then_some(&*minima);
    let read = (cands, places);
    let found = if count >= UNPACK_FROM {
        test::<NAMED>(read, plan, &times.unpacked(first), levels, n, from, settle)
    } else {
        test::<NAMED>(read, plan, &times, levels, n, from, settle)
    };
    in_nodes(found, g.shift)
}

/// The first node from which the walks skip what comes before it ([`super::walk::GameWalk`]'s
/// `start`): a start before it saves less than the candidates' state made again there costs
/// (with every start kept, 2% more instructions for the sparse corner of `bench/search.sh`,
/// whose stone often comes first; from 8, 1% more for the crowded corner).
const SKIP_FROM: u32 = 4;

/// Candidates from which the prune reads a game's cells wanted empty as runs ([`Minima`]):
/// from 4, the crowded 5x5 corner of `bench/search.sh` (most of its games have fewer than 8)
/// took 2% more instructions.
const MINIMA_FROM: usize = 16;

/// Candidates from which a game's time tables are unpacked before the prune
/// ([`super::times::Unpacked`]).
const UNPACK_FROM: usize = 16;

/// What the prune hands each candidate it keeps: the candidate (variant, place), what it
/// found of it, and the game's tables with their first stones a byte per point when the prune
/// unpacked them (the counting then reads them so: through the tables' directory, a first
/// stone was about 30 instructions). Returns whether the candidate is kept for the walk.
pub(super) trait Settle {
    /// Takes candidate `cand` with what the prune found of it; returns whether the walk
    /// keeps it.
    fn settle(
        &mut self,
        cand: (u32, (u32, u32)),
        found: Survivor,
        unpacked: Option<&Unpacked<'_, '_>>,
    ) -> bool;

    /// Whether the dense prune may hand [`Settle::settle_clean`] the candidates without a
    /// point changed again in their rectangle while they may stand (tables in nodes, a plan
    /// whose variants never stand two on one rectangle).
    fn counts_clean(&self) -> bool {
        false
    }

    /// Counts candidate `cand`, none of whose points changed again while it may stand (their
    /// changes all come by its stones' arrival or from its first contradiction on): from node
    /// `arrive` until `until` (the node of its contradicting cell's stone, that cell's column
    /// and row on the board, and whether the stone is White), or to the end of the line when
    /// `None`.
    fn settle_clean(&mut self, _: (u32, (u32, u32)), _: u32, _: Option<(u32, [u8; 2], bool)>) {}

    /// Whether [`Settle::settle`] reads a candidate's contradicting cell ([`Survivor::at`])
    /// only when no point of its rectangle changed again: then it is the point of the move
    /// at its node, which the dense prune reads from the game's moves.
    fn names_clean_only(&self) -> bool {
        false
    }
}

/// Keeps every candidate the prune keeps, for the walk.
pub(super) struct KeepAll;

impl Settle for KeepAll {
    #[inline(always)]
    fn settle(&mut self, _: (u32, (u32, u32)), _: Survivor, _: Option<&Unpacked<'_, '_>>) -> bool {
        true
    }
}

/// The candidates the prune keeps, and the places it reads them from (numbers in
/// [`Plan::placed`]).
type Read<'a> = (&'a mut Vec<(u32, (u32, u32))>, &'a [u16]);

/// [`filter`] with the test that reads the cells wanted empty by runs from the levels
/// `levels` ([`Minima`]), or one by one when `None`: an instance per kind of `times` (first
/// stones unpacked or read through the directory).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn test<const NAMED: bool>(
    cands: Read<'_>,
    plan: &Plan,
    times: &impl TimeRead,
    levels: Option<&Minima>,
    n: usize,
    from: u32,
    settle: &mut impl Settle,
) -> (u32, u32) {
    let fin = times.tables().fin;
    match levels {
        Some(levels) => filter(
            cands,
            plan,
            times,
            from,
            |t, v, c, r| survives_runs::<NAMED>(t, levels, fin, v, n, (c, r), from),
            settle,
        ),
        None => filter(
            cands,
            plan,
            times,
            from,
            |t, v, c, r| survives::<NAMED, _>(t, fin, v, n, c, r, from),
            settle,
        ),
    }
}

/// The prune's loop over the candidates, those of the game's `places` in [`Plan::placed`]
/// (kept in `cands`: copying them all there first took the 3x3 hane anywhere about 2% of its
/// instructions), with the time tables `times` and a candidate's test (`survives` or
/// `survives_runs`), each survivor given to `settle`; gives the bound and the earliest unit
/// the stones of a candidate kept are all there by (no earlier than `from`).
#[inline(always)]
fn filter<T: TimeRead>(
    (cands, places): Read<'_>,
    plan: &Plan,
    times: &T,
    from: u32,
    test: impl Fn(&T, &VariantPlan, usize, usize) -> Option<Survivor>,
    settle: &mut impl Settle,
) -> (u32, u32) {
    let mut bound = 0u32;
    let mut start = u32::MAX;
    cands.clear();
    for &k in places {
        let Some(&cand) = plan.placed.get(usize::from(k)) else {
            continue;
        };
        let (vi, (c, r)) = cand;
        let v = &plan.variants[vi as usize];
        if let Some(found) = test(times, v, c as usize, r as usize) {
            if settle.settle(cand, found, times.unpacked()) {
                bound = bound.max(found.dead);
                start = start.min(found.arrive.max(from));
                cands.push(cand);
            }
        }
    }
    (bound, if cands.is_empty() { 0 } else { start })
}

/// The unit by which the stones of `v` at the place whose point is `at` are all there (by
/// their first stones; 0 without stones).
#[inline(always)]
fn arrive(times: &impl TimeRead, v: &VariantPlan, at: usize) -> u32 {
    v.stone_at
        .iter()
        .fold(0, |m, &o| m.max(times.first(at + usize::from(o))))
}

/// The first node after which the final board `fin` contradicts a cell of `v` at place
/// `(c, r)` for good (`u32::MAX`: none does), with that cell, when its stones all arrive
/// before it and after `from` (by the time tables); `None` when they cannot.
#[inline(always)]
fn survives<const NAMED: bool, T: TimeRead>(
    times: &T,
    fin: &[u8],
    v: &VariantPlan,
    n: usize,
    c: usize,
    r: usize,
    from: u32,
) -> Option<Survivor> {
    let at = r * n + c;
    let arrive = arrive(times, v, at);
    let born = arrive.max(from);
    // The last changes as stored (`TimeTables` and `Unpacked` read them so; `Halves` would
    // not compile here). A row's cells are read at once: the candidate falls when one of
    // them comes no later than its stones, else the earliest of them all is its end.
    const { assert!(T::LASTS_STORED) };
    let lasts = times.tables().lasts();
    let mut earliest = Earliest::new(born);
    for y in 0..v.rows.len() {
        let row = r + y;
        let (b, w) = (row_word(fin, row) >> c, row_word(fin, n + row) >> c);
        if !earliest.add(lasts, row * n + c, v.wrong(y, b, w)) {
            return None;
        }
    }
    let Some(least) = earliest.least() else {
        return Some(Survivor {
            dead: u32::MAX,
            arrive,
            at: None,
        });
    };
    // The first cell holding it, row by row, when asked for.
    let cell = NAMED
        .then(|| {
            (0..v.rows.len()).find_map(|y| {
                let row = r + y;
                let (b, w) = (row_word(fin, row) >> c, row_word(fin, n + row) >> c);
                let at = row * n + c;
                masked_min(lasts, at, v.wrong(y, b, w))
                    .filter(|&(b, _)| b == least)
                    .map(|(_, x)| xy(c + x.trailing_zeros() as usize, row))
            })
        })
        .flatten();
    Some(Survivor {
        dead: u32::from(least),
        arrive,
        at: cell,
    })
}

/// A cell's column and row as [`Survivor::at`] holds them (boards are at most 25x25).
#[inline(always)]
fn xy(col: usize, row: usize) -> [u8; 2] {
    [col as u8, row as u8]
}

/// Points a level of [`Minima`] spans: a power of two above the largest board's (25x25), so
/// that an index masked by it stays in its level.
pub(super) const STRIDE: usize = 1024;

/// Levels [`Minima`] has room for: a power of two above the most a run needs (a run of at
/// most 25 points reads spans of 16, level 4), so that an index masked by their size stays
/// in the buffer and needs no bounds check (with one, a run cost 33 instructions).
const LEVELS_MAX: usize = 8;

/// A last change's byte for "never", and a level's minimum where no point holds a stone.
const NEVER: u8 = 255;

/// The prune's buffers for games with many candidates, kept from game to game.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    first: FirstStones,
    minima: Minima,
    dense: super::dense::Dense,
    /// The point of each node's move on a plain line (nodes up to 254; 255 for "never").
    moves: Moves,
}

/// A point per node (unit) of a game: [`Scratch::prune_dense`]'s moves.
#[derive(Debug)]
struct Moves([u16; 256]);

impl Moves {
    /// The point of the move at node `node` of a game whose first stones are `firsts` (a
    /// byte per point), the table made first when `made` says it is not yet. On a plain
    /// line a node gives a stone to its move's point alone, so a point's first stone names
    /// that node (points that never held one write the unit for "never", which no candidate
    /// reads). (Made at the first candidate that needs it: a free pattern of few candidates
    /// has none in most games.)
    #[inline(always)]
    fn point(&mut self, made: &mut bool, firsts: &[u8], node: u8) -> usize {
        if !*made {
            for (p, &f) in firsts.iter().enumerate() {
                self.0[usize::from(f)] = p as u16;
            }
            *made = true;
        }
        usize::from(self.0[usize::from(node)])
    }
}

impl Default for Moves {
    fn default() -> Self {
        Moves([0; 256])
    }
}

impl Scratch {
    /// Whether the dense prune ([`prune_dense`](Scratch::prune_dense)) can read `g`: it has
    /// time tables, and its main line's bitmaps a row per row of its board.
    pub(crate) fn dense_reads(g: Game<'_>, cold: ColdView<'_>) -> bool {
        cold.times.is_some() && super::workspace::Workspace::bitmaps_fit(g)
    }

    /// [`prune`] of every place of `plan` in `g` by the dense prune ([`super::dense`]), each
    /// survivor given to `settle` with what [`prune`] would give it, in the same order (to
    /// [`Settle::settle_clean`] when `settle` counts it so and no point of its rectangle
    /// changed again while it may stand); a game the dense prune cannot read
    /// ([`Scratch::dense_reads`]) keeps no candidate.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn prune_dense<const NAMED: bool, S: Settle>(
        &mut self,
        cands: &mut Vec<(u32, (u32, u32))>,
        plan: &Plan,
        g: Game<'_>,
        cold: ColdView<'_>,
        from: u32,
        settle: &mut S,
    ) -> (u32, u32) {
        cands.clear();
        let n = usize::from(g.side);
        let (Some(times), Ok(size)) = (cold.times, kifu_go::BoardSize::new(u32::from(g.side)))
        else {
            return (0, 0);
        };
        let from = from.saturating_sub(1) >> g.shift;
        let Scratch {
            first,
            dense,
            moves,
            ..
        } = self;
        let unpacked = times.unpacked(first);
        dense.fill(
            &times,
            unpacked.firsts(),
            g.bitmaps(false),
            n,
            (&plan.dense_kinds, plan.dense_shapes),
        );
        let xy = super::point_xy(size);
        let (mut bound, mut start) = (0u32, u32::MAX);
        let from8 = u8::try_from(from).unwrap_or(u8::MAX);
        // Candidates without a point changed again in their rectangle are counted at once
        // when the settling takes them (what `Clean::settle` would do with them, without its
        // tests).
        let lean = NAMED && settle.counts_clean();
        // The points changed again, a word a row (a candidate's rectangle is then a load, a
        // shift and an OR a row: read from the tables' words, about 11 instructions a row).
        // Made at the game's first survivor: a free pattern of few candidates has none in
        // most games (made at once, the 5x5 anywhere of `bench/search.sh` by placement took
        // 1.1% more instructions).
        let mut again_rows = [0u32; kifu_go::BoardSize::MAX as usize];
        let (mut rows_made, mut any_again) = (false, false);
        // Whether `moves` holds this game's moves ([`Moves::point`]).
        let mut moves_made = false;
        let firsts = unpacked.firsts().get(..n * n).unwrap_or_default();
        // The column and row of the move at node `node`.
        let move_cell = |moves: &mut Moves, made: &mut bool, node: u8| {
            xy.get(moves.point(made, firsts, node)).copied()
        };
        // The contradicting cell read where `settle` reads it, the point of the move at that
        // node (not looked for among the rectangle's cells: a search whose end was a branch
        // mispredicted for most candidates).
        let by_moves = settle.names_clean_only();
        for (vi, d) in plan.dense.iter().enumerate() {
            // A survivor handed to `settle` as the prune would hand it.
            let keep = |f: super::dense::Found,
                        settle: &mut S,
                        (bound, start): (&mut u32, &mut u32),
                        cands: &mut Vec<_>,
                        (moves, moves_made): (&mut Moves, &mut bool)| {
                let Some(&[c, r]) = xy.get(f.point) else {
                    return;
                };
                let cand = (vi as u32, (u32::from(c), u32::from(r)));
                let never = f.dead == NEVER;
                let at = match NAMED && !never {
                    false => None,
                    true if by_moves => move_cell(moves, moves_made, f.dead),
                    true => dense.named(d, f.point, f.dead).map(|[x, y]| [c + x, r + y]),
                };
                let found = Survivor {
                    dead: if never { u32::MAX } else { u32::from(f.dead) },
                    arrive: u32::from(f.arrive),
                    at,
                };
                if settle.settle(cand, found, Some(&unpacked)) {
                    *bound = (*bound).max(found.dead);
                    *start = (*start).min(found.arrive.max(from));
                    cands.push(cand);
                }
            };
            if !lean {
                // (Its own loop: with the test of `lean` in it, the loop's body was a call.)
                dense.survivors(d, from8, &mut |f| {
                    keep(
                        f,
                        settle,
                        (&mut bound, &mut start),
                        cands,
                        (moves, &mut moves_made),
                    )
                });
                continue;
            }
            let vp = &plan.variants[vi];
            let (w, h) = (vp.width as usize, vp.rows.len());
            let mask = (1u32 << w) - 1;
            dense.survivors(d, from8, &mut |f| {
                let Some(&[c, r]) = xy.get(f.point) else {
                    return;
                };
                let (c, r) = (usize::from(c), usize::from(r));
                if !rows_made {
                    for (r, a) in again_rows.iter_mut().enumerate().take(n) {
                        *a = unpacked.changed_again(r * n, n);
                        any_again |= *a != 0;
                    }
                    rows_made = true;
                }
                // A point changed again whose changes all come by the stones' arrival, or
                // from the first contradiction on, is as one changed once while the candidate
                // may stand: its final state from the arrival on (a state the candidate
                // refuses would contradict it by then), or empty until it falls.
                if any_again
                    && !(0..h).all(|y| {
                        let bits = again_rows.get(r + y).map_or(0, |a| a >> c & mask);
                        let at = f.point + y * n;
                        ones(&[u64::from(bits)]).all(|x| {
                            let q = at + x;
                            unpacked.last(q) <= u32::from(f.arrive)
                                || unpacked.first(q) >= u32::from(f.dead)
                        })
                    })
                {
                    keep(
                        f,
                        settle,
                        (&mut bound, &mut start),
                        cands,
                        (moves, &mut moves_made),
                    );
                    return;
                }
                // The contradicting cell of such a candidate is the point of the move at its
                // node.
                let until = (f.dead != NEVER).then(|| {
                    let [x, y] = move_cell(moves, &mut moves_made, f.dead).unwrap_or([u8::MAX; 2]);
                    let white = row_word(times.fin, n + usize::from(y)) >> x & 1 != 0;
                    (u32::from(f.dead), [x, y], white)
                });
                let cand = (vi as u32, (c as u32, r as u32));
                settle.settle_clean(cand, u32::from(f.arrive), until);
            });
        }
        let start = if cands.is_empty() { 0 } else { start };
        in_nodes((bound, start), g.shift)
    }
}

/// The bound and start of [`prune`] back from units of `1 << shift` nodes (last changes
/// were rounded up, first stones down); a start before [`SKIP_FROM`] is none.
fn in_nodes((bound, start): (u32, u32), shift: u8) -> (u32, u32) {
    let bound = if bound == u32::MAX {
        bound
    } else {
        bound << shift
    };
    let start = start.checked_shl(u32::from(shift)).unwrap_or(0);
    (bound, if start < SKIP_FROM { 0 } else { start })
}

/// For a game with many candidates, the cells wanted empty that the final board contradicts
/// read as runs, not cell by cell: level 0 holds the last change of each point that holds a
/// stone at the end (255 for the others: [`TimeTables::stone_lasts`]), level `k` the minimum
/// of level 0 over the `2^k` points from each point along its row (a span may run past the
/// row's end: no run of a candidate reads such a span). A run's earliest such change is then
/// the smaller of two spans that cover it ([`VariantPlan::run_spans`]), two loads where the
/// cell-by-cell test read each contradicted cell of its row (a 7x4 side's 27 cells wanted
/// empty are 5 runs). Filling the levels is a copy and a few passes of byte minima over the
/// board, so games with few candidates keep the cell-by-cell test.
#[derive(Debug)]
pub(super) struct Minima {
    levels: Box<[u8; LEVELS_MAX * STRIDE]>,
}

impl Default for Minima {
    fn default() -> Self {
        Minima {
            levels: Box::new([NEVER; LEVELS_MAX * STRIDE]),
        }
    }
}

impl Minima {
    /// Fills `levels` levels from the tables `times` of a game of side `n`.
    fn fill(&mut self, times: &TimeTables<'_>, n: usize, levels: usize) {
        let points = n * n;
        // The widest span (16 points) past the board reads "never".
        let used = (points + 16).min(STRIDE);
        times.stone_lasts(n, &mut self.levels[..used]);
        for k in 1..levels.min(LEVELS_MAX) {
            let step = 1 << (k - 1);
            let (below, level) =
                self.levels[(k - 1) * STRIDE..(k + 1) * STRIDE].split_at_mut(STRIDE);
            let (from, past) = (&below[..used - step], &below[step..used]);
            for ((m, &a), &b) in level[..used - step].iter_mut().zip(from).zip(past) {
                *m = a.min(b);
            }
            level[used - step..used].fill(NEVER);
        }
    }

    /// The minimum at offset `o` (a level's start plus a point: [`VariantPlan::run_spans`]).
    #[inline(always)]
    fn at(&self, o: usize) -> u8 {
        self.levels[o & (LEVELS_MAX * STRIDE - 1)]
    }
}

/// [`survives`] with the cells wanted empty read as runs from the levels `minima`
/// ([`Minima`]), the other cells one by one; the contradicting cell is looked for only when
/// `NAMED` (in its run, the point whose last change is the run's minimum).
#[inline(always)]
fn survives_runs<const NAMED: bool>(
    times: &impl TimeRead,
    minima: &Minima,
    fin: &[u8],
    v: &VariantPlan,
    n: usize,
    (c, r): (usize, usize),
    from: u32,
) -> Option<Survivor> {
    let at = r * n + c;
    let arrive = arrive(times, v, at);
    let born = arrive.max(from);
    // Every run is read before the one test against the stones' arrival: a test per run
    // fell either way at random (the first run ended half of a free pattern's candidates).
    // (The run that holds the least is looked for again by the survivors only: kept for
    // every candidate, it was 1% of the 3x3 hane anywhere's instructions.)
    let run = |&[a, b]: &[u16; 2]| {
        u32::from(
            minima
                .at(at + usize::from(a))
                .min(minima.at(at + usize::from(b))),
        )
    };
    let low = v
        .run_reads
        .iter()
        .fold(NEVER, |m, &o| m.min(minima.at(at + usize::from(o))));
    let low = u32::from(low);
    if low <= born {
        return None;
    }
    // The other cells (stones, wildcards) one by one: their earliest contradiction, the
    // first cell of it.
    let mut other = (u32::MAX, 0, 0);
    for &(x, y, wrong) in &v.others {
        let (col, row) = (c + usize::from(x), r + usize::from(y));
        let state = (row_word(fin, row) >> col & 1) | (row_word(fin, n + row) >> col & 1) << 1;
        let last = if wrong >> state & 1 != 0 {
            times.last(row * n + col)
        } else {
            u32::MAX
        };
        other = if last < other.0 {
            (last, col, row)
        } else {
            other
        };
    }
    if other.0 <= born {
        return None;
    }
    let runs = if low == u32::from(NEVER) {
        u32::MAX
    } else {
        low
    };
    // A tie goes to the runs, read first.
    let (dead, cell) = if other.0 < runs {
        (other.0, NAMED.then_some(xy(other.1, other.2)))
    } else if NAMED && runs != u32::MAX {
        let lowest = v.run_spans.iter().position(|r| run(r) == low).unwrap_or(0);
        let (x, y, len) = v.empty_runs[lowest];
        let first = at + usize::from(y) * n + usize::from(x);
        let found = (0..usize::from(len))
            .find(|&i| u32::from(minima.at(first + i)) == low)
            .map(|i| xy(c + usize::from(x) + i, r + usize::from(y)));
        (runs, found)
    } else {
        (runs, None)
    };
    Some(Survivor {
        dead,
        arrive,
        at: cell,
    })
}
