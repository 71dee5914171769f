//! One game of the pattern index: what it holds ([`GameRecord`]), how it is made from a game
//! tree (the replay, every variation, diffed node by node), and its bytes in the sidecar.

mod builder;
#[cfg(test)]
mod tests;

pub(crate) use builder::GameBuilder;

use super::format::{put_varint, Bytes, FormatError, NodeReader};
use super::times::TimeTables;
use crate::filter::{GameInfo, Winner};
use kifu_go::replay::{replay_game, ReplayOptions, Scope, Step};
use kifu_go::BoardSize;

/// One game's whole record as it is built from a game tree, owned: what becomes its hot part
/// (kept in memory by an opened index, as a [`super::games::GameEntry`]) and its cold part
/// (`cold`, read only by the walk of the game).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GameRecord {
    /// Its number in the database.
    pub id: u64,
    /// Its file (a number into [`super::PatternIndex`]'s files).
    pub file: u32,
    /// Its number in the file, from 0.
    pub game_in_file: u32,
    /// What the filters and the answer's matches read.
    pub info: GameInfo,
    /// The year of `info`'s date and the winner its result names, read once: a search counts
    /// them for each game with a hit, and reading the texts there cost the 3x3 hane anywhere
    /// (95,000 games with hits at 100,000) 1.5% of its time.
    pub facts: (Option<i32>, Winner),
    /// Its Dyer signature ([`crate::dyer`]), for duplicates.
    pub dyer: Option<String>,
    /// The board side of its nodes and bitmaps (0: not replayable, no nodes).
    pub side: u8,
    /// The main line's bitmaps (Black rows, White rows: bit `c` of row `r` is point (c, r)
    /// held at some node), with `all` the same over every variation after them.
    pub bitmaps: Vec<u32>,
    /// Units of the first and last nodes in [`ColdView::times`]: `1 << shift` nodes.
    pub shift: u8,
    /// Whether `bitmaps` holds bitmaps over every variation (the game has variations).
    pub all: bool,
    /// Whether the cold part holds the final board and the first and last nodes (not for
    /// games of millions of main-line nodes).
    pub times: bool,
    /// The rest of the record (its cold part: the bytes from the final board on), read by
    /// [`ColdView::parse`].
    pub cold: Vec<u8>,
}

/// A game's cold part, read: what the walk of one game needs beyond the bitmaps.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ColdView<'a> {
    /// The main line's final board and the nodes of each point's first stone and last change
    /// ([`TimeTables`]). After its last change a point keeps its final state, before its first
    /// stone it is empty: a place stands only between its stones' first nodes and the first
    /// last change that the final board contradicts. `None` for games without them.
    pub times: Option<TimeTables<'a>>,
    /// The node count and nodes, read by [`ColdView::nodes`] (only when the game is walked:
    /// most games a search looks at are left after `times`).
    rest: &'a [u8],
}

impl<'a> ColdView<'a> {
    /// Splits a cold part of a game of board side `side` (`times`: it has the final board and
    /// first and last nodes, in units of `1 << shift` nodes) without reading its nodes.
    pub(crate) fn split(
        bytes: &'a [u8],
        side: u8,
        times: bool,
        shift: u8,
    ) -> Result<Self, FormatError> {
        let n = usize::from(side);
        let mut b = Bytes::new(bytes);
        let times = if times && n > 0 {
            Some(TimeTables::read(&mut b, n, shift)?)
        } else {
            None
        };
        Ok(ColdView {
            times,
            rest: &bytes[b.position()..],
        })
    }

