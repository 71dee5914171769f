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

/// A full-board lookup answered by the pattern index: the whole board searched as a pattern at
/// (0, 0), every symmetry, with `to_play` to move (and colours swapped if `swap_colors`),
/// main lines, positions counted, then put in the terms of [`IndexReader::lookup_page`]: the same hash,
/// counts, continuations (passes among them, the moves a symmetry of the board maps onto each
/// other counted together under the lowest point) and first `limit` occurrences (each with the
/// symmetry the full-board index reports: from the query's board through the canonical
/// orientation to the game's). The full-board index answers in microseconds from its entries;
/// this is what lets an index keep entries for the first moves of its games only
/// (ARCHITECTURE.md, "Size on disk"), and a check of both indexes against each other. An
/// index of every variation is refused: its entries take a main-line position followed by a
/// variation's move as in the variation, with no winner, where the pattern search takes the
/// position's own line and the game's winner.
pub fn lookup_page_by_search(
    db: &crate::Database,
    board: &kifu_go::Board,
    to_play: Color,
    swap_colors: bool,
    limit: usize,
) -> Result<LookupPage, IndexError> {
    use crate::{Counting, Pattern, Placement, Query};
    use kifu_go::{Board, Point, Symmetry};
    use kifu_posdb::index::{
        code_to_move, representative, stabilizer, ContinuationSums, Occurrence, NEXT_PASS,
    };

    let reader = db.reader();
    if reader.variations() {
        // Its entries take a position followed by a variation's move as in the variation
        // and count no winner for it; the pattern search takes the position's own line.
        return Err(IndexError::Companion(
            "a lookup by the pattern search needs an index of main lines: this one holds every \
             variation"
                .into(),
        ));
    }
    let size = reader.size();
    if board.size() != size {
        return Err(IndexError::BoardSize {
            board: board.size(),
            index: size,
        });
    }
    let n = u32::from(size.get());
    let search = |board: &Board, to_play: Color, swap: bool, limit: usize| {
        let pattern = Pattern::from_board(board, 0, 0, n, n)
            .ok_or(IndexError::Format("a board the pattern search cannot hold"))?;
        let mut query = Query::new(pattern, Placement::At { col: 0, row: 0 });
        query.swap_colors = swap;
        query.to_play = Some(to_play);
        query.counting = Counting::Positions;
        let page = crate::scan::Page {
            offset: 0,
            limit: limit as u64,
        };
        let searched = db.search(&query, page, false);
        match searched.failures.first() {
            Some(f) => Err(IndexError::Companion(f.message.clone())),
            None => Ok(searched.answer),
        }
    };
    let swapped_board = {
        let mut b = Board::new(size);
        for (p, c) in board.stones() {
            let _ = b.set(p, Some(c.opponent()));
        }
        b
    };
    // The counts and the page: one search (a position and its colours swapped cannot stand at
    // one node, as their sides to move differ).
    let answer = search(board, to_play, swap_colors, limit)?;
    // The continuations: the pattern search counts together the moves that a symmetry of the
    // pattern maps onto each other, colour swaps among them when colours may be swapped; a
    // lookup only those of a symmetry of the board. So with colours swapped, the board and
    // its swapped image (the other side to move) are searched on their own, and the wins of
    // the second counted back in the query's colours.
    let apart = if swap_colors {
        vec![
            (search(board, to_play, false, 0)?, false),
            (search(&swapped_board, to_play.opponent(), false, 0)?, true),
        ]
    } else {
        Vec::new()
    };
    let counted: Vec<(&crate::SearchAnswer, bool)> = if swap_colors {
        apart.iter().map(|(a, s)| (a, *s)).collect()
    } else {
        vec![(&answer, false)]
    };

    let table = reader.keys().table();
    // Moves the symmetries of the board map onto each other are one continuation.
    let stabilizer = stabilizer(board);
    let rep = |p: Point| representative(p, &stabilizer, size);
    let bad = |_| IndexError::Format("a move the pattern search named that is off the board");
    let mut sums = ContinuationSums::default();
    for &(a, swapped) in &counted {
        let mut add = |code: u16, t: &crate::answer::Tally| {
            sums.add(code, t.count, t.black_wins, t.white_wins, swapped)
        };
        for c in &a.continuations {
            add(rep(Point::from_human(&c.mv, size).map_err(bad)?), &c.tally);
        }
        if a.passes.count > 0 {
            add(NEXT_PASS, &a.passes);
        }
    }

    let mut first = Vec::with_capacity(answer.matches.len());
    for m in &answer.matches {
        let sym = *Symmetry::ALL
            .get(m.symmetry)
            .ok_or(IndexError::Format("a symmetry out of range"))?;
        let query_board = if m.swapped { &swapped_board } else { board };
        let qsym = table.symmetric_hashes(query_board).canonical().symmetry;
        let gsym = table
            .symmetric_hashes(&query_board.transform(sym))
            .canonical()
            .symmetry;
        let next = match m.next.as_str() {
            "-" => None,
            "pass" => Some(Move::Pass),
            text => {
                let p = Point::from_human(text, size).map_err(bad)?;
                let q = sym.inverse().apply(p, size);
                Some(code_to_move(rep(q), size))
            }
        };
        first.push(Occurrence {
            game: u32::try_from(m.game).map_err(|_| IndexError::TooMany)?,
            move_number: u16::try_from(m.move_number).unwrap_or(u16::MAX),
            symmetry: qsym.then(gsym.inverse()),
            swapped: m.swapped,
            in_variation: m.in_variation,
            next,
        });
    }
    Ok(LookupPage {
        hash: table.symmetric_hashes(board).canonical().hash,
        occurrences: answer.occurrences,
        games: answer.games,
        swapped: answer.swapped,
        continuations: sums.into_continuations(size),
        first,
    })
}
