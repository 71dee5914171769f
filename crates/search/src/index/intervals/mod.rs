//! The counted walk of a pattern without wildcards, by stretches: what [`super::walk`]'s
//! `walk_counted` counts node by node (every standing candidate is a hit, and the next node's
//! move says what followed it), counted once per stretch of nodes a candidate stands.
//!
//! A candidate of a pattern whose every cell wants one state stands until a change inside its
//! rectangle: any change there gives a cell a state it does not want. So while it stands, the
//! node after each of its hits changes nothing inside it: a move outside (tenuki), a pass, a
//! node without a move (the hit is dropped: a child without a move stands for its parent), or
//! a move inside that changed nothing (suicide, a stone played onto its own colour), which is
//! looked for at each such node. Only the node that ends a stretch says something of its own:
//! a move inside (the continuation), a move outside whose captures emptied a cell (tenuki), a
//! pass or setup. So the hits of a stretch but its last are counted from running sums over the
//! nodes (per node, whether the hits the side-to-move and move-number filters keep there,
//! plain and swapped, were followed by a move or a pass), and the last from the node that
//! ends it: no work per standing candidate and node. For the densest of 200 queries cut from
//! real positions at 100,000 games (lone stones near a side, 6-8 million hits), the loop over
//! the standing candidates at every node and the test of every hit against every move were
//! most of the walk.

mod stands;
#[cfg(test)]
mod tests;
mod wild;

use super::columns::ones;
use super::plan::Plan;
use super::prune::Survivor;
use super::times::{ListStarts, MainLine, TimeRead};
use super::walk::{node_move, GameWalk};
use super::workspace::Workspace;
use crate::filter::Winner;
use crate::scan::{Outside, Scan, SizeVariants};
use kifu_go::{BoardSize, Color, Move, Point};
use stands::{stands, Stands, Until};

/// Running sums at a node: of the hits of the nodes before it that the filters keep (plain
/// variants, then swapped), those followed by a move, by a pass.
#[derive(Clone, Copy, Default, Debug)]
pub(crate) struct Sums {
    play: [u32; 2],
    pass: [u32; 2],
}

/// One game's hits counted so far, by what followed them (plain variants, then swapped).
#[derive(Default)]
pub(super) struct Tallies {
    tenuki: [u64; 2],
    pass: [u64; 2],
    end: [u64; 2],
    inside: u64,
    /// Hits the sums count as tenuki that were followed by a move inside changing nothing.
    not_tenuki: [u64; 2],
}

/// What [`Tallies::inside`] counts a hit into: the candidate's variant and place, the
/// query's variants, the game's winner and board size.
type Counted<'s> = (usize, (u32, u32), &'s SizeVariants, Winner, BoardSize);

impl Tallies {
    /// Counts into `scan` a hit followed by a move inside, a stone at column `x` and row `y`
    /// of the board (White when `white`).
    #[inline(always)]
    fn inside(
        &mut self,
        scan: &mut Scan<'_>,
        (vi, place, shared, winner, size): Counted<'_>,
        (x, y, white): (usize, usize, bool),
    ) {
        let colour = if white { Color::White } else { Color::Black };
        if let Ok(p) = Point::new(x as u32, y as u32, size) {
            scan.count_inside(vi, place, shared, winner, (colour, p));
            self.inside += 1;
        }
    }

    /// Adds the hits of nodes `from..to` of a stretch of a candidate (`c`: 1 if its variant
    /// swaps the colours), the nodes after each of which left the candidate standing.
    fn stretch(&mut self, sums: &[Sums], c: usize, from: u32, to: u32) {
        let (Some(a), Some(b)) = (sums.get(from as usize), sums.get(to as usize)) else {
            return;
        };
        self.tenuki[c] += u64::from(b.play[c].saturating_sub(a.play[c]));
        self.pass[c] += u64::from(b.pass[c].saturating_sub(a.pass[c]));
    }