    /// Reads a cold part as [`ColdView::split`] does, checking that its nodes' length is
    /// right and every byte of `bytes` is used.
    pub(crate) fn parse(
        bytes: &'a [u8],
        side: u8,
        times: bool,
        shift: u8,
    ) -> Result<Self, FormatError> {
        let view = Self::split(bytes, side, times, shift)?;
        if let Some(t) = &view.times {
            t.check(usize::from(side))?;
        }
        let mut b = Bytes::new(view.rest);
        let (count, _) = Self::read_nodes(&mut b)?;
        if !b.is_empty() {
            return Err(FormatError::Bad("bytes after the nodes"));
        }
        if let Some(line) = view.times.and_then(|t| t.line) {
            if line.nodes > count {
                return Err(FormatError::Bad("main line longer than the nodes"));
            }
        }
        if side == 0 && count > 0 {
            return Err(FormatError::Bad("nodes without a board"));
        }
        Ok(view)
    }

    /// The number of nodes and their bytes.
    pub(crate) fn nodes(&self) -> Result<(u32, &'a [u8]), FormatError> {
        Self::read_nodes(&mut Bytes::new(self.rest))
    }

    fn read_nodes(b: &mut Bytes<'a>) -> Result<(u32, &'a [u8]), FormatError> {
        let count = b.varint_u32()?;
        let len = usize::try_from(b.varint()?).map_err(|_| FormatError::Truncated)?;
        Ok((count, b.take(len)?))
    }

    /// Reads every node once, as a search would, so that a damaged record is found when the
    /// index is opened rather than halfway through a search.
    pub(crate) fn check(&self, side: u8, scratch: &mut CheckScratch) -> Result<(), FormatError> {
        let points = u16::from(side) * u16::from(side);
        let (count, nodes) = self.nodes()?;
        let CheckScratch { numbers, path } = scratch;
        path.clear();
        let mut r = NodeReader::new(nodes, count, points, numbers);
        let mut index = 0u32;
        while let Some(parent) = r.next_checked()? {
            while path.last().is_some_and(|&i| Some(i) != parent) {
                path.pop();
            }
            if parent.is_some() && path.is_empty() {
                return Err(FormatError::Bad("a parent off the path"));
            }
            path.push(index);
            index += 1;
        }
        Ok(())
    }
}

/// The buffers of [`check_cold`], reused from game to game: allocated per game on every
/// thread, they had the opening wait on the allocator's lock.
#[derive(Debug, Default)]
pub(crate) struct CheckScratch {
    numbers: Vec<u32>,
    path: Vec<u32>,
}

/// Checks the cold part (`bytes`) of a game of `side` (with time tables in units of
/// `1 << shift` nodes or not): its layout and every node, as a search reads them.
pub(crate) fn check_cold(
    bytes: &[u8],
    side: u8,
    (times, shift): (bool, u8),
    scratch: &mut CheckScratch,
) -> Result<(), FormatError> {
    ColdView::parse(bytes, side, times, shift)?.check(side, scratch)
}

impl GameRecord {
    /// Reads a game's tree into an entry (what the replay makes of it, every variation).
    pub(crate) fn build(
        id: u64,
        file: u32,
        game_in_file: u32,
        tree: kifu_sgf::GameTree<'_>,
    ) -> GameRecord {
        let mut b = GameBuilder::new(id, file, game_in_file, &tree);
        if b.size.is_some() {
            let opts = ReplayOptions {
                scope: Scope::AllVariations,
                ..ReplayOptions::default()
            };
            let _ = replay_game(tree, &opts, |step: &Step<'_>| b.step(step));
        }
        b.finish(&tree)
    }

    /// Appends the whole record: the hot part, then `cold` (the game's cold bytes).
    pub(crate) fn encode_record(&self, cold: &[u8], out: &mut Vec<u8>) {
        self.encode_hot(out);
        out.extend_from_slice(cold);
    }

    /// Appends the record's part that stays in memory; its cold bytes follow it in the file.
    pub(crate) fn encode_hot(&self, out: &mut Vec<u8>) {
        encode_numbers(self.id, self.file, out);
        self.encode_rest(out);
    }

    /// Appends the hot part after its numbers ([`encode_numbers`]), which only the writer
    /// knows; where the Dyer signature's text is in `out`, if the game has one.
    pub(crate) fn encode_rest(&self, out: &mut Vec<u8>) -> Option<std::ops::Range<usize>> {
        self.hot().encode_rest(&self.bitmaps, out)
    }

    /// The hot part, borrowed.
    pub(crate) fn hot(&self) -> Hot<'_> {
        let i = &self.info;
        Hot {
            id: self.id,
            file: self.file,
            game_in_file: self.game_in_file,
            texts: [&i.black, &i.white, &i.date, &i.event, &i.result],
            handicap: i.handicap,
            dyer: self.dyer.as_deref(),
            komi: i.komi,
            size: i.size,
            side: self.side,
            all: self.all,
            times: self.times,
            shift: self.shift,
        }
    }
}

