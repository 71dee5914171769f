//! `make_book` in Polyglot-compatibility mode gives Debian polyglot 2.0.4's bytes
//! (`reference/*.polyglot2.0.4.bin`), with and without spilling to disk and on 1 or 2
//! threads; options and bad-game handling behave as documented.

use kifu_polyglot::make::{make_book, Compat, MakeOptions};
use kifu_polyglot::Entry;
use std::path::PathBuf;

fn corpus(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/polyglot")
        .join(rel)
}

fn bytes(entries: &[Entry]) -> Vec<u8> {
    entries.iter().flat_map(|e| e.to_bytes()).collect()
}

fn compat() -> MakeOptions {
    MakeOptions {
        compat: Compat::Polyglot,
        ..MakeOptions::default()
    }
}

#[test]
fn fischer_matches_polyglot() {
    let r = make_book(&[corpus("pgn/Fischer.pgn")], &compat(), &|_| {}).unwrap();
    assert_eq!(
        bytes(&r.entries),
        std::fs::read(corpus("reference/Fischer.polyglot2.0.4.bin")).unwrap()
    );
    assert!(r.skipped.is_empty());
}

#[test]
fn human_clean_matches_polyglot_with_spills_and_threads() {
    let expected = std::fs::read(corpus("reference/human-clean.polyglot2.0.4.bin")).unwrap();
    for (threads, max) in [(1, 8 << 20), (2, 50_000)] {
        let opts = MakeOptions {
            max_entries_in_memory: max,
            ..compat()
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let r = pool
            .install(|| make_book(&[corpus("pgn/human-clean.pgn")], &opts, &|_| {}))
            .unwrap();
        assert_eq!(r.games, 6034);
        assert_eq!(r.plies, 476_136);
        if max == 50_000 {
            assert!(r.runs_spilled >= 5, "{} runs", r.runs_spilled);
        }
        assert_eq!(bytes(&r.entries), expected, "threads {threads}, max {max}");
    }
}

#[test]
fn bad_games_stop_compat_and_are_skipped_by_default() {
    let e = make_book(&[corpus("pgn/Tal.pgn")], &compat(), &|_| {}).unwrap_err();
    assert!(e.to_string().contains("Tal.pgn: game "), "{e}");
    let r = make_book(&[corpus("pgn/Tal.pgn")], &MakeOptions::default(), &|_| {}).unwrap();
    let reasons: Vec<String> = r
        .skipped
        .iter()
        .map(|s| format!("game {}: {}", s.game, s.reason))
        .collect();
    assert_eq!(reasons.len(), 3, "{reasons:?}");
    assert!(reasons[0].contains("malformed tag"), "{reasons:?}");
    assert!(
        reasons[1..]
            .iter()
            .all(|r| r.contains(", ply ") && r.contains("illegal")),
        "{reasons:?}"
    );
}

/// human-clean.pgn is Carlsen, Tal and Fischer without Tal's 3 bad games: skipping them
/// must give exactly the book of human-clean.pgn.
#[test]
fn skipping_bad_games_equals_removing_them() {
    let three = [
        corpus("pgn/Carlsen.pgn"),
        corpus("pgn/Tal.pgn"),
        corpus("pgn/Fischer.pgn"),
    ];
    let a = make_book(&three, &MakeOptions::default(), &|_| {}).unwrap();
    let b = make_book(
        &[corpus("pgn/human-clean.pgn")],
        &MakeOptions::default(),
        &|_| {},
    )
    .unwrap();
    assert_eq!(a.skipped.len(), 3);
    assert_eq!(a.games, b.games + 3);
    assert_eq!(a.plies, b.plies);
    assert_eq!(a.entries, b.entries);
}

#[test]
fn options_filter_like_polyglot() {
    let base = make_book(&[corpus("pgn/Fischer.pgn")], &compat(), &|_| {})
        .unwrap()
        .entries;
    let uniform = make_book(
        &[corpus("pgn/Fischer.pgn")],
        &MakeOptions {
            uniform: true,
            ..compat()
        },
        &|_| {},
    )
    .unwrap()
    .entries;
    assert_eq!(uniform.len(), base.len());
    assert!(uniform.iter().all(|e| e.weight == 1));
    let white = make_book(
        &[corpus("pgn/Fischer.pgn")],
        &MakeOptions {
            only_white: true,
            ..compat()
        },
        &|_| {},
    )
    .unwrap()
    .entries;
    let black = make_book(
        &[corpus("pgn/Fischer.pgn")],
        &MakeOptions {
            only_black: true,
            ..compat()
        },
        &|_| {},
    )
    .unwrap()
    .entries;
    assert_eq!(white.len() + black.len(), base.len());
    let start = white.iter().filter(|e| e.key == 0x463b96181691fc9c).count();
    assert!(start > 0);
    assert!(black.iter().all(|e| e.key != 0x463b96181691fc9c));
    let strict = make_book(
        &[corpus("pgn/Fischer.pgn")],
        &MakeOptions {
            min_game: 10,
            min_score: 60.0,
            ..compat()
        },
        &|_| {},
    )
    .unwrap()
    .entries;
    assert!(!strict.is_empty() && strict.len() < base.len());
}
