//! The index's summaries give exactly the answers of a full scan: on the SGF game corpus, for the
//! empty board and thousands of positions of its games, with and without colours swapped, at
//! several page sizes, built with the default summary threshold and with a threshold of 16 (so
//! that thousands of keys are summarized, their game sets both lists and bitmaps). The
//! continuations are also recounted from the occurrences and the game table's results.

use kifu_go::replay::{replay_bytes, ReplayOptions, Scope, Step};
use kifu_go::{Board, BoardSize, Color, Move};
use kifu_posdb::extract::Source;
use kifu_posdb::index::{
    build_index, IndexOptions, IndexReader, LookupPage, LookupResult, Winner, NEXT_PASS,
    SUMMARY_THRESHOLD,
};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

mod common;
use common::sgf_files;

fn corpus() -> PathBuf {
    common::games()
}

fn build(paths: &[PathBuf], threshold: u64, dir: &Path) -> IndexReader {
    let mut opts = IndexOptions::new(BoardSize::new(19).unwrap());
    opts.summary_threshold = threshold;
    let mut bytes = Vec::new();
    let sources: Vec<Source> = paths.iter().map(Source::new).collect();
    build_index(&sources, &opts, &mut bytes, &|| {}).unwrap();
    let p = dir.join(format!("t{threshold}.idx"));
    std::fs::write(&p, bytes).unwrap();
    IndexReader::open(&p).unwrap()
}

/// Continuations recounted from the occurrences and the results in the game table.
fn recount(db: &IndexReader, winners: &[Winner], r: &LookupResult) -> Vec<(Move, u64, u64, u64)> {
    let size = db.size();
    let mut stats: HashMap<u16, (Move, u64, u64, u64)> = HashMap::new();
    for o in &r.occurrences {
        let Some(mv) = o.next else { continue };
        let code = match mv {
            Move::Pass => NEXT_PASS,
            Move::Play(p) => p.index(size) as u16,
        };
        let w = winners[o.game as usize];
        let w = if o.swapped { w.swapped() } else { w };
        let s = stats.entry(code).or_insert((mv, 0, 0, 0));
        s.1 += 1;
        s.2 += u64::from(w == Winner::Black);
        s.3 += u64::from(w == Winner::White);
    }
    let mut v: Vec<(u16, (Move, u64, u64, u64))> = stats.into_iter().collect();
    v.sort_by(|a, b| b.1 .1.cmp(&a.1 .1).then(a.0.cmp(&b.0)));
    v.into_iter().map(|(_, s)| s).collect()
}

#[test]
fn summaries_answer_exactly_as_a_full_scan_on_the_corpus() {
    let paths = sgf_files(&corpus());
    assert!(
        paths.len() > 9000,
        "the corpus has {} SGF files",
        paths.len()
    );
    let dir = tempfile::tempdir().unwrap();
    let size = BoardSize::new(19).unwrap();

    // Query positions: the empty board, and every 7th main-line position up to move 140 of every
    // 40th file.
    let mut queries: Vec<(Board, Color)> = vec![(Board::new(size), Color::Black)];
    let opts = ReplayOptions {
        scope: Scope::MainLineOnly,
        ..Default::default()
    };
    for p in paths.iter().step_by(40) {
        let bytes = std::fs::read(p).unwrap();
        let _ = replay_bytes(&bytes, &opts, |s: &Step<'_>| {
            if s.game == 0
                && s.move_number.is_multiple_of(7)
                && s.move_number <= 140
                && s.position.size() == size
            {
                queries.push((s.position.board(), s.to_play));
            }
        });
    }
    assert!(queries.len() > 3000, "{} queries", queries.len());

    for threshold in [SUMMARY_THRESHOLD, 16] {
        let db = build(&paths, threshold, dir.path());
        assert!(db.summaries() > 0);
        let winners: Vec<Winner> = (0..db.games() as u32)
            .map(|g| db.game(g).unwrap().winner)
            .collect();
        let (mut summarized, mut both_keys, mut shared_games) = (0, 0, 0);
        for (board, to_play) in &queries {
            for swap in [false, true] {
                let full = db.lookup(board, *to_play, swap).unwrap();
                let conts: Vec<(Move, u64, u64, u64)> = full
                    .continuations
                    .iter()
                    .map(|c| (c.mv, c.count, c.black_wins, c.white_wins))
                    .collect();
                assert_eq!(conts, recount(&db, &winners, &full));
                for limit in [0, 1, 20, 5000] {
                    let page = db.lookup_page(board, *to_play, swap, limit).unwrap();
                    assert_eq!(
                        page,
                        LookupPage::from_result(&full, limit),
                        "threshold {threshold}, swap {swap}, limit {limit}, {:016x}",
                        full.hash
                    );
                }
                let plain = full.occurrences.iter().filter(|o| !o.swapped).count() as u64;
                let swapped = full.occurrences.len() as u64 - plain;
                if plain.max(swapped) >= threshold {
                    summarized += 1;
                }
                if plain > 0 && swapped > 0 {
                    both_keys += 1;
                    let page = db.lookup_page(board, *to_play, swap, 0).unwrap();
                    let per_key: u64 = [false, true]
                        .into_iter()
                        .map(|s| {
                            let mut g: Vec<u32> = full
                                .occurrences
                                .iter()
                                .filter(|o| o.swapped == s)
                                .map(|o| o.game)
                                .collect();
                            g.dedup();
                            g.len() as u64
                        })
                        .sum();
                    if page.games < per_key {
                        shared_games += 1;
                    }
                }
            }
        }
        // The paths of interest were taken: summaries, and both keys matched (with games found
        // under both, which the game sets must count once).
        assert!(summarized > 20, "threshold {threshold}: {summarized}");
        if threshold == 16 {
            assert!(both_keys > 20, "{both_keys}");
            assert!(shared_games > 0, "{shared_games}");
        }
        // The empty board is summarized and its page lists the first games.
        let page = db
            .lookup_page(&Board::new(size), Color::Black, false, 3)
            .unwrap();
        assert!(page.occurrences >= SUMMARY_THRESHOLD);
        assert_eq!(
            page.first.iter().map(|o| o.game).collect::<Vec<_>>(),
            vec![0, 1, 2]
        );
    }
}