    /// Counts the hits followed by no move inside (tenuki, passes, the game's end) into
    /// `scan`; returns every hit counted.
    pub(super) fn close(&self, scan: &mut Scan<'_>, winner: Winner) -> u64 {
        let tenuki = [0, 1].map(|c| self.tenuki[c].saturating_sub(self.not_tenuki[c]));
        for (kind, [plain, swapped]) in [
            (Outside::Tenuki, tenuki),
            (Outside::Pass, self.pass),
            (Outside::End, self.end),
        ] {
            if plain + swapped > 0 {
                scan.count_outside(kind, plain, swapped, winner);
            }
        }
        [0, 1]
            .map(|c| tenuki[c] + self.pass[c] + self.end[c])
            .iter()
            .sum::<u64>()
            + self.inside
    }
}

/// A while a cell did not hold what the pattern wants there, from node `from` to the node
/// before `to`: a stone on a cell wanted empty ([`TimeRead::held_once`]), whose move at `from`
/// put it at column `x` and row `y` of the board (White when `white`); or, read from a point's
/// changes ([`TimeRead::changes_listed`]), any such while, begun by a stone's arrival
/// (`arrived`: that move) or a removal (a move elsewhere took it).
#[derive(Clone, Copy, Default)]
struct Held {
    from: u32,
    to: u32,
    x: u8,
    y: u8,
    white: bool,
    arrived: bool,
}

impl Held {
    /// A stone's arrival at node `from` on column `x` and row `y` of the board (White when
    /// `white`).
    fn arrival(from: u32, (x, y): (usize, usize), white: bool) -> Held {
        Held {
            from,
            to: 0,
            // Boards are at most 25x25.
            x: x as u8,
            y: y as u8,
            white,
            arrived: true,
        }
    }

    /// Where its stone came, as [`Until::at`] names a move.
    fn spot(&self) -> (usize, usize, bool) {
        (usize::from(self.x), usize::from(self.y), self.white)
    }
}

/// A candidate: its variant, and its place's column and row.
type Cand = (u32, (u32, u32));

/// Cells wanted empty that held a stone for a while, counted from the tables per candidate at
/// most (a candidate with more is left to the walk). With 8, the 3x3 hane anywhere walked
/// 1,300 games a search for 2,800 such candidates: 16 took 1.6% fewer instructions for it and
/// 3.9% for the sparse 7x7 corner of `bench/search.sh` (32: 1.0% and 1.4%).
const MAX_HELD: usize = 16;

/// What [`stands`] fills and reads for a game's candidates, kept by its [`Clean`]: the whiles of
/// the candidate read last, and where the game's change lists start.
///
/// [`stands`]: fn@stands
#[derive(Default)]
struct Scratch {
    held: [Held; MAX_HELD],
    lists: ListStarts,
    /// The moves inside a wildcard candidate's stretch that leave it standing (stones onto
    /// cells that allow both empty and that stone: [`Clean::settle_wild`]); for a candidate
    /// read by [`Clean::sweep`], every move inside its rectangle.
    inner: Vec<Held>,
    /// What [`Clean::sweep`] reads: the changes of the rectangle's points changed again
    /// (node, column and row in the rectangle, new state: 0 empty, 1 Black, 2 White), each
    /// cell's state as they are applied, and the stretches they leave (first node, the node
    /// that ends it).
    changes: Vec<(u32, (u8, u8), u8)>,
    states: Vec<u8>,
    spans: Vec<(u32, u32)>,
    /// A wildcard candidate's stretches (first node, end: [`Clean::read_wild`]).
    stretches: Vec<(u32, Option<Until>)>,
    /// The candidates of a rectangle ([`Clean::settle_deferred`]) with what the prune found of
    /// them, their stretches and moves inside, and the stretches of those before the one
    /// counted (first node, end).
    rect: Vec<(Cand, Option<Survivor>)>,
    members: Vec<wild::Member>,
    group_stretches: Vec<(u32, Option<Until>)>,
    group_inner: Vec<Held>,
    earlier: Vec<(u32, u32)>,
    /// The places of the deferred candidates ([`Clean::defer`]), a word a row and a bit a
    /// column, per shape of rectangle (the pattern's width and height, or turned): `seen`
    /// holds one, `twice` a second one on the same rectangle. Clear between games.
    seen: [[u32; BoardSize::MAX as usize]; 2],
    twice: [[u32; BoardSize::MAX as usize]; 2],
}

