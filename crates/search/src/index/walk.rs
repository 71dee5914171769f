//! The indexed search of one game: the bitmaps keep the places where a variant's stones were
//! all held at some time (the candidates), then the packed nodes are replayed and only the
//! candidates whose rectangle holds a changed point are updated, each keeping a count of its
//! cells that do not match the board (it stands where the count is 0). What a hit then becomes
//! (continuation, tenuki, sequence, placements) is the plain scan's own walk, kept step for step
//! as in [`crate::scan`] so both give the same answer.

use super::columns::ones;
use super::entry::ColdView;
use super::plan::Plan;
use super::workspace::Workspace;
use super::Game;
use crate::query::Counting;
use crate::scan::{Event, EventKey, GameSource, Outside, Pending, Scan, SizeVariants};
use kifu_go::{BoardSize, Color, Move, Point};

/// Searches game `g` for `scan`'s query, with the plans of its board sizes.
pub(crate) fn search_game(
    scan: &mut Scan<'_>,
    ws: &mut Workspace,
    plans: &[(BoardSize, SizeVariants, Plan)],
    g: Game<'_>,
    cold: ColdView<'_>,
    file: &str,
    places: Option<&[u16]>,
) {
    // The caller counts the games searched; the variants are the ones prepared for every game
    // of this size (no lookup, no reference count touched per game).
    if g.side != g.size || !scan.accepts_lazily(|| g.view()) {
        return;
    }
    let Some((size, shared, plan)) = plans.iter().find(|p| p.0.get() == g.side) else {
        return;
    };
    let size = *size;
    if shared.0.is_empty() {
        return;
    }
    let query = scan.query();
    let game = (size, shared, plan, g, cold, file);
    match places {
        Some(places) => {
            if Workspace::bitmaps_fit(g) {
                search_places(scan, ws, game, Some(places));
            }
        }
        None => {
            // The dense prune reads every place of a game along its main line.
            let pruned = !(query.variations && g.all);
            if plan.dense_on && pruned && super::prune::Scratch::dense_reads(g, cold) {
                search_places(scan, ws, game, None);
                return;
            }
            let mut own = std::mem::take(&mut ws.places);
            if Workspace::places_of(plan, g, query.variations, &mut own) {
                search_places(scan, ws, game, Some(&own));
            }
            ws.places = own;
        }
    }
}

