//! The state of one game's walk, reused from game to game: the candidates, their watchers
//! and counters (or, with few candidates, the board as rows of bits), the board, the path of
//! the replay and the buffers of its hits.

use super::entry::ColdView;
use super::format::NodeReader;
use super::plan::Plan;
use super::Game;
use crate::query::Variant;
use crate::scan::{Event, EventKey, Pending};
use kifu_go::{BoardSize, Color, Point};

/// Buffers reused from game to game.
#[derive(Debug, Default)]
pub(crate) struct Workspace {
    /// Candidates: variant and place, in the plain search's order.
    pub(super) cands: Vec<(u32, (u32, u32))>,
    /// A game's places found from its bitmaps ([`Workspace::places_of`]), numbers in
    /// [`Plan::placed`], when the columns did not find them.
    pub(super) places: Vec<u16>,
    /// Per candidate, its cells that do not match the board: its stones only until they are
    /// all there once (then it is active: every cell is watched from then on).
    pub(super) counters: Vec<u16>,
    pub(super) active: Vec<bool>,
    /// Candidates that stand now (bits).
    pub(super) standing: Vec<u64>,
    /// For each point, the candidates watching it and the states that mismatch their cell.
    pub(super) lists: Vec<Vec<(u32, u8)>>,
    /// Points with watchers (to clear after the game).
    pub(super) touched: Vec<u16>,
    pub(super) activate: Vec<u32>,
    pub(super) board: Vec<u8>,
    pub(super) undo: Vec<(u16, u8)>,
    pub(super) path: Vec<(u32, usize)>,
    pub(super) changes: Vec<(u16, u8)>,
    pub(super) seen: Vec<bool>,
    pub(super) numbers: Vec<u32>,
    pub(super) carried: Vec<(usize, Pending, bool)>,
    pub(super) waiting: Vec<(usize, Pending, bool)>,
    pub(super) events: Vec<(EventKey, Event)>,
    pub(super) found: Vec<(usize, usize, (u32, u32))>,
    /// Candidates whose variant swaps the colours (bits), and the hits of the last node
    /// (bits) for `walk_counted` ([`super::walk`]), the candidates that stood at the last node
    /// for [`super::intervals`], those that have stood for [`super::placements`].
    pub(super) swapped: Vec<u64>,
    pub(super) hits: Vec<u64>,
    /// Pairs of candidates that may stand on one rectangle together, the later first, and
    /// the candidates' numbers sorted by place to find them ([`Workspace::find_twins`]).
    pub(super) twins: Vec<(u32, u32)>,
    pub(super) order: Vec<u32>,
    /// The hits of a node for [`super::placements`] ([`Workspace::hits_now`]).
    pub(super) now: Vec<u64>,
    /// With few candidates, no watchers: the board is also kept as rows of bits (Black, then
    /// White) and a change tests again the candidates whose rectangle holds it, each on whole
    /// rows ([`Workspace::test_rows`]). Registering a candidate's watchers when its stones
    /// arrive (every cell of a 7x7 corner) cost more than these tests.
    pub(super) direct: bool,
    pub(super) rows: Vec<u32>,
    /// Each candidate's rectangle: first column, first row, past the last column and row.
    pub(super) rects: Vec<[u8; 4]>,
    /// Per candidate, the rows of its rectangle that do not match the board (bits): a change
    /// tests its own row again, not the whole rectangle.
    pub(super) bad: Vec<u64>,
    /// The points of the board being walked by index (`row * n + col`), so that a node's
    /// move is named without a division per node.
    pub(super) points: Vec<Point>,
    /// The column and row of each point of the board being walked, by index
    /// ([`super::point_xy`]; `points` is lent to the walk's node reader).
    pub(super) xy: &'static [[u8; 2]],
    /// Per candidate, the node its stretch of standing began at, and the running sums of the
    /// nodes, for [`super::intervals`].
    pub(super) since: Vec<u32>,
    pub(super) sums: Vec<super::intervals::Sums>,
    /// The hits waiting for a move inside, for [`super::placements`].
    pub(super) placed: Vec<(u32, bool)>,
    /// The prune's buffers for games with many candidates.
    pub(super) scratch: super::prune::Scratch,
    /// The counting's buffers ([`super::intervals::Clean`]).
    pub(super) clean: super::intervals::CleanBuffers,
}

