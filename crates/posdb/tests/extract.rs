//! Extraction: symmetric games give the same keys, the output agrees with the Keyer and with an
//! independent count on the 9x9 corpus games, and does not depend on threads or spilling.

use kifu_go::replay::{replay_bytes, ReplayOptions, Scope, Step};
use kifu_go::transform::transform_collection;
use kifu_go::{BoardSize, Color, Symmetry, ZobristKeys, ZobristTable};
use kifu_posdb::extract::{extract, ExtractOptions, ExtractSummary, Source, SourceKind};
use kifu_posdb::{Keyer, PositionReader, PositionRecord};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

mod common;
use common::sgf_files;

fn corpus() -> PathBuf {
    common::games().join("fuego-regression")
}

/// The 9x9 games of the Fuego regression suite, selected by their SZ.
fn nine_by_nine() -> Vec<PathBuf> {
    sgf_files(&corpus())
        .into_iter()
        .filter(|p| {
            let t = std::fs::read(p).unwrap();
            t.windows(5).any(|w| w == b"SZ[9]")
        })
        .collect()
}

fn sources(paths: &[PathBuf]) -> Vec<Source> {
    paths
        .iter()
        .map(|p| Source {
            path: p.clone(),
            kind: SourceKind::Sgf,
        })
        .collect()
}

fn run(sources: &[Source], opts: &ExtractOptions, threads: usize) -> (Vec<u8>, ExtractSummary) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let mut out = Vec::new();
    let s = pool.install(|| extract(sources, opts, &mut out, &|| {}).unwrap());
    (out, s)
}

/// The independent count: boards compared under the 8 symmetries as row strings, no hashing.
fn independent_count(paths: &[PathBuf], scope: Scope) -> usize {
    let mut seen: HashSet<(Vec<u8>, Color)> = HashSet::new();
    let opts = ReplayOptions {
        scope,
        ..Default::default()
    };
    for p in paths {
        let bytes = std::fs::read(p).unwrap();
        let _ = replay_bytes(&bytes, &opts, |s: &Step<'_>| {
            let b = s.position.board();
            if b.size() != BoardSize::NINE {
                return;
            }
            let form = Symmetry::ALL
                .iter()
                .map(|&t| b.transform(t).to_rows())
                .min()
                .unwrap();
            seen.insert((form, s.to_play));
        });
    }
    seen.len()
}

#[test]
fn corpus_counts_match_an_independent_count() {
    let paths = nine_by_nine();
    assert_eq!(paths.len(), 370, "the corpus README says 370 9x9 games");
    for (scope, variations) in [(Scope::MainLineOnly, false), (Scope::AllVariations, true)] {
        let mut opts = ExtractOptions::new(BoardSize::NINE);
        opts.scope = scope;
        let (bytes, s) = run(&sources(&paths), &opts, 2);
        let expected = independent_count(&paths, scope);
        assert_eq!(s.distinct as usize, expected, "variations {variations}");
        assert_eq!(s.written as usize, expected);
        assert_eq!(bytes.len(), expected * 92);
        // Every record's id is what the Keyer gives its board, in file order.
        let mut keyer = Keyer::new(ZobristKeys::default_for(BoardSize::NINE));
        let recs: Vec<PositionRecord> = PositionReader::new(&bytes[..], BoardSize::NINE)
            .collect::<Result<_, _>>()
            .unwrap();
        for r in &recs {
            assert_eq!(keyer.key(&r.board, r.id.to_play).unwrap(), r.id);
            assert!(r.extra.is_none());
        }
    }
    // The whole folder (other sizes skipped) gives the same positions as the 9x9 files alone.
    let opts = ExtractOptions::new(BoardSize::NINE);
    let (all, s) = run(&sources(&sgf_files(&corpus())), &opts, 2);
    let (nine, _) = run(&sources(&paths), &opts, 2);
    assert!(s.games_other_size > 0);
    let ids = |b: &[u8]| {
        PositionReader::new(b, BoardSize::NINE)
            .map(|r| r.unwrap().id)
            .collect::<HashSet<_>>()
    };
    assert_eq!(ids(&all), ids(&nine));
}

