//! Writes small valid index files as seeds for the `posdb_index` fuzz target, so that the fuzzer
//! starts past the header checks: one without summaries, one where every key with 2+ entries has
//! a summary (the empty board and the common openings among them), and one of the same games
//! plus a game with variations, indexed with variations (entries with the variation bit).
//!
//! usage: index_fuzz_seeds OUT_DIR SGF_FILE...   (9x9 games; a few dozen is plenty)

use kifu_go::BoardSize;
use kifu_posdb::extract::Source;
use kifu_posdb::index::{build_index, IndexOptions};
use std::path::PathBuf;

fn main() {
    let mut args = std::env::args().skip(1);
    let out = PathBuf::from(
        args.next()
            .expect("usage: index_fuzz_seeds OUT_DIR SGF_FILE..."),
    );
    let mut files: Vec<PathBuf> = args.map(PathBuf::from).collect();
    std::fs::create_dir_all(&out).expect("output folder");
    let dir = tempfile::tempdir().expect("temporary folder");
    let tree = dir.path().join("tree.sgf");
    std::fs::write(
        &tree,
        "(;GM[1]SZ[9]RE[W+R];B[ee](;W[cc];B[gg](;W[gc])(;W[cg]))(;W[gg];B[cc];W[])(;W[cc]C[x];B[cg]))",
    )
    .expect("tree written");
    for (name, threshold, variations) in [
        ("plain.idx", u64::MAX, false),
        ("summaries.idx", 2, false),
        ("variations.idx", 2, true),
    ] {
        let mut opts = IndexOptions::new(BoardSize::NINE);
        opts.summary_threshold = threshold;
        opts.variations = variations;
        if variations {
            files.push(tree.clone());
        }
        let mut bytes = Vec::new();
        let sources: Vec<Source> = files.iter().map(Source::new).collect();
        let s = build_index(&sources, &opts, &mut bytes, &|| {}).expect("index builds");
        std::fs::write(out.join(name), &bytes).expect("seed written");
        println!("{name}: {} bytes, {s:?}", bytes.len());
    }
}
