//! The prune of a game's candidates by its time tables, before any node is read: a candidate
//! can only stand between the node its last stone arrives (`first`) and the first node after
//! which the final board contradicts one of its cells for good (`last` of such a cell), so a
//! candidate whose last stone comes no earlier than that is left out, and the walk stops after
//! the latest node a survivor may stand at.
//!
//! Most candidates are rejected on their first row (99% of a 5x5 anywhere's 707,000), so what
//! a test costs beyond its few loads is most of the prune: the game's final board and tables
//! are copied once into arrays that every index fits (masked, no bounds check), and the
//! candidates are filtered in place by a plain loop (`Vec::retain` called a closure per
//! candidate): 6% fewer instructions for the 5x5 anywhere. Tried and dropped: one table per
//! kind of cell (last change where the final board contradicts that kind, else 255), four
//! cells a branch: fewer instructions still, but slower (its fill per game).

use super::entry::{row_word, ColdView};
use super::plan::{Plan, VariantPlan};
use super::GameEntry;
use kifu_go::BoardSize;

/// The largest board side (`BoardSize::MAX`).
const MAX_SIDE: usize = BoardSize::MAX as usize;
/// The length of the arrays of one value per point (a power of two above `MAX_SIDE²`,
/// indices are masked to it so that no bounds check is left).
const MAX_POINTS: usize = 1024;

/// One game's final board and time tables, in arrays large enough for any board, reused from
/// game to game.
#[derive(Debug)]
pub(crate) struct Times {
    /// The final board: Black's rows, then White's.
    rows: [u32; 64],
    /// Per point (`row * n + col`): the node of its first stone, of its last change.
    first: [u8; MAX_POINTS],
    last: [u8; MAX_POINTS],
}

impl Default for Times {
    fn default() -> Self {
        Times {
            rows: [0; 64],
            first: [0; MAX_POINTS],
            last: [0; MAX_POINTS],
        }
    }
}

impl Times {
    /// Leaves out of `cands` those that cannot stand at any node of `g`'s main line; returns
    /// the last node at which one of the others may stand (`u32::MAX`: no bound known).
    pub(crate) fn prune(
        &mut self,
        cands: &mut Vec<(u32, (u32, u32))>,
        plan: &Plan,
        g: &GameEntry,
        cold: ColdView<'_>,
    ) -> u32 {
        let n = usize::from(g.side);
        let Some((fin, times)) = cold.times else {
            return u32::MAX;
        };
        let points = n * n;
        if n > MAX_SIDE || times.len() < 2 * points || fin.len() < 8 * n {
            // Not a record the opening's check passes: no bound, every candidate walked.
            return u32::MAX;
        }
        self.first[..points].copy_from_slice(&times[..points]);
        self.last[..points].copy_from_slice(&times[points..2 * points]);
        for (i, row) in self.rows[..2 * n].iter_mut().enumerate() {
            *row = row_word(fin, i);
        }
        let mut bound = 0u32;
        let mut keep = 0;
        for i in 0..cands.len() {
            let cand = cands[i];
            let (vi, (c, r)) = cand;
            let v = &plan.variants[vi as usize];
            if let Some(dead) = self.survives(v, n, c as usize, r as usize) {
                bound = bound.max(dead);
                cands[keep] = cand;
                keep += 1;
            }
        }
        cands.truncate(keep);
        // Back from units of `1 << shift` nodes (last changes were rounded up).
        if bound == u32::MAX {
            bound
        } else {
            bound << g.shift
        }
    }

    /// The first node after which the final board contradicts a cell of `v` at place
    /// `(c, r)` for good (`u32::MAX`: none does) when its stones all arrive before it, `None`
    /// when they cannot.
    #[inline(always)]
    fn survives(&self, v: &VariantPlan, n: usize, c: usize, r: usize) -> Option<u32> {
        let at = r * n + c;
        let mut born = 0u32;
        for &o in &v.stone_at {
            born = born.max(u32::from(self.first[(at + usize::from(o)) % MAX_POINTS]));
        }
        let mut dead = u32::MAX;
        for (y, masks) in v.rows.iter().enumerate() {
            let row = r + y;
            let b = self.rows[row % 64] >> c;
            let w = self.rows[(n + row) % 64] >> c;
            let mut wrong = ((b | w) & masks[0])
                | (!b & masks[1])
                | (!w & masks[2])
                | (w & masks[3])
                | (b & masks[4]);
            let row_at = row * n + c;
            while wrong != 0 {
                let x = wrong.trailing_zeros() as usize;
                wrong &= wrong - 1;
                dead = dead.min(u32::from(self.last[(row_at + x) % MAX_POINTS]));
                if dead <= born {
                    return None;
                }
            }
        }
        Some(dead)
    }
}
