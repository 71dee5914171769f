//! The plain search: replay every game and test the pattern at every position, in every
//! orientation. It is exact by construction, so it is both the reference the tests hold the
//! index to and the search of record for collections without a pattern index.

use crate::answer::{Continuation, Match, SearchAnswer, Tally, YearCount};
use crate::filter::{GameInfo, Winner};
use crate::query::{Counting, Image, Placement, Query, Variant};
use kifu_go::replay::{replay_game, ReplayOptions, Scope, Step};
use kifu_go::{BoardSize, Color, Move, Point, Position};
use kifu_sgf::GameTree;
use std::collections::{BTreeMap, HashMap, HashSet};

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

/// The variants of a query on one board size, the pattern's own symmetries there, those of
/// them that also leave the move sequence as it is, and per variant where
/// [`Scan::count_inside`] counts a move inside ([`inside_slots`]).
// Shared, not copied, by every game of that size (a free pattern has thousands of places).
pub(crate) type SizeVariants =
    std::sync::Arc<(Vec<Variant>, Vec<Image>, Vec<Image>, Vec<Vec<u32>>)>;

/// The variants of `query` on a board of `size`, its stabilizer and sequence fixers.
pub(crate) fn size_variants(query: &Query, size: BoardSize) -> SizeVariants {
    let stabilizer = query.stabilizer(size);
    let fixers = query.sequence_fixers(&stabilizer);
    let variants = query.variants(size);
    let slots = variants
        .iter()
        .map(|v| inside_slots(query, v, &stabilizer, &fixers))
        .collect();
    std::sync::Arc::new((variants, stabilizer, fixers, slots))
}

/// Per cell of `v`'s rectangle (row by row) and colour (Black, then White), the index of the
/// continuation's tally ([`Continuations`]) that [`Scan::count_next`] counts a move there in,
/// in the frame of the stabilizer's first image (a hit without a sequence). Worked out once
/// per variant: mapping back and naming each continuation among its images was about 800
/// instructions a hit, a fifth of the densest cut side's search at 100,000 games.
fn inside_slots(query: &Query, v: &Variant, stabilizer: &[Image], fixers: &[Image]) -> Vec<u32> {
    let (w, h) = (v.pattern.width(), v.pattern.height());
    let width = query.pattern.width();
    let Some(&frame) = stabilizer.first() else {
        return Vec::new();
    };
    (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .flat_map(|(x, y)| [(x, y, Color::Black), (x, y, Color::White)])
        .map(|(x, y, color)| {
            let cell = v.query_cell((0, 0), x, y).unwrap_or((x, y));
            let (c, k) = query.unapply(frame, cell, v.query_color(color));
            Continuations::slot(width, query.canonical(fixers, c, k)) as u32
        })
        .collect()
}

/// The order of a game's occurrences: the node of the hit, its number among that node's hits,
/// the node of the move after it (`usize::MAX`: none).
pub(crate) type EventKey = (usize, usize, usize);

/// What followed hits counted together: a move outside their pattern, a pass, or the end of
/// the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outside {
    Tenuki,
    Pass,
    End,
}

/// A search in progress: give it games one by one, then [`Scan::finish`].
pub struct Scan<'q> {
    query: &'q Query,
    // No filter set: every game is taken without looking at its information.
    unfiltered: bool,
    variants: HashMap<u8, SizeVariants>,
    page: Page,
    games_searched: u64,
    games: u64,
    occurrences: u64,
    swapped: u64,
    continuations: Continuations,
    tenuki: Tally,
    passes: Tally,
    game_ends: u64,
    by_year: BTreeMap<i32, (u64, u64)>,
    no_year: u64,
    matches: Vec<Match>,
    match_count: u64,
    /// The number (among all the matches, from 0) of the first match `matches` may hold: 0
    /// when partial scans are merged (each keeps its matches from its first on, as it cannot
    /// know how many come before its games), the page's offset when the scan knows it
    /// ([`Scan::from_offset`]).
    first_match: u64,
    /// The games with hits, in order, when asked for ([`Scan::list_games`]).
    listed: Option<Vec<u64>>,
    /// The filters' date range, read once.
    dates: Option<crate::filter::DateRange>,
}

