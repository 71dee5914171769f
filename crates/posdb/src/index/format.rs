//! The bytes of an index file, in one place: every record of the file as a typed struct with its
//! encoding and decoding, and where each section starts. The writer ([`super::build`]), the
//! reader ([`super::reader`]) and the summaries ([`super::summary`]) go through these types and
//! never index raw bytes, so a change of layout is a change of this file.
//!
//! # The file (format 2; all integers big-endian)
//! - [`Header`], 96 bytes: magic `KIFUPIX2`, board size (1 byte), flags (1 byte; bit 0: variations
//!   were indexed), 6 bytes zero, then u64 each: entries, games, files, offset of the Zobrist
//!   table text, its length, offset of the entries, offset of the game table, offset of the file
//!   table, length of the strings, the summary threshold the file was built with (for
//!   information).
//! - The Zobrist table text (`zobrist_board_N.dat` format) the keys were made with.
//! - [`Entry`] records, 26 bytes, sorted by their bytes: canonical hash `h1` (8; the PositionId
//!   hash with that table), a second canonical hash `h2` (8; the lowest of the 8 symmetric hashes
//!   with a second, fixed table, so two boards are confused only if both 64-bit hashes collide),
//!   side to play (`B`/`W`), game number (u32, from 0), move number (u16, saturating), 1 byte: the
//!   symmetry that maps the game's board to the canonical orientation (low 3 bits), the game's
//!   winner (bits 3-4: 0 unknown, 1 Black, 2 White, 3 draw; so continuations need no game
//!   record; always 0 in a variation) and [`VARIATION_BIT`] (bit 5: the position and its next
//!   move are in a variation, not the main line), the next move in the canonical orientation
//!   (u16: point index row by row from the top-left, [`NEXT_PASS`] a pass, [`NEXT_NONE`] none:
//!   the game ends, or the next node has no move). The first 17 bytes are the entry's [`Key`].
//! - [`GameRecord`]s, 32 bytes a game: file number (u32), game in the file (u32, from 0), moves
//!   (u32), winner (1: `B`, `W`, `0` draw, `?` unknown), 3 zero bytes, strings offset (u64,
//!   relative to the strings), strings length (u32), 4 zero bytes. The strings are `PB`, `PW`,
//!   `DT`, `RE` separated by tabs ([`GameStrings`]).
//! - [`FileRecord`]s, 12 bytes a file: strings offset (u64), length (u32): the path as given.
//! - The strings.
//! - Summary data ([`SummaryHead`], [`ContRecord`]s, a [`GameSet`]), then the summary directory
//!   ([`DirRecord`]s); see [`super::summary`] for what they hold.
//! - [`Trailer`], 24 bytes: magic `KIFUPIXS`, summaries (u64), offset of the summary directory
//!   (u64). The summaries are known only once the entries are written, so they are located from
//!   the end and the file can still be written in one stream.
//!
//! Decoding never fails on a record's own bytes (a damaged file gives odd values, which the reader
//! checks where they matter); only the magic numbers are refused here.

use super::{IndexError, Winner};
use kifu_go::{BoardSize, Color, Symmetry};

/// Magic of format 2.
const MAGIC: &[u8; 8] = b"KIFUPIX2";
/// Magic of format 1 (no summaries, no winners in the entries): refused with "rebuild it".
const MAGIC_V1: &[u8; 8] = b"KIFUPIX1";
/// Magic of the trailer.
const TRAILER_MAGIC: &[u8; 8] = b"KIFUPIXS";
/// Header byte 9, bit 0: variations were indexed.
const FLAG_VARIATIONS: u8 = 1;

