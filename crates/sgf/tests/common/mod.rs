//! Helpers shared by the corpus tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `../shared/corpus` beside the project root.
pub fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
}

/// Every file under `dir` ending in `.sgf` (any case), sorted.
pub fn sgf_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
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

/// A canonical text dump of a collection's structure and values, for
/// comparing trees: one line per node with its depth, parent, and properties.
pub fn dump(c: &kifu_sgf::Collection, skip_ca: bool) -> Vec<String> {
    let mut out = Vec::new();
    for g in c.games() {
        out.push(format!("game {}", g.index()));
        for n in g.nodes() {
            let mut line = format!(
                "{}<{:?}:",
                n.index() - g.root().index(),
                n.parent().map(|p| p.index() - g.root().index())
            );
            for p in n.properties() {
                line.push_str(p.id());
                if skip_ca && p.id() == "CA" {
                    line.push_str("[*]");
                    continue;
                }
                for v in p.values() {
                    line.push('[');
                    line.push_str(&String::from_utf8_lossy(v.raw()));
                    line.push(']');
                }
            }
            out.push(line);
        }
    }
    out
}
