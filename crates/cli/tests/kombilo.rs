//! Differential test against Kombilo 0.8.4 (libkombilo, the reference Go pattern search): on
//! the shared corpus's 19x19 games, `kifu pos search --count placements` (Kombilo's counting)
//! finds the same games, the same number of hits and colour-swapped hits, and the same count
//! for every continuation, for corner, side, free and colour-swapped queries.
//!
//! Kombilo runs through `tools/kombilo_search.py` in the venv `.ci/run` builds with
//! `tools/install_kombilo.sh` (`KIFU_KOMBILO_PYTHON`, default `/opt/kombilo/bin/python`).
//! Deliberate differences, so not compared: continuations of a symmetric pattern are named by
//! kifu as the first cell by row then column among their images (Kombilo picks its own image;
//! the test maps Kombilo's cells to kifu's names through the pattern's own symmetries); Kombilo
//! flags continuations that came late as "tenuki", kifu's `tenuki` counts next moves outside
//! the pattern in the default counting; a node without a move (setup) stands for its parent in
//! kifu, as in the full-board index, so a position set up over several nodes (`AW` in one, `AB`
//! in the next: `gnugo-regression/.../seki_exotics/onadare_ko2.sgf`) is one position, while
//! Kombilo also tests the half-built board after each setup node (a lone white stone on a side
//! cut from a real game hits that file once in Kombilo and never in kifu); and where two
//! images of a wildcard pattern stand on one rectangle at once, kifu counts the rectangle once,
//! under the first image in the query's order, where Kombilo counts every image (`XX/.x/..`
//! anywhere on the corpus: 184,412 placements in kifu, 323,706 in Kombilo; so the cases here
//! have no such images).

#![allow(clippy::disallowed_macros)] // the skip message

mod common;

use common::{corpus, kifu_in, ok};
use kifu_go::{BoardSize, Color};
use kifu_search::{Pattern, Placement, Query};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;

fn kombilo_python() -> Option<PathBuf> {
    let p = std::env::var_os("KIFU_KOMBILO_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/opt/kombilo/bin/python"));
    let works = Command::new(&p)
        .args(["-c", "import kombilo.libkombilo"])
        .output()
        .is_ok_and(|o| o.status.success());
    works.then_some(p)
}

struct Case {
    /// Rows in Kombilo's letters (X black).
    rows: &'static str,
    kind: &'static str,
    anchor: (u32, u32),
    swap: bool,
}

const CASES: &[Case] = &[
    // The 3-4 point in a 5x5 corner, then the same with colours swapped.
    Case {
        rows: ".....\n.....\n...X.\n.....\n.....",
        kind: "corner",
        anchor: (0, 0),
        swap: false,
    },
    Case {
        rows: ".....\n.....\n...X.\n.....\n.....",
        kind: "corner",
        anchor: (0, 0),
        swap: true,
    },
    // The 3-3 point in a 4x4 corner (symmetric in the diagonal).
    Case {
        rows: "....\n....\n..X.\n....",
        kind: "corner",
        anchor: (0, 0),
        swap: false,
    },
    // A third-line stone anywhere along an edge (symmetric left-right).
    Case {
        rows: "....\n..X.\n....",
        kind: "side",
        anchor: (7, 0),
        swap: false,
    },
    // Three stones anywhere on the board (free placement).
    Case {
        rows: ".....\n.XO..\n..X..\n.....\n.....",
        kind: "center",
        anchor: (0, 0),
        swap: false,
    },
    // A crowded corner: a 3-4 stone and its small-knight approach, with wildcards around.
    Case {
        rows: "**...\n*....\n*..X.\n*....\n*.O..",
        kind: "corner",
        anchor: (0, 0),
        swap: true,
    },
];

fn kifu_query(c: &Case) -> Query {
    let rows = c.rows.replace('X', "#");
    let placement = match c.kind {
        "corner" => Placement::At {
            col: c.anchor.0,
            row: c.anchor.1,
        },
        "side" => Placement::Edge {
            side: kifu_search::Side::Top,
        },
        _ => Placement::Anywhere,
    };
    let mut q = Query::new(Pattern::parse(&rows).unwrap(), placement);
    q.swap_colors = c.swap;
    q.counting = kifu_search::Counting::Placements;
    q
}