/// The buffers of a game's [`Clean`], kept by the [`Workspace`] from game to game: each game's
/// own, grown and freed again, were 10% of the instructions of `#O.o*/..Oo.` anywhere on
/// 100,000 games (malloc and free). The scratch is boxed, so that handing it to a game and
/// back moves a pointer, not its 600 bytes.
#[derive(Default)]
pub(crate) struct CleanBuffers {
    scratch: Option<Box<Scratch>>,
    deferred: Vec<(Cand, Option<Survivor>)>,
    deferred_keys: Vec<u64>,
}

impl std::fmt::Debug for CleanBuffers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CleanBuffers").finish_non_exhaustive()
    }
}

/// The candidates whose hits the time tables tell exactly ([`stands`]), counted into `t` as
/// the prune finds them (hits followed by a move inside into the scan too): for a game whose
/// main line is plain and whose tables read exact nodes, a pattern without wildcards, the main
/// line searched and no side to move asked. By position, a stretch's hits but its last are
/// followed by plays outside or the trailing passes, and its last by the move inside that
/// ends it or the game's end; by placement, its first hit in the window is followed by that
/// same move or end, the first move inside after it. On 100,000 games, for lone stones near a
/// side, this took about 90% of the candidates of the walked games whose units are nodes, and
/// every candidate of about 80% of those games (format 10); since format 11 it takes games of
/// up to 508 nodes too, through [`super::times::Halves`].
///
/// The prune has already read, for each candidate it keeps, when its stones are all there and
/// the first cell the final board contradicts for good; for a candidate of a game whose units
/// are nodes without a point changed again in its rectangle, those are its one stretch
/// ([`Clean::settle`]): two thirds of the densest cut side's 440,000 candidates counted from
/// the tables, which [`stands`] read again at about 500 instructions more each (7% of that
/// search's instructions).
///
/// [`stands`]: fn@stands
/// [`super::times::Halves`]: crate::index::times::read::Halves
pub(super) struct Clean<'q> {
    plan: &'q Plan,
    shared: &'q SizeVariants,
    size: BoardSize,
    /// The query's move window (all nodes when it has none).
    window: (u32, u32),
    placements: bool,
    line: MainLine,
    /// The game's winner.
    winner: Winner,
    scratch: Box<Scratch>,
    /// The hits counted so far.
    t: Tallies,
    /// Whether a candidate was counted.
    counted: bool,
    /// The candidates of a plan with [`Plan::overlap`] (with what the prune found of them),
    /// counted once the prune is done ([`Clean::settle_deferred`]), and the keys
    /// ([`Clean::rect_key`]) of those that share their rectangle, sorted to read them a
    /// rectangle at a time.
    deferred: Vec<(Cand, Option<Survivor>)>,
    deferred_keys: Vec<u64>,
}

impl<'q> Clean<'q> {
    /// Counting for a game of board `size` whose main line is `line` and whose winner is
    /// `winner`, with the query's move window `moves`, by placement when `placements`, in the
    /// buffers it takes from `buffers` (given back by [`Clean::give_back`]).
    pub(super) fn new(
        plan: &'q Plan,
        shared: &'q SizeVariants,
        (size, line): (BoardSize, MainLine),
        (moves, placements): (Option<(u32, u32)>, bool),
        winner: Winner,
        buffers: &mut CleanBuffers,
    ) -> Self {
        let mut scratch = buffers.scratch.take().unwrap_or_default();
        let mut deferred = std::mem::take(&mut buffers.deferred);
        let mut deferred_keys = std::mem::take(&mut buffers.deferred_keys);
        deferred_keys.clear();
        // What a candidate reads is cleared before it is filled, but for the strict
        // candidates' moves inside (none) and the game's lists.
        scratch.inner.clear();
        scratch.lists = ListStarts::default();
        deferred.clear();
        Clean {
            plan,
            shared,
            size,
            window: moves.unwrap_or((0, u32::MAX)),
            placements,
            line,
            winner,
            scratch,
            t: Tallies::default(),
            counted: false,
            deferred,
            deferred_keys,
        }
    }