/// Candidates up to which a game is walked without watchers ([`Workspace::direct`]), for
/// patterns of at least `DIRECT_CELLS` cells that are not wildcards (the watchers of a 3x3
/// are cheap, and its games are walked to the end, where every change would test every
/// rectangle: 17% more instructions for a 3x3 anywhere, 12% fewer for a sparse 7x7 corner).
const DIRECT_MAX: usize = 24;
const DIRECT_CELLS: usize = 20;

impl Workspace {
    /// The places of `g` for `plan` into `places` (numbers in [`Plan::placed`], as the
    /// columns give them; false: none, the game cannot match).
    pub(super) fn places_of(
        plan: &Plan,
        g: Game<'_>,
        variations: bool,
        places: &mut Vec<u16>,
    ) -> bool {
        places.clear();
        let (black, white) = g.bitmaps(variations);
        let n = usize::from(g.side);
        if black.len() != n || white.len() != n {
            return false;
        }
        // `placed` lists each variant's places row by row, columns ascending.
        let mut base = 0u32;
        for v in &plan.variants {
            for &(r, allowed) in &v.allowed {
                let mut m = allowed;
                for &(x, y) in &v.blacks {
                    m &= black.get(r + usize::from(y)).copied().unwrap_or(0) >> x;
                }
                for &(x, y) in &v.whites {
                    m &= white.get(r + usize::from(y)).copied().unwrap_or(0) >> x;
                }
                while m != 0 {
                    let c = m.trailing_zeros();
                    m &= m - 1;
                    let k = base + (allowed & ((1 << c) - 1)).count_ones();
                    // A plan has at most 16 variants of 625 places.
                    places.push(k as u16);
                }
                base += allowed.count_ones();
            }
        }
        !places.is_empty()
    }

    /// Whether the main line's bitmaps of `g` have a row per row of its board (else it cannot
    /// be searched).
    pub(super) fn bitmaps_fit(g: Game<'_>) -> bool {
        g.bitmaps(false).0.len() == usize::from(g.side)
    }

    /// Sets up the watchers and counters of the candidates on the empty board (or, with few
    /// candidates, their rectangles), and [`Workspace::points`] for the game's board.
    pub(super) fn prepare(&mut self, plan: &Plan, g: Game<'_>, size: BoardSize) {
        // A table of another board's size has another length.
        if self.points.len() != size.points() {
            self.points.clear();
            self.points
                .extend((0..size.points()).filter_map(|i| Point::from_index(i, size)));
        }
        let n = usize::from(g.side);
        self.xy = super::point_xy(size);
        let points = n * n;
        if self.lists.len() < points {
            self.lists.resize_with(points, Vec::new);
        }
        self.board.clear();
        self.board.resize(points, 0);
        self.undo.clear();
        self.path.clear();
        self.seen.clear();
        self.seen.resize(self.cands.len(), false);
        self.counters.clear();
        self.active.clear();
        self.active.resize(self.cands.len(), false);
        self.standing.clear();
        self.standing.resize(self.cands.len().div_ceil(64), 0);
        self.direct = self.cands.len() <= DIRECT_MAX
            && plan
                .variants
                .first()
                .is_some_and(|v| v.cells.len() >= DIRECT_CELLS);
        if self.direct {
            self.rows.clear();
            self.rows.resize(2 * n, 0);
            self.rects.clear();
            self.bad.clear();
            self.bad.resize(self.cands.len(), 0);
            for k in 0..self.cands.len() {
                let (vi, (c, r)) = self.cands[k];
                let v = &plan.variants[vi as usize];
                let (w, h) = (v.width, v.rows.len() as u32);
                self.rects
                    .push([c as u8, r as u8, (c + w) as u8, (r + h) as u8]);
                // The board is empty: the rows that want a stone do not match.
                self.bad[k] = v.empty_bad;
                self.mark(k, v.empty_bad == 0);
            }
            return;
        }
        for k in 0..self.cands.len() {
            let (vi, (c, r)) = self.cands[k];
            let v = &plan.variants[vi as usize];
            let stones = usize::from(v.empty_mismatches);
            for &(x, y, m) in &v.cells[..stones] {
                let p = (r as usize + usize::from(y)) * n + c as usize + usize::from(x);
                if self.lists[p].is_empty() {
                    self.touched.push(p as u16);
                }
                self.lists[p].push((k as u32, m));
            }
            self.counters.push(stones as u16);
            if stones == 0 {
                self.activate_one(plan, n, k);
            }
        }
    }

