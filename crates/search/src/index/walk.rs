//! The indexed search of one game: the bitmaps keep the places where a variant's stones were
//! all held at some time (the candidates), then the packed nodes are replayed and only the
//! candidates whose rectangle holds a changed point are updated, each keeping a count of its
//! cells that do not match the board (it stands where the count is 0). What a hit then becomes
//! (continuation, tenuki, sequence, placements) is the plain scan's own walk, kept step for step
//! as in [`crate::scan`] so both give the same answer.

use super::entry::ColdView;
use super::format::NodeReader;
use super::{row_word, time_byte, GameEntry};
use crate::query::{Counting, Variant};
use crate::scan::{Event, EventKey, GameSource, Outside, Pending, Scan, SizeVariants};
use kifu_go::{BoardSize, Color, Move, Point};

/// A variant as the index tests it.
#[derive(Debug)]
struct VariantPlan {
    /// Constraining cells: column, row in the rectangle, and the states (bit 0 empty, 1 black,
    /// 2 white) that do not match.
    cells: Vec<(u8, u8, u8)>,
    /// Cells that need a black stone, then a white one.
    blacks: Vec<(u8, u8)>,
    whites: Vec<(u8, u8)>,
    /// The rows where its top-left may be, each with its places (bit `c`: place (c, row)).
    allowed: Vec<(usize, u32)>,
    /// The cells that mismatch the empty board.
    empty_mismatches: u16,
    /// The rectangle's width (its height is the number of `rows`).
    width: u32,
    /// Per row of the rectangle, bits of its cells by column: must be empty, black, white,
    /// empty or black, empty or white.
    rows: Vec<[u32; 5]>,
}

/// A query's variants on one board size, ready for the index.
#[derive(Debug)]
pub(crate) struct Plan {
    variants: Vec<VariantPlan>,
    /// Every variant at each of its places, as candidates (variant, (column, row)), in
    /// [`Plan::places`]' order.
    placed: Vec<(u32, (u32, u32))>,
    /// Whether two variants of the same rectangle may stand on one place at once (some
    /// board matches both: wildcards), so that a place's hits must be told apart from its
    /// candidates' ([`Workspace::standing_now`]).
    overlap: bool,
}

/// Whether some board area matches both `a` and `b` (rectangles of the same size whose
/// cells all allow a common state).
fn can_both_stand(a: &Variant, b: &Variant) -> bool {
    let (w, h) = (a.pattern.width(), a.pattern.height());
    if (w, h) != (b.pattern.width(), b.pattern.height()) {
        return false;
    }
    let states = |v: &Variant| {
        let mut grid = vec![0b111u8; (w * h) as usize];
        for &(x, y, c) in &v.checks {
            let mut allowed = 0u8;
            for (s, stone) in [None, Some(Color::Black), Some(Color::White)]
                .into_iter()
                .enumerate()
            {
                allowed |= u8::from(c.matches(stone)) << s;
            }
            grid[(y * w + x) as usize] &= allowed;
        }
        grid
    };
    states(a).iter().zip(states(b)).all(|(x, y)| x & y != 0)
}

