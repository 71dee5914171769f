//! Corpus paths and file lists shared by the kifu-posdb integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The SGF game corpus, `../shared/corpus/sgf/games` beside the repository.
pub fn games() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/sgf/games")
}

/// Every `.sgf` file under `dir` (any case of the extension), sorted.
pub fn sgf_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
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
