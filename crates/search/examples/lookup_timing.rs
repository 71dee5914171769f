//! Times full-board lookups two ways on one database, for the plan of a `.kpx` that keeps
//! entries for the first moves only (ARCHITECTURE.md, "Size on disk"): the entries'
//! `IndexReader::lookup_page` and the pattern index's `lookup::lookup_page_by_search`, each
//! with a page of 20. The boards come from a JSON-lines file of whole-board queries (kifu-search
//! `Query`: the board as the pattern's rows, its side to move in `to_play`, Black if none).
//! Prints per board one JSON line: both answers' occurrences, whether they are equal, and the
//! fastest of `runs` for each in milliseconds. With `CUT_DB` (the same games indexed with
//! entries cut by stones, `kifu pos index --entry-stones N`), also `Database::lookup_page` of
//! it: from its entries or by the search, as the board's stones say (checked equal too).
//!
//! usage: cargo run --release -p kifu-search --example lookup_timing -- DB BOARDS.jsonl [RUNS] [CUT_DB]

use kifu_go::{Board, Color, Point};
use kifu_search::lookup::lookup_page_by_search;
use kifu_search::{Cell, Database, Query};
use std::time::Instant;

fn fastest<T>(runs: usize, mut f: impl FnMut() -> T) -> (T, f64) {
    let mut best = f64::INFINITY;
    let mut out = f();
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        out = f();
        best = best.min(start.elapsed().as_secs_f64() * 1000.0);
    }
    (out, best)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        return Err("usage: lookup_timing DB BOARDS.jsonl [RUNS] [CUT_DB]".into());
    }
    let runs: usize = args.get(3).map_or(Ok(5), |r| r.parse())?;
    let db = Database::open(std::path::Path::new(&args[1]))?;
    let cut = match args.get(4) {
        Some(p) => Some(Database::open(std::path::Path::new(p))?),
        None => None,
    };
    let size = db.reader().size();
    for line in std::fs::read_to_string(&args[2])?.lines() {
        if line.trim().is_empty() {
            continue;
        }
        let query: Query = serde_json::from_str(line)?;
        let p = &query.pattern;
        if p.width() != u32::from(size.get()) || p.height() != p.width() {
            return Err("a query that is not a whole board of the database's size".into());
        }
        let mut board = Board::new(size);
        for y in 0..p.height() {
            for x in 0..p.width() {
                let stone = match p.cell(x, y) {
                    Cell::Black => Some(Color::Black),
                    Cell::White => Some(Color::White),
                    _ => None,
                };
                board.set(Point::new(x, y, size)?, stone)?;
            }
        }
        let to_play = query.to_play.unwrap_or(Color::Black);
        let (entries, entries_ms) =
            fastest(runs, || db.reader().lookup_page(&board, to_play, false, 20));
        let (searched, search_ms) = fastest(runs, || {
            lookup_page_by_search(&db, &board, to_play, false, 20)
        });
        let (entries, searched) = (entries?, searched?);
        let mut line = serde_json::json!({
            "stones": board.stone_count(),
            "occurrences": entries.occurrences,
            "games": entries.games,
            "equal": entries == searched,
            "entries_ms": entries_ms,
            "search_ms": search_ms,
        });
        if let Some(cut) = &cut {
            let (page, ms) = fastest(runs, || cut.lookup_page(&board, to_play, false, 20));
            line["cut_equal"] = (page? == entries).into();
            line["cut_ms"] = ms.into();
        }
        println!("{line}");
    }
    Ok(())
}
