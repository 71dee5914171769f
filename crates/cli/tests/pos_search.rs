//! `kifu pos search` over an index of the shared corpus: the whole-board case equals
//! `kifu pos lookup`, filters give the same answers before or after, threads and the cache's
//! size change nothing,
//! and bad patterns are usage errors naming the row and column.

mod common;

use common::{corpus, fails, kifu_in, ok};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

/// One index of the corpus's games for every test (built once; tests only read it).
fn db() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let games = corpus().join("sgf/games");
        ok(&kifu_in(
            &["pos", "index", games.to_str().unwrap(), "-o", "corpus.kpx"],
            dir.path(),
        ));
        dir
    });
    dir.path()
}

fn json(args: &[&str]) -> Value {
    serde_json::from_str(&ok(&kifu_in(args, db()))).unwrap()
}

fn game_file() -> String {
    corpus()
        .join("sgf/games/computer-go-dataset/AI/2018 Tencent World AI WEIQI Competition/PC 6-4 Golaxy vs LeelaZero.SGF")
        .display()
        .to_string()
}

/// Continuations by move with the colours added up (lookup does not tell them apart).
fn by_move(v: &Value, count: &str) -> BTreeMap<String, (u64, u64, u64)> {
    let mut out = BTreeMap::new();
    for c in v["continuations"].as_array().unwrap() {
        let e = out
            .entry(c["move"].as_str().unwrap().to_string())
            .or_insert((0, 0, 0));
        e.0 += c[count].as_u64().unwrap();
        e.1 += c["black_wins"].as_u64().unwrap();
        e.2 += c["white_wins"].as_u64().unwrap();
    }
    out
}

#[test]
fn the_whole_board_is_a_lookup() {
    let f = game_file();
    for n in ["0", "1", "2", "3", "4", "7", "20"] {
        let shown: Value =
            serde_json::from_str(&ok(&kifu_in(&["show", &f, "--move", n, "--json"], db())))
                .unwrap();
        let to_play = shown["to_play"].as_str().unwrap();
        let l = json(&[
            "pos",
            "lookup",
            "corpus.kpx",
            "--sgf",
            &f,
            "--move",
            n,
            "--json",
        ]);
        let s = json(&[
            "pos",
            "search",
            "corpus.kpx",
            "--sgf",
            &f,
            "--move",
            n,
            "--area",
            "A19:T1",
            "--to-play",
            to_play,
            "--json",
            "--limit",
            "0",
        ]);
        assert_eq!(s["games"], l["games"], "move {n}");
        assert_eq!(s["occurrences"], l["occurrences"], "move {n}");
        let mut want = by_move(&l, "count");
        let pass = want.remove("pass");
        assert_eq!(by_move(&s, "count"), want, "move {n}");
        let passes = &s["passes"];
        assert_eq!(
            pass.map(|p| p.0).unwrap_or(0),
            passes["count"].as_u64().unwrap(),
            "move {n}"
        );
        assert_eq!(
            s["tenuki"]["count"], 0,
            "nothing is outside the whole board"
        );
    }
}

