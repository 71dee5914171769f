//! The bytes of an index file, in one place: every record of the file as a typed struct with its
//! encoding and decoding, and where each section starts. The writer ([`super::build`]), the
//! reader ([`super::reader`]) and the summaries ([`super::summary`]) go through these types and
//! never index raw bytes, so a change of layout is a change of this file.
//!
//! # The file (format 4, and formats 2 and 3 still read; all integers big-endian)
//! - [`Header`], 104 bytes (96 in format 2): magic `KIFUPIX4` (`KIFUPIX2`: every position has
//!   its entries; `KIFUPIX3`: entries only for positions of at most `most_stones` stones),
//!   board size (1 byte), flags (1 byte; bit 0: variations were indexed; bit 1, format 4:
//!   cut by stones), `most_stones` (u16; 0 when not cut), 4 bytes zero, then u64 each:
//!   entries, games, files, offset of the Zobrist table text, its length, offset of the
//!   entries, offset of the game table, offset of the file table, length of the strings, the
//!   summary threshold the file was built with (for information); then (not in format 2) a
//!   u64 more: the positions indexed (with those whose entries were not kept).
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
//! - Format 4: the checksums ([`blocks`]): XXH3-64 of every 4 KiB block of the bytes above
//!   (the last block shorter), 8 bytes each.
//! - [`Trailer`], 40 bytes: magic `KIFUPIXC`, summaries (u64), offset of the summary directory
//!   (u64), the checksums' block size (u64), and the XXH3-64 of the checksums followed by the
//!   trailer's first 32 bytes (u64). Formats 2 and 3: 24 bytes, magic `KIFUPIXS`, the first
//!   two fields. The summaries are known only once the entries are written, so they are
//!   located from the end and the file can still be written in one stream.
//!
//! Decoding never fails on a record's own bytes (a damaged file gives odd values, which the reader
//! checks where they matter); only the magic numbers are refused here.

use super::{IndexError, Winner};
use kifu_go::{BoardSize, Color, Symmetry};

pub(super) mod blocks;
mod summary;
mod tables;
pub(super) use blocks::{BlockSums, SumWriter};
pub(super) use summary::{ContRecord, DirRecord, GameSet, SummaryHead};
pub(super) use tables::{FileRecord, GameRecord, GameStrings, StrRef};

/// Magic of format 2.
const MAGIC: &[u8; 8] = b"KIFUPIX2";
/// Magic of format 3: format 2 whose entries are kept only for positions of at most
/// [`Header::most_stones`] stones (header bytes 10-11, u16). A full index is still written as
/// format 2, so a reader that knows only format 2 refuses only the files it would misread.
const MAGIC_V3: &[u8; 8] = b"KIFUPIX3";
/// Magic of format 4, the format written: format 3's header (the cut by stones a flag), and
/// a checksum for every 4 KiB block of the file ([`blocks`]).
const MAGIC_V4: &[u8; 8] = b"KIFUPIX4";
/// Magic of format 1 (no summaries, no winners in the entries): refused with "rebuild it".
const MAGIC_V1: &[u8; 8] = b"KIFUPIX1";
/// Magic of the trailer of formats 2 and 3.
const TRAILER_MAGIC: &[u8; 8] = b"KIFUPIXS";
/// Magic of the trailer of format 4 (with the checksums' own checksum).
const TRAILER_MAGIC_V4: &[u8; 8] = b"KIFUPIXC";
/// Header byte 9, bit 0: variations were indexed.
const FLAG_VARIATIONS: u8 = 1;
/// Header byte 9, bit 1 (format 4): entries are kept only for positions of at most
/// `most_stones` stones.
const FLAG_CUT: u8 = 2;
/// The format written.
pub(super) const FORMAT: u8 = 4;