    /// Whether candidate `k` stands on the board's rows, put in its standing bit, with the
    /// rows of its rectangle that do not match ([`Workspace::bad`]).
    pub(super) fn test_rows(&mut self, plan: &Plan, n: usize, k: usize) {
        let (vi, (c, r)) = self.cands[k];
        let v = &plan.variants[vi as usize];
        let mut bad = 0u64;
        for y in 0..v.rows.len() {
            let at = r as usize + y;
            let (b, w) = (self.rows[at] >> c, self.rows[n + at] >> c);
            bad |= u64::from(v.wrong(y, b, w) != 0) << y;
        }
        self.bad[k] = bad;
        self.mark(k, bad == 0);
    }

    /// [`Workspace::test_rows`] after a change on row `y` of candidate `k`'s rectangle: that
    /// row alone tested again.
    fn test_row(&mut self, plan: &Plan, n: usize, k: usize, y: usize) {
        let (vi, (c, r)) = self.cands[k];
        let v = &plan.variants[vi as usize];
        let at = r as usize + y;
        let (b, w) = (self.rows[at] >> c, self.rows[n + at] >> c);
        let bit = 1u64 << y;
        let bad = if v.wrong(y, b, w) != 0 {
            self.bad[k] | bit
        } else {
            self.bad[k] & !bit
        };
        self.bad[k] = bad;
        self.mark(k, bad == 0);
    }

    /// Puts candidate `k`'s standing bit.
    #[inline(always)]
    fn mark(&mut self, k: usize, stands: bool) {
        let bit = 1u64 << (k % 64);
        if stands {
            self.standing[k / 64] |= bit;
        } else {
            self.standing[k / 64] &= !bit;
        }
    }

    /// Along the main line, leaves out the candidates that cannot stand at any node
    /// ([`super::prune`]); returns the last node at which one may stand, and the first. The
    /// candidates are those of `places` (numbers in [`Plan::placed`], read without a copy
    /// first).
    pub(super) fn prune(
        &mut self,
        plan: &Plan,
        g: Game<'_>,
        cold: ColdView<'_>,
        (from, places): (u32, Option<&[u16]>),
    ) -> (u32, u32) {
        self.prune_settling::<false>(plan, g, cold, (from, places), &mut super::prune::KeepAll)
    }

    /// [`Workspace::prune`], each candidate that may stand given to `settle`, which says
    /// whether to keep it (`NAMED`: it is to be given its contradicting cell).
    pub(super) fn prune_settling<const NAMED: bool>(
        &mut self,
        plan: &Plan,
        g: Game<'_>,
        cold: ColdView<'_>,
        (from, places): (u32, Option<&[u16]>),
        settle: &mut impl super::prune::Settle,
    ) -> (u32, u32) {
        let Some(places) = places else {
            let (cands, scratch) = (&mut self.cands, &mut self.scratch);
            return scratch.prune_dense::<NAMED, _>(cands, plan, g, cold, from, settle);
        };
        super::prune::prune::<NAMED>(
            &mut self.cands,
            places,
            plan,
            g,
            cold,
            from,
            &mut self.scratch,
            settle,
        )
    }

