//! Writes pattern queries cut from real positions, for `bench/search_cut.sh`: corners (5x5 to
//! 8x8) and sides (7 to 11 wide, 4 or 5 deep) of the main-line position at a random move
//! (10 to 120) of random games of a folder, as `search_timing` reads them (one JSON `Query`
//! a line). Kombilo's manual benchmarks its corner search the same way; the corners and sides
//! a user selects on a board are such cuts. Seeded, so a run can be repeated.
//!
//! With KOMBILO_OUT, the same queries are also written there as `tools/kombilo_search.py`
//! reads them (corner: fixed at the cut's place; side: sliding along its edge, corners
//! included, as kifu's `Placement::Edge`).
//!
//! usage: cargo run --release -p kifu-search --example cut_queries -- FOLDER COUNT [SEED] [KOMBILO_OUT] > Q.jsonl

use kifu_go::replay::{replay_game, ReplayOptions, Scope, Step};
use kifu_go::Board;
use kifu_posdb::extract::Source;
use kifu_search::{Pattern, Placement, Query};
use kifu_testdata::Rng;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        return Err("usage: cut_queries FOLDER COUNT [SEED] [KOMBILO_OUT]".into());
    }
    let count: usize = args[2].parse()?;
    let mut rng = Rng(args.get(3).map_or(Ok(7), |s| s.parse())?);
    // Every SGF file under the folder, in subfolders too.
    let mut files = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from(&args[1])];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("sgf"))
            {
                files.push(path);
            }
        }
    }
    if files.is_empty() {
        return Err(format!("{}: no SGF files", args[1]).into());
    }
    files.sort();
    let mut kombilo = match args.get(4) {
        Some(path) => Some(std::io::BufWriter::new(std::fs::File::create(path)?)),
        None => None,
    };
    let mut made = 0;
    let mut tries = 0;
    while made < count && tries < count * 50 {
        tries += 1;
        let path = &files[rng.below(files.len() as u64) as usize];
        let Ok(coll) = Source::new(path).read_games() else {
            continue;
        };
        let Some(game) = coll.game(0) else { continue };
        let mut boards: Vec<Board> = Vec::new();
        let opts = ReplayOptions {
            scope: Scope::MainLineOnly,
            ..ReplayOptions::default()
        };
        let _ = replay_game(game, &opts, |s: &Step<'_>| {
            boards.push(s.position.board());
        });
        if boards.len() < 30 || boards[0].size().get() != 19 {
            continue;
        }
        let at = 10 + rng.below(110.min(boards.len() as u64 - 10)) as usize;
        let board = &boards[at];
        let n = 19;
        let corner = made % 2 == 0;
        let (w, h) = if corner {
            let s = 5 + rng.below(4) as u32;
            (s, s)
        } else {
            (7 + rng.below(5) as u32, 4 + rng.below(2) as u32)
        };
        let (col, row) = if corner {
            (
                if rng.below(2) == 0 { 0 } else { n - w },
                if rng.below(2) == 0 { 0 } else { n - h },
            )
        } else {
            (
                1 + rng.below(u64::from(n - w - 1)) as u32,
                if rng.below(2) == 0 { 0 } else { n - h },
            )
        };
        let Some(p) = Pattern::from_board(board, col, row, w, h) else {
            continue;
        };
        let stones = p.stones();
        // An empty area is not a query anyone asks.
        if stones == 0 {
            continue;
        }
        if let Some(out) = &mut kombilo {
            use std::io::Write;
            let rows = p.to_rows().trim_end().replace('#', "X");
            let line = serde_json::json!({
                "pattern": rows,
                "kind": if corner { "corner" } else { "side" },
                "anchor": [col, row],
            });
            writeln!(out, "{line}")?;
        }
        let q = Query::new(p, Placement::of_region(col, row, w, h, n));
        println!("{}", serde_json::to_string(&q)?);
        made += 1;
    }
    Ok(())
}