#[test]
fn output_is_independent_of_threads_batches_and_spilling() {
    let paths: Vec<PathBuf> = nine_by_nine().into_iter().step_by(3).collect();
    let src = sources(&paths);
    let mut opts = ExtractOptions::new(BoardSize::NINE);
    opts.scope = Scope::AllVariations;
    opts.file_ids = Some((1..=src.len() as u32).collect());
    let (one, s1) = run(&src, &opts, 1);
    assert_eq!(s1.spilled_runs, 0);
    opts.batch = 7;
    let (four, _) = run(&src, &opts, 4);
    assert_eq!(one, four);
    opts.memory_limit = 5000;
    let (spilled, s) = run(&src, &opts, 3);
    assert!(s.spilled_runs > 10, "{} runs", s.spilled_runs);
    assert_eq!(spilled, one);
    assert_eq!((s.distinct, s.written), (s1.distinct, s1.written));
    // Extra info: 100-byte records whose file id is the source's.
    assert_eq!(one.len() as u64, s1.written * 100);
    let first = PositionReader::new(&one[..], BoardSize::NINE)
        .next()
        .unwrap()
        .unwrap();
    let e = first.extra.unwrap();
    assert_eq!((e.file_id, e.variation, e.move_number), (1, 0, 0));
    // Every occurrence, still the same with spilling.
    opts.all_occurrences = true;
    let (every, s) = run(&src, &opts, 2);
    assert_eq!(s.written, s.occurrences);
    assert_eq!(every.len() as u64, s.occurrences * 100);
    opts.memory_limit = 256 << 20;
    assert_eq!(run(&src, &opts, 1).0, every);
}

#[test]
fn the_eight_transforms_of_a_game_give_the_same_keys() {
    let opts = ReplayOptions::default();
    let keys_of = |bytes: &[u8]| {
        let mut v = Vec::new();
        let _ = replay_bytes(bytes, &opts, |s: &Step<'_>| {
            v.push((s.position.canonical().hash, s.to_play, s.move_number))
        });
        v
    };
    // The first 9x9 game with a long main line (and setup stones, if any, transformed too).
    let text = nine_by_nine()
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .find(|t| keys_of(t).len() > 40)
        .unwrap();
    let coll = kifu_sgf::Collection::parse(&text).collection;
    let dir = tempfile::tempdir().unwrap();
    let base = keys_of(&text);
    let mut files = Vec::new();
    for s in Symmetry::ALL {
        let t = kifu_sgf::write(&transform_collection(&coll, s).unwrap());
        assert_eq!(keys_of(t.as_bytes()), base, "{s}");
        let p = dir.path().join(format!("t{}.sgf", s.index()));
        std::fs::write(&p, t).unwrap();
        files.push(p);
    }
    // Extracted one by one, the 8 files give the same ids; together, only the first file's
    // positions are written.
    let eopts = ExtractOptions::new(BoardSize::NINE);
    let ids = |b: &[u8]| {
        PositionReader::new(b, BoardSize::NINE)
            .map(|r| r.unwrap().id)
            .collect::<Vec<_>>()
    };
    let first = run(&sources(&files[..1]), &eopts, 1).0;
    for f in &files[1..] {
        assert_eq!(
            ids(&run(&sources(std::slice::from_ref(f)), &eopts, 1).0),
            ids(&first)
        );
    }
    assert_eq!(run(&sources(&files), &eopts, 2).0, first);
}

#[test]
fn forced_collisions_get_tiebreakers_in_order_of_appearance() {
    // Every black stone has the same value: one-stone boards all collide.
    let values = (0..81).map(|_| [7u64, 9, 0]).collect();
    let keys = Arc::new(ZobristKeys::new(ZobristTable::from_values(values).unwrap()));
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.txt");
    let board = |i: usize| {
        let mut r = vec![b'.'; 81];
        r[i] = b'#';
        String::from_utf8(r).unwrap()
    };
    // Centre, corner, centre again (W), edge, corner rotated (same as the corner).
    let text = format!(
        "{} B\n{} B\n{} W\n{} B\n{} B\n",
        board(40),
        board(0),
        board(40),
        board(1),
        board(80)
    );
    std::fs::write(&p, text).unwrap();
    let mut opts = ExtractOptions::new(BoardSize::NINE);
    opts.keys = keys;
    opts.memory_limit = 200;
    let src = [Source {
        path: p,
        kind: SourceKind::Ascii,
    }];
    let (bytes, s) = run(&src, &opts, 1);
    let recs: Vec<PositionRecord> = PositionReader::new(&bytes[..], BoardSize::NINE)
        .collect::<Result<_, _>>()
        .unwrap();
    let got: Vec<(u64, u8, char, usize)> = recs
        .iter()
        .map(|r| {
            let stone = r.board.to_rows().iter().position(|&b| b == b'#').unwrap();
            (r.id.hash, r.id.tiebreak, r.id.to_play.letter(), stone)
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (7, 0, 'B', 40),
            (7, 1, 'B', 0),
            (7, 0, 'W', 40),
            (7, 2, 'B', 1)
        ]
    );
    assert_eq!((s.collisions, s.distinct, s.occurrences), (2, 4, 5));
}