    /// Gives the buffers [`Clean::new`] took back to `buffers`, for the next game; returns
    /// the hits counted and whether a candidate was.
    pub(super) fn give_back(self, buffers: &mut CleanBuffers) -> (Tallies, bool) {
        buffers.scratch = Some(self.scratch);
        buffers.deferred = self.deferred;
        buffers.deferred_keys = self.deferred_keys;
        (self.t, self.counted)
    }

    /// Counts candidate `cand` into the tallies when the tables `times` tell how it stands;
    /// returns whether it is left to the walk. `found` is what the prune found of it when the
    /// tables' units are nodes: then a candidate without a point changed again in its
    /// rectangle stands from its stones' arrival until its contradicting cell's stone, whose
    /// move ends it.
    #[inline(never)]
    pub(super) fn settle(
        &mut self,
        scan: &mut Scan<'_>,
        times: &impl TimeRead,
        cand: (u32, (u32, u32)),
        found: Option<Survivor>,
    ) -> bool {
        let (vi, place) = cand;
        let plan = self.plan;
        if !plan.strict {
            // A variant that stands on no rectangle with another is counted alone.
            if plan.twins.get(vi as usize).is_some_and(|t| !t.is_empty()) {
                self.defer(cand, found);
                return false;
            }
            return self.settle_wild(scan, times, cand, found);
        }
        let vp = &plan.variants[vi as usize];
        let n = usize::from(self.size.get());
        // (Were a contradiction's cell not named, `stands` would read the candidate again.)
        if let Some(found) = found.filter(|f| f.dead == u32::MAX || f.at.is_some()) {
            let tables = times.tables();
            let (c, r) = (place.0 as usize, place.1 as usize);
            let mut again = [0u32; BoardSize::MAX as usize];
            let rows = &mut again[..vp.rows.len()];
            for (y, a) in rows.iter_mut().enumerate() {
                *a = times.changed_again((r + y) * n + c, vp.width as usize);
            }
            if rows.iter().all(|&a| a == 0) {
                let until = found.at.map(|[x, y]| {
                    Until::final_stone(tables.fin, n, found.dead, (x.into(), y.into()))
                });
                self.count(scan, cand, found.arrive, until, 0);
                return false;
            }
            // The contradicting cell changed once: only the cells changed again are read. (It
            // is a cell of the rectangle; were it not, `stands` reads every cell.)
            let once = found.at.is_none_or(|[x, y]| {
                let (x, y) = (
                    usize::from(x).wrapping_sub(c),
                    usize::from(y).wrapping_sub(r),
                );
                x < vp.width as usize && rows.get(y).is_some_and(|a| a >> x & 1 == 0)
            });
            // Two calls of `stands`, each made for its `read` (one call with `read` chosen
            // before it took the 3x3 hane anywhere 1.7% more instructions).
            if once {
                let read = Some((found, &*rows));
                let how = stands(
                    vp,
                    place,
                    times,
                    n,
                    self.placements,
                    &mut self.scratch,
                    read,
                );
                return self.take(scan, cand, how);
            }
        }
        let how = stands(
            vp,
            place,
            times,
            n,
            self.placements,
            &mut self.scratch,
            None,
        );
        self.take(scan, cand, how)
    }