#[test]
fn filters_give_the_same_answer_before_or_after() {
    let pattern = ["--pattern", "...../...../..#../...../.....", "--corner"];
    let all = |extra: &[&str]| {
        let mut args = vec!["pos", "search", "corpus.kpx", "--json", "--limit", "10000"];
        args.extend_from_slice(&pattern);
        args.extend_from_slice(extra);
        json(&args)
    };
    let everything = all(&[]);
    let matches = everything["matches"].as_array().unwrap();
    assert_eq!(
        everything["occurrences"].as_u64().unwrap() as usize,
        matches.len()
    );
    assert!(matches.len() > 1000, "{}", matches.len());
    type Pick = fn(&Value) -> bool;
    let cases: Vec<(Vec<&str>, Pick)> = vec![
        (vec!["--player", "leela"], |m| {
            let has = |k: &str| m[k].as_str().unwrap().to_lowercase().contains("leela");
            has("black") || has("white")
        }),
        (vec!["--winner", "white"], |m| {
            m["result"]
                .as_str()
                .unwrap()
                .to_uppercase()
                .starts_with("W+")
        }),
        (vec!["--date-from", "2017", "--date-to", "2017"], |m| {
            m["date"].as_str().unwrap().starts_with("2017")
        }),
        (vec!["--moves", "0-20"], |m| {
            m["move"].as_u64().unwrap() <= 20
        }),
    ];
    for (args, pick) in cases {
        let filtered = all(&args);
        let want: Vec<&Value> = matches.iter().filter(|m| pick(m)).collect();
        let got = filtered["matches"].as_array().unwrap();
        assert_eq!(got.len(), want.len(), "{args:?}");
        assert!(got.iter().zip(&want).all(|(a, b)| a == *b), "{args:?}");
        let games: std::collections::HashSet<u64> =
            want.iter().map(|m| m["game"].as_u64().unwrap()).collect();
        assert_eq!(
            filtered["games"].as_u64().unwrap() as usize,
            games.len(),
            "{args:?}"
        );
    }
}

#[test]
fn threads_and_pages_change_nothing() {
    let base = [
        "pos",
        "search",
        "corpus.kpx",
        "--pattern",
        "*.*/.#./*.*",
        "--swap-colors",
        "--json",
        "--moves",
        "0-40",
    ];
    let run = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        json(&args)
    };
    let one = run(&["-j", "1", "--limit", "300"]);
    let two = run(&["-j", "2", "--limit", "300"]);
    assert_eq!(one, two);
    // Nor does the memory for the games read from the sidecar (1 MiB: most are read again).
    assert_eq!(run(&["--cache-mb", "1", "--limit", "300"]), one);
    let page = run(&["--offset", "100", "--limit", "50"]);
    assert_eq!(
        page["matches"].as_array().unwrap()[..],
        one["matches"].as_array().unwrap()[100..150]
    );
    assert!(one["swapped"].as_u64().unwrap() > 0);
}

