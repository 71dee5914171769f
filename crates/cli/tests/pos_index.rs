//! `kifu pos index` and `kifu pos lookup` on a hand-made collection: a game, the same game turned
//! a quarter, the same game with colours swapped, and an unrelated game. Exact answers.

mod common;
use common::{fails, kifu_in as kifu, ok};

use kifu_go::{Board, BoardSize, Symmetry, ZobristKeys};
use serde_json::Value;
use std::path::Path;

fn setup(d: &Path) {
    std::fs::create_dir_all(d.join("g")).unwrap();
    let w = |name: &str, text: &str| std::fs::write(d.join("g").join(name), text).unwrap();
    w(
        "a.sgf",
        "(;GM[1]SZ[9]PB[Ann]PW[Bob]DT[2020-01-01]RE[B+R];B[cc];W[gg];B[cg];W[gc])",
    );
    // a turned a quarter clockwise: (x, y) -> (8 - y, x).
    w(
        "b.sgf",
        "(;GM[1]SZ[9]PB[Cat]PW[Dan]RE[W+1.5];B[gc];W[cg];B[cc];W[gg])",
    );
    // a with the colours swapped.
    w(
        "c.sgf",
        "(;GM[1]SZ[9]PB[Eve]PW[Fay]RE[W+2];W[cc];B[gg];W[cg];B[gc])",
    );
    w("d.sgf", "(;GM[1]SZ[9]RE[W+R];B[ee];W[cc])");
    w("e.sgf", "(;GM[1]SZ[13];B[dd])");
}

/// The corpus's two folders of 9x9 regression games (fuego's, gnugo's), as arguments.
fn fuego_gnugo() -> (String, String) {
    let games = common::corpus().join("sgf/games");
    (
        games.join("fuego-regression").display().to_string(),
        games.join("gnugo-regression").display().to_string(),
    )
}

/// The JSON a successful `kifu ARGS` run in `d` prints.
fn json(args: &[&str], d: &Path) -> Value {
    serde_json::from_str(&ok(&kifu(args, d))).unwrap()
}

/// A temporary folder holding one SGF file at `path` (inside a subfolder).
fn with_game(path: &str, sgf: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(path);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, sgf).unwrap();
    dir
}

fn hash(rows: &str) -> String {
    let b = Board::from_rows(rows.as_bytes(), Some(BoardSize::NINE)).unwrap();
    format!(
        "{:016x}",
        ZobristKeys::default_for(BoardSize::NINE)
            .table()
            .symmetric_hashes(&b)
            .canonical()
            .hash
    )
}

fn c7() -> String {
    let mut r = vec!['.'; 81];
    r[20] = '#';
    r.into_iter().collect()
}

