//! [`Clean`] for patterns with wildcards: a candidate's stretches read from the time tables
//! (a cell that allows empty and a stone, `*`, `x` or `o`, does not end a stretch when a
//! stone comes onto it: that move is the continuation of the hit before it), and the
//! candidates of a pattern two of whose variants can stand on one rectangle together
//! ([`super::Plan::overlap`]), counted a rectangle at a time so that the rectangle's hit at a
//! node is its first standing variant's, as the walk counts it
//! ([`super::Workspace::standing_now`]).
//!
//! On 100,000 games, the 70 random free patterns of `bench/free_queries.py` took 25.1 s
//! summed when those with wildcards were walked node by node (the overlapping ones with an
//! event per hit), 9.4 s counted from the tables; the slowest, `xo/#O` with 554 million hits,
//! 9.8 s -> 0.9 s (bench/RESULTS.md, session 37).

use super::{Cand, Clean, Held, Scratch, Until};
use crate::index::columns::ones;
use crate::index::entry::row_word;
use crate::index::prune::Survivor;
use crate::index::times::TimeRead;
use crate::scan::Scan;
use std::ops::Range;

/// The bits of a deferred candidate's key ([`Clean::rect_key`]) that number it: a game has
/// at most 16 candidates a place (a plan's variants: 8 symmetries, colours swapped) and 625
/// places (25x25), 10,000 candidates.
const KEY_INDEX: u64 = (1 << 20) - 1;

/// How a wildcard candidate stands, as [`Clean::read_wild`] read it.
enum Read {
    /// Left to the walk (a point changed again without its list of changes).
    Walk,
    /// At no node.
    Never,
    /// In the stretches of `scratch.stretches`, with the moves inside of `scratch.inner`.
    Stretches,
}

/// A candidate of a rectangle read by [`Clean::settle_deferred`]: its stretches and moves inside,
/// ranges of the group's buffers.
#[derive(Clone)]
pub(super) struct Member {
    stretches: Range<usize>,
    inner: Range<usize>,
}

impl<'q> Clean<'q> {
    /// Keeps candidate `cand` of a plan with [`super::Plan::overlap`], whose variant may
    /// stand on one rectangle with another (with what the prune found of it), for
    /// [`Clean::settle_deferred`], its place marked (and marked as shared when a candidate
    /// of its rectangle's shape was kept there before).
    pub(super) fn defer(&mut self, cand: Cand, found: Option<Survivor>) {
        let (shape, (c, r)) = self.shape_place(cand);
        let (seen, twice) = (
            &mut self.scratch.seen[shape],
            &mut self.scratch.twice[shape],
        );
        if let (Some(seen), Some(twice)) = (seen.get_mut(r), twice.get_mut(r)) {
            *twice |= *seen & 1 << c;
            *seen |= 1 << c;
        }
        self.deferred.push((cand, found));
    }

    /// The shape of candidate `cand`'s rectangle (0: its plan's first variant's width and
    /// height, 1: turned) and its place (column, row).
    fn shape_place(&self, (vi, (c, r)): Cand) -> (usize, (u32, usize)) {
        let width = |v: usize| self.plan.variants.get(v).map(|v| v.width);
        let shape = usize::from(width(vi as usize) != width(0));
        // Boards are at most 25x25: the mask only keeps a shift by the column in range.
        (shape, (c & 31, r as usize))
    }

    /// [`Clean::settle`] of a candidate of a plan with wildcards, alone on its rectangle (its
    /// plan has no [`super::Plan::overlap`], or no other candidate stands on it); returns
    /// whether it is left to the walk.
    pub(super) fn settle_wild(
        &mut self,
        scan: &mut Scan<'_>,
        times: &impl TimeRead,
        cand: Cand,
        found: Option<Survivor>,
    ) -> bool {
        match self.read_wild(times, cand, found) {
            Read::Walk => true,
            Read::Never => false,
            Read::Stretches => {
                self.counted = true;
                for i in 0..self.scratch.stretches.len() {
                    let (s, until) = self.scratch.stretches[i];
                    if self.stretch(scan, cand, s, until) && self.placements {
                        break;
                    }
                }
                false
            }
        }
    }

