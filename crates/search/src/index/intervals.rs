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

mod wild;

use super::columns::ones;
use super::entry::row_word;
use super::plan::{Plan, VariantPlan};
use super::prune::Survivor;
use super::times::{ListStarts, MainLine, TimeRead};
use super::walk::{node_move, GameWalk};
use super::workspace::Workspace;
use crate::filter::Winner;
use crate::scan::{Outside, Scan, SizeVariants};
use kifu_go::{BoardSize, Color, Move, Point};

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

/// How a candidate stands along a plain main line ([`MainLine`]), as the time tables tell.
enum Stands {
    /// Its cells changed in ways the tables do not tell apart: left to the walk.
    Unknown,
    /// At no node.
    Never,
    /// From node `from` on, until the node before `until` or to the end of the line, but
    /// while a stone of the first `held` of [`stands`]'s list is there.
    Stretches {
        from: u32,
        until: Option<Until>,
        held: usize,
    },
}

/// The node that ends a candidate's last stretch, and its move: inside, at column `x` and row
/// `y` of the board and White when `at` is `Some((x, y, white))`, else outside (its captures
/// emptied a wanted stone's point). By placement, when that move is outside, `at` is the next
/// move inside, at a later node (`None`: none follows).
#[derive(Clone, Copy)]
struct Until {
    node: u32,
    at: Option<(usize, usize, bool)>,
}

impl Until {
    /// Node `node`, whose move put the final board `fin`'s stone on column `x`, row `y` of a
    /// board of side `n` (a plain line's move on a point changed once).
    fn final_stone(fin: &[u8], n: usize, node: u32, (x, y): (usize, usize)) -> Until {
        let white = row_word(fin, n + y) >> x & 1 != 0;
        Until {
            node,
            at: Some((x, y, white)),
        }
    }
}

/// How candidate `vp` at place `(c, r)` stands, from the tables `times` of a game of side `n`,
/// read in nodes (units of nodes, or [`super::times::Halves`]).
///
/// Its stones that each changed once (their first stone is their last change, the final
/// board's) are all there from the latest of their first nodes on. Its cells wanted empty
/// are empty until their first stone; one of them that changed once holds its stone for good
/// from then on, one that held one stone and was then emptied for good holds it between its
/// first stone and its last change. So when the earliest first stone among its empty cells
/// that are neither (the others changed again) comes no earlier than that of a cell changed
/// once (or none ever holds a stone), the candidate stands exactly from the first to the
/// second but while one of the stones held for a while is there, and on a plain line each
/// such stretch ends at the move of a cell's first stone. A wanted stone that was taken off
/// for good (a point that held one stone) stands from its arrival to its removal, so the
/// last stretch ends there at the latest; a move inside would have put a stone on a cell
/// wanted empty, so unless such a cell's first stone came at that node, the move was outside.
/// By placement the continuation is then the next move inside, however late: the first stone
/// that comes after onto a cell wanted empty (none comes back onto a stone taken for good),
/// named in the last stretch's [`Until`] (`None`: no move inside follows). A cell whose
/// point changed otherwise (a stone taken off and put back, a ko's point) is read from its
/// changes ([`Reading::read_changes`]) by position; by placement (where the next move inside
/// may come onto any cell) such a candidate is [`Stands::Unknown`] when one of its first
/// stones may be the continuation or a stone wanted is taken off and put back. The whiles a
/// cell does not match go to `scratch.held` (a list filled in place: as part of the answer,
/// its copy cost a 7x7 corner 1% more instructions).
///
/// `read`: what the prune found of the candidate in a game whose units are nodes
/// ([`Survivor`]), with the points changed again of each row of its rectangle, when the cell
/// it found contradicting (`found.at`) changed once: that cell's stone is then the earliest
/// among the cells wanted empty that changed once, and the stones' arrival is
/// `found.arrive`, so only the points changed again are read. (Reading every cell again cost
/// the slowest cut corner 11% of its instructions, 516 M against 458 M a search, and the
/// densest cut side 5.5%.)
#[inline(always)]
fn stands(
    vp: &VariantPlan,
    (c, r): (u32, u32),
    times: &impl TimeRead,
    n: usize,
    placements: bool,
    scratch: &mut Scratch,
    read: Option<(Survivor, &[u32])>,
) -> Stands {
    let fin = times.tables().fin;
    let (c0, r0) = (c as usize, r as usize);
    let mask = (1u32 << vp.width) - 1;
    let mut k = match read {
        Some((found, _)) => Reading {
            s: found.arrive,
            e: found.at.map_or((u32::MAX, 0, 0), |[x, y]| {
                (found.dead, usize::from(x), usize::from(y))
            }),
            ..Reading::default()
        },
        None => Reading::default(),
    };
    for (y, &[xb, xw, xe]) in vp.rows.iter().enumerate() {
        let row = r0 + y;
        let at = row * n + c0;
        let stones = xe & mask;
        let empties = xb & xw & !xe & mask;
        let again = match read {
            Some((_, again)) => again[y],
            None => {
                let again = times.changed_again(at, vp.width as usize);
                let (b, w) = (row_word(fin, row) >> c, row_word(fin, n + row) >> c);
                let wrong = vp.wrong(y, b, w) & mask;
                // A stone that changed once and is not the final board's was never there.
                k.never |= wrong & stones & !again != 0;
                for x in ones(&[u64::from(stones & !again)]) {
                    k.s = k.s.max(times.last_once(at + x));
                }
                if let Some((f, x)) = times.last_min(at, empties & wrong & !again) {
                    if f < k.e.0 {
                        k.e = (f, c0 + x as usize, row);
                    }
                }
                again
            }
        };
        let cells = [xb, stones, empties];
        if again != 0 && !k.read_again(times, (c0, row, at), cells, again, placements, scratch) {
            return Stands::Unknown;
        }
    }
    if !k.read_later(times, scratch) {
        return Stands::Unknown;
    }
    k.conclude(fin, n, placements, &scratch.held)
}

