//! The game and file tables: fixed-size records that point into the strings, and the text of a
//! game's strings.

use super::{be32, be64, put, winner_byte, winner_from_byte, FILE_BYTES, GAME_BYTES};
use crate::index::Winner;

/// Where a string is in the strings section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(in crate::index) struct StrRef {
    /// Offset from the start of the strings.
    pub off: u64,
    /// Length in bytes.
    pub len: u32,
}

/// A game's record in the game table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::index) struct GameRecord {
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
pub(in crate::index) struct FileRecord {
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
pub(in crate::index) struct GameStrings {
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
        let fields = [&self.black, &self.white, &self.date, &self.result];
        let mut out = String::with_capacity(fields.iter().map(|f| f.len() + 1).sum());
        for (i, f) in fields.into_iter().enumerate() {
            if i > 0 {
                out.push('\t');
            }
            out.extend(f.chars().map(|c| match c {
                '\t' | '\n' | '\r' => ' ',
                c => c,
            }));
        }
        out
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