    /// Whether [`Clean::settle_clean`] may count the candidates without a point changed
    /// again in their rectangle: a plan without wildcards, or with wildcards but no two
    /// variants that may stand on one rectangle (whose candidates are counted a rectangle
    /// at a time, [`Clean::settle_deferred`]).
    pub(super) fn counts_clean(&self) -> bool {
        self.plan.strict || !self.plan.overlap
    }

    /// Whether [`Clean::settle`] reads a candidate's contradicting cell only when no point of
    /// its rectangle changed again (a plan with wildcards: [`Clean::read_wild`]); a plan
    /// without reads it also to skip that cell's changes.
    pub(super) fn names_clean_only(&self) -> bool {
        !self.plan.strict
    }

    /// Counts candidate `cand`, none of whose points changed again while it may stand (their
    /// changes all come by its stones' arrival or from its first contradiction on),
    /// standing from node `arrive` until `until` (the node of its contradicting cell's
    /// stone, that cell's column and row on the board, and whether the stone is White;
    /// `None`: to the end of the line): what [`Clean::settle`] does with such a candidate
    /// once it has read its rows. Its plan has no [`Plan::overlap`] ([`Clean::counts_clean`]).
    #[inline(always)]
    pub(super) fn settle_clean(
        &mut self,
        scan: &mut Scan<'_>,
        times: &impl TimeRead,
        cand: (u32, (u32, u32)),
        arrive: u32,
        until: Option<(u32, [u8; 2], bool)>,
    ) {
        let until = until.map(|(node, [x, y], white)| Until {
            node,
            at: Some((x.into(), y.into(), white)),
        });
        self.count_once(scan, times, cand, arrive, until);
    }

    /// Counts candidate `cand` as [`stands`] found it stands; returns whether it is left to
    /// the walk.
    ///
    /// [`stands`]: fn@stands
    #[inline(always)]
    fn take(&mut self, scan: &mut Scan<'_>, cand: (u32, (u32, u32)), how: Stands) -> bool {
        match how {
            Stands::Unknown => true,
            Stands::Never => false,
            Stands::Stretches { from, until, held } => {
                self.count(scan, cand, from, until, held);
                false
            }
        }
    }

    /// Counts the hits of candidate `cand` standing from node `s` until `until` (the end of
    /// the line when `None`), but while one of the first `count` stones of `self.held` is
    /// there.
    fn count(
        &mut self,
        scan: &mut Scan<'_>,
        cand: (u32, (u32, u32)),
        s: u32,
        until: Option<Until>,
        count: usize,
    ) {
        self.counted = true;
        let placements = self.placements;
        // The stretches, in order: each ends at the arrival of a stone held for a while, the
        // last at the move that ends them all (the final board's stone there). A placement is
        // counted once, at its first hit in the window.
        let end = until.map_or(u32::MAX, |u| u.node);
        // At a node that begins two whiles, the stone that arrived names the move. (Most
        // candidates have none: the sort's call was 0.8% of the 3x3 hane anywhere.)
        if count > 1 {
            self.scratch.held[..count].sort_unstable_by_key(|h| (h.from, !h.arrived));
        }
        let mut at = s;
        for k in 0..count {
            let h = self.scratch.held[k];
            if h.from >= end {
                break;
            }
            let ends = Until {
                node: h.from,
                at: h
                    .arrived
                    .then(|| (usize::from(h.x), usize::from(h.y), h.white)),
            };
            if h.from > at && self.stretch(scan, cand, at, Some(ends)) && placements {
                return;
            }
            at = at.max(h.to);
        }
        if at < end {
            self.stretch(scan, cand, at, until);
        }
    }

