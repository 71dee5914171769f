//! Building and reading indexes end to end: small hand-made games, and the corpus.

use super::format::{ENTRY_BYTES, FILE_BYTES, GAME_BYTES, HEADER_BYTES, TRAILER_BYTES};
use super::*;
use crate::extract::Source;
use kifu_go::replay::{ReplayOptions, Step};
use kifu_go::{Board, Color, Move, ZobristTable};

fn srcs(paths: &[PathBuf]) -> Vec<Source> {
    paths.iter().map(Source::new).collect()
}

/// Each text written to `dir` as `0.sgf`, `1.sgf`, ...
fn write_games(dir: &std::path::Path, texts: &[&str]) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        let p = dir.join(format!("{i}.sgf"));
        std::fs::write(&p, t).unwrap();
        paths.push(p);
    }
    paths
}

#[test]
fn results_name_winners() {
    let cases = [
        ("B+R", Winner::Black),
        ("w+3.5", Winner::White),
        ("0", Winner::Draw),
        ("Jigo", Winner::Draw),
        ("Void", Winner::Unknown),
        ("", Winner::Unknown),
    ];
    for (re, w) in cases {
        assert_eq!(Winner::from_result(re), w, "{re}");
    }
    assert_eq!(Winner::Black.swapped(), Winner::White);
}

/// The second hash kept up to date (fast path and board comparison) equals a full hash at
/// every position (the sink asserts it in unit tests): the corpus's 19x19 and 9x9 games, and
/// games with setup in move nodes, two moves in a node, captures, a move onto a stone,
/// passes and comment nodes. The index is the same for the two paths by construction.
#[test]
fn second_hash_kept_up_to_date_equals_a_full_hash() {
    let dir = tempfile::tempdir().unwrap();
    let tricky = [
        "(;GM[1]SZ[5];B[aa]AB[bb];W[cc]AE[bb];C[x];B[dd]W[ee];W[];AW[ab]AB[ac];B[ad])",
        "(;GM[1]SZ[5];B[ba];W[aa];B[ab];W[bb];B[aa])(;GM[1]SZ[5]AB[aa][bb];W[aa];B[ab]PL[B])",
        "(;GM[1]SZ[5];B[cc];W[cc];B[];W[];B[dc];AE[dc];W[dc])",
        "(;GM[1]SZ[5];B[ab];W[ba];B[bb];W[ca];B[ac];W[aa];B[da];W[ea];B[cb])",
        // Siblings that each add one stone to the same parent, and a capture in one branch.
        "(;GM[1]SZ[5];B[aa](;W[bb];B[cc])(;W[cc];B[bb])(;W[ab];B[ba];W[dd](;B[ee])(;B[ed])))",
    ];
    let paths = write_games(dir.path(), &tricky);
    for variations in [false, true] {
        let mut opts = IndexOptions::new(BoardSize::new(5).unwrap());
        opts.variations = variations;
        let s = build_index(&srcs(&paths), &opts, &mut io::sink(), &|| {}).unwrap();
        assert_eq!((s.games, s.games_failed), (6, 0));
    }
    let files = kifu_testdata::sgf_files(&kifu_testdata::corpus().join("sgf/games"));
    assert!(files.len() > 9000);
    for (size, variations) in [(19, false), (9, false), (19, true), (9, true)] {
        let mut opts = IndexOptions::new(BoardSize::new(size).unwrap());
        opts.variations = variations;
        let s = build_index(&srcs(&files), &opts, &mut io::sink(), &|| {}).unwrap();
        assert!(s.entries > 20_000, "{size}: {}", s.entries);
    }
}

