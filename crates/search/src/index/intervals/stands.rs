//! How a candidate stands, read from a game's time tables: [`stands`] and its [`Reading`] of
//! the candidate's cells.

use super::{Held, Scratch, MAX_HELD};
use crate::index::columns::ones;
use crate::index::entry::row_word;
use crate::index::plan::VariantPlan;
use crate::index::prune::Survivor;
use crate::index::times::TimeRead;

/// How a candidate stands along a plain main line ([`MainLine`]), as the time tables tell.
///
/// [`MainLine`]: crate::index::times::MainLine
pub(super) enum Stands {
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
pub(super) struct Until {
    pub(super) node: u32,
    pub(super) at: Option<(usize, usize, bool)>,
}

impl Until {
    /// Node `node`, whose move put the final board `fin`'s stone on column `x`, row `y` of a
    /// board of side `n` (a plain line's move on a point changed once).
    pub(super) fn final_stone(fin: &[u8], n: usize, node: u32, (x, y): (usize, usize)) -> Until {
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
///
/// [`super::times::Halves`]: crate::index::times::read::Halves
#[inline(always)]
pub(super) fn stands(
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
