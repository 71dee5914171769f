//! The pattern index's bytes: one owner for the game record layout, its encoder (fed by the
//! replay) and its decoder (fed by the search), so the two cannot drift apart.
//!
//! A game's nodes are in the replay's pre-order, each one flags byte and what the flags call
//! for (see [`NodeReader::next`]); points are `row * n + col` as varints, but for the point of
//! a short play (most nodes: a play whose parent is the node before it), two bytes with its
//! flags (`MOVE_SHORT`). Every read is checked:
//! a damaged record is a [`FormatError`], never a panic or a read out of bounds.

use kifu_go::Color;

/// What is wrong with a pattern index's bytes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// The bytes end in the middle of a value.
    #[error("truncated")]
    Truncated,
    /// A value is out of its range (a point off the board, a parent that is not on the path).
    #[error("bad value: {0}")]
    Bad(&'static str),
}

// Flags of a node.
const MOVE_MASK: u8 = 0b11; // 0 none, 1 play, 2 pass, 3 a short play
const MOVE_PLAY: u8 = 1;
const MOVE_PASS: u8 = 2;
// A play (not the root) whose parent is the node before it, with no extra byte (most nodes): its point's
// two high bits take the places of `PARENT` and `EXTRA`, its low byte follows, then its
// captures if any. Two bytes where a flags byte and a point's varint take three for most
// points of a 19x19 board (format 8 had no short plays).
const MOVE_SHORT: u8 = 3;
const SHORT_FLAGS: u8 = MOVER_WHITE | TO_PLAY_WHITE | CAPTURES | IN_VARIATION;
const MOVER_WHITE: u8 = 1 << 2;
const TO_PLAY_WHITE: u8 = 1 << 3;
const CAPTURES: u8 = 1 << 4;
const IN_VARIATION: u8 = 1 << 5;
const PARENT: u8 = 1 << 6;
const EXTRA: u8 = 1 << 7;
// Flags of the extra byte.
const EXTRA_MOVE_NUMBER: u8 = 1;
const EXTRA_CHANGES: u8 = 1 << 1;

/// A point's state in the index: 0 empty, 1 black, 2 white.
pub(crate) fn state(stone: Option<Color>) -> u8 {
    match stone {
        None => 0,
        Some(Color::Black) => 1,
        Some(Color::White) => 2,
    }
}

/// Appends `v` as a LEB128 varint.
pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A checked reader over bytes.
#[derive(Debug, Clone)]
pub(crate) struct Bytes<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Bytes<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Bytes<'a> {
        Bytes { bytes, pos: 0 }
    }

    /// How many bytes have been read.
    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    pub(crate) fn byte(&mut self) -> Result<u8, FormatError> {
        let b = *self.bytes.get(self.pos).ok_or(FormatError::Truncated)?;
        self.pos += 1;
        Ok(b)
    }

    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], FormatError> {
        let end = self.pos.checked_add(n).ok_or(FormatError::Truncated)?;
        let s = self
            .bytes
            .get(self.pos..end)
            .ok_or(FormatError::Truncated)?;
        self.pos = end;
        Ok(s)
    }

    pub(crate) fn varint(&mut self) -> Result<u64, FormatError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(FormatError::Bad("varint too long"))
    }

    pub(crate) fn varint_u32(&mut self) -> Result<u32, FormatError> {
        u32::try_from(self.varint()?).map_err(|_| FormatError::Bad("number too large"))
    }

    pub(crate) fn u32_le(&mut self) -> Result<u32, FormatError> {
        let s = self.take(4)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }

    pub(crate) fn u64_le(&mut self) -> Result<u64, FormatError> {
        let s = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(s);
        Ok(u64::from_le_bytes(a))
    }

    pub(crate) fn string(&mut self) -> Result<String, FormatError> {
        self.str().map(str::to_string)
    }

    /// A string (length, then UTF-8 bytes), borrowed from the bytes.
    pub(crate) fn str(&mut self) -> Result<&'a str, FormatError> {
        let n = usize::try_from(self.varint()?).map_err(|_| FormatError::Truncated)?;
        let s = self.take(n)?;
        std::str::from_utf8(s).map_err(|_| FormatError::Bad("text is not UTF-8"))
    }
}

