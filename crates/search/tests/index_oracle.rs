//! The pattern index against the plain scan (the oracle): random patterns cut from real
//! positions of the shared corpus (corner, side and free; wildcards, colour swap, one
//! orientation only, side to move, move windows, variations, sequences, placements, filters),
//! each answered by [`Database::search_many`] (the index) and [`Database::scan_many`] (every
//! file read and replayed), field by field. Seeded: a failure names its seed and query.
//!
//! Over a part of the corpus (to keep the oracle's time down) plus a hand-made file with
//! variations, setup in the middle of a game, passes, captures and a node with two moves.

mod common;

use kifu_go::replay::{replay_game, ReplayOptions, Scope, Step};
use kifu_go::{Board, Color, Move, Symmetry};
use kifu_search::index::DensePrune;
use kifu_search::pattern::Cell;
use kifu_search::scan::Page;
use kifu_search::{Counting, Database, Pattern, Placement, Query, Side};
use std::path::PathBuf;

/// xorshift64*: the test's only randomness, seeded.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

const HAND_MADE: &str = "(;GM[1]SZ[19]PB[Hand]PW[Made]DT[2020-01-02]RE[W+R]\
;B[pd];W[dp];B[pq](;W[dd];B[fq];W[dn];B[qk]\
;W[];B[]AB[jj]AW[kk];B[pp]W[cc];W[qc];B[qd];W[rd];B[pc];W[rc]\
;B[qb];W[rb];B[pb];W[ra];B[sc])\
(;W[dc];B[ce];W[ed](;B[dj])(;B[qk];W[jd])))\
(;GM[1]SZ[19]HA[2]AB[pd][dp]PB[Handi]PW[Cap]RE[B+3.5]DT[1999-05]\
;W[qp];B[dd];W[oq];B[qn];W[jj];B[];W[dc];B[cc];W[ec];B[cd];W[db];B[cb];W[eb])";

