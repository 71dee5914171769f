//! `kifu pos extract`, `view`, `histogram`, `stats` on a small hand-made collection, with exact
//! expected output.

mod common;
use common::{kifu_in as kifu, ok};

use kifu_go::{Board, BoardSize, ZobristKeys};
use serde_json::Value;
use std::path::Path;
use std::process::Output;

fn json(out: &Output) -> Value {
    serde_json::from_str(&ok(out)).unwrap()
}

/// g1 and g2 reach the same positions under a rotation; g2's variation adds one; g3 is 13x13.
fn collection(dir: &Path) {
    std::fs::create_dir_all(dir.join("games/sub")).unwrap();
    std::fs::write(dir.join("games/g1.sgf"), "(;GM[1]SZ[9];B[ee];W[cc];B[gg])").unwrap();
    std::fs::write(
        dir.join("games/sub/g2.sgf"),
        "(;GM[1]SZ[9];B[ee];W[gc](;B[cg])(;B[aa]))",
    )
    .unwrap();
    std::fs::write(dir.join("games/g3.sgf"), "(;GM[1]SZ[13];B[dd])").unwrap();
}

fn id_of(rows: &str, to_play: char) -> String {
    let b = Board::from_rows(rows.as_bytes(), Some(BoardSize::NINE)).unwrap();
    let h = ZobristKeys::default_for(BoardSize::NINE)
        .table()
        .symmetric_hashes(&b)
        .canonical()
        .hash;
    format!("{h:016x}-00-{to_play}")
}

fn rows_with(points: &[(usize, char)]) -> String {
    let mut r = vec!['.'; 81];
    for &(i, c) in points {
        r[i] = c;
    }
    r.into_iter().collect()
}

#[test]
fn extract_counts_dedups_and_writes_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    collection(d);
    let v = json(&kifu(
        &["pos", "extract", "games", "-o", "pos.dat", "--json"],
        d,
    ));
    let get = |k: &str| v[k].as_u64().unwrap();
    assert_eq!(
        [
            get("files"),
            get("games"),
            get("games_other_size"),
            get("positions_other_size"),
            get("occurrences"),
            get("distinct"),
            get("written"),
            get("spilled_runs"),
        ],
        [3, 3, 1, 2, 8, 4, 4, 0]
    );
    assert_eq!(v["zobrist_written"], true);
    let table = std::fs::read_to_string(d.join("zobrist_board_81.dat")).unwrap();
    assert_eq!(
        table,
        ZobristKeys::default_for(BoardSize::NINE).table().to_text()
    );
    let bytes = std::fs::read(d.join("pos.dat")).unwrap();
    assert_eq!(bytes.len(), 4 * 92);

    // The records, in input order (g1 before g3 before sub/g2: folders are sorted by path).
    let view = ok(&kifu(&["pos", "view", "pos.dat", "--index", "2"], d));
    let id = id_of(&rows_with(&[(40, '#'), (20, 'O')]), 'B');
    assert_eq!(
        view,
        format!(
            "#2 {id}  Black to play  2 stones (1 black, 1 white)
   A B C D E F G H J
 9 . . . . . . . . . 9
 8 . . . . . . . . . 8
 7 . . O . . . + . . 7
 6 . . . . . . . . . 6
 5 . . . . X . . . . 5
 4 . . . . . . . . . 4
 3 . . + . . . + . . 3
 2 . . . . . . . . . 2
 1 . . . . . . . . . 1
   A B C D E F G H J

"
        )
    );

    // Variations add g2's second line: 9 occurrences, 5 distinct; the new position is last.
    let v = json(&kifu(
        &[
            "pos",
            "extract",
            "games",
            "-o",
            "var.dat",
            "--variations",
            "--json",
        ],
        d,
    ));
    assert_eq!(
        (v["occurrences"].as_u64(), v["distinct"].as_u64()),
        (Some(9), Some(5))
    );
    assert_eq!(
        v["zobrist_written"], false,
        "the table next to the output is reused"
    );
    let last = json(&kifu(
        &["pos", "view", "var.dat", "--index", "4", "--json"],
        d,
    ));
    let p = &last["positions"][0];
    assert_eq!(p["rows"][0], "#........");
    assert_eq!(p["stones"], 3);
    assert_eq!(p["to_play"], "W");

    // The same bytes with one thread, or two and a tiny sort memory (spilled runs).
    ok(&kifu(
        &[
            "pos",
            "extract",
            "games",
            "-o",
            "j1.dat",
            "-j",
            "1",
            "--variations",
        ],
        d,
    ));
    let v = json(&kifu(
        &[
            "pos",
            "extract",
            "games",
            "-o",
            "j2.dat",
            "-j",
            "2",
            "--variations",
            "--memory",
            "100",
            "--json",
        ],
        d,
    ));
    assert!(v["spilled_runs"].as_u64().unwrap() > 2);
    assert_eq!(
        std::fs::read(d.join("j1.dat")).unwrap(),
        std::fs::read(d.join("var.dat")).unwrap()
    );
    assert_eq!(
        std::fs::read(d.join("j2.dat")).unwrap(),
        std::fs::read(d.join("var.dat")).unwrap()
    );

    // A move range; every occurrence.
    let v = json(&kifu(
        &[
            "pos", "extract", "games", "-o", "r.dat", "--from", "1", "--to", "2", "--json",
        ],
        d,
    ));
    assert_eq!(
        (v["written"].as_u64(), v["positions_out_of_range"].as_u64()),
        (Some(2), Some(4))
    );
    let v = json(&kifu(
        &[
            "pos",
            "extract",
            "games",
            "-o",
            "all.dat",
            "--all-occurrences",
            "--json",
        ],
        d,
    ));
    assert_eq!(v["written"].as_u64(), Some(8));

    // Histogram and stats.
    let h = ok(&kifu(&["pos", "histogram", "pos.dat", "--svg", "h.svg"], d));
    assert_eq!(
        h,
        "stones  positions  percent
     0          1   25.00%
     1          1   25.00%
     2          1   25.00%
     3          1   25.00%
 total          4
"
    );
    let svg = std::fs::read_to_string(d.join("h.svg")).unwrap();
    assert_eq!(svg.matches("<title>").count(), 4);
    let s = ok(&kifu(&["pos", "stats", "all.dat"], d));
    assert_eq!(
        s,
        "records        8
bytes          736
black to play  4
white to play  4
extra info     0 (0.0%)
distinct ids   4
duplicate ids  4
tiebreaker > 0 0
stones         0 to 3, mean 1.50
"
    );
}