impl Plan {
    /// The plan of `variants` on an `n` x `n` board.
    pub(crate) fn new(variants: &[Variant], n: usize) -> Plan {
        let source = variants;
        let variants = variants
            .iter()
            .map(|v| {
                let cells: Vec<(u8, u8, u8)> = v
                    .checks
                    .iter()
                    .map(|&(x, y, c)| {
                        let mut m = 0u8;
                        for (s, stone) in [None, Some(Color::Black), Some(Color::White)]
                            .into_iter()
                            .enumerate()
                        {
                            if !c.matches(stone) {
                                m |= 1 << s;
                            }
                        }
                        (x as u8, y as u8, m)
                    })
                    .collect();
                let only = |bit: u8| -> Vec<(u8, u8)> {
                    cells
                        .iter()
                        .filter(|c| c.2 == 0b111 & !bit)
                        .map(|c| (c.0, c.1))
                        .collect()
                };
                let mut rows_allowed = vec![0u32; n];
                for &(c, r) in &v.places {
                    rows_allowed[r as usize] |= 1 << c;
                }
                let allowed: Vec<(usize, u32)> = rows_allowed
                    .into_iter()
                    .enumerate()
                    .filter(|&(_, m)| m != 0)
                    .collect();
                let mut rows = vec![[0u32; 5]; v.pattern.height() as usize];
                for &(x, y, m) in &cells {
                    let kind = match m {
                        0b110 => 0,
                        0b101 => 1,
                        0b011 => 2,
                        0b100 => 3,
                        0b010 => 4,
                        _ => continue,
                    };
                    rows[usize::from(y)][kind] |= 1 << x;
                }
                VariantPlan {
                    width: v.pattern.width(),
                    rows,
                    blacks: only(0b010),
                    whites: only(0b100),
                    empty_mismatches: cells.iter().filter(|c| c.2 & 1 != 0).count() as u16,
                    cells,
                    allowed,
                }
            })
            .collect();
        let overlap = (0..source.len())
            .any(|a| (a + 1..source.len()).any(|b| can_both_stand(&source[a], &source[b])));
        let mut plan = Plan {
            variants,
            placed: Vec::new(),
            overlap,
        };
        plan.placed = plan
            .variants
            .iter()
            .enumerate()
            .flat_map(|(vi, v)| {
                v.allowed.iter().flat_map(move |&(row, mask)| {
                    super::columns::ones(&[u64::from(mask)])
                        .map(move |col| (vi as u32, (col as u32, row as u32)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        plan
    }
}

/// A variant at one place: its black stones, its white stones (cells of the rectangle), and
/// the place's column and row.
pub(crate) type PlacedStones<'a> = (&'a [(u8, u8)], &'a [(u8, u8)], usize, usize);

impl Plan {
    /// Each variant at each of its places: its black stones, its white stones (cells of the
    /// rectangle), and the place's column and row.
    pub(crate) fn places(&self) -> impl Iterator<Item = PlacedStones<'_>> {
        // `placed` lists them in this order: the numbers the columns give are its indices.
        self.placed.iter().map(|&(vi, (col, row))| {
            let v = &self.variants[vi as usize];
            (&v.blacks[..], &v.whites[..], col as usize, row as usize)
        })
    }
}

/// Buffers reused from game to game.
#[derive(Debug, Default)]
pub(crate) struct Workspace {
    /// Candidates: variant and place, in the plain search's order.
    cands: Vec<(u32, (u32, u32))>,
    /// Per candidate, its cells that do not match the board: its stones only until they are
    /// all there once (then it is active: every cell is watched from then on).
    counters: Vec<u16>,
    active: Vec<bool>,
    /// Candidates that stand now (bits).
    standing: Vec<u64>,
    /// For each point, the candidates watching it and the states that mismatch their cell.
    lists: Vec<Vec<(u32, u8)>>,
    /// Points with watchers (to clear after the game).
    touched: Vec<u16>,
    activate: Vec<u32>,
    board: Vec<u8>,
    undo: Vec<(u16, u8)>,
    path: Vec<(u32, usize)>,
    changes: Vec<(u16, u8)>,
    seen: Vec<bool>,
    numbers: Vec<u32>,
    carried: Vec<(usize, Pending, bool)>,
    waiting: Vec<(usize, Pending, bool)>,
    events: Vec<(EventKey, Event)>,
    found: Vec<(usize, usize, (u32, u32))>,
    /// Candidates whose variant swaps the colours (bits), and the hits of the last node
    /// (bits), for [`walk_counted`].
    swapped: Vec<u64>,
    hits: Vec<u64>,
    /// With few candidates, no watchers: the board is also kept as rows of bits (Black, then
    /// White) and a change tests again the candidates whose rectangle holds it, each on whole
    /// rows ([`Workspace::test_rows`]). Registering a candidate's watchers when its stones
    /// arrive (every cell of a 7x7 corner) cost more than these tests.
    direct: bool,
    rows: Vec<u32>,
    /// Each candidate's rectangle: first column, first row, past the last column and row.
    rects: Vec<[u8; 4]>,
}

/// Candidates up to which a game is walked without watchers ([`Workspace::direct`]), for
/// patterns of at least `DIRECT_CELLS` cells that are not wildcards (the watchers of a 3x3
/// are cheap, and its games are walked to the end, where every change would test every
/// rectangle: 17% more instructions for a 3x3 anywhere, 12% fewer for a sparse 7x7 corner).
const DIRECT_MAX: usize = 24;
const DIRECT_CELLS: usize = 20;

impl Workspace {
    /// The candidates of `g` for `plan` (false: none, the game cannot match).
    fn candidates(&mut self, plan: &Plan, g: &GameEntry, variations: bool) -> bool {
        self.cands.clear();
        let (black, white) = g.bitmaps(variations);
        let n = usize::from(g.side);
        if black.len() != n || white.len() != n {
            return false;
        }
        for (vi, v) in plan.variants.iter().enumerate() {
            for &(r, allowed) in &v.allowed {
                let mut m = allowed;
                for &(x, y) in &v.blacks {
                    m &= black.get(r + usize::from(y)).copied().unwrap_or(0) >> x;
                }
                for &(x, y) in &v.whites {
                    m &= white.get(r + usize::from(y)).copied().unwrap_or(0) >> x;
                }
                while m != 0 {
                    let c = m.trailing_zeros();
                    m &= m - 1;
                    self.cands.push((vi as u32, (c, r as u32)));
                }
            }
        }
        !self.cands.is_empty()
    }

    /// The candidates of `g` at `places` (numbers in [`Plan::places`]' order, which the
    /// columns found: the same as [`Workspace::candidates`] would, without reading the game).
    fn candidates_at(&mut self, plan: &Plan, g: &GameEntry, places: &[u16]) -> bool {
        self.cands.clear();
        if g.bitmaps(false).0.len() != usize::from(g.side) {
            return false;
        }
        self.cands.extend(
            places
                .iter()
                .filter_map(|&k| plan.placed.get(usize::from(k))),
        );
        !self.cands.is_empty()
    }

    /// Sets up the watchers and counters of the candidates on the empty board (or, with few
    /// candidates, their rectangles).
    fn prepare(&mut self, plan: &Plan, g: &GameEntry) {
        let n = usize::from(g.side);
        let points = n * n;
        if self.lists.len() < points {
            self.lists.resize_with(points, Vec::new);
        }
        self.board.clear();
        self.board.resize(points, 0);
        self.undo.clear();
        self.path.clear();
        self.seen.clear();
        self.seen.resize(self.cands.len(), false);
        self.counters.clear();
        self.active.clear();
        self.active.resize(self.cands.len(), false);
        self.standing.clear();
        self.standing.resize(self.cands.len().div_ceil(64), 0);
        self.direct = self.cands.len() <= DIRECT_MAX
            && plan
                .variants
                .first()
                .is_some_and(|v| v.cells.len() >= DIRECT_CELLS);
        if self.direct {
            self.rows.clear();
            self.rows.resize(2 * n, 0);
            self.rects.clear();
            for k in 0..self.cands.len() {
                let (vi, (c, r)) = self.cands[k];
                let v = &plan.variants[vi as usize];
                let (w, h) = (v.width, v.rows.len() as u32);
                self.rects
                    .push([c as u8, r as u8, (c + w) as u8, (r + h) as u8]);
                self.test_rows(plan, n, k);
            }
            return;
        }
        for k in 0..self.cands.len() {
            let (vi, (c, r)) = self.cands[k];
            let v = &plan.variants[vi as usize];
            let stones = usize::from(v.empty_mismatches);
            for &(x, y, m) in &v.cells[..stones] {
                let p = (r as usize + usize::from(y)) * n + c as usize + usize::from(x);
                if self.lists[p].is_empty() {
                    self.touched.push(p as u16);
                }
                self.lists[p].push((k as u32, m));
            }
            self.counters.push(stones as u16);
            if stones == 0 {
                self.activate_one(plan, n, k);
            }
        }
    }

    /// Whether candidate `k` stands on the board's rows, put in its standing bit.
    fn test_rows(&mut self, plan: &Plan, n: usize, k: usize) {
        let (vi, (c, r)) = self.cands[k];
        let (c, r) = (c as usize, r as usize);
        let v = &plan.variants[vi as usize];
        let stands = v.rows.iter().enumerate().all(|(y, masks)| {
            let (b, w) = (self.rows[r + y] >> c, self.rows[n + r + y] >> c);
            ((b | w) & masks[0])
                | (!b & masks[1])
                | (!w & masks[2])
                | (w & masks[3])
                | (b & masks[4])
                == 0
        });
        let bit = 1u64 << (k % 64);
        if stands {
            self.standing[k / 64] |= bit;
        } else {
            self.standing[k / 64] &= !bit;
        }
    }

    /// Along the main line, leaves out the candidates that cannot stand at any node: those
    /// whose last stone comes (`first`) no earlier than the final board contradicts one of
    /// their cells for good (`last`); returns the last node at which one may stand.
    fn prune(&mut self, plan: &Plan, g: &GameEntry, cold: ColdView<'_>) -> u32 {
        let n = usize::from(g.side);
        let Some((fin, times)) = cold.times else {
            return u32::MAX;
        };
        let mut bound = 0u32;
        self.cands.retain(|&(vi, (c, r))| {
            let (c, r) = (c as usize, r as usize);
            let v = &plan.variants[vi as usize];
            let mut born = 0u32;
            for &(x, y) in v.blacks.iter().chain(&v.whites) {
                let p = (r + usize::from(y)) * n + c + usize::from(x);
                born = born.max(time_byte(times, p));
            }
            let mut dead = u32::MAX;
            for (y, masks) in v.rows.iter().enumerate() {
                let row = r + y;
                let (b, w) = (row_word(fin, row) >> c, row_word(fin, n + row) >> c);
                let mut wrong = ((b | w) & masks[0])
                    | (!b & masks[1])
                    | (!w & masks[2])
                    | (w & masks[3])
                    | (b & masks[4]);
                while wrong != 0 && dead > born {
                    let x = wrong.trailing_zeros() as usize;
                    wrong &= wrong - 1;
                    dead = dead.min(time_byte(times, n * n + row * n + c + x));
                }
                if dead <= born {
                    return false;
                }
            }
            bound = bound.max(dead);
            true
        });
        // Back from units of `1 << shift` nodes (last changes were rounded up).
        if bound == u32::MAX {
            bound
        } else {
            bound << g.shift
        }
    }

    /// Clears the watchers after a game.
    fn finish(&mut self) {
        for &p in &self.touched {
            self.lists[usize::from(p)].clear();
        }
        self.touched.clear();
    }

    /// Candidate `k` has all its stones: its other cells are watched from now on.
    fn activate_one(&mut self, plan: &Plan, n: usize, k: usize) {
        let (vi, (c, r)) = self.cands[k];
        let v = &plan.variants[vi as usize];
        self.active[k] = true;
        let mut mismatches = 0u16;
        for &(x, y, m) in &v.cells[usize::from(v.empty_mismatches)..] {
            let p = (r as usize + usize::from(y)) * n + c as usize + usize::from(x);
            if self.lists[p].is_empty() {
                self.touched.push(p as u16);
            }
            self.lists[p].push((k as u32, m));
            mismatches += u16::from((m >> self.board[p]) & 1);
        }
        self.counters[k] += mismatches;
        if self.counters[k] == 0 {
            self.standing[k / 64] |= 1 << (k % 64);
        }
    }

    /// Puts state `s` on point `p`, keeping the counters.
    fn set(&mut self, plan: &Plan, n: usize, p: usize, s: u8) {
        let old = self.board[p];
        if old == s {
            return;
        }
        self.board[p] = s;
        if self.direct {
            let (x, y) = ((p % n) as u8, (p / n) as u8);
            let bit = 1u32 << x;
            for (state, at) in [(1, usize::from(y)), (2, n + usize::from(y))] {
                if s == state {
                    self.rows[at] |= bit;
                } else {
                    self.rows[at] &= !bit;
                }
            }
            for k in 0..self.rects.len() {
                let [c0, r0, c1, r1] = self.rects[k];
                if (c0..c1).contains(&x) && (r0..r1).contains(&y) {
                    self.test_rows(plan, n, k);
                }
            }
            return;
        }
        let Workspace {
            lists,
            counters,
            active,
            standing,
            activate,
            ..
        } = self;
        for &(k, m) in &lists[p] {
            let before = (m >> old) & 1;
            let after = (m >> s) & 1;
            if before == after {
                continue;
            }
            let k = k as usize;
            let c = &mut counters[k];
            if after == 1 {
                if *c == 0 {
                    standing[k / 64] &= !(1 << (k % 64));
                }
                *c += 1;
            } else {
                *c -= 1;
                if *c == 0 {
                    if active[k] {
                        standing[k / 64] |= 1 << (k % 64);
                    } else {
                        activate.push(k as u32);
                    }
                }
            }
        }
        while let Some(k) = self.activate.pop() {
            self.activate_one(plan, n, k as usize);
        }
    }

    /// Every (variant, place) standing now, each rectangle once (the first variant), as the
    /// plain search's `find` lists them.
    fn standing_now(&mut self, variants: &[Variant]) {
        let out = &mut self.found;
        out.clear();
        for (wi, &word) in self.standing.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let k = wi * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let (vi, place) = self.cands[k];
                let (vi, w, h) = (
                    vi as usize,
                    variants[vi as usize].pattern.width(),
                    variants[vi as usize].pattern.height(),
                );
                if !out.iter().any(|&(_, oi, op)| {
                    op == place
                        && variants[oi].pattern.width() == w
                        && variants[oi].pattern.height() == h
                }) {
                    out.push((k, vi, place));
                }
            }
        }
    }
}

/// Searches game `g` for `scan`'s query, with the plans of its board sizes.
pub(crate) fn search_game(
    scan: &mut Scan<'_>,
    ws: &mut Workspace,
    plans: &[(BoardSize, SizeVariants, Plan)],
    g: &GameEntry,
    cold: ColdView<'_>,
    file: &str,
    places: Option<&[u16]>,
) {
    // The caller counts the games searched; the variants are the ones prepared for every game
    // of this size (no lookup, no reference count touched per game).
    if g.side != g.info.size || !scan.accepts(&g.info) {
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
    let found = match places {
        Some(places) => ws.candidates_at(plan, g, places),
        None => ws.candidates(plan, g, query.variations),
    };
    if !found {
        return;
    }
    // The first and last changes are the main line's: a walk into variations goes to the end.
    let bound = if query.variations && g.all {
        u32::MAX
    } else {
        ws.prune(plan, g, cold)
    };
    if ws.cands.is_empty() {
        return;
    }
    ws.prepare(plan, g);
    if !scan.keeps_matches()
        && query.counting != Counting::Placements
        && query.sequence.is_empty()
        && !plan.overlap
        && !(query.variations && g.all)
    {
        let hits = walk_counted(ws, plan, query, shared, cold, size, bound, scan, &g.info);
        ws.finish();
        if hits > 0 {
            scan.count_game(&g.info, hits);
        }
        return;
    }
    let mut events = walk(ws, plan, query, shared, cold, size, bound);
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
    scan.end_game(&source, &g.info, size, shared, &mut events);
    ws.events = events;
}

/// The walk of a game whose hits are counted, not listed: the page is full, the query has no
/// sequence and counts every position, no two of its variants can stand on one rectangle, and
/// the game is one line as the query reads it (each node the child of the one before). Then
/// a node's hits are its standing candidates (the to-play filter applied), kept as bits until
/// the next node says what followed them: a move inside a hit's rectangle is counted for that
/// hit, and the others are counted at once as tenuki, passes or the game's end. This gives
/// the counts of [`walk`] and [`Scan::end_game`] without a `Pending`, an event and a sort
/// per hit. Returns the hits counted.
#[allow(clippy::too_many_arguments)]
fn walk_counted(
    ws: &mut Workspace,
    plan: &Plan,
    query: &crate::query::Query,
    shared: &SizeVariants,
    cold: ColdView<'_>,
    size: BoardSize,
    bound: u32,
    scan: &mut Scan<'_>,
    info: &crate::filter::GameInfo,
) -> u64 {
    let variants = &shared.0;
    let winner = info.winner();
    let n = usize::from(size.get());
    let last_move = query.moves.map_or(u32::MAX, |m| m.1);
    let words = ws.standing.len();
    ws.swapped.clear();
    ws.swapped.resize(words, 0);
    for (k, &(vi, _)) in ws.cands.iter().enumerate() {
        if variants[vi as usize].swapped {
            ws.swapped[k / 64] |= 1 << (k % 64);
        }
    }
    ws.hits.clear();
    ws.hits.resize(words, 0);
    // The last node's hits, of variants in the query's colours and with colours swapped.
    let (mut plain, mut swapped) = (0u64, 0u64);
    let mut counted = 0u64;
    let mut numbers = std::mem::take(&mut ws.numbers);
    let mut changes = std::mem::take(&mut ws.changes);
    let (count, nodes) = cold.nodes().unwrap_or((0, &[]));
    let mut reader = NodeReader::new(nodes, count, (n * n) as u16, &mut numbers);
    let mut index = 0u32;
    // Checked when the index was opened: a damaged node ends the game where it is.
    while let Ok(Some(node)) = reader.next(&mut changes) {
        let node_index = index;
        index += 1;
        if node.in_variation && !query.variations {
            break;
        }
        let waiting = plain + swapped > 0;
        if !query.variations && (node_index > bound || node.move_number > last_move) && !waiting {
            break;
        }
        for &(p, s) in &changes {
            ws.set(plan, n, usize::from(p), s);
        }
        if waiting {
            match node.mv {
                // Hits are found again at a child without a move (setup after a move).
                None => {}
                Some((_, None)) => {
                    scan.count_outside(Outside::Pass, plain, swapped, winner);
                    counted += plain + swapped;
                }
                Some((color, Some(p))) => {
                    let (col, row) = (u32::from(p) % n as u32, u32::from(p) / n as u32);
                    let mv = match Point::from_index(usize::from(p), size) {
                        Some(p) => Move::Play(p),
                        None => Move::Pass,
                    };
                    counted += plain + swapped;
                    for (wi, &word) in ws.hits.iter().enumerate() {
                        let mut bits = word;
                        while bits != 0 {
                            let k = wi * 64 + bits.trailing_zeros() as usize;
                            bits &= bits - 1;
                            let (vi, place) = ws.cands[k];
                            let v = &variants[vi as usize];
                            if v.query_cell(place, col, row).is_some() {
                                scan.count_inside(v, place, shared, winner, (color, mv));
                                if v.swapped {
                                    swapped -= 1;
                                } else {
                                    plain -= 1;
                                }
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
        // A variant's side to play is the node's in its colours: swapped variants want the
        // other side.
        let want_swapped = query.to_play.map(|tp| node.to_play != tp);
        for wi in 0..words {
            let mut h = ws.standing[wi];
            match want_swapped {
                Some(true) => h &= ws.swapped[wi],
                Some(false) => h &= !ws.swapped[wi],
                None => {}
            }
            ws.hits[wi] = h;
            let s = (h & ws.swapped[wi]).count_ones();
            swapped += u64::from(s);
            plain += u64::from(h.count_ones() - s);
        }
    }
    if plain + swapped > 0 {
        scan.count_outside(Outside::End, plain, swapped, winner);
        counted += plain + swapped;
    }
    ws.changes = changes;
    ws.numbers = numbers;
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
fn walk(
    ws: &mut Workspace,
    plan: &Plan,
    query: &crate::query::Query,
    shared: &SizeVariants,
    cold: ColdView<'_>,
    size: BoardSize,
    bound: u32,
) -> Vec<(EventKey, Event)> {
    let (variants, stabilizer) = (&shared.0, &shared.1);
    let n = usize::from(size.get());
    let sequence = &query.sequence;
    let placements = query.counting == Counting::Placements;
    // Counting placements, each place counts once: when all have, only waiting hits matter.
    let mut unseen = ws.cands.len();
    let last_move = query.moves.map_or(u32::MAX, |m| m.1);
    let mut waiting = Waiting(std::mem::take(&mut ws.waiting));
    waiting.0.clear();
    let mut events = std::mem::take(&mut ws.events);
    events.clear();
    let mut numbers = std::mem::take(&mut ws.numbers);
    let (count, nodes) = cold.nodes().unwrap_or((0, &[]));
    let mut reader = NodeReader::new(nodes, count, (n * n) as u16, &mut numbers);
    let mut changes = std::mem::take(&mut ws.changes);
    let mut index = 0u32;
    // Checked when the index was opened: a damaged node ends the game where it is.
    while let Ok(Some(node)) = reader.next(&mut changes) {
        let node_index = index as usize;
        index += 1;
        if node.in_variation && !query.variations {
            // The main line comes first in pre-order: the rest are variations.
            break;
        }
        if !query.variations
            && (node_index as u64 > u64::from(bound)
                || node.move_number > last_move
                || (placements && unseen == 0))
            && !waiting.is_waiting(node_index.wrapping_sub(1))
        {
            // Along the main line no place stands from here on and no hit waits for a move.
            break;
        }
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
        for &(p, s) in &changes {
            let p = usize::from(p);
            ws.undo.push((p as u16, ws.board[p]));
            ws.set(plan, n, p, s);
        }
        ws.path.push((node_index as u32, mark));
        let mv = || {
            node.mv.map(|(c, p)| {
                let m = match p.and_then(|p| Point::from_index(usize::from(p), size)) {
                    Some(p) => Move::Play(p),
                    None => Move::Pass,
                };
                (c, m)
            })
        };
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
        ws.standing_now(variants);
        if ws.found.is_empty() {
            continue;
        }
        let mut here = 0;
        for &(k, vi, place) in &ws.found {
            if placements {
                if ws.seen[k] {
                    continue;
                }
                ws.seen[k] = true;
                unseen -= 1;
            }
            if let Some(tp) = query.to_play {
                if variants[vi].query_color(node.to_play) != tp {
                    continue;
                }
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
    ws.changes = changes;
    ws.numbers = numbers;
    for &(_, w, had_child) in &waiting.0 {
        if !had_child && w.seq == sequence.len() {
            events.push(((w.origin.0, w.origin.1, usize::MAX), w.event(None)));
        }
    }
    ws.waiting = waiting.0;
    events
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::Pattern;
    use crate::query::{Placement, Query};

    fn overlap(rows: &str) -> bool {
        let q = Query::new(Pattern::parse(rows).unwrap(), Placement::Anywhere);
        let size = BoardSize::new(9).unwrap();
        Plan::new(&q.variants(size), 9).overlap
    }

    /// Only wildcards let two images of a pattern stand on one rectangle, and only when no
    /// cell of one forbids what the other's asks there.
    #[test]
    fn two_images_stand_on_one_rectangle_only_through_wildcards() {
        // Its images differ where one has a stone and the other none.
        assert!(!overlap("#.\n.."));
        assert!(!overlap("#O.\n.#."));
        // `*` (any) beside a stone: the images `#*` and `*#` both match `##`.
        assert!(overlap("#*"));
        // Empty or black against black: `#x` and `x#` both match `##`.
        assert!(overlap("#x"));
        // Empty or white against black: `#o` and `o#` disagree on both cells.
        assert!(!overlap("#o"));
    }
}