    /// Clears the watchers after a game.
    pub(super) fn finish(&mut self) {
        for &p in &self.touched {
            self.lists[usize::from(p)].clear();
        }
        self.touched.clear();
    }

    /// For the counted walks, node `i` of a walk whose candidates have no stones before node
    /// `start` ([`super::walk::GameWalk`]): true (the node is done) before it, its changes
    /// only put on the board; at it, the candidates' state made from that board.
    #[inline(always)]
    pub(super) fn before_start(
        &mut self,
        plan: &Plan,
        n: usize,
        (i, start): (u32, u32),
        changes: &[(u16, u8)],
    ) -> bool {
        if i < start {
            self.put(n, changes);
            return true;
        }
        if i == start && start > 0 {
            self.resync(plan, n);
        }
        false
    }

    /// Puts a node's `changes` on the board alone, before any candidate has its stones (the
    /// counters and rows are made again from the board by [`Workspace::resync`]): a node then
    /// costs its decoding and a store per change, where [`Workspace::set`] tested the
    /// candidates of every changed point.
    fn put(&mut self, n: usize, changes: &[(u16, u8)]) {
        for &(p, s) in changes {
            let p = usize::from(p);
            if let Some(b) = self.board.get_mut(p) {
                *b = s;
            }
            if let (true, Some(&[x, y])) = (self.direct, self.xy.get(p)) {
                self.put_in_rows(n, x, y, s);
            }
        }
    }

    /// Puts state `s` on the point at column `x`, row `y` of the rows of bits.
    #[inline(always)]
    fn put_in_rows(&mut self, n: usize, x: u8, y: u8, s: u8) {
        let bit = 1u32 << x;
        for (state, at) in [(1, usize::from(y)), (2, n + usize::from(y))] {
            if s == state {
                self.rows[at] |= bit;
            } else {
                self.rows[at] &= !bit;
            }
        }
    }

    /// Makes the candidates' counters, watchers and standing bits those of the board (with
    /// few candidates, tests their rows again: `put` kept the rows of bits), after
    /// [`Workspace::put`]: as [`Workspace::set`]
    /// would have left them, but for candidates that had all their stones at some node and
    /// lost one since (still watching every cell there, not here), which none can have before
    /// the walk's `start`.
    fn resync(&mut self, plan: &Plan, n: usize) {
        if self.direct {
            for k in 0..self.cands.len() {
                self.test_rows(plan, n, k);
            }
            return;
        }
        for k in 0..self.cands.len() {
            let (vi, (c, r)) = self.cands[k];
            let v = &plan.variants[vi as usize];
            let cells = if self.active[k] {
                &v.cells[..]
            } else {
                &v.cells[..usize::from(v.empty_mismatches)]
            };
            let mut mismatches = 0u16;
            for &(x, y, m) in cells {
                let p = (r as usize + usize::from(y)) * n + c as usize + usize::from(x);
                mismatches += u16::from((m >> self.board[p]) & 1);
            }
            self.counters[k] = mismatches;
            let bit = 1u64 << (k % 64);
            if !self.active[k] && mismatches == 0 {
                self.activate_one(plan, n, k);
            } else if self.active[k] && mismatches == 0 {
                self.standing[k / 64] |= bit;
            } else {
                self.standing[k / 64] &= !bit;
            }
        }
    }