/// A game's hot part, borrowed: what its record holds before the cold part, as the sidecar
/// writes it ([`Hot::encode_rest`]) and reads it ([`Hot::decode`]), for a record just built
/// and for a game of an opened index alike.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hot<'a> {
    /// Its number in the database.
    pub id: u64,
    /// Its file's number.
    pub file: u32,
    /// Its number in the file.
    pub game_in_file: u32,
    /// `PB PW DT EV RE`.
    pub texts: [&'a str; 5],
    /// `HA`.
    pub handicap: u32,
    /// Its Dyer signature.
    pub dyer: Option<&'a str>,
    /// `KM`.
    pub komi: Option<f64>,
    /// The board size of its information.
    pub size: u8,
    /// The board side of its nodes and bitmaps (0: none).
    pub side: u8,
    /// Bitmaps over every variation follow the main line's.
    pub all: bool,
    /// The cold part has time tables.
    pub times: bool,
    /// Their units: `1 << shift` nodes.
    pub shift: u8,
}

impl<'a> Hot<'a> {
    /// The number of bitmap words the record holds.
    pub(crate) fn bitmap_words(&self) -> usize {
        let n = usize::from(self.side);
        if self.all {
            4 * n
        } else {
            2 * n
        }
    }

    /// Appends the hot part after its numbers, its bitmaps `words`; where the Dyer
    /// signature's text is in `out`, if the game has one.
    pub(crate) fn encode_rest(
        &self,
        words: &[u32],
        out: &mut Vec<u8>,
    ) -> Option<std::ops::Range<usize>> {
        put_varint(out, u64::from(self.game_in_file));
        for s in self.texts {
            put_varint(out, s.len() as u64);
            out.extend_from_slice(s.as_bytes());
        }
        put_varint(out, u64::from(self.handicap));
        let dyer = match self.dyer {
            None => {
                out.push(0);
                None
            }
            Some(d) => {
                out.push(1);
                put_varint(out, d.len() as u64);
                out.extend_from_slice(d.as_bytes());
                Some(out.len() - d.len()..out.len())
            }
        };
        match self.komi {
            None => out.push(0),
            Some(k) => {
                out.push(1);
                out.extend_from_slice(&k.to_bits().to_le_bytes());
            }
        }
        out.push(self.size);
        out.push(self.side);
        let (all, times) = if self.side == 0 {
            (false, false)
        } else {
            (self.all, self.times)
        };
        out.push(u8::from(all) | (u8::from(times) << 1) | (self.shift.min(15) << 2));
        for b in words.iter().take(self.bitmap_words()) {
            out.extend_from_slice(&b.to_le_bytes());
        }
        dyer
    }