#[test]
fn kifu_counts_as_kombilo_does() {
    let Some(python) = kombilo_python() else {
        eprintln!(
            "SKIPPED: Kombilo is not installed (tools/install_kombilo.sh /opt/kombilo, or set \
             KIFU_KOMBILO_PYTHON); .ci/run installs it"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let games = corpus().join("sgf/games");
    ok(&kifu_in(
        &["pos", "index", games.to_str().unwrap(), "-o", "c.kpx"],
        d,
    ));
    let mut kombilo_lines = String::new();
    let mut kifu_lines = String::new();
    for c in CASES {
        kombilo_lines += &serde_json::json!({
            "pattern": c.rows, "kind": c.kind, "anchor": [c.anchor.0, c.anchor.1],
            "swap_colors": c.swap,
        })
        .to_string();
        kombilo_lines.push('\n');
        kifu_lines += &serde_json::to_string(&kifu_query(c)).unwrap();
        kifu_lines.push('\n');
    }
    std::fs::write(d.join("kombilo.jsonl"), kombilo_lines).unwrap();
    std::fs::write(d.join("kifu.jsonl"), kifu_lines).unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tools/kombilo_search.py");
    let out = Command::new(&python)
        .arg(&script)
        .arg(d.join("kombilo-db"))
        .arg(&games)
        .arg(d.join("kombilo.jsonl"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ours: Vec<Value> = ok(&kifu_in(
        &[
            "pos",
            "search",
            "c.kpx",
            "--batch",
            "kifu.jsonl",
            "--limit",
            "10000",
        ],
        d,
    ))
    .lines()
    .map(|l| serde_json::from_str(l).unwrap())
    .collect();
    assert_eq!((theirs.len(), ours.len()), (CASES.len(), CASES.len()));
    let size = BoardSize::new(19).unwrap();
    for ((c, k), o) in CASES.iter().zip(&theirs).zip(&ours) {
        let name = format!("{} {} swap={}", c.kind, c.rows.replace('\n', "/"), c.swap);
        assert_eq!(o["games"], k["games"], "{name}");
        assert_eq!(o["occurrences"], k["hits"], "{name}");
        assert_eq!(o["swapped"], k["switched"], "{name}");
        assert!(
            k["hits"].as_u64().unwrap() > 0,
            "{name}: a query that finds nothing proves little"
        );
        // The same games: Kombilo names them by path under the folder and number in the file.
        // The index keeps the paths as they were given (`games` as the test gave it).
        let root = games.clone();
        let our_games: BTreeSet<String> = o["matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let file = PathBuf::from(m["file"].as_str().unwrap());
                let rel = file
                    .strip_prefix(&root)
                    .unwrap_or(&file)
                    .display()
                    .to_string();
                format!("{rel}:{}", m["game_in_file"].as_u64().unwrap() - 1)
            })
            .collect();
        let their_games: BTreeSet<String> = k["game_files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g.as_str().unwrap().to_string())
            .collect();
        let only_ours: Vec<_> = our_games.difference(&their_games).take(5).collect();
        let only_theirs: Vec<_> = their_games.difference(&our_games).take(5).collect();
        assert!(
            only_ours.is_empty() && only_theirs.is_empty(),
            "{name}: only kifu {only_ours:?}, only Kombilo {only_theirs:?}"
        );
        // Every continuation, Kombilo's cells named as kifu names them.
        let q = kifu_query(c);
        let stabilizer = q.stabilizer(size);
        let mut want: BTreeMap<((u32, u32), char), u64> = BTreeMap::new();
        for t in k["continuations"].as_array().unwrap() {
            let cell = (
                t["x"].as_u64().unwrap() as u32,
                t["y"].as_u64().unwrap() as u32,
            );
            let color = if t["color"] == "B" {
                Color::Black
            } else {
                Color::White
            };
            let (cell, color) = q.canonical(&stabilizer, cell, color);
            *want.entry((cell, color.letter())).or_default() += t["count"].as_u64().unwrap();
        }
        let got: BTreeMap<((u32, u32), char), u64> = o["continuations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let cell = (
                    t["cell"][0].as_u64().unwrap() as u32,
                    t["cell"][1].as_u64().unwrap() as u32,
                );
                let color = t["color"].as_str().unwrap().chars().next().unwrap();
                ((cell, color), t["count"].as_u64().unwrap())
            })
            .collect();
        assert_eq!(got, want, "{name}");
    }
}