/// Every variation indexed: one entry per continuation of a node, one for each leaf, moves
/// of variations marked and left out of win rates; the second hash stays right when a
/// variation branches from an earlier node.
#[test]
fn variations_are_indexed_once_per_continuation() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("v.sgf");
    // Nodes: 0 root, 1 B[aa], 2 W[bb], 3 B[cc] (main line); 4 W[dd], 5 B[ee] (variation
    // 1); 6 a comment node after W[dd], 7 B[ac] (variation 2).
    std::fs::write(
        &g,
        "(;GM[1]SZ[5]RE[B+R];B[aa](;W[bb];B[cc])(;W[dd](;B[ee])(;C[x];B[ac])))",
    )
    .unwrap();
    let size = BoardSize::new(5).unwrap();
    let build = |variations: bool| {
        let mut opts = IndexOptions::new(size);
        opts.variations = variations;
        let mut bytes = Vec::new();
        let s = build_index(&[Source::new(&g)], &opts, &mut bytes, &|| {}).unwrap();
        let p = dir.path().join(format!("db{variations}"));
        std::fs::write(&p, &bytes).unwrap();
        (s, IndexReader::open(&p).unwrap())
    };
    let (main, main_db) = build(false);
    let (all, db) = build(true);
    assert_eq!(
        (main.games, main.entries, main_db.variations()),
        (1, 4, false)
    );
    // root; B[aa] twice (W[bb], W[dd]); W[bb]; B[cc]; W[dd] twice (B[ee], and B[ac] after the
    // comment node); B[ee]; B[ac].
    assert_eq!((all.games, all.entries, db.variations()), (1, 9, true));
    assert_eq!(db.game(0).unwrap().moves, 3, "moves of the main line");
    let pt = |s: &str| Move::Play(kifu_go::Point::from_sgf(s.as_bytes(), size).unwrap());
    let after_aa = Board::from_rows(b"#........................", Some(size)).unwrap();
    let r = db.lookup(&after_aa, Color::White, false).unwrap();
    let seen: Vec<_> = r
        .occurrences
        .iter()
        .map(|o| (o.game, o.move_number, o.next, o.in_variation))
        .collect();
    assert_eq!(seen.len(), 2);
    assert!(seen.contains(&(0, 1, Some(pt("bb")), false)));
    assert!(seen.contains(&(0, 1, Some(pt("dd")), true)));
    let mut conts: Vec<_> = r
        .continuations
        .iter()
        .map(|c| (c.mv, c.count, c.black_wins, c.white_wins))
        .collect();
    conts.sort_by_key(|c| c.0 == pt("dd"));
    // Only the main line's move counts the game's win.
    assert_eq!(conts, [(pt("bb"), 1, 1, 0), (pt("dd"), 1, 0, 0)]);
    let main_r = main_db.lookup(&after_aa, Color::White, false).unwrap();
    assert_eq!(main_r.occurrences.len(), 1);
    // After W[dd]: only in variations, continued by B[ee] and (after the comment) B[ac].
    let after_dd = Board::from_rows(b"#.................O......", Some(size)).unwrap();
    let r = db.lookup(&after_dd, Color::Black, false).unwrap();
    let mut nexts: Vec<_> = r
        .occurrences
        .iter()
        .map(|o| (o.move_number, o.next, o.in_variation))
        .collect();
    // The position is symmetric about the diagonal: A3 (ac) is named by the representative
    // of its class {ac, ca}, the lower point index, C5 (ca).
    nexts.sort_by_key(|n| n.1 == Some(pt("ca")));
    assert_eq!(
        nexts,
        [(2, Some(pt("ee")), true), (2, Some(pt("ca")), true)]
    );
    let page = db.lookup_page(&after_dd, Color::Black, false, 20).unwrap();
    assert_eq!((page.occurrences, page.games), (2, 1));
    assert!(main_db
        .lookup(&after_dd, Color::Black, false)
        .unwrap()
        .occurrences
        .is_empty());
    // The leaves: B[ac] ends variation 2 with no next move.
    let after_ac = Board::from_rows(b"#.........#.......O......", Some(size)).unwrap();
    let r = db.lookup(&after_ac, Color::White, false).unwrap();
    assert_eq!(r.occurrences.len(), 1);
    assert_eq!(
        (r.occurrences[0].next, r.occurrences[0].in_variation),
        (None, true)
    );
}

#[test]
fn summary_counts_from_a_damaged_file_do_not_overflow() {
    // Found by fuzzing posdb_index: a summary whose continuation counts sum past u64::MAX.
    let bytes =
        include_bytes!("../../../../fuzz/seeds/posdb_index/regression-summary-overflow.idx");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("damaged.idx");
    std::fs::write(&path, bytes).unwrap();
    let db = IndexReader::open(&path).unwrap();
    let board = Board::new(db.size());
    // Errors are fine; a panic is not. Sums of stored counts saturate instead of wrapping.
    assert!(db.lookup(&board, Color::Black, true).is_ok());
    assert!(db.lookup_page(&board, Color::Black, true, 20).is_err());
    let page = db.lookup_page(&board, Color::White, false, 20).unwrap();
    assert_eq!((page.occurrences, page.games), (2, 2));
    let counts: Vec<_> = page
        .continuations
        .iter()
        .map(|c| (c.count, c.black_wins, c.white_wins))
        .collect();
    assert_eq!(counts, [(u64::MAX, 0, 0)]);
}