#[test]
fn lookup_finds_symmetric_and_swapped_games() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    let v: Value = json(
        &["pos", "index", "g", "-o", "db.idx", "--size", "9", "--json"],
        d,
    );
    // a, b, c: 4 moves, 5 positions each; d: 3; e is 13x13.
    assert_eq!(
        (
            v["games"].as_u64(),
            v["positions"].as_u64(),
            v["games_other_size"].as_u64()
        ),
        (Some(4), Some(18), Some(1))
    );

    // After a's first move (Black C7), White to play.
    let h = hash(&c7());
    let out = ok(&kifu(
        &["pos", "lookup", "db.idx", "--sgf", "g/a.sgf", "--move", "1"],
        d,
    ));
    assert_eq!(
        out,
        format!(
            "position {h}, White to play: 2 occurrences in 2 games (0 with colours swapped)
move   games  Black wins  White wins  Black %  White %
G3         2           1           1    50.0%    50.0%
game 0 move 1 (identity) next G3: Ann - Bob 2020-01-01 B+R [g/a.sgf game 1]
game 1 move 1 (rotate 90) next G3: Cat - Dan  W+1.5 [g/b.sgf game 1]
"
        )
    );
    // With colours swapped, c counts too, its White win a Black win from the query's side.
    let out = ok(&kifu(
        &[
            "pos",
            "lookup",
            "db.idx",
            "--board",
            &c7(),
            "--to-play",
            "W",
            "--swap-colors",
        ],
        d,
    ));
    assert_eq!(
        out,
        format!(
            "position {h}, White to play: 3 occurrences in 3 games (1 with colours swapped)
move   games  Black wins  White wins  Black %  White %
G3         3           2           1    66.7%    33.3%
game 0 move 1 (identity) next G3: Ann - Bob 2020-01-01 B+R [g/a.sgf game 1]
game 1 move 1 (rotate 90) next G3: Cat - Dan  W+1.5 [g/b.sgf game 1]
game 2 move 1 (identity, colours swapped) next G3: Eve - Fay  W+2 [g/c.sgf game 1]
"
        )
    );
    // The same board turned: the same games, symmetries relative to the query.
    let turned = Board::from_rows(c7().as_bytes(), None)
        .unwrap()
        .transform(Symmetry::Rotate180);
    let rows = String::from_utf8(turned.to_rows()).unwrap();
    let v: Value = json(
        &[
            "pos",
            "lookup",
            "db.idx",
            "--board",
            &rows,
            "--to-play",
            "W",
            "--json",
        ],
        d,
    );
    assert_eq!(v["hash"], h.as_str());
    let m = v["matches"].as_array().unwrap();
    assert_eq!(m.len(), 2);
    // The continuation G3 turned by 180 degrees is C7... which is where the stone is? No: the
    // query's stone is at G3 now, so the answer is the opposite corner point, C7.
    assert_eq!(v["continuations"][0]["move"], "C7");
    for x in m {
        // The reported symmetry maps the query board onto the game's board.
        let game = x["game"].as_u64().unwrap();
        let s = Symmetry::from_index(x["symmetry"].as_u64().unwrap() as usize).unwrap();
        let expected_stone = if game == 0 { 20 } else { 24 }; // C7 in a, G7 in b
        let t = turned.transform(s).to_rows();
        assert_eq!(t.iter().position(|&b| b == b'#'), Some(expected_stone));
    }
    // The empty board: the corner moves of a, b and c are one continuation.
    let empty = ".".repeat(81);
    let v: Value = json(
        &[
            "pos",
            "lookup",
            "db.idx",
            "--board",
            &empty,
            "--to-play",
            "B",
            "--json",
        ],
        d,
    );
    let c: Vec<(String, u64, u64, u64)> = v["continuations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["move"].as_str().unwrap().to_string(),
                c["count"].as_u64().unwrap(),
                c["black_wins"].as_u64().unwrap(),
                c["white_wins"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        c,
        vec![("C7".to_string(), 3, 1, 2), ("E5".to_string(), 1, 0, 1)]
    );
    assert_eq!(v["games"], 4);
    // A position never reached.
    let a1 = format!("{}#", ".".repeat(80));
    let out = ok(&kifu(
        &["pos", "lookup", "db.idx", "--board", &a1, "--to-play", "W"],
        d,
    ));
    assert_eq!(
        out,
        format!(
            "position {}, White to play: 0 occurrences in 0 games (0 with colours swapped)\n",
            hash(&a1)
        )
    );
    // No such move; not an index.
    assert_eq!(
        kifu(
            &["pos", "lookup", "db.idx", "--sgf", "g/d.sgf", "--move", "9"],
            d
        )
        .status
        .code(),
        Some(1)
    );
    assert_eq!(
        kifu(
            &[
                "pos",
                "lookup",
                "g/a.sgf",
                "--board",
                &empty,
                "--to-play",
                "B"
            ],
            d
        )
        .status
        .code(),
        Some(1)
    );
}

