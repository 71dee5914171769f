//! The tests of the pattern index as a whole, on a hand-made file: saved and loaded, damaged
//! sidecars refused, the filters' columns, and searches against the plain scan.

use super::*;
use crate::{Pattern, Placement, Query};
use kifu_posdb::extract::Source;

const GAMES: &str = "(;SZ[9]RE[B+3]DT[2001]PB[A]PW[B];B[cc];W[gg](;B[cg];W[gc];B[dd])\
    (;B[gc]AW[ee];W[];B[cg]))(;SZ[9]AB[cc][gg]HA[2];W[cd];B[dd];W[ce];B[bd];W[de];B[be])";

fn index(dir: &Path) -> PatternIndex {
    let path = dir.join("games.sgf");
    std::fs::write(&path, GAMES).unwrap();
    let files = vec![CollectionFile {
        source: Source::new(&path),
        ids: vec![Some(0), Some(1)],
    }];
    PatternIndex::build(&files)
}

fn queries() -> Vec<Query> {
    let mut out = Vec::new();
    for rows in ["#", "#.\n.O", "..\n.#"] {
        let mut q = Query::new(Pattern::parse(rows).unwrap(), Placement::Anywhere);
        q.variations = true;
        out.push(q);
    }
    out
}

/// A free pattern with a variant of no stone lists no candidates (it would list nearly
/// every place of every game): its games are walked, their places found there.
#[test]
fn free_patterns_of_no_stone_are_left_to_the_walk() {
    let dir = tempfile::tempdir().unwrap();
    let idx = index(dir.path());
    let size = BoardSize::new(9).unwrap();
    let columns = columns::Columns::new(&idx.games, false);
    let plan = |rows: &str| {
        let q = Query::new(Pattern::parse(rows).unwrap(), Placement::Anywhere);
        plan::Plan::new(&crate::scan::size_variants(&q, size).0, 9)
    };
    // Eight images of a 2x2 at 64 places each.
    let stoneless = plan("xo\n..");
    assert_eq!(stoneless.placed.len(), levels::FEW_LEVELS_FROM);
    assert!(columns
        .candidates(&stoneless, 9, Some(&idx), None)
        .is_none());
    // With a stone, or with fewer places, the columns list them.
    let found = columns
        .candidates(&plan("#o\n.."), 9, Some(&idx), None)
        .unwrap();
    assert_eq!(found.games, [0, 1]);
    // Four images of a 1x2 at 72 places each, every one in both games.
    let few_plan = plan(".\n*");
    assert_eq!(few_plan.placed.len(), 4 * 72);
    let few = columns.candidates(&few_plan, 9, Some(&idx), None).unwrap();
    assert_eq!(few.games, [0, 1]);
    assert_eq!(few.places.len(), 2 * 4 * 72);
}

#[test]
fn damaged_sidecars_are_refused_never_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let idx = index(dir.path());
    assert_eq!(idx.games(), 2);
    let bytes = idx.to_bytes(7).unwrap();
    assert_eq!(PatternIndex::from_bytes(&bytes, 7), Ok(Some(idx.clone())));
    assert_eq!(
        PatternIndex::from_bytes(&bytes, 8),
        Ok(None),
        "another database"
    );
    for cut in 0..bytes.len() {
        assert!(
            PatternIndex::from_bytes(&bytes[..cut], 7).is_err(),
            "cut {cut}"
        );
    }
    // Damage behind the checksum is caught by it; with the checksum made right, by the
    // checks of every value: either way an error or an index that searches without panic.
    let qs = queries();
    for at in 0..bytes.len() {
        for flip in [1u8, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[at] ^= flip;
            if at >= 28 && at < b.len() - 8 {
                let end = b.len() - 8;
                let sum = format::Checksum::of(&b[28..end]);
                b[end..].copy_from_slice(&sum.to_le_bytes());
            }
            if let Ok(Some(i)) = PatternIndex::from_bytes(&b, 7) {
                let _ = i.search_many(&qs, crate::scan::Page::default(), None, None);
            }
        }
    }
}