/// One node of a game as the search needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Node {
    /// Its parent's number (`None` at the root).
    pub parent: Option<u32>,
    /// The move: who, and where (`None`: a pass).
    pub mv: Option<(Color, Option<u16>)>,
    /// Who is to play after it.
    pub to_play: Color,
    /// Moves from the root.
    pub move_number: u32,
    /// Whether it is off the main line.
    pub in_variation: bool,
}

/// Writes the nodes of one game.
#[derive(Debug, Default)]
pub(crate) struct NodeWriter {
    /// The encoded nodes.
    pub bytes: Vec<u8>,
    /// Move numbers by node, for the implicit ones.
    move_numbers: Vec<u32>,
}

impl NodeWriter {
    /// `w`'s buffers emptied for a game of about `nodes` nodes and sized once (grown node by
    /// node they were a tenth of a build's allocations).
    pub(crate) fn reusing(mut w: NodeWriter, nodes: usize) -> NodeWriter {
        w.bytes.clear();
        w.bytes.reserve(2 * nodes + 8);
        w.move_numbers.clear();
        w.move_numbers.reserve(nodes);
        w
    }

    /// [`NodeWriter::push`] of the commonest node, in fewer instructions (four nodes in five
    /// of a game record): `color`'s play at `p` that changed nothing but its own point, the
    /// child of the node before (`index - 1`, whose move number it counts on by one). The
    /// bytes are the general case's; `false` (nothing written) for a node that is not such a
    /// play.
    #[inline(always)]
    fn push_lone_play(
        &mut self,
        index: u32,
        (color, p): (Color, u16),
        to_play: Color,
        move_number: u32,
        in_variation: bool,
    ) -> bool {
        let Some(parent) = index.checked_sub(1) else {
            return false;
        };
        let follows = self.move_numbers.get(parent as usize).map(|&m| m + 1) == Some(move_number);
        if !follows || p >= 1 << 10 || self.move_numbers.len() != index as usize {
            return false;
        }
        let mut flags = MOVE_SHORT | ((p >> 8) as u8) << 6;
        if color == Color::White {
            flags |= MOVER_WHITE;
        }
        if to_play == Color::White {
            flags |= TO_PLAY_WHITE;
        }
        if in_variation {
            flags |= IN_VARIATION;
        }
        self.bytes.extend_from_slice(&[flags, p as u8]);
        self.move_numbers.push(move_number);
        true
    }

    /// Appends node number `index` (nodes come in order from 0) and its changes to the board
    /// (point, new state) from its parent's board, each point once.
    pub(crate) fn push(&mut self, index: u32, node: &Node, changes: &[(u16, u8)]) {
        if let (Some((color, Some(p))), &[(q, s)]) = (node.mv, changes) {
            let lone = q == p && s == state(Some(color)) && node.parent == index.checked_sub(1);
            if lone
                && self.push_lone_play(
                    index,
                    (color, p),
                    node.to_play,
                    node.move_number,
                    node.in_variation,
                )
            {
                return;
            }
        }
        let mut flags = 0u8;
        let mut extra = 0u8;
        match node.mv {
            None => {}
            Some((c, p)) => {
                flags |= if p.is_some() { MOVE_PLAY } else { MOVE_PASS };
                if c == Color::White {
                    flags |= MOVER_WHITE;
                }
            }
        }
        if node.to_play == Color::White {
            flags |= TO_PLAY_WHITE;
        }
        if node.in_variation {
            flags |= IN_VARIATION;
        }
        let implicit_parent = index.checked_sub(1);
        if node.parent != implicit_parent {
            flags |= PARENT;
        }
        let parent_number = node
            .parent
            .and_then(|p| self.move_numbers.get(p as usize).copied())
            .unwrap_or(0);
        if node.move_number != parent_number + u32::from(node.mv.is_some()) {
            extra |= EXTRA_MOVE_NUMBER;
        }
        // The usual node: its move's stone appears and some stones of the other colour go.
        // Its captures are then its changes but the move's point (`u16::MAX` without a move:
        // none), read from the changes as they are written rather than gathered first.
        let captured: Option<u16> = match node.mv {
            Some((c, Some(p))) => {
                let placed = changes.iter().any(|&(q, s)| q == p && s == state(Some(c)));
                let rest_cleared = changes.iter().all(|&(q, s)| q == p || s == 0);
                (placed && rest_cleared).then_some(p)
            }
            _ => changes.is_empty().then_some(u16::MAX),
        };
        match captured {
            None => extra |= EXTRA_CHANGES,
            Some(p) if changes.iter().any(|c| c.0 != p) => flags |= CAPTURES,
            Some(_) => {}
        }
        if extra != 0 {
            flags |= EXTRA;
        }
        if let (Some((_, Some(p))), 0, Some(_)) = (node.mv, flags & (PARENT | EXTRA), node.parent) {
            if p < 1 << 10 {
                self.bytes
                    .push(MOVE_SHORT | (flags & SHORT_FLAGS) | ((p >> 8) as u8) << 6);
                self.bytes.push(p as u8);
                self.push_captures(changes, p);
                self.number(index, node.move_number);
                return;
            }
        }
        self.bytes.push(flags);
        if extra != 0 {
            self.bytes.push(extra);
        }
        if let Some(p) = node.parent.filter(|_| flags & PARENT != 0) {
            put_varint(&mut self.bytes, u64::from(p));
        } else if flags & PARENT != 0 {
            // The root has no parent: u32::MAX + 1 stands for none.
            put_varint(&mut self.bytes, 1 << 32);
        }
        if extra & EXTRA_MOVE_NUMBER != 0 {
            put_varint(&mut self.bytes, u64::from(node.move_number));
        }
        if let Some((_, Some(p))) = node.mv {
            put_varint(&mut self.bytes, u64::from(p));
        }
        match captured {
            Some(p) => self.push_captures(changes, p),
            None => {
                put_varint(&mut self.bytes, changes.len() as u64);
                for &(q, s) in changes {
                    put_varint(&mut self.bytes, u64::from(q));
                    self.bytes.push(s);
                }
            }
        }
        self.number(index, node.move_number);
    }

