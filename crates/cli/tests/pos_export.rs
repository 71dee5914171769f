//! `kifu pos export` on the shared corpus: an index of its 9x9 games (main lines, and every
//! variation) and a position file extracted from them, read back with the parquet crate. The
//! row counts are exactly what `kifu pos index --json` and `kifu pos stats --json` report, and
//! rows spread over the file are checked against `kifu show --json` and `kifu pos view --json`.

mod common;
use common::{corpus, fails, kifu_in as kifu, kifu_stdin, ok};

use arrow_array::cast::AsArray;
use arrow_array::types::{Int16Type, UInt32Type, UInt64Type, UInt8Type};
use arrow_array::{Array, RecordBatch};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::Value;
use std::path::Path;

/// The JSON a successful run prints.
fn json(args: &[&str], d: &Path) -> Value {
    serde_json::from_str(&ok(&kifu(args, d))).unwrap()
}

/// The whole file as one batch.
fn read(path: &Path) -> RecordBatch {
    let bytes = bytes::Bytes::from(std::fs::read(path).unwrap());
    let mut r = ParquetRecordBatchReaderBuilder::try_new(bytes)
        .unwrap()
        .with_batch_size(1 << 24)
        .build()
        .unwrap();
    let b = r.next().map(|b| b.unwrap());
    assert!(r.next().is_none());
    b.unwrap()
}

fn u32_at(b: &RecordBatch, name: &str, i: usize) -> u32 {
    b[name].as_primitive::<UInt32Type>().value(i)
}

fn u8_at(b: &RecordBatch, name: &str, i: usize) -> u8 {
    b[name].as_primitive::<UInt8Type>().value(i)
}

fn u64_at(b: &RecordBatch, name: &str, i: usize) -> u64 {
    b[name].as_primitive::<UInt64Type>().value(i)
}

/// Row `i`'s board as `kifu show --format rows` prints it, one string per row.
fn rows_at(b: &RecordBatch, i: usize) -> Vec<String> {
    let cells = b["board"].as_fixed_size_list().value(i);
    let cells = cells.as_primitive::<UInt8Type>().values();
    let n = u8_at(b, "size", i) as usize;
    assert_eq!(cells.len(), n * n);
    cells
        .chunks(n)
        .map(|row| {
            row.iter()
                .map(|c| match c {
                    0 => '.',
                    1 => '#',
                    2 => 'O',
                    _ => panic!("cell {c}"),
                })
                .collect()
        })
        .collect()
}

fn to_play_letter(code: u8) -> &'static str {
    match code {
        1 => "B",
        2 => "W",
        _ => panic!("to_play {code}"),
    }
}

