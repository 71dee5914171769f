//! What the integration tests of the pattern index share.

pub mod oracle;

use kifu_go::BoardSize;
use kifu_posdb::extract::Source;
use kifu_posdb::index::{build_index, IndexOptions};
use kifu_search::Database;
use std::path::{Path, PathBuf};

/// The database of `files` (games of side `size`, every variation too if `variations`) built
/// in `dir`, with its pattern index.
#[allow(dead_code)] // Not every test file builds every kind.
pub fn build(dir: &Path, files: &[PathBuf], size: u32, variations: bool) -> Database {
    build_cut(dir, files, size, variations, None)
}

/// [`build`], with full-board entries kept only for positions of at most `most_stones` stones.
pub fn build_cut(
    dir: &Path,
    files: &[PathBuf],
    size: u32,
    variations: bool,
    most_stones: Option<u16>,
) -> Database {
    let sources: Vec<Source> = files.iter().map(Source::new).collect();
    let mut opts = IndexOptions::new(BoardSize::new(size).unwrap());
    opts.variations = variations;
    opts.most_stones = most_stones;
    let path = dir.join(format!("db{size}-{variations}-{most_stones:?}.kpx"));
    let mut out = std::fs::File::create(&path).unwrap();
    build_index(&sources, &opts, &mut out, &|| {}).unwrap();
    drop(out);
    Database::open(&path).unwrap()
}
