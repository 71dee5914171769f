//! What the oracle tests share: seeded randomness, random queries cut from real positions,
//! the corpus's spread of files, and made-up games.

// Each test file uses its own part of these.
#![allow(dead_code)]

use kifu_go::replay::{replay_game, ReplayOptions, Scope, Step};
use kifu_go::{Board, Color, Move, Symmetry};
use kifu_search::pattern::Cell;
use kifu_search::{Counting, Database, Pattern, Placement, Query, Side};
use std::path::{Path, PathBuf};

/// The tests' only randomness, seeded.
pub use kifu_testdata::Rng;

pub const HAND_MADE: &str = "(;GM[1]SZ[19]PB[Hand]PW[Made]DT[2020-01-02]RE[W+R]\
;B[pd];W[dp];B[pq](;W[dd];B[fq];W[dn];B[qk]\
;W[];B[]AB[jj]AW[kk];B[pp]W[cc];W[qc];B[qd];W[rd];B[pc];W[rc]\
;B[qb];W[rb];B[pb];W[ra];B[sc])\
(;W[dc];B[ce];W[ed](;B[dj])(;B[qk];W[jd])))\
(;GM[1]SZ[19]HA[2]AB[pd][dp]PB[Handi]PW[Cap]RE[B+3.5]DT[1999-05]\
;W[qp];B[dd];W[oq];B[qn];W[jj];B[];W[dc];B[cc];W[ec];B[cd];W[db];B[cb];W[eb])";

/// The seeded randomness (`default` unless a seed is given) and [`corpus_spread`]'s files.
pub fn seeded_spread(dir: &Path, default: u64) -> (Rng, Vec<PathBuf>) {
    let given = given_seed();
    (Rng(given.unwrap_or(default) | 1), corpus_spread(dir, given))
}

/// A spread of the corpus's files (every k-th, about 700, so each folder is in; a seed given to
/// the test also moves where the spread starts, so other seeds search other games) with the
/// hand-made file written into `dir`.
pub fn corpus_spread(dir: &Path, given: Option<u64>) -> Vec<PathBuf> {
    let games = kifu_testdata::corpus().join("sgf/games");
    let all = kifu_testdata::sgf_files(&games);
    assert!(!all.is_empty(), "no corpus at {}", games.display());
    let hand = dir.join("hand.sgf");
    std::fs::write(&hand, HAND_MADE).unwrap();
    let step = (all.len() / 700).max(1);
    let start = given.map_or(0, |s| (s >> 1) as usize % step);
    let mut files: Vec<PathBuf> = all.iter().skip(start).step_by(step).cloned().collect();
    files.push(hand);
    files
}

/// Main-line boards of the database's games, with the moves after them.
pub fn positions(db: &Database, rng: &mut Rng, count: usize) -> Vec<(Board, Vec<(Color, Move)>)> {
    let mut out = Vec::new();
    let files = db.files().unwrap();
    let mut tries = 0;
    while out.len() < count && tries < count * 20 {
        tries += 1;
        let f = &files[rng.below(files.len() as u64) as usize];
        let Ok(coll) = f.source.read_games() else {
            continue;
        };
        let ids: Vec<usize> = (0..f.ids.len()).filter(|&i| f.ids[i].is_some()).collect();
        if ids.is_empty() {
            continue;
        }
        let Some(game) = coll.game(ids[rng.below(ids.len() as u64) as usize]) else {
            continue;
        };
        let mut boards: Vec<(Board, Option<(Color, Move)>)> = Vec::new();
        let opts = ReplayOptions {
            scope: Scope::MainLineOnly,
            ..ReplayOptions::default()
        };
        let _ = replay_game(game, &opts, |s: &Step<'_>| {
            if let (Some(pm), Some(last)) = (s.mv, boards.last_mut()) {
                last.1 = Some((pm.color, pm.mv));
            }
            boards.push((s.position.board(), None));
        });
        if boards.is_empty() {
            continue;
        }
        let at = rng.below(boards.len() as u64) as usize;
        let next: Vec<(Color, Move)> = boards[at..].iter().filter_map(|b| b.1).take(4).collect();
        out.push((boards[at].0.clone(), next));
    }
    out
}

pub fn wildcard(rng: &mut Rng, c: Cell) -> Cell {
    match rng.below(4) {
        0 => Cell::Any,
        1 if c != Cell::White => Cell::EmptyOrBlack,
        2 if c != Cell::Black => Cell::EmptyOrWhite,
        _ => c,
    }
}