#[test]
fn an_index_of_the_corpus_exports_each_of_its_positions() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let games = corpus().join("sgf/games");
    let games = games.to_str().unwrap();
    for variations in [false, true] {
        let mut args = vec![
            "pos", "index", games, "--size", "9", "-o", "c.kpx", "--json",
        ];
        if variations {
            args.push("--variations");
        }
        let index = json(&args, d);
        let positions = index["positions"].as_u64().unwrap();
        assert!(positions > 20_000, "{index}");
        let s = json(&["pos", "export", "c.kpx", "-o", "c.parquet", "--json"], d);
        assert_eq!(s["kind"], "index");
        assert_eq!(s["rows"].as_u64(), Some(positions));
        assert_eq!(s["games"], index["games"]);
        assert_eq!(s["games_failed"], 0);
        assert_eq!(
            s["bytes"].as_u64(),
            Some(std::fs::metadata(d.join("c.parquet")).unwrap().len())
        );
        let b = read(&d.join("c.parquet"));
        assert_eq!(b.num_rows() as u64, positions);
        // Games in the index's order, each with its rows together.
        let game = b["game"].as_primitive::<UInt32Type>();
        assert!(game.values().windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(
            u64::from(game.value(b.num_rows() - 1)) + 1,
            index["games"].as_u64().unwrap()
        );
        let in_variations = (0..b.num_rows())
            .filter(|&i| u32_at(&b, "variation", i) > 0)
            .count();
        assert_eq!(in_variations > 0, variations);

        // Rows spread over the file (and the first rows of a variation) against `kifu show`.
        let mut picks: Vec<usize> = (0..b.num_rows()).step_by(997).collect();
        picks.extend(
            (0..b.num_rows())
                .filter(|&i| u32_at(&b, "variation", i) > 0)
                .step_by(53),
        );
        let moves_row = b["move_row"].as_primitive::<Int16Type>();
        let moves_col = b["move_col"].as_primitive::<Int16Type>();
        for i in picks {
            let file = b["file"].as_string::<i32>().value(i).to_string();
            let game_in_file = (u32_at(&b, "game_in_file", i) + 1).to_string();
            let variation = u32_at(&b, "variation", i).to_string();
            let m = u32_at(&b, "move_number", i).to_string();
            let shown = json(
                &[
                    "show",
                    &file,
                    "--game",
                    &game_in_file,
                    "--variation",
                    &variation,
                    "--move",
                    &m,
                    "--json",
                ],
                d,
            );
            let place =
                format!("row {i}: {file} game {game_in_file} variation {variation} move {m}");
            let rows: Vec<String> = serde_json::from_value(shown["rows"].clone()).unwrap();
            assert_eq!(rows_at(&b, i), rows, "{place}");
            assert_eq!(
                shown["to_play"],
                to_play_letter(u8_at(&b, "to_play", i)),
                "{place}"
            );
            assert_eq!(
                shown["canonical_hash"],
                format!("{:016x}", u64_at(&b, "hash", i)),
                "{place}"
            );
            assert_eq!(
                shown["canonical_symmetry"].as_u64(),
                Some(u64::from(u8_at(&b, "symmetry", i))),
                "{place}"
            );
            // The next move is on the board and empty there, or a code.
            let (r, c) = (moves_row.value(i), moves_col.value(i));
            if r >= 0 {
                let cell = rows[r as usize].as_bytes()[c as usize];
                assert_eq!(cell, b'.', "{place}: next move ({r}, {c}) onto a stone");
            } else {
                assert_eq!(r, c, "{place}");
                assert!((-3..=-1).contains(&r), "{place}");
            }
        }
    }
}

#[test]
fn a_position_file_of_the_corpus_exports_each_record() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let games = corpus().join("sgf/games/fuego-regression");
    ok(&kifu(
        &[
            "pos",
            "extract",
            games.to_str().unwrap(),
            "-o",
            "p.dat",
            "--extra",
        ],
        d,
    ));
    let stats = json(&["pos", "stats", "p.dat", "--json"], d);
    let records = stats["records"].as_u64().unwrap();
    assert!(records > 5_000, "{stats}");
    let s = json(&["pos", "export", "p.dat", "-o", "p.parquet", "--json"], d);
    assert_eq!(s["kind"], "positions");
    assert_eq!(s["rows"].as_u64(), Some(records));
    let b = read(&d.join("p.parquet"));
    assert_eq!(b.num_rows() as u64, records);
    let with_extra = b["file_id"].len() - b["file_id"].null_count();
    assert_eq!(Some(with_extra as u64), stats["with_extra"].as_u64());
    for i in (0..b.num_rows()).step_by(499) {
        let v = json(
            &["pos", "view", "p.dat", "--index", &i.to_string(), "--json"],
            d,
        );
        let p = &v["positions"][0];
        let id = format!(
            "{:016x}-{:02x}-{}",
            u64_at(&b, "hash", i),
            u8_at(&b, "tiebreak", i),
            to_play_letter(u8_at(&b, "to_play", i))
        );
        assert_eq!(p["id"], id.as_str(), "record {i}");
        let rows: Vec<String> = serde_json::from_value(p["rows"].clone()).unwrap();
        assert_eq!(rows_at(&b, i), rows, "record {i}");
        assert_eq!(u64_at(&b, "record", i), i as u64);
        assert_eq!(
            p["extra"]["file_id"].as_u64(),
            Some(u64::from(u32_at(&b, "file_id", i)))
        );
        assert_eq!(
            p["extra"]["move"].as_u64(),
            Some(u64::from(u32_at(&b, "move_number", i)))
        );
    }

    // The same bytes to standard output, and from standard input.
    let to_stdout = kifu(&["pos", "export", "p.dat", "-o", "-"], d);
    assert!(to_stdout.status.success());
    assert_eq!(
        to_stdout.stdout,
        std::fs::read(d.join("p.parquet")).unwrap()
    );
    let dat = std::fs::read(d.join("p.dat")).unwrap();
    let piped = kifu_stdin(&["pos", "export", "-", "-o", "-"], &dat);
    assert_eq!(piped.stdout, to_stdout.stdout);

    // A torn last record: the whole records before it, a warning naming it, exit 1.
    std::fs::write(d.join("torn.dat"), &dat[..dat.len() - 40]).unwrap();
    let out = kifu(&["pos", "export", "torn.dat", "-o", "t.parquet"], d);
    let err = fails(&out, 1);
    assert!(err.contains(&format!("record {}", records - 1)), "{err}");
    assert!(err.contains("torn record"), "{err}");
    assert_eq!(read(&d.join("t.parquet")).num_rows() as u64, records - 1);
}