#[test]
fn lookup_shows_scores_and_index_is_thread_independent() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    ok(&kifu(
        &[
            "pos", "index", "g", "-o", "one.idx", "--size", "9", "-j", "1",
        ],
        d,
    ));
    ok(&kifu(
        &[
            "pos", "index", "g", "-o", "two.idx", "--size", "9", "-j", "2", "--memory", "100",
        ],
        d,
    ));
    assert_eq!(
        std::fs::read(d.join("one.idx")).unwrap(),
        std::fs::read(d.join("two.idx")).unwrap()
    );
    // Scores of the position from two scored files (ids from pos extract agree with the index).
    ok(&kifu(&["pos", "extract", "g", "-o", "p.dat"], d));
    let h = hash(&c7());
    let mut rec = u64::from_str_radix(&h, 16).unwrap().to_be_bytes().to_vec();
    rec.extend_from_slice(&[0, b'W', 5, 100]);
    std::fs::write(d.join("gnugo_chinese.dat"), &rec).unwrap();
    std::fs::write(d.join("fuego_japanese.dat"), b"").unwrap();
    let args = [
        "pos",
        "lookup",
        "one.idx",
        "--sgf",
        "g/a.sgf",
        "--move",
        "1",
        "--scores",
        "gnugo_chinese.dat",
        "--scores",
        "fuego_japanese.dat",
    ];
    let mut text_args = args.to_vec();
    text_args.extend(["--limit", "0"]);
    let out = ok(&kifu(&text_args, d));
    assert!(
        out.ends_with(
            "... 2 more (--limit)\nscores: gnugo x chinese: 5 (100%)  fuego x japanese: -\n"
        ),
        "{out}"
    );
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let v: Value = json(&json_args, d);
    let s = &v["scores"];
    assert_eq!(s.as_array().unwrap().len(), 1);
    assert_eq!(s[0]["id"], format!("{h}-00-W").as_str());
    assert_eq!(s[0]["scorer"], "gnugo x chinese");
    assert_eq!(
        (s[0]["score"].as_u64(), s[0]["confidence"].as_u64()),
        (Some(5), Some(100))
    );
    // The extracted file holds that id.
    let view = ok(&kifu(
        &["pos", "view", "p.dat", "--key", &format!("{h}-00-W")],
        d,
    ));
    assert!(view.starts_with("#1 "), "{view}");
}

#[test]
fn an_index_of_format_1_is_refused_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    ok(&kifu(
        &["pos", "index", "g", "-o", "db.idx", "--size", "9"],
        d,
    ));
    // Format 1's magic, and no trailer of format 4 (format 1 had none).
    let mut b = std::fs::read(d.join("db.idx")).unwrap();
    b[..8].copy_from_slice(b"KIFUPIX1");
    let at = b.len() - 40;
    b[at..at + 8].copy_from_slice(b"KIFUPIXS");
    std::fs::write(d.join("old.idx"), &b).unwrap();
    let empty = ".".repeat(81);
    let o = kifu(
        &[
            "pos",
            "lookup",
            "old.idx",
            "--board",
            &empty,
            "--to-play",
            "B",
        ],
        d,
    );
    let err = fails(&o, 1);
    assert!(
        err.contains("an index of format 1 (from an older kifu): rebuild it with `kifu pos index`"),
        "{err}"
    );
}

#[test]
fn variations_are_indexed_on_request_and_marked() {
    let dir = with_game(
        "v/f.sgf",
        "(;GM[1]SZ[9]PB[Gil]PW[Hal]RE[B+3];B[cc](;W[gg];B[gc])(;W[gc]))",
    );
    let d = dir.path();
    let build = |name: &str, extra: &[&str]| -> Value {
        let mut args = vec!["pos", "index", "v", "-o", name, "--size", "9", "--json"];
        args.extend(extra);
        json(&args, d)
    };
    let main = build("main.idx", &[]);
    let all = build("all.idx", &["--variations"]);
    // Main line: the root, C7, G3 and the last node. With variations, C7 also continues with
    // G7, whose node is a leaf.
    assert_eq!(
        (main["positions"].as_u64(), main["variations"].as_bool()),
        (Some(4), Some(false))
    );
    assert_eq!(
        (all["positions"].as_u64(), all["variations"].as_bool()),
        (Some(6), Some(true))
    );
    let h = hash(&c7());
    let out = ok(&kifu(
        &[
            "pos",
            "lookup",
            "all.idx",
            "--board",
            &c7(),
            "--to-play",
            "W",
        ],
        d,
    ));
    assert_eq!(
        out,
        format!(
            "position {h}, White to play: 2 occurrences in 1 games (0 with colours swapped)
move   games  Black wins  White wins  Black %  White %
G7         1           0           0     0.0%     0.0%
G3         1           1           0   100.0%     0.0%
game 0 move 1 (identity) next G3: Gil - Hal  B+3 [v/f.sgf game 1]
game 0 move 1 (identity, in a variation) next G7: Gil - Hal  B+3 [v/f.sgf game 1]
"
        )
    );
    let out = ok(&kifu(
        &[
            "pos",
            "lookup",
            "main.idx",
            "--board",
            &c7(),
            "--to-play",
            "W",
        ],
        d,
    ));
    assert!(
        out.starts_with(&format!(
            "position {h}, White to play: 1 occurrences in 1 games"
        )),
        "{out}"
    );
    // After the variation's G7 (Black to play): only in the variations index, marked in JSON.
    let mut rows: Vec<u8> = c7().into_bytes();
    rows[2 * 9 + 6] = b'O';
    let rows = String::from_utf8(rows).unwrap();
    let v: Value = json(
        &[
            "pos",
            "lookup",
            "all.idx",
            "--board",
            &rows,
            "--to-play",
            "B",
            "--json",
        ],
        d,
    );
    assert_eq!(v["occurrences"].as_u64(), Some(1));
    assert_eq!(v["matches"][0]["in_variation"].as_bool(), Some(true));
    assert_eq!(v["matches"][0]["next"], "-");
    // The same position named by the SGF file: move 2 of variation 1.
    let by_sgf = ok(&kifu(
        &[
            "pos",
            "lookup",
            "all.idx",
            "--sgf",
            "v/f.sgf",
            "--variation",
            "1",
            "--move",
            "2",
            "--json",
        ],
        d,
    ));
    assert_eq!(serde_json::from_str::<Value>(&by_sgf).unwrap(), v);
    let o = kifu(
        &[
            "pos",
            "lookup",
            "all.idx",
            "--sgf",
            "v/f.sgf",
            "--variation",
            "2",
            "--move",
            "1",
        ],
        d,
    );
    assert_eq!(
        fails(&o, 1),
        "kifu: v/f.sgf: game 1 has no variation 2 (it has 2)\n"
    );
    let v: Value = json(
        &[
            "pos",
            "lookup",
            "main.idx",
            "--board",
            &rows,
            "--to-play",
            "B",
            "--json",
        ],
        d,
    );
    assert_eq!(v["occurrences"].as_u64(), Some(0));
}

