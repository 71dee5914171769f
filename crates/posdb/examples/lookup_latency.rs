//! Lookup latency of a position index: opens INDEX, takes query positions from the SGF FILES
//! (main lines, every 10th move up to move 100), and times each `IndexReader::lookup` (the
//! search plus the winner of every matching game), printing median, 99th percentile and max.
//!
//! usage: lookup_latency INDEX FILES_LIST (a file with one SGF path per line)

use kifu_go::replay::{replay_bytes, ReplayOptions, Scope, Step};
use kifu_go::{Board, Color};
use kifu_posdb::index::IndexReader;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: lookup_latency INDEX FILES_LIST");
        std::process::exit(2);
    }
    let t = Instant::now();
    let db = IndexReader::open(args[1].as_ref()).expect("an index");
    let open_us = t.elapsed().as_secs_f64() * 1e6;
    let list = std::fs::read_to_string(&args[2]).expect("a file list");
    let opts = ReplayOptions {
        scope: Scope::MainLineOnly,
        ..Default::default()
    };
    let mut queries: Vec<(Board, Color)> = Vec::new();
    for path in list.lines().take(300) {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let _ = replay_bytes(&bytes, &opts, |s: &Step<'_>| {
            if s.game == 0
                && s.move_number % 10 == 0
                && s.move_number <= 100
                && s.position.size() == db.size()
            {
                queries.push((s.position.board(), s.to_play));
            }
        });
    }
    let mut times = Vec::with_capacity(queries.len());
    let mut found = 0usize;
    for (board, to_play) in &queries {
        let t = Instant::now();
        let r = db.lookup(board, *to_play, false).expect("lookup");
        times.push(t.elapsed().as_secs_f64() * 1e6);
        found += r.occurrences.len();
    }
    times.sort_by(f64::total_cmp);
    let q = |f: f64| times[((times.len() - 1) as f64 * f) as usize];
    println!(
        "{} games, {} positions; open {open_us:.0} us; {} lookups ({found} occurrences): median {:.1} us, p99 {:.1} us, max {:.1} us",
        db.games(),
        db.entries(),
        times.len(),
        q(0.5),
        q(0.99),
        q(1.0)
    );
}