#[test]
fn bad_patterns_and_options_are_usage_errors() {
    let wide = "#".repeat(20);
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["--pattern", "#O./#Q."],
            "row 2, column 2: 'Q' is not a pattern letter",
        ),
        (
            vec!["--pattern", "#O./#O"],
            "row 2: 2 cells, but row 1 has 3",
        ),
        (vec!["--pattern", "  "], "the pattern is empty"),
        (vec!["--pattern", "**/**"], "only wildcards"),
        (
            vec!["--pattern", &wide],
            "larger than the database's 19x19 board",
        ),
        (vec!["--pattern", "#", "--at", "Z9"], "--at Z9"),
        (vec!["--pattern", "##", "--at", "T1"], "leaves the board"),
        (vec!["--pattern", "#", "--moves", "9-2"], "FROM <= TO"),
        (
            vec!["--pattern", "#", "--winner", "nobody"],
            "black, white, draw or unknown",
        ),
        (vec!["--pattern", "#", "--limit", "100000"], "100000"),
        (vec!["--pattern", "#", "--cache-mb", "0"], "--cache-mb"),
        (vec![], "give --pattern"),
        (
            vec!["--pattern", "..../..#.", "--corner", "--sequence", "W"],
            "colour and point pairs",
        ),
        (
            vec!["--pattern", "..../..#.", "--corner", "--sequence", "W Q4"],
            "Q4 is outside the pattern",
        ),
        (
            vec!["--pattern", "..../..#.", "--corner", "--sequence", "X C18"],
            "not a colour",
        ),
        (
            vec!["--pattern", "..../..#.", "--allow-tenuki"],
            "--sequence",
        ),
    ];
    for (extra, want) in cases {
        let mut args = vec!["pos", "search", "corpus.kpx"];
        args.extend_from_slice(&extra);
        let err = fails(&kifu_in(&args, db()), 2);
        assert!(err.contains(want), "{extra:?}: want {want:?} in {err}");
    }
    // A damaged index is refused with a message, not a panic.
    std::fs::write(db().join("bad.kpx"), b"KIFUPIX2 but nothing else").unwrap();
    let err = fails(
        &kifu_in(&["pos", "search", "bad.kpx", "--pattern", "#"], db()),
        1,
    );
    assert!(err.contains("bad.kpx"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_sequence_of_one_move_is_that_continuation() {
    // Every hit whose next move is X is a hit of the pattern followed by the sequence "X".
    let base = [
        "pos",
        "search",
        "corpus.kpx",
        "--pattern",
        "...../...../...#./...../.....",
        "--corner",
        "--json",
        "--limit",
        "0",
    ];
    let plain = json(&base);
    for c in plain["continuations"].as_array().unwrap().iter().take(4) {
        let seq = format!(
            "{} {}",
            c["color"].as_str().unwrap(),
            c["move"].as_str().unwrap()
        );
        let mut args = base.to_vec();
        args.extend_from_slice(&["--sequence", &seq]);
        let s = json(&args);
        assert_eq!(s["occurrences"], c["count"], "{seq}");
        let next: u64 = s["continuations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["count"].as_u64().unwrap())
            .sum::<u64>()
            + ["tenuki", "passes"]
                .iter()
                .map(|k| s[k]["count"].as_u64().unwrap())
                .sum::<u64>()
            + s["game_ends"].as_u64().unwrap();
        assert_eq!(next, c["count"].as_u64().unwrap(), "{seq}");
    }
}

#[test]
fn a_batch_answers_as_single_runs_do() {
    let lines = [
        r#"{"pattern": "...../...../...#./...../.....", "placement": {"kind": "at", "col": 0, "row": 0}}"#,
        r#"{"pattern": "*.*/.#./*.*", "swap_colors": true, "to_play": "B", "moves": [0, 30], "filters": {"player": "leela"}}"#,
        r#"{"pattern": "...#/....", "placement": {"kind": "edge", "side": "top"}, "symmetries": false}"#,
        r#"{"filters": {"player": "leela", "date_from": "2016"}}"#,
    ];
    std::fs::write(db().join("batch.jsonl"), lines.join("\n") + "\n\n").unwrap();
    let out = ok(&kifu_in(
        &[
            "pos",
            "search",
            "corpus.kpx",
            "--batch",
            "batch.jsonl",
            "--limit",
            "5",
        ],
        db(),
    ));
    let answers: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 4);
    let single = [
        vec!["--pattern", "...../...../...#./...../.....", "--corner"],
        vec![
            "--pattern",
            "*.*/.#./*.*",
            "--swap-colors",
            "--to-play",
            "B",
            "--moves",
            "0-30",
            "--player",
            "leela",
        ],
        vec!["--pattern", "...#/....", "--edge", "top", "--no-symmetries"],
        vec!["--player", "leela", "--date-from", "2016"],
    ];
    for (args, batch) in single.iter().zip(&answers) {
        let mut all = vec!["pos", "search", "corpus.kpx", "--json", "--limit", "5"];
        all.extend_from_slice(args);
        assert_eq!(&json(&all), batch, "{args:?}");
        assert!(batch["games"].as_u64().unwrap() > 0, "{args:?}");
    }
    // Filters alone answer with the games, not occurrences.
    assert!(answers[3].get("occurrences").is_none(), "{}", answers[3]);
    // A bad line is a usage error naming it.
    std::fs::write(
        db().join("bad.jsonl"),
        "{\"pattern\": \"#\"}\n{\"pattern\": 5}\n",
    )
    .unwrap();
    let err = fails(
        &kifu_in(
            &["pos", "search", "corpus.kpx", "--batch", "bad.jsonl"],
            db(),
        ),
        2,
    );
    assert!(err.contains("bad.jsonl: line 2:"), "{err}");
    // Named by the file's line (blank lines count), a syntax error by its column too; a
    // query that parses but cannot be searched (a move window backwards) as well.
    for (text, want) in [
        (
            "{\"pattern\": \"#\"}\n\n\n{\"pattern\" \"#\"}\n",
            "bad.jsonl: line 4, column 12: expected `:`\n",
        ),
        (
            "\n{\"pattern\": \"#\", \"moves\": [9, 3]}\n",
            "bad.jsonl: line 2: ",
        ),
    ] {
        std::fs::write(db().join("bad.jsonl"), text).unwrap();
        let err = fails(
            &kifu_in(
                &["pos", "search", "corpus.kpx", "--batch", "bad.jsonl"],
                db(),
            ),
            2,
        );
        assert!(err.contains(want), "{text}: {err}");
    }
    // A line without a pattern holds filters alone, and nothing else.
    for (line, want) in [
        (
            r#"{"filters": {"player": "x"}, "placement": {"kind": "anywhere"}}"#,
            "unknown field `placement`",
        ),
        (r#"{"filters": {"playr": "x"}}"#, "unknown field `playr`"),
        (r#"{"filters": {}}"#, "the filters are empty"),
        (
            r#"{"swap_colors": true}"#,
            "a query with a pattern, or filters alone",
        ),
    ] {
        std::fs::write(db().join("bad2.jsonl"), format!("{line}\n")).unwrap();
        let err = fails(
            &kifu_in(
                &["pos", "search", "corpus.kpx", "--batch", "bad2.jsonl"],
                db(),
            ),
            2,
        );
        assert!(
            err.contains("bad2.jsonl: line 1:") && err.contains(want),
            "{line}: {err}"
        );
    }
}

#[test]
fn duplicates_in_any_orientation_are_found_and_left_out_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let moves = [
        "pd", "dp", "pp", "dd", "fq", "qf", "cn", "nc", "jj", "jd", "dj", "jp", "pj", "cc", "qq",
        "cq", "qc", "ee", "oo", "eo", "oe", "gg", "mm", "gm", "mg", "hh", "ll", "hl", "lh", "ii",
        "kk", "ik", "ki", "bb", "rr", "br", "rb",
    ];
    let game = |f: &dyn Fn(&str) -> String, pb: &str| {
        let body: String = moves
            .iter()
            .enumerate()
            .map(|(i, m)| format!(";{}[{}]", if i % 2 == 0 { "B" } else { "W" }, f(m)))
            .collect();
        format!("(;SZ[19]PB[{pb}]PW[x]RE[B+R]{body})\n")
    };
    std::fs::create_dir(d.join("g")).unwrap();
    std::fs::write(d.join("g/a.sgf"), game(&|m: &str| m.to_string(), "first")).unwrap();
    // The same game mirrored in the diagonal, stored again under another name.
    std::fs::write(
        d.join("g/b.sgf"),
        game(&|m: &str| m.chars().rev().collect(), "copy"),
    )
    .unwrap();
    // Another game: move 20 (E5) differs.
    let other = |m: &str| {
        if m == "eo" {
            "en".to_string()
        } else {
            m.to_string()
        }
    };
    std::fs::write(d.join("g/c.sgf"), game(&other, "other")).unwrap();
    ok(&kifu_in(&["pos", "index", "g", "-o", "g.kpx"], d));
    let out = kifu_in(&["pos", "duplicates", "g.kpx", "--json"], d);
    assert_eq!(out.status.code(), Some(1), "duplicates are findings");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["groups"].as_u64(), v["duplicates"].as_u64()),
        (Some(1), Some(1))
    );
    let names: Vec<&str> = v["list"][0]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["black"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["first", "copy"]);
    let search = |extra: &[&str]| -> Value {
        let mut args = vec!["pos", "search", "g.kpx", "--pattern", "#", "--json"];
        args.extend_from_slice(extra);
        serde_json::from_str(&ok(&kifu_in(&args, d))).unwrap()
    };
    assert_eq!(search(&[])["games"], 3);
    assert_eq!(search(&["--no-duplicates"])["games"], 2);
    assert_eq!(search(&["--no-duplicates"])["games_searched"], 2);
}

#[test]
fn the_pattern_index_is_written_by_pos_index_and_a_damaged_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("g.sgf"),
        "(;SZ[19]RE[B+R];B[pd];W[dp];B[pq];W[dd])(;SZ[19];B[dd];W[pp])",
    )
    .unwrap();
    let v: Value = serde_json::from_str(&ok(&kifu_in(
        &["pos", "index", "g.sgf", "-o", "db.kpx", "--json"],
        d,
    )))
    .unwrap();
    assert_eq!(v["pattern_index"], "db.kpp");
    assert_eq!(v["duplicate_groups"], 0);
    let search = [
        "pos",
        "search",
        "db.kpx",
        "--pattern",
        "....\n....\n...#",
        "--json",
    ];
    let a: Value = serde_json::from_str(&ok(&kifu_in(&search, d))).unwrap();
    assert_eq!(a["games"], 2, "{a}");
    // Cut short: refused, naming the file, never a panic.
    let bytes = std::fs::read(d.join("db.kpp")).unwrap();
    std::fs::write(d.join("db.kpp"), &bytes[..bytes.len() / 2]).unwrap();
    let err = fails(&kifu_in(&search, d), 1);
    assert!(err.contains("db.kpp") && err.contains("damaged"), "{err}");
    // A mistyped pattern is a usage error before the index is read, damaged or not.
    let mistyped = ["pos", "search", "db.kpx", "--pattern", "..../..Q#"];
    let err = fails(&kifu_in(&mistyped, d), 2);
    assert!(err.contains("row 2, column 3: 'Q'"), "{err}");
    // Gone: built again from the games' files (and saved).
    std::fs::remove_file(d.join("db.kpp")).unwrap();
    let b: Value = serde_json::from_str(&ok(&kifu_in(&search, d))).unwrap();
    assert_eq!(a, b);
    assert!(d.join("db.kpp").is_file());
}

