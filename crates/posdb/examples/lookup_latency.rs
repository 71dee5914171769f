//! Lookup latency of a position index: opens INDEX, takes query positions from the SGF FILES
//! (main lines, every 10th move up to move 100, and the empty board), and times each
//! `IndexReader::lookup_page` with 20 games listed (what `kifu pos lookup` does: counts,
//! continuations with win rates, the first games), printing median, 99th percentile and max and
//! the slowest position's number of occurrences (each query timed 3 times, its best kept), and
//! the empty board's time. With `--full`, times `IndexReader::lookup`
//! (every matching entry read) instead.
//!
//! usage: lookup_latency INDEX FILES_LIST [--full]  (FILES_LIST: one SGF path per line)

use kifu_go::replay::{replay_bytes, ReplayOptions, Scope, Step};
use kifu_go::{Board, Color};
use kifu_posdb::index::IndexReader;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let full = args.get(3).is_some_and(|a| a == "--full");
    if args.len() != 3 && !full {
        eprintln!("usage: lookup_latency INDEX FILES_LIST [--full]");
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
    let mut queries: Vec<(Board, Color)> = vec![(Board::new(db.size()), Color::Black)];
    for path in list.lines().take(300) {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let _ = replay_bytes(&bytes, &opts, |s: &Step<'_>| {
            if s.game == 0
                && s.move_number.is_multiple_of(10)
                && s.move_number <= 100
                && s.position.size() == db.size()
            {
                queries.push((s.position.board(), s.to_play));
            }
        });
    }
    // Each query is timed in 3 rounds and its best time kept: on a shared machine a single
    // lookup can be preempted for milliseconds, which says nothing about the lookup.
    let mut times = vec![(f64::INFINITY, 0u64); queries.len()];
    let mut found = 0u64;
    for round in 0..3 {
        for (q, (board, to_play)) in queries.iter().enumerate() {
            let t = Instant::now();
            let n = if full {
                db.lookup(board, *to_play, false)
                    .expect("lookup")
                    .occurrences
                    .len() as u64
            } else {
                db.lookup_page(board, *to_play, false, 20)
                    .expect("lookup")
                    .occurrences
            };
            let us = t.elapsed().as_secs_f64() * 1e6;
            times[q] = (times[q].0.min(us), n);
            if round == 0 {
                found += n;
            }
        }
    }
    let empty = times[0];
    times.sort_by(|a, b| a.0.total_cmp(&b.0));
    let q = |f: f64| times[((times.len() - 1) as f64 * f) as usize].0;
    let slowest = times.last().map_or(0, |t| t.1);
    println!(
        "{} games, {} positions, {} summaries; open {open_us:.0} us; {} {} ({found} occurrences), best of 3 each: median {:.1} us, p99 {:.1} us, max {:.1} us ({slowest} occurrences); the empty board {:.1} us ({} occurrences)",
        db.games(),
        db.entries(),
        db.summaries(),
        times.len(),
        if full { "full lookups" } else { "lookups" },
        q(0.5),
        q(0.99),
        q(1.0),
        empty.0,
        empty.1
    );
}