/// Main-line boards of the database's games, with the moves after them.
fn positions(db: &Database, rng: &mut Rng, count: usize) -> Vec<(Board, Vec<(Color, Move)>)> {
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

fn wildcard(rng: &mut Rng, c: Cell) -> Cell {
    match rng.below(4) {
        0 => Cell::Any,
        1 if c != Cell::White => Cell::EmptyOrBlack,
        2 if c != Cell::Black => Cell::EmptyOrWhite,
        _ => c,
    }
}

/// A random query cut from `board`.
fn query(rng: &mut Rng, board: &Board, next: &[(Color, Move)]) -> Option<Query> {
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
    let stones = (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .filter(|&(x, y)| matches!(p.cell(x, y), Cell::Black | Cell::White))
        .count();
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
fn random_queries(db: &Database, rng: &mut Rng, count: usize) -> Vec<Query> {
    let boards = positions(db, rng, count);
    let mut qs = Vec::new();
    for (board, next) in &boards {
        if let Some(q) = query(rng, board, next) {
            qs.push(q);
        }
    }
    qs
}

fn compare(db: &Database, rng: &mut Rng, queries: usize, label: &str) -> usize {
    let qs = random_queries(db, rng, queries);
    let page = Page {
        offset: rng.below(5),
        limit: 40,
    };
    check(db, &qs, page, label);
    qs.len()
}

/// The index's answers to `qs` against the plain scan's, with and without duplicates, with
/// the free patterns' places found each way (the columns, the dense prune, either).
fn check(db: &Database, qs: &[Query], page: Page, label: &str) {
    // Without duplicates, a part of the queries is enough (the games left out are the same).
    for (dups, qs) in [(false, qs), (true, &qs[..qs.len().min(40)])] {
        let t = std::time::Instant::now();
        let slow = db.scan_many(qs, page, dups);
        let t1 = t.elapsed();
        for mode in [DensePrune::Never, DensePrune::Always, DensePrune::Auto] {
            db.patterns().set_dense_prune(mode);
            let t = std::time::Instant::now();
            let fast = db.search_many(qs, page, dups);
            eprintln!(
                "{label}: {} queries: index ({mode:?}) {:?}, scan {t1:?}",
                qs.len(),
                t.elapsed()
            );
            let label = format!("{label} ({mode:?})");
            assert_eq!(fast.failures, slow.failures, "{label}");
            for (i, (a, b)) in fast.answers.iter().zip(&slow.answers).enumerate() {
                let q = serde_json::to_string(&qs[i]).unwrap();
                assert_eq!(a.games_searched, b.games_searched, "{label} {i}: {q}");
                assert_eq!(a.games, b.games, "{label} {i}: {q}");
                assert_eq!(a.occurrences, b.occurrences, "{label} {i}: {q}");
                assert_eq!(a.swapped, b.swapped, "{label} {i}: {q}");
                assert_eq!(a.continuations, b.continuations, "{label} {i}: {q}");
                assert_eq!(a.tenuki, b.tenuki, "{label} {i}: {q}");
                assert_eq!(a.passes, b.passes, "{label} {i}: {q}");
                assert_eq!(a.game_ends, b.game_ends, "{label} {i}: {q}");
                assert_eq!(a.by_year, b.by_year, "{label} {i}: {q}");
                assert_eq!(a.no_year, b.no_year, "{label} {i}: {q}");
                assert_eq!(a.matches, b.matches, "{label} {i}: {q}");
                assert_eq!(a, b, "{label} {i}: {q}");
            }
        }
        db.patterns().set_dense_prune(DensePrune::Auto);
    }
}

#[test]
fn the_index_answers_as_the_plain_scan() {
    let games = kifu_testdata::corpus().join("sgf/games");
    let all = kifu_testdata::sgf_files(&games);
    assert!(!all.is_empty(), "no corpus at {}", games.display());
    let dir = tempfile::tempdir().unwrap();
    let hand = dir.path().join("hand.sgf");
    std::fs::write(&hand, HAND_MADE).unwrap();
    let given = given_seed();
    let mut rng = Rng(given.unwrap_or(0x6b69_6675) | 1);
    // A spread of the corpus: every k-th file, so each folder is in. A seed given to the test
    // also moves where the spread starts, so other seeds search other games too.
    let step = (all.len() / 700).max(1);
    let start = given.map_or(0, |s| (s >> 1) as usize % step);
    let mut files: Vec<PathBuf> = all.iter().skip(start).step_by(step).cloned().collect();
    files.push(hand);
    let db19 = common::build(dir.path(), &files, 19, false);
    // Duplicates from the index's signatures are those of reading every file.
    let (groups, _) = kifu_search::collection::duplicate_groups(&db19.files().unwrap());
    assert_eq!(db19.duplicates().groups, groups);
    let n19 = compare(&db19, &mut rng, 350, "19x19");
    let db9 = common::build(dir.path(), &files, 9, false);
    let n9 = compare(&db9, &mut rng, 300, "9x9");
    // Free patterns of no stone, which stand nearly everywhere: with few places through the
    // columns, with many (8 images of a 2x2) left to the walk to place.
    let stoneless: Vec<Query> = ["xo\n..", ".\n*"]
        .iter()
        .map(|rows| Query::new(Pattern::parse(rows).unwrap(), Placement::Anywhere))
        .collect();
    check(&db9, &stoneless, Page::default(), "9x9 without stones");
    let found = db9.search_many(&stoneless, Page::default(), false);
    assert!(found
        .answers
        .iter()
        .all(|a| a.occurrences > 1000 && a.games > 10));
    check_overlapping(&db19, "19x19");
    check_corner_twins(&db19, "19x19");
    let turned19 = check_orientations(&db19, &mut rng, 150, "19x19");
    let turned9 = check_orientations(&db9, &mut rng, 100, "9x9");
    assert!(
        turned19 > 60 && turned9 > 40,
        "{turned19} {turned9} queries turned"
    );
    let swapped19 = check_colours(&db19, &mut rng, 150, "19x19");
    let swapped9 = check_colours(&db9, &mut rng, 100, "9x9");
    assert!(
        swapped19 > 40 && swapped9 > 25,
        "{swapped19} {swapped9} queries swapped"
    );
    // The sidecar, read back, gives the same index.
    let reopened = Database::open(db19.path()).unwrap();
    assert!(reopened.patterns() == db19.patterns());
    assert!(n19 > 150 && n9 > 100, "{n19} {n9} queries");
}

/// `q` as it reads after `sym` is applied to the board: the pattern turned (its cells mapped
/// point by point on the board, which must be what [`Pattern::transformed`] gives), a fixed
/// place moved where its rectangle goes, a side to the side it goes to, the sequence's cells
/// with the pattern's.
fn turned(q: &Query, sym: Symmetry, n: u32) -> Query {
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

/// Searching in all orientations, a query and its image under each symmetry of the board
/// find the same games, hits, tenuki, passes, years and matches (game and move), and the same
/// continuations' counts and wins (named in each query's own frame, so compared without
/// their names; for wildcard patterns, their totals by colour): what the index answers does
/// not depend on how the user turned the board.
fn check_orientations(db: &Database, rng: &mut Rng, count: usize, label: &str) -> usize {
    let n = u32::from(db.size().get());
    let mut asked = 0;
    for q in random_queries(db, rng, count) {
        if !q.symmetries {
            continue;
        }
        let sym = Symmetry::from_index(1 + rng.below(7) as usize).unwrap();
        let t = turned(&q, sym, n);
        let page = Page {
            offset: 0,
            limit: 30,
        };
        let found = db.search_many(&[q.clone(), t.clone()], page, false);
        let (a, b) = (&found.answers[0], &found.answers[1]);
        let what = format!("{label} {sym:?}: {}", serde_json::to_string(&q).unwrap());
        assert_eq!(
            (a.games_searched, a.games, a.occurrences, a.swapped),
            (b.games_searched, b.games, b.occurrences, b.swapped),
            "{what}"
        );
        assert_eq!((a.tenuki, a.passes), (b.tenuki, b.passes), "{what}");
        assert_eq!((a.game_ends, a.no_year), (b.game_ends, b.no_year), "{what}");
        assert_eq!(a.by_year, b.by_year, "{what}");
        let tallies = |x: &kifu_search::SearchAnswer| {
            let mut v: Vec<(char, u64, u64, u64)> = x
                .continuations
                .iter()
                .map(|c| {
                    (
                        c.color,
                        c.tally.count,
                        c.tally.black_wins,
                        c.tally.white_wins,
                    )
                })
                .collect();
            v.sort_unstable();
            v
        };
        // A wildcard pattern may stand in two orientations at once on one rectangle: the hit
        // is the first of them in the query's order, and its next move is named through it, so
        // turning the query can move such a move to another row (the colours' totals stay).
        if has_wildcards(&q.pattern) {
            let totals = |x: &kifu_search::SearchAnswer| {
                let mut by_colour = [(0u64, 0u64, 0u64); 2];
                for (c, n, bw, ww) in tallies(x) {
                    let t = &mut by_colour[usize::from(c == 'W')];
                    *t = (t.0 + n, t.1 + bw, t.2 + ww);
                }
                by_colour
            };
            assert_eq!(totals(a), totals(b), "{what}");
        } else {
            assert_eq!(tallies(a), tallies(b), "{what}");
        }
        let at = |x: &kifu_search::SearchAnswer| -> Vec<(u64, u32)> {
            x.matches.iter().map(|m| (m.game, m.move_number)).collect()
        };
        assert_eq!(at(a), at(b), "{what}");
        asked += 1;
    }
    asked
}

/// Whether a cell of `p` allows more than one state.
fn has_wildcards(p: &Pattern) -> bool {
    (0..p.height())
        .flat_map(|y| (0..p.width()).map(move |x| (x, y)))
        .any(|(x, y)| !matches!(p.cell(x, y), Cell::Black | Cell::White | Cell::Empty))
}

/// With colours swapped, a pattern and its colours exchanged find the same hits, each counted
/// swapped by one query exactly when the other counts it as it is, with the continuations,
/// tenuki and passes in exchanged colours (and wins). For patterns without wildcards, whose
/// images with and without exchanged colours are all distinct, so that one image at most
/// stands on a rectangle; a side to move and a sequence are exchanged too.
fn check_colours(db: &Database, rng: &mut Rng, count: usize, label: &str) -> usize {
    let images = |p: &Pattern, all: bool| -> Vec<Pattern> {
        let syms = if all { 8 } else { 1 };
        (0..syms)
            .map(|i| p.transformed(Symmetry::from_index(i).unwrap()))
            .collect()
    };
    let flip = |c: Color| c.opponent();
    let mut asked = 0;
    for mut q in random_queries(db, rng, count) {
        q.swap_colors = true;
        let plain = images(&q.pattern, q.symmetries);
        let other = images(&q.pattern.swapped(), q.symmetries);
        if has_wildcards(&q.pattern) || plain.iter().any(|i| other.contains(i)) {
            continue;
        }
        let mut s = q.clone();
        s.pattern = q.pattern.swapped();
        s.to_play = q.to_play.map(flip);
        s.sequence = q.sequence.iter().map(|&(c, at)| (flip(c), at)).collect();
        let page = Page {
            offset: 0,
            limit: 30,
        };
        let found = db.search_many(&[q.clone(), s], page, false);
        let (a, b) = (&found.answers[0], &found.answers[1]);
        let what = format!("{label}: {}", serde_json::to_string(&q).unwrap());
        assert_eq!(
            (
                a.games_searched,
                a.games,
                a.occurrences,
                a.game_ends,
                a.no_year
            ),
            (
                b.games_searched,
                b.games,
                b.occurrences,
                b.game_ends,
                b.no_year
            ),
            "{what}"
        );
        assert_eq!(a.swapped + b.swapped, a.occurrences, "{what}");
        assert_eq!(a.by_year, b.by_year, "{what}");
        let same = |t: kifu_search::answer::Tally| (t.count, t.black_wins, t.white_wins);
        let exchanged = |t: kifu_search::answer::Tally| (t.count, t.white_wins, t.black_wins);
        assert_eq!(same(a.tenuki), exchanged(b.tenuki), "{what}");
        assert_eq!(same(a.passes), exchanged(b.passes), "{what}");
        let mut mine: Vec<_> = a
            .continuations
            .iter()
            .map(|c| (c.cell, c.color, same(c.tally)))
            .collect();
        let mut theirs: Vec<_> = b
            .continuations
            .iter()
            .map(|c| {
                (
                    c.cell,
                    if c.color == 'B' { 'W' } else { 'B' },
                    exchanged(c.tally),
                )
            })
            .collect();
        mine.sort_unstable();
        theirs.sort_unstable();
        assert_eq!(mine, theirs, "{what}");
        // The page in the same order of games and moves; the hits of one move come in the
        // query's order of images, in which the swapped ones come last, so they are compared
        // as sets (but for the page's last move, which the page may cut anywhere).
        let at = |x: &kifu_search::SearchAnswer| -> Vec<(u64, u32)> {
            x.matches.iter().map(|m| (m.game, m.move_number)).collect()
        };
        assert_eq!(at(a), at(b), "{what}");
        let last = a.matches.last().map(|m| (m.game, m.move_number));
        let flags = |x: &kifu_search::SearchAnswer, flipped: bool| {
            let mut v: Vec<(u64, u32, bool)> = x
                .matches
                .iter()
                .filter(|m| Some((m.game, m.move_number)) != last)
                .map(|m| (m.game, m.move_number, m.swapped != flipped))
                .collect();
            v.sort_unstable();
            v
        };
        assert_eq!(flags(a, false), flags(b, true), "{what}");
        asked += 1;
    }
    asked
}

/// The seed given to the oracle tests (`KIFU_ORACLE_SEED`), to search other patterns and
/// games than the default ones.
fn given_seed() -> Option<u64> {
    std::env::var("KIFU_ORACLE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
}

/// Every board side other than 19 and 9 that the corpus's games use, each in a database of its
/// own: 13x13 games, and boards so small that a corner pattern covers most of the board, a side
/// pattern reaches across it, and every cut is near an edge.
#[test]
fn the_index_answers_as_the_plain_scan_on_other_sides() {
    let games = kifu_testdata::corpus().join("sgf/games");
    let all = kifu_testdata::sgf_files(&games);
    let mut rng = Rng(given_seed().unwrap_or(0x05_1de5) | 1);
    let dir = tempfile::tempdir().unwrap();
    let mut by_side: std::collections::BTreeMap<u32, Vec<PathBuf>> = Default::default();
    for path in &all {
        let text = std::fs::read(path).unwrap();
        for side in [2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 15, 17] {
            if memchr::memmem::find(&text, format!("SZ[{side}]").as_bytes()).is_some() {
                by_side.entry(side).or_default().push(path.clone());
            }
        }
    }
    assert!(
        by_side.get(&13).is_some_and(|f| f.len() > 100),
        "{by_side:?}"
    );
    assert!(
        by_side.keys().filter(|&&s| s < 9).count() >= 3,
        "{by_side:?}"
    );
    let mut total = 0;
    for (side, files) in &by_side {
        let db = common::build(dir.path(), files, *side, false);
        let label = format!("{side}x{side}");
        let asked = if *side == 13 { 200 } else { 40 };
        let n = compare(&db, &mut rng, asked, &label);
        assert!(*side != 13 || n > 80, "{label}: {n} queries");
        total += n;
        // Patterns as large as the board: the whole-board search of the same games.
        let whole = positions(&db, &mut rng, 4);
        let qs: Vec<Query> = whole
            .iter()
            .filter_map(|(board, _)| {
                let p = Pattern::from_board(board, 0, 0, *side, *side)?;
                Some(Query::new(p, Placement::At { col: 0, row: 0 }))
            })
            .collect();
        check(&db, &qs, Page::default(), &format!("{label} whole board"));
    }
    assert!(total > 150, "{total} queries");
}

/// The root node of a made-up 9x9 game: its players (a letter and a number), year and result.
fn root_9x9(black: (&str, usize), white: (&str, usize), year: usize, result: &str) -> String {
    format!(
        "(;GM[1]SZ[9]PB[{}{}]PW[{}{}]DT[{year}]RE[{result}]",
        black.0, black.1, white.0, white.1
    )
}

/// A random line of `moves` legal moves for `color` and its opponent in turn from `pos`, as
/// SGF nodes, with a few passes, setup nodes (`AB`, `AW`, `AE`) and nodes without a move;
/// random play fills its own eyes, so whole groups are taken again and again and points
/// change colour many times.
fn random_line(rng: &mut Rng, pos: &mut kifu_go::Position, mut color: Color, moves: u64) -> String {
    let n = u32::from(pos.size().get());
    let mut out = String::new();
    let name =
        |p: kifu_go::Point| format!("{}{}", (b'a' + p.col()) as char, (b'a' + p.row()) as char);
    for _ in 0..moves {
        if rng.chance(2) {
            // Setup in the middle of the game, or a node without a move.
            let p = kifu_go::Point::new(
                rng.below(u64::from(n)) as u32,
                rng.below(u64::from(n)) as u32,
                pos.size(),
            )
            .unwrap();
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
                let p = kifu_go::Point::new(
                    rng.below(u64::from(n)) as u32,
                    rng.below(u64::from(n)) as u32,
                    pos.size(),
                )
                .unwrap();
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

/// Long games (150 to 1,100 moves of random play on 9x9, with setup nodes, a quarter with a
/// variation): the time tables count them in units of two, four and eight nodes, rounded,
/// and most of their points change again, so most candidates are read change by change.
#[test]
fn the_index_answers_as_the_plain_scan_in_long_games() {
    let mut rng = Rng(given_seed().unwrap_or(0x10_4e9) | 1);
    let size = kifu_go::BoardSize::new(9).unwrap();
    // Eight files, so that the plain scan reads them on every thread.
    let mut sgf = vec![String::new(); 8];
    for g in 0..160 {
        let sgf = &mut sgf[g % 8];
        let mut pos = kifu_go::Position::new(size);
        let moves = 150 + rng.below(950);
        let won = if g % 2 == 0 { "B+R" } else { "W+1.5" };
        sgf.push_str(&root_9x9(("b", g % 7), ("w", g % 5), 2000 + g % 20, won));
        if rng.chance(25) {
            let at = rng.below(moves);
            let head = random_line(&mut rng, &mut pos, Color::Black, at);
            let mut other = pos.clone();
            let color = if at.is_multiple_of(2) {
                Color::Black
            } else {
                Color::White
            };
            let main = random_line(&mut rng, &mut pos, color, moves - at);
            let short = 5 + rng.below(40);
            let side = random_line(&mut rng, &mut other, color, short);
            sgf.push_str(&format!("{head}({main})({side}))"));
        } else {
            sgf.push_str(&random_line(&mut rng, &mut pos, Color::Black, moves));
            sgf.push(')');
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = sgf
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let file = dir.path().join(format!("long{i}.sgf"));
            std::fs::write(&file, text).unwrap();
            file
        })
        .collect();
    let db = common::build(dir.path(), &files, 9, false);
    assert_eq!(db.games(), 160);
    let n = compare(&db, &mut rng, 120, "long games");
    assert!(n > 40, "{n} queries");
    check_overlapping(&db, "long games");
    check_corner_twins(&db, "long games");
}

/// Wildcard patterns two of whose images can stand on one rectangle together (then the
/// rectangle's hit is its first image's), by position and by placement, with colours swapped
/// and a move window: once the page is full, counted from the time tables.
fn check_overlapping(db: &Database, label: &str) {
    let patterns = ["xo\n#O", ".x\n.O\n.#", "x..\n...\n#x#", "#*\n.."];
    let label = format!("{label} overlapping wildcards");
    check_counted(
        db,
        &patterns,
        Placement::Anywhere,
        ((20, 90), 40, 500),
        &label,
    );
}

/// Side patterns without wildcards that their reflection in a diagonal leaves as they are:
/// the images along two edges stand on one rectangle where the edges meet, and the
/// rectangle's hit is counted once (the index counted it under both images when the page was
/// full, seed 2002 of the oracle above).
fn check_corner_twins(db: &Database, label: &str) {
    let patterns = ["#..\n.#.\n...", ".#\n##", "O.\n.#"];
    let side = Placement::Edge { side: Side::Bottom };
    let label = format!("{label} twins in a corner");
    check_counted(db, &patterns, side, ((10, 80), 10, 10), &label);
}

/// Each of `patterns` at `placement` against the plain scan, `limit` matches listed and the
/// rest counted: by position, by placement, and by position in the move window `window`
/// (every second pattern with colours swapped); each with more than `least` hits.
fn check_counted(
    db: &Database,
    patterns: &[&str],
    placement: Placement,
    (window, limit, least): ((u32, u32), u64, u64),
    label: &str,
) {
    let mut queries = Vec::new();
    for (k, rows) in patterns.iter().enumerate() {
        let mut q = Query::new(Pattern::parse(rows).unwrap(), placement);
        q.swap_colors = k % 2 == 1;
        queries.push(q.clone());
        q.counting = Counting::Placements;
        queries.push(q.clone());
        q.counting = Counting::Positions;
        q.moves = Some(window);
        queries.push(q);
    }
    let page = Page { offset: 0, limit };
    check(db, &queries, page, label);
    let found = db.search_many(&queries, page, false);
    assert!(found.answers.iter().all(|a| a.occurrences > least));
}

/// More games than one block of the index's columns (4,096), so the candidates of a later block
/// map back to the right games: random 9x9 games in one file.
#[test]
fn the_index_answers_as_the_plain_scan_across_blocks() {
    let mut rng = Rng(0x0b10_c4ed);
    let mut sgf = String::new();
    for g in 0..4_500 {
        let mut taken = [false; 81];
        let won = if g % 3 == 0 { "W+R" } else { "B+2.5" };
        sgf.push_str(&root_9x9(("p", g % 17), ("q", g % 13), 1990 + g % 30, won));
        for m in 0..10 + rng.below(40) {
            let p = rng.below(81) as usize;
            if taken[p] {
                continue;
            }
            taken[p] = true;
            let (c, r) = (
                (b'a' + (p % 9) as u8) as char,
                (b'a' + (p / 9) as u8) as char,
            );
            sgf.push_str(&format!(";{}[{c}{r}]", if m % 2 == 0 { 'B' } else { 'W' }));
        }
        sgf.push(')');
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("many.sgf");
    std::fs::write(&file, sgf).unwrap();
    let db = common::build(dir.path(), &[file], 9, false);
    assert_eq!(db.games(), 4_500);
    let n = compare(&db, &mut rng, 150, "4,500 games");
    assert!(n > 30, "{n} queries");
    check_overlapping(&db, "4,500 games");
    check_corner_twins(&db, "4,500 games");
    // Through a cache of a few groups of games: read from the sidecar again and again.
    db.patterns().set_cache_limit(64 << 10);
    let n = compare(&db, &mut rng, 60, "4,500 games, 64 KB of cache");
    assert!(n > 10, "{n} queries");
}
