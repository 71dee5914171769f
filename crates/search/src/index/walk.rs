//! The indexed search of one game: the bitmaps keep the places where a variant's stones were
//! all held at some time (the candidates), then the packed nodes are replayed and only the
//! candidates whose rectangle holds a changed point are updated, each keeping a count of its
//! cells that do not match the board (it stands where the count is 0). What a hit then becomes
//! (continuation, tenuki, sequence, placements) is the plain scan's own walk, kept step for step
//! as in [`crate::scan`] so both give the same answer.

use super::format::NodeReader;
use super::GameEntry;
use crate::query::{Counting, Variant};
use crate::scan::{Event, EventKey, GameSource, Pending, Scan, SizeVariants};
use kifu_go::{BoardSize, Color, Move, Point};
use std::collections::{HashMap, HashSet};

/// A variant as the index tests it.
#[derive(Debug)]
struct VariantPlan {
    /// Constraining cells: column, row in the rectangle, and the states (bit 0 empty, 1 black,
    /// 2 white) that do not match.
    cells: Vec<(u8, u8, u8)>,
    /// Cells that need a black stone, then a white one.
    blacks: Vec<(u8, u8)>,
    whites: Vec<(u8, u8)>,
    /// Rows of the places its top-left may take (bit `c` of row `r`: place (c, r)).
    allowed: Vec<u32>,
    /// The cells that mismatch the empty board.
    empty_mismatches: u16,
}

/// A query's variants on one board size, ready for the index.
#[derive(Debug)]
pub(crate) struct Plan {
    variants: Vec<VariantPlan>,
}

impl Plan {
    /// The plan of `variants` on an `n` x `n` board.
    pub(crate) fn new(variants: &[Variant], n: usize) -> Plan {
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
                let mut allowed = vec![0u32; n];
                for &(c, r) in &v.places {
                    allowed[r as usize] |= 1 << c;
                }
                VariantPlan {
                    blacks: only(0b010),
                    whites: only(0b100),
                    empty_mismatches: cells.iter().filter(|c| c.2 & 1 != 0).count() as u16,
                    cells,
                    allowed,
                }
            })
            .collect();
        Plan { variants }
    }
}

/// Buffers reused from game to game.
#[derive(Debug, Default)]
pub(crate) struct Workspace {
    /// Candidates: variant and place, in the plain search's order.
    cands: Vec<(u32, (u32, u32))>,
    counters: Vec<u16>,
    /// Candidates that stand now (bits).
    standing: Vec<u64>,
    /// For each point, its watchers: `starts[p]..starts[p + 1]` in `watch`.
    starts: Vec<u32>,
    watch: Vec<(u32, u8)>,
    board: Vec<u8>,
    undo: Vec<(u16, u8)>,
    path: Vec<(u32, usize)>,
    changes: Vec<(u16, u8)>,
}

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
            for (r, &allowed) in v.allowed.iter().enumerate() {
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

    /// Sets up the watchers and counters of the candidates on the empty board.
    fn prepare(&mut self, plan: &Plan, n: usize) {
        let points = n * n;
        self.starts.clear();
        self.starts.resize(points + 1, 0);
        for &(vi, (c, r)) in &self.cands {
            for &(x, y, _) in &plan.variants[vi as usize].cells {
                let p = (r as usize + usize::from(y)) * n + c as usize + usize::from(x);
                self.starts[p + 1] += 1;
            }
        }
        for p in 0..points {
            self.starts[p + 1] += self.starts[p];
        }
        self.watch.clear();
        self.watch.resize(self.starts[points] as usize, (0, 0));
        let mut fill: Vec<u32> = self.starts[..points].to_vec();
        self.counters.clear();
        self.standing.clear();
        self.standing.resize(self.cands.len().div_ceil(64), 0);
        for (k, &(vi, (c, r))) in self.cands.iter().enumerate() {
            let v = &plan.variants[vi as usize];
            for &(x, y, m) in &v.cells {
                let p = (r as usize + usize::from(y)) * n + c as usize + usize::from(x);
                self.watch[fill[p] as usize] = (k as u32, m);
                fill[p] += 1;
            }
            self.counters.push(v.empty_mismatches);
            if v.empty_mismatches == 0 {
                self.standing[k / 64] |= 1 << (k % 64);
            }
        }
        self.board.clear();
        self.board.resize(points, 0);
        self.undo.clear();
        self.path.clear();
    }

    /// Puts state `s` on point `p`, keeping the counters.
    fn set(&mut self, p: usize, s: u8) {
        let old = self.board[p];
        if old == s {
            return;
        }
        self.board[p] = s;
        let (from, to) = (self.starts[p] as usize, self.starts[p + 1] as usize);
        for &(k, m) in &self.watch[from..to] {
            let before = (m >> old) & 1;
            let after = (m >> s) & 1;
            if before == after {
                continue;
            }
            let k = k as usize;
            let c = &mut self.counters[k];
            if after == 1 {
                if *c == 0 {
                    self.standing[k / 64] &= !(1 << (k % 64));
                }
                *c += 1;
            } else {
                *c -= 1;
                if *c == 0 {
                    self.standing[k / 64] |= 1 << (k % 64);
                }
            }
        }
    }

    /// Every (variant, place) standing now, each rectangle once (the first variant), as the
    /// plain search's `find` lists them.
    fn standing_now(&self, variants: &[Variant], out: &mut Vec<(usize, (u32, u32))>) {
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
                if !out.iter().any(|&(oi, op)| {
                    op == place
                        && variants[oi].pattern.width() == w
                        && variants[oi].pattern.height() == h
                }) {
                    out.push((vi, place));
                }
            }
        }
    }
}