#[test]
fn build_open_lookup_and_damaged_files() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g.sgf");
    std::fs::write(&g, "(;GM[1]SZ[5]PB[x\ty]RE[B+1];B[cc];W[bb];B[])").unwrap();
    let mut bytes = Vec::new();
    let size = BoardSize::new(5).unwrap();
    let s = build_index(
        &[Source::new(&g)],
        &IndexOptions::new(size),
        &mut bytes,
        &|| {},
    )
    .unwrap();
    assert_eq!((s.games, s.entries, s.files), (1, 4, 1));
    let covered = HEADER_BYTES
        + ZobristTable::generate(size).to_text().len()
        + 4 * ENTRY_BYTES
        + GAME_BYTES
        + FILE_BYTES
        + g.display().to_string().len()
        + "x y\t\t\tB+1".len();
    // The checksums: 8 bytes a block of 4 KiB.
    assert_eq!(
        bytes.len(),
        covered + covered.div_ceil(4096) * 8 + TRAILER_BYTES
    );
    let p = dir.path().join("db");
    std::fs::write(&p, &bytes).unwrap();
    let db = IndexReader::open(&p).unwrap();
    let game = db.game(0).unwrap();
    assert_eq!(
        (
            game.black.as_str(),
            game.result.as_str(),
            game.moves,
            game.winner
        ),
        ("x y", "B+1", 3, Winner::Black)
    );
    // After B[cc] W[bb]: Black to play, and Black passed.
    let board = Board::from_rows(b"......O.....#............", Some(size)).unwrap();
    let r = db.lookup(&board, Color::Black, false).unwrap();
    assert_eq!(r.occurrences.len(), 1);
    assert_eq!(r.occurrences[0].next, Some(Move::Pass));
    assert_eq!(r.continuations[0].mv, Move::Pass);
    assert!(db
        .lookup(&Board::new(BoardSize::NINE), Color::Black, false)
        .is_err());
    // Damaged files are errors, never panics.
    for cut in [0usize, 10, 79, 100, bytes.len() - 50] {
        std::fs::write(&p, &bytes[..cut]).unwrap();
        assert!(IndexReader::open(&p).is_err(), "cut {cut}");
    }
    // Any byte changed is refused (the file is one block, checked at opening); one of the
    // header (the magic too) names the block, whatever the header then seems to say.
    for at in 0..bytes.len() {
        let mut bad = bytes.clone();
        bad[at] ^= 0x40;
        std::fs::write(&p, &bad).unwrap();
        match IndexReader::open(&p) {
            Err(IndexError::Damaged { from, to, .. }) if at < covered => {
                assert_eq!((from, to), (0, covered as u64), "byte {at}")
            }
            Err(e) => assert!(at >= covered, "byte {at}: {e}"),
            Ok(_) => panic!("byte {at}"),
        }
    }
    // A torn file (the trailer cut) is refused; so is format 1.
    for cut in [1, 24, 30, 40, 50] {
        std::fs::write(&p, &bytes[..bytes.len() - cut]).unwrap();
        assert!(matches!(IndexReader::open(&p), Err(IndexError::Format(_))));
    }
    // Without a trailer of format 4 to check it against, a magic is taken as it is.
    let mut bad = bytes.clone();
    let at = bytes.len() - TRAILER_BYTES;
    bad[at..at + 8].copy_from_slice(b"notatail");
    bad[0] = b'X';
    std::fs::write(&p, &bad).unwrap();
    assert!(matches!(
        IndexReader::open(&p),
        Err(IndexError::Format("bad magic"))
    ));
    bad[..8].copy_from_slice(b"KIFUPIX1");
    std::fs::write(&p, &bad).unwrap();
    let e = IndexReader::open(&p).unwrap_err();
    assert!(matches!(e, IndexError::OldFormat(1)));
    assert_eq!(
        e.to_string(),
        "an index of format 1 (from an older kifu): rebuild it with `kifu pos index`"
    );
}

