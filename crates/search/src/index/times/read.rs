//! The readers of the time tables: the [`TimeRead`] trait over the tables as stored, unpacked
//! ([`Unpacked`]) or in exact nodes ([`Halves`]).

use super::{entry, Changes, ListStarts, TimeTables, DIR_ENTRY, NEVER};
use crate::index::{bytemin, columns};

/// Reads of a game's time tables by point: [`TimeTables`], [`Unpacked`] for a game with many
/// candidates to test, or [`Halves`] for exact nodes in units of two.
pub(crate) trait TimeRead {
    /// Whether [`TimeRead::last`] is the stored byte of [`TimeTables::lasts`] as it is (not
    /// for [`Halves`]): code that reads those bytes at once asserts it.
    const LASTS_STORED: bool;
    /// The tables read.
    fn tables(&self) -> &TimeTables<'_>;
    /// The unit of point `q`'s first stone, rounded down (255: never).
    fn first(&self, q: usize) -> u32;
    /// The unit of the last change of point `q`, rounded up ([`TimeTables::last`]).
    fn last(&self, q: usize) -> u32;
    /// [`TimeRead::last`] of a point known to have changed once at most (not one of the
    /// points changed again): [`Halves`] then reads its parity without looking it up.
    #[inline(always)]
    fn last_once(&self, q: usize) -> u32 {
        self.last(q)
    }
    /// The earliest last change ([`TimeRead::last`]) of the points `at + i` for the bits `i`
    /// of `cells`, points changed once at most ([`TimeRead::last_once`]), with the least such
    /// `i` that holds it; `None` when `cells` is 0. (At once: read cell by cell, the branch on
    /// each was a sixth of the densest cut sides' `settle`.)
    fn last_min(&self, at: usize, cells: u32) -> Option<(u32, u32)>;
    /// For a point that held one stone and was then emptied for good (it changed twice), the
    /// units of the stone's arrival and of its removal, and whether it was White.
    fn held_once(&self, q: usize) -> Option<(u32, u32, bool)>;
    /// The changes of a point changed again that did not hold one stone, in exact nodes
    /// ([`TimeTables::changes`]), found through the game's `lists`
    /// ([`TimeTables::changes_listed`]).
    #[inline(always)]
    fn changes_listed(&self, q: usize, lists: &mut ListStarts) -> Option<Changes<'_>> {
        self.tables().changes_listed(q, lists)
    }
    /// These tables with their first stones a byte per point, when they are so
    /// ([`Unpacked`]): the prune hands them to the counting with each candidate it keeps.
    #[inline(always)]
    fn unpacked(&self) -> Option<&Unpacked<'_, '_>> {
        None
    }
    /// The points `q..q + len` that changed again, as bits ([`TimeTables::changed_again`];
    /// [`Unpacked`] reads its own copy of the directory's words).
    #[inline(always)]
    fn changed_again(&self, q: usize, len: usize) -> u32 {
        self.tables().changed_again(q, len)
    }
}

impl TimeRead for TimeTables<'_> {
    const LASTS_STORED: bool = true;

    #[inline(always)]
    fn tables(&self) -> &TimeTables<'_> {
        self
    }

    #[inline(always)]
    fn first(&self, q: usize) -> u32 {
        TimeTables::first(self, q)
    }

    #[inline(always)]
    fn last(&self, q: usize) -> u32 {
        TimeTables::last(self, q)
    }

    #[inline(always)]
    fn last_min(&self, at: usize, cells: u32) -> Option<(u32, u32)> {
        bytemin::masked_min(self.last, at, cells)
            .map(|(b, holding)| (u32::from(b), holding.trailing_zeros()))
    }

    #[inline(always)]
    fn held_once(&self, q: usize) -> Option<(u32, u32, bool)> {
        let r = self.again_rank(q)?;
        let bits = self.twice_bits(r);
        (bits & 1 != 0).then(|| (self.again_first(r), self.last(q), bits & 2 != 0))
    }
}

/// Exact nodes from tables in units of two nodes ([`TimeTables::halves`]): a unit doubled, less
/// one when the node is odd (last changes were rounded up), plus one (first stones were
/// rounded down). A point that never held a stone reads 510, past every node they hold.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Halves<'t, 'a>(pub(super) &'t TimeTables<'a>);