    /// Appends a play's captures, the points of `changes` but its own point `p` (nothing
    /// when there are none: its `CAPTURES` flag says so).
    fn push_captures(&mut self, changes: &[(u16, u8)], p: u16) {
        let count = changes.iter().filter(|c| c.0 != p).count();
        if count > 0 {
            put_varint(&mut self.bytes, count as u64);
            for &(q, _) in changes.iter().filter(|c| c.0 != p) {
                put_varint(&mut self.bytes, u64::from(q));
            }
        }
    }

    /// Keeps node `index`'s move number, which its children's are counted from.
    fn number(&mut self, index: u32, move_number: u32) {
        let at = index as usize;
        if self.move_numbers.len() <= at {
            self.move_numbers.resize(at + 1, 0);
        }
        self.move_numbers[at] = move_number;
    }
}

/// Reads the nodes of one game in order.
#[derive(Debug)]
pub(crate) struct NodeReader<'a> {
    bytes: Bytes<'a>,
    points: u16,
    count: u32,
    index: u32,
    move_numbers: &'a mut Vec<u32>,
}

impl<'a> NodeReader<'a> {
    /// A reader of `count` nodes on a board of `points` points; `numbers` is a buffer it
    /// keeps the nodes' move numbers in (reused from game to game).
    pub(crate) fn new(
        bytes: &'a [u8],
        count: u32,
        points: u16,
        numbers: &'a mut Vec<u32>,
    ) -> NodeReader<'a> {
        numbers.clear();
        NodeReader {
            bytes: Bytes::new(bytes),
            points,
            count,
            index: 0,
            move_numbers: numbers,
        }
    }

    #[inline(always)]
    fn point(&mut self) -> Result<u16, FormatError> {
        // A point of a board up to 128x128 is one or two bytes: read here without the
        // general loop, since every node has one (the walks and the check at opening read
        // them all).
        let p = match self.bytes.bytes.get(self.bytes.pos..self.bytes.pos + 2) {
            Some(&[a, _]) if a < 0x80 => {
                self.bytes.pos += 1;
                u64::from(a)
            }
            Some(&[a, b]) if b < 0x80 => {
                self.bytes.pos += 2;
                u64::from(a & 0x7f) | u64::from(b) << 7
            }
            _ => self.bytes.varint()?,
        };
        if p >= u64::from(self.points) {
            return Err(FormatError::Bad("point off the board"));
        }
        Ok(p as u16)
    }

    /// The next node (`None` after the last), its changes to the board put in `changes`
    /// (cleared first). Parents come before their children: a parent number not below the
    /// node's own is refused (the caller checks it is on the path).
    #[inline]
    pub(crate) fn next(
        &mut self,
        changes: &mut Vec<(u16, u8)>,
    ) -> Result<Option<Node>, FormatError> {
        self.step::<true>(changes)
    }

    /// The next node's parent (`Ok(None)` after the last), every value read and checked as
    /// [`NodeReader::next`] does, none kept: the check at opening, which reads every node of
    /// the index (one reader of both, so that they cannot disagree on what is damaged).
    #[inline]
    pub(crate) fn next_checked(&mut self) -> Result<Option<Option<u32>>, FormatError> {
        let mut none = Vec::new();
        Ok(self.step::<false>(&mut none)?.map(|node| node.parent))
    }

    /// The rest of a short play (`flags`: its first byte; see `MOVE_SHORT`).
    #[inline(always)]
    fn short<const KEEP: bool>(
        &mut self,
        flags: u8,
        changes: &mut Vec<(u16, u8)>,
    ) -> Result<Node, FormatError> {
        let index = self.index;
        let parent = index
            .checked_sub(1)
            .ok_or(FormatError::Bad("a root with a move and no parent"))?;
        let p = u16::from(flags >> 6) << 8 | u16::from(self.bytes.byte()?);
        if p >= self.points {
            return Err(FormatError::Bad("a point off the board"));
        }
        let mover = colour(flags, MOVER_WHITE);
        if KEEP {
            changes.push((p, state(Some(mover))));
        }
        if flags & CAPTURES != 0 {
            self.captures::<KEEP>(changes)?;
        }
        let move_number = if KEEP {
            self.move_numbers[parent as usize].saturating_add(1)
        } else {
            0
        };
        Ok(self.node::<KEEP>(flags, Some(parent), Some((mover, Some(p))), move_number))
    }

    /// A play's captures (a count, then the points), each put in `changes` as emptied.
    #[inline(always)]
    fn captures<const KEEP: bool>(
        &mut self,
        changes: &mut Vec<(u16, u8)>,
    ) -> Result<(), FormatError> {
        let n = self.bytes.varint()?;
        if n > u64::from(self.points) {
            return Err(FormatError::Bad("more captures than points"));
        }
        for _ in 0..n {
            let q = self.point()?;
            if KEEP {
                changes.push((q, 0));
            }
        }
        Ok(())
    }

    /// The node just read (its move number kept for its children if `KEEP`).
    #[inline(always)]
    fn node<const KEEP: bool>(
        &mut self,
        flags: u8,
        parent: Option<u32>,
        mv: Option<(Color, Option<u16>)>,
        move_number: u32,
    ) -> Node {
        if KEEP {
            self.move_numbers.push(move_number);
        }
        self.index += 1;
        Node {
            parent,
            mv,
            to_play: colour(flags, TO_PLAY_WHITE),
            move_number,
            in_variation: flags & IN_VARIATION != 0,
        }
    }

    /// [`NodeReader::next`], keeping the changes and move numbers only if `KEEP`.
    #[inline(always)]
    fn step<const KEEP: bool>(
        &mut self,
        changes: &mut Vec<(u16, u8)>,
    ) -> Result<Option<Node>, FormatError> {
        changes.clear();
        if self.index >= self.count {
            return if self.bytes.is_empty() {
                Ok(None)
            } else {
                Err(FormatError::Bad("bytes after the last node"))
            };
        }
        let index = self.index;
        let flags = self.bytes.byte()?;
        if flags & MOVE_MASK == MOVE_SHORT {
            return self.short::<KEEP>(flags, changes).map(Some);
        }
        let extra = if flags & EXTRA != 0 {
            self.bytes.byte()?
        } else {
            0
        };
        if extra & !(EXTRA_MOVE_NUMBER | EXTRA_CHANGES) != 0 {
            return Err(FormatError::Bad("unknown node flags"));
        }
        let parent = if flags & PARENT != 0 {
            match self.bytes.varint()? {
                v if v == 1 << 32 => None,
                v if v < u64::from(index) => Some(v as u32),
                _ => return Err(FormatError::Bad("parent after its child")),
            }
        } else {
            index.checked_sub(1)
        };
        if index > 0 && parent.is_none() {
            return Err(FormatError::Bad("a second root"));
        }
        let mover = colour(flags, MOVER_WHITE);
        let parent_number = match parent {
            Some(p) if KEEP => self.move_numbers[p as usize],
            _ => 0,
        };
        let kind = flags & MOVE_MASK;
        let move_number = if extra & EXTRA_MOVE_NUMBER != 0 {
            self.bytes.varint_u32()?
        } else {
            parent_number.saturating_add(u32::from(kind != 0))
        };
        let mv = match kind {
            0 => None,
            MOVE_PLAY => Some((mover, Some(self.point()?))),
            MOVE_PASS => Some((mover, None)),
            _ => return Err(FormatError::Bad("unknown move kind")),
        };
        if extra & EXTRA_CHANGES != 0 {
            let n = self.bytes.varint()?;
            if n > u64::from(self.points) {
                return Err(FormatError::Bad("more changes than points"));
            }
            for _ in 0..n {
                let q = self.point()?;
                let s = self.bytes.byte()?;
                if s > 2 {
                    return Err(FormatError::Bad("unknown point state"));
                }
                if KEEP {
                    changes.push((q, s));
                }
            }
        } else {
            if let Some((c, Some(p))) = mv {
                if KEEP {
                    changes.push((p, state(Some(c))));
                }
            } else if flags & CAPTURES != 0 {
                return Err(FormatError::Bad("captures without a move"));
            }
            if flags & CAPTURES != 0 {
                self.captures::<KEEP>(changes)?;
            }
        }
        Ok(Some(self.node::<KEEP>(flags, parent, mv, move_number)))
    }
}

