//! The plain search: replay every game and test the pattern at every position, in every
//! orientation. It is exact by construction, so it is both the reference the tests hold the
//! index to and the search of record for collections without a pattern index.

use crate::answer::{Continuation, Match, SearchAnswer, Tally, YearCount};
use crate::filter::{GameInfo, Winner};
use crate::query::{Placement, Query, Variant};
use kifu_go::replay::{replay_game, ReplayOptions, Scope, Step};
use kifu_go::{BoardSize, Color, Move, Point, Position};
use kifu_sgf::GameTree;
use std::collections::{BTreeMap, HashMap};

/// One page of matches: skip `offset`, keep at most `limit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// Matches skipped.
    pub offset: u64,
    /// Matches kept at most.
    pub limit: u64,
}

impl Default for Page {
    fn default() -> Page {
        Page {
            offset: 0,
            limit: 50,
        }
    }
}

/// Where a game lives, for the matches list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameSource {
    /// Its number in the searched collection.
    pub id: u64,
    /// Its file.
    pub file: String,
    /// Its number in the file, from 0.
    pub game_in_file: u32,
}

/// A search in progress: give it games one by one, then [`Scan::finish`].
pub struct Scan<'q> {
    query: &'q Query,
    variants: HashMap<u8, Vec<Variant>>,
    page: Page,
    games_searched: u64,
    games: u64,
    occurrences: u64,
    swapped: u64,
    continuations: HashMap<((u32, u32), Color), Tally>,
    tenuki: Tally,
    game_ends: u64,
    by_year: BTreeMap<i32, (u64, u64)>,
    no_year: u64,
    matches: Vec<Match>,
    match_count: u64,
}

/// A hit waiting for the move that follows it.
struct Pending {
    variant: usize,
    place: (u32, u32),
    match_index: Option<usize>,
}

impl<'q> Scan<'q> {
    /// A search for `query`, keeping the matches of `page`.
    pub fn new(query: &'q Query, page: Page) -> Scan<'q> {
        Scan {
            query,
            variants: HashMap::new(),
            page,
            games_searched: 0,
            games: 0,
            occurrences: 0,
            swapped: 0,
            continuations: HashMap::new(),
            tenuki: Tally::default(),
            game_ends: 0,
            by_year: BTreeMap::new(),
            no_year: 0,
            matches: Vec::new(),
            match_count: 0,
        }
    }

    /// Searches one game tree (skipped if the filters refuse `info`).
    pub fn game(&mut self, source: &GameSource, info: &GameInfo, tree: GameTree<'_>) {
        if !self.query.filters.accepts(info) {
            return;
        }
        let Ok(size) = BoardSize::new(u32::from(info.size)) else {
            return;
        };
        let query = self.query;
        let variants = self
            .variants
            .entry(size.get())
            .or_insert_with(|| query.variants(size))
            .clone();
        if variants.is_empty() {
            return;
        }
        self.games_searched += 1;
        let opts = ReplayOptions {
            scope: if query.variations {
                Scope::AllVariations
            } else {
                Scope::MainLineOnly
            },
            ..ReplayOptions::default()
        };
        let winner = info.winner();
        let mut pending: HashMap<usize, Vec<Pending>> = HashMap::new();
        let mut hits_in_game = 0u64;
        let mut events: Vec<Event> = Vec::new();
        let _ = replay_game(tree, &opts, |step: &Step<'_>| {
            // The move of this node settles the hits of its parent; a node without a move stands
            // for its parent.
            if let Some(parent) = step.parent {
                if let Some(waiting) = pending.remove(&parent) {
                    match step.mv {
                        Some(pm) => {
                            for w in waiting {
                                events.push(Event::Next {
                                    variant: w.variant,
                                    place: w.place,
                                    mv: Some((pm.color, pm.mv)),
                                    match_index: w.match_index,
                                });
                            }
                        }
                        None => {
                            pending.insert(step.node_index, waiting);
                        }
                    }
                }
            }
            if let Some((from, to)) = query.moves {
                if step.move_number < from || step.move_number > to {
                    return;
                }
            }
            let found = find(&variants, step.position);
            for (vi, place) in found {
                let v = &variants[vi];
                if let Some(tp) = query.to_play {
                    if v.query_color(step.to_play) != tp {
                        continue;
                    }
                }
                hits_in_game += 1;
                events.push(Event::Hit {
                    variant: vi,
                    place,
                    move_number: step.move_number,
                    in_variation: step.variation > 0,
                });
                let idx = events.len() - 1;
                pending.entry(step.node_index).or_default().push(Pending {
                    variant: vi,
                    place,
                    match_index: Some(idx),
                });
            }
        });
        for waiting in pending.into_values() {
            for w in waiting {
                events.push(Event::Next {
                    variant: w.variant,
                    place: w.place,
                    mv: None,
                    match_index: w.match_index,
                });
            }
        }
        if hits_in_game == 0 {
            return;
        }
        self.games += 1;
        match info.year() {
            Some(y) => {
                let e = self.by_year.entry(y).or_default();
                e.0 += 1;
                e.1 += hits_in_game;
            }
            None => self.no_year += hits_in_game,
        }
        self.record(source, info, size, &variants, winner, events);
    }

