//! Differential test against sgfmill (Python): the main line of every sampled corpus game (all
//! conformance files and every 10th file of the game folders, in sorted order) is replayed by
//! sgfmill (`sgf_moves.get_setup_and_moves` + `boards.Board.play`, run by
//! `tools/sgfmill_replay.py`) and by kifu (streaming, `Scope::MainLineOnly`); the final boards and
//! the number of moves must be identical.
//!
//! Deliberate differences, each checked rather than skipped:
//! - Setup (`AB`/`AW`/`AE`) after the root: sgfmill refuses the game, kifu applies it. Checked:
//!   kifu replays such games without a game error.
//! - A move onto an occupied point: sgfmill stops; kifu reports S058 at that move and replaces the
//!   stone (SGF's `KO[]` semantics). Checked: kifu reports `MoveOnOccupied` on the main line.
//! - Root setup that leaves strings without liberties: sgfmill refuses it ("setup position not
//!   legal"); kifu keeps the stones as set up (SGF setup never captures). Checked: kifu replays it.
//! - A node with both `B` and `W` (S037): sgfmill plays one of them, kifu plays both in file order
//!   (as SGFC splits the node). Such games are counted, not compared.
//! - Boards kifu-go does not play on (not square, or outside 2..=25): kifu reports a game error.
//! - Files sgfmill cannot read at all are not compared (the parse itself is compared by
//!   kifu-sgf's own sgfmill test).
//! - sgfmill reads only the first game tree; when kifu reads an extra tree first (a `(` without
//!   `;`, S036, which sgfmill skips), kifu's second game is compared.

use kifu_go::replay::{self, ReplayError, ReplayOptions, ReplaySink, Scope, Step};
use kifu_sgf::Code;
use kifu_testdata::sgf_files;
use serde::Deserialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[derive(Deserialize)]
struct Dump {
    file: String,
    status: String,
    moves: Option<u32>,
    rows: Option<Vec<String>>,
    at: Option<u32>,
}

fn corpus() -> PathBuf {
    kifu_testdata::corpus().join("sgf")
}

/// kifu's view of one game's main line.
#[derive(Default, Clone)]
struct Line {
    rows: String,
    moves: u32,
    occupied: bool,
    both_colours: bool,
    error: Option<String>,
}

#[derive(Default)]
struct Games(Vec<Line>);

impl Games {
    fn game(&mut self, i: usize) -> &mut Line {
        if self.0.len() <= i {
            self.0.resize(i + 1, Line::default());
        }
        &mut self.0[i]
    }
}

impl ReplaySink for Games {
    fn position(&mut self, s: &Step<'_>) {
        let rows = s.position.board().to_rows_lines();
        let before = self.game(s.game).moves;
        let g = self.game(s.game);
        g.both_colours |= s.move_number > before + 1;
        g.rows = rows;
        g.moves = s.move_number;
        g.occupied |= s.diagnostics.iter().any(|d| d.code == Code::MoveOnOccupied);
    }
    fn game_error(&mut self, e: ReplayError) {
        self.game(e.game()).error = Some(e.to_string());
    }
}

fn sgfmill_available() -> bool {
    Command::new("python3")
        .args(["-c", "import sgfmill"])
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn final_boards_match_sgfmill() {
    if !sgfmill_available() {
        assert!(
            std::env::var_os("CI").is_none(),
            "sgfmill is not installed: .ci/run installs it"
        );
        eprintln!("SKIPPED: python3 with sgfmill not found (pip install sgfmill)");
        return;
    }
    let root = corpus();
    let files: Vec<PathBuf> = sgf_files(&root.join("conformance"))
        .into_iter()
        .chain(sgf_files(&root.join("games")).into_iter().step_by(10))
        .collect();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/sgfmill_replay.py");
    let mut child = Command::new("python3")
        .arg(&script)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    {
        let mut stdin = child.stdin.take().unwrap();
        let list: String = files.iter().map(|f| format!("{}\n", f.display())).collect();
        std::thread::spawn(move || stdin.write_all(list.as_bytes()).unwrap());
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let opts = ReplayOptions {
        scope: Scope::MainLineOnly,
        ..Default::default()
    };
    let mut counts = std::collections::BTreeMap::<&str, usize>::new();
    let mut failures = Vec::new();
    let mut moves = 0u64;
    for line in out.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let d: Dump = serde_json::from_slice(line).unwrap();
        let bytes = std::fs::read(&d.file).unwrap();
        let games = replay::replay_bytes(&bytes, &opts, Games::default()).0;
        let missing_semicolon = kifu_sgf::Collection::parse(&bytes)
            .diagnostics
            .iter()
            .any(|x| x.code == Code::MissingSemicolon);
        let candidates: Vec<&Line> = games
            .iter()
            .take(if missing_semicolon { 2 } else { 1 })
            .collect();
        let Some(first) = candidates.first() else {
            *counts.entry("kifu found no game").or_default() += 1;
            if d.status == "ok" {
                failures.push(format!("{}: kifu found no game", d.file));
            }
            continue;
        };
        let status: &str = match d.status.as_str() {
            "ok" => {
                let rows = d.rows.as_ref().unwrap().join("\n") + "\n";
                let matched = candidates
                    .iter()
                    .any(|g| g.error.is_none() && g.rows == rows && Some(g.moves) == d.moves);
                if matched {
                    moves += u64::from(d.moves.unwrap());
                    "same board"
                } else if candidates.iter().any(|g| g.both_colours) {
                    "B and W in one node (kifu plays both)"
                } else if let Some(e) = &first.error {
                    if e.contains("not square") || e.contains("not supported") {
                        "board kifu-go does not play on"
                    } else {
                        failures.push(format!("{}: {e}", d.file));
                        "failed"
                    }
                } else {
                    failures.push(format!(
                        "{}: sgfmill {} moves\n{rows}kifu {} moves\n{}",
                        d.file,
                        d.moves.unwrap(),
                        first.moves,
                        first.rows
                    ));
                    "failed"
                }
            }
            "occupied" => {
                if !candidates
                    .iter()
                    .any(|g| g.occupied && g.moves >= d.at.unwrap())
                {
                    failures.push(format!("{}: kifu did not report S058", d.file));
                }
                "onto a stone: sgfmill stops, kifu reports S058"
            }
            "setup-after-root" | "setup-not-legal" => {
                if first.error.is_some() {
                    failures.push(format!("{}: kifu did not replay it", d.file));
                }
                if d.status == "setup-not-legal" {
                    "setup without liberties: sgfmill refuses, kifu keeps"
                } else {
                    "setup after the root: sgfmill refuses, kifu applies"
                }
            }
            _ => "sgfmill cannot read",
        };
        *counts.entry(status).or_default() += 1;
    }
    eprintln!("{counts:#?}\n{moves} moves compared");
    assert!(
        failures.is_empty(),
        "{} games differ:\n{}",
        failures.len(),
        failures[..failures.len().min(10)].join("\n")
    );
    assert!(counts["same board"] > 950, "{counts:?}");
    assert!(moves > 140_000, "only {moves} moves compared");
    assert!(counts["onto a stone: sgfmill stops, kifu reports S058"] >= 1);
    assert!(counts["setup after the root: sgfmill refuses, kifu applies"] >= 40);
}
