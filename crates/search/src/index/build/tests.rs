use super::*;
use kifu_posdb::extract::Source;

#[test]
fn built_into_the_sidecar_as_built_in_memory_then_saved() {
    let dir = tempfile::tempdir().unwrap();
    // More files than a batch, so that the games of later batches keep their order.
    let mut files = Vec::new();
    for i in 0..BATCH + 7 {
        let path = dir.path().join(format!("g{i:03}.sgf"));
        let moves: String = (0..i % 9)
            .map(|m| {
                format!(
                    ";{}[{}{}]",
                    ["B", "W"][m % 2],
                    "abcdefghi".as_bytes()[(i + m) % 9] as char,
                    "abcdefghi".as_bytes()[(3 * m) % 9] as char
                )
            })
            .collect();
        std::fs::write(
            &path,
            format!("(;SZ[9]PB[p{i}]{moves})(;SZ[9]AB[ee];W[dd])"),
        )
        .unwrap();
        files.push(CollectionFile {
            source: Source::new(&path),
            ids: vec![Some(2 * i as u64), Some(2 * i as u64 + 1)],
        });
    }
    let sidecar = dir.path().join("db.kpp");
    let opened = PatternIndex::build_to(&files, &sidecar, 5)
        .unwrap()
        .unwrap();
    let built = PatternIndex::build(&files);
    assert_eq!(built.games(), 2 * (BATCH + 7));
    assert!(opened == built);
    assert!(opened.sidecar.is_some());
    assert_eq!(std::fs::read(&sidecar).unwrap(), built.to_bytes(5).unwrap());
    // A file that cannot be read: nothing written, the sidecar as it was.
    let before = std::fs::read(&sidecar).unwrap();
    files.push(CollectionFile {
        source: Source::new(dir.path().join("gone.sgf")),
        ids: vec![Some(9_999)],
    });
    assert!(PatternIndex::build_to(&files, &sidecar, 6)
        .unwrap()
        .is_none());
    assert_eq!(std::fs::read(&sidecar).unwrap(), before);
    let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(leftovers, BATCH + 7 + 1, "temporary files left behind");
    files.pop();
    // Extended over its own file: the first files' games copied, the others built.
    let (first, _) = files.split_at(100);
    let part = PatternIndex::build_to(first, &sidecar, 7).unwrap().unwrap();
    let whole = part.extend_to(&files, &sidecar, 5).unwrap().unwrap();
    assert!(whole == built);
    assert_eq!(std::fs::read(&sidecar).unwrap(), before);
    // Not a beginning of the files: nothing written.
    let other = PatternIndex::build_to(&files[1..50], &dir.path().join("o.kpp"), 8)
        .unwrap()
        .unwrap();
    assert!(other.extend_to(&files, &sidecar, 5).unwrap().is_none());
}

