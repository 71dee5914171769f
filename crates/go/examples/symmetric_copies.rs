//! Makes a large collection out of a small one for the scale benchmarks (`bench/search.sh`
//! with `KIFU_BENCH_GAMES`): the 19x19 games of the SGF files under SRC, written again under
//! each of the 8 symmetries in turn (`OUT/s0/...` is the identity, `OUT/s1/...` the next
//! symmetry, and so on; past 8 copies the symmetries repeat, as exact duplicates), until
//! GAMES games are written. Files that do not parse into 19x19 games are left out.
//!
//! usage: symmetric_copies SRC OUT GAMES

use kifu_go::transform::transform_game_into;
use kifu_go::Symmetry;
use kifu_sgf::{Builder, Collection};
use std::path::{Path, PathBuf};

fn sgf_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("a readable folder")
        .map(|e| e.expect("a folder entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            sgf_files(&p, out);
        } else if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("sgf")) {
            out.push(p);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [src, out, games] = &args[..] else {
        eprintln!("usage: symmetric_copies SRC OUT GAMES");
        std::process::exit(2);
    };
    let want: usize = games.parse().expect("GAMES: a number");
    let (src, out) = (Path::new(src), Path::new(out));
    let mut files = Vec::new();
    sgf_files(src, &mut files);
    // Each file's 19x19 games, parsed once.
    let parsed: Vec<(PathBuf, Collection, Vec<usize>)> = files
        .into_iter()
        .filter_map(|p| {
            let coll = Collection::parse(&std::fs::read(&p).ok()?).collection;
            let keep: Vec<usize> = coll
                .games()
                .enumerate()
                .filter(|(_, g)| g.board_size() == Some((19, 19)))
                .map(|(i, _)| i)
                .collect();
            let rel = p.strip_prefix(src).ok()?.to_path_buf();
            (!keep.is_empty()).then_some((rel, coll, keep))
        })
        .collect();
    let per_copy: usize = parsed.iter().map(|(_, _, k)| k.len()).sum();
    assert!(per_copy > 0, "no 19x19 games under {}", src.display());
    let mut written = 0;
    'copies: for copy in 0.. {
        let s = Symmetry::ALL[copy % 8];
        for (rel, coll, keep) in &parsed {
            let mut b = Builder::new();
            let mut n = 0;
            for g in coll.games().enumerate().filter(|(i, _)| keep.contains(i)) {
                if written + n == want {
                    break;
                }
                if transform_game_into(g.1, s, &mut b).is_ok() {
                    n += 1;
                }
            }
            if n > 0 {
                let path = out.join(format!("s{copy}")).join(rel);
                std::fs::create_dir_all(path.parent().expect("a parent")).expect("a folder");
                std::fs::write(&path, kifu_sgf::write(&b.finish())).expect("written");
                written += n;
            }
            if written == want {
                break 'copies;
            }
        }
    }
    println!(
        "{written} games ({per_copy} a copy) under {}",
        out.display()
    );
}