impl<'a> TimeTables<'a> {
    /// Exact reads of tables in units of two nodes (`None` for other units; units of nodes are
    /// exact as they are).
    #[inline(always)]
    pub(crate) fn halves(&self) -> Option<Halves<'_, 'a>> {
        (self.shift == 1).then_some(Halves(self))
    }

    /// The two bits of member `r` of the points changed again in `twice`.
    #[inline(always)]
    pub(super) fn twice_bits(&self, r: usize) -> u32 {
        self.twice
            .get(r / 4)
            .map_or(0, |&b| u32::from(b >> (2 * (r % 4))) & 3)
    }

    /// Bit `i` of the parities of the points changed again.
    #[inline(always)]
    fn parity(&self, i: usize) -> u32 {
        self.parity
            .get(i / 8)
            .map_or(0, |&b| u32::from(b >> (i % 8)) & 1)
    }
}

impl Halves<'_, '_> {
    /// The node of the first stone of member `r` of the points changed again.
    #[inline(always)]
    fn again_first(&self, r: usize) -> u32 {
        2 * self.0.again_first(r) + self.0.parity(2 * r + 1)
    }

    /// The node of point `q`'s last change, with `odd` whether it is odd.
    #[inline(always)]
    fn last_odd(&self, q: usize, odd: u32) -> u32 {
        (2 * self.0.last(q)).saturating_sub(odd)
    }
}

impl TimeRead for Halves<'_, '_> {
    const LASTS_STORED: bool = false;

    #[inline(always)]
    fn tables(&self) -> &TimeTables<'_> {
        self.0
    }

    #[inline(always)]
    fn first(&self, q: usize) -> u32 {
        let t = self.0;
        match t.again_rank(q) {
            Some(r) => self.again_first(r),
            // Changed once: its first stone is its last change.
            None => self.last(q),
        }
    }

    #[inline(always)]
    fn last(&self, q: usize) -> u32 {
        let t = self.0;
        let odd = match t.again_rank(q) {
            Some(r) => t.parity(2 * r),
            None => (t.inside_word(q >> 6) >> (q & 63)) as u32 & 1,
        };
        self.last_odd(q, odd)
    }

    #[inline(always)]
    fn last_once(&self, q: usize) -> u32 {
        self.last_odd(q, (self.0.inside_word(q >> 6) >> (q & 63)) as u32 & 1)
    }

    #[inline(always)]
    fn last_min(&self, at: usize, cells: u32) -> Option<(u32, u32)> {
        // A node is twice its unit, less one when odd: the earliest is among the cells of the
        // least unit, the first of them at an odd node if any (`2u - 1 < 2u`, both below
        // `2u + 1`), else the first.
        let (_, holding) = bytemin::masked_min(self.0.last, at, cells)?;
        let mut best: Option<(u32, u32)> = None;
        for i in columns::ones(&[u64::from(holding)]) {
            let last = self.last_once(at + i);
            if best.is_none_or(|(b, _)| last < b) {
                best = Some((last, i as u32));
            }
        }
        best
    }

    #[inline(always)]
    fn held_once(&self, q: usize) -> Option<(u32, u32, bool)> {
        let t = self.0;
        let r = t.again_rank(q)?;
        let bits = t.twice_bits(r);
        (bits & 1 != 0).then(|| {
            let last = self.last_odd(q, t.parity(2 * r));
            (self.again_first(r), last, bits & 2 != 0)
        })
    }
}

/// Words a bitmap has at most: boards are at most 25x25 (625 points), and a power of two
/// lets a point's index be masked instead of checked.
pub(super) const MAX_WORDS: usize = 16;

/// Points a bitmap covers at most.
pub(super) const MAX_POINTS: usize = 64 * MAX_WORDS;