    /// Counts the candidates [`Clean::defer`] kept for a plan with
    /// [`super::Plan::overlap`], a rectangle at a time (a place, a width and a height), its
    /// candidates in their variants' order (those alone on their rectangle at once, the
    /// others sorted by their keys): a candidate's hits where an earlier one of its
    /// rectangle stands are that one's, so each stretch of a candidate loses the nodes where
    /// an earlier one stands. A rectangle with a candidate the tables cannot tell is left to
    /// the walk whole, its candidates put in `cands`. Returns whether any was. (Inlined into
    /// the game's search, as the release build did until the prune's callback took a third
    /// argument: out of line, with its sort's calls, `.x/.O/.#` anywhere with colours swapped
    /// took 2-3% longer.)
    #[inline(always)]
    pub(in crate::index) fn settle_deferred(
        &mut self,
        scan: &mut Scan<'_>,
        times: &impl TimeRead,
        cands: &mut Vec<Cand>,
    ) -> bool {
        let deferred = std::mem::take(&mut self.deferred);
        let mut keys = std::mem::take(&mut self.deferred_keys);
        let mut walked = false;
        // Most rectangles have one candidate (nine in ten of `.x/.O/.#` anywhere with colours
        // swapped, whose members' bookkeeping was then 7% of its instructions): counted at
        // once, only the others sorted into their rectangles.
        for (i, &(cand, found)) in deferred.iter().enumerate() {
            let (shape, (c, r)) = self.shape_place(cand);
            let row = self.scratch.twice[shape].get(r).copied().unwrap_or(0);
            if row >> c & 1 != 0 {
                keys.push(self.rect_key(cand, i));
            } else if self.settle_wild(scan, times, cand, found) {
                walked = true;
                cands.push(cand);
            }
        }
        self.scratch.seen = Default::default();
        self.scratch.twice = Default::default();
        // (Sorting the candidates by a key looked up in the variants at each comparison was 7%
        // of `.x/.O/.#` anywhere with colours swapped.)
        keys.sort_unstable();
        let mut members = std::mem::take(&mut self.scratch.members);
        let mut rect = std::mem::take(&mut self.scratch.rect);
        for keys in keys.chunk_by(|a, b| a >> 32 == b >> 32) {
            if let [k] = keys {
                let (cand, found) = deferred[(k & KEY_INDEX) as usize];
                if self.settle_wild(scan, times, cand, found) {
                    walked = true;
                    cands.push(cand);
                }
                continue;
            }
            rect.clear();
            rect.extend(keys.iter().map(|&k| deferred[(k & KEY_INDEX) as usize]));
            let group = &rect[..];
            members.clear();
            self.scratch.group_stretches.clear();
            self.scratch.group_inner.clear();
            let mut known = true;
            for &(cand, found) in group {
                let read = self.read_wild(times, cand, found);
                let Scratch {
                    stretches,
                    inner,
                    group_stretches,
                    group_inner,
                    ..
                } = &mut *self.scratch;
                let (s0, i0) = (group_stretches.len(), group_inner.len());
                match read {
                    Read::Walk => {
                        known = false;
                        break;
                    }
                    Read::Never => {}
                    Read::Stretches => {
                        group_stretches.extend_from_slice(stretches);
                        group_inner.extend_from_slice(inner);
                    }
                }
                members.push(Member {
                    stretches: s0..group_stretches.len(),
                    inner: i0..group_inner.len(),
                });
            }
            if !known {
                walked = true;
                cands.extend(group.iter().map(|&(cand, _)| cand));
                continue;
            }
            for (j, &(cand, _)) in group.iter().enumerate() {
                self.count_member(scan, cand, &members, j);
            }
        }
        // The walk reads its candidates in the variants' order.
        cands.sort_unstable();
        self.deferred = deferred;
        self.deferred.clear();
        keys.clear();
        self.deferred_keys = keys;
        self.scratch.rect = rect;
        self.scratch.members = members;
        walked
    }