/// A hit waiting for the moves that follow it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pending {
    pub(crate) variant: usize,
    pub(crate) place: (u32, u32),
    pub(crate) move_number: u32,
    pub(crate) in_variation: bool,
    /// Moves of the query's sequence played so far.
    pub(crate) seq: usize,
    /// Moves outside the pattern came after the hit (counting placements).
    pub(crate) waited: bool,
    /// The elements of the stabilizer (bits) under which the moves so far are the sequence's.
    pub(crate) alive: u16,
    /// The node of the hit and its number there (for a stable order of the matches).
    pub(crate) origin: (usize, usize),
}

impl Pending {
    /// Whether `mv` is a move inside this hit's rectangle.
    pub(crate) fn inside(&self, v: &Variant, mv: Move) -> bool {
        v.move_cell(self.place, mv).is_some()
    }

    /// The hit after `mv` by `color`, while its sequence is not complete: one move further when
    /// the move is the next one of the sequence, the same when it is elsewhere, tenuki are
    /// allowed and the sequence has begun (passes count as tenuki), else none.
    pub(crate) fn follow(
        &self,
        v: &Variant,
        query: &Query,
        stabilizer: &[Image],
        color: Color,
        mv: Move,
    ) -> Option<Pending> {
        let (want_color, want_cell) = query.sequence[self.seq];
        match v.move_cell(self.place, mv) {
            Some(cell) => {
                let played = (cell, v.query_color(color));
                let mut alive = 0u16;
                for (i, &g) in stabilizer.iter().enumerate().take(16) {
                    if self.alive & (1 << i) != 0 && query.apply(g, want_cell, want_color) == played
                    {
                        alive |= 1 << i;
                    }
                }
                (alive != 0).then_some(Pending {
                    seq: self.seq + 1,
                    alive,
                    ..*self
                })
            }
            // The first move of the sequence is the one after the hit (a later start is a
            // later hit, found there); tenuki are allowed between its moves only.
            None if query.allow_tenuki && self.seq > 0 => Some(*self),
            None => None,
        }
    }

    pub(crate) fn event(&self, next: Option<(Color, Move)>) -> Event {
        Event {
            frame: self.alive.trailing_zeros() as usize,
            variant: self.variant,
            place: self.place,
            move_number: self.move_number,
            in_variation: self.in_variation,
            next,
        }
    }
}

impl<'q> Scan<'q> {
    /// A search for `query`, keeping the matches of `page`.
    pub fn new(query: &'q Query, page: Page) -> Scan<'q> {
        Scan {
            query,
            unfiltered: query.filters.is_empty(),
            variants: HashMap::new(),
            page,
            games_searched: 0,
            games: 0,
            occurrences: 0,
            swapped: 0,
            continuations: Continuations::new(query.pattern.width()),
            tenuki: Tally::default(),
            passes: Tally::default(),
            game_ends: 0,
            by_year: BTreeMap::new(),
            no_year: 0,
            matches: Vec::new(),
            match_count: 0,
            first_match: 0,
            listed: None,
            dates: query.filters.date_range(),
        }
    }

    /// Has the scan list the games with hits (every one, not a page).
    pub(crate) fn list_games(&mut self) {
        self.listed = Some(Vec::new());
    }

    /// The games with hits, in order, if the scan listed them.
    pub(crate) fn take_games(&mut self) -> Option<Vec<u64>> {
        self.listed.take()
    }

    /// A search for `query` over games whose matches are the first of the whole search (or
    /// whose earlier matches are counted elsewhere): only the page's matches are kept, none
    /// before its offset, so that a deep page costs no memory for the matches it skips.
    pub(crate) fn from_offset(query: &'q Query, page: Page) -> Scan<'q> {
        Scan {
            first_match: page.offset,
            ..Scan::new(query, page)
        }
    }

    /// The matches counted (kept or not).
    pub(crate) fn match_count(&self) -> u64 {
        self.match_count
    }

    /// Takes the matches kept (those of the page, with [`Scan::from_offset`]).
    pub(crate) fn take_matches(&mut self) -> Vec<Match> {
        std::mem::take(&mut self.matches)
    }

    /// Gives the scan the matches of its page, found by other scans: `page`'s matches,
    /// numbered from its offset on.
    pub(crate) fn put_page(&mut self, page: Page, mut matches: Vec<Match>) {
        matches.truncate(usize::try_from(page.limit).unwrap_or(usize::MAX));
        self.page = page;
        self.first_match = page.offset;
        self.matches = matches;
    }

    /// The query.
    pub(crate) fn query(&self) -> &'q Query {
        self.query
    }

    /// Whether the filters accept a game.
    pub(crate) fn accepts(&self, info: &GameInfo) -> bool {
        self.accepts_lazily(|| info.view())
    }

    /// [`Scan::accepts`] of borrowed information, made only when there are filters.
    pub(crate) fn accepts_lazily<'g>(
        &self,
        info: impl FnOnce() -> crate::filter::InfoView<'g>,
    ) -> bool {
        self.unfiltered
            || self
                .query
                .filters
                .accepts_with(&info(), self.dates.as_ref())
    }