/// Bytes of the header.
pub(super) const HEADER_BYTES: usize = 96;
/// Bytes of one entry.
pub const ENTRY_BYTES: usize = 26;
/// Bytes of a game record.
pub(super) const GAME_BYTES: usize = 32;
/// Bytes of a file record.
pub(super) const FILE_BYTES: usize = 12;
/// Bytes of a summary head.
pub(super) const SUMMARY_HEAD_BYTES: usize = 40;
/// Bytes of a summary continuation.
pub(super) const CONT_BYTES: usize = 26;
/// Bytes of a summary directory record.
pub(super) const DIR_BYTES: usize = 40;
/// Bytes of the trailer.
pub(super) const TRAILER_BYTES: usize = 24;

/// The bit of an entry's symmetry byte that marks a position of a variation (not the main line).
pub const VARIATION_BIT: u8 = 0x20;
/// Where the winner's 2-bit code sits in an entry's symmetry byte.
const WIN_SHIFT: u8 = 3;
/// Next-move code of a pass.
pub const NEXT_PASS: u16 = 0xFFFE;
/// Next-move code of "no next move".
pub const NEXT_NONE: u16 = 0xFFFF;

/// Game-set kind of a sorted list of game numbers.
const SET_LIST: u8 = 0;
/// Game-set kind of a bitmap of the index's games.
const SET_BITS: u8 = 1;

#[inline(always)]
fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

#[inline(always)]
fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

#[inline(always)]
fn be64(b: &[u8], at: usize) -> u64 {
    u64::from_be_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

#[inline(always)]
fn put(b: &mut [u8], at: usize, v: &[u8]) {
    b[at..at + v.len()].copy_from_slice(v);
}

/// Bytes the sections before the `n`-th record of `size` bytes take: `start + n * size`, or
/// `None` past `u64` (only from a damaged header).
fn section_end(start: u64, n: u64, size: usize) -> Option<u64> {
    n.checked_mul(size as u64)?.checked_add(start)
}

/// The file's header: the counts and where each section starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Header {
    /// The board size.
    pub size: BoardSize,
    /// Variations were indexed.
    pub variations: bool,
    /// Entries.
    pub entries: u64,
    /// Games.
    pub games: u64,
    /// Files.
    pub files: u64,
    /// Offset of the Zobrist table text.
    pub zobrist_off: u64,
    /// Its length.
    pub zobrist_len: u64,
    /// Offset of the entries.
    pub entries_off: u64,
    /// Offset of the game table.
    pub games_off: u64,
    /// Offset of the file table.
    pub files_off: u64,
    /// Length of the strings.
    pub strings_len: u64,
    /// The summary threshold the file was built with (for information).
    pub summary_threshold: u64,
}