/// What [`stands`] reads of a candidate's cells before it concludes.
#[derive(Clone, Copy)]
struct Reading {
    /// The latest first stone of the stones.
    s: u32,
    /// The earliest first stone of the empty cells that changed once, with its cell.
    e: (u32, usize, usize),
    /// The earliest change not followed: by placement, the first stone of an empty cell
    /// that changed again otherwise than held once; the start of a while not kept when
    /// `held` was full. (Changes from the end of the last stretch on do not matter.)
    unread: u32,
    /// The earliest removal of a wanted stone.
    taken: u32,
    never: bool,
    /// The whiles a cell did not match, listed in `held`.
    count: usize,
    /// Cells wanted empty whose changes are read once the others are
    /// ([`Reading::read_later`]): point, column, row.
    later: [(u16, u8, u8); MAX_LATER],
    /// How many of `later` are kept.
    late: usize,
}

/// Cells wanted empty a candidate reads the changes of once its other cells are read, at most
/// (the others are read at once).
const MAX_LATER: usize = 4;

impl Default for Reading {
    fn default() -> Self {
        Reading {
            s: 0,
            e: (u32::MAX, 0, 0),
            unread: u32::MAX,
            taken: u32::MAX,
            never: false,
            count: 0,
            later: [(0, 0, 0); MAX_LATER],
            late: 0,
        }
    }
}