/// Ishi files are indexed as their SGF conversion; ASCII position files are refused as files
/// with no games.
#[test]
fn ishi_games_index_like_their_sgf_conversion() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let spec = common::corpus().join("ishi/testspec.go");
    std::fs::copy(&spec, d.join("spec.go")).unwrap();
    ok(&kifu(&["convert", "spec.go", "spec.sgf"], d));
    let build = |input: &str, out: &str| -> Value {
        json(
            &["pos", "index", input, "-o", out, "--variations", "--json"],
            d,
        )
    };
    let a = build("spec.go", "a.idx");
    let b = build("spec.sgf", "b.idx");
    assert!(a["games"].as_u64().unwrap() >= 1, "{a}");
    assert!(a["positions"].as_u64().unwrap() > 50, "{a}");
    for k in ["games", "positions", "games_other_size", "games_failed"] {
        assert_eq!(a[k], b[k], "{k}");
    }
    // The same answers, file names aside, at every move of the first game's main line.
    for m in ["0", "1", "7", "30"] {
        let look = |db: &str, sgf: &str| -> Value {
            let mut v: Value = json(
                &["pos", "lookup", db, "--sgf", sgf, "--move", m, "--json"],
                d,
            );
            for x in v["matches"].as_array_mut().unwrap() {
                x.as_object_mut().unwrap().remove("file");
            }
            v
        };
        let (x, y) = (look("a.idx", "spec.sgf"), look("b.idx", "spec.sgf"));
        assert!(x["occurrences"].as_u64().unwrap() >= 1, "move {m}: {x}");
        assert_eq!(x, y, "move {m}");
    }
    std::fs::write(d.join("p.txt"), format!("{}B\n", ".".repeat(361))).unwrap();
    let o = kifu(&["pos", "index", "p.txt", "-o", "c.idx"], d);
    let err = fails(&o, 1);
    assert!(
        err.contains("p.txt: ASCII positions are not games: there is nothing to index"),
        "{err}"
    );
}