/// [`search_game`] of a game whose candidates are at `places` (numbers in [`Plan::placed`];
/// `None`: every place, read by the dense prune, [`super::dense`]): read by the prune along
/// the main line, else listed at once.
fn search_places(
    scan: &mut Scan<'_>,
    ws: &mut Workspace,
    (size, shared, plan, g, cold, file): (
        BoardSize,
        &SizeVariants,
        &Plan,
        Game<'_>,
        ColdView<'_>,
        &str,
    ),
    places: Option<&[u16]>,
) {
    let query = scan.query();
    let pruned = !(query.variations && g.all);
    if places.is_some_and(|p| p.is_empty()) {
        return;
    }
    if !pruned {
        plan.list(places.unwrap_or_default(), &mut ws.cands);
    }
    // The first and last changes are the main line's: a walk into variations goes to the end.
    let from = query.moves.map_or(0, |m| m.0);
    // Hits counted, not listed, and one line as the query reads it (two variants standing on
    // one rectangle have the hit of the first: [`Workspace::hits_now`]).
    let placements = query.counting == Counting::Placements;
    let counted = !scan.keeps_matches() && query.sequence.is_empty();
    let one_line = !query.variations || !g.all;
    // The candidates the time tables count alone ([`super::intervals::Clean`]), as the prune
    // finds them; the walk's bounds are then those of the others.
    let mut clean = super::intervals::Tallies::default();
    // (Without wildcards, two variants stand on one rectangle only when they look alike and
    // share a place, as two sides' images in their common corner: `Clean` counts such
    // variants only for wildcards.)
    let tables =
        counted && !(plan.overlap && plan.strict) && !query.variations && query.to_play.is_none();
    let exact = cold
        .times
        .filter(|t| tables && t.exact())
        .and_then(|t| Some((t, t.line?)));
    let read = (from, places);
    let (bound, start) = if !pruned {
        (u32::MAX, 0)
    } else if let Some((times, line)) = exact {
        let window = (query.moves, placements);
        let mut count = super::intervals::Clean::new(
            plan,
            shared,
            (size, line),
            window,
            g.facts.1,
            &mut ws.clean,
        );
        // Nodes as stored (the prune's own reads), or exact nodes from units of two.
        // With two variants on one rectangle, a place's candidates are counted together once
        // the prune is done; a place the tables cannot tell is walked, from the first node.
        let bounds = match times.halves() {
            Some(halves) => ws.prune_settling::<false>(
                plan,
                g,
                cold,
                read,
                &mut SettlingHalves {
                    count: &mut count,
                    scan,
                    halves,
                },
            ),
            None => ws.prune_settling::<true>(
                plan,
                g,
                cold,
                read,
                &mut Settling {
                    count: &mut count,
                    scan,
                    times,
                },
            ),
        };
        let walked = plan.overlap
            && match times.halves() {
                Some(halves) => count.settle_deferred(scan, &halves, &mut ws.cands),
                None => count.settle_deferred(scan, &times, &mut ws.cands),
            };
        let (t, counted) = count.give_back(&mut ws.clean);
        let bounds = if walked { (u32::MAX, 0) } else { bounds };
        if ws.cands.is_empty() {
            if !counted {
                return;
            }
            let hits = t.close(scan, g.facts.1);
            if hits > 0 {
                scan.count_game(g.id, g.facts.0, hits);
            }
            return;
        }
        clean = t;
        bounds
    } else {
        ws.prune(plan, g, cold, read)
    };
    if ws.cands.is_empty() {
        return;
    }
    ws.prepare(plan, g, size);
    let game = GameWalk {
        plan,
        query,
        shared,
        cold,
        size,
        bound,
        start,
    };
    if counted && one_line {
        let hits = if placements {
            super::placements::walk_placements(ws, &game, scan, g.facts.1)
                + clean.close(scan, g.facts.1)
        } else if plan.strict && !plan.overlap {
            // (Its candidates stand alone: two variants on one rectangle would each count
            // the rectangle's hits.)
            super::intervals::walk_intervals(ws, &game, scan, g.facts.1, clean)
        } else {
            walk_counted(ws, &game, scan, g.facts.1) + clean.close(scan, g.facts.1)
        };
        ws.finish();
        if hits > 0 {
            scan.count_game(g.id, g.facts.0, hits);
        }
        return;
    }
    let mut events = walk(ws, &game);
    ws.finish();
    if events.is_empty() {
        ws.events = events;
        return;
    }
    let source = GameSource {
        id: g.id,
        // Read only for the matches of the page: not copied once the page is full.
        file: if scan.keeps_matches() {
            file.to_string()
        } else {
            String::new()
        },
        game_in_file: g.game_in_file,
    };
    scan.end_game(&source, &g.info(), size, shared, &mut events);
    ws.events = events;
}

/// The settling of the candidates the prune keeps in a game whose tables are in nodes: each
/// given to [`super::intervals::Clean::settle`], those the dense prune found clean to
/// [`super::intervals::Clean::settle_clean`].
struct Settling<'c, 'q, 's, 'a> {
    count: &'c mut super::intervals::Clean<'q>,
    scan: &'c mut Scan<'s>,
    times: super::times::TimeTables<'a>,
}

impl super::prune::Settle for Settling<'_, '_, '_, '_> {
    #[inline(always)]
    fn settle(
        &mut self,
        cand: (u32, (u32, u32)),
        found: super::prune::Survivor,
        unpacked: Option<&super::times::Unpacked<'_, '_>>,
    ) -> bool {
        match unpacked {
            Some(unpacked) => self.count.settle(self.scan, unpacked, cand, Some(found)),
            None => self.count.settle(self.scan, &self.times, cand, Some(found)),
        }
    }

    fn counts_clean(&self) -> bool {
        self.count.counts_clean()
    }

    fn names_clean_only(&self) -> bool {
        self.count.names_clean_only()
    }

