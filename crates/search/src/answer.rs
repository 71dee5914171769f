//! The answer to a search, one serde type for the JSON of the CLI, the server and Python. Its
//! top-level fields are those of `kifu pos lookup --json` (`games`, `occurrences`, `swapped`,
//! `continuations`, `matches`) plus the pattern's own.

use crate::filter::GameInfo;
use crate::query::Placement;
use serde::{Deserialize, Serialize};

/// Counts of games that went on one way: how often, and who won.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    /// Occurrences.
    pub count: u64,
    /// Of which Black (in the query's colours) won.
    pub black_wins: u64,
    /// Of which White (in the query's colours) won.
    pub white_wins: u64,
    /// `black_wins / count` (0 when there are none).
    pub black_win_rate: f64,
    /// `white_wins / count`.
    pub white_win_rate: f64,
}

impl Tally {
    /// Counts one more. The rates wait for [`Tally::with_rates`]: a scan adds and merges
    /// counts only, and works the rates out once when it makes its answer.
    pub(crate) fn add(&mut self, black_won: bool, white_won: bool) {
        self.count += 1;
        self.black_wins += u64::from(black_won);
        self.white_wins += u64::from(white_won);
    }

    /// Counts `n` more, all won by the same side (or neither).
    pub(crate) fn add_many(&mut self, n: u64, black_won: bool, white_won: bool) {
        self.count += n;
        self.black_wins += n * u64::from(black_won);
        self.white_wins += n * u64::from(white_won);
    }

    /// The tally with its rates worked out from its counts.
    pub(crate) fn with_rates(mut self) -> Tally {
        let n = self.count.max(1) as f64;
        self.black_win_rate = self.black_wins as f64 / n;
        self.white_win_rate = self.white_wins as f64 / n;
        self
    }

    /// Adds `other`'s counts (rates as for [`Tally::add`]).
    pub(crate) fn merge(&mut self, other: &Tally) {
        self.count += other.count;
        self.black_wins += other.black_wins;
        self.white_wins += other.white_wins;
    }
}

/// A next move inside the pattern's rectangle, in the query's orientation and colours.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Continuation {
    /// The point: a board coordinate (`D4`) for a pattern at a fixed place, else the cell of the
    /// pattern as `column,row` from its top-left (from 0).
    #[serde(rename = "move")]
    pub mv: String,
    /// The cell of the pattern (column, row from its top-left).
    pub cell: (u32, u32),
    /// Who played it: `B` or `W`.
    pub color: char,
    /// The letter of its cell on the diagram (`A` for the most played cell, up to `Z`; both
    /// colours of one cell share it).
    pub label: Option<char>,
    /// How often and who won.
    #[serde(flatten)]
    pub tally: Tally,
}

/// One position of one game where the pattern stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Match {
    /// The game's number in the searched collection (from 0).
    pub game: u64,
    /// Moves played before this position.
    #[serde(rename = "move")]
    pub move_number: u32,
    /// The symmetry (0..8) that turns the query's pattern into what stands on the board.
    pub symmetry: usize,
    /// Its name.
    pub symmetry_name: String,
    /// Whether it stands with colours exchanged.
    pub swapped: bool,
    /// Whether the position is off the main line.
    pub in_variation: bool,
    /// Column and row of the pattern's top-left cell on the board as played.
    pub place: (u32, u32),
    /// The next move as played (`-` at the end of the game), board coordinates as played.
    pub next: String,
    /// The game.
    #[serde(flatten)]
    pub info: GameInfo,
    /// Where the game is: its file and its number in the file (from 1).
    pub file: String,
    /// The game within its file (from 1).
    pub game_in_file: u32,
}

/// Hits in one year.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct YearCount {
    /// The year (from the date's first four digits).
    pub year: i32,
    /// Games of that year with the pattern.
    pub games: u64,
    /// Positions with the pattern.
    pub hits: u64,
}

/// Everything a search found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchAnswer {
    /// The pattern as rows.
    pub pattern: String,
    /// Where it was sought.
    pub placement: Placement,
    /// Games that passed the filters (and whose board could hold the pattern).
    pub games_searched: u64,
    /// Distinct games with at least one hit.
    pub games: u64,
    /// Positions where the pattern stands (each counted once, whatever symmetries it matches).
    pub occurrences: u64,
    /// Of which with colours exchanged.
    pub swapped: u64,
    /// Next moves inside the pattern, most played first.
    pub continuations: Vec<Continuation>,
    /// Next moves outside the pattern.
    pub tenuki: Tally,
    /// Passes next.
    pub passes: Tally,
    /// Hits after which the game (or the variation) ended.
    pub game_ends: u64,
    /// Games and hits per year, by year.
    pub by_year: Vec<YearCount>,
    /// Hits without a year.
    pub no_year: u64,
    /// One page of the matches, by game and move.
    pub matches: Vec<Match>,
    /// Where the page starts among all matches.
    pub offset: u64,
}

/// One game of a [`GamesAnswer`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameRow {
    /// The game's number in the database (from 0).
    pub game: u64,
    /// The game.
    #[serde(flatten)]
    pub info: GameInfo,
    /// Its file.
    pub file: String,
    /// The game within its file (from 1).
    pub game_in_file: u32,
}

/// The games whose information passes a query's filters: a search with filters and no
/// pattern.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GamesAnswer {
    /// Games looked at (all of the database's, or those left with duplicates left out).
    pub games_searched: u64,
    /// Games that pass the filters.
    pub games: u64,
    /// Who won them (`count` is `games`).
    pub results: Tally,
    /// Games per year, by year (`hits` is `games`).
    pub by_year: Vec<YearCount>,
    /// Games without a year.
    pub no_year: u64,
    /// One page of the games, in database order.
    pub matches: Vec<GameRow>,
    /// Where the page starts among all games that pass.
    pub offset: u64,
}