/// `--sgf F --move N` asks for the position the index stores for move N: after setup that
/// follows the move (here handicap stones in the node after the root), not before it.
#[test]
fn lookup_by_sgf_takes_setup_after_the_move() {
    let dir = with_game(
        "h/h.sgf",
        "(;GM[1]SZ[9]HA[2]PB[x]PW[y]RE[W+R];AB[cc][gf]PL[W];W[ee];C[a comment];B[ce])",
    );
    let d = dir.path();
    ok(&kifu(
        &["pos", "index", "h", "-o", "h.idx", "--size", "9"],
        d,
    ));
    let look = |m: &str| -> Value {
        json(
            &[
                "pos", "lookup", "h.idx", "--sgf", "h/h.sgf", "--move", m, "--json",
            ],
            d,
        )
    };
    let v = look("0");
    assert_eq!(v["to_play"], "W");
    assert_eq!(v["occurrences"].as_u64(), Some(1), "{v}");
    assert_eq!(
        (
            v["matches"][0]["move"].as_u64(),
            v["matches"][0]["next"].as_str()
        ),
        (Some(0), Some("E5"))
    );
    // After W E5 and the comment node: Black to play, continued by C5.
    let v = look("1");
    assert_eq!(v["occurrences"].as_u64(), Some(1), "{v}");
    assert_eq!(v["matches"][0]["next"], "C5");
    let o = kifu(
        &["pos", "lookup", "h.idx", "--sgf", "h/h.sgf", "--move", "3"],
        d,
    );
    assert_eq!(
        fails(&o, 1),
        "kifu: h/h.sgf: game 1 has no move 3 on variation 0\n"
    );
}

