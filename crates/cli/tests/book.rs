//! `kifu book ...` end to end: the real binary on the corpus, against Debian polyglot 2.0.4
//! (live when installed, and its stored outputs) and pgheader 1.0.5's golden files.

#![allow(clippy::disallowed_macros)] // a test may print to its own output

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn corpus(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/polyglot")
        .join(rel)
}

fn kifu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kifu"))
        .args(args)
        .output()
        .expect("kifu runs")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The polyglot binary (Debian installs it in /usr/games). Missing: fail under CI=true,
/// otherwise skip with a message.
fn polyglot() -> Option<PathBuf> {
    for p in ["/usr/games/polyglot", "/usr/bin/polyglot"] {
        if Path::new(p).exists() {
            return Some(PathBuf::from(p));
        }
    }
    if let Ok(out) = Command::new("polyglot")
        .arg("--help")
        .stdin(Stdio::null())
        .output()
    {
        if out.status.code().is_some() {
            return Some(PathBuf::from("polyglot"));
        }
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "polyglot is not installed (apt-get install polyglot)"
    );
    eprintln!("skipping: polyglot is not installed");
    None
}

#[test]
fn make_compat_is_byte_identical_to_stored_polyglot_outputs() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["Fischer", "human-clean"] {
        let out = dir.path().join(format!("{name}.bin"));
        let r = kifu(&[
            "book",
            "make",
            s(&corpus(&format!("pgn/{name}.pgn"))),
            "-o",
            s(&out),
            "--compat",
            "polyglot",
            "-j",
            "2",
        ]);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        let expected =
            std::fs::read(corpus(&format!("reference/{name}.polyglot2.0.4.bin"))).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), expected, "{name}");
    }
}

#[test]
fn make_compat_matches_live_polyglot_with_options() {
    let Some(pg) = polyglot() else { return };
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[&str]); 5] = [
        ("pgn/Carlsen.pgn", &[]),
        ("pgn/2moves_v2.pgn", &["-min-game", "1"]),
        ("pgn/Fischer.pgn", &["-only-white", "-max-ply", "20"]),
        (
            "pgn/Fischer.pgn",
            &["-only-black", "-uniform", "-min-score", "40"],
        ),
        (
            "pgn/tcec/TCEC_Season_10_-_Superfinal.pgn",
            &["-min-game", "2"],
        ),
    ];
    for (i, (pgn, opts)) in cases.iter().enumerate() {
        let want = dir.path().join(format!("pg{i}.bin"));
        let got = dir.path().join(format!("kifu{i}.bin"));
        let mut cmd = Command::new(&pg);
        cmd.args(["make-book", "-pgn", s(&corpus(pgn)), "-bin", s(&want)])
            .args(*opts);
        let r = cmd.stdin(Stdio::null()).output().unwrap();
        assert!(
            want.exists(),
            "polyglot wrote no book for {pgn}: {}",
            String::from_utf8_lossy(&r.stdout)
        );
        let input = corpus(pgn);
        let mut args = vec![
            "book",
            "make",
            s(&input),
            "-o",
            s(&got),
            "--compat",
            "polyglot",
        ];
        // Polyglot's single-dash options are kifu's double-dash ones.
        let long: Vec<String> = opts
            .iter()
            .map(|o| {
                if o.starts_with('-') {
                    format!("-{o}")
                } else {
                    o.to_string()
                }
            })
            .collect();
        args.extend(long.iter().map(String::as_str));
        let r = kifu(&args);
        assert!(
            r.status.success(),
            "{pgn} {opts:?}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
        let (a, b) = (std::fs::read(&got).unwrap(), std::fs::read(&want).unwrap());
        assert!(!b.is_empty());
        assert!(
            a == b,
            "{pgn} {opts:?}: kifu {} bytes, polyglot {} bytes",
            a.len(),
            b.len()
        );
    }
}

#[test]
fn make_default_skips_bad_games_and_writes_a_header() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tal.bin");
    let r = kifu(&[
        "book",
        "make",
        s(&corpus("pgn/Tal.pgn")),
        "-o",
        s(&out),
        "--comment",
        "Tal's games",
    ]);
    assert!(r.status.success());
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(err.matches("warning: skipped").count(), 3, "{err}");
    assert!(
        err.contains("malformed tag") && err.contains("illegal"),
        "{err}"
    );
    let h = kifu(&["book", "header", "-s", s(&out)]);
    assert_eq!(
        String::from_utf8_lossy(&h.stdout),
        "Variants supported:\nnormal\nComment:\nTal's games\n"
    );
    // Polyglot mode stops at the first bad game and leaves no output file.
    let out2 = dir.path().join("tal2.bin");
    let r = kifu(&[
        "book",
        "make",
        s(&corpus("pgn/Tal.pgn")),
        "-o",
        s(&out2),
        "--compat",
        "polyglot",
    ]);
    assert_eq!(r.status.code(), Some(1));
    assert!(!out2.exists());
}

