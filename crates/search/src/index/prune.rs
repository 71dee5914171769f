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
//! four cells a branch (fewer instructions still, but slower: its fill per game).

use super::entry::{row_word, ColdView};
use super::plan::{Plan, VariantPlan};
use super::times::TimeRead;
use super::GameEntry;

/// Leaves out of `cands` those that cannot stand at any node of `g`'s main line; returns the
/// last node at which one of the others may stand (`u32::MAX`: no bound known) and the first
/// (0: none known): before it, none has all its stones.
pub(crate) fn prune(
    cands: &mut Vec<(u32, (u32, u32))>,
    plan: &Plan,
    g: &GameEntry,
    cold: ColdView<'_>,
    from: u32,
) -> (u32, u32) {
    let n = usize::from(g.side);
    // A node's move number is at most its index plus one (a root may hold a move), so a
    // candidate that cannot stand at node `from - 1` or later is before the window.
    let from = from.saturating_sub(1) >> g.shift;
    let Some(times) = cold.times else {
        return (u32::MAX, 0);
    };
    let (bound, start) = if cands.len() >= UNPACK_FROM {
        filter(cands, plan, &times.unpacked(), times.fin, n, from)
    } else {
        filter(cands, plan, &times, times.fin, n, from)
    };
    // Back from units of `1 << shift` nodes (last changes were rounded up, first stones
    // down).
    let bound = if bound == u32::MAX {
        bound
    } else {
        bound << g.shift
    };
    let start = start.checked_shl(u32::from(g.shift)).unwrap_or(0);
    (bound, if start < SKIP_FROM { 0 } else { start })
}

/// The first node from which the walks skip what comes before it ([`super::walk::GameWalk`]'s
/// `start`): a start before it saves less than the candidates' state made again there costs
/// (with every start kept, 2% more instructions for the sparse corner of `bench/search.sh`,
/// whose stone often comes first; from 8, 1% more for the crowded corner).
const SKIP_FROM: u32 = 4;

/// Candidates from which a game's time tables are unpacked before the prune
/// ([`super::times::Unpacked`]).
const UNPACK_FROM: usize = 16;

/// The prune's loop over the candidates, with the time tables `times` and the final board
/// `fin`; gives the bound and the earliest unit a survivor's stones are all there by.
#[inline(always)]
fn filter(
    cands: &mut Vec<(u32, (u32, u32))>,
    plan: &Plan,
    times: &impl TimeRead,
    fin: &[u8],
    n: usize,
    from: u32,
) -> (u32, u32) {
    let mut bound = 0u32;
    let mut start = u32::MAX;
    let mut keep = 0;
    for i in 0..cands.len() {
        let cand = cands[i];
        let (vi, (c, r)) = cand;
        let v = &plan.variants[vi as usize];
        if let Some((dead, born)) = survives(times, fin, v, n, c as usize, r as usize, from) {
            bound = bound.max(dead);
            start = start.min(born);
            cands[keep] = cand;
            keep += 1;
        }
    }
    cands.truncate(keep);
    (bound, if keep == 0 { 0 } else { start })
}

/// The first node after which the final board `fin` contradicts a cell of `v` at place
/// `(c, r)` for good (`u32::MAX`: none does) when its stones all arrive before it (by the time
/// tables), with the unit they are all there by, `None` when they cannot.
#[inline(always)]
fn survives(
    times: &impl TimeRead,
    fin: &[u8],
    v: &VariantPlan,
    n: usize,
    c: usize,
    r: usize,
    from: u32,
) -> Option<(u32, u32)> {
    let at = r * n + c;
    let born = v
        .stone_at
        .iter()
        .fold(from, |m, &o| m.max(times.first(at + usize::from(o))));
    let mut dead = u32::MAX;
    for y in 0..v.rows.len() {
        let row = r + y;
        let (b, w) = (row_word(fin, row) >> c, row_word(fin, n + row) >> c);
        let mut wrong = v.wrong(y, b, w);
        let row_at = row * n + c;
        while wrong != 0 {
            let x = wrong.trailing_zeros() as usize;
            wrong &= wrong - 1;
            dead = dead.min(times.last(row_at + x));
            if dead <= born {
                return None;
            }
        }
    }
    Some((dead, born))
}
