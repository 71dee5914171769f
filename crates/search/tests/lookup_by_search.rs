//! A full-board lookup answered by the pattern index (`lookup::lookup_page_by_search`) against
//! the full-board index's entries (`IndexReader::lookup_page`), field by field: hash, counts,
//! continuations with their wins, and the first occurrences with their symmetries and next
//! moves, with and without colours swapped, at several page sizes. Positions are taken along
//! the main lines of a spread of the shared corpus (the empty board, symmetric openings and
//! positions after captures among them) and of a hand-made file with passes, setup in the
//! middle of a game, variations, symmetric boards reached in several orientations, and a board
//! that a symmetry maps onto its colours swapped, reached with either side to move. An index of every variation is refused (see the
//! function's docs). An index cut by stones answers `Database::lookup` as the full one does.

mod common;

use kifu_go::replay::{replay_game, ReplayOptions, Scope, Step};
use kifu_go::{Board, BoardSize, Color};
use kifu_posdb::extract::Source;
use kifu_search::lookup::lookup_page_by_search;
use kifu_search::Database;
use std::path::PathBuf;

const HAND_MADE: &str = "(;GM[1]SZ[19]PB[Hand]PW[Made]DT[2020-01-02]RE[W+R]\
;B[pd];W[dp];B[pq](;W[dd];B[fq];W[dn];B[qk]\
;W[];B[]AB[jj]AW[kk];B[pp]W[cc];W[qc];B[qd];W[rd];B[pc];W[rc]\
;B[qb];W[rb];B[pb];W[ra];B[sc])\
(;W[dc];B[ce];W[ed](;B[dj])(;B[qk];W[jd])))\
(;GM[1]SZ[19]PB[Same]PW[Start]RE[B+R];B[pd];W[dp];B[pq];W[dd];B[];W[])\
(;GM[1]SZ[19]PB[Sym]PW[A]RE[B+1.5];B[jj];W[dd];B[pp];W[dp];B[pd];W[jd])\
(;GM[1]SZ[19]PB[Sym]PW[B]RE[W+1.5];B[jj];W[pp];B[dd];W[pd];B[dp];W[jp])\
(;GM[1]SZ[19]PB[Sym]PW[C]RE[B+R];B[jj];W[dp];B[pd];W[dd];B[pp];W[dj])\
(;GM[1]SZ[19]PB[Sym]PW[D]RE[W+R];B[jj];W[pd];B[dp];W[pp];B[dd];W[pj])\
(;GM[1]SZ[19]PB[Swap]PW[Sym]RE[B+R];B[dd];W[pp];B[];W[];B[qq])";

/// Every `every`-th main-line position of the first `games` games of each file, and its side
/// to move.
fn positions(files: &[PathBuf], every: usize, games: usize) -> Vec<(Board, Color, String)> {
    let mut out = Vec::new();
    for f in files {
        let Ok(coll) = Source::new(f).read_games() else {
            continue;
        };
        for game in coll.games().take(games) {
            let opts = ReplayOptions {
                scope: Scope::MainLineOnly,
                ..ReplayOptions::default()
            };
            let _ = replay_game(game, &opts, |s: &Step<'_>| {
                if s.position.size() == BoardSize::NINETEEN && s.node_index.is_multiple_of(every) {
                    let name = format!("{} node {}", f.display(), s.node_index);
                    out.push((s.position.board(), s.to_play, name));
                }
            });
        }
    }
    out
}

fn compare(db: &Database, positions: &[(Board, Color, String)]) -> usize {
    let mut found = 0;
    for (board, to_play, name) in positions {
        for swap in [false, true] {
            for limit in [0, 3, 20] {
                let want = db
                    .reader()
                    .lookup_page(board, *to_play, swap, limit)
                    .unwrap();
                let got = lookup_page_by_search(db, board, *to_play, swap, limit).unwrap();
                assert_eq!(got, want, "{name}, swap {swap}, limit {limit}");
                found += usize::from(want.occurrences > 0);
            }
        }
    }
    found
}

#[test]
fn the_pattern_index_answers_lookups_as_the_entries_do() {
    let games = kifu_testdata::corpus().join("sgf/games");
    let all = kifu_testdata::sgf_files(&games);
    assert!(!all.is_empty(), "no corpus at {}", games.display());
    let dir = tempfile::tempdir().unwrap();
    let hand = dir.path().join("hand.sgf");
    std::fs::write(&hand, HAND_MADE).unwrap();
    let step = (all.len() / 300).max(1);
    let mut files: Vec<PathBuf> = all.iter().step_by(step).cloned().collect();
    files.push(hand.clone());
    // Positions of a part of the files (every 9th node), and of the hand-made games (every
    // node; four of them reach boards symmetric under some symmetries, in four orientations,
    // where the symmetry a lookup reports is one of several): the lookups that find something
    // are most of them.
    let mut asked = positions(&files[..files.len().min(80)], 9, 1);
    asked.extend(positions(&[hand], 1, usize::MAX));
    assert!(asked.len() > 300, "{} positions", asked.len());
    let db = common::build(dir.path(), &files, 19, false);
    let found = compare(&db, &asked);
    assert!(found > asked.len(), "{found} lookups found something");
    // An index whose entries are cut by stones answers every lookup as the full one does:
    // from its entries up to the cut, by the pattern search above it.
    for most in [4, 12] {
        let cut = common::build_cut(dir.path(), &files, 19, false, Some(most));
        assert_eq!(cut.reader().most_stones(), Some(most));
        assert!(cut.reader().entries() < db.reader().entries() / 4);
        let mut held = 0;
        for (board, to_play, name) in &asked {
            held += usize::from(board.stone_count() <= usize::from(most));
            for swap in [false, true] {
                let want = db.lookup(board, *to_play, swap, 5).unwrap();
                let got = cut.lookup(board, *to_play, swap, 5).unwrap();
                assert_eq!(got, want, "{name}, swap {swap}, cut at {most}");
            }
        }
        assert!(held > 20 && held < asked.len() / 2, "{held} held at {most}");
    }
    // An index of every variation counts a position followed by a variation's move apart:
    // refused, not answered otherwise.
    let all = common::build(dir.path(), &files, 19, true);
    let (board, to_play, _) = &asked[0];
    let refused = lookup_page_by_search(&all, board, *to_play, false, 20).unwrap_err();
    assert!(refused.to_string().contains("every variation"), "{refused}");
}