#[test]
fn extra_info_and_a_torn_master_list() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    collection(d);
    // A crash left half a line.
    std::fs::write(d.join("master_game_file_list.dat"), "x.sgf\ny.s").unwrap();
    let v = json(&kifu(
        &[
            "pos", "extract", "games", "-o", "pos.dat", "--extra", "--json",
        ],
        d,
    ));
    assert_eq!(v["master_list_repaired_bytes"].as_u64(), Some(3));
    let canon = |p: &str| {
        std::fs::canonicalize(d.join(p))
            .unwrap()
            .display()
            .to_string()
    };
    let list = std::fs::read_to_string(d.join("master_game_file_list.dat")).unwrap();
    assert_eq!(
        list,
        format!(
            "x.sgf\n{}\n{}\n{}\n",
            canon("games/g1.sgf"),
            canon("games/g3.sgf"),
            canon("games/sub/g2.sgf")
        )
    );
    assert_eq!(std::fs::metadata(d.join("pos.dat")).unwrap().len(), 4 * 100);
    let v = json(&kifu(&["pos", "view", "pos.dat", "--json"], d));
    let extras: Vec<(u64, u64, u64)> = v["positions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let e = &p["extra"];
            (
                e["file_id"].as_u64().unwrap(),
                e["variation"].as_u64().unwrap(),
                e["move"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(extras, vec![(2, 0, 0), (2, 0, 1), (2, 0, 2), (2, 0, 3)]);
    // A second run lists nothing new.
    ok(&kifu(
        &["pos", "extract", "games", "-o", "p2.dat", "--extra"],
        d,
    ));
    assert_eq!(
        std::fs::read_to_string(d.join("master_game_file_list.dat")).unwrap(),
        list
    );
    let s = ok(&kifu(&["pos", "stats", "pos.dat", "--json"], d));
    let s: Value = serde_json::from_str(&s).unwrap();
    assert_eq!(s["extra_share"].as_f64(), Some(1.0));
}

#[test]
fn ascii_positions_scores_and_svg() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let corner = rows_with(&[(0, '#')]);
    let tengen = rows_with(&[(40, '#'), (41, 'O')]);
    let rotated = rows_with(&[(0, '#')].map(|(_, c)| (8, c))); // the corner again
    std::fs::write(
        d.join("p.txt"),
        format!("; three positions, two distinct\n{corner} W\n{tengen}\nB\n{rotated} W\n"),
    )
    .unwrap();
    let v = json(&kifu(
        &["pos", "extract", "p.txt", "-o", "p.dat", "--json"],
        d,
    ));
    assert_eq!(
        (v["occurrences"].as_u64(), v["written"].as_u64()),
        (Some(3), Some(2))
    );
    // A scored file for the tengen position.
    let id = id_of(&tengen, 'B');
    let hash = u64::from_str_radix(&id[..16], 16).unwrap();
    let mut rec = hash.to_be_bytes().to_vec();
    rec.extend_from_slice(&[0, b'B', 6, 80]);
    std::fs::write(d.join("gnugo_chinese.dat"), &rec).unwrap();
    std::fs::write(d.join("fuego_japanese.dat"), b"").unwrap();
    let out = ok(&kifu(
        &[
            "pos",
            "view",
            "p.dat",
            "--min-stones",
            "2",
            "--scores",
            "gnugo_chinese.dat",
            "--scores",
            "fuego_japanese.dat",
            "--svg",
            "one.svg",
        ],
        d,
    ));
    let first_lines: Vec<&str> = out.lines().take(2).collect();
    assert_eq!(
        first_lines,
        vec![
            format!("#1 {id}  Black to play  2 stones (1 black, 1 white)").as_str(),
            "scores: gnugo x chinese: 6 (80%)  fuego x japanese: -"
        ]
    );
    let svg = std::fs::read_to_string(d.join("one.svg")).unwrap();
    assert!(svg.starts_with("<svg"));
    // By key prefix; several SVGs need a pattern.
    let out = ok(&kifu(&["pos", "view", "p.dat", "--key", &id[..6]], d));
    assert!(out.starts_with(&format!("#1 {id}")));
    let bad = kifu(&["pos", "view", "p.dat", "--svg", "x.svg"], d);
    assert_eq!(bad.status.code(), Some(2));
    ok(&kifu(&["pos", "view", "p.dat", "--svg", "b{}.svg"], d));
    assert!(d.join("b0.svg").exists() && d.join("b1.svg").exists());
    // A bad ASCII file is reported with its line and column.
    std::fs::write(d.join("bad.txt"), "...\n..x").unwrap();
    let out = kifu(&["pos", "extract", "bad.txt", "-o", "bad.dat", "--json"], d);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["errors"][0],
        "bad.txt:2:3: unexpected character 'x' (expected '#', 'O', '.', or 'B'/'W' after 5 points)"
    );
}