/// Bytes of the header of format 3, the most a header takes (so what a reader reads first:
/// every index file is longer, its Zobrist table and trailer alone are).
pub(super) const HEADER_BYTES: usize = 104;
/// Bytes of the header of format 2.
const HEADER_V2_BYTES: usize = 96;
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
/// Bytes of the trailer of formats 2 and 3.
const TRAILER_V3_BYTES: usize = 24;
/// Bytes of the trailer of format 4, the most a trailer takes.
pub(super) const TRAILER_BYTES: usize = 40;

/// The bit of an entry's symmetry byte that marks a position of a variation (not the main line).
pub const VARIATION_BIT: u8 = 0x20;
/// Where the winner's 2-bit code sits in an entry's symmetry byte.
const WIN_SHIFT: u8 = 3;
/// Next-move code of a pass.
pub const NEXT_PASS: u16 = 0xFFFE;
/// Next-move code of "no next move".
pub const NEXT_NONE: u16 = 0xFFFF;

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
    /// The file's format: 2, 3 (cut by stones) or 4 (checksums; cut or not).
    pub format: u8,
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
    /// Entries are kept only for positions of at most this many stones (format 3, or 4 with
    /// its flag); `None`: for every position.
    pub most_stones: Option<u16>,
    /// Positions indexed: the entries, and in a file cut by stones also those not kept.
    pub positions: u64,
}