    /// Candidate `k` has all its stones: its other cells are watched from now on.
    pub(super) fn activate_one(&mut self, plan: &Plan, n: usize, k: usize) {
        let (vi, (c, r)) = self.cands[k];
        let v = &plan.variants[vi as usize];
        self.active[k] = true;
        let mut mismatches = 0u16;
        for &(x, y, m) in &v.cells[usize::from(v.empty_mismatches)..] {
            let p = (r as usize + usize::from(y)) * n + c as usize + usize::from(x);
            if self.lists[p].is_empty() {
                self.touched.push(p as u16);
            }
            self.lists[p].push((k as u32, m));
            mismatches += u16::from((m >> self.board[p]) & 1);
        }
        self.counters[k] += mismatches;
        if self.counters[k] == 0 {
            self.standing[k / 64] |= 1 << (k % 64);
        }
    }

    /// Puts state `s` on point `p`, keeping the counters (inlined in the walks: a call per
    /// change cost a tenth of a sparse corner's walk).
    #[inline(always)]
    pub(super) fn set(&mut self, plan: &Plan, n: usize, p: usize, s: u8) {
        let old = self.board[p];
        if old == s {
            return;
        }
        self.board[p] = s;
        if !self.direct {
            self.set_watched(plan, n, p, old, s);
            return;
        }
        {
            // A table, not a division: one per change is a good part of a change's time.
            let Some(&[x, y]) = self.xy.get(p) else {
                return;
            };
            self.put_in_rows(n, x, y, s);
            for k in 0..self.rects.len() {
                let [c0, r0, c1, r1] = self.rects[k];
                if (c0..c1).contains(&x) && (r0..r1).contains(&y) {
                    self.test_row(plan, n, k, usize::from(y - r0));
                }
            }
        }
    }

    /// [`Workspace::set`] of state `s` (`old` before) on point `p` with watchers.
    #[inline(never)]
    fn set_watched(&mut self, plan: &Plan, n: usize, p: usize, old: u8, s: u8) {
        let Workspace {
            lists,
            counters,
            active,
            standing,
            activate,
            ..
        } = self;
        for &(k, m) in &lists[p] {
            let before = (m >> old) & 1;
            let after = (m >> s) & 1;
            if before == after {
                continue;
            }
            let k = k as usize;
            let c = &mut counters[k];
            if after == 1 {
                if *c == 0 {
                    standing[k / 64] &= !(1 << (k % 64));
                }
                *c += 1;
            } else {
                *c -= 1;
                if *c == 0 {
                    if active[k] {
                        standing[k / 64] |= 1 << (k % 64);
                    } else {
                        activate.push(k as u32);
                    }
                }
            }
        }
        while let Some(k) = self.activate.pop() {
            self.activate_one(plan, n, k as usize);
        }
    }

    /// Every (variant, place) standing now that wants the side to move `to_play` (when the
    /// query wants one, `wanted`), with `one_a_rectangle` each rectangle once (the first
    /// variant), as the plain search's `find` lists them.
    pub(super) fn standing_now(
        &mut self,
        variants: &[Variant],
        (wanted, to_play): (Option<Color>, Color),
        one_a_rectangle: bool,
    ) {
        let out = &mut self.found;
        out.clear();
        for k in super::columns::ones(&self.standing) {
            let (vi, place) = self.cands[k];
            // Before the one hit a rectangle: another variant standing there may want the
            // side to move that this one does not.
            if !variants[vi as usize].wants_to_play(wanted, to_play) {
                continue;
            }
            let vi = vi as usize;
            let here = variants[vi].rectangle(place);
            if !(one_a_rectangle
                && out
                    .iter()
                    .any(|&(_, oi, op)| variants[oi].rectangle(op) == here))
            {
                out.push((k, vi, place));
            }
        }
    }
}

/// The node buffers of the workspace, lent to a walk for one game: taken out of it, so that
/// the walk can update the workspace while it reads the nodes ([`Workspace::lend_nodes`],
/// [`Workspace::give_back`]).
pub(crate) struct NodeBuffers {
    numbers: Vec<u32>,
    changes: Vec<(u16, u8)>,
    points: Vec<Point>,
}