    /// The order [`Clean::settle_deferred`] reads candidate `cand` in, with its number among
    /// the game's candidates `i` in the low bits ([`KEY_INDEX`]): its rectangle (its row and
    /// column, its variant's width and height, a byte each: boards are at most 25x25) in the
    /// high half, then its variant.
    fn rect_key(&self, (vi, (c, r)): Cand, i: usize) -> u64 {
        let v = &self.plan.variants[vi as usize];
        let rect = [r, c, v.width, v.rows.len() as u32];
        let rect = rect.iter().fold(0u64, |k, &b| k << 8 | u64::from(b));
        debug_assert!(vi < 1 << 12 && (i as u64) <= KEY_INDEX);
        rect << 32 | u64::from(vi) << 20 | i as u64
    }

    /// Counts the hits of member `j` of a rectangle's `members` (candidate `cand`) at the
    /// nodes where no earlier member stands.
    fn count_member(&mut self, scan: &mut Scan<'_>, cand: Cand, members: &[Member], j: usize) {
        let Scratch {
            inner,
            group_stretches,
            group_inner,
            earlier,
            ..
        } = &mut *self.scratch;
        let me = &members[j];
        if me.stretches.is_empty() {
            return;
        }
        let end_of = |until: Option<Until>| until.map_or(u32::MAX, |u| u.node);
        earlier.clear();
        for m in &members[..j] {
            earlier.extend(
                group_stretches[m.stretches.clone()]
                    .iter()
                    .map(|&(s, until)| (s, end_of(until))),
            );
        }
        earlier.sort_unstable();
        inner.clear();
        inner.extend_from_slice(&group_inner[me.inner.clone()]);
        self.counted = true;
        // By placement, only the first piece with a hit in the window counts.
        let first = self.placements;
        for i in me.stretches.clone() {
            let (s, until) = self.scratch.group_stretches[i];
            let end = end_of(until);
            // The pieces of [s, end) that no earlier member's stretch covers.
            let mut at = s;
            for k in 0..self.scratch.earlier.len() {
                let (a, b) = self.scratch.earlier[k];
                if b <= at {
                    continue;
                }
                if a >= end {
                    break;
                }
                if a > at && self.piece(scan, cand, (at, a), until) && first {
                    return;
                }
                at = at.max(b);
                if at >= end {
                    break;
                }
            }
            if at < end && self.piece(scan, cand, (at, end), until) && first {
                return;
            }
        }
    }

    /// Counts the hits of candidate `cand` at nodes `from..to` of its stretch that ends at
    /// `until` (`to` is its end, or a node where it still stands: then the last hit is
    /// followed by a node of the stretch, as every other); says whether it had a hit in the
    /// window.
    fn piece(
        &mut self,
        scan: &mut Scan<'_>,
        cand: Cand,
        (from, to): (u32, u32),
        until: Option<Until>,
    ) -> bool {
        if to == until.map_or(u32::MAX, |u| u.node) {
            return self.stretch(scan, cand, from, until);
        }
        let window = self.window;
        self.window.1 = window.1.min(to - 1);
        let hit = self.stretch(scan, cand, from, until);
        self.window = window;
        hit
    }

    /// The moves inside of candidate `cand`, none of whose points changed again while it may
    /// stand, standing from node `s` until `until` (the end of the line when `None`): the stones
    /// that came meanwhile onto its cells allowing empty and a stone, into `scratch.inner`
    /// (cleared by the caller). Only those cells are read: the stretch is what the prune read
    /// (its stones' arrival, the first stone refused and its cell).
    #[inline(always)]
    fn read_clean(
        &mut self,
        times: &impl TimeRead,
        (vi, (c, r)): Cand,
        s: u32,
        until: Option<Until>,
    ) {
        let vp = &self.plan.variants[vi as usize];
        let n = usize::from(self.size.get());
        let fin = times.tables().fin;
        let (c0, r0) = (c as usize, r as usize);
        let e = until.map_or(u32::MAX, |u| u.node);
        for &(y, cells) in &vp.wild_rows {
            let row = r0 + usize::from(y);
            let (b, w) = (
                row_word(fin, row) >> c & cells,
                row_word(fin, n + row) >> c & cells,
            );
            let [xb, xw, _] = vp.rows[usize::from(y)];
            for x in ones(&[u64::from(b & !xb | w & !xw)]) {
                let from = times.last_once(row * n + c0 + x);
                if from > s && from < e {
                    let arrival = Held::arrival(from, (c0 + x, row), w >> x & 1 != 0);
                    self.scratch.inner.push(arrival);
                }
            }
        }
    }