impl Header {
    /// The header of a file of format 4 with these counts: the sections follow each other from
    /// the end of the header. `cut`: the most stones of a position with entries and the
    /// positions indexed, or `None` (every position has its entries).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        size: BoardSize,
        variations: bool,
        cut: Option<(u16, u64)>,
        entries: u64,
        games: u64,
        files: u64,
        zobrist_len: u64,
        strings_len: u64,
        summary_threshold: u64,
    ) -> Header {
        let zobrist_off = Header::bytes_of(FORMAT) as u64;
        let entries_off = zobrist_off + zobrist_len;
        let games_off = entries_off + entries * ENTRY_BYTES as u64;
        let files_off = games_off + games * GAME_BYTES as u64;
        Header {
            format: FORMAT,
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
            most_stones: cut.map(|c| c.0),
            positions: cut.map_or(entries, |c| c.1),
        }
    }

    /// Bytes of the header of a format: 96 in format 2, 104 in formats 3 and 4.
    fn bytes_of(format: u8) -> usize {
        if format == 2 {
            HEADER_V2_BYTES
        } else {
            HEADER_BYTES
        }
    }

    /// The header's bytes (96 in format 2, 104 in formats 3 and 4). Only format 4 is written;
    /// the others are encoded for the tests of reading older files.
    pub fn encode(&self) -> Vec<u8> {
        let mut h = vec![0u8; Header::bytes_of(self.format)];
        put(
            &mut h,
            0,
            match self.format {
                2 => MAGIC,
                3 => MAGIC_V3,
                _ => MAGIC_V4,
            },
        );
        h[8] = self.size.get();
        if self.variations {
            h[9] = FLAG_VARIATIONS;
        }
        if let Some(most) = self.most_stones {
            put(&mut h, 10, &most.to_be_bytes());
            h[9] |= if self.format == 4 { FLAG_CUT } else { 0 };
        }
        if self.format != 2 {
            put(&mut h, HEADER_V2_BYTES, &self.positions.to_be_bytes());
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
    ///
    /// `h` is the file's first [`HEADER_BYTES`] (a header of format 2 is shorter: what follows
    /// it is not read).
    pub fn decode(h: &[u8; HEADER_BYTES], file_len: u64) -> Result<Header, IndexError> {
        if &h[..8] == MAGIC_V1 {
            return Err(IndexError::OldFormat(1));
        }
        let (format, most_stones) = match &h[..8] {
            m if m == MAGIC => (2, None),
            m if m == MAGIC_V3 => (3, Some(be16(h, 10))),
            m if m == MAGIC_V4 => (4, (h[9] & FLAG_CUT != 0).then(|| be16(h, 10))),
            _ => return Err(IndexError::Format("bad magic")),
        };
        let size = BoardSize::new(u32::from(h[8])).map_err(|_| IndexError::Format("bad size"))?;
        let f = |i: usize| be64(h, 16 + i * 8);
        let header = Header {
            format,
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
            most_stones,
            positions: match format {
                2 => f(0),
                _ => be64(h, HEADER_V2_BYTES),
            },
        };
        let ok = header.zobrist_off == Header::bytes_of(format) as u64
            && (most_stones.is_some() || header.positions == header.entries)
            && header.positions >= header.entries
            && header.zobrist_off.checked_add(header.zobrist_len) == Some(header.entries_off)
            && section_end(header.entries_off, header.entries, ENTRY_BYTES)
                == Some(header.games_off)
            && section_end(header.games_off, header.games, GAME_BYTES) == Some(header.files_off)
            && header
                .summaries_off_checked()
                .is_some_and(|s| s.saturating_add(header.trailer_bytes() as u64) <= file_len)
            && header.zobrist_len < 1 << 20;
        if !ok {
            return Err(IndexError::Format("inconsistent header"));
        }
        Ok(header)
    }

    /// Bytes of the file's trailer (24 before format 4).
    pub fn trailer_bytes(&self) -> usize {
        if self.format == 4 {
            TRAILER_BYTES
        } else {
            TRAILER_V3_BYTES
        }
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

/// The end of the file: where the summary directory is, and in format 4 how the file is
/// checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Trailer {
    /// Summarized keys (directory records).
    pub summaries: u64,
    /// Offset of the summary directory.
    pub dir_off: u64,
    /// Format 4: the checksums' block size and their own checksum; `None` before.
    pub sums: Option<TrailerSums>,
}

/// What a trailer of format 4 says of the checksums (see [`blocks`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct TrailerSums {
    /// Bytes a checksum covers (the last block is shorter).
    pub block: u64,
    /// The checksum of the table of checksums followed by the trailer's first 32 bytes.
    pub check: u64,
}

impl Trailer {
    /// The trailer's bytes: 40 in format 4, 24 before.
    pub fn encode(&self) -> Vec<u8> {
        let mut t = vec![
            0u8;
            if self.sums.is_some() {
                TRAILER_BYTES
            } else {
                TRAILER_V3_BYTES
            }
        ];
        put(
            &mut t,
            0,
            if self.sums.is_some() {
                TRAILER_MAGIC_V4
            } else {
                TRAILER_MAGIC
            },
        );
        put(&mut t, 8, &self.summaries.to_be_bytes());
        put(&mut t, 16, &self.dir_off.to_be_bytes());
        if let Some(s) = self.sums {
            put(&mut t, 24, &s.block.to_be_bytes());
            put(&mut t, 32, &s.check.to_be_bytes());
        }
        t
    }

    /// Reads a trailer from the file's last [`Header::trailer_bytes`] (`None`: not the
    /// trailer's magic, a torn file).
    pub fn decode(t: &[u8]) -> Option<Trailer> {
        let (magic, sums) = match t.len() {
            TRAILER_BYTES => (
                TRAILER_MAGIC_V4,
                Some(TrailerSums {
                    block: be64(t, 24),
                    check: be64(t, 32),
                }),
            ),
            TRAILER_V3_BYTES => (TRAILER_MAGIC, None),
            _ => return None,
        };
        (&t[..8] == magic).then(|| Trailer {
            summaries: be64(t, 8),
            dir_off: be64(t, 16),
            sums,
        })
    }

    /// Where the summary directory ends: the bytes the checksums cover (`None` past `u64`).
    pub fn dir_end(&self) -> Option<u64> {
        section_end(self.dir_off, self.summaries, DIR_BYTES)
    }

    /// The file's length this trailer implies: directory, checksums (format 4), then the
    /// trailer (`None` past `u64`, or a block size format 4 does not allow).
    pub fn file_len(&self) -> Option<u64> {
        let end = self.dir_end()?;
        match self.sums {
            None => end.checked_add(TRAILER_V3_BYTES as u64),
            Some(s) => blocks::table_bytes(end, s.block)?.checked_add(end + TRAILER_BYTES as u64),
        }
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
mod tests;
