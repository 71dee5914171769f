//! Building a position index from any SGF bytes, main lines or every variation, never panics,
//! and the answers read through summaries equal those of a full scan for every position the
//! replay yields (the variation bookkeeping of the index sink against the replayer's tree).
//! The pattern index built from the same read and replay of the file (`build_index_with` and
//! `PatternIndexBuilder`) is byte for byte the one built from the finished index, the
//! full-board index is the one built without it (the file streamed), and the pattern index's
//! records replay every node's board as the replay has it: single stones and two-cell shapes
//! sought in every variation or along the main line, counting positions or placements, give
//! the plain scan's answers. Indexes of the main lines cut at 0 and 2 stones answer every
//! lookup as the full index does (`Database::lookup_page`: the entries or the pattern search).
#![no_main]
use kifu_go::replay::{replay_bytes, ReplayOptions, Scope, Step};
use kifu_posdb::extract::Source;
use kifu_posdb::index::{build_index, build_index_with, FileWork, IndexOptions, IndexReader};
use kifu_search::index::{FileRecords, PatternIndex, PatternIndexBuilder};
use kifu_search::scan::Page;
use kifu_search::{Pattern, Placement, Query};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("kifu-fuzz-build-{}", std::process::id()));
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let sgf = dir.join("g.sgf");
    if std::fs::write(&sgf, data).is_err() {
        return;
    }
    for (variations, scope) in [(false, Scope::MainLineOnly), (true, Scope::AllVariations)] {
        let opts = ReplayOptions {
            scope,
            ..Default::default()
        };
        let mut queries = Vec::new();
        let _ = replay_bytes(data, &opts, |s: &Step<'_>| {
            if queries.len() < 64 {
                queries.push((s.position.board(), s.to_play));
            }
        });
        let Some(size) = queries.first().map(|(b, _)| b.size()) else {
            continue;
        };
        let mut dbs = Vec::new();
        for threshold in [1, u64::MAX] {
            let mut o = IndexOptions::new(size);
            o.variations = variations;
            o.summary_threshold = threshold;
            let mut bytes = Vec::new();
            let s = build_index(&[Source::new(&sgf)], &o, &mut bytes, &|| {})
                .expect("an index of any SGF file is built");
            assert!(s.games >= 1);
            let path = dir.join(format!("{threshold}.idx"));
            std::fs::write(&path, &bytes).expect("index written");
            dbs.push(IndexReader::open(&path).expect("a built index opens"));
        }
        // The pattern index from the same read of the file, as from the finished index.
        let kpx = dir.join("p.kpx");
        // Sealed once the file is appended, as `kifu pos index` does: the sidecar is then
        // written beside the index's writing, and `finish` only puts it in place.
        let builder = std::sync::Mutex::new(
            PatternIndexBuilder::new(&kifu_search::index::sidecar_path(&kpx)).expect("builder"),
        );
        let mut append = |s: &Source, first, r| builder.lock().unwrap().append(s, first, r);
        let mut appended = || builder.lock().unwrap().seal();
        let work = FileWork {
            visit: &FileRecords::build,
            append: &mut append,
            appended: Some(&mut appended),
        };
        let mut o = IndexOptions::new(size);
        o.variations = variations;
        let mut out = std::fs::File::create(&kpx).expect("index file");
        build_index_with(&[Source::new(&sgf)], &o, &mut out, &|| {}, Some(work))
            .expect("an index of any SGF file is built");
        drop(out);
        // Parsed into a tree and replayed once for both indexes, or streamed: the same bytes.
        let mut streamed = Vec::new();
        build_index(&[Source::new(&sgf)], &o, &mut streamed, &|| {})
            .expect("an index of any SGF file is built");
        assert!(
            std::fs::read(&kpx).ok() == Some(streamed),
            "the index built with the pattern records is not the one built alone"
        );
        let reader = IndexReader::open(&kpx).expect("opens");
        let files = kifu_search::collection::index_files(&reader).expect("files");
        let fingerprint = kifu_search::index::fingerprint(&files);
        // Read without the list, the same fingerprint.
        assert_eq!(
            kifu_search::index::index_fingerprint(&reader).expect("fingerprint"),
            fingerprint
        );
        let builder = builder.into_inner().unwrap();
        assert_eq!(builder.fingerprint(), fingerprint);
        // One file, given once: the reads always serve (a file without games is in neither
        // list).
        let from_read = builder.finish(fingerprint).expect("written");
        assert!(from_read.is_some());
        let sidecar = kifu_search::index::sidecar_path(&kpx);
        let bytes = std::fs::read(&sidecar).ok();
        let again = PatternIndex::build_to(&files, &sidecar, fingerprint).expect("built");
        assert!(again.is_some());
        if from_read.is_some() {
            assert_eq!(bytes, std::fs::read(&sidecar).ok());
        }
        if let Some(index) = &again {
            // Every variation or the main line (the index keeps both either way), counting
            // positions (by stretches, for these patterns without wildcards) and placements.
            let mut queries = Vec::new();
            for rows in ["#", "O", "#O", "#\n.", "#*"] {
                for counting in [
                    kifu_search::Counting::Positions,
                    kifu_search::Counting::Placements,
                ] {
                    let mut q =
                        Query::new(Pattern::parse(rows).expect("pattern"), Placement::Anywhere);
                    q.variations = variations;
                    q.counting = counting;
                    queries.push(q);
                }
            }
            let page = Page {
                offset: 0,
                limit: 3,
            };
            let indexed = index.search_many(&queries, page, Some(size), None);
            // The same by the dense prune (every place of every game of the main line).
            index.set_dense_prune(kifu_search::index::DensePrune::Always);
            let dense = index.search_many(&queries, page, Some(size), None);
            for ((q, answer), dense) in queries.iter().zip(indexed).zip(dense) {
                let scanned = kifu_search::collection::search_files(&files, q, page, Some(size));
                assert_eq!(answer, scanned.answer, "{}", q.pattern.to_rows());
                assert_eq!(dense, scanned.answer, "{} (dense)", q.pattern.to_rows());
            }
        }
        for (board, to_play) in queries.iter().filter(|(b, _)| b.size() == size) {
            for swap in [false, true] {
                let full = dbs[1].lookup(board, *to_play, swap).expect("lookup");
                assert_eq!(dbs[0].lookup(board, *to_play, swap).expect("lookup"), full);
                let page = dbs[0].lookup_page(board, *to_play, swap, 5).expect("page");
                assert_eq!(page.occurrences, full.occurrences.len() as u64);
            }
        }
        if variations || again.is_none() {
            continue;
        }
        // Entries cut by stones (the same games, so the same pattern index serves): boards the
        // entries hold are answered by them, the others by the pattern search, all as the
        // full index answers them.
        for most in [0u16, 2] {
            let mut o = IndexOptions::new(size);
            o.most_stones = Some(most);
            let mut bytes = Vec::new();
            build_index(&[Source::new(&sgf)], &o, &mut bytes, &|| {})
                .expect("a cut index of any SGF file is built");
            std::fs::write(&kpx, &bytes).expect("index written");
            let cut = kifu_search::Database::open(&kpx).expect("a cut index opens");
            for (board, to_play) in queries.iter().filter(|(b, _)| b.size() == size) {
                for swap in [false, true] {
                    let want = dbs[1].lookup_page(board, *to_play, swap, 5).expect("page");
                    let held = cut.reader().lookup_page(board, *to_play, swap, 5);
                    assert_eq!(held.is_ok(), board.stone_count() <= usize::from(most));
                    assert_eq!(cut.lookup_page(board, *to_play, swap, 5).expect("page"), want);
                }
            }
        }
    }
});
