//! What a careless command line must not do to a user's files: write an output over one of
//! its inputs (however the path is spelled), read a file twice because it was named twice,
//! mix two outputs on standard output, or take options a mode ignores. Found by a hostile
//! user's probe (session 48); each case checks the exit code, the message and the bytes left.

mod common;

use common::{fails, kifu_in, kifu_stdin, ok, text};
use std::path::Path;

const GAME: &str = "(;GM[1]FF[4]SZ[9]PB[Ann]PW[Bob]DT[2001-02-03]RE[B+R];B[ee];W[gc];B[cg];W[cc]\
;B[gg];W[dd];B[ec];W[eb])";
const OTHER: &str = "(;GM[1]FF[4]SZ[9]PB[Cid]PW[Dan]RE[W+1];B[cc];W[gg];B[cg];W[gc])";

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every output named as an input (the same file, also through another spelling or a link)
/// is refused with exit 2 before anything is written, and the input keeps its bytes.
#[test]
fn an_output_over_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("a.sgf"), GAME).unwrap();
    std::fs::write(d.join("b.sgf"), OTHER).unwrap();
    std::fs::hard_link(d.join("a.sgf"), d.join("link.sgf")).unwrap();
    ok(&kifu_in(
        &[
            "pos", "index", "a.sgf", "b.sgf", "-o", "db.kpx", "--size", "9",
        ],
        d,
    ));
    let db = std::fs::read(d.join("db.kpx")).unwrap();
    let cases = [
        "pos index a.sgf b.sgf -o a.sgf",
        "pos index . -o ./b.sgf",
        "pos index a.sgf -o link.sgf",
        "pos index db.kpx --add -o db.kpx",
        "pos search db.kpx --pattern # --anywhere --svg db.kpx",
        "pos search db.kpx --pattern # --anywhere --svg db.kpp",
        "pos extract a.sgf -o ./a.sgf",
        "show a.sgf --svg a.sgf",
        "show a.sgf --png link.sgf",
        "sgf convert a.sgf -o a.sgf",
        "sgf convert . -o .",
        "convert a.sgf ./a.sgf",
    ];
    for line in cases {
        let args: Vec<&str> = line.split(' ').collect();
        let out = kifu_in(&args, d);
        let err = fails(&out, 2);
        assert!(
            err.contains("the output is also an input"),
            "{args:?}: {err}"
        );
        assert_eq!(
            std::fs::read_to_string(d.join("a.sgf")).unwrap(),
            GAME,
            "{args:?}"
        );
        assert_eq!(
            std::fs::read_to_string(d.join("b.sgf")).unwrap(),
            OTHER,
            "{args:?}"
        );
        assert_eq!(std::fs::read(d.join("db.kpx")).unwrap(), db, "{args:?}");
    }
    // Standard input that reads the output's file; the index's pattern index as an export.
    for line in ["sgf convert - -o a.sgf", "show - --svg a.sgf"] {
        let args: Vec<&str> = line.split(' ').collect();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_kifu"))
            .args(&args)
            .current_dir(d)
            .stdin(std::fs::File::open(d.join("a.sgf")).unwrap())
            .output()
            .unwrap();
        assert!(
            fails(&out, 2).contains("the output is also an input"),
            "{line}"
        );
        assert_eq!(
            std::fs::read_to_string(d.join("a.sgf")).unwrap(),
            GAME,
            "{line}"
        );
    }
    let out = kifu_in(&["pos", "export", "db.kpx", "-o", "db.kpp"], d);
    assert!(fails(&out, 2).contains("the output is also an input"));
    // Two outputs in one place, and a game 0.
    for line in [
        "show a.sgf --svg x.out --png x.out",
        "show a.sgf --svg - --png -",
        "show a.sgf --game 0",
        "pos score a.sgf -o s.dat --queue-out s.dat --engine none",
        "pos score a.sgf -o s.dat --queue-out ./s.dat --engine none",
    ] {
        let args: Vec<&str> = line.split(' ').collect();
        fails(&kifu_in(&args, d), 2);
    }
    // A folder converted into a folder inside it: a file that would land on another input is
    // not written, the others are.
    std::fs::create_dir(d.join("sub")).unwrap();
    std::fs::write(d.join("sub/a.sgf"), OTHER).unwrap();
    let out = kifu_in(&["sgf", "convert", ".", "-o", "sub", "-q"], d);
    let err = fails(&out, 1);
    assert!(
        err.contains("sub/a.sgf: the output is also an input"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(d.join("sub/a.sgf")).unwrap(), OTHER);
    assert!(d.join("sub/b.sgf").exists());
}

