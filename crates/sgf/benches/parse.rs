//! Kernels of kifu-sgf: parse into the tree, write, check+convert, on the SGF
//! game corpus held in memory (`../shared/corpus/sgf/games`, or the bundled
//! examples when the corpus is not beside the project).
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::path::{Path, PathBuf};

fn load() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = root.join("../../../shared/corpus/sgf/games");
    let dir = if corpus.is_dir() {
        corpus
    } else {
        root.join("../../examples/sgf")
    };
    let mut files = Vec::new();
    let mut stack: Vec<PathBuf> = vec![dir];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("sgf")) {
                files.push(std::fs::read(&p).unwrap());
            }
        }
    }
    files.sort();
    files
}

fn benches(c: &mut Criterion) {
    let files = load();
    let bytes: usize = files.iter().map(Vec::len).sum();
    let parsed: Vec<_> = files
        .iter()
        .map(|f| kifu_sgf::Collection::parse(f).collection)
        .collect();
    let mut g = c.benchmark_group("sgf");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.sample_size(20);
    g.bench_function("parse", |b| {
        b.iter(|| {
            files
                .iter()
                .map(|f| kifu_sgf::Collection::parse(f).collection.node_count())
                .sum::<usize>()
        })
    });
    g.bench_function("write", |b| {
        b.iter(|| {
            parsed
                .iter()
                .map(|c| kifu_sgf::write(c).len())
                .sum::<usize>()
        })
    });
    g.bench_function("check", |b| {
        b.iter(|| {
            parsed
                .iter()
                .map(|c| kifu_sgf::convert::check(c).len())
                .sum::<usize>()
        })
    });
    g.bench_function("to_ff4", |b| {
        b.iter(|| {
            parsed
                .iter()
                .map(|c| kifu_sgf::convert::to_ff4(c).collection.node_count())
                .sum::<usize>()
        })
    });
    g.finish();
}

criterion_group!(sgf, benches);
criterion_main!(sgf);