/// A sharded index build (N parts, merged in any order) is byte for byte one build, its pattern
/// index too; a missing or damaged part is refused, naming it.
#[test]
fn sharded_index_merges_to_one_build() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (fuego, gnugo) = fuego_gnugo();
    let inputs = [fuego, gnugo];
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_kifu"))
            .args(args)
            .current_dir(d)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let base = [
        "pos",
        "index",
        &inputs[0],
        &inputs[1],
        "--size",
        "9",
        "--variations",
    ];
    assert_eq!(run(&[&base[..], &["-o", "one.idx"]].concat()).0, Some(0));
    for n in [2u64, 3] {
        let parts: Vec<String> = (1..=n).map(|i| format!("p{i}of{n}.idx")).collect();
        for (i, part) in parts.iter().enumerate() {
            let shard = format!("{}/{n}", i + 1);
            let r = run(&[&base[..], &["--shard", &shard, "-o", part]].concat());
            assert_eq!(r.0, Some(0), "{}", r.1);
        }
        let merged = format!("m{n}.idx");
        let mut args = vec!["pos", "merge", "--shards", "-o", &merged];
        args.extend(parts.iter().rev().map(String::as_str));
        let r = run(&args);
        assert_eq!(r.0, Some(0), "{}", r.1);
        let read = |p: &str| std::fs::read(d.join(p)).unwrap();
        assert!(
            read(&merged) == read("one.idx"),
            "{n} shards: the index differs"
        );
        assert!(
            read(&format!("m{n}.kpp")) == read("one.kpp"),
            "{n} shards: the pattern index differs"
        );
    }
    let r = run(&[
        "pos",
        "merge",
        "--shards",
        "p1of3.idx",
        "p2of3.idx",
        "-o",
        "bad.idx",
    ]);
    assert_eq!(r, (Some(1), "kifu: missing shard 3/3 of 3\n".to_string()));
    // A part's files replaced by another shard's (its manifest left): refused, not merged
    // into a database with that shard twice.
    let merge3 = || {
        run(&[
            "pos",
            "merge",
            "--shards",
            "p1of3.idx",
            "p2of3.idx",
            "p3of3.idx",
            "-o",
            "bad.idx",
        ])
    };
    let second = std::fs::read(d.join("p2of3.idx")).unwrap();
    std::fs::copy(d.join("p3of3.idx"), d.join("p2of3.idx")).unwrap();
    let r = merge3();
    assert_eq!(r.0, Some(1));
    assert!(
        r.1.contains("p2of3.idx: not the index its manifest describes (shard 2/3)"),
        "{}",
        r.1
    );
    assert!(!d.join("bad.idx").exists());
    std::fs::write(d.join("p2of3.idx"), &second).unwrap();
    // The manifest's checks are text: 16 hexadecimal digits (JSON tools round big numbers).
    let manifest = std::fs::read_to_string(d.join("p2of3.idx.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    let check = v["index_check"].as_str().unwrap();
    assert!(
        check.len() == 16 && check.bytes().all(|b| b.is_ascii_hexdigit()),
        "{check}"
    );
    // A key's name damaged: refused, not read as a manifest without the check.
    std::fs::write(
        d.join("p2of3.idx.json"),
        manifest.replace("\"index_check\"", "\"index_checj\""),
    )
    .unwrap();
    let r = merge3();
    assert_eq!(r.0, Some(1));
    assert!(r.1.contains("unknown field `index_checj`"), "{}", r.1);
    std::fs::write(d.join("p2of3.idx.json"), manifest).unwrap();
    let bytes = std::fs::read(d.join("p3of3.idx")).unwrap();
    std::fs::write(d.join("p3of3.idx"), &bytes[..1000]).unwrap();
    let r = merge3();
    assert_eq!(r.0, Some(1));
    assert!(r.1.contains("p3of3.idx: "), "{}", r.1);
    assert!(!d.join("bad.idx").exists());
}

/// Each part of a sharded build has its pattern index, and the merge copies the parts' records
/// instead of reading the games again: with the games' files gone, the merged pattern index is
/// still one build's, byte for byte; a part without its pattern index has the merge read the
/// files, and then a missing file is reported.
#[test]
fn sharded_pattern_indexes_merge_without_the_games() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let corpus = common::corpus().join("sgf/games");
    // A copy of the games, so that they can be taken away before the merge.
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let p = e.unwrap().path();
            let target = to.join(p.file_name().unwrap());
            if p.is_dir() {
                copy(&p, &target);
            } else {
                std::fs::copy(&p, &target).unwrap();
            }
        }
    }
    let games = d.join("games");
    copy(&corpus.join("fuego-regression"), &games);
    let input = games.display().to_string();
    let base = ["pos", "index", &input, "--size", "9"];
    let v: Value = serde_json::from_str(&ok(&kifu(
        &[&base[..], &["-o", "one.idx", "--json"]].concat(),
        d,
    )))
    .unwrap();
    assert!(v["games"].as_u64().unwrap() > 300, "{v}");
    let one = std::fs::read(d.join("one.kpp")).unwrap();
    let parts = ["p1.idx", "p2.idx", "p3.idx"];
    for (i, part) in parts.iter().enumerate() {
        let shard = format!("{}/3", i + 1);
        let v: Value = serde_json::from_str(&ok(&kifu(
            &[&base[..], &["--shard", &shard, "-o", part, "--json"]].concat(),
            d,
        )))
        .unwrap();
        let sidecar = part.replace(".idx", ".kpp");
        assert_eq!(v["pattern_index"], sidecar);
        assert!(d.join(sidecar).is_file());
    }
    std::fs::rename(&games, d.join("gone")).unwrap();
    let merge = |out: &str| {
        kifu(
            &[
                "pos", "merge", "--shards", "-o", out, parts[2], parts[0], parts[1],
            ],
            d,
        )
    };
    ok(&merge("m.idx"));
    assert_eq!(
        std::fs::read(d.join("m.idx")).unwrap(),
        std::fs::read(d.join("one.idx")).unwrap()
    );
    assert!(
        std::fs::read(d.join("m.kpp")).unwrap() == one,
        "the pattern index differs"
    );
    // Without a part's pattern index the files are read, and these are gone: the index is
    // merged, and the games that could not be read are said to be missing at the search.
    std::fs::remove_file(d.join("p2.kpp")).unwrap();
    ok(&merge("m2.idx"));
    assert!(std::fs::read(d.join("m2.kpp")).unwrap() != one);
    std::fs::rename(d.join("gone"), &games).unwrap();
    ok(&merge("m3.idx"));
    assert!(std::fs::read(d.join("m3.kpp")).unwrap() == one);
}