#[test]
fn filters_alone_list_the_games_that_pass_them() {
    let dir = tempfile::tempdir().unwrap();
    let games = [
        (
            "a.sgf",
            "PB[Honinbo Shusaku]PW[Gennan Inseki]DT[1846-09-11]RE[B+2]EV[Castle game]",
        ),
        (
            "b.sgf",
            "PB[Lee Sedol]PW[AlphaGo]DT[2016-03-13]RE[B+R]EV[Google DeepMind Challenge]",
        ),
        (
            "c.sgf",
            "PB[AlphaGo]PW[Lee Sedol]DT[2016-03-09]RE[B+R]EV[Google DeepMind Challenge]",
        ),
        ("d.sgf", "PB[Cho Chikun]PW[Kato Masao]RE[W+0.5]"),
    ];
    for (name, root) in games {
        std::fs::write(
            dir.path().join(name),
            format!("(;GM[1]FF[4]SZ[19]{root};B[pd];W[dp];B[pp])"),
        )
        .unwrap();
    }
    ok(&kifu_in(&["pos", "index", ".", "-o", "db.kpx"], dir.path()));
    let run = |args: &[&str]| -> Value {
        let mut all = vec!["pos", "search", "db.kpx", "--json"];
        all.extend_from_slice(args);
        serde_json::from_str(&ok(&kifu_in(&all, dir.path()))).unwrap()
    };
    let listed = |v: &Value| -> Vec<(u64, String)> {
        v["matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["game"].as_u64().unwrap(),
                    m["black"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let lee = run(&["--player", "sedol"]);
    assert_eq!(lee["games_searched"], 4);
    assert_eq!(lee["games"], 2);
    assert_eq!(lee["results"]["black_wins"], 2);
    assert_eq!(lee["results"]["white_wins"], 0);
    assert_eq!(
        lee["by_year"],
        serde_json::json!([{"year": 2016, "games": 2, "hits": 2}])
    );
    assert_eq!(
        listed(&lee),
        [(1, "Lee Sedol".into()), (2, "AlphaGo".into())]
    );
    let black_lee = run(&["--black", "LEE"]);
    assert_eq!(listed(&black_lee), [(1, "Lee Sedol".into())]);
    let old = run(&["--date-to", "1999", "--winner", "black"]);
    assert_eq!(listed(&old), [(0, "Honinbo Shusaku".into())]);
    let white = run(&["--winner", "white"]);
    assert_eq!(white["no_year"], 1);
    assert_eq!(listed(&white), [(3, "Cho Chikun".into())]);
    let page = run(&["--text", "A", "--limit", "1", "--offset", "1"]);
    assert_eq!(page["games"], 4);
    assert_eq!(page["offset"], 1);
    assert_eq!(listed(&page), [(1, "Lee Sedol".into())]);
    // The same games as a pattern search with the same filter finds where the pattern is.
    let with_pattern = run(&[
        "--player",
        "sedol",
        "--pattern",
        "...../...../...../...#./.....",
        "--corner",
    ]);
    assert_eq!(with_pattern["games"], 2);
    let text = ok(&kifu_in(
        &["pos", "search", "db.kpx", "--event", "deepmind"],
        dir.path(),
    ));
    assert!(
        text.starts_with("2 of 4 games pass the filters: Black won 2 (100.0%)"),
        "{text}"
    );
    let err = fails(
        &kifu_in(
            &["pos", "search", "db.kpx", "--player", "x", "--svg", "p.svg"],
            dir.path(),
        ),
        2,
    );
    assert!(err.contains("--svg needs a pattern"), "{err}");
}

/// Dates are compared as days whatever a record's separators, and a bound that is no date is
/// a usage error; a `--batch` line is held to what the command line is held to (a place off
/// the board, a range upside down).
#[test]
fn dates_and_batch_lines_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let game = |date: &str| format!("(;GM[1]SZ[9]DT[{date}]RE[B+R];B[ee];W[gc];B[cg])\n");
    let games = [
        game("2018.04.27"),
        game("2018-04-28"),
        game("2018/4/26"),
        game("?"),
    ];
    std::fs::write(d.join("g.sgf"), games.concat()).unwrap();
    ok(&kifu_in(
        &["pos", "index", "g.sgf", "-o", "db.kpx", "--size", "9"],
        d,
    ));
    let between = |from: &str, to: &str| {
        let args = [
            "pos",
            "search",
            "db.kpx",
            "--date-from",
            from,
            "--date-to",
            to,
            "--json",
        ];
        kifu_in(&args, d)
    };
    let games_between = |from: &str, to: &str| {
        let v: Value = serde_json::from_str(&ok(&between(from, to))).unwrap();
        v["games"].as_u64().unwrap()
    };
    assert_eq!(games_between("2018-04-27", "2018-04-27"), 1);
    assert_eq!(games_between("2018-4", "2018-04-27"), 2);
    assert_eq!(games_between("2018", "2018"), 3);
    assert_eq!(games_between("1000", "3000"), 3);
    for (from, to) in [
        ("abc", "2018"),
        ("2018", "zzz"),
        ("2017-13", "2018"),
        ("2017-02-30", "2018"),
        ("2019", "2018"),
    ] {
        fails(&between(from, to), 2);
    }
    for line in [
        r##"{"pattern": "#", "placement": {"kind": "at", "col": 100, "row": 100}}"##,
        r##"{"pattern": "#", "filters": {"komi_min": 7.5, "komi_max": 6.5}}"##,
        r##"{"filters": {"date_from": "abc"}}"##,
    ] {
        std::fs::write(d.join("q.jsonl"), format!("{line}\n")).unwrap();
        let out = kifu_in(&["pos", "search", "db.kpx", "--batch", "q.jsonl"], d);
        assert!(fails(&out, 2).contains("q.jsonl: line 1: "), "{line}");
    }
}
