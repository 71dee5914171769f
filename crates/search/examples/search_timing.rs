//! Times pattern searches in process, for `bench/search.sh`: opens a `kifu pos index`
//! database (with its pattern index), then runs each query of a JSON-lines file (kifu-search's
//! `Query`) `runs` times and prints, per query, the games, hits and the fastest and median wall
//! time in milliseconds as one JSON line (a line without a pattern, `{"filters": {...}}`, times
//! the filters alone). With `--scan`, the plain search of the games' files
//! instead (the oracle; every file read, parsed and replayed). `--cache-mb N`: the memory for
//! the games' cold parts (`kifu pos search --cache-mb`). `--dense auto|always|never`: how free
//! patterns find their places (`PatternIndex::set_dense_prune`).
//!
//! usage: cargo run --release -p kifu-search --example search_timing -- DB QUERIES.jsonl [RUNS] [--scan] [--cache-mb N] [--dense MODE]

use kifu_search::scan::Page;
use kifu_search::{Database, Query};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().collect();
    let scan = args.iter().any(|a| a == "--scan");
    args.retain(|a| a != "--scan");
    let cache = match args.iter().position(|a| a == "--cache-mb") {
        Some(i) if i + 1 < args.len() => {
            let mb: usize = args[i + 1].parse()?;
            args.drain(i..i + 2);
            Some(mb << 20)
        }
        Some(_) => return Err("--cache-mb needs a number".into()),
        None => None,
    };
    let dense = match args.iter().position(|a| a == "--dense") {
        Some(i) if i + 1 < args.len() => {
            let mode = match args[i + 1].as_str() {
                "auto" => kifu_search::index::DensePrune::Auto,
                "always" => kifu_search::index::DensePrune::Always,
                "never" => kifu_search::index::DensePrune::Never,
                _ => return Err("--dense takes auto, always or never".into()),
            };
            args.drain(i..i + 2);
            Some(mode)
        }
        Some(_) => return Err("--dense needs auto, always or never".into()),
        None => None,
    };
    if args.len() < 3 {
        return Err("usage: search_timing DB QUERIES.jsonl [RUNS] [--scan]".into());
    }
    let runs: usize = args.get(3).map_or(Ok(5), |r| r.parse())?;
    let start = Instant::now();
    let db = Database::open(std::path::Path::new(&args[1]))?;
    if let Some(bytes) = cache {
        db.patterns().set_cache_limit(bytes);
    }
    if let Some(mode) = dense {
        db.patterns().set_dense_prune(mode);
    }
    eprintln!("opened in {:.1} ms", start.elapsed().as_secs_f64() * 1000.0);
    let text = std::fs::read_to_string(&args[2])?;
    let page = Page {
        offset: 0,
        limit: 0,
    };
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let value: serde_json::Value = serde_json::from_str(line)?;
        if value.get("pattern").is_none() {
            // Filters alone (`{"filters": {...}}`): `Database::filter_games`.
            let filters: kifu_search::Filters =
                serde_json::from_value(value.get("filters").cloned().unwrap_or_default())?;
            let mut times = Vec::with_capacity(runs);
            let mut games = 0;
            for _ in 0..runs.max(1) {
                let start = Instant::now();
                games = db.filter_games(&filters, page, false).games;
                times.push(start.elapsed().as_secs_f64() * 1000.0);
            }
            times.sort_by(f64::total_cmp);
            println!(
                "{}",
                serde_json::json!({
                    "games": games, "hits": games,
                    "min_ms": times[0], "median_ms": times[times.len() / 2],
                })
            );
            continue;
        }
        let q: Query = serde_json::from_value(value)?;
        let mut times = Vec::with_capacity(runs);
        let mut found = None;
        for _ in 0..runs.max(1) {
            let start = Instant::now();
            let mut a = if scan {
                db.scan_many(std::slice::from_ref(&q), page, false)
            } else {
                db.search_many(std::slice::from_ref(&q), page, false)
            };
            times.push(start.elapsed().as_secs_f64() * 1000.0);
            found = a.answers.pop();
        }
        times.sort_by(f64::total_cmp);

        let a = found.ok_or("no answer")?;
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
