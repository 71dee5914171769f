//! A game's time tables in its cold part: per point the node of its first stone and of its last
//! change on the main line, which the prune and the levels read for every game the columns
//! keep, before any node.
//!
//! Most points that ever hold a stone change once (a stone played and never taken): their first
//! stone is their last change. So the last changes are a byte per point, read directly (the
//! prune reads them for every cell the final board contradicts, many a candidate), and the
//! first stones are taken from them but for the points that changed again (taken, or taken and
//! played again: about 30 of a 19x19 game's 361), whose first stones are a byte each, found
//! through a rank directory (a bitmap of 64-point words, each followed by the number of members
//! in the words before it; the prune reads first stones only for a pattern's few stones). When
//! a unit is longer than a node (games of more than 254 nodes), first stones are rounded down
//! and last changes up, so a bitmap marks the points changed once whose stone came inside its
//! unit (its first stone is a unit before its last change). On a 19x19 game that is about 600
//! bytes with the final board, against 874 with a byte per point for the first stones too
//! (format 7). Tried: a byte only per touched point for both, through rank directories (about
//! 500 bytes), costs every read of the prune a rank: searches 10-18% slower.
//!
//! Units of two nodes (games of 255 to 508 nodes, 14% of the corpus's 19x19 games) are exact
//! as well since format 11: the bitmap of the points changed once whose stone came inside
//! its unit is the parity of their node, and two bits per point changed again (its last
//! change's node is odd, its first stone's) complete the rest, about 8 bytes a game. The prune
//! and the levels read the units as before (a byte a read); [`Halves`] reads exact nodes for
//! [`super::intervals::Clean`], which counts such a game from its tables. Tried: a ninth
//! bit per time (a bitmap beside the last changes' bytes, units of nodes up to node 510): the
//! same size, but every read of the prune paid for the bit, searches 2-6% slower.
//!
//! Layout (board side `n`, `P = n * n` points, `W = ceil(P / 64)`, little-endian): the final
//! board (`2 * n` u32 rows, Black then White), a byte per point (`row * n + col`) for its last
//! change (in units of `1 << shift` nodes rounded up; 255: it never held a stone), the points
//! that changed again (`W` times a u64 word of points and the u16 number of them in the words
//! before), when `shift` is not 0 the points changed once whose stone came inside its unit
//! (`W` u64 words), then a byte per point changed again, in point order, for its first stone
//! (in units rounded down), two bits each (`ceil(2 * members / 8)` bytes; for member `k` bit
//! `2k` set when it held one stone and was then emptied for good, bit `2k + 1` when that stone
//! was White; bit `i` is bit `i % 8` of byte `i / 8`), and when `shift` is 1 their parities (as
//! many bytes, bit `2k` set when its last change's node is odd, bit `2k + 1` when its first
//! stone's is); since format 12 the change lists (varint byte length, then for each point
//! changed again whose bit `2k` is clear, in point order, a varint count and a varint a change:
//! [`Changes`]); then the main line (varint node count, 0 when not plain, then varint trailing
//! passes, and since format 12 a byte for the passes before them and a varint step from the
//! last each: [`MainLine`]).
//!
//! Of the points changed again, two thirds held one stone and were then emptied for good (a
//! stone captured, its point never played again: 15,807 of 23,300 in the corpus's 19x19
//! games); their first stone and last change are then the whole story, which lets
//! [`super::intervals::Clean`] count a candidate with such a cell wanted empty. The others
//! (a stone taken and played again, a ko's point) have their every change listed, in exact
//! nodes (about 17 bytes a game), so that a candidate with such a cell is counted from the
//! tables too instead of walked: since format 12, the densest cut side walks 3,763 games a
//! search instead of 11,549.
//!
//! [`Halves`]: read::Halves

use super::format::{Bytes, FormatError};

mod encode;
pub(crate) mod read;
#[cfg(test)]
mod tests;

pub(crate) use encode::{encode, Scratch};
pub(crate) use read::{FirstStones, TimeRead, Unpacked};