/// An Ishi file gives the same position file as its SGF conversion (`kifu convert`).
#[test]
fn ishi_games_extract_like_their_sgf_conversion() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let spec =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/ishi/testspec.go");
    std::fs::copy(&spec, dir.join("spec.go")).unwrap();
    ok(&kifu(&["convert", "spec.go", "spec.sgf"], dir));
    let a = json(&kifu(
        &[
            "pos",
            "extract",
            "spec.go",
            "--variations",
            "--size",
            "19",
            "-o",
            "a.dat",
            "--json",
        ],
        dir,
    ));
    ok(&kifu(
        &[
            "pos",
            "extract",
            "spec.sgf",
            "--variations",
            "--size",
            "19",
            "-o",
            "b.dat",
        ],
        dir,
    ));
    let (a_bytes, b_bytes) = (
        std::fs::read(dir.join("a.dat")).unwrap(),
        std::fs::read(dir.join("b.dat")).unwrap(),
    );
    assert_eq!(a_bytes, b_bytes);
    // 19x19 records are 19*19 + 11 bytes; the sample's 19x19 events give 81 distinct positions.
    assert_eq!(a_bytes.len(), 81 * (19 * 19 + 11));
    assert_eq!(a["written"], 81, "{a}");
}

/// A sharded extraction (N parts, merged in any order) is byte for byte one run, with all
/// variations and extra info, and with every occurrence; bad sets of parts are refused.
#[test]
fn sharded_extraction_merges_to_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let games = common::corpus().join("sgf/games");
    let inputs = [
        games.join("fuego-regression").display().to_string(),
        games.join("gnugo-regression").display().to_string(),
    ];
    let path = |n: &str| d.join(n).display().to_string();
    for (k, extra_args) in [
        vec!["--variations", "--extra"],
        vec!["--all-occurrences", "--size", "19"],
    ]
    .iter()
    .enumerate()
    {
        let single = path(&format!("single{k}.dat"));
        let mut args = vec!["pos", "extract", &inputs[0], &inputs[1], "-o", &single];
        args.extend(extra_args.iter());
        let one = json(&kifu(&[&args[..], &["--json"]].concat(), d));
        assert!(one["written"].as_u64().unwrap() > 1000, "{one}");
        for n in [2u64, 3] {
            let parts: Vec<String> = (1..=n)
                .map(|i| path(&format!("p{k}-{i}of{n}.dat")))
                .collect();
            let mut written = 0;
            for (i, part) in parts.iter().enumerate() {
                let shard = format!("{}/{n}", i + 1);
                let mut args = vec!["pos", "extract", &inputs[0], &inputs[1], "-o", part];
                args.extend(extra_args.iter());
                args.extend(["--shard", &shard, "--json", "-j", "1"]);
                written += json(&kifu(&args, d))["written"].as_u64().unwrap();
            }
            assert_eq!(written, one["written"].as_u64().unwrap());
            let merged = path(&format!("merged{k}-{n}.dat"));
            let mut args = vec!["pos", "merge", "--shards", "-o", &merged];
            args.extend(parts.iter().rev().map(String::as_str));
            ok(&kifu(&args, d));
            assert!(
                std::fs::read(&merged).unwrap() == std::fs::read(&single).unwrap(),
                "{extra_args:?}, {n} shards"
            );
        }
    }
    let p = |i: u64| path(&format!("p0-{i}of3.dat"));
    let merge = |parts: &[String]| {
        let mut args = vec!["pos", "merge", "--shards", "-o", "bad.dat"];
        args.extend(parts.iter().map(String::as_str));
        common::fails(&kifu(&args, d), 1)
    };
    assert!(merge(&[p(1), p(2)]).contains("missing shard 3/3 of 3"));
    assert!(merge(&[p(1), p(2), path("p1-3of3.dat")])
        .contains("p1-3of3.dat: made from other inputs or with other settings"));
    // A changed byte in a part's records or in its order file: refused by the manifest's
    // checksums, and nothing is written.
    let bytes = std::fs::read(p(3)).unwrap();
    let mut changed = bytes.clone();
    changed[bytes.len() / 2] ^= 1;
    std::fs::write(p(3), &changed).unwrap();
    let e = merge(&[p(1), p(2), p(3)]);
    assert!(
        e.contains("p0-3of3.dat: damaged: its bytes do not match the checksum of its manifest"),
        "{e}"
    );
    std::fs::write(p(3), &bytes).unwrap();
    let order = format!("{}.order", p(2));
    let places = std::fs::read(&order).unwrap();
    let mut changed = places.clone();
    // The last place's lowest byte (still in order, so only the checksum sees it).
    *changed.last_mut().unwrap() ^= 1;
    std::fs::write(&order, &changed).unwrap();
    let e = merge(&[p(1), p(2), p(3)]);
    assert!(e.contains("p0-2of3.dat.order: damaged: its bytes"), "{e}");
    assert!(!d.join("bad.dat").exists());
    std::fs::write(&order, &places).unwrap();
    // A manifest of an older kifu (no checksums): merged as it was.
    let manifest = format!("{}.json", p(1));
    let mut m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
    let fields = m.as_object_mut().unwrap();
    assert!(fields.remove("records_xxh3").is_some() && fields.remove("order_xxh3").is_some());
    std::fs::write(&manifest, m.to_string()).unwrap();
    ok(&kifu(
        &[
            "pos",
            "merge",
            "--shards",
            "-o",
            "old.dat",
            &p(1),
            &p(2),
            &p(3),
        ],
        d,
    ));
    assert!(
        std::fs::read(d.join("old.dat")).unwrap() == std::fs::read(path("single0.dat")).unwrap()
    );
    std::fs::write(p(3), &bytes[..bytes.len() - 5]).unwrap();
    assert!(merge(&[p(1), p(2), p(3)]).contains("cut short or from another run"));
    std::fs::remove_file(format!("{}.json", p(3))).unwrap();
    assert!(merge(&[p(3), p(1), p(2)]).contains("no part manifest"));
    assert!(!d.join("bad.dat").exists());
}