#[test]
fn bad_inputs_and_options_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let games = corpus().join("sgf/games/fuego-regression");
    ok(&kifu(
        &[
            "pos",
            "index",
            games.to_str().unwrap(),
            "--size",
            "9",
            "-o",
            "f.kpx",
        ],
        d,
    ));
    // A damaged index: an error naming the file, and no output left behind.
    let full = std::fs::read(d.join("f.kpx")).unwrap();
    std::fs::write(d.join("cut.kpx"), &full[..full.len() / 2]).unwrap();
    let err = fails(
        &kifu(&["pos", "export", "cut.kpx", "-o", "x.parquet"], d),
        1,
    );
    assert!(err.contains("cut.kpx: not a kifu position index"), "{err}");
    // Not a position file either (an SGF file).
    let sgf = corpus().join("sgf/games/fuego-regression/regression/sgf/bent_four/bentfour1.sgf");
    let err = fails(
        &kifu(
            &["pos", "export", sgf.to_str().unwrap(), "-o", "x.parquet"],
            d,
        ),
        1,
    );
    assert!(err.contains("record 0 (byte offset 0)"), "{err}");
    assert!(!d.join("x.parquet").exists());
    let listing: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        !listing
            .iter()
            .any(|n| n.to_string_lossy().ends_with(".tmp")),
        "{listing:?}"
    );
    let err = fails(
        &kifu(&["pos", "export", "nothere", "-o", "x.parquet"], d),
        1,
    );
    assert!(err.contains("nothere: cannot open"), "{err}");
    // Usage errors.
    fails(
        &kifu(
            &[
                "pos",
                "export",
                "f.kpx",
                "-o",
                "x.parquet",
                "--row-group",
                "0",
            ],
            d,
        ),
        2,
    );
    fails(
        &kifu(&["pos", "export", "f.kpx", "-o", "-", "--json"], d),
        2,
    );
    fails(
        &kifu(
            &["pos", "export", "f.kpx", "-o", "x.parquet", "--size", "1"],
            d,
        ),
        2,
    );
    // Small row groups: memory stays at one of them.
    let s = json(
        &[
            "pos",
            "export",
            "f.kpx",
            "-o",
            "x.parquet",
            "--row-group",
            "1000",
            "--compression",
            "snappy",
            "--json",
        ],
        d,
    );
    let rows = s["rows"].as_u64().unwrap();
    assert_eq!(s["row_groups"].as_u64(), Some(rows.div_ceil(1000)));
    assert_eq!(read(&d.join("x.parquet")).num_rows() as u64, rows);
}

#[test]
fn a_full_disk_fails_and_a_closed_pipe_ends_quietly() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let games = corpus().join("sgf/games/fuego-regression");
    ok(&kifu(
        &[
            "pos",
            "index",
            games.to_str().unwrap(),
            "--size",
            "9",
            "-o",
            "f.kpx",
        ],
        d,
    ));
    let kifu_bin = env!("CARGO_BIN_EXE_kifu");
    // A full device given with -o, and as standard output.
    let err = fails(&kifu(&["pos", "export", "f.kpx", "-o", "/dev/full"], d), 1);
    assert!(
        err.contains("/dev/full: cannot write: No space left on device"),
        "{err}"
    );
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = Command::new(kifu_bin)
        .args(["pos", "export", "f.kpx", "-o", "-"])
        .current_dir(d)
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot write to standard output: No space left on device"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    // `| head -c 100`: the reader goes away after 100 bytes.
    let mut child = Command::new(kifu_bin)
        .args(["pos", "export", "f.kpx", "-o", "-", "--row-group", "100"])
        .current_dir(d)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 100];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    assert_eq!(&first[..4], b"PAR1");
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}