impl Header {
    /// The header of a file with these counts: the sections follow each other from the end of
    /// the header.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        size: BoardSize,
        variations: bool,
        entries: u64,
        games: u64,
        files: u64,
        zobrist_len: u64,
        strings_len: u64,
        summary_threshold: u64,
    ) -> Header {
        let zobrist_off = HEADER_BYTES as u64;
        let entries_off = zobrist_off + zobrist_len;
        let games_off = entries_off + entries * ENTRY_BYTES as u64;
        let files_off = games_off + games * GAME_BYTES as u64;
        Header {
            size,
            variations,
            entries,
            games,
            files,
            zobrist_off,
            zobrist_len,
            entries_off,
            games_off,
            files_off,
            strings_len,
            summary_threshold,
        }
    }

    /// The header's bytes.
    pub fn encode(&self) -> [u8; HEADER_BYTES] {
        let mut h = [0u8; HEADER_BYTES];
        put(&mut h, 0, MAGIC);
        h[8] = self.size.get();
        if self.variations {
            h[9] = FLAG_VARIATIONS;
        }
        for (i, v) in self.fields().into_iter().enumerate() {
            put(&mut h, 16 + i * 8, &v.to_be_bytes());
        }
        h
    }

    /// The u64 fields in file order.
    fn fields(&self) -> [u64; 10] {
        [
            self.entries,
            self.games,
            self.files,
            self.zobrist_off,
            self.zobrist_len,
            self.entries_off,
            self.games_off,
            self.files_off,
            self.strings_len,
            self.summary_threshold,
        ]
    }

    /// Reads a header: a file of format 1 or another magic is refused, and so are sections that
    /// do not follow each other or do not fit in a file of `file_len` bytes with its trailer.
    pub fn decode(h: &[u8; HEADER_BYTES], file_len: u64) -> Result<Header, IndexError> {
        if &h[..8] == MAGIC_V1 {
            return Err(IndexError::OldFormat(1));
        }
        if &h[..8] != MAGIC {
            return Err(IndexError::Format("bad magic"));
        }
        let size = BoardSize::new(u32::from(h[8])).map_err(|_| IndexError::Format("bad size"))?;
        let f = |i: usize| be64(h, 16 + i * 8);
        let header = Header {
            size,
            variations: h[9] & FLAG_VARIATIONS != 0,
            entries: f(0),
            games: f(1),
            files: f(2),
            zobrist_off: f(3),
            zobrist_len: f(4),
            entries_off: f(5),
            games_off: f(6),
            files_off: f(7),
            strings_len: f(8),
            summary_threshold: f(9),
        };
        let ok = header.zobrist_off == HEADER_BYTES as u64
            && header.zobrist_off.checked_add(header.zobrist_len) == Some(header.entries_off)
            && section_end(header.entries_off, header.entries, ENTRY_BYTES)
                == Some(header.games_off)
            && section_end(header.games_off, header.games, GAME_BYTES) == Some(header.files_off)
            && header
                .summaries_off_checked()
                .is_some_and(|s| s.saturating_add(TRAILER_BYTES as u64) <= file_len)
            && header.zobrist_len < 1 << 20;
        if !ok {
            return Err(IndexError::Format("inconsistent header"));
        }
        Ok(header)
    }

    fn summaries_off_checked(&self) -> Option<u64> {
        section_end(self.files_off, self.files, FILE_BYTES)?.checked_add(self.strings_len)
    }

    /// Offset of entry `i`.
    #[inline]
    pub fn entry_off(&self, i: u64) -> u64 {
        self.entries_off + i * ENTRY_BYTES as u64
    }

    /// Offset of game record `id`.
    pub fn game_off(&self, id: u32) -> u64 {
        self.games_off + u64::from(id) * GAME_BYTES as u64
    }

    /// Offset of file record `n`.
    pub fn file_off(&self, n: u32) -> u64 {
        self.files_off + u64::from(n) * FILE_BYTES as u64
    }

    /// Offset of the strings.
    pub fn strings_off(&self) -> u64 {
        self.files_off + self.files * FILE_BYTES as u64
    }

    /// Offset of the summary data (just after the strings).
    pub fn summaries_off(&self) -> u64 {
        self.strings_off() + self.strings_len
    }
}

/// The first 17 bytes of an entry, which entries are sorted and searched by. The derived order
/// (h1, h2, side) is the order of the bytes, since integers are big-endian.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub(super) struct Key {
    /// Canonical hash with the index's Zobrist table (the PositionId hash).
    pub h1: u64,
    /// Canonical hash with the second, fixed table.
    pub h2: u64,
    /// Side to play: `B` or `W` (any byte in a damaged file).
    pub side: u8,
}

impl Key {
    /// The key of a position with `to_play` to move.
    pub fn new(h1: u64, h2: u64, to_play: Color) -> Key {
        Key {
            h1,
            h2,
            side: to_play.letter() as u8,
        }
    }

    #[inline(always)]
    fn encode_into(&self, b: &mut [u8]) {
        put(b, 0, &self.h1.to_be_bytes());
        put(b, 8, &self.h2.to_be_bytes());
        b[16] = self.side;
    }

    #[inline(always)]
    fn decode_from(b: &[u8]) -> Key {
        Key {
            h1: be64(b, 0),
            h2: be64(b, 8),
            side: b[16],
        }
    }
}

