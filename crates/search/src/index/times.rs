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

use super::format::{put_varint, Bytes, FormatError};

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
    /// [`TimeTables::changed_again`].
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
        super::bytemin::masked_min(self.last, at, cells)
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
pub(crate) struct Halves<'t, 'a>(&'t TimeTables<'a>);

impl<'a> TimeTables<'a> {
    /// Exact reads of tables in units of two nodes (`None` for other units; units of nodes are
    /// exact as they are).
    #[inline(always)]
    pub(crate) fn halves(&self) -> Option<Halves<'_, 'a>> {
        (self.shift == 1).then_some(Halves(self))
    }

    /// The two bits of member `r` of the points changed again in `twice`.
    #[inline(always)]
    fn twice_bits(&self, r: usize) -> u32 {
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
        let (_, holding) = super::bytemin::masked_min(self.0.last, at, cells)?;
        let mut best: Option<(u32, u32)> = None;
        for i in super::columns::ones(&[u64::from(holding)]) {
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
const MAX_WORDS: usize = 16;

/// Points a bitmap covers at most.
const MAX_POINTS: usize = 64 * MAX_WORDS;

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

/// The buffers of [`Unpacked`]: its first stones (the bytes past a game's points are left
/// from earlier games: no candidate reads them) and its words of the points changed again.
#[derive(Debug)]
pub(crate) struct FirstStones(Box<[u8; MAX_POINTS]>, [u64; MAX_WORDS + 1]);

impl Default for FirstStones {
    fn default() -> Self {
        FirstStones(Box::new([NEVER; MAX_POINTS]), [0; MAX_WORDS + 1])
    }
}

impl<'a> TimeTables<'a> {
    /// The tables with a byte per point for the first stones, unpacked into `buf`.
    pub(crate) fn unpacked<'t>(&self, buf: &'t mut FirstStones) -> Unpacked<'t, 'a> {
        let FirstStones(first, words) = buf;
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
        buf.1[count] = 0;
        Unpacked {
            first: &buf.0,
            again: &buf.1,
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

/// Appends the tables of a game of side `n`: its final board `fin` (a state per point: 0
/// empty, 1 black, 2 white), and per point its first stone (`u32::MAX`: never) and last
/// change in nodes, and `twice` (the state of its one stone when it held one and was then
/// emptied for good, else 0), in units of `1 << shift` nodes (which the caller chose so that
/// every last change fits below 255), the changes of the points changed again (`changes`:
/// point, node, state, by point then node; those of points that held one stone are skipped),
/// then `line` when the main line is plain; `scratch` holds the working tables.
pub(crate) fn encode(
    fin: &[u8],
    (first, last, twice): (&[u32], &[u32], &[u8]),
    changes: &[(u16, u32, u8)],
    (n, shift): (usize, u8),
    line: Option<MainLine>,
    (out, scratch): (&mut Vec<u8>, &mut Scratch),
) {
    // One pass over the points fills every table (every game an index takes comes here): the
    // board's words and the per-point bytes in place, the bit words and the again-points'
    // first times aside, written after the bytes. It was one pass per table, with a call per
    // bit for the bit words.
    let (nn, nw) = (n * n, words(n));
    let start = out.len();
    out.resize(start + 8 * n + nn, 0);
    let (board, lasts) = out[start..].split_at_mut(8 * n);
    let Scratch {
        rows,
        again,
        inside,
        firsts,
        held,
        parity,
        many,
        list,
    } = scratch;
    for v in [
        &mut *firsts,
        &mut *held,
        &mut *parity,
        &mut *many,
        &mut *list,
    ] {
        v.clear();
    }
    rows.clear();
    rows.resize(2 * n, 0);
    again.clear();
    again.resize(nw, 0);
    inside.clear();
    inside.resize(nw, 0);
    let mut next = changes.iter().peekable();
    let unit = (1u32 << shift) - 1;
    let (mut col, mut row) = (0, 0);
    for q in 0..nn {
        let s = fin[q];
        if s != 0 {
            rows[usize::from(s - 1) * n + row] |= 1 << col;
        }
        let (f, l) = (first[q], last[q]);
        if f != u32::MAX {
            // Rounded up by a shift, not `div_ceil`: a division by a variable per point was
            // a real division (tens of cycles) for every point of every game.
            lasts[q] = ((u64::from(l) + u64::from(unit)) >> shift) as u8;
            // A point whose first stone is its last change changed once.
            if l != f {
                again[q / 64] |= 1 << (q % 64);
                let k = firsts.len();
                if shift == 1 {
                    push_pair(parity, k, ((l & 1) | (f & 1) << 1) as u8);
                }
                let bits = match twice.get(q) {
                    Some(&s) if s != 0 => 1 | u8::from(s == 2) << 1,
                    _ => 0,
                };
                push_pair(held, k, bits);
                firsts.push((f >> shift) as u8);
                if bits == 0 {
                    while next.next_if(|c| usize::from(c.0) < q).is_some() {}
                    let (mut prev, mut count) = (0, 0u64);
                    list.clear();
                    while let Some(&(_, node, state)) = next.next_if(|c| usize::from(c.0) == q) {
                        put_varint(list, u64::from(node - prev) << 2 | u64::from(state));
                        (prev, count) = (node, count + 1);
                    }
                    put_varint(many, count);
                    many.extend_from_slice(list);
                }
            } else if f & unit != 0 {
                inside[q / 64] |= 1 << (q % 64);
            }
        } else {
            lasts[q] = NEVER;
        }
        col += 1;
        if col == n {
            (col, row) = (0, row + 1);
        }
    }
    for (w, bytes) in rows.iter().zip(board.chunks_exact_mut(4)) {
        bytes.copy_from_slice(&w.to_le_bytes());
    }
    let mut before = 0u16;
    for bits in again.iter() {
        out.extend_from_slice(&bits.to_le_bytes());
        out.extend_from_slice(&before.to_le_bytes());
        before += bits.count_ones() as u16;
    }
    if shift > 0 {
        for bits in inside.iter() {
            out.extend_from_slice(&bits.to_le_bytes());
        }
    }
    out.extend_from_slice(firsts);
    out.extend_from_slice(held);
    out.extend_from_slice(parity);
    put_varint(out, many.len() as u64);
    out.extend_from_slice(many);
    match line {
        None => out.push(0),
        Some(l) => {
            put_varint(out, u64::from(l.nodes));
            put_varint(out, u64::from(l.passes));
            out.push(l.mid_passes().count() as u8);
            let mut prev = 0;
            for p in l.mid_passes() {
                put_varint(out, u64::from(p - prev));
                prev = p;
            }
        }
    }
}

/// Sets pair `k` (bits `2k` and `2k + 1`) of `bits` to `pair`, the pairs before it set.
/// The working tables of [`encode`], kept from one game to the next on a thread (made anew
/// for each game they were eight allocations a game).
#[derive(Default)]
pub(crate) struct Scratch {
    /// The board's words, by colour and row.
    rows: Vec<u32>,
    /// The points changed again, and those whose first stone came inside a unit.
    again: Vec<u64>,
    inside: Vec<u64>,
    /// The again-points' first times.
    firsts: Vec<u8>,
    /// Two bits an again-point: it held one stone, then was emptied for good; that stone was
    /// White. And when units are two nodes ([`Halves`]): its last change's node is odd; its
    /// first stone's.
    held: Vec<u8>,
    parity: Vec<u8>,
    /// The other again-points' changes, and one point's as it is read.
    many: Vec<u8>,
    list: Vec<u8>,
}

fn push_pair(bits: &mut Vec<u8>, k: usize, pair: u8) {
    if k.is_multiple_of(4) {
        bits.push(0);
    }
    if let Some(b) = bits.last_mut() {
        *b |= pair << (2 * (k % 4));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tables of a 9x9 board with every kind of point:
    /// never touched, one change, changes again (taken, taken and played again), set up at
    /// node 0, and the last point of the board; in units of two nodes, points past node 254
    /// and of both parities.
    fn tables(shift: u8, line: Option<MainLine>) -> (Vec<u8>, Vec<u32>, Vec<u32>, Vec<u8>) {
        let (out, first, last, fin, _) = tables_held(shift, line);
        (out, first, last, fin)
    }

    /// [`tables`], with the points that held one stone and were then emptied for good (the
    /// state of that stone, else 0): those taken and left empty but point 45.
    #[allow(clippy::type_complexity)]
    fn tables_held(
        shift: u8,
        line: Option<MainLine>,
    ) -> (Vec<u8>, Vec<u32>, Vec<u32>, Vec<u8>, Vec<u8>) {
        let n = 9;
        let mut fin = vec![0u8; n * n];
        let mut first = vec![u32::MAX; n * n];
        let mut last = vec![0u32; n * n];
        let mut cases: Vec<(usize, u32, u32, u8)> = vec![
            (0, 0, 0, 1),      // set up at the root
            (3, 5, 5, 2),      // played once
            (10, 7, 30, 0),    // played, taken
            (20, 9, 44, 1),    // played, taken, played again
            (30, 4, 4, 1),     // played once
            (63, 63, 63, 1),   // the end of the first word
            (64, 11, 11, 2),   // the start of the second
            (80, 101, 254, 2), // the last point, taken and played again
        ];
        if shift == 1 {
            cases.extend([
                (40, 300, 300, 1), // played once, late
                (41, 255, 255, 2), // played once at node 255
                (42, 256, 508, 0), // played late, taken at the end
                (43, 12, 257, 1),  // played early, taken and played again late
                (44, 508, 508, 2), // the last node
                (45, 261, 262, 0), // taken at once
                (46, 507, 507, 1), // played once, near the end
                (65, 507, 508, 1), // played and taken in the last unit
                (66, 3, 4, 1),     // odd then even
                (67, 4, 7, 1),     // even then odd
            ]);
        }
        for (q, f, l, s) in cases {
            first[q] = f;
            last[q] = l;
            fin[q] = s;
        }
        let twice: Vec<u8> = (0..n * n)
            .map(|q| {
                let again = first[q] != u32::MAX && first[q] != last[q];
                if again && fin[q] == 0 && q != 45 {
                    1 + (q % 2) as u8
                } else {
                    0
                }
            })
            .collect();
        let changes: Vec<_> = (0..n * n)
            .flat_map(|q| {
                let list = change_list(first[q], last[q], fin[q], twice[q]);
                list.into_iter().map(move |(node, s)| (q as u16, node, s))
            })
            .collect();
        let mut out = Vec::new();
        encode(
            &fin,
            (&first, &last, &twice),
            &changes,
            (n, shift),
            line,
            (&mut out, &mut Scratch::default()),
        );
        (out, first, last, fin, twice)
    }

    /// The changes of a point changed again that did not hold one stone, for [`tables_held`]:
    /// taken and played again (a stone of the final board's colour, taken at the next node;
    /// when that is the last change, a stone of the other colour first), or taken at once
    /// (point 45). Empty for the other points.
    fn change_list(first: u32, last: u32, fin: u8, twice: u8) -> Vec<(u32, u8)> {
        if first == u32::MAX || first == last || twice != 0 {
            Vec::new()
        } else if fin == 0 {
            vec![(first, 1), (last, 0)]
        } else if first + 1 == last {
            vec![(first, 3 - fin), (last, fin)]
        } else {
            vec![(first, fin), (first + 1, 0), (last, fin)]
        }
    }

    /// The main line the tables of [`tables`] are written with.
    const LINE: MainLine = MainLine {
        nodes: 255,
        passes: 2,
        mid: 0,
    };

    /// A final board the last changes contradict is refused: a point of both colours, one off
    /// the board, a stone that never came, a point changed once left empty.
    #[test]
    fn a_final_board_against_its_tables_is_refused() {
        let (bytes, ..) = tables(0, Some(LINE));
        let checked = |bytes: &[u8]| {
            let t = TimeTables::read(&mut Bytes::new(bytes), 9, 0).unwrap();
            assert_eq!(t.fin, &bytes[..72], "the final board comes first");
            t.check(9)
        };
        checked(&bytes).unwrap();
        // Rows of u32 words, Black's nine then White's: (row, column, colour, set).
        for (row, col, white, set) in [
            (0, 0, true, true),  // point 0 holds Black: both colours
            (0, 9, false, true), // off the board
            (2, 0, false, true), // point 18, never touched
            (0, 3, true, false), // point 3, played once, left empty
        ] {
            let mut bad = bytes.clone();
            let at = 4 * (row + if white { 9 } else { 0 }) + col / 8;
            if set {
                bad[at] |= 1 << (col % 8);
            } else {
                bad[at] &= !(1 << (col % 8));
            }
            assert!(checked(&bad).is_err(), "{row} {col} {white} {set}");
        }
    }

    #[test]
    fn every_point_reads_back_its_units() {
        for shift in [0u8, 1, 2] {
            let (bytes, first, last, fin, twice) = tables_held(shift, Some(LINE));
            let mut b = Bytes::new(&bytes);
            let t = TimeTables::read(&mut b, 9, shift).unwrap();
            assert!(b.is_empty(), "every byte read");
            t.check(9).unwrap();
            // The points changed again: the board, a byte per point, a directory of two words,
            // the words of stones inside their unit when units are longer than a node, a byte
            // each (and two bits each in units of two nodes), then the main line (a varint of
            // two bytes, one of a byte, and a byte for no passes before the trailing ones).
            let again = (0..81)
                .filter(|&q| first[q] != u32::MAX && first[q] != last[q])
                .count();
            let inside = if shift > 0 { 16 } else { 0 };
            let parity = if shift == 1 { again.div_ceil(4) } else { 0 };
            let held = again.div_ceil(4);
            // The change lists: a count, then a varint a change (the node's step times four
            // plus the state), after their length.
            let mut many = Vec::new();
            let mut lists = ListStarts::default();
            for q in 0..81 {
                let list = change_list(first[q], last[q], fin[q], twice[q]);
                if !list.is_empty() {
                    put_varint(&mut many, list.len() as u64);
                    let mut prev = 0;
                    for (node, s) in list {
                        put_varint(&mut many, u64::from(node - prev) << 2 | u64::from(s));
                        prev = node;
                    }
                }
                let read: Option<Vec<_>> = t.changes(q).map(Iterator::collect);
                let want = change_list(first[q], last[q], fin[q], twice[q]);
                assert_eq!(read, (!want.is_empty()).then_some(want), "changes of {q}");
                let listed: Option<Vec<_>> = t.changes_listed(q, &mut lists).map(Iterator::collect);
                assert_eq!(listed, read, "changes of {q} through their start");
            }
            assert_eq!(many.len(), if shift == 1 { 31 } else { 11 }, "lists");
            assert_eq!(
                bytes.len(),
                72 + 81 + 20 + inside + again + held + parity + 1 + many.len() + 4
            );
            assert_eq!(t.line, Some(LINE));
            // The points changed again, read by rows of any length from any point, from the
            // directory and unpacked (with words left from a game of another size).
            let mut buf = FirstStones(Box::new([NEVER; MAX_POINTS]), [u64::MAX; MAX_WORDS + 1]);
            let unpacked = t.unpacked(&mut buf);
            for q in 0..81 {
                for len in 1..=(81 - q).min(32) {
                    let want = (0..len)
                        .filter(|&i| first[q + i] != u32::MAX && first[q + i] != last[q + i])
                        .fold(0u32, |m, i| m | 1 << i);
                    assert_eq!(t.changed_again(q, len), want, "{q} {len}");
                    assert_eq!(
                        TimeRead::changed_again(&unpacked, q, len),
                        want,
                        "{q} {len}"
                    );
                }
            }
            for q in 0..81 {
                let want_first = if first[q] == u32::MAX {
                    255
                } else {
                    first[q] >> shift
                };
                assert_eq!(t.first(q), want_first, "first of {q}, shift {shift}");
                // 255 for a point that never held a stone.
                let want_last = if first[q] == u32::MAX {
                    255
                } else {
                    last[q].div_ceil(1 << shift)
                };
                assert_eq!(t.last(q), want_last, "last of {q}, shift {shift}");
                // Exact nodes in units of two.
                assert_eq!(t.halves().is_some(), shift == 1);
                if let Some(h) = t.halves() {
                    let (f, l) = if first[q] == u32::MAX {
                        (510, 510)
                    } else {
                        (first[q], last[q])
                    };
                    assert_eq!([h.first(q), h.last(q)], [f, l], "exact times of {q}");
                    let held = (twice[q] != 0).then_some((f, l, twice[q] == 2));
                    assert_eq!(h.held_once(q), held, "held once at {q}");
                }
                // In units, for the other units.
                let held = (twice[q] != 0).then(|| (want_first, want_last, twice[q] == 2));
                assert_eq!(TimeRead::held_once(&t, q), held, "held once at {q}");
                let stone = |c: usize| {
                    let at = 4 * (c * 9 + q / 9);
                    let w = u32::from_le_bytes(t.fin[at..at + 4].try_into().unwrap());
                    w >> (q % 9) & 1 != 0
                };
                assert_eq!(stone(0), fin[q] == 1);
                assert_eq!(stone(1), fin[q] == 2);
            }
        }
    }

    #[test]
    fn main_lines_with_passes_before_the_end_read_back() {
        // Passes at nodes 3 and 7, then two at the end: the line's bytes end with the count of
        // passes before the trailing ones and their steps.
        let mut line = LINE;
        line.mid = 3 | 7 << 16;
        assert_eq!(line.mid_passes().collect::<Vec<_>>(), [3, 7]);
        assert_eq!(line.passes_in(1, 254), 4);
        assert_eq!(line.passes_in(4, 252), 1);
        let (bytes, ..) = tables(0, Some(line));
        assert_eq!(bytes[bytes.len() - 3..], [2, 3, 4]);
        let t = TimeTables::read(&mut Bytes::new(&bytes), 9, 0).unwrap();
        assert_eq!(t.line, Some(line));
        // Five passes before the end, a pass among the trailing ones, a pass at the root:
        // refused.
        for (back, v) in [(3, 5u8), (1, 250), (2, 0)] {
            let mut bad = bytes.clone();
            let at = bad.len() - back;
            bad[at] = v;
            assert!(
                TimeTables::read(&mut Bytes::new(&bad), 9, 0).is_err(),
                "{back} {v}"
            );
        }
    }

    #[test]
    fn damaged_tables_are_refused_or_read_as_nothing() {
        // Without a main line (one byte after the first stones, which the reads below shift).
        let (bytes, ..) = tables(0, None);
        // A wrong count (the second word's), a point off the board (bit 63 of the second
        // word), a change again at a point that never held a stone (point 1).
        let dir = 72 + 81;
        for (at, v) in [(dir + 18, 1u8), (dir + 17, 0x80), (dir, 0x02)] {
            let mut bad = bytes.clone();
            bad[at] ^= v;
            // The first two damages have one more point read a byte: give it one, so that
            // only the check can tell.
            bad.push(0);
            let mut b = Bytes::new(&bad);
            // The change lists' length is then read a byte later: refused by the read or the
            // check.
            let Ok(t) = TimeTables::read(&mut b, 9, 0) else {
                continue;
            };
            assert!(t.check(9).is_err(), "byte {at}");
            // Read anyway, nothing panics.
            let h = Halves(&t);
            for q in 0..200 {
                t.first(q);
                t.last(q);
                TimeRead::held_once(&t, q);
                h.first(q);
                h.last(q);
                h.held_once(q);
                t.changes(q).map(Iterator::count);
            }
        }
        // A change list damaged: a state (the last change of point 20, its final stone, made
        // empty), a node (the last change of point 80 made later), a count (point 20's made
        // 4): refused.
        let (t, ..) = TimeTables::read(&mut Bytes::new(&bytes), 9, 0)
            .map(|t| (t, ()))
            .unwrap();
        let start = bytes.len() - 1 - t.many.len();
        for (at, v) in [(start + 4, 1u8), (start + 9, 4), (start, 7)] {
            let mut bad = bytes.clone();
            bad[at] ^= v;
            let t = TimeTables::read(&mut Bytes::new(&bad), 9, 0).unwrap();
            assert!(t.check(9).is_err(), "byte {at} of the lists");
            for q in 0..81 {
                t.changes(q).map(Iterator::count);
            }
        }
        // Cut short: refused.
        for len in 0..bytes.len() {
            let mut b = Bytes::new(&bytes[..len]);
            assert!(TimeTables::read(&mut b, 9, 0).is_err(), "{len} bytes");
        }
    }

    /// The starts of the first lists are kept, each past the lists before it; a damaged
    /// list ends them.
    #[test]
    fn list_starts_are_found_once() {
        let mut many = Vec::new();
        let mut want = Vec::new();
        for k in 0..MAX_LISTS as u64 + 6 {
            want.push(many.len() as u32);
            // Lists of 1 to 3 changes, some of two bytes.
            put_varint(&mut many, 1 + k % 3);
            for c in 0..1 + k % 3 {
                put_varint(&mut many, (k * 40 + c) << 2 | 1);
            }
        }
        let mut lists = ListStarts::default();
        lists.fill(&many);
        assert_eq!(lists.len, MAX_LISTS);
        assert_eq!(lists.starts[..], want[..MAX_LISTS]);
        // Cut inside the fifth list: four found.
        lists.fill(&many[..want[4] as usize + 2]);
        assert_eq!((lists.len, &lists.starts[..4]), (4, &want[..4]));
    }
}