impl NodeBuffers {
    /// A reader of `cold`'s nodes on an `n` x `n` board (none if they cannot be read: the
    /// opening checked them), the buffer of each node's changes it fills, and the board's
    /// points by index ([`Workspace::points`]).
    pub(super) fn reader<'a, 'c: 'a>(
        &'a mut self,
        cold: ColdView<'c>,
        n: usize,
    ) -> (NodeReader<'a>, &'a mut Vec<(u16, u8)>, &'a [Point]) {
        let (count, nodes) = cold.nodes().unwrap_or((0, &[]));
        (
            NodeReader::new(nodes, count, (n * n) as u16, &mut self.numbers),
            &mut self.changes,
            &self.points,
        )
    }
}

impl Workspace {
    /// Lends the node buffers to a walk.
    pub(super) fn lend_nodes(&mut self) -> NodeBuffers {
        NodeBuffers {
            numbers: std::mem::take(&mut self.numbers),
            changes: std::mem::take(&mut self.changes),
            points: std::mem::take(&mut self.points),
        }
    }

    /// Takes back the buffers [`Workspace::lend_nodes`] lent.
    pub(super) fn give_back(&mut self, lent: NodeBuffers) {
        self.numbers = lent.numbers;
        self.changes = lent.changes;
        self.points = lent.points;
    }

    /// Lists in `twins` the pairs of candidates on one place whose variants may stand there
    /// together ([`Plan::twins`]): each candidate with every earlier one (none without
    /// [`Plan::overlap`]).
    pub(super) fn find_twins(&mut self, plan: &Plan) {
        self.twins.clear();
        if !plan.overlap {
            return;
        }
        let cands = &self.cands;
        let order = &mut self.order;
        order.clear();
        order.extend(0..cands.len() as u32);
        order.sort_unstable_by_key(|&k| (cands[k as usize].1, k));
        for group in order.chunk_by(|&a, &b| cands[a as usize].1 == cands[b as usize].1) {
            for (i, &k) in group.iter().enumerate() {
                let twins = &plan.twins[cands[k as usize].0 as usize];
                for &first in &group[..i] {
                    if twins.contains(&cands[first as usize].0) {
                        self.twins.push((k, first));
                    }
                }
            }
        }
    }

    /// The candidates standing now that are hits into `hits` (bits): those whose variant
    /// wants the side to move (`want_swapped`: whether the variants that swap the colours
    /// are those, `None` when the query wants no side; [`Workspace::mark_swapped`] first
    /// when it does),
    /// each rectangle's first ([`Workspace::standing_now`]: the earliest standing of two
    /// that may stand on it clears the other, [`Workspace::find_twins`] first; one cleared
    /// by another is cleared too by the one that cleared that, as both stand on it).
    pub(super) fn hits_now(&self, want_swapped: Option<bool>, hits: &mut Vec<u64>) {
        hits.clear();
        hits.extend_from_slice(&self.standing);
        if let Some(want) = want_swapped {
            for (h, &s) in hits.iter_mut().zip(&self.swapped) {
                *h &= if want { s } else { !s };
            }
        }
        for &(k, first) in &self.twins {
            let (k, first) = (k as usize, first as usize);
            if hits[first / 64] >> (first % 64) & 1 != 0 {
                hits[k / 64] &= !(1 << (k % 64));
            }
        }
    }

    /// Marks in [`Workspace::swapped`] the candidates whose variant swaps the colours.
    pub(super) fn mark_swapped(&mut self, variants: &[Variant]) {
        self.swapped.clear();
        self.swapped.resize(self.standing.len(), 0);
        for (k, &(vi, _)) in self.cands.iter().enumerate() {
            if variants[vi as usize].swapped {
                self.swapped[k / 64] |= 1 << (k % 64);
            }
        }
    }
}