    /// Counts the stretch of candidate `cand` from node `s` to the node before `until`
    /// (`None`: to the end of the line); says whether it had a hit in the window. (A method:
    /// as a closure of [`Clean::count`] it was called with its dozen captures gathered
    /// first, 1.3% of the 3x3 hane anywhere's instructions.)
    #[inline(always)]
    fn stretch(
        &mut self,
        scan: &mut Scan<'_>,
        (vi, place): (u32, (u32, u32)),
        s: u32,
        until: Option<Until>,
    ) -> bool {
        let (from, to) = self.window;
        let (line, placements, winner) = (self.line, self.placements, self.winner);
        let (shared, size) = (self.shared, self.size);
        let sw = usize::from(shared.0[vi as usize].swapped);
        let t = &mut self.t;
        let inner = &self.scratch.inner;
        let end = until.map_or(line.nodes - 1, |u| u.node - 1);
        let (a, b) = (s.max(from), end.min(to));
        if a > b {
            return false;
        }
        let into = (vi as usize, place, shared, winner, size);
        if !placements {
            // Hits followed by a node that does not end the stretch: plays outside (or inside
            // onto a wildcard, `inner`), passes.
            let followed = if b < end { Some(b) } else { end.checked_sub(1) };
            if let Some(h) = followed.filter(|&h| h >= a) {
                let (lo, hi) = (a + 1, h + 1);
                let passes = line.passes_in(lo, hi);
                let mut plays = hi - lo + 1 - passes;
                for m in inner.iter().filter(|m| (lo..=hi).contains(&m.from)) {
                    plays = plays.saturating_sub(1);
                    t.inside(scan, into, m.spot());
                }
                t.tenuki[sw] += u64::from(plays);
                t.pass[sw] += u64::from(passes);
            }
            if b < end {
                return true;
            }
        } else if let Some(m) = inner.iter().filter(|m| m.from > a).min_by_key(|m| m.from) {
            // By placement, the first move inside after the first hit.
            t.inside(scan, into, m.spot());
            return true;
        }
        match until.map(|u| u.at) {
            None => t.end[sw] += 1,
            // By placement: no move inside after the stone's removal ([`stands`]).
            Some(None) if placements => t.end[sw] += 1,
            // A plain line's node that takes a stone off holds a move.
            Some(None) => t.tenuki[sw] += 1,
            Some(Some(spot)) => t.inside(scan, into, spot),
        }
        true
    }
}