/// The records made while the full-board index reads the files give the sidecar
/// `build_to` writes from the finished index: SGF files of several games (one of another
/// size), an Ishi file, more files than a batch; a file given twice, or files that are not
/// the index's, give nothing and write nothing.
#[test]
fn built_from_the_full_board_reads_as_from_the_finished_index() {
    use kifu_posdb::index::{build_index_with, FileWork, IndexOptions, IndexReader};
    let dir = tempfile::tempdir().unwrap();
    let mut sources = Vec::new();
    for i in 0..BATCH + 3 {
        let path = dir.path().join(format!("g{i:03}.sgf"));
        let m = |k: usize| (b'a' + ((i + k) % 19) as u8) as char;
        std::fs::write(
            &path,
            format!(
                "(;PB[b{i}]DT[2001-02-03];B[{}{}];W[{}{}](;B[dd])(;B[pp]))(;SZ[9];B[ee])(;EV[e{i}];B[qd])",
                m(0), m(1), m(2), m(3)
            ),
        )
        .unwrap();
        sources.push(Source::new(&path));
    }
    let ishi = kifu_testdata::corpus().join("ishi/testspec.go");
    sources.insert(7, Source::new(&ishi));
    let kpx = dir.path().join("db.kpx");
    // `seal`: the sidecar written once every file is appended, while the index is.
    let build = |sources: &[Source], kpx: &Path, seal: bool| -> PatternIndexBuilder {
        let b = std::sync::Mutex::new(
            PatternIndexBuilder::new(&super::super::sidecar_path(kpx)).unwrap(),
        );
        let mut append = |s: &Source, first, r| b.lock().unwrap().append(s, first, r);
        let mut appended = || b.lock().unwrap().seal();
        let work = FileWork {
            visit: &FileRecords::build,
            append: &mut append,
            appended: seal.then_some(&mut appended as &mut dyn FnMut()),
        };
        let opts = IndexOptions::new(kifu_go::BoardSize::new(19).unwrap());
        let mut out = std::fs::File::create(kpx).unwrap();
        build_index_with(sources, &opts, &mut out, &|| {}, Some(work)).unwrap();
        b.into_inner().unwrap()
    };
    let files_of =
        |kpx: &Path| crate::collection::index_files(&IndexReader::open(kpx).unwrap()).unwrap();
    let b = build(&sources, &kpx, false);
    let files = files_of(&kpx);
    assert_eq!(files.len(), BATCH + 4);
    let sidecar = super::super::sidecar_path(&kpx);
    let own = super::super::fingerprint(&files);
    // The index's fingerprint, read without its list, is its list's.
    let reader = IndexReader::open(&kpx).unwrap();
    assert_eq!(super::super::index_fingerprint(&reader).unwrap(), own);
    assert_eq!(b.fingerprint(), own);
    let from_reads = b.finish(own).unwrap().unwrap();
    let bytes = std::fs::read(&sidecar).unwrap();
    // Sealed: the same bytes, written while the index was.
    let b = build(&sources, &kpx, true);
    assert_eq!(b.fingerprint(), own);
    assert_eq!(b.finish(own).unwrap().unwrap(), from_reads);
    assert_eq!(std::fs::read(&sidecar).unwrap(), bytes);
    assert!(PatternIndex::load(&sidecar, own).unwrap().is_some());
    let opened = PatternIndex::load(&sidecar, own).unwrap().unwrap();
    let from_index = PatternIndex::build_to(&files, &sidecar, own)
        .unwrap()
        .unwrap();
    assert!(opened == from_index);
    assert_eq!(std::fs::read(&sidecar).unwrap(), bytes);
    assert_eq!(from_index.games(), 2 * (BATCH + 3) + 2);
    // Duplicates counted while spooling as the opened sidecar groups them: every
    // file's third game is `B[qd]` alone, and the first games of files 19 apart have
    // the same moves.
    assert_eq!(from_reads.games, from_index.games() as u64);
    assert!(from_index.duplicate_groups().len() > 1);
    assert_eq!(
        from_reads.duplicate_groups,
        from_index.duplicate_groups().len()
    );
    // Not the index's files: nothing written, sealed or not.
    for seal in [false, true] {
        let b = build(&sources, &kpx, seal);
        let fewer = super::super::fingerprint(&files[1..]);
        assert!(b.finish(fewer).unwrap().is_none());
        assert_eq!(std::fs::read(&sidecar).unwrap(), bytes);
    }
    // A file given twice: left to the build from the finished index, whose fingerprint
    // (one file there, two here) is its list's too.
    let mut twice = sources.clone();
    twice.push(sources[3].clone());
    let kpx2 = dir.path().join("twice.kpx");
    for seal in [false, true] {
        let b = build(&twice, &kpx2, seal);
        let files = files_of(&kpx2);
        let theirs = super::super::fingerprint(&files);
        let reader = IndexReader::open(&kpx2).unwrap();
        assert_eq!(super::super::index_fingerprint(&reader).unwrap(), theirs);
        assert_ne!(b.fingerprint(), theirs);
        assert!(b.finish(theirs).unwrap().is_none());
        assert!(!super::super::sidecar_path(&kpx2).exists());
    }
    // A file without a game of the index's size is in neither list: the reads serve, with
    // the bytes of the build from the finished index.
    let nine = dir.path().join("nine.sgf");
    std::fs::write(&nine, "(;SZ[9];B[ee])(;SZ[9];B[dd])").unwrap();
    let mut other = sources.clone();
    other.insert(5, Source::new(&nine));
    let kpx3 = dir.path().join("other.kpx");
    let b = build(&other, &kpx3, true);
    let files = files_of(&kpx3);
    assert_eq!(files.len(), BATCH + 4);
    let theirs = super::super::fingerprint(&files);
    assert_eq!(b.fingerprint(), theirs);
    assert!(b.finish(theirs).unwrap().is_some());
    let sidecar3 = super::super::sidecar_path(&kpx3);
    let read = std::fs::read(&sidecar3).unwrap();
    std::fs::remove_file(&sidecar3).unwrap();
    PatternIndex::build_to(&files, &sidecar3, theirs)
        .unwrap()
        .unwrap();
    assert_eq!(std::fs::read(&sidecar3).unwrap(), read);
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| !n.starts_with('g'))
        .collect();
    let mut left = left;
    left.sort();
    assert_eq!(
        left,
        [
            "db.kpp",
            "db.kpx",
            "nine.sgf",
            "other.kpp",
            "other.kpx",
            "twice.kpx"
        ],
        "temporary files left behind"
    );
}
