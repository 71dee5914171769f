//! Test-only helpers shared by the kifu crates' tests and benchmarks: where the shared corpus is
//! (`../shared/corpus` beside the repository) and its SGF files, in one sorted order, and a
//! seeded random generator ([`Rng`]).
//!
//! ```
//! let games = kifu_testdata::corpus().join("sgf/games");
//! # if games.is_dir() {
//! let files = kifu_testdata::sgf_files(&games);
//! assert!(files.windows(2).all(|w| w[0] < w[1]));
//! # }
//! ```

use std::path::{Path, PathBuf};

/// `../shared/corpus` beside the repository root.
pub fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
}

/// Every file under `dir` ending in `.sgf` (any case), sorted. Panics with the folder's name if
/// a folder cannot be read: tests over a missing corpus must fail, not pass on nothing.
pub fn sgf_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.unwrap_or_else(|e| panic!("{}: {e}", d.display())).path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("sgf")) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Writes `halving.pgn` in `dir`: 17,000 games that all open 1. e4, so that the start
/// position's e4 reaches Polyglot's 16,384-game count and make-book halves the position's
/// counts; replies and results vary so that halving changes weights and order.
pub fn halving_pgn(dir: &Path) -> PathBuf {
    let replies = ["e5", "c5", "e6", "c6", "d5", "Nf6"];
    let results = ["1-0", "0-1", "1/2-1/2", "1-0", "*"];
    let mut text = String::new();
    for k in 0..17_000usize {
        let r = results[(k * 7 + k / 13) % results.len()];
        let reply = replies[(k * k + 3 * k) % replies.len()];
        text.push_str(&format!(
            "[Event \"g{k}\"]\n[Result \"{r}\"]\n\n1. e4 {reply} 2. Nf3 {r}\n\n"
        ));
    }
    let path = dir.join("halving.pgn");
    std::fs::write(&path, text).expect("the test folder is writable");
    path
}

/// xorshift64*: seeded randomness for tests and the tools that cut queries, the same numbers
/// on every run and machine (a seed of 0 stays 0: give another).
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}
