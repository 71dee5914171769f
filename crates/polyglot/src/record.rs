//! The 16-byte Polyglot record: key (8), move (2), weight (2), learn (4), all big-endian.

use crate::moves::RawMove;

/// Size of one record in bytes.
pub const RECORD_SIZE: usize = 16;

/// One book entry: a move in the position with hash `key`, with its weight and learn value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    /// The Polyglot key of the position.
    pub key: u64,
    /// The move, in Polyglot's 16-bit encoding (castling as king-takes-rook).
    pub raw_move: RawMove,
    /// Relative weight; Polyglot's make-book writes `2 * wins + draws`.
    pub weight: u16,
    /// The learn field (unused by most tools, kept unchanged).
    pub learn: u32,
}

impl Entry {
    /// Decodes a record.
    pub fn from_bytes(b: &[u8; RECORD_SIZE]) -> Entry {
        Entry {
            key: u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
            raw_move: RawMove(u16::from_be_bytes([b[8], b[9]])),
            weight: u16::from_be_bytes([b[10], b[11]]),
            learn: u32::from_be_bytes([b[12], b[13], b[14], b[15]]),
        }
    }

    /// Decodes the record starting at `bytes[0]`; `None` if fewer than 16 bytes remain.
    pub fn from_slice(bytes: &[u8]) -> Option<Entry> {
        let b: &[u8; RECORD_SIZE] = bytes.get(..RECORD_SIZE)?.try_into().ok()?;
        Some(Entry::from_bytes(b))
    }

    /// Encodes the record.
    pub fn to_bytes(&self) -> [u8; RECORD_SIZE] {
        let mut b = [0u8; RECORD_SIZE];
        b[0..8].copy_from_slice(&self.key.to_be_bytes());
        b[8..10].copy_from_slice(&self.raw_move.0.to_be_bytes());
        b[10..12].copy_from_slice(&self.weight.to_be_bytes());
        b[12..16].copy_from_slice(&self.learn.to_be_bytes());
        b
    }
}

/// Reads the key of the record starting at `bytes[0]` (the caller guarantees 8 bytes).
#[inline]
pub(crate) fn key_at(bytes: &[u8], record: usize) -> u64 {
    let o = record * RECORD_SIZE;
    let mut k = [0u8; 8];
    k.copy_from_slice(&bytes[o..o + 8]);
    u64::from_be_bytes(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let e = Entry {
            key: 0x463b96181691fc9c,
            raw_move: RawMove(0x031c),
            weight: 0x1234,
            learn: 0xdeadbeef,
        };
        let b = e.to_bytes();
        assert_eq!(
            b,
            [
                0x46, 0x3b, 0x96, 0x18, 0x16, 0x91, 0xfc, 0x9c, 0x03, 0x1c, 0x12, 0x34, 0xde, 0xad,
                0xbe, 0xef
            ]
        );
        assert_eq!(Entry::from_bytes(&b), e);
        assert_eq!(Entry::from_slice(&b[..15]), None);
        assert_eq!(key_at(&b, 0), e.key);
    }
}
