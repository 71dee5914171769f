//! Replay speed on the SGF game corpus: decode + parse + replay of every node of every variation
//! (captures, all 8 symmetric hashes) + the canonical hash of every position, in moves per second.
//! The files are read into memory before timing. Corpus: `../shared/corpus/sgf/games`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use kifu_go::replay::{self, ReplayOptions, Scope, Step};
use kifu_testdata::{corpus, sgf_files};
use std::hint::black_box;

fn replay_all(files: &[Vec<u8>], opts: &ReplayOptions) -> u64 {
    let mut acc = 0u64;
    for f in files {
        let _ = replay::replay_bytes(f, opts, |s: &Step<'_>| {
            acc ^= s.position.canonical().hash;
        });
    }
    acc
}

fn bench(c: &mut Criterion) {
    let dir = corpus().join("sgf/games");
    let files: Vec<Vec<u8>> = sgf_files(&dir)
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    let mut g = c.benchmark_group("corpus replay");
    g.sample_size(10);
    for (name, scope) in [
        ("all variations", Scope::AllVariations),
        ("main line", Scope::MainLineOnly),
    ] {
        let opts = ReplayOptions {
            scope,
            ..Default::default()
        };
        let mut moves = 0u64;
        for f in &files {
            let _ = replay::replay_bytes(f, &opts, |s: &Step<'_>| {
                moves += u64::from(s.mv.is_some());
            });
        }
        g.throughput(Throughput::Elements(moves));
        g.bench_function(name, |b| b.iter(|| black_box(replay_all(&files, &opts))));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
