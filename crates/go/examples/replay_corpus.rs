//! Replays SGF files (parse + replay + canonical hash of every position) on one core and prints
//! the speed; used by `bench/replay.sh`.
//!
//! usage: replay_corpus [--main-line | --parse-only] FILE_LIST   (one path per line; `-` for stdin)
//! The best of `KIFU_BENCH_RUNS` (default 5) runs is printed.

use kifu_go::replay::{self, ReplayOptions, Scope, Step};
use std::io::Read;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let main_line = args.iter().any(|a| a == "--main-line");
    let parse_only = args.iter().any(|a| a == "--parse-only");
    let runs: usize = std::env::var("KIFU_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let list = args
        .iter()
        .rfind(|a| !a.starts_with("--"))
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
        positions = 0;
        moves = 0;
        let mut r = replay::Replayer::new(opts.clone(), |s: &Step<'_>| {
            positions += 1;
            moves += u64::from(s.mv.is_some());
            xor ^= s.position.canonical().hash;
        });
        for f in &files {
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
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "{} files {bytes} bytes {positions} positions {moves} moves {best:.4} s {:.1} M moves/s {:.1} MB/s (check {xor:x})",
        files.len(),
        moves as f64 / best / 1e6,
        bytes as f64 / best / 1e6
    );
}