#[test]
fn filters_through_the_columns_pass_what_accepts_passes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("names.sgf");
    let names = [
        "Lee Sedol",
        "LEE CHANGHO",
        "\u{212A}ato Masao",
        "\u{130}yama Yuta",
        "李昌鎬 Lee",
        "Cho\u{0}Chikun",
        "",
        "  Go Seigen ",
        "ÉCOLE",
    ];
    let mut sgf = String::new();
    for (i, b) in names.iter().enumerate() {
        for (j, w) in names.iter().enumerate() {
            sgf.push_str(&format!(
                "(;SZ[9]PB[{b}]PW[{w}]EV[Cup {i}]DT[{}]RE[{}];B[cc])",
                [" 1999-05-01", "2001", "1999", "", "2000-01-01T10:00"][(i + j) % 5],
                ["B+R", "W+0.5", "Draw", "?"][(i * j) % 4],
            ));
        }
    }
    std::fs::write(&path, sgf).unwrap();
    let files = vec![CollectionFile {
        source: Source::new(&path),
        ids: (0..81).map(Some).collect(),
    }];
    let idx = PatternIndex::build(&files);
    assert_eq!(idx.games(), 81);
    let needles = [
        "lee", "LEE", "kato", "i", "yama", "ee c", "é", "李", "cho", "o\u{0}c", "", " ", "go s",
        "cup 1", "1999", "w+", "zzz",
    ];
    let mut cases: Vec<crate::Filters> = Vec::new();
    for n in needles {
        let n = Some(n.to_string());
        for f in [
            crate::Filters {
                player: n.clone(),
                ..Default::default()
            },
            crate::Filters {
                black: n.clone(),
                white: Some("e".into()),
                ..Default::default()
            },
            crate::Filters {
                event: n.clone(),
                ..Default::default()
            },
            crate::Filters {
                result: n.clone(),
                ..Default::default()
            },
            crate::Filters {
                text: n.clone(),
                ..Default::default()
            },
        ] {
            cases.push(f);
        }
    }
    for (from, to) in [
        (Some("1999"), None),
        (None, Some("1999")),
        (Some("2000"), Some("2001")),
    ] {
        cases.push(crate::Filters {
            date_from: from.map(String::from),
            date_to: to.map(String::from),
            player: Some("e".into()),
            ..Default::default()
        });
    }
    for f in &cases {
        let want: Vec<u64> = idx
            .games
            .iter()
            .filter(|g| f.accepts(&g.info()))
            .map(|g| g.id)
            .collect();
        let page = crate::scan::Page {
            offset: 0,
            limit: 1000,
        };
        let got: Vec<u64> = idx
            .filter_games(f, page, None)
            .matches
            .iter()
            .map(|m| m.game)
            .collect();
        assert_eq!(got, want, "{f:?}");
    }
    assert!(cases.iter().any(|f| {
        let n = idx
            .filter_games(f, crate::scan::Page::default(), None)
            .games;
        n > 0 && n < 81
    }));
}

#[test]
fn saved_and_loaded() {
    let dir = tempfile::tempdir().unwrap();
    let idx = index(dir.path());
    let path = dir.path().join("db.kpp");
    idx.save(&path, 42).unwrap();
    assert_eq!(PatternIndex::load(&path, 42).unwrap(), Some(idx));
    assert_eq!(
        PatternIndex::load(&dir.path().join("none.kpp"), 42).unwrap(),
        None
    );
    std::fs::write(&path, b"KIFUPAT\0garbage").unwrap();
    let e = PatternIndex::load(&path, 42).unwrap_err().to_string();
    assert!(e.contains("damaged") && e.contains("db.kpp"), "{e}");
}

#[test]
fn a_repeated_root_size_counts_its_first_copy_in_both_searches() {
    // The replay and the game's information both take the first `SZ` of the root (a
    // game filed as 9x9 and replayed as 5x5 used to have no hits in either search).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sizes.sgf");
    std::fs::write(&path, "(;SZ[9]SZ[5];B[aa];W[bb])(;SZ[9];B[aa];W[bb])").unwrap();
    let files = vec![CollectionFile {
        source: Source::new(&path),
        ids: vec![Some(0), Some(1)],
    }];
    let idx = PatternIndex::build(&files);
    let size = BoardSize::new(9).unwrap();
    let page = crate::scan::Page {
        offset: 0,
        limit: 10,
    };
    let mut q = Query::new(Pattern::parse("#").unwrap(), Placement::Anywhere);
    q.variations = true;
    let indexed = idx.search_many(std::slice::from_ref(&q), page, Some(size), None);
    let scanned = crate::collection::search_files(&files, &q, page, Some(size));
    assert_eq!(indexed[0], scanned.answer);
    assert_eq!(scanned.answer.games_searched, 2);
    assert_eq!(scanned.answer.games, 2);
    let games: Vec<u64> = scanned.answer.matches.iter().map(|m| m.game).collect();
    assert_eq!(games, [0, 0, 1, 1]);
}
