//! Replays SGF files (parse + replay + canonical hash of every position) on one core and prints
//! the speed; used by `bench/replay.sh`.
//!
//! usage: replay_corpus [--main-line | --parse-only] [--threads N] FILE_LIST
//! (one path per line; `-` for stdin). The best of `KIFU_BENCH_RUNS` (default 5) runs is printed.
//! With `--threads N` the files are shared out to N threads (one replayer each, files taken in
//! turn from a shared counter); the counts and the check value do not depend on N.

use kifu_go::replay::{self, ReplayOptions, Scope, Step};
use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let main_line = args.iter().any(|a| a == "--main-line");
    let parse_only = args.iter().any(|a| a == "--parse-only");
    let threads: usize = args
        .iter()
        .position(|a| a == "--threads")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
        .max(1);
    let runs: usize = std::env::var("KIFU_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let list = args
        .iter()
        .enumerate()
        .rfind(|&(i, a)| !a.starts_with("--") && (i == 0 || args[i - 1] != "--threads"))
        .map(|(_, a)| a)
        .cloned()
        .unwrap_or("-".into());
    let mut text = String::new();
    if list == "-" {
        std::io::stdin().read_to_string(&mut text).unwrap();
    } else {
        text = std::fs::read_to_string(&list).unwrap();
    }
    let files: Vec<Vec<u8>> = text
        .lines()
        .filter(|l| !l.is_empty())
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    let bytes: usize = files.iter().map(Vec::len).sum();
    let opts = ReplayOptions {
        scope: if main_line {
            Scope::MainLineOnly
        } else {
            Scope::AllVariations
        },
        ..Default::default()
    };
    let mut best = f64::MAX;
    let (mut positions, mut moves, mut xor) = (0u64, 0u64, 0u64);
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        let next = AtomicUsize::new(0);
        let totals: Vec<(u64, u64, u64)> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|_| scope.spawn(|| replay_share(&files, &next, &opts, parse_only)))
                .collect();
            workers.into_iter().map(|w| w.join().unwrap()).collect()
        });
        best = best.min(t.elapsed().as_secs_f64());
        positions = totals.iter().map(|t| t.0).sum();
        moves = totals.iter().map(|t| t.1).sum();
        xor = totals.iter().fold(0, |x, t| x ^ t.2);
    }
    println!(
        "{} files {threads} threads {bytes} bytes {positions} positions {moves} moves {best:.4} s {:.1} M moves/s {:.1} MB/s (check {xor:x})",
        files.len(),
        moves as f64 / best / 1e6,
        bytes as f64 / best / 1e6
    );
}

/// Replays files taken in turn from `next` until none is left: (positions, moves, XOR of the
/// canonical hashes).
fn replay_share(
    files: &[Vec<u8>],
    next: &AtomicUsize,
    opts: &ReplayOptions,
    parse_only: bool,
) -> (u64, u64, u64) {
    let (mut positions, mut moves, mut xor) = (0u64, 0u64, 0u64);
    let mut r = replay::Replayer::new(opts.clone(), |s: &Step<'_>| {
        positions += 1;
        moves += u64::from(s.mv.is_some());
        xor ^= s.position.canonical().hash;
    });
    loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(f) = files.get(i) else { break };
        let d = kifu_sgf::charset::decode(f);
        if parse_only {
            struct Nothing;
            impl kifu_sgf::Visitor for Nothing {}
            kifu_sgf::read(&d.text, &mut Nothing);
        } else {
            r.read_text(&d.text);
        }
    }
    drop(r);
    (positions, moves, xor)
}