#[test]
fn merge_sum_equals_polyglot_merge_book() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.bin");
    let r = kifu(&[
        "book",
        "merge",
        s(&corpus("books/performance.bin")),
        s(&corpus("books/varied.bin")),
        "-o",
        s(&out),
    ]);
    assert!(r.status.success());
    let expected = std::fs::read(corpus(
        "reference/merge_performance_varied.polyglot2.0.4.bin",
    ))
    .unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), expected);
}

#[test]
fn dump_lookup_and_check() {
    let perf = corpus("books/performance.bin");
    let r = kifu(&["book", "dump", s(&perf), "--moves", "e4 e5 Nf3", "--json"]);
    assert!(r.status.success());
    let v: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    let entries = v["entries"].as_array().unwrap();
    assert!(!entries.is_empty());
    let total: f64 = entries.iter().map(|e| e["share"].as_f64().unwrap()).sum();
    assert!((total - 100.0).abs() < 0.1, "{total}");
    assert!(entries
        .iter()
        .all(|e| e["san"].is_string() && e["uci"].is_string()));
    // The Lasker trap book ends in an under-promotion, shown in SAN.
    let r = kifu(&["book", "dump", s(&corpus("books/lasker-trap.bin")), "--all"]);
    let all = String::from_utf8_lossy(&r.stdout);
    assert_eq!(all.lines().count(), 7);
    assert!(all.contains(" f2g1n "), "{all}");
    let r = kifu(&[
        "book",
        "dump",
        s(&corpus("books/lasker-trap.bin")),
        "--fen",
        "rnbqk1nr/ppp2ppp/8/4P3/1BP5/8/PP2KpPP/RN1Q1BNR b kq - 1 7",
    ]);
    assert!(
        String::from_utf8_lossy(&r.stdout).contains("fxg1=N+"),
        "{}",
        String::from_utf8_lossy(&r.stdout)
    );

    let dir = tempfile::tempdir().unwrap();
    let fens = dir.path().join("fens.txt");
    std::fs::write(
        &fens,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\nnot a fen\n",
    )
    .unwrap();
    let r = kifu(&["book", "lookup", s(&perf), s(&fens)]);
    assert_eq!(r.status.code(), Some(1), "a bad FEN is a finding");
    let out = String::from_utf8_lossy(&r.stdout);
    assert!(
        out.starts_with(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\t463b96181691fc9c\te2e4:"
        ),
        "{out}"
    );

    assert_eq!(kifu(&["book", "check", s(&perf)]).status.code(), Some(0));
    let r = kifu(&[
        "book",
        "check",
        s(&corpus("books/not-a-book_komodo.bin")),
        "--json",
    ]);
    assert_eq!(r.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(v["ok"], false);
    // Opening it for a lookup is refused rather than misread.
    let r = kifu(&["book", "dump", s(&corpus("books/not-a-book_komodo.bin"))]);
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stderr).contains("not a multiple of 16"));
}

#[test]
fn repair_restores_a_shuffled_book() {
    let dir = tempfile::tempdir().unwrap();
    let original = std::fs::read(corpus("reference/perfH.bin")).unwrap();
    let h = kifu_header_records(&original);
    // Reverse the entries and duplicate one.
    let mut recs: Vec<&[u8]> = original[h * 16..].chunks(16).collect();
    recs.reverse();
    let dup = recs[10];
    recs.push(dup);
    let mut broken = original[..h * 16].to_vec();
    for r in &recs {
        broken.extend_from_slice(r);
    }
    let path = dir.path().join("broken.bin");
    std::fs::write(&path, &broken).unwrap();
    assert_eq!(kifu(&["book", "check", s(&path)]).status.code(), Some(1));
    let fixed = dir.path().join("fixed.bin");
    let r = kifu(&[
        "book",
        "repair",
        s(&path),
        "-o",
        s(&fixed),
        "--duplicates",
        "first",
    ]);
    assert!(r.status.success());
    let fixed_bytes = std::fs::read(&fixed).unwrap();
    assert_eq!(kifu(&["book", "check", s(&fixed)]).status.code(), Some(0));
    assert_eq!(fixed_bytes.len(), original.len());
    assert_eq!(&fixed_bytes[..h * 16], &original[..h * 16], "header kept");
    // Same entries per position (order within a position follows weight).
    let mut a: Vec<&[u8]> = fixed_bytes[h * 16..].chunks(16).collect();
    let mut b: Vec<&[u8]> = original[h * 16..].chunks(16).collect();
    a.sort();
    b.sort();
    assert_eq!(a, b);
}

fn kifu_header_records(b: &[u8]) -> usize {
    b.chunks(16).take_while(|r| r[..8] == [0; 8]).count()
}