    #[inline(always)]
    fn settle_clean(
        &mut self,
        cand: (u32, (u32, u32)),
        arrive: u32,
        until: Option<(u32, [u8; 2], bool)>,
    ) {
        self.count
            .settle_clean(self.scan, &self.times, cand, arrive, until);
    }
}

/// The settling of a game whose tables are in units of two nodes, read in exact nodes (the
/// prune's findings, in units, are not handed on).
struct SettlingHalves<'c, 'q, 's, 't, 'a> {
    count: &'c mut super::intervals::Clean<'q>,
    scan: &'c mut Scan<'s>,
    halves: super::times::read::Halves<'t, 'a>,
}

impl super::prune::Settle for SettlingHalves<'_, '_, '_, '_, '_> {
    #[inline(always)]
    fn settle(
        &mut self,
        cand: (u32, (u32, u32)),
        _: super::prune::Survivor,
        _: Option<&super::times::Unpacked<'_, '_>>,
    ) -> bool {
        self.count.settle(self.scan, &self.halves, cand, None)
    }
}

/// What either walk of one game reads: the query's plan and variants on the game's board, its
/// cold part, the last node a candidate may stand at along the main line (`bound`), and the
/// first (`start`: before it the counted walks only keep the board, [`Workspace::resync`]).
#[derive(Clone, Copy)]
pub(super) struct GameWalk<'a> {
    pub(super) plan: &'a Plan,
    pub(super) query: &'a crate::query::Query,
    pub(super) shared: &'a SizeVariants,
    pub(super) cold: ColdView<'a>,
    pub(super) size: BoardSize,
    pub(super) bound: u32,
    pub(super) start: u32,
}

/// A node's move as the scan names it (a point off the board, which a checked record does
/// not hold, would be a pass), its point taken from `points` ([`Workspace::points`]).
pub(super) fn node_move(
    mv: Option<(Color, Option<u16>)>,
    points: &[Point],
) -> Option<(Color, Move)> {
    mv.map(|(c, p)| {
        let m = match p.and_then(|p| points.get(usize::from(p))) {
            Some(&p) => Move::Play(p),
            None => Move::Pass,
        };
        (c, m)
    })
}

/// The walk of a game whose hits are counted, not listed: the page is full, the query has no
/// sequence and counts every position, and the game is one line as the query reads it (each
/// node the child of the one before). Then a node's hits are its standing candidates (the
/// to-play filter applied, each rectangle's first: [`Workspace::hits_now`]), kept as bits until
/// the next node says what followed them: a move inside a hit's rectangle is counted for that
/// hit, and the others are counted at once as tenuki, passes or the game's end. This gives
/// the counts of [`walk`] and [`Scan::end_game`] without a `Pending`, an event and a sort
/// per hit. Returns the hits counted.
fn walk_counted(
    ws: &mut Workspace,
    game: &GameWalk<'_>,
    scan: &mut Scan<'_>,
    winner: crate::filter::Winner,
) -> u64 {
    let GameWalk {
        plan,
        query,
        shared,
        cold,
        size,
        bound,
        start,
    } = *game;
    let variants = &shared.0;
    let n = usize::from(size.get());
    let last_move = query.moves.map_or(u32::MAX, |m| m.1);
    let words = ws.standing.len();
    ws.mark_swapped(variants);
    ws.find_twins(plan);
    ws.hits.clear();
    ws.hits.resize(words, 0);
    // The last node's hits, of variants in the query's colours and with colours swapped.
    let (mut plain, mut swapped) = (0u64, 0u64);
    let mut counted = 0u64;
    let mut lent = ws.lend_nodes();
    let (mut reader, changes, points) = lent.reader(cold, n);
    let mut index = 0u32;
    // Checked when the index was opened: a damaged node ends the game where it is.
    while let Ok(Some(node)) = reader.next(changes) {
        let node_index = index;
        index += 1;
        if node.in_variation && !query.variations {
            break;
        }
        if ws.before_start(plan, n, (node_index, start), changes) {
            continue;
        }
        let waiting = plain + swapped > 0;
        if !query.variations && (node_index > bound || node.move_number > last_move) && !waiting {
            break;
        }
        for &(p, s) in changes.iter() {
            ws.set(plan, n, usize::from(p), s);
        }
        if waiting {
            match node_move(node.mv, points) {
                // Hits are found again at a child without a move (setup after a move).
                None => {}
                Some((_, Move::Pass)) => {
                    scan.count_outside(Outside::Pass, plain, swapped, winner);
                    counted += plain + swapped;
                }
                Some((color, Move::Play(p))) => {
                    let (col, row) = (u32::from(p.col()), u32::from(p.row()));
                    counted += plain + swapped;
                    for k in ones(&ws.hits) {
                        let (vi, place) = ws.cands[k];
                        let v = &variants[vi as usize];
                        if v.query_cell(place, col, row).is_some() {
                            scan.count_inside(vi as usize, place, shared, winner, (color, p));
                            if v.swapped {
                                swapped -= 1;
                            } else {
                                plain -= 1;
                            }
                        }
                    }
                    scan.count_outside(Outside::Tenuki, plain, swapped, winner);
                }
            }
            plain = 0;
            swapped = 0;
        }
        if let Some((from, to)) = query.moves {
            if node.move_number < from || node.move_number > to {
                continue;
            }
        }
        let mut hits = std::mem::take(&mut ws.hits);
        ws.hits_now(query.to_play.map(|tp| node.to_play != tp), &mut hits);
        ws.hits = hits;
        for wi in 0..words {
            let h = ws.hits[wi];
            let s = (h & ws.swapped[wi]).count_ones();
            swapped += u64::from(s);
            plain += u64::from(h.count_ones() - s);
        }
    }
    if plain + swapped > 0 {
        scan.count_outside(Outside::End, plain, swapped, winner);
        counted += plain + swapped;
    }
    ws.give_back(lent);
    counted
}