impl Reading {
    /// Reads the cells `again` (changed again) of a row of the rectangle, whose first cell is
    /// column `c0` of board row `row`, point `at`, where `[xb, stones, empties]` are the
    /// row's cells refusing Black, wanting a stone, wanting empty; false when the tables
    /// cannot tell (by placement, a stone wanted that was taken and put back; a point without
    /// its list of changes). By placement, a point's changes are not read: the next move
    /// inside after a hit may then come onto any cell, which [`Reading::conclude`] does not
    /// look for.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn read_again(
        &mut self,
        times: &impl TimeRead,
        (c0, row, at): (usize, usize, usize),
        [xb, stones, empties]: [u32; 3],
        again: u32,
        placements: bool,
        scratch: &mut Scratch,
    ) -> bool {
        for x in ones(&[u64::from(stones & again)]) {
            let Some((from, to, white)) = times.held_once(at + x) else {
                // Wanted White where Black does not match.
                let want = 1 + u8::from(xb >> x & 1 != 0);
                if placements || !self.read_changes(times, at + x, want, (c0 + x, row), scratch) {
                    return false;
                }
                continue;
            };
            // Wanted White where Black does not match. (The bitmaps keep no such candidate:
            // the point held one stone, of one colour.)
            self.never |= white != (xb >> x & 1 != 0);
            self.s = self.s.max(from);
            self.taken = self.taken.min(to);
        }
        for x in ones(&[u64::from(empties & again)]) {
            match times.held_once(at + x) {
                Some((from, to, white)) => self.hold(
                    &mut scratch.held,
                    Held {
                        from,
                        to,
                        // Boards are at most 25x25.
                        x: (c0 + x) as u8,
                        y: row as u8,
                        white,
                        arrived: true,
                    },
                ),
                None if !placements => {
                    // Boards are at most 25x25.
                    let cell = ((at + x) as u16, (c0 + x) as u8, row as u8);
                    if let Some(slot) = self.later.get_mut(self.late) {
                        *slot = cell;
                        self.late += 1;
                    } else if !self.read_changes(times, at + x, 0, (c0 + x, row), scratch) {
                        return false;
                    }
                }
                None => self.unread = self.unread.min(times.first(at + x)),
            }
        }
        true
    }

    /// Reads the changes of point `q` (column `x`, row `y`), a cell wanting state `want` (0
    /// empty, 1 Black, 2 White): the whiles it does not hold that state bound the candidate's
    /// stretches. One from the first node puts off its first; one to the end ends its last,
    /// at a stone's arrival (its move, the final board's stone) or a removal; any other goes
    /// to `held`. False when the point has no list.
    #[inline(never)]
    fn read_changes(
        &mut self,
        times: &impl TimeRead,
        q: usize,
        want: u8,
        (x, y): (usize, usize),
        scratch: &mut Scratch,
    ) -> bool {
        let Some(changes) = times.changes_listed(q, &mut scratch.lists) else {
            return false;
        };
        // Each while the point kept one state: from `from` to the node before the next change.
        let (mut state, mut from) = (0u8, 0u32);
        for (to, next) in changes.chain(std::iter::once((u32::MAX, 0))) {
            if from < to && state != want {
                // (A list holds two changes or more, the last after the root: its last while
                // does not start at node 0.)
                if to == u32::MAX {
                    if state != 0 {
                        if from < self.e.0 {
                            self.e = (from, x, y);
                        }
                    } else {
                        self.taken = self.taken.min(from);
                    }
                } else if from == 0 {
                    self.s = self.s.max(to);
                } else {
                    let (x, y) = (x as u8, y as u8);
                    let (white, arrived) = (state == 2, state != 0);
                    self.hold(
                        &mut scratch.held,
                        Held {
                            from,
                            to,
                            x,
                            y,
                            white,
                            arrived,
                        },
                    );
                }
            }
            (state, from) = (next, to);
        }
        true
    }

    /// Reads the changes of the cells of `later`, but those whose first stone comes after the
    /// end of the candidate's last stretch as the other cells tell it (a cell wanted empty
    /// matches until its first stone): a ko's point near a corner changes many times, mostly
    /// after a candidate is gone. (Reading every such list, the slowest cut corner read 508 M
    /// instructions a search, against 445 M.) False when a point has no list.
    #[inline(always)]
    fn read_later(&mut self, times: &impl TimeRead, scratch: &mut Scratch) -> bool {
        for i in 0..self.late {
            let end = self.e.0.min(self.taken);
            if self.never || self.s >= end {
                return true;
            }
            let (q, x, y) = self.later[i];
            let (q, x, y) = (usize::from(q), usize::from(x), usize::from(y));
            // A first stone at the end may be the move that ends it.
            if times.first(q) <= end && !self.read_changes(times, q, 0, (x, y), scratch) {
                return false;
            }
        }
        true
    }

    /// Keeps while `h` in `held`, or when `held` is full, its start as a change not followed.
    #[inline(always)]
    fn hold(&mut self, held: &mut [Held; MAX_HELD], h: Held) {
        match held.get_mut(self.count) {
            Some(slot) => {
                *slot = h;
                self.count += 1;
            }
            None => self.unread = self.unread.min(h.from),
        }
    }

    /// How the candidate read stands, on the final board `fin` of a board of side `n`.
    #[inline(always)]
    fn conclude(&self, fin: &[u8], n: usize, placements: bool, held: &[Held]) -> Stands {
        let Reading {
            s,
            e,
            unread,
            taken,
            never,
            count,
            ..
        } = *self;
        let end = e.0.min(taken);
        if never || s >= end {
            Stands::Never
        } else if unread < end || (unread == end && end != u32::MAX) {
            // (At a removal, the move that took the stone may have been the first onto such a
            // cell; a cell changed once has no first stone at another's node.)
            Stands::Unknown
        } else {
            let until = if e.0 == end {
                (end != u32::MAX).then(|| Until::final_stone(fin, n, end, (e.1, e.2)))
            } else {
                let at = if placements {
                    // The next stone onto a cell wanted empty, from that node on: a held
                    // stone's (arriving at that node, it was the move inside) or the cell's of
                    // `e`.
                    let next = held[..count]
                        .iter()
                        .filter(|h| h.arrived && h.from >= end && h.from < e.0)
                        .min_by_key(|h| h.from);
                    if unread < next.map_or(e.0, |h| h.from) {
                        return Stands::Unknown;
                    }
                    match next {
                        Some(h) => Some(h.spot()),
                        None if e.0 != u32::MAX => Until::final_stone(fin, n, e.0, (e.1, e.2)).at,
                        None => None,
                    }
                } else {
                    // A held stone arriving at that node was the move inside.
                    held[..count]
                        .iter()
                        .find(|h| h.arrived && h.from == end)
                        .map(Held::spot)
                };
                Some(Until { node: end, at })
            };
            Stands::Stretches {
                from: s,
                until,
                held: count,
            }
        }
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
    /// counted once the prune is done ([`Clean::settle_deferred`]), and their keys
    /// ([`Clean::rect_key`]), sorted to read them a rectangle at a time.
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
            if plan.overlap {
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

    /// Counts candidate `cand` as [`stands`] found it stands; returns whether it is left to
    /// the walk.
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

#[cfg(test)]
mod tests {
    use crate::collection::CollectionFile;
    use crate::index::entry::{Cold, ColdView};
    use crate::index::PatternIndex;
    use crate::query::Counting;
    use crate::scan::Page;
    use crate::{Pattern, Placement, Query};
    use kifu_go::{BoardSize, Color, Move, Point, Position};
    use kifu_posdb::extract::Source;

    /// Games with what a stretch's end can be: moves inside and outside, captures of a
    /// pattern's stones by a move outside, passes, setup after a move and nodes of setup
    /// alone, a stone played onto a stone of its colour and a suicide (moves inside that
    /// change nothing), the game's end; and plain main lines, counted from the time tables
    /// ([`super::Clean`]): captures, a point played again, a handicap, trailing passes, a
    /// stone taken for good by a move whose point is then emptied by setup and played again.
    const GAMES: &str = "(;SZ[9]RU[NZ]RE[B+R]DT[1999];B[cc];W[gg];B[cg];W[gc];B[];W[dd]\
        ;B[ee];W[];B[cc];W[cd];B[dc];W[ce]AB[ff];B[bd];W[be];B[ed];W[ff];B[fe])\
        (;SZ[9]RU[NZ]RE[W+1.5]DT[2003];B[ba];W[aa];B[ab];W[ab];B[gg];W[cc];B[];W[ii]\
        ;B[hi];W[ih];B[ii])(;SZ[9]AB[cc][gg]AW[gc]HA[2];W[cg];B[ee];W[];B[];W[dd])\
        (;SZ[9]DT[2010];B[cc];AW[gg];W[cg];B[gc];AB[ee]AE[cc];W[dd];AW[cc];B[];W[ff])\
        (;SZ[9]RE[W+2]DT[2006];B[ba];W[aa];B[ab];W[ee];B[cc];W[ca];B[aa];W[gg];B[cd];W[dc];B[];W[])\
        (;SZ[9]RE[B+R]DT[2007];B[ee];W[de];B[df];W[ef];B[ed];W[fe];B[dd];W[ce];B[ff];W[eg];B[cf]\
        ;W[fd];B[fc];W[ec];B[gd];W[ge];B[fb];W[cc];B[cd];W[bd];B[dc];W[eb])\
        (;SZ[9]HA[2]AB[cc][gg]RE[W+0.5];W[gc];B[cg];W[ee];B[ec];W[ce];B[dc];W[cb];B[])\
        (;SZ[9]RE[B+R];B[aa];W[ba];B[bb];W[ii];B[ca];W[hh];B[gg]AE[ca];W[hi];B[ca])";

    /// An `n` x `n` game of up to `moves` random legal moves (an LCG from `seed`; it ends
    /// early when a side has no legal move) and two passes: a long plain line, with many
    /// captures and points played again.
    fn long_game(n: u32, seed: u64, moves: usize) -> String {
        let size = BoardSize::new(n).unwrap();
        let mut pos = Position::new(size);
        let mut x = seed;
        let mut color = Color::Black;
        let mut sgf = format!("(;SZ[{n}]RE[W+R]");
        for _ in 0..moves {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let start = (x >> 33) as u32;
            let points = || {
                (0..n * n)
                    .map(|k| (start + k) % (n * n))
                    .map(|i| Point::new(i % n, i / n, size).unwrap())
            };
            // Not into its own eye while it has another move, so that the game goes on.
            let eye = |pos: &Position, p: Point| {
                let (c, r) = (u32::from(p.col()), u32::from(p.row()));
                [
                    (c.wrapping_sub(1), r),
                    (c + 1, r),
                    (c, r.wrapping_sub(1)),
                    (c, r + 1),
                ]
                .into_iter()
                .filter_map(|(c, r)| Point::new(c, r, size).ok())
                .all(|q| pos.stone_at(q) == Some(color))
            };
            let order: Vec<Point> = points()
                .filter(|&p| !eye(&pos, p))
                .chain(points())
                .collect();
            let played = order
                .into_iter()
                .find(|&p| pos.play(color, Move::Play(p)).is_ok());
            let Some(p) = played else { break };
            let [c, r] = p.to_sgf();
            let who = if color == Color::Black { 'B' } else { 'W' };
            sgf.push_str(&format!(";{who}[{}{}]", c as char, r as char));
            color = color.opponent();
        }
        sgf + ";B[];W[])"
    }

    /// The counted walks (by stretches for positions, [`super::super::placements`] for
    /// placements) give the plain scan's answers.
    #[test]
    fn counted_walks_count_as_the_plain_scan() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.sgf");
        // Long plain lines too (13x13: random games on 9x9 end too soon): past node 254 (in
        // units of two nodes, counted from exact nodes) and past node 508 (in units of four,
        // walked).
        // Then lines that end with nodes without a move or a change (comments, territory),
        // left out of the plain line: a short one whose move window ends at its last move,
        // and a long one in units of two nodes.
        let long = [
            long_game(13, 9, 300),
            long_game(13, 15, 2000),
            long_game(13, 9, 600),
            "(;SZ[9]RE[B+R];B[cc];W[gg];B[cg];W[gc];B[dd];W[cd];B[ee];C[end];TB[aa]TW[ii])"
                .to_string(),
            long_game(13, 21, 320).replace(";B[];W[])", ";B[];W[];C[counted];)"),
        ];
        std::fs::write(&path, format!("{GAMES}{}", long.concat())).unwrap();
        let files = vec![CollectionFile {
            source: Source::new(&path),
            ids: (0..13).map(Some).collect(),
        }];
        let idx = PatternIndex::build(&files);
        let units: Vec<_> = idx.games.iter().map(|g| (g.times, g.shift)).collect();
        assert_eq!(
            units[8..],
            [(true, 1), (true, 1), (true, 2), (true, 0), (true, 1)]
        );
        for g in &idx.games[7..] {
            let Cold::Bytes(cold) = &g.cold else {
                panic!("built in memory")
            };
            let view = ColdView::parse(cold, g.side, g.times, g.shift).unwrap();
            assert!(view.times.unwrap().line.is_some(), "a plain line");
        }
        // A full page: the hits are counted, not listed.
        let page = Page {
            offset: 0,
            limit: 0,
        };
        let mut checked = 0;
        let sizes = [9, 13].map(|n| BoardSize::new(n).unwrap());
        // With stones that may be taken off for good while the others stand (a wanted stone
        // taken off ends the last stretch).
        let shapes = [
            "#",
            "O",
            ".",
            "#.\n.O",
            "..\n..",
            "...\n.#.\n...",
            "O.\n..",
            "#O.\n.#.",
            ".#.\n#O#",
            // The White stone taken for good by the move at the third cell, whose stone is
            // then taken off by setup and played again (the last game of `GAMES`).
            "#O.",
        ];
        for (size, rows) in sizes.into_iter().flat_map(|s| shapes.map(|r| (s, r))) {
            for placement in [Placement::Anywhere, Placement::At { col: 0, row: 0 }] {
                for (to_play, moves) in [
                    (None, None),
                    (Some(Color::White), None),
                    (None, Some((3, 9))),
                    (None, Some((3, 7))),
                    (None, Some((250, 520))),
                ] {
                    for (swap, counting) in [
                        (false, Counting::Positions),
                        (true, Counting::Positions),
                        (false, Counting::Placements),
                        (true, Counting::Placements),
                    ] {
                        let mut q = Query::new(Pattern::parse(rows).unwrap(), placement);
                        q.swap_colors = swap;
                        q.counting = counting;
                        q.to_play = to_play;
                        q.moves = moves;
                        let indexed =
                            idx.search_many(std::slice::from_ref(&q), page, Some(size), None);
                        let scanned = crate::collection::search_files(&files, &q, page, Some(size));
                        assert_eq!(
                            indexed[0], scanned.answer,
                            "{size} {rows:?} {placement:?} {to_play:?} {moves:?} {swap}"
                        );
                        checked += usize::from(scanned.answer.occurrences > 0);
                    }
                }
            }
        }
        assert!(checked > 300, "{checked} queries with hits");
    }

    /// Counting placements, a wanted stone taken off for good by moves outside (the time
    /// tables count it, [`super::stands`]): the continuation is the next move inside, however
    /// late (a first stone onto a cell wanted empty), and the game's end when none comes.
    #[test]
    fn placements_go_on_past_a_taken_stone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.sgf");
        // Black's dd is held from node 1 and taken by W[dc] at node 8, both White stones
        // beside it inside the rectangle (columns and rows d to f); then the first move
        // inside is W[ff] at node 10 (first game), or none (second), or B[ee] at node 11,
        // taken at node 14 and played again by White (third: walked).
        let start = "(;SZ[9];B[dd];W[ed];B[aa];W[de];B[ii];W[cd];B[ia];W[dc];B[ai]";
        let games = [
            format!("{start};W[ff];B[ha])"),
            format!("{start};W[hh])"),
            format!("{start};W[hh];B[ee];W[ef];B[ha];W[fe];B[hb];W[ee])"),
        ];
        std::fs::write(&path, games.concat()).unwrap();
        let files = vec![CollectionFile {
            source: Source::new(&path),
            ids: (0..3).map(Some).collect(),
        }];
        let idx = PatternIndex::build(&files);
        let page = Page {
            offset: 0,
            limit: 0,
        };
        let size = BoardSize::new(9).unwrap();
        let pattern = Pattern::parse("#O.\nO..\n...").unwrap();
        let mut q = Query::new(pattern, Placement::At { col: 3, row: 3 });
        q.symmetries = false;
        q.counting = Counting::Placements;
        let indexed = idx.search_many(std::slice::from_ref(&q), page, Some(size), None);
        let scanned = crate::collection::search_files(&files, &q, page, Some(size));
        assert_eq!(indexed[0], scanned.answer);
        let a = &indexed[0];
        assert_eq!((a.games, a.occurrences, a.game_ends), (3, 3, 1));
        let mut next: Vec<_> = a
            .continuations
            .iter()
            .map(|c| (c.cell, c.color, c.tally.count))
            .collect();
        next.sort_unstable();
        assert_eq!(next, [((1, 1), 'B', 1), ((2, 2), 'W', 1)]);
    }
}
