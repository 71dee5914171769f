//! [`PositionId`]: the 10-byte key of a position, and [`Keyer`], which computes it from a board
//! and hands out tiebreaker bytes.

use kifu_go::{Board, BoardSize, CanonicalHash, Color, Symmetry, ZobristKeys};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// The bytes of a [`PositionId`] in a file.
pub const ID_BYTES: usize = 10;

/// The key of a position: the canonical Zobrist hash of the board (the lowest of the 8 symmetric
/// hashes), a tiebreaker byte that tells apart different boards with the same hash, and the side
/// to play.
///
/// In files it is 10 bytes: the hash big-endian (first byte most significant), the tiebreaker,
/// then `B` or `W`. The order of ids (`Ord`) is the order of these bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PositionId {
    /// The canonical hash.
    pub hash: u64,
    /// 0 for the first board seen with this hash, 1 for a second, different board, and so on.
    pub tiebreak: u8,
    /// The side to play.
    pub to_play: Color,
}

/// Why 10 bytes are not a [`PositionId`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    /// The side-to-play byte is not `B` or `W`.
    #[error("side to play byte {0:#04x} is not 'B' or 'W'")]
    BadToPlay(u8),
}

impl PositionId {
    /// The 10 file bytes.
    pub fn to_bytes(self) -> [u8; ID_BYTES] {
        let mut b = [0u8; ID_BYTES];
        b[..8].copy_from_slice(&self.hash.to_be_bytes());
        b[8] = self.tiebreak;
        b[9] = self.to_play.letter() as u8;
        b
    }

    /// Reads the 10 file bytes. Only upper-case `B` and `W` are accepted as the side to play.
    pub fn from_bytes(b: &[u8; ID_BYTES]) -> Result<PositionId, IdError> {
        let to_play = match b[9] {
            b'B' => Color::Black,
            b'W' => Color::White,
            other => return Err(IdError::BadToPlay(other)),
        };
        let mut h = [0u8; 8];
        h.copy_from_slice(&b[..8]);
        Ok(PositionId {
            hash: u64::from_be_bytes(h),
            tiebreak: b[8],
            to_play,
        })
    }
}

impl fmt::Display for PositionId {
    /// `0123456789abcdef-00-B`: the hash in hex, the tiebreaker in hex, the side to play.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:016x}-{:02x}-{}",
            self.hash,
            self.tiebreak,
            self.to_play.letter()
        )
    }
}

/// Why a key could not be computed or learned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// The board is not the size of the Zobrist table.
    #[error("a {board} board cannot be keyed with a {table} Zobrist table")]
    SizeMismatch {
        /// The board's size.
        board: BoardSize,
        /// The table's size.
        table: BoardSize,
    },
    /// More than 256 different boards share one hash: the tiebreaker byte cannot tell them apart.
    #[error("more than 256 different boards share the hash {0:016x}")]
    TooManyCollisions(u64),
    /// An id read from a file does not match its board (wrong hash, or a tiebreaker already used
    /// by another board, or a board already known under another tiebreaker).
    #[error("id {id} does not fit its board: {reason}")]
    Inconsistent {
        /// The id as read.
        id: PositionId,
        /// What does not fit.
        reason: &'static str,
    },
}

/// The canonical hash of `board` with `keys`: the lowest of the 8 symmetric hashes.
pub fn canonical_hash(keys: &ZobristKeys, board: &Board) -> Result<CanonicalHash, KeyError> {
    if board.size() != keys.size() {
        return Err(KeyError::SizeMismatch {
            board: board.size(),
            table: keys.size(),
        });
    }
    Ok(keys.table().symmetric_hashes(board).canonical())
}

/// A board's form that is the same for all 8 of its symmetric versions: the lowest (as bytes) of
/// the 8 transformed PositionDB rows. Two boards are the same position exactly when their
/// canonical forms are equal; hashes are only a fast first test.
pub fn canonical_rows(board: &Board) -> Vec<u8> {
    Symmetry::ALL
        .iter()
        .map(|&s| board.transform(s).to_rows())
        .min()
        .unwrap_or_default()
}

