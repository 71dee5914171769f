//! The records: [`PositionRecord`] (a PositionID, a board, optional [`ExtraInfo`]) and
//! [`ScoredPosition`] (a PositionID, a score, a confidence), with the score definition.

use crate::id::{PositionId, ID_BYTES};
use kifu_go::{Board, BoardSize};

/// The bytes of a [`ScoredPosition`] in a file.
pub const SCORED_BYTES: usize = 12;
/// The bytes of an [`ExtraInfo`] block.
pub const EXTRA_BYTES: usize = 8;
/// The lowest score byte: "Black wins by 3 points or fewer on the board, or loses".
pub const SCORE_MIN: u8 = 3;
/// The highest score byte: "Black wins by 8 points or more on the board".
pub const SCORE_MAX: u8 = 8;

/// The bytes of a position record without extra info for `size`: id, `n * n` points, flag.
pub const fn position_bytes(size: BoardSize) -> usize {
    ID_BYTES + size.points() + 1
}

/// Where a position came from (the PositionExtraInfo block; integers big-endian).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExtraInfo {
    /// The source game file: its 1-based line number in `master_game_file_list.dat`.
    pub file_id: u32,
    /// The variation within that game.
    pub variation: u16,
    /// The move number within that variation.
    pub move_number: u16,
}

impl ExtraInfo {
    /// The 8 file bytes.
    pub fn to_bytes(self) -> [u8; EXTRA_BYTES] {
        let mut b = [0u8; EXTRA_BYTES];
        b[..4].copy_from_slice(&self.file_id.to_be_bytes());
        b[4..6].copy_from_slice(&self.variation.to_be_bytes());
        b[6..].copy_from_slice(&self.move_number.to_be_bytes());
        b
    }

    /// Reads the 8 file bytes.
    pub fn from_bytes(b: &[u8; EXTRA_BYTES]) -> ExtraInfo {
        ExtraInfo {
            file_id: u32::from_be_bytes([b[0], b[1], b[2], b[3]]),
            variation: u16::from_be_bytes([b[4], b[5]]),
            move_number: u16::from_be_bytes([b[6], b[7]]),
        }
    }
}

/// One record of a position file (or a queue file, which has the same format): the id, the
/// board as played (not rotated), and where it came from when known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionRecord {
    /// The key.
    pub id: PositionId,
    /// The stones.
    pub board: Board,
    /// The PositionExtraInfo block, if the record has one (flag byte 1).
    pub extra: Option<ExtraInfo>,
}

impl PositionRecord {
    /// The record's length in the file: `n * n + 11`, plus 8 with extra info.
    pub fn encoded_len(&self) -> usize {
        position_bytes(self.board.size()) + if self.extra.is_some() { EXTRA_BYTES } else { 0 }
    }

    /// Appends the record's bytes to `out`.
    pub fn encode_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.id.to_bytes());
        out.extend_from_slice(&self.board.to_rows());
        match self.extra {
            Some(e) => {
                out.push(1);
                out.extend_from_slice(&e.to_bytes());
            }
            None => out.push(0),
        }
    }

    /// The record's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.encoded_len());
        self.encode_into(&mut v);
        v
    }
}

/// One record of a scored file: the id, the score byte and the confidence byte.
///
/// # The score
/// The spec defines the score as the on-board score (no komi; Black's points minus White's) where
/// "3 means 3 or less, 8 means 8 or higher". kifu maps an on-board margin `m` (Black minus White,
/// in points, possibly fractional) to the byte `clamp(floor(m), 3, 8)`:
///
/// | margin        | byte |
/// |---------------|------|
/// | W+40 .. B+3.5 | 3    |
/// | B+4 .. B+4.5  | 4    |
/// | B+5 .. B+5.5  | 5    |
/// | B+6 .. B+6.5  | 6    |
/// | B+7 .. B+7.5  | 7    |
/// | B+8 and more  | 8    |
///
/// With komi 0 the on-board margin of a finished 9x9 game is a whole number under both area and
/// territory scoring, so the floor only matters for engines that report half points; flooring
/// keeps "Black reaches at least `s` points" true for every byte `s`, which is what a komi test
/// against the byte needs (Black wins with komi `k + 0.5` exactly when the byte is above `k`, for
/// `k` in 3..=7).
///
/// # The confidence
/// When a position is scored by several playouts, the score is that of the median margin (the
/// lower median for an even count, so it is always one of the observed margins), and the
/// confidence is the share of playouts whose own clamped byte equals the stored byte, in percent,
/// rounded down: 3 playouts of B+12, B+9, B+2 give byte 8 with confidence 66.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ScoredPosition {
    /// The key of the position.
    pub id: PositionId,
    /// The score byte, 3..=8.
    pub score: u8,
    /// The confidence, 0..=100.
    pub confidence: u8,
}

impl ScoredPosition {
    /// The 12 file bytes.
    pub fn to_bytes(self) -> [u8; SCORED_BYTES] {
        let mut b = [0u8; SCORED_BYTES];
        b[..ID_BYTES].copy_from_slice(&self.id.to_bytes());
        b[10] = self.score;
        b[11] = self.confidence;
        b
    }