/// The colour a node's flag bit `white` gives.
#[inline(always)]
fn colour(flags: u8, white: u8) -> Color {
    if flags & white != 0 {
        Color::White
    } else {
        Color::Black
    }
}

/// FNV-1a 64 of bytes (the fingerprint of a database's game list), as kifu-posdb's parts.
pub(crate) use kifu_posdb::parts::checksum as fnv64;

/// FNV-1a 64 of bytes read in pieces: `fnv64_more(fnv64(a), b) == fnv64(a ++ b)`.
pub(crate) fn fnv64_more(h: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(h, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The sidecar body's checksum, XXH3-64 fed in pieces. FNV-1a, its checksum up to format 6,
/// takes a multiply per byte one after the other: at 100,000 games it was the longest part
/// of an opening (0.2 s of 0.36 s); XXH3 reads the same bytes in a few milliseconds.
#[derive(Default)]
pub(crate) struct Checksum(twox_hash::XxHash3_64);

impl Checksum {
    /// Adds `bytes` (`Checksum::of(a ++ b)` is `a` then `b` added).
    pub(crate) fn add(&mut self, bytes: &[u8]) {
        std::hash::Hasher::write(&mut self.0, bytes);
    }

    /// The checksum of the bytes added so far.
    pub(crate) fn value(&self) -> u64 {
        std::hash::Hasher::finish(&self.0)
    }

    /// The checksum of `bytes`.
    pub(crate) fn of(bytes: &[u8]) -> u64 {
        twox_hash::XxHash3_64::oneshot(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The writers feed the checksum record by record, the reader window by window, and
    /// `from_bytes` all at once: every split gives the same value.
    #[test]
    fn checksum_in_pieces_is_the_checksum_of_the_whole() {
        let bytes: Vec<u8> = (0..5000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        let whole = Checksum::of(&bytes);
        for split in [0, 1, 63, 64, 65, 240, 1024, 4999, 5000] {
            let mut sum = Checksum::default();
            sum.add(&bytes[..split]);
            sum.add(&[]);
            sum.add(&bytes[split..]);
            assert_eq!(sum.value(), whole, "split at {split}");
        }
        let mut sum = Checksum::default();
        bytes.chunks(3).for_each(|c| sum.add(c));
        assert_eq!(sum.value(), whole);
        assert_ne!(Checksum::of(&bytes[1..]), whole);
    }

    /// The check at opening refuses exactly what a walk's reader refuses, and stops where
    /// it stops: every cut and several flips of every byte of nodes of each kind (setup,
    /// captures, a pass, a variation, an explicit move number, two-byte points).
    #[test]
    fn the_check_reads_as_the_walk_reads() {
        let node = |parent, mv, move_number, in_variation| Node {
            parent,
            mv,
            to_play: Color::Black,
            move_number,
            in_variation,
        };
        let nodes = [
            (node(None, None, 0, false), vec![(3u16, 1u8), (300, 2)]),
            (
                node(Some(0), Some((Color::Black, Some(200))), 1, false),
                vec![(200, 1), (300, 0)],
            ),
            (
                node(Some(1), Some((Color::White, Some(5))), 2, false),
                vec![(5, 2)],
            ),
            (node(Some(0), Some((Color::White, None)), 1, true), vec![]),
            (
                node(Some(3), Some((Color::Black, Some(360))), 9, true),
                vec![(360, 1), (7, 2)],
            ),
        ];
        let mut w = NodeWriter::default();
        for (i, (n, c)) in nodes.iter().enumerate() {
            w.push(i as u32, n, c);
        }
        let bytes = w.bytes;
        let read = |b: &[u8], check: bool| -> Vec<Result<Option<u32>, FormatError>> {
            let mut numbers = Vec::new();
            let mut r = NodeReader::new(b, nodes.len() as u32, 361, &mut numbers);
            let mut changes = Vec::new();
            let mut out = Vec::new();
            loop {
                let got = if check {
                    r.next_checked()
                } else {
                    r.next(&mut changes).map(|n| n.map(|n| n.parent))
                };
                match got {
                    Ok(Some(p)) => out.push(Ok(p)),
                    Ok(None) => return out,
                    Err(e) => {
                        out.push(Err(e));
                        return out;
                    }
                }
            }
        };
        assert_eq!(read(&bytes, true).len(), nodes.len());
        let mut damaged = Vec::new();
        for cut in 0..bytes.len() {
            damaged.push(bytes[..cut].to_vec());
        }
        for at in 0..bytes.len() {
            for flip in [1u8, 0x80, 0xff, 0x40] {
                let mut b = bytes.clone();
                b[at] ^= flip;
                damaged.push(b);
            }
        }
        for b in &damaged {
            assert_eq!(read(b, false), read(b, true), "{b:?}");
        }
    }

    #[test]
    fn nodes_round_trip() {
        let nodes = [
            (
                Node {
                    parent: None,
                    mv: None,
                    to_play: Color::Black,
                    move_number: 0,
                    in_variation: false,
                },
                vec![(3u16, 1u8), (4, 2)],
            ),
            (
                Node {
                    parent: Some(0),
                    mv: Some((Color::Black, Some(10))),
                    to_play: Color::White,
                    move_number: 1,
                    in_variation: false,
                },
                vec![(10, 1), (4, 0)],
            ),
            (
                Node {
                    parent: Some(0),
                    mv: Some((Color::White, None)),
                    to_play: Color::Black,
                    move_number: 1,
                    in_variation: true,
                },
                vec![],
            ),
            (
                Node {
                    parent: Some(2),
                    mv: Some((Color::White, Some(11))),
                    to_play: Color::Black,
                    move_number: 7,
                    in_variation: true,
                },
                vec![(12, 2)],
            ),
        ];
        let mut w = NodeWriter::default();
        for (i, (n, c)) in nodes.iter().enumerate() {
            w.push(i as u32, n, c);
        }
        let mut numbers = Vec::new();
        let mut r = NodeReader::new(&w.bytes, nodes.len() as u32, 81, &mut numbers);
        let mut changes = Vec::new();
        for (n, c) in &nodes {
            assert_eq!(r.next(&mut changes).unwrap().as_ref(), Some(n));
            let (mut a, mut b) = (changes.clone(), c.clone());
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(a, b);
        }
        assert_eq!(r.next(&mut changes).unwrap(), None);
        // Every cut is refused, never a panic.
        for cut in 0..w.bytes.len() {
            let mut numbers = Vec::new();
            let mut r = NodeReader::new(&w.bytes[..cut], nodes.len() as u32, 81, &mut numbers);
            let mut ok = true;
            for _ in 0..=nodes.len() {
                match r.next(&mut changes) {
                    Err(_) => {
                        ok = false;
                        break;
                    }
                    Ok(None) => break,
                    Ok(Some(_)) => {}
                }
            }
            assert!(!ok, "cut at {cut}");
        }
    }
}