/// One position of one game: a 26-byte entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Entry {
    /// What the entries are sorted and searched by.
    pub key: Key,
    /// The game's number in the index.
    pub game: u32,
    /// The move number of the position (saturating).
    pub move_number: u16,
    /// The symmetry that maps the game's board to the canonical orientation.
    pub symmetry: Symmetry,
    /// The game's winner ([`Winner::Unknown`] in a variation).
    pub winner: Winner,
    /// The position and its next move are in a variation, not the main line.
    pub in_variation: bool,
    /// The next move in the canonical orientation: a point index, [`NEXT_PASS`] or
    /// [`NEXT_NONE`].
    pub next: u16,
}

impl Entry {
    /// The entry's bytes.
    #[inline]
    pub fn encode(&self) -> [u8; ENTRY_BYTES] {
        let mut b = [0u8; ENTRY_BYTES];
        self.key.encode_into(&mut b);
        put(&mut b, 17, &self.game.to_be_bytes());
        put(&mut b, 21, &self.move_number.to_be_bytes());
        b[23] = self.symmetry.index() as u8
            | winner_code(self.winner) << WIN_SHIFT
            | if self.in_variation { VARIATION_BIT } else { 0 };
        put(&mut b, 24, &self.next.to_be_bytes());
        b
    }

    /// Reads an entry (bits 6 and 7 of the symmetry byte, always 0, are ignored).
    #[inline]
    pub fn decode(b: &[u8; ENTRY_BYTES]) -> Entry {
        Entry {
            key: Key::decode_from(b),
            game: be32(b, 17),
            move_number: be16(b, 21),
            symmetry: Symmetry::ALL[usize::from(b[23] & 7)],
            winner: winner_from_code(b[23] >> WIN_SHIFT),
            in_variation: b[23] & VARIATION_BIT != 0,
            next: be16(b, 24),
        }
    }

    /// The key of an entry's bytes alone (the binary search reads nothing else).
    #[inline(always)]
    pub fn decode_key(b: &[u8; ENTRY_BYTES]) -> Key {
        Key::decode_from(b)
    }

    /// The entries of a run of entry bytes (a whole number of them).
    pub fn decode_all(bytes: &[u8]) -> impl Iterator<Item = Entry> + '_ {
        let (chunks, rest) = bytes.as_chunks::<ENTRY_BYTES>();
        debug_assert!(rest.is_empty(), "a whole number of entries");
        chunks.iter().map(Entry::decode)
    }
}

/// Where a string is in the strings section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct StrRef {
    /// Offset from the start of the strings.
    pub off: u64,
    /// Length in bytes.
    pub len: u32,
}

/// A game's record in the game table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct GameRecord {
    /// The file's number in the file table.
    pub file: u32,
    /// The game within its file (from 0).
    pub game_in_file: u32,
    /// Moves of the main line.
    pub moves: u32,
    /// The winner, from `RE`.
    pub winner: Winner,
    /// The game's [`GameStrings`].
    pub strings: StrRef,
}

impl GameRecord {
    /// The record's bytes.
    pub fn encode(&self) -> [u8; GAME_BYTES] {
        let mut b = [0u8; GAME_BYTES];
        put(&mut b, 0, &self.file.to_be_bytes());
        put(&mut b, 4, &self.game_in_file.to_be_bytes());
        put(&mut b, 8, &self.moves.to_be_bytes());
        b[12] = winner_byte(self.winner);
        put(&mut b, 16, &self.strings.off.to_be_bytes());
        put(&mut b, 24, &self.strings.len.to_be_bytes());
        b
    }

    /// Reads a record.
    pub fn decode(b: &[u8; GAME_BYTES]) -> GameRecord {
        GameRecord {
            file: be32(b, 0),
            game_in_file: be32(b, 4),
            moves: be32(b, 8),
            winner: winner_from_byte(b[12]),
            strings: StrRef {
                off: be64(b, 16),
                len: be32(b, 24),
            },
        }
    }
}