/// Every key summarized (threshold 1) or none: the same pages as a full scan, with colours
/// swapped too (games found under both keys counted once, through lists and bitmaps).
#[test]
fn summaries_of_every_key_give_the_scan_answers() {
    let dir = tempfile::tempdir().unwrap();
    let size = BoardSize::new(5).unwrap();
    let games = [
        "(;GM[1]SZ[5]RE[B+1];B[cc];W[bb];B[dd];W[])",
        "(;GM[1]SZ[5]RE[W+1];W[cc];B[bb];W[dd])",
        "(;GM[1]SZ[5]RE[W+R];B[aa];W[];B[];W[ee])",
        "(;GM[1]SZ[5]RE[0];B[ee];W[aa];B[cc])",
        "(;GM[1]SZ[5];B[cc];W[dd];B[bb])",
        "(;GM[1]SZ[5]RE[W+1];B[];W[cc];B[dd])",
        // Variations that transpose into each other and into game 0.
        "(;GM[1]SZ[5]RE[B+2];B[cc](;W[bb];B[dd])(;W[dd];B[bb];W[])(;W[bb];C[x];B[ee]))",
    ];
    let paths = write_games(dir.path(), &games);
    let mut all_dbs = Vec::new();
    for variations in [false, true] {
        let mut dbs = Vec::new();
        for threshold in [1, 2, 1000] {
            let mut opts = IndexOptions::new(size);
            opts.summary_threshold = threshold;
            opts.variations = variations;
            let mut bytes = Vec::new();
            let s = build_index(&srcs(&paths), &opts, &mut bytes, &|| {}).unwrap();
            assert_eq!(s.summaries > 0, threshold < 1000);
            let p = dir.path().join(format!("{threshold}-{variations}.idx"));
            std::fs::write(&p, &bytes).unwrap();
            dbs.push(IndexReader::open(&p).unwrap());
        }
        all_dbs.push(dbs);
    }
    // Every position of every game and variation, and the empty board.
    let mut queries = vec![
        (Board::new(size), Color::Black),
        (Board::new(size), Color::White),
    ];
    let opts = ReplayOptions::default();
    for p in &paths {
        let bytes = std::fs::read(p).unwrap();
        let _ = kifu_go::replay::replay_bytes(&bytes, &opts, |s: &Step<'_>| {
            queries.push((s.position.board(), s.to_play));
        });
    }
    for (board, to_play) in &queries {
        for (swap, dbs) in [false, true]
            .into_iter()
            .flat_map(|s| all_dbs.iter().map(move |d| (s, d)))
        {
            let full = dbs[2].lookup(board, *to_play, swap).unwrap();
            for db in dbs {
                assert_eq!(db.lookup(board, *to_play, swap).unwrap(), full);
                for limit in [0, 1, 2, 10] {
                    assert_eq!(
                        db.lookup_page(board, *to_play, swap, limit).unwrap(),
                        LookupPage::from_result(&full, limit)
                    );
                }
            }
        }
    }
    // Damaged summaries, directory or trailer: errors or answers, never a panic.
    let mut opts = IndexOptions::new(size);
    opts.summary_threshold = 1;
    let mut bytes = Vec::new();
    build_index(&srcs(&paths), &opts, &mut bytes, &|| {}).unwrap();
    let db1 = IndexReader::open(&dir.path().join("1-false.idx")).unwrap();
    let from = (db1.sum_off_for_tests() as usize).min(bytes.len());
    let p = dir.path().join("bad.idx");
    for at in from..bytes.len() {
        for v in [0u8, 0xFF, bytes[at] ^ 1] {
            let mut bad = bytes.clone();
            bad[at] = v;
            std::fs::write(&p, &bad).unwrap();
            if let Ok(db) = IndexReader::open(&p) {
                for (board, to_play) in &queries[..4] {
                    let _ = db.lookup_page(board, *to_play, true, 3);
                    let _ = db.lookup_page(board, *to_play, false, 3);
                }
            }
        }
    }
    // The empty board, Black to play: every game at its root (game 1's root too: the side to
    // play at a root is Black); White to play (colours swapped): game 5, after Black's pass.
    // Game 5 counts once.
    for db in all_dbs.iter().flatten() {
        let p = db
            .lookup_page(&Board::new(size), Color::Black, true, 10)
            .unwrap();
        assert_eq!((p.occurrences, p.games, p.swapped), (8, 7, 1));
    }
    // After B[cc] W[bb] B[dd] (White to play): game 0 (Black won) on its main line; game 4
    // (rotated by 180 degrees, its last move); game 6 on its main line (a leaf) and through
    // the transposition W[dd] B[bb] of its second variation, continued by a pass there.
    let board = Board::from_rows(b"......O.....#.....#......", Some(size)).unwrap();
    let main = all_dbs[0][0].lookup(&board, Color::White, false).unwrap();
    let all = all_dbs[1][0].lookup(&board, Color::White, false).unwrap();
    let seen = |r: &LookupResult| {
        let mut v: Vec<_> = r
            .occurrences
            .iter()
            .map(|o| (o.game, o.move_number, o.next, o.in_variation))
            .collect();
        v.sort_by_key(|o| (o.0, o.3));
        v
    };
    assert_eq!(
        seen(&main),
        [
            (0, 3, Some(Move::Pass), false),
            (4, 3, None, false),
            (6, 3, None, false)
        ]
    );
    assert_eq!(
        seen(&all),
        [
            (0, 3, Some(Move::Pass), false),
            (4, 3, None, false),
            (6, 3, None, false),
            (6, 3, Some(Move::Pass), true)
        ]
    );
    // The pass: game 0's counts Black's win, the variation's counts nothing.
    assert_eq!(
        all.continuations
            .iter()
            .map(|c| (c.mv, c.count, c.black_wins, c.white_wins))
            .collect::<Vec<_>>(),
        [(Move::Pass, 2, 1, 0)]
    );
}