    /// Sets the games counted as searched (the indexed search counts the games it did not
    /// need to walk).
    pub(crate) fn set_games_searched(&mut self, n: u64) {
        self.games_searched = n;
    }

    /// Whether a match found now would still be kept (the page is not full yet).
    pub(crate) fn keeps_matches(&self) -> bool {
        self.match_count < self.page.offset.saturating_add(self.page.limit)
    }

    /// Gives the scan the variants of a board size computed once for many scans (the indexed
    /// search runs one scan per part of the games).
    pub(crate) fn seed(&mut self, size: BoardSize, shared: SizeVariants) {
        self.variants.insert(size.get(), shared);
    }

    /// The variants of a game the filters accept, on a board where the pattern fits, with the
    /// game counted as searched; `None` for a game left out. Shared with the indexed search.
    pub(crate) fn begin_game(&mut self, info: &GameInfo) -> Option<(BoardSize, SizeVariants)> {
        if !self.accepts(info) {
            return None;
        }
        let (size, shared) = self.fits(info.size)?;
        self.games_searched += 1;
        Some((size, shared))
    }

    /// The board size of side `side` and the pattern's variants on it, when the pattern fits
    /// such a board (a game of another side is not searched, nor counted).
    pub(crate) fn fits(&mut self, side: u8) -> Option<(BoardSize, SizeVariants)> {
        let size = BoardSize::new(u32::from(side)).ok()?;
        let query = self.query;
        let shared = self
            .variants
            .entry(size.get())
            .or_insert_with(|| size_variants(query, size))
            .clone();
        (!shared.0.is_empty()).then_some((size, shared))
    }

