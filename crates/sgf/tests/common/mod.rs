//! Helpers shared by the corpus tests.
#![allow(dead_code)]

// Not every test file that includes this module uses both.
#[allow(unused_imports)]
pub use kifu_testdata::{corpus, sgf_files};

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