    fn record(
        &mut self,
        source: &GameSource,
        info: &GameInfo,
        size: BoardSize,
        variants: &[Variant],
        winner: Winner,
        events: Vec<Event>,
    ) {
        // Match records are made for hits on the page; `slot` maps an event to its record.
        let mut slot: HashMap<usize, usize> = HashMap::new();
        for (i, e) in events.iter().enumerate() {
            match *e {
                Event::Hit {
                    variant,
                    place,
                    move_number,
                    in_variation,
                } => {
                    let v = &variants[variant];
                    self.occurrences += 1;
                    self.swapped += u64::from(v.swapped);
                    let n = self.match_count;
                    self.match_count += 1;
                    if n >= self.page.offset && n < self.page.offset + self.page.limit {
                        slot.insert(i, self.matches.len());
                        self.matches.push(Match {
                            game: source.id,
                            move_number,
                            symmetry: v.symmetry.index(),
                            symmetry_name: v.symmetry.to_string(),
                            swapped: v.swapped,
                            in_variation,
                            place,
                            next: "-".into(),
                            info: info.clone(),
                            file: source.file.clone(),
                            game_in_file: source.game_in_file + 1,
                        });
                    }
                }
                Event::Next {
                    variant,
                    place,
                    mv,
                    match_index,
                } => {
                    let v = &variants[variant];
                    let w = if v.swapped { winner.swapped() } else { winner };
                    let (bw, ww) = (w == Winner::Black, w == Winner::White);
                    if let (Some(m), Some(&k)) = (mv, match_index.and_then(|j| slot.get(&j))) {
                        self.matches[k].next = m.1.to_human(size);
                    }
                    match mv {
                        None => self.game_ends += 1,
                        Some((color, Move::Play(p))) => {
                            match v.query_cell(place, u32::from(p.col()), u32::from(p.row())) {
                                Some(cell) => self
                                    .continuations
                                    .entry((cell, v.query_color(color)))
                                    .or_default()
                                    .add(bw, ww),
                                None => self.tenuki.add(bw, ww),
                            }
                        }
                        Some((_, Move::Pass)) => self.tenuki.add(bw, ww),
                    }
                }
            }
        }
    }

    /// The answer: totals, continuations (most played first, then by point), years, the page.
    /// With `size`, continuations of a pattern at a fixed place are named as points of that
    /// board (`C17`); else, and for patterns sought anywhere, as cells of the pattern.
    pub fn finish(self, size: Option<BoardSize>) -> SearchAnswer {
        let at = match self.query.placement {
            Placement::At { col, row } => Some((col, row)),
            Placement::Anywhere => None,
        };
        let name = |cell: (u32, u32)| -> String {
            let point = at.zip(size).and_then(|((c, r), size)| {
                Point::new(c + cell.0, r + cell.1, size)
                    .ok()
                    .map(|p| p.to_human(size))
            });
            point.unwrap_or_else(|| format!("{},{}", cell.0, cell.1))
        };
        let mut continuations: Vec<Continuation> = self
            .continuations
            .into_iter()
            .map(|((cell, color), tally)| Continuation {
                mv: name(cell),
                cell,
                color: color.letter(),
                tally,
            })
            .collect();
        continuations.sort_by(|a, b| {
            b.tally
                .count
                .cmp(&a.tally.count)
                .then(a.cell.1.cmp(&b.cell.1))
                .then(a.cell.0.cmp(&b.cell.0))
                .then(a.color.cmp(&b.color))
        });
        SearchAnswer {
            pattern: self.query.pattern.to_rows(),
            placement: self.query.placement,
            games_searched: self.games_searched,
            games: self.games,
            occurrences: self.occurrences,
            swapped: self.swapped,
            continuations,
            tenuki: self.tenuki,
            game_ends: self.game_ends,
            by_year: self
                .by_year
                .into_iter()
                .map(|(year, (games, hits))| YearCount { year, games, hits })
                .collect(),
            no_year: self.no_year,
            matches: self.matches,
            offset: self.page.offset,
        }
    }
}

enum Event {
    Hit {
        variant: usize,
        place: (u32, u32),
        move_number: u32,
        in_variation: bool,
    },
    Next {
        variant: usize,
        place: (u32, u32),
        mv: Option<(Color, Move)>,
        match_index: Option<usize>,
    },
}

/// Every (variant, place) where a variant stands on `position`, each rectangle of the board
/// once (the first variant that matches it).
fn find(variants: &[Variant], position: &Position) -> Vec<(usize, (u32, u32))> {
    let size = position.size();
    let mut out: Vec<(usize, (u32, u32))> = Vec::new();
    for (vi, v) in variants.iter().enumerate() {
        let (w, h) = (v.pattern.width(), v.pattern.height());
        for &place in &v.places {
            let stands = (0..h).all(|y| {
                (0..w).all(|x| {
                    let c = v.pattern.cell(x, y);
                    !c.constrains()
                        || Point::new(place.0 + x, place.1 + y, size)
                            .is_ok_and(|p| c.matches(position.stone_at(p)))
                })
            });
            if stands
                && !out.iter().any(|&(oi, op)| {
                    op == place
                        && variants[oi].pattern.width() == w
                        && variants[oi].pattern.height() == h
                })
            {
                out.push((vi, place));
            }
        }
    }
    out
}
