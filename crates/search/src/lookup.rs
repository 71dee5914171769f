//! The answer of a full-board lookup (`kifu pos lookup --json`, `kifu serve`, Python): the
//! counts, continuations and first matches of a [`LookupPage`] with the listed games' details,
//! as one serde type.

use kifu_go::{BoardSize, Color, Move};
use kifu_posdb::index::{IndexError, IndexReader, LookupPage};
use serde::{Deserialize, Serialize};

/// A continuation of a looked-up position.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LookupContinuation {
    /// The move (`D4`, `pass`), in the query's orientation.
    #[serde(rename = "move")]
    pub mv: String,
    /// Games that continued so.
    pub count: u64,
    /// Of those, won by Black.
    pub black_wins: u64,
    /// Of those, won by White.
    pub white_wins: u64,
    /// `black_wins / count`.
    pub black_win_rate: f64,
    /// `white_wins / count`.
    pub white_win_rate: f64,
}

/// One listed occurrence with its game's details.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LookupMatch {
    /// The game's number in the index.
    pub game: u32,
    /// The move number of the position in the game.
    #[serde(rename = "move")]
    pub move_number: u16,
    /// The symmetry from the query's board to the game's, by index (0 = identity).
    pub symmetry: u8,
    /// Its name.
    pub symmetry_name: String,
    /// Whether the game had the position with colours swapped.
    pub swapped: bool,
    /// Whether the position is in a variation.
    pub in_variation: bool,
    /// The next move in the query's orientation, `-` for none.
    pub next: String,
    /// `PB`.
    pub black: String,
    /// `PW`.
    pub white: String,
    /// `DT`.
    pub date: String,
    /// `RE`.
    pub result: String,
    /// The game's file.
    pub file: String,
    /// The game within the file, from 1.
    pub game_in_file: u32,
}

/// A score of the position from a scored-position file (the CLI's `--scores`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LookupScore {
    /// The file's label.
    pub scorer: String,
    /// The position's id as the file has it.
    pub id: String,
    /// The score byte.
    pub score: u8,
    /// The confidence, 0..=100.
    pub confidence: u8,
}

/// Everything a full-board lookup shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LookupAnswer {
    /// The canonical hash of the position, 16 hex digits.
    pub hash: String,
    /// The side to move, `B` or `W`.
    pub to_play: String,
    /// Occurrences (all, not only the listed).
    pub occurrences: u64,
    /// Distinct games among them.
    pub games: u64,
    /// Occurrences with colours swapped.
    pub swapped: u64,
    /// Continuations, most played first.
    pub continuations: Vec<LookupContinuation>,
    /// The first occurrences, by game and move.
    pub matches: Vec<LookupMatch>,
    /// Scores of the position (empty unless the caller adds some).
    pub scores: Vec<LookupScore>,
}

/// A move as the answers print it: `D4`, `pass`, or `-` for none.
pub fn move_text(m: Option<Move>, size: BoardSize) -> String {
    match m {
        Some(m) => m.to_human(size),
        None => "-".to_string(),
    }
}

impl LookupAnswer {
    /// The answer for `page` (of a lookup of a position with `to_play` to move in `db`), with
    /// its listed games' details read from `db`.
    pub fn new(
        db: &IndexReader,
        page: &LookupPage,
        to_play: Color,
    ) -> Result<LookupAnswer, IndexError> {
        let size = db.size();
        let rate = |n: u64, d: u64| {
            // As a percentage first, then scaled: the figures `kifu pos lookup` always printed.
            let pct = if d > 0 {
                n as f64 * 100.0 / d as f64
            } else {
                0.0
            };
            pct / 100.0
        };
        let mut matches = Vec::with_capacity(page.first.len());
        for o in &page.first {
            let g = db.game(o.game)?;
            matches.push(LookupMatch {
                game: o.game,
                move_number: o.move_number,
                symmetry: o.symmetry.index() as u8,
                symmetry_name: o.symmetry.to_string(),
                swapped: o.swapped,
                in_variation: o.in_variation,
                next: move_text(o.next, size),
                black: g.black,
                white: g.white,
                date: g.date,
                result: g.result,
                file: g.file,
                game_in_file: g.game_in_file + 1,
            });
        }
        Ok(LookupAnswer {
            hash: format!("{:016x}", page.hash),
            to_play: to_play.letter().to_string(),
            occurrences: page.occurrences,
            games: page.games,
            swapped: page.swapped,
            continuations: page
                .continuations
                .iter()
                .map(|c| LookupContinuation {
                    mv: move_text(Some(c.mv), size),
                    count: c.count,
                    black_wins: c.black_wins,
                    white_wins: c.white_wins,
                    black_win_rate: rate(c.black_wins, c.count),
                    white_win_rate: rate(c.white_wins, c.count),
                })
                .collect(),
            matches,
            scores: Vec::new(),
        })
    }
}