/// The game table and the file paths read in blocks and windows give what reading one game or
/// file at a time gives, whatever the sizes.
#[test]
fn game_places_and_file_paths_read_in_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for (i, text) in [
        "(;SZ[5];B[cc])(;SZ[5];B[bb];W[cc])",
        "(;SZ[7];B[cc])",
        "(;SZ[9];B[aa])(;SZ[5];B[dd])(;SZ[5]PB[someone with a long name];B[ee])",
    ]
    .iter()
    .enumerate()
    {
        let p = dir.path().join(format!("{}-{i}.sgf", "x".repeat(i * 7)));
        std::fs::write(&p, text).unwrap();
        paths.push(p);
    }
    paths.insert(1, dir.path().join("missing.sgf"));
    let mut bytes = Vec::new();
    let opts = IndexOptions::new(BoardSize::new(5).unwrap());
    let s = build_index(&srcs(&paths), &opts, &mut bytes, &|| {}).unwrap();
    assert_eq!((s.games, s.files, s.files_failed), (4, 4, 1));
    let p = dir.path().join("db");
    std::fs::write(&p, &bytes).unwrap();
    let db = IndexReader::open(&p).unwrap();
    let want_places: Vec<(u32, u32)> = (0..4)
        .map(|id| {
            let g = db.game(id).unwrap();
            let file = paths.iter().position(|p| p.display().to_string() == g.file);
            (file.unwrap() as u32, g.game_in_file)
        })
        .collect();
    assert_eq!(want_places, [(0, 0), (0, 1), (3, 1), (3, 2)]);
    let want_paths: Vec<String> = (0..4).map(|n| db.file_path(n).unwrap()).collect();
    assert_eq!(
        want_paths,
        paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
    );
    assert_eq!(db.game_places().unwrap(), want_places);
    assert_eq!(db.file_paths().unwrap(), want_paths);
    for block in [0, 1, 2, 3, 64] {
        assert_eq!(db.game_places_by(block).unwrap(), want_places, "{block}");
        for window in [0, 1, 5, 40, 1 << 20] {
            assert_eq!(
                db.file_paths_by(block, window).unwrap(),
                want_paths,
                "{block} {window}"
            );
        }
    }
}

/// `build_index_with` writes the bytes `build_index` writes (main lines, or every variation),
/// visits each file with games once with its games as parsed and every step of its one
/// replay, gives the numbers of the games taken (games of other sizes and failed files left
/// out), and appends them in the files' order with their first game's number; over more files
/// than a batch, so the order crosses batches.
#[test]
fn work_on_each_file_sees_its_replay_and_games_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    let mut expected = Vec::new();
    let mut games = 0u64;
    for i in 0..40usize {
        let p = dir.path().join(format!("{i:02}.sgf"));
        // (text, games parsed, games taken, steps of the replay: every node of every game)
        let (text, parsed, taken, steps) = match i % 4 {
            // A 9x9 game between two 5x5 games (one with a variation): the index takes
            // games 0 and 2.
            0 => (
                "(;SZ[5];B[aa](;W[bb])(;W[cc];B[dd]))(;SZ[9];B[aa])(;SZ[5];B[cc])".to_string(),
                3,
                vec![0, 2],
                5 + 2 + 2,
            ),
            // Only a game of another size: not visited.
            1 => ("(;SZ[9];B[ee])".to_string(), 1, vec![], 2),
            // Not a file: failed, not visited.
            2 => {
                std::fs::create_dir(&p).unwrap();
                paths.push(p);
                continue;
            }
            _ => (
                format!("(;SZ[5]PB[p{i}];B[{}a])", (b'a' + (i % 5) as u8) as char),
                1,
                vec![0],
                2,
            ),
        };
        std::fs::write(&p, &text).unwrap();
        if !taken.is_empty() {
            expected.push((p.clone(), games, parsed, taken.clone(), steps));
            games += taken.len() as u64;
        }
        paths.push(p);
    }
    for variations in [false, true] {
        let mut opts = IndexOptions::new(BoardSize::new(5).unwrap());
        opts.batch = 7;
        opts.variations = variations;
        let sources = srcs(&paths);
        let mut plain = Vec::new();
        let s1 = build_index(&sources, &opts, &mut plain, &|| {}).unwrap();
        let visit = |s: &Source, replay: &mut FileReplay<'_, '_>| {
            let parsed = replay.collection().games().count();
            let mut steps = 0;
            let taken = replay.replay(&mut |_| steps += 1);
            // A second call replays nothing.
            assert_eq!(replay.replay(&mut |_| panic!("replayed twice")), taken);
            (s.path.clone(), parsed, taken, steps)
        };
        let mut seen = Vec::new();
        let mut append =
            |s: &Source,
             first: u64,
             (path, parsed, taken, steps): (PathBuf, usize, Vec<u32>, usize)| {
                assert_eq!(s.path, path);
                seen.push((path, first, parsed, taken, steps));
            };
        let mut with = Vec::new();
        let mut appended_once = 0;
        let mut appended = || appended_once += 1;
        let work = FileWork {
            visit: &visit,
            append: &mut append,
            appended: Some(&mut appended),
        };
        let s2 = build_index_with(&sources, &opts, &mut with, &|| {}, Some(work)).unwrap();
        assert!(plain == with, "variations {variations}");
        assert_eq!((s1.games, s2.games, s2.files_failed), (games, games, 10));
        assert_eq!(seen, expected);
        assert_eq!(appended_once, 1);
    }
}