    /// Reads a record's hot part (of a sidecar of `files` files); with it, its bitmaps'
    /// bytes (little-endian u32 words).
    pub(crate) fn decode(
        b: &mut Bytes<'a>,
        files: u32,
    ) -> Result<(Hot<'a>, &'a [u8]), FormatError> {
        let id = b.varint()?;
        let file = b.varint_u32()?;
        if file >= files {
            return Err(FormatError::Bad("file number"));
        }
        let game_in_file = b.varint_u32()?;
        let texts = [b.str()?, b.str()?, b.str()?, b.str()?, b.str()?];
        let handicap = b.varint_u32()?;
        let dyer = match b.byte()? {
            0 => None,
            1 => Some(b.str()?),
            _ => return Err(FormatError::Bad("signature flag")),
        };
        let komi = match b.byte()? {
            0 => None,
            1 => Some(f64::from_bits(b.u64_le()?)),
            _ => return Err(FormatError::Bad("komi flag")),
        };
        let size = b.byte()?;
        let side = b.byte()?;
        if side != 0 && (side != size || BoardSize::new(u32::from(side)).is_err()) {
            return Err(FormatError::Bad("board side"));
        }
        let flags = b.byte()?;
        if flags >> 6 != 0 || (side == 0 && flags != 0) {
            return Err(FormatError::Bad("bitmap flags"));
        }
        let hot = Hot {
            id,
            file,
            game_in_file,
            texts,
            handicap,
            dyer,
            komi,
            size,
            side,
            all: flags & 1 != 0,
            times: flags & 2 != 0,
            shift: (flags >> 2) & 15,
        };
        let words = b.take(4 * hot.bitmap_words())?;
        Ok((hot, words))
    }

    /// Skips the cold part that follows the hot part in `b`: its length.
    pub(crate) fn skip_cold(&self, b: &mut Bytes<'_>) -> Result<usize, FormatError> {
        let start = b.position();
        let n = usize::from(self.side);
        if self.times && n > 0 {
            TimeTables::read(b, n, self.shift)?;
        }
        ColdView::read_nodes(b)?;
        Ok(b.position() - start)
    }
}

/// Appends a record's first part: the game's number in the database and its file's.
pub(crate) fn encode_numbers(id: u64, file: u32, out: &mut Vec<u8>) {
    put_varint(out, id);
    put_varint(out, u64::from(file));
}

/// Words of a board's points as one bitmap (25 x 25 points).
pub(crate) const FLAT_WORDS: usize = 10;

/// Rows of `n` bits (`row(i)`) as one bitmap of the board's points, row after row.
pub(crate) fn flat(n: usize, row: impl Fn(usize) -> u32) -> [u64; FLAT_WORDS] {
    let [out] = flats(n, |r| [row(r)]);
    out
}

/// [`flat`] of `K` bitmaps at once (`rows(i)`: row `i` of each): the dense prune turns four
/// a game into flat bitmaps, and one pass shares the rows' places among them (one pass each
/// was 5% of a 7x3 lone stone anywhere's instructions). Inlined: out of line (as the release
/// build left it) its words went through memory and it cost what the four passes did.
#[inline(always)]
pub(crate) fn flats<const K: usize>(
    n: usize,
    rows: impl Fn(usize) -> [u32; K],
) -> [[u64; FLAT_WORDS]; K] {
    let mut out = [[0u64; FLAT_WORDS]; K];
    let full = if n >= 32 {
        u64::from(u32::MAX)
    } else {
        (1 << n) - 1
    };
    // The bits of the word being filled; a row's bits that pass its end (a row is at most 25
    // bits, so it spans two words at most) begin the next.
    let mut acc = [0u64; K];
    let (mut filled, mut w) = (0usize, 0usize);
    for r in 0..n.min(25) {
        let row = rows(r);
        let bits = row.map(|b| u64::from(b) & full);
        for k in 0..K {
            acc[k] |= bits[k] << filled;
        }
        if filled + n < 64 {
            filled += n;
            continue;
        }
        for k in 0..K {
            out[k][w % FLAT_WORDS] = acc[k];
            // (No shift by 64 when the row ends the word exactly.)
            acc[k] = bits[k] >> 1 >> (63 - filled);
        }
        filled = filled + n - 64;
        w += 1;
    }
    if filled > 0 {
        for k in 0..K {
            out[k][w % FLAT_WORDS] = acc[k];
        }
    }
    out
}

/// Row `i` of bitmaps stored as little-endian u32 words.
#[inline]
pub(crate) fn row_word(bytes: &[u8], i: usize) -> u32 {
    match bytes.get(4 * i..4 * i + 4) {
        Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]),
        _ => 0,
    }
}