/// A random query cut from `board`.
pub fn query(rng: &mut Rng, board: &Board, next: &[(Color, Move)]) -> Option<Query> {
    let n = u32::from(board.size().get());
    let kind = rng.below(10);
    let (w, h) = (1 + rng.below(7) as u32, 1 + rng.below(7) as u32);
    let (w, h) = (w.min(n), h.min(n));
    let (col, row) = match kind {
        // Corners.
        0..=3 => (
            if rng.chance(50) { 0 } else { n - w },
            if rng.chance(50) { 0 } else { n - h },
        ),
        // Sides.
        4..=6 => {
            let c = rng.below(u64::from(n - w + 1)) as u32;
            (c, if rng.chance(50) { 0 } else { n - h })
        }
        // Anywhere.
        _ => (
            rng.below(u64::from(n - w + 1)) as u32,
            rng.below(u64::from(n - h + 1)) as u32,
        ),
    };
    let mut p = Pattern::from_board(board, col, row, w, h)?;
    // Patterns that stand nearly everywhere make the oracle's answer huge and slow, and test
    // nothing more: sides and free patterns hold two stones at least, corners one.
    let stones = p.stones();
    if stones < if kind <= 3 { 1 } else { 2 } {
        return None;
    }
    if rng.chance(40) {
        let cells: Vec<Cell> = (0..h)
            .flat_map(|y| (0..w).map(move |x| (x, y)))
            .map(|(x, y)| p.cell(x, y))
            .map(|c| if rng.chance(25) { wildcard(rng, c) } else { c })
            .collect();
        p = Pattern::new(w as usize, h as usize, cells).ok()?;
    }
    let placement = if kind >= 7 {
        Placement::Anywhere
    } else if kind >= 4 && rng.chance(20) {
        Placement::Edge { side: Side::Top }
    } else {
        Placement::of_region(col, row, w, h, n)
    };
    let mut q = Query::new(p, placement);
    q.symmetries = !rng.chance(15);
    q.swap_colors = rng.chance(35);
    if rng.chance(15) {
        q.to_play = Some(if rng.chance(50) {
            Color::Black
        } else {
            Color::White
        });
    }
    if rng.chance(20) {
        let from = rng.below(120) as u32;
        q.moves = Some((from, from + rng.below(150) as u32));
    }
    q.variations = rng.chance(30);
    if rng.chance(30) {
        q.counting = Counting::Placements;
    }
    if rng.chance(20) {
        // The moves that came next, while inside the rectangle.
        for &(c, m) in next {
            let Move::Play(pt) = m else { break };
            let (x, y) = (u32::from(pt.col()), u32::from(pt.row()));
            if x < col || y < row || x >= col + w || y >= row + h {
                break;
            }
            q.sequence.push((c, (x - col, y - row)));
            if rng.chance(40) {
                break;
            }
        }
        q.allow_tenuki = rng.chance(50);
    }
    if rng.chance(10) {
        q.filters.date_from = Some(format!("{}", 1950 + rng.below(70)));
    }
    if rng.chance(5) {
        q.filters.winner = Some(kifu_search::filter::Winner::White);
    }
    // Text conditions go through the information's columns in the index.
    const NEEDLES: [&str; 8] = ["e", "A", "ko", "lee", "an", "cup", "19", "+r"];
    if rng.chance(8) {
        q.filters.player = Some(NEEDLES[rng.below(8) as usize].into());
    }
    if rng.chance(5) {
        q.filters.text = Some(NEEDLES[rng.below(8) as usize].into());
    }
    if rng.chance(4) {
        q.filters.date_to = Some(format!("{}", 1980 + rng.below(45)));
    }
    Some(q)
}

/// Random queries cut from `count` random positions of `db`'s games (fewer: some cuts are
/// left out).
pub fn random_queries(db: &Database, rng: &mut Rng, count: usize) -> Vec<Query> {
    let boards = positions(db, rng, count);
    let mut qs = Vec::new();
    for (board, next) in &boards {
        if let Some(q) = query(rng, board, next) {
            qs.push(q);
        }
    }
    qs
}