/// A plain main line, which [`super::intervals`] counts from the tables alone: the root holds
/// no move; every later node holds a move, and the only point a node gives a stone to is its
/// play's, with a stone of the play's colour (elsewhere it may only take stones off: captures,
/// or setup that removes); its move number is its index; passes come at the end, or at most
/// [`MAX_MID`] of them before (since format 12: 246 of the corpus's 2,118 19x19 games pass
/// before the end). (So no node without a move, no setup that
/// adds stones after the root, no suicide, no move onto a stone of its colour.) Then a
/// point's first stone is put there by the move of its node, and a node's hits are followed
/// by the next node's move. Nodes without a move or a change after the last node (a comment,
/// territory marks) are not part of it: `nodes` may be fewer than the record's, and the hits
/// of its last node end the game as they would at such a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MainLine {
    /// Its nodes, the root included.
    pub nodes: u32,
    /// Its trailing passes (the last `passes` nodes are passes, those before plays or the
    /// passes of `mid`).
    pub passes: u32,
    /// The nodes of its passes before the trailing ones, rising, 16 bits each from the low
    /// bits (0: no more; the root is no pass). Packed, as the tables of every game the
    /// columns keep are read into a [`TimeTables`]: with four u32 and their count the 9x5
    /// side pattern read about 2% more instructions (near the measure's noise).
    pub mid: u64,
}

/// Passes a plain main line has at most before its trailing ones.
pub(crate) const MAX_MID: usize = 4;

/// The last node a pass before the trailing ones may be at (16 bits in [`MainLine::mid`]).
const MAX_MID_NODE: u32 = u16::MAX as u32;

impl MainLine {
    /// A line of `nodes` nodes whose last `passes` are passes and the others plays.
    pub(crate) fn new(nodes: u32, passes: u32) -> MainLine {
        MainLine {
            nodes,
            passes,
            mid: 0,
        }
    }

    /// The nodes of the passes before the trailing ones.
    #[inline(always)]
    pub(crate) fn mid_passes(&self) -> impl Iterator<Item = u32> {
        let mid = self.mid;
        (0..MAX_MID)
            .map(move |k| (mid >> (16 * k)) as u32 & MAX_MID_NODE)
            .take_while(|&p| p != 0)
    }

    /// How many of nodes `lo..=hi` are passes.
    #[inline(always)]
    pub(crate) fn passes_in(&self, lo: u32, hi: u32) -> u32 {
        let first_pass = self.nodes - self.passes;
        let trailing = (hi + 1).saturating_sub(lo.max(first_pass));
        if self.mid == 0 {
            return trailing;
        }
        trailing + self.mid_passes().filter(|&p| p >= lo && p <= hi).count() as u32
    }

    /// Follows a play at node `i`: the passes before it are no longer trailing; false when
    /// the line can keep no more of them.
    pub(crate) fn play(&mut self, i: u32) -> bool {
        let from = i - self.passes;
        for (k, p) in (self.mid_passes().count()..).zip(from..i) {
            if k == MAX_MID || p > MAX_MID_NODE {
                return false;
            }
            self.mid |= u64::from(p) << (16 * k);
        }
        self.passes = 0;
        true
    }
}

/// A point's changes along the main line ([`TimeTables::changes`]): each change's node and
/// the state it left (0 empty, 1 Black, 2 White), in order. Stored as varints, each the node
/// less the previous change's (0 before the first) times four plus the state.
#[derive(Debug, Clone)]
pub(crate) struct Changes<'a> {
    bytes: Bytes<'a>,
    left: u32,
    node: u32,
}

impl<'a> Changes<'a> {
    /// The list whose count `b` reads next.
    #[inline]
    fn at(mut b: Bytes<'a>) -> Option<Changes<'a>> {
        let left = b.varint_u32().ok()?;
        Some(Changes {
            bytes: b,
            left,
            node: 0,
        })
    }

    /// The next change, or why the bytes do not hold one.
    fn next_checked(&mut self) -> Result<(u32, u8), FormatError> {
        let v = self.bytes.varint_u32()?;
        self.left = self.left.saturating_sub(1);
        self.node = self
            .node
            .checked_add(v >> 2)
            .ok_or(FormatError::Bad("a change past every node"))?;
        Ok((self.node, (v & 3) as u8))
    }
}

impl Iterator for Changes<'_> {
    type Item = (u32, u8);

    #[inline]
    fn next(&mut self) -> Option<(u32, u8)> {
        if self.left == 0 {
            return None;
        }
        // Checked when the index was opened: a damaged list ends where it is.
        self.next_checked().ok()
    }
}