/// `walk_counted` for a plan whose cells all want one state, with the same counts. Returns
/// the hits counted.
pub(super) fn walk_intervals(
    ws: &mut Workspace,
    game: &GameWalk<'_>,
    scan: &mut Scan<'_>,
    winner: Winner,
    mut t: Tallies,
) -> u64 {
    let GameWalk {
        plan,
        query,
        shared,
        cold,
        size,
        bound,
        start,
    } = *game;
    let variants = &shared.0;
    let n = usize::from(size.get());
    let last_move = query.moves.map_or(u32::MAX, |m| m.1);
    let words = ws.standing.len();
    ws.mark_swapped(variants);
    // Per candidate, the node its stretch began at; the candidates standing at the last node.
    let mut since = std::mem::take(&mut ws.since);
    since.clear();
    since.resize(ws.cands.len(), 0);
    let mut before = std::mem::take(&mut ws.hits);
    before.clear();
    before.resize(words, 0);
    let mut sums = std::mem::take(&mut ws.sums);
    sums.clear();
    let mut lent = ws.lend_nodes();
    let (mut reader, changes, points) = lent.reader(cold, n);
    // Whether the filters keep the hits of the last node (plain, swapped).
    let mut kept = [false; 2];
    // The last node counted, and whether its hits are counted as the game's end.
    let mut last: Option<(u32, bool)> = None;
    let mut index = 0u32;
    // Checked when the index was opened: a damaged node ends the game where it is.
    while let Ok(Some(node)) = reader.next(changes) {
        let i = index;
        index += 1;
        if node.in_variation && !query.variations {
            break;
        }
        // Before `start` no candidate stands: no stretch begins or ends, and the sums are
        // only ever read as differences from a stretch's first node on. (The densest cut
        // side and the sparse 7x7 corner -1.6% instructions; other corners and sides +0.5%
        // at most.)
        if ws.before_start(plan, n, (i, start), changes) {
            sums.push(Sums::default());
            continue;
        }
        let mv = node_move(node.mv, points);
        let mut s = sums.last().copied().unwrap_or_default();
        for (c, &k) in kept.iter().enumerate() {
            match mv {
                Some((_, Move::Play(_))) if k => s.play[c] += 1,
                Some((_, Move::Pass)) if k => s.pass[c] += 1,
                _ => {}
            }
        }
        sums.push(s);
        let waiting = (0..words).any(|w| {
            let kept_bits = (if kept[0] { !ws.swapped[w] } else { 0 })
                | (if kept[1] { ws.swapped[w] } else { 0 });
            before[w] & kept_bits != 0
        });
        if !query.variations && (i > bound || node.move_number > last_move) && !waiting {
            // No candidate stands from here on, or no later hit is kept; those standing end
            // with the node before, whose hits the filters dropped.
            last = i.checked_sub(1).map(|l| (l, false));
            break;
        }
        for &(p, st) in changes.iter() {
            ws.set(plan, n, usize::from(p), st);
        }
        // A move inside the rectangle of candidates that still stand changed nothing there.
        if let (Some((color, Move::Play(p))), Some((_, Some(at)))) = (mv, node.mv) {
            if !changes.iter().any(|&(q, _)| q == at) {
                let (col, row) = (u32::from(p.col()), u32::from(p.row()));
                for (wi, (&was, &is)) in before.iter().zip(&ws.standing).enumerate() {
                    for b in ones(&[was & is]) {
                        let k = wi * 64 + b;
                        let (vi, place) = ws.cands[k];
                        let v = &variants[vi as usize];
                        let c = usize::from(v.swapped);
                        if kept[c] && v.query_cell(place, col, row).is_some() {
                            scan.count_inside(vi as usize, place, shared, winner, (color, p));
                            t.inside += 1;
                            t.not_tenuki[c] += 1;
                        }
                    }
                }
            }
        }
        // The stretches this node ended, then those it began.
        for wi in 0..words {
            let diff = before[wi] ^ ws.standing[wi];
            if diff == 0 {
                continue;
            }
            for b in ones(&[diff & before[wi]]) {
                let k = wi * 64 + b;
                let (vi, place) = ws.cands[k];
                let v = &variants[vi as usize];
                let c = usize::from(v.swapped);
                // Hits from its first node to the one before the last, then the last.
                t.stretch(&sums, c, since[k], i - 1);
                if !kept[c] {
                    continue;
                }
                match mv {
                    Some((color, Move::Play(p))) => {
                        let (col, row) = (u32::from(p.col()), u32::from(p.row()));
                        if v.query_cell(place, col, row).is_some() {
                            scan.count_inside(vi as usize, place, shared, winner, (color, p));
                            t.inside += 1;
                        } else {
                            t.tenuki[c] += 1;
                        }
                    }
                    Some((_, Move::Pass)) => t.pass[c] += 1,
                    None => {}
                }
            }
            for b in ones(&[diff & ws.standing[wi]]) {
                since[wi * 64 + b] = i;
            }
            before[wi] = ws.standing[wi];
        }
        kept = [true, true];
        if let Some((from, to)) = query.moves {
            if node.move_number < from || node.move_number > to {
                kept = [false, false];
            }
        }
        if let Some(tp) = query.to_play {
            // A variant's side to play is the node's in its colours: swapped ones want the
            // other side.
            kept[0] &= node.to_play == tp;
            kept[1] &= node.to_play != tp;
        }
        last = Some((i, true));
    }
    // The stretches still open end at the last node counted.
    if let Some((l, at_end)) = last {
        for k in ones(&before) {
            let (vi, _) = ws.cands[k];
            let c = usize::from(variants[vi as usize].swapped);
            t.stretch(&sums, c, since[k], l);
            if at_end && kept[c] {
                t.end[c] += 1;
            }
        }
    }
    let counted = t.close(scan, winner);
    ws.since = since;
    ws.hits = before;
    ws.sums = sums;
    ws.give_back(lent);
    counted
}