/// A game's time tables with a byte per point for the first stones too: the last changes
/// copied into a buffer the caller keeps from game to game ([`FirstStones`]), then the few
/// points whose first stone differs mended, a few hundred instructions once; each first stone
/// is then one load (a free pattern tests dozens of candidates a game, each with its stones'
/// first nodes). Unpacking into a new array per game, returned by value, cost the densest cut
/// side 7% of its instructions.
/// The words of the points changed again are copied out of the directory on the way (the
/// counting reads a candidate's rows of them: through the directory, about a tenth of the
/// settling of `..O/.../...` anywhere).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Unpacked<'t, 'a> {
    first: &'t [u8; MAX_POINTS],
    again: &'t [u64; MAX_WORDS + 1],
    tables: TimeTables<'a>,
}

/// The buffers of [`Unpacked`], kept from game to game.
#[derive(Debug)]
pub(crate) struct FirstStones {
    /// The first stones, a byte per point (the bytes past a game's points are left from
    /// earlier games: no candidate reads them).
    pub(super) first: Box<[u8; MAX_POINTS]>,
    /// The directory's words of the points changed again, and the word past them.
    pub(super) again: [u64; MAX_WORDS + 1],
}

impl Default for FirstStones {
    fn default() -> Self {
        FirstStones {
            first: Box::new([NEVER; MAX_POINTS]),
            again: [0; MAX_WORDS + 1],
        }
    }
}

impl<'a> TimeTables<'a> {
    /// The tables with a byte per point for the first stones, unpacked into `buf`.
    pub(crate) fn unpacked<'t>(&self, buf: &'t mut FirstStones) -> Unpacked<'t, 'a> {
        let FirstStones {
            first,
            again: words,
        } = buf;
        let first = &mut **first;
        let points = self.last.len().min(MAX_POINTS);
        first[..points].copy_from_slice(&self.last[..points]);
        let mut k = 0;
        for (w, e) in self
            .again
            .chunks_exact(DIR_ENTRY)
            .take(MAX_WORDS)
            .enumerate()
        {
            let (mut again, _) = entry(e);
            words[w] = again;
            let mut inside = self.inside_word(w) & !again;
            while again != 0 {
                let q = 64 * w + again.trailing_zeros() as usize;
                again &= again - 1;
                first[q] = self.first.get(k).copied().unwrap_or(NEVER);
                k += 1;
            }
            while inside != 0 {
                let q = 64 * w + inside.trailing_zeros() as usize;
                inside &= inside - 1;
                first[q] = first[q].saturating_sub(1);
            }
        }
        // A row read from the last word of the board reads the word past it too (its bits
        // then shifted out): that one is 0, the others past the board are never read.
        let count = (self.again.len() / DIR_ENTRY).min(MAX_WORDS);
        buf.again[count] = 0;
        Unpacked {
            first: &buf.first,
            again: &buf.again,
            tables: *self,
        }
    }
}

impl Unpacked<'_, '_> {
    /// The first stones, a byte per point.
    pub(crate) fn firsts(&self) -> &[u8] {
        &self.first[..]
    }
}

impl TimeRead for Unpacked<'_, '_> {
    const LASTS_STORED: bool = true;

    #[inline(always)]
    fn tables(&self) -> &TimeTables<'_> {
        &self.tables
    }

    #[inline(always)]
    fn first(&self, q: usize) -> u32 {
        u32::from(self.first[q & (MAX_POINTS - 1)])
    }

    #[inline(always)]
    fn last(&self, q: usize) -> u32 {
        self.tables.last(q)
    }

    #[inline(always)]
    fn last_min(&self, at: usize, cells: u32) -> Option<(u32, u32)> {
        self.tables.last_min(at, cells)
    }

    #[inline(always)]
    fn held_once(&self, q: usize) -> Option<(u32, u32, bool)> {
        self.tables.held_once(q)
    }

    #[inline(always)]
    fn unpacked(&self) -> Option<&Unpacked<'_, '_>> {
        Some(self)
    }

    #[inline(always)]
    fn changed_again(&self, q: usize, len: usize) -> u32 {
        // The directory's words as they are, without its counts' bytes between them or a
        // bounds check (a board's words are fewer than `MAX_WORDS`, the last one past them 0).
        let (w, b) = (q >> 6 & (MAX_WORDS - 1), q & 63);
        let bits = self.again[w] >> b | self.again[w + 1] << 1 << (63 - b);
        (bits & ((1u64 << len) - 1)) as u32
    }
}