#[test]
fn winners_read_from_results_in_any_ascii_case() {
    for (re, w) in [
        ("B+R", Winner::Black),
        (" b+3.5 ", Winner::Black),
        ("W+T", Winner::White),
        ("w+", Winner::White),
        ("0", Winner::Draw),
        ("draw", Winner::Draw),
        ("Jigo", Winner::Draw),
        ("", Winner::Unknown),
        ("B", Winner::Unknown),
        ("?", Winner::Unknown),
        ("Void", Winner::Unknown),
        ("DRAWN", Winner::Unknown),
        ("00", Winner::Unknown),
        ("\u{ff22}+R", Winner::Unknown),
    ] {
        assert_eq!(Winner::from_result(re), w, "{re:?}");
    }
}

/// An index cut by stones keeps every entry of the positions it holds and none of the others:
/// on the corpus's 9x9 games and hand-made 5x5 games with captures, passes and setup, its
/// lookups of boards with few enough stones equal the full index's (summaries included: a
/// threshold of 2 summarizes most keys), the others are refused with `NotHeld`, and it holds
/// exactly as many entries as the full index holds for positions of so few stones.
#[test]
fn a_cut_by_stones_keeps_every_entry_of_the_positions_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let hand = [
        "(;GM[1]SZ[5]RE[B+1];B[cc];W[bb];B[dd];W[];B[ab];W[ba];B[aa])",
        // A capture brings a later position back under the cut.
        "(;GM[1]SZ[5]RE[W+1];B[ab];W[aa];B[ba];W[cc];B[dd];W[ee])",
        "(;GM[1]SZ[5]AB[aa][bb][cc]RE[W+R];W[dd];B[de];W[ed])",
    ];
    let small = write_games(dir.path(), &hand);
    let corpus = kifu_testdata::sgf_files(&kifu_testdata::corpus().join("sgf/games"));
    let replay = ReplayOptions::default();
    for (size, files, most) in [(5, small, [0u16, 3, 4]), (9, corpus, [0, 6, 12])] {
        let size = BoardSize::new(size).unwrap();
        let open = |most: Option<u16>| {
            let mut opts = IndexOptions::new(size);
            opts.summary_threshold = 2;
            opts.most_stones = most;
            let mut bytes = Vec::new();
            let s = build_index(&srcs(&files), &opts, &mut bytes, &|| {}).unwrap();
            let p = dir.path().join(format!("{size}-{most:?}.kpx"));
            std::fs::write(&p, &bytes).unwrap();
            (s, IndexReader::open(&p).unwrap())
        };
        let (full_sum, full) = open(None);
        assert_eq!(full_sum.positions, full_sum.entries);
        assert!(full_sum.games > 0);
        // Every position of the main lines (what the entries hold), with its stones.
        let mut positions = Vec::new();
        for f in &files {
            let bytes = std::fs::read(f).unwrap();
            let _ = kifu_go::replay::replay_bytes(&bytes, &replay, |s: &Step<'_>| {
                if s.variation == 0 && s.position.size() == size {
                    positions.push((s.position.board(), s.to_play));
                }
            });
        }
        for most in most {
            let (sum, cut) = open(Some(most));
            assert_eq!(cut.most_stones(), Some(most));
            assert_eq!(sum.positions, full_sum.positions);
            assert_eq!(
                (cut.positions(), full.positions()),
                (sum.positions, full_sum.positions)
            );
            // Entries of each held key (its hash and side to move).
            let mut held = std::collections::HashMap::new();
            let mut refused = 0;
            for (board, to_play) in &positions {
                let stones = board.stone_count();
                if stones <= usize::from(most) {
                    let want = full.lookup(board, *to_play, false).unwrap();
                    held.insert((want.hash, *to_play), want.occurrences.len() as u64);
                    for swap in [false, true] {
                        assert_eq!(
                            cut.lookup(board, *to_play, swap).unwrap(),
                            full.lookup(board, *to_play, swap).unwrap()
                        );
                        assert_eq!(
                            cut.lookup_page(board, *to_play, swap, 3).unwrap(),
                            full.lookup_page(board, *to_play, swap, 3).unwrap()
                        );
                    }
                } else {
                    refused += 1;
                    match cut.lookup_page(board, *to_play, false, 3) {
                        Err(IndexError::NotHeld { stones: s, most: m }) => {
                            assert_eq!((s as usize, m), (stones, most))
                        }
                        other => panic!("{other:?}"),
                    }
                }
            }
            assert!(refused > 0 && !held.is_empty(), "{size} {most}");
            // The held positions' entries, and no others.
            assert_eq!(cut.entries(), held.values().sum::<u64>(), "{size} {most}");
            assert_eq!(sum.entries, cut.entries());
        }
    }
    // Parts cut alike merge into the one build's bytes; parts cut otherwise are refused.
    let corpus = kifu_testdata::sgf_files(&kifu_testdata::corpus().join("sgf/games"));
    let files = &corpus[..300];
    let size = BoardSize::new(19).unwrap();
    let build = |files: Vec<PathBuf>, most: Option<u16>, name: &str| {
        let mut opts = IndexOptions::new(size);
        opts.most_stones = most;
        let mut bytes = Vec::new();
        build_index(&srcs(&files), &opts, &mut bytes, &|| {}).unwrap();
        let p = dir.path().join(name);
        std::fs::write(&p, &bytes).unwrap();
        (p, bytes)
    };
    let (_, one) = build(files.to_vec(), Some(12), "one.kpx");
    let shard = |i: usize| files.iter().skip(i).step_by(3).cloned().collect::<Vec<_>>();
    let parts: Vec<PathBuf> = (0..3)
        .map(|i| build(shard(i), Some(12), &format!("part{i}.kpx")).0)
        .collect();
    let mut merged = Vec::new();
    let counts = merge_index_parts(&parts, Layout::Shards, None, &mut merged).unwrap();
    assert!(merged == one, "merged cut parts differ from one cut build");
    assert!(counts.entries < counts.positions);
    let other = build(shard(2), Some(11), "other.kpx").0;
    let mixed = [parts[0].clone(), parts[1].clone(), other.clone()];
    let e = merge_index_parts(&mixed, Layout::Shards, None, &mut io::sink()).unwrap_err();
    assert!(
        matches!(&e, IndexError::Part { path, .. } if *path == other),
        "{e}"
    );
    // An index of every variation is not cut.
    let mut opts = IndexOptions::new(BoardSize::new(5).unwrap());
    opts.variations = true;
    opts.most_stones = Some(3);
    let files = [dir.path().join("0.sgf")];
    let e = build_index(&srcs(&files), &opts, &mut io::sink(), &|| {}).unwrap_err();
    assert!(matches!(e, IndexError::Options(_)), "{e}");
}

