//! `kifu show` run as a user runs it, with exact expected output.

#![allow(clippy::disallowed_macros)] // a test may print to its own output

use kifu_go::diagram::{svg_diagram, Label, Markup, MoveNumber, SvgOptions};
use kifu_go::{Board, BoardSize, Point, ZobristTable};
use std::path::{Path, PathBuf};

mod common;
use common::{kifu, text};

const GAME: &str = "(;FF[4]GM[1]SZ[9]
;B[cd];W[dd];B[de];W[gg];B[ed];W[gc];B[dc]TR[gg]LB[dd:a]
(;W[ee];B[ef]CR[ee])
(;W[ce]SQ[aa:bb]MA[ii]))
";

fn game_file(dir: &Path) -> PathBuf {
    let p = dir.join("game.sgf");
    std::fs::write(&p, GAME).unwrap();
    p
}

#[test]
fn ascii_diagram_of_the_main_line_end() {
    let dir = tempfile::tempdir().unwrap();
    let f = game_file(dir.path());
    let out = kifu(&["show", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let expected = [
        "Game 1, variation 0, move 9 (node 0.0.0.0.0.0.0.0.0)",
        "   A B C D E F G H J",
        " 9 . . . . . . . . . 9",
        " 8 . . . . . . . . . 8",
        " 7 . . + X . . O . . 7",
        " 6 . . X . X . . . . 6",
        " 5 . . . X O . . . . 5",
        " 4 . . . .(X). . . . 4",
        " 3 . . + . . . O . . 3",
        " 2 . . . . . . . . . 2",
        " 1 . . . . . . . . . 1",
        "   A B C D E F G H J",
        "Captured by Black (X): 1  by White (O): 0",
        "Move 9: Black E4",
        "White to play",
        "",
    ];
    assert_eq!(text(&out.stdout), expected.join("\n"));
}

#[test]
fn rows_of_a_variation_and_of_a_move() {
    let dir = tempfile::tempdir().unwrap();
    let f = game_file(dir.path());
    let f = f.to_str().unwrap();
    let out = kifu(&["show", f, "--variation", "1", "--format", "rows"]);
    assert_eq!(
        text(&out.stdout),
        ".........\n.........\n...#..O..\n..#.#....\n..O#.....\n.........\n......O..\n.........\n.........\n"
    );
    // Move 2 of the main line: the white stone not yet captured.
    let out = kifu(&["show", f, "--move", "2", "--format", "rows"]);
    assert_eq!(
        text(&out.stdout),
        ".........\n.........\n.........\n..#O.....\n.........\n.........\n.........\n.........\n.........\n"
    );
    // The same node by path.
    let by_path = kifu(&["show", f, "--node", "0.0", "--format", "rows"]);
    assert_eq!(by_path.stdout, out.stdout);
}

#[test]
fn json_gives_rows_hashes_and_to_play() {
    let dir = tempfile::tempdir().unwrap();
    let f = game_file(dir.path());
    let out = kifu(&["show", f.to_str().unwrap(), "--move", "7", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = [
        ".........",
        ".........",
        "...#..O..",
        "..#.#....",
        "...#.....",
        ".........",
        "......O..",
        ".........",
        ".........",
    ];
    assert_eq!(v["rows"], serde_json::json!(rows));
    // Hashes computed here from scratch from the rows, with kifu's fixed-seed table.
    let board = Board::from_rows(rows.concat().as_bytes(), None).unwrap();
    let hashes = ZobristTable::generate(BoardSize::NINE).symmetric_hashes(&board);
    let c = hashes.canonical();
    assert_eq!(v["hash"], format!("{:016x}", hashes.plain()));
    assert_eq!(v["canonical_hash"], format!("{:016x}", c.hash));
    assert_eq!(v["canonical_symmetry"], c.symmetry.index());
    assert_eq!(
        (
            &v["game"],
            &v["variation"],
            &v["move_number"],
            &v["node"],
            &v["to_play"],
            &v["last_move"],
            &v["captured_by_black"],
        ),
        (
            &serde_json::json!(1),
            &serde_json::json!(0),
            &serde_json::json!(7),
            &serde_json::json!("0.0.0.0.0.0.0"),
            &serde_json::json!("W"),
            &serde_json::json!("B D7"),
            &serde_json::json!(1),
        )
    );
}

#[test]
fn svg_has_the_node_markup_and_move_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let f = game_file(dir.path());
    let svg = dir.path().join("out.svg");
    let out = kifu(&[
        "show",
        f.to_str().unwrap(),
        "--move",
        "7",
        "--svg",
        svg.to_str().unwrap(),
        "--numbers",
        "5-7",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    let size = BoardSize::NINE;
    let p = |s: &str| Point::from_human(s, size).unwrap();
    let rows = [
        ".........",
        ".........",
        "...#..O..",
        "..#.#....",
        "...#.....",
        ".........",
        "......O..",
        ".........",
        ".........",
    ];
    let board = Board::from_rows(rows.concat().as_bytes(), None).unwrap();
    let markup = Markup {
        last_move: Some(p("D7")),
        labels: vec![Label {
            point: p("D6"),
            text: "a".into(),
        }],
        triangles: vec![p("G3")],
        move_numbers: vec![
            MoveNumber {
                point: p("E6"),
                number: 5,
            },
            MoveNumber {
                point: p("G7"),
                number: 6,
            },
            MoveNumber {
                point: p("D7"),
                number: 7,
            },
        ],
        ..Default::default()
    };
    let expected = svg_diagram(&board, &markup, &SvgOptions::default());
    assert_eq!(std::fs::read_to_string(&svg).unwrap(), expected);
    assert!(expected.contains(">a</text>") && expected.contains(">7</text>"));
}

#[test]
fn missing_variations_moves_and_games_fail_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let f = game_file(dir.path());
    let f = f.to_str().unwrap();
    let out = kifu(&["show", f, "--variation", "2"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        format!("kifu: {f}: no variation 2 (the game has 2)\n")
    );
    let out = kifu(&["show", f, "--move", "10"]);
    assert_eq!(
        text(&out.stderr),
        format!("kifu: {f}: variation 0 has no move 10\n")
    );
    let out = kifu(&["show", f, "--game", "2"]);
    assert_eq!(
        text(&out.stderr),
        format!("kifu: {f}: no game 2 (the file has 1)\n")
    );
    let bad = dir.path().join("rect.sgf");
    std::fs::write(&bad, "(;SZ[19:13];B[aa])").unwrap();
    let out = kifu(&["show", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        format!(
            "kifu: {}: game 1: board 19x13 is not square; only square boards 2x2 to 25x25 are supported\n",
            bad.display()
        )
    );
    let out = kifu(&["show", f, "--numbers", "1-5"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn ishi_files_are_shown_through_their_sgf_conversion() {
    let spec = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/ishi/testspec.go");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kifu"))
        .args(["show", spec.to_str().unwrap(), "--move", "20"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("Game 1, variation 0, move 20 "), "{text}");
    assert!(
        text.contains(" 4 . . X + X(O). . . + . . . . . + . . . 4\n"),
        "{text}"
    );
    assert!(
        text.ends_with("Move 20: White F4\nBlack to play\n"),
        "{text}"
    );
}

/// Decodes a PNG into (width, height, RGBA pixels).
fn decode_png(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba);
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

#[test]
fn png_draws_the_stones_and_the_coordinates() {
    let dir = tempfile::tempdir().unwrap();
    let game = game_file(dir.path());
    let out = dir.path().join("out.png");
    let o = kifu(&[
        "show",
        game.to_str().unwrap(),
        "--move",
        "4",
        "--png",
        out.to_str().unwrap(),
        "--scale",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let (w, h, px) = decode_png(&std::fs::read(&out).unwrap());
    // The SVG is 8 spacings of 24 plus two margins of 1.6 spacings: 268.8 units, 538 pixels.
    assert_eq!((w, h), (538, 538));
    let at = |x: f64, y: f64| {
        let i = ((y * 2.0) as usize * w as usize + (x * 2.0) as usize) * 4;
        [px[i], px[i + 1], px[i + 2]]
    };
    let point = |col: u32, row: u32| (38.4 + 24.0 * f64::from(col), 38.4 + 24.0 * f64::from(row));
    // After 4 moves: B cd, W dd, B de, W gg. Stone centres (off the grid lines by a few pixels,
    // inside the stone).
    let (x, y) = point(2, 3);
    assert_eq!(at(x + 4.0, y + 4.0), [0, 0, 0], "black stone at cd");
    let (x, y) = point(3, 3);
    assert_eq!(at(x + 4.0, y + 4.0), [255, 255, 255], "white stone at dd");
    // An empty square of the board between lines is the wood colour #dcb35c.
    let (x, y) = point(5, 1);
    assert_eq!(at(x + 12.0, y + 12.0), [0xdc, 0xb3, 0x5c]);
    // The coordinates: dark text pixels in the top margin, above the grid.
    let dark_in_margin = (0..(38.4 * 2.0) as usize - 8)
        .flat_map(|y| (0..w as usize).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let i = (y * w as usize + x) * 4;
            px[i] < 100 && px[i + 1] < 100 && px[i + 2] < 100
        })
        .count();
    let fonts = !String::from_utf8_lossy(&o.stderr).contains("no font");
    if fonts || std::env::var_os("CI").is_some() {
        assert!(fonts, "CI installs fonts-dejavu-core: {}", text(&o.stderr));
        assert!(
            dark_in_margin > 200,
            "coordinate letters drawn: {dark_in_margin}"
        );
    } else {
        eprintln!("no font installed: the PNG's text is not checked");
        assert_eq!(dark_in_margin, 0);
    }
    // The same picture as the SVG written next to it, rasterised at scale 1: half the size.
    let o = kifu(&["show", game.to_str().unwrap(), "--png", "-", "--scale", "1"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(decode_png(&o.stdout).0, 269);
    // Bad scales are usage errors; --scale needs --png.
    for bad in ["0", "-1", "nan", "17"] {
        let scale = format!("--scale={bad}");
        let o = kifu(&["show", game.to_str().unwrap(), "--png", "-", &scale]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains("at most 16"),
            "{}",
            text(&o.stderr)
        );
    }
    let o = kifu(&["show", game.to_str().unwrap(), "--scale", "2"]);
    assert_eq!(o.status.code(), Some(2));
}
