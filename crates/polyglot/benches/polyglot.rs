//! Lookups in performance.bin and make-book on Fischer.pgn.
use criterion::{criterion_group, criterion_main, Criterion};
use kifu_polyglot::make::{make_book, Compat, MakeOptions};
use kifu_polyglot::Book;
use std::hint::black_box;
use std::path::PathBuf;

fn corpus(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/polyglot")
        .join(rel)
}

fn benches(c: &mut Criterion) {
    let book = Book::open(corpus("books/performance.bin")).unwrap();
    let keys: Vec<u64> = book
        .entries()
        .step_by(7)
        .map(|e| e.key ^ (e.key & 1))
        .collect();
    c.bench_function("lookup performance.bin (per key)", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % keys.len();
            black_box(book.lookup(keys[i]).count())
        })
    });
    let opts = MakeOptions {
        compat: Compat::Polyglot,
        ..MakeOptions::default()
    };
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let mut g = c.benchmark_group("make");
    g.sample_size(10);
    g.bench_function("make-book Fischer.pgn, 1 thread", |b| {
        b.iter(|| {
            black_box(
                one_thread
                    .install(|| make_book(&[corpus("pgn/Fischer.pgn")], &opts, &|_| {}))
                    .unwrap()
                    .entries
                    .len(),
            )
        })
    });
    g.finish();
}

criterion_group!(polyglot, benches);
criterion_main!(polyglot);