/// The seed given to the oracle tests (`KIFU_ORACLE_SEED`), to search other patterns and
/// games than the default ones.
pub fn given_seed() -> Option<u64> {
    std::env::var("KIFU_ORACLE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
}

/// The root node of a made-up 9x9 game: its players (a letter and a number), year and result.
pub fn root_9x9(black: (&str, usize), white: (&str, usize), year: usize, result: &str) -> String {
    format!(
        "(;GM[1]SZ[9]PB[{}{}]PW[{}{}]DT[{year}]RE[{result}]",
        black.0, black.1, white.0, white.1
    )
}

/// A random point of a board of `size` (its column drawn first).
fn random_point(rng: &mut Rng, size: kifu_go::BoardSize) -> kifu_go::Point {
    let n = u64::from(size.get());
    let col = rng.below(n) as u32;
    kifu_go::Point::new(col, rng.below(n) as u32, size).unwrap()
}

/// A random line of `moves` legal moves for `color` and its opponent in turn from `pos`, as
/// SGF nodes, with a few passes, setup nodes (`AB`, `AW`, `AE`) and nodes without a move;
/// random play fills its own eyes, so whole groups are taken again and again and points
/// change colour many times.
pub fn random_line(
    rng: &mut Rng,
    pos: &mut kifu_go::Position,
    mut color: Color,
    moves: u64,
) -> String {
    let mut out = String::new();
    let name =
        |p: kifu_go::Point| format!("{}{}", (b'a' + p.col()) as char, (b'a' + p.row()) as char);
    for _ in 0..moves {
        if rng.chance(2) {
            // Setup in the middle of the game, or a node without a move.
            let p = random_point(rng, pos.size());
            let (id, stone) = match rng.below(4) {
                0 => ("AB", Some(Color::Black)),
                1 => ("AW", Some(Color::White)),
                2 => ("AE", None),
                _ => {
                    out.push_str(";C[a comment]");
                    continue;
                }
            };
            pos.setup(p, stone).unwrap();
            out.push_str(&format!(";{id}[{}]", name(p)));
        }
        let mut mv = Move::Pass;
        if !rng.chance(2) {
            for _ in 0..20 {
                let p = random_point(rng, pos.size());
                if pos.stone_at(p).is_none() && pos.play(color, Move::Play(p)).is_ok() {
                    mv = Move::Play(p);
                    break;
                }
            }
        }
        let letter = if color == Color::Black { 'B' } else { 'W' };
        match mv {
            Move::Play(p) => out.push_str(&format!(";{letter}[{}]", name(p))),
            Move::Pass => {
                pos.play(color, Move::Pass).unwrap();
                out.push_str(&format!(";{letter}[]"));
            }
        }
        color = color.opponent();
    }
    out
}

/// `q` as it reads after `sym` is applied to the board: the pattern turned (its cells mapped
/// point by point on the board, which must be what [`Pattern::transformed`] gives), a fixed
/// place moved where its rectangle goes, a side to the side it goes to, the sequence's cells
/// with the pattern's.
pub fn turned(q: &Query, sym: Symmetry, n: u32) -> Query {
    let size = kifu_go::BoardSize::new(n).unwrap();
    let p = &q.pattern;
    let (w, h) = (p.width(), p.height());
    let (col, row) = match q.placement {
        Placement::At { col, row } => (col, row),
        _ => (0, 0),
    };
    let to = |x: u32, y: u32| {
        let t = sym.apply(kifu_go::Point::new(col + x, row + y, size).unwrap(), size);
        (u32::from(t.col()), u32::from(t.row()))
    };
    let corners = [to(0, 0), to(w - 1, 0), to(0, h - 1), to(w - 1, h - 1)];
    let c0 = corners.iter().map(|c| c.0).min().unwrap();
    let r0 = corners.iter().map(|c| c.1).min().unwrap();
    let tw = corners.iter().map(|c| c.0).max().unwrap() - c0 + 1;
    let th = corners.iter().map(|c| c.1).max().unwrap() - r0 + 1;
    let mut cells = vec![Cell::Any; (tw * th) as usize];
    for y in 0..h {
        for x in 0..w {
            let (tx, ty) = to(x, y);
            cells[((ty - r0) * tw + tx - c0) as usize] = p.cell(x, y);
        }
    }
    let pattern = Pattern::new(tw as usize, th as usize, cells).unwrap();
    assert_eq!(pattern, p.transformed(sym), "{sym:?} of {p:?}");
    let side_of = |s: Side| {
        let (x, y) = match s {
            Side::Top => (1, 0),
            Side::Bottom => (1, n - 1),
            Side::Left => (0, 1),
            Side::Right => (n - 1, 1),
        };
        let t = sym.apply(kifu_go::Point::new(x, y, size).unwrap(), size);
        match (u32::from(t.col()), u32::from(t.row())) {
            (_, 0) => Side::Top,
            (_, r) if r == n - 1 => Side::Bottom,
            (0, _) => Side::Left,
            _ => Side::Right,
        }
    };
    let mut t = q.clone();
    t.pattern = pattern;
    t.placement = match q.placement {
        Placement::At { .. } => Placement::At { col: c0, row: r0 },
        Placement::Edge { side } => Placement::Edge {
            side: side_of(side),
        },
        Placement::Anywhere => Placement::Anywhere,
    };
    // A sequence's cells are relative to the pattern's box wherever it stands.
    let box_to = |x: u32, y: u32| {
        let (tx, ty) = to(x, y);
        (tx - c0, ty - r0)
    };
    t.sequence = q
        .sequence
        .iter()
        .map(|&(c, (x, y))| (c, box_to(x, y)))
        .collect();
    t
}
