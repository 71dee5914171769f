//! Precomputed answers for the keys with many entries (the common opening positions), so that a
//! lookup reads a summary and one page of entries instead of every matching entry.
//!
//! A key with at least [`SUMMARY_THRESHOLD`] entries (or the threshold the file was built with,
//! [`IndexOptions::summary_threshold`](super::IndexOptions::summary_threshold)) gets a summary record (all integers
//! big-endian):
//! - 40-byte head: index of the key's first entry (u64), its entries (u64), distinct games
//!   (u64), continuations (u32), game-set kind (1 byte: 0 a sorted list of u32 game numbers, 1 a
//!   bitmap of one bit a game of the index, bit `g % 64` of u64 number `g / 64`), 3 zero bytes,
//!   game-set length in bytes (u64);
//! - continuations, 26 bytes each, by next-move code: the code in the canonical orientation (u16,
//!   as in the entries; entries without a next move are not counted), games (u64), of those won
//!   by Black (u64), won by White (u64);
//! - the game set (the distinct games of the key; a lookup with colours swapped needs it to
//!   count the games found under both keys once): whichever of the list and the bitmap is
//!   smaller, the list when equal. So summaries take at most 4 bytes a distinct game beyond the
//!   continuations, and the builder holds at most one bitmap.
//!
//! The summary directory has one 40-byte record per summarized key, in key order: the 17-byte key,
//! 7 zero bytes, the record's offset from the start of the summary data (u64) and its length
//! (u64).
//!
//! Everything a summary holds is a sum over the key's entries, so the answers built from it are
//! exactly those of a scan (the reader's tests compare both on the corpus).

use super::{u16_at, u32_at, u64_at, IndexError, ENTRY_BYTES, KEY_BYTES, NEXT_NONE};
use std::io::{self, Write};

/// Keys with at least this many entries get a summary. A scan of fewer entries (26 KiB) and their
/// continuations takes some tens of microseconds, well under the 1 ms a lookup may take, and a
/// summary (40 bytes plus 26 a continuation plus the game set) is small beside 1,024 entries.
pub const SUMMARY_THRESHOLD: u64 = 1024;
/// Bytes of a summary head.
pub(super) const SUMMARY_HEAD: usize = 40;
/// Bytes of a summary continuation.
pub(super) const CONT_BYTES: usize = 26;
/// Bytes of a summary directory record.
pub(super) const DIR_BYTES: usize = 40;

/// Winner codes kept in the high bits of an entry's symmetry byte.
pub(super) const WIN_SHIFT: u8 = 3;

/// Continuation sums of one next-move code (canonical orientation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct ContSum {
    pub code: u16,
    pub count: u64,
    pub black: u64,
    pub white: u64,
}

/// The winner bits of an entry's symmetry byte: (won by Black, won by White).
pub(super) fn entry_wins(sym_byte: u8) -> (bool, bool) {
    match (sym_byte >> WIN_SHIFT) & 3 {
        1 => (true, false),
        2 => (false, true),
        _ => (false, false),
    }
}

/// The distinct games of a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum GameSet {
    /// Sorted, distinct.
    List(Vec<u32>),
    /// One bit a game of the index.
    Bits(Vec<u64>),
}

impl GameSet {
    pub fn contains(&self, g: u32) -> bool {
        match self {
            GameSet::List(l) => l.binary_search(&g).is_ok(),
            GameSet::Bits(b) => b
                .get(g as usize / 64)
                .is_some_and(|w| w >> (g % 64) & 1 == 1),
        }
    }

    /// Games in both sets.
    pub fn intersection_len(&self, other: &GameSet) -> u64 {
        match (self, other) {
            (GameSet::Bits(a), GameSet::Bits(b)) => a
                .iter()
                .zip(b)
                .map(|(x, y)| u64::from((x & y).count_ones()))
                .sum(),
            (GameSet::List(l), o) | (o, GameSet::List(l)) => {
                l.iter().filter(|&&g| o.contains(g)).count() as u64
            }
        }
    }