/// Where the change lists of one game's tables start in its bytes, found once for the game
/// when [`super::intervals`] first reads one: a list was found by decoding every list before
/// it, 400 instructions a read in long games with a few kos, where the same points' lists are
/// read for candidate after candidate.
#[derive(Debug)]
pub(crate) struct ListStarts {
    /// The first lists' starts (`len` of them; the others are found by decoding).
    starts: [u32; MAX_LISTS],
    len: usize,
    /// Whether they are found (a game's [`super::intervals::Clean`] has its own).
    filled: bool,
}

impl Default for ListStarts {
    fn default() -> Self {
        ListStarts {
            starts: [0; MAX_LISTS],
            len: 0,
            filled: false,
        }
    }
}

/// Lists whose starts [`ListStarts`] keeps.
const MAX_LISTS: usize = 64;

impl ListStarts {
    /// Finds the starts of the lists of `many` (a damaged list ends the search: the lists
    /// after it are found as [`TimeTables::changes`] finds them, which gives none).
    fn fill(&mut self, many: &[u8]) {
        self.filled = true;
        self.len = 0;
        let mut b = Bytes::new(many);
        while !b.is_empty() && self.len < MAX_LISTS {
            let start = b.position();
            let Ok(count) = b.varint_u32() else { return };
            if (0..count).any(|_| b.varint().is_err()) {
                return;
            }
            self.starts[self.len] = start as u32;
            self.len += 1;
        }
    }
}

/// A last change's byte for a point that never held a stone.
const NEVER: u8 = 255;

/// Bytes of one directory entry: a u64 word and the u16 count of the members before it.
const DIR_ENTRY: usize = 10;

/// The 64-point words of an `n` x `n` board.
fn words(n: usize) -> usize {
    (n * n).div_ceil(64)
}

/// A directory entry's word and count.
#[inline(always)]
fn entry(e: &[u8]) -> (u64, usize) {
    let word = u64::from_le_bytes([e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7]]);
    (word, usize::from(u16::from_le_bytes([e[8], e[9]])))
}

/// The time tables of one game, read (see the module docs). Reads past what the bytes hold
/// give "never": a damaged record can only make a search slower, and [`TimeTables::check`]
/// refuses it when the index is opened.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TimeTables<'a> {
    /// The main line's final board (Black rows then White rows, u32 little-endian each).
    pub fin: &'a [u8],
    last: &'a [u8],
    again: &'a [u8],
    /// The points changed once whose stone came inside its unit (empty when units are
    /// nodes).
    inside: &'a [u8],
    first: &'a [u8],
    /// Per point changed again, whether it held one stone and was then emptied for good, and
    /// that stone's colour (two bits each).
    twice: &'a [u8],
    /// The parities of the points changed again, when units are two nodes (else empty).
    parity: &'a [u8],
    /// The changes of the points changed again that did not hold one stone, in exact nodes
    /// ([`Changes`]).
    many: &'a [u8],
    /// Times are in units of `1 << shift` nodes.
    pub shift: u8,
    /// The main line, when it is plain.
    pub line: Option<MainLine>,
}

impl<'a> TimeTables<'a> {
    /// Reads the tables of a game of side `n` whose units are `1 << shift` nodes from `b`.
    #[inline]
    pub(crate) fn read(b: &mut Bytes<'a>, n: usize, shift: u8) -> Result<Self, FormatError> {
        let fin = b.take(8 * n)?;
        let last = b.take(n * n)?;
        let again = b.take(DIR_ENTRY * words(n))?;
        let inside = if shift > 0 {
            b.take(8 * words(n))?
        } else {
            &[]
        };
        let members = match again.len().checked_sub(DIR_ENTRY) {
            Some(at) => {
                let (word, before) = entry(&again[at..]);
                before + word.count_ones() as usize
            }
            None => 0,
        };
        let first = b.take(members)?;
        let twice = b.take((2 * members).div_ceil(8))?;
        let parity = if shift == 1 {
            b.take((2 * members).div_ceil(8))?
        } else {
            &[]
        };
        let many = usize::try_from(b.varint()?).map_err(|_| FormatError::Truncated)?;
        let many = b.take(many)?;
        let line = match b.varint_u32()? {
            0 => None,
            nodes => {
                let passes = b.varint_u32()?;
                if passes >= nodes {
                    return Err(FormatError::Bad("main line passes"));
                }
                let mut line = MainLine::new(nodes, passes);
                let mids = b.byte()?;
                if usize::from(mids) > MAX_MID {
                    return Err(FormatError::Bad("main line passes"));
                }
                // Rising, after the root and before the trailing passes.
                let mut prev = 0u32;
                for k in 0..usize::from(mids) {
                    let p = prev.saturating_add(b.varint_u32()?);
                    if p == prev || p >= nodes - passes || p > MAX_MID_NODE {
                        return Err(FormatError::Bad("main line passes"));
                    }
                    line.mid |= u64::from(p) << (16 * k);
                    prev = p;
                }
                Some(line)
            }
        };
        Ok(TimeTables {
            fin,
            last,
            again,
            inside,
            first,
            twice,
            parity,
            many,
            shift,
            line,
        })
    }