    /// Counts candidate `cand` standing once, from node `s` until `until`, with the stones
    /// that came meanwhile onto its wildcard cells ([`Clean::read_clean`]; a pattern without
    /// wildcards has none): [`Clean::settle_clean`]'s count. (A copy of `stretch` without
    /// those stones, for patterns without wildcards, ran 2.5% fewer instructions for
    /// `..O/.../...` anywhere and took no less time.)
    #[inline(always)]
    pub(super) fn count_once(
        &mut self,
        scan: &mut Scan<'_>,
        times: &impl TimeRead,
        cand: Cand,
        s: u32,
        until: Option<Until>,
    ) {
        self.scratch.inner.clear();
        self.read_clean(times, cand, s, until);
        self.counted = true;
        self.stretch(scan, cand, s, until);
    }

    /// How wildcard candidate `cand` stands, from the tables `times` (with what the prune
    /// found of it in a game whose units are nodes, `found`): its stretches into
    /// `scratch.stretches` (first node, end), the moves inside that may follow its hits into
    /// `scratch.inner`.
    ///
    /// A cell whose point changed once at most held nothing until its one stone came (if
    /// one came) and that stone to the end. So without a point changed again, the candidate
    /// stands from the last arrival of a stone its cell wants (one that refuses empty) until
    /// the first arrival of a stone its cell refuses (one that allows empty): one stretch. A
    /// cell that refuses its final state and empty never matches. A stone that comes
    /// meanwhile onto a cell that allows both it and empty (`*`, `x`, `o`) leaves it
    /// standing: that move is the continuation of the hit before it. The points changed
    /// again (a few a candidate, when any) are read change by change ([`Clean::sweep`]).
    fn read_wild(&mut self, times: &impl TimeRead, cand: Cand, found: Option<Survivor>) -> Read {
        let (vi, (c, r)) = cand;
        let vp = &self.plan.variants[vi as usize];
        let n = usize::from(self.size.get());
        let tables = times.tables();
        let fin = tables.fin;
        let width = vp.width as usize;
        let mask = (1u32 << width) - 1;
        let (c0, r0) = (c as usize, r as usize);
        self.scratch.inner.clear();
        self.scratch.changes.clear();
        self.scratch.stretches.clear();
        // Without a point changed again, the stretch is what the prune read in nodes (its
        // stones' arrival, the first stone refused and its cell): only the stones onto cells
        // allowing empty and a stone are read again.
        if let Some(found) = found.filter(|f| f.dead == u32::MAX || f.at.is_some()) {
            if (0..vp.rows.len()).all(|y| times.changed_again((r0 + y) * n + c0, width) == 0) {
                let until = found
                    .at
                    .map(|[x, y]| Until::final_stone(fin, n, found.dead, (x.into(), y.into())));
                self.read_clean(times, cand, found.arrive, until);
                self.scratch.stretches.push((found.arrive, until));
                return Read::Stretches;
            }
        }
        let Scratch {
            lists,
            inner,
            changes,
            stretches,
            ..
        } = &mut *self.scratch;
        let (mut s, mut e) = (0u32, (u32::MAX, 0usize, 0usize));
        // The cells changed again that refuse empty (all are empty before the root).
        let mut wrong = 0u32;
        for (y, &[_, _, xe]) in vp.rows.iter().enumerate() {
            let row = r0 + y;
            let at = row * n + c0;
            let again = times.changed_again(at, width);
            let (b, w) = (
                row_word(fin, row) >> c & mask,
                row_word(fin, n + row) >> c & mask,
            );
            let bad = vp.wrong(y, b, w) & mask & !again;
            if bad & xe != 0 {
                return Read::Never;
            }
            for x in ones(&[u64::from((b | w) & !bad & xe & !again)]) {
                s = s.max(times.last_once(at + x));
            }
            // The cells refusing their final state allow empty (the others never match).
            if let Some((f, x)) = times.last_min(at, bad) {
                if f < e.0 {
                    e = (f, c0 + x as usize, row);
                }
            }
            for x in ones(&[u64::from((b | w) & !bad & !xe & !again)]) {
                inner.push(Held::arrival(
                    times.last_once(at + x),
                    (c0 + x, row),
                    w >> x & 1 != 0,
                ));
            }
            if again == 0 {
                continue;
            }
            wrong += (xe & again).count_ones();
            for x in ones(&[u64::from(again)]) {
                // Boards are at most 25x25.
                let cell = (x as u8, y as u8);
                if let Some((from, to, white)) = times.held_once(at + x) {
                    changes.push((from, cell, 1 + u8::from(white)));
                    changes.push((to, cell, 0));
                    inner.push(Held::arrival(from, (c0 + x, row), white));
                    continue;
                }
                let Some(list) = times.changes_listed(at + x, lists) else {
                    return Read::Walk;
                };
                for (node, state) in list {
                    changes.push((node, cell, state));
                    if state != 0 {
                        inner.push(Held::arrival(node, (c0 + x, row), state == 2));
                    }
                }
            }
        }
        if s >= e.0 {
            return Read::Never;
        }
        let until = (e.0 != u32::MAX).then(|| Until::final_stone(fin, n, e.0, (e.1, e.2)));
        if changes.is_empty() {
            inner.retain(|h| h.from > s && h.from < e.0);
            stretches.push((s, until));
        } else {
            // A stone of the root's setup is no move. The stones onto cells wanted changed once
            // came no later than `s`; of those onto cells refused, the first (`until`'s) is
            // the one a placement may wait for.
            inner.retain(|h| h.from > 0);
            if let Some(Until {
                node,
                at: Some((x, y, white)),
            }) = until
            {
                inner.push(Held::arrival(node, (x, y), white));
            }
            self.sweep(cand, wrong, (s, until));
        }
        Read::Stretches
    }

