//! Corpus paths shared by the kifu-posdb integration tests.
#![allow(dead_code)]

#[allow(unused_imports)]
pub use kifu_testdata::sgf_files;
use std::path::PathBuf;

/// The SGF game corpus.
pub fn games() -> PathBuf {
    kifu_testdata::corpus().join("sgf/games")
}