    /// The scored record for `id` from the on-board margins of its playouts (see the type docs);
    /// `None` if there are no margins or one is not a finite number.
    pub fn from_margins(id: PositionId, margins: &[f64]) -> Option<ScoredPosition> {
        if margins.is_empty() || margins.iter().any(|m| !m.is_finite()) {
            return None;
        }
        let mut sorted = margins.to_vec();
        sorted.sort_by(f64::total_cmp);
        let median = sorted[(sorted.len() - 1) / 2];
        let score = score_byte(median);
        let agree = margins.iter().filter(|&&m| score_byte(m) == score).count();
        Some(ScoredPosition {
            id,
            score,
            confidence: (agree * 100 / margins.len()) as u8,
        })
    }
}

impl ScoredPosition {
    /// The scored record for `id` from an engine's estimate of the final on-board margin (Black
    /// minus White, komi 0): KataGo's analysis `scoreLead` and its predicted standard deviation
    /// `scoreStdev`. The score byte is that of the lead, as of a playout's margin; the confidence
    /// is the chance, in percent rounded down, that a margin drawn from a normal distribution
    /// with that mean and deviation has the same byte: the share of playouts that would agree,
    /// as GNU Go's confidence counts them. A deviation of 0 gives 100. `None` if a number is not
    /// finite or the deviation is negative.
    pub fn from_estimate(id: PositionId, lead: f64, stdev: f64) -> Option<ScoredPosition> {
        if !lead.is_finite() || !stdev.is_finite() || stdev < 0.0 {
            return None;
        }
        let score = score_byte(lead);
        // The byte's interval of margins: [b, b + 1), open below 3 and above 8.
        let low = if score == SCORE_MIN {
            f64::NEG_INFINITY
        } else {
            f64::from(score)
        };
        let high = if score == SCORE_MAX {
            f64::INFINITY
        } else {
            f64::from(score) + 1.0
        };
        let p = if stdev == 0.0 {
            1.0
        } else {
            let cdf = |x: f64| 0.5 * libm::erfc(-(x - lead) / (stdev * std::f64::consts::SQRT_2));
            cdf(high) - cdf(low)
        };
        Some(ScoredPosition {
            id,
            score,
            confidence: (p * 100.0).floor().clamp(0.0, 100.0) as u8,
        })
    }
}

/// The score byte of an on-board margin (Black minus White): `clamp(floor(m), 3, 8)`; a NaN reads as 3.
pub fn score_byte(margin: f64) -> u8 {
    let f = margin.floor();
    if f >= f64::from(SCORE_MAX) {
        SCORE_MAX
    } else if f > f64::from(SCORE_MIN) {
        f as u8
    } else {
        SCORE_MIN
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kifu_go::Color;

    #[test]
    fn estimates() {
        let id = PositionId {
            hash: 1,
            tiebreak: 0,
            to_play: kifu_go::Color::Black,
        };
        let e = |lead, sd| {
            let s = ScoredPosition::from_estimate(id, lead, sd).unwrap();
            (s.score, s.confidence)
        };
        assert_eq!(e(30.0, 0.0), (8, 100));
        assert_eq!(e(30.0, 5.0), (8, 99)); // P(X >= 8) for N(30, 5): 0.99999..., rounded down
        assert_eq!(e(-30.0, 5.0), (3, 99));
        // Lead 5.5 with sd 1: P(5 <= X < 6) = 2 * Phi(0.5) - 1 = 0.3829
        assert_eq!(e(5.5, 1.0), (5, 38));
        assert_eq!(e(5.0, 1.0), (5, 34)); // Phi(1) - Phi(0) = 0.3413
        assert!(ScoredPosition::from_estimate(id, f64::NAN, 1.0).is_none());
        assert!(ScoredPosition::from_estimate(id, 1.0, -1.0).is_none());
    }

    #[test]
    fn score_mapping_table() {
        let cases = [
            (-40.0, 3),
            (0.0, 3),
            (3.0, 3),
            (3.5, 3),
            (4.0, 4),
            (4.5, 4),
            (5.0, 5),
            (6.0, 6),
            (7.5, 7),
            (8.0, 8),
            (81.0, 8),
            (f64::NAN, 3),
        ];
        for (m, b) in cases {
            assert_eq!(score_byte(m), b, "margin {m}");
        }
    }

    #[test]
    fn median_and_confidence() {
        let id = PositionId {
            hash: 1,
            tiebreak: 0,
            to_play: Color::Black,
        };
        let s = ScoredPosition::from_margins(id, &[12.0, 9.0, 2.0]).unwrap();
        assert_eq!((s.score, s.confidence), (8, 66));
        // Lower median of an even count: -40, -16, 2, 4 -> -16 -> 3; agreeing: -40, -16, 2.
        let s = ScoredPosition::from_margins(id, &[-40.0, -16.0, 2.0, 4.0]).unwrap();
        assert_eq!((s.score, s.confidence), (3, 75));
        let s = ScoredPosition::from_margins(id, &[5.0]).unwrap();
        assert_eq!((s.score, s.confidence), (5, 100));
        assert_eq!(ScoredPosition::from_margins(id, &[]), None);
        assert_eq!(ScoredPosition::from_margins(id, &[1.0, f64::NAN]), None);
    }

    #[test]
    fn extra_info_is_big_endian() {
        let e = ExtraInfo {
            file_id: 0x0102_0304,
            variation: 0x0506,
            move_number: 0x0708,
        };
        assert_eq!(e.to_bytes(), [1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(ExtraInfo::from_bytes(&e.to_bytes()), e);
    }
}