/// Games added to an index give the index (and pattern index) of one build over its files then
/// the new ones; files it holds already are skipped.
#[test]
fn added_games_equal_one_build() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (fuego, gnugo) = fuego_gnugo();
    ok(&kifu(
        &[
            "pos",
            "index",
            &fuego,
            &gnugo,
            "--size",
            "9",
            "--variations",
            "-o",
            "one.idx",
        ],
        d,
    ));
    ok(&kifu(
        &[
            "pos",
            "index",
            &fuego,
            "--size",
            "9",
            "--variations",
            "-o",
            "db.idx",
        ],
        d,
    ));
    let v: Value = serde_json::from_str(&ok(&kifu(
        &["pos", "index", &gnugo, "--add", "-o", "db.idx", "--json"],
        d,
    )))
    .unwrap();
    assert_eq!(v["added_games"], 411);
    // Only the new games were read for the pattern index.
    assert_eq!(v["pattern_index_extended"], true);
    let read = |p: &str| std::fs::read(d.join(p)).unwrap();
    assert!(
        read("db.idx") == read("one.idx"),
        "the index differs from one build"
    );
    assert!(
        read("db.kpp") == read("one.kpp"),
        "the pattern index differs"
    );
    // Everything again: all skipped, nothing changes.
    let v: Value = serde_json::from_str(&ok(&kifu(
        &[
            "pos", "index", &gnugo, &fuego, "--add", "-o", "db.idx", "--json",
        ],
        d,
    )))
    .unwrap();
    assert_eq!(
        (v["skipped_files"].as_u64(), v["added_games"].as_u64()),
        (Some(2342), Some(0))
    );
    assert!(read("db.idx") == read("one.idx"));
    // --add takes the index's settings: giving others is a usage error.
    fails(
        &kifu(
            &[
                "pos", "index", &gnugo, "--add", "--size", "13", "-o", "db.idx",
            ],
            d,
        ),
        2,
    );
}

/// The default index keeps full-board entries up to 12 stones: lookups of fuller boards come
/// from the pattern index and equal those of an index that keeps every entry (`--entry-stones
/// all`); games added to a cut index, and the shards of a cut build merged, give one cut
/// build's bytes; options that do not go together are usage errors.
#[test]
fn an_index_cut_by_stones_looks_up_fuller_boards_through_the_pattern_index() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (fuego, gnugo) = fuego_gnugo();
    let index = |inputs: &[&str], extra: &[&str], out: &str| {
        let mut args = vec!["pos", "index", "--size", "9", "--json", "-o", out];
        args.extend_from_slice(inputs);
        args.extend_from_slice(extra);
        json(&args, d)
    };
    let cut = index(&[&fuego, &gnugo], &[], "cut.idx");
    let full = index(&[&fuego, &gnugo], &["--entry-stones", "all"], "full.idx");
    assert_eq!(
        (cut["entry_stones"].as_u64(), full["entry_stones"].as_u64()),
        (Some(12), None)
    );
    assert_eq!(cut["positions"], full["positions"]);
    assert_eq!(full["entries"], full["positions"]);
    let (kept, all) = (
        cut["entries"].as_u64().unwrap(),
        full["entries"].as_u64().unwrap(),
    );
    assert!(kept > 0 && kept < all / 2, "{kept} of {all}");
    // Positions of a few 9x9 games, early and late, by the pattern index or the entries.
    fn sgfs(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                sgfs(&p, out);
            } else if p.extension().is_some_and(|x| x == "sgf")
                && std::fs::read_to_string(&p).is_ok_and(|t| t.contains("SZ[9]"))
            {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    sgfs(std::path::Path::new(&fuego), &mut files);
    files.sort();
    let mut found = 0;
    for f in files.iter().step_by(37).take(8) {
        let f = f.display().to_string();
        for n in ["0", "3", "10", "20", "40"] {
            let look = |db: &str, swap: bool| {
                let mut args = vec!["pos", "lookup", db, "--sgf", &f, "--move", n, "--json"];
                if swap {
                    args.push("--swap-colors");
                }
                let o = kifu(&args, d);
                (
                    o.status.code(),
                    String::from_utf8_lossy(&o.stdout).into_owned(),
                )
            };
            for swap in [false, true] {
                let (a, b) = (look("cut.idx", swap), look("full.idx", swap));
                assert_eq!(a, b, "{f} move {n} swap {swap}");
                found += usize::from(a.0 == Some(0));
            }
        }
    }
    assert!(found > 30, "{found} lookups answered");
    // Games added to a cut index: one cut build's bytes.
    index(&[&fuego], &[], "added.idx");
    let v = json(
        &["pos", "index", &gnugo, "--add", "-o", "added.idx", "--json"],
        d,
    );
    assert_eq!(
        (v["positions"].clone(), v["entries"].as_u64()),
        (cut["positions"].clone(), Some(kept))
    );
    let read = |p: &str| std::fs::read(d.join(p)).unwrap();
    assert!(
        read("added.idx") == read("cut.idx"),
        "added games differ from one cut build"
    );
    // Two shards of a cut build merged: the same bytes.
    for i in 1..=2 {
        let shard = format!("{i}/2");
        index(
            &[&fuego, &gnugo],
            &["--shard", &shard],
            &format!("p{i}.idx"),
        );
    }
    let m = json(
        &[
            "pos", "merge", "--shards", "p1.idx", "p2.idx", "-o", "m.idx", "--json",
        ],
        d,
    );
    assert_eq!(
        (m["positions"].clone(), m["entries"].as_u64()),
        (cut["positions"].clone(), Some(kept))
    );
    assert!(
        read("m.idx") == read("cut.idx"),
        "merged shards differ from one cut build"
    );
    // Usage errors: a cut with every variation, a cut that is not a number, a cut with --add.
    for extra in [
        &["--variations", "--entry-stones", "5"][..],
        &["--entry-stones", "some"][..],
    ] {
        let mut args = vec!["pos", "index", &gnugo, "--size", "9", "-o", "x.idx"];
        args.extend_from_slice(extra);
        fails(&kifu(&args, d), 2);
    }
    fails(
        &kifu(
            &[
                "pos",
                "index",
                &gnugo,
                "--add",
                "--entry-stones",
                "3",
                "-o",
                "cut.idx",
            ],
            d,
        ),
        2,
    );
    assert!(!d.join("x.idx").exists());
}