/// A file named twice, or found again under a second folder, is read once: the index holds
/// its games once in both tables.
#[test]
fn a_file_given_twice_is_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("g")).unwrap();
    std::fs::write(d.join("g/a.sgf"), GAME).unwrap();
    std::fs::write(d.join("g/b.sgf"), OTHER).unwrap();
    let out = kifu_in(
        &[
            "pos",
            "index",
            "g/a.sgf",
            "g",
            "./g/a.sgf",
            "-o",
            "db.kpx",
            "--json",
            "--size",
            "9",
        ],
        d,
    );
    let v: serde_json::Value = serde_json::from_str(&ok(&out)).unwrap();
    assert_eq!(
        (v["files"].as_u64(), v["games"].as_u64()),
        (Some(2), Some(2))
    );
    let err = text(&out.stderr);
    assert!(err.contains("g/a.sgf again: read once"), "{err}");
    // The pattern index and the filters see the same two games.
    let out = kifu_in(&["pos", "search", "db.kpx", "--player", "", "--json"], d);
    let v: serde_json::Value = serde_json::from_str(&ok(&out)).unwrap();
    assert_eq!(v["games"], 2);
}

/// Standard input for `--sgf` and `--pattern-file`; `--svg -` alone on standard output, and
/// refused with `--json`; `--json` refused with `-o -`; `--game 0` a usage error.
#[test]
fn standard_input_and_output_are_one_thing_each() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("a.sgf"), GAME).unwrap();
    ok(&kifu_in(
        &["pos", "index", "a.sgf", "-o", "db.kpx", "--size", "9"],
        d,
    ));
    let db = d.join("db.kpx");
    let run = |line: &str| kifu_in(&line.split(' ').collect::<Vec<_>>(), d);
    // A command run with `input` on standard input (the database named by its full path).
    let piped = |line: &str, input: &[u8]| {
        let line = line.replace("db.kpx", s(&db));
        kifu_stdin(&line.split(' ').collect::<Vec<_>>(), input)
    };
    let by_file = run("pos search db.kpx --sgf a.sgf --move 4 --area A9:E5 --json");
    let by_stdin = piped(
        "pos search db.kpx --sgf - --move 4 --area A9:E5 --json",
        GAME.as_bytes(),
    );
    assert_eq!(ok(&by_stdin), ok(&by_file));
    let pattern = piped(
        "pos search db.kpx --pattern-file - --anywhere --json",
        b"#.\n.O\n",
    );
    let rows = run("pos search db.kpx --pattern #./.O --anywhere --json");
    assert_eq!(ok(&pattern), ok(&rows));
    let svg = ok(&run("pos search db.kpx --pattern # --svg -"));
    assert!(
        svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
        "{svg}"
    );
    let both = run("pos search db.kpx --pattern # --svg - --json");
    assert!(fails(&both, 2).contains("--svg -"));
    let index = run("pos index a.sgf -o - --json");
    assert!(fails(&index, 2).contains("-o -"));
    let zero = run("pos lookup db.kpx --sgf a.sgf --move 2 --game 0");
    assert!(fails(&zero, 2).contains("--game 0"));
}

/// `--batch` takes its queries from the file: an option of the command line's query beside
/// it is refused, not silently ignored.
#[test]
fn batch_refuses_the_command_lines_query() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("a.sgf"), GAME).unwrap();
    std::fs::write(d.join("q.jsonl"), "{\"pattern\": \"#\"}\n").unwrap();
    ok(&kifu_in(
        &["pos", "index", "a.sgf", "-o", "db.kpx", "--size", "9"],
        d,
    ));
    ok(&kifu_in(
        &["pos", "search", "db.kpx", "--batch", "q.jsonl"],
        d,
    ));
    for extra in [
        &["--player", "Ann"][..],
        &["--corner"],
        &["--moves", "0-5"],
        &["--swap-colors"],
    ] {
        let mut args = vec!["pos", "search", "db.kpx", "--batch", "q.jsonl"];
        args.extend_from_slice(extra);
        let out = kifu_in(&args, d);
        fails(&out, 2);
    }
}

/// A file that holds no game (empty, or not SGF at all) is named and counted, not passed over
/// in silence; the files that do hold games are indexed as ever.
#[test]
fn files_without_games_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("a.sgf"), GAME).unwrap();
    std::fs::write(d.join("empty.sgf"), "").unwrap();
    std::fs::write(d.join("hello.sgf"), "hello").unwrap();
    for cmd in ["index", "extract"] {
        let out = kifu_in(
            &["pos", cmd, ".", "-o", "out.dat", "--size", "9", "--json"],
            d,
        );
        let v: serde_json::Value = serde_json::from_str(&ok(&out)).unwrap();
        assert_eq!(v["files_without_games"], 2, "{cmd}: {v}");
        assert_eq!(v["files_failed"], 0, "{cmd}: {v}");
        assert_eq!(v["games"], 1, "{cmd}: {v}");
        let errors = v["errors"].to_string();
        for name in [
            "empty.sgf: no game found in it",
            "hello.sgf: no game found in it",
        ] {
            assert!(errors.contains(name), "{cmd}: {errors}");
        }
    }
}