/// Searches game `g` for `scan`'s query. `plans` caches the plans by board side.
pub(crate) fn search_game(
    scan: &mut Scan<'_>,
    ws: &mut Workspace,
    plans: &mut HashMap<u8, (SizeVariants, Plan)>,
    g: &GameEntry,
    file: &str,
) {
    let Some((size, shared)) = scan.begin_game(&g.info) else {
        return;
    };
    if g.side != size.get() {
        return;
    }
    let n = usize::from(g.side);
    let query = scan.query();
    let (_, plan) = plans
        .entry(g.side)
        .or_insert_with(|| (shared.clone(), Plan::new(&shared.0, n)));
    if !ws.candidates(plan, g, query.variations) {
        return;
    }
    ws.prepare(plan, n);
    let events = walk(ws, query, &shared, g, size);
    if events.is_empty() {
        return;
    }
    let source = GameSource {
        id: g.id,
        file: file.to_string(),
        game_in_file: g.game_in_file,
    };
    scan.end_game(&source, &g.info, size, &shared, events);
}

/// Replays the nodes and follows the hits: the plain scan's walk, fed by the index.
fn walk(
    ws: &mut Workspace,
    query: &crate::query::Query,
    shared: &SizeVariants,
    g: &GameEntry,
    size: BoardSize,
) -> Vec<(EventKey, Event)> {
    let (variants, stabilizer) = (&shared.0, &shared.1);
    let n = usize::from(g.side);
    let sequence = &query.sequence;
    let placements = query.counting == Counting::Placements;
    let mut seen: HashSet<(usize, (u32, u32))> = HashSet::new();
    let mut waiting: HashMap<usize, Vec<(Pending, bool)>> = HashMap::new();
    let mut events: Vec<(EventKey, Event)> = Vec::new();
    let mut found: Vec<(usize, (u32, u32))> = Vec::new();
    let mut reader = NodeReader::new(&g.nodes, g.node_count, (n * n) as u16);
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
        while let Some(&(top, mark)) = ws.path.last() {
            if Some(top) == node.parent {
                break;
            }
            ws.path.pop();
            while ws.undo.len() > mark {
                let Some((p, s)) = ws.undo.pop() else { break };
                ws.set(usize::from(p), s);
            }
        }
        let mark = ws.undo.len();
        for &(p, s) in &changes {
            let p = usize::from(p);
            ws.undo.push((p as u16, ws.board[p]));
            ws.set(p, s);
        }
        ws.path.push((node_index as u32, mark));
        let mv = node.mv.map(|(c, p)| {
            let m = match p.and_then(|p| Point::from_index(usize::from(p), size)) {
                Some(p) => Move::Play(p),
                None => Move::Pass,
            };
            (c, m)
        });
        if let Some(parent) = node.parent.map(|p| p as usize) {
            match mv {
                Some((color, pmv)) => {
                    let mut carried = Vec::new();
                    if let Some(list) = waiting.get_mut(&parent) {
                        for (w, had_child) in list.iter_mut() {
                            if w.seq == sequence.len() {
                                *had_child = true;
                                let v = &variants[w.variant];
                                if placements && !w.inside(v, pmv) {
                                    carried.push((Pending { waited: true, ..*w }, false));
                                    continue;
                                }
                                events.push((
                                    (w.origin.0, w.origin.1, node_index),
                                    w.event(Some((color, pmv))),
                                ));
                            } else if let Some(next) =
                                w.follow(&variants[w.variant], query, stabilizer, color, pmv)
                            {
                                carried.push((next, false));
                            }
                        }
                    }
                    if !carried.is_empty() {
                        waiting.entry(node_index).or_default().extend(carried);
                    }
                }
                None => {
                    if let Some(list) = waiting.remove(&parent) {
                        let (carried, fresh): (Vec<(Pending, bool)>, Vec<_>) =
                            list.into_iter().partition(|(w, _)| w.seq > 0 || w.waited);
                        for (w, _) in fresh {
                            seen.remove(&(w.variant, w.place));
                        }
                        if !carried.is_empty() {
                            waiting.entry(node_index).or_default().extend(carried);
                        }
                    }
                }
            }
        }
        if let Some((from, to)) = query.moves {
            if node.move_number < from || node.move_number > to {
                continue;
            }
        }
        ws.standing_now(variants, &mut found);
        let mut here = Vec::new();
        for &(vi, place) in &found {
            if placements && !seen.insert((vi, place)) {
                continue;
            }
            if let Some(tp) = query.to_play {
                if variants[vi].query_color(node.to_play) != tp {
                    continue;
                }
            }
            let k = here.len();
            here.push((
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
        if !here.is_empty() {
            waiting.entry(node_index).or_default().extend(here);
        }
    }
    ws.changes = changes;
    for (w, had_child) in waiting.into_values().flatten() {
        if !had_child && w.seq == sequence.len() {
            events.push(((w.origin.0, w.origin.1, usize::MAX), w.event(None)));
        }
    }
    events
}