#[test]
fn header_like_pgheader_and_safe() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("h.bin");
    std::fs::write(
        &book,
        std::fs::read(corpus("reference/pgheader-golden/books/test.bin")).unwrap(),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&book, std::fs::Permissions::from_mode(0o640)).unwrap();
    }
    let r = kifu(&[
        "book",
        "header",
        "-c",
        "performance.bin by Marc Lacrosse.",
        s(&book),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert_eq!(
        std::fs::read(&book).unwrap(),
        std::fs::read(corpus("reference/pgheader-golden/books/comment.bin")).unwrap()
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&book).unwrap().permissions().mode() & 0o777,
            0o640,
            "permissions kept"
        );
    }
    let r = kifu(&["book", "header", "-S", s(&book)]);
    let golden = String::from_utf8(
        std::fs::read(corpus("reference/pgheader-golden/golden-cli.txt")).unwrap(),
    )
    .unwrap();
    let start = golden
        .find("### pgheader -S h.bin  -> rc=0\n--- stdout:\n")
        .unwrap()
        + 43;
    let end = start + golden[start..].find("--- stderr:").unwrap();
    assert_eq!(String::from_utf8_lossy(&r.stdout), &golden[start..end]);
    let r = kifu(&["book", "header", "-l"]);
    assert!(String::from_utf8_lossy(&r.stdout).starts_with("Known variants:\nnormal\nwildcastle\n"));
    let r = kifu(&["book", "header", s(&book), "extra.bin"]);
    assert_eq!(r.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&r.stderr),
        "kifu book header: extra.bin: unknown option.\nTry -h.\n"
    );
    let r = kifu(&["book", "header", "-s", s(&dir.path().join("missing.bin"))]);
    assert_eq!(r.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&r.stderr),
        "kifu book header: No such file or directory\n"
    );
    let r = kifu(&["book", "header", "-d", s(&book)]);
    assert!(r.status.success());
    assert_eq!(
        std::fs::read(&book).unwrap(),
        std::fs::read(corpus("reference/pgheader-golden/books/test.bin")).unwrap()
    );
}

/// Halving (a move in 16,384 games or more) against live Polyglot, and a book made from the
/// counts of 3 shards, given in any order, against the book of one pass.
#[test]
fn halving_matches_polyglot_and_shards_match_one_pass() {
    let dir = tempfile::tempdir().unwrap();
    let synth = kifu_testdata::halving_pgn(dir.path());
    if let Some(pg) = polyglot() {
        let want = dir.path().join("pg.bin");
        let got = dir.path().join("kifu.bin");
        let r = Command::new(&pg)
            .args(["make-book", "-pgn", s(&synth), "-bin", s(&want)])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(want.exists(), "{}", String::from_utf8_lossy(&r.stdout));
        let r = kifu(&[
            "book",
            "make",
            s(&synth),
            "-o",
            s(&got),
            "--compat",
            "polyglot",
            "--json",
        ]);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        let v: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
        assert_eq!(v["halved_positions"], 1);
        assert_eq!(std::fs::read(&got).unwrap(), std::fs::read(&want).unwrap());
    }
    let fischer = corpus("pgn/Fischer.pgn");
    let single = dir.path().join("single.bin");
    let r = kifu(&[
        "book",
        "make",
        s(&fischer),
        s(&synth),
        "-o",
        s(&single),
        "--min-game",
        "2",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let parts: Vec<PathBuf> = (1..=3)
        .map(|i| dir.path().join(format!("p{i}.counts")))
        .collect();
    for (i, part) in parts.iter().enumerate() {
        let shard = format!("{}/3", i + 1);
        let r = kifu(&[
            "book",
            "make",
            s(&fischer),
            s(&synth),
            "--counts",
            "--shard",
            &shard,
            "-o",
            s(part),
        ]);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    }
    let merged = dir.path().join("merged.bin");
    let r = kifu(&[
        "book",
        "make",
        "--from-counts",
        s(&parts[2]),
        s(&parts[0]),
        s(&parts[1]),
        "-o",
        s(&merged),
        "--min-game",
        "2",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert_eq!(
        std::fs::read(&merged).unwrap(),
        std::fs::read(&single).unwrap()
    );
    // The book may not replace a PGN file the counts name (it is read again).
    let pgn_before = std::fs::read(&synth).unwrap();
    let r = kifu(&[
        "book",
        "make",
        "--from-counts",
        s(&parts[0]),
        s(&parts[1]),
        s(&parts[2]),
        "-o",
        s(&synth),
    ]);
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("the output is also an input"));
    assert_eq!(std::fs::read(&synth).unwrap(), pgn_before);
    // A missing shard is a failure naming it, and no book is written.
    let none = dir.path().join("none.bin");
    let r = kifu(&[
        "book",
        "make",
        "--from-counts",
        s(&parts[0]),
        s(&parts[1]),
        "-o",
        s(&none),
    ]);
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stderr).contains("missing shard 3/3 of 3"));
    assert!(!none.exists());
    // --shard without --counts, and --from-counts with PGN files, are usage errors.
    let r = kifu(&[
        "book",
        "make",
        s(&fischer),
        "--shard",
        "1/2",
        "-o",
        s(&none),
    ]);
    assert_eq!(r.status.code(), Some(2));
    let r = kifu(&[
        "book",
        "make",
        s(&fischer),
        "--from-counts",
        s(&parts[0]),
        "-o",
        s(&none),
    ]);
    assert_eq!(r.status.code(), Some(2));
}
