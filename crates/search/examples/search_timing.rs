//! Times pattern searches in process, for `bench/search.sh`: opens a `kifu pos index`
//! database, then runs each query of a JSON-lines file (kifu-search's `Query`) `runs` times over
//! the database's files and prints, per query, the games, hits and the fastest and median wall
//! time in milliseconds as one JSON line.
//!
//! usage: cargo run --release -p kifu-search --example search_timing -- DB QUERIES.jsonl [RUNS]

use kifu_posdb::index::IndexReader;
use kifu_search::collection::{index_files, search_files};
use kifu_search::scan::Page;
use kifu_search::Query;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        return Err("usage: search_timing DB QUERIES.jsonl [RUNS]".into());
    }
    let runs: usize = args.get(3).map_or(Ok(5), |r| r.parse())?;
    let db = IndexReader::open(std::path::Path::new(&args[1]))?;
    let files = index_files(&db)?;
    let text = std::fs::read_to_string(&args[2])?;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let q: Query = serde_json::from_str(line)?;
        let mut times = Vec::with_capacity(runs);
        let mut found = None;
        for _ in 0..runs.max(1) {
            let start = Instant::now();
            let a = search_files(
                &files,
                &q,
                Page {
                    offset: 0,
                    limit: 0,
                },
                Some(db.size()),
            );
            times.push(start.elapsed().as_secs_f64() * 1000.0);
            found = Some(a.answer);
        }
        times.sort_by(f64::total_cmp);
        let a = found.expect("one run at least");
        println!(
            "{}",
            serde_json::json!({
                "games": a.games, "hits": a.occurrences,
                "min_ms": times[0], "median_ms": times[times.len() / 2],
            })
        );
    }
    Ok(())
}