/// A file's record in the file table: its path as given, in the strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FileRecord {
    /// The path.
    pub path: StrRef,
}

impl FileRecord {
    /// The record's bytes.
    pub fn encode(&self) -> [u8; FILE_BYTES] {
        let mut b = [0u8; FILE_BYTES];
        put(&mut b, 0, &self.path.off.to_be_bytes());
        put(&mut b, 8, &self.path.len.to_be_bytes());
        b
    }

    /// Reads a record.
    pub fn decode(b: &[u8; FILE_BYTES]) -> FileRecord {
        FileRecord {
            path: StrRef {
                off: be64(b, 0),
                len: be32(b, 8),
            },
        }
    }
}

/// The text of a game record's strings: `PB`, `PW`, `DT`, `RE` separated by tabs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct GameStrings {
    /// `PB`.
    pub black: String,
    /// `PW`.
    pub white: String,
    /// `DT`.
    pub date: String,
    /// `RE`.
    pub result: String,
}

impl GameStrings {
    /// The stored text. Tabs and line breaks inside values become spaces, so the fields split
    /// back as they were.
    pub fn encode(&self) -> String {
        [&self.black, &self.white, &self.date, &self.result]
            .map(|s| s.replace(['\t', '\n', '\r'], " "))
            .join("\t")
    }

    /// Reads the stored text (missing fields are empty).
    pub fn decode(text: &str) -> GameStrings {
        let mut parts = text.split('\t').map(str::to_string);
        let mut next = || parts.next().unwrap_or_default();
        let (black, white, date, result) = (next(), next(), next(), next());
        GameStrings {
            black,
            white,
            date,
            result,
        }
    }
}

/// The head of a summary record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct SummaryHead {
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
pub(super) struct ContRecord {
    /// The next-move code, as in the entries (never [`NEXT_NONE`]).
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
pub(super) enum GameSet {
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
pub(super) struct DirRecord {
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

/// The end of the file: where the summary directory is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Trailer {
    /// Summarized keys (directory records).
    pub summaries: u64,
    /// Offset of the summary directory.
    pub dir_off: u64,
}

impl Trailer {
    /// The trailer's bytes.
    pub fn encode(&self) -> [u8; TRAILER_BYTES] {
        let mut t = [0u8; TRAILER_BYTES];
        put(&mut t, 0, TRAILER_MAGIC);
        put(&mut t, 8, &self.summaries.to_be_bytes());
        put(&mut t, 16, &self.dir_off.to_be_bytes());
        t
    }

    /// Reads a trailer (`None`: no trailer magic, a torn file).
    pub fn decode(t: &[u8; TRAILER_BYTES]) -> Option<Trailer> {
        (&t[..8] == TRAILER_MAGIC).then(|| Trailer {
            summaries: be64(t, 8),
            dir_off: be64(t, 16),
        })
    }

    /// The file's length this trailer implies: directory, then the trailer (`None` past `u64`).
    pub fn file_len(&self) -> Option<u64> {
        section_end(self.dir_off, self.summaries, DIR_BYTES)?.checked_add(TRAILER_BYTES as u64)
    }