    /// Parses a stored set of `len` games out of an index of `games` games.
    pub fn parse(kind: u8, bytes: &[u8], len: u64, games: u64) -> Result<GameSet, IndexError> {
        let bad = IndexError::Format("bad game set in a summary");
        match kind {
            0 => {
                if bytes.len() as u64 != len * 4 {
                    return Err(bad);
                }
                let l: Vec<u32> = bytes.chunks_exact(4).map(|c| u32_at(c, 0)).collect();
                if l.windows(2).any(|w| w[0] >= w[1])
                    || l.last().is_some_and(|&g| u64::from(g) >= games)
                {
                    return Err(bad);
                }
                Ok(GameSet::List(l))
            }
            1 => {
                if bytes.len() as u64 != bitmap_bytes(games) {
                    return Err(bad);
                }
                Ok(GameSet::Bits(
                    bytes.chunks_exact(8).map(|c| u64_at(c, 0)).collect(),
                ))
            }
            _ => Err(bad),
        }
    }
}

fn bitmap_bytes(games: u64) -> u64 {
    games.div_ceil(64) * 8
}

/// A parsed summary head and continuations.
#[derive(Debug, Clone)]
pub(super) struct Summary {
    pub first: u64,
    pub count: u64,
    pub games: u64,
    pub conts: Vec<ContSum>,
    pub set_kind: u8,
    /// Offset of the game set from the start of the record, and its length.
    pub set_at: u64,
    pub set_len: u64,
}

impl Summary {
    /// Parses the head, then (from `conts`, the bytes after the head) the continuations.
    pub fn parse_head(
        h: &[u8; SUMMARY_HEAD],
        record_len: u64,
        entries: u64,
    ) -> Result<Summary, IndexError> {
        let bad = IndexError::Format("bad summary record");
        let (first, count, games) = (u64_at(h, 0), u64_at(h, 8), u64_at(h, 16));
        let n = u64::from(u32_at(h, 24));
        let set_len = u64_at(h, 32);
        let set_at = SUMMARY_HEAD as u64 + n * CONT_BYTES as u64;
        if first.checked_add(count).is_none_or(|e| e > entries)
            || count == 0
            || games > count
            || n > 1 << 16
            || set_at.checked_add(set_len) != Some(record_len)
        {
            return Err(bad);
        }
        Ok(Summary {
            first,
            count,
            games,
            conts: Vec::with_capacity(n as usize),
            set_kind: h[28],
            set_at,
            set_len,
        })
    }

    pub fn parse_conts(&mut self, bytes: &[u8]) {
        self.conts = bytes
            .chunks_exact(CONT_BYTES)
            .map(|c| ContSum {
                code: u16_at(c, 0),
                count: u64_at(c, 2),
                black: u64_at(c, 10),
                white: u64_at(c, 18),
            })
            .collect();
    }
}

/// Builds summaries while the sorted entries stream past, writing the records to `data` and the
/// directory to `dir`. Memory: the first [`SUMMARY_THRESHOLD`] entries of the current key, its
/// continuations and its game set (at most one bitmap of the index's games). Keys with at
/// least `threshold` entries are summarized.
pub(super) struct SummaryBuilder<W: Write, D: Write> {
    threshold: u64,
    games_total: u64,
    data: W,
    dir: D,
    data_len: u64,
    summaries: u64,
    key: [u8; KEY_BYTES],
    first: u64,
    count: u64,
    pending: Vec<u8>,
    conts: Vec<ContSum>,
    set: GameSet,
    distinct: u64,
    last_game: Option<u32>,
}

impl<W: Write, D: Write> SummaryBuilder<W, D> {
    pub fn new(threshold: u64, games_total: u64, data: W, dir: D) -> Self {
        SummaryBuilder {
            threshold,
            games_total,
            data,
            dir,
            data_len: 0,
            summaries: 0,
            key: [0; KEY_BYTES],
            first: 0,
            count: 0,
            pending: Vec::new(),
            conts: Vec::new(),
            set: GameSet::List(Vec::new()),
            distinct: 0,
            last_game: None,
        }
    }

