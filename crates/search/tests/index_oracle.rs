//! The pattern index against the plain scan (the oracle): random patterns cut from real
//! positions of the shared corpus (corner, side and free; wildcards, colour swap, one
//! orientation only, side to move, move windows, variations, sequences, placements, filters),
//! each answered by [`Database::search_many`] (the index) and [`Database::scan_many`] (every
//! file read and replayed), field by field. Seeded: a failure names its seed and query.
//!
//! Over a part of the corpus (to keep the oracle's time down) plus a hand-made file with
//! variations, setup in the middle of a game, passes, captures and a node with two moves.

mod common;

use common::oracle::{
    given_seed, positions, random_line, random_queries, root_9x9, seeded_spread, Rng,
};
use kifu_go::Color;
use kifu_search::index::DensePrune;
use kifu_search::scan::Page;
use kifu_search::{Counting, Database, Pattern, Placement, Query, Side};
use std::path::PathBuf;

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
    let dir = tempfile::tempdir().unwrap();
    let (mut rng, files) = seeded_spread(dir.path(), 0x6b69_6675);
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
    // The sidecar, read back, gives the same index.
    let reopened = Database::open(db19.path()).unwrap();
    assert!(reopened.patterns() == db19.patterns());
    assert!(n19 > 150 && n9 > 100, "{n19} {n9} queries");
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
    // Both blocks' levels, made within the default budget.
    let block_levels = 2 * 6 * 81 * 64 * 8;
    assert_eq!(db.patterns().levels_bytes(), 2 * block_levels);
    // Through a cache of a few groups of games: read from the sidecar again and again.
    db.patterns().set_cache_limit(64 << 10);
    let n = compare(&db, &mut rng, 60, "4,500 games, 64 KB of cache");
    assert!(n > 10, "{n} queries");
    // Opened again with a budget that holds the first block's levels and not the second's:
    // the second block's games are pruned without them, the answers the same.
    let db = Database::open(&dir.path().join("db9-false-None.kpx")).unwrap();
    db.patterns().set_cache_limit(1 << 20);
    let n = compare(&db, &mut rng, 100, "4,500 games, levels for one block");
    assert!(n > 20, "{n} queries");
    assert_eq!(db.patterns().levels_bytes(), block_levels);
    // With no budget at all, none.
    let db = Database::open(&dir.path().join("db9-false-None.kpx")).unwrap();
    db.patterns().set_cache_limit(0);
    let n = compare(&db, &mut rng, 60, "4,500 games, no levels");
    assert!(n > 10, "{n} queries");
    assert_eq!(db.patterns().levels_bytes(), 0);
}
