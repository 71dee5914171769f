//! The counted walk of a search that counts placements (as Kombilo does: each place and
//! orientation once per game, at the first node it stands, its continuation the next move
//! inside its rectangle however late), once the page is full: the counts of [`super::walk`]'s
//! walk and the scan's `end_game` without a `Pending`, an event or a match per hit.
//!
//! Per candidate only what placements need: whether it has stood yet (bits), and the list of
//! hits waiting for a move inside their rectangle (most are answered by the next move or
//! two). The general walk instead listed every standing candidate at every node (seen or
//! not), and carried every waiting hit from node to node as a new entry with its event:
//! about 300 of the 550 instructions a node cost for a sparse corner.

use super::columns::ones;
use super::walk::{node_move, GameWalk};
use super::workspace::Workspace;
use crate::filter::Winner;
use crate::scan::{Outside, Scan};
use kifu_go::Move;

/// The placements walk of a game that is one line as the query reads it, for a query without
/// a sequence. Returns the hits counted.
pub(super) fn walk_placements(
    ws: &mut Workspace,
    game: &GameWalk<'_>,
    scan: &mut Scan<'_>,
    winner: Winner,
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
    // (The colours a candidate's variant swaps matter only to a side to move.)
    if query.to_play.is_some() {
        ws.mark_swapped(variants);
    }
    ws.find_twins(plan);
    let plain = query.to_play.is_none() && ws.twins.is_empty();
    let mut now = std::mem::take(&mut ws.now);
    // The candidates that have stood (at a node of the move window), and those not yet.
    let mut seen = std::mem::take(&mut ws.hits);
    seen.clear();
    seen.resize(words, 0);
    let mut unseen = ws.cands.len();
    // The hits waiting for a move inside: candidate, and whether moves outside (or passes)
    // came since (a hit not yet passed over is dropped at a child without a move, which
    // stands for its parent).
    let mut waiting = std::mem::take(&mut ws.placed);
    waiting.clear();
    let mut counted = 0u64;
    let mut lent = ws.lend_nodes();
    let (mut reader, changes, points) = lent.reader(cold, n);
    let mut index = 0u32;
    // Checked when the index was opened: a damaged node ends the game where it is.
    while let Ok(Some(node)) = reader.next(changes) {
        let i = index;
        index += 1;
        if node.in_variation && !query.variations {
            // The main line comes first in pre-order: the rest are variations.
            break;
        }
        if ws.before_start(plan, n, (i, start), changes) {
            continue;
        }
        if !query.variations
            && (i > bound || node.move_number > last_move || unseen == 0)
            && waiting.is_empty()
        {
            // Along the main line no place stands from here on and no hit waits for a move.
            break;
        }
        for &(p, s) in changes.iter() {
            ws.set(plan, n, usize::from(p), s);
        }
        if !waiting.is_empty() {
            match node_move(node.mv, points) {
                Some((color, Move::Play(p))) => {
                    let (col, row) = (u32::from(p.col()), u32::from(p.row()));
                    waiting.retain_mut(|(k, waited)| {
                        let (vi, place) = ws.cands[*k as usize];
                        let v = &variants[vi as usize];
                        if v.query_cell(place, col, row).is_some() {
                            scan.count_inside(vi as usize, place, shared, winner, (color, p));
                            counted += 1;
                            false
                        } else {
                            *waited = true;
                            true
                        }
                    });
                }
                Some((_, Move::Pass)) => {
                    for (_, waited) in &mut waiting {
                        *waited = true;
                    }
                }
                None => waiting.retain(|&(k, waited)| {
                    // Found again at this node if it stands here.
                    if !waited {
                        seen[k as usize / 64] &= !(1 << (k % 64));
                        unseen += 1;
                    }
                    waited
                }),
            }
        }
        if let Some((from, to)) = query.moves {
            if node.move_number < from || node.move_number > to {
                continue;
            }
        }
        // Each place counts once, at its first hit: the first node it stands with the side
        // to move the query wants, the first of its rectangle (as the walk it replaces).
        // (Without a side to move or two candidates on one rectangle, those standing.)
        let hits = if plain {
            &ws.standing
        } else {
            ws.hits_now(query.to_play.map(|tp| node.to_play != tp), &mut now);
            &now
        };
        for (wi, (s, &hits)) in seen.iter_mut().zip(hits).enumerate() {
            let fresh = hits & !*s;
            if fresh == 0 {
                continue;
            }
            for b in ones(&[fresh]) {
                let k = wi * 64 + b;
                *s |= 1 << b;
                unseen -= 1;
                waiting.push((k as u32, false));
            }
        }
    }
    // The hits still waiting end with the game.
    let mut ends = [0u64; 2];
    for &(k, _) in &waiting {
        let (vi, _) = ws.cands[k as usize];
        ends[usize::from(variants[vi as usize].swapped)] += 1;
    }
    if ends[0] + ends[1] > 0 {
        scan.count_outside(Outside::End, ends[0], ends[1], winner);
        counted += ends[0] + ends[1];
    }
    ws.hits = seen;
    ws.now = now;
    ws.placed = waiting;
    ws.give_back(lent);
    counted
}