    /// The next entry (entries come in key order), number `index` in the file.
    pub fn push(&mut self, index: u64, e: &[u8]) -> io::Result<()> {
        if self.count == 0 || e[..KEY_BYTES] != self.key[..] {
            self.end_key()?;
            self.key.copy_from_slice(&e[..KEY_BYTES]);
            self.first = index;
        }
        self.count += 1;
        if self.count < self.threshold {
            self.pending.extend_from_slice(e);
            return Ok(());
        }
        if self.count == self.threshold {
            let pending = std::mem::take(&mut self.pending);
            for p in pending.chunks_exact(ENTRY_BYTES) {
                self.add(p);
            }
            self.pending = pending;
            self.pending.clear();
        }
        self.add(e);
        Ok(())
    }

    fn add(&mut self, e: &[u8]) {
        let game = u32_at(e, 17);
        if self.last_game != Some(game) {
            self.last_game = Some(game);
            self.distinct += 1;
            match &mut self.set {
                GameSet::List(l) => {
                    l.push(game);
                    if l.len() as u64 * 4 > bitmap_bytes(self.games_total) {
                        let mut bits = vec![0u64; (bitmap_bytes(self.games_total) / 8) as usize];
                        for &g in l.iter() {
                            bits[g as usize / 64] |= 1 << (g % 64);
                        }
                        self.set = GameSet::Bits(bits);
                    }
                }
                GameSet::Bits(b) => {
                    if let Some(w) = b.get_mut(game as usize / 64) {
                        *w |= 1 << (game % 64);
                    }
                }
            }
        }
        let code = u16_at(e, 24);
        if code == NEXT_NONE {
            return;
        }
        let (b, w) = entry_wins(e[23]);
        let i = match self.conts.binary_search_by_key(&code, |c| c.code) {
            Ok(i) => i,
            Err(i) => {
                self.conts.insert(
                    i,
                    ContSum {
                        code,
                        ..ContSum::default()
                    },
                );
                i
            }
        };
        let c = &mut self.conts[i];
        c.count += 1;
        c.black += u64::from(b);
        c.white += u64::from(w);
    }

    fn end_key(&mut self) -> io::Result<()> {
        if self.count >= self.threshold {
            let (kind, set): (u8, Vec<u8>) = match &self.set {
                GameSet::List(l) => (0, l.iter().flat_map(|g| g.to_be_bytes()).collect()),
                GameSet::Bits(b) => (1, b.iter().flat_map(|w| w.to_be_bytes()).collect()),
            };
            let mut h = [0u8; SUMMARY_HEAD];
            h[0..8].copy_from_slice(&self.first.to_be_bytes());
            h[8..16].copy_from_slice(&self.count.to_be_bytes());
            h[16..24].copy_from_slice(&self.distinct.to_be_bytes());
            h[24..28].copy_from_slice(&(self.conts.len() as u32).to_be_bytes());
            h[28] = kind;
            h[32..40].copy_from_slice(&(set.len() as u64).to_be_bytes());
            self.data.write_all(&h)?;
            for c in &self.conts {
                let mut b = [0u8; CONT_BYTES];
                b[0..2].copy_from_slice(&c.code.to_be_bytes());
                b[2..10].copy_from_slice(&c.count.to_be_bytes());
                b[10..18].copy_from_slice(&c.black.to_be_bytes());
                b[18..26].copy_from_slice(&c.white.to_be_bytes());
                self.data.write_all(&b)?;
            }
            self.data.write_all(&set)?;
            let len = (SUMMARY_HEAD + self.conts.len() * CONT_BYTES + set.len()) as u64;
            let mut d = [0u8; DIR_BYTES];
            d[..KEY_BYTES].copy_from_slice(&self.key);
            d[24..32].copy_from_slice(&self.data_len.to_be_bytes());
            d[32..40].copy_from_slice(&len.to_be_bytes());
            self.dir.write_all(&d)?;
            self.data_len += len;
            self.summaries += 1;
        }
        self.count = 0;
        self.pending.clear();
        self.conts.clear();
        self.set = GameSet::List(Vec::new());
        self.distinct = 0;
        self.last_game = None;
        Ok(())
    }

    /// Ends the last key; gives back the writers, the length of the data and the number of
    /// summaries.
    pub fn finish(mut self) -> io::Result<(W, D, u64, u64)> {
        self.end_key()?;
        Ok((self.data, self.dir, self.data_len, self.summaries))
    }
}