/// The bytes of format 3 (what kifu wrote before checksums) for an index of format 4 cut
/// by stones: the same sections under the old magic, without the checksums, and the old
/// trailer.
fn as_format_3(bytes: &[u8]) -> Vec<u8> {
    assert_eq!(&bytes[..8], b"KIFUPIX4");
    assert_eq!(bytes[9] & 2, 2, "cut by stones");
    let t = &bytes[bytes.len() - TRAILER_BYTES..];
    let summaries = u64::from_be_bytes(t[8..16].try_into().unwrap());
    let dir_off = u64::from_be_bytes(t[16..24].try_into().unwrap());
    let covered = (dir_off + summaries * 40) as usize;
    let mut old = bytes[..covered].to_vec();
    old[..8].copy_from_slice(b"KIFUPIX3");
    old[9] &= !2;
    old.extend_from_slice(b"KIFUPIXS");
    old.extend_from_slice(&t[8..24]);
    old
}

/// Format 4: a changed byte anywhere is refused by the read that meets it, with its block
/// named, and by a merge; `verify` finds it. Files of format 3 (no checksums) are still read
/// and merged, into format 4.
#[test]
fn checksums_refuse_damage_where_it_is_read_and_old_files_still_read() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = kifu_testdata::sgf_files(&kifu_testdata::corpus().join("sgf/games"));
    let files = &corpus[..200];
    let mut opts = IndexOptions::new(BoardSize::new(19).unwrap());
    opts.most_stones = Some(12);
    opts.summary_threshold = 4;
    let build = |files: &[PathBuf], name: &str| {
        let mut bytes = Vec::new();
        build_index(&srcs(files), &opts, &mut bytes, &|| {}).unwrap();
        let p = dir.path().join(name);
        std::fs::write(&p, &bytes).unwrap();
        (p, bytes)
    };
    let (path, bytes) = build(files, "one.kpx");
    let db = IndexReader::open(&path).unwrap();
    assert!(db.has_checksums());
    db.verify().unwrap();
    assert!(db.games() > 100 && db.summaries() > 0);
    let games_off = HEADER_BYTES as u64
        + ZobristTable::generate(BoardSize::new(19).unwrap())
            .to_text()
            .len() as u64
        + db.entries() * ENTRY_BYTES as u64;
    assert!(bytes.len() > 20 * 4096, "{}", bytes.len());
    let table_off = {
        let t = &bytes[bytes.len() - TRAILER_BYTES..];
        let summaries = u64::from_be_bytes(t[8..16].try_into().unwrap());
        u64::from_be_bytes(t[16..24].try_into().unwrap()) + summaries * 40
    };
    let last_game = db.games() as u32 - 1;
    let game_block = (games_off + u64::from(last_game) * GAME_BYTES as u64) / 4096 * 4096;
    let damaged = |at: u64| {
        let mut bad = bytes.clone();
        bad[at as usize] ^= 0x08;
        let p = dir.path().join("bad.kpx");
        std::fs::write(&p, &bad).unwrap();
        p
    };
    let block_of = |at: u64| (at / 4096 * 4096, (at / 4096 * 4096 + 4096).min(table_off));
    // A byte of the entries, one of the last game's record, one of the summary directory.
    for at in [
        games_off / 2,
        games_off + u64::from(last_game) * GAME_BYTES as u64 + 5,
        table_off - 3,
    ] {
        let p = damaged(at);
        let db = IndexReader::open(&p).unwrap();
        let want = block_of(at);
        match db.verify() {
            Err(IndexError::Damaged { path, from, to }) => {
                assert_eq!((path, from, to), (p.clone(), want.0, want.1), "{at}")
            }
            other => panic!("{at}: {other:?}"),
        }
        // A merge reads all but the summaries (it makes its own).
        let merged = merge_index_parts(
            std::slice::from_ref(&p),
            Layout::Shards,
            None,
            &mut io::sink(),
        );
        if at < games_off + db.games() * GAME_BYTES as u64 {
            let e = merged.unwrap_err();
            assert!(
                matches!(&e, IndexError::Part { path, reason } if *path == p && reason.contains("damaged")),
                "{e}"
            );
        }
        if want.0 == game_block {
            assert!(matches!(
                db.game(last_game),
                Err(IndexError::Damaged { .. })
            ));
        }
    }
    // The header's block, the table and the trailer are checked at opening.
    for at in [
        9,
        table_off + 3,
        bytes.len() as u64 - 1,
        bytes.len() as u64 - 20,
    ] {
        assert!(IndexReader::open(&damaged(at)).is_err(), "{at}");
    }
    // Format 3: read as it is, the same answers; merged (an index with games added) into
    // the bytes of one build.
    let old = dir.path().join("old.kpx");
    std::fs::write(&old, as_format_3(&bytes)).unwrap();
    let odb = IndexReader::open(&old).unwrap();
    assert!(!odb.has_checksums());
    odb.verify().unwrap();
    assert_eq!((odb.games(), odb.entries()), (db.games(), db.entries()));
    for id in [0, last_game] {
        assert_eq!(odb.game(id).unwrap(), db.game(id).unwrap());
    }
    let board = Board::new(BoardSize::new(19).unwrap());
    for swap in [false, true] {
        assert_eq!(
            odb.lookup_page(&board, Color::Black, swap, 5).unwrap(),
            db.lookup_page(&board, Color::Black, swap, 5).unwrap()
        );
    }
    let (first, _) = build(&files[..120], "first.kpx");
    let (second, _) = build(&files[120..], "second.kpx");
    std::fs::write(&first, as_format_3(&std::fs::read(&first).unwrap())).unwrap();
    let mut merged = Vec::new();
    merge_index_parts(&[first, second], Layout::Concatenated, None, &mut merged).unwrap();
    assert!(
        merged == bytes,
        "an old index with games added is not one build"
    );
}