/// The hits waiting at a node for its children, in the order of their nodes (nodes come in
/// increasing order, so new ones go at the end).
#[derive(Default)]
struct Waiting(Vec<(usize, Pending, bool)>);

impl Waiting {
    /// Where the hits of `node` are.
    fn range(&self, node: usize) -> std::ops::Range<usize> {
        // Nearly always the newest node (the parent of the next one): look from the end.
        let end = if self.0.last().is_none_or(|e| e.0 <= node) {
            self.0.len()
        } else {
            self.0.partition_point(|e| e.0 <= node)
        };
        let mut start = end;
        while start > 0 && self.0[start - 1].0 == node {
            start -= 1;
        }
        start..end
    }

    fn is_waiting(&self, node: usize) -> bool {
        self.0.last().is_some_and(|e| e.0 == node)
    }
}

/// Replays the nodes and follows the hits: the plain scan's walk, fed by the index. With the
/// main line only, stops after `bound` (no candidate stands later) once no hit waits.
fn walk(ws: &mut Workspace, game: &GameWalk<'_>) -> Vec<(EventKey, Event)> {
    let GameWalk {
        plan,
        query,
        shared,
        cold,
        size,
        bound,
        ..
    } = *game;
    let (variants, stabilizer) = (&shared.0, &shared.1);
    let n = usize::from(size.get());
    let sequence = &query.sequence;
    let placements = query.counting == Counting::Placements;
    // Counting placements, each place counts once, where it first stands: when all have, only
    // waiting hits matter. With a sequence, where it first stands and the sequence follows,
    // which only the game's end tells (`Scan::end_game` keeps the first): each stands anew.
    let once = placements && sequence.is_empty();
    let mut unseen = ws.cands.len();
    let last_move = query.moves.map_or(u32::MAX, |m| m.1);
    let mut waiting = Waiting(std::mem::take(&mut ws.waiting));
    waiting.0.clear();
    let mut events = std::mem::take(&mut ws.events);
    events.clear();
    let mut lent = ws.lend_nodes();
    let (mut reader, changes, points) = lent.reader(cold, n);
    let mut index = 0u32;
    // Checked when the index was opened: a damaged node ends the game where it is.
    while let Ok(Some(node)) = reader.next(changes) {
        let node_index = index as usize;
        index += 1;
        if node.in_variation && !query.variations {
            // The main line comes first in pre-order: the rest are variations.
            break;
        }
        if !query.variations
            && (node_index as u64 > u64::from(bound)
                || node.move_number > last_move
                || (once && unseen == 0))
            && !waiting.is_waiting(node_index.wrapping_sub(1))
        {
            // Along the main line no place stands from here on and no hit waits for a move.
            break;
        }
        if query.variations {
            while let Some(&(top, mark)) = ws.path.last() {
                if Some(top) == node.parent {
                    break;
                }
                ws.path.pop();
                while ws.undo.len() > mark {
                    let Some((p, s)) = ws.undo.pop() else { break };
                    ws.set(plan, n, usize::from(p), s);
                }
            }
            let mark = ws.undo.len();
            for &(p, s) in changes.iter() {
                let p = usize::from(p);
                ws.undo.push((p as u16, ws.board[p]));
                ws.set(plan, n, p, s);
            }
            ws.path.push((node_index as u32, mark));
        } else {
            // Along the main line each node is the child of the one before (the walk ends
            // at the first variation): nothing is ever undone.
            for &(p, s) in changes.iter() {
                ws.set(plan, n, usize::from(p), s);
            }
        }
        let mv = || node_move(node.mv, points);
        if let Some(parent) = node.parent.map(|p| p as usize) {
            let range = waiting.range(parent);
            if !range.is_empty() {
                let mut carried = std::mem::take(&mut ws.carried);
                carried.clear();
                match mv() {
                    Some((color, pmv)) => {
                        for (_, w, had_child) in &mut waiting.0[range] {
                            if w.seq == sequence.len() {
                                *had_child = true;
                                let v = &variants[w.variant];
                                if placements && !w.inside(v, pmv) {
                                    carried.push((
                                        node_index,
                                        Pending { waited: true, ..*w },
                                        false,
                                    ));
                                    continue;
                                }
                                events.push((
                                    (w.origin.0, w.origin.1, node_index),
                                    w.event(Some((color, pmv))),
                                ));
                            } else if let Some(next) =
                                w.follow(&variants[w.variant], query, stabilizer, color, pmv)
                            {
                                carried.push((node_index, next, false));
                            }
                        }
                    }
                    None => {
                        // Hits in the middle of (or past) a sequence go on from the child;
                        // fresh ones are found again there.
                        for (_, w, had_child) in waiting.0.drain(range) {
                            if w.seq > 0 || w.waited {
                                carried.push((node_index, w, had_child));
                            } else if let Some(k) = ws
                                .cands
                                .iter()
                                .position(|&(vi, p)| vi as usize == w.variant && p == w.place)
                            {
                                if ws.seen[k] {
                                    ws.seen[k] = false;
                                    unseen += 1;
                                }
                            }
                        }
                    }
                }
                waiting.0.append(&mut carried);
                ws.carried = carried;
            }
        }
        if let Some((from, to)) = query.moves {
            if node.move_number < from || node.move_number > to {
                continue;
            }
        }
        ws.standing_now(
            variants,
            (query.to_play, node.to_play),
            query.sequence.is_empty(),
        );
        if ws.found.is_empty() {
            continue;
        }
        let mut here = 0;
        for &(k, vi, place) in &ws.found {
            if once {
                if ws.seen[k] {
                    continue;
                }
                ws.seen[k] = true;
                unseen -= 1;
            }
            let k = here;
            here += 1;
            waiting.0.push((
                node_index,
                Pending {
                    variant: vi,
                    place,
                    move_number: node.move_number,
                    in_variation: node.in_variation,
                    seq: 0,
                    waited: false,
                    alive: u16::MAX >> (16 - stabilizer.len().min(16)),
                    origin: (node_index, k),
                },
                false,
            ));
        }
    }
    ws.give_back(lent);
    for &(_, w, had_child) in &waiting.0 {
        if !had_child && w.seq == sequence.len() {
            events.push(((w.origin.0, w.origin.1, usize::MAX), w.event(None)));
        }
    }
    ws.waiting = waiting.0;
    events
}