    /// Searches one game tree (skipped if the filters refuse `info`).
    pub fn game(&mut self, source: &GameSource, info: &GameInfo, tree: GameTree<'_>) {
        let Some((size, shared)) = self.begin_game(info) else {
            return;
        };
        let query = self.query;
        let (variants, stabilizer) = (&shared.0, &shared.1);
        let opts = ReplayOptions {
            scope: if query.variations {
                Scope::AllVariations
            } else {
                Scope::MainLineOnly
            },
            ..ReplayOptions::default()
        };
        // A node's hits wait for its children: each child with a move is one occurrence with
        // that continuation (as the index counts them), a node without any ends its line there,
        // and a child without a move stands for its parent (setup after a move belongs to it,
        // as in the index), so the parent's fresh hits give way to the child's. With a move
        // sequence, a hit first follows the line move by move until the sequence is played.
        let sequence = &query.sequence;
        let placements = query.counting == Counting::Placements;
        let mut seen: HashSet<(usize, (u32, u32))> = HashSet::new();
        let mut waiting: HashMap<usize, Vec<(Pending, bool)>> = HashMap::new();
        let mut events: Vec<(EventKey, Event)> = Vec::new();
        // The replay takes the root's last `SZ`, the game's information its first: a game
        // whose board is not the size its information gives has no hits (the index keeps no
        // nodes for it either).
        let mut other_size = false;
        let _ = replay_game(tree, &opts, |step: &Step<'_>| {
            if other_size || step.position.size() != size {
                other_size = true;
                return;
            }
            if let Some(parent) = step.parent {
                match step.mv {
                    Some(pm) => {
                        let mut carried = Vec::new();
                        if let Some(list) = waiting.get_mut(&parent) {
                            for (w, had_child) in list.iter_mut() {
                                if w.seq == sequence.len() {
                                    *had_child = true;
                                    let v = &variants[w.variant];
                                    if placements && !w.inside(v, pm.mv) {
                                        // Counting placements, the continuation is the next
                                        // move inside the pattern, however late it comes.
                                        carried.push((Pending { waited: true, ..*w }, false));
                                        continue;
                                    }
                                    events.push((
                                        (w.origin.0, w.origin.1, step.node_index),
                                        w.event(Some((pm.color, pm.mv))),
                                    ));
                                } else if let Some(next) = w.follow(
                                    &variants[w.variant],
                                    query,
                                    stabilizer,
                                    pm.color,
                                    pm.mv,
                                ) {
                                    carried.push((next, false));
                                }
                            }
                        }
                        if !carried.is_empty() {
                            waiting.entry(step.node_index).or_default().extend(carried);
                        }
                    }
                    None => {
                        // Hits in the middle of (or past) a sequence go on from the child; fresh
                        // ones are found again there.
                        if let Some(list) = waiting.remove(&parent) {
                            let (carried, fresh): (Vec<(Pending, bool)>, Vec<_>) =
                                list.into_iter().partition(|(w, _)| w.seq > 0 || w.waited);
                            // A fresh placement is found again at the child: it has not been
                            // counted yet.
                            for (w, _) in fresh {
                                seen.remove(&(w.variant, w.place));
                            }
                            if !carried.is_empty() {
                                waiting.entry(step.node_index).or_default().extend(carried);
                            }
                        }
                    }
                }
            }
            if let Some((from, to)) = query.moves {
                if step.move_number < from || step.move_number > to {
                    return;
                }
            }
            let mut here = Vec::new();
            let one_a_rectangle = sequence.is_empty();
            let found = find(
                variants,
                step.position,
                (query.to_play, step.to_play),
                one_a_rectangle,
            );
            for (vi, place) in found {
                // Counting placements, a placement counts once per game, where it first
                // appears (as Kombilo counts); with a sequence, where it first appears and the
                // sequence follows, which `end_game` tells.
                if placements && sequence.is_empty() && !seen.insert((vi, place)) {
                    continue;
                }
                let k = here.len();
                here.push((
                    Pending {
                        variant: vi,
                        place,
                        move_number: step.move_number,
                        in_variation: step.variation > 0,
                        seq: 0,
                        waited: false,
                        // Every image of the sequence under the pattern's own symmetries is
                        // the same sequence: a game may play any of them.
                        alive: u16::MAX >> (16 - stabilizer.len().min(16)),
                        origin: (step.node_index, k),
                    },
                    false,
                ));
            }
            if !here.is_empty() {
                waiting.entry(step.node_index).or_default().extend(here);
            }
        });
        for (w, had_child) in waiting.into_values().flatten() {
            if !had_child && w.seq == sequence.len() {
                events.push(((w.origin.0, w.origin.1, usize::MAX), w.event(None)));
            }
        }
        if other_size {
            return;
        }
        self.end_game(source, info, size, &shared, &mut events);
    }

    /// Counts a game's occurrences, each keyed by (node of the hit, its number there, node of
    /// the move after it), taking them out of `events`. Shared with the indexed search.
    pub(crate) fn end_game(
        &mut self,
        source: &GameSource,
        info: &GameInfo,
        size: BoardSize,
        shared: &SizeVariants,
        events: &mut Vec<(EventKey, Event)>,
    ) {
        let (variants, stabilizer, fixers) = (&shared.0, &shared.1, &shared.2);
        let winner = info.winner();
        // Along one line the walk makes its events in order already.
        if !events.is_sorted_by_key(|(key, _)| *key) {
            events.sort_by_key(|(key, _)| *key);
        }
        if !self.query.sequence.is_empty() {
            one_a_rectangle(events, variants);
            if self.query.counting == Counting::Placements {
                first_placements(events);
            }
        }
        let hits_in_game = events.len() as u64;
        if hits_in_game == 0 {
            return;
        }
        self.count_game(source.id, info.year(), hits_in_game);
        self.record(
            source,
            info,
            size,
            (variants, stabilizer, fixers),
            winner,
            events,
        );
    }

    /// Counts game `id`, with `hits` hits (more than none): games, and its year's games and
    /// hits.
    pub(crate) fn count_game(&mut self, id: u64, year: Option<i32>, hits: u64) {
        self.games += 1;
        if let Some(listed) = &mut self.listed {
            listed.push(id);
        }
        match year {
            Some(y) => {
                let e = self.by_year.entry(y).or_default();
                e.0 += 1;
                e.1 += hits;
            }
            None => self.no_year += hits,
        }
    }

    fn record(
        &mut self,
        source: &GameSource,
        info: &GameInfo,
        size: BoardSize,
        (variants, stabilizer, fixers): (&[Variant], &[Image], &[Image]),
        winner: Winner,
        events: &mut Vec<(EventKey, Event)>,
    ) {
        for (_, e) in events.drain(..) {
            let v = &variants[e.variant];
            self.occurrences += 1;
            self.swapped += u64::from(v.swapped);
            let n = self.match_count;
            self.match_count += 1;
            // Every match up to the end of the page is kept (merging partial scans in order
            // needs them); the page is cut out at the end.
            if n >= self.first_match && n < self.page.offset.saturating_add(self.page.limit) {
                self.matches.push(Match {
                    game: source.id,
                    move_number: e.move_number,
                    symmetry: v.symmetry.index(),
                    symmetry_name: v.symmetry.to_string(),
                    swapped: v.swapped,
                    in_variation: e.in_variation,
                    place: e.place,
                    next: e.next.map_or_else(|| "-".into(), |m| m.1.to_human(size)),
                    info: info.clone(),
                    file: source.file.clone(),
                    game_in_file: source.game_in_file + 1,
                });
            }
            self.count_next(v, e.place, stabilizer[e.frame], fixers, winner, e.next);
        }
    }

    /// Counts one hit of variant `v` at `place` whose next move is `next` (`None`: the game
    /// ended), played in the frame of `frame`, in a game `winner` won.
    fn count_next(
        &mut self,
        v: &Variant,
        place: (u32, u32),
        frame: Image,
        fixers: &[Image],
        winner: Winner,
        next: Option<(Color, Move)>,
    ) {
        let (bw, ww) = v.wins(winner);
        match next {
            None => self.game_ends += 1,
            Some((color, Move::Play(p))) => {
                match v.query_cell(place, u32::from(p.col()), u32::from(p.row())) {
                    Some(cell) => {
                        // In the frame of the image of the sequence the game played, then
                        // under one name among the images that leave the sequence as it is.
                        let (c, k) = self.query.unapply(frame, cell, v.query_color(color));
                        self.continuations
                            .get(self.query.canonical(fixers, c, k))
                            .add(bw, ww)
                    }
                    None => self.tenuki.add(bw, ww),
                }
            }
            Some((_, Move::Pass)) => self.passes.add(bw, ww),
        }
    }

    /// Counts hits whose next move is not inside their pattern, `plain` of variants in the
    /// query's colours and `swapped` of variants with the colours swapped, in a game `winner`
    /// won: as many calls of [`Scan::count_next`] would, with the occurrences, but no match
    /// (the page is full).
    pub(crate) fn count_outside(
        &mut self,
        next: Outside,
        plain: u64,
        swapped: u64,
        winner: Winner,
    ) {
        let hits = plain + swapped;
        self.occurrences += hits;
        self.swapped += swapped;
        self.match_count += hits;
        let tally = match next {
            Outside::End => {
                self.game_ends += hits;
                return;
            }
            Outside::Tenuki => &mut self.tenuki,
            Outside::Pass => &mut self.passes,
        };
        for (n, w) in [(plain, winner), (swapped, winner.swapped())] {
            tally.add_many(n, w == Winner::Black, w == Winner::White);
        }
    }

    /// Counts one hit of variant `vi` at `place` inside whose pattern the next move `next`
    /// was played (the page is full): [`Scan::count_next`] with the occurrence, its tally
    /// read from the variant's table ([`inside_slots`]: no sequence, so every hit is in the
    /// frame of the stabilizer's first image).
    pub(crate) fn count_inside(
        &mut self,
        vi: usize,
        place: (u32, u32),
        shared: &SizeVariants,
        winner: Winner,
        (color, p): (Color, Point),
    ) {
        let v = &shared.0[vi];
        self.occurrences += 1;
        self.swapped += u64::from(v.swapped);
        self.match_count += 1;
        let (bw, ww) = v.wins(winner);
        let (x, y) = (
            u32::from(p.col()).wrapping_sub(place.0),
            u32::from(p.row()).wrapping_sub(place.1),
        );
        let cell = 2 * (y as usize * v.pattern.width() as usize + x as usize)
            + usize::from(color == Color::White);
        match shared.3.get(vi).and_then(|s| s.get(cell)) {
            Some(&slot) if x < v.pattern.width() && y < v.pattern.height() => {
                self.continuations.at(slot as usize).add(bw, ww)
            }
            _ => self.tenuki.add(bw, ww),
        }
    }

    /// Adds the counts and matches of `later`, a scan of games that come after this one's (for
    /// scans run in parallel over parts of a collection, merged in order).
    pub fn merge(mut self, later: Scan<'q>) -> Scan<'q> {
        self.games_searched += later.games_searched;
        self.games += later.games;
        self.occurrences += later.occurrences;
        self.swapped += later.swapped;
        for (k, t) in later.continuations.iter() {
            self.continuations.get(k).merge(t);
        }
        self.tenuki.merge(&later.tenuki);
        self.passes.merge(&later.passes);
        self.game_ends += later.game_ends;
        for (y, (g, h)) in later.by_year {
            let e = self.by_year.entry(y).or_default();
            e.0 += g;
            e.1 += h;
        }
        self.no_year += later.no_year;
        let keep = usize::try_from(
            (self.page.offset.saturating_add(self.page.limit)).saturating_sub(self.first_match),
        )
        .unwrap_or(usize::MAX);
        let room = keep.saturating_sub(self.matches.len());
        self.matches.extend(later.matches.into_iter().take(room));
        self.match_count += later.match_count;
        if let (Some(listed), Some(more)) = (&mut self.listed, later.listed) {
            listed.extend(more);
        }
        for (k, v) in later.variants {
            self.variants.entry(k).or_insert(v);
        }
        self
    }

    /// The answer: totals, continuations (most played first, then by point), years, the page.
    /// With `size`, continuations of a pattern at a fixed place are named as points of that
    /// board (`C17`); else, and for patterns sought anywhere, as cells of the pattern.
    pub fn finish(self, size: Option<BoardSize>) -> SearchAnswer {
        let at = match self.query.placement {
            Placement::At { col, row } => Some((col, row)),
            Placement::Edge { .. } | Placement::Anywhere => None,
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
            .iter()
            .map(|((cell, color), tally)| Continuation {
                mv: name(cell),
                cell,
                color: color.letter(),
                label: None,
                tally: tally.with_rates(),
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
        let mut letters = (b'A'..=b'Z').map(char::from);
        let mut lettered: Vec<((u32, u32), char)> = Vec::new();
        for c in &mut continuations {
            c.label = match lettered.iter().find(|(cell, _)| *cell == c.cell) {
                Some(&(_, l)) => Some(l),
                None => letters.next().inspect(|&l| lettered.push((c.cell, l))),
            };
        }
        SearchAnswer {
            pattern: self.query.pattern.to_rows(),
            placement: self.query.placement,
            games_searched: self.games_searched,
            games: self.games,
            occurrences: self.occurrences,
            swapped: self.swapped,
            continuations,
            tenuki: self.tenuki.with_rates(),
            passes: self.passes.with_rates(),
            game_ends: self.game_ends,
            by_year: self
                .by_year
                .into_iter()
                .map(|(year, (games, hits))| YearCount { year, games, hits })
                .collect(),
            no_year: self.no_year,
            matches: self
                .matches
                .into_iter()
                .skip(
                    usize::try_from(self.page.offset.saturating_sub(self.first_match))
                        .unwrap_or(usize::MAX),
                )
                .collect(),
            offset: self.page.offset,
        }
    }
}

/// The continuations' tallies by cell of the query's pattern and colour: one array read per
/// hit instead of hashing its key (a dense query counts millions of them).
struct Continuations {
    width: u32,
    /// Index `2 * (row * width + column) + colour` (0 Black, 1 White), grown as cells come.
    tallies: Vec<Tally>,
}

impl Continuations {
    fn new(width: u32) -> Continuations {
        Continuations {
            width: width.max(1),
            tallies: Vec::new(),
        }
    }

    /// The index of (`cell`, `color`), a cell of a pattern `width` wide.
    fn slot(width: u32, ((x, y), color): ((u32, u32), Color)) -> usize {
        2 * (y as usize * width.max(1) as usize + x as usize) + usize::from(color == Color::White)
    }

    /// The tally of (`cell`, `color`), a cell of the pattern.
    fn get(&mut self, key: ((u32, u32), Color)) -> &mut Tally {
        self.at(Continuations::slot(self.width, key))
    }

    /// The tally at index `i` ([`Continuations::slot`]).
    fn at(&mut self, i: usize) -> &mut Tally {
        if i >= self.tallies.len() {
            self.tallies.resize(i + 1, Tally::default());
        }
        &mut self.tallies[i]
    }

    /// Every continuation played at least once.
    fn iter(&self) -> impl Iterator<Item = (((u32, u32), Color), &Tally)> + '_ {
        let w = self.width as usize;
        self.tallies
            .iter()
            .enumerate()
            .filter(|(_, t)| t.count > 0)
            .map(move |(i, t)| {
                let color = if i % 2 == 0 {
                    Color::Black
                } else {
                    Color::White
                };
                ((((i / 2 % w) as u32, (i / 2 / w) as u32), color), t)
            })
    }
}

/// One occurrence: a hit and the move that followed it (`None`: the line ended).
#[derive(Debug)]
pub(crate) struct Event {
    /// The first element of the stabilizer under which the game played the sequence.
    frame: usize,
    variant: usize,
    place: (u32, u32),
    move_number: u32,
    in_variation: bool,
    next: Option<(Color, Move)>,
}

/// Of the hits of a move sequence, each variant standing on a rectangle followed it in its own
/// frame: keeps, of those of one rectangle at one node that played it out at one node, the
/// first variant's, so a rectangle is one hit as without a sequence, and a game that plays
/// the sequence under any image that stands there has it. (On one line two images play a
/// sequence out together or not at all: a move inside the rectangle that is not the next
/// one of an image's sequence ends it, so both take every move at the same nodes.)
fn one_a_rectangle(events: &mut Vec<(EventKey, Event)>, variants: &[Variant]) {
    let rectangle =
        |key: &EventKey, e: &Event| (key.0, key.2, variants[e.variant].rectangle(e.place));
    let mut first = HashMap::new();
    for (key, e) in events.iter() {
        let v = first.entry(rectangle(key, e)).or_insert(e.variant);
        *v = (*v).min(e.variant);
    }
    events.retain(|(key, e)| first[&rectangle(key, e)] == e.variant);
}

/// Counting placements with a sequence, each placement (variant and place) is counted once, at
/// the first node where it stood and the sequence followed: keeps the first of its hits (in
/// the order of the events' keys, the node where it stood first). A placement that stood
/// earlier without the sequence does not hide a later one with it: a wildcard finds every
/// game its cases find, as without a sequence.
fn first_placements(events: &mut Vec<(EventKey, Event)>) {
    let mut counted = HashSet::new();
    events.retain(|(_, e)| counted.insert((e.variant, e.place)));
}

/// The variants standing on `position` and their places, among those that want its side to
/// move (`to_play`) when the query wants one (`wanted`): a variant with the colours swapped may
/// stand where an unswapped one of the same cells does, wanting the other side. With
/// `one_a_rectangle`, each rectangle once, under the first variant that stands on it (a
/// position is one hit however many variants stand there); else every variant that stands,
/// for a move sequence, which each follows in its own frame ([`Scan::end_game`] keeps one a
/// rectangle then).
fn find(
    variants: &[Variant],
    position: &Position,
    (wanted, to_play): (Option<Color>, Color),
    one_a_rectangle: bool,
) -> Vec<(usize, (u32, u32))> {
    let n = position.size().get() as usize;
    // One copy of the board as rows (`#`, `O`, `.`) makes every test an array read.
    let mut rows = [0u8; 25 * 25];
    let rows = &mut rows[..n * n];
    position.write_rows(rows);
    let mut out: Vec<(usize, (u32, u32))> = Vec::new();
    for (vi, v) in variants.iter().enumerate() {
        if !v.wants_to_play(wanted, to_play) {
            continue;
        }
        for &place in &v.places {
            let base = place.1 as usize * n + place.0 as usize;
            let stands = v.checks.iter().all(|&(x, y, c)| {
                let stone = match rows[base + y as usize * n + x as usize] {
                    b'#' => Some(Color::Black),
                    b'O' => Some(Color::White),
                    _ => None,
                };
                c.matches(stone)
            });
            if stands
                && !(one_a_rectangle
                    && out
                        .iter()
                        .any(|&(oi, op)| variants[oi].rectangle(op) == v.rectangle(place)))
            {
                out.push((vi, place));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