/// Computes [`PositionId`]s and keeps the tiebreaker rule: the first board seen with a given hash
/// gets tiebreaker 0, the next *different* board (different under all 8 symmetries) with the same
/// hash gets 1, and so on. The same board always gets the same tiebreaker, whichever side is to
/// play, so the B and W ids of one board differ only in their last byte.
///
/// The keyer remembers every board it has seen (as its canonical rows), so its memory grows with
/// the number of distinct positions. To extend an existing file consistently, [`Keyer::learn`]
/// its records first.
#[derive(Debug)]
pub struct Keyer {
    keys: Arc<ZobristKeys>,
    seen: HashMap<u64, Vec<Box<[u8]>>>,
}

impl Keyer {
    /// A keyer over `keys` (for example `ZobristKeys::default_for(size)`, or keys built from a
    /// loaded `zobrist_board_81.dat`).
    pub fn new(keys: Arc<ZobristKeys>) -> Keyer {
        Keyer {
            keys,
            seen: HashMap::new(),
        }
    }

    /// The keys in use.
    pub fn keys(&self) -> &Arc<ZobristKeys> {
        &self.keys
    }

    /// The id of `board` with `to_play`, giving a new tiebreaker to a board not seen before whose
    /// hash is already taken.
    pub fn key(&mut self, board: &Board, to_play: Color) -> Result<PositionId, KeyError> {
        let hash = canonical_hash(&self.keys, board)?.hash;
        let form = canonical_rows(board);
        let boards = self.seen.entry(hash).or_default();
        let tiebreak = match boards.iter().position(|b| **b == *form) {
            Some(i) => i,
            // The lowest free tiebreaker: a slot left empty by `learn`, or a new one.
            None => match boards.iter().position(|b| b.is_empty()) {
                Some(free) => {
                    boards[free] = form.into_boxed_slice();
                    free
                }
                None if boards.len() == 256 => return Err(KeyError::TooManyCollisions(hash)),
                None => {
                    boards.push(form.into_boxed_slice());
                    boards.len() - 1
                }
            },
        };
        Ok(PositionId {
            hash,
            tiebreak: tiebreak as u8,
            to_play,
        })
    }

