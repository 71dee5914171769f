//! The records of the summaries ([`crate::index::summary`] says what they hold): the head of a
//! summary record, its continuations and game set, and the directory records.

use super::{be16, be32, be64, put, Key, CONT_BYTES, DIR_BYTES, SUMMARY_HEAD_BYTES};

/// Game-set kind of a sorted list of game numbers.
pub(super) const SET_LIST: u8 = 0;
/// Game-set kind of a bitmap of the index's games.
pub(super) const SET_BITS: u8 = 1;

/// The head of a summary record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::index) struct SummaryHead {
    /// Index of the key's first entry.
    pub first: u64,
    /// The key's entries.
    pub count: u64,
    /// Its distinct games.
    pub games: u64,
    /// Continuation records that follow.
    pub conts: u32,
    /// How the game set is stored: list or bitmap (another value in a damaged file).
    pub set_kind: u8,
    /// Bytes of the game set.
    pub set_len: u64,
}

impl SummaryHead {
    /// The head's bytes.
    pub fn encode(&self) -> [u8; SUMMARY_HEAD_BYTES] {
        let mut h = [0u8; SUMMARY_HEAD_BYTES];
        put(&mut h, 0, &self.first.to_be_bytes());
        put(&mut h, 8, &self.count.to_be_bytes());
        put(&mut h, 16, &self.games.to_be_bytes());
        put(&mut h, 24, &self.conts.to_be_bytes());
        h[28] = self.set_kind;
        put(&mut h, 32, &self.set_len.to_be_bytes());
        h
    }

    /// Reads a head.
    pub fn decode(h: &[u8; SUMMARY_HEAD_BYTES]) -> SummaryHead {
        SummaryHead {
            first: be64(h, 0),
            count: be64(h, 8),
            games: be64(h, 16),
            conts: be32(h, 24),
            set_kind: h[28],
            set_len: be64(h, 32),
        }
    }

    /// Offset of the game set from the start of the record (after the continuations).
    pub fn set_at(&self) -> u64 {
        (SUMMARY_HEAD_BYTES + self.conts as usize * CONT_BYTES) as u64
    }
}

/// Continuation sums of one next-move code (canonical orientation): a summary's continuation
/// record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(in crate::index) struct ContRecord {
    /// The next-move code, as in the entries (never [`NEXT_NONE`](super::NEXT_NONE)).
    pub code: u16,
    /// Entries continued so.
    pub count: u64,
    /// Of those, in games won by Black.
    pub black: u64,
    /// Of those, in games won by White.
    pub white: u64,
}

impl ContRecord {
    /// The record's bytes.
    pub fn encode(&self) -> [u8; CONT_BYTES] {
        let mut b = [0u8; CONT_BYTES];
        put(&mut b, 0, &self.code.to_be_bytes());
        put(&mut b, 2, &self.count.to_be_bytes());
        put(&mut b, 10, &self.black.to_be_bytes());
        put(&mut b, 18, &self.white.to_be_bytes());
        b
    }

    /// The records of a run of continuation bytes (a trailing partial record is ignored).
    pub fn decode_all(bytes: &[u8]) -> Vec<ContRecord> {
        bytes
            .as_chunks::<CONT_BYTES>()
            .0
            .iter()
            .map(|b| ContRecord {
                code: be16(b, 0),
                count: be64(b, 2),
                black: be64(b, 10),
                white: be64(b, 18),
            })
            .collect()
    }
}

/// The distinct games of a key, as a summary stores them: whichever of the two is smaller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::index) enum GameSet {
    /// Sorted, distinct game numbers (u32 each).
    List(Vec<u32>),
    /// One bit a game of the index: bit `g % 64` of u64 number `g / 64`.
    Bits(Vec<u64>),
}

impl GameSet {
    /// The set's kind byte and bytes.
    pub fn encode(&self) -> (u8, Vec<u8>) {
        match self {
            GameSet::List(l) => (SET_LIST, l.iter().flat_map(|g| g.to_be_bytes()).collect()),
            GameSet::Bits(b) => (SET_BITS, b.iter().flat_map(|w| w.to_be_bytes()).collect()),
        }
    }

    /// Reads a set of the given kind (`None`: an unknown kind, or bytes that are not whole
    /// numbers). Whether it fits the summary and the index is for the caller to check.
    pub fn decode(kind: u8, bytes: &[u8]) -> Option<GameSet> {
        match kind {
            SET_LIST => {
                let (l, rest) = bytes.as_chunks::<4>();
                rest.is_empty()
                    .then(|| GameSet::List(l.iter().map(|c| u32::from_be_bytes(*c)).collect()))
            }
            SET_BITS => {
                let (w, rest) = bytes.as_chunks::<8>();
                rest.is_empty()
                    .then(|| GameSet::Bits(w.iter().map(|c| u64::from_be_bytes(*c)).collect()))
            }
            _ => None,
        }
    }

    /// Bytes of a list of `games` games.
    pub fn list_bytes(games: u64) -> u64 {
        games * 4
    }

    /// Bytes of a bitmap of an index of `games` games.
    pub fn bitmap_bytes(games: u64) -> u64 {
        games.div_ceil(64) * 8
    }
}

/// A summarized key's record in the summary directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::index) struct DirRecord {
    /// The key.
    pub key: Key,
    /// The summary record's offset from the start of the summary data.
    pub off: u64,
    /// Its length.
    pub len: u64,
}

impl DirRecord {
    /// The record's bytes.
    pub fn encode(&self) -> [u8; DIR_BYTES] {
        let mut d = [0u8; DIR_BYTES];
        self.key.encode_into(&mut d);
        put(&mut d, 24, &self.off.to_be_bytes());
        put(&mut d, 32, &self.len.to_be_bytes());
        d
    }

    /// Reads a record.
    pub fn decode(d: &[u8; DIR_BYTES]) -> DirRecord {
        DirRecord {
            key: Key::decode_from(d),
            off: be64(d, 24),
            len: be64(d, 32),
        }
    }
}