    /// Offset of directory record `i`.
    pub fn dir_record_off(&self, i: u64) -> u64 {
        self.dir_off + i * DIR_BYTES as u64
    }
}

/// A winner as a game record stores it.
fn winner_byte(w: Winner) -> u8 {
    match w {
        Winner::Black => b'B',
        Winner::White => b'W',
        Winner::Draw => b'0',
        Winner::Unknown => b'?',
    }
}

fn winner_from_byte(b: u8) -> Winner {
    match b {
        b'B' => Winner::Black,
        b'W' => Winner::White,
        b'0' => Winner::Draw,
        _ => Winner::Unknown,
    }
}

/// A winner as an entry stores it (2 bits).
#[inline(always)]
fn winner_code(w: Winner) -> u8 {
    match w {
        Winner::Unknown => 0,
        Winner::Black => 1,
        Winner::White => 2,
        Winner::Draw => 3,
    }
}

#[inline(always)]
fn winner_from_code(c: u8) -> Winner {
    match c & 3 {
        1 => Winner::Black,
        2 => Winner::White,
        3 => Winner::Draw,
        _ => Winner::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        for (i, sym) in Symmetry::ALL.into_iter().enumerate() {
            for winner in [Winner::Unknown, Winner::Black, Winner::White, Winner::Draw] {
                let e = Entry {
                    key: Key::new(0x0102_0304_0506_0708, u64::MAX - i as u64, Color::White),
                    game: 0xA1B2_C3D4,
                    move_number: 300,
                    symmetry: sym,
                    winner,
                    in_variation: i % 2 == 1,
                    next: NEXT_PASS - i as u16,
                };
                let b = e.encode();
                assert_eq!(Entry::decode(&b), e);
                assert_eq!(Entry::decode_key(&b), e.key);
                assert_eq!(&b[..8], &0x0102_0304_0506_0708u64.to_be_bytes());
                assert_eq!(b[16], b'W');
                assert_eq!(
                    b[23],
                    i as u8 | winner_code(winner) << 3 | (i as u8 % 2) << 5
                );
            }
        }
        for w in [Winner::Unknown, Winner::Black, Winner::White, Winner::Draw] {
            assert_eq!(winner_from_byte(winner_byte(w)), w);
        }
        let g = GameRecord {
            file: 7,
            game_in_file: 3,
            moves: 250,
            winner: Winner::Draw,
            strings: StrRef {
                off: 1 << 40,
                len: 9,
            },
        };
        assert_eq!(GameRecord::decode(&g.encode()), g);
        let f = FileRecord {
            path: StrRef { off: 5, len: 6 },
        };
        assert_eq!(FileRecord::decode(&f.encode()), f);
        let s = GameStrings {
            black: "a\tb".into(),
            white: "c\nd".into(),
            date: String::new(),
            result: "B+R".into(),
        };
        assert_eq!(s.encode(), "a b\tc d\t\tB+R");
        assert_eq!(
            GameStrings::decode("x"),
            GameStrings {
                black: "x".into(),
                ..GameStrings::default()
            }
        );
        let h = SummaryHead {
            first: 1,
            count: 2,
            games: 3,
            conts: 4,
            set_kind: SET_BITS,
            set_len: 16,
        };
        assert_eq!(SummaryHead::decode(&h.encode()), h);
        let c = ContRecord {
            code: 12,
            count: 3,
            black: 2,
            white: 1,
        };
        assert_eq!(ContRecord::decode_all(&c.encode()), [c]);
        for set in [
            GameSet::List(vec![1, 5, 9]),
            GameSet::Bits(vec![3, u64::MAX]),
        ] {
            let (kind, bytes) = set.encode();
            assert_eq!(GameSet::decode(kind, &bytes), Some(set));
        }
        let d = DirRecord {
            key: Key::new(1, 2, Color::Black),
            off: 3,
            len: 4,
        };
        assert_eq!(DirRecord::decode(&d.encode()), d);
        let t = Trailer {
            summaries: 2,
            dir_off: 100,
        };
        assert_eq!(Trailer::decode(&t.encode()), Some(t));
        assert_eq!(t.file_len(), Some(100 + 80 + 24));
        let size = BoardSize::new(9).unwrap();
        let h = Header::new(size, true, 3, 2, 1, 10, 7, 1024);
        let bytes = h.encode();
        let len = h.summaries_off() + TRAILER_BYTES as u64;
        assert_eq!(Header::decode(&bytes, len).unwrap(), h);
        assert!(Header::decode(&bytes, len - 1).is_err());
    }
}