    /// Checks what [`TimeTables::read`] does not: the directory's counts are its points before
    /// each word, and each point of the bitmaps is on the board and held a stone.
    pub(crate) fn check(&self, n: usize) -> Result<(), FormatError> {
        let mut count = 0usize;
        for w in 0..words(n) {
            let (again, before) = entry(&self.again[DIR_ENTRY * w..]);
            if before != count {
                return Err(FormatError::Bad("time table counts"));
            }
            count += again.count_ones() as usize;
            for mut word in [again, self.inside_word(w)] {
                while word != 0 {
                    let q = 64 * w + word.trailing_zeros() as usize;
                    word &= word - 1;
                    if q >= n * n {
                        return Err(FormatError::Bad("time table point off the board"));
                    }
                    if self.last[q] == NEVER {
                        return Err(FormatError::Bad("a time table point without a stone"));
                    }
                }
            }
        }
        self.check_final(n)?;
        self.check_changes(n)
    }

    /// Checks the final board against the last changes, as the prune's readers of them take
    /// it (each its own way: a table that broke this would make their answers differ): no
    /// point both black and white or off the board, a last change at each point holding a
    /// stone, and a stone at the end on each point changed once.
    fn check_final(&self, n: usize) -> Result<(), FormatError> {
        use super::entry::{flat, row_word, FLAT_WORDS};
        let board = if n >= 32 { u32::MAX } else { (1 << n) - 1 };
        let two = (0..n).fold(0, |two, row| {
            let (b, w) = (row_word(self.fin, row), row_word(self.fin, n + row));
            two | b & w | (b | w) & !board
        });
        if two != 0 {
            return Err(FormatError::Bad(
                "a final board point of two colours or none",
            ));
        }
        let stones = flat(n, |row| {
            row_word(self.fin, row) | row_word(self.fin, n + row)
        });
        // The points changed, eight bytes at a time: a byte is "never" when its complement is
        // 0 (the exact test for a zero byte: its top bit stays clear in `t`).
        let points = (n * n).min(64 * FLAT_WORDS);
        let mut changed = [0u64; FLAT_WORDS];
        for (k, eight) in self.last[..points.min(self.last.len())]
            .chunks(8)
            .enumerate()
        {
            let mut b = [NEVER; 8];
            b[..eight.len()].copy_from_slice(eight);
            let y = !u64::from_le_bytes(b);
            let (low, high) = (0x7f7f_7f7f_7f7f_7f7fu64, 0x8080_8080_8080_8080u64);
            let t = ((y & low) + low) | y;
            // The bytes' top bits gathered into one byte (bit `i` for byte `i`).
            let never = ((!t & high) >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56;
            changed[k / 8] |= (!never & 0xff) << (8 * (k % 8));
        }
        for w in 0..words(n).min(FLAT_WORDS) {
            let again = entry(&self.again[DIR_ENTRY * w..]).0;
            if stones[w] & !changed[w] != 0 || changed[w] & !stones[w] & !again != 0 {
                return Err(FormatError::Bad("a final board against its last changes"));
            }
        }
        Ok(())
    }

    /// Checks the change lists: one per point changed again that did not hold one stone, each
    /// of at least two changes at rising nodes, each to another state, its first stone's and
    /// last change's units those of the tables, its last state the final board's.
    fn check_changes(&self, n: usize) -> Result<(), FormatError> {
        let bad = |what| Err(FormatError::Bad(what));
        let mut b = Bytes::new(self.many);
        let unit = (1u32 << self.shift) - 1;
        let mut r = 0;
        for w in 0..words(n) {
            let (mut again, _) = entry(&self.again[DIR_ENTRY * w..]);
            while again != 0 {
                let q = 64 * w + again.trailing_zeros() as usize;
                again &= again - 1;
                let held = self.twice_bits(r) & 1 != 0;
                r += 1;
                if held {
                    continue;
                }
                let count = b.varint_u32()?;
                if count < 2 {
                    return bad("a change list too short");
                }
                let mut list = Changes {
                    bytes: b.clone(),
                    left: count,
                    node: 0,
                };
                let (mut state, mut first, mut prev) = (0u8, None, None);
                for _ in 0..count {
                    let (node, s) = list.next_checked()?;
                    if s > 2 || s == state || prev.is_some_and(|p| node <= p) {
                        return bad("a change list out of order");
                    }
                    if s != 0 && first.is_none() {
                        first = Some(node);
                    }
                    (state, prev) = (s, Some(node));
                }
                b = list.bytes;
                let last = prev.map_or(0, |l| (u64::from(l) + u64::from(unit)) >> self.shift);
                let (row, col) = (q / n, q % n);
                let fin = (super::entry::row_word(self.fin, row) >> col & 1) as u8
                    | ((super::entry::row_word(self.fin, n + row) >> col & 1) as u8) << 1;
                if first.map(|f| f >> self.shift) != Some(self.again_first(r - 1))
                    || last != u64::from(self.last(q))
                    || state != fin
                {
                    return bad("a change list against its tables");
                }
            }
        }
        if !b.is_empty() {
            return bad("change lists past their points");
        }
        Ok(())
    }

    /// The changes of point `q` along the main line, in exact nodes, when it changed again
    /// without holding one stone (`None` for the other points: [`TimeRead::held_once`] and
    /// the tables tell theirs).
    #[inline]
    pub(crate) fn changes(&self, q: usize) -> Option<Changes<'a>> {
        let before = self.list_rank(q)?;
        let mut b = Bytes::new(self.many);
        for _ in 0..before {
            let count = b.varint_u32().ok()?;
            for _ in 0..count {
                b.varint().ok()?;
            }
        }
        Changes::at(b)
    }

