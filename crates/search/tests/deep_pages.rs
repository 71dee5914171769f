//! A deep page (its offset far from the first match) is found in two passes by the index, so
//! that no part of the games holds the matches before it: every page, shallow or deep, across
//! the parts' borders or past the last match, is the plain scan's page, and the totals do not
//! change with it.

mod common;

use kifu_search::scan::Page;
use kifu_search::{Pattern, Placement, Query};

/// Games `range` of 40 moves on 9x9, each its own walk over the points (captures happen).
fn games(range: std::ops::Range<u64>) -> String {
    let mut sgf = String::new();
    for g in range {
        let mut state = g.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        sgf.push_str(&format!("(;GM[1]SZ[9]DT[{}]RE[B+1]", 1990 + g % 30));
        let mut used = [false; 81];
        for m in 0..40 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mut p = (state % 81) as usize;
            while used[p] {
                p = (p + 1) % 81;
            }
            used[p] = true;
            let (c, r) = (
                (b'a' + (p % 9) as u8) as char,
                (b'a' + (p / 9) as u8) as char,
            );
            let colour = if m % 2 == 0 { 'B' } else { 'W' };
            sgf.push_str(&format!(";{colour}[{c}{r}]"));
        }
        sgf.push_str(")\n");
    }
    sgf
}

#[test]
fn deep_pages_are_the_scans_pages() {
    let dir = tempfile::tempdir().unwrap();
    // Three files, 1,300 games: the index searches them in parts of 512.
    let mut files = Vec::new();
    for (k, range) in [0..500, 500..900, 900..1300].into_iter().enumerate() {
        let path = dir.path().join(format!("g{k}.sgf"));
        std::fs::write(&path, games(range)).unwrap();
        files.push(path);
    }
    let db = common::build(dir.path(), &files, 9, false);
    let q = Query::new(Pattern::parse("#.\n.O").unwrap(), Placement::Anywhere);
    let all = db
        .search(
            &q,
            Page {
                offset: 0,
                limit: 0,
            },
            false,
        )
        .answer;
    let total = all.occurrences;
    assert!(total > 20_000, "{total} matches");
    for (offset, limit) in [
        (0, 20),
        (0, 1_500),
        (990, 20),
        (1_000, 1),
        (7_777, 300),
        (19_950, 100),
        (total - 5, 20),
        (total, 20),
        (total + 10, 20),
    ] {
        let page = Page { offset, limit };
        let index = db.search(&q, page, false).answer;
        let scan = db.scan_many(std::slice::from_ref(&q), page, false).answers;
        assert_eq!(index, scan[0], "page {offset}+{limit}");
        assert_eq!(
            index.matches.len() as u64,
            limit.min(total.saturating_sub(offset))
        );
        assert_eq!(
            (index.occurrences, index.games, &index.continuations),
            (all.occurrences, all.games, &all.continuations)
        );
    }
}

/// The games with hits of a search are every game its matches name, whatever the page.
#[test]
fn every_matching_game_is_listed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.sgf");
    std::fs::write(&path, games(0..700)).unwrap();
    let db = common::build(dir.path(), &[path], 9, false);
    let never = std::sync::atomic::AtomicBool::new(false);
    // Every game, some, a few.
    for (rows, games) in [("#.\n.O", 700), ("#O#\nO#O", 30), ("##.\n#.O\n.OO", 5)] {
        let q = Query::new(Pattern::parse(rows).unwrap(), Placement::Anywhere);
        let (answer, listed) = db.matching_games(&q, false, &never).unwrap();
        let every = Page {
            offset: 0,
            limit: answer.occurrences,
        };
        let scan = db.scan_many(std::slice::from_ref(&q), every, false).answers;
        let mut want: Vec<u64> = scan[0].matches.iter().map(|m| m.game).collect();
        want.dedup();
        assert_eq!(listed, want, "{rows}");
        assert_eq!(listed.len() as u64, answer.games, "{rows}");
        assert!(answer.games >= games, "{rows}: {} games", answer.games);
        assert!(answer.matches.is_empty());
    }
}