    /// The stretches of candidate `cand` within its stretch as its points changed once at
    /// most tell it (from node `s` until `until`), from the changes of its other points
    /// (`scratch.changes`, of which `wrong` refuse empty), into `scratch.stretches`: it
    /// stands wherever none of them holds a state its cell refuses. A stretch they end ends
    /// at a change to a refused state, whose move is the stone that came inside then if one
    /// did (on a plain line a stone comes only with its node's move), else outside (a
    /// capture). `scratch.inner` holds every stone that came onto the rectangle after `s`,
    /// but those after `until`'s.
    fn sweep(&mut self, cand: Cand, mut wrong: u32, (s, until): (u32, Option<Until>)) {
        let vp = &self.plan.variants[cand.0 as usize];
        let Scratch {
            changes,
            states,
            spans,
            stretches,
            inner,
            ..
        } = &mut *self.scratch;
        changes.sort_unstable_by_key(|ch| ch.0);
        let width = vp.width as usize;
        states.clear();
        states.resize(width * vp.rows.len(), 0);
        // Cells refusing a state: empty, Black, White.
        let refuses = |(x, y): (u8, u8), state: u8| {
            let [xb, xw, xe] = vp.rows[usize::from(y)];
            let bits = [xe, xb, xw][usize::from(state % 3)];
            u32::from(bits >> x & 1 != 0)
        };
        let end = until.map_or(u32::MAX, |u| u.node);
        spans.clear();
        let mut open = (wrong == 0).then_some(0u32);
        let mut k = 0;
        while let Some(&(node, ..)) = changes.get(k) {
            while let Some(&(_, cell, state)) = changes.get(k).filter(|ch| ch.0 == node) {
                if let Some(old) = states.get_mut(usize::from(cell.1) * width + usize::from(cell.0))
                {
                    wrong = wrong + refuses(cell, state) - refuses(cell, *old);
                    *old = state;
                }
                k += 1;
            }
            match open {
                Some(from) if wrong != 0 => {
                    spans.push((from, node));
                    open = None;
                }
                None if wrong == 0 => open = Some(node),
                _ => {}
            }
        }
        if let Some(from) = open {
            spans.push((from, u32::MAX));
        }
        for &(from, to) in spans.iter() {
            let (from, to) = (from.max(s), to.min(end));
            if from >= to {
                continue;
            }
            let ends = if to == end {
                until
            } else {
                let at = inner.iter().find(|h| h.from == to);
                Some(Until {
                    node: to,
                    at: at.map(Held::spot),
                })
            };
            stretches.push((from, ends));
        }
    }
}
