//! Precomputed answers for the keys with many entries (the common opening positions), so that a
//! lookup reads a summary and one page of entries instead of every matching entry.
//!
//! A key with at least [`SUMMARY_THRESHOLD`] entries (or the threshold the file was built with,
//! [`IndexOptions::summary_threshold`](super::IndexOptions::summary_threshold)) gets a summary
//! record: a head (the key's first entry, its entries, its distinct games), its continuations
//! by next-move code in the canonical orientation (entries continued so, of those in games won
//! by Black and by White; entries without a next move are not counted), and the key's game set
//! (a lookup with colours swapped needs it to count the games found under both keys once):
//! whichever of a sorted list and a bitmap of the index's games is smaller, the list when
//! equal. So summaries take at most 4 bytes a distinct game beyond the continuations, and the
//! builder holds at most one bitmap. A directory of one record per summarized key, in key
//! order, locates the records. Their bytes are defined in `format` (`SummaryHead`,
//! `ContRecord`, `GameSet`, `DirRecord`).
//!
//! Everything a summary holds is a sum over the key's entries, so the answers built from it are
//! exactly those of a scan (the reader's tests compare both on the corpus).

use super::format::{ContRecord, DirRecord, Entry, GameSet, Key, SummaryHead, NEXT_NONE};
use super::{IndexError, Winner};
use std::io::{self, Write};

/// Keys with at least this many entries get a summary. A scan of fewer entries (26 KiB) and their
/// continuations takes some tens of microseconds, well under the 1 ms a lookup may take, and a
/// summary (40 bytes plus 26 a continuation plus the game set) is small beside 1,024 entries.
pub const SUMMARY_THRESHOLD: u64 = 1024;

impl GameSet {
    /// Whether game `g` is in the set.
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

    /// Parses a stored set of `len` games out of an index of `games` games: a list must hold
    /// exactly `len` sorted, distinct games of the index, a bitmap one bit a game of the index.
    pub fn parse(kind: u8, bytes: &[u8], len: u64, games: u64) -> Result<GameSet, IndexError> {
        let bad = IndexError::Format("bad game set in a summary");
        match GameSet::decode(kind, bytes).ok_or(bad)? {
            GameSet::List(l) => {
                if bytes.len() as u64 != GameSet::list_bytes(len)
                    || l.windows(2).any(|w| w[0] >= w[1])
                    || l.last().is_some_and(|&g| u64::from(g) >= games)
                {
                    return Err(IndexError::Format("bad game set in a summary"));
                }
                Ok(GameSet::List(l))
            }
            GameSet::Bits(b) => {
                if bytes.len() as u64 != GameSet::bitmap_bytes(games) {
                    return Err(IndexError::Format("bad game set in a summary"));
                }
                Ok(GameSet::Bits(b))
            }
        }
    }
}

/// A parsed summary head and continuations.
#[derive(Debug, Clone)]
pub(super) struct Summary {
    /// The head, checked against the record's length and the index.
    pub head: SummaryHead,
    /// The continuations.
    pub conts: Vec<ContRecord>,
}

impl Summary {
    /// Checks a head read from a record of `record_len` bytes in an index of `entries` entries;
    /// the continuations are added by [`Summary::parse_conts`].
    pub fn parse_head(
        head: SummaryHead,
        record_len: u64,
        entries: u64,
    ) -> Result<Summary, IndexError> {
        let h = head;
        if h.first.checked_add(h.count).is_none_or(|e| e > entries)
            || h.count == 0
            || h.games > h.count
            || h.conts > 1 << 16
            || h.set_at().checked_add(h.set_len) != Some(record_len)
        {
            return Err(IndexError::Format("bad summary record"));
        }
        Ok(Summary {
            head,
            conts: Vec::new(),
        })
    }

    /// The continuations, from the bytes after the head.
    pub fn parse_conts(&mut self, bytes: &[u8]) {
        self.conts = ContRecord::decode_all(bytes);
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
    key: Key,
    first: u64,
    count: u64,
    pending: Vec<Entry>,
    conts: Vec<ContRecord>,
    set: GameSet,
    distinct: u64,
    last_game: Option<u32>,
}

impl<W: Write, D: Write> SummaryBuilder<W, D> {
    /// A builder for an index of `games_total` games, summarizing keys with at least
    /// `threshold` entries.
    pub fn new(threshold: u64, games_total: u64, data: W, dir: D) -> Self {
        SummaryBuilder {
            threshold,
            games_total,
            data,
            dir,
            data_len: 0,
            summaries: 0,
            key: Key::default(),
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
    pub fn push(&mut self, index: u64, e: &Entry) -> io::Result<()> {
        if self.count == 0 || e.key != self.key {
            self.end_key()?;
            self.key = e.key;
            self.first = index;
        }
        self.count += 1;
        if self.count < self.threshold {
            self.pending.push(*e);
            return Ok(());
        }
        if self.count == self.threshold {
            let pending = std::mem::take(&mut self.pending);
            for p in &pending {
                self.add(p);
            }
            self.pending = pending;
            self.pending.clear();
        }
        self.add(e);
        Ok(())
    }

    fn add(&mut self, e: &Entry) {
        let game = e.game;
        if self.last_game != Some(game) {
            self.last_game = Some(game);
            self.distinct += 1;
            let bitmap = GameSet::bitmap_bytes(self.games_total);
            match &mut self.set {
                GameSet::List(l) => {
                    l.push(game);
                    if GameSet::list_bytes(l.len() as u64) > bitmap {
                        let mut bits = vec![0u64; (bitmap / 8) as usize];
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
        let code = e.next;
        if code == NEXT_NONE {
            return;
        }
        let i = match self.conts.binary_search_by_key(&code, |c| c.code) {
            Ok(i) => i,
            Err(i) => {
                self.conts.insert(
                    i,
                    ContRecord {
                        code,
                        ..ContRecord::default()
                    },
                );
                i
            }
        };
        let c = &mut self.conts[i];
        c.count += 1;
        c.black += u64::from(e.winner == Winner::Black);
        c.white += u64::from(e.winner == Winner::White);
    }

    fn end_key(&mut self) -> io::Result<()> {
        if self.count >= self.threshold {
            let (set_kind, set) = self.set.encode();
            let head = SummaryHead {
                first: self.first,
                count: self.count,
                games: self.distinct,
                conts: self.conts.len() as u32,
                set_kind,
                set_len: set.len() as u64,
            };
            self.data.write_all(&head.encode())?;
            for c in &self.conts {
                self.data.write_all(&c.encode())?;
            }
            self.data.write_all(&set)?;
            let len = head.set_at() + head.set_len;
            let dir = DirRecord {
                key: self.key,
                off: self.data_len,
                len,
            };
            self.dir.write_all(&dir.encode())?;
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