    /// [`TimeTables::changes`], the list found through `lists` (filled on the game's first
    /// read of a list) instead of by decoding the lists before it.
    #[inline]
    pub(crate) fn changes_listed(&self, q: usize, lists: &mut ListStarts) -> Option<Changes<'a>> {
        let k = self.list_rank(q)?;
        if !lists.filled {
            lists.fill(self.many);
        }
        match lists.starts.get(k).filter(|_| k < lists.len) {
            Some(&start) => Changes::at(Bytes::new(self.many.get(start as usize..)?)),
            None => self.changes(q),
        }
    }

    /// The number of point `q`'s list among the change lists, when it has one (a point
    /// changed again that did not hold one stone).
    #[inline(always)]
    fn list_rank(&self, q: usize) -> Option<usize> {
        let r = self.again_rank(q)?;
        if self.twice_bits(r) & 1 != 0 {
            return None;
        }
        // Its list follows those of the members before it that did not hold one stone (bit
        // `2k` of `twice` clear: four members a byte).
        let (full, part) = (r / 4, r % 4);
        let mut held: u32 = self
            .twice
            .get(..full)?
            .iter()
            .map(|b| (b & 0x55).count_ones())
            .sum();
        held += (self.twice.get(full).map_or(0, |&b| b) & (0x55 & ((1u8 << (2 * part)) - 1)))
            .count_ones();
        Some(r - held as usize)
    }

    /// The points `q..q + len` (`len` at most 32) that changed more than once on the main
    /// line, as bits from `q` (bit `i`: point `q + i`).
    #[inline(always)]
    pub(crate) fn changed_again(&self, q: usize, len: usize) -> u32 {
        let word = |w: usize| {
            self.again
                .get(DIR_ENTRY * w..DIR_ENTRY * w + DIR_ENTRY)
                .map_or(0, |e| entry(e).0)
        };
        let (w, b) = (q >> 6, q & 63);
        let mut bits = word(w) >> b;
        if b + len > 64 {
            bits |= word(w + 1) << (64 - b);
        }
        (bits & ((1u64 << len) - 1)) as u32
    }

    /// Word `w` of the points changed once whose stone came inside its unit.
    #[inline(always)]
    fn inside_word(&self, w: usize) -> u64 {
        match self.inside.get(8 * w..8 * w + 8) {
            Some(b) => u64::from_le_bytes(b.try_into().expect("8 bytes")),
            None => 0,
        }
    }

    /// The unit of the last change of point `q`, rounded up (255 for a point that never held
    /// a stone, where the true answer is "never changed": as the prune asks only of cells
    /// the final board contradicts, a point that never held a stone is only asked for when
    /// the pattern wants a stone there, whose first stone is then "never" too).
    #[inline(always)]
    pub(crate) fn last(&self, q: usize) -> u32 {
        self.last.get(q).map_or(255, |&b| u32::from(b))
    }

    /// The last changes as stored, a byte per point ([`TimeTables::last`] reads one).
    #[inline(always)]
    pub(crate) fn lasts(&self) -> &'a [u8] {
        self.last
    }

    /// Point `q`'s rank among the points changed again, when it is one.
    #[inline(always)]
    fn again_rank(&self, q: usize) -> Option<usize> {
        let w = q >> 6;
        let bit = 1u64 << (q & 63);
        let (word, before) = entry(self.again.get(DIR_ENTRY * w..DIR_ENTRY * w + DIR_ENTRY)?);
        (word & bit != 0).then(|| before + (word & (bit - 1)).count_ones() as usize)
    }

    /// The unit of the first stone of member `r` of the points changed again (255: never).
    #[inline(always)]
    fn again_first(&self, r: usize) -> u32 {
        self.first.get(r).map_or(255, |&b| u32::from(b))
    }

    /// Whether the tables give exact nodes: units of nodes as they are, units of two nodes
    /// through [`Halves`]; longer units only bound them.
    ///
    /// [`Halves`]: read::Halves
    #[inline(always)]
    pub(crate) fn exact(&self) -> bool {
        self.shift <= 1
    }

    /// The unit of point `q`'s first stone, rounded down (255: never).
    #[inline(always)]
    pub(crate) fn first(&self, q: usize) -> u32 {
        if let Some(r) = self.again_rank(q) {
            return self.again_first(r);
        }
        let (w, bit) = (q >> 6, 1u64 << (q & 63));
        match self.last.get(q) {
            Some(&b) if b != NEVER => {
                u32::from(b) - u32::from(self.inside_word(w) & bit != 0).min(u32::from(b))
            }
            _ => 255,
        }
    }
}