/// A changed byte of an index is found by `kifu pos verify` (its block named), refused by
/// the lookups that read it and by `--add` (which leaves the index as it was); a changed byte
/// of the pattern index is found too.
#[test]
fn a_damaged_index_is_found_and_refused_where_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (fuego, gnugo) = fuego_gnugo();
    let built = json(
        &[
            "pos", "index", &fuego, "--size", "9", "-o", "db.kpx", "--json",
        ],
        d,
    );
    let v = json(&["pos", "verify", "db.kpx", "--json"], d);
    assert_eq!(
        v,
        serde_json::json!({
            "format": 4, "index_checked": true, "games": built["games"],
            "pattern_index_checked": true, "index": "db.kpx", "pattern_index": "db.kpp",
        })
    );
    let text = ok(&kifu(&["pos", "verify", "db.kpx"], d));
    assert_eq!(
        text,
        format!(
            "db.kpx: {} games, every block matches its checksum\ndb.kpp: its checksum matches\n",
            built["games"]
        )
    );
    let good = std::fs::read(d.join("db.kpx")).unwrap();
    assert!(good.len() > 30 * 4096, "{}", good.len());
    let with = |changed: &[usize]| {
        let mut b = good.clone();
        for &at in changed {
            b[at] ^= 0x20;
        }
        std::fs::write(d.join("db.kpx"), &b).unwrap();
        std::fs::copy(d.join("db.kpx"), d.join("before.kpx")).unwrap();
    };
    with(&[50_000]);
    let err = fails(&kifu(&["pos", "verify", "db.kpx"], d), 1);
    assert_eq!(
        err.trim(),
        "kifu: db.kpx: damaged: bytes 49152 to 53248 of db.kpx (byte offsets) do not match \
         their checksum; rebuild it with `kifu pos index`"
    );
    // Every block from the third changed: a lookup's binary search meets one.
    let blocks: Vec<usize> = (2..good.len() / 4096).map(|k| k * 4096 + 100).collect();
    with(&blocks);
    let empty = ".".repeat(81);
    let err = fails(
        &kifu(
            &[
                "pos",
                "lookup",
                "db.kpx",
                "--board",
                &empty,
                "--to-play",
                "B",
            ],
            d,
        ),
        1,
    );
    assert!(err.starts_with("kifu: damaged: bytes "), "{err}");
    assert!(err.contains(" of db.kpx (byte offsets)"), "{err}");
    let err = fails(
        &kifu(&["pos", "index", &gnugo, "--add", "-o", "db.kpx"], d),
        1,
    );
    assert!(err.contains("damaged: bytes "), "{err}");
    assert!(
        std::fs::read(d.join("db.kpx")).unwrap() == std::fs::read(d.join("before.kpx")).unwrap()
    );
    // The pattern index.
    with(&[]);
    let mut kpp = std::fs::read(d.join("db.kpp")).unwrap();
    let mid = kpp.len() / 2;
    kpp[mid] ^= 1;
    std::fs::write(d.join("db.kpp"), &kpp).unwrap();
    let err = fails(&kifu(&["pos", "verify", "db.kpx"], d), 1);
    assert!(err.contains("db.kpp"), "{err}");
}
