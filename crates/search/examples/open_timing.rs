//! Times the steps of opening a `kifu pos index` database for pattern search (what
//! `kifu_search::Database::open` does): the full-board index's header, its games' files and
//! numbers, the fingerprint, and the pattern index's sidecar (read whole once: checksum and
//! every node checked). For `bench/RESULTS.md`.
//!
//! usage: cargo run --release -p kifu-search --example open_timing -- DB.kpx

use std::time::Instant;

/// The process's resident memory now, in MB (Linux), for the memory each step adds.
fn rss_mb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map_or(0, |kb| kb / 1024)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::path::PathBuf::from(std::env::args().nth(1).ok_or("usage: open_timing DB")?);
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1000.0;
    let t = Instant::now();
    let reader = kifu_posdb::index::IndexReader::open(&path)?;
    println!("index header: {:.1} ms, {} MB resident", ms(t), rss_mb());
    let t = Instant::now();
    let files = kifu_search::collection::index_files(&reader)?;
    println!(
        "files and game numbers: {:.1} ms ({} files), {} MB resident",
        ms(t),
        files.len(),
        rss_mb()
    );
    let t = Instant::now();
    let fingerprint = kifu_search::index::fingerprint(&files);
    println!("fingerprint: {:.1} ms", ms(t));
    let t = Instant::now();
    let sidecar = kifu_search::index::sidecar_path(&path);
    let index = kifu_search::index::PatternIndex::load(&sidecar, fingerprint)?
        .ok_or("no pattern index for this database (kifu pos index builds it)")?;
    println!(
        "pattern index: {:.1} ms ({} games), {} MB resident",
        ms(t),
        index.games(),
        rss_mb()
    );
    Ok(())
}