impl TimeTables<'_> {
    /// Writes into `out` (at least a byte per point) the unit of the last change of each point
    /// that holds a stone on the final board, 255 for the others. A point changed once holds
    /// its stone at the end, so this is the last changes with the few points changed again
    /// that ended empty set to 255.
    pub(crate) fn stone_lasts(&self, n: usize, out: &mut [u8]) {
        // Each point's column and row from the board's table: a division per point to find
        // them was two thirds of this time.
        let xy = kifu_go::BoardSize::new(n as u32).map_or(&[][..], super::point_xy);
        let points = (n * n).min(self.last.len()).min(out.len());
        out[..points].copy_from_slice(&self.last[..points]);
        out[points..].fill(NEVER);
        for (w, e) in self.again.chunks_exact(DIR_ENTRY).enumerate() {
            let (mut again, _) = entry(e);
            while again != 0 {
                let q = 64 * w + again.trailing_zeros() as usize;
                again &= again - 1;
                let Some(&[col, row]) = xy.get(q) else { break };
                let (col, row) = (usize::from(col), usize::from(row));
                let stone = (super::entry::row_word(self.fin, row)
                    | super::entry::row_word(self.fin, n + row))
                    >> col
                    & 1;
                if stone == 0 {
                    if let Some(b) = out.get_mut(q) {
                        *b = NEVER;
                    }
                }
            }
        }
    }
}