    /// Records that `board` has id `id` (from an existing file), so later [`Keyer::key`] calls agree
    /// with it. Fails if the hash is wrong for the board, or if the tiebreaker is already used by a
    /// different board, or if this board already has another tiebreaker. Tiebreakers may be learned
    /// out of order; unused lower numbers stay free for new boards.
    pub fn learn(&mut self, board: &Board, id: PositionId) -> Result<(), KeyError> {
        let hash = canonical_hash(&self.keys, board)?.hash;
        if hash != id.hash {
            return Err(KeyError::Inconsistent {
                id,
                reason: "the hash is not the board's canonical hash",
            });
        }
        let form = canonical_rows(board);
        let boards = self.seen.entry(hash).or_default();
        let t = usize::from(id.tiebreak);
        if let Some(i) = boards.iter().position(|b| **b == *form) {
            return if i == t {
                Ok(())
            } else {
                Err(KeyError::Inconsistent {
                    id,
                    reason: "the board already has another tiebreaker",
                })
            };
        }
        // Free slots are empty boxes (no real board has zero points).
        while boards.len() <= t {
            boards.push(Box::new([]));
        }
        if !boards[t].is_empty() {
            return Err(KeyError::Inconsistent {
                id,
                reason: "the tiebreaker is used by a different board",
            });
        }
        boards[t] = form.into_boxed_slice();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kifu_go::{Point, ZobristTable};

    fn board(rows: &str) -> Board {
        Board::from_rows(rows.as_bytes(), None).unwrap()
    }

    #[test]
    fn id_bytes_round_trip_and_errors() {
        let id = PositionId {
            hash: 0x0123_4567_89ab_cdef,
            tiebreak: 2,
            to_play: Color::White,
        };
        let b = id.to_bytes();
        assert_eq!(b, [0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 2, b'W']);
        assert_eq!(PositionId::from_bytes(&b), Ok(id));
        assert_eq!(id.to_string(), "0123456789abcdef-02-W");
        let mut bad = b;
        bad[9] = b'w';
        assert_eq!(PositionId::from_bytes(&bad), Err(IdError::BadToPlay(b'w')));
    }

    #[test]
    fn hand_computed_key_on_3x3() {
        // A 3x3 table with black value 1 << i and white value 1 << (16 + i) for point i.
        let values = (0..9).map(|i| [1u64 << i, 1u64 << (16 + i), 0]).collect();
        let keys = Arc::new(ZobristKeys::new(ZobristTable::from_values(values).unwrap()));
        // Black on the top-left corner (index 0) and White in the centre (index 4). The 8 symmetric
        // versions put Black on corners 0, 2, 6 or 8; the lowest hash has Black on 0:
        // 1 | 1 << 20.
        let b = board("#...O....");
        let mut k = Keyer::new(keys.clone());
        let id = k.key(&b, Color::Black).unwrap();
        assert_eq!(id.hash, 1 | 1 << 20);
        assert_eq!(id.tiebreak, 0);
        // Black on the bottom-right corner is the same position, so the same key.
        let turned = board("....O...#");
        assert_eq!(k.key(&turned, Color::Black).unwrap(), id);
        // Black on an edge (index 1) has lowest hash 1 << 1 | 1 << 20.
        assert_eq!(
            k.key(&board(".#..O...."), Color::White).unwrap(),
            PositionId {
                hash: 2 | 1 << 20,
                tiebreak: 0,
                to_play: Color::White
            }
        );
        // The empty board hashes to 0.
        assert_eq!(k.key(&board("........."), Color::Black).unwrap().hash, 0);
        // Wrong size.
        assert!(matches!(
            k.key(&Board::new(BoardSize::NINE), Color::Black),
            Err(KeyError::SizeMismatch { .. })
        ));
    }

    #[test]
    fn forced_collisions_get_distinct_tiebreakers() {
        // A degenerate table where every black stone has the same value: any two boards with one
        // black stone collide, whatever the point.
        let values = (0..9).map(|_| [7u64, 9, 0]).collect();
        let keys = Arc::new(ZobristKeys::new(ZobristTable::from_values(values).unwrap()));
        let mut k = Keyer::new(keys.clone());
        let corner = board("#........");
        let edge = board(".#.......");
        let centre = board("....#....");
        let a = k.key(&corner, Color::Black).unwrap();
        let b = k.key(&edge, Color::Black).unwrap();
        let c = k.key(&centre, Color::White).unwrap();
        assert_eq!((a.hash, b.hash, c.hash), (7, 7, 7));
        assert_eq!((a.tiebreak, b.tiebreak, c.tiebreak), (0, 1, 2));
        // The same boards (in another symmetry, other side to play) keep their tiebreakers.
        assert_eq!(
            k.key(&board("......#.."), Color::White).unwrap().tiebreak,
            0
        );
        assert_eq!(
            k.key(&board("...#....."), Color::White).unwrap().tiebreak,
            1
        );
        // Learning from a file: a fresh keyer that learns the centre at 2 gives the corner 0.
        let mut fresh = Keyer::new(keys);
        fresh.learn(&centre, c).unwrap();
        assert_eq!(fresh.key(&corner, Color::Black).unwrap().tiebreak, 0);
        assert_eq!(fresh.key(&centre, Color::Black).unwrap().tiebreak, 2);
        assert_eq!(fresh.key(&edge, Color::Black).unwrap().tiebreak, 1);
        // Inconsistent ids are refused.
        assert!(fresh.learn(&edge, a).is_err());
        assert!(fresh.learn(&corner, b).is_err());
        let wrong_hash = PositionId { hash: 8, ..a };
        assert!(fresh.learn(&corner, wrong_hash).is_err());
    }

    #[test]
    fn canonical_rows_is_symmetric() {
        let size = BoardSize::NINE;
        let mut b = Board::new(size);
        b.set(Point::from_human("C3", size).unwrap(), Some(Color::Black))
            .unwrap();
        b.set(Point::from_human("D7", size).unwrap(), Some(Color::White))
            .unwrap();
        let form = canonical_rows(&b);
        for s in Symmetry::ALL {
            assert_eq!(canonical_rows(&b.transform(s)), form);
        }
    }
}
